# ruff: noqa: UP031 - %-formatting reads the same on MicroPython and CPython
"""Checks of the real firmware, written to run on MicroPython (and on CPython).

``node run.mjs ROOT mpchecks NAME...`` runs them on the MicroPython 1.27 WebAssembly VM;
tests/firmware/test_fw_micropython_vm.py drives that and runs the same functions on CPython.
Each check raises on failure and prints one line ``PASS name: detail`` on success; some print
``FIGURE name value`` lines (the heap after an evening of deals).

The ``prefix_*`` checks run the three patterns that crashed the firmware on MicroPython before
issue 8 was fixed (``0 in bytearray``, ``Exception.__init__``, ``machine.SOFT_RESET``) inside
the real firmware path, and print what happened, so the test can show each would be caught on
the VM (and is not on CPython).
"""

import gc
import json
import sys

from mpboard import FakeBoard, Host, plan_chunks, shuffled, vmheap_tick

from firmware import commands, config
from firmware import main as fw_main
from firmware import mechanics as M
from firmware import protocol as P
from firmware.ticks import PERIOD, ticks_diff

FRAMES_PATH = "/data/frames.json"

SEAT, CENTRE, LOOP, FACEUP, STAGING, DISCARD, REJECT, TRICK = 0, 0x82, 0x85, 0x83, 0x86, 0x81, 0x80, 0x84
MAGAZINE = LOOP

# (game, seats, decks) for every game and player count trickref deals.
GAMES = [("spades-2p", 2, 1), ("german-whist", 2, 1), ("partnership-spades", 4, 1)]
GAMES += [("hearts", n, 1) for n in range(3, 8)]
GAMES += [("cancellation-hearts", n, 2) for n in range(6, 12)]


def frames_path():
    """The golden frames: /data on the WebAssembly VM (run.mjs), data/ in the working folder
    on the unix VM (run_heap.py), the repository's copy on CPython."""
    if sys.implementation.name != "micropython":
        return FRAMES_LOCAL
    import os

    try:
        os.stat("data/frames.json")
        return "data/frames.json"
    except OSError:
        return FRAMES_PATH


FRAMES_LOCAL = ""  # set by the CPython side (the VM reads the copy run.mjs wrote)


def new_host(seats=4, deck=None, start_ticks=0, decks=1):
    cfg = config.Settings(SEAT_COUNT=seats, READER_KIND=2)
    board = FakeBoard(cfg, start_ticks=start_ticks)
    if deck is None:
        deck = shuffled(seats * 7 + decks, decks)
    board.hopper = list(deck)
    host = Host(fw_main, board, cfg)
    r = host.command(P.HELLO, b"\x03\x0b\xb8")
    assert r.type == P.IDENTIFY, r
    return host


def game_plan(game, seats, decks, order):
    """(card, target) entries as trickref plans the game: hands round robin, the rest where
    the game keeps it (German Whist's stock in the loop, hearts' odd cards in the centre)."""
    n = len(order)
    if game == "spades-2p":  # the whole deck round the loop: the players draw from it
        return [(c, LOOP) for c in order]
    if game == "german-whist":
        return [(c, i % 2) for i, c in enumerate(order[:26])] + [(c, MAGAZINE) for c in order[26:]]
    per = n // seats
    out = []
    for i, c in enumerate(order):
        out.append((c, i % seats if i < per * seats else CENTRE))
    return out


def deal(host, deal_id, entries):
    chunks = plan_chunks(deal_id, entries)
    for i, body in enumerate(chunks):
        r = host.command(P.DEAL_PLAN, body)
        want = P.OK_STARTED if i == len(chunks) - 1 else P.OK_ACCEPTED
        assert r.type == P.OK and r.body[1] == want, (r, i)
    done = host.until(P.EV_DEAL_DONE)
    return done


def check_hands(host, entries, hopper=None):
    """Every pocket holds its planned cards; the loop holds its cards (in read order, when the
    hopper's order before the deal is given), and so does the firmware's loop model."""
    want = {}
    for card, target in entries:
        if target not in want:
            want[target] = []
        want[target].append(card)
    b = host.board
    for target in want:
        if target == LOOP:
            got = b.tray(LOOP)
            assert sorted(got) == sorted(want[target]), ("loop", got, want[target])
            if hopper is not None:
                read = [c for c in hopper if c in want[target]]
                assert got == read, ("loop order", got, read)
            assert host.fw.dealer.loop == got, ("loop model", host.fw.dealer.loop, got)
        else:
            assert sorted(b.seat(target)) == sorted(want[target]), ("target", target)
    assert b.collisions == [], b.collisions


# ---- the checks ------------------------------------------------------------------------------


def load_frames():
    """The golden frames; on the unix VM from data/frames.jsonl (one compact frame a line,
    written by run_heap.py) so that a Pico-sized heap never holds the whole file at once."""
    path = frames_path()
    if path == "data/frames.json":
        out = []
        try:
            f = open("data/frames.jsonl")
        except OSError:  # the WebAssembly VM (run.mjs): the whole file
            return json.loads(open(path).read())
        with f:
            for line in f:
                if line.strip():
                    out.append(json.loads(line))
        return out
    return json.loads(open(path).read())


def golden():
    frames = load_frames()
    parser = P.Parser()
    ok = 0
    for g in frames:
        vmheap_tick()
        wire = bytes.fromhex(g["hex"])
        got = []
        for b in wire:
            f = parser.feed(b)
            if f is not None:
                got.append(f)
        assert len(got) == 1, g["name"]
        f = got[0]
        assert f.ok and f.type == g["type"] and f.seq == g["seq"] and f.ack == g["ack"], g["name"]
        assert f.body == bytes.fromhex(g["body"]), g["name"]
        assert P.encode_frame(g["type"], g["seq"], g["ack"], f.body) == wire, g["name"]
        if g["type"] in (P.EVENT, P.EVENTS):
            events = P.parse_event_block(f.body)
            assert [e[0] for e in events] == [e["index"] for e in g["fields"]["events"]]
        ok += 1
    assert ok == len(frames) and ok >= 48
    print("PASS golden: %d of %d golden frames parsed by Parser.feed and re-encoded" % (ok, len(frames)))


def deals():
    n = 0
    for game, seats, decks in GAMES:
        order = shuffled(seats * 31 + decks + len(game), decks)
        hopper = shuffled(seats + 99, decks)
        host = new_host(seats, deck=list(hopper), decks=decks)
        entries = game_plan(game, seats, decks, order)
        done = deal(host, n + 1, entries)
        assert done[2][:5] == P.u16(n + 1) + bytes((len(entries), 0, 0)), (game, seats, done)
        check_hands(host, entries, hopper if decks == 1 else None)
        if game == "german-whist":
            stock = [c for c, t in entries if t == LOOP]
            # v2: FETCH the stock by identity (the winner's and the loser's card of a trick)
            assert host.command(P.FETCH, bytes((LOOP, stock[0], 1))).type == P.OK
            assert host.until(P.EV_CARD_ROUTED)[2] == bytes((stock[0], 1))
            assert host.command(P.FETCH, bytes((LOOP, stock[1], 0))).type == P.OK
            assert host.until(P.EV_CARD_ROUTED)[2] == bytes((stock[1], 0))
            assert len(host.board.seat(0)) == 14 and len(host.board.seat(1)) == 14
            host.run(3000)
            assert sorted(host.fw.dealer.loop) == sorted(stock[2:]) == sorted(host.board.tray(LOOP))
        if game == "spades-2p":
            card = host.fw.dealer.loop[7]  # drawn to seat 0, fed back through the slot, parked
            assert host.command(P.FETCH, bytes((LOOP, card, 0))).type == P.OK
            assert host.until(P.EV_CARD_ROUTED)[2] == bytes((card, 0))
            host.board.slot.append(host.board.trays[0].pop())
            assert host.command(P.FEED, bytes((1, LOOP))).type == P.OK
            host.until(P.EV_FEED_DONE)
            host.run(3000)
            assert host.fw.dealer.loop[-1] == card == host.board.hopper[-1]
            assert host.command(P.FETCH, bytes((LOOP, card, 1))).type == P.OK
            host.until(P.EV_CARD_ROUTED)
            assert host.board.seat(1)[-1] == card
        assert host.fw.failed is False and host.board.wdt_feeds > 0
        n += 1
    print("PASS deals: %d games x player counts dealt whole by main.Firmware (52 and 104 cards, 2-11 seats)" % n)


