"""Command handling on the real firmware (CPython, simulated board): deals, replies, stops."""

from __future__ import annotations

import random

from fw_host import Host, make_host, park, plan_body

from trickref.firmware import mechanics as M
from trickref.firmware import protocol as P


def shuffled(seed: int, decks: int = 1) -> list[int]:
    order = [c for _ in range(decks) for c in range(52)]
    random.Random(seed).shuffle(order)
    return order


def four_seat_plan(order: list[int]) -> list[tuple[int, int]]:
    return [(c, i % 4) for i, c in enumerate(order)]


def dealt(host: Host) -> list[tuple[int, int]]:
    return [(p[0], p[1]) for _, k, p in host.events if k == P.EV_CARD_DEALT]


def test_hello_identifies_the_dealer() -> None:
    host = make_host(seats=6)
    r = host.command(P.HELLO, b"\x03\x07\xd0")
    assert r.type == P.IDENTIFY
    assert r.body[0] == 3 and r.body[8] == 6  # protocol version, seat count
    assert P.get_u16(r.body, 12) == 2000  # the dead-man time HELLO asked for
    assert host.command(P.HELLO, b"\x01\x00\x00").body == bytes((P.HELLO, P.NAK_BAD_VERSION))  # v1
    assert host.command(P.HELLO, b"\x02\x00\x00").body == bytes((P.HELLO, P.NAK_BAD_VERSION))  # v2: no step ids


def test_plan_routes_every_card_by_identity_whatever_the_hopper_order() -> None:
    deck_order = shuffled(1)
    host = make_host(deck=shuffled(2))  # the hopper holds the cards in another order
    r = host.command(P.DEAL_PLAN, plan_body(9, four_seat_plan(deck_order)))
    assert r.body == bytes((P.DEAL_PLAN, P.OK_STARTED))
    done = host.until(P.EV_DEAL_DONE)
    assert done[2] == P.u16(9) + bytes((52, 0, 0, 0))
    for seat in range(4):
        assert sorted(host.board.seat(seat)) == sorted(deck_order[seat::4])
    assert len(dealt(host)) == 52


def test_same_deal_id_is_dealt_once() -> None:
    order = shuffled(3)
    host = make_host(deck=order)
    body = plan_body(5, four_seat_plan(order))
    assert host.command(P.DEAL_PLAN, body).body[1] == P.OK_STARTED
    host.until(P.EV_DEAL_DONE)
    host.sim.gather_to_hopper()
    # a new command (new seq) with the same deal id: nothing is dealt again; the dealer says
    # what that deal did (protocol 3: a STEP reply, the deal done with its 52 cards)
    again = host.command(P.DEAL_PLAN, body)
    assert again.type == P.STEP and again.body[3] == P.STEP_DONE and again.body[6] == 52
    host.run(5000)
    assert len(dealt(host)) == 52 and len(host.board.hopper) == 52
    # the same id with other content is a conflict
    other = plan_body(5, [(c, 0) for c in order])
    assert host.command(P.DEAL_PLAN, other).body == bytes((P.DEAL_PLAN, P.NAK_CONFLICT))


def test_repeated_seq_replays_the_cached_reply_without_acting_twice() -> None:
    order = shuffled(4)
    host = make_host(deck=order)
    stock = [(c, 0x85) for c in order[:10]]
    host.command(P.DEAL_PLAN, plan_body(1, stock + [(c, 2 + i % 2) for i, c in enumerate(order[10:])]))
    host.until(P.EV_DEAL_DONE)
    first = host.command(P.FETCH, bytes((P.LOOP, order[0], 1)), seq=77, ms=6000, step=0x1111)
    wire_before = first
    second = host.command(P.FETCH, bytes((P.LOOP, order[0], 1)), seq=77, ms=6000, step=0x1111)
    assert (second.seq, second.body) == (wire_before.seq, wire_before.body)  # byte-for-byte replay
    assert host.board.seat(1) == [order[0]]  # one card moved, not two
    third = host.command(P.FETCH, bytes((P.LOOP, order[1], 1)), seq=78, ms=6000)
    assert third.seq != first.seq and host.board.seat(1) == [order[0], order[1]]


