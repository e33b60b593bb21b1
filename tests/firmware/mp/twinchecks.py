# ruff: noqa: UP031 - %-formatting reads the same on MicroPython and CPython
"""The physical twin on the MicroPython VM: firmware/board.py (the shipped .mpy) imported with
the twin's ``machine`` and ``rp2`` in sys.modules and its ``time``, ``sys`` and ``os`` patched
in, main.Firmware on top, a 52-card deal to 4 seats at a Pico's loop rate (a pass every ms).
Every card must land in the pocket whose flap was really up when it got there.

    .venv/bin/python tests/firmware/mp/run_heap.py --heap=1000000 twinchecks
"""

import gc
import json
import sys

import twin
import vmheap

from firmware import main as fw_main
from firmware import protocol as P


def load_board(tw):
    sys.modules["machine"] = tw.machine
    sys.modules["rp2"] = tw.rp2
    sys.modules["select"] = tw.select
    from firmware import board

    board.machine = tw.machine
    board.rp2 = tw.rp2
    board.time = tw.time
    board.sys = tw.sys
    board.os = tw.os
    board.open = tw.os.open  # the Pico's flash, in the twin's memory (kept across its reboots)
    return board


_values = []


def values():
    """The physical constants, read once (a second read of the JSON, after the first check's
    twin, needs a 4 KB piece of the heap the harness may no longer have in one)."""
    if not _values:
        with open("data/physical.json") as f:
            _values.append(json.loads(f.read()))
    return _values[0]


def shuffled(seed):
    order = list(range(52))
    x = seed * 2654435761 + 12345
    for i in range(51, 0, -1):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        j = x % (i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def host(tw):
    """A scripted host for ``tw``: send(ftype, body) queues a frame, run(ms) steps the twin a
    pass a millisecond and collects its events into ``events`` (returned with them)."""
    parser = P.Parser()
    events = []
    seq = [0]

    def send(ftype, body):
        seq[0] += 1
        tw.link.rx.extend(P.encode_frame(ftype, seq[0], 0, body))

    def run(ms):
        for _ in range(ms):
            tw.step(1)
            vmheap.tick()
            if tw.link.tx:
                for f in parser.feed_bytes(bytes(tw.link.tx)):
                    if f.type == P.EVENT or f.type == P.EVENTS:
                        events.extend(P.parse_event_block(f.body))
                tw.link.tx = bytearray()

    return send, run, events


def twin_deal(seed=1):
    v = values()
    tw = twin.Twin(v, load_board, fw_main, seed=seed, seats=4)
    tw.mech.random_faults = False
    order = shuffled(seed)
    tw.mech.hopper = shuffled(seed + 50)
    send, run, events = host(tw)

    send(P.HELLO, bytes((P.PROTOCOL,)) + P.u16(60000))
    run(20)
    body = bytearray(P.u16(1) + bytes((52, 0, P.PLAN_FRESH)))
    for i in range(52):
        body.append(order[i])
        body.append(i % 4)
    send(P.DEAL_PLAN, bytes(body))
    end = None
    t = 0
    while end is None and t < 60000:
        run(100)
        t += 100
        for e in events:
            if e[1] in (P.EV_DEAL_DONE, P.EV_JAM, P.EV_DOUBLE_FEED, P.EV_FAULT):
                end = e
    assert end is not None and end[1] == P.EV_DEAL_DONE, (end, tw.mech.log[-3:])
    for i in range(52):
        assert order[i] in tw.mech.pockets.get(i % 4, []), ("card", order[i], "not in pocket", i % 4)
    assert tw.mech.stuck == []
    print("PASS twin_deal: board.py on the twin's machine/rp2, 52 cards to 4 seats in %d ms of "
          "mechanism time, every card in its pocket" % (tw.mech.now // 1000))


def twin_homecoming():
    """The watchdog fires while a card a FETCH cycled is on the loop's return path (the hopper
    empty, the loop model kept on the flash): the next FETCH, of that card, runs the belt round
    first (firmware Mechanics.homecoming) and routes it; the switchback's drivers are switched
    on for a card the reboot left in it. Before the fix the FETCH found the hopper empty."""
    gc.collect()  # (the first check's twin)
    tw = twin.Twin(values(), load_board, fw_main, seed=1, seats=2)
    tw.mech.random_faults = False
    tw.mech.hopper = [3, 17]
    send, run, events = host(tw)

    def until(kinds, limit):
        t = 0
        while t < limit:
            for e in events:
                if e[1] in kinds:
                    return e
            run(20)
            t += 20
        return None

    send(P.HELLO, bytes((P.PROTOCOL,)) + P.u16(60000))
    run(20)
    send(P.DEAL_PLAN, P.u16(1) + bytes((2, 0, P.PLAN_FRESH, 3, 0x85, 17, 0x85)))
    end = until((P.EV_DEAL_DONE, P.EV_JAM), 20000)
    assert end is not None and end[1] == P.EV_DEAL_DONE, end
    send(P.FETCH, P.u16(0x4001) + bytes((0x85, 17, 1)))
    t = 0
    while tw.mech.pockets.get(1) != [17] and t < 20000:
        run(1)
        t += 1
    assert tw.mech.hopper == [] and [c.card for c in tw.mech.cards] == [3], tw.mech.log[-3:]
    for sm in (twin.SM_F, twin.SM_T, twin.SM_R):  # the watchdog: every motor stops, cards stay
        tw.mech.axis_stop(sm)
    tw.mech.drivers_on = False
    tw.machine.cause = tw.machine.WDT_RESET
    tw.link.rx = bytearray()
    tw.boot()
    del events[:]
    send(P.HELLO, bytes((P.PROTOCOL,)) + P.u16(60000))
    run(20)
    assert tw.fw.dealer.loop == [3], tw.fw.dealer.loop  # kept on the flash
    send(P.FETCH, P.u16(0x4002) + bytes((0x85, 3, 0)))
    end = until((P.EV_CARD_ROUTED, P.EV_JAM, P.EV_FAULT, P.EV_DOUBLE_FEED), 30000)
    assert end is not None and end[1] == P.EV_CARD_ROUTED and end[2][0] == 3, (end, tw.mech.log[-3:])
    run(2000)
    assert tw.mech.pockets.get(0) == [3] and tw.mech.stuck == [], tw.mech.log[-3:]
    print("PASS twin_homecoming: after the watchdog, the card left on the loop came home and "
          "was fetched (%d ms of mechanism time)" % (tw.mech.now // 1000))


CHECKS = ["twin_deal", "twin_homecoming"]


def start(name):
    return globals()[name]()


def step(gen):
    if gen is None:
        return False
    try:
        next(gen)
    except StopIteration:
        return False
    return True