def naks():
    host = new_host(4)
    seen = {}

    def nak(ftype, body, reason, why):
        r = host.command(ftype, body)
        assert r.type == P.NAK and r.body[1] == reason, (why, r)
        seen[reason] = why

    # malformed frames: CRC, version
    frame = bytearray(P.build_frame(P.PING, 50, 0))
    frame[-1] ^= 0xFF
    host.board.rx.extend(P.cobs_encode(bytes(frame)) + b"\x00")
    r = [f for f in host.run(20) if f.type == P.NAK]
    assert r and r[0].body[1] == P.NAK_BAD_CRC
    seen[P.NAK_BAD_CRC] = "bad crc"
    frame = bytearray(P.build_frame(P.PING, 51, 0))
    frame[0] = 9
    c = P.crc16(bytes(frame[:-2]))
    frame[-2] = c >> 8
    frame[-1] = c & 0xFF
    host.board.rx.extend(P.cobs_encode(bytes(frame)) + b"\x00")
    r = [f for f in host.run(20) if f.type == P.NAK]
    assert r and r[0].body[1] == P.NAK_BAD_VERSION
    seen[P.NAK_BAD_VERSION] = "bad version"
    nak(0x55, b"", P.NAK_UNKNOWN_TYPE, "unknown type")
    nak(P.PRESENT, b"\x00", P.NAK_UNKNOWN_TYPE, "v1 PRESENT")
    nak(P.HELLO, b"\x01\x00\x00", P.NAK_BAD_VERSION, "hello from a v1 host")
    # HELLO's optional host_flags (bit0): IDENTIFY ends with flags2; without it, with the trays
    plain = host.command(P.HELLO, b"\x03\x00\x00").body
    asked = host.command(P.HELLO, b"\x03\x00\x00\x01").body
    assert asked[:-1] == plain and asked[-1] == host.fw.dealer.cfg.FLAGS2 == 3, (plain, asked)
    nak(P.FEED, bytes((1,)), P.NAK_BAD_BODY, "feed without target")
    nak(P.FETCH, bytes((LOOP, 5, 0)), P.NAK_EMPTY, "card not in the loop")
    nak(P.FETCH, bytes((TRICK, 5, 0)), P.NAK_BAD_BODY, "fetch from a pocket")
    nak(P.FEED, bytes((1, FACEUP)), P.NAK_BAD_BODY, "face-up is no place (v2)")
    nak(P.ROUTE_PRESENTED, b"\x00", P.NAK_EMPTY, "nothing presented")
    nak(P.FETCH, bytes((DISCARD, 5, 0)), P.NAK_BAD_BODY, "fetch from the discard pocket")
    nak(P.RESUME, b"", P.NAK_BAD_STATE, "nothing to resume")
    nak(P.FEED, bytes((121, LOOP)), P.NAK_FULL, "121 cards for a loop of 120")
    nak(P.FEED, bytes((1, STAGING)), P.NAK_BAD_BODY, "v1 staging")
    nak(P.DEAL_PLAN, P.u16(3) + bytes((10, 4, 1, 1, 0)), P.NAK_BAD_STATE, "chunk out of order")
    big = plan_chunks(4, [(c, 0 if c < 25 else 1) for c in range(52)])[0]
    nak(P.DEAL_PLAN, big, P.NAK_TOO_BIG, "25 cards for a 24-card seat pocket")
    order = shuffled(5)
    entries = [(c, i % 4) for i, c in enumerate(order)]
    assert host.command(P.DEAL_PLAN, plan_chunks(7, entries)[0]).body[1] == P.OK_STARTED
    nak(P.FEED, bytes((1, 0)), P.NAK_BUSY, "feed during a deal")
    other = [(c, 0) for c in order]
    nak(P.DEAL_PLAN, plan_chunks(7, other)[0], P.NAK_CONFLICT, "same id, other plan")
    host.until(P.EV_DEAL_DONE)
    host.board.hopper = host.board.gather()
    host.board.jam_stage = "eject"
    assert host.command(P.DEAL_PLAN, plan_chunks(8, entries)[0]).body[1] == P.OK_STARTED
    host.until(P.EV_JAM)
    nak(P.FEED, bytes((1, 0)), P.NAK_JAMMED, "feed while jammed")
    host.board.jam_stage = None
    assert host.command(P.RESET, b"\x00").type == P.OK
    host.board.estop_button = True
    host.run(40)
    nak(P.FEED, bytes((1, 0)), P.NAK_ESTOPPED, "feed while e-stopped")
    nak(P.RESET, b"\x00", P.NAK_ESTOPPED, "reset while the button is held")
    missing = []
    for name in dir(P):
        if name.startswith("NAK_") and getattr(P, name) not in seen:
            missing.append(name)
    assert missing == [], missing
    assert host.fw.failed is False
    print("PASS naks: all %d NAK reasons answered, none rebooted the loop" % len(seen))


def loop_deal():
    """German Whist: 26 cards to the hands, 26 round the loop, read once in read order; the
    firmware's loop model matches the hopper; a plan over cards parked in the loop (a pass
    release) deals them out."""
    hopper = shuffled(71)
    order = shuffled(72)
    host = new_host(2, deck=list(hopper))
    entries = game_plan("german-whist", 2, 1, order)
    done = deal(host, 1, entries)
    assert done[2][2:] == bytes((52, 0, 0, 0)), done
    check_hands(host, entries, hopper)
    st = host.command(P.STATUS).body
    assert st[7] & 8 and st[8] == 26, st  # loop model valid, 26 in the loop
    assert host.board.loop_passes == 26
    # players gather the hands on top: a plan over the 26 parked cards sends them to seat 1
    parked = host.board.tray(LOOP)
    release = [(c, i % 2) for i, c in enumerate(parked[::-1])]
    host.board.trays = {}
    done = deal(host, 2, release)
    assert done[2][2:] == bytes((26, 0, 0, 0)), done
    assert sorted(host.board.seat(0) + host.board.seat(1)) == sorted(parked)
    assert host.fw.dealer.loop == [] and host.board.tray(LOOP) == []
    print("PASS loop_deal: 26 to the hands, 26 round the loop in read order (model = hopper), "
          "then a plan over the parked cards dealt them all")


def fetch_cycle():
    """FETCH from the loop cycles loop cards (each read, sent round again) until the card is in
    the window, then routes it; a card read out of the model's order resyncs it; stage cycles
    until the card is the next one the hopper gives and stops with the window empty (STAGED
    with the passes); plays fed through the slot meanwhile leave it there (the hopper's pickup
    is held); a later FETCH routes it with one feed move."""
    hopper = shuffled(81)
    host = new_host(2, deck=list(hopper))
    entries = [(c, LOOP) for c in hopper]  # spades-2p: the whole deck round the loop
    deal(host, 1, entries)
    d = host.fw.dealer
    assert d.loop == hopper
    want = hopper[10]
    t0 = host.board.now
    passes0 = host.board.loop_passes
    assert host.command(P.FETCH, bytes((LOOP, want, 0))).type == P.OK
    while want not in host.board.seat(0) and ticks_diff(host.board.now, t0) < 20000:
        host.run(10, 10)
    cycle_ms = ticks_diff(host.board.now, t0)  # 10 cards cycled, the 11th in its pocket
    assert host.until(P.EV_CARD_ROUTED)[2] == bytes((want, 0))
    assert host.board.seat(0) == [want]
    host.run(3000)
    assert host.board.loop_passes - passes0 == 10 and d.loop == hopper[11:] + hopper[:10]
    assert host.board.tray(LOOP) == d.loop
    # the model is wrong about the order (someone swapped two cards): read, resynced
    a, b = d.loop[0], d.loop[1]
    d.loop[0], d.loop[1] = b, a
    assert host.command(P.FETCH, bytes((LOOP, a, 1))).type == P.OK
    assert host.until(P.EV_CARD_ROUTED)[2] == bytes((a, 1)) and d.resyncs == 1
    host.run(3000)
    assert host.board.tray(LOOP) == d.loop
    # stage: 5 cards on, the card is next in the hopper (the window left empty)
    s = d.loop[5]
    assert host.command(P.FETCH, bytes((LOOP, s, 0xFE))).type == P.OK
    assert host.until(P.EV_STAGED)[2] == bytes((s, 5))
    assert host.board.gate is None and host.board.hopper[0] == s and d.staged == s
    host.run(3000)  # the cards it cycled land on the hopper
    assert host.command(P.STATUS).body[0] == 0 and d.loop[0] == s
    # two plays through the slot while it is staged: it stays next (the pickup is held)
    sent = host.board.loop_passes
    for _ in range(2):
        played = host.board.trays[0 if host.board.trays.get(0) else 1].pop()
        host.board.slot.append(played)
        assert host.command(P.FEED, bytes((1, TRICK))).type == P.OK
        host.until(P.EV_FEED_DONE)
        assert host.board.seat(TRICK)[-1] == played
    host.run(3000)
    assert host.board.hopper[0] == s and d.staged == s and host.board.loop_passes == sent
    t1 = host.board.now
    assert host.command(P.FETCH, bytes((LOOP, s, 1))).type == P.OK
    while s not in host.board.seat(1) and ticks_diff(host.board.now, t1) < 5000:
        host.run(10, 10)
    fast = ticks_diff(host.board.now, t1)  # in its pocket (the event may wait for a batch)
    assert host.until(P.EV_CARD_ROUTED)[2] == bytes((s, 1))
    assert fast < 1000 and host.board.seat(1)[-1] == s, fast
    host.run(3000)
    # staging the loop's first card costs nothing; FETCH of another one cycles past it
    s = d.loop[0]
    assert host.command(P.FETCH, bytes((LOOP, s, 0xFE))).type == P.OK
    assert host.until(P.EV_STAGED)[2] == bytes((s, 0))
    other = d.loop[1]
    assert host.command(P.FETCH, bytes((LOOP, other, DISCARD))).type == P.OK
    assert host.until(P.EV_CARD_ROUTED)[2] == bytes((other, DISCARD)) and d.staged is None
    host.run(3000)
    assert d.loop[-1] == s and host.board.tray(LOOP) == d.loop
    assert host.board.collisions == [] and host.fw.failed is False
    print("PASS fetch_cycle: FETCH by cycling (10 passes, %d ms), a resync, stage (STAGED: next "
          "in the hopper; two plays through the slot leave it there; then routed in %d ms), "
          "FETCH of another card cycles past a staged one" % (cycle_ms, fast))