def test_split_plan_chunks_and_a_104_card_two_deck_plan() -> None:
    order = shuffled(5, decks=2)
    host = make_host(deck=shuffled(6, decks=2), seats=8)
    entries = [(c, i % 8) for i, c in enumerate(order)]
    assert host.command(P.DEAL_PLAN, plan_body(2, entries[:60], total=104)).body[1] == P.OK_ACCEPTED
    # a repeated chunk is harmless, an out-of-order one is refused
    assert host.command(P.DEAL_PLAN, plan_body(2, entries[:60], total=104)).body[1] == P.OK_ALREADY
    assert host.command(P.DEAL_PLAN, plan_body(2, entries[70:], total=104, offset=70)).body[1] == P.NAK_BAD_STATE
    assert host.command(P.DEAL_PLAN, plan_body(2, entries[60:], total=104, offset=60)).body[1] == P.OK_STARTED
    host.until(P.EV_DEAL_DONE, max_ms=300000)
    for seat in range(8):
        assert sorted(host.board.seat(seat)) == sorted(order[seat::8])


def test_estop_is_handled_before_anything_else_and_latches() -> None:
    host = make_host(deck=shuffled(7))
    host.command(P.DEAL_PLAN, plan_body(3, four_seat_plan(shuffled(7))))
    host.run(1500)
    assert host.sim.firmware.dealer.mech.moving()
    # the stop happens while the frame is parsed: put a PING, ESTOP and DEAL_STOCK in one read
    host.send(P.PING)
    host.send(P.ESTOP)
    host.send(P.FETCH, bytes((P.LOOP, 5, 0)))
    host.sim.firmware.dealer.tick()  # one loop pass, no simulated time
    assert host.board.pending == {}  # every motor stopped
    frames = host.collect()
    kinds = [(f.type, bytes(f.body)) for f in frames]
    estop_event = next(i for i, (t, b) in enumerate(kinds)
                       if t == P.EVENT and any(k == P.EV_ESTOP for _, k, _ in P.parse_event_block(b)))
    ok = kinds.index((P.OK, bytes((P.ESTOP, 0))))
    assert estop_event < ok
    assert (P.NAK, bytes((P.FETCH, P.NAK_ESTOPPED))) in kinds
    assert P.EV_ABORTED in host.kinds()
    assert host.command(P.FEED, b"\x01\x00").body[1] == P.NAK_ESTOPPED
    status = host.command(P.STATUS)
    assert status.body[0] == 8 and status.body[7] & 1
    host.sim.press_estop(True)
    assert host.command(P.RESET, b"\x00").body[1] == P.NAK_ESTOPPED  # button still down
    host.sim.press_estop(False)
    assert host.command(P.RESET, b"\x00").body == bytes((P.RESET, P.OK_DONE))
    assert host.command(P.STATUS).body[0] in (0, 4)


def test_estop_button_stops_motion() -> None:
    host = make_host()
    host.command(P.SELFTEST, b"\x00")
    host.run(500)
    host.sim.press_estop(True)
    host.run(20)
    assert host.board.pending == {}
    assert (P.EV_ESTOP, b"\x01") in [(k, p) for _, k, p in host.events]


