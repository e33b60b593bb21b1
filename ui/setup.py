"""What the home screens configure before a game: game, seats, names, bots, rule options."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from trickref.engine.games import GAME_IDS
from trickref.engine.options import SPECS, defaults, resolve

from .i18n import N_, _

DEFAULT_NAMES = ("Ana", "Ben", "Cem", "Dee", "Eli", "Fay", "Gus", "Hal", "Ivy", "Joe", "Kim")
COUNTS: dict[str, tuple[int, ...]] = {
    "spades-2p": (2,), "cancellation-hearts": (6, 7, 8, 9, 10, 11), "german-whist": (2,),
    "partnership-spades": (4,), "hearts": (3, 4, 5, 6, 7),
}
TITLES: dict[str, str] = {  # translated when shown (title)
    "spades-2p": N_("Two-player Spades"), "cancellation-hearts": N_("Cancellation Hearts"),
    "german-whist": N_("German Whist"), "partnership-spades": N_("Partnership Spades"), "hearts": N_("Hearts"),
}


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
    """The allowed player counts. A table kept here (checked against the engine by a test)
    so that the home screen does not import every game module at start-up."""
    return COUNTS[game]


def title(game: str) -> str:
    """The game's name in the kiosk's language."""
    return _(TITLES[game])


@dataclass
class Setup:
    game: str = "hearts"
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
