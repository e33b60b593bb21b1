"""What the referee asks of the table: dealer steps, LEDs, messages, sounds, confirmations.

The referee never performs I/O; ``Referee.handle`` returns these and the table host
(device/table/host.py) carries them out. Dealer targets are words here; the host maps them to the
wire protocol's target bytes (hardware/PROTOCOL.md section 11, the v2 dealer): ``"seat:3"`` (that
seat's pocket), ``"reject"``, ``"discard"``, ``"centre"``, ``"trick"`` (pockets) and ``"loop"``
(the return loop: the card goes round onto the top of the hopper, and the dealer keeps it in its
queue model, so the referee can FETCH it by identity later).

Dealer steps are typed: one small frozen dataclass per step (all ``DealerCommand``s), one
outstanding at a time, each answered by a ``DealDone`` (for ``DealPlan``) or ``DealerDone(step)``
event, or a ``DealerFault``. ``step`` numbers it. The device layer dispatches on the type
(device/table/dealers.py):

================  =========================================  ==========================================
step              fields                                     protocol (v2)
================  =========================================  ==========================================
``DealPlan``      deal_id, plan: ((card, target), ...)       DEAL_PLAN (checked deal of the deck order)
``Release``       plan: ((card, target), ...)                DEAL_PLAN over cards parked in the loop
``RouteFed``      card, target (the card read, in the gate)  ROUTE_PRESENTED after FEED HOLD
``Fetch``         card, target                               FETCH 0x85 card target (by identity)
``Stage``         card                                       FETCH 0x85 card 0xFE (next in the hopper)
``FeedBack``      seat, card, target                         FEED HOLD, check the card, ROUTE_PRESENTED
``Abort``         (none)                                     ABORT
``V1Step``        op, args                                   none: a v1 step, kept to replay v1 journals
================  =========================================  ==========================================

``step_to_json`` / ``step_from_json`` give a step's JSON form. ``step_from_json`` also reads the
string form of the v1 referee (``{"op": "present", "args": {...}, "step": 3}``) and maps each v1
op: ``deal`` -> DealPlan (stock entries to the loop), ``route_fed`` -> RouteFed (staging -> the
loop, where v2 parks fed cards), ``fetch`` from staging -> Fetch (from the loop), ``abort`` ->
Abort; ``present``, ``route_presented``, ``turn_up``, ``deal_stock``, ``route_faceup`` and a
``fetch`` from the discard tray have no v2 counterpart and become a ``V1Step`` naming the op, which
the device layer refuses in words (never runs). Anything else is a ``StepError`` in words.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar


def seat_target(seat: int) -> str:
    return f"seat:{seat}"


TRAYS = ("reject", "discard", "centre", "trick", "loop")


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
class Release(DealerCommand):
    """Send cards parked in the loop to their receivers (passes, the Blind Nil exchange): one
    plan over the parked cards, each read and routed by identity."""

    OP: ClassVar[str] = "release"
    BUSY: ClassVar[str] = "handing the passed cards over"
    plan: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class RouteFed(DealerCommand):
    """Route the card a player fed, read and held in the reader gate (``card`` None: it could
    not be read). Players need not wait for it."""

    OP: ClassVar[str] = "route_fed"
    GATES: ClassVar[bool] = False
    BUSY: ClassVar[str] = "routing a card"
    card: str | None
    target: str
    # a hint for the machine, not part of the step (neither compared nor journalled): the next
    # step is a Fetch, so the dealer may bring the loop's next card to its read window as the
    # card leaves (ROUTE_PRESENTED flag NEXT, hardware/PROTOCOL.md)
    then_next: bool = field(default=False, kw_only=True, compare=False)


@dataclass(frozen=True)
class Fetch(DealerCommand):
    """Take ``card`` out of the loop by identity (the dealer cycles the loop until it comes
    round) and route it to ``target``."""

    OP: ClassVar[str] = "fetch"
    BUSY: ClassVar[str] = "fetching a card"
    card: str
    target: str
    # a hint for the machine, not part of the step (neither compared nor journalled): the next
    # step is another Fetch or a Stage, so the dealer may bring the next loop card to its read
    # window as this one leaves (FETCH flag NEXT, hardware/PROTOCOL.md)
    then_next: bool = field(default=False, kw_only=True, compare=False)


@dataclass(frozen=True)
class Stage(DealerCommand):
    """Cycle the loop until ``card`` is the next card the hopper feeds, without feeding it: the
    Fetch that follows is then quick. In the background (players need not wait)."""

    OP: ClassVar[str] = "stage"
    GATES: ClassVar[bool] = False
    BUSY: ClassVar[str] = "getting the next stock card ready"
    card: str


@dataclass(frozen=True)
class FeedBack(DealerCommand):
    """Wait for ``seat`` to feed ``card`` back (a spades-2p draw: the card shown and not kept);
    the reader checks it is that card, then it goes to ``target``. Answered by DealerDone with
    the card read: another card stays in the gate (the referee sends it where it belongs)."""

    OP: ClassVar[str] = "feed_back"
    BUSY: ClassVar[str] = "waiting for the drawn card to be fed back"
    seat: int
    card: str
    target: str
    # a hint for the machine, not part of the step (neither compared nor journalled): target
    # "loop", the card's place in a sorting hopper (a Double Nil's replacement candidates under
    # the other discards, rule exchange/2; hardware/PROTOCOL.md ROUTE_PRESENTED's place byte)
    place: int | None = field(default=None, kw_only=True, compare=False)
    # a hint for the machine, not part of the step (neither compared nor journalled): the next
    # step is a Fetch of the loop's next card, so the dealer may bring it to its read window as
    # the card fed back leaves (FEED / ROUTE_PRESENTED flag NEXT, hardware/PROTOCOL.md)
    then_next: bool = field(default=False, kw_only=True, compare=False)


@dataclass(frozen=True)
class Abort(DealerCommand):
    OP: ClassVar[str] = "abort"
    BUSY: ClassVar[str] = "stopping"


@dataclass(frozen=True)
class V1Step(DealerCommand):
    """A step of the v1 dealer (``op``: present, route_presented, turn_up, deal_stock,
    route_faceup, or a fetch from the discard tray) with no v2 counterpart. The referee queues
    it only while replaying a game journaled with the v1 steps, so that the journal's step
    numbers still match; the device layer refuses to run it, naming the op."""

    OP: ClassVar[str] = "v1"
    BUSY: ClassVar[str] = "stopped on a step of the old dealer"
    op: str
    args: dict[str, Any] = field(default_factory=dict)


STEP_TYPES: dict[str, type[DealerCommand]] = {
    cls.OP: cls for cls in (DealPlan, Release, RouteFed, Fetch, Stage, FeedBack, Abort)
}
V1_ONLY = ("present", "route_presented", "turn_up", "deal_stock", "route_faceup")
V1_WORDS = {
    "present": "show the next stock card to one seat (PRESENT)",
    "route_presented": "route the card shown to a seat (ROUTE_PRESENTED)",
    "turn_up": "turn up the stock card in the face-up window (TURN_UP)",
    "deal_stock": "deal the next stock card from the magazine (DEAL_STOCK)",
    "route_faceup": "route the face-up card (ROUTE_FACEUP)",
    "fetch": "fetch a card from the v1 dealer's discard tray (FETCH 0x81; v2 has a discard pocket)",
}


class StepError(ValueError):
    """A dealer step's JSON form that cannot be read: what and why, in words."""


