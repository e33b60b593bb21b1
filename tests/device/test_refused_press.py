"""A press the table refuses is pressed again (issue 18, the campaign's stuck Cancellation Hearts
hands: "seat 0's pocket does not hold QS", power-cut hand 264 with no kill, at load ~48).

Under load the link to the dealer can fall silent for a moment while the reader waits for a fed
card: the table stops ("the dealer stopped answering") and refuses entries until it is back. A
player who presses OK ("I am feeding now") just then sees the refusal and presses again when the
table goes on. The simulated person went on feeding its three passed cards as if the OK had been
taken: a two-deck card that is in two hands then went to the reject pocket, and the referee told
the other holder to take it back ("Bot 4: QS went to the reject pocket"), the hand stuck."""

from __future__ import annotations

from typing import Any

from trickref.device.dealer import messages as m
from trickref.device.simulated.fault_trials import _record, _Table, clean_run
from trickref.device.simulated.table import SimTable
from trickref.engine import cards as C


class _SilentAtTheClaim(_Table):
    """The dealer falls silent just before seat ``seat`` presses OK to pass, and answers again
    right after the press (what a starved link looks like to the host)."""

    seat = 0
    refused: bool | None = None

    def press(self, seat: int, button: str) -> bool:
        g = self.referee.game
        if self.refused is None and seat == self.seat and button == "ok" and g is not None and g.phase == "pass":
            assert self.sim is not None
            self.sim.go_silent(True)
            assert self.host.wait(lambda: self.referee.dealer_fault is not None, 60)
            taken = super().press(seat, button)
            self.refused = not taken and self.referee.claim is None
            self.sim.go_silent(False)
            return taken
        return super().press(seat, button)


def test_an_ok_refused_while_the_dealer_is_silent_is_pressed_again() -> None:
    table = _SilentAtTheClaim("cancellation-hearts", 6, seed=9264)
    table.mismatches = []
    try:
        table.start()
        table.run(max_hands=1)
        assert table.refused  # the OK came while the table was stopped: refused, nothing claimed
        g = table.referee.game
        assert g is not None
        # seat 0 passed the cards it chose (QS KS KC), none went to the reject pocket, and every
        # pocket matched the referee's hand before every play
        assert not any("take it back" in msg.text for msg in table.messages)
        assert table.mismatches == []
        got: Any = _record(table)
    finally:
        table.close()
    assert got == clean_run("cancellation-hearts", 6, {}, 9264)


def test_a_two_deck_card_fed_to_pass_without_ok_stays_the_feeders() -> None:
    """A real player forgets OK and feeds QS, which two hands hold: it goes to the reject
    pocket. The table's own routing of it there is not a card the dealer cleared by itself:
    nobody is told to take QS "back" as theirs (Bot 4, the other holder, was told to, and the
    model took that player's QS out of their hand). Nothing says which of the two fed it, so
    both are told to take it back if it is no longer in their hand: the feeder does (the
    simulated person, whose pocket no longer holds it), presses OK and feeds it again: it is
    theirs, the other holder's untouched. (Before the words to both, the model kept the card in
    the reject pocket and out of the lower holder's hand: right only when that one had fed it,
    tests/device/test_twin_reject.py.)"""
    with SimTable("cancellation-hearts", 6, seed=9264) as table:
        table.start()
        table._deal_next()
        g = table.referee.game
        assert g is not None and g.phase == "pass"
        qs = C.parse("QS")
        assert [s for s in range(6) if qs in g.hand_of(s)] == [0, 3]
        table.feed(qs, 0)  # no OK first
        assert not table.cannot
        assert not any(msg.text.endswith("QS went to the reject pocket: take it back into your hand")
                       for msg in table.messages)
        told = sorted(msg.seat for msg in table.messages if msg.seat is not None
                      and "QS went to the reject pocket: if you no longer hold QS" in msg.text)
        assert told == [0, 3], told
        # the feeder did what the words say: took it back into their pocket
        assert not table.referee.places.at.get("reject")
        assert _pocket(table, "reject") == []
        for s in (0, 3):
            assert sorted(table.referee.places.at[f"seat:{s}"]) == sorted(g.hand_of(s))
            assert _pocket(table, s) == sorted(g.hand_of(s))
        # then presses OK and feeds it again
        assert table.press(0, "ok")
        table.feed(qs, 0)
        assert table.referee.fed[0] == [qs]
        at = table.referee.places.at
        assert not at.get("reject")
        assert sorted(at["seat:3"]) == sorted(g.hand_of(3))  # the twin is still Bot 4's
        assert qs not in at["seat:0"]


def _pocket(table: SimTable, where: int | str) -> list[int]:
    assert table.sim is not None
    key = where if isinstance(where, int) else m.REJECT
    with table.sim.lock:
        return sorted(table.sim.board.trays.get(key, []))
