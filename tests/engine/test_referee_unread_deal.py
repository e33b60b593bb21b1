"""A deal whose only difference from its plan is cards the reader could not read: the referee
does not deal the whole hand again. The screen says how many cards (never which: the deal is
hidden), that they are in the reject pocket and every other card is where it belongs; the
people put them back on the hopper and press Resume, and a deal of just their plan entries
finishes the hand's deal. A stock game's deal (its loop entries) is still dealt again whole, and
the same failure twice still stops with the counts."""

from __future__ import annotations

import re

from trickref.engine import cards as C
from trickref.engine.referee.autotable import AutoTable
from trickref.engine.referee.commands import DealerCommand, DealPlan
from trickref.engine.referee.events import DealDone, DealerReady, NewGame, event_from_json
from trickref.engine.referee.fault_words import UNREAD_DEAL_WORDS
from trickref.engine.referee.places import Places

CARD = re.compile(r"\b(?:10|[2-9TJQKA])[SHDC]\b")
UNREAD = "a card could not be read after 3 tries (sent to the reject pocket)"


def _dealing(game: str = "hearts", names: tuple[str, ...] = ("a", "b", "c", "d")) -> tuple[AutoTable, DealPlan]:
    t = AutoTable(seed=1, entry="touch")
    t.feed(NewGame(game, names))
    out = t.feed(t.queue.popleft())
    deal = [c for c in out if isinstance(c, DealPlan)][0]
    t.queue.clear()
    return t, deal


def _unread(deal: DealPlan, *idx: int) -> DealDone:
    entries = tuple(deal.plan[i] for i in idx)
    problems = (*[UNREAD] * len(idx), "missing from the deal: " + " ".join(c for c, _ in entries))
    return DealDone(deal.deal_id, False, problems, entries)


def _resume(t: AutoTable, redeal: bool = False) -> list[DealerCommand]:
    out = t.feed(DealerReady(redeal))
    t.queue.clear()
    return [c for c in out if isinstance(c, DealerCommand)]


def test_only_the_unread_cards_are_dealt_again() -> None:
    t, deal = _dealing()
    t.feed(_unread(deal, 5, 30))
    ref = t.ref
    words = ref.dealer_fault or ""
    assert UNREAD_DEAL_WORDS in words and words.startswith("2 cards of the deal") and "Resume" in words
    assert not CARD.search(words), words
    shown = str(ref.public_view()["table"]["dealer"].get("fault") or "")
    assert not CARD.search(shown), shown
    # meanwhile the model has every dealt card in its pocket and the two in the reject pocket
    at = ref.places.at
    assert sorted(at["reject"]) == sorted((C.parse(deal.plan[5][0]), C.parse(deal.plan[30][0])))
    assert sum(len(v) for v in at.values()) == 52
    cmds = _resume(t)
    assert len(cmds) == 1 and isinstance(cmds[0], DealPlan)
    part = cmds[0]
    assert part.plan == (deal.plan[5], deal.plan[30]) and part.deal_id != deal.deal_id
    t.feed(DealDone(part.deal_id, True))
    assert ref.dealer_fault is None and ref.waiting == "turn"
    assert ref.places.snapshot() == _placed(deal)  # every card where the whole plan says


def test_the_cards_set_aside_in_the_reject_pocket_are_dealt_there_again() -> None:
    """Hearts at five sets 2C and 2D aside in the reject pocket: face down nobody can tell them
    from the unread card, so the screen asks for every card there, and the deal of the unread
    card's entry deals them back there too."""
    t, deal = _dealing("hearts", ("a", "b", "c", "d", "e"))
    aside = [e for e in deal.plan if e[1] == "reject"]
    assert sorted(c for c, _ in aside) == ["2C", "2D"]
    i = next(k for k, e in enumerate(deal.plan) if e[1] != "reject")
    t.feed(_unread(deal, i))
    assert "Take the cards out of the reject pocket" in (t.ref.dealer_fault or "")
    assert sorted(t.ref.places.at["reject"]) == sorted(C.parse(c) for c in ("2C", "2D", deal.plan[i][0]))
    part = _resume(t)[0]
    assert isinstance(part, DealPlan)
    assert sorted(part.plan) == sorted([deal.plan[i], *aside])
    t.feed(DealDone(part.deal_id, True))
    assert t.ref.dealer_fault is None and t.ref.places.snapshot() == _placed(deal)


def test_the_unread_card_unreadable_again_stops_with_the_counts() -> None:
    t, deal = _dealing()
    t.feed(_unread(deal, 7))
    part = _resume(t)[0]
    assert isinstance(part, DealPlan) and len(part.plan) == 1
    t.feed(_unread(part, 0))  # the same card, still unreadable: the same problems
    assert t.ref.deal_stuck and "1 card unreadable" in (t.ref.dealer_fault or "")
    # the people replace the card and gather everything: the whole hand is dealt again
    cmds = _resume(t, redeal=True)
    assert len(cmds) == 1 and isinstance(cmds[0], DealPlan) and len(cmds[0].plan) == 52
    t.feed(DealDone(cmds[0].deal_id, True))
    assert t.ref.dealer_fault is None and t.ref.places.snapshot() == _placed(cmds[0])


def test_gathering_everything_instead_deals_the_whole_hand() -> None:
    """The screen asks only for the unread cards, but a table that gathers all the cards and
    redeals (the host's Resume after a cable fault, say) gets the whole deal."""
    t, deal = _dealing()
    t.feed(_unread(deal, 3))
    cmds = _resume(t, redeal=True)
    assert len(cmds) == 1 and isinstance(cmds[0], DealPlan) and len(cmds[0].plan) == 52
    assert not t.ref.deal_unread and t.ref.deal_whole is None


def test_a_stock_game_is_dealt_again_whole() -> None:
    t, deal = _dealing("german-whist", ("a", "b"))
    assert any(target == "loop" for _, target in deal.plan)
    t.feed(_unread(deal, 0))
    assert "did not check out" in (t.ref.dealer_fault or "")
    cmds = _resume(t)
    assert len(cmds) == 1 and isinstance(cmds[0], DealPlan) and len(cmds[0].plan) == len(deal.plan)


def test_the_unread_entries_survive_the_journal() -> None:
    """The referee is a function of its events: a DealDone with unread entries reads back the
    same from its journal line (a power cut while the screen waits for the cards)."""
    _, deal = _dealing()
    ev = _unread(deal, 1, 2)
    assert event_from_json(ev.to_json()) == ev


def _placed(deal: DealPlan) -> dict[str, object]:
    p = Places()
    p.deal(deal.plan)
    return p.snapshot()
