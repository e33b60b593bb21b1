"""A hand-over of passed cards (a ``Release``: one DEAL_PLAN over the cards parked in the loop)
that stops partway, on the real path: the table host, the Dealer driver and the dealer simulator
behind its pty, bots feeding their passes and plays. After Resume only the cards still in the loop
are handed over, and the hand is played to its end: a jam (the dealer's own deal goes on), a pulled
cable (the step comes back without the cards already delivered), and a pulled cable followed by a
power cut of the host (the journal knows the cards delivered before it)."""

from __future__ import annotations

from typing import Any

import pytest
from release_strike import at_release_card

from trickref.device.journal import Journal
from trickref.device.simulated.table import PowerCut, SimTable
from trickref.engine.referee.commands import Release
from trickref.engine.referee.events import DealerFault


def _strike_in_release(table: SimTable, kind: str, after: int) -> list[int]:
    """When the dealer puts the ``after``-th card of the first Release in its pocket, the
    simulator jams at its next motion or falls silent (its cable out until Resume);
    returns a list that gets the Release's step number when it struck."""
    sim = table.sim
    assert table.driver is not None and sim is not None

    def strike() -> None:
        if kind == "jam":
            sim.board.jam_stage = "eject"
        else:
            sim.silent = True  # plugged back in by the person who presses Resume

    return at_release_card(table, after, strike)


def _faults(path: str) -> list[dict[str, Any]]:
    journal, records, _ = Journal.open(path)
    journal.close()
    return [r for r in records if isinstance(r, dict) and r.get("type") == "dealer_fault"]


@pytest.mark.parametrize(("game", "players", "after"), [("hearts", 4, 5), ("cancellation-hearts", 6, 4)])
def test_a_jam_in_the_middle_of_the_passes(game: str, players: int, after: int) -> None:
    with SimTable(game, players, seed=5) as table:
        hit = _strike_in_release(table, "jam", after)
        table.start()
        table.run(max_hands=1)
        assert hit, "the jam never struck a Release"
        g = table.referee.game
        assert g is not None and len(g.hand_results) == 1  # the hand was played to its end
        assert len(table.recoveries) == 1 and "passed cards" in table.recoveries[0]


@pytest.mark.parametrize(("game", "players"), [("hearts", 4), ("cancellation-hearts", 6)])
def test_the_cable_out_in_the_middle_of_the_passes(game: str, players: int, tmp_path: Any) -> None:
    journal = str(tmp_path / "journal.jsonl")
    with SimTable(game, players, seed=5, journal_path=journal) as table:
        hit = _strike_in_release(table, "unplug", 3)
        table.start()
        table.run(max_hands=1)
        assert hit
        g = table.referee.game
        assert g is not None and len(g.hand_results) == 1
        assert len(table.recoveries) == 1, table.recoveries
    # the dealer had not sent the three cards' events yet when the cable went (it batches them):
    # the host learnt them from the dealer's event log when the step was done again
    assert [f["step"] for f in _faults(journal)] == hit


@pytest.mark.parametrize(("game", "players"), [("hearts", 4), ("cancellation-hearts", 6)])
def test_the_host_loses_power_after_a_release_stopped_partway(game: str, players: int, tmp_path: Any) -> None:
    """The journal keeps the cards delivered before the fault: the restarted host (a fresh
    simulator put back where the referee's model says: those cards in their pockets, the rest in
    the hopper) hands over only the rest, and the hand ends."""
    journal = str(tmp_path / "journal.jsonl")
    with SimTable(game, players, seed=5, journal_path=journal) as table:
        hit = _strike_in_release(table, "unplug", 11)  # events of the first cards sent by then
        table.host.cut_after = lambda ev, ref: isinstance(ev, DealerFault) and bool(ev.delivered)
        table.start()
        with pytest.raises(PowerCut):
            table.run(max_hands=1)
        assert hit
        head = table.referee.steps[0]
        assert isinstance(head, Release) and head.step == hit[0]
        left = len(head.plan)
    with SimTable(game, players, seed=5, journal_path=journal) as again:
        again.start()
        resumed = again.referee.steps[0] if again.referee.steps else None
        assert isinstance(resumed, Release) and len(resumed.plan) == left  # the trimmed step
        again.run(max_hands=1)
        g = again.referee.game
        assert g is not None and len(g.hand_results) == 1


def test_resume_after_the_e_stop_resets_its_latch() -> None:
    """The e-stop button pressed in the middle of a deal: Resume (the button twisted out again)
    RESETs the dealer's latch, and the hand is dealt again and played to its end (before, every
    step after Resume was refused: the latch stays until RESET)."""
    with SimTable("hearts", 4, seed=3) as table:
        sim = table.sim
        assert sim is not None
        fw = sim.firmware.dealer
        landed, count = fw.landed, [0]

        def press(card: int, target: int, conf: int, kind: int) -> None:
            landed(card, target, conf, kind)
            count[0] += 1
            if count[0] == 10:
                sim.board.estop_button = True  # (the simulator's thread: at the tenth card)

        fw.landed = press
        table.start()
        table.run(max_hands=1)
        g = table.referee.game
        assert g is not None and len(g.hand_results) == 1
        assert len(table.recoveries) == 1 and "emergency stop" in table.recoveries[0]


def test_a_deal_after_the_cable_came_back_is_not_checked_against_the_old_deals_events() -> None:
    """The cable out ten cards into a deal: the driver gives up while the dealer deals on (its
    events logged, never received), the cards are gathered and the hand is dealt again. That
    deal first fetches the old deal's events: recovered during it, they counted as its own (every
    card of the old deal 'too many') and the redeal failed its check once more."""
    with SimTable("hearts", 3, seed=23, faults=[("unplug", 2)]) as table:
        table.start()
        table.run(max_hands=2)
        g = table.referee.game
        assert g is not None and len(g.hand_results) == 2
        # (one fault, the cable; under a heavy load the silence can end before the driver gives up)
        assert len(table.recoveries) <= 1, table.recoveries
        assert not any("did not check out" in r for r in table.recoveries)
