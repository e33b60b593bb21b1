"""A restart that takes tens of seconds (issue 18: a Pi restarting after a power cut; the
campaign's three stuck Cancellation Hearts hands after 32-92 s restarts at load 24-29).

What the slow restart does: the dealer is a fresh machine (it lost power too) and knows nothing
of the cards the referee parks in its loop (here cards fed to pass), so the host deals them back
round the loop before anything is read (``relearn``). On a starved host that relearning plan did
not reach the dealer ("write failed: Write timeout ... DEAL_PLAN not delivered": seen with the
process starved of CPU 3 s at a time, a restart of 33 s). The host kept it pending for "the
first step", but the first thing the table did was no step: it listened for the next card fed.
The dealer, not knowing the hopper's cards are parked, fed a parked card as the next card
played; the referee counted a card nobody had played (two decks: the pass went on with it), and
the simulated person found their pocket did not hold a card the screen said they had. With a
card waiting in the read window the relearning goes with the first step, and when that was not
heard the host forgot the card in the window and relearned without it; with no card parked the
first step reads the window's card where it is, and when that read was not heard the host forgot
the card too and stopped for good: "a card is not in the reader gate and the dealer did not route
it", three times after Resume (the campaign's hand 24 with every restart starved of CPU).

Each test strikes its moment exactly: the dealer hears nothing of the first relearning plan
(as with the starved host's write) and answers again straight after. The table must stop in
words until the dealer has the parked cards, and the hand end as the uninterrupted one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from trickref.device.simulated.fault_trials import _Table, clean_run, lose_gate_read, lose_relearn
from trickref.device.simulated.table import PowerCut
from trickref.engine.referee.events import CardRead, DealerDone

GAME, PLAYERS, SEED = "cancellation-hearts", 6, 9024  # the campaign's power-cut hand 24


def _parked(ev: Any, ref: Any) -> bool:
    """Right after the first card fed to pass is parked in the loop (no step pending)."""
    return isinstance(ev, DealerDone) and bool(ref.places.at.get("loop")) and not ref.steps


def _played(ev: Any, ref: Any) -> bool:
    """Right after the first card played is read (nothing parked: it waits in the read window)."""
    g = ref.game
    return (isinstance(ev, CardRead) and g is not None and g.phase == "play" and bool(ref.places.at.get("gate"))
            and not ref.places.at.get("loop"))


def _in_gate(ev: Any, ref: Any) -> bool:
    """Right after the second card fed to pass is read (the campaign's cut: it waits in the read
    window, the first one parked)."""
    return isinstance(ev, CardRead) and bool(ref.places.at.get("loop")) and bool(ref.places.at.get("gate"))


@pytest.fixture(scope="module")
def want() -> Any:
    """The hand played without a cut (both tests compare with it)."""
    return clean_run(GAME, PLAYERS, {}, SEED)


def _cut(cut: Callable[[Any, Any], bool], path: str) -> dict[str, Any]:
    """The hand played on a journal at ``path`` until ``cut`` takes the power: where the
    referee had each card then (its places, copied)."""
    first = _Table(GAME, PLAYERS, {}, seed=SEED, journal_path=path)
    first.mismatches = []
    try:
        first.host.cut_after = cut
        first.start()
        with pytest.raises(PowerCut):
            first.run(max_hands=1)
        return {k: list(v) for k, v in first.referee.places.at.items()}
    finally:
        first.host.dead = True
        first.close()


def _to_the_end(table: Any, want: Any) -> None:
    """The restarted table plays its hand to the end: the uninterrupted run's result, every
    pocket matching the referee before every play."""
    table.start()
    table.run(max_hands=1)
    g = table.referee.game
    assert g is not None
    assert [dict(r) for r in g.hand_results] == want
    assert table.mismatches == []


@pytest.mark.parametrize("cut", [_parked, _in_gate], ids=["parked", "in-gate"])
def test_a_restart_whose_relearning_was_not_heard_reads_no_parked_card(
        cut: Callable[[Any, Any], bool], want: Any, tmp_path: Any) -> None:
    path = str(tmp_path / "journal")
    at = _cut(cut, path)
    plan = list(at.get("gate", [])) + list(at["loop"])  # the window's card first
    table = _Table(GAME, PLAYERS, {}, seed=SEED, journal_path=path)
    table.mismatches = []
    try:
        sent = lose_relearn(table)
        _to_the_end(table, want)
        # the plan was sent, not heard, and sent again whole (the window's card with it)
        assert sent[:2] == [plan, plan], sent
    finally:
        table.close()


def test_a_restart_whose_read_of_the_card_in_the_window_was_not_heard_reads_it_again(
        want: Any, tmp_path: Any) -> None:
    path = str(tmp_path / "journal")
    at = _cut(_played, path)
    card = at["gate"][0]
    assert not at.get("loop")
    table = _Table(GAME, PLAYERS, {}, seed=SEED, journal_path=path)
    table.mismatches = []
    try:
        seen = lose_gate_read(table)
        _to_the_end(table, want)
        assert seen[:2] == [card, card], seen  # read again where it lies after the unheard read
    finally:
        table.close()
