"""The catalog of games: one descriptor (``GameInfo``) per game, and nothing else asks a game id.

What a game is (its id, title, player counts, decks, teams, who wins, rule options, bots, the
dealer's flow, the score sheet's columns and the keep-score rules) is declared once, in the
game's descriptor module beside its rules module (``engine/<game>_info.py``, a module-level
``INFO``). Everything else reads the descriptor (``info(game)``) and never compares an id.

This module imports no rules code: a descriptor names its rules class, bots and keep-score
rules as ``"module:attribute"`` paths, which ``load`` imports when they are first needed.

Where games come from, in this order (``game_ids()`` keeps it):

- the five built-in games (``BUILTIN``: their descriptor modules);
- plug-ins: the ``trickref.games`` entry points of installed distributions, then the modules
  named in the environment variable ``TRICKREF_GAMES`` (comma-separated); each is a
  descriptor module with an ``INFO`` (an entry point may also name the ``GameInfo`` itself);
- ``register(info)`` at run time (what the tests' own game uses in-process).

A plug-in game needs nothing but its rules module (a ``GameState`` subclass), its descriptor
and, for keep-score, its ``keeping.Keeping`` subclass; the referee, the simulator, the kiosk
and the club hub then offer it like the others (tests/plugin_game is such a game).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

from .errors import RecordError
from .optionspec import OptionSpec

PACKAGE = __name__.rpartition(".")[0]  # trickref.engine
BUILTIN: tuple[str, ...] = (  # the built-in games' descriptor modules, in the home screen's order
    "spades_2p_info", "cancellation_hearts_info", "german_whist_info", "partnership_spades_info", "hearts_info",
)
DEFAULT = "hearts"  # the game a new table, or a new club night, starts from
ENTRY_POINTS = "trickref.games"
ENV = "TRICKREF_GAMES"
LEFTOVER_PLACES = ("reject", "centre", "loop")
STOCK_FLOWS = ("", "draw", "turn-up")


@dataclass(frozen=True)
class GameInfo:
    """One game, as everything outside its own modules knows it.

    The paths (``rules``, ``bot``, ``search_bot``, ``keeping``) are ``"module:attribute"``;
    a module starting with ``.`` is inside ``trickref.engine``.
    """

    id: str
    title: str  # English; the kiosk translates it
    player_counts: tuple[int, ...]
    rules: str  # the GameState subclass
    bot: str  # the rule bot: a module defining ``BOT`` (or "module:attribute")
    keeping: str  # the keep-score rules: a ``keeping.Keeping`` subclass
    decks: int = 1
    teams: bool = False  # seats s and s+2 are partners: they share totals (and bags)
    lower_total_wins: bool = False
    has_bags: bool = False
    options: tuple[OptionSpec, ...] = ()
    # bots: the search bot's class (default: search.SearchBot) and its game constants
    search_bot: str = ".bots.search:SearchBot"
    bot_params: Mapping[str, Any] = field(default_factory=dict)
    # the dealer's flow (engine.referee.flows)
    leftover: str = "reject"  # where the cards dealt to nobody go: reject, centre or loop
    pass_count: int = 3  # cards per pass, where the game passes
    stock: str = ""  # "" (none), "draw" (a card shown to the player to keep or discard, spades-2p
    #                   style) or "turn-up" (a face-up stock card to play for, German Whist style)
    first_stock: int = 0  # the deck position of the first stock card shown
    loop_bots_refused: str = ""  # why bot seats may not keep their cards in the dealer's loop ("": they may)
    check_letter: str = ""  # the game's letter in a check code (engine.referee.checkcode)
    # what the kiosk shows
    nil_word: str = ""  # the game's special Nil ("Double Nil", "Blind Nil"; "": none)
    point_cards: bool = False  # hearts and the Q♠ score (the Hearts games): shown per trick and per hand
    cancels: bool = False  # identical cards cancel each other (two decks): cards wait under a trick
    stages: bool = False  # a game in two stages (German Whist: the stock, then the hands out)
    sheet_columns: tuple[str, ...] = ("tricks", "score")  # the paper pad's columns (ui.paperpad)
    sheet_columns_compact: tuple[str, ...] = ()  # on a narrow screen (default: the same)
    help_dir: str = ""  # a folder of its players' pages, <language>/<id>.md ("": the kiosk's ui/help)

    def __post_init__(self) -> None:
        if not self.id or not self.title or not self.player_counts:
            raise ValueError(f"a game needs an id, a title and player counts: {self!r}")
        if self.leftover not in LEFTOVER_PLACES:
            raise ValueError(f"{self.id}: leftover must be one of {', '.join(LEFTOVER_PLACES)}, not {self.leftover!r}")
        if self.stock not in STOCK_FLOWS:
            raise ValueError(f"{self.id}: stock must be one of {STOCK_FLOWS!r}, not {self.stock!r}")
        if self.teams and self.player_counts != (4,):
            raise ValueError(f"{self.id}: partners sit opposite at a table of four")
        names = [o.name for o in self.options]
        if "target" not in names or len(set(names)) != len(names):
            raise ValueError(f"{self.id}: options need one 'target' and distinct names, not {names}")

    def defaults(self) -> dict[str, Any]:
        return {s.name: s.default for s in self.options}

    def columns(self, compact: bool = False) -> tuple[str, ...]:
        return (self.sheet_columns_compact or self.sheet_columns) if compact else self.sheet_columns

    def public(self) -> dict[str, Any]:
        """What the kiosk's view carries (``public_view()["game"]["info"]``): the flags the
        screens draw by."""
        return {
            "title": self.title, "teams": self.teams, "lower_total_wins": self.lower_total_wins,
            "has_bags": self.has_bags, "nil_word": self.nil_word, "pass_count": self.pass_count,
            "point_cards": self.point_cards, "cancels": self.cancels, "stock": self.stock,
            "stages": self.stages, "decks": self.decks,
        }


_GAMES: dict[str, GameInfo] = {}
_LOADED = False


def _module(path: str) -> str:
    return f"{PACKAGE}{path}" if path.startswith(".") else path


def load(path: str, default_attr: str = "") -> Any:
    """What a descriptor's ``"module:attribute"`` path names (imported on first use)."""
    mod, _, attr = path.partition(":")
    obj = importlib.import_module(_module(mod))
    return getattr(obj, attr or default_attr)


