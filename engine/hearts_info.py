"""Hearts' descriptor (the catalog's entry; the rules are in hearts.py)."""

from __future__ import annotations

from .catalog import GameInfo
from .optionspec import OptionSpec, target

INFO = GameInfo(
    id="hearts",
    title="Hearts",
    player_counts=(3, 4, 5, 6, 7),
    rules=".hearts:HeartsState",
    bot=".bots.hearts",
    keeping=".keeping_hearts:HeartsKeeping",
    lower_total_wins=True,
    options=(
        target(100, 50, (50, 100, 150)),
        OptionSpec("moon_self", "int", -25, "the shooter's score for the hand on choosing 'self'"),
        OptionSpec("moon_others", "int", 26, "every other player's score on the shooter choosing 'others'"),
        OptionSpec("omnibus", "bool", False, "the omnibus card counts -10 for whoever takes it"),
        OptionSpec("omnibus_card", "choice", "TD", "the omnibus card", choices=("TD", "JD")),
    ),
    search_bot=".bots.search_hearts:HeartsSearchBot",
    leftover="reject",
    check_letter="h",
    point_cards=True,
    sheet_columns=("score",),
)