def test_deadman_stops_motors_and_only_resume_restarts_them() -> None:
    order = shuffled(8)
    host = make_host(deck=order)
    host.command(P.DEAL_PLAN, plan_body(4, four_seat_plan(order)))
    host.run(1000)
    host.board.link_skew += 3500  # the host has been silent longer than the 3 s dead-man
    host.run(20)
    mech = host.sim.firmware.dealer.mech
    assert mech.state == M.PAUSED and host.board.pending == {}
    assert P.EV_DEADMAN in host.kinds()
    count = len(dealt(host))
    host.run(5000)
    assert len(dealt(host)) == count  # nothing moves while paused
    assert host.command(P.PING).type == P.OK
    assert host.command(P.HELLO, b"\x03\x0b\xb8").type == P.IDENTIFY  # a restarted host
    host.run(2000)
    assert mech.state == M.PAUSED and len(dealt(host)) == count  # neither restarts the motors
    assert P.EV_RESUMED not in host.kinds()
    assert host.command(P.RESUME).type == P.OK
    assert P.EV_RESUMED in host.kinds()
    host.until(P.EV_DEAL_DONE)
    for seat in range(4):
        assert sorted(host.board.seat(seat)) == sorted(order[seat::4])


def test_abort_estop_and_reset_never_restart_a_dead_man_pause() -> None:
    for kind in (P.ABORT, P.ESTOP, P.RESET):
        order = shuffled(18)
        host = make_host(deck=order)
        host.command(P.DEAL_PLAN, plan_body(5, four_seat_plan(order)))
        host.run(1000)
        host.board.link_skew += 3500
        host.run(20)
        assert host.sim.firmware.dealer.mech.state == M.PAUSED
        count = len(dealt(host))
        host.command(kind, b"\x00" if kind == P.RESET else b"")
        host.run(5000)
        assert P.EV_RESUMED not in host.kinds(), kind
        assert len(dealt(host)) == count, kind  # no card moved after the stop command


def test_busy_keepalive_during_long_motion() -> None:
    host = make_host()
    host.command(P.SELFTEST, b"\x00")
    for _ in range(5):
        host.board.link_skew += 600
        host.run(20)
    assert any(f.type == P.BUSY for f in host.frames)


def test_jam_times_out_reports_and_resumes() -> None:
    order = shuffled(9)
    host = make_host(deck=order)
    host.sim.jam("eject")
    host.command(P.DEAL_PLAN, plan_body(6, four_seat_plan(order)))
    stage, card = host.until(P.EV_JAM)[2]
    assert stage == M.ST_EJECT and card == order[0]
    assert host.command(P.STATUS).body[0] == 7
    assert host.command(P.FETCH, bytes((P.LOOP, 5, 0))).body[1] == P.NAK_JAMMED
    host.sim.clear_jam()
    assert host.command(P.RESUME).body == bytes((P.RESUME, P.OK_DONE))
    host.until(P.EV_DEAL_DONE)
    assert sorted(host.board.seat(0)) == sorted(order[0::4])


def test_feed_timeout_is_a_jam_and_reader_timeouts_are_misreads() -> None:
    host = make_host()
    host.sim.jam("feed")
    host.command(P.SELFTEST, b"\x00")
    assert host.until(P.EV_JAM)[2][0] == M.ST_FEED
    host.sim.clear_jam()
    host.command(P.RESET, b"\x00")
    host.sim.jam("read")  # the reader never answers: every attempt times out
    host.command(P.SELFTEST, b"\x00")
    target, attempts = host.until(P.EV_MISREAD)[2]
    assert target == P.REJECT and attempts == 3
    assert host.board.tray(P.REJECT)


def test_misread_missing_and_duplicate_cards_in_a_deal() -> None:
    order = shuffled(10)
    host = make_host(deck=order)
    host.sim.remove_card(order[5])
    host.sim.add_duplicate(order[9], position=0)
    host.sim.misread(1)  # the duplicate, first in the hopper, cannot be read
    host.sim.add_duplicate(order[20], position=3)
    host.command(P.DEAL_PLAN, plan_body(7, four_seat_plan(order)))
    _, _, payload = host.until(P.EV_DEAL_DONE)
    deal_id, filled, rejected = P.get_u16(payload, 0), payload[2], payload[3]
    n_missing = payload[4]
    missing = list(payload[5:5 + n_missing])
    dups = list(payload[6 + n_missing:])
    assert (deal_id, filled, rejected) == (7, 51, 2)
    assert missing == [order[5]] and dups == [order[20]]
    assert P.EV_HOPPER_EMPTY in host.kinds() and P.EV_MISREAD in host.kinds()
    assert sorted(host.board.tray(P.REJECT)) == sorted([order[9], order[20]])


