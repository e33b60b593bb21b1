"""A two-deck hand-over of passed cards (a ``Release``) in which one copy of a card went to its
twin's receiver and the twin, read after it, went to the reject pocket (the dealer routes the n-th
copy it reads to the n-th plan entry of that card): the fault campaign's unplug_release trial
303029 (Cancellation Hearts, six players: "QS went to seat 5, the plan says seat 4; QS was read
more often than the plan holds it (sent to the reject pocket); missing from the deal: QS").

The host reports the Release's fault (the cards delivered, the one missing: the people put the
reject pocket's cards in the play slot) and then the dealer's reject-pocket ledger (a
``DealerMoved``). The card in the reject pocket is the missing passed card, in transit: nobody is
told to take it "back" into a hand (the referee used to tell its receiver to, so the receiver held
it and was then asked to feed it as well, and a twin out of another pocket was fed for it: one seat
with two QS, one with none). Done again, the Release delivers it from the reject pocket, and the
referee's model has every seat's hand."""

from __future__ import annotations

from collections import Counter, deque

from trickref.engine import cards as C
from trickref.engine.referee.autotable import AutoTable
from trickref.engine.referee.commands import Command, Message, Release, TakeBack
from trickref.engine.referee.events import DealerDone, DealerFault, DealerMoved, DealerReady, Event


class _HeldRelease(AutoTable):
    """An AutoTable whose dealer does not answer the first Release (the test answers it)."""

    release: Release | None = None

    def feed(self, event: Event) -> list[Command]:
        out = super().feed(event)
        for cmd in out:
            if isinstance(cmd, Release) and self.release is None:
                self.release = cmd
                self.queue = deque(e for e in self.queue if not (isinstance(e, DealerDone) and e.step == cmd.step))
        return out


def _twin_release() -> tuple[_HeldRelease, Release, str, str, str]:
    """The first seed whose first Release passes both copies of a card to two seats."""
    for seed in range(1, 200):
        t = _HeldRelease(seed=seed, entry="reader")
        t.start("cancellation-hearts", 6)
        for _ in range(200):
            if t.release is not None or not t.step():
                break
        rel = t.release
        if rel is None:
            continue
        targets: dict[str, list[str]] = {}
        for name, target in rel.plan:
            targets.setdefault(name, []).append(target)
        for name, where in targets.items():
            if len(where) == 2 and where[0] != where[1]:
                return t, rel, name, where[0], where[1]
    raise AssertionError("no seed passes both copies of a card")


def _hands_in_model(t: AutoTable) -> None:
    g = t.ref.game
    assert g is not None
    at = t.ref.places.at
    for s in range(g.n):
        assert Counter(at.get(f"seat:{s}", [])) == Counter(g.hand_of(s)), (s, C.names(at.get(f"seat:{s}", [])),
                                                                          C.names(sorted(g.hand_of(s))))
    assert not at.get("reject") and not at.get("loop"), t.ref.places.snapshot()


def test_a_twin_rejected_in_a_hand_over_is_fed_again_not_taken_back() -> None:
    t, rel, card, first, second = _twin_release()
    # every card delivered but the first copy's entry: that copy went to the second receiver
    # (the check takes it for the first entry misrouted), its twin to the reject pocket
    delivered = list(rel.plan)
    delivered.remove((card, first))
    fault = DealerFault("mismatch", f"deal 1 does not match its plan, do not play it: {card} went to "
                        f"{second}, the plan says {first}; {card} was read more often than the plan holds it "
                        f"(sent to the reject pocket); missing from the deal: {card}", rel.step,
                        tuple(delivered), ((card, first),))
    out = t.feed(fault)
    assert any(isinstance(c, Message) and "play slot" in c.text for c in out)
    out = t.feed(DealerMoved(((card, "reject"),), 1))
    taken = [c for c in out if isinstance(c, TakeBack)]
    assert taken == [], taken  # nobody takes a passed card in transit "back" into a hand
    told = [c.text for c in out if isinstance(c, Message)]
    assert not any("take it back" in text for text in told), told
    assert t.ref.places.at.get("reject") == [C.parse(card)]
    # Resume: the person put the reject pocket's card in the play slot; the Release, done again
    # with only that card, delivers it
    out = t.feed(DealerReady(False))
    again = [c for c in out if isinstance(c, Release)]
    assert [c.plan for c in again] == [((card, first),)]
    t.feed(DealerDone(again[0].step, None))
    _hands_in_model(t)
