"""What the kiosk reads of a table: one immutable snapshot, built by the table host's worker (the
only thread that changes the referee) after every item it takes, and swapped in whole
(``TableHost.published``). The kiosk reads it without the referee's lock: a frame drawn while a
bot plays or a card is read sees one consistent state, never half of a change.

Its views are the referee's (``public_view``, ``seat_view`` of every seat) with the table's
extras (ui.table_client); what a reader is given is its own copy. The game state in it is a copy
too (a refusal's check, a bot's decision run on it).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from trickref.engine.actions import Action


@dataclass(frozen=True)
class TableSnapshot:
    public: Mapping[str, Any]  # the public view with the table's extras
    seats: Mapping[int, Mapping[str, Any]]  # each seat's own view (bots' too), with the extras
    turn: tuple[int, ...]  # the seats on turn while the referee takes entries
    legal: Mapping[int, tuple[Action, ...]]  # their legal actions
    accepting: bool
    waiting_text: str  # why no entry is taken (when not accepting)
    pending: Mapping[int, int]  # per seat, the panel choice on screen
    leds: tuple[str, ...]
    can_undo: bool
    shuffle_wait: bool  # the next hand waits for the shuffle
    last_action: tuple[int, Action] | None  # the last entry taken (seat, action)
    undo_pending: Any  # the undo being asked (None: none)
    bot: tuple[int, Any] | None  # the bot seat on turn and its generator's state
    game: Any  # a copy of the engine state (None before a game)
    # the table's question to the bot on turn (BotSeats.ticket): a new one each time the bot is
    # asked, also at the same position again (after a dealer fault came and went between frames)
    bot_question: int = 0
    # what the referee told one seat only and still holds (ui.letters.Letter), oldest first
    letters: tuple[Any, ...] = ()

    def public_view(self) -> dict[str, Any]:
        return copy.deepcopy(dict(self.public))

    def seat_view(self, seat: int) -> dict[str, Any] | None:
        """The seat's own view (a copy); None for a seat the snapshot has none of."""
        v = self.seats.get(seat)
        return None if v is None else copy.deepcopy(dict(v))

    def check(self, seat: int, action: Action) -> str | None:
        """Why ``action`` by ``seat`` would be refused (None: it would be taken)."""
        if self.game is None:
            return "no game"
        if not self.accepting:
            return self.waiting_text
        if action.kind == "exchange":
            return None
        r = self.game.check(action, seat)
        return None if r is None else str(r)

    def bot_turn(self) -> tuple[int, Any, random.Random] | None:
        """(seat, a copy of the game, its generator) for the bot seat on turn; None for none."""
        if self.bot is None or self.game is None:
            return None
        rng = random.Random()
        rng.setstate(self.bot[1])
        return self.bot[0], self.game.copy(), rng


def freeze(d: Mapping[Any, Any]) -> Mapping[Any, Any]:
    return MappingProxyType(dict(d))
