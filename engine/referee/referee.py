"""The table referee: a pure state machine from table events to commands.

``Referee.handle(event)`` takes one event (events.py) and returns the commands (commands.py)
the host must carry out; there is no I/O, thread or clock here, so feeding the same events to a
fresh Referee rebuilds exactly the same state (that is how the journal resumes a game after a
power cut). The rules are the engine's (``GameState``); the referee adds the table:

- Hands. ``NeedShuffle`` -> ``Shuffled`` (deck order + secret salt) -> the commitment is shown
  -> the deal plan goes to the dealer -> nobody acts until the dealer reports a verified deal.
- Dealer steps run one at a time (``DealerCommand(step=k)`` answered by ``DealerDone(k)``). A
  step that moves cards a player needs before acting "gates" the table: entries are refused
  ("wait: the dealer is ...") until it is done. Routing a played card to the trick tray does not
  gate.
- Dealer faults. A fault stops the steps and shows a clear message; ``DealerReady`` re-issues
  the pending step. A deal that failed its check, or that the dealer lost (``redeal=True``), is
  redealt from the SAME deck order under a new deal id: the commitment shown before the deal
  stands (a fresh shuffle after a fault would let a deal be thrown away until it suited
  someone), and since the dealer routes by card identity, gathering all cards back into the
  hopper reproduces the same hands.
- Entries come from the panels (bids, the moon, draws), the reader (plays, passes, the Double
  Nil give), the touchscreen and bots. Refused entries change nothing: the reason is shown, the
  seat's LED blinks and a card read by the reader is routed back to the seat that fed it (a card
  that belongs to nobody goes to the reject tray).
- Undo takes back the last entry of the hand in progress after a confirmation, unless cards
  have physically moved because of it (a spades-2p draw, a Double Nil exchange, passes fed
  through the reader, a German Whist stage-one trick that drew from the stock).
- Score corrections are admin entries: recorded with their reason, shown on the score sheet,
  written in the record's ``corrections``, and added to the totals (between hands they can end
  the game).
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections import Counter
from typing import Any

from .. import actions as A
from .. import cards as C
from ..base import check_deck
from ..errors import IllegalAction, RecordError
from ..games import GAME_IDS, new_game
from . import fairness, flows, legacy, panel
from .commands import (
    AskConfirm,
    Command,
    DealerCommand,
    DealPlan,
    FeedBack,
    Fetch,
    Led,
    Message,
    NeedShuffle,
    Refusal,
    Release,
    RouteFed,
    SaveRecord,
    ShowCommitment,
    Sound,
    V1Step,
    seat_target,
)
from .events import (
    BotAction,
    Button,
    CardRead,
    DealDone,
    DealerDone,
    DealerFault,
    DealerReady,
    Event,
    NewGame,
    ScoreCorrection,
    Shuffled,
    Touch,
    UndoCancel,
    UndoConfirm,
    UndoRequest,
)
from .state import MESSAGES_KEPT
from .views import _PHASE_WORDS, RefereeViews, public_words

# A card name in a driver's words ("4H", "10S", "QD"): never shown on the shared screen.
_CARD_WORD = re.compile(r"\b(?:10|[2-9TJQKA])[SHDC]\b")


def _public_fault_words(message: str) -> str:
    """The dealer driver's words about a fault, fit for the shared screen: its first clause
    only (the referee says what to do itself), no internal deal id, and never a card's name
    (the jammed card can be from someone's hand)."""
    text = (message or "").strip()
    text = re.sub(r"^(?:deal|step|feed|action)\s+\d+\s*:\s*", "", text)
    text = re.sub(r"\s*\((?:card|cards)\b[^)]*\)", "", text)
    text = text.split(";")[0].strip().rstrip(".")
    return _CARD_WORD.sub("a card", text)


def deal_problem_counts(problems: tuple[str, ...] | list[str]) -> dict[str, int]:
    """How many cards a failed deal check found missing, extra (read more often than the plan
    holds them), in the wrong place and unreadable: counted from the driver's problem lines
    (``device.dealer.plan.check_deal``), so the shared screen can say it without a card's name."""
    counts = {"missing": 0, "extra": 0, "misplaced": 0, "unreadable": 0}
    ran_out = 0
    for p in problems:
        if p.startswith("missing from the deal:"):
            counts["missing"] += len(p.split(":", 1)[1].split())
        elif "read more often than the plan holds" in p or "plan holds no (more) copies" in p:
            counts["extra"] += 1
        elif "the plan says" in p:
            counts["misplaced"] += 1
        elif "could not be read" in p:
            counts["unreadable"] += 1
        else:
            m = re.search(r"ran out with (\d+) cards", p)
            if m:
                ran_out = max(ran_out, int(m.group(1)))
    counts["missing"] = max(counts["missing"], ran_out)
    return counts


def _plural(n: int, what: str) -> str:
    return f"{n} card{'' if n == 1 else 's'} {what}"


def _stuck_deal_words(problems: tuple[str, ...] | list[str]) -> str:
    """The shared screen's words for a deal that failed its check twice the same way: counts
    only (never a card's name: the deal is hidden), and what the people at the table do."""
    counts = deal_problem_counts(problems)
    found = [_plural(counts["missing"], "missing"), _plural(counts["extra"], "too many")]
    if counts["misplaced"]:
        found.append(_plural(counts["misplaced"], "in the wrong place"))
    if counts["unreadable"]:
        found.append(_plural(counts["unreadable"], "unreadable"))
    return (f"The deal did not check out twice in a row, the same way ({', '.join(found)}): dealing "
            "again would fail again, so the table stops here. Gather every card from every tray, look "
            "in the reject tray and around the dealer, and count the deck: take out any extra card, find "
            "or replace a missing or unreadable one. Then put all the cards into the dealer and press "
            "Resume: the hand is redealt from the same deck order (same commitment).")


def _public_deal_problems(problems: tuple[str, ...] | list[str]) -> str:
    """A failed deal check in words for the shared screen: counts, never a card's name (the
    deal is hidden; the names stay in the driver's log)."""
    counts = deal_problem_counts(problems)
    found = [_plural(n, what) for n, what in ((counts["missing"], "missing"), (counts["extra"], "too many"),
                                              (counts["misplaced"], "in the wrong place"),
                                              (counts["unreadable"], "unreadable")) if n]
    if found:
        return ", ".join(found)
    text = "; ".join(problems) or "the dealt cards did not match the plan"
    return _CARD_WORD.sub("a card", text)


_log = logging.getLogger("trickref.referee")


class Referee(RefereeViews):
    """One table's referee. Build it empty, then feed events (the first is NewGame)."""

    # ================================================================== the API
    def handle(self, event: Event) -> list[Command]:
        """Take one event; return what the table must do. Never raises on bad table input:
        anything refused becomes a Message (and nothing changes).

        A bug (any exception out of a handler: a malformed event from a host bug or a damaged
        journal line, or a mistake in the referee itself) never leaves a half-applied state:
        the referee is rebuilt from the events it had handled before this one (it is a pure
        state machine, so that is exactly the state before), the event is ignored with an
        error Message, and the traceback goes to the ``trickref.referee`` log. Replaying the
        journal (which holds the event) does the same, so the journal and the referee agree."""
        history = self._history
        handler = _HANDLERS.get(type(event))
        try:
            self._out = []
            self.events_handled += 1
            if handler is None:
                self._msg(f"unknown event {event!r}", level="warn")
            else:
                handler(self, event)
            if self.game is not None:
                self._sync_leds()
        except Exception as e:  # any bug: restore, say so, log it
            _log.error("referee bug on %r: state restored, event ignored", event, exc_info=True)
            self._restore(history)
            self._out = []
            self.events_handled += 1
            self._msg(f"ignored a {getattr(event, 'TYPE', type(event).__name__)} event the referee could not "
                      f"handle ({type(e).__name__}: {e}); nothing changed", level="error")
            if self.game is not None:
                self._sync_leds()
        self._history.append(event)
        out, self._out = self._out, []
        return out

    def _restore(self, history: list[Event]) -> None:
        """Become the referee that ``history`` builds (the state before a failed event)."""
        progress = self.deal_progress
        fresh = Referee()
        for ev in history:
            fresh.handle(ev)
        self.__dict__.clear()
        self.__dict__.update(fresh.__dict__)
        self._history = list(history)
        self.deal_progress = progress

    def note_dealt(self, count: int) -> None:
        """The host's count of cards dealt so far in the deal in progress (progress only)."""
        self.deal_progress = max(0, int(count))

    def resync(self) -> list[Command]:
        """After replaying a journal: the commands that put the table back where the referee
        is (the pending dealer step, the LEDs, a pending question, the shuffle request)."""
        out: list[Command] = []
        if self.waiting == "shuffle" and self.game is not None:
            out.append(NeedShuffle(self.game.DECKS))
        if self.steps and self.dealer_fault is None:
            out.append(self.steps[0])
        for s, mode in enumerate(self.leds):
            out.append(Led(s, mode))
        if self.undo_pending is not None:
            out.append(AskConfirm("undo", self.undo_pending["text"], self.undo_pending["seat"]))
        if self.dealer_fault is not None:
            out.append(Message(self.dealer_fault, None, "error"))
        return out


    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Referee):
            return NotImplemented
        skip = ("_out", "_record_cache", "deal_progress", "_history")
        a = {k: v for k, v in self.__dict__.items() if k not in skip}
        b = {k: v for k, v in other.__dict__.items() if k not in skip}
        return a == b

    __hash__ = None  # type: ignore[assignment]

    # ================================================================== output helpers
    def _msg(self, text: str, seat: int | None = None, level: str = "info") -> None:
        self.messages.append({"text": text, "seat": seat, "level": level})
        if len(self.messages) > 4 * MESSAGES_KEPT:
            del self.messages[: len(self.messages) - 2 * MESSAGES_KEPT]
        self._out.append(Message(text, seat, level))

    def _name(self, seat: int) -> str:
        g = self.game
        return g.names[seat] if g is not None and 0 <= seat < g.n else f"seat {seat}"

    def _refuse(self, seat: int | None, text: str, private: bool = False, secret: str | None = None) -> None:
        """Show why an entry was refused, blink the seat's LED, change nothing. Words that name
        a card still in a hand go to that seat's screen only: ``private`` sends ``text`` there;
        ``secret`` is the seat's own version of a ``text`` that names no card."""
        self._msg(text, seat if private else None, "warn")
        self._out.append(Refusal(seat, text, private))
        if secret is not None and seat is not None:
            self._msg(secret, seat, "warn")
        self._out.append(Sound("refused"))
        if seat is not None and self.game is not None and 0 <= seat < self.game.n and seat not in self.blinking:
            self.blinking.append(seat)

    def _set_led(self, seat: int, mode: str) -> None:
        if self.leds[seat] != mode:
            self.leds[seat] = mode
            self._out.append(Led(seat, mode))

    def _sync_leds(self) -> None:
        """LEDs on for the seats that must act, off for the rest; a blink stays until the seat
        acts or the turn moves on."""
        g = self._g()
        want_on = set(g.turn_seats()) if self.waiting == "turn" and not self.busy else set()
        for s in range(g.n):
            self._set_led(s, "blink" if s in self.blinking else "on" if s in want_on else "off")

    # ------------------------------------------------------------------ dealer steps
    def _push(self, step: DealerCommand) -> None:
        """Queue a dealer step (numbered here); issue it at once when nothing is pending."""
        step = dataclasses.replace(step, step=self.next_step)
        self.next_step += 1
        self.steps.append(step)
        if len(self.steps) == 1 and self.dealer_fault is None:
            self._out.append(step)

    def _step_done(self) -> None:
        self.steps.pop(0)
        if self.steps and self.dealer_fault is None:
            self._out.append(self.steps[0])
        if not self.busy:
            self._prompt()

    def _route_fed(self, card: int, target: str, fed_by: int | None = None) -> None:
        """A card read by the reader waits in its gate until this step routes it."""
        self._to_gate(card, fed_by)
        self._push(RouteFed(C.NAMES[card], target))

    def _to_gate(self, card: int, fed_by: int | None) -> None:
        at = self.places.at
        order = ([seat_target(fed_by)] if fed_by is not None else []) + sorted(
            k for k in at if k.startswith("seat:")) + ["trick", "centre", "reject"]
        for src in order:
            if card in at.get(src, []):
                self.places.move(card, src, "gate")
                return
        self.places.move(card, "", "gate")

    # ================================================================== event handlers
    def _on_new_game(self, ev: NewGame) -> None:
        if self.game is not None and self.waiting != "over":
            self._refuse(None, "a game is in progress: finish it before starting another")
            return
        if ev.game not in GAME_IDS:
            self._refuse(None, f"unknown game {ev.game!r} (one of {', '.join(GAME_IDS)})")
            return
        try:
            g = new_game(ev.game, len(ev.names), ev.options, ev.first_dealer, list(ev.names))
        except RecordError as e:
            self._refuse(None, f"cannot start {ev.game}: {e}")
            return
        bad = [b for b in ev.bots if not (isinstance(b, int) and 0 <= b < g.n)]
        if bad:
            self._refuse(None, f"cannot start {ev.game}: no seat {bad[0]!r} for a bot at a table of {g.n}")
            return
        self.__init__()  # type: ignore[misc]
        self.events_handled = 1
        self.game = g
        self.dealer_version = 1 if ev.dealer == 1 else 2
        self.bots = tuple(sorted(set(ev.bots)))
        self.leds = ["off"] * g.n
        self._msg(f"New game: {g.TITLE or g.GAME_ID}, {', '.join(g.names)}")
        self._ask_shuffle()

    def _ask_shuffle(self) -> None:
        g = self._g()
        self.waiting = "shuffle"
        self._out.append(NeedShuffle(g.DECKS))

    def _on_shuffled(self, ev: Shuffled) -> None:
        g = self.game
        if g is None or self.waiting != "shuffle":
            self._refuse(None, "no shuffle was asked for: ignored")
            return
        try:
            deck = check_deck(list(ev.deck), g.DECKS)
        except RecordError as e:
            self._refuse(None, f"the shuffle is not a full deck ({e}); shuffle again")
            self._out.append(NeedShuffle(g.DECKS))
            return
        bad_salt = fairness.check_salt(ev.salt)
        if bad_salt is not None:
            self._refuse(None, f"the shuffle's salt will not do ({bad_salt}); shuffle again")
            self._out.append(NeedShuffle(g.DECKS))
            return
        full = fairness.commitment(deck, ev.salt)
        self.fair.append({"commitment": full, "salt": ev.salt})
        g.start_hand(deck)
        self._reset_hand_table()
        self.deal_failure, self.deal_stuck = None, False
        hand = g.hand_number
        self.waiting = "deal"
        self._out.append(ShowCommitment(hand, fairness.short(full), full))
        self._msg(f"Hand {hand}: deck commitment {fairness.short(full)} (checkable after the hand)")
        self._start_deal()

    def _reset_hand_table(self) -> None:
        self.pending.clear()
        self.fed.clear()
        self.claim = None
        self.pass_snap = None
        self.given.clear()
        self.sources = []
        self.blocked = []
        self.undo_pending = None
        self.presented = None
        self.faceup = None
        self.stock_pos = flows.WHIST_FIRST_STOCK if self._g().GAME_ID == "german-whist" else 0

    def _start_deal(self) -> None:
        g = self._g()
        self.deal_id += 1
        self.deal_failed = False
        self.deal_progress = 0
        self._push(DealPlan(self.deal_id, flows.deal_plan(g)))
        self._msg(f"Dealing hand {g.hand_number}")

    def _on_deal_done(self, ev: DealDone) -> None:
        head = self.steps[0] if self.steps else None
        if not isinstance(head, DealPlan) or head.deal_id != ev.deal_id:
            self._msg(f"the dealer reported deal {ev.deal_id}, which is not the deal in progress: ignored", level="warn")
            return
        if not ev.ok:
            self.deal_failed = True
            same = self.deal_failure == tuple(ev.problems)
            self.deal_failure = tuple(ev.problems)
            self.deal_stuck = same
            if same:
                self.dealer_fault = _stuck_deal_words(ev.problems)
                self._msg(self.dealer_fault, level="error")
                self._out.append(Sound("alarm"))
                return
            problems = _public_deal_problems(ev.problems)
            self.dealer_fault = (
                f"The deal did not check out ({problems}). Gather all the cards into the dealer and "
                f"press Resume: the hand is redealt from the same deck order (same commitment)."
            )
            self._msg(self.dealer_fault, level="error")
            self._out.append(Sound("alarm"))
            return
        g = self._g()
        self.deal_failure, self.deal_stuck = None, False
        self.places.deal(head.plan)
        self.steps.pop(0)
        self.waiting = "turn"
        self._msg(f"Hand {g.hand_number} dealt and checked")
        if self.steps:  # steps queued behind the deal (a card read meanwhile): run the next
            self._out.append(self.steps[0])
        if self.dealer_version == 1:
            after = legacy.after_deal_steps(g)
        else:
            after = flows.after_deal_steps(g)
            self._show_stock()
        for step in after:
            self._push(step)
        if not self.busy:
            self._prompt()

    def _on_dealer_done(self, ev: DealerDone) -> None:
        head = self.steps[0] if self.steps else None
        if head is None or head.step != ev.step or isinstance(head, DealPlan):
            self._msg(f"the dealer finished step {ev.step}, which is not the step in progress: ignored", level="warn")
            return
        card = None
        if ev.card is not None:
            try:
                card = C.parse(ev.card)
            except ValueError:
                card = None
        if isinstance(head, V1Step):
            self._v1_step_done(head)
        elif isinstance(head, FeedBack) and card != C.parse(head.card):
            self._wrong_feed_back(head, card)
            return
        self.places.step_done(head, card)
        if isinstance(head, Fetch) and self.presented is None:
            self._fetched(head)
        self._step_done()

    def _v1_step_done(self, head: V1Step) -> None:
        """A v1 step done while replaying a v1 journal: what the v1 referee showed."""
        due = head.args.get("expect")
        shown = C.parse(due) if isinstance(due, str) else None
        if head.op == "present" and shown is not None:
            self.presented = (head.args["seat"], shown)
            self._msg(f"{self._name(head.args['seat'])}: your card is {C.NAMES[shown]}", seat=head.args["seat"])
        elif head.op == "route_presented":
            self.presented = None
        elif head.op == "turn_up" and shown is not None:
            self.faceup = shown
            self._msg(f"Turned up: {C.NAMES[shown]}")
        elif head.op == "route_faceup":
            self.faceup = None

    def _show_stock(self) -> None:
        """German Whist: the turned-up card on the screen (it stays in the loop); spades-2p: the
        card in the first player's pocket after the deal."""
        g = self._g()
        pos = self.stock_pos
        if g.GAME_ID == "german-whist":
            self.faceup = g.deck[pos] if g.phase == "play" and pos < len(g.deck) else None
            if self.faceup is not None:
                self._msg(f"Turned up: {C.NAMES[self.faceup]}")
        elif g.GAME_ID == "spades-2p" and g.phase == "draw" and g.to_move is not None and pos == 0:
            self.presented = (g.to_move, g.deck[0])
            self._msg(f"{self._name(g.to_move)}: your card is {C.NAMES[g.deck[0]]} (in your pocket)", seat=g.to_move)

    def _fetched(self, head: Fetch) -> None:
        """spades-2p: the card on offer reached the player's pocket: it is theirs to decide on."""
        g = self._g()
        if g.GAME_ID != "spades-2p" or g.phase != "draw" or not head.target.startswith("seat:"):
            return
        card, seat = C.parse(head.card), int(head.target[5:])
        if self.stock_pos < len(g.deck) and card == g.deck[self.stock_pos] and seat == g.to_move:
            self.presented = (seat, card)
            self._msg(f"{self._name(seat)}: your card is {C.NAMES[card]} (in your pocket)", seat=seat)

    def _wrong_feed_back(self, head: FeedBack, card: int | None) -> None:
        """The card fed back is not the one due (or could not be read): it goes where it
        belongs, and the dealer waits for the right one again."""
        seat, due = head.seat, head.card
        self.steps.pop(0)
        again: list[DealerCommand] = []
        if card is None:
            self._refuse(seat, f"{self._name(seat)}: the card fed back could not be read; it went to the reject "
                               f"pocket: take it and feed it back again")
        else:
            self._refuse(seat, f"{self._name(seat)}: that is not the card to feed back; it goes back",
                         secret=f"{self._name(seat)}: {C.NAMES[card]} is not the card to feed back ({due}): "
                                f"it goes back")
            parked = card in self.places.at.get("loop", [])  # a loop card came out instead: it goes back in
            self._to_gate(card, seat)
            again.append(RouteFed(C.NAMES[card], flows.PARK if parked else self._home(card, seat)))
        again.append(FeedBack(seat, due, head.target))
        numbered = []
        for step in again:
            numbered.append(dataclasses.replace(step, step=self.next_step))
            self.next_step += 1
        self.steps[:0] = numbered
        if self.dealer_fault is None:
            self._out.append(self.steps[0])

    def _on_dealer_fault(self, ev: DealerFault) -> None:
        head = self.steps[0] if self.steps else None
        what = {
            "jam": "a card jammed",
            "link_down": "the dealer's cable is unplugged or the link is down",
            "timeout": "the dealer stopped answering",
            "mismatch": "the dealer's cards do not match the plan",
        }.get(ev.kind, "the dealer reported a fault")
        detail = _public_fault_words(ev.message)
        if detail and ev.kind == "jam" and "jam" in detail:
            what = detail  # "a card jammed at the reader stage": the driver's words say more
        elif detail:
            what = f"{what} ({detail})"
        if isinstance(head, DealPlan):
            after = ("Clear it and press Resume: the deal goes on; if the dealer lost the deal, "
                     "gather all the cards into it and the hand is redealt from the same deck order.")
        elif head is not None:
            after = "Clear it and press Resume: the step is done again."
        else:
            after = "Press Resume when it is back."
        self.dealer_fault = f"Dealer stopped: {what}. {after}"
        self._msg(self.dealer_fault, level="error")
        self._out.append(Sound("alarm"))

    def _on_dealer_ready(self, ev: DealerReady) -> None:
        if self.dealer_fault is None and not ev.redeal:
            return
        self.dealer_fault = None
        head = self.steps[0] if self.steps else None
        if head is None:
            self._msg("The dealer is back")
            self._prompt()
            return
        if isinstance(head, DealPlan) and (ev.redeal or self.deal_failed):
            self.steps.pop(0)
            rest = self.steps
            self.steps = []
            self._msg("Redealing the hand from the same deck order (the commitment stands)")
            self._start_deal()
            self.steps.extend(rest)
            return
        self._msg("The dealer is back: carrying on")
        self._out.append(head)

    # ------------------------------------------------------------------ entries
    def _entry_ok(self, seat: int | None) -> bool:
        """Common gate for player entries; refuses with the reason when the table is not ready."""
        g = self.game
        if g is None:
            self._refuse(None, "no game: start one first")
            return False
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < g.n):
            self._refuse(None, f"there is no seat {seat!r} at this table")
            return False
        if self.waiting == "over":
            self._refuse(seat, "the game is over")
            return False
        if self.waiting == "shuffle":
            self._refuse(seat, "wait: the next hand is being shuffled")
            return False
        if self.undo_pending is not None:
            self._refuse(seat, "answer the undo question first")
            return False
        if self.busy:
            self._refuse(seat, self.waiting_text())
            return False
        return True

    def _on_button(self, ev: Button) -> None:
        g = self.game
        if g is None or not (isinstance(ev.seat, int) and 0 <= ev.seat < g.n):
            self._refuse(None, f"a button on seat {ev.seat!r}, which is not at this table")
            return
        seat, b = ev.seat, ev.button
        if self.undo_pending is not None and self.undo_pending["seat"] in (seat, None):
            if b == "ok":
                self._on_undo_confirm(UndoConfirm())
                return
            if b == "minus":
                self._on_undo_cancel(UndoCancel())
                return
        if b == "ok_long":
            self._on_undo_request(UndoRequest(seat))
            return
        if b not in ("minus", "plus", "ok"):
            self._refuse(seat, f"unknown button {b!r}")
            return
        if not self._entry_ok(seat):
            return
        if seat not in g.turn_seats():
            self._refuse(seat, f"{self._name(seat)}: it is not your turn ({self.waiting_text()})")
            return
        phase = g.phase
        if phase == "draw":
            if b == "plus":
                self._take(seat, A.KEEP, "panel")
            elif b == "minus":
                self._take(seat, A.DISCARD, "panel")
            elif g.check(A.DOUBLE_NIL, seat) is None:
                self._take(seat, A.DOUBLE_NIL, "panel")
            else:
                self._refuse(seat, f"{self._name(seat)}: press + to keep the card shown, - to discard it")
            return
        if phase == "exchange":
            if b == "ok":
                self._finish_give(seat, "reader")
            else:
                self._refuse(seat, f"{self._name(seat)}: feed up to 3 cards to give, then press OK")
            return
        if phase == "pass":
            if b == "ok":
                self.claim = seat
                self._msg(f"{self._name(seat)} is feeding cards to pass")
            else:
                self._refuse(seat, f"{self._name(seat)}: feed your cards to pass through the reader")
            return
        choices = self._choices(seat)
        if not choices:
            self._refuse(seat, f"{self._name(seat)}: feed your card through the reader or tap it on the screen")
            return
        if b == "ok":
            if seat not in self.pending:
                self._refuse(seat, f"{self._name(seat)}: choose with - and +, then press OK")
                return
            action = choices[min(self.pending[seat], len(choices) - 1)]
            self._take(seat, action, "panel")
            return
        if seat not in self.pending:
            self.pending[seat] = panel.start_index(choices)
        else:
            step = 1 if b == "plus" else -1
            self.pending[seat] = max(0, min(len(choices) - 1, self.pending[seat] + step))
        self._msg(f"{self._name(seat)}: {panel.label(choices[self.pending[seat]])}?")

    def _on_touch(self, ev: Touch | BotAction) -> None:
        source = "bot" if isinstance(ev, BotAction) else "touch"
        if not self._entry_ok(ev.seat):
            return
        try:
            _, action = A.from_record({"seat": ev.seat, **ev.action}, "entry")
        except RecordError as e:
            self._refuse(ev.seat, f"{self._name(ev.seat)}: not an entry the table understands ({e})")
            return
        if action.kind == "exchange" and ev.seat in self.fed and self.fed[ev.seat]:
            self._refuse(ev.seat, f"{self._name(ev.seat)}: you are feeding the cards to give; press OK to finish")
            return
        self._take(ev.seat, action, source)

    def _on_card_read(self, ev: CardRead) -> None:
        g = self.game
        try:
            card = C.parse(ev.card)
        except ValueError:
            self._refuse(None, f"the reader could not read the card ({ev.card!r}): it went to the reject tray; feed it again")
            self._route_fed_any(None, "reject")
            return
        back = seat_target(ev.seat) if isinstance(ev.seat, int) and g is not None and 0 <= ev.seat < g.n else "reject"
        if not self._entry_ok(ev.seat if back != "reject" else None):
            self._route_fed(card, back, ev.seat)
            return
        g = self._g()
        phase = g.phase
        if phase == "pass":
            self._fed_pass(card, ev.seat)
        elif phase == "exchange":
            self._fed_give(card)
        elif phase == "play":
            self._fed_play(card)
        else:
            seat = g.to_move
            who = self._name(seat) if seat is not None else "the table"
            self._refuse(ev.seat, f"no card is wanted now: {who} must {_PHASE_WORDS.get(phase, 'act')}; "
                                  f"the card goes back", secret=f"{C.NAMES[card]} goes back")
            self._route_fed(card, self._home(card, ev.seat), ev.seat)

    def _route_fed_any(self, card: int | None, target: str) -> None:
        self._push(RouteFed(None if card is None else C.NAMES[card], target))

    def _holders(self, card: int, seats: list[int] | None = None) -> list[int]:
        """Seats holding ``card`` not yet fed (a two-deck card may be in two hands)."""
        g = self._g()
        out = []
        for s in (range(g.n) if seats is None else seats):
            have = Counter(g.hand_of(s))
            have.subtract(self.fed.get(s, []))
            if have[card] > 0:
                out.append(s)
        return out

    def _home(self, card: int, fed_by: int | None) -> str:
        holders = self._holders(card)
        if fed_by is not None and fed_by in holders:
            return seat_target(fed_by)
        if holders:
            return seat_target(holders[0])
        return "reject"

    def _not_held(self, card: int) -> str:
        """Why a card read is in nobody's hand, in words."""
        g = self._g()
        played = Counter(a.value for _, a in g.actions if a.kind == "play")
        name = C.NAMES[card]
        if played[card] >= g.DECKS:
            return f"duplicate read: {name} has already been played this hand"
        in_deck = Counter(g.deck)[card]
        if in_deck == 0:
            return f"{name} is not in this hand's deck"
        return f"{name} is not in anyone's hand (it is out of play this hand)"

    def _fed_play(self, card: int) -> None:
        g = self._g()
        seat = g.to_move
        assert seat is not None
        if card in g.hand_of(seat):
            reason = g.check(A.PLAY[card], seat)
            if reason is not None:
                self._refuse(seat, f"{self._name(seat)} cannot play that card: {reason}. Take the card back.",
                             secret=f"{self._name(seat)}: {C.NAMES[card]} cannot be played: {reason}")
                self._route_fed(card, seat_target(seat), seat)
                return
            self._route_fed(card, "trick", seat)  # first: the gate must be free for the steps after it
            self._take(seat, A.PLAY[card], "reader")
            return
        holders = self._holders(card)
        if holders:
            owner = holders[0]
            self._refuse(owner, f"a card of {self._name(owner)}'s was fed out of turn (it is {self._name(seat)}'s "
                                f"turn): it goes back to {self._name(owner)}",
                         secret=f"{self._name(owner)}: {C.NAMES[card]} was fed out of turn and goes back to you")
            self._route_fed(card, seat_target(owner), owner)
            return
        self._refuse(None, f"{self._not_held(card)}: it went to the reject tray")
        self._route_fed(card, "reject")

    def _fed_pass(self, card: int, fed_by: int | None) -> None:
        g = self._g()
        passing = list(g.turn_seats())
        if fed_by is not None and fed_by in passing:
            seat: int | None = fed_by if fed_by in self._holders(card, [fed_by]) else None
            if seat is None:
                self._refuse(fed_by, f"{self._name(fed_by)} does not hold {C.NAMES[card]}: it goes back", private=True)
                self._route_fed(card, self._home(card, fed_by), fed_by)
                return
        else:
            holders = self._holders(card, passing)
            mid = [s for s in holders if self.fed.get(s)]
            if self.claim in holders:
                seat = self.claim
            elif len(mid) == 1:
                seat = mid[0]
            elif len(holders) == 1:
                seat = holders[0]
            elif holders:
                self._refuse(None, "the card fed to pass is in more than one hand: press OK on your panel "
                                   "before feeding; the card went to the reject tray")
                self._route_fed(card, "reject")
                return
            else:
                others = self._holders(card)
                if others:
                    self._refuse(others[0], f"{self._name(others[0])} has already passed: {C.NAMES[card]} goes back",
                                 private=True)
                    self._route_fed(card, seat_target(others[0]), others[0])
                else:
                    self._refuse(None, f"{self._not_held(card)}: it went to the reject tray")
                    self._route_fed(card, "reject")
                return
        assert seat is not None
        need = self._pass_need(seat)
        fed = self.fed.setdefault(seat, [])
        fed.append(card)
        self._route_fed(card, flows.PARK, seat)
        self._msg(f"{self._name(seat)}: {C.NAMES[card]} to pass ({len(fed)} of {need})", seat=seat)
        if len(fed) >= need:
            self.claim = None if self.claim == seat else self.claim
            self._take(seat, A.pass_cards(fed), "reader")

    def _pass_need(self, seat: int) -> int:
        """Cards one pass takes: 2 for partnership-spades' Blind Nil exchange, else 3."""
        return flows.PASS_COUNT.get(self._g().GAME_ID, 3)

    def _fed_give(self, card: int) -> None:
        g = self._g()
        seat = g.to_move
        assert seat is not None
        if not self._holders(card, [seat]):
            holders = self._holders(card)
            why = "is not in your hand" if not holders else f"is {self._name(holders[0])}'s card"
            self._refuse(seat, f"{self._name(seat)}: {C.NAMES[card]} {why}; it goes back", private=True)
            self._route_fed(card, self._home(card, seat), seat)
            return
        fed = self.fed.setdefault(seat, [])
        fed.append(card)
        self._route_fed(card, flows.PARK if self.dealer_version == 1 else "discard", seat)
        self._msg(f"{self._name(seat)}: {C.NAMES[card]} to give ({len(fed)} of up to 3)", seat=seat)
        if len(fed) >= 3:
            self._finish_give(seat, "reader")

    def _finish_give(self, seat: int, source: str) -> None:
        give = self.fed.get(seat, [])
        self._take(seat, A.exchange(give, []), source)

    # ------------------------------------------------------------------ taking an action
    def _take(self, seat: int, action: A.Action, source: str) -> bool:
        """Check and apply one action; then its physical consequences. False if refused."""
        g = self._g()
        hand_index = g.hand_number - 1
        if action.kind == "exchange":
            give = action.value[0]
            pool = fairness.discard_pool(g)
            get = fairness.replacements(self.fair[hand_index]["salt"], hand_index, seat, pool, len(give))
            action = A.Action("exchange", (tuple(give), get))
        reason = g.check(action, seat)
        if reason is not None:
            hidden = action.kind in ("pass", "exchange")
            if action.kind == "play":
                self._refuse(seat, f"{self._name(seat)} cannot play that card: {reason}",
                             secret=f"{self._name(seat)} cannot {action.describe()}: {reason}")
            else:
                self._refuse(seat, f"{self._name(seat)} cannot {action.describe()}: {reason}", private=hidden)
            if hidden and source == "reader":
                fed = self.fed.pop(seat, [])
                if action.kind == "exchange" and self.dealer_version != 1:  # fed to the discard pocket
                    for c in fed:
                        self.places.move(c, "discard", seat_target(seat))
                    if fed:
                        self._msg(f"{self._name(seat)}: take the {len(fed)} card(s) you fed back from the discard "
                                  f"pocket", seat=seat)
                else:  # parked in the loop: fetched back to the seat
                    for c in fed:
                        self._push(Fetch(C.NAMES[c], seat_target(seat)))
            return False
        before = [list(g.hand_of(s)) for s in range(g.n)]
        if action.kind == "pass" and self.pass_snap is None:
            self.pass_snap = before
        pos = self.stock_pos
        try:
            g.apply(action, seat)
        except IllegalAction as e:  # check() said yes; keep the table safe anyway
            self._refuse(seat, str(e))
            return False
        self.sources.append(source)
        self.blocked.append(None)
        self.pending.pop(seat, None)
        self.blinking = []
        self._announce(seat, action)
        kind = action.kind
        if source != "reader":  # cards players move by hand
            if kind == "play":
                self.places.move(action.value, seat_target(seat), "trick")
            elif kind == "exchange":
                for c in action.value[0]:
                    self.places.move(c, seat_target(seat), "discard")
        if kind == "draw":
            self.blocked[-1] = "the drawn cards have already been routed"
            nxt = g.to_move if g.phase == "draw" else None
            keep = action.value == "keep"
            self.presented = None
            if self.dealer_version == 1:
                steps = legacy.draw_steps(g.deck, pos, seat, keep, nxt)
            else:
                steps = flows.draw_steps(g.deck, pos, seat, keep, nxt, flows.discard_target(g))
                due = g.deck[pos + 1] if keep else g.deck[pos]
                self._msg(f"{self._name(seat)}: " + (f"your second card {C.NAMES[due]} comes to your pocket: look at "
                                                      f"it and feed it back" if keep else
                                                      f"feed {C.NAMES[due]} back; you keep the card that comes to "
                                                      f"your pocket") + " (the discards)", seat=seat)
            for step in steps:
                self._push(step)
            self.stock_pos = pos + 2
        elif kind == "exchange":
            self.blocked[-1] = "the exchanged cards have already been routed"
            give, get = action.value
            fed = self.fed.pop(seat, [])
            if self.dealer_version == 1:
                for step in legacy.exchange_steps(seat, get, fed):
                    self._push(step)
            else:  # the replacements come out of the loop; the fed cards are in the discard pocket
                for c in get:
                    self._push(Fetch(C.NAMES[c], seat_target(seat)))
            if source != "reader" and give:
                self._msg(f"{self._name(seat)}: put the {len(give)} card(s) you gave in the discard pocket", seat=seat)
            self._msg(f"{self._name(seat)}: your replacements are {' '.join(C.names(get)) or 'none'}", seat=seat)
        elif kind == "pass":
            self.given[seat] = (action.value, source)
            self.fed.pop(seat, None)
            if source == "reader":
                self.blocked[-1] = "the passed cards are in the dealer"
            if g.phase != "pass":
                self._release_passes()
        elif kind == "play" and g.GAME_ID == "german-whist":
            after = [list(g.hand_of(s)) for s in range(g.n)]
            got = [flows.gained(before[s], after[s], [action.value] if s == seat else []) for s in range(g.n)]
            if any(got):
                winner = next((s for s in range(g.n) if g.deck[pos] in got[s]), 0)
                loser = 1 - winner
                if self.dealer_version == 1:
                    steps = legacy.whist_steps(g.deck, pos, winner, loser)
                else:
                    steps = flows.whist_steps(g.deck, pos, winner, loser)
                for step in steps:
                    self._push(step)
                self.stock_pos = pos + 2
                if self.dealer_version != 1:
                    self._show_stock()
                self.blocked[-1] = "the stock cards have been drawn"
        if g.phase in ("deal", "over"):
            self._end_of_hand()
        elif not self.busy:
            self._prompt()
        return True

    def _announce(self, seat: int, action: A.Action) -> None:
        name = self._name(seat)
        k = action.kind
        if k == "pass":
            self._msg(f"{name} has passed")
        elif k == "exchange":
            self._msg(f"{name} exchanged {len(action.value[0])} card(s)")
        elif k == "draw":
            self._msg(f"{name} drew")
        else:
            self._msg(f"{name}: {action.describe()}")

    def _release_passes(self) -> None:
        """Everyone has passed: the fed cards parked in the loop go to their receivers' pockets in
        one Release (a v1 game: one fetch per card, as the v1 referee did)."""
        g = self._g()
        snap = self.pass_snap or [list(g.hand_of(s)) for s in range(g.n)]
        after = [list(g.hand_of(s)) for s in range(g.n)]
        given = {s: tuple(v[0]) for s, v in self.given.items()}
        moves = flows.pass_moves(snap, after, given)
        parked: list[tuple[int, int]] = []
        for giver, (cards, source) in sorted(self.given.items()):
            to = moves.get(giver)
            if to is None:
                continue
            if source == "reader":
                parked += [(c, to) for c in cards]
            else:
                for c in cards:
                    self.places.move(c, seat_target(giver), seat_target(to))
                self._msg(f"{self._name(giver)}: hand your passed cards face down to {self._name(to)}", seat=giver)
        if parked and self.dealer_version == 1:
            for step in legacy.release_steps(parked):
                self._push(step)
        elif parked:
            self._push(Release(tuple((C.NAMES[c], seat_target(to)) for c, to in parked)))
        if self.blocked:
            self.blocked[-1] = "the passed cards have been handed over"
        self._msg("Everyone has passed: pick up the cards you received")
        self.pass_snap = None
        self.given = {}
        self.claim = None

    def _prompt(self) -> None:
        g = self.game
        if g is None or self.waiting != "turn":
            return
        self._msg(self.waiting_text())

    def _end_of_hand(self) -> None:
        g = self._g()
        h = g.hand_number - 1
        f = self.fair[h]
        f["revealed"] = "yes"
        row = g.hand_results[-1] if g.hand_results else {"points": [], "totals": []}
        pts = ", ".join(f"{g.names[s]} {p:+d}" for s, p in enumerate(row["points"]))
        self._msg(f"Hand {g.hand_number} over: {pts}")
        self._out.append(ShowCommitment(g.hand_number, fairness.short(f["commitment"]), f["commitment"], f["salt"]))
        self.pending.clear()
        self.presented = None
        self.faceup = None
        self._finish_or_next()

    def _finish_or_next(self) -> None:
        g = self._g()
        if g.over:
            self.waiting = "over"
            names = " and ".join(g.names[w] for w in g.winners)
            self._msg(f"Game over: {names} {'win' if len(g.winners) > 1 else 'wins'}")
            self._out.append(Sound("game_over"))
            self._out.append(SaveRecord(self.record(), True))
        else:
            self._out.append(SaveRecord(self.record(), False))
            self._ask_shuffle()

    # ------------------------------------------------------------------ undo
    def _on_undo_request(self, ev: UndoRequest) -> None:
        g = self.game
        if g is None or self.waiting != "turn":
            self._refuse(ev.seat, "nothing to undo now")
            return
        if self.undo_pending is not None:
            self._refuse(ev.seat, "an undo is already waiting for confirmation")
            return
        if self.busy:
            self._refuse(ev.seat, self.waiting_text())
            return
        if not g.actions:
            self._refuse(ev.seat, "nothing to undo in this hand")
            return
        last_seat, last = g.actions[-1]
        if ev.seat is not None and ev.seat != last_seat:
            self._refuse(ev.seat, f"the last entry was {self._name(last_seat)}'s ({public_words(last)}), not "
                                  f"{self._name(ev.seat)}'s")
            return
        why = self.blocked[-1] if self.blocked else None
        if why is not None:
            self._refuse(ev.seat, f"cannot undo {self._name(last_seat)}'s {public_words(last)}: {why}")
            return
        text = f"Undo {self._name(last_seat)}'s {public_words(last)}?"
        self.undo_pending = {"seat": ev.seat, "text": text}
        self._out.append(AskConfirm("undo", text, ev.seat))
        self._msg(text)

    def _on_undo_confirm(self, ev: UndoConfirm) -> None:
        g = self.game
        if g is None or self.undo_pending is None:
            self._refuse(None, "no undo is waiting for confirmation")
            return
        self.undo_pending = None
        seat, last = g.actions[-1]
        source = self.sources.pop() if self.sources else "touch"
        if self.blocked:
            self.blocked.pop()
        g.undo()
        for c in self.corrections:
            if c.get("during_hand") == g.hand_number:
                self._apply_correction_points(c["seat"], c["points"])
        if last.kind == "pass":
            self.given.pop(seat, None)
            if not self.given:
                self.pass_snap = None
        self.pending.pop(seat, None)
        self._msg(f"Undone: {self._name(seat)}'s {public_words(last)}")
        if last.kind == "play":
            self.places.move(last.value, "trick", seat_target(seat))
        if last.kind == "play" and source == "reader":
            self._msg(f"{self._name(seat)}: take {C.NAMES[last.value]} back from the trick tray")
        self._prompt()

    def _on_undo_cancel(self, ev: UndoCancel) -> None:
        if self.undo_pending is None:
            return
        self.undo_pending = None
        self._msg("Undo cancelled")
        self._prompt()

    # ------------------------------------------------------------------ score corrections
    def _apply_correction_points(self, seat: int, points: int) -> None:
        self._g().correct(seat, points, recheck_end=False)  # the referee checks game end itself

    def _on_correction(self, ev: ScoreCorrection) -> None:
        g = self.game
        if g is None:
            self._refuse(None, "no game to correct")
            return
        if not (isinstance(ev.seat, int) and 0 <= ev.seat < g.n) or isinstance(ev.points, bool) \
                or not isinstance(ev.points, int) or ev.points == 0:
            self._refuse(None, f"a correction names a seat of this table and a non-zero whole number of points, "
                               f"not seat {ev.seat!r}, {ev.points!r} points")
            return
        between = g.phase in ("deal", "over")
        entry = {
            "after_hand": len(g.hand_results),
            "seat": ev.seat,
            "points": ev.points,
            "reason": ev.reason,
            "by": ev.by,
        }
        if not between:
            entry["during_hand"] = g.hand_number
        self.corrections.append(entry)
        self._apply_correction_points(ev.seat, ev.points)
        self._msg(f"Score correction by {ev.by}: {self._name(ev.seat)} {ev.points:+d}"
                  + (f" ({ev.reason})" if ev.reason else ""), level="warn")
        if between and g.hand_number:
            was_over = g.over
            over, winners = g._game_end()
            g.over, g.winners = over, winners
            g.phase = "over" if over else "deal"
            if over != was_over:
                if over:
                    self._finish_or_next()
                else:
                    self._msg("The correction reopens the game: another hand is played")
                    self._finish_or_next()
            else:
                self._out.append(SaveRecord(self.record(), over))

_HANDLERS: dict[type, Any] = {
    NewGame: Referee._on_new_game,
    Shuffled: Referee._on_shuffled,
    Button: Referee._on_button,
    CardRead: Referee._on_card_read,
    Touch: Referee._on_touch,
    BotAction: Referee._on_touch,
    DealDone: Referee._on_deal_done,
    DealerDone: Referee._on_dealer_done,
    DealerFault: Referee._on_dealer_fault,
    DealerReady: Referee._on_dealer_ready,
    UndoRequest: Referee._on_undo_request,
    UndoConfirm: Referee._on_undo_confirm,
    UndoCancel: Referee._on_undo_cancel,
    ScoreCorrection: Referee._on_correction,
}
