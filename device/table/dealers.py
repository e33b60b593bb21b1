"""The referee's dealer steps carried out on the dealer driver (device.dealer.driver.Dealer).

Maps the referee's target words to the protocol's target bytes, each op to the driver call,
and every outcome to the event the referee expects: ``DealDone`` (with the host's check of the
deal), ``DealerDone`` (with the card the dealer read), or ``DealerFault`` (jam, link down,
timeout, fault) whose message is the driver's own words.

A deal the referee issues again under the SAME deal id after a jam continues the interrupted
deal (``resume_deal``); a new deal id deals the plan afresh.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from trickref.device.dealer import messages as m
from trickref.device.dealer.driver import Dealer
from trickref.device.dealer.errors import (
    DealerError,
    DealerJam,
    DealerLinkDown,
    DealerTimeout,
    DealMismatch,
)
from trickref.engine import cards as C
from trickref.engine.referee.commands import (
    Abort,
    DealerCommand,
    DealPlan,
    DealStock,
    Fetch,
    Present,
    RouteFaceup,
    RouteFed,
    RoutePresented,
    TurnUp,
)
from trickref.engine.referee.events import DealDone, DealerDone, DealerFault, Event

TRAY_BYTES = {
    "reject": m.REJECT,
    "discard": m.DISCARD,
    "centre": m.CENTRE,
    "faceup": m.FACEUP,
    "trick": m.TRICK,
    "stock": m.MAGAZINE,
    "staging": m.STAGING,
}


def target_byte(target: str) -> int:
    """'seat:3' -> 3, 'discard' -> 0x81..."""
    if target.startswith("seat:"):
        return int(target[5:])
    try:
        return TRAY_BYTES[target]
    except KeyError:
        raise ValueError(f"unknown dealer target {target!r}") from None


class DealerAdapter:
    """Runs referee DealerCommands on a Dealer. ``refeed`` (optional) puts a card back in the
    hopper when a step needs a card in the reader gate that is no longer there (after a
    restart); the simulator provides it, a real table asks a player to feed the card again."""

    def __init__(self, dealer: Dealer, refeed: Callable[[int], None] | None = None) -> None:
        self.dealer = dealer
        self.refeed = refeed
        self.held: int | None = None  # the card held in the reader gate, if we know it
        # after a restart: the card the referee's model says waits in the reader gate (read
        # before a power cut, not yet routed); the dealer has forgotten it, so route_fed reads
        # it again where it is (FEED with HOLD reads the card already in the gate) first
        self.in_gate: int | None = None
        self.interrupted_deal: int | None = None
        self.faults: list[str] = []

    def read_fed(self) -> int:
        """Read one fed card and hold it in the gate."""
        return self.read_fed_wait(None)

    def read_fed_wait(self, timeout: float | None) -> int:
        """Read one fed card and hold it in the gate; DealerTimeout if none was fed in time."""
        card = self.dealer.read_card(timeout=timeout)
        self.held = card
        return card

    def run(self, cmd: DealerCommand) -> Event:
        try:
            return self._run(cmd)
        except DealerJam as e:
            if isinstance(cmd, DealPlan):
                self.interrupted_deal = cmd.deal_id
            return self._fault("jam", e, cmd)
        except DealerLinkDown as e:
            return self._fault("link_down", e, cmd)
        except DealerTimeout as e:
            return self._fault("timeout", e, cmd)
        except DealerError as e:
            return self._fault("fault", e, cmd)
        except (ValueError, OSError) as e:  # a driver bug or a dead port must not stop the table
            return self._fault("fault", e, cmd)

    def _fault(self, kind: str, e: Exception, cmd: DealerCommand) -> Event:
        self.faults.append(f"{kind}: {e}")
        return DealerFault(kind, str(e), cmd.step)

    def _run(self, cmd: DealerCommand) -> Event:
        d = self.dealer
        if isinstance(cmd, DealPlan):
            plan = [(C.parse(c), target_byte(t)) for c, t in cmd.plan]
            try:
                if self.interrupted_deal == cmd.deal_id:
                    self.interrupted_deal = None
                    d.resume_deal()
                else:
                    self.interrupted_deal = None
                    d.deal(plan)
            except DealMismatch as e:
                return DealDone(cmd.deal_id, False, tuple(e.problems) or (str(e),))
            return DealDone(cmd.deal_id, True)
        card: int | None = None
        if isinstance(cmd, Present):
            card = d.present_top(cmd.seat)
        elif isinstance(cmd, RoutePresented):
            card = d.route_presented(target_byte(cmd.target))
        elif isinstance(cmd, TurnUp):
            card = d.turn_up()
        elif isinstance(cmd, DealStock):
            card = d.deal_stock(target_byte(cmd.target))
        elif isinstance(cmd, RouteFaceup):
            card = d.route_faceup(target_byte(cmd.target))
        elif isinstance(cmd, RouteFed):
            card = self._route_fed(cmd)
        elif isinstance(cmd, Fetch):
            card = d.fetch(target_byte(cmd.source), C.parse(cmd.card), target_byte(cmd.target))
        elif isinstance(cmd, Abort):
            d.abort()
        else:
            raise ValueError(f"a dealer step this table cannot run: {cmd!r}")
        return DealerDone(cmd.step, None if card is None else C.NAMES[card])

    def _route_fed(self, cmd: RouteFed) -> int | None:
        """The card read and held in the reader gate, to its target (read again where it is
        after a restart; fed again by the simulated player if it is gone)."""
        if cmd.card is None:
            return None
        want = C.parse(cmd.card)
        if self.held != want and self.in_gate == want:
            self.in_gate = None
            self.read_fed()  # the card is in the gate: this reads it there, no feeding
            if self.held != want:
                raise DealerJam("the reader gate held another card than the one read before the "
                                "power went: take the card out of the gate, then Resume")
        if self.held != want:
            if self.refeed is None:
                raise DealerJam(f"{cmd.card} is not in the reader gate: feed it again")
            self.refeed(want)
            self.read_fed()
        card = self.dealer.route_presented(target_byte(cmd.target))
        self.held = None
        return card


def plan_bytes(plan: list[tuple[int, str]]) -> list[tuple[int, int]]:
    return [(c, target_byte(t)) for c, t in plan]


__all__: list[Any] = ["DealerAdapter", "target_byte", "TRAY_BYTES", "plan_bytes"]
