"""The referee's dealer steps carried out on the dealer driver (device.dealer.driver.Dealer).

Maps the referee's target words to the protocol's target bytes (hardware/PROTOCOL.md section
11), each typed step to the driver call, and every outcome to the event the referee expects:
``DealDone`` (with the host's check of the deal), ``DealerDone`` (with the card the dealer
read), or ``DealerFault`` (jam, link down, timeout, fault) whose message is the driver's own
words.

==============  ==================================================================
step            driver
==============  ==================================================================
DealPlan        ``deal(plan)`` (a jam, then the same deal id: ``resume_deal``)
Release         ``deal(plan)`` over the cards parked in the loop
RouteFed        ``route_presented(target)`` for the card held in the reader gate (flag
                NEXT when a Fetch follows: ``then_next``)
Fetch           ``fetch_loop(card, target)``
Stage           ``stage(card)``
FeedBack        ``read_card()`` (FEED HOLD: the player feeds the card back), then
                ``route_presented(target)`` if it is the card due (else it stays held)
Abort           ``abort()``
V1Step          refused in words (a step of the v1 dealer): a DealerFault naming it
==============  ==================================================================

After a restart the dealer may have lost its loop model (it rebooted): ``relearn`` holds the
cards the referee's model parks in the loop, and the first step that needs the loop first deals
them all back to the loop (a plan of ``card -> LOOP``: each read once and returned), so the
dealer knows them again.

Step ids (protocol 3). Every dealer command of a step carries an id made from the hand's salt,
the referee's step number, the part of the step (a FeedBack's read is part 0, its routing part
1) and an attempt: the same step run again (Resume after a fault, a restarted host re-issuing
the pending step) sends the same id, so the dealer answers with what it did instead of doing it
again or refusing it, and the step ends as if nothing had happened. Only a step the dealer says
it did not finish and will not (aborted, interrupted by a reboot) is sent under the next attempt,
once the cards are accounted for. A read of a fed card that the link interrupted is asked about
the same way (``read_step``): a card the dealer read and holds is a card read.

Reconciliation. After a fault, and whenever the dealer put a card in its reject pocket that no
step sent there (an ABORT clears the read window), the host compares the dealer's ledger of the
reject pocket (INVENTORY) with what the referee has accounted for (``rejects_seen``) and posts a
``DealerMoved`` for the rest: the referee tells the people where each card went and what to do.
"""

from __future__ import annotations

import dataclasses
import threading
import zlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from trickref.device.dealer import messages as m
from trickref.device.dealer.driver import Dealer, StepLost
from trickref.device.dealer.errors import (
    DealerError,
    DealerJam,
    DealerLinkDown,
    DealerStalled,
    DealerStepConflict,
    DealerTimeout,
    DealMismatch,
)
from trickref.device.dealer.errors import (
    DealerFault as DriverFault,
)
from trickref.engine import cards as C
from trickref.engine.referee.commands import (
    V1_WORDS,
    Abort,
    DealerCommand,
    DealPlan,
    FeedBack,
    Fetch,
    Release,
    RouteFed,
    Stage,
    V1Step,
)
from trickref.engine.referee.events import (
    UNREAD,
    DealDone,
    DealerDone,
    DealerFault,
    DealerMoved,
    Event,
)

LOOP = getattr(m, "LOOP", 0x85)

TARGET_BYTES = {
    "reject": m.REJECT,
    "discard": m.DISCARD,
    "centre": m.CENTRE,
    "trick": m.TRICK,
    "loop": LOOP,
}


def target_byte(target: str) -> int:
    """'seat:3' -> 3, 'discard' -> 0x81, 'loop' -> 0x85..."""
    if target.startswith("seat:"):
        return int(target[5:])
    try:
        return TARGET_BYTES[target]
    except KeyError:
        raise ValueError(f"unknown dealer target {target!r} (a seat, or one of {', '.join(TARGET_BYTES)})") from None


class _Resolved(Exception):
    """The step cannot be done and need not be: the reconciliation's DealerMoved ends it."""


class LoopCardsMissing(DealerError):
    """A relearning of the loop (after the dealer restarted) took every card parked in it back
    round the loop but these, which are not in the dealer: the dealer rebooted by itself just
    after delivering one unreported (a FETCH's card lies in its pocket), or a card stopped on the
    belt. ``missing``: (card, where to look: the seat a step was taking it to, or "loop")."""

    def __init__(self, message: str, missing: tuple[tuple[str, str], ...]) -> None:
        super().__init__(message)
        self.missing = missing


class RoutedCardMissing(DealerError):
    """A RouteFed's card, read and held before a stop, that is no longer in the reader gate and
    that the dealer neither routed nor cleared to its reject pocket: an e-stop or a jam caught it
    on its way (on the belt, lifted out by a person clearing the jam, or in the pocket it was
    going to, unreported). ``missing``: ((card, target),); the people put it in the play slot,
    and the step, sent again, reads it there and routes it."""

    def __init__(self, message: str, missing: tuple[tuple[str, str], ...]) -> None:
        super().__init__(message)
        self.missing = missing


# a Fetch or Stage stopped this many times (link and timeouts aside) relearns the loop before it
# goes again (DealerAdapter._resync)
RESYNC_AFTER = 2

# how long a RouteFed sent again waits for the card the people were asked to put in the play slot
# (they put it there before Resume; not there by then: the stop asks for it again)
SLOT_READ_S = 20.0


@dataclass
class PlaySlotAsk:
    """What a stop asks people to put into the play slot before Resume: ``cards``, each with the
    seat whose screen asks it to look in its own pocket (None: no screen names it, a person looks
    in no pocket). ``loop``: loop cards a relearning did not find (only they go in, and the
    relearning, done again, deals them back to the loop); ``route``: a RouteFed's card a stop
    lost on its way (only it goes in: the step, sent again, reads it from the slot); else the
    rest of a Release's hand-over (the cards in the reject pocket, on the belt and in the read
    window go in with them)."""

    cards: list[tuple[int, int | None]] = field(default_factory=list)
    loop: bool = False
    route: bool = False

    @classmethod
    def of(cls, missing: tuple[tuple[str, str], ...], loop: bool, route: bool = False) -> PlaySlotAsk:
        """From a fault's (card, where) pairs: "seat:N" is that seat's pocket; for a RouteFed's
        card (``route``) any pocket it was going to (the trick pocket: it may lie there, landed
        after the stop)."""
        def pocket(t: str) -> int | None:
            if t.startswith("seat:"):
                return int(t[5:])
            return target_byte(t) if route and t in ("trick", "centre", "discard", "reject") else None

        return cls([(C.parse(c), pocket(t)) for c, t in missing], loop, route)

    @property
    def named_only(self) -> bool:
        """Only the cards named go in the play slot (not a hand-over's strays)."""
        return self.loop or self.route


class V1StepRefused(DealerError):
    """A step of the v1 dealer, from a game journaled before the v2 dealer."""


