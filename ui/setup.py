"""What the home screens configure before a game: game, seats, names, bots, rule options."""

from __future__ import annotations

from collections.abc import Callable
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
    """The choices on the home, players and options screens. ``remembered`` holds each game's
    last setup (``snapshot``; the table's memory, ui.memory, fills it at start and keeps it):
    choosing a game brings its own back. ``touch`` after a change: ``on_change`` saves it."""

    game: str = catalog.DEFAULT  # the game a new table starts from
    players: int = 4
    names: list[str] = field(default_factory=lambda: list(DEFAULT_NAMES))
    bots: set[int] = field(default_factory=lambda: set(range(1, 11)))
    options: dict[str, dict[str, Any]] = field(default_factory=lambda: {g: defaults(g) for g in GAME_IDS})
    bot_levels: dict[int, str] = field(default_factory=dict)  # seat -> level; missing: "rule"
    remembered: dict[str, dict[str, Any]] = field(default_factory=dict)  # game -> snapshot
    on_change: Callable[[], None] | None = None

    def choose_game(self, game: str) -> None:
        if game != self.game:
            self.remembered[self.game] = self.snapshot()
        self.game = game
        saved = self.remembered.get(game)
        if saved is not None:
            self.apply(game, saved)
        counts = player_counts(game)
        if self.players not in counts:
            self.players = 4 if 4 in counts else counts[0]

    def touch(self) -> None:
        """Something was changed on a setup screen: remember it (``on_change``)."""
        self.remembered[self.game] = self.snapshot()
        if self.on_change is not None:
            self.on_change()

    def snapshot(self) -> dict[str, Any]:
        """This game's setup as plain data: players, every seat's name, bots, levels, options."""
        return {"players": self.players, "names": list(self.names), "bots": sorted(self.bots),
                "levels": {str(s): lv for s, lv in sorted(self.bot_levels.items())},
                "options": dict(self.options[self.game])}

    def apply(self, game: str, saved: dict[str, Any]) -> None:
        """A remembered setup of ``game`` back in place. Whatever in it no longer fits (a
        player count, a level or an option this version does not have) is left as it is."""
        players = saved.get("players")
        if isinstance(players, int) and players in player_counts(game):
            self.players = players
        names = saved.get("names")
        if isinstance(names, list):
            for i, name in enumerate(names[:len(self.names)]):
                if isinstance(name, str) and name.strip():
                    self.names[i] = name
        bots = saved.get("bots")
        if isinstance(bots, list) and all(isinstance(b, int) for b in bots):
            self.bots = {b for b in bots if 0 <= b < len(DEFAULT_NAMES)}
        levels = saved.get("levels")
        if isinstance(levels, dict):
            self.bot_levels = {int(k): v for k, v in levels.items() if str(k).isdigit() and v in BOT_LEVELS}
        options = saved.get("options")
        if isinstance(options, dict):
            try:
                self.options[game] = dict(resolve(game, options))
            except ValueError:
                pass  # options this version cannot read: the game's defaults stay

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

    def seat_of(self, name: str) -> int | None:
        """The seat (of this game's) that ``name`` sits at, if any (case does not matter)."""
        from trickref.device.roster import name_key

        key = name_key(name)
        return next((s for s in range(self.players) if name_key(self.names[s]) == key), None)

    def seat_player(self, seat: int, name: str) -> None:
        """``name`` sits at ``seat``; if they sat at another seat, the two swap."""
        other = self.seat_of(name)
        if other is not None and other != seat:
            self.names[other] = self.names[seat]
        self.names[seat] = name