def test_a_misread_armed_after_some_cards_strikes_the_card_after_them() -> None:
    """The simulator counts the cards into its read window itself (``misread_after``: what
    OpenTable.arm_fault uses for a misread, so a host that hears of the deal's cards late arms
    nothing too late): the card read after the first 12 of the deal is the one rejected."""
    order = shuffled(12)
    host = make_host(deck=order)
    host.sim.misread_after(12)
    host.command(P.DEAL_PLAN, plan_body(9, four_seat_plan(order)))
    _, _, payload = host.until(P.EV_DEAL_DONE)
    assert payload[2:4] == bytes((51, 1))  # filled, rejected
    assert host.board.tray(P.REJECT) == [order[12]]
    assert P.EV_MISREAD in host.kinds()


def test_spades_2p_draw_flow() -> None:
    """The whole deck round the loop; a draw turn: FETCH the top card to the player's pocket,
    the player feeds it back through the slot (checked, to the discard pocket), FETCH the
    next one; the discard pocket is no FETCH source."""
    order = shuffled(11)
    host = make_host(deck=order, seats=2)
    host.command(P.DEAL_PLAN, plan_body(8, [(c, P.LOOP) for c in order]))
    host.until(P.EV_DEAL_DONE)
    assert host.board.tray(P.LOOP) == order and host.sim.firmware.dealer.loop == order
    assert host.command(P.FETCH, bytes((P.LOOP, order[0], 0))).type == P.OK
    assert host.until(P.EV_CARD_ROUTED)[2] == bytes((order[0], 0))
    host.run(500)
    host.board.trays[0].remove(order[0])
    host.sim.play(order[0])
    host.command(P.FEED, bytes((1, P.DISCARD)))
    assert host.until(P.EV_FEED_DONE)[2] == b"\x01"
    host.run(500)
    assert host.command(P.FETCH, bytes((P.LOOP, order[1], 0))).type == P.OK
    assert host.until(P.EV_CARD_ROUTED)[2] == bytes((order[1], 0))
    host.run(3000)
    assert host.board.seat(0) == [order[1]] and host.board.tray(P.DISCARD) == [order[0]]
    assert host.board.tray(P.LOOP) == order[2:] and host.command(P.STATUS).body[8] == 50
    assert host.command(P.FETCH, bytes((P.DISCARD, order[0], 1))).body[1] == P.NAK_BAD_BODY


def test_german_whist_stock_to_winner_and_loser_and_the_next_staged() -> None:
    order = shuffled(12)
    host = make_host(deck=order, seats=2)
    plan = [(c, i % 2) for i, c in enumerate(order[:26])] + [(c, P.LOOP) for c in order[26:]]
    host.command(P.DEAL_PLAN, plan_body(9, plan))
    host.until(P.EV_DEAL_DONE)
    stock = order[26:]
    host.command(P.FETCH, bytes((P.LOOP, stock[0], 1)))
    host.until(P.EV_CARD_ROUTED)
    host.command(P.FETCH, bytes((P.LOOP, stock[1], 0)))
    host.until(P.EV_CARD_ROUTED)
    host.command(P.FETCH, bytes((P.LOOP, stock[2], P.HOLD)))
    assert host.until(P.EV_STAGED)[2][0] == stock[2]
    assert stock[0] in host.board.seat(1) and stock[1] in host.board.seat(0)
    assert host.board.gate is None and host.board.hopper[0] == stock[2]


