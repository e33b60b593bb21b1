"""What the referee asks of the table: dealer steps, LEDs, messages, sounds, confirmations.

The referee never performs I/O; ``Referee.handle`` returns these and the table host
(device/table/host.py) carries them out. Dealer targets are words here; the host maps them to the wire protocol's
target bytes (hardware/PROTOCOL.md): ``"seat:3"``, ``"reject"``, ``"discard"``, ``"centre"``,
``"faceup"``, ``"trick"``, ``"stock"`` (the magazine, in plan order), ``"staging"`` (fed cards
parked until fetched by identity).

Dealer steps are typed: one small frozen dataclass per step (all ``DealerCommand``s), one
outstanding at a time, each answered by a ``DealDone`` (for ``DealPlan``) or ``DealerDone(step)``
event, or a ``DealerFault``. ``step`` numbers it. The device layer dispatches on the type
(device/table/dealers.py):

==================  ==========================================  ===========================
step                fields                                      protocol
==================  ==========================================  ===========================
``DealPlan``        deal_id, plan: ((card, target), ...)        DEAL_PLAN
``Present``         seat, expect (the card due)                 PRESENT
``RoutePresented``  target                                      ROUTE_PRESENTED
``TurnUp``          expect                                      TURN_UP
``DealStock``       target, expect                              DEAL_STOCK
``RouteFaceup``     target                                      ROUTE_FACEUP
``RouteFed``        card, target (the card waiting in the gate) ROUTE_PRESENTED after FEED HOLD
``Fetch``           source ("discard"/"staging"), card, target  FETCH
``Abort``           (none)                                      ABORT
==================  ==========================================  ===========================

``step_to_json`` / ``step_from_json`` give a step's JSON form; ``step_from_json`` also reads the
older string form ``{"op": "present", "args": {...}, "step": 3}`` and says in words what is wrong
with anything it cannot read (``StepError``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar


def seat_target(seat: int) -> str:
    return f"seat:{seat}"


TRAYS = ("reject", "discard", "centre", "faceup", "trick", "stock", "staging")


@dataclass(frozen=True)
class Command:
    TYPE: ClassVar[str] = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.TYPE}
        for f in dataclasses.fields(self):
            out[f.name] = getattr(self, f.name)
        return out


@dataclass(frozen=True)
class DealerCommand(Command):
    """One dealer step (the base of the typed steps below). ``step`` numbers it; the host
    answers with DealerDone(step) (or DealDone(deal_id) for a DealPlan). ``OP`` is the step's
    name in words and in its JSON form; ``GATES``: players wait until it is done."""

    TYPE: ClassVar[str] = "dealer"
    OP: ClassVar[str] = ""
    GATES: ClassVar[bool] = True
    BUSY: ClassVar[str] = "busy"  # "wait: the dealer is ..."
    step: int = field(default=0, kw_only=True)

    def to_json(self) -> dict[str, Any]:
        return step_to_json(self)


@dataclass(frozen=True)
class DealPlan(DealerCommand):
    """Deal ``plan`` (card name, target) in deck order; answered by DealDone(deal_id)."""

    OP: ClassVar[str] = "deal"
    BUSY: ClassVar[str] = "dealing"
    deal_id: int
    plan: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Present(DealerCommand):
    OP: ClassVar[str] = "present"
    BUSY: ClassVar[str] = "showing a card"
    seat: int
    expect: str


@dataclass(frozen=True)
class RoutePresented(DealerCommand):
    OP: ClassVar[str] = "route_presented"
    BUSY: ClassVar[str] = "routing a card"
    target: str


@dataclass(frozen=True)
class TurnUp(DealerCommand):
    OP: ClassVar[str] = "turn_up"
    BUSY: ClassVar[str] = "turning up the stock card"
    expect: str


@dataclass(frozen=True)
class DealStock(DealerCommand):
    OP: ClassVar[str] = "deal_stock"
    BUSY: ClassVar[str] = "dealing from the stock"
    target: str
    expect: str


@dataclass(frozen=True)
class RouteFaceup(DealerCommand):
    OP: ClassVar[str] = "route_faceup"
    BUSY: ClassVar[str] = "routing the face-up card"
    target: str


@dataclass(frozen=True)
class RouteFed(DealerCommand):
    """Route the card a player fed, read and held in the reader gate (``card`` None: it could
    not be read). Players need not wait for it."""

    OP: ClassVar[str] = "route_fed"
    GATES: ClassVar[bool] = False
    BUSY: ClassVar[str] = "routing a card"
    card: str | None
    target: str


@dataclass(frozen=True)
class Fetch(DealerCommand):
    OP: ClassVar[str] = "fetch"
    BUSY: ClassVar[str] = "fetching cards"
    source: str
    card: str
    target: str


@dataclass(frozen=True)
class Abort(DealerCommand):
    OP: ClassVar[str] = "abort"
    BUSY: ClassVar[str] = "stopping"


STEP_TYPES: dict[str, type[DealerCommand]] = {
    cls.OP: cls for cls in (DealPlan, Present, RoutePresented, TurnUp, DealStock, RouteFaceup, RouteFed, Fetch, Abort)
}


class StepError(ValueError):
    """A dealer step's JSON form that cannot be read: what and why, in words."""


