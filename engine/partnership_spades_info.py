"""Partnership Spades' descriptor (the catalog's entry; the rules are in partnership_spades.py)."""

from __future__ import annotations

from .catalog import GameInfo
from .optionspec import FAILED_NIL_BAGS, OptionSpec, target

INFO = GameInfo(
    id="partnership-spades",
    title="Partnership Spades",
    player_counts=(4,),
    rules=".partnership_spades:PartnershipSpadesState",
    bot=".bots.partnership_spades",
    keeping=".keeping_spades:PartnershipKeeping",
    teams=True,
    has_bags=True,
    options=(
        target(500, 1, (100, 200, 300, 500)),
        OptionSpec("trump", "choice", "clubs", "the fixed trump suit (the seed names clubs)", choices=("clubs", "spades")),
        OptionSpec("must_beat", "bool", True,
                   "the seed's duty to beat: head the trick in the led suit if possible, else trump (over-trump) if possible"),
        OptionSpec("first_lead", "choice", "dealer", "who leads the first trick: the dealer (seed) or the player on the dealer's left",
                   choices=("dealer", "left")),
        OptionSpec("blind_nil_margin", "int", 100, "Blind Nil is allowed when the team trails by more than this", minimum=0),
        OptionSpec("cap_team_bid_at_13", "bool", False, "a team's two bids may not add up to more than 13"),
        OptionSpec("nil_tricks_count_for_partner", "bool", False, "a Nil bidder's tricks count toward the partner's contract"),
        FAILED_NIL_BAGS,
        OptionSpec("loss_floor", "int_or_null", None, "a team at or below this score loses at once (off when null)",
                   presets=(None, -200, -500)),
    ),
    search_bot=".bots.search_spades:SpadesSearchBot",
    bot_params={"gain": 45.0, "spread": 70.0},
    leftover="reject",
    pass_count=2,  # the Blind Nil exchange
    check_letter="p",
    nil_word="Blind Nil",
    sheet_columns=("bid", "made", "bags", "score"),
    sheet_columns_compact=("bidmade", "bags", "score"),
)
