"""The referee's refusals and waiting lines on the kiosk in the kiosk's language."""

from __future__ import annotations

import pytest

from trickref.ui import i18n
from trickref.ui.referee_words import translate


@pytest.fixture(autouse=True)
def _english_after():
    yield
    i18n.set_language("en")


def test_english_is_shown_as_the_referee_said_it():
    i18n.set_language("en")
    line = "Ana: it is not your turn (waiting for Ben to play)"
    assert translate(line) == line


def test_refusals_in_french_with_their_inner_words():
    i18n.set_language("fr")
    assert translate("Ana: it is not your turn (waiting for Ben, Cem to play)") == \
        "Ana : ce n'est pas votre tour (on attend que Ben, Cem puisse jouer)"
    assert translate("Ben cannot play that card: must follow clubs") == \
        "Ben ne peut pas jouer cette carte : il faut fournir à trèfle"
    assert translate("Zoë: choose with - and +, then press OK") == "Zoë : choisissez avec - et +, puis appuyez sur OK"


@pytest.mark.parametrize("lang", ["fr", "ht", "tr"])
def test_every_known_sentence_changes_and_unknown_ones_stay(lang):
    i18n.set_language(lang)
    known = ["the game is over", "Ana: feed your card through the reader or tap it on the screen",
             "Ana cannot play that card: the first lead may not be a heart or QS",
             "waiting for Ben to bid", "the team's bids may not add up to more than 13 (at most 9)"]
    for line in known:
        out = translate(line)
        assert out != line and "{" not in out, (lang, line, out)
    assert "9" in translate("the team's bids may not add up to more than 13 (at most 9)")
    odd = "Ana cannot pass of 3 cards: something new"
    assert translate(odd) == odd  # not a known sentence: as the referee said it
