"""The games by id (the catalog's), and a constructor. Game modules are imported on first use."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from . import catalog
from .base import GameState

GAME_IDS: Sequence[str] = catalog.GameIds()  # every known game id, plug-ins included

_CLASSES: dict[str, type[GameState]] = {}  # the classes imported so far


def game_class(game: str) -> type[GameState]:
    cls = _CLASSES.get(game)
    if cls is not None:
        return cls
    cls = catalog.load(catalog.info(game).rules)  # RecordError for an unknown game
    assert isinstance(cls, type) and issubclass(cls, GameState)
    _CLASSES[game] = cls
    return cls


def new_game(
    game: str,
    players: int,
    options: Mapping[str, Any] | None = None,
    first_dealer: int = 0,
    names: Sequence[str] | None = None,
) -> GameState:
    """A new game of ``game`` for ``players`` seats, waiting for the first deck order."""
    return game_class(game)(players, options, first_dealer, names)


def player_counts(game: str) -> tuple[int, ...]:
    return catalog.info(game).player_counts
