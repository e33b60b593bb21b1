"""Rule-based bots, one module per game. A bot sees only what its seat may know.

``bot_for(game_id)`` returns an object with ``choose(state, seat, rng) -> Action``; the action
is always one of ``state.legal_actions(seat)``. Bots never read another seat's hand: they use
``state.hand_of(seat)``, the public trick and play history, and ``state.view(seat)``.
"""

from __future__ import annotations

import importlib
import random
from typing import Protocol

from ..actions import Action
from ..base import GameState

_MODULES = {
    "spades-2p": "trickref.engine.bots.spades_2p",
    "cancellation-hearts": "trickref.engine.bots.cancellation_hearts",
    "german-whist": "trickref.engine.bots.german_whist",
    "partnership-spades": "trickref.engine.bots.partnership_spades",
    "hearts": "trickref.engine.bots.hearts",
}


class Bot(Protocol):
    def choose(self, state: GameState, seat: int, rng: random.Random) -> Action: ...


def bot_for(game: str) -> Bot:
    """The bot of ``game``: each module defines ``BOT``."""
    bot: Bot = importlib.import_module(_MODULES[game]).BOT
    return bot
