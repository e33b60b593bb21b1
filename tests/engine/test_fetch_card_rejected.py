"""A stock card the dealer put in the reject pocket while a Fetch to bring it was still queued.

German Whist on the physical twin: the e-stop pressed while a played card was routed (its eject
pulling the turned-up card for the Fetch queued after it); the play slot then gave the turned-up
card, left in the feed by the stop, in place of the played card asked for there, and it went to
the reject pocket. The referee told the trick's winner to take it back into their hand (the rules
give it to them), but the queued Fetch of it was sent and refused ("there is no card for it") at
every Resume, and the table stopped for good. Now the Fetch leaves the queue: that hand did it."""

from __future__ import annotations

from trickref.engine.referee.autotable import AutoTable, ideal_outcome
from trickref.engine.referee.commands import DealerCommand, Fetch, RouteFed, TakeBack
from trickref.engine.referee.events import DealerMoved, Event, event_from_json
from trickref.engine.referee.referee import Referee


class _RejectsAStockCard(AutoTable):
    """The ideal dealer, but while the ``nth`` RouteFed with a Fetch queued after it runs, the
    card of that Fetch goes to the reject pocket (the port's reconciliation tells it first)."""

    def __init__(self, nth: int) -> None:
        super().__init__(seed=3, entry="reader")
        self.nth = nth
        self.seen = 0
        self.rejected: Fetch | None = None

    def _dealer_answer(self, cmd: DealerCommand) -> Event:  # type: ignore[override]
        if isinstance(cmd, RouteFed) and self.rejected is None:
            queued = [s for s in self.ref.steps[1:] if isinstance(s, Fetch)]
            if queued:
                self.seen += 1
                if self.seen == self.nth:
                    self.rejected = queued[0]
                    self.queue.append(DealerMoved(((queued[0].card, "reject"),), 1))
        return ideal_outcome(cmd)


def _play_hand(t: AutoTable) -> None:
    t.start("german-whist", 2)
    for _ in range(2000):
        g = t.ref.game
        if g is None or g.hand_results:
            return
        if not t.step():
            return


def test_the_winner_takes_it_from_the_reject_pocket_and_the_fetch_is_not_sent() -> None:
    for nth in (1, 3, 6):
        t = _RejectsAStockCard(nth)
        _play_hand(t)
        fetch = t.rejected
        assert fetch is not None, nth
        taken = [c for c in t.commands if isinstance(c, TakeBack) and c.card == fetch.card]
        assert [(c.source, c.dest) for c in taken] == [("reject", fetch.target)], (nth, taken)
        sent = [c for c in t.commands if isinstance(c, Fetch) and c.card == fetch.card]
        assert sent == [], (nth, sent)  # before: sent, and refused at every Resume
        g = t.ref.game
        assert g is not None and len(g.hand_results) == 1, nth  # the hand played out
        assert not t.ref.steps and t.ref.dealer_fault is None
        again = Referee()
        for ev in t.events:
            again.handle(event_from_json(ev.to_json()))
        assert again.game is not None and again.game.record_hands() == g.record_hands()
