"""A power cut right after a played card was read (its ``card_read`` journaled, its routing not
yet done), for every game: the card stays in the reader gate (the simulator keeps it there, as
the hardware does), the resumed table reads it where it is and routes it where the referee says,
the game ends exactly as an uninterrupted run with every card accounted for, and no deal has to
be dealt again. The cut falls on the last card of a hand (the referee then wants the next
shuffle, and the card in the gate must reach the trick pile before the cards are gathered) and
on a card played in the middle of a later hand.

And a deal that fails its check twice the same way (here: a card went missing between hands)
stops the table with the counts and what to do, instead of being redealt forever."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from trickref.device.simulated.table import PowerCut, SimTable, TableStuck
from trickref.engine.referee.events import CardRead

CARD = re.compile(r"\b(?:10|[2-9TJQKA])[SHDC]\b")

# short games (two or three hands) so the suite stays quick
GAMES = [
    ("hearts", 4, {"target": 50}),
    ("cancellation-hearts", 6, {"target": 100}),
    ("german-whist", 2, {"target": 2}),
    ("spades-2p", 2, {"target": 100}),
    ("partnership-spades", 4, {"target": 100}),
]
QUICK = ("german-whist", "spades-2p", "partnership-spades")  # also cut in the middle of a hand
CASES = [(g, n, o, "last_card") for g, n, o in GAMES] + [(g, n, o, "mid_hand") for g, n, o in GAMES if g in QUICK]


def _cut_when(moment: str):  # type: ignore[no-untyped-def]
    def cut(ev: Any, ref: Any) -> bool:
        """On the host's worker, right after ``ev`` was journaled and handled (its commands,
        the routing of the card, are not carried out)."""
        g = ref.game
        if not (isinstance(ev, CardRead) and g is not None and ref.steps and ref.steps[0].OP == "route_fed"
                and ref.steps[0].target == "trick"):
            return False  # a played card, read and waiting in the gate
        if moment == "last_card":
            return bool(ref.waiting == "shuffle")
        return g.hand_number >= 2 and len(g.actions) % 3 == 1
    return cut


def _all_cards(table: SimTable) -> Counter[int]:
    sim = table.sim
    sim.gather_to_hopper()
    with sim.lock:
        return Counter(sim.board.hopper)


@pytest.mark.parametrize("game,n,opts,moment", CASES)
def test_a_cut_with_a_card_in_the_reader_gate_resumes_exactly(game: str, n: int, opts: dict[str, Any],
                                                               moment: str, tmp_path: Path) -> None:
    with SimTable(game, n, opts, seed=9) as clean:
        clean.start()
        clean.run()
        want = clean.finished_record
        decks = clean.referee.game.DECKS
        deals = clean.host.handled["deal_done"]
    assert want is not None and len(want["hands"]) >= 2
    journal = str(tmp_path / "j")
    first = SimTable(game, n, opts, seed=9, journal_path=journal)
    first.host.cut_after = _cut_when(moment)
    try:
        first.start()
        with pytest.raises(PowerCut):
            first.run()
        ref = first.referee
        in_gate = ref.steps[0].card
        assert ref.places.snapshot()["at"]["gate"] == [in_gate]
    finally:
        first.close()
    with SimTable(game, n, opts, seed=9, journal_path=journal) as second:
        second.start()
        assert second.replayed > 0
        second.run(max_entries=20000)
        assert second.finished_record == want
        # no deal dealt again: the two runs dealt exactly as often as the uninterrupted one
        assert first.host.handled["deal_done"] + second.host.handled["deal_done"] == deals
        faults = [m.text for m in second.messages if m.level != "info"]
        assert not faults, faults
        assert not second.recoveries
        # every card of the deck(s) is on the table, once per deck: none lost, none made up
        assert _all_cards(second) == Counter({c: decks for c in range(52)})


def test_a_deal_that_fails_the_same_way_twice_stops_and_says_what_to_do() -> None:
    with SimTable("spades-2p", 2, {"target": 300}, seed=4) as t:
        t.start()
        t.run(max_hands=1)
        assert t.referee.waiting == "shuffle"
        with t.sim.lock:  # a player pockets a card from their tray before the cards are gathered
            tray = next(cards for cards in t.sim.board.trays.values() if cards)
            tray.pop()
        with pytest.raises(TableStuck) as stuck:
            t.run()
        ref = t.referee
        assert ref.deal_stuck and ref.dealer_fault == str(stuck.value)
        assert len(t.recoveries) == 1  # one redeal after the first failure, then it stopped
        assert t.host.handled["deal_done"] == 3  # hand 1, the failed deal, its failed redeal
        words = str(stuck.value)
        assert "1 card missing" in words and "0 cards too many" in words
        assert "reject pocket" in words and "Gather every card" in words and "Resume" in words
        shown = str(ref.public_view()["table"]["dealer"].get("fault") or "")
        for text in (words, shown, *[m.text for m in t.messages if "twice" in m.text]):
            assert not CARD.search(text), text
