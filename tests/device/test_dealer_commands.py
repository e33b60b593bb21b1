"""Every Dealer command against the simulator (the real firmware) through the pty."""

from __future__ import annotations

import threading

import pytest
from dealer_testkit import (
    GENEROUS,
    is_stopped,
    round_robin_plan,
    running,
    table_matches,
    wait_until,
)

from trickref.device.dealer import messages as m
from trickref.device.dealer.driver import Dealer
from trickref.device.dealer.errors import DealerError, DealerFault
from trickref.device.dealer.plan import DealPlan
from trickref.device.dealer.types import Event


def test_identify_and_status() -> None:
    with running(seats=5) as (sim, dealer):
        ident = dealer.identify()
        assert ident.protocol_version == 3
        assert ident.seat_count == 5
        assert ident.boot_id == sim.board.boot
        assert set(ident.trays) == {m.REJECT, m.DISCARD, m.CENTRE, m.TRICK, m.LOOP}
        assert ident.max_plan >= 104
        st = dealer.status()
        assert st.state_name == "IDLE"
        assert st.boot_id == ident.boot_id
        assert st.hopper_has_cards


def test_deal_52_cards_to_four_seats() -> None:
    with running(seats=4) as (sim, dealer):
        plan = round_robin_plan(4)
        report = dealer.deal(plan)
        assert report.ok
        assert table_matches(sim, plan) == []
        assert len(report.placements) == 52
        hands = report.hands()
        for seat in range(4):
            assert sorted(hands[seat]) == sorted(plan.hands()[seat])
            assert sorted(sim.board.seat(seat)) == sorted(hands[seat])
        assert dealer.status().state_name == "IDLE"


def test_deal_by_identity_whatever_the_hopper_order() -> None:
    # Same plan, three different physical orders in the hopper: same hands every time.
    plan = round_robin_plan(3, extra={51: m.CENTRE})
    for hopper_seed in (1, 2, 3):
        with running(seats=3, deck_seed=hopper_seed) as (sim, dealer):
            dealer.deal(plan)
            assert table_matches(sim, plan) == []


def test_deal_removed_cards_to_reject_and_widow_to_centre() -> None:
    plan = round_robin_plan(3, extra={0: m.REJECT, 49: m.CENTRE, 50: m.CENTRE, 51: m.CENTRE})
    with running(seats=3) as (sim, dealer):
        dealer.deal(plan)
        assert table_matches(sim, plan) == []
        assert sim.board.tray(m.REJECT) == [plan.entries[0][0]]


def test_two_decks_and_a_plan_split_over_two_frames() -> None:
    # 156 cards: more than the 123 entries one DEAL_PLAN frame holds (23 a seat: a seat
    # pocket holds 24).
    with running(seats=7, decks=3) as (sim, dealer):
        plan = round_robin_plan(7, decks=3)
        report = dealer.deal(plan)
        assert len(report.placements) == 156
        assert table_matches(sim, plan) == []


def test_fetch_then_next_brings_the_next_card_to_the_window_for_the_stage() -> None:
    """fetch_loop(then_next=True) sends FETCH flag NEXT (the dealer's IDENTIFY flags bit6):
    the next loop card comes to the read window with the fetched card's eject; the stage of it
    then holds it there with no pass, and its FETCH routes it at once."""
    targets = {i: m.LOOP for i in range(26, 52)}
    plan = round_robin_plan(2, extra=targets)
    stock = plan.stock
    with running(seats=2) as (sim, dealer):
        assert dealer.identify().flags & m.IDENT_FETCH_FLAGS
        dealer.deal(plan)
        assert dealer.fetch_loop(stock[0], 1, then_next=True) == stock[0]
        wait_until(lambda: sim.board.gate is not None, GENEROUS)  # in the window, unread
        nxt = sim.board.gate  # (the simulator's loop is first in, first out: the next one)
        assert nxt in stock[1:]
        assert dealer.stage(nxt) == 0
        assert dealer.fetch_loop(nxt, 0) == nxt
        assert sim.board.seat(0)[-1] == nxt and sim.board.seat(1)[-1] == stock[0]
        assert sim.board.gate is None  # no flag: the window stays empty
        assert dealer.status().loop_count == 24
        assert sim.board.collisions == []


def test_route_presented_then_next_brings_the_next_card_to_the_window_for_the_fetch() -> None:
    """route_presented(then_next=True) sends ROUTE_PRESENTED's flags byte with NEXT (the
    dealer's IDENTIFY flags2 bit1; place 255 before it): the eject of the card a player fed
    back brings the loop's next card into the read window; the FETCH of it then sends nothing
    round. Without the flag the window stays empty."""
    targets = {i: m.LOOP for i in range(26, 52)}
    plan = round_robin_plan(2, extra=targets)
    with running(seats=2) as (sim, dealer):
        assert dealer.identify().flags2 & m.IDENT2_FEED_FLAGS
        dealer.deal(plan)
        for flag in (False, True):
            first = sim.board.hopper[0]  # (the simulator's loop is first in, first out)
            assert dealer.fetch_loop(first, 0) == first
            nxt = sim.board.hopper[0]
            played = sim.board.seat(0)[0]
            sim.board.trays[0].remove(played)
            sim.play(played)
            assert dealer.read_card() == played
            assert dealer.route_presented(m.DISCARD, then_next=flag) == played
            if flag:
                wait_until(lambda: sim.board.gate is not None, GENEROUS)
            assert sim.board.gate == (nxt if flag else None)
            passes = sim.board.loop_passes
            assert dealer.fetch_loop(nxt, 1) == nxt
            assert sim.board.gate is None
            assert not flag or sim.board.loop_passes == passes  # (the deal's last cards may land during the first)
        assert dealer.status().loop_count == 22
        assert sim.board.collisions == []


