"""trickref's rules engine: cards, the five games, records and replay. Standard library only."""

# first: which build runs, compiled or pure Python (build.py; it must run before any module it names)
from .build import ENGINE_BUILD, ENGINE_BUILD_NOTE  # isort: skip
from .actions import Action
from .base import GameState
from .errors import IllegalAction, RecordError
from .games import GAME_IDS, game_class, new_game
from .records import Record  # installs the record codec GameState.to_json / from_json use

__all__ = ["ENGINE_BUILD", "ENGINE_BUILD_NOTE", "Action", "GameState", "IllegalAction", "RecordError", "GAME_IDS", "game_class", "new_game", "Record"]
