"""The director's console in a real browser (Debian chromium, Playwright): a night started from
a roster with a Howell movement (13 players at 3 tables: one sits out each round), three rounds
played by light simulated tables, a score corrected, an average given, a ruling noted, the night
ended, the results printed (a PDF from the print page), score cards, hand records and CSV."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
from fractions import Fraction
from typing import Any

import pytest
from club_rig import ClubRig, needs_mosquitto, wait_for
from test_page import CHROMIUM, _playwright

from trickref.device.club import scoring
from trickref.device.club import topics as T
from trickref.device.club.broker import free_port
from trickref.device.club.sim import play_round
from trickref.device.club.web import Site
from trickref.engine.records import parse, replay

pytestmark = needs_mosquitto

ROSTER = ["Ana", "Ben", "Cem", "Dia", "Eli", "Fay", "Gus", "Hal", "Ida", "Jo", "Kai", "Lou", "Çağla"]


def expected_totals(rig: ClubRig, records: dict[tuple[str, int], dict[str, Any]],
                    points_fix: dict[tuple[str, int, int], list[int]],
                    average: set[tuple[str, int, int]]) -> dict[str, float]:
    """The night's scores by hand: the records replayed, the director's points and averages
    applied, each seat's score given to whoever sat there in that round (the movement)."""
    boards: dict[tuple[int, int], dict[str, list[int]]] = {}
    for (t, r), rec in records.items():
        for b, row in enumerate(replay(parse(rec)).hand_results):
            boards.setdefault((r, b), {})[t] = points_fix.get((t, r, b), row["points"])
    for (t, r, b) in average:
        boards[(r, b)].pop(t)
    _, per_board = scoring.night_scores("hearts", boards, "average")
    for (t, r, b) in average:
        per_board[(r, b)][t] = [Fraction(0)] * 4
    totals: dict[str, Fraction] = {}
    mv = rig.hub.state.movement
    assert mv is not None
    for (r, _b), row in per_board.items():
        for t, scores in row.items():
            for s, v in enumerate(scores):
                pid = mv.seats(r)[t][s]
                totals[pid] = totals.get(pid, Fraction(0)) + v
    return {pid: round(float(v), 4) for pid, v in totals.items()}


