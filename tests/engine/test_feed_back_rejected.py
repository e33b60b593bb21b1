"""A card to feed back that the dealer put in the reject pocket before the step read it.

Two-player Spades' draw: after a dealer reboot with a blank flash, the relearning of its loop read
the card a player had just fed back (it was in the play slot) and sent it to the reject pocket.
The dealer's port ends the FeedBack step with that DealerMoved (``ends``: the step). Before, the
referee told the player to take the card back and left the step standing with nothing sent for
it: the table waited for good (the reboot trial spades-2p, a card landing, a blank flash, about
1 in 50 on a loaded machine). Now the player takes it back and the step is asked again under a
new id, and the hand plays out with every card where the rules say."""

from __future__ import annotations

from trickref.engine.referee.autotable import AutoTable, ideal_outcome
from trickref.engine.referee.commands import DealerCommand, FeedBack, Message, TakeBack
from trickref.engine.referee.events import DealerMoved, Event, event_from_json
from trickref.engine.referee.referee import Referee


class _RejectsOneFeedBack(AutoTable):
    """The ideal dealer, but the ``nth`` FeedBack ends as the port ends it when its card went to
    the reject pocket unread (``ends`` set, or not: ``tell_ends``)."""

    def __init__(self, nth: int, tell_ends: bool = True) -> None:
        super().__init__(seed=5, entry="reader")
        self.nth, self.tell_ends = nth, tell_ends
        self.seen = 0
        self.rejected: FeedBack | None = None

    def _dealer_answer(self, cmd: DealerCommand) -> Event:  # type: ignore[override]
        if isinstance(cmd, FeedBack):
            self.seen += 1
            if self.seen == self.nth:
                self.rejected = cmd
                return DealerMoved(((cmd.card, "reject"),), 1, ends=cmd.step if self.tell_ends else None)
        return ideal_outcome(cmd)


def _play_hand(t: AutoTable) -> None:
    t.start("spades-2p", 2)
    for _ in range(2000):
        g = t.ref.game
        if g is None or g.hand_results:
            return
        if not t.step():
            return


def test_the_card_goes_back_to_its_player_and_the_step_is_asked_again() -> None:
    t = _RejectsOneFeedBack(nth=3)
    _play_hand(t)
    head = t.rejected
    assert head is not None
    after = t.commands[t.commands.index(head) + 1:]
    taken = [c for c in after if isinstance(c, TakeBack)]
    assert [(c.card, c.source, c.dest) for c in taken[:1]] == [(head.card, "reject", f"seat:{head.seat}")]
    again = [c for c in after if isinstance(c, FeedBack)][0]
    assert (again.seat, again.card, again.target) == (head.seat, head.card, head.target)
    assert again.step > head.step  # a new id: the dealer may remember the old one's FEED
    assert after.index(taken[0]) < after.index(again)  # in the hand again before it is asked for
    told = [m for m in after[:after.index(again)] if isinstance(m, Message)]
    assert [m.seat for m in told if f"{head.card} went to the reject pocket" in m.text] == [head.seat]
    assert not [m for m in told if m.seat is None and head.card in m.text]  # (never on the shared screen)
    g = t.ref.game
    assert g is not None and len(g.hand_results) == 1  # the hand played out
    # the replay of the journal's events gives the same referee (the ``ends`` field round-trips)
    again_ref = Referee()
    for ev in t.events:
        again_ref.handle(event_from_json(ev.to_json()))
    assert again_ref.game is not None and again_ref.game.record_hands() == g.record_hands()


def test_the_hand_plays_out_whichever_card_fed_back_it_is() -> None:
    for nth in (1, 2, 5, 8):
        t = _RejectsOneFeedBack(nth=nth)
        _play_hand(t)
        assert t.rejected is not None, nth
        g = t.ref.game
        assert g is not None and len(g.hand_results) == 1, nth
        assert not t.ref.steps and t.ref.dealer_fault is None


def test_told_while_the_step_is_still_to_do_the_step_is_not_sent_twice() -> None:
    """A DealerMoved that does not end the step (``ends`` None: a restart's reconciliation told
    before the step was carried out) leaves the step to ask for the card itself."""
    t = _RejectsOneFeedBack(nth=3, tell_ends=False)
    t.start("spades-2p", 2)
    for _ in range(2000):
        if t.rejected is not None or not t.step():
            break
    t.drain()
    head = t.rejected
    assert head is not None
    after = t.commands[t.commands.index(head) + 1:]
    assert [c for c in after if isinstance(c, TakeBack)]
    assert not [c for c in after if isinstance(c, FeedBack)]
    assert t.ref.steps and t.ref.steps[0] == head


def test_the_field_is_left_out_of_a_journal_line_without_it() -> None:
    ev = DealerMoved((("9D", "reject"),), 2)
    assert "ends" not in ev.to_json()
    assert event_from_json(ev.to_json()) == ev
    ended = DealerMoved((("9D", "reject"),), 2, ends=72)
    assert event_from_json(ended.to_json()) == ended