def test_v2_loop_fetch_and_stage_through_the_driver() -> None:
    """German Whist with the v2 calls: the stock round the loop, FETCH by identity, a staged
    card routed at once, a play fed through the slot while the next card is staged."""
    targets = {i: m.LOOP for i in range(26, 52)}
    plan = round_robin_plan(2, extra=targets)
    stock = plan.stock
    with running(seats=2) as (sim, dealer):
        ident = dealer.identify()
        assert ident.has_loop and ident.senses_double_feed and ident.loop_capacity == 120
        dealer.deal(plan)
        st = dealer.status()
        assert st.loop_count == 26 and st.loop_model_valid
        assert sorted(sim.board.tray(m.LOOP)) == sorted(stock)
        assert dealer.fetch_loop(stock[0], 1) == stock[0]
        assert sim.board.seat(1)[-1] == stock[0]
        passes = dealer.stage(stock[1])
        assert 0 <= passes <= 25
        # staged: the next card the hopper gives (the window left empty)
        assert sim.board.gate is None and sim.board.hopper[0] == stock[1]
        assert dealer.fetch_loop(stock[1], 0) == stock[1]
        assert sim.board.seat(0)[-1] == stock[1]
        # plays through the slot while a card is staged: it stays next in the hopper
        dealer.stage(stock[2])
        for seat in (0, 1):
            played = sim.board.seat(seat)[0]
            sim.board.trays[seat].remove(played)
            sim.play(played)
            report = dealer.read_and_route(1, m.TRICK)
            assert report.cards == [played] and sim.board.tray(m.TRICK)[-1] == played
        assert sim.board.hopper[0] == stock[2]
        assert dealer.fetch_loop(stock[2], 1) == stock[2]
        assert dealer.status().loop_count == 23
        with pytest.raises(DealerFault) as info:
            dealer.fetch_loop(stock[0], 1)  # no longer in the loop
        assert info.value.name == "EMPTY"
        wait_until(lambda: sorted(sim.board.tray(m.LOOP)) == sorted(stock[3:]), GENEROUS)
        assert sim.board.collisions == []


def test_read_and_route_fed_cards() -> None:
    with running(seats=4, deck_seed=None) as (sim, dealer):
        sim.load_deck([10, 20, 30])
        report = dealer.read_and_route(3, m.TRICK)
        assert report.cards == [10, 20, 30]
        assert report.misreads == 0
        assert sim.board.tray(m.TRICK) == [10, 20, 30]


def test_passing_through_the_loop_then_fetch_to_the_receiver() -> None:
    with running(seats=4, deck_seed=None) as (sim, dealer):
        sim.load_deck([])
        for card in (5, 6, 7):
            sim.play(card)
        dealer.read_and_route(3, m.LOOP)
        wait_until(lambda: sim.board.tray(m.LOOP) == [5, 6, 7])
        for card in (5, 6, 7):
            dealer.fetch_loop(card, 2)
        assert sorted(sim.board.seat(2)) == [5, 6, 7]
        assert sim.board.tray(m.LOOP) == []


def test_read_card_holds_it_until_routed() -> None:
    with running(seats=4, deck_seed=None) as (sim, dealer):
        sim.load_deck([44])
        assert dealer.read_card() == 44
        assert dealer.status().card_presented
        assert dealer.route_presented(3) == 44
        assert sim.board.seat(3) == [44]
        assert dealer.status().state_name == "IDLE"


def test_abort_ends_a_feed_waiting_for_cards() -> None:
    with running(seats=4, deck_seed=None) as (sim, dealer):
        sim.load_deck([1])
        errors: list[BaseException] = []

        def feed() -> None:
            try:
                dealer.read_and_route(2, m.TRICK)
            except BaseException as exc:  # noqa: BLE001 - handed to the test thread
                errors.append(exc)

        t = threading.Thread(target=feed)
        t.start()
        assert wait_until(lambda: sim.board.tray(m.TRICK) == [1])
        dealer.abort()
        t.join(GENEROUS)
        assert not t.is_alive()
        assert len(errors) == 1 and isinstance(errors[0], DealerFault)
        assert errors[0].name == "ABORTED"
        assert dealer.status().state_name == "IDLE"