@pytest.mark.timeout(400)
def test_a_director_runs_a_night_from_the_console(club, tmp_path) -> None:
    sync_playwright = _playwright()
    rig: ClubRig = club(tables=["t1", "t2", "t3"], rounds=3, boards=2)
    site = Site(rig.hub, "127.0.0.1", free_port()).start()
    links = {t: rig.link(t) for t in rig.night.tables}
    records: dict[tuple[str, int], dict[str, Any]] = {}
    password = rig.night.passwords[T.DIRECTOR_USER]
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync"])
            # without the password: no console
            anon = browser.new_context()
            assert anon.request.get(site.url + "console").status == 401
            ctx = browser.new_context(http_credentials={"username": "director", "password": password},
                                      viewport={"width": 1400, "height": 1000})
            page = ctx.new_page()
            page.goto(site.url + "console")
            page.wait_for_selector("#rounds li[data-round='2']")
            assert page.inner_text("#broker") == "broker: connected"

            # the roster, entered once, and a Howell movement
            page.fill("#roster", "\n".join(ROSTER))
            page.select_option("#style", "howell")
            page.click("#set-roster")
            page.wait_for_function("() => document.getElementById('message').textContent.startsWith('roster of 13')")
            assert page.locator("#seating .seat-round").count() == 3
            mv = rig.hub.state.movement
            assert mv is not None and mv.style == "howell"
            out = [mv.sit_outs(r) for r in range(3)]
            assert all(len(x) == 1 for x in out) and len({x[0] for x in out}) == 3  # a different one each round
            shown = page.inner_text("#seating .seat-round[data-round='0'] tr[data-table=t1]").split("\t")
            want = [rig.hub.state.name_of(x) for x in mv.seats(0)["t1"]]
            assert [x.strip() for x in shown[1:]] == want
            # every table's kiosk has its seating, for every round
            assert wait_for(lambda: all(len(links[t].seats) == 3 for t in links), 20)
            assert links["t1"].seats[0] == want
            # no round 1 seat repeats round 1's foursome later (3 tables, 13 players)
            firsts = [set(v) for v in mv.seats(0).values()]
            assert all(set(v) not in firsts for r in (1, 2) for v in mv.seats(r).values())

            for r in range(3):
                page.click(f"#start-{r + 1}")
                page.wait_for_selector(f"#rounds li[data-round='{r}'][data-state=open]")
                seating = rig.hub.state.seating(r)
                for i, t in enumerate(rig.night.tables):
                    names = [x["name"] for x in seating[t]]
                    records[(t, r)] = play_round(links[t], r, "hearts", 4, {}, 2, seed=10 * r + i, names=names).record()
                for lk in links.values():
                    assert lk.flush(30), lk.status()
                page.wait_for_function(f"() => document.querySelector(\"#rounds li[data-round='{r}']\")"
                                       ".textContent.includes('every table is done')", timeout=30000)
                assert f"round {r + 1} done" in page.inner_text("#tables tr[data-table=t2]")
                page.click(f"#end-{r + 1}")
                page.wait_for_selector(f"#rounds li[data-round='{r}'][data-state=ended]")
                if r < 2:  # the page shows who sits where next
                    doc = json.loads(ctx.request.get(site.url + "standings.json").text())
                    assert doc["seating"]["round"] == r + 1
                    assert [x["name"] for x in doc["seating"]["tables"]["t1"]] == \
                        [x["name"] for x in rig.hub.state.seating(r + 1)["t1"]]

            # correct a score: t1's points on round 1, board 1 (a revoke, say)
            res = rig.hub.state.results[("t1", 0, 0)]
            fixed = [res.points[1], res.points[0], *res.points[2:]]
            page.select_option("#c-kind", "points")
            page.fill("#c-round", "1")
            page.fill("#c-board", "1")
            page.fill("#c-table", "t1")
            page.fill("#c-points", ", ".join(map(str, fixed)))
            page.fill("#c-reason", "")
            page.click("#apply")  # no reason: refused, said
            page.wait_for_function("() => document.getElementById('message').textContent.includes('needs its reason')")
            page.fill("#c-reason", "revoke by seat 1, points moved")
            page.click("#apply")
            page.wait_for_selector("#corrections li[data-id='1']")
            # an average: t3 could not play round 2, board 2 properly
            page.select_option("#c-kind", "adjusted")
            page.fill("#c-round", "2")
            page.fill("#c-board", "2")
            page.fill("#c-table", "t3")
            page.fill("#c-scores", "avg")
            page.fill("#c-reason", "cards dropped on the floor")
            page.click("#apply")
            page.wait_for_selector("#corrections li[data-id='2']")
            # a ruling, noted
            page.select_option("#c-kind", "note")
            page.fill("#c-round", "3")
            page.fill("#c-board", "1")
            page.fill("#c-table", "t2")
            page.fill("#c-reason", "claim accepted at trick 10")
            page.click("#apply")
            page.wait_for_selector("#corrections li[data-id='3']")
            assert rig.hub.settle(10)
            want_scores = expected_totals(rig, records, {("t1", 0, 0): fixed}, {("t3", 1, 1)})
            got = {p["id"]: p["score"] for p in rig.hub.standings["players"] if p["boards"]}
            assert got == want_scores
            page.wait_for_function("s => document.body.dataset.seq === s", arg=str(rig.hub.standings["seq"]))
            first = rig.hub.standings["players"][0]
            row = page.inner_text(f"#standings tr[data-id='{first['id']}']").split("\t")
            assert row[1] == first["name"]

            page.screenshot(path=str(tmp_path / "console.png"), full_page=True)
            # end the night
            page.click("#end-night")
            page.wait_for_function("() => document.getElementById('message').textContent.startsWith('the night has ended')")
            assert rig.hub.state.ended is not None
            assert "Start round" not in page.inner_text("#rounds")

            # print the results
            printed = ctx.new_page()
            printed.goto(site.url + "console/print")
            assert printed.inner_text("h1") == "Club night n1: results"
            assert printed.inner_text(".status").startswith("Final results")
            assert printed.locator("table.standings tbody tr").count() == 13
            corr = printed.inner_text("ul.corrections")
            assert "revoke by seat 1" in corr and "cards dropped" in corr and "claim accepted" in corr
            assert printed.locator("section.board").count() == 6
            printed.emulate_media(media="print")
            assert printed.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(255, 255, 255)"
            pdf = printed.pdf(format="A4")
            assert pdf[:5] == b"%PDF-" and len(pdf) > 5000
            (tmp_path / "results.pdf").write_bytes(pdf)
            printed.screenshot(path=str(tmp_path / "print.png"), full_page=True)
            cards = ctx.new_page()
            cards.goto(site.url + "console/cards")
            assert cards.locator("section.card").count() == 13
            ana = cards.locator("section.card", has_text="Ana").first.inner_text()
            assert "Score" in ana and "At the table" in ana
            hands = ctx.new_page()
            hands.goto(site.url + "console/hands")
            assert hands.locator("section.hand").count() == 6
            deal = hands.locator("section.hand").first.locator("table.deal tr")
            assert deal.count() == 4
            # every seat has 13 cards: count the ranks shown (10 is one card)
            for i in range(4):
                text = deal.nth(i).inner_text().split("\t")[1]
                assert sum(1 for tok in text.split() if tok not in "♠♥♦♣–") == 13
            resp = ctx.request.get(site.url + "console/results.csv")
            assert resp.headers["content-disposition"] == 'attachment; filename="n1-results.csv"'
            rows = list(csv.reader(io.StringIO(resp.text())))
            assert rows[0][:3] == ["rank", "player", "id"] and len(rows) == 14
            assert {r[2]: float(r[5]) for r in rows[1:] if int(r[6])} == want_scores
            boards = list(csv.reader(io.StringIO(ctx.request.get(site.url + "console/boards.csv").text())))
            assert len(boards) == 1 + 6 * 3 * 4
            browser.close()
        shots = os.environ.get("CLUB_SCREENSHOTS")
        if shots:
            for n in ("console.png", "print.png", "results.pdf"):
                shutil.copy(tmp_path / n, os.path.join(shots, n))
    finally:
        site.stop()