def steps():
    """Protocol 3: a step sent again under its id is answered with what it did (STEP) and not
    done twice, whether its answer was lost or the dealer rebooted since (the steps, the ledger
    and the loop model are saved through board.nv_write and read back at boot); a step running
    when the power went is INTERRUPTED; the same id for another step is a CONFLICT; INVENTORY
    lists the loop and the cards an ABORT cleared to the reject pocket."""
    hopper = shuffled(83)
    host = new_host(2, deck=list(hopper))
    entries = [(c, LOOP) for c in hopper[:10]] + [(c, i % 2) for i, c in enumerate(hopper[10:])]
    deal(host, 1, entries)
    want = hopper[3]
    assert host.command(P.FETCH, bytes((LOOP, want, 0)), step=0x0123).type == P.OK
    host.until(P.EV_CARD_ROUTED)
    host.run(3000)
    again = host.command(P.FETCH, bytes((LOOP, want, 0)), step=0x0123)
    assert again.type == P.STEP and again.body[3] == P.STEP_DONE and again.body[4:6] == bytes((want, 0))
    assert host.board.seat(0).count(want) == 1
    assert host.command(P.FETCH, bytes((LOOP, hopper[4], 0)), step=0x0123).body[1] == P.NAK_CONFLICT
    # the dealer reboots: the step, and the loop model, are still known
    writes = host.board.nv_writes
    host.board.reboot()
    host.run(100)
    again = host.command(P.FETCH, bytes((LOOP, want, 0)), step=0x0123)
    assert again.type == P.STEP and again.body[3] == P.STEP_DONE, again
    q = host.command(P.STEP_QUERY, P.u16(0x0123))
    assert q.type == P.STEP and q.body == again.body
    inv = host.command(P.INVENTORY, bytes((P.INV_LOOP, 0, 0)))
    assert sorted(inv.body[3:]) == sorted(hopper[:3] + hopper[4:10])
    # a fed card held, then an ABORT clears it to the reject pocket; the ABORT sent again does
    # not clear the next one
    card = host.board.trays[1].pop()
    host.board.slot.append(card)
    assert host.command(P.FEED, bytes((1, 0xFE)), step=0x0200).type == P.OK
    host.until(P.EV_PRESENTED)
    assert host.command(P.ABORT, b"", step=0x0201).type == P.OK
    host.run(3000)
    assert host.board.tray(P.REJECT) == [card]
    rej = host.command(P.INVENTORY, bytes((P.INV_REJECT, 0, 0)))
    assert list(rej.body[3:]) == [card]
    other = host.board.trays[1].pop()
    host.board.slot.append(other)
    assert host.command(P.FEED, bytes((1, 0xFE)), step=0x0202).type == P.OK
    host.until(P.EV_PRESENTED)
    assert host.command(P.ABORT, b"", step=0x0201).type == P.STEP
    host.run(2000)
    assert host.board.tray(P.REJECT) == [card] and host.board.gate == other
    # a step running when the power goes is interrupted
    assert host.command(P.ROUTE_PRESENTED, bytes((0,)), step=0x0203).type == P.OK
    host.board.reboot()
    host.run(100)
    q = host.command(P.STEP_QUERY, P.u16(0x0203))
    assert q.body[3] in (P.STEP_DONE, P.STEP_INTERRUPTED), q
    print("PASS steps: a step sent again is answered with what it did, before and after a reboot "
          "(%d saves of the state); a conflicting id refused; INVENTORY lists the loop and the "
          "reject pocket" % writes)


def misroute():
    """A card that passes its pocket reaches the end of run E: JAM 4 (misroute) with the card;
    it goes round the loop back onto the hopper, and after RESUME the deal reads it again and
    puts it where the plan says."""
    order = shuffled(91)
    host = new_host(4, deck=list(order))
    entries = [(c, i % 4) for i, c in enumerate(order)]
    assert host.command(P.DEAL_PLAN, plan_chunks(1, entries)[0]).body[1] == P.OK_STARTED
    host.run(2000)
    host.board.misroute_next = True
    jam = host.until(P.EV_JAM)
    assert jam[2][0] == M.ST_MISROUTE, jam
    card = jam[2][1]
    assert host.fw.dealer.mech.state == M.JAMMED
    assert host.command(P.RESUME).type == P.OK
    done = host.until(P.EV_DEAL_DONE)
    assert done[2][2:] == bytes((52, 0, 0, 0)), done
    check_hands(host, entries)
    print("PASS misroute: card %d passed its pocket: JAM 4, round the loop, dealt on its way back" % card)


def ejection():
    """A card is reported dealt only when its pocket's sensor saw it go in: a card that stops
    between the gate and its pocket is a JAM (stage 4, with the card), never CARD_DEALT."""
    order = shuffled(23)
    host = new_host(4, deck=list(order))
    entries = [(c, i % 4) for i, c in enumerate(order)]
    assert host.command(P.DEAL_PLAN, plan_chunks(1, entries)[0]).body[1] == P.OK_STARTED
    host.run(3000)
    dealt_before = [p[0] for _, k, p in host.events if k == P.EV_CARD_DEALT]
    host.board.lose_next = True
    jam = host.until(P.EV_JAM)
    lost = jam[2][1]
    assert jam[2][0] == M.ST_TRANSPORT and lost in order, jam
    dealt = [p[0] for _, k, p in host.events if k == P.EV_CARD_DEALT]
    assert lost not in dealt and len(dealt) >= len(dealt_before)
    assert host.fw.dealer.mech.state == M.JAMMED and host.board.pending == {}
    for s in range(4):
        assert lost not in host.board.seat(s)
    print("PASS ejection: a card lost between the gate and its pocket is JAM stage 4 (card %d), "
          "never reported dealt; %d cards before it were, each on its pocket sensor" % (lost, len(dealt)))


# tests/firmware/test_fw_jammed_entry.py's deck and plan (Python's random with seeds 7 and 1)
RESUMED_DECK = [17, 39, 31, 10, 40, 11, 0, 19, 14, 50, 16, 8, 38, 44, 33, 45, 24, 29, 22, 12, 21, 43, 30,
                28, 49, 51, 7, 48, 18, 35, 1, 36, 42, 15, 46, 26, 27, 5, 2, 13, 32, 47, 37, 23, 6, 34, 4,
                3, 41, 25, 9, 20]
