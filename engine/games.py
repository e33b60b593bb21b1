"""The five games by id, and a constructor. Game modules are imported on first use."""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import Any

from .base import GameState
from .errors import RecordError

# game id -> (module, class)
_REGISTRY: dict[str, tuple[str, str]] = {
    "spades-2p": ("trickref.engine.spades_2p", "Spades2PState"),
    "cancellation-hearts": ("trickref.engine.cancellation_hearts", "CancellationHeartsState"),
    "german-whist": ("trickref.engine.german_whist", "GermanWhistState"),
    "partnership-spades": ("trickref.engine.partnership_spades", "PartnershipSpadesState"),
    "hearts": ("trickref.engine.hearts", "HeartsState"),
}
GAME_IDS: tuple[str, ...] = tuple(_REGISTRY)


_CLASSES: dict[str, type[GameState]] = {}  # the classes imported so far


def game_class(game: str) -> type[GameState]:
    cls = _CLASSES.get(game)
    if cls is not None:
        return cls
    try:
        module, name = _REGISTRY[game]
    except KeyError:
        raise RecordError("game", f"unknown game {game!r} (one of {', '.join(GAME_IDS)})") from None
    cls = getattr(importlib.import_module(module), name)
    assert cls is not None
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
    return game_class(game).PLAYER_COUNTS
