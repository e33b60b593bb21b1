"""The simulated person does only what the screen tells a person to do (issue 18 point 2): a player
feeds a card from their own pocket, and a card the screen says to take from the reject pocket is
taken from there. Nothing picks a card up from wherever it lies: a referee that lost track of a
card would be hidden by a person who finds it anyway."""

from __future__ import annotations

from typing import Any

import pytest

from trickref.device.simulated.table import SimTable, TableStuck
from trickref.engine import cards as C
from trickref.engine.referee.commands import TakeBack


def where(table: SimTable, card: int) -> list[int]:
    assert table.sim is not None
    with table.sim.lock:
        return [t for t, cards in table.sim.board.trays.items() if card in cards]


def test_the_simulated_person_feeds_and_takes_back_only_where_the_screen_says() -> None:
    with SimTable("hearts", 4, seed=11) as table:
        table.start()
        assert table.referee.waiting == "shuffle"
        table._deal_next()  # the hand is dealt: the cards are in the pockets
        assert table.sim is not None
        with table.sim.lock:
            pocket0 = list(table.sim.board.trays[0])
        card = pocket0[0]
        # another seat cannot feed seat 0's card: it is not in their pocket
        with pytest.raises(ValueError, match=f"seat 1's pocket does not hold {C.NAMES[card]}"):
            table.opened.feed(card, 1)
        assert where(table, card) == [0]  # left where it lies
        # the screen says to take it from the reject pocket, where it is not
        with pytest.raises(ValueError, match=f"take {C.NAMES[card]} from the reject pocket"):
            table.opened.take_back(card, "reject", "seat:1")
        assert where(table, card) == [0]
        # the same instruction coming from the table: the simulated run stops stuck (it does not
        # go on with a model that is wrong)
        assert table.host.people is not None
        table.host.people.take_back(TakeBack(C.NAMES[card], "reject", "seat:1", 1))
        with pytest.raises(TableStuck, match="cannot do what the screen says"):
            table.settle()
        assert where(table, card) == [0]


def test_a_stuck_run_explains_itself(tmp_path: Any) -> None:
    """A SimTable run that ends stuck keeps a report (every seat's pocket beside the referee's
    hand, which is what the simulated person believes it holds; the dealer's view; the person's
    last moves) and its journal: what benchmarks/faults.py names for a stuck hand."""
    journal = tmp_path / "hand.journal"
    with SimTable("cancellation-hearts", 6, seed=9264, journal_path=str(journal)) as table:
        table.start()
        with pytest.raises(TableStuck, match="too many entries") as stuck:
            table.run(max_hands=1, max_entries=4)  # dealt, then a few entries of the pass
        # the simulator and the referee are made to disagree about one card of seat 0
        assert table.sim is not None
        with table.sim.lock:
            lost = table.sim.board.trays[0].pop()
        report = table.keep(tmp_path / "stuck" / "cut-1-run1.txt", stuck.value)
    text = report.read_text()
    assert "cancellation-hearts, 6 players, seed 9264" in text
    assert "ended by: TableStuck: too many entries" in text
    row0 = next(ln for ln in text.splitlines() if ln.startswith("  seat 0: "))
    assert row0.endswith(f"+- / -{C.NAMES[lost]}")  # the pocket lacks the card the referee counts
    assert "seat 0 presses ok" in text and "seat 0 feeds" in text  # the person's last moves
    assert "seat 0 chooses pass" in text and "believing it holds" in text
    assert "dealer: dealer " in text
    kept = tmp_path / "stuck" / "cut-1-run1.txt.journal"
    assert kept.read_bytes() == journal.read_bytes()
