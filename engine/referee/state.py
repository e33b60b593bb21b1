"""What a referee holds: every attribute (``RefereeState.__init__``), the game it referees
and whether the table is busy. The handling is in referee.py, the views in views.py."""

from __future__ import annotations

from typing import Any

from ..base import GameState
from .commands import Command, DealerCommand, DealPlan
from .events import (
    Event,
)
from .places import Places

MESSAGES_KEPT = 12


class RefereeState:
    """The state of one table's referee; ``Referee`` adds the handling of events."""

    def __init__(self) -> None:
        self.game: GameState | None = None
        self.bots: tuple[int, ...] = ()
        # bot seats whose cards live in the dealer's return loop (NewGame.bot_hands "loop"): dealt
        # there, fetched to the trick pocket when played, passed to and from inside the loop
        self.loop_bots: tuple[int, ...] = ()
        self.waiting: str = "new_game"  # new_game | shuffle | deal | turn | over
        # per hand dealt: commitment and salt; at its end also "revealed", its "points" and the
        # "chain" head of the plays through it (chain.py)
        self.fair: list[dict[str, Any]] = []
        self.steps: list[DealerCommand] = []  # pending dealer steps; the first is outstanding
        self.next_step: int = 1
        self.deal_id: int = 0
        self.deal_failed: bool = False
        # the hand's last failed deal check (its problems), and whether the deal failed twice in
        # a row the same way: then redealing cannot help and the table says so instead
        self.deal_failure: tuple[str, ...] | None = None
        self.deal_stuck: bool = False
        # a deal whose only difference from its plan was cards the reader could not read (sent
        # to the reject pocket): the plan entries still to deal (the people put those cards back
        # on the hopper and press Resume, and a deal of just these finishes it), and the whole
        # hand's deal plan, for the places of every card once they are dealt
        self.deal_unread: tuple[tuple[str, str], ...] = ()
        self.deal_whole: DealPlan | None = None
        self.dealer_fault: str | None = None
        # the kind of the fault (events.FAULT_KINDS, or "mismatch" for a deal that did not check
        # out): a link that is down clears by itself when the dealer answers again
        self.dealer_fault_kind: str | None = None
        # how many entries of the dealer's reject-pocket ledger (since the hand's deal) the table
        # has accounted for (DealerMoved): a restarted host reports only the newer ones
        self.rejects_seen: int = 0
        # cards the table's own steps sent to the reject pocket (a RouteFed to "reject": a card
        # nobody may pass, one of two hands fed to pass without OK) whose ledger entry no
        # DealerMoved has named yet: when one does, the model has the card there already (with
        # two decks, looking for it elsewhere found its twin in a player's hand)
        self.own_rejects: list[int] = []
        # those RouteFed steps (by number) whose card two seats may each have fed (fed to pass
        # without OK, both holding a copy): the model took the first seat's copy; when the card
        # lies in the reject pocket it goes back there and both are told (steps._twin_rejected)
        self.twin_rejects: dict[int, tuple[int, ...]] = {}
        self.messages: list[dict[str, Any]] = []
        # per message: the index in ``_history`` of the event it was said in (set once, when it
        # is said: a message dict is never changed after; ui.letters finds where a rebuilt
        # referee's words were said through ``event_places``)
        self.message_events: list[int] = []
        self.pending: dict[int, int] = {}  # seat -> index into its panel choices
        self.fed: dict[int, list[int]] = {}  # seat -> cards fed for a pass or a give (staging)
        self.claim: int | None = None  # a seat that pressed OK to say "I am feeding now"
        self.pass_snap: list[list[int]] | None = None
        self.given: dict[int, tuple[tuple[int, ...], str]] = {}  # pass stage: seat -> (cards, source)
        self.sources: list[str] = []  # per action of the hand in progress
        self.blocked: list[str | None] = []  # per action: why it cannot be undone (None: it can)
        self.undo_pending: dict[str, Any] | None = None
        self.corrections: list[dict[str, Any]] = []
        self.hand_corrections: list[dict[str, Any]] = []  # earlier hands corrected (HandCorrection)
        self.leds: list[str] = []
        self.blinking: list[int] = []  # seats whose LED blinks after a refused entry
        self.stock_pos: int = 0  # spades-2p: next card shown; German Whist: the face-up card
        self.presented: tuple[int, int] | None = None  # spades-2p: (seat, card) in that seat's pocket to decide on
        self.faceup: int | None = None  # German Whist: the turned-up card, on the screen (it stays in the loop)
        self.dealer_version: int = 2  # the game's dealer steps: 2, or 1 for a game journaled with the v1 steps
        self.places = Places()  # where the cards physically are (updated as steps complete)
        self.events_handled: int = 0
        # cards the dealer reported dealt in the deal in progress: fed by the host from the
        # dealer's progress events (``note_dealt``), for the kiosk's progress bar; not an event,
        # not journaled, not compared (a replay starts the count again)
        self.deal_progress: int = 0
        self._out: list[Command] = []
        self._record_cache: list[dict[str, Any]] = []
        # the events handled since the last NewGame reset: what rebuilds the state if a
        # handler fails part way (see ``handle``); not compared (it is the same on a replay)
        self._history: list[Event] = []
        # per event of ``_history``: (hand number, entries of that hand) once it was taken
        self.event_places: list[tuple[int, int]] = []


    @property
    def busy(self) -> bool:
        """True while a dealer step that gates the table is pending (or the dealer is down)."""
        return self.dealer_fault is not None or any(s.GATES for s in self.steps)

    def accepting(self) -> bool:
        """True when the table takes entries (a hand is in play and the dealer is not busy)."""
        return self.waiting == "turn" and not self.busy and self.undo_pending is None

    def bot_turns(self) -> list[int]:
        """Bot seats the host should ask for an action now."""
        if self.game is None or not self.accepting():
            return []
        return [s for s in self.game.turn_seats() if s in self.bots]

    def _g(self) -> GameState:
        if self.game is None:
            raise RuntimeError("no game")
        return self.game

