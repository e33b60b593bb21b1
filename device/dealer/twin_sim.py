"""The dealer simulator on the physical twin: the unmodified firmware (firmware/main.py on
firmware/board.py) driving device/dealer/twin.py, behind a pseudo-terminal.

``DealerSimulator`` (device/dealer/sim.py) runs the firmware on ``SimBoard``, which routes a card
to the pocket whose flap the firmware aimed at. ``TwinDealerSimulator`` runs it on the twin
instead: every motor, flap, sensor and the sorting hopper's blade move with the timings and
tolerances of device/dealer/physical.toml, and a card goes where the flaps really stand when it
arrives. The pty, its stable symlink, the pump thread and the link faults (corrupted, dropped,
duplicated and delayed bytes, silence, a pulled cable) are the simulator's own, so a host opens
it with pyserial as it opens /dev/trickref-dealer (``trickref dealer-sim --twin``).

Time: the mechanism runs on the twin's clock, ``speed`` simulated ms per real ms, one firmware
loop pass per simulated ms (as on the Pico); the firmware's link timers (dead-man, keep-alives)
run on real time, because the host on the other end of the pty lives in real time.

Mechanical faults come from the twin's physics (``faults=True``: random pickup slips, double
feeds and misreads at the rates of physical.toml), or on demand as the twin's own faults: a card
that cannot be read, a card caught (``jam``: on the path as it leaves the read window, or in
the window), a double feed, a full pocket, the emergency stop. ``misroute`` has no twin counterpart: on the twin
a card goes where the flaps stand, never where it is told to.

The people at a simulated table (device/simulated/world.py) find and put cards through
``board`` (device/dealer/twin_cards.py: the twin's pockets by target byte, its play slot,
hopper, read window and path), as they do on the simulated board.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from .sim import DealerSimulator, deck_order
from .twin_cards import TwinCards
from .twin_host import new_twin


def _real_ms() -> int:
    return int(time.monotonic() * 1000) & 0x3FFFFFFF  # (MicroPython's ticks wrap at 2**30)


def _link_on_real_time(board: Any) -> None:
    """Each boot's firmware/board.py Board keeps its link timers on real time."""
    board.link_ticks_ms = _real_ms


class TwinDealerSimulator(DealerSimulator):
    """The firmware on the physical twin behind a pty: start() gives the path for serial.Serial();
    stop() ends it. ``scale`` multiplies constants of physical.toml (a tolerance sweep);
    ``faults`` turns the twin's random pickup slips, double feeds and misreads on."""

    def __init__(self, seats: int = 4, deck: Iterable[int] | None = None, deck_order_seed: int | None = None,
                 decks: int = 1, speed: float = 4.0, seed: int = 0, scale: dict[str, float] | None = None,
                 faults: bool = False) -> None:
        # (DealerSimulator.__init__ builds a SimBoard: only its pty and link state is set here)
        self.twin: Any = new_twin(seats=seats, seed=seed, scale=scale, faults=faults, on_boot=_link_on_real_time)
        self.board: Any = TwinCards(self.twin)  # the link bytes, and the cards as a person finds them
        self.speed = speed
        self.max_step_ms = 1
        self._link_init(seed)
        self.twin.mech.hopper = deck_order(deck, decks, deck_order_seed)

    @property
    def firmware(self) -> Any:
        return self.twin.fw

    @property
    def boots(self) -> int:  # type: ignore[override]
        boots: int = self.twin.boots
        return boots

    def _moving(self) -> bool:
        return bool(self.twin.mech.busy())

    def _active(self) -> bool:
        mech = self.twin.fw.dealer.mech
        link = self.twin.link
        return bool(mech.busy() or mech.flights or link.rx or link.tx or self._out or self._moving()
                    or self.to_dealer.held or self.to_host.held or self.twin.fw.dealer.pending)

    def _run_firmware(self, real_elapsed: float) -> None:
        """Advance the twin's clock a millisecond at a time, one firmware loop pass each, until
        the firmware has bytes for the host or nothing to do.

        Bytes for the host end the run: the pump sends them at once, as USB does within a
        millisecond. (Running on with them held made every reply wait for the rest of the budget,
        the real time since the pump's last pass times ``speed``: up to 200 ms of the twin's clock
        a command while the host was only thinking, about two thirds of a two-player Spades hand's
        figure in ``trickref sim --twin``.)"""
        budget = max(1, int(real_elapsed * 1000 * self.speed))
        link = self.twin.link
        for _ in range(min(budget, 2000)):
            self.twin.step(1)
            if link.tx or not self._active():
                break

    def step(self, sim_ms: int = 20) -> None:
        """Run ``sim_ms`` of the twin's time without the pty (for direct tests)."""
        with self.lock:
            for _ in range(sim_ms):
                self.twin.step(1)

    def reboot(self) -> None:
        """Power-cycle the dealer: every motor stops where it is, the cards stay put, the
        firmware boots again."""
        with self.lock:
            self.twin.power_cycle()

    def load_deck(self, cards: Iterable[int]) -> None:
        with self.lock:
            self.twin.mech.hopper = list(cards)

    def pockets(self) -> dict[int, list[int]]:
        """The cards in each pocket (by pocket index), in the order they went in."""
        with self.lock:
            return {k: list(v) for k, v in self.twin.mech.pockets.items()}

    def figures(self) -> dict[str, Any]:
        """What the twin's mechanism did so far: its clock (motion and the firmware's waits),
        the cards dropped back on the hopper by the return loop, the cards stuck on the path,
        and with the twin's random faults on (``faults``) how many of each it drew (None off)."""
        with self.lock:
            mech = self.twin.mech
            return {"machine_s": round(mech.now / 1e6, 1), "loop_passes": int(mech.passes),
                    "stuck": [s[0] for s in mech.stuck], "boots": int(self.twin.boots),
                    "random_faults": dict(mech.drawn) if mech.random_faults else None}

    # ---- the twin's own faults, on demand ----------------------------------------------------------

    def jam(self, stage: str = "eject") -> None:
        """``eject`` or ``path``: the next card to leave the read window catches on the path and
        stops there; ``feed``, ``read``: the card in the read window catches (the feed rollers slip
        on it), until clear_jam()."""
        with self.lock:
            if stage in ("eject", "path"):
                self.twin.mech.fault_lose += 1
            else:
                self.twin.mech.window_stuck = True

    def clear_jam(self) -> None:
        """A person clears the jam: frees the card caught in the read window (it stays there)
        and the pickup, and lifts every card caught on the path out, holding it aside (the
        dealer gave it up; it goes back with the cards gathered for the next deal)."""
        with self.lock:
            self.twin.mech.window_stuck = False
            self.twin.mech.pickup_stuck = False
            self.board.clear_caught()

    def misread(self, count: int = 1) -> None:
        """The next ``count`` cards picked cannot be read."""
        with self.lock:
            self.twin.mech.fault_unreadable += count

    def double_feed(self) -> None:
        """The next pickup takes two cards, shingled."""
        with self.lock:
            self.twin.mech.fault_double += 1

    def tray_full(self, target: int, full: bool = True) -> None:
        """The pocket of ``target`` is full to its mouth (a card turned into it stops there)."""
        with self.lock:
            self.twin.mech.set_full(self.board.trays.index(target), full)

    def press_estop(self, pressed: bool = True) -> None:
        with self.lock:
            self.twin.mech.estop = pressed

    def misroute(self) -> None:
        raise NotImplementedError("the twin sends a card where its flaps stand when it arrives, never where it is "
                                  "told to: a misroute comes from its physics (flap timing, belt slip), not on demand")