RESUMED_PLAN = [49, 9, 37, 22, 2, 38, 19, 11, 35, 5, 29, 51, 43, 15, 23, 46, 47, 21, 40, 39, 12, 50, 32,
                20, 25, 26, 34, 10, 33, 3, 18, 14, 17, 44, 0, 27, 42, 1, 45, 6, 13, 24, 41, 30, 28, 31, 7,
                16, 4, 48, 36, 8]


def resumed_eject():
    """A deal's first card lost on the belt, RESUME after its JAM, at every phase of the loop's
    20 ms pass: no card lands in a pocket unreported. (Before the fix the feed move of the card
    after the next one ended in the pass that found the JAM, unpolled; RESUME made that move
    again, carrying the next card, unread, into the same pocket: 16 phases of 20.)"""
    entries = [(c, i % 4) for i, c in enumerate(RESUMED_PLAN)]
    for phase in range(20):
        host = new_host(4, deck=list(RESUMED_DECK))
        host.board.lose_next = True
        assert host.command(P.DEAL_PLAN, plan_chunks(1, entries)[0]).body[1] == P.OK_STARTED
        while host.board.lose_next:
            host.run(20)
        if phase:
            host.run(phase)
        lost = host.until(P.EV_JAM)[2][1]
        assert host.command(P.RESUME).type == P.OK
        done = host.until(P.EV_DEAL_DONE)[2]
        assert done[2:] == bytes((51, 0, 1, lost, 0)), (phase, done)
        for s in range(4):
            told = [p[0] for _, k, p in host.events if k == P.EV_CARD_DEALT and p[1] == s]
            assert sorted(host.board.seat(s)) == sorted(told), (phase, s)
    print("PASS resumed_eject: card %d lost on the belt, resumed at 20 phases of a pass: DEAL_DONE "
          "dealt 51, missing only it, every card in a pocket reported" % lost)

def double_feed():
    """Two cards fed together: by length at the gate (shingled) or by thickness (stacked). The
    deal stops with DOUBLE_FEED, nothing is routed; both go back on the hopper; RESUME finishes
    the deal with every card where the plan says."""
    for how, attr in ((1, "double_next"), (2, "stacked_next")):
        order = shuffled(30 + how)
        host = new_host(4, deck=list(order))
        entries = [(c, i % 4) for i, c in enumerate(order)]
        assert host.command(P.DEAL_PLAN, plan_chunks(1, entries)[0]).body[1] == P.OK_STARTED
        host.run(2000)
        setattr(host.board, attr, True)
        ev = host.until(P.EV_DOUBLE_FEED)
        assert ev[2][1] == how, ev
        mech = host.fw.dealer.mech
        assert mech.state == M.JAMMED and host.board.pending == {}
        assert host.command(P.FEED, bytes((1, 0))).body[1] == P.NAK_JAMMED
        host.run(2000)  # cards already on the belt are confirmed or wait; nothing new moves
        host.board.put_back_double()
        assert host.command(P.RESUME).type == P.OK
        done = host.until(P.EV_DEAL_DONE)
        assert done[2][2] == 52 and done[2][3] == 0, done
        check_hands(host, entries)
    print("PASS double_feed: a shingled (length at the gate) and a stacked (thickness) double feed "
          "stop the deal with DOUBLE_FEED; after RESUME all 52 cards are where the plan says")


def gate_debounce():
    """A gate opto flickering at every feed start (2 polls, under GATE_SAMPLES) ends no stage:
    ten cards fed one at a time (plays), each feed flickers."""
    results = {}
    for samples in (3, 1):
        cfg = config.Settings(SEAT_COUNT=4, READER_KIND=2, GATE_SAMPLES=samples)
        board = FakeBoard(cfg)
        board.bounce_on_feed = 2
        host = Host(fw_main, board, cfg)
        host.command(P.HELLO, b"\x03\x0b\xb8")
        for card in range(10 if samples > 1 else 1):
            board.hopper = [card]
            assert host.command(P.FEED, bytes((1, 0x84))).type == P.OK
            if samples > 1:
                host.until(P.EV_FEED_DONE)
            else:
                host.run(3000)
        bad = host.kinds().count(P.EV_MISREAD) + host.kinds().count(P.EV_JAM)
        results[samples] = (bad, len(board.seat(0x84)))
    assert results[3] == (0, 10), results
    assert results[1][0] > 0, ("without the filter the flicker should end feeds early", results)
    print("PASS gate_debounce: a flicker at every feed start, 10 of 10 plays read with "
          "GATE_SAMPLES=3 (with 1 sample the first feed already ends before the card: a jam)")


def usb_stall():
    """The host stops reading for 40 s mid-deal: writes never exceed the budget, the loop keeps
    feeding the watchdog, frames that do not fit are dropped and counted, and every event is
    recovered afterwards with EVENTS_SINCE. (The queue is cut to 256 bytes so that one deal
    overflows it.)"""
    cfg = config.Settings(SEAT_COUNT=4, READER_KIND=2, LINK_TX_QUEUE=256)
    board = FakeBoard(cfg)
    board.hopper = shuffled(18)
    host = Host(fw_main, board, cfg)
    order = shuffled(17)
    entries = [(c, i % 4) for i, c in enumerate(order)]
    assert host.command(P.DEAL_PLAN, plan_chunks(1, entries)[0]).body[1] == P.OK_STARTED
    host.run(1000)
    host.board.tx_room = 0  # the host's USB buffer is full: it stopped reading
    host.board.write_max = 0
    fed = 0
    for _ in range(2000):  # 40 s, host still sending PINGs
        if host.step(20):
            fed += 1
    dealer = host.fw.dealer
    assert fed == 2000, "a pass did not feed the watchdog while the host was not reading"
    assert 0 < host.board.write_max <= host.cfg.LINK_TX_BUDGET
    assert len(dealer.txq) <= host.cfg.LINK_TX_QUEUE and dealer.tx_dropped > 0
    dropped = dealer.tx_dropped
    host.board.tx_room = -1  # reading again
    host.run(100)
    have = set(e[0] for e in host.events)
    nxt = max(have) + 1 if have else 0
    for _ in range(20):
        missing = [i for i in range(nxt) if i not in have]
        first = missing[0] if missing else nxt
        r = host.command(P.EVENTS_SINCE, P.u16(first))
        got = P.parse_event_block(r.body)
        if not got:
            break
        for e in got:
            if e[0] not in have:
                have.add(e[0])
                host.events.append(e)
        nxt = max(nxt, max(have) + 1)
    kinds = {}
    for i, k, _ in host.events:
        kinds[i] = k
    assert sorted(have) == list(range(len(have))), "a gap in the event indices"
    assert list(kinds.values()).count(P.EV_CARD_DEALT) == 52 and P.EV_DEAL_DONE in kinds.values()
    print("PASS usb_stall: 40 s without reading: %d frames dropped and counted, every pass fed the "
          "watchdog, %d events recovered in order" % (dropped, len(have)))


def pocket_count():
    """On a board without tray-full sensors (board.py: COUNTS_POCKETS) the firmware counts the
    cards sent to each tray pocket since the deal began: a plan over a pocket's capacity is
    NAK TOO_BIG, a card for a full one stops with POCKET_FULL; RESUME means it was emptied."""
    cfg = config.Settings(SEAT_COUNT=4, READER_KIND=2)
    board = FakeBoard(cfg)
    board.COUNTS_POCKETS = True
    host = Host(fw_main, board, cfg)
    host.command(P.HELLO, b"\x03\x0b\xb8")
    order = shuffled(44)
    cap = cfg.POCKET_CAP[CENTRE]
    over = [(c, CENTRE if i < cap + 1 else i % 4) for i, c in enumerate(order)]
    assert host.command(P.DEAL_PLAN, plan_chunks(1, over)[0]).body[1] == P.NAK_TOO_BIG
    board.hopper = list(range(30))
    for n in range(cap + 1):  # plays fed one by one to the centre pocket
        board.hopper = [n]
        assert host.command(P.FEED, bytes((1, CENTRE))).type == P.OK
        if n < cap:
            host.until(P.EV_FEED_DONE)
    host.until(P.EV_POCKET_FULL)
    assert len(board.seat(CENTRE)) == cap and host.fw.dealer.mech.state == M.JAMMED
    board.trays[CENTRE] = []  # emptied
    assert host.command(P.RESUME).type == P.OK
    host.until(P.EV_FEED_DONE)
    assert board.seat(CENTRE) == [cap]
    print("PASS pocket_count: the centre pocket (%d cards) refuses a plan over it and stops with "
          "POCKET_FULL on card %d; RESUME after emptying it goes on" % (cap, cap + 1))


