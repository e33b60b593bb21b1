"""Table events: everything that can happen at the table, as small frozen dataclasses.

The referee is a pure function of its event stream, so events are what the journal stores
(``to_json`` / ``event_from_json``) and what a replay feeds back. Randomness is an event too:
``Shuffled`` carries the deck order and the hand's secret salt, so replaying the journal
re-creates exactly the same hands, commitments and Double Nil replacements.

Cards travel as their two-character names ("QS") and actions in their record form
(``{"bid": 4}``), so a journal line reads like the game record it feeds.
"""

from __future__ import annotations

import dataclasses
import random
import secrets
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .. import cards as C

BUTTONS = ("minus", "plus", "ok", "ok_long")
FAULT_KINDS = ("jam", "fault", "link_down", "timeout", "mismatch")


@dataclass(frozen=True)
class Event:
    """Base of every table event. ``TYPE`` is the name stored in the journal."""

    TYPE: ClassVar[str] = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.TYPE}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            out[f.name] = list(v) if isinstance(v, tuple) else v
        return out


@dataclass(frozen=True)
class NewGame(Event):
    """Start a game: ``bots`` lists the seats the host fills with engine bots. ``dealer`` is the
    dealer-step vocabulary the game is refereed with: 2 (the v2 dealer, PROTOCOL.md section 11);
    a journaled ``new_game`` without it was written with the v1 steps and reads as 1
    (``event_from_json``; see referee/legacy.py). ``bot_hands`` says where the bot seats' cards
    are: "pocket" (dealt to the seat's pocket; the bot's plays are moved by hand: simulated
    mode, scripted tables) or "loop" (a physical table: dealt into the dealer's return loop,
    where nobody sees them; each play is fetched from the loop to the trick pocket, passes to
    and from a bot stay in the loop: hardware/README.md, "Bot seats")."""

    TYPE: ClassVar[str] = "new_game"
    game: str
    names: tuple[str, ...]
    options: dict[str, Any] = field(default_factory=dict)
    first_dealer: int = 0
    bots: tuple[int, ...] = ()
    dealer: int = 2
    bot_hands: str = "pocket"


@dataclass(frozen=True)
class Shuffled(Event):
    """The next hand's deck order (top first, card names) and its secret salt (hex);
    ``exchange``: the rule that draws spades-2p's Double Nil replacements from the salt
    (engine/referee/fairness.py; a journal written before the field: exchange/1)."""

    TYPE: ClassVar[str] = "shuffled"
    deck: tuple[str, ...]
    salt: str
    exchange: str = "exchange/2"


@dataclass(frozen=True)
class Button(Event):
    """A seat panel press: "minus", "plus", "ok" or "ok_long" (a long OK: undo request)."""

    TYPE: ClassVar[str] = "button"
    seat: int
    button: str


@dataclass(frozen=True)
class CardRead(Event):
    """A card fed by a player and read by the dealer's reader; it waits in the reader gate
    until the referee routes it. ``seat`` is who fed it when the table knows (else None)."""

    TYPE: ClassVar[str] = "card_read"
    card: str
    seat: int | None = None


@dataclass(frozen=True)
class Touch(Event):
    """An action entered on the touchscreen for ``seat``, in record form: {"play": "QS"}."""

    TYPE: ClassVar[str] = "touch"
    seat: int
    action: dict[str, Any]


@dataclass(frozen=True)
class BotAction(Event):
    """The action an engine bot chose for ``seat`` (the host asks the bot; the journal keeps
    the choice, so a replay does not depend on the bot's code or its random numbers)."""

    TYPE: ClassVar[str] = "bot_action"
    seat: int
    action: dict[str, Any]


@dataclass(frozen=True)
class DealDone(Event):
    """The dealer finished a deal plan; ``ok`` is the host's check of it (every entry filled,
    nothing misrouted), ``problems`` what differed. ``unread``: the plan entries (card name,
    target) of the cards the reader could not read, sent to the reject pocket, when they are the
    only difference (every other card where the plan says): dealing just them finishes the deal."""

    TYPE: ClassVar[str] = "deal_done"
    deal_id: int
    ok: bool = True
    problems: tuple[str, ...] = ()
    unread: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class DealerDone(Event):
    """A dealer step other than a deal finished (route, fetch, stage, feed back, release...).
    ``card`` is what the dealer read, when the step reads one (for ``FeedBack``: the card the
    player fed, which may not be the one due)."""

    TYPE: ClassVar[str] = "dealer_done"
    step: int
    card: str | None = None


@dataclass(frozen=True)
class DealerFault(Event):
    """The dealer stopped: ``kind`` is one of FAULT_KINDS; ``message`` is the driver's words.
    ``delivered``: for a step that moves several cards (a ``Release``), the (card, target) of
    each card the dealer reported in its pocket before it stopped (CARD_DEALT), so the journal
    knows them: the step, done again, hands over only the cards still in the loop. ``missing``:
    for a ``Release`` whose cards ran out, the (card, target) of each card of its plan that is
    neither delivered nor in the dealer (carried to the reject pocket by an e-stop, left on the
    belt or delivered unreported by a reboot): people put them in the play slot."""

    TYPE: ClassVar[str] = "dealer_fault"
    kind: str
    message: str = ""
    step: int | None = None
    delivered: tuple[tuple[str, str], ...] = ()
    missing: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        for name in ("delivered", "missing"):
            if getattr(self, name):
                out[name] = [list(e) for e in getattr(self, name)]
            else:
                del out[name]  # a journal line as before the field existed
        return out


