"""Shared helpers of the dealer driver tests: a simulator and a Dealer wired through the pty.

The simulator runs the real firmware on a simulated mechanism at high speed (its clock runs
``SPEED`` times real time), so a 52-card deal takes milliseconds; link timers (dead-man,
retransmit) stay in real time. Timeouts here are generous on purpose (CI on 2 shared cores):
they bound a hung test, they never decide a pass.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from trickref.device.dealer import messages as m
from trickref.device.dealer.driver import Dealer
from trickref.device.dealer.plan import DealPlan
from trickref.device.dealer.sim import DealerSimulator
from trickref.device.dealer.types import Event

SPEED = 1000.0
GENEROUS = 30.0  # seconds: the bound on any wait in these tests


@contextmanager
def running(seats: int = 4, *, deck_seed: int | None = 7, decks: int = 1,
            deadman_ms: int = 3000, link_timeout: float = 8.0, reply_timeout: float = 0.1,
            poll_interval: float = 0.2, seed: int = 0, speed: float = SPEED,
            **sim_kwargs: Any) -> Iterator[tuple[DealerSimulator, Dealer]]:
    """A started simulator and an open Dealer on its stable pty symlink."""
    sim = DealerSimulator(seats=seats, deck_order_seed=deck_seed, decks=decks, speed=speed,
                          seed=seed, **sim_kwargs)
    sim.start()
    dealer = Dealer(sim.stable_path, reply_timeout=reply_timeout, deadman_ms=deadman_ms,
                    link_timeout=link_timeout, poll_interval=poll_interval,
                    stall_timeout=GENEROUS)
    try:
        dealer.open()
        yield sim, dealer
    finally:
        dealer.close()
        sim.stop()


def round_robin_plan(seats: int, *, shuffle_seed: int = 1, decks: int = 1,
                     extra: dict[int, int] | None = None) -> DealPlan:
    """A deck order (shuffled by seed) dealt round robin; ``extra`` maps deck positions to a
    tray instead (e.g. the last cards to the centre or the magazine)."""
    order = [c for _ in range(decks) for c in range(52)]
    random.Random(shuffle_seed).shuffle(order)
    targets = [i % seats for i in range(len(order))]
    for pos, target in (extra or {}).items():
        targets[pos] = target
    return DealPlan.from_order(order, targets)


def table_matches(sim: DealerSimulator, plan: DealPlan) -> list[str]:
    """Differences between the simulator's physical pockets and the plan (empty: a match).
    Seats and pockets hold the planned multiset; the loop (hopper, read window and the cards
    on their way back) holds the planned loop cards, in whatever order they were read."""
    problems = []
    planned = plan.hands()
    b = sim.board
    targets = set(planned) | set(b.trays)
    for target in sorted(targets):
        want = planned.get(target, [])
        have = b.tray(target)
        if sorted(have) != sorted(want):
            problems.append(f"{m.target_name(target)}: {sorted(have)} != {sorted(want)}")
    if b.gate is not None and m.LOOP not in planned:
        problems.append(f"card {b.gate} left in the gate")
    return problems


def mech_state(sim: DealerSimulator) -> int:
    with sim.lock:
        return int(sim.firmware.dealer.mech.state)


def is_stopped(sim: DealerSimulator) -> bool:
    """No motor may be running: the firmware's mechanism is not in its RUNNING state."""
    return mech_state(sim) != 1


def wait_until(predicate: Callable[[], bool], timeout: float = GENEROUS) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()


class OnCard:
    """A dealer listener that runs ``action`` once, when the n-th CARD_DEALT arrives (on the
    reader thread: ``action`` may touch the simulator, never the Dealer)."""

    def __init__(self, n: int, action: Callable[[], None]) -> None:
        self.n = n
        self.action = action
        self.seen = 0
        self.fired = threading.Event()

    def __call__(self, event: Event) -> None:
        if event.kind == m.EV_CARD_DEALT and not self.fired.is_set():
            self.seen += 1
            if self.seen >= self.n:
                self.fired.set()
                self.action()


def estop_resume(sim: Any, dealer: Any, adapter: Any) -> None:
    """What the table does at Resume after an e-stop (device/table/host.py): the button twisted
    out, RESET, and the adapter told of the stop."""
    sim.press_estop(False)
    dealer.reset()
    adapter.note_stop(dealer.status())