def estop():
    host = new_host(4)
    order = shuffled(11)
    entries = [(c, i % 4) for i, c in enumerate(order)]
    assert host.command(P.DEAL_PLAN, plan_chunks(1, entries)[0]).body[1] == P.OK_STARTED
    host.run(1500)
    host.board.estop_button = True
    host.run(40)
    assert host.board.pending == {} and P.EV_ESTOP in host.kinds()
    assert host.fw.dealer.mech.state == M.ESTOPPED
    assert host.command(P.RESET, b"\x00").body[1] == P.NAK_ESTOPPED
    host.board.estop_button = False
    assert host.command(P.RESET, b"\x00").type == P.OK
    for _ in range(100):  # a card left in the gate is carried to the reject pocket first
        if host.fw.dealer.mech.state == M.IDLE:
            break
        host.run(100)
    # the host's ESTOP frame acts before anything else, and latches
    assert host.command(P.DEAL_PLAN, plan_chunks(2, entries)[0]).body[1] == P.OK_STARTED
    host.run(500)
    assert host.command(P.ESTOP).type == P.OK
    assert host.fw.dealer.mech.state == M.ESTOPPED and host.board.pending == {}
    assert host.command(P.RESUME).body[1] == P.NAK_ESTOPPED
    print("PASS estop: button and ESTOP frame stop every motor and latch until RESET")


def deadman():
    host = new_host(4)
    order = shuffled(12)
    entries = [(c, i % 4) for i, c in enumerate(order)]
    assert host.command(P.DEAL_PLAN, plan_chunks(1, entries)[0]).body[1] == P.OK_STARTED
    host.run(1000)
    host.keepalive = False
    host.run(host.cfg.DEADMAN_MS + 100)  # the host says nothing
    assert P.EV_DEADMAN in host.kinds() and host.fw.dealer.mech.state == M.PAUSED
    assert host.board.pending == {}
    # a restarted host says HELLO first: that must not restart the motors
    assert host.command(P.HELLO, b"\x03\x0b\xb8").type == P.IDENTIFY
    assert host.fw.dealer.mech.state == M.PAUSED, "HELLO resumed a paused motion"
    assert host.command(P.STATUS).body[0] == 6
    host.keepalive = True
    assert host.command(P.RESUME).type == P.OK
    assert host.fw.dealer.mech.state == M.RUNNING
    deal_done = host.until(P.EV_DEAL_DONE)
    assert deal_done[2][2] == 52
    print("PASS deadman: silence pauses the deal, HELLO leaves it paused, RESUME finishes it")


def faults():
    host = new_host(4)
    host.board.faults.append((2, 0))
    host.run(40)
    assert (P.EV_FAULT, bytes((2, 0))) in [(k, p) for _, k, p in host.events]
    assert host.fw.dealer.mech.state == M.JAMMED
    assert host.command(P.RESET, b"\x00").type == P.OK
    # an exception inside the loop: motors stop, FAULT 4 0, the watchdog is starved
    host.board.hopper = shuffled(3)
    entries = [(c, i % 4) for i, c in enumerate(shuffled(3))]
    assert host.command(P.DEAL_PLAN, plan_chunks(3, entries)[0]).body[1] == P.OK_STARTED
    host.run(300)

    def broken():
        raise RuntimeError("sensor driver bug")

    host.board.jam_sensor = broken
    fed = host.board.wdt_feeds
    host.run(200)
    assert host.fw.failed and host.board.pending == {}
    assert (P.EV_FAULT, b"\x04\x00") in [(k, p) for _, k, p in host.events]
    assert host.board.wdt_feeds == fed
    print("PASS faults: a board fault stops like a jam; an exception stops, reports FAULT 4 and starves the watchdog")


def wrap():
    start = PERIOD - 4000  # the tick counter wraps 4 s into the deal
    host = new_host(4, start_ticks=start)
    order = shuffled(21)
    entries = [(c, i % 4) for i, c in enumerate(order)]
    assert host.command(P.DEAL_PLAN, plan_chunks(1, entries)[0]).body[1] == P.OK_STARTED
    done = host.until(P.EV_DEAL_DONE)
    assert host.board.now < start, "the clock did not wrap"
    assert done[2][2] == 52
    check_hands(host, entries)
    assert P.EV_DEADMAN not in host.kinds() and P.EV_JAM not in host.kinds()
    # the dead-man still measures the host's silence across the wrap
    host2 = new_host(4, start_ticks=PERIOD - 1000)
    host2.keepalive = False
    assert host2.command(P.DEAL_PLAN, plan_chunks(2, entries)[0]).body[1] == P.OK_STARTED
    host2.run(host2.cfg.DEADMAN_MS - 200)
    assert P.EV_DEADMAN not in host2.kinds(), "dead-man fired early across the wrap"
    host2.run(400)
    assert P.EV_DEADMAN in host2.kinds(), "dead-man never fired across the wrap"
    assert ticks_diff(2, PERIOD - 3) == 5
    print("PASS wrap: a deal and the dead-man across the 2**30 tick wrap")


def heap(deals_count=60):
    """A generator: the runner collects garbage between its steps (the WebAssembly port only
    collects when control is back at the top level, so gc.mem_alloc() is read one step after
    each gc.collect())."""
    mem_alloc = getattr(gc, "mem_alloc", None)  # MicroPython only
    if mem_alloc is None:
        def mem_alloc():
            return 0
    yield
    base = mem_alloc()
    host = new_host(4)
    order = shuffled(40)
    entries = [(c, i % 4) for i, c in enumerate(order)]
    figures = {}
    whist = game_plan("german-whist", 2, 1, order)
    stock = [c for c, t in whist if t == LOOP]
    for n in range(deals_count):
        host.board.hopper = host.board.gather() + host.board.hopper
        if n % 3 == 2:  # every third hand German Whist: 26 round the loop, each FETCHed back
            deal(host, n + 1, whist)
            for i, c in enumerate(stock):
                assert host.command(P.FETCH, bytes((LOOP, c, i % 2))).type == P.OK
                host.until(P.EV_CARD_ROUTED)
                while host.fw.dealer.mech.busy():
                    host.run(20)
            assert host.fw.dealer.loop == []
        else:
            deal(host, n + 1, entries)
        host.frames = []
        host.events = []
        host.cursor = 0
        host.board.write_max = 0
        yield
        # the lowest of five readings: the collector is conservative (a stale word on the
        # stack keeps a dead block alive for a step), so one reading can sit a few KB high
        for mark in (10, deals_count):
            if mark - 5 < n + 1 <= mark:
                figures[mark] = min(figures.get(mark, 1 << 30), mem_alloc())
    used = figures[deals_count]
    assert host.fw.failed is False
    print("FIGURE heap_baseline_bytes %d" % base)
    print("FIGURE heap_after_10_deals_bytes %d" % figures[10])
    print("FIGURE heap_after_%d_deals_bytes %d" % (deals_count, used))
    assert used - figures[10] < 4096, ("heap grows with deals", figures[10], used)
    print("PASS heap: %d deals of 52 cards (every third a German Whist hand: 26 round the loop, "
          "26 FETCHes); heap in use %d bytes (%d before the dealer and its fake board existed; "
          "%+d from deal 10 to deal %d)" % (deals_count, used, base, used - figures[10], deals_count))