def test_passing_through_the_loop_then_a_release_plan() -> None:
    host = make_host(deck=[])
    host.command(P.FEED, bytes((3, P.LOOP)))
    host.run(2000)
    assert host.command(P.STATUS).body[0] == 5  # feeding, waiting for cards
    for c in (10, 20, 30):
        host.sim.play(c)
    host.until(P.EV_FEED_DONE)
    host.run(3000)
    assert host.board.tray(P.LOOP) == [10, 20, 30] == host.sim.firmware.dealer.loop
    host.command(P.DEAL_PLAN, plan_body(3, [(10, 1), (20, 2), (30, 3)]))
    host.until(P.EV_DEAL_DONE)
    assert [host.board.seat(s) for s in (1, 2, 3)] == [[10], [20], [30]]


def test_feed_and_hold_then_route() -> None:
    host = make_host(deck=[36, 5])
    host.command(P.FEED, bytes((2, P.HOLD)))
    assert host.until(P.EV_PRESENTED)[2] == bytes((P.HOLD, 36, 97))
    host.run(2000)
    assert host.board.gate == 36 and host.board.hopper == [5]  # feeding waits for the referee
    host.command(P.ROUTE_PRESENTED, bytes((P.TRICK,)))
    # the move that takes 36 to the trick pocket brings 5 to the window: 5 may be read (and
    # held) before the trick pocket's sensor confirms 36
    host.until(P.EV_PRESENTED)
    host.until(P.EV_CARD_ROUTED)
    got = [(k, p) for _, k, p in host.events if k in (P.EV_CARD_ROUTED, P.EV_PRESENTED)]
    assert (P.EV_CARD_ROUTED, bytes((36, P.TRICK))) in got and (P.EV_PRESENTED, bytes((P.HOLD, 5, 97))) in got
    assert P.EV_FEED_DONE not in host.kinds()
    host.command(P.ROUTE_PRESENTED, b"\x03")
    host.until(P.EV_FEED_DONE)
    assert host.board.tray(P.TRICK) == [36] and host.board.seat(3) == [5]


def test_events_since_recovers_missed_events() -> None:
    host = make_host()
    host.command(P.SELFTEST, b"\x01")
    host.until(P.EV_SELFTEST_DONE)
    r = host.command(P.EVENTS_SINCE, P.u16(3) + b"\x05")
    events = P.parse_event_block(r.body)
    assert [i for i, _, _ in events] == [3, 4, 5, 6, 7]
    assert events == host.events[3:8]
    nxt = host.sim.firmware.dealer.next_event
    assert P.parse_event_block(host.command(P.EVENTS_SINCE, P.u16(nxt)).body) == []
    r = host.command(P.EVENTS_SINCE, P.u16(0))
    assert len(r.body) <= P.MAX_BODY and P.parse_event_block(r.body)[0][0] == 0


def test_bad_crc_is_naked_and_garbage_is_skipped() -> None:
    host = make_host()
    wire = bytearray(P.encode_frame(P.PING, 5, 0))
    wire[3] ^= 0x40
    host.raw(b"\x13\x37\x00")  # a scrap of noise: skipped
    host.raw(bytes(wire))
    frames = host.run(20)
    naks = [f for f in frames if f.type == P.NAK]
    assert len(naks) == 1 and naks[0].body == bytes((0, P.NAK_BAD_CRC))
    assert host.command(P.PING).type == P.OK


def test_a_frame_whose_cobs_the_line_broke_is_naked_too() -> None:
    """Protocol 3: a chunk of 4 bytes or more that does not even decode (a flipped COBS code
    byte) is most likely a command the line spoilt: NAK BAD_CRC, so the host resends at once
    rather than after its timeout."""
    host = make_host()
    wire = bytearray(P.encode_frame(P.PING, 6, 0))
    wire[0] = 0x30  # the first COBS code now runs past the end of the frame
    host.raw(bytes(wire))
    naks = [f for f in host.run(20) if f.type == P.NAK]
    assert len(naks) == 1 and naks[0].body == bytes((0, P.NAK_BAD_CRC))
    host.raw(b"\x13\x37garbage\x00")
    naks = [f for f in host.run(20) if f.type == P.NAK]
    assert len(naks) == 1 and naks[0].body == bytes((0, P.NAK_BAD_CRC))
    assert host.command(P.PING).type == P.OK