def step_to_json(step: DealerCommand) -> dict[str, Any]:
    if isinstance(step, V1Step):
        return {"type": DealerCommand.TYPE, "op": step.op, "args": dict(step.args), "step": step.step}
    out: dict[str, Any] = {"type": DealerCommand.TYPE, "op": step.OP, "step": step.step}
    for f in dataclasses.fields(step):
        if f.name != "step" and f.compare:
            v = getattr(step, f.name)
            out[f.name] = [list(e) for e in v] if f.name == "plan" else v
    return out


_V1_TARGETS = {"staging": "loop", "stock": "loop"}


def step_from_json(obj: Any) -> DealerCommand:
    """A step from ``step_to_json``'s form or the v1 string form (``op`` + ``args``)."""
    if not isinstance(obj, dict):
        raise StepError(f"a dealer step is a JSON object, not {type(obj).__name__}")
    op = obj.get("op")
    args = obj.get("args", obj)
    if not isinstance(args, dict):
        raise StepError(f"dealer step {op!r}: its args are not a JSON object")
    step = obj.get("step", 0)
    if not isinstance(step, int) or isinstance(step, bool):
        raise StepError(f"dealer step {op!r}: step number {step!r} is not a whole number")
    if op in V1_ONLY or (op == "fetch" and args.get("source") == "discard"):
        return V1Step(str(op), {k: v for k, v in args.items() if k not in ("type", "op", "step")}, step=step)
    cls = STEP_TYPES.get(op) if isinstance(op, str) else None
    if cls is None:
        raise StepError(f"unknown dealer step {op!r} (one of {', '.join(STEP_TYPES)}, or a v1 step: "
                        f"{', '.join(V1_ONLY)})")
    if op == "fetch" and args.get("source", "loop") not in ("loop", "staging", "stock"):
        raise StepError(f"dealer step 'fetch' from {args.get('source')!r}: the v2 dealer fetches from the loop only")
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name == "step" or not f.compare:
            continue
        if f.name not in args:
            raise StepError(f"dealer step {op!r} lacks {f.name!r}")
        v = args[f.name]
        if f.name == "plan":
            if not isinstance(v, list | tuple) or not all(isinstance(e, list | tuple) and len(e) == 2 for e in v):
                raise StepError(f"dealer step {op!r}: its plan is not a list of [card, target] pairs")
            v = tuple((e[0], _V1_TARGETS.get(e[1], e[1])) for e in v)
        elif f.name == "target" and isinstance(v, str):
            v = _V1_TARGETS.get(v, v)
        kwargs[f.name] = v
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
class TakeBack(Command):
    """A card the dealer put in ``source`` (the reject pocket) that belongs elsewhere: the
    people at the table move it to ``dest`` ("seat:k": that player's hand) by hand. The words
    are in the referee's messages (the card named only on that seat's screen); this is the same
    instruction for whoever carries it out (the simulated person of ``trickref sim``).

    ``owners`` (two decks): the seats that may have fed it, each holding a copy in the model,
    none more likely; ``dest`` is then "" and ``seat`` None: whichever of them no longer holds
    the card takes it back into their own pocket (each is told so on their own screen). A
    ``card`` of "" is one never read (cleared from the read window on its way in): whichever
    of ``owners`` fed it takes it back and feeds it again."""

    TYPE: ClassVar[str] = "take_back"
    card: str
    source: str
    dest: str
    seat: int | None = None
    owners: tuple[int, ...] = ()


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