def fetch_under():
    """A FETCH with a sorting hopper (FetchJob.found_under) whose card lies over ten cards the
    model has over it, the first of them read the one with the highest place: the nine whose
    places lie between are taken to lie under the wanted card too (UNDER), and the blade's
    depth for a card going round leaves them out, so it drops in over the wanted card while
    they are unread; once the wanted card is read the marks go. Past the backstop (more
    passes than the loop held) the cards go to the top in their places' order. None of it
    allocates (gc off, gc.mem_alloc() before and after, on MicroPython)."""
    mem_alloc = getattr(gc, "mem_alloc", None)  # MicroPython only
    if mem_alloc is None:
        def mem_alloc():
            return 0
    host = new_host(2)
    d = host.fw.dealer
    b = host.board
    b.loop_depth = lambda depth, card=0: None  # the splitter (the real one: board.py, twinchecks)
    b.loop_depth_again = lambda: None
    b.loop_flying = lambda card: False
    b.loop_on_way = lambda card: True  # (none of them has landed yet)
    d.sorts = True
    d.loop = list(range(1, 41))  # places 1..40, bottom first
    for c in d.loop:
        d.loop_key[c] = c
    want = 1
    job = commands.FetchJob(d, want, 0)
    marks = d.fetch_marks
    under_then = 0
    depths = bytearray(16)
    reads = bytes((11, 2, 3, 4, 5, 6, 7, 8, 9, 10))  # under the wanted card, bottom first
    gc.collect()
    gc.disable()
    a = mem_alloc()
    for k in range(len(reads)):
        job.found_under(reads[k])
        job.passes += 1
        depths[k] = d.loop_depth_now(reads[k])
        if k == 1:
            under_then = marks[10]  # (10 not read yet)
    job.under_clear()  # (route: the wanted card is read)
    lifted_then = marks[10]
    depths[10] = d.loop_depth_now(2)
    job.held = 0  # the backstop: as if this FETCH had sent round more cards than the loop held
    job.found_under(12)
    used = mem_alloc() - a
    gc.enable()
    topped = bytes(d.loop)  # (outside the measured parts)
    topped_mark = marks[10]
    # a topped card read again (hand 1020 on the twin: the top under the parked cards lay under
    # the wanted card) goes to the top over the parked cards too, and so does every card read
    # after it; with no parked card (here: 5) that is where it went before
    job.found_under(5)
    again_place = d.loop.index(5)
    over_then = job.over_all
    d.loop = list(range(1, 41))  # 39 and 40 parked (a Double Nil's discards)
    d.loop_key[39] = d.loop_key[40] = 240
    job = commands.FetchJob(d, want, 0)
    job.held = 0  # (to the top at once)
    loop_end = bytearray(5)
    gc.collect()
    gc.disable()
    a2 = mem_alloc()
    job.found_under(2)  # to the top: under 39, 40
    loop_end[0] = d.loop.index(2)
    job.found_under(2)  # read again: over them
    depths[11] = d.loop_depth_now(2)
    job.found_under(3)  # and every card after it
    loop_end[1] = d.loop_depth_now(3)
    used += mem_alloc() - a2
    gc.enable()
    d.loop_key[39], d.loop_key[40] = 39, 40
    assert used == 0, ("found_under allocates", used)
    assert under_then == commands.UNDER and lifted_then == commands.LIFTED and topped_mark == commands.TOPPED
    # 11 read first: 29 cards over it (12..40); 2: cards 3..10 unread and marked, left out: 30
    assert depths[0] == 29 and depths[1] == 30, list(depths)
    assert depths[10] == 38, list(depths)  # the marks gone: 3..40 over it
    # to the top: 12 and the ten sent to their places before it, in their places' order
    assert list(topped) == [want] + list(range(13, 41)) + list(range(2, 13)), list(topped)
    assert again_place == 32 and over_then, again_place  # (between 4 and 6, as lift_to_top put it)
    assert loop_end[0] == 37, list(loop_end)  # under the parked cards first
    assert marks[2] == commands.OVER and marks[3] == commands.OVER
    assert depths[11] == 0 and loop_end[1] == 0, (list(depths), list(loop_end))
    assert d.loop == [want] + list(range(4, 41)) + [2, 3], d.loop
    # a card read again after going round to its own place (not to the top) goes there once
    # more (the blade's one-card error may have dropped it just under the wanted card: hand 1119
    # on the twin), and read a third time to the top, under the parked cards (hand 1020: AD
    # wanted, eight cards sent to their places 4-7 times each, 58 passes); once one has,
    # top_is_nearer may send the rest there even with cards marked UNDER (three cards read: too
    # few here)
    d.loop = list(range(1, 41))  # 39 and 40 parked
    for c in d.loop:
        d.loop_key[c] = c
    d.loop_key[39] = d.loop_key[40] = 240
    job = commands.FetchJob(d, want, 0)
    gc.collect()
    gc.disable()
    a3 = mem_alloc()
    job.found_under(5)  # over the wanted card in the model: 2..4 taken to lie under it, 5 to its place
    loop_end[2] = d.loop.index(5)
    job.found_under(6)
    job.found_under(5)  # read again: to its place once more
    loop_end[4] = d.loop.index(5)
    job.found_under(5)  # read a third time: to the top, under 39 and 40
    loop_end[3] = d.loop.index(5)
    depths[12] = d.loop_depth_now(5)
    job.found_under(7)
    near = job.top_is_nearer(0)
    used += mem_alloc() - a3
    gc.enable()
    again_mark, again_count = marks[5], job.again
    d.loop_key[39], d.loop_key[40] = 39, 40
    assert used == 0, ("found_under allocates", used)
    assert loop_end[2] == 4 and loop_end[4] == 4 and loop_end[3] == 37, list(loop_end)  # (37: 39, 40 over it)
    assert depths[12] == 2 and again_mark == commands.TOPPED and again_count == 2, (list(depths), again_mark)
    assert marks[6] == commands.LIFTED and marks[2] == commands.UNDER and not near
    # a FETCH aborted with cards marked: the marks go (a deal or FEED after it counts them)
    job = commands.FetchJob(d, 13, 0)
    job.found_under(20)
    assert marks[14] == commands.UNDER
    job.cancel()
    for k in range(len(marks)):  # (not ``in``: a bytearray's ``in`` failed on MicroPython, issue 8)
        assert marks[k] != commands.UNDER, ("marks left after an ABORT", k)
    print("PASS fetch_under: 10 cards under the wanted card, 9 of them taken to lie there "
          "unread; depths 29, 30 while it is unread, 38 after; the backstop tops 11 cards; "
          "a topped card read again goes over every card; a card read again after going to "
          "its place goes to the top, under the parked cards; %d bytes allocated" % used)


def fetch_sweep():
    """A FETCH with flag SWEEP (sorting hopper; FetchJob.sweep_route): every loop card is read
    once and goes round over the cards not read yet, at its place among those read. Read in
    the stack's order each drops on the top (depth 0); a pair the blade inverted (3 read before
    2) is put right: 2 drops in one under the top, under 3. Once every card has been read the
    places are the plan's again and the model is in the plan's order. None of it allocates
    (gc off, gc.mem_alloc() before and after, on MicroPython)."""
    mem_alloc = getattr(gc, "mem_alloc", None)  # MicroPython only
    if mem_alloc is None:
        def mem_alloc():
            return 0
    host = new_host(2)
    d = host.fw.dealer
    b = host.board
    depths = bytearray(48)
    at = bytearray(1)

    def record(depth, card=0):
        depths[at[0]] = depth
        at[0] += 1
    b.loop_depth = record  # the splitter (the real one: board.py, twinchecks)
    b.loop_depth_again = lambda: None
    b.loop_flying = lambda card: False
    d.sorts = True
    d.loop = list(range(1, 41))  # places 1..40, bottom first
    for c in d.loop:
        d.loop_key[c] = c
    job = commands.FetchJob(d, 1, P.HOLD, False, True)
    assert job.sweeping == 40
    reads = bytes([1, 3, 2] + list(range(4, 41)))  # the stack as it lies, bottom first
    mid = bytearray(2)
    gc.collect()
    gc.disable()
    a = mem_alloc()
    for k in range(len(reads)):
        job.sweep_route(reads[k])
        if k == 2:
            mid[0] = d.loop_depth_now(2)  # under 3 only: the 37 unread cards are not counted
            mid[1] = d.loop_key[2]
    used = mem_alloc() - a
    gc.enable()
    assert used == 0, ("sweep_route allocates", used)
    assert mid[0] == 1 and mid[1] == 2 | commands.SWEPT, list(mid)
    assert at[0] == 40 and depths[0] == 0 and depths[1] == 0 and depths[2] == 1, list(depths[:at[0]])
    for k in range(3, 40):
        assert depths[k] == 0, (k, list(depths[:at[0]]))
    assert job.sweeping == 0 and job.swept_passes == 40
    assert d.loop == list(range(1, 41)), d.loop
    for c in d.loop:
        assert d.loop_key[c] == c, (c, d.loop_key[c])
    # a sweep stopped half way (ABORT): the places as they were
    job = commands.FetchJob(d, 1, P.HOLD, False, True)
    job.sweep_route(1)
    job.sweep_route(2)
    job.cancel()
    for c in d.loop:
        assert d.loop_key[c] == c, ("a SWEPT bit left after an ABORT", c, d.loop_key[c])
    # a card of the model that never comes: the sweep ends after the FETCH's limit, not never
    b.loop_depth = lambda depth, card=0: None
    job = commands.FetchJob(d, 1, P.HOLD, False, True)
    for k in range(2, 41):  # (card 1 is gone)
        job.sweep_route(k)
    while job.sweeping and job.swept_passes < 1000:
        job.sweep_route(2 + job.swept_passes % 39)
    assert job.sweeping == 0 and job.swept_passes == job.limit + 1, (job.swept_passes, job.limit)
    for c in d.loop:
        assert d.loop_key[c] == c, ("a SWEPT bit left after the limit", c, d.loop_key[c])
    print("PASS fetch_sweep: 40 cards read once, depths 0 but the inverted pair's 1, "
          "the model in the plan's order after; %d bytes allocated" % used)


