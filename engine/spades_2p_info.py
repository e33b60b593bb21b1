"""Two-player Spades' descriptor (the catalog's entry; the rules are in spades_2p.py)."""

from __future__ import annotations

from .catalog import GameInfo
from .optionspec import FAILED_NIL_BAGS, OptionSpec, target

INFO = GameInfo(
    id="spades-2p",
    title="Two-player Spades",
    player_counts=(2,),
    rules=".spades_2p:Spades2PState",
    bot=".bots.spades_2p",
    keeping=".keeping_spades:Spades2PKeeping",
    has_bags=True,
    options=(
        target(500, 1, (200, 300, 500)),
        OptionSpec("first_bidder", "choice", "second", "who bids first: the second player (the dealer, as the seed says) or the first player",
                   choices=("second", "first")),
        FAILED_NIL_BAGS,
    ),
    search_bot=".bots.search_spades:SpadesSearchBot",
    bot_params={"gain": 35.0, "spread": 110.0},
    leftover="loop",
    stock="draw",
    loop_bots_refused=(
        "a bot seat at the dealer is not offered for two-player Spades: its 13 draws would be decided "
        "inside the dealer, with every card it keeps or discards cycled past in the 52-card stock loop "
        "that already costs about 4 minutes of fetching a hand, and the draw steps only know a player "
        "who takes the card shown from their pocket and feeds back the one not kept; play it with two "
        "people, or against the bot in simulated mode"),
    check_letter="s",
    nil_word="Double Nil",
    sheet_columns=("bid", "made", "bags", "score"),
    sheet_columns_compact=("bidmade", "bags", "score"),
)
