"""End to end: ``trickref sim`` plays whole games on the simulated table (the real firmware on
the dealer simulator behind a pty, the real driver, simulated panels, bots in every seat), the
record it writes replays and verifies; a game killed with SIGKILL at random moments and
restarted on its journal ends exactly as an uninterrupted run; dealer faults mid-deal are shown
and recovered without changing the game."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from trickref.device.journal import scan
from trickref.engine.games import player_counts
from trickref.ui.cli import main

SHORT = {"hearts": 50, "cancellation-hearts": 100, "german-whist": 3, "spades-2p": 100, "partnership-spades": 100}
TRICKREF = [sys.executable, "-m", "trickref.ui.cli"]


def sim_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    code = main(["sim", "--json", *args])
    said = capsys.readouterr()
    out = said.out
    assert code == 0, out + said.err
    return json.loads(out.strip().splitlines()[-1])


@pytest.mark.parametrize("game,n", [(g, n) for g in SHORT for n in player_counts(g)])
def test_sim_plays_every_game_to_the_end(game: str, n: int, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    res = sim_json(capsys, "--game", game, "--players", str(n), "--seed", str(n), "--to-end",
                   "--option", f"target={SHORT[game]}", "--records", str(tmp_path))
    assert res["over"] and res["winners"] and len(res["totals"]) == n
    # The simulated dealer shares this machine's CPU: on a loaded machine its thread can be held
    # back past the link timeout. The table then says the dealer stopped answering and goes on
    # by itself when it answers; any other dealer fault (a jam, a refused step, a misroute) fails.
    silences = [f for f in res["dealer_faults"] if "stopped answering" in f]
    assert res["dealer_faults"] == silences
    assert sum(r.startswith("The dealer is back") for r in res["recoveries"]) >= len(silences)
    record = Path(res["record"])
    assert record.parent == tmp_path
    # The record replays to the same result and every hand verifies.
    assert main(["replay", "--json", str(record)]) == 0
    replayed = json.loads(capsys.readouterr().out)
    assert replayed["totals"] == res["totals"] and replayed["winners"] == res["winners"]
    assert main(["verify", str(record)]) == 0
    assert "all hands verify" in capsys.readouterr().out


def test_sim_text_output_and_hands_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["sim", "--game", "hearts", "--players", "4", "--seed", "1", "--hands", "2",
                 "--records", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0
    assert "hand 1: points" in out and "hand 2: points" in out and "hand 3" not in out
    assert "stopped after 2 hand(s)" in out and "record: " in out


def test_sim_is_deterministic_with_a_seed(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    a = sim_json(capsys, "--game", "spades-2p", "--players", "2", "--seed", "4", "--option", "target=100",
                 "--records", str(tmp_path / "a"))
    # (--players may be left out for a game of one player count: the same game)
    b = sim_json(capsys, "--game", "spades-2p", "--seed", "4", "--option", "target=100",
                 "--records", str(tmp_path / "b"))
    assert json.loads(Path(a["record"]).read_text()) == json.loads(Path(b["record"]).read_text())


def test_sim_search_bots_keep_a_cpu_budget_per_decision(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The largest table (11-player Cancellation Hearts, the hand that once took 66 s of CPU at a
    fixed 12 deals a decision) with search bots on a small budget: the bots take the budget
    and the kiosk's wall limit, and the hand is played."""
    from trickref.device.simulated import table as S
    from trickref.engine.bots.levels import WALL_LIMIT

    made: list[object] = []
    real = S.search_bot

    def spy(*a: object, **kw: object) -> object:
        bot = real(*a, **kw)  # type: ignore[arg-type]
        made.append(bot)
        return bot

    monkeypatch.setattr(S, "search_bot", spy)
    res = sim_json(capsys, "--game", "cancellation-hearts", "--players", "11", "--seed", "3", "--hands", "1",
                   "--bot-level", "strong", "--budget", "0.004", "--records", str(tmp_path))
    assert len(res["hands"]) == 1
    (bot,) = made
    assert bot.budget == 0.004 and bot.wall_limit == WALL_LIMIT and bot.iterations is None  # type: ignore[attr-defined]


def test_sim_refuses_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "--game", "bridge", "--players", "4"]) == 2
    assert "unknown game" in capsys.readouterr().err
    assert main(["sim", "--game", "hearts", "--players", "9"]) == 2
    assert "3 to 7 players" in capsys.readouterr().err