class DealerAdapter:
    """Runs the referee's typed dealer steps on a Dealer. ``refeed`` (optional: the people port's
    ``feed_back``) puts a card into the play slot as a player would: when a step needs a card in the reader
    gate that is no longer there (after a restart), and, with ``auto_feed_back``, for a
    ``FeedBack`` (the simulated player feeds the drawn card back; ``trickref sim``'s bots do
    it themselves and turn it off)."""

    def __init__(self, dealer: Dealer, refeed: Callable[[int, int | None], None] | None = None) -> None:
        self.dealer = dealer
        self.refeed = refeed
        self.auto_feed_back = refeed is not None
        self.held: int | None = None  # the card held in the reader gate, if we know it
        # after a restart: the card the referee's model says waits in the reader gate (read
        # before a power cut, not yet routed); the dealer has forgotten it, so route_fed reads
        # it again where it is (FEED with HOLD reads the card already in the gate) first
        self.in_gate: int | None = None
        self.interrupted_deal: int | None = None
        self.relearn: list[int] | None = None  # after a restart: the loop cards to deal back to the loop
        # the cards the referee has parked in the dealer's loop (the host keeps this, SerialDealer.sync),
        # and the dealer's boot id when the adapter last looked (note_boot)
        self.loop_cards: list[int] = []
        self.boot_seen: int | None = None
        self.relearn_sid: int | None = None  # a relearning that did not match is tried again under this id
        # a jam stopped that relearning plan: RESUME finishes it (``relearn_gate``: the card of the
        # read window it routed, whose RouteFed it then completes)
        self.relearn_jammed = False
        self.relearn_gate: int | None = None
        self.relearn_stopped: list[int] | None = None  # the cards of that relearning plan
        self.faults: list[str] = []
        self.feeding = False  # inside a FeedBack, waiting for a person to feed the card back
        # a Release a jam stopped (its step number): RESUME finishes the dealer's own deal of it
        self.interrupted_release: int | None = None
        # a single-card step a jam stopped (its step number): RESUME finishes it where it stopped
        self.jammed_step: int | None = None
        # a step the dealer refused while stopped by a jam between steps: RESUME before it
        self.resume_first = False
        # a Fetch or Stage the dealer stalled on (no progress while it said it moved): its step
        # number and the dealer's (state, cards done, next event) when the driver gave it up
        self.stalled: tuple[int, tuple[int, int, int] | None] | None = None
        # the dealer's faults of each Fetch or Stage (its step number: how many, link and
        # timeouts aside), and the step whose next try relearns the loop first (``_resync``)
        self._step_faults: Counter[int] = Counter()
        self.resync: int | None = None
        # the Release under way (its step number) and the cards the dealer reported delivered
        # (CARD_DEALT, in order) that no DealerFault has reported yet: a Release done again
        # leaves them out (they are no longer in the loop)
        self._release: int | None = None
        self._delivered: list[tuple[int, int]] = []
        self._release_plan: dict[int, list[tuple[int, int]]] = {}  # the plan each Release step last sent
        self._release_checked: int | None = None  # a Release whose deal ended and did not check out
        # what the last stop asks people to put into the play slot: a Release's passed cards it
        # found in no pocket and not in the dealer, or loop cards a relearning did not find
        self.ask = PlaySlotAsk()
        # a card read and held that had left the read window when the dealer rebooted by itself:
        # its routing was under way and it went on to its pocket (the RouteFed, sent again, ends)
        self.gone_on: int | None = None
        # a RouteFed whose card a stop lost on its way (its step number): the people were asked
        # to put it in the play slot, and the step sent again reads it there
        self.slot_asked: int | None = None
        self.slot_stop = False  # that read jammed: the next one stops the jammed FEED first (ABORT)
        self._current: DealerCommand | None = None  # the step run last (a fault stopped it, or it is done)
        # step ids (see the module docstring): the hand's salt and the attempt of each part
        self.epoch = ""
        self._attempts: dict[tuple[int, int], int] = {}
        # a FEED HOLD the link interrupted: asked about (sent again) before another read
        self.read_step: int | None = None
        # the dealer's reject-pocket ledger entries the referee has accounted for (the host
        # keeps this from the referee), and the DealerMoved waiting to be posted
        self.rejects_seen = 0
        self.moved: DealerMoved | None = None
        self.rejects_heard = 0  # reject-pocket cards the events told of since the last fresh deal
        # of those, cards cleared from the read window before they were read (an ABORT while a
        # fed card was on its way in): the ledger names them unknown, as it does a misread card
        # (whose words the read's own outcome gives); these are named UNREAD in DealerMoved
        self.unread_heard = 0
        # the two counts are written by the link's reader thread (_on_event) and by the table's
        # (_note_rejects, a fresh deal): each change under this lock, none lost
        self._heard_lock = threading.Lock()
        self.on_reject: Callable[[], None] | None = None  # the port: a card was cleared to the reject pocket
        self.deal_step: int | None = None  # the step id of the last deal sent
        dealer.add_listener(self._on_event)

    @property
    def releasing(self) -> bool:
        """A Release stopped partway (it is done again on Resume)."""
        return self._release is not None

    def note_boot(self, st: Any) -> None:
        """Resume after a fault: ``st`` is the dealer's STATUS. A dealer that rebooted by itself
        since the adapter last looked (a watchdog, a brown-out; the host ran on) lost what it
        held in RAM, the cards staying where they are: a loop model it cannot vouch for (not
        valid, or not as many cards as the referee parked) is relearned before anything else,
        and a card read and held in the read window is read again there before it is routed.
        Found on the simulated table, the dealer rebooted after any step of a German Whist hand:
        in 6 of 29 places the table stopped for good ("there is no card for it", "not in the
        reader gate"), Resume after Resume."""
        boot = int(st.boot_id)
        if self.boot_seen is not None and boot != self.boot_seen:
            loop = list(self.loop_cards)
            if loop and self.relearn is None and not (st.loop_model_valid and st.loop_count == len(loop)):
                self.relearn = loop
            if self.held is not None and self.in_gate is None and not st.card_presented:
                if self._window_empty():
                    # it left the window before the reboot: its routing was under way (a held
                    # card stays in the window until routed), and it went on to its pocket
                    self.gone_on, self.held = self.held, None
                else:
                    self.in_gate, self.held = self.held, None
                    if loop and self.relearn is None:
                        # the window's card may be the held one or a parked card a NEXT pull
                        # brought there (the held one then went on): read by the relearning's
                        # deal, which sends each where it belongs (a FEED would wait for a person)
                        self.relearn = loop
        self.boot_seen = boot

    def note_stop(self, st: Any) -> None:
        """After an e-stop's RESET (``st``: the dealer's STATUS then): a card a FETCH had taken
        out of the loop and sent on its way when the button was pressed is on the belt, or
        wherever the stop left it, and the dealer's loop model no longer holds it, while the
        referee still has it parked. The loop is relearned before anything else (a card not
        found is named, and the people put it in the play slot). Found with the e-stop pressed
        mid-FETCH on the simulated table (German Whist, the stock card 83 ms from the winner's
        pocket): the FETCH sent again was refused ("there is no card for it") at every Resume."""
        loop = list(self.loop_cards)
        if isinstance(self._current, (Fetch, Stage)) and loop and self.relearn is None \
                and st.loop_count != len(loop):
            self.relearn = loop  # (a Release's stop is its own: the passed cards it delivered are gone)

    def _window_empty(self) -> bool:
        """Whether the dealer's read window is empty (INVENTORY); not known: False."""
        try:
            return self.dealer.inventory(loop=False).window is None
        except (DealerError, ValueError, OSError):
            return False

    def _check_boot(self) -> None:
        """Before a step: has the dealer rebooted since the adapter last looked? The link knows
        its boot id from the last handshake (no round trip); a new one is looked at (STATUS)
        and noted: a step the dealer took after it rebooted succeeds, and without this nothing
        would relearn the loop it lost (found on the simulated table: a stock card fed as if a
        player had played it, German Whist)."""
        try:
            boot = int(self.dealer.identity.boot_id)
        except (DealerError, AttributeError):
            return  # (not connected yet: the first Resume's STATUS says)
        if self.boot_seen is None:
            self.boot_seen = boot
        elif boot != self.boot_seen:
            try:
                self.note_boot(self.dealer.status())
            except (DealerError, ValueError, OSError):
                pass  # not heard: the step's own fault and Resume's STATUS say

    def read_fed(self) -> int:
        """Read one fed card and hold it in the gate."""
        return self.read_fed_wait(None)

    def read_fed_wait(self, timeout: float | None) -> int:
        """Read one fed card and hold it in the gate; DealerTimeout if none was fed in time. A
        read the link interrupted before is asked about first (its id sent again): the card
        the dealer read then, and holds, is the card read. Never while a relearning is pending
        (a slow restart's plan the dealer did not hear: the table stops until it is done): a
        dealer that does not know the cards parked in its hopper feeds one of them as the next
        card played (a card nobody played, counted by the referee: the campaign's stuck
        Cancellation Hearts hands)."""
        if self.relearn is not None and self.in_gate is None:
            raise DealerLinkDown(f"the dealer has not taken back the {len(self.relearn)} card(s) parked in its "
                                 f"loop since the table restarted")
        self._resume_if_refused()
        if self.read_step is None:
            self.read_step = self.dealer.new_step_id()
        try:
            card = self.dealer.read_card(timeout=timeout, step=self.read_step)
        except (DealerTimeout, DealerLinkDown):
            raise  # asked about again next time
        except DealerJam as e:
            self.read_step = None
            if e.name == m.NAK_REASON_NAMES.get(m.NAK_JAMMED):
                self.resume_first = True  # (a jam between steps: see run)
            raise
        except BaseException:
            self.read_step = None
            raise
        self.read_step = None
        self.held = card
        return card

    def pending_read(self) -> int | None:
        """After an outage: did the read the link interrupted get a card? The card read and held
        (the read is over: the caller posts it as read), else None (still waiting for a card,
        or it ended without one: the reconciliation says where any card went)."""
        sid = self.read_step
        if sid is None:
            return None
        info = self.dealer.query_step(sid)
        if info.state == m.STEP_RUNNING:
            return None  # still waiting for a player to feed a card: the reader asks again
        self.read_step = None
        if info.state == m.STEP_HELD and 0 <= info.card < 52:
            self.held = info.card
            self.dealer.adopt_hold()
            return info.card
        return None

    def _on_event(self, ev: Any) -> None:
        """The link's reader thread: note each card a Release delivered (also the events the
        link recovers after a reconnect), and count the cards sent to the reject pocket."""
        kind = getattr(ev, "kind", None)
        if self._release is not None and kind == m.EV_CARD_DEALT:
            self._delivered.append((int(ev["card"]), int(ev["target"])))
        if kind in (m.EV_CARD_DEALT, m.EV_CARD_ROUTED, m.EV_DUPLICATE, m.EV_MISREAD) and ev["target"] == m.REJECT:
            with self._heard_lock:
                self.rejects_heard += 1
                if kind == m.EV_CARD_ROUTED and int(ev["card"]) == m.UNKNOWN_CARD:
                    self.unread_heard += 1
            if kind == m.EV_CARD_ROUTED and self.on_reject is not None:
                self.on_reject()  # cleared from the read window (ABORT, RESET): whose card was it?

    # ------------------------------------------------------------------ step ids
    def _sid(self, step: int, part: int = 0) -> int:
        """The step id of ``part`` of referee step ``step`` at its current attempt: distinct
        for every step, part and attempt of a hand (a base made from the hand's salt, so the
        ids of another hand or game are others), never 0, below 0x8000 (the driver's own)."""
        attempt = self._attempts.get((step, part), 0)
        base = zlib.crc32(self.epoch.encode()) & 0x7FFF
        return ((base + step * 8 + part * 4 + attempt) % 0x7FFF) + 1

    def _next_attempt(self, step: int, part: int = 0) -> None:
        self._attempts[(step, part)] = min(3, self._attempts.get((step, part), 0) + 1)

    def _tries(self, step: int, part: int, fn: Callable[[int], Any]) -> Any:
        """``fn(step_id)``; a step the dealer lost (aborted, interrupted by a reboot) is sent
        again under the next attempt's id, the cards accounted for first."""
        for _ in range(3):
            try:
                return fn(self._sid(step, part))
            except StepLost:
                self.reconcile()
                self._next_attempt(step, part)
        return fn(self._sid(step, part))

    # ------------------------------------------------------------------ reconciliation
    def reconcile(self) -> None:
        """Compare the dealer's reject-pocket ledger with what the referee accounted for: the
        cards it put there since, read from the dealer itself (INVENTORY), become a pending
        ``DealerMoved`` (the port posts it). Best effort: a dealer that does not answer is
        asked again at the next fault or Resume."""
        try:
            rejects = self.dealer.inventory(loop=False).rejects
        except (DealerError, ValueError, OSError):
            return
        self._note_rejects(list(rejects))

    def _note_rejects(self, rejects: list[int]) -> None:
        seen = self.rejects_seen
        if self.moved is not None:
            seen = max(seen, self.moved.upto)
        if len(rejects) < seen:
            seen = 0  # the dealer's ledger started again (a fresh deal the referee has not seen)
        new = [c for c in rejects[seen:] if 0 <= c < 52]
        if len(rejects) <= seen:
            return
        unknown = sum(1 for c in rejects[seen:] if c == m.UNKNOWN_CARD)
        with self._heard_lock:
            unread = min(self.unread_heard, unknown)
            self.unread_heard -= unread
        moves = list(self.moved.moves) if self.moved is not None else []
        moves += [(C.NAMES[c], "reject") for c in new] + [(UNREAD, "reject")] * unread
        self.moved = DealerMoved(tuple(moves), len(rejects))

    def take_moved(self) -> DealerMoved | None:
        """The pending ``DealerMoved``, once (the port posts it after the step's outcome)."""
        out, self.moved = self.moved, None
        if out is not None:
            self.rejects_seen = max(self.rejects_seen, out.upto)
        return out

    def check_rejects(self) -> None:
        """After a step or a read: if the dealer's events told of more reject-pocket cards than
        the referee knows, read the ledger (only then: it costs a round trip)."""
        if self.rejects_heard > self.rejects_seen:
            self.reconcile()

    def run(self, cmd: DealerCommand) -> Event:
        """The outcome of ``cmd`` (DealDone, DealerDone, DealerFault; a DealerMoved when the
        reconciliation found the step's card elsewhere and that ends it). A reconciliation
        found along the way waits in ``take_moved`` (the port posts it after the outcome)."""
        self._current = cmd
        try:
            out = self._run(cmd)
            if isinstance(cmd, Release):
                self._release, self._delivered = None, []
            return out
        except DealerJam as e:
            if isinstance(cmd, DealPlan):
                self.interrupted_deal = cmd.deal_id
            elif isinstance(cmd, Release) and not self.relearn_jammed:
                self.interrupted_release = cmd.step
            elif self.relearn_jammed:
                pass  # it stopped the relearning plan before the step: RESUME finishes that first
            elif e.name != m.NAK_REASON_NAMES.get(m.NAK_JAMMED):  # it stopped this step's motion
                self.jammed_step = cmd.step
            else:
                # refused: a jam between steps stopped the dealer (a loop card checked late at
                # D after the deal was done, say). The people clear it and press Resume: RESUME
                # goes first, then the step (found on the twin: the FETCH was sent again and
                # refused again, three times, and the table gave up)
                self.resume_first = True
            return self._fault("jam", e, cmd)
        except DealerLinkDown as e:
            return self._fault("link_down", e, cmd)
        except DealerStalled as e:  # it answers: not the link, nothing goes on by itself
            if isinstance(cmd, (Fetch, Stage)):
                self.stalled = (cmd.step, e.progress)
            return self._fault("fault", e, cmd)
        except DealerTimeout as e:
            return self._fault("timeout", e, cmd)
        except (LoopCardsMissing, RoutedCardMissing) as e:  # (not a deal that did not check out)
            return self._fault("fault", e, cmd)
        except DealMismatch as e:  # a Release that did not check out
            if isinstance(cmd, Release):
                self._release_checked = cmd.step
            return self._fault("mismatch", e, cmd)
        except DealerError as e:
            if isinstance(cmd, (Fetch, Stage)) and isinstance(e, DriverFault) and self.loop_cards \
                    and e.name == m.NAK_REASON_NAMES[m.NAK_EMPTY] and self.relearn is None:
                # the dealer has no such card in its loop while the referee has cards parked
                # there: its loop model is not what lies in its loop. Resume relearns the loop
                # (every card there read round again; a card not found is named for the play
                # slot) before the step goes again. Found on the physical twin, an e-stop while a
                # played card's eject pulled the turned-up card: that card was cleared from the
                # path with a jam, and the Fetch of it was refused at every Resume.
                self.relearn = list(self.loop_cards)
                self.relearn_sid = None
            return self._fault("fault", e, cmd)
        except (ValueError, OSError) as e:  # a driver bug or a dead port must not stop the table
            return self._fault("fault", e, cmd)
        except _Resolved:
            moved = self.take_moved()
            assert moved is not None
            return dataclasses.replace(moved, ends=cmd.step)  # the step's outcome: it ends it

    def _fault(self, kind: str, e: Exception, cmd: DealerCommand) -> Event:
        self.faults.append(f"{kind}: {e}")
        if isinstance(cmd, (Fetch, Stage)) and kind not in ("link_down", "timeout"):
            self._step_faults[cmd.step] += 1
            if self._step_faults[cmd.step] >= RESYNC_AFTER:
                self.resync = cmd.step
        if kind not in ("link_down", "timeout"):
            self.reconcile()  # where did the dealer put the cards it cleared when it stopped?
        delivered: tuple[tuple[str, str], ...] = ()
        missing: tuple[tuple[str, str], ...] = ()
        if isinstance(cmd, Release):
            delivered = self._take_delivered(cmd)
            if kind == "mismatch":
                # the dealer went through every card it holds: the plan's cards it did not deliver
                # are not in it (carried to the reject pocket by an e-stop, left on the belt or
                # delivered unreported by a reboot); people put them in the play slot
                rest = list(cmd.plan)
                for entry in delivered:
                    if entry in rest:
                        rest.remove(entry)
                missing = tuple(rest)
        if isinstance(e, (LoopCardsMissing, RoutedCardMissing)):
            missing = e.missing
        self.ask = PlaySlotAsk.of(missing, loop=isinstance(e, LoopCardsMissing),
                                  route=isinstance(e, RoutedCardMissing))
        return DealerFault(kind, str(e), cmd.step, delivered, missing)

    def loop_missing_fault(self, e: LoopCardsMissing) -> DealerFault:
        """The stop for a relearning that missed cards outside any step (Resume's relearning)."""
        self.faults.append(f"fault: {e}")
        self.ask = PlaySlotAsk.of(e.missing, loop=True)
        return DealerFault("fault", str(e), None, (), e.missing)

    def _take_delivered(self, cmd: Release) -> tuple[tuple[str, str], ...]:
        """The plan entries of ``cmd`` the dealer reported delivered since the last report (to a
        pocket: a card sent round the loop again, a bot's hand say, is back in the hopper, and a
        plan done again reads it again)."""
        words = {(C.parse(c), target_byte(t)): (c, t) for c, t in cmd.plan}
        rest = [(C.parse(c), target_byte(t)) for c, t in cmd.plan]
        out: list[tuple[str, str]] = []
        for entry in list(self._delivered):
            if entry[1] == LOOP:
                self._delivered.remove(entry)
            elif entry in rest:
                rest.remove(entry)
                self._delivered.remove(entry)
                out.append(words[entry])
        return tuple(out)

    def _release_rest(self, cmd: Release) -> list[tuple[int, int]]:
        """``cmd``'s plan less the cards delivered that no fault reported yet (a card delivered
        while the link was down, its event recovered afterwards)."""
        rest = [(C.parse(c), target_byte(t)) for c, t in cmd.plan]
        for entry in self._delivered:
            if entry in rest and entry[1] != LOOP:  # (a loop card is in the hopper again)
                rest.remove(entry)
        return rest

    def _resume_if_refused(self) -> None:
        """A step (or a read) the dealer refused while a jam between steps held it stopped: the
        people cleared it and pressed Resume, so RESUME goes first."""
        if self.resume_first:
            self.resume_first = False
            try:
                self.dealer.resume()
            except DriverFault as e:
                if e.name != m.NAK_REASON_NAMES.get(m.NAK_BAD_STATE):  # (nothing to resume: fine)
                    raise

    def _progress(self) -> tuple[int, int, int] | None:
        """What the driver's stall check compares (DealerStalled.progress): the dealer's (state,
        cards done, next event index) now."""
        try:
            st = self.dealer.status()
        except (DealerError, ValueError, OSError):
            return None
        return (st.state, st.done, st.next_event_index)

    def _restart_if_stalled(self, cmd: DealerCommand) -> None:
        """The Fetch or Stage the dealer stalled on, sent again once the people looked ("Fixed,
        continue"): if the dealer has not moved on since (the same state, cards done and events:
        nothing caught was freed, or its firmware waits for something that will not come), RESET
        stops it and the step goes again under its next attempt's id. Sent again as it was, the
        dealer took it for the step it still ran and the table stalled again at every continue
        (found with the firmware's frozen-loop FETCH of 7934473 put back: the people could only
        power the dealer off and on). RESET keeps the dealer's loop model; the cards it had on the
        belt come home first (homecoming), and a card in the read window goes to the reject
        pocket, which the reconciliation after it reports."""
        stalled, self.stalled = self.stalled, None
        if stalled is None or stalled[0] != cmd.step or not isinstance(cmd, (Fetch, Stage)):
            return
        now = self._progress()
        if now is None or now != stalled[1] or m.STATE_NAMES.get(now[0]) not in ("DEALING", "MOVING", "FEEDING"):
            return  # it went on (or stopped in a way of its own): the step's own path handles it
        self.faults.append(f"reset: step {cmd.step} made no progress since it stalled")
        self.dealer.reset()
        self.reconcile()
        self._next_attempt(cmd.step)

    def _run(self, cmd: DealerCommand) -> Event:
        d = self.dealer
        self._resume_if_refused()
        self._restart_if_stalled(cmd)
        if isinstance(cmd, V1Step):
            raise V1StepRefused(
                f"this game was journaled with the v1 dealer's steps, and its next step, '{cmd.op}' "
                f"({V1_WORDS.get(cmd.op, 'a v1 step')}), has no counterpart on this dealer; the hand in "
                f"progress cannot go on here: finish it on a v1 dealer, or start a new game")
        if isinstance(cmd, DealPlan):
            plan = [(C.parse(c), target_byte(t)) for c, t in cmd.plan]
            try:
                if self.interrupted_deal == cmd.deal_id:
                    self.interrupted_deal = None
                    d.resume_deal()
                else:
                    self.interrupted_deal = None
                    self.relearn = None  # a new deal starts the dealer's loop model afresh
                    with self._heard_lock:
                        self.rejects_heard = self.unread_heard = 0
                    self.rejects_seen = 0  # a fresh deal: the dealer's reject ledger starts again
                    self._step_faults.clear()
                    # a deal the dealer lost (aborted, a reboot) is redealt by the referee under
                    # a new deal id: StepLost is a fault here, not a new attempt
                    self.deal_step = self._sid(cmd.step)
                    d.deal(plan, step=self.deal_step, fresh=True)
            except DealMismatch as e:
                return DealDone(cmd.deal_id, False, tuple(e.problems) or (str(e),), _unread_entries(cmd, e))
            return DealDone(cmd.deal_id, True)
        card: int | None = None
        self._check_boot()
        self._resync(cmd)
        if self.relearn_jammed and not isinstance(cmd, Abort):
            self.relearn_jammed = False
            try:
                d.resume_deal()
            except DealerJam:
                self.relearn_jammed = True
                raise
            except DealMismatch as e:
                # the relearning, finished after the jam, did not find every card (a card the
                # FETCH under way delivered unheard before the dealer rebooted with a blank
                # flash; the card read before the reboot, routed on): the same reading of it as
                # a relearning that ran straight through
                try:
                    self._relearn_mismatch(e, self.relearn_stopped, self.relearn_gate)
                except BaseException:
                    self.relearn_gate = None
                    raise
            gate, self.relearn_gate = self.relearn_gate, None
            if isinstance(cmd, (RouteFed, FeedBack)) and cmd.card is not None and gate == C.parse(cmd.card):
                if self.gone_on == gate:
                    self.gone_on = None
                return DealerDone(cmd.step, cmd.card)
        if self.relearn is not None and not isinstance(cmd, Abort):
            # before anything else: a rebooted dealer that does not know the cards parked in the
            # hopper would feed one of them as if it were a played card. A card read before the
            # power went and still in the read window goes in the same plan, to its target.
            if isinstance(cmd, RouteFed) and cmd.card is not None and self.in_gate is None \
                    and self.held == C.parse(cmd.card):
                # read and held since the dealer rebooted by itself (it took the play slot's card):
                # routed first (a DEAL_PLAN is refused while a card is held), then the relearning
                # (the move that ejects it may bring a parked card to the window: read first there)
                card = self._route_fed(cmd)
                self._relearn()
                return DealerDone(cmd.step, None if card is None else C.NAMES[card])
            if isinstance(cmd, (RouteFed, FeedBack)) and cmd.card is not None and self.in_gate == C.parse(cmd.card):
                # (a card fed back, read and being routed when the dealer rebooted with a blank
                # flash, the window's card then maybe a loop card a NEXT pull brought: the
                # relearning reads it; the fed card not found went on to its target)
                gate, self.in_gate = self.in_gate, None
                try:
                    self._relearn((gate, target_byte(cmd.target)))
                except BaseException:
                    # not dealt (the link, a fault; kept pending whole): the card is still in
                    # the read window, and the same plan, with it first, is sent again
                    if self.relearn is not None and self.gone_on != gate:
                        self.in_gate = gate
                    raise
                if self.gone_on == gate:
                    self.gone_on = None
                return DealerDone(cmd.step, cmd.card)
            self._relearn()
            if isinstance(cmd, FeedBack) and self.moved is not None and (cmd.card, "reject") in self.moved.moves:
                # the card to feed back was fed while the table was down, and the relearning
                # read it first and sent it to the reject pocket (a card its plan does not
                # hold): the DealerMoved ends the step, the screen asks for it again
                raise _Resolved()
        if self.jammed_step is not None:
            jammed, self.jammed_step = self.jammed_step, None
            if jammed == cmd.step and not isinstance(cmd, (Release, Abort)):
                card = self._resume_step(cmd)
                return DealerDone(cmd.step, None if card is None else C.NAMES[card])
        if isinstance(cmd, RouteFed):
            card = self._route_fed(cmd)
        elif isinstance(cmd, Fetch):
            self._relearn()
            want, where = C.parse(cmd.card), target_byte(cmd.target)
            card = self._tries(cmd.step, 0, lambda sid: d.fetch_loop(want, where, step=sid,
                                                                   then_next=cmd.then_next))
        elif isinstance(cmd, Stage):
            self._relearn()
            want = C.parse(cmd.card)
            self._tries(cmd.step, 0, lambda sid: d.stage(want, step=sid))
            card = want
        elif isinstance(cmd, Release):
            self._relearn()
            self._run_release(cmd)
        elif isinstance(cmd, FeedBack):
            card = self._feed_back(cmd)
        elif isinstance(cmd, Abort):
            d.abort(step=self._sid(cmd.step))
        else:
            raise ValueError(f"a dealer step this table cannot run: {cmd!r}")
        return DealerDone(cmd.step, None if card is None else C.NAMES[card])

    def _resync(self, cmd: DealerCommand) -> None:
        """A Fetch or Stage the dealer stopped ``RESYNC_AFTER`` times, sent again: its loop
        model is taken to be wrong (a card a stop left in the feed or on the belt, one a person
        lifted out clearing a jam), and the loop is relearned before the step goes again:
        whatever the dealer still runs is stopped (ABORT), the cards on the belt come home, every
        card of the loop is read round again, and a card not found is named for the play slot
        (LoopCardsMissing). Found on the physical twin, an e-stop mid-FETCH: the FETCH sent again
        at every Resume met a card jammed at the loop stage, then a dealer idle that never
        reported the end, over and over, until the table gave up."""
        step, self.resync = self.resync, None
        if step != cmd.step or not self.loop_cards or self.relearn is not None or self.relearn_jammed:
            return
        self.faults.append(f"resync: step {cmd.step} stopped {self._step_faults[cmd.step]} times: the loop is relearned")
        self._step_faults[cmd.step] = 0
        try:
            self.dealer.abort()
        except DriverFault:
            pass  # (nothing to stop)
        self.jammed_step = None
        self.resume_first = False
        self.relearn = list(self.loop_cards)
        self.relearn_sid = None  # a fresh relearning, under a fresh id (another plan: CONFLICT)

    def _resume_step(self, cmd: DealerCommand) -> int | None:
        """The step a jam stopped, once the jam is cleared: RESUME, and the dealer finishes the
        motion where it stopped (sending the step again would be refused: the dealer waits for
        RESUME, the card is still in its path)."""
        d = self.dealer
        try:
            ev = d.resume_step()
        except DriverFault as e:
            if e.name == "MISREAD":  # the card fed back could not be read
                return None
            raise
        if isinstance(cmd, RouteFed):
            self.held = None
            return int(ev["card"])
        if isinstance(cmd, Stage):
            return C.parse(cmd.card)
        if isinstance(cmd, FeedBack) and ev.kind == m.EV_PRESENTED:  # stopped while reading it
            card = int(ev["card"])
            self.held = card
            if card == C.parse(cmd.card):
                d.route_presented(target_byte(cmd.target), place=cmd.place)
                self.held = None
            return card
        return int(ev["card"])

    def _run_release(self, cmd: Release) -> None:
        """Hand the parked cards over: one DEAL_PLAN over the loop's cards. After a jam the
        dealer's own deal goes on (RESUME: it knows which entries are done). Sent again after
        the link went down, the dealer is asked what that deal did: still running, stopped by
        its dead-man or done, the same deal (its id, its plan) is finished; aborted (an e-stop),
        interrupted by a reboot or never received, the step comes back with only the cards still
        in the loop, and those are dealt under the next attempt's id."""
        d = self.dealer
        again = self._release == cmd.step
        if not again:
            self._release, self._delivered = cmd.step, []
        if self.interrupted_release == cmd.step:
            self.interrupted_release = None
            d.resume_deal()
            return
        self.interrupted_release = None
        sent = self._release_plan.get(cmd.step)
        if sent is not None and self._release_checked == cmd.step:
            sent = None  # it ended and did not check out: what is left goes under a new id
            self._next_attempt(cmd.step)
        self._release_checked = None
        if sent is not None:
            sid = self._sid(cmd.step)
            info = d.query_step(sid)
            if info.state in (m.STEP_RUNNING, m.STEP_STOPPED, m.STEP_DONE):
                d.deal(sent, step=sid)  # the dealer has it: it is finished, not dealt again
                return
            self._next_attempt(cmd.step)  # lost: what is left of it goes under a new id
        if again and d.status().next_event_index != d.link.next_event_index:
            # done again after a link that went down: the events the dealer logged meanwhile
            # (cards it delivered before it stopped) first, so that they are left out
            d.link.recover_events()
        rest = _twins_last_first(self._release_rest(cmd), self._release_plan.get(cmd.step))
        if rest:
            self._release_plan[cmd.step] = rest

            def send(sid: int) -> Any:
                plan = self._release_plan[cmd.step]
                try:
                    return d.deal(plan, step=sid)
                except StepLost:
                    # the dealer lost this very plan (a restarted host sent it again under its
                    # first id, and the dealer had rebooted while it ran): its next attempt sends
                    # the twins last first, as after a reboot the host saw
                    self._release_plan[cmd.step] = _twins_last_first(plan, plan)
                    raise

            self._tries(cmd.step, 0, send)

    def relearn_now(self) -> None:
        """Deal the loop's cards back to the loop now (resume, before anything is read); kept
        pending if the dealer fails."""
        self._relearn()

    def _relearn(self, gate: tuple[int, int] | None = None) -> None:
        """After a restart: deal the loop's cards back to the loop, so the dealer knows them
        (``gate``: the card waiting in the read window, with its target, read first)."""
        cards, self.relearn = self.relearn, None
        plan = ([gate] if gate is not None else []) + [(c, LOOP) for c in cards or []]
        if not plan:
            return
        def deal(sid: int) -> Any:
            try:
                return self.dealer.deal(plan, step=self.relearn_sid or sid)
            except DealerStepConflict:
                # the dealer holds that id for an earlier relearning with other cards (or in
                # another order): this one is a new step. Found on the physical twin (estop_fetch,
                # seed 11025): read as the link down, the table waited for good
                self.relearn_sid = self.dealer.new_step_id()
                return self.dealer.deal(plan, step=self.relearn_sid)

        try:
            # one id for the relearning (referee step 0: no step of the game has it): sent again
            # after the link went down, the dealer finishes it instead of starting another
            self._tries(0, 0, deal)
            self.relearn_sid = None
        except DealerJam:
            self.relearn_jammed = True  # the dealer waits for RESUME with its plan
            self.relearn_gate = gate[0] if gate is not None else None
            self.relearn_stopped = cards
            raise
        except DealMismatch as e:
            self._relearn_mismatch(e, cards, gate[0] if gate is not None else None)
        except BaseException:
            # not dealt (the link, a fault): dealt again next time, whole; the cards it read
            # went round the loop onto the hopper again, so all are still there to be read
            self.relearn = cards
            raise

    def _relearn_mismatch(self, e: DealMismatch, cards: list[int] | None, gate: int | None) -> None:
        """A relearning of ``cards`` (``gate``: the card of the read window, read first) ended
        unlike its plan, run at once or resumed after a jam stopped it: what the difference
        means and what is done about it (returns when the step can go on, else raises)."""
        passing = isinstance(self._current, Release) and Counter(e.missing or ()) <= Counter(
            C.parse(c) for c, _ in self._current.plan)
        if e.missing is not None and passing:
            # passed cards of the hand-over under way: every other card went round the loop,
            # and the Release, done again, reads the hopper afresh and asks each receiver for
            # the ones it does not find ("passed to you": delivered unreported)
            return
        if e.missing is not None and gate is not None and e.missing == [gate]:
            # the card read before the reboot was not in the read window (a parked card a
            # NEXT pull brought there was): its routing was under way and it went on to its
            # pocket. The loop is relearned once more, cleanly, and the step ends (with that
            # card, also when the relearning stops for a jam and the step is done again after
            # Resume: ``gone_on``)
            self.gone_on = gate
            self._relearn_again(cards)
            return
        if e.missing is not None and self._delivered_by_step(e.missing) == len(e.missing):
            # the card the step under way was fetching: the dealer's step memory (kept on its
            # flash) says it delivered it before it rebooted; every other card went round the
            # loop, and the step, sent again, ends with that answer. The loop is relearned
            # once more without it: a deal that missed a card leaves the dealer's loop
            # model and window in a state a FETCH could not go on from (found with the
            # watchdog right after a German Whist FETCH: the next FETCH made no progress)
            delivered = C.parse(self._current.card) if isinstance(self._current, Fetch) else None
            rest = list(cards or [])
            if delivered in rest:
                rest.remove(delivered)
            if rest:
                self._relearn_again(rest)  # (a card of the read window went to its target in the first)
            return
        if e.missing is not None and (gate is None or gate not in e.missing):
            # Every other card went round the loop and the dealer knows them again; these are
            # not in it. Found on the simulated table: the dealer rebooted by itself just
            # after a FETCH put its card in the seat's pocket, before it could say so (or a
            # card stopped on the belt). Sent again, the relearning only misses them again:
            # the table stops and names them (on the receiver's screen for the card the step
            # was fetching); the person puts them in the play slot, and Resume deals them to
            # the loop before the step is done again (with all the others: a DEAL_PLAN reads
            # the hopper afresh, its plan must hold every card parked there).
            self.relearn = cards
            self.relearn_sid = self.dealer.new_step_id()
            where = self._fetching()
            missing = tuple((C.NAMES[c], where.get(c, "loop")) for c in e.missing)
            raise LoopCardsMissing(
                f"{len(e.missing)} card(s) parked in the dealer's loop are not there after it restarted "
                f"({' '.join(C.names(e.missing))}): {e}", missing) from e
        if e.strays is None:
            # a card of the plan was not found (still on its way round when the relearning
            # began: a dealer that rebooted by itself with a card on the belt): the next try
            # is a new deal under a new id (under the same id the dealer would only answer
            # with this deal's outcome again, Resume after Resume)
            self.relearn_sid = self.dealer.new_step_id()
            self.relearn = cards
            raise e
        # Every loop card went back round the loop; the only difference is a card the plan
        # does not hold, read first and sent to the reject pocket by name: a card a player
        # fed while the table was down (the feed move takes the play slot's card first).
        # The relearning is done (sent again under its id it would only give the same
        # answer, and the table would stick); the reject pocket's reconciliation tells the
        # referee where that card went, and the screen asks its player to feed it again.
        self.reconcile()

    def _relearn_again(self, cards: list[int] | None) -> None:
        """The relearning once more, of ``cards``, under a new id (under the same id the dealer
        would only answer with the last one's outcome): the deal that missed a card left the
        dealer's loop model and window in a state a FETCH could not go on from."""
        self.relearn = cards
        self.relearn_sid = self.dealer.new_step_id()
        self._relearn()

    def _delivered_by_step(self, missing: list[int]) -> int:
        """How many of ``missing`` the FETCH run last delivered, by the dealer's step memory."""
        cmd = self._current
        if not isinstance(cmd, Fetch) or C.parse(cmd.card) not in missing:
            return 0
        try:
            info = self.dealer.query_step(self._sid(cmd.step, 0))
        except (DealerError, ValueError, OSError):
            return 0
        delivered = info.state == m.STEP_DONE and info.card == C.parse(cmd.card)
        return int(delivered)

    def _fetching(self) -> dict[int, str]:
        """The cards the step run last was taking out of the loop, each with its target (a
        FETCH's card, a Release's passed cards): a card missing from the loop after a reboot may
        lie in that pocket, delivered unreported."""
        cmd = self._current
        if isinstance(cmd, Fetch):
            return {C.parse(cmd.card): cmd.target}
        if isinstance(cmd, Release):
            out: dict[int, str] = {}
            for card, target in cmd.plan:
                if target.startswith("seat:"):
                    out.setdefault(C.parse(card), target)
            return out
        return {}

    def _held_before_reboot(self, step: int, name: str) -> bool:
        """The card ``name``, read and held for the step before the dealer rebooted by itself
        (note_boot): gone from its window, it went on to its target (True: the step is done,
        unless the reconciliation found it in the reject pocket); still in the window, it is
        read there again (held afterwards, False)."""
        want = C.parse(name)
        if self.gone_on == want and self.held != want and self.in_gate != want:
            self.gone_on = None
            self.reconcile()
            if self.moved is not None and (name, "reject") in self.moved.moves:
                raise _Resolved()  # (cleared to the reject pocket: DealerMoved ends the step)
            return True
        if self.held != want and self.in_gate == want:
            try:
                self._tries(step, 0, lambda sid: self._read_as(sid))  # it is in the gate: read it there
            except (DealerTimeout, DealerLinkDown):
                raise  # not heard (a slow restart): the card is still in the window, read there next time
            except BaseException:
                self.in_gate = None
                raise
            self.in_gate = None
            if self.held != want:
                raise DealerJam("the reader gate held another card than the one read before the "
                                "power went: take the card out of the gate, then Resume")
        return False

    def _feed_back(self, cmd: FeedBack) -> int | None:
        """The player feeds the card back; the card due goes on to its target, another one
        stays held in the gate (the referee routes it); an unreadable one went to the reject
        pocket (None)."""
        due = C.parse(cmd.card)
        d = self.dealer
        route = target_byte(cmd.target)
        if self._held_before_reboot(cmd.step, cmd.card):  # (a FEED would wait for a person to
            return due  # feed a card they no longer have)
        if self.held == due:  # read before a fault: is it still held in the gate?
            self.feeding = False  # only routed: nobody feeds anything
            try:
                # (the same body as the first try, flags byte and all: another is a CONFLICT)
                self._tries(cmd.step, 1, lambda sid: d.route_presented(route, step=sid, place=cmd.place,
                                                                       then_next=cmd.then_next))
                self.held = None
                return due
            except DriverFault as e:
                if e.name != m.NAK_REASON_NAMES[m.NAK_EMPTY]:
                    raise
                self.held = None  # cleared meanwhile (an e-stop's RESET): it is fed back again
                self.reconcile()
        if self.held != due:
            if self.auto_feed_back and self.refeed is not None:
                self.refeed(due, cmd.seat)
            self.feeding = True
            try:
                card = self._tries(cmd.step, 0, lambda sid: self._read_as(sid))
            except DriverFault as e:
                if e.name == "MISREAD":
                    return None
                raise
            finally:
                self.feeding = False
        else:
            card = self.held
        if card == due:
            self._tries(cmd.step, 1, lambda sid: d.route_presented(route, step=sid, place=cmd.place,
                                                                   then_next=cmd.then_next))
            self.held = None
        return card

    def _read_as(self, sid: int) -> int:
        card = self.dealer.read_card(step=sid)
        self.held = card
        return card

    def _route_fed(self, cmd: RouteFed) -> int | None:
        """The card read and held in the reader gate, to its target (read again where it is
        after a restart). Sent again after a fault, the routing's id says whether it was done;
        a card no longer in the gate and not routed was cleared to the reject pocket (the
        reconciliation tells the referee, which ends the step there)."""
        if cmd.card is None:
            return None
        d = self.dealer
        want = C.parse(cmd.card)
        if self._held_before_reboot(cmd.step, cmd.card):
            return want
        route = self._sid(cmd.step, 1)
        if self.held != want:
            # not known to be held (a fault came between): did the routing happen, is it held?
            info = d.query_step(route)
            if info.state not in (m.STEP_UNKNOWN, m.STEP_ABORTED, m.STEP_INTERRUPTED):
                card = d.route_presented(target_byte(cmd.target), step=route,  # what it did
                                         then_next=cmd.then_next)  # (the same body: another is a CONFLICT)
                self.held = None
                return card
            inv = d.inventory(loop=False)
            if not (inv.held and inv.window == want):
                self._note_rejects(list(inv.rejects))
                if self.moved is not None and (cmd.card, "reject") in self.moved.moves:
                    raise _Resolved()  # cleared to the reject pocket: DealerMoved ends the step
                if inv.held:  # another card waits in the read window: not the one to read again
                    raise DriverFault(f"{cmd.card} is not in the reader gate and the dealer did not route it",
                                      name="NOT_HELD")
                self._from_slot(cmd, want)
            else:
                self.held = want
        try:
            card = self._tries(cmd.step, 1, lambda sid: d.route_presented(target_byte(cmd.target), step=sid,
                                                                          then_next=cmd.then_next))
        except DriverFault as e:
            if e.name != m.NAK_REASON_NAMES[m.NAK_EMPTY]:
                raise
            if self._rebooted_holding(want):
                # the dealer rebooted by itself after it read the card (a watchdog): the card
                # lies in its read window, unread since the boot; read there again and routed
                # (after the loop's relearning, if it lost the loop model too)
                return self._run_again(cmd)
            # nothing held after all (cleared to the reject pocket meanwhile: an e-stop's RESET,
            # an ABORT that crossed the read): where is it?
            self.held = None
            self.reconcile()
            if self.moved is not None and (cmd.card, "reject") in self.moved.moves:
                raise _Resolved() from None
            if not d.inventory(loop=False).held:  # not in the window either: a stop lost it
                self.slot_asked = None
                self._from_slot(cmd, want)  # (asks the people for it: RoutedCardMissing)
            raise
        self.held = None
        return card


    def _from_slot(self, cmd: RouteFed, want: int) -> None:
        """``cmd``'s card is neither in the reader gate, nor routed, nor in the reject pocket: a
        stop caught it on its way. The first time, the people are asked to put it in the play
        slot (RoutedCardMissing); sent again after that, the step reads it from the slot (FEED
        HOLD) and holds it, to be routed. Found on the physical twin, the e-stop pressed while a
        played card was read and routed (German Whist): the RouteFed, sent again at every Resume,
        met "not in the reader gate" three times and the table stopped for good."""
        assert cmd.card is not None
        missing = ((cmd.card, cmd.target),)
        if self.slot_asked != cmd.step:
            self.slot_asked = cmd.step
            raise RoutedCardMissing(f"{cmd.card} is not in the reader gate, and the dealer neither routed it nor "
                                    f"cleared it to its reject pocket", missing)
        d = self.dealer
        if self.slot_stop:  # the last read of it jammed: that FEED is stopped before a fresh one
            self.slot_stop = False
            try:
                d.abort()
            except (DealerError, ValueError, OSError):
                pass
        try:
            card = self._tries(cmd.step, 0, lambda sid: d.read_card(timeout=SLOT_READ_S, step=sid))
        except DealerJam as e:
            # the card jammed on its way in from the slot (or came in with another): the people
            # clear it and put it in the slot again. Not the jam's own RESUME: the jammed FEED is
            # the read, not this step's routing (found on the twin: RESUME finished the read as
            # if it were the routing, and the table went round "idle but never reported the end"
            # and double feeds until it gave up)
            self.slot_stop = True
            raise RoutedCardMissing(f"reading {cmd.card} from the play slot: {e}", missing) from e
        except DealerTimeout as e:
            try:
                d.abort()  # (the FEED would wait on: the next read is a fresh one)
            except (DealerError, ValueError, OSError):
                pass
            raise RoutedCardMissing(f"{cmd.card} was not put in the play slot: no card there in "
                                    f"{SLOT_READ_S:g} s", missing) from e
        except DriverFault as e:
            if e.name != "MISREAD":
                raise
            self.reconcile()  # (it went to the reject pocket, unread: taken from there again)
            raise RoutedCardMissing(f"the card put in the play slot for {cmd.card} could not be read; it went "
                                    f"to the reject pocket", missing) from e
        finally:
            self._next_attempt(cmd.step, 0)  # another read of it, if any, is a fresh FEED
        if card != want:
            # another card: it goes to the reject pocket (the reconciliation tells its owner to
            # take it back) and the card is asked for again
            d.route_presented(target_byte("reject"), step=d.new_step_id())
            self.reconcile()
            raise RoutedCardMissing(f"the play slot gave {C.NAMES[card]}, not {cmd.card}; it went to the reject "
                                    f"pocket", missing)
        self.slot_asked = None
        self.held = want

    def _rebooted_holding(self, card: int) -> bool:
        """Whether the dealer rebooted since the adapter last looked, with ``card`` (read and
        held before) left in its read window (note_boot then has it read there again)."""
        try:
            st = self.dealer.status()
        except (DealerError, ValueError, OSError):
            return False
        if self.boot_seen is None or int(st.boot_id) == self.boot_seen or self.held != card:
            return False
        self.note_boot(st)
        return self.in_gate == card or self.gone_on == card

    def _run_again(self, cmd: RouteFed) -> int | None:
        out = self._run(cmd)
        assert isinstance(out, DealerDone)
        return None if out.card is None else C.parse(out.card)


