"""German Whist's descriptor (the catalog's entry; the rules are in german_whist.py)."""

from __future__ import annotations

from .catalog import GameInfo
from .optionspec import OptionSpec, target

INFO = GameInfo(
    id="german-whist",
    title="German Whist",
    player_counts=(2,),
    rules=".german_whist:GermanWhistState",
    bot=".bots.german_whist",
    keeping=".keeping_whist:GermanWhistKeeping",
    options=(
        target(15, 1, (7, 15, 21)),
        OptionSpec("score_all_tricks", "bool", False,
                   "score tricks over 13 across all 26 tricks instead of tricks over 6 in stage two"),
    ),
    search_bot=".bots.search_whist:WhistSearchBot",
    leftover="loop",
    stock="turn-up",
    first_stock=26,  # the 27th card of the deck order is turned up first
    check_letter="w",
    stages=True,
    sheet_columns=("tricks", "score"),
)