def step_to_json(step: DealerCommand) -> dict[str, Any]:
    out: dict[str, Any] = {"type": DealerCommand.TYPE, "op": step.OP, "step": step.step}
    for f in dataclasses.fields(step):
        if f.name != "step":
            v = getattr(step, f.name)
            out[f.name] = [list(e) for e in v] if f.name == "plan" else v
    return out


def step_from_json(obj: Any) -> DealerCommand:
    """A step from ``step_to_json``'s form or the older string form (``op`` + ``args``)."""
    if not isinstance(obj, dict):
        raise StepError(f"a dealer step is a JSON object, not {type(obj).__name__}")
    op = obj.get("op")
    cls = STEP_TYPES.get(op) if isinstance(op, str) else None
    if cls is None:
        raise StepError(f"unknown dealer step {op!r} (one of {', '.join(STEP_TYPES)})")
    args = obj.get("args", obj)
    if not isinstance(args, dict):
        raise StepError(f"dealer step {op!r}: its args are not a JSON object")
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name == "step":
            continue
        if f.name not in args:
            raise StepError(f"dealer step {op!r} lacks {f.name!r}")
        v = args[f.name]
        kwargs[f.name] = tuple(tuple(e) for e in v) if f.name == "plan" else v
    step = obj.get("step", 0)
    if not isinstance(step, int) or isinstance(step, bool):
        raise StepError(f"dealer step {op!r}: step number {step!r} is not a whole number")
    try:
        return cls(**kwargs, step=step)
    except TypeError as e:
        raise StepError(f"dealer step {op!r}: {e}") from None


@dataclass(frozen=True)
class Led(Command):
    """A seat panel's LED: "on" (your turn), "off", "blink" (look at the screen: a problem)."""

    TYPE: ClassVar[str] = "led"
    seat: int
    mode: str


@dataclass(frozen=True)
class Message(Command):
    """Words for the screen. ``seat`` set: for that seat's private screen only. ``level``:
    "info", "warn" (a refused entry) or "error" (the table needs a human)."""

    TYPE: ClassVar[str] = "message"
    text: str
    seat: int | None = None
    level: str = "info"


@dataclass(frozen=True)
class Refusal(Command):
    """An entry was refused (nothing changed): ``text`` is the referee's words, as shown on the
    shared screen; ``seat`` the seat whose entry it was (None: nobody knows, e.g. a card nobody
    holds). The kiosk tells the person who tapped from this, never from the message log.
    ``private``: the words name a card in a hand, so they are for that seat's screen only."""

    TYPE: ClassVar[str] = "refusal"
    seat: int | None
    text: str
    private: bool = False


@dataclass(frozen=True)
class Sound(Command):
    TYPE: ClassVar[str] = "sound"
    name: str


@dataclass(frozen=True)
class AskConfirm(Command):
    """Show a yes/no question (undo). Answered by UndoConfirm / UndoCancel, or by the asking
    seat's panel: OK confirms, minus cancels."""

    TYPE: ClassVar[str] = "ask_confirm"
    kind: str
    text: str
    seat: int | None = None


@dataclass(frozen=True)
class NeedShuffle(Command):
    """The next hand needs a deck order: the host answers with a Shuffled event."""

    TYPE: ClassVar[str] = "need_shuffle"
    decks: int


@dataclass(frozen=True)
class SaveRecord(Command):
    """Write the game record (after every hand; ``finished`` once the game is over)."""

    TYPE: ClassVar[str] = "save_record"
    record: dict[str, Any]
    finished: bool = False


@dataclass(frozen=True)
class ShowCommitment(Command):
    """Fair dealing: the hand's commitment, shown before the deal (``short``: 24 hex digits);
    at the hand's end ``salt`` is revealed (empty until then)."""

    TYPE: ClassVar[str] = "show_commitment"
    hand: int
    short: str
    full: str
    salt: str = ""