def _twins_last_first(rest: list[tuple[int, int]], sent: list[tuple[int, int]] | None) -> list[tuple[int, int]]:
    """A Release done again: a card the plan holds twice (two decks) with its entries in the
    reverse of the order the last plan sent had them.

    The dealer fills a card's entries in plan order, and a reboot loses the events of the last
    cards it delivered: one copy of QH may lie in the first entry's pocket (seat 1) unreported,
    both entries still open. Sent again in the same order, the other copy read would fill the
    first entry again (seat 1 with both QH, seat 3 told to look for theirs); last first, it
    fills the entry no copy reached, and each copy the deal then misses lies in its own
    receiver's pocket, where the screen tells that receiver to look (issue 18)."""
    if not sent:
        return rest
    order = {entry: i for i, entry in enumerate(sent)}  # (a twin to the same seat: one place)
    out = list(rest)
    for card in {c for c, _ in rest}:
        at = [i for i, (c, _) in enumerate(rest) if c == card]
        if len(at) < 2:
            continue
        entries = sorted((rest[i] for i in at), key=lambda e: -order.get(e, -1))
        for i, entry in zip(at, entries, strict=True):
            out[i] = entry
    return out


def _unread_entries(cmd: DealPlan, e: DealMismatch) -> tuple[tuple[str, str], ...]:
    """The entries of ``cmd``'s plan, as the referee wrote them, of the cards the reader could
    not read (``e.unread``, the deal's only difference from its plan), in the plan's order."""
    if not e.unread:
        return ()
    left = list(e.unread)
    out: list[tuple[str, str]] = []
    for c, t in cmd.plan:
        entry = (C.parse(c), target_byte(t))
        if entry in left:
            left.remove(entry)
            out.append((c, t))
    return tuple(out) if not left else ()


def plan_bytes(plan: list[tuple[int, str]]) -> list[tuple[int, int]]:
    return [(c, target_byte(t)) for c, t in plan]


__all__: list[Any] = ["DealerAdapter", "LOOP", "TARGET_BYTES", "V1StepRefused", "plan_bytes", "target_byte"]