def test_unknown_type_and_bad_bodies() -> None:
    host = make_host()
    assert host.command(0x3E).body == bytes((0x3E, P.NAK_UNKNOWN_TYPE))
    for v1 in (0x06, 0x08, 0x09, 0x0A):  # PRESENT, TURN_UP, DEAL_STOCK, ROUTE_FACEUP: gone
        assert host.command(v1, b"\x00").body[1] == P.NAK_UNKNOWN_TYPE
    assert host.command(P.DEAL_PLAN, plan_body(1, [(52, 0)])).body[1] == P.NAK_BAD_BODY
    assert host.command(P.DEAL_PLAN, plan_body(1, [(3, 9)])).body[1] == P.NAK_BAD_BODY  # seat 9 of 4
    for gone in (P.FACEUP, P.STAGING):  # v1 targets
        assert host.command(P.FEED, bytes((1, gone))).body[1] == P.NAK_BAD_BODY
    assert host.command(P.FETCH, bytes((P.DISCARD, 5, 0))).body[1] == P.NAK_BAD_BODY
    assert host.command(P.FETCH, bytes((P.LOOP, 5, 0))).body[1] == P.NAK_EMPTY  # not in the loop


def test_reset_reboot_gives_a_new_boot_id() -> None:
    host = make_host()
    before = P.get_u16(host.command(P.HELLO, b"\x03\x00\x00").body, 4)
    assert host.command(P.RESET, b"\x01").type == P.OK
    host.run(20)
    after = host.command(P.HELLO, b"\x03\x00\x00").body
    assert P.get_u16(after, 4) != before
    assert (0, P.EV_BOOT, b"\x03") in host.events


def test_full_tray_pauses_until_resumed() -> None:
    order = shuffled(13)
    host = make_host(deck=order)
    host.sim.tray_full(2)
    host.command(P.DEAL_PLAN, plan_body(10, four_seat_plan(order)))
    assert host.until(P.EV_TRAY_FULL)[2] == b"\x02"
    assert host.command(P.STATUS).body[0] == 7
    host.sim.tray_full(2, False)
    host.command(P.RESUME)
    host.until(P.EV_DEAL_DONE)
    assert sorted(host.board.seat(2)) == sorted(order[2::4])


def test_abort_mid_deal_reports_and_clears_the_gate() -> None:
    order = shuffled(14)
    host = make_host(deck=order)
    host.command(P.DEAL_PLAN, plan_body(11, four_seat_plan(order)))
    host.run(2100)
    assert host.command(P.ABORT).body == bytes((P.ABORT, P.OK_DONE))
    assert host.until(P.EV_ABORTED)[2] == P.u16(11)
    host.run(3000)
    assert P.EV_DEAL_DONE not in host.kinds()
    placed = sum(len(host.board.seat(s)) for s in range(4)) + len(host.board.tray(P.REJECT))
    at_window = 1 if host.board.gate is not None else 0  # the reject move fed the next card
    assert placed + len(host.board.hopper) + at_window == 52  # no card lost or dealt twice
    assert host.command(P.STATUS).body[0] == 0
    # the aborted deal id is remembered: re-sending it does not deal again (the dealer says it
    # was aborted)
    again = host.command(P.DEAL_PLAN, plan_body(11, four_seat_plan(order)))
    assert again.type == P.STEP and again.body[3] == P.STEP_ABORTED


