# ruff: noqa: UP031 - %-formatting reads the same on MicroPython and CPython
"""The physical twin on the MicroPython VM: firmware/board.py (the shipped .mpy) imported with
the twin's ``machine`` and ``rp2`` in sys.modules and its ``time``, ``sys`` and ``os`` patched
in, main.Firmware on top, a 52-card deal to 4 seats at a Pico's loop rate (a pass every ms).
Every card must land in the pocket whose flap was really up when it got there.

    .venv/bin/python tests/firmware/mp/run_heap.py --heap=1000000 twinchecks
"""

import json
import sys

import twin

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
    return board


def values():
    with open("data/physical.json") as f:
        return json.loads(f.read())


def shuffled(seed):
    order = list(range(52))
    x = seed * 2654435761 + 12345
    for i in range(51, 0, -1):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        j = x % (i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def twin_deal(seed=1):
    v = values()
    tw = twin.Twin(v, load_board, fw_main, seed=seed, seats=4)
    tw.mech.random_faults = False
    order = shuffled(seed)
    tw.mech.hopper = shuffled(seed + 50)
    parser = P.Parser()
    events = []
    seq = [0]

    def send(ftype, body):
        seq[0] += 1
        tw.link.rx.extend(P.encode_frame(ftype, seq[0], 0, body))

    def run(ms):
        for _ in range(ms):
            tw.step(1)
            if tw.link.tx:
                for f in parser.feed_bytes(bytes(tw.link.tx)):
                    if f.type == P.EVENT or f.type == P.EVENTS:
                        events.extend(P.parse_event_block(f.body))
                tw.link.tx = bytearray()

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


CHECKS = ["twin_deal"]


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
