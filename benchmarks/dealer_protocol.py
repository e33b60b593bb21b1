"""Dealer protocol figures: line time of a deal, simulator speed, codec speed, pty round trip.

    .venv/bin/python benchmarks/dealer_protocol.py [--seed 1]

- Line time: every byte both ways of a whole deal (DEAL_PLAN, its OK, one CARD_DEALT event
  per card, DEAL_DONE, and the host's PING/OK keep-alive every deadman/2 of mechanism time),
  run on the real firmware with the simulator's board, counted as 10 bits a byte at 115200
  baud (8N1). The budget in hardware/PROTOCOL.md is < 100 ms for a 52-card deal.
- Mechanism time: the simulated duration of that deal (the simulator's model durations, not
  a measurement of the physical dealer).
- Simulator speed: wall-clock seconds to run the 52-card deal through the firmware on CPython.
- Codec: CARD_DEALT event frames encoded and parsed per second by firmware.protocol (CPython).
- Pty round trip: PING -> OK through the simulator's pty and pyserial, median and 95th
  percentile over 200 pings.

Figures are printed and written to benchmarks/results/dealer_protocol.json.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "dealer_protocol.json"
sys.path.insert(0, str(ROOT))

from trickref.device.dealer.sim import DealerSimulator  # noqa: E402
from trickref.firmware import protocol as P  # noqa: E402

BAUD_BYTES_PER_S = 115200 / 10


def line_time(seats: int, decks: int, seed: int) -> dict[str, Any]:
    order = [c for _ in range(decks) for c in range(52)]
    random.Random(seed).shuffle(order)
    hopper = list(order)
    random.Random(seed + 1).shuffle(hopper)
    sim = DealerSimulator(seats=seats, deck=hopper, speed=1.0)
    board = sim.board
    parser = P.Parser()
    sent = {"plan": 0, "keepalive": 0}
    got = {"reply": 0, "events": 0, "busy": 0, "keepalive_reply": 0}
    seq = 0

    def send(ftype: int, body: bytes, key: str) -> None:
        nonlocal seq
        seq = (seq + 1) & 0xFF
        wire = P.encode_frame(ftype, seq, 0, body)
        sent[key] += len(wire)
        board.rx.extend(wire)

    entries = [(c, i % seats) for i, c in enumerate(order)]
    body = P.u16(1) + bytes((len(entries), 0, P.PLAN_FRESH)) + bytes(x for e in entries for x in e)
    send(P.DEAL_PLAN, body, "plan")
    deadman = sim.cfg.DEADMAN_MS
    start_ms = board.now
    last_ping = board.now
    done = False
    t0 = time.perf_counter()
    while not done:
        sim.step(20)
        # the simulator runs the link clock in real time; here the host keeps pace with the
        # mechanism clock instead, as it would with the real dealer
        board.link_skew = board.now - board.link_ticks_ms() + board.link_skew
        data = bytes(board.tx)
        board.tx.clear()
        pos = 0
        for i, b in enumerate(data):
            if b != 0:
                continue
            chunk = data[pos:i + 1]
            pos = i + 1
            for f in parser.feed_bytes(chunk):
                if f.type == P.EVENT:
                    got["events"] += len(chunk)
                    if any(k == P.EV_DEAL_DONE for _, k, _ in P.parse_event_block(f.body)):
                        done = True
                elif f.type == P.BUSY:
                    got["busy"] += len(chunk)
                elif f.type == P.OK and f.body[0] == P.PING:
                    got["keepalive_reply"] += len(chunk)
                else:
                    got["reply"] += len(chunk)
        if board.now - last_ping >= deadman // 2 and not done:
            send(P.PING, b"", "keepalive")
            last_ping = board.now
        if board.now - start_ms > 10 * 60 * 1000:
            raise RuntimeError("deal did not finish in 10 simulated minutes")
    wall = time.perf_counter() - t0
    total = sum(sent.values()) + sum(got.values())
    without_keepalive = total - sent["keepalive"] - got["keepalive_reply"]
    return {
        "cards": len(order),
        "seats": seats,
        "bytes_host_to_dealer": sent,
        "bytes_dealer_to_host": got,
        "bytes_total": total,
        "line_ms_total": round(total / BAUD_BYTES_PER_S * 1000, 1),
        "line_ms_without_keepalives": round(without_keepalive / BAUD_BYTES_PER_S * 1000, 1),
        "mechanism_s_simulated": round((board.now - start_ms) / 1000, 1),
        "simulator_wall_s": round(wall, 3),
        "cards_placed_as_planned": all(
            sorted(board.seat(s)) == sorted(order[s::seats]) for s in range(seats)),
    }


def codec_rate() -> dict[str, Any]:
    body = P.event_block(1234, [P.event_bytes(P.EV_CARD_DEALT, bytes((36, 2, 97)))])
    n = 20000
    t0 = time.perf_counter()
    for i in range(n):
        P.encode_frame(P.EVENT, i & 0xFF, 7, body)
    enc = n / (time.perf_counter() - t0)
    wire = P.encode_frame(P.EVENT, 1, 7, body) * 200
    p = P.Parser()
    t0 = time.perf_counter()
    count = 0
    for _ in range(n // 200):
        count += len(p.feed_bytes(wire))
    dec = count / (time.perf_counter() - t0)
    return {"encode_frames_per_s": round(enc), "parse_frames_per_s": round(dec)}


def pty_round_trip() -> dict[str, Any]:
    import serial

    sim = DealerSimulator(speed=50.0)
    path = sim.start()
    port = serial.Serial(path, 115200, timeout=0.05)
    parser = P.Parser()
    times = []
    retransmits = 0
    try:
        for i in range(200):
            seq = (i + 1) & 0xFF
            wire = P.encode_frame(P.PING, seq, 0)
            t0 = time.perf_counter()
            port.write(wire)
            resend_at = time.monotonic() + 0.25
            while True:
                frames = parser.feed_bytes(port.read(port.in_waiting or 1))
                if any(f.type == P.OK and f.ack == seq for f in frames):
                    break
                if time.monotonic() > resend_at:  # as the host does: resend the same frame
                    retransmits += 1
                    if retransmits > 50:
                        raise RuntimeError("the simulator stopped answering PINGs")
                    port.write(wire)
                    resend_at = time.monotonic() + 0.25
            times.append((time.perf_counter() - t0) * 1000)
    finally:
        port.close()
        sim.stop()
    times.sort()
    return {"ping_ms_median": round(statistics.median(times), 2), "ping_ms_p95": round(times[int(len(times) * 0.95)], 2),
            "retransmits": retransmits}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    results = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "deal_52_cards_4_seats": line_time(4, 1, args.seed),
        "deal_104_cards_8_seats": line_time(8, 2, args.seed),
        "codec": codec_rate(),
        "pty": pty_round_trip(),
    }
    print(json.dumps(results, indent=1))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=1) + "\n")
    print(f"written to {RESULTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
