"""The table host: one inbox, one worker that owns the referee, and the ports it drives.

Everything that happens at the table becomes an event posted to the host's inbox (``post``, safe
from any thread): a panel press (gpiozero's thread), a card read by the dealer's reader and every
dealer outcome (the dealer port's thread), a tap on the kiosk (``call``: the UI thread, which waits
for the referee's answer). One worker thread takes the events in order and, for each one:

1. appends it to the journal and fsyncs it (``device.journal``): durable before anything acts;
2. hands it to ``Referee.handle`` (under ``lock``, so readers see one consistent state);
3. carries out the commands: LEDs to the panels, dealer steps to the dealer port (whose outcome
   comes back later as an event), the game record to the games folder, the shuffle when the next
   hand may be dealt.

Nothing else touches the referee, so there is no lock order to get wrong: the panels' callback
only appends to the inbox. The ports differ by mode (``device.table.open.open_table``):

- ``SerialDealer``: the real ``device.dealer.driver.Dealer`` driver on a serial port (the Pi's USB
  cable, or whatever serial device stands for it), with its own thread: steps run one at a time there, and
  whenever the referee wants cards from players and no step is pending, the port reads fed cards
  (``DealerAdapter.read_fed``: FEED with HOLD), posting a ``CardRead`` for each (the reader loop).
  A card that could not be read is posted as an unreadable ``CardRead`` (the referee says why).
- ``IdealDealer``: the one in-process ideal dealer (every step done at once,
  ``engine.referee.autotable.ideal_outcome``): tests and staged screenshots.

``drain()`` waits until the worker and the dealer port have nothing left to do (a reader waiting
for a card to be fed counts as idle): tests wait on it instead of sleeping.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from trickref.device.dealer import messages as m
from trickref.device.dealer.driver import Dealer
from trickref.device.dealer.errors import (
    DealerError,
    DealerJam,
    DealerLinkDown,
    DealerStalled,
    DealerTimeout,
)
from trickref.device.dealer.errors import DealerFault as DriverFault
from trickref.device.journal import JournalWriteError
from trickref.device.table.dealers import DealerAdapter, LoopCardsMissing, PlaySlotAsk
from trickref.device.table.storage import StorageFault, storage_fault
from trickref.engine import cards as C
from trickref.engine.referee.autotable import ideal_outcome
from trickref.engine.referee.commands import (
    Command,
    DealerCommand,
    DealPlan,
    FeedBack,
    Led,
    Message,
    NeedShuffle,
    Refusal,
    SaveRecord,
    Sound,
    TakeBack,
)
from trickref.engine.referee.events import (
    Button,
    CardRead,
    DealerFault,
    DealerReady,
    Event,
    HandCorrection,
    ScoreCorrection,
    Shuffled,
    event_from_json,
    make_shuffle,
)
from trickref.engine.referee.fault_words import UNREAD_DEAL_WORDS
from trickref.engine.referee.referee import Referee

UNREADABLE = "unreadable"  # the CardRead.card of a card the reader could not read
ABORT_RECHECK_S = 0.2  # a read asked to stop that still waits after this is stopped again
BUSY_RETRY_S = 0.05  # the dealer still stopping a feed when the next read asks: wait this long


def shuffle_for(seed: int | None, hand_index: int, decks: int) -> Shuffled:
    """The hand's shuffle: from ``secrets`` without a seed, else reproducible per hand."""
    if seed is None:
        return make_shuffle(decks)
    return make_shuffle(decks, random.Random(f"trickref-sim/{seed}/shuffle/{hand_index}"))


@dataclass(frozen=True)
class PortDone:
    """The dealer port finished a job (``kind``: "step" or "job" the host counted, "read", or
    "free": a job of the port's own), or (``"feeding"``) its step now waits for a person to feed
    a card back; not an event."""

    kind: str


def relearn_unheard(adapter: DealerAdapter, error: BaseException | None) -> DealerFault:
    """The table stops for a restart's relearning the dealer did not hear (a slow restart: a
    starved host's write timed out), before anybody is told to feed a card; the host tries again
    at once (a ``LinkBack`` follows it) and whenever the link comes back, and Resume does too."""
    kind = "fault" if isinstance(error, DriverFault) else "link_down"
    why = f": {error}" if error is not None else ""
    return DealerFault(kind, f"the dealer has not taken back the {len(adapter.relearn or [])} card(s) parked in its "
                             f"loop since the table restarted{why}", None)


_BUSY = object()  # SerialDealer._read: the dealer is still stopping the last feed (asked again)


@dataclass(frozen=True)
class LinkBack:
    """The dealer answers again after its link was down (not an event: the host then presses
    Resume by itself when the table stopped for the link)."""


@dataclass(frozen=True)
class Progress:
    """Cards dealt so far in the deal in progress (progress bar only; not journaled)."""

    count: int


class Post(Protocol):
    def __call__(self, item: Any) -> None: ...


class DealerPort(Protocol):
    """What the host needs from a dealer. Every method returns at once; outcomes are posted."""

    reads: bool  # whether it has a card reader players feed

    def start(self, post: Post) -> None: ...
    def run(self, cmd: DealerCommand) -> None: ...
    def read(self) -> None: ...
    def stop_read(self) -> None: ...
    def recover(self, fault: str, dealing: bool) -> None: ...
    def before_shuffle(self) -> None: ...
    def close(self) -> None: ...
    def waiting_for_person(self) -> bool: ...
    def link_up(self) -> bool: ...


