"""Cancellation Hearts' descriptor (the catalog's entry; the rules are in cancellation_hearts.py)."""

from __future__ import annotations

from .catalog import GameInfo
from .optionspec import OptionSpec, target

INFO = GameInfo(
    id="cancellation-hearts",
    title="Cancellation Hearts",
    player_counts=(6, 7, 8, 9, 10, 11),
    rules=".cancellation_hearts:CancellationHeartsState",
    bot=".bots.cancellation_hearts",
    keeping=".keeping_hearts:CancellationKeeping",
    decks=2,
    lower_total_wins=True,
    options=(
        target(150, 100, (100, 150, 200)),
        OptionSpec("passing", "choice", "left-right", "pass 3 cards left then right alternately, always right, or not at all",
                   choices=("left-right", "right", "none")),
        OptionSpec("no_points_on_first_trick", "bool", False,
                   "a player void in the led suit may not play a heart or QS to the first trick unless holding nothing else"),
        OptionSpec("last_trick_cancelled", "choice", "nobody",
                   "who takes the cards when the last trick of a hand is fully cancelled",
                   choices=("nobody", "leader")),
        # presets: the seed's figures, and the pool's (-52 / +52: all 52 points of two decks)
        OptionSpec("moon_self", "int", -28, "the shooter's score for the hand on choosing 'self'",
                   presets=(-28, -52)),
        OptionSpec("moon_others", "int", 26, "every other player's score on the shooter choosing 'others'",
                   presets=(26, 52)),
    ),
    search_bot=".bots.search_hearts:HeartsSearchBot",
    leftover="centre",
    check_letter="c",
    point_cards=True,
    cancels=True,
    sheet_columns=("taken", "score"),
    sheet_columns_compact=("takentotal",),
)
