"""The bot levels the kiosk and ``trickref sim --bot-level`` offer, their time budgets, and the
search bot of each game.

A level is a time budget per decision (the rule bot at ``rule``). The budget is **CPU time of
the thread that searches** (``time.thread_time``): what a decision is allowed to compute, the
same on a quiet machine and on a busy one (a wall-clock budget on a loaded machine measures
the other work). The search is anytime: it keeps the best answer found so far and stops when
the budget is spent, whatever the CPU (engine/bots/search.py). A slower CPU (a Raspberry Pi 4
is about 4 times slower a core than the machine the benchmarks ran on, ``PI4_SLOWDOWN``) gets
less search in the same budget: ``budget_of("strong@pi4")`` is the budget that buys here what
``strong`` buys on a Pi 4, the benchmarks' Pi-4-sized row.

The kiosk also keeps a wall-clock limit (``WALL_LIMIT``, 1 s): on a CPU busy with other work,
a decision still ends within it (with fewer worlds searched), so a Pi 4 never keeps the table
waiting more than a second for a bot's thought. Benchmarks switch the wall limit off
(``wall_limit=None``) so that their figures do not depend on the machine's load.

Each game's search bot is ``search.SearchBot`` or its game family's subclass (the Hearts games:
search_hearts.py; the Spades games: search_spades.py), named by the game's descriptor
(``GameInfo.search_bot``), so that the subclasses can build on search.py without search.py
knowing them.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Sequence
from typing import Any

from .. import catalog
from . import bot_for
from .search import SearchBot

# the levels the kiosk and ``trickref sim --bot-level`` offer: name -> CPU seconds of search
# per decision (None: the rule bot); and the worlds searched per decision where a reproducible
# bot is wanted (tests, and ``trickref sim --worlds``: the same seed plays the same game)
LEVELS: dict[str, float | None] = {"rule": None, "search": 0.1, "strong": 0.2}
LEVEL_WORLDS: dict[str, int] = {"search": 6, "strong": 12}
LEVEL_NAMES: tuple[str, ...] = tuple(LEVELS)
# a Raspberry Pi 4 core against this project's benchmark machine (issue 11: 3-4x; the slower end)
PI4_SLOWDOWN = 4.0
# the kiosk's ceiling on one decision's wall time, whatever the CPU and its load (seconds)
WALL_LIMIT = 1.0


def budget_of(level: str) -> float | None:
    """The CPU budget per decision of ``level`` (None for the rule bot). ``LEVEL@pi4``: the
    budget that buys on this machine what ``LEVEL`` buys on a Raspberry Pi 4 (a quarter)."""
    name, _, where = level.partition("@")
    if name not in LEVELS or where not in ("", "pi4"):
        raise ValueError(f"unknown bot level {level!r} (one of {', '.join(LEVEL_NAMES)}, "
                         f"or a search level with @pi4)")
    budget = LEVELS[name]
    if budget is None or not where:
        return budget
    return budget / PI4_SLOWDOWN


def search_class(game: str) -> type[SearchBot]:
    """The search bot class of ``game`` (its descriptor's ``search_bot``: the Hearts games'
    search_hearts.py and the Spades games' search_spades.py have their own)."""
    cls = catalog.load(catalog.info(game).search_bot)
    assert isinstance(cls, type) and issubclass(cls, SearchBot)
    return cls


def make_search_bot(game: str, **kw: Any) -> SearchBot:
    """A SearchBot for ``game`` (its game's own class, see ``search_class``)."""
    return search_class(game)(game, **kw)


def search_bot(game: str, level: str = "strong", reproducible: bool = False, *,
               budget: float | None = None, worlds: int | None = None, **kw: Any) -> Any:
    """The bot of ``game`` at ``level`` (one of ``LEVELS``, or ``LEVEL@pi4``): the rule bot, or
    a SearchBot with the level's CPU budget per decision (``budget`` to set another) and the
    kiosk's wall limit (``wall_limit=None`` for none). ``reproducible``: the level's fixed
    number of worlds instead of a budget (``worlds``: that many), so that the same random
    numbers give the same decisions on any machine (no budget, no wall limit)."""
    lv = budget_of(level)
    if lv is None:
        return bot_for(game)
    if reproducible or worlds is not None:
        kw.setdefault("iterations", worlds if worlds is not None else LEVEL_WORLDS[level.partition("@")[0]])
    else:
        kw.setdefault("wall_limit", WALL_LIMIT)
    return make_search_bot(game, budget=budget if budget is not None else lv, **kw)


def bot_options(game: str, pairs: Sequence[str], flag: str = "--bot-option") -> dict[str, Any]:
    """``KEY=VALUE`` pairs (a benchmark's ``flag``, e.g. ``infer=soft``, ``settle_z=None``) as
    keyword arguments of ``game``'s search bot. A value is read as a Python literal (``3``,
    ``0.25``, ``None``, ``False``, ``[1, 2]``), else kept as a word (``soft``). A key that no
    class of the bot's takes, or a pair without ``=``, is refused with a ``ValueError`` naming
    it and the keys there are, before any game is played."""
    params: set[str] = set()
    for cls in search_class(game).__mro__:
        init = cls.__dict__.get("__init__")
        if init is not None:
            params.update(n for n, p in inspect.signature(init).parameters.items()
                          if n not in ("self", "game") and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ValueError(f"{flag} wants KEY=VALUE, not {pair!r}")
        if key not in params:
            raise ValueError(f"{flag} {pair!r}: {game}'s search bot ({search_class(game).__name__}) "
                             f"takes no {key!r}; it takes {', '.join(sorted(params))}")
        try:
            out[key] = ast.literal_eval(text.strip())
        except (ValueError, SyntaxError):
            out[key] = text.strip()
    return out