class JournalPort(Protocol):
    count: int

    def append(self, obj: Any) -> None: ...
    def rotate(self, finished: Any = None) -> Any: ...
    def close(self) -> None: ...


class LedPort(Protocol):
    def set_led(self, seat: int, mode: str) -> None: ...


class People(Protocol):
    """The people at the table, told what the screen asks of them by hand. The host calls these
    on its threads as the screen says it; it does not know who answers. At a real table nobody
    needs telling in code (``people=None``): the screen says it, and people do it."""

    def gather(self) -> None:
        """The cards are gathered into the dealer's hopper (before a shuffle; a deal dealt again)."""

    def fix(self, fault: str) -> None:
        """"Fixed, continue" after ``fault`` (the screen's words): the jam cleared, the cable back
        in, the cards fed together put back on the hopper, the emergency stop twisted out."""

    def unread_to_hopper(self) -> None:
        """A deal's cards the reader could not read (the screen says how many) are in the reject
        pocket: every card there (with any the plan set aside there) is wiped and put on the
        dealer's hopper, to be dealt alone."""

    def to_play_slot(self, missing: list[tuple[int, int | None]], only_named: bool = False) -> None:
        """A hand-over of passed cards stopped: the cards the screen names (``missing``: each
        with its receiver, who looks for it in their own pocket), with the reject pocket's, the
        belt's and the read window's, go into the play slot. ``only_named``: loop cards the
        dealer lost track of after it restarted: only the cards named go in (found in the
        receiver's pocket, on the belt, in the read window or the reject pocket)."""

    def feed_back(self, card: int, seat: int | None) -> None:
        """The player at ``seat`` feeds ``card`` (drawn, not kept) back into the play slot."""

    def take_back(self, cmd: TakeBack) -> None:
        """The screen's ``TakeBack``: a card from one pocket into another, by hand."""

    def moved(self, event: Event, before: dict[str, Any], after: dict[str, Any]) -> None:
        """A card moved on the screen (played by a tap or a bot, passed) is moved on the table by
        hand: ``before``/``after`` are the referee's places around ``event``."""


class SpeakerPort(Protocol):
    """Where the table's sounds come out (the kiosk's speaker): called on the host's worker."""

    def play(self, name: str) -> None: ...


class IdealDealer:
    """The ideal dealer: every step done at once, exactly as planned. No reader."""

    reads = False

    def __init__(self) -> None:
        self.post: Post | None = None

    def start(self, post: Post) -> None:
        self.post = post

    def _post(self, item: Any) -> None:
        assert self.post is not None, "start() first"
        self.post(item)

    def run(self, cmd: DealerCommand) -> None:
        self._post(ideal_outcome(cmd))
        self._post(PortDone("step"))

    def read(self) -> None:
        self._post(PortDone("read"))

    def stop_read(self) -> None:
        pass

    def recover(self, fault: str, dealing: bool) -> None:
        self._post(DealerReady(False))
        self._post(PortDone("step"))

    def before_shuffle(self) -> None:
        pass

    def close(self) -> None:
        pass

    def waiting_for_person(self) -> bool:
        return False

    def link_up(self) -> bool:
        return True  # in-process: no link to lose


