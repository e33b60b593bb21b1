"""ui.gameinfo: the screens read a game's flags from the view (the referee's ``info``) or, for a
view the kiosk builds itself, from the catalog; never from the id (issue 19 point 1)."""

from __future__ import annotations

from trickref.engine import catalog
from trickref.ui import gameinfo as GI
from trickref.ui.i18n import set_language


def test_flags_come_from_the_view_first_then_the_catalog() -> None:
    assert GI.flags({"game": "hearts", "info": {"teams": True}}) == {"teams": True}  # the view says
    assert GI.flags({"game": "partnership-spades"}) == catalog.info("partnership-spades").public()
    assert GI.flags("german-whist")["stages"] and GI.flags(None) == {} and GI.flags({"game": "bridge"}) == {}
    assert GI.teams({"game": "partnership-spades"}) and not GI.teams({"game": "spades-2p"})
    assert GI.lower_wins("hearts") and GI.point_cards("cancellation-hearts") and GI.cancels("cancellation-hearts")
    assert GI.stock("spades-2p") == "draw" and GI.stock("german-whist") == "turn-up" and GI.stock("hearts") == ""
    assert GI.pass_count("partnership-spades") == 2 and GI.pass_count("hearts") == 3


def test_words_are_translated() -> None:
    try:
        set_language("fr")
        assert GI.title("german-whist") == "Whist allemand"
        assert GI.nil_word("partnership-spades") != "Blind Nil" and GI.nil_word("hearts") == ""
        set_language("en")
        assert GI.nil_word("spades-2p", lower=True) == "double nil" and GI.title("bridge") == "bridge"
    finally:
        set_language("en")
