"""What the screens know of a game: its descriptor's flags (engine.catalog.GameInfo.public).

A table's view carries them (``view["game"]["info"]``, the referee's); a view the kiosk builds
itself (a score sheet's ``{"game": id, "names": [...]}``) gets them from the catalog. The screens
draw by these flags and never compare a game id.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trickref.engine import catalog

from .i18n import N_, _

# the words of each special Nil: (on a button, in a seat's line)
_NIL_WORDS = {"Blind Nil": (N_("Blind Nil"), N_("blind nil")), "Double Nil": (N_("Double Nil"), N_("double nil"))}


def flags(g: Mapping[str, Any] | str | None) -> Mapping[str, Any]:
    """The flags of the game of view ``g`` (or of game id ``g``); {} for no known game."""
    game: object = g
    if isinstance(g, Mapping):
        got = g.get("info")
        if isinstance(got, Mapping):
            return got
        game = g.get("game")
    return catalog.info(game).public() if isinstance(game, str) and catalog.known(game) else {}


def teams(g: Mapping[str, Any] | str | None) -> bool:
    """Partners sit opposite (seats s and s+2 share their totals)."""
    return bool(flags(g).get("teams"))


def lower_wins(g: Mapping[str, Any] | str | None) -> bool:
    return bool(flags(g).get("lower_total_wins"))


def point_cards(g: Mapping[str, Any] | str | None) -> bool:
    """Hearts and the Q♠ score (the Hearts games)."""
    return bool(flags(g).get("point_cards"))


def cancels(g: Mapping[str, Any] | str | None) -> bool:
    """Identical cards cancel (two decks): cards wait under a trick."""
    return bool(flags(g).get("cancels"))


def stock(g: Mapping[str, Any] | str | None) -> str:
    """"draw" (a card shown to keep or discard), "turn-up" (a face-up stock card) or ""."""
    return str(flags(g).get("stock") or "")


def stages(g: Mapping[str, Any] | str | None) -> bool:
    return bool(flags(g).get("stages"))


def pass_count(g: Mapping[str, Any] | str | None) -> int:
    return int(flags(g).get("pass_count") or 3)


def nil_word(g: Mapping[str, Any] | str | None, lower: bool = False) -> str:
    """The game's special Nil in the kiosk's language ("Blind Nil", "double nil"; "" for none)."""
    word = str(flags(g).get("nil_word") or "")
    if not word:
        return ""
    pair = _NIL_WORDS.get(word)
    if pair is None:
        return _(word).lower() if lower else _(word)
    return _(pair[1] if lower else pair[0])


def title(game: str) -> str:
    """The game's title in the kiosk's language (its descriptor's, translated)."""
    return _(catalog.info(game).title) if catalog.known(game) else game