class SerialDealer:
    """The Dealer driver behind its own thread: referee steps, the reader loop, recovery.

    ``people``: told what the screen asks people to do by hand (gather the cards before a
    shuffle, clear a jam, plug the cable back in, feed a drawn card back); None at a real table."""

    reads = True

    def __init__(self, driver: Dealer, *, people: People | None = None) -> None:
        self.driver = driver
        self.people = people
        self.adapter = DealerAdapter(driver, refeed=people.feed_back if people is not None else None)
        self.adapter.on_reject = self._rejected
        self.post: Post | None = None
        self._jobs: deque[tuple[str, Any]] = deque()
        self._cond = threading.Condition()
        self._closing = False
        self._reading = False
        self._want_read = False
        self._cancel_read = False
        self._waiting = False  # inside the driver's read, waiting for a card to be fed
        self._aborted = False
        self._read_gen = 0
        # held from deciding to ABORT a waiting read until that ABORT is answered, and by the
        # port's thread to mark a read over: so an ABORT decided while the read still waited is
        # at the dealer before the port's next step starts, never in the middle of it (on a slow
        # host the second look at a stopped read came while the port was leaving it, and its
        # ABORT stopped the Fetch that followed: "refused FETCH: there is no card for it")
        self._abort_gate = threading.Lock()
        self._thread = threading.Thread(target=self._work, name="table-dealer", daemon=True)
        self._dealt = 0
        self._epoch = ""
        self._reconciling = False
        driver.add_listener(self._on_dealer_event)

    # ---------------------------------------------------------------- the host's side (worker)
    def start(self, post: Post) -> None:
        self.post = post
        self._thread.start()

    def run(self, cmd: DealerCommand) -> None:
        self._enqueue("step", cmd)

    def sync(self, epoch: str, rejects_seen: int, loop: list[int] | None = None) -> None:
        """The worker's view of the referee for the dealer's step ids and reconciliation: the
        hand's salt and the reject-pocket cards the referee has accounted for; ``loop``: the
        cards it has parked in the dealer's loop during a hand (None: not told)."""
        if loop is not None:
            self.adapter.loop_cards = loop
        self.adapter.epoch = epoch
        self.adapter.rejects_seen = max(self.adapter.rejects_seen, rejects_seen) if epoch == self._epoch else rejects_seen
        self._epoch = epoch

    def _rejected(self) -> None:
        """The reader thread: the dealer cleared a card to its reject pocket: find out which on
        the port's thread (after whatever it is doing) and tell the referee."""
        self._enqueue("reconcile", None, interrupt=False)

    def read(self) -> None:
        with self._cond:
            self._want_read = True
        self._enqueue("read", None)

    def stop_read(self) -> None:
        """Cards are no longer wanted: stop waiting for one (a read under way ends quietly)."""
        with self._cond:
            self._want_read = False
        self._interrupt()

    def recover(self, fault: str, dealing: bool) -> None:
        self._enqueue("recover", (fault, dealing))

    def call(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` on the dealer's thread (fault injection, moves by hand)."""
        self._enqueue("job", fn)

    def before_shuffle(self) -> None:
        if self.people is not None:  # the players gather the cards into the hopper
            self.people.gather()

    def waiting_for_person(self) -> bool:
        """A FeedBack step waits for a player to feed the drawn card back: the table is idle."""
        return self.adapter.feeding

    def link_up(self) -> bool:
        """The dealer answers on its link now (its ``LINK_UP`` told, or none needed)."""
        return self.driver.link.answering

    def quiet(self) -> bool:
        """No reconciliation queued or running (its DealerMoved may still come)."""
        with self._cond:
            return not self._reconciling and not any(k == "reconcile" for k, _ in self._jobs)

    def close(self) -> None:
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        try:
            self.driver.close()
        finally:
            if self._thread.is_alive() and self._thread is not threading.current_thread():
                self._thread.join(timeout=10)

    def _enqueue(self, kind: str, arg: Any, interrupt: bool = True) -> None:
        with self._cond:
            self._jobs.append((kind, arg))
            self._cond.notify_all()
        if kind != "read" and interrupt:  # a step is wanted: stop waiting for a fed card
            self._interrupt()

    def _interrupt(self) -> None:
        """Stop a read that is waiting for a fed card (only then: a card already read is held in
        the gate, and an ABORT would send it to the reject pocket)."""
        with self._cond:
            if self._reading:
                self._cancel_read = True
            interrupt = self._waiting and not self._aborted
            if interrupt:
                self._aborted = True
            gen = self._read_gen
        if interrupt:
            self._abort_read(gen)

    def _abort_read(self, gen: int) -> None:
        """ABORT the FEED a read waits on. The ABORT can overtake the FEED on the wire (then the
        dealer was idle and the FEED still starts): so look again a little later."""
        with self._abort_gate:
            with self._cond:
                if not (self._waiting and self._read_gen == gen) or self._closing:
                    return
            try:
                self.driver.abort()
            except (DealerError, ValueError, OSError):
                pass
        timer = threading.Timer(ABORT_RECHECK_S, self._abort_read, (gen,))
        timer.daemon = True
        timer.start()

    # ---------------------------------------------------------------- the port's thread
    def _post(self, item: Any) -> None:
        assert self.post is not None
        self.post(item)

    def _on_dealer_event(self, ev: Any) -> None:
        from trickref.device.dealer.types import EV_LINK_UP

        kind = getattr(ev, "kind", None)
        if kind == m.EV_CARD_DEALT and self.post is not None:
            self._dealt += 1
            self.post(Progress(self._dealt))
        elif kind == EV_LINK_UP and self.post is not None:
            self.post(LinkBack())

    def _work(self) -> None:
        while True:
            with self._cond:
                while not self._closing and not self._jobs:
                    self._cond.wait()
                if self._closing:
                    return
                kind, arg = self._jobs.popleft()
                self._reconciling = kind == "reconcile"
                if kind == "read":
                    if any(k != "read" for k, _ in self._jobs):
                        self._jobs.append((kind, arg))  # a step first; read afterwards
                        continue
                    self._reading, self._cancel_read = self._want_read, False
            try:
                if kind == "step":
                    self._step(arg)
                elif kind == "read":
                    if self._reading:
                        self._read()
                elif kind == "recover":
                    self._recover(*arg)
                elif kind == "reconcile":
                    self.adapter.check_rejects()
                else:
                    arg()
                self._post_moved()
            except Exception as e:  # noqa: BLE001 - a driver bug must reach the screen, not kill the thread
                if self._closing:
                    return
                self._post(DealerFault("fault", f"{type(e).__name__}: {e}", None))
            finally:
                with self._cond:
                    self._reading = False
                    self._reconciling = False
                    if kind == "read":
                        self._want_read = False
                if not self._closing:
                    self._post(PortDone({"read": "read", "job": "free", "reconcile": "free"}.get(kind, "step")))

    def _post_moved(self) -> None:
        """A reconciliation found cards where no step sent them: the referee hears it now."""
        moved = self.adapter.take_moved()
        if moved is not None and not self._closing:
            self._post(moved)

    def _step(self, cmd: DealerCommand) -> None:
        if isinstance(cmd, DealPlan) and self.adapter.interrupted_deal != cmd.deal_id:
            self._dealt = 0
            self._post(Progress(0))
        if isinstance(cmd, FeedBack) and not self.adapter.auto_feed_back:
            self.adapter.feeding = True  # a person feeds the card back: the host is idle meanwhile
            self._post(PortDone("feeding"))
        try:
            out = self.adapter.run(cmd)
        finally:
            # whatever way the step ended (a card already read before a fault is only routed:
            # no person is waited for), the port no longer waits for one: left True, the table
            # counted the next step in flight as idle and the harness saw a table stuck on a
            # Fetch that was still to come (seed 8018)
            self.adapter.feeding = False
        self._post(out)

    def _read(self) -> None:
        """Wait for a player to feed a card; post what the reader saw. Gives up quietly when a
        step is wanted or cards no longer are (the host asks again when it wants cards)."""
        while True:
            with self._cond:
                if self._cancel_read or not self._want_read or self._closing \
                        or any(k != "read" for k, _ in self._jobs):
                    return
            if self.adapter.relearn is not None and self.adapter.in_gate is None:
                # the dealer does not know the cards parked in its hopper yet: no FEED (it would
                # give one of them as the next card played); the table stops until it does
                self._post(relearn_unheard(self.adapter, None))
                self._post(LinkBack())
                return
            with self._cond:
                self._waiting, self._aborted = True, False
                self._read_gen += 1
            # The read is marked over (``_waiting`` False, an ABORT being sent for it first)
            # before its outcome is posted: a fault posted while it still looked waiting made the
            # worker stop the read with an ABORT. After a FEED whose answer was only late (a
            # loaded host, the campaign's Cancellation Hearts seed 9069 under SIGSTOP), that ABORT
            # reached a dealer still reading the card a player had just fed: the card went to the
            # reject pocket unread and nobody was told ("seat 0's pocket does not hold 3H"). A
            # read that timed out is asked about instead (``pending_read`` on Resume).
            outcome: Any = None
            card = -1
            try:
                card = self.adapter.read_fed()  # as long as it takes a player to feed a card
            except DealerJam as e:
                outcome = DealerFault("jam", str(e), None)
            except DriverFault as e:
                if e.name == "MISREAD":
                    outcome = CardRead(UNREADABLE, None)
                elif e.name == m.NAK_REASON_NAMES[m.NAK_BUSY]:  # still stopping the last feed: ask again shortly
                    outcome = _BUSY
                else:
                    with self._cond:
                        cancelled = self._cancel_read or self._closing
                    outcome = None if cancelled else DealerFault("fault", str(e), None)
            except DealerLinkDown as e:
                outcome = DealerFault("link_down", str(e), None)
            except DealerStalled as e:  # the dealer answers: a person looks, then Resume
                outcome = None if self._closing else DealerFault("fault", str(e), None)
            except DealerTimeout as e:
                outcome = None if self._closing else DealerFault("timeout", str(e), None)
            except (DealerError, OSError, ValueError) as e:
                outcome = None if self._closing else DealerFault("fault", str(e), None)
            else:
                outcome = CardRead(C.NAMES[card], None)
            finally:
                with self._abort_gate, self._cond:  # (an ABORT being sent for this read goes first)
                    self._waiting = False
            if outcome is _BUSY:
                time.sleep(BUSY_RETRY_S)
                continue
            if outcome is not None:
                self._post(outcome)
            return

    def _recover(self, fault: str, dealing: bool) -> None:
        """"Fixed, continue": the people do by hand what the fault needs (clear the jam, plug
        the cable back in; a deal that did not jam is gathered and dealt again); then ask the
        dealer whether it answers and tell the referee."""
        people = self.people
        jam = "jammed" in fault
        if people is not None:
            people.fix(fault)
        try:
            st = self.driver.status()
            if st.estop_latched:  # the latch stays until RESET (refused while the button is in)
                self.driver.reset()
                self.adapter.note_stop(self.driver.status())  # a card it took off the loop stopped on its way?
            self.adapter.note_boot(st)  # rebooted by itself (a watchdog, a brown-out)?
        except (DealerError, ValueError, OSError) as e:
            kind = "fault" if isinstance(e, DriverFault) else "link_down"
            self._post(DealerFault(kind, f"the dealer is still not answering: {e}" if kind == "link_down"
                                   else str(e), None))
            return
        if dealing and not jam and UNREAD_DEAL_WORDS in fault:
            # a deal whose only difference from its plan was cards the reader could not read:
            # they go from the reject pocket back on the hopper, and the referee deals just them
            # (the dealer's reject ledger is not reconciled: the deal of those cards starts it
            # afresh, and nobody fed them)
            if people is not None:
                people.unread_to_hopper()
            self._post(DealerReady(False))
            return
        if people is not None and not jam and self.adapter.ask.named_only and "play slot" in fault:
            # loop cards a relearning did not find, or a card a stop lost on its way to its pocket:
            # the screen names them (the pocket of the seat a step was taking one to); only they
            # go into the play slot, and the relearning below deals them back to the loop, or the
            # step sent again reads its card there
            people.to_play_slot(self.adapter.ask.cards, only_named=True)
            self.adapter.ask = PlaySlotAsk()
        if self.adapter.relearn is not None and self.adapter.in_gate is None and not jam:
            # a restart's relearning the dealer did not hear: the parked cards go back round its
            # loop now, before the table takes a card (a dealer that does not know them feeds
            # one as the next card played)
            try:
                self.adapter.relearn_now()
            except DealerJam as e:  # it stopped the relearning plan: RESUME finishes it
                self._post(DealerFault("jam", str(e), None))
                return
            except LoopCardsMissing as e:  # not found again: the screen names them again
                self._post(self.adapter.loop_missing_fault(e))
                return
            except (DealerError, ValueError, OSError) as e:
                self._post(relearn_unheard(self.adapter, e))
                return
        if people is not None and not jam and self.adapter.releasing and "play slot" in fault:
            # a hand-over of passed cards stopped: do what the screen asks (the cards in the reject
            # pocket, on the belt and in the read window, and those it names, into the play slot).
            # Only when it asks: after a pulled cable it says the table goes on by itself, and a
            # card taken out of the read window while the dealer's dead-man held it there was read
            # again from the slot as its twin (unplug_release 303029: QS to seat 5, then QS rejected)
            people.to_play_slot(self.adapter.ask.cards)
            self.adapter.ask = PlaySlotAsk()
        try:
            card = self.adapter.pending_read()  # a card read while the host could not hear it
        except (DealerError, ValueError, OSError):
            card = None
        self.adapter.reconcile()  # cards the dealer cleared to its reject pocket meanwhile
        self._post_moved()
        if dealing and not jam and "did not check out" not in fault and self._deal_goes_on():
            self._post(DealerReady(False))  # the deal went on (or is done): sent again, it is finished
            return
        if card is not None:  # the table takes entries again, then the card read meanwhile
            self._post(DealerReady(False))
            self._post(CardRead(C.NAMES[card], None))
            return
        if people is not None and dealing and not jam:
            try:  # stop what is left of the deal and let the card in flight land
                self.driver.abort()
                for _ in range(100):
                    if self.driver.status().state == 0:
                        break
                    time.sleep(0.02)
            except (DealerError, ValueError):
                pass
            people.gather()
            self._post(DealerReady(True))
            return
        if dealing and not jam:
            self._post(DealerReady(True))  # the dealer lost the deal: gathered and dealt again
            return
        self._post(DealerReady(False))

    def _deal_goes_on(self) -> bool:
        """Whether the dealer still has the deal the fault interrupted (running, stopped by its
        dead-man, or done while the link was down): then it is not dealt again, only finished."""
        sid = self.adapter.deal_step
        if sid is None:
            return False
        try:
            info = self.driver.query_step(sid)
        except (DealerError, ValueError, OSError):
            return False
        return info.state in (m.STEP_RUNNING, m.STEP_STOPPED, m.STEP_DONE)


class TableHost:
    """The referee, its journal and its ports, behind one inbox and one worker thread."""

    def __init__(self, dealer: DealerPort, *, journal: JournalPort | None = None, store: Any = None,
                 leds: LedPort | None = None, seed: int | None = None, auto_deal: bool = True,
                 on_change: Callable[[], None] | None = None, people: People | None = None) -> None:
        self.referee = Referee()
        self.lock = threading.RLock()  # held while the referee changes; readers take it too
        self.dealer = dealer
        self.journal = journal
        self.store = store
        self.leds = leds
        self.seed = seed
        self.auto_deal = auto_deal
        self.on_change = on_change
        self.people = people  # told what the screen asks of them by hand (None: nobody to tell in code)
        self.changes = 0
        self.cards_read = 0  # CardRead events handled (tests wait on it after feeding a card)
        # the same, by card: the simulated person waits for the card it fed to be read, not for
        # any card (another card's late read taken for its own: the campaign's "seat 0's pocket
        # does not hold AD", Cancellation Hearts power-cut hand 219)
        self.read_counts: Counter[str] = Counter()
        self.presses = 0  # Button events handled
        self.handled: Counter[str] = Counter()  # events handled (not replayed), by type
        self.on_commands: Callable[[list[Command]], None] | None = None  # sees every command list
        # the referee's sounds ("refused", "alarm", "game_over"; "alarm" too when the disk
        # refuses the journal): played on the speaker, every one kept in ``sounds``
        self.speaker: SpeakerPort | None = None
        self.sounds: deque[str] = deque(maxlen=200)
        # what readers (the kiosk) see without taking the lock: ``publisher(referee)`` builds an
        # immutable snapshot on the worker after every item (before a caller's ``call`` returns)
        # and when the worker starts; ``published`` is the last one (swapped whole)
        self.publisher: Callable[[Referee], Any] | None = None
        self.published: Any = None
        # a finished game's journal starts afresh (the kiosk); False keeps it (``trickref sim``
        # run again on it only prints the result)
        self.rotate_finished = True
        # tests: the power goes right after the event this says yes to is journaled and handled
        # (its commands are not carried out; nothing after it is taken): ``dead`` then
        self.cut_after: Callable[[Event, Referee], bool] | None = None
        self.dead = False
        # the last refused entry: its words for the shared screen, and the game's position then
        self.refusal: tuple[str, tuple[int, int]] | None = None
        # the referee's last warning for the whole table (a card gone to the reject pocket and
        # who takes it back, a score correction): its words and the game's position then
        self.notice: tuple[str, tuple[int, int]] | None = None
        self.errors: list[str] = []
        # the journal could not be written (a full disk): the table waits, holding the refused
        # event and every one after it, in order, until ``retry_storage`` (storage.py)
        self.storage: StorageFault | None = None
        self._held: list[Event] = []
        self.recoveries: list[str] = []  # the faults "fixed, continue" was pressed for
        self.finished_record: dict[str, Any] | None = None
        # a club night's hook (device.club.table.ClubTable): the hub's boards as shuffles, every
        # hand's result reported; None for a table on its own
        self.club: Any = None
        # the bot seats (device.table.bot_worker.BotSeats): asked after each item, their
        # decisions come back as jobs; None: bots are entered by whoever drives the table
        self.bot_seats: Any = None
        self._inbox: deque[Any] = deque()
        self._cond = threading.Condition()
        self._active = False
        self._closing = False
        self._started = False
        self._outstanding = 0  # steps and jobs given to the dealer port, not yet done
        self._faults_taken = 0  # DealerFault events taken (the stop each one set)
        self._auto_resumed = 0  # the last of them the host resumed by itself without a LINK_UP
        self._reading = False
        self._shuffle: int | None = None  # decks of a pending NeedShuffle
        self._club_waits = False  # the club hook has no deck for the next hand yet
        self._deal_allowed = False
        self._worker = threading.Thread(target=self._work, name="table-host", daemon=True)

    # ---------------------------------------------------------------- lifecycle
    def resume(self, records: list[Any]) -> None:
        """Before ``start``: rebuild the referee from journal records (nothing is carried out)."""
        with self.lock:
            for obj in records:
                self.referee.handle(event_from_json(obj))

    def start(self, resync: bool = False) -> None:
        """Start the ports and the worker; ``resync`` after ``resume``: redo the pending step,
        set the LEDs, ask for the shuffle."""
        self.dealer.start(self.post)
        self._started = True
        self.publish()
        self._worker.start()
        if resync:
            self.post(_Resync())

    def close(self) -> None:
        with self._cond:
            if self._closing:
                return
            self._closing = True
            self._cond.notify_all()
        try:
            self.dealer.close()
        finally:
            if self._worker.is_alive() and self._worker is not threading.current_thread():
                self._worker.join(timeout=10)
            if self.journal is not None:
                self.journal.close()
            if self.club is not None:
                self.club.close()
            if self.bot_seats is not None:
                self.bot_seats.close()

    # ---------------------------------------------------------------- posting (any thread)
    def post(self, item: Any) -> None:
        """An event (or a host job) for the worker, in order. Returns at once."""
        with self._cond:
            self._inbox.append(item)
            self._cond.notify_all()

    def call(self, event: Event, timeout: float = 30.0) -> list[Command]:
        """Post ``event`` and wait for the referee's commands for it (the kiosk's taps)."""
        c = _Call(event)
        self.post(c)
        if not c.done.wait(timeout):
            raise TimeoutError(f"the table did not handle {event.TYPE} within {timeout:g} s")
        if c.error is not None:
            raise c.error
        return c.out

    def allow_deal(self) -> None:
        """The kiosk's "deal": the next hand may be shuffled and dealt (``deal_allowed`` is true
        from now on, until the worker shuffles)."""
        with self._cond:
            self._deal_allowed = True
        self.post(_AllowDeal())

    def read(self, fn: Callable[[Referee], Any]) -> Any:
        """``fn(referee)`` on one consistent state (under the referee's lock)."""
        with self.lock:
            return fn(self.referee)

    def publish(self) -> None:
        """Build the snapshot readers see (``published``): on the worker after every item, once
        when it starts; a publisher that fails leaves the last one and says why."""
        if self.publisher is None:
            return
        try:
            with self.lock:
                self.published = self.publisher(self.referee)
        except Exception as e:  # noqa: BLE001 - shown on screen; the table stays up
            self.errors.append(f"snapshot: {type(e).__name__}: {e}")

    @property
    def club_waits(self) -> bool:
        """The next hand waits for the club hub's deck (``club.words`` says what for)."""
        return self._club_waits

    @property
    def deal_allowed(self) -> bool:
        return self.auto_deal or self._deal_allowed

    def drain(self, timeout: float = 60.0) -> None:
        """Wait until nothing is left to do: the inbox empty, the worker idle and no dealer step
        in flight (a reader waiting for a fed card is idle). TimeoutError past ``timeout``."""
        with self._cond:
            if not self._cond.wait_for(self._idle, timeout):
                raise TimeoutError(f"the table was still busy after {timeout:g} s ({self._why_busy()})")

    def wait(self, pred: Callable[[], bool], timeout: float = 60.0) -> bool:
        """Wait until ``pred()`` holds, checked after every item the worker takes (not by
        polling); False if it still does not hold after ``timeout``, or the table stopped on
        a journal it cannot write (``storage``)."""
        with self._cond:
            return self._cond.wait_for(lambda: self._closing or self.storage is not None or pred(), timeout) and pred()

    def _idle(self) -> bool:
        if self._closing:
            return True
        if self._inbox or self._active:
            return False
        if self.dead or self.storage is not None:
            return True
        if self.bot_seats is not None and self.bot_seats.awaited:
            return False  # a bot's entry is due once its thinking ends
        if self._outstanding:
            # the one step in flight waits for a person (a drawn card fed back): idle
            return self._outstanding == 1 and self.dealer.waiting_for_person()
        if not getattr(self.dealer, "quiet", lambda: True)():
            return False  # the port is finding out where the dealer put a card
        if self._reading and not self.wants_cards():
            return False  # a read being stopped: the shuffle or a step follows
        return not (self._shuffle is not None and self.deal_allowed and not self._club_waits)

    def _why_busy(self) -> str:
        return f"{len(self._inbox)} in the inbox, worker {'busy' if self._active else 'idle'}, {self._outstanding} dealer jobs"

    # ---------------------------------------------------------------- the worker
    def _work(self) -> None:
        while True:
            with self._cond:
                while not self._closing and not self._inbox:
                    self._cond.wait()
                if self._closing:
                    return
                item = self._inbox.popleft()
                self._active = True
            try:
                self._take(item)
            except Exception as e:  # noqa: BLE001 - shown on screen; the table stays up
                self.errors.append(f"table error: {type(e).__name__}: {e}")
                if isinstance(item, _Call):
                    item.error = e
            finally:
                self.publish()
                if isinstance(item, _Call):
                    item.done.set()
                if not self._closing:
                    try:
                        self._next()
                    except Exception as e:  # noqa: BLE001
                        self.errors.append(f"table error: {type(e).__name__}: {e}")
                    self.publish()
                self.changes += 1
                with self._cond:
                    self._active = False
                    self._cond.notify_all()
                if self.on_change is not None:
                    self.on_change()

    def _take(self, item: Any) -> None:
        if self.dead and isinstance(item, (_Call, Event, _Job, _Resync, _AllowDeal)):
            if isinstance(item, _Call):
                item.error = RuntimeError("the table has lost power")
            return
        if isinstance(item, _Call):
            item.out = self.handle(item.event)
        elif isinstance(item, Event):
            self.handle(item)
            if isinstance(item, DealerFault):
                self._faults_taken += 1
                self._link_back_already()  # its LINK_UP came before the stop was taken
        elif isinstance(item, PortDone):
            if item.kind == "read":
                self._reading = False
            elif item.kind not in ("free", "feeding"):
                self._outstanding -= 1
                self._link_back_already()  # a LINK_UP that came while this job was out
        elif isinstance(item, Progress):
            with self.lock:
                self.referee.note_dealt(item.count)
        elif isinstance(item, LinkBack):
            if self._link_stop() and self._outstanding == 0:
                self._recover()  # the table stopped for the link only: it goes on by itself
        elif isinstance(item, _AllowDeal):
            pass  # allow_deal set the flag; the worker now looks at the shuffle (``_next``)
        elif isinstance(item, _Resync):
            with self.lock:
                out = self.referee.resync()
            self._carry_out(out)
        elif isinstance(item, _Job):
            item.fn()
        else:
            raise TypeError(f"the table host cannot take {item!r}")

    def _link_stop(self) -> bool:
        """The table stands stopped for the link only (the screen says it goes on by itself)."""
        return self.referee.dealer_fault is not None and self.referee.dealer_fault_kind in ("link_down", "timeout")

    def _link_back_already(self) -> None:
        """A link stop whose ``LINK_UP`` the host heard too early to act on (before it took the
        stop, or while a dealer job was out): the table goes on now if the link answers, since no
        other ``LINK_UP`` follows (the campaign's corrupt_5 seed 508025 waited for Resume)."""
        if (self._link_stop() and self._outstanding == 0 and self._auto_resumed != self._faults_taken
                and self.dealer.link_up()):
            self._auto_resumed = self._faults_taken  # once a stop: a failed try posts a stop of its own
            self._recover()

    def handle(self, event: Event) -> list[Command]:
        """On the worker only: journal (durable), referee, carry out."""
        with self.lock:
            # a correction of a finished game (its record saved, its journal started afresh for
            # the next game) is not journalled there, where it would stand alone: the corrected
            # record replaces the saved one (``_carry_out``) before the call returns
            after_end = (isinstance(event, (HandCorrection, ScoreCorrection)) and self.rotate_finished
                         and self.finished_record is not None and self.referee.game is not None
                         and self.referee.game.over)
            if self.storage is not None or not (after_end or self._journal(event)):
                self._held.append(event)  # taken again, in order, once the journal can be written
                return []
            before = self.referee.places.snapshot()["at"] if self.people is not None else None
            out = self.referee.handle(event)
            self.handled[event.TYPE] += 1
            if isinstance(event, CardRead):
                self.cards_read += 1
                self.read_counts[event.card] += 1
            elif isinstance(event, Button):
                self.presses += 1
            after = self.referee.places.snapshot()["at"] if before is not None else None
        if self.people is not None and before is not None and after is not None:
            self.people.moved(event, before, after)
        if self.cut_after is not None and self.cut_after(event, self.referee):
            self.dead = True
            return out
        if self.on_commands is not None:
            self.on_commands(out)
        self._carry_out(out)
        if self.club is not None:
            self.club.after(event, self.referee, out)
        return out

    def _journal(self, event: Event) -> bool:
        """Journal ``event`` (durable); False when the disk refused it (``storage`` says why)."""
        if self.journal is None:
            return True
        try:
            self.journal.append(event.to_json())
        except JournalWriteError as e:
            self.storage = storage_fault(e.path, e.reason)
            self._sound("alarm")
            return False
        return True

    def retry_storage(self) -> None:
        """Resume after a journal write failed: the held events are taken again, in order (the
        table stops again at the first the disk still refuses)."""
        self.post(_Job(self._retry_storage))

    def _retry_storage(self) -> None:
        held, self._held = self._held, []
        self.storage = None
        for i, event in enumerate(held):
            self.handle(event)
            if self.storage is not None:
                self._held.extend(held[i + 1:])
                return

    def job(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` on the worker, in order with the events."""
        self.post(_Job(fn))

    def recover(self) -> None:
        """"Fixed, continue": the dealer port checks the dealer and posts what follows."""
        self.post(_Job(self._recover))

    def _recover(self) -> None:
        if self.referee.dealer_fault is None:
            return
        ref = self.referee
        assert ref.dealer_fault is not None
        fault = ref.dealer_fault
        self.recoveries.append(fault)
        self._outstanding += 1
        self._sync_dealer()
        self.dealer.recover(fault, bool(ref.steps) and isinstance(ref.steps[0], DealPlan))

    def _carry_out(self, out: list[Command]) -> None:
        ref = self.referee
        for c in out:
            if isinstance(c, Refusal) and not c.private:
                with self.lock:
                    self.refusal = (c.text, self.position())
            elif isinstance(c, Message) and c.seat is None and c.level == "warn":
                with self.lock:
                    self.notice = (c.text, self.position())
            if isinstance(c, Led):
                if self.leds is not None:
                    self.leds.set_led(c.seat, c.mode)
            elif isinstance(c, SaveRecord):
                if c.finished:
                    before, self.finished_record = self.finished_record, c.record
                    if self.store is not None:
                        if before is not None and before != c.record and hasattr(self.store, "replace"):
                            self.store.replace(before, c.record)  # a finished game corrected
                        else:
                            self.store.save(c.record)
                    if self.rotate_finished and self.journal is not None and self.journal.count:
                        self.journal.rotate(None)  # the record is saved: the next start is a new game
            elif isinstance(c, DealerCommand):
                if ref.steps and ref.steps[0].step == c.step and ref.dealer_fault is None:
                    self._outstanding += 1
                    self._sync_dealer()
                    self.dealer.run(c)
            elif isinstance(c, NeedShuffle):
                self._shuffle = c.decks
            elif isinstance(c, TakeBack) and self.people is not None:
                self.people.take_back(c)  # the person does what the screen says
            elif isinstance(c, Sound):
                self._sound(c.name)

    def _sound(self, name: str) -> None:
        self.sounds.append(name)
        if self.speaker is not None:
            try:
                self.speaker.play(name)
            except Exception as e:  # noqa: BLE001 - a speaker that fails costs the sound, never the table
                self.errors.append(f"speaker: {type(e).__name__}: {e}")

    def _next(self) -> None:
        """After each item: shuffle when allowed, or start reading fed cards when wanted."""
        ref = self.referee
        if self.dead or self.storage is not None:
            return
        if self._reading and not self.wants_cards():
            self.dealer.stop_read()  # its PortDone comes back: then the shuffle, or a step
        if self._shuffle is not None and self._outstanding == 0 and not self._reading:
            if ref.waiting != "shuffle":
                self._shuffle = None
                self._club_waits = False
            elif self.deal_allowed:
                decks = self._shuffle
                shuffled = shuffle_for(self.seed, len(ref.fair), decks) if self.club is None else \
                    self.club.shuffle(ref, decks, lambda: shuffle_for(self.seed, len(ref.fair), decks))
                self._club_waits = shuffled is None  # the club's deck: looked for again when it comes
                if shuffled is not None:
                    self._shuffle = None
                    self._deal_allowed = False
                    self.dealer.before_shuffle()
                    self.handle(shuffled)
        if (self.dealer.reads and not self._reading and self._outstanding == 0 and not self._inbox
                and self.wants_cards()):
            self._reading = True
            self._sync_dealer()
            self.dealer.read()
        if self.bot_seats is not None:
            self.bot_seats.after()

    def _sync_dealer(self) -> None:
        """Tell a dealer port that makes step ids and reconciles (SerialDealer) the hand's salt
        and the reject-pocket cards the referee has accounted for, and the cards the referee
        has parked in the dealer's loop (relearned if the dealer reboots by itself)."""
        sync = getattr(self.dealer, "sync", None)
        if sync is not None:
            ref = self.referee
            sync(ref.fair[-1]["salt"] if ref.fair else "", ref.rejects_seen,
                 list(ref.places.at.get("loop", [])) if ref.waiting == "turn" else [])

    def wants_cards(self) -> bool:
        """Whether the reader listens now: whenever the table takes entries and the dealer has
        no step to do. Plays, passes and the Double Nil give are fed; a card fed at any other
        moment (a bid) is read too, so the referee can say why it is not wanted and send it
        back. Not between hands (the cards are gathered into the hopper then), not while only bot
        seats whose cards are in the dealer's loop are to act (their plays are fetched), not while a
        spades-2p player decides on the card in their pocket (the panel answers; a drawn card
        fed back is read by its own step), and not while a card waits in the reader gate (the
        next step routes it)."""
        ref = self.referee
        if ref.game is None or not ref.accepting() or ref.steps or ref.presented is not None:
            return False
        turn = ref.game.turn_seats()
        if turn and all(s in ref.loop_bots for s in turn):
            return False  # only bots whose cards are inside the dealer act: nobody feeds a card
        return not ref.places.at.get("gate")

    def position(self) -> tuple[int, int]:
        """(hand number, entries taken): where the game is."""
        g = self.referee.game
        return (0, 0) if g is None else (g.hand_number, len(g.actions))

    def refusal_shown(self) -> str | None:
        """The last refusal's words while nothing has been taken since (under ``lock``)."""
        r = self.refusal
        return r[0] if r is not None and r[1] == self.position() else None

    def notice_shown(self) -> str | None:
        """The referee's last warning for the whole table while nothing has been taken since
        (under ``lock``): before, these words (\"A card went to the reject pocket: its owner takes
        it back...\") reached only the journal and the seats' letters, never the shared screen."""
        r = self.notice
        return r[0] if r is not None and r[1] == self.position() else None

    def bot_rng(self, seat: int) -> random.Random:
        """A bot's generator, seeded by the game's position (hand, actions taken), so refused
        entries, dealer faults and restarts never change what a bot chooses."""
        where = self.position()
        return random.Random(f"trickref-sim/{self.seed}/bot/{where[0]}/{where[1]}/{seat}")


class _Call:
    def __init__(self, event: Event) -> None:
        self.event = event
        self.done = threading.Event()
        self.out: list[Command] = []
        self.error: BaseException | None = None


@dataclass(frozen=True)
class _AllowDeal:
    pass


@dataclass(frozen=True)
class _Resync:
    pass


@dataclass(frozen=True)
class _Job:
    fn: Callable[[], None]
