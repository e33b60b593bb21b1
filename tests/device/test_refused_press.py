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

from trickref.device.simulated.fault_trials import _record, _Table, clean_run


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
        assert not any("reject pocket" in m.text for m in table.messages if "take it back" in m.text)
        assert table.mismatches == []
        got: Any = _record(table)
    finally:
        table.close()
    assert got == clean_run("cancellation-hearts", 6, {}, 9264)