UNREAD = "unread"  # a DealerMoved card that was never read (cleared from the read window on its way in)


@dataclass(frozen=True)
class DealerMoved(Event):
    """The dealer put cards where no step of the referee sent them (protocol 3's reconciliation,
    device/table/dealers.py): ``moves`` are (card, place) pairs, for now always the reject
    pocket (a card the dealer cleared from its read window when it was stopped or reset, a stray
    met on the way; ``UNREAD`` for a card cleared before it was read). ``upto``: how many entries of the dealer's reject-pocket ledger (since the
    hand's deal) the host has now accounted for, so a restarted host reports only newer ones.
    ``ends``: the step it is the outcome of (see there). The referee moves each card in its
    model and tells the people where it went and what to do."""

    TYPE: ClassVar[str] = "dealer_moved"
    moves: tuple[tuple[str, str], ...] = ()
    upto: int = 0
    # the step this ends, as its outcome (the dealer's port found the step's card moved and did
    # not do it); None: told between steps, or while a step is still to be done
    ends: int | None = None

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        out["moves"] = [list(e) for e in self.moves]
        if self.ends is None:
            del out["ends"]  # a journal line as before the field existed
        return out


@dataclass(frozen=True)
class DealerReady(Event):
    """The dealer is usable again (link up, jam cleared). ``redeal``: it lost the deal in
    progress (rebooted, or the operator chose to gather the cards), so a deal starts again."""

    TYPE: ClassVar[str] = "dealer_ready"
    redeal: bool = False


@dataclass(frozen=True)
class UndoRequest(Event):
    """Ask to take back the last entry (``seat``: the seat asking, None from the screen)."""

    TYPE: ClassVar[str] = "undo_request"
    seat: int | None = None


@dataclass(frozen=True)
class UndoConfirm(Event):
    TYPE: ClassVar[str] = "undo_confirm"


@dataclass(frozen=True)
class UndoCancel(Event):
    TYPE: ClassVar[str] = "undo_cancel"


@dataclass(frozen=True)
class ScoreCorrection(Event):
    """An admin-authorised change of ``seat``'s total by ``points`` (the PIN is checked by the
    device layer). It is recorded, shown on the score sheet and written in the record."""

    TYPE: ClassVar[str] = "score_correction"
    seat: int
    points: int
    reason: str = ""
    by: str = "admin"


@dataclass(frozen=True)
class HandCorrection(Event):
    """An admin-authorised correction of an earlier hand (the PIN is checked by the device
    layer): hand ``hand`` (counted from 1) scores with ``entries`` (its figures in the shape of
    engine.scorekeeper: bids and tricks, hearts and Q♠, stage-two tricks) instead of what
    its plays gave. The plays stay as played; the record carries the correction
    (``hand_corrections``) with ``reason`` and ``at`` (when: the table's clock, as text)."""

    TYPE: ClassVar[str] = "hand_correction"
    hand: int
    entries: dict[str, Any]
    reason: str = ""
    by: str = "admin"
    at: str = ""


EVENT_TYPES: dict[str, type[Event]] = {
    cls.TYPE: cls
    for cls in (NewGame, Shuffled, Button, CardRead, Touch, BotAction, DealDone, DealerDone,
                DealerFault, DealerMoved, DealerReady, UndoRequest, UndoConfirm, UndoCancel, ScoreCorrection,
                HandCorrection)
}


class EventError(ValueError):
    """A journal entry or host message that is not a valid event: what was wrong, in words."""


def event_from_json(obj: Any) -> Event:
    """The event of a ``to_json`` object; EventError names the problem."""
    if not isinstance(obj, dict):
        raise EventError(f"an event is a JSON object, not {type(obj).__name__}")
    kind = obj.get("type")
    cls = EVENT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise EventError(f"unknown event type {kind!r} (one of {', '.join(EVENT_TYPES)})")
    kwargs: dict[str, Any] = {}
    if cls is NewGame and "dealer" not in obj:
        kwargs["dealer"] = 1  # journaled before the v2 dealer: its steps are the v1 ones
    if cls is Shuffled and "exchange" not in obj:
        kwargs["exchange"] = "exchange/1"  # journaled before rule exchange/2: replayed as it was drawn
    if cls is Shuffled and obj.get("exchange", "exchange/1") not in ("exchange/1", "exchange/2"):
        raise EventError(f"shuffled event: unknown Double Nil rule {obj.get('exchange')!r} "
                         f"(exchange/1 or exchange/2)")
    for f in dataclasses.fields(cls):
        if f.name not in obj:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise EventError(f"{kind} event lacks {f.name!r}")
            continue
        v = obj[f.name]
        if f.name in ("moves", "unread") and isinstance(v, list):
            v = [tuple(e) if isinstance(e, list) else e for e in v]
        kwargs[f.name] = tuple(v) if isinstance(v, list) else v
    try:
        return cls(**kwargs)
    except TypeError as e:
        raise EventError(f"{kind} event: {e}") from None


def make_shuffle(decks: int = 1, rng: random.Random | None = None) -> Shuffled:
    """A fresh shuffle: ``secrets`` by default; a seeded ``random.Random`` for simulation
    (then deck and salt are both reproducible from the seed)."""
    order = C.full_deck(decks)
    if rng is None:
        secrets.SystemRandom().shuffle(order)
        salt = secrets.token_hex(16)
    else:
        rng.shuffle(order)
        salt = f"{rng.getrandbits(128):032x}"
    return Shuffled(tuple(C.names(order)), salt)
