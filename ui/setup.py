"""What the home screens configure before a game: game, seats, names, bots, rule options."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from trickref.engine import catalog
from trickref.engine.games import GAME_IDS
from trickref.engine.options import SPECS, defaults, resolve

from . import gameinfo
from .i18n import N_, _

DEFAULT_NAMES = ("Ana", "Ben", "Cem", "Dee", "Eli", "Fay", "Gus", "Hal", "Ivy", "Joe", "Kim")


# The bot levels a bot seat can play at (engine.bots.levels.LEVELS, checked by a test; kept
# here so that the home screens do not import the search): the rule bot and two searches.
BOT_LEVELS: tuple[str, ...] = ("rule", "search", "strong")
LEVEL_TITLES: dict[str, str] = {  # translated when shown (level_title)
    "rule": N_("rule bot"), "search": N_("search bot"), "strong": N_("strong bot"),
}


def level_title(level: str) -> str:
    """A bot level's name in the kiosk's language."""
    return _(LEVEL_TITLES[level])


def player_counts(game: str) -> tuple[int, ...]:
    """The allowed player counts (the game's descriptor: the home screen imports no game
    module at start-up)."""
    return catalog.info(game).player_counts


def title(game: str) -> str:
    """The game's name in the kiosk's language."""
    return gameinfo.title(game)


@dataclass
class Setup:
    game: str = catalog.DEFAULT  # the game a new table starts from
    players: int = 4
    names: list[str] = field(default_factory=lambda: list(DEFAULT_NAMES))
    bots: set[int] = field(default_factory=lambda: set(range(1, 11)))
    options: dict[str, dict[str, Any]] = field(default_factory=lambda: {g: defaults(g) for g in GAME_IDS})
    bot_levels: dict[int, str] = field(default_factory=dict)  # seat -> level; missing: "rule"

    def choose_game(self, game: str) -> None:
        self.game = game
        counts = player_counts(game)
        if self.players not in counts:
            self.players = 4 if 4 in counts else counts[0]

    def game_options(self) -> dict[str, Any]:
        return resolve(self.game, self.options[self.game])

    def specs(self) -> tuple[Any, ...]:
        return SPECS[self.game]

    def seat_names(self) -> list[str]:
        return [self.names[i] for i in range(self.players)]

    def seat_bots(self) -> list[int]:
        return sorted(s for s in self.bots if s < self.players)

    def level_of(self, seat: int) -> str:
        level = self.bot_levels.get(seat, BOT_LEVELS[0])
        return level if level in BOT_LEVELS else BOT_LEVELS[0]

    def next_level(self, seat: int) -> str:
        """The seat's bot level after the current one (a cycle), set and returned."""
        level = BOT_LEVELS[(BOT_LEVELS.index(self.level_of(seat)) + 1) % len(BOT_LEVELS)]
        self.bot_levels[seat] = level
        return level

    def seat_levels(self) -> dict[int, str]:
        """The level of each bot seat of this game."""
        return {s: self.level_of(s) for s in self.seat_bots()}
