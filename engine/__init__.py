"""trickref's rules engine: cards, the five games, records and replay. Standard library only."""

from .actions import Action
from .base import GameState
from .errors import IllegalAction, RecordError
from .games import GAME_IDS, game_class, new_game
from .records import Record  # installs the record codec GameState.to_json / from_json use

__all__ = ["Action", "GameState", "IllegalAction", "RecordError", "GAME_IDS", "game_class", "new_game", "Record"]
