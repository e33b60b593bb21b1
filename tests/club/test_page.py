"""The standings page: its server (read-only, Server-Sent Events) and, where Debian's chromium
and Playwright are installed, a real browser watching a small night update live."""

from __future__ import annotations

import json
import os
import shutil
import socket
import urllib.error
import urllib.request
from typing import Any

import pytest
from club_rig import ClubRig, check_against_records, needs_mosquitto, wait_for

from trickref.device.club.broker import free_port
from trickref.device.club.sim import play_round
from trickref.device.club.web import Site

pytestmark = needs_mosquitto
CHROMIUM = "/usr/bin/chromium"


def serve(rig: ClubRig) -> Site:
    return Site(rig.hub, "127.0.0.1", free_port()).start()


def public(doc: dict[str, Any]) -> dict[str, Any]:
    """A standings document without its live status (the hub's and the broker's)."""
    return {k: v for k, v in doc.items() if k != "status"}


def get(url: str, method: str = "GET") -> tuple[int, str, bytes]:
    req = urllib.request.Request(url, method=method)
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, r.headers["Content-Type"], r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers["Content-Type"], e.read()


def read_events(port: int, count: int) -> list[dict[str, Any]]:
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
    buf = b""
    out: list[dict[str, Any]] = []
    while len(out) < count:
        chunk = s.recv(65536)
        assert chunk, "the event stream closed"
        buf += chunk
        while b"\n\n" in buf:
            block, buf = buf.split(b"\n\n", 1)
            for line in block.split(b"\n"):
                if line.startswith(b"data: "):
                    out.append(json.loads(line[6:]))
    s.close()
    return out


def test_server_is_read_only_and_streams_the_hubs_standings(club) -> None:
    rig: ClubRig = club(tables=["t1", "t2"], rounds=1, boards=2)
    web = serve(rig)
    try:
        base = web.url
        code, ctype, body = get(base)
        assert code == 200 and ctype.startswith("text/html") and b"<table id=\"standings\">" in body
        assert get(base + "app.js")[0] == 200 and get(base + "style.css")[0] == 200
        code, ctype, body = get(base + "games.json")  # the catalog the page names the games by
        assert code == 200 and ctype == "application/json" and json.loads(body)["hearts"]["title"] == "Hearts"
        assert get(base + "nope")[0] == 404
        code, _, body = get(base + "standings.json", "POST")
        assert code == 405 and b"read-only" in body
        assert public(json.loads(get(base + "standings.json")[2])) == rig.hub.public
        first = read_events(web.server_address[1], 1)[0]
        assert public(first) == rig.hub.public  # the stream starts with the current standings
        assert first["status"]["broker"] is True
        rig.hub.start_round(0)
        records = {}
        for i, t in enumerate(rig.night.tables):
            lk = rig.link(t)
            records[(t, 0)] = play_round(lk, 0, "hearts", 4, {}, 2, seed=i).record()
            assert lk.flush(20)
        check_against_records(rig, records)  # (waits for the hub's standings to settle)
        assert public(json.loads(get(base + "standings.json")[2])) == rig.hub.public
        assert rig.hub.public["players"] == rig.hub.standings["players"]  # every board played: all shown
    finally:
        web.stop()


def _playwright() -> Any:
    if not os.path.exists(CHROMIUM):
        why = "Debian's chromium is not installed (scripts/system-deps.sh installs it)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(why)
        pytest.skip(why)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("Playwright's Python package is not installed (pip install -e .[test])")
    return sync_playwright