def test_double_feed_and_a_card_lost_on_the_belt_in_the_simulator() -> None:
    order = shuffled(31)
    host = make_host(deck=order)
    host.command(P.DEAL_PLAN, plan_body(12, four_seat_plan(order)))
    host.run(2000)
    host.sim.double_feed()
    card, how = host.until(P.EV_DOUBLE_FEED)[2]
    assert how == 1 and host.sim.firmware.dealer.mech.state == M.JAMMED
    host.sim.put_back_double()
    assert host.command(P.RESUME).type == P.OK
    host.run(2000)
    host.sim.jam("path")  # the next card stops between the gate and its pocket
    stage, lost = host.until(P.EV_JAM)[2]
    assert stage == M.ST_EJECT and lost not in [c for c, _ in dealt(host)]
    assert all(lost not in host.board.seat(s) for s in range(4))


def test_a_fed_card_is_fed_even_when_its_twin_is_parked_in_the_loop() -> None:
    """Passes parked in the loop (FEED HOLD, ROUTE_PRESENTED to 0x85); then a card dropped in
    the play slot that is also in the loop model (a second deck's twin, or fed twice) is read
    and held as fed: the hopper's pickup is held, so the window's card came from the slot."""
    host = make_host(deck=[], seats=4)
    park(host, (12, 3, 20))
    assert host.sim.firmware.dealer.loop == [12, 3, 20] == list(host.board.hopper)
    host.board.slot.append(12)
    host.command(P.FEED, bytes((1, P.HOLD)))
    assert host.until(P.EV_PRESENTED, max_ms=20000)[2][:2] == bytes((P.HOLD, 12))
    host.command(P.ROUTE_PRESENTED, bytes((P.REJECT,)))
    host.until(P.EV_CARD_ROUTED)
    host.run(3000)
    assert host.board.tray(P.REJECT) == [12] and list(host.board.hopper) == [12, 3, 20]


def test_a_fetch_of_a_card_an_abort_froze_on_the_loop_runs_the_belt() -> None:
    """German Whist against a bot at the simulated dealer: a FETCH sent the stock's cards round
    the loop to reach the last one; the table's read (FEED HOLD, waiting for a player's card) was
    stopped by an ABORT while those cards were still on the belt, which froze them there. The
    next FETCH wanted one of them with the hopper empty: it waited for the loop to bring them
    back, but no op began to run the belt, so it waited for good (before the fix: no event in
    20 simulated seconds, the mechanism WAITING, the three cards still frozen)."""
    order = shuffled(21)
    host = make_host(deck=order)
    plan = four_seat_plan(order[:48]) + [(c, P.LOOP) for c in order[48:]]
    host.command(P.DEAL_PLAN, plan_body(3, plan))
    host.until(P.EV_DEAL_DONE)
    host.run(3000)
    d = host.sim.firmware.dealer
    mech = d.mech
    assert host.command(P.FETCH, bytes((P.LOOP, d.loop[-1], 0))).type == P.OK
    for _ in range(500):
        host.run(10)
        if not mech.busy():
            break
    cycled = [f.op.card for f in mech.flights if f.pocket is None and f.op.tag == "cycle"]
    assert len(cycled) == 3 and host.board.hopper == []  # the three on the belt, none home yet
    assert host.command(P.FEED, bytes((1, P.HOLD))).type == P.OK  # the table's read
    host.run(50)
    assert host.command(P.ABORT).type == P.OK
    assert mech.stopped_at is not None and [f.op.card for f in mech.flights] == cycled  # frozen
    host.cursor = len(host.events)
    assert host.command(P.FETCH, bytes((P.LOOP, cycled[-1], 1))).type == P.OK
    assert host.until(P.EV_CARD_ROUTED, max_ms=20000)[2] == bytes((cycled[-1], 1))
    host.run(3000)
    assert host.board.seat(1)[-1] == cycled[-1]
    assert sorted(host.board.hopper) == sorted(cycled[:-1]) and d.loop == cycled[:-1]