def _add(got: object, where: str) -> None:
    if not isinstance(got, GameInfo):
        raise TypeError(f"{where}: a game plug-in gives a GameInfo (or a module with INFO), not {got!r}")
    old = _GAMES.get(got.id)
    if old is not None and old != got:
        raise ValueError(f"{where}: game {got.id!r} is declared twice")
    _GAMES[got.id] = got


def _plugin(obj: object, where: str) -> None:
    _add(getattr(obj, "INFO", obj), where)


def _ensure() -> None:
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    for name in BUILTIN:
        _add(importlib.import_module(f"{PACKAGE}.{name}").INFO, name)
    for ep in metadata.entry_points(group=ENTRY_POINTS):
        _plugin(ep.load(), f"entry point {ep.name}")
    for name in filter(None, (s.strip() for s in os.environ.get(ENV, "").split(","))):
        _plugin(importlib.import_module(name), f"{ENV} {name}")


def register(game: GameInfo) -> GameInfo:
    """Add a game at run time (a plug-in's registration call); returns it."""
    _ensure()
    _add(game, "register")
    return game


def unregister(game_id: str) -> None:
    """Take a game added by ``register`` away again (tests)."""
    _GAMES.pop(game_id, None)


def game_ids() -> tuple[str, ...]:
    _ensure()
    return tuple(_GAMES)


def games() -> tuple[GameInfo, ...]:
    _ensure()
    return tuple(_GAMES.values())


def known(game: object) -> bool:
    _ensure()
    return isinstance(game, str) and game in _GAMES


def info(game: str) -> GameInfo:
    """The descriptor of ``game``; RecordError (field ``game``) for an unknown one."""
    _ensure()
    got = _GAMES.get(game)
    if got is None:
        raise RecordError("game", f"unknown game {game!r} (one of {', '.join(_GAMES)})")
    return got


def by_letter(letter: str) -> GameInfo | None:
    """The game whose check-code letter is ``letter``."""
    return next((g for g in games() if g.check_letter and g.check_letter == letter), None)


class GameIds(Sequence[str]):
    """The known game ids, read afresh each time (a plug-in registered later is in it)."""

    def __getitem__(self, i: Any) -> Any:
        return game_ids()[i]

    def __len__(self) -> int:
        return len(game_ids())

    def __iter__(self) -> Iterator[str]:
        return iter(game_ids())

    def __contains__(self, game: object) -> bool:
        return known(game)

    def __repr__(self) -> str:
        return repr(game_ids())


class Specs(Mapping[str, tuple[OptionSpec, ...]]):
    """game id -> its rule options (each game's ``GameInfo.options``), read afresh."""

    def __getitem__(self, game: str) -> tuple[OptionSpec, ...]:
        if not known(game):
            raise KeyError(game)
        return info(game).options

    def __len__(self) -> int:
        return len(game_ids())

    def __iter__(self) -> Iterator[str]:
        return iter(game_ids())
