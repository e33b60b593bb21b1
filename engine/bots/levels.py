"""The bot levels the kiosk and ``trickref sim --bot-level`` offer, and the search bot of each game.

The levels are names for a search budget per decision (the rule bot at ``rule``). Each game's
search bot is ``search.SearchBot`` or its game family's subclass (the Hearts games:
search_hearts.py; the Spades games: search_spades.py), named by the game's descriptor
(``GameInfo.search_bot``), so that the subclasses can build on search.py without search.py
knowing them.
"""

from __future__ import annotations

from typing import Any

from .. import catalog
from . import bot_for
from .search import SearchBot

# the levels the kiosk and ``trickref sim --bot-level`` offer: name -> search budget per
# decision in seconds (None: the rule bot); and the worlds searched per decision where a
# reproducible bot is wanted (``trickref sim``: the same seed plays the same game, and a
# journal resumes to the same end, whatever the machine's speed)
LEVELS: dict[str, float | None] = {"rule": None, "search": 0.1, "strong": 0.2}
LEVEL_WORLDS: dict[str, int] = {"search": 6, "strong": 12}
LEVEL_NAMES: tuple[str, ...] = tuple(LEVELS)


def search_class(game: str) -> type[SearchBot]:
    """The search bot class of ``game`` (its descriptor's ``search_bot``: the Hearts games'
    search_hearts.py and the Spades games' search_spades.py have their own)."""
    cls = catalog.load(catalog.info(game).search_bot)
    assert isinstance(cls, type) and issubclass(cls, SearchBot)
    return cls


def make_search_bot(game: str, **kw: Any) -> SearchBot:
    """A SearchBot for ``game`` (its game's own class, see ``search_class``)."""
    return search_class(game)(game, **kw)


def search_bot(game: str, level: str = "strong", reproducible: bool = False, **kw: Any) -> Any:
    """The bot of ``game`` at ``level`` (one of ``LEVELS``): the rule bot, or a SearchBot with
    the level's time budget (``reproducible``: its fixed number of worlds instead)."""
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r} (one of {', '.join(LEVEL_NAMES)})")
    budget = LEVELS[level]
    if budget is None:
        return bot_for(game)
    if reproducible:
        kw.setdefault("iterations", LEVEL_WORLDS[level])
    return make_search_bot(game, budget=budget, **kw)
