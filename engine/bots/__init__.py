"""Rule-based bots, one module per game. A bot sees only what its seat may know.

``bot_for(game_id)`` (the module the game's descriptor names) returns an object with ``choose(state, seat, rng) -> Action``; the action
is always one of ``state.legal_actions(seat)``. Bots never read another seat's hand: they use
``state.hand_of(seat)``, the public trick and play history, and ``state.view(seat)``.
"""

from __future__ import annotations

import random
from typing import Protocol

from .. import catalog
from ..actions import Action
from ..base import GameState


class Bot(Protocol):
    def choose(self, state: GameState, seat: int, rng: random.Random) -> Action: ...


def bot_for(game: str) -> Bot:
    """The bot of ``game``: the module its descriptor names (``GameInfo.bot``) defines ``BOT``."""
    bot: Bot = catalog.load(catalog.info(game).bot, "BOT")
    return bot
