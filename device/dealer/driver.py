"""The card dealer as the referee sees it: deal a plan, show and route stock cards, read fed
cards, stop, reset, test.

Every moving command follows one pattern: register for the dealer's events, send the command
(the link retransmits and reconnects underneath), then wait for the event that ends it while
watching for the ones that mean trouble (jam, e-stop, fault, abort, reboot, lost events).
The wait is event-driven; when the dealer is quiet the driver asks STATUS, which also
recovers events whose frames were lost. A deal is then replayed against its plan on the host
(``device.dealer.plan.check_deal``) and reported good only if every card is where the plan
put it; otherwise ``DealMismatch`` lists the differences. Any other failure leaves the dealer
stopped: jams and e-stops stop it by themselves, every other error is followed by an ABORT
(and if even that cannot get through, the dealer's dead-man timeout stops its motors).

Protocol 3: every step carries a step id (``step=``; a fresh one when the caller gives none).
A step sent again with its id (after a lost answer, an outage, a host restart) is answered by
the dealer with what it did (a STEP reply), never done twice: the driver then takes the step's
events from the dealer's log and finishes waiting as if it had never lost sight of it. A link
that fails (timeout, link down) is therefore not followed by an ABORT: the dealer's dead-man
stops its motors if the host stays silent, and the caller sends the same step again to learn
what it did (``query_step``); ``inventory`` says where the dealer put the cards.

Event callbacks (``on_event``/``add_listener``) run on the link's reader thread: show the
event, hand work to another thread, never call Dealer methods from them.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from trickref.device.dealer import messages as m
from trickref.device.dealer.errors import (
    DealerError,
    DealerFault,
    DealerJam,
    DealerLinkDown,
    DealerProtocolError,
    DealerStalled,
    DealerStepConflict,
    DealerTimeout,
    DealMismatch,
)
from trickref.device.dealer.link import DealerLink, DealerRebooted, EventCallback
from trickref.device.dealer.plan import DealPlan, DealReport, check_deal
from trickref.device.dealer.types import (
    EV_EVENTS_LOST,
    EV_REBOOTED,
    Event,
    Identity,
    Inventory,
    Reply,
    Status,
    StepInfo,
)

__all__ = [
    "Dealer", "DealPlan", "DealReport", "FeedReport", "SelfTestReport", "DealerRebooted", "StepLost",
]

# States in which the dealer is waiting for something outside itself (a button, cards to be
# fed, a human), so a long quiet spell is not a stall. FEEDING (5) is one when STATUS flags bit6
# says the FEED waits for a person's card (with cards parked in the loop the hopper is never
# empty: a player thinking over a pass card or a play is not a stalled dealer).
_WAITING_STATES = {1, 3, 6, 7, 8, 10}

# States in which the dealer's mechanism runs (DEALING, MOVING, FEEDING): a moving command it
# refuses BUSY then is sent again once it is still (``_request_when_still``)
_MOTION_STATES = {2, 4, 5}
BUSY_POLL_S = 0.02  # STATUS this often while the mechanism runs on

# fresh step ids checked against the dealer's memory after a driver starts (``new_step_id``):
# twice the firmware's STEP_MEMORY (16), so every step a host before this one made is forgotten
# by the time the checks stop
FRESH_IDS_CHECKED = 32

class StepLost(DealerFault):
    """A step sent again that the dealer did not finish and will not: it was aborted (ABORT,
    e-stop, RESET), interrupted by a reboot, or forgotten. ``info`` is what the dealer said;
    the caller finds out where the cards are, then sends the step again under a new id."""

    def __init__(self, message: str, info: StepInfo) -> None:
        super().__init__(message, code=info.state, name="STEP_LOST")
        self.info = info


@dataclass(frozen=True)
class FeedReport:
    """Cards read from the hopper by a FEED, in the order read, with where each went."""

    placements: tuple[tuple[int, int], ...]
    misreads: int

    @property
    def cards(self) -> list[int]:
        return [c for c, _ in self.placements]


@dataclass(frozen=True)
class SelfTestReport:
    """What a self-test read: a full deck has read == 52 and no misreads/missing/duplicates."""

    read: int
    misreads: int
    missing: tuple[int, ...]
    duplicates: tuple[int, ...]
    placements: tuple[tuple[int, int], ...] = field(default=())

    @property
    def ok(self) -> bool:
        return self.read == 52 and not (self.misreads or self.missing or self.duplicates)


class _Watch:
    """The events of one operation, collected from the reader thread."""

    def __init__(self) -> None:
        self._cv = threading.Condition()
        self.events: list[Event] = []

    def __call__(self, event: Event) -> None:
        with self._cv:
            self.events.append(event)
            self._cv.notify_all()

    def since(self, n: int) -> list[Event]:
        with self._cv:
            return self.events[n:]

    def wait_beyond(self, n: int, timeout: float) -> bool:
        with self._cv:
            return self._cv.wait_for(lambda: len(self.events) > n, timeout)

    def add_remembered(self, events: list[Event]) -> None:
        """Add the end of a step told by the dealer's step memory (not its event log)."""
        with self._cv:
            self.events.extend(events)
            self._cv.notify_all()

    def fill(self, events: list[Event], seen: int = 0) -> int:
        """Add the events of a step re-read from the dealer's log that this watch missed (it
        was registered after they were logged); those not yet looked at (past ``seen``) are
        kept in index order. Returns how many were added."""
        with self._cv:
            have = {e.index for e in self.events if not e.is_notice}
            new = [e for e in events if e.index not in have]
            if not new:
                return 0
            tail = self.events[seen:] + new
            real = sorted((e for e in tail if not e.is_notice), key=lambda e: e.index)
            self.events[seen:] = real + [e for e in tail if e.is_notice]
            self._cv.notify_all()
            return len(new)


@dataclass
class _Interrupted:
    plan: DealPlan
    deal_id: int
    watch: _Watch
    timeout: float | None


@dataclass
class _Stopped:
    """A single-card command a jam stopped: what ``resume_step`` needs to finish waiting."""

    what: str
    done: Callable[[Event], bool]
    then: Callable[[Event], bool] | None
    watch: _Watch
    timeout: float | None
    ev: Event | None  # the ``done`` event, when the jam came after it (waiting for ``then``)
    after: Callable[[Event], None] | None
    step: int | None = None


