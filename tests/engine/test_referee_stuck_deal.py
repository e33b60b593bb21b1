"""A deal whose check fails the same way twice in a row: the referee stops redealing and says,
with counts only (the deal is hidden: no card's name), what is wrong and what to do."""

from __future__ import annotations

import re

from trickref.engine.referee.autotable import AutoTable
from trickref.engine.referee.commands import DealerCommand, Message
from trickref.engine.referee.events import DealDone, DealerReady, NewGame
from trickref.engine.referee.referee import deal_problem_counts

CARD = re.compile(r"\b(?:10|[2-9TJQKA])[SHDC]\b")
MISSING = ("missing from the deal: QS 7H",)
EXTRA = ("AS was read more often than the plan holds it (sent to the reject pocket)",)


def _dealing() -> tuple[AutoTable, int]:
    t = AutoTable(seed=1, entry="touch")
    t.feed(NewGame("hearts", ("a", "b", "c", "d")))
    out = t.feed(t.queue.popleft())
    deal = [c for c in out if isinstance(c, DealerCommand)][0]
    t.queue.clear()
    return t, deal.deal_id


def _fail(t: AutoTable, deal_id: int, problems: tuple[str, ...]) -> list[str]:
    out = t.feed(DealDone(deal_id, False, problems))
    return [c.text for c in out if isinstance(c, Message)]


def _redeal(t: AutoTable) -> int:
    out = t.feed(DealerReady(True))
    t.queue.clear()
    return [c for c in out if isinstance(c, DealerCommand)][0].deal_id


def test_the_same_failure_twice_stops_with_counts_and_what_to_do() -> None:
    t, deal = _dealing()
    _fail(t, deal, MISSING)
    assert not t.ref.deal_stuck
    deal = _redeal(t)
    texts = _fail(t, deal, MISSING)
    assert t.ref.deal_stuck
    stop = t.ref.dealer_fault
    assert stop is not None and stop in texts
    assert "2 cards missing" in stop and "0 cards too many" in stop
    assert "reject pocket" in stop and "Gather every card" in stop and "Resume" in stop
    shown = str(t.ref.public_view()["table"]["dealer"].get("fault") or "")
    for text in (stop, shown):
        assert not CARD.search(text), text


def test_a_different_failure_or_a_good_deal_starts_the_count_again() -> None:
    t, deal = _dealing()
    _fail(t, deal, MISSING)
    deal = _redeal(t)
    _fail(t, deal, EXTRA)  # not the same way: the operator may have changed something; try again
    assert not t.ref.deal_stuck and "did not check out (" in (t.ref.dealer_fault or "")
    deal = _redeal(t)
    _fail(t, deal, EXTRA)
    assert t.ref.deal_stuck and "1 card too many" in (t.ref.dealer_fault or "")
    deal = _redeal(t)  # the people counted the deck and pressed Resume: the deal is good now
    t.feed(DealDone(deal, True))
    assert not t.ref.deal_stuck and t.ref.dealer_fault is None and t.ref.waiting == "turn"


def test_problem_lines_are_counted() -> None:
    assert deal_problem_counts([
        "missing from the deal: QS 7H 2C",
        "AS went to seat 1 but the plan holds no (more) copies of it",
        "KD was read more often than the plan holds it (sent to the reject pocket)",
        "JH went to seat 2, the plan says seat 3",
        "a card could not be read after 3 tries (sent to the reject pocket)",
    ]) == {"missing": 3, "extra": 2, "misplaced": 1, "unreadable": 1}
    assert deal_problem_counts(["the hopper ran out with 4 cards of the plan still to deal"])["missing"] == 4