@pytest.mark.timeout(180)
def test_browser_shows_the_night_live(club, tmp_path) -> None:
    sync_playwright = _playwright()
    rig: ClubRig = club(tables=["t1", "t2", "t3"], rounds=2, boards=2)
    web = serve(rig)
    records: dict[tuple[str, int], dict[str, Any]] = {}
    links = {t: rig.link(t) for t in rig.night.tables}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync"])
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            page.goto(web.url)
            page.wait_for_selector("#live.on")
            assert page.inner_text("#title") == "Club night n1"
            assert page.locator("#tables li").count() == 3
            assert page.locator("#standings tbody tr").count() == 0
            for r in range(rig.night.rounds):
                rig.hub.start_round(r)
                for i, t in enumerate(rig.night.tables):
                    records[(t, r)] = play_round(links[t], r, "hearts", 4, {}, 2, seed=10 * r + i).record()
                for lk in links.values():
                    assert lk.flush(20)
                rig.hub.end_round(r)
                assert rig.hub.settle(10)
                # the page updates without a reload: it shows the hub's latest standings
                page.wait_for_function("s => document.body.dataset.seq === s",
                                       arg=str(rig.hub.standings["seq"]), timeout=20000)
                for t in rig.night.tables:
                    text = page.inner_text(f"#tables li[data-table={t}]")
                    assert text.split("\n")[-1] == f"Round {r + 1} · done"
            check_against_records(rig, records)
            shown = []
            for tr in page.locator("#standings tbody tr").all():
                cells = tr.locator("td").all_inner_texts()
                shown.append((tr.get_attribute("data-table"), int(tr.get_attribute("data-seat") or -1),
                              cells[1], cells[3], int(cells[4])))
            want = []
            for pl in rig.hub.standings["players"]:
                v = pl["score"]
                s = str(int(v)) if v == int(v) else f"{v:.2f}"
                want.append((pl["table"], pl["seat"], pl["name"], ("+" + s) if v > 0 else s, pl["boards"]))
            assert shown == want and len(shown) == 12
            page.wait_for_selector("body[data-boards='4']")  # (the boards come apart, when they change)
            assert page.locator("#boards .board").count() == 4
            cell = page.inner_text("#boards .board[data-round='1'][data-board='1'] tr[data-table=t2]")
            b = rig.hub.standings["board_results"][-1]["tables"]["t2"]
            assert cell.split("\t")[1].startswith(f"{b['points'][0]} (")
            page.screenshot(path=str(tmp_path / "wall.png"))
            phone = browser.new_page(viewport={"width": 390, "height": 800})
            phone.goto(web.url)
            phone.wait_for_function("s => document.body.dataset.seq === s", arg=str(rig.hub.standings["seq"]))
            phone.screenshot(path=str(tmp_path / "phone.png"), full_page=True)
            wide = phone.evaluate("document.documentElement.scrollWidth")
            assert wide <= 390  # no sideways scrolling on a phone
            browser.close()
        out = os.environ.get("CLUB_SCREENSHOTS")
        if out:
            for n in ("wall.png", "phone.png"):
                shutil.copy(tmp_path / n, os.path.join(out, n))
    finally:
        web.stop()


@pytest.mark.timeout(300)
def test_browser_follows_a_20_table_night_as_results_arrive(club, tmp_path) -> None:
    """20 simulated tables (the light kind: engine referee and bots behind a real ClubLink each)
    against the real broker, the page in real Chromium: the page's own record of what it showed
    goes up as the tables report, wave by wave, and ends equal to what the records replay to."""
    import threading

    sync_playwright = _playwright()
    tables = [f"t{i + 1}" for i in range(20)]
    rig: ClubRig = club(tables=tables, rounds=1, boards=3)
    web = serve(rig)
    links = {t: rig.link(t) for t in tables}
    records: dict[tuple[str, int], dict[str, Any]] = {}

    def wave(names: list[str]) -> None:
        errors: list[BaseException] = []

        def one(t: str) -> None:
            try:
                records[(t, 0)] = play_round(links[t], 0, "hearts", 4, {}, 3, seed=tables.index(t)).record()
            except BaseException as e:  # noqa: BLE001 - reported below
                errors.append(e)
        threads = [threading.Thread(target=one, args=(t,)) for t in names]
        for th in threads:
            th.start()
        for th in threads:
            th.join(120)
        assert not errors, errors
        for t in names:
            assert links[t].flush(30), (t, links[t].status())

    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync"])
            page = browser.new_page(viewport={"width": 1920, "height": 1080})
            page.goto(web.url)
            page.wait_for_selector("#live.on")
            # the page's own log of every standings it rendered: (seq, hands in, tables done)
            page.evaluate("""() => {
                window.seen = [];
                const note = () => window.seen.push([Number(document.body.dataset.seq),
                    Number((document.getElementById('subtitle').textContent.match(/(\\d+) hands in/) || [0, -1])[1]),
                    document.querySelectorAll('#tables li.done').length]);
                new MutationObserver(note).observe(document.getElementById('subtitle'),
                                                   {childList: true, characterData: true, subtree: true});
                note();
            }""")
            assert page.locator("#tables li").count() == 20
            rig.hub.start_round(0)
            wave(tables[:10])
            assert rig.hub.settle(20)
            page.wait_for_function("s => document.body.dataset.seq === s", arg=str(rig.hub.standings["seq"]),
                                   timeout=20000)
            # half the night in: ten tables done, ten waiting, 30 hands in; the boards are not
            # shown yet (ten tables have not played them: Bridgemate's rule), nor any score
            assert "30 hands in" in page.inner_text("#subtitle")
            done = page.locator("#tables li.done").all_inner_texts()
            assert sorted(x.split("\n")[0] for x in done) == sorted(tables[:10])
            for t in tables[10:]:
                assert page.inner_text(f"#tables li[data-table={t}]").split("\n")[-1] == "waiting"
            assert page.locator("#standings tbody tr").count() == 40
            page.wait_for_selector("body[data-boards='0']")
            assert page.locator("#boards .board").count() == 0
            assert page.inner_text("#hidden-boards").startswith("3 boards still being played")
            assert set(page.locator("#standings tbody td.num:nth-child(4)").all_inner_texts()) == {"0"}
            wave(tables[10:])
            assert rig.hub.settle(20)
            page.wait_for_function("s => document.body.dataset.seq === s", arg=str(rig.hub.standings["seq"]),
                                   timeout=20000)
            check_against_records(rig, records)
            assert "60 hands in" in page.inner_text("#subtitle")
            assert page.locator("#tables li.done").count() == 20
            seen = page.evaluate("window.seen")
            hands = [h for _s, h, _d in seen]
            seqs = [s for s, _h, _d in seen]
            assert hands[0] == 0 and hands[-1] == 60
            assert hands == sorted(hands) and seqs == sorted(seqs)  # never back, never out of order
            assert len({h for h in hands if 0 < h < 60}) >= 2  # it moved while the tables played
            shown = []
            for tr in page.locator("#standings tbody tr").all():
                cells = tr.locator("td").all_inner_texts()
                shown.append((tr.get_attribute("data-table"), int(tr.get_attribute("data-seat") or -1), cells[3]))
            want = []
            for pl in rig.hub.standings["players"]:
                v = pl["score"]
                s = str(int(v)) if v == int(v) else f"{v:.2f}"
                want.append((pl["table"], pl["seat"], ("+" + s) if v > 0 else s))
            assert shown == want and len(shown) == 80
            page.wait_for_selector("body[data-boards='3']")
            assert page.locator("#boards .board").count() == 3
            assert page.locator("#boards .board[data-board='2'] tr[data-table]").count() == 20
            page.screenshot(path=str(tmp_path / "wall-20.png"), full_page=True)
            browser.close()
        out = os.environ.get("CLUB_SCREENSHOTS")
        if out:
            shutil.copy(tmp_path / "wall-20.png", os.path.join(out, "wall-20.png"))
    finally:
        web.stop()