def test_roster_corrections_and_the_end_survive_a_restart(club) -> None:
    """Everything the director does is journaled: a restarted hub has the same roster, movement,
    corrections (and withdrawals), rounds and final flag, and the same standings."""
    from club_rig import offline_round, publish_all

    from trickref.device.club.hub import Hub
    from trickref.device.club.state import Refused

    rig: ClubRig = club(tables=["t1", "t2", "t3"], rounds=1, boards=2)
    rig.hub.set_roster(ROSTER[:8], "mitchell")  # 8 players: two tables; t3 does not play
    assert rig.hub.state.dealt(0) == ["t1", "t2"]
    rig.hub.start_round(0)
    with pytest.raises(Refused, match="before round 1 starts"):
        rig.hub.set_roster(ROSTER, "howell")
    for i, t in enumerate(["t1", "t2", "t3"]):
        pending, _ = offline_round(rig, t, 0, seed=i)
        publish_all(rig, t, [(p.topic, p.payload) for p in pending])
    assert wait_for(lambda: len(rig.hub.state.results) == 4 and len(rig.hub.dropped) >= 4)
    assert all("table t3 does not play round 1" in w for w in rig.hub.dropped)
    with pytest.raises(Refused, match="table t3 does not play round 1"):
        rig.hub.correct("points", "t3", 0, 0, "x", points=[1, 2, 3, 4])
    with pytest.raises(Refused, match="needs its reason"):
        rig.hub.correct("remove", "t1", 0, 1)
    before = {p["id"]: p["score"] for p in (rig.hub.settle(10) and rig.hub.standings)["players"]}
    rig.hub.correct("remove", "t1", 0, 1, "a fouled board")
    rig.hub.correct("adjusted", "t2", 0, 0, "slow play", scores=[1.5, -1.5, "avg", 0])
    rig.hub.withdraw(1)
    rig.hub.end_round(0)
    rig.hub.end_night()
    assert rig.hub.settle(10)
    after = {p["id"]: p["score"] for p in rig.hub.standings["players"]}
    assert after != before
    board = next(b for b in rig.hub.standings["board_results"] if (b["round"], b["board"]) == (0, 0))
    assert board["tables"]["t2"]["scores"] == [1.5, -1.5, 0, 0] and board["tables"]["t2"]["adjusted"]
    rig.hub.stop()
    rig.hub = Hub(rig.night, rig.hub.folder, port=rig.broker.port).start()
    assert rig.hub.journal.quarantined == []
    assert rig.hub.state.roster == ROSTER[:8] and rig.hub.state.movement is not None
    assert [(c.id, c.kind, c.withdrawn is not None) for c in rig.hub.state.corrections] == [
        (1, "remove", True), (2, "adjusted", False)]
    assert rig.hub.state.ended is not None and rig.hub.standings["final"]
    assert {p["id"]: p["score"] for p in rig.hub.standings["players"]} == after
    with pytest.raises(Refused, match="the night has already ended"):
        rig.hub.end_night()