def feed_next():
    """FEED flag NEXT (a flags byte after the place byte; IDENTIFY flags2 bit1): the fed card
    comes through the play slot with the hopper's pickup held; with the flag, the eject of the
    count's last card takes the hopper's bottom card (the loop's next) into the read window, so
    the FETCH that follows starts with it there and sends nothing round. Without the flag, or
    to HOLD, nothing is pulled; ROUTE_PRESENTED's flag NEXT pulls as FEED's does. The check of
    whether it may pull (commands.may_pull) allocates nothing."""
    mem_alloc = getattr(gc, "mem_alloc", None)  # MicroPython only
    if mem_alloc is None:
        def mem_alloc():
            return 0
    hopper = shuffled(83)
    host = new_host(2, deck=list(hopper))
    deal(host, 1, [(c, LOOP) for c in hopper])
    d = host.fw.dealer
    b = host.board
    ident = host.command(P.HELLO, b"\x03\x0b\xb8\x01")
    assert ident.body[-1] == config.FLAGS2 and config.FLAGS2 & 0x02, ident.body
    first = d.loop[0]
    assert host.command(P.FETCH, bytes((LOOP, first, 0))).type == P.OK
    assert host.until(P.EV_CARD_ROUTED)[2] == bytes((first, 0))
    host.run(3000)
    assert b.gate is None
    passes = b.loop_passes
    # no flag: the window stays empty
    b.slot.append(b.trays[0].pop())
    assert host.command(P.FEED, bytes((1, DISCARD))).type == P.OK
    host.until(P.EV_FEED_DONE)
    host.run(500)
    assert b.gate is None and b.seat(DISCARD) == [first]
    # flag NEXT: the loop's next card comes to the window with the fed card's eject
    nxt = d.loop[0]
    b.trays[0].append(first)
    b.trays[DISCARD].remove(first)
    b.slot.append(b.trays[0].pop())
    assert host.command(P.FEED, bytes((1, DISCARD, 0xFF, P.FEED_NEXT))).type == P.OK
    host.until(P.EV_FEED_DONE)
    host.run(500)
    assert b.gate == nxt and b.seat(DISCARD) == [first], (b.gate, nxt)
    t0 = b.now
    assert host.command(P.FETCH, bytes((LOOP, nxt, 1))).type == P.OK
    while nxt not in b.seat(1) and ticks_diff(b.now, t0) < 5000:
        host.run(10, 10)
    fast = ticks_diff(b.now, t0)
    assert host.until(P.EV_CARD_ROUTED)[2] == bytes((nxt, 1))
    host.run(3000)
    assert b.loop_passes == passes and b.tray(LOOP) == d.loop, "nothing went round"
    # to HOLD the flag pulls nothing: the fed card waits in the window for ROUTE_PRESENTED
    fed = b.trays[1].pop()
    b.slot.append(fed)
    assert host.command(P.FEED, bytes((1, 0xFE, 0xFF, P.FEED_NEXT))).type == P.OK
    host.until(P.EV_PRESENTED)
    assert b.gate == fed and b.hopper[0] == d.loop[0]
    assert host.command(P.ROUTE_PRESENTED, bytes((1,))).type == P.OK
    host.until(P.EV_CARD_ROUTED)
    host.run(3000)
    gc.collect()
    gc.disable()
    a = mem_alloc()
    ok = commands.may_pull(d)
    used = mem_alloc() - a
    gc.enable()
    assert ok and used == 0, ("may_pull", ok, used)
    assert b.collisions == [] and host.fw.failed is False
    print("PASS feed_next: FEED flag NEXT brings the loop's next card to the window (the FETCH "
          "of it %d ms, no pass); none without the flag or to HOLD; may_pull allocates %d bytes" % (fast, used))


def _fault_deal(host, n, entries):
    """Deal ``entries`` with fault ``n % 5`` injected part way: a jam (RESUME), a shingled
    double feed (cards put back, RESUME), two misreads, the e-stop (RESET, a new plan), the
    host going quiet (dead-man, RESUME)."""
    b = host.board
    kind = n % 5
    chunks = plan_chunks(n + 1, entries)
    for body in chunks:
        host.command(P.DEAL_PLAN, body)
    host.run(1500)
    if kind == 0:
        b.jam_stage = "eject"
        host.until(P.EV_JAM)
        b.jam_stage = None
        assert host.command(P.RESUME).type == P.OK
    elif kind == 1:
        b.double_next = True
        host.until(P.EV_DOUBLE_FEED)
        b.put_back_double()
        assert host.command(P.RESUME).type == P.OK
    elif kind == 2:
        b.unreadable = 2
    elif kind == 3:
        b.estop_button = True
        host.run(40)
        b.estop_button = False
        assert host.command(P.RESET, b"\x00").type == P.OK
        host.run(2000)
        for _ in range(100):  # (RESET's motion: the belt round first when the stop left cards
            if host.fw.dealer.mech.state == M.IDLE:  # on it, then the read gate cleared)
                break
            host.run(100)
        b.hopper = b.gather() + b.hopper
        for body in plan_chunks(n + 5001, entries):
            host.command(P.DEAL_PLAN, body)
    else:
        host.keepalive = False
        host.run(host.cfg.DEADMAN_MS + 200)
        host.keepalive = True
        assert host.command(P.RESUME).type == P.OK
    return host.until(P.EV_DEAL_DONE)


