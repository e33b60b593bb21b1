"""Cards a reboot leaves on the loop come home (firmware Mechanics.homecoming), on the physical
twin with the unmodified firmware.

The Pico's watchdog (or a brown-out) reboots the dealer while cards go round the loop: every
motor stops where it is, the cards on the belt and on the loop's return path stay there, and
the firmware that boots again follows none of them. Before the fix the belt never ran again
until a feed move, and a deal or FETCH that found the hopper empty called it empty: the host's
relearning of the loop after the reboot ran out every time, and the table stuck for good (found
on the simulated table: German Whist, the watchdog firing while a FETCH cycled the last five
stock cards). Now a job that finds the hopper empty, with no card it follows on the belt and
the belt not run since the boot, runs the belt round once (every flap down) and looks again."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from trickref.device.dealer import twin_host as th

P = th.P
LOOP = th.LOOP
CARDS = [3, 17, 29, 40, 44, 51]


def watchdog_reboot(tw: Any) -> None:
    """The watchdog fires: the Pico's pins reset (every step generator stops, the drivers' EN
    pull-up turns them off), the cards stay where they are, the flash keeps what was saved."""
    m = tw.mech
    for sm in (th.twin.SM_F, th.twin.SM_T, th.twin.SM_R):
        m.axis_stop(sm)
    m.drivers_on = False
    tw.machine.cause = tw.machine.WDT_RESET
    tw.link.rx = bytearray()
    tw.boot()


def on_the_way_home(tw: Any) -> list[int]:
    """The cards on the belt or the loop (not in the hopper, the window or a pocket)."""
    return sorted(c.card for c in tw.mech.cards if c.mode in ("belt", "fb", "r", "loop"))


def feeding(tw: Any) -> bool:
    return any(c.mode in ("f", "fb") for c in tw.mech.cards)


def reboot_when(host: th.TwinHost, ready: Any) -> None:
    """Run until ``ready(tw)``, then the watchdog fires; the host says HELLO again."""
    tw = host.tw
    for _ in range(20000):
        host.run(1)
        if ready(tw):
            break
    assert ready(tw), tw.mech.log[-5:]
    watchdog_reboot(tw)
    host.events.clear()
    host.hello()


def send_round_and_reboot(seed: int, how_many: int) -> th.TwinHost:
    """Deal CARDS round the loop; the watchdog fires once ``how_many`` of them are on their way
    home (past the feed section; none is being fed)."""
    tw = th.new_twin(seats=2, seed=seed)
    host = th.TwinHost(tw)
    tw.mech.hopper = list(CARDS)
    host.hello()
    body = P.u16(1) + bytes((len(CARDS), 0, P.PLAN_FRESH)) + bytes(b for c in CARDS for b in (c, LOOP))
    assert host.command(P.DEAL_PLAN, body).type == P.OK
    reboot_when(host, lambda tw: len(on_the_way_home(tw)) >= how_many and not feeding(tw))
    return host


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("how_many", [1, 3, 6])
def test_a_relearning_after_the_watchdog_finds_the_cards_the_loop_was_bringing_home(seed: int, how_many: int) -> None:
    host = send_round_and_reboot(seed, how_many)
    tw = host.tw
    away = on_the_way_home(tw)
    assert len(away) >= how_many and not tw.mech.pockets and not tw.mech.stuck
    end = host.deal(2, [(c, LOOP) for c in CARDS])  # the host's relearning of the loop
    assert end[1] == P.EV_DEAL_DONE, (end, tw.mech.log[-5:])
    assert th.deal_shortfall(end) is None, th.deal_done_words(end[2])
    assert end[2][2:4] == bytes((len(CARDS), 0))  # every card dealt round again, none rejected
    assert not any(e[1] == P.EV_HOPPER_EMPTY for e in host.events)
    host.run(4000)
    assert sorted(tw.mech.hopper) == sorted(CARDS) and tw.mech.stuck == []
    assert tw.fw.dealer.loop_valid and sorted(tw.fw.dealer.loop) == sorted(CARDS)


def test_a_fetch_after_the_watchdog_waits_for_its_card_to_come_home() -> None:
    """A FETCH ended (its card in the seat's pocket) while the card it cycled was still on its
    way home; the loop model was saved with that step's end, and the watchdog fired. The next
    FETCH, of the card on its way, finds the hopper empty: the belt brings it home first."""
    tw = th.new_twin(seats=2, seed=1)
    host = th.TwinHost(tw)
    a, b = CARDS[:2]
    tw.mech.hopper = [a, b]
    host.hello()
    assert host.deal(1, [(a, LOOP), (b, LOOP)])[1] == P.EV_DEAL_DONE
    assert tw.fw.dealer.loop == [a, b]
    assert host.command(P.FETCH, P.u16(0x4001) + bytes((LOOP, b, 1))).type == P.OK
    reboot_when(host, lambda tw: tw.mech.pockets.get(1) == [b])
    assert tw.mech.hopper == [] and on_the_way_home(tw) == [a]
    assert tw.fw.dealer.loop == [a] and tw.fw.dealer.loop_valid  # kept on the flash
    assert host.command(P.FETCH, P.u16(0x4002) + bytes((LOOP, a, 0))).type == P.OK
    end = host.until((P.EV_CARD_ROUTED, P.EV_JAM, P.EV_FAULT, P.EV_DOUBLE_FEED), max_ms=30000)
    assert end[1] == P.EV_CARD_ROUTED and end[2][0] == a, (end, tw.mech.log[-5:])
    host.run(2000)
    assert tw.mech.pockets == {0: [a], 1: [b]} and tw.mech.stuck == [] and tw.mech.hopper == []


def test_a_deck_short_of_a_card_runs_the_belt_round_once_then_calls_the_hopper_empty() -> None:
    """Nothing on the way home: the homecoming finds nothing, the deal ends short once, and the
    next job that finds the hopper empty does not run the belt round again."""
    tw = th.new_twin(seats=2, seed=4)
    host = th.TwinHost(tw)
    tw.mech.hopper = [5, 6]
    host.hello()
    t0 = tw.mech.now
    end = host.deal(1, [(5, 0), (6, 1), (7, 0)])
    first = tw.mech.now - t0
    assert end[1] == P.EV_DEAL_DONE and th.deal_shortfall(end) is not None
    assert [e[2][0] for e in host.events if e[1] == P.EV_HOPPER_EMPTY] == [1]
    assert not tw.fw.dealer.mech.unswept
    tw.mech.hopper = [8]
    t0 = tw.mech.now
    end = host.deal(2, [(8, 0), (9, 1)])
    assert end[1] == P.EV_DEAL_DONE and th.deal_shortfall(end) is not None
    assert tw.mech.now - t0 < first  # (no second trip round)


def test_the_deals_bottom_card_on_its_way_to_its_place_when_the_watchdog_fires() -> None:
    """A two-player Spades deal on the sorting hopper (the blade's errors off): the stack's
    bottom card, kept there while cards to deal lay under the stack, goes round to its place
    once the plan's cards are dealt (firmware DealJob.bottom_route), and DEAL_DONE may come while
    it is on its way. The watchdog fires then: the card lands where the blade happens to be when
    the belt runs again, the model saved with the deal has it at its place, and every stock card
    still comes to its pocket when FETCHed, in the plan's order (a card found off its place goes
    round, as any the blade puts off)."""
    deck, hopper = th.shuffled(1077)
    tw = th.new_twin(seats=2, seed=1077, scale={"sorter.error_chance": 0.0})
    tw.mech.hopper = list(hopper)
    host = th.TwinHost(tw, pass_ms=2)
    host.hello()
    seen: list[int] = []  # the card the deal's bottom route read
    commands = importlib.import_module("trickref.firmware.commands")
    orig = commands.DealJob.bottom_route

    def watched(self: Any, card: int, conf: int) -> Any:
        seen.append(card)
        return orig(self, card, conf)

    commands.DealJob.bottom_route = watched
    try:
        end = host.deal(1, [(deck[0], 0)] + [(c, LOOP) for c in deck[1:]])
        assert th.deal_shortfall(end) is None, th.deal_shortfall(end)
        assert len(seen) == 1, seen
        reboot_when(host, lambda tw: seen[0] in on_the_way_home(tw) and not feeding(tw))
    finally:
        commands.DealJob.bottom_route = orig
    assert tw.fw.dealer.loop_valid and sorted(tw.fw.dealer.loop) == sorted(deck[1:])
    for k, card in enumerate(deck[1:]):
        start = len(host.events)
        r = host.command(P.FETCH, P.u16(0x5000 + k) + bytes((LOOP, card, k % 2)))
        assert r.type == P.OK, r
        got = host.until((P.EV_CARD_ROUTED, P.EV_JAM, P.EV_FAULT, P.EV_DOUBLE_FEED), max_ms=60000, start=start)
        assert got[1] == P.EV_CARD_ROUTED and got[2][0] == card, (P.card_name(card), got, tw.mech.log[-3:])
    host.run(3000)
    assert sorted(tw.mech.pockets[0] + tw.mech.pockets[1]) == sorted(deck)  # (deck[0] dealt)
    assert tw.mech.stuck == [] and tw.mech.hopper == []
