"""The counted lift (issue 20 point 4): a load cell in the splitter blade's arm, read by a NAU7802
on the I2C bus, weighs the cards the blade holds up before a loop card drops in under them; one
off (the blade went in a card high or low), the firmware sends the blade out a card and in again
(firmware/board.py _Splitter.poll). An error in the stack's first landings is the one that grows
into a run of cards under a card drawn before them (benchmarks/stack_tail.py), and those landings
are shallow: every landing down to SCALE_CHECK_MAX is weighed.

On the physical twin: the blade's error is drawn each time it goes in, the cell reads what it
really holds (with the rub's spread and the converter's noise), and the card lands at the depth
the blade is really at; the firmware runs unmodified."""

from __future__ import annotations

from typing import Any

import pytest
from test_twin_stock import deal_spades_2p

from trickref.device.dealer import twin_host as th

P = th.P
OFTEN = {"sorter.error_chance": 5.0}  # the blade goes in a card off 15 % of the time, not 3 %


def stock_deal(seed: int, scale: dict[str, float]) -> tuple[Any, list[int]]:
    """Two-player Spades' stock: one card to seat 0, the other 51 round the loop into the stack."""
    tw, _, deck = deal_spades_2p(seed, scale)
    return tw, deck


def test_no_weighed_landing_lands_off_its_depth(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each landing is checked against the depth the firmware meant (the blade's aim as the card
    falls), so a card that fell while the blade was out a card would count as off too. A weighed
    landing may still be off only when the blade went in off again on its one try."""
    landed: list[tuple[int, int, int]] = []  # (the depth meant, the depth the card is at, tries)
    twins: list[Any] = []
    drop = th.twin.Mechanism._drop_on_hopper

    def watched(mech: Any, c: Any) -> None:
        sp = twins[-1].board.splitter
        aim, tries = sp.aim, sp.tries
        drop(mech, c)
        landed.append((aim, len(mech.hopper) - 1 - mech.hopper.index(c.card), tries))

    monkeypatch.setattr(th.twin.Mechanism, "_drop_on_hopper", watched)
    new_twin = th.new_twin
    monkeypatch.setattr(th, "new_twin", lambda *a, **k: twins.append(new_twin(*a, **k)) or twins[-1])
    caught = off = weighed_n = 0
    for seed in (31, 32, 33):
        landed.clear()
        tw, deck = stock_deal(seed, OFTEN)
        sp, bm = tw.board.splitter, tw.board_module
        assert sp.scale.ok and sp.tare is not None
        weighed = [w for w in landed if 0 < w[0] <= bm.SCALE_CHECK_MAX]
        assert len(weighed) >= 15 and sp.weighed >= len(weighed)  # the deal's shallow landings were weighed
        # off its depth only after the one try again (deeper ones still may: the reader catches
        # them at their fetch)
        assert all(tries == bm.SCALE_TRIES for aim, at, tries in weighed if at != aim), weighed
        assert sorted(tw.mech.hopper) == sorted(deck[1:])
        caught += sp.caught
        off += len([1 for aim, at, _ in weighed if at != aim])
        weighed_n += len(weighed)
    assert caught >= 5  # the blade went in off at a weighed depth, and was caught
    assert off <= 0.05 * weighed_n  # at 15 % an entry, about 15 % of 15 % stay off


def test_without_the_cell_the_same_deals_land_shallow_cards_off_their_depth() -> None:
    """The teeth of the test above: the same blade, no load cell (nothing answers at 0x2A), and
    shallow landings go in off their depth."""
    shallow = 0
    for seed in (31, 32, 33):
        tw, deck = stock_deal(seed, dict(OFTEN, **{"sorter.scale_fitted": 0}))
        assert not tw.board.splitter.scale.ok and tw.board.splitter.weighed == 0
        limit = tw.board_module.SCALE_CHECK_MAX
        shallow += len([d for d in tw.mech.landing_error_depths if 0 < d <= limit])
        assert sorted(tw.mech.hopper) == sorted(deck[1:])
    assert shallow >= 5


def test_the_cell_counts_the_cards_the_blade_holds() -> None:
    """Parked, the reading is the tare; at a depth, the count the firmware makes of the reading
    is the cards the blade really holds, off by one exactly when the blade went in off."""
    tw = th.new_twin(seats=2, seed=7, scale={"sorter.error_chance": 1 / 0.03})  # every entry errs
    host = th.TwinHost(tw, pass_ms=2)
    host.hello()
    host.run(300)
    mech, sp, bm = tw.mech, tw.board.splitter, tw.board_module
    assert sp.tare is not None and abs(sp.tare - mech.v["sorter.scale_tare"]) < 2000
    mech.hopper = list(range(30))
    for depth in (1, 4, 9):
        mech.splitter.command(depth, mech.now)
        mech.now += 1_000_000
        held = (sp.scale.read() - sp.tare + bm.SCALE_PER_CARD // 2) // bm.SCALE_PER_CARD
        assert held == depth + mech.entry_err and mech.entry_err in (-1, 1)


def test_a_dealer_with_the_cell_and_a_perfect_blade_weighs_and_never_goes_in_again() -> None:
    tw, deck = stock_deal(34, {"sorter.error_chance": 0.0})
    sp = tw.board.splitter
    assert sp.weighed >= 15 and sp.caught == 0
    assert tw.fw.dealer.loop == deck[1:]
    assert tw.mech.hopper == deck[1:]  # the stack from its bottom: the plan's order


def test_a_loop_card_that_waits_long_for_the_blade_is_not_named_a_jam() -> None:
    """benchmarks/dealer.py --twin-stock's two-player Spades hand 1135 with the counted lift: TD
    waited in the read window about 0.9 s for the blade to come up 34 cards from the card before
    (30 ms + 19 ms a card, and the weighing's room), and the eject stage's 1000 ms allowance ran
    from the wait's start: JAM 3 naming TD 180 ms into its eject. It runs from the move now."""
    from benchkit import load_bench

    ts = load_bench("twin_stock")
    ts._design("sorter-next-feednext")
    try:
        r = ts.spades_2p(True, 1135, False)
    finally:
        ts._design("sorter-next")
    assert r["fetches"] == 51 and r["fetching_s"] < 30.0, r


def test_the_cells_constants_agree_across_the_firmware_the_twin_and_the_table() -> None:
    """firmware/board.py's SCALE_* against device/dealer/physical.toml [sorter] and the twin's
    copy of the address; and the depth weighed is one the rub lets the count hold at (at
    SCALE_CHECK_MAX the held cards' spread is under a quarter of a card)."""
    from trickref.device.dealer import physical

    tw = th.new_twin(seats=2, seed=1)
    bm, v = tw.board_module, physical.values()
    assert th.twin.SCALE_ADDR == bm.SCALE_ADDR == 0x2A
    assert v["sorter.scale_per_card"] == bm.SCALE_PER_CARD
    assert v["sorter.scale_fitted"] == 1 and tw.board.splitter.scale.ok
    assert bm.SCALE_CHECK_MAX * v["sorter.scale_friction"] <= 0.25
    # the room between loop cards holds the weighing and one try: out and in a card, each a move
    # and a PWM frame's allowance, and the settle before the weighing
    assert bm.SCALE_GAP_MS >= bm.SCALE_TRIES * 2 * (bm.SPLIT_SETTLE_MS + bm.SPLIT_MS_PER_CARD) + bm.SCALE_SETTLE_MS
