"""What the referee asks of the table: dealer steps, LEDs, messages, sounds, confirmations.

The referee never performs I/O; ``Referee.handle`` returns these and the table host
(device/table/host.py) carries them out. Dealer targets are words here; the host maps them to the wire protocol's
target bytes (hardware/PROTOCOL.md): ``"seat:3"``, ``"reject"``, ``"discard"``, ``"centre"``,
``"faceup"``, ``"trick"``, ``"stock"`` (the magazine, in plan order), ``"staging"`` (fed cards
parked until fetched by identity).

Dealer ops (``DealerCommand.op``), one outstanding at a time, each answered by a ``DealDone``
(for "deal") or ``DealerDone(step)`` event, or a ``DealerFault``:

=================  ==========================================  ===========================
op                 args                                        protocol
=================  ==========================================  ===========================
``deal``           deal_id, plan: [[card, target], ...]         DEAL_PLAN
``present``        seat, expect (the card due)                  PRESENT
``route_presented`` target                                      ROUTE_PRESENTED
``turn_up``        expect                                       TURN_UP
``deal_stock``     target, expect                               DEAL_STOCK
``route_faceup``   target                                       ROUTE_FACEUP
``route_fed``      card, target (the card waiting in the gate)  ROUTE_PRESENTED after FEED HOLD
``fetch``          source ("discard"/"staging"), card, target   FETCH
``abort``          (none)                                       ABORT
=================  ==========================================  ===========================
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
    """One dealer step. ``step`` numbers it; the host answers with DealerDone(step) (or
    DealDone(deal_id) for a deal)."""

    TYPE: ClassVar[str] = "dealer"
    op: str
    args: dict[str, Any] = field(default_factory=dict)
    step: int = 0


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
