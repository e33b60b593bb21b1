"""The table referee: a pure state machine from table events to commands.

``Referee.handle(event)`` takes one event (events.py) and returns the commands (commands.py)
the host must carry out; there is no I/O, thread or clock here, so feeding the same events to a
fresh Referee rebuilds exactly the same state (that is how the journal resumes a game after a
power cut). The rules are the engine's (``GameState``); the referee adds the table:

- Hands. ``NeedShuffle`` -> ``Shuffled`` (deck order + secret salt) -> the commitment is shown
  -> the deal plan goes to the dealer -> nobody acts until the dealer reports a verified deal.
- Dealer steps run one at a time (``DealerCommand(step=k)`` answered by ``DealerDone(k)``). A
  step that moves cards a player needs before acting "gates" the table: entries are refused
  ("wait: the dealer is ...") until it is done. Routing a played card to the trick pocket does not
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
  that belongs to nobody goes to the reject pocket).
- Undo takes back the last entry of the hand in progress after a confirmation, unless cards
  have physically moved because of it (a spades-2p draw, a Double Nil exchange, passes fed
  through the reader, a German Whist stage-one trick that drew from the stock).
- Score corrections are admin entries: recorded with their reason, shown on the score sheet,
  written in the record's ``corrections``, and added to the totals (between hands they can end
  the game).
- Hand corrections are admin entries too: an earlier hand's figures (bids and tricks, hearts
  and Q♠...) corrected with when and why; the plays stay as played, the hand and every
  total after it are scored again (engine.scorekeeper.rescore_game), the record carries them in
  ``hand_corrections``; between hands they can end the game or reopen it.
"""

from __future__ import annotations

import logging
from typing import Any

from ..base import check_deck
from ..errors import RecordError
from ..games import GAME_IDS, new_game
from . import fairness, flows
from .commands import AskConfirm, Command, Led, Message, NeedShuffle, ShowCommitment
from .entries import Entries
from .events import (
    BotAction,
    Button,
    CardRead,
    DealDone,
    DealerDone,
    DealerFault,
    DealerMoved,
    DealerReady,
    Event,
    HandCorrection,
    NewGame,
    ScoreCorrection,
    Shuffled,
    Touch,
    UndoCancel,
    UndoConfirm,
    UndoRequest,
)
from .fault_words import deal_problem_counts

__all__ = ["Referee", "deal_problem_counts"]

_log = logging.getLogger("trickref.referee")


class Referee(Entries):
    """One table's referee. Build it empty, then feed events (the first is NewGame). The handling
    is layered: output.py (messages, LEDs), steps.py (dealer steps), taking.py (actions),
    undo.py (undo, corrections), entries.py (buttons, touches, cards read); this module keeps the
    API, new games and shuffles, and the event dispatch."""

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
        self.event_places.append(self._place())
        out, self._out = self._out, []
        return out

    def said_where(self, i: int) -> tuple[int, int]:
        """Where the game stood once the event that said ``messages[i]`` was taken: (hand
        number, entries of that hand); for words said outside an event, where it stands now."""
        ev = self.message_events[i]
        return self.event_places[ev] if ev < len(self.event_places) else self._place()

    def _place(self) -> tuple[int, int]:
        """Where the game stands now: (hand number, entries of that hand)."""
        g = self.game
        return (int(g.hand_number), len(g.actions)) if g is not None else (0, 0)

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
        skip = ("_out", "_record_cache", "deal_progress", "_history", "event_places")
        a = {k: v for k, v in self.__dict__.items() if k not in skip}
        b = {k: v for k, v in other.__dict__.items() if k not in skip}
        return a == b

    __hash__ = None  # type: ignore[assignment]

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
        bot_hands = getattr(ev, "bot_hands", "pocket")
        why = flows.loop_bots_refused(g, bot_hands, ev.bots, ev.dealer)
        if why is not None:
            self._refuse(None, f"cannot start {ev.game}: {why}")
            return
        self.__init__()  # type: ignore[misc]
        self.events_handled = 1
        self.game = g
        self.dealer_version = 1 if ev.dealer == 1 else 2
        self.bots = tuple(sorted(set(ev.bots)))
        self.loop_bots = self.bots if bot_hands == "loop" else ()
        self.leds = ["off"] * g.n
        self._msg(f"New game: {g.TITLE or g.GAME_ID}, {', '.join(g.names)}")
        self._ask_shuffle()

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
        if g.DOUBLE_NIL_EXCHANGE and ev.exchange != fairness.EXCHANGE_V1:
            # Double Nil replacements: places in the pile, fixed by the salt (none: exchange/1)
            self.fair[-1]["exchange"] = ev.exchange
        g.start_hand(deck)
        self._reset_hand_table()
        self.deal_failure, self.deal_stuck = None, False
        self.deal_unread, self.deal_whole = (), None
        hand = g.hand_number
        self.waiting = "deal"
        self._out.append(ShowCommitment(hand, fairness.short(full), full))
        self._msg(f"Hand {hand}: deck commitment {fairness.short(full)} (checkable after the hand)")
        self._start_deal()

    def _reset_hand_table(self) -> None:
        self.rejects_seen = 0  # the hand's deal starts the dealer's reject-pocket ledger again
        self.own_rejects = []
        self.twin_rejects = {}
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
        self.stock_pos = flows.first_stock(self._g())


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
    DealerMoved: Referee._on_dealer_moved,
    DealerReady: Referee._on_dealer_ready,
    UndoRequest: Referee._on_undo_request,
    UndoConfirm: Referee._on_undo_confirm,
    UndoCancel: Referee._on_undo_cancel,
    ScoreCorrection: Referee._on_correction,
    HandCorrection: Referee._on_hand_correction,
}