@pytest.mark.timeout(180)
def test_the_page_says_when_the_broker_or_the_hub_is_down(club) -> None:
    """Was: with the broker dead the page still showed a green "live". Now it says what is down:
    the broker (from the hub's own view, in every event and ping), or the hub itself (the event
    stream broke); and names show cleaned, isolated, never wider than their column."""
    from club_rig import publish_all

    from trickref.device.club import topics as T

    sync_playwright = _playwright()
    rig: ClubRig = club(tables=["t1", "t2"], rounds=1, boards=1)
    web = serve(rig)
    stopped = False
    try:
        rig.hub.start_round(0)
        body = {"v": T.VERSION, "night": "n1", "table": "t1", "kind": "start", "round": 0,
                "players": ["\u202eevil\u202c", "W" * 150, "شادی", "Ann"]}
        publish_all(rig, "t1", [(T.table_topic("n1", "t1", "start", 0), T.encode(body))])
        assert wait_for(lambda: ("t1", 0) in rig.hub.state.tables)
        assert rig.hub.settle(10)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync"])
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            page.goto(web.url)
            page.wait_for_selector("body[data-health=ok]")
            assert page.inner_text("#live").startswith("live · updated ")
            names = page.locator("#standings tbody td:nth-child(2)").all_inner_texts()
            assert "evil" in names and "W" * 32 in names and "شادی" in names and all("\u202e" not in n for n in names)
            widths = page.evaluate("[...document.querySelectorAll('#standings tbody td:nth-child(2)')]"
                                   ".map(td => td.getBoundingClientRect().width)")
            assert max(widths) <= 16 * 18 + 20  # 16rem at most: the other columns stay in view
            rig.broker.kill()
            page.wait_for_selector("body[data-health=broker-down]", timeout=30000)
            assert page.inner_text("#alert").startswith("The broker is down (since ")
            assert page.get_attribute("#live", "class") == "off"
            rig.broker.start()
            page.wait_for_selector("body[data-health=ok]", timeout=30000)
            assert page.is_hidden("#alert")
            web.stop()
            stopped = True
            page.wait_for_selector("body[data-health=hub-down]", timeout=30000)
            assert page.inner_text("#alert") == "The hub is not answering: trying again…"
            browser.close()
    finally:
        if not stopped:
            web.stop()