class Dealer:
    """High-level dealer API over a DealerLink (see the module docstring)."""

    def __init__(
        self,
        url: str | None = None,
        *,
        link: DealerLink | None = None,
        on_event: EventCallback | None = None,
        baudrate: int = 115200,
        reply_timeout: float = 0.25,
        retries: int = 5,
        deadman_ms: int = 3000,
        link_timeout: float = 10.0,
        poll_interval: float = 1.0,
        stall_timeout: float = 30.0,
    ) -> None:
        if link is None:
            if url is None:
                raise ValueError("Dealer needs a port URL or a DealerLink")
            link = DealerLink(url, baudrate=baudrate, reply_timeout=reply_timeout,
                              retries=retries, deadman_ms=deadman_ms, link_timeout=link_timeout)
        self.link = link
        self.poll_interval = poll_interval
        self.stall_timeout = stall_timeout
        self._op_lock = threading.Lock()
        # fresh step ids have the top bit set; callers with ids of their own (the table's, made
        # from the referee's step numbers) use 0x0001..0x7FFF, so the two never meet
        self._step_ids = itertools.count(int.from_bytes(os.urandom(2), "big") & 0x7FFF)
        # ... and the first of them are checked against the dealer's memory (``new_step_id``)
        self._ids_to_check = FRESH_IDS_CHECKED
        self.ids_skipped = 0  # fresh ids the dealer still remembered from an earlier host
        self.busy_waits = 0  # moving commands sent again once a mechanism running on was still
        self._interrupted: _Interrupted | None = None
        self._stopped: _Stopped | None = None
        # an operation failed (the link may have missed events it logged meanwhile): the next
        # one first fetches them, so they are not taken for its own
        self._unsure = False
        self._feed_hold = False
        self.last_report: DealReport | None = None
        if on_event is not None:
            self.link.add_listener(on_event)

    # --- lifecycle ------------------------------------------------------------------------

    def open(self, timeout: float | None = None) -> Identity:
        """Open the port and shake hands; returns who the dealer is."""
        return self.link.open(timeout)

    def close(self) -> None:
        self.link.close()

    def __enter__(self) -> Dealer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def add_listener(self, callback: EventCallback) -> None:
        """Every dealer event and link notice, in order, on the reader thread."""
        self.link.add_listener(callback)

    def remove_listener(self, callback: EventCallback) -> None:
        self.link.remove_listener(callback)

    @property
    def identity(self) -> Identity:
        if self.link.identity is None:
            raise DealerLinkDown("the dealer link is not open")
        return self.link.identity

    def new_step_id(self) -> int:
        """A fresh step id (0x8000..0xFFFF): one the dealer does not remember.

        The ids run on from a random start, so a host started again (a power cut of the Pi, the
        dealer going on) may land on an id the dealer still remembers from the host before it
        (it keeps its last ``STEP_MEMORY`` steps, 16 on the firmware). The dealer answers such
        an id with what it did then: a read answered with a card read and routed long ago, an
        ABORT refused as a CONFLICT. The table then took a card nobody had fed and stopped on
        "not in the reader gate" after every Resume, for good (seen in the power-cut sweep about
        once in 600 restarts). So the first ``FRESH_IDS_CHECKED`` ids of a driver are asked
        about (STEP_QUERY) before use and any the dealer knows is skipped; by then the dealer
        has remembered that many steps of this host, and forgotten every id of the last one."""
        while True:
            sid = 0x8000 | (next(self._step_ids) & 0x7FFF)
            if self._ids_to_check <= 0 or self.link.identity is None:
                return sid
            self._ids_to_check -= 1
            if self.query_step(sid).state == m.STEP_UNKNOWN:
                return sid
            self.ids_skipped += 1

    # --- queries --------------------------------------------------------------------------

    def query_step(self, step: int) -> StepInfo:
        """What the dealer remembers of step ``step`` (STEP_QUERY): running, done (the card and
        where it went), stopped, aborted, interrupted by a reboot, held, or unknown."""
        reply = self.link.request(m.STEP_QUERY, {"step": step})
        if reply.type != m.STEP:
            raise DealerProtocolError(f"the dealer answered STEP_QUERY with {reply.name}")
        return StepInfo.from_fields(reply.fields)

    def inventory(self, *, loop: bool = True) -> Inventory:
        """Where the dealer believes the cards are (INVENTORY, part by part, in small pieces on
        a noisy line): the read window, the loop model, the cards each pocket received and those
        it sent to the reject pocket since the last fresh deal."""
        head = self._inventory_part(m.INV_SUMMARY)
        window, flags = head[0], head[1]
        pairs = self._inventory_part(m.INV_POCKETS)
        pockets = {pairs[i]: pairs[i + 1] for i in range(0, len(pairs) - 1, 2)}
        rejects = tuple(self._inventory_part(m.INV_REJECT))
        cards = tuple(self._inventory_part(m.INV_LOOP)) if loop else ()
        return Inventory(window if flags & 1 else None, bool(flags & 2), bool(flags & 4), cards,
                         pockets, rejects)

    def _inventory_part(self, part: int) -> list[int]:
        size = 2 if part == m.INV_POCKETS else 1
        out: list[int] = []
        noisy = self.link.byte_error_rate() > 0.0005
        while True:
            offset = len(out) // size
            reply = self.link.request(m.INVENTORY, {"part": part, "offset": offset,
                                                   "max_items": 16 if noisy else 0})
            if reply.type != m.INVENTORY_REPLY:
                raise DealerProtocolError(f"the dealer answered INVENTORY with {reply.name}")
            items = list(reply.fields["items"])
            out.extend(items)
            total = reply.fields["total"]
            if part == m.INV_SUMMARY or not items or len(out) // size >= total:
                return out

    def identify(self) -> Identity:
        """HELLO again and return IDENTIFY (firmware version, seats, pockets, boot id)."""
        return self.link.handshake()

    def status(self) -> Status:
        reply = self.link.request(m.STATUS)
        if reply.type != m.STATUS_REPLY:
            raise DealerProtocolError(f"the dealer answered STATUS with {reply.name}")
        return Status.from_fields(reply.fields)

    # --- deals ----------------------------------------------------------------------------

    def deal(self, plan: DealPlan | Iterable[tuple[int | str, int]], *,
             timeout: float | None = None, step: int | None = None, fresh: bool = False) -> DealReport:
        """Deal ``plan`` and return its report once every card is checked to be where the plan
        put it. ``step``: the deal's id (its step id); the same id sent again after a failure
        does not deal again: the dealer says what it did and the driver finishes with it.
        ``fresh``: the players gathered every card into the hopper (a hand's deal), so the
        dealer starts counting its pockets again. Raises DealMismatch (the hand must not be
        played), DealerJam (the dealer waits; clear it and call ``resume_deal``), DealerFault
        (e-stop, fault, abort, reboot), DealerTimeout / DealerLinkDown (the link: send the same
        step again when it is back)."""
        if not isinstance(plan, DealPlan):
            plan = DealPlan(plan)
        self._check_plan(plan)
        with self._op_lock:
            self._drop_interrupted()
            self._catch_up()
            deal_id = step if step is not None else self.new_step_id()
            watch = _Watch()
            self.link.add_listener(watch)
            keep = False
            try:
                info = self._send_plan(plan, deal_id, fresh)
                if info is not None:
                    self._adopt(watch, info, f"deal {deal_id}")
                report = self._finish_deal(plan, deal_id, watch, timeout, step=deal_id)
                return report
            except DealerJam:
                self._interrupted = _Interrupted(plan, deal_id, watch, timeout)
                keep = True
                raise
            except DealerError as e:
                # Also after a mismatch: lost events can end the check while cards still move.
                self._make_safe(e)
                raise
            finally:
                if not keep:
                    self.link.remove_listener(watch)

    def resume_deal(self, timeout: float | None = None) -> DealReport:
        """After a jam was cleared by hand: RESUME the interrupted deal and finish it."""
        with self._op_lock:
            job = self._interrupted
            if job is None:
                raise DealerFault("there is no interrupted deal to resume", name="BAD_STATE")
            self._interrupted = None  # its event watch stays registered: it is used below
            keep = False
            try:
                # The jam that interrupted the deal is already handled: look past it.
                skip = len(job.watch.since(0))
                self._resume_stopped(job.deal_id)
                return self._finish_deal(job.plan, job.deal_id, job.watch,
                                         timeout if timeout is not None else job.timeout, skip,
                                         step=job.deal_id)
            except DealerJam:
                self._interrupted = job
                keep = True
                raise
            except DealerError as e:
                self._make_safe(e)
                raise
            finally:
                if not keep:
                    self.link.remove_listener(job.watch)

    def _drop_interrupted(self) -> None:
        """Forget a jammed deal or step that will not be resumed (and stop collecting its
        events)."""
        job, self._interrupted = self._interrupted, None
        if job is not None:
            self.link.remove_listener(job.watch)
        self._drop_stopped()

    def _drop_stopped(self) -> None:
        stopped, self._stopped = self._stopped, None
        if stopped is not None:
            self.link.remove_listener(stopped.watch)

    def resume_step(self, timeout: float | None = None) -> Event:
        """After a jam cleared by hand: RESUME the single-card command it stopped (a routing,
        a fetch, a stage, a read) and wait for its end; returns the event that ended it (the
        same one the command's own call returns)."""
        with self._op_lock:
            job = self._stopped
            if job is None:
                raise DealerFault("there is no interrupted step to resume", name="BAD_STATE")
            self._stopped = None
            keep = False
            try:
                skip = len(job.watch.since(0))  # past the jam, already handled
                self._resume_stopped(job.step)
                wait = timeout if timeout is not None else job.timeout
                ev = job.ev
                if ev is None:
                    ev = self._wait(job.watch, job.done, job.what, wait, skip=skip, step=job.step)
                    skip = job.watch.events.index(ev) + 1
                if job.then is not None:
                    self._wait(job.watch, job.then, job.what, wait, skip=skip, step=job.step)
            except DealerJam:
                self._stopped = job
                keep = True
                raise
            except DealerError as e:
                self._make_safe(e)
                raise
            finally:
                if not keep:
                    self.link.remove_listener(job.watch)
        if job.after is not None:
            job.after(ev)
        return ev

    def _check_plan(self, plan: DealPlan) -> None:
        ident = self.identity
        if len(plan) > ident.max_plan:
            raise ValueError(f"the plan has {len(plan)} cards, this dealer takes at most "
                             f"{ident.max_plan}")
        for card, target in plan.entries:
            if target < m.MAX_SEATS and target >= ident.seat_count:
                raise ValueError(f"the plan sends {m.card_name(card)} to seat {target}, this "
                                 f"dealer has {ident.seat_count} seats")
            if target >= 0x80 and ident.trays and target not in ident.trays:
                raise ValueError(f"the plan sends {m.card_name(card)} to the "
                                 f"{m.target_name(target)}, which this dealer lacks")
        if sum(1 for _, t in plan.entries if t == m.LOOP) > ident.loop_capacity:
            raise ValueError(f"the plan sends more cards round the loop than the dealer's "
                             f"{ident.loop_capacity} (its loop capacity)")

    def _plan_chunk(self) -> int:
        """Plan entries per DEAL_PLAN frame. One frame holds 122, but on a noisy line a
        250-byte frame rarely arrives whole: then the plan goes in chunks small enough that
        about three in four arrive intact (the dealer accepts a plan in ordered chunks)."""
        rate = self.link.byte_error_rate()
        if rate <= 0.0005:
            return m.MAX_PLAN_CHUNK
        frame_bytes = math.log(0.75) / math.log(1.0 - min(rate, 0.5))
        return max(4, min(m.MAX_PLAN_CHUNK, int((frame_bytes - 13) / 2)))

    def _send_plan(self, plan: DealPlan, deal_id: int, fresh: bool = False) -> StepInfo | None:
        """Send the plan in chunks; None when the dealer started the deal now, else what it says
        it did with this deal id before (a deal sent again). A chunk the line will not carry in
        a few tries is sent again in smaller ones (the dealer takes a plan in ordered chunks and
        answers a chunk it has with ALREADY, so a chunk that did arrive is not taken twice)."""
        flags = m.PLAN_FRESH if fresh else 0
        size = self._plan_chunk()
        entries = plan.entries
        offset = 0
        total = len(entries)
        while offset < total:
            part = entries[offset:offset + size]
            fields = {"deal_id": deal_id, "total": total, "offset": offset, "flags": flags,
                      "entries": [list(e) for e in part]}
            try:
                reply = self._request_when_still(m.DEAL_PLAN, fields, max_tries=4 if size > 4 else None)
            except DealerTimeout:
                if size <= 4 or not self.link.connected:
                    raise
                size = max(4, size // 3)  # the line is noisier than the estimate: shorter frames
                continue
            if reply.type == m.STEP:
                return StepInfo.from_fields(reply.fields)  # begun before: nothing is done again
            code = self._expect_ok(reply, "DEAL_PLAN")
            offset += len(part)
            last = offset >= total
            if last and code == m.OK_ALREADY:
                return self.query_step(deal_id)
            if last and code != m.OK_STARTED:
                raise DealerProtocolError(
                    f"the dealer answered the last plan chunk with "
                    f"{m.OK_CODE_NAMES.get(code, code)}, not STARTED")
            size = min(size, self._plan_chunk())
        return None

    def _adopt(self, watch: _Watch, info: StepInfo, what: str) -> None:
        """A step sent again that the dealer had begun before: take its events from the dealer's
        log (those the watch missed), so waiting for its end goes on as if never interrupted;
        a step the dealer lost to a reboot is a DealerRebooted, one it forgot a DealerFault."""
        if info.state in (m.STEP_INTERRUPTED, m.STEP_ABORTED, m.STEP_UNKNOWN):
            why = {m.STEP_INTERRUPTED: "the dealer rebooted while it ran",
                   m.STEP_ABORTED: "it was stopped before it finished",
                   m.STEP_UNKNOWN: "the dealer has no record of it"}[info.state]
            raise StepLost(f"{what}: {why}", info)
        self._catch_up_events()
        watch.fill(self.link.fetch_events(info.first_index))

    def _catch_up_events(self) -> None:
        if self.status().next_event_index != self.link.next_event_index:
            self.link.recover_events()

    def _finish_deal(self, plan: DealPlan, deal_id: int, watch: _Watch,
                     timeout: float | None, skip: int = 0, step: int | None = None) -> DealReport:
        what = f"deal {deal_id}"
        self._wait(watch, lambda e: e.kind == m.EV_DEAL_DONE and e["deal_id"] == deal_id,
                   what, timeout, deal=True, skip=skip, step=step, plan=plan)
        events = [e for e in watch.events if not e.is_notice or e.kind == EV_EVENTS_LOST]
        check = check_deal(plan, deal_id, events)
        if not check.good:
            raise DealMismatch(
                f"deal {deal_id} does not match its plan, do not play it: "
                + "; ".join(check.problems), check.problems, check.strays, check.missing, check.unread)
        report = DealReport(deal_id, plan, tuple(check.placements), tuple(events))
        self.last_report = report
        return report

    # --- single-card commands -------------------------------------------------------------

    def route_presented(self, target: int, *, timeout: float | None = None, step: int | None = None,
                        place: int | None = None, then_next: bool = False) -> int:
        """Send the presented (or held) card to ``target``; returns the card. ``place`` (target
        the loop): the card's place in a sorting hopper, under the loop cards with a larger one
        (hardware/PROTOCOL.md; sent only to a dealer whose IDENTIFY flags have bit7).
        ``then_next``: a card a person fed, and the next step is a FETCH or a stage of the
        loop's next card: flag NEXT, so the move that ejects it brings that card to the read
        window (sent only to a dealer whose IDENTIFY flags2 have bit1)."""
        m.check_target(target)
        wait_feed = self._feed_hold

        def after(_ev: Event) -> None:
            self._feed_hold = False

        fields: dict[str, Any] = {"target": target}
        if (place is not None and target == m.LOOP and self.link.identity is not None
                and self.link.identity.flags & m.IDENT_FEED_PLACE):
            fields["place"] = place
        ident = self.link.identity
        if then_next and ident is not None and ident.flags2 & m.IDENT2_FEED_FLAGS:
            fields.setdefault("place", m.NO_PLACE)
            fields["flags"] = m.FEED_NEXT
        ev = self._single(m.ROUTE_PRESENTED, fields,
                          f"routing the presented card to the {m.target_name(target)}",
                          lambda e: e.kind == m.EV_CARD_ROUTED, timeout,
                          then=(lambda e: e.kind == m.EV_FEED_DONE) if wait_feed else None,
                          after=after, step=step)
        return int(ev["card"])

    def fetch_loop(self, card: int, target: int, *, timeout: float | None = None,
                   step: int | None = None, then_next: bool = False) -> int:
        """FETCH ``card`` from the loop to ``target`` (a seat or pocket): the dealer cycles the
        loop's cards (each read and sent round again) until ``card`` is in the read window,
        then routes it (at once if it was staged). Returns the card. DealerFault EMPTY if the
        dealer's loop model does not hold it. ``then_next``: the next step is another FETCH or
        a stage (never a FEED): flag NEXT, so the move that ejects ``card`` brings the loop's
        next card to the read window (a dealer without IDENTIFY flags bit6 is sent no flags)."""
        m.check_card(card)
        m.check_target(target)
        if target == m.LOOP:
            raise ValueError("fetch_loop sends a card out of the loop, not into it")
        flags = 0
        if then_next and self.link.identity is not None and self.link.identity.flags & m.IDENT_FETCH_FLAGS:
            flags = m.FETCH_NEXT
        return self.fetch(m.LOOP, card, target, timeout=timeout, step=step, flags=flags)

    def stage(self, card: int, *, timeout: float | None = None, step: int | None = None) -> int:
        """Stage ``card`` (FETCH from the loop to 0xFE): the dealer cycles the loop until it
        is in the read window and keeps it there, so a later ``fetch_loop(card, target)`` (or
        ``route_presented(target)``) routes it at once. Returns the loop passes it took (the
        STAGED event). A FEED before that sends the staged card round the loop again."""
        m.check_card(card)
        ev = self._single(m.FETCH, {"source": m.LOOP, "card": card, "target": m.HOLD},
                          f"staging {m.card_name(card)}",
                          lambda e: e.kind == m.EV_STAGED and e["card"] == card, timeout, step=step)
        return int(ev["passes"])

    def fetch(self, source: int, card: int, target: int, *,
              timeout: float | None = None, step: int | None = None, flags: int = 0) -> int:
        """Take ``card`` out of the loop (0x85; see ``fetch_loop``) and route it to ``target``;
        returns the card."""
        if source != m.LOOP:
            raise ValueError("fetch source must be the loop (0x85)")
        m.check_card(card)
        m.check_target(target)
        fields: dict[str, Any] = {"source": source, "card": card, "target": target}
        if flags:
            fields["flags"] = flags
        ev = self._single(m.FETCH, fields,
                          f"fetching {m.card_name(card)} to the {m.target_name(target)}",
                          lambda e: e.kind == m.EV_CARD_ROUTED and e["card"] == card, timeout, step=step)
        return int(ev["card"])

    def read_card(self, *, timeout: float | None = None, step: int | None = None) -> int:
        """Read one card a player feeds and hold it at the reader; route it with
        ``route_presented``. Raises DealerFault MISREAD if it could not be read (it went to
        the reject pocket)."""
        ev = self._single(m.FEED, {"count": 1, "target": m.HOLD}, "reading a fed card",
                          lambda e: (e.kind == m.EV_PRESENTED and e["seat"] == m.HOLD)
                          or e.kind == m.EV_MISREAD, timeout, after=self._held, step=step)
        return int(ev["card"])

    def adopt_hold(self) -> None:
        """A FEED HOLD this driver sent before an outage holds its card (STEP_QUERY said so):
        the next routing ends that FEED too."""
        self._feed_hold = True

    def _held(self, ev: Event) -> None:
        """A FEED HOLD ended: the card is held in the read window (or went to the reject
        pocket, unread)."""
        if ev.kind == m.EV_MISREAD:
            raise DealerFault("the fed card could not be read; it went to the reject pocket",
                              code=m.EV_MISREAD, name="MISREAD")
        self._feed_hold = True

    def read_and_route(self, count: int, target: int, *,
                       timeout: float | None = None, step: int | None = None) -> FeedReport:
        """Read ``count`` cards players feed and route each to ``target`` (a seat, the trick
        pocket, the loop...). Waits for the cards without a time limit unless ``timeout``."""
        if not 1 <= count <= 255:
            raise ValueError(f"count must be 1..255, not {count}")
        m.check_target(target)
        watch = _Watch()
        self._single(m.FEED, {"count": count, "target": target}, f"reading {count} fed cards",
                     lambda e: e.kind == m.EV_FEED_DONE, timeout, watch=watch, step=step)
        placements = tuple((e["card"], e["target"]) for e in watch.events
                           if e.kind == m.EV_CARD_DEALT)
        misreads = sum(1 for e in watch.events if e.kind == m.EV_MISREAD)
        return FeedReport(placements, misreads)

    def self_test(self, mode: int = 0, *, timeout: float | None = None,
                  step: int | None = None) -> SelfTestReport:
        """Read every card in the hopper (mode 0: all round the loop, 1: round robin over
        the seats) and report what a 52-card deck is missing or has twice."""
        if mode not in (0, 1):
            raise ValueError("self-test mode is 0 (round the loop) or 1 (round robin over the seats)")
        watch = _Watch()
        ev = self._single(m.SELFTEST, {"mode": mode}, "the self-test",
                          lambda e: e.kind == m.EV_SELFTEST_DONE, timeout, watch=watch, step=step)
        placements = tuple((e["card"], e["target"]) for e in watch.events
                           if e.kind == m.EV_CARD_DEALT)
        return SelfTestReport(ev["read"], ev["misreads"], tuple(ev["missing"]),
                              tuple(ev["duplicates"]), placements)

    # --- stopping -------------------------------------------------------------------------

    def abort(self, *, step: int | None = None) -> StepInfo | None:
        """Stop what the dealer is doing (the card in flight goes to the reject pocket). With a
        ``step`` id sent again, the dealer does not abort twice: it says what that ABORT did
        (returned; None for a first ABORT)."""
        self._drop_interrupted()
        self._feed_hold = False
        reply = self.link.request(m.ABORT, {"step": step if step is not None else self.new_step_id()})
        if reply.type == m.STEP:
            return StepInfo.from_fields(reply.fields)
        self._expect_ok(reply, "ABORT")
        return None

    def emergency_stop(self) -> None:
        """Stop every motor now. The frame goes out at once, ahead of any command being
        retransmitted; then the driver waits for the dealer's acknowledgement."""
        with contextlib.suppress(DealerError):
            self.link.send_now(m.ESTOP)
        self._expect_ok(self.link.request(m.ESTOP), "ESTOP")
        self._drop_interrupted()
        self._feed_hold = False

    def reset(self, reboot: bool = False, *, timeout: float | None = None) -> Identity:
        """Clear the e-stop latch, a jam or a fault and go idle (``reboot``: restart the
        firmware and wait until it is back). Returns the dealer's identity afterwards."""
        self._drop_interrupted()
        self._feed_hold = False
        if not reboot:
            reply = self.link.request(m.RESET, {"mode": 0})
            if reply.type == m.NAK and reply.fields["reason"] == m.NAK_ESTOPPED:
                raise DealerFault("the e-stop button is still pressed: release it (twist) and "
                                  "reset again", code=m.NAK_ESTOPPED, name="ESTOPPED")
            self._expect_ok(reply, "RESET")
            # A card left in the gate is first carried to the reject pocket: wait for rest.
            deadline = time.monotonic() + (timeout if timeout is not None else
                                           self.link.link_timeout)
            while self.status().state_name == "MOVING":
                if time.monotonic() >= deadline:
                    raise DealerTimeout("the dealer is still clearing its card path after "
                                        "RESET")
                time.sleep(0.02)
            return self.identity
        old = self.identity.boot_id
        self._expect_ok(self.link.request(m.RESET, {"mode": 1}), "RESET")
        deadline = time.monotonic() + (timeout if timeout is not None else
                                       max(5.0, self.link.link_timeout))
        while time.monotonic() < deadline:
            with contextlib.suppress(DealerError):
                ident = self.link.handshake(timeout=max(0.1, deadline - time.monotonic()))
                if ident.boot_id != old:
                    return ident
            time.sleep(0.05)
        raise DealerTimeout("the dealer did not come back after RESET (reboot)")

    def resume(self) -> None:
        """RESUME after a jam cleared by hand (for a deal, ``resume_deal`` also waits)."""
        self._expect_ok(self.link.request(m.RESUME, {"step": self.new_step_id()}), "RESUME")

    def _resume_stopped(self, step: int | None) -> None:
        """RESUME the step a jam stopped; nothing to resume is fine when the dealer says that
        step already went on (a RESUME whose answer was lost, or the step finished)."""
        reply = self.link.request(m.RESUME, {"step": self.new_step_id()})
        if reply.type == m.NAK and reply.fields["reason"] == m.NAK_BAD_STATE and step is not None:
            info = self.query_step(step)
            if info.state in (m.STEP_RUNNING, m.STEP_DONE, m.STEP_HELD):
                return
        self._expect_ok(reply, "RESUME")

    # --- machinery ------------------------------------------------------------------------

    def _single(self, ftype: int, fields: dict[str, int] | None, what: str,
                done: Callable[[Event], bool], timeout: float | None, *,
                then: Callable[[Event], bool] | None = None, watch: _Watch | None = None,
                after: Callable[[Event], None] | None = None, step: int | None = None) -> Event:
        """Send one step and wait for the event ``done`` names (and then ``then``); ``after(event)``
        once it ended. ``step``: its id (fresh if None); the same id sent again after a failure
        is not done twice: the dealer says what it did and its events are re-read from its log.
        ``watch``: the caller's, to read every event seen. A jam leaves the dealer waiting:
        ``resume_step`` finishes it. A link failure sends no ABORT (see the module docstring);
        any other failure stops the dealer."""
        with self._op_lock:
            self._drop_stopped()
            self._catch_up()
            sid = step if step is not None else self.new_step_id()
            fields = dict(fields or {}, step=sid)
            watch = watch if watch is not None else _Watch()
            self.link.add_listener(watch)
            keep = sent = False
            ev: Event | None = None
            try:
                reply = self._request_when_still(ftype, fields)
                remembered: Event | None = None
                if reply.type == m.STEP:  # sent before: what it did so far
                    info = StepInfo.from_fields(reply.fields)
                    self._adopt(watch, info, what)
                    if not any(done(e) for e in watch.since(0)):
                        # done before a reboot that took its events (the dealer may be busy
                        # with something else now): the step memory's answer
                        remembered = self._remembered_outcome(watch, info, done)
                else:
                    self._expect_ok(reply, m.TYPE_NAMES[ftype])
                sent = True
                ev = remembered if remembered is not None else self._wait(watch, done, what, timeout, step=sid)
                if then is not None:
                    self._wait(watch, then, what, timeout, skip=watch.events.index(ev) + 1, step=sid)
            except DealerJam:
                if sent:  # (not a command refused because an earlier jam still waits)
                    self._stopped = _Stopped(what, done, then, watch, timeout, ev, after, sid)
                    keep = True
                raise
            except DealerError as e:
                self._make_safe(e)
                raise
            finally:
                if not keep:
                    self.link.remove_listener(watch)
        if after is not None:
            after(ev)
        return ev

    def _request_when_still(self, ftype: int, fields: dict[str, Any], **kw: Any) -> Reply:
        """Send a moving command. Refused BUSY while the dealer's mechanism still runs (the
        step before ended for the host when its card landed, and the dealer may run on after it:
        cards a FETCH read under its card going round to their places, 1.5 s in a two-player
        Spades draw on the twin): ask STATUS every BUSY_POLL_S until the mechanism is still
        (``stall_timeout`` at most), then send it once more. A refused step was not kept by the
        dealer, so it goes again under the same id. Any other refusal, or BUSY from a dealer at
        rest (a fed card waiting in the read window), is the answer."""
        reply = self.link.request(ftype, fields, **kw)
        if reply.type != m.NAK or reply.fields.get("reason") != m.NAK_BUSY:
            return reply
        deadline = time.monotonic() + self.stall_timeout
        while True:
            st = self.status()
            if st.state not in _MOTION_STATES or st.awaits_person:  # (a person's card: not ours to wait for)
                break
            if time.monotonic() >= deadline:
                break
            time.sleep(BUSY_POLL_S)
        self.busy_waits += 1
        return self.link.request(ftype, fields, **kw)

    def _expect_ok(self, reply: Reply, what: str) -> int:
        if reply.type == m.OK:
            return int(reply.fields["code"])
        if reply.type == m.STEP:  # a step sent again: the dealer had it (and did not act again)
            return m.OK_ALREADY
        if reply.type != m.NAK:
            raise DealerProtocolError(f"the dealer answered {what} with {reply.name}")
        reason = reply.fields["reason"]
        name = m.NAK_REASON_NAMES.get(reason, f"reason {reason}")
        text = {
            m.NAK_BUSY: "the dealer is busy with another action",
            m.NAK_EMPTY: "there is no card for it (not in the loop, nothing held at the reader)",
            m.NAK_ESTOPPED: "the emergency stop is latched: release the button and reset",
            m.NAK_JAMMED: "a jam is waiting to be cleared",
            m.NAK_BAD_STATE: "there is nothing to resume",
            m.NAK_FULL: "that store of the dealer is full",
        }.get(reason)
        if reason == m.NAK_JAMMED:
            raise DealerJam(f"the dealer refused {what}: {text}", code=reason, name=name)
        if text is not None:
            raise DealerFault(f"the dealer refused {what}: {text}", code=reason, name=name)
        if reason == m.NAK_CONFLICT:
            raise DealerStepConflict(f"the dealer refused {what}: it holds that step id for another step ({name})")
        raise DealerProtocolError(f"the dealer refused {what} as malformed ({name})")

    def _failure(self, ev: Event, what: str, deal: bool) -> DealerError | None:
        """The error an event means for the operation under way, or None."""
        f = ev.fields
        if ev.kind == m.EV_JAM:
            stage = m.JAM_STAGES.get(f["stage"], f"stage {f['stage']}")
            if f["stage"] == 4:  # misroute: the card is not stuck, it went on round the loop
                return DealerJam(f"{what}: a card passed its pocket and went round the loop (card "
                                 f"{m.card_name(f['card'])}); the dealer stopped: check the pocket's "
                                 "flap, then resume", code=m.EV_JAM, name="JAM")
            return DealerJam(f"{what}: a card jammed at the {stage} stage (card "
                             f"{m.card_name(f['card'])}); the dealer stopped: clear the path, "
                             "then resume", code=m.EV_JAM, name="JAM")
        if ev.kind == m.EV_POCKET_FULL:
            t = f["target"]
            pocket = f"seat {t}'s pocket" if t < m.MAX_SEATS else f"the {m.target_name(t)}"
            return DealerJam(f"{what}: {pocket} is full; the "
                             "dealer stopped: empty it, then resume", code=m.EV_POCKET_FULL,
                             name="POCKET_FULL")
        if ev.kind == m.EV_DOUBLE_FEED:
            how = "longer than one card at the gate" if f["how"] == 1 else "too thick"
            return DealerJam(f"{what}: two cards were fed together ({how}); the dealer stopped: "
                             "put both back in the hopper under the stack (the one further along at the "
                             "bottom), then resume",
                             code=m.EV_DOUBLE_FEED, name="DOUBLE_FEED")
        if ev.kind == m.EV_ESTOP:
            source = "the e-stop button" if f["source"] == 1 else "the referee"
            return DealerFault(f"{what}: emergency stop by {source}; the dealer is stopped "
                               "until reset", code=m.EV_ESTOP, name="ESTOP")
        if ev.kind == m.EV_FAULT:
            text = m.FAULT_CODES.get(f["code"], f"code {f['code']}")
            return DealerFault(f"{what}: the dealer reported a fault: {text} (detail "
                               f"{f['detail']})", code=f["code"], name="FAULT")
        if ev.kind == m.EV_ABORTED:
            return DealerFault(f"{what}: the action was aborted", code=m.EV_ABORTED,
                               name="ABORTED")
        if ev.kind == EV_REBOOTED:
            return DealerRebooted(f"{what}: the dealer rebooted (boot id "
                                  f"{f['old_boot_id']:#06x} -> {f['boot_id']:#06x}); whatever "
                                  "it was doing is lost and it is idle", code=3, name="REBOOTED")
        if ev.kind == EV_EVENTS_LOST:
            if deal:
                return DealMismatch(f"{what}: {f['lost']} dealer events were lost, so the deal "
                                    "cannot be checked: do not play it",
                                    [f"{f['lost']} events lost"])
            return DealerProtocolError(f"{what}: {f['lost']} dealer events were lost")
        return None

    def _wait(self, watch: _Watch, done: Callable[[Event], bool], what: str,
              timeout: float | None, *, deal: bool = False, skip: int = 0,
              step: int | None = None, plan: DealPlan | None = None) -> Event:
        """Wait for the event that ends ``what``; raise the error of any failure event.

        Quiet for ``poll_interval``: ask STATUS (catches a reboot, lost events, a dealer that
        went idle without saying so); no progress at all for ``stall_timeout`` while the
        dealer should be moving: DealerTimeout."""
        start = time.monotonic()
        deadline = None if timeout is None else start + timeout
        seen = skip
        last_progress = start
        last_key: tuple[int, int, int] | None = None
        idle_checks = 0
        while True:
            for ev in watch.since(seen):
                seen += 1
                last_progress = time.monotonic()
                if done(ev):
                    return ev
                if ev.kind == m.EV_DEADMAN:
                    self._resume_paused()  # the host is back and still wants this action
                    continue
                if ev.kind == EV_REBOOTED and step is not None and self._began_after_boot(watch, step, seen):
                    break  # the step's events, re-read from the new boot's log, are in the watch
                error = self._failure(ev, what, deal)
                if error is not None:
                    raise error
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                raise DealerTimeout(f"{what} did not finish within {timeout:g} s")
            noisy = self.link.byte_error_rate() > 0.002
            poll = min(self.poll_interval, 0.3) if noisy else self.poll_interval
            wait = poll if deadline is None else min(poll, deadline - now)
            if watch.wait_beyond(seen, max(0.0, wait)):
                continue
            if noisy:
                # an event lost on a noisy line (the last of a step has no later one to show the
                # gap): EVENTS_SINCE brings it back, and its empty answer is a short frame
                self.link.recover_events()
                if watch.wait_beyond(seen, 0.0):
                    continue
            st = self.status()
            ident = self.link.identity
            if ident is not None and st.boot_id != ident.boot_id:
                self.link.handshake()  # delivers the REBOOTED notice to the watch
                continue
            if st.next_event_index != self.link.next_event_index:
                self.link.recover_events()
                continue
            key = (st.state, st.done, st.next_event_index)
            if key != last_key:
                last_key = key
                last_progress = time.monotonic()
            if step is not None and st.state in (0, 3):
                # idle (or holding a card): did our step end without our seeing its end?
                info = self.query_step(step)
                if info.state == m.STEP_INTERRUPTED or info.state == m.STEP_UNKNOWN:
                    self._adopt(watch, info, what)  # raises
                if info.state != m.STEP_RUNNING and watch.fill(self.link.fetch_events(info.first_index), seen):
                    continue
                remembered = self._remembered_outcome(watch, info, done)
                if remembered is None and plan is not None:
                    remembered = self._remembered_deal(watch, info, plan, step)
                if remembered is not None:
                    return remembered
            if st.state == 0:
                idle_checks += 1
                if idle_checks >= 3:
                    raise DealerProtocolError(
                        f"{what}: the dealer is idle but never reported the end")
                continue
            idle_checks = 0
            if st.state == 6:  # PAUSED by the dead-man, its DEADMAN event not seen (yet)
                self._resume_paused()
                continue
            # a FEED waiting for a player's card: bit6 (cards parked in the loop keep the hopper
            # flag set). A dealer that does not report bit6 (IDENTIFY flags2) never says so: any
            # FEED of its may be a person thinking, so no stall verdict while it feeds
            waiting = st.state in _WAITING_STATES or (st.state == 5 and (
                st.awaits_person or not st.hopper_has_cards or not self._reports_awaits_person()))
            if not waiting and time.monotonic() - last_progress > self.stall_timeout:
                raise DealerStalled(f"{what}: the dealer answers but made no progress for "
                                    f"{self.stall_timeout:g} s (dealer {st.state_name}, {st.done} cards "
                                    "done): look for a card caught in it or a motor that does not turn",
                                    progress=key)

    def _remembered_outcome(self, watch: _Watch, info: StepInfo,
                            done: Callable[[Event], bool]) -> Event | None:
        """A single-card step the dealer remembers done (its step memory is kept on its flash)
        whose events it no longer has (it rebooted by itself after the step ended: the event
        log lives in RAM): its end, as the step memory tells it (the card, where it went), added
        to the watch. Found on the simulated table: the watchdog fired right after a FETCH's
        card landed, and the host waited for an end the dealer could no longer tell ("idle but
        never reported the end"), Resume after Resume."""
        if info.state != m.STEP_DONE or info.card == m.UNKNOWN_CARD:
            return None
        for kind, fields in ((m.EV_CARD_ROUTED, {"card": info.card, "target": info.target}),
                             (m.EV_PRESENTED, {"seat": info.target, "card": info.card, "confidence": 0}),
                             (m.EV_STAGED, {"card": info.card, "passes": 0}),
                             (m.EV_FEED_DONE, {"count": max(1, info.count)})):
            ev = Event(-1, kind, m.EVENT_SCHEMAS[kind][0], fields)
            if done(ev):
                watch.add_remembered([ev] + ([Event(-1, m.EV_FEED_DONE, "FEED_DONE", {"count": 1})]
                                             if kind == m.EV_CARD_ROUTED else []))
                return ev
        return None

    def _remembered_deal(self, watch: _Watch, info: StepInfo, plan: DealPlan, deal_id: int) -> Event | None:
        """A deal the dealer remembers done whose last events a reboot took (the watchdog fired
        before its USB buffer went out: the event log is RAM; the step memory, kept on the
        flash, says DONE and how many plan entries it filled). The firmware fills an entry only
        with that card to that target, so DONE with every entry filled is the whole deal: the
        entries not heard of are added to the watch as dealt, with the DEAL_DONE (the rejections
        heard counted; one not heard is in the dealer's reject ledger, which the reconciliation
        reads). Only when the cards heard of all belong to the plan and the remembered last
        card is one of it; else None. Found on the simulated table: four-player Hearts, the
        watchdog as the last passed card of the hand-over landed, six of its twelve answers lost:
        "idle but never reported the end", Resume after Resume."""
        if info.state != m.STEP_DONE or info.count != len(plan):
            return None
        want = Counter(plan.entries)
        if want[(info.card, info.target)] == 0:
            return None
        heard = [e for e in watch.events if not e.is_notice]
        if any(e.kind == m.EV_DEAL_DONE for e in heard):
            return None
        got = Counter((e["card"], e["target"]) for e in heard if e.kind == m.EV_CARD_DEALT)
        if got - want:
            return None
        rest = want - got
        dups = [e["card"] for e in heard if e.kind == m.EV_DUPLICATE]
        rejected = len(dups) + sum(1 for e in heard if e.kind == m.EV_MISREAD)
        end: list[Event] = []
        for c, t in plan.entries:  # (in plan order; an entry heard of is not added again)
            if rest[(c, t)] > 0:
                rest[(c, t)] -= 1
                end.append(Event(-1, m.EV_CARD_DEALT, "CARD_DEALT", {"card": c, "target": t, "confidence": 0}))
        end.append(Event(-1, m.EV_DEAL_DONE, "DEAL_DONE", {"deal_id": deal_id, "dealt": len(plan),
                                                          "rejected": rejected, "missing": [],
                                                          "duplicates": dups}))
        watch.add_remembered(end)
        return end[-1]

    def _began_after_boot(self, watch: _Watch, step: int, seen: int) -> bool:
        """The link saw the dealer's new boot id while waiting for ``step``: a step the dealer
        took after it rebooted (the reboot came before the command, the host heard of it only
        later) or kept over it is not lost: its events, from the new boot's log, go in the
        watch (True). Found on the simulated table: a watchdog reboot just before a FETCH, the
        card delivered, the host told "whatever it was doing is lost", and the FETCH's card
        then missing from the loop it was relearning."""
        try:
            info = self.query_step(step)
            if info.state not in (m.STEP_RUNNING, m.STEP_DONE, m.STEP_STOPPED, m.STEP_HELD):
                return False
            self._catch_up_events()
            watch.fill(self.link.fetch_events(info.first_index), seen)
        except (DealerError, ValueError):
            return False
        return True

    def _reports_awaits_person(self) -> bool:
        """Whether the dealer sets STATUS flags bit6 (IDENTIFY flags2 bit0; unknown: yes)."""
        ident = self.link.identity
        return ident is None or ident.reports_awaits_person

    def _resume_paused(self) -> None:
        """The dealer paused because it did not hear the host (dead-man): only RESUME restarts
        it (no other frame does, so a restarted host never resumes a forgotten motion)."""
        reply = self.link.request(m.RESUME, {"step": self.new_step_id()})
        if reply.type == m.NAK and reply.fields["reason"] == m.NAK_BAD_STATE:
            return  # already running again (a retransmitted RESUME, or nothing was paused)
        self._expect_ok(reply, "RESUME")

    def _catch_up(self) -> None:
        """After a failed operation: fetch the events the dealer logged that the host has not
        seen (a deal that went on while the link was down, say) before the next operation
        registers for its own: those events are not its."""
        if not self._unsure:
            return
        if self.status().next_event_index != self.link.next_event_index:
            self.link.recover_events()
        self._unsure = False

    def _make_safe(self, error: DealerError | None = None) -> None:
        """After a failure: make sure the dealer is not moving (best effort). Not after the link
        failed: the step may be under way or done, and the caller sends it again to learn which
        (an ABORT would throw away a card read and held for the host); the dealer's dead-man
        stops its motors meanwhile if the host stays silent."""
        self._unsure = True
        self._feed_hold = False
        if isinstance(error, (DealerTimeout, DealerLinkDown)):
            return
        try:
            self.link.request(m.ABORT, {"step": self.new_step_id()},
                              timeout=min(2.0, self.link.link_timeout))
        except DealerError:
            self.link.abort_when_back()


def plan_for(deck_order: Sequence[int | str], targets: Sequence[int]) -> DealPlan:
    """Shorthand for ``DealPlan.from_order``."""
    return DealPlan.from_order(deck_order, targets)