def test_dealer_faults_mid_deal_are_shown_and_recovered(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    args = ["--game", "hearts", "--players", "4", "--seed", "5", "--option", "target=50"]
    clean = sim_json(capsys, *args, "--records", str(tmp_path / "a"))
    faulty = sim_json(capsys, *args, "--records", str(tmp_path / "b"), "--fault", "jam:1", "--fault", "unplug:2")
    faults = faulty["dealer_faults"]
    assert len(faults) >= 1
    assert "jammed" in faults[0] and "Resume" in faults[0]
    # The cable out: the dealer falls silent mid-deal for 1.5 link timeouts; if the table had to
    # stop for it (it may not: the dealer paused and the host waited), it says so in words.
    assert all("stopped answering" in f or "unplugged" in f or "link is down" in f for f in faults[1:])
    # the jam: the deal goes on; the cable: the dealer kept dealing or stopped (dead-man), and the
    # same deal, sent again under its id, is finished, not dealt again (protocol 3)
    assert sum(r.startswith("The dealer is back") for r in faulty["recoveries"]) >= 2
    assert not any(r.startswith("Redealing") for r in faulty["recoveries"])
    # Neither fault changed the game: the same hands, the same choices, the same record.
    a = json.loads(Path(clean["record"]).read_text())
    b = json.loads(Path(faulty["record"]).read_text())
    assert a == b


def _journal_events(path: Path) -> list:
    if not path.exists():
        return []
    records, _end, _reason, _later = scan(path.read_bytes())
    return records


# A game that journals nothing new for this long is stuck: what bounds a hang below is the
# journal's growth, not the time a game takes (its CPU over the share of a core that a loaded
# machine leaves ``trickref sim``).
STALL_S = 60.0


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def _finish(proc: subprocess.Popen[str], journal: Path) -> tuple[str, str]:
    """``proc``'s output once it ends, as long as its journal keeps growing (AssertionError
    after STALL_S seconds without a new byte)."""
    size, still = _size(journal), time.monotonic() + STALL_S
    while True:
        try:
            return proc.communicate(timeout=1.0)
        except subprocess.TimeoutExpired:
            now, grown = time.monotonic(), _size(journal)
            if grown != size:
                size, still = grown, now + STALL_S
            elif now > still:
                proc.kill()
                proc.communicate()
                raise AssertionError(f"trickref sim journalled nothing for {STALL_S:g} s: stuck") from None


@pytest.mark.parametrize("game,n,target,kills,seed,step", [
    # step: how far (in journaled events) the game runs between two cuts, at most; these games
    # journal about 480, 400 and 960 events, so the cuts spread over the whole game.
    ("partnership-spades", 4, 200, 4, 21, 110),
    ("spades-2p", 2, 100, 3, 22, 120),
    ("hearts", 4, 60, 3, 23, 290),
])
def test_power_cut_at_random_moments(game: str, n: int, target: int, kills: int, seed: int, step: int,
                                      tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """SIGKILL ``trickref sim`` at random moments, restart it on the same journal: the game ends
    with the same record as an uninterrupted run, and no journaled (confirmed) event is lost."""
    args = ["--game", game, "--players", str(n), "--seed", str(seed), "--option", f"target={target}"]
    clean = sim_json(capsys, *args, "--records", str(tmp_path / "clean"))
    journal = tmp_path / "table.journal"
    cmd = [*TRICKREF, "sim", "--json", *args, "--journal", str(journal), "--records", str(tmp_path / "cut")]
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    rng = random.Random(seed)
    confirmed: list = []
    done_kills = 0
    mid_game = 0
    result = None
    for _attempt in range(kills + 5):
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        if done_kills < kills:
            # Kill once the journal has grown past what we saw (so the cut lands mid-game); one
            # that stops growing for STALL_S is cut where it stands (a fixed 20 s from the
            # start, imports and all, was a bound on the machine's speed).
            grow_to = len(confirmed) + rng.randrange(10, step)
            seen, still = -1, time.monotonic() + STALL_S
            while proc.poll() is None and time.monotonic() < still:
                events = len(_journal_events(journal))
                if events >= grow_to:
                    time.sleep(rng.uniform(0, 0.05))
                    break
                if events != seen:
                    seen, still = events, time.monotonic() + STALL_S
                time.sleep(0.01)
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
                proc.communicate()
                done_kills += 1
                now = _journal_events(journal)
                assert now[: len(confirmed)] == confirmed, "a confirmed event was lost"
                if len(now) > len(confirmed):
                    mid_game += 1
                confirmed = now
                continue
        out, err = _finish(proc, journal)
        assert proc.returncode == 0, err
        result = json.loads(out.strip().splitlines()[-1])
        break
    assert result is not None and done_kills == kills and mid_game >= kills - 1
    assert result["replayed"] >= len(confirmed) > 0
    assert result["totals"] == clean["totals"] and result["winners"] == clean["winners"]
    assert json.loads(Path(result["record"]).read_text()) == json.loads(Path(clean["record"]).read_text())
    # A journal of a finished game only prints the result again.
    again = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)
    assert again.returncode == 0 and json.loads(again.stdout.strip().splitlines()[-1])["totals"] == clean["totals"]


@pytest.mark.parametrize("game,n,moment", [
    ("partnership-spades", 4, "mid_bid"),   # a panel choice on screen, not yet confirmed
    ("hearts", 4, "mid_pass"),              # one card of a pass fed, two to come
    ("spades-2p", 2, "mid_draw"),           # a card shown to a seat, the decision not taken
    ("german-whist", 2, "after_trick"),     # stock cards still to move after a trick
])
def test_cut_at_an_awkward_moment_resumes_exactly(game: str, n: int, moment: str, tmp_path: Path) -> None:
    from trickref.device.simulated.table import PowerCut, SimTable
    from trickref.engine.referee.events import Button, CardRead, DealerDone

    opts = {"target": 60 if game == "hearts" else 3 if game == "german-whist" else 100}
    with SimTable(game, n, opts, seed=9) as clean:
        clean.start()
        clean.run()
        want = clean.finished_record
    journal = str(tmp_path / "j")
    first = SimTable(game, n, opts, seed=9, journal_path=journal)
    count = [0]

    def cut(ev, ref):  # type: ignore[no-untyped-def]
        """On the table's worker, right after ``ev`` was journaled and handled."""
        g = ref.game
        hit = False
        if g is not None and g.hand_number >= 2:
            if moment == "mid_bid":
                hit = isinstance(ev, Button) and g.phase == "bid" and bool(ref.pending)
            elif moment == "mid_pass":
                hit = isinstance(ev, CardRead) and g.phase == "pass" and any(len(v) == 1 for v in ref.fed.values())
            elif moment == "mid_draw":
                hit = isinstance(ev, DealerDone) and ref.presented is not None
            else:
                hit = isinstance(ev, CardRead) and len(ref.steps) >= 3
        if hit:
            count[0] += 1
        return hit and count[0] == 2

    first.host.cut_after = cut
    try:
        first.start()
        with pytest.raises(PowerCut):
            first.run()
    finally:
        first.close()
    with SimTable(game, n, opts, seed=9, journal_path=journal) as second:
        second.start()
        assert second.replayed > 0
        second.run()
        assert second.finished_record == want


def test_double_nil_exchanges_on_the_simulated_dealer() -> None:
    """Both players declare Double Nil: the given cards go through the reader to staging, the
    replacements (drawn from the salt) are fetched from the loop; the record verifies."""
    from trickref.device.simulated.table import SimTable
    from trickref.engine.bots import bot_for
    from trickref.engine.referee import fairness

    base = bot_for("spades-2p")

    class DoubleNil:
        def choose(self, state, seat, rng):  # type: ignore[no-untyped-def]
            for a in state.legal_actions(seat):
                if a.kind == "double_nil":
                    return a
            return base.choose(state, seat, rng)

    with SimTable("spades-2p", 2, {"target": 150}, seed=3) as t:
        t.bot = DoubleNil()
        t.start()
        t.run(max_hands=2)
        g = t.referee.game
        assert g is not None
        exchanges = [a for _, acts in g.finished_hands for _, a in acts if a.kind == "exchange"]
        assert len(exchanges) == 4 and any(a.value[0] for a in exchanges)
        assert not [m.text for m in t.messages if m.level != "info"]
        record = t.referee.record()
        assert all(c.ok for c in fairness.verify_record(record))