def test_emergency_stop_latches_until_reset() -> None:
    with running(seats=4) as (sim, dealer):
        dealer.emergency_stop()
        st = dealer.status()
        assert st.state_name == "ESTOPPED" and st.estop_latched
        assert is_stopped(sim)
        with pytest.raises(DealerFault) as info:
            dealer.deal(round_robin_plan(4))
        assert info.value.name == "ESTOPPED"
        assert sim.board.seat(0) == []
        dealer.reset()
        assert dealer.status().state_name == "IDLE"
        plan = round_robin_plan(4)
        dealer.deal(plan)
        assert table_matches(sim, plan) == []


def test_reset_refuses_while_the_button_is_pressed() -> None:
    with running(seats=4) as (sim, dealer):
        sim.press_estop(True)
        assert wait_until(lambda: dealer.status().estop_pressed)
        with pytest.raises(DealerFault) as info:
            dealer.reset()
        assert "still pressed" in str(info.value)
        sim.press_estop(False)
        dealer.reset()
        assert dealer.status().state_name == "IDLE"


def test_reset_with_reboot_comes_back_with_a_new_boot_id() -> None:
    with running(seats=4) as (sim, dealer):
        old = dealer.identity.boot_id
        notices: list[Event] = []
        dealer.add_listener(notices.append)
        ident = dealer.reset(reboot=True, timeout=GENEROUS)
        assert ident.boot_id != old
        assert ident.boot_id == sim.board.boot
        assert any(e.name == "REBOOTED" for e in notices)
        assert dealer.status().state_name == "IDLE"
        plan = round_robin_plan(4)
        dealer.deal(plan)  # and it deals normally afterwards
        assert table_matches(sim, plan) == []


def test_resume_with_nothing_to_resume() -> None:
    with running(seats=4) as (_sim, dealer):
        with pytest.raises(DealerFault) as info:
            dealer.resume()
        assert info.value.name == "BAD_STATE"
        with pytest.raises(DealerFault):
            dealer.resume_deal()


def test_self_test_reads_a_full_deck() -> None:
    with running(seats=4) as (sim, dealer):
        before = list(sim.board.hopper)
        report = dealer.self_test(0)
        assert report.ok
        assert report.read == 52
        # round the loop, back in the hopper in the same order (the first card, read again to
        # see the deck had come round, went round once more). The dealer reports the test done
        # when it has read that card; the card is then still on the belt, and comes down on
        # the hopper when the simulator's thread next moves it: wait for the belt to empty
        # (however slow the machine), then look.
        assert wait_until(lambda: not sim.board.belt_cards and sim.board.loop_passes >= 53)
        assert sim.board.tray(m.LOOP) == before[1:] + before[:1]
        assert sim.board.loop_passes == 53 and sim.board.collisions == []
        sim.gather_to_hopper(order_seed=3)
        sim.remove_card(12)
        report = dealer.self_test(1)
        assert not report.ok
        assert report.missing == (12,)
        assert {t for _, t in report.placements} == {0, 1, 2, 3}


def test_events_reach_the_callback_in_index_order() -> None:
    with running(seats=4) as (_sim, dealer):
        seen: list[Event] = []
        dealer.add_listener(seen.append)
        dealer.deal(round_robin_plan(4))
        indices = [e.index for e in seen if not e.is_notice]
        assert indices == list(range(indices[0], indices[0] + len(indices)))
        assert sum(1 for e in seen if e.name == "CARD_DEALT") == 52
        assert seen[-1].name == "DEAL_DONE"
        assert "CARD_DEALT" in seen[0].describe()


def test_a_command_from_the_event_callback_is_refused() -> None:
    with running(seats=4) as (_sim, dealer):
        errors: list[BaseException] = []

        def bad(event: Event) -> None:
            if event.name == "DEAL_DONE":
                try:
                    dealer.status()
                except BaseException as exc:  # noqa: BLE001
                    errors.append(exc)

        dealer.add_listener(bad)
        dealer.deal(round_robin_plan(4))
        assert wait_until(lambda: bool(errors))
        assert isinstance(errors[0], RuntimeError)
        assert "reader thread" in str(errors[0])


def test_plan_checks_before_sending() -> None:
    with running(seats=3) as (sim, dealer):
        with pytest.raises(ValueError, match="seat 3"):
            dealer.deal(DealPlan([(0, 3)]))
        with pytest.raises(ValueError, match="not a card"):
            DealPlan([(52, 0)])
        with pytest.raises(ValueError, match="neither a seat"):
            DealPlan([(1, 0x90)])
        assert DealPlan([("QS", 0), ("10d", 1)]).entries == ((10, 0), (34, 1))
        assert sim.board.seat(0) == []


def test_typed_errors_share_one_base() -> None:
    from trickref.device.dealer import errors as e

    for cls in (e.DealerTimeout, e.DealerJam, e.DealerProtocolError, e.DealerLinkDown,
                e.DealerFault, e.DealMismatch):
        assert issubclass(cls, DealerError)
    assert issubclass(e.DealerJam, e.DealerFault)


def test_dealer_needs_a_port() -> None:
    with pytest.raises(ValueError):
        Dealer()