def evening(deals_count=500, whist=100, spades=50, fault_every=10, seed=0):
    """An evening at one dealer (it is never rebuilt, as on the Pico): ``deals_count`` deals
    of 52 cards to 4 seats (every ``fault_every``-th with a fault: jam, double feed, misreads,
    e-stop, dead-man), ``whist`` German Whist hands (the stock round the loop, every card
    FETCHed back), ``spades`` two-player Spades draws (52 cards round the loop, 52 FETCHes,
    26 cards fed back through the play slot to the discard pocket). ``seed`` picks other deck
    orders (0: the orders the test slice has always used). A generator: one hand a step. The
    runner reports the lowest free heap seen after a collection."""
    host = new_host(4)
    host.keep_frames = False
    order = shuffled(40)
    plans = 0
    hands = []
    for i in range(deals_count):
        hands.append("deal")
        if i % (deals_count // max(1, whist)) == 0 and hands.count("whist") < whist:
            hands.append("whist")
        if i % (deals_count // max(1, spades)) == 0 and hands.count("spades") < spades:
            hands.append("spades")
    for n in range(len(hands)):
        b = host.board
        b.hopper = b.gather() + b.hopper
        kind = hands[n]
        order = shuffled(n + 7 + 100003 * seed)
        if kind == "deal":
            entries = [(c, i % 4) for i, c in enumerate(order)]
            if fault_every and n % fault_every == fault_every - 1:
                _fault_deal(host, n // fault_every, entries)
            else:
                deal(host, n + 1, entries)
        elif kind == "whist":
            whist_plan = game_plan("german-whist", 2, 1, order)
            deal(host, n + 1, whist_plan)
            for i, c in enumerate([c for c, t in whist_plan if t == LOOP]):
                assert host.command(P.FETCH, bytes((LOOP, c, i % 2))).type == P.OK
                while c not in b.trays.get(i % 2, ()) or host.fw.dealer.mech.busy():
                    host.run(20)
            assert host.fw.dealer.loop == []
        else:
            deal(host, n + 1, game_plan("spades-2p", 2, 1, order))
            for turn in range(26):
                seat = turn % 2
                for c in (order[2 * turn], order[2 * turn + 1]):
                    assert host.command(P.FETCH, bytes((LOOP, c, seat))).type == P.OK
                    waited = 0
                    while c not in b.trays.get(seat, ()) or host.fw.dealer.mech.busy():
                        host.run(20)
                        waited += 20
                        assert waited < 200000, ("fetch", c)
                back = b.trays[seat].pop()  # the card not kept goes back, to the discard pocket
                b.slot.append(back)
                assert host.command(P.FEED, bytes((1, DISCARD))).type == P.OK
                while back not in b.trays.get(DISCARD, ()) or host.fw.dealer.mech.busy():
                    host.run(20)
            assert host.fw.dealer.loop == []
        plans += 1
        host.frames = []
        host.events = []
        host.cursor = 0
        host.board.write_max = 0
        assert host.fw.failed is False
        yield
    faulted = len([n for n in range(len(hands)) if hands[n] == "deal" and fault_every
                   and n % fault_every == fault_every - 1])
    print("PASS evening: %d hands at one dealer (%d deals, %d with a fault; %d German Whist stock "
          "hands; %d Spades draws), no MemoryError" % (
              plans, hands.count("deal"), faulted, hands.count("whist"), hands.count("spades")))
    print("FIGURE evening_deals %d" % hands.count("deal"))
    print("FIGURE evening_faulted_deals %d" % faulted)
    print("FIGURE evening_whist_hands %d" % hands.count("whist"))
    print("FIGURE evening_spades_draws %d" % hands.count("spades"))


def evening_full(seed=0):
    """The evening as issue 20 names it: 500 deals (every tenth with a fault), 100 German Whist
    stock hands and 50 two-player Spades draws at one dealer; several minutes on the 32-bit VM
    (benchmarks/pico_evening.py runs it and records its figures)."""
    return evening(500, 100, 50, seed=seed)


def evening_short(seed=0):
    """The slice of the evening the test command runs: 40 deals (4 with a fault), 6 German
    Whist stock hands, 1 Spades draw."""
    return evening(40, 6, 1, seed=seed)


# ---- the three crashes of issue 8, run in the real firmware path ------------------------------


def _prefix_cobs_decode(data):
    """cobs_decode as it was before the fix (``0 in block`` on a bytearray)."""
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise ValueError("COBS data contains a zero byte")
        end = i + code
        if end > n:
            raise ValueError("COBS code runs past the end of the frame")
        block = data[i + 1:end]
        if 0 in block:
            raise ValueError("COBS data contains a zero byte")
        out.extend(block)
        i = end
        if code != 255 and i < n:
            out.append(0)
    return bytes(out)


class _PrefixRefused(Exception):
    """commands.Refused as it was before the fix."""

    def __init__(self, reason):
        Exception.__init__(self, reason)
        self.reason = reason


def prefix_cobs():
    frames = load_frames()
    real = P.cobs_decode
    P.cobs_decode = _prefix_cobs_decode
    parsed = 0
    escaped = ""
    try:
        for g in frames:
            vmheap_tick()
            parser = P.Parser()
            try:
                if parser.feed_bytes(bytes.fromhex(g["hex"])):
                    parsed += 1
            except Exception as e:  # noqa: BLE001 - what escapes Parser.feed reboots the dealer
                escaped = type(e).__name__
    finally:
        P.cobs_decode = real
    print("RESULT prefix_cobs parsed=%d of=%d escaped=%s" % (parsed, len(frames), escaped or "-"))


def prefix_refused():
    real = commands.Refused
    commands.Refused = _PrefixRefused
    try:
        host = new_host(4)
        host.send(0x55)  # unknown type: a NAK
        host.run(40)
        failed = host.fw.failed
    finally:
        commands.Refused = real
    print("RESULT prefix_refused loop_failed=%s" % failed)


def prefix_soft_reset():
    import machine  # the rp2 fake (tests/firmware/mp/fake_machine.py)

    try:
        cause = machine.SOFT_RESET
        outcome = "no error: %d" % cause
    except AttributeError as e:
        outcome = "AttributeError " + str(e)
    print("RESULT prefix_soft_reset %s" % outcome)


def rp2_board():
    """firmware/board.py on the rp2 fakes: boots, sets up the three TMC2209s over UART,
    drives exact step counts through the PIO program, tells RESET from a hang."""
    import machine
    import rp2

    from firmware import board, motion, timing

    b = board.Board()
    assert b.reset_cause() == 1, "power-on"
    assert b.fault() is None and b.drivers_ok  # all three drivers answered, IFCNT counted 6 writes
    cfg = b.cfg
    for node in (0, 1, 2):
        chop = machine.tmc_bus.regs[(node, motion.TMC_CHOPCONF)]
        assert (chop >> 24) & 0xF == motion.mres_bits(cfg.MICROSTEPS)  # 1/8 microstep set
    # a feed move: the DMA hands the PIO exactly the segment words of timing.feed_segments
    sm = rp2.StateMachine.machines[board.SM_F]
    sm.received = []
    b.feed(True)
    segs = timing.feed_segments(cfg)
    assert sm.received == motion.words(segs)
    edges, cycles = rp2.run_program(board._stepper, sm.received)
    steps = timing.feed_steps(cfg)
    assert edges == steps == sum([c for c, _ in segs])
    us = (cycles * 1000000 + motion.PIO_HZ - 1) // motion.PIO_HZ
    assert us == motion.segments_us(segs), (us, motion.segments_us(segs))
    assert b.eject_done() and b.f.position == steps
    # the deflector of seat 3 rises, the loop lowers every flap
    b.turn_start(3)
    assert b.flaps.up == [3]
    b.turn_start(cfg.LOOP)
    assert b.flaps.up == []
    # a RESET command reboot, then a hang
    b.reboot()
    assert machine.reset_cause() == machine.WDT_RESET
    b2 = board.Board()
    assert b2.reset_cause() == 3, "a RESET command reboot"
    b3 = board.Board()
    assert b3.reset_cause() == 2, "a watchdog reboot without the marker is a hang"
    # a driver that does not answer: FAULT 3 with its address, and nothing is powered
    machine.tmc_bus.present = [0, 2]
    try:
        b4 = board.Board()
        assert (3, 1) in [b4.fault(), b4.fault(), b4.fault()]
        b4.feed(True)
        assert machine.Pin.pins[board.PIN_EN].value() == 1  # drivers stay off
    finally:
        machine.tmc_bus.present = [0, 1, 2]
    # the saved state (protocol 3): written beside the file, renamed over it, read back
    assert b.nv_read() is None
    b.nv_write(b"\xa3first")
    b.nv_write(b"\xa3second")
    assert b.nv_read() == b"\xa3second"
    # the boot-escape jumper
    assert not board.escape_jumper()
    machine.Pin.wired[board.PIN_ESCAPE] = 0  # the jumper pulls GP22 to GND
    try:
        assert board.escape_jumper()
    finally:
        del machine.Pin.wired[board.PIN_ESCAPE]
    print("PASS rp2_board: board.py boots on the rp2 fakes; TMC2209s set to 1/%d over UART (FAULT 3 "
          "when one is silent); a feed move is %d steps, the PIO program emits exactly that in %d us "
          "= motion.segments_us; RESET/hang/power-on told apart" % (cfg.MICROSTEPS, steps, us))


CHECKS = ["evening", "evening_full", "evening_short", "golden", "deals", "naks", "loop_deal", "fetch_cycle", "fetch_under", "fetch_sweep", "feed_next", "steps", "misroute", "pocket_count", "ejection", "resumed_eject", "double_feed", "gate_debounce", "usb_stall", "estop", "deadman", "faults", "wrap", "heap", "rp2_board",
          "prefix_cobs", "prefix_refused", "prefix_soft_reset"]


def start(name):
    """Run check ``name`` (``name:N``: with the integer argument N, e.g. ``evening_full:3`` for
    the evening on deck seed 3); a check that is a generator comes back to be stepped."""
    arg = None
    if ":" in name:
        name, arg = name.split(":")
    if name not in CHECKS:
        raise ValueError("no check named " + name)
    if arg is None:
        return globals()[name]()
    return globals()[name](int(arg))


def step(gen):
    """One step of a generator check; False once it has finished (or was no generator)."""
    if gen is None:
        return False
    try:
        next(gen)
    except StopIteration:
        return False
    return True
