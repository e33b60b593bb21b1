"""A dealer fault on the shared screen: what happened in the referee's words, once, with no
internal deal id and never a card's name (the jammed card may be from someone's hand)."""

from __future__ import annotations

import re

from trickref.engine import cards as C
from trickref.engine.referee.autotable import AutoTable
from trickref.engine.referee.commands import DealerCommand, Message
from trickref.engine.referee.events import DealerFault, NewGame

CARD = re.compile(r"\b(?:10|[2-9TJQKA])[SHDC]\b")


def faulted(message: str, kind: str = "jam") -> tuple[list[str], str]:
    t = AutoTable(seed=1, entry="touch")
    t.feed(NewGame("hearts", ("a", "b", "c", "d")))
    out = t.feed(t.queue.popleft())
    deal = [c for c in out if isinstance(c, DealerCommand)][0]
    t.queue.clear()
    out = t.feed(DealerFault(kind, message, deal.step))
    texts = [c.text for c in out if isinstance(c, Message)]
    view = t.ref.public_view()
    return texts, str(view["table"]["dealer"].get("fault") or "")


def test_a_jam_naming_every_card_shows_none_of_them() -> None:
    for name in C.NAMES:
        driver = (f"deal 12: a card jammed at the reader stage (card {name}); the dealer stopped: "
                  f"clear the path, then resume")
        texts, shown = faulted(driver)
        for text in texts + [shown]:
            assert not CARD.search(text), text
            assert "deal 12" not in text, text
            assert text.count("jammed") <= 1 and "clear the path" not in text, text


def test_a_card_name_anywhere_in_the_drivers_words_is_hidden() -> None:
    texts, shown = faulted("deal 4: the dealer refused the plan: QS and 10H out of place", kind="fault")
    assert "QS" not in shown and "10H" not in shown and "a card" in shown
    assert "Resume" in shown and all("QS" not in t for t in texts)


def test_the_link_fault_keeps_its_own_words() -> None:
    texts, shown = faulted("unplugged", kind="link_down")
    assert "cable" in shown and "unplugged" in shown
