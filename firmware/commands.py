"""Command handling: the dealer's half of the conversation in hardware/PROTOCOL.md.

``Dealer`` owns the link (parser, sequence numbers, the reply cache that makes retransmitted
commands harmless), the event log the host can re-read by index, the deal plans it has seen
(so a plan re-sent after a lost reply is not dealt twice), and what it knows is parked in its
slotted stores (stock magazine, discard tray, staging, face-up window). The card movements
themselves are jobs and ops handed to mechanics.py. ``tick()`` is one pass of the main loop.
"""

from . import config
from . import mechanics as M
from . import protocol as P
from .ticks import ticks_diff

BATCHED_EVENTS = (P.EV_CARD_DEALT, P.EV_CARD_ROUTED, P.EV_MISREAD, P.EV_DUPLICATE)

RACK_COMMANDS = (P.PRESENT, P.TURN_UP, P.DEAL_STOCK, P.ROUTE_FACEUP, P.FETCH)

MOVING_COMMANDS = (P.DEAL_PLAN, P.PRESENT, P.ROUTE_PRESENTED, P.TURN_UP, P.DEAL_STOCK,
                   P.ROUTE_FACEUP, P.FEED, P.FETCH, P.SELFTEST, P.RESUME)


class Refused(Exception):
    """A command that cannot be carried out: becomes a NAK with ``reason``."""

    def __init__(self, reason):
        # super(), not Exception.__init__(self, ...): MicroPython's built-in types have no
        # __init__ attribute to call (AttributeError: every NAK would reboot the dealer).
        super().__init__(reason)
        self.reason = reason


class Plan:
    """A deal plan as received: entries are (card, target) pairs in deck order."""

    def __init__(self, deal_id, total):
        self.deal_id = deal_id
        self.total = total
        self.entries = bytearray()
        self.started = False

    def received(self):
        return len(self.entries) // 2

    def complete(self):
        return self.received() == self.total


class DealJob:
    """Deals the hopper by card identity against a plan; parks stock cards by stock position."""

    def __init__(self, dealer, plan):
        self.dealer = dealer
        self.plan = plan
        self.by_card = {}
        self.stock_pos = {}
        pos = 0
        e = plan.entries
        for i in range(plan.total):
            c = e[2 * i]
            if c not in self.by_card:
                self.by_card[c] = []
            self.by_card[c].append(i)
            if e[2 * i + 1] == P.MAGAZINE:
                self.stock_pos[i] = pos
                pos += 1
        self.used = bytearray(plan.total)
        self.routed = 0  # cards given a target (some may still be on the belt)
        self.last_index = -1
        self.filled = 0
        self.rejected = 0
        self.dups = []

    def next_op(self):
        if self.routed >= self.plan.total:
            gate = self.dealer.mech.gate
            if gate.run and self.dealer.mech.belt:
                return M.WAIT  # the last card is just leaving the window: wait for a settled gate
            if gate.state and self.dealer.mech.belt:
                # the last feed move brought one more card to the window: a card beyond the
                # plan (a duplicate) goes to the reject pocket, and so does each one after it
                return M.Op("hopper", self.route, self.done, undo=self.undo)
            return None
        if not self.dealer.board.hopper_has_card() and not self.dealer.mech.gate.state:
            if self.dealer.mech.flights:
                return None  # the HOPPER_EMPTY count waits for the cards on the belt
            self.dealer.emit(P.EV_HOPPER_EMPTY, bytes((min(255, self.plan.total - self.filled),)))
            self.routed = self.plan.total  # nothing more to feed: finish
            return None
        return M.Op("hopper", self.route, self.done, undo=self.undo)

    def undo(self):
        """The card just routed was part of a double feed: it goes back on the hopper."""
        if self.last_index >= 0 and self.used[self.last_index]:
            self.used[self.last_index] = 0
            self.routed -= 1
        self.last_index = -1

    def route(self, card, conf):
        self.last_index = -1
        if card == P.UNKNOWN_CARD:
            return (P.REJECT, -1, P.EV_MISREAD)
        for i in self.by_card.get(card, ()):
            if not self.used[i]:
                self.used[i] = 1
                self.routed += 1
                self.last_index = i
                target = self.plan.entries[2 * i + 1]
                if target == P.MAGAZINE:
                    return (target, self.stock_pos[i], P.EV_CARD_DEALT)
                return (target, self.dealer.free_slot(target), P.EV_CARD_DEALT)
        return (P.REJECT, -1, P.EV_DUPLICATE)

    def done(self, card, target, conf):
        d = self.dealer
        kind = d.mech.last_op.tag  # the op being reported (others may be on the belt)
        if kind == P.EV_MISREAD:
            self.rejected += 1
            d.emit(P.EV_MISREAD, bytes((target, d.mech.op_attempts())))
        elif kind == P.EV_DUPLICATE:
            self.rejected += 1
            self.dups.append(card)
            d.emit(P.EV_DUPLICATE, bytes((card, target)))
        else:
            self.filled += 1
            d.landed(card, target, conf, P.EV_CARD_DEALT)

    def missing(self):
        e = self.plan.entries
        return [e[2 * i] for i in range(self.plan.total) if not self.used[i]]

    def finish(self):
        self.dealer.emit(P.EV_DEAL_DONE, counts_payload(
            P.u16(self.plan.deal_id) + bytes((min(255, self.filled), min(255, self.rejected))),
            self.missing(), self.dups))

    def cancel(self):
        self.dealer.emit(P.EV_ABORTED, P.u16(self.plan.deal_id))


def counts_payload(head, missing, dups):
    """head + n_missing, missing, n_dup, dups, lists cut so the event fits one frame."""
    room = P.MAX_BODY - 2 - 2 - len(head) - 2
    missing = list(missing)[:min(255, room)]
    dups = list(dups)[:min(255, room - len(missing))]
    return head + bytes((len(missing),)) + bytes(missing) + bytes((len(dups),)) + bytes(dups)


class FeedJob:
    """Reads cards players feed into the hopper and routes them (or holds each one)."""

    def __init__(self, dealer, count, target):
        self.dealer = dealer
        self.count = count
        self.target = target
        self.fed = 0
        self.routed = 0

    def next_op(self):
        if self.count and self.routed >= self.count:
            return None
        if not self.dealer.board.hopper_has_card() and not self.dealer.mech.gate.state:
            return M.WAIT
        return M.Op("hopper", self.route, self.done)

    def route(self, card, conf):
        self.routed += 1
        if card == P.UNKNOWN_CARD:
            return (P.REJECT, -1, True)
        if self.target == P.HOLD:
            return (P.HOLD, -1, False)
        return (self.target, self.dealer.free_slot(self.target), False)

    def done(self, card, target, conf):
        d = self.dealer
        self.fed += 1
        if d.mech.last_op.tag:  # misread
            d.emit(P.EV_MISREAD, bytes((target, d.mech.op_attempts())))
        elif target == P.HOLD:
            d.emit(P.EV_PRESENTED, bytes((P.HOLD, card, conf)))
        else:
            d.landed(card, target, conf, P.EV_CARD_DEALT)

    def finish(self):
        self.dealer.emit(P.EV_FEED_DONE, bytes((min(255, self.fed),)))

    def cancel(self):
        self.dealer.emit(P.EV_ABORTED, P.u16(0))


class SelftestJob:
    """Reads every card in the hopper; mode 0 rejects them all, mode 1 deals round robin."""

    def __init__(self, dealer, mode):
        self.dealer = dealer
        self.mode = mode
        self.seen = {}
        self.read = 0
        self.misreads = 0
        self.next_seat = 0

    def next_op(self):
        if not self.dealer.board.hopper_has_card() and not self.dealer.mech.gate.state:
            return None
        return M.Op("hopper", self.route, self.done)

    def route(self, card, conf):
        if card == P.UNKNOWN_CARD or self.mode == 0:
            return (P.REJECT, -1)
        seat = self.next_seat
        self.next_seat = (seat + 1) % self.dealer.cfg.SEAT_COUNT
        return (seat, -1)

    def done(self, card, target, conf):
        d = self.dealer
        if card == P.UNKNOWN_CARD:
            self.misreads += 1
            d.emit(P.EV_MISREAD, bytes((target, d.mech.op_attempts())))
            return
        self.read += 1
        self.seen[card] = self.seen.get(card, 0) + 1
        d.emit(P.EV_CARD_DEALT, bytes((card, target, conf)))

    def finish(self):
        missing = [c for c in range(52) if c not in self.seen]
        dups = []
        for c in sorted(self.seen):
            dups.extend([c] * (self.seen[c] - 1))
        head = bytes((min(255, self.read), min(255, self.misreads)))
        self.dealer.emit(P.EV_SELFTEST_DONE, counts_payload(head, missing, dups))

    def cancel(self):
        self.dealer.emit(P.EV_ABORTED, P.u16(0))


class Dealer:
    def __init__(self, board, cfg=None):
        if cfg is None:
            cfg = config.Settings()
        self.board = board
        self.cfg = cfg
        self.mech = M.Mechanics(board, cfg, self.emit)
        self.mech.slot_for = self.free_slot
        self.parser = P.Parser()
        self.tx_seq = 0
        self.last_host_seq = 0
        self.cache = []
        self.log = []
        self.next_event = 0
        self.pending = []
        self.pending_since = 0
        self.urgent = False
        self.deadman_ms = cfg.DEADMAN_MS
        now = board.link_ticks_ms()
        self.last_rx = now
        self.last_tx = now
        self.boot_id = board.boot_id() & 0xFFFF
        self.config_crc = P.crc16(config.config_bytes(cfg))
        self.plans = []
        self.partial = None
        self.deal_job = None
        self.stores = {}  # the slotted stores this board has (v2: only the loop's queue)
        for s in getattr(board, "STORES", cfg.SLOTTED):
            self.stores[s] = {}
        self.reboot_pending = False
        self.txq = bytearray()  # frames waiting for room on the USB link
        self.tx_dropped = 0  # frames dropped because the host stopped reading
        self.emit(P.EV_BOOT, bytes((board.reset_cause(),)))

    # ---- events ------------------------------------------------------------------------------

    def emit(self, kind, payload):
        """Log an event under the next index and queue it for the next EVENT frame."""
        enc = P.event_bytes(kind, payload)
        entry = (self.next_event, enc)
        self.log.append(entry)
        if len(self.log) > self.cfg.EVENT_LOG:
            self.log.pop(0)
        if not self.pending:
            self.pending_since = self.board.ticks_ms()
        self.pending.append(entry)
        if kind not in BATCHED_EVENTS:
            self.urgent = True
        self.next_event = (self.next_event + 1) & 0xFFFF

    def flush_events(self, force=True):
        """Send queued events, as many per EVENT frame as fit (consecutive indices).

        Per-card events (BATCHED_EVENTS) may wait up to EVENT_BATCH_MS of mechanism time so
        that two or three cards share one frame: that keeps a deal's line time in budget
        (hardware/PROTOCOL.md section 8). Anything else, and any reply, sends them at once.
        """
        if not self.pending:
            return
        if not force and not self.urgent:
            if ticks_diff(self.board.ticks_ms(), self.pending_since) < self.cfg.EVENT_BATCH_MS:
                return
        self.urgent = False
        while self.pending:
            first = self.pending[0][0]
            parts = []
            size = 2
            while self.pending and size + len(self.pending[0][1]) <= P.MAX_BODY:
                e = self.pending.pop(0)
                parts.append(e[1])
                size += len(e[1])
            self.send(P.EVENT, P.event_block(first, parts))

    def events_since(self, first, limit):
        log = self.log
        back = (self.next_event - first) & 0xFFFF
        start = len(log) - back if back <= len(log) else 0
        if start >= len(log):
            return P.event_block(self.next_event, [])
        parts = []
        size = 2
        i = start
        while i < len(log) and size + len(log[i][1]) <= P.MAX_BODY:
            if limit and len(parts) >= limit:
                break
            parts.append(log[i][1])
            size += len(log[i][1])
            i += 1
        return P.event_block(log[start][0], parts)

    # ---- the link ------------------------------------------------------------------------------

    def send(self, ftype, body):
        frame = P.encode_frame(ftype, self.tx_seq, self.last_host_seq, body)
        self.tx_seq = (self.tx_seq + 1) & 0xFF
        self.queue_out(frame)
        self.last_tx = self.board.link_ticks_ms()
        return frame

    def queue_out(self, frame):
        """Queue a whole frame for the USB link, or drop it (and count it) if the queue is full.

        The link never blocks the loop: drain() hands the board at most LINK_TX_BUDGET bytes a
        pass and the board takes only what the USB buffer has room for. A host that stops
        reading fills the queue; frames that do not fit are dropped whole (never cut), counted
        in ``tx_dropped``. Nothing is lost for good: events stay in the log (EVENTS_SINCE) and
        a reply is sent again from the reply cache when the host retransmits its command.
        """
        if len(self.txq) + len(frame) > self.cfg.LINK_TX_QUEUE:
            self.tx_dropped += 1
            return False
        self.txq.extend(frame)
        return True

    def drain(self):
        """Write queued bytes, without blocking: stop at the budget or when the board is full."""
        budget = self.cfg.LINK_TX_BUDGET
        while self.txq and budget > 0:
            chunk = bytes(self.txq[:budget])
            n = self.board.link_write(chunk)
            if not n:
                return
            self.txq = self.txq[n:]
            budget -= n

    def tick(self):
        """One pass: read the link, step the mechanism, dead-man, events, keep-alive."""
        data = self.board.link_read()
        if data:
            for b in data:
                frame = self.parser.feed(b)
                if frame is not None:
                    self.on_frame(frame)
        self.mech.step()
        now = self.board.link_ticks_ms()
        if self.mech.moving() and ticks_diff(now, self.last_rx) > self.deadman_ms:
            self.mech.deadman()
        self.flush_events(force=False)
        if self.mech.moving() and ticks_diff(now, self.last_tx) >= self.cfg.BUSY_EVERY_MS:
            if self.pending:
                self.flush_events()  # the waiting card events are the keep-alive
            else:
                self.send(P.BUSY, self.busy_body())
        if self.reboot_pending:
            self.reboot_pending = False
            self.mech.estop(2)
            self.drain()  # the OK to RESET, as far as the link takes it now
            self.board.reboot()
        self.drain()

    def on_frame(self, frame):
        if not frame.ok:
            self.flush_events(force=False)
            self.send(P.NAK, bytes((0, frame.reason)))
            return
        self.last_rx = self.board.link_ticks_ms()
        self.last_host_seq = frame.seq
        if frame.type == P.ESTOP:
            self.mech.estop(2)  # before the duplicate check and before anything queued
        # A dead-man pause ends only with RESUME: a frame proves some host is there, not that
        # it still wants the paused motion (a restarted host says HELLO first and knows
        # nothing of it; ABORT, ESTOP and RESET are about to stop it).
        resumed = False
        for seq, crc, cached in self.cache:
            if seq == frame.seq and crc == frame.crc:
                self.flush_events(force=False)
                self.queue_out(cached)
                self.last_tx = self.board.link_ticks_ms()
                return
        try:
            rtype, body = self.dispatch(frame.type, frame.body, resumed)
        except Refused as e:
            rtype, body = P.NAK, bytes((frame.type, e.reason))
        self.flush_events(force=False)
        reply = self.send(rtype, body)
        self.cache.append((frame.seq, frame.crc, reply))
        if len(self.cache) > self.cfg.REPLY_CACHE:
            self.cache.pop(0)

    # ---- commands --------------------------------------------------------------------------------

    def dispatch(self, ftype, body, resumed=False):
        handler = HANDLERS.get(ftype)
        if handler is None or (ftype in RACK_COMMANDS and not getattr(self.board, "HAS_RACKS", True)):
            raise Refused(P.NAK_UNKNOWN_TYPE)  # (v2 board: no racks, no presenter)
        if ftype in MOVING_COMMANDS and ftype != P.RESUME:
            state = self.mech.state
            if state == M.ESTOPPED:
                raise Refused(P.NAK_ESTOPPED)
            if state == M.JAMMED:
                raise Refused(P.NAK_JAMMED)
        return handler(self, body, resumed)

    def ok(self, ftype, code=P.OK_DONE):
        return (P.OK, bytes((ftype, code)))

    def need(self, body, n):
        if len(body) != n:
            raise Refused(P.NAK_BAD_BODY)

    def check_target(self, t, allow_hold=False):
        if t == P.HOLD and allow_hold:
            return
        if not P.valid_target(t, self.cfg.SEAT_COUNT):
            raise Refused(P.NAK_BAD_BODY)

    def check_idle(self):
        """Moving commands need a mechanism at rest with no card waiting in the gate."""
        if self.mech.busy() or self.mech.held is not None:
            raise Refused(P.NAK_BUSY)

    def identify_body(self):
        cfg = self.cfg
        fw = cfg.FIRMWARE_VERSION
        trays = sorted(cfg.TRAY_ANGLES)
        out = bytearray((P.VERSION, fw[0], fw[1], fw[2]))
        out.extend(P.u16(self.boot_id))
        out.extend(P.u16(self.config_crc))
        out.extend(bytes((cfg.SEAT_COUNT, cfg.READER_KIND, cfg.MAGAZINE_SLOTS, min(255, cfg.MAX_PLAN))))
        out.extend(P.u16(self.deadman_ms))
        out.extend(P.u16(self.next_event))
        out.append(cfg.FLAGS)
        out.append(len(trays))
        out.extend(bytes(trays))
        return bytes(out)

    def state_code(self):
        m = self.mech
        if m.state == M.ESTOPPED:
            return 8
        if m.state == M.JAMMED:
            return 7
        if m.state == M.PAUSED:
            return 6
        job = m.job
        if job is not None:
            if isinstance(job, DealJob):
                return 2
            if isinstance(job, FeedJob):
                return 3 if m.held is not None else 5
            return 9
        if m.state == M.RUNNING:
            return 4
        if m.held is not None:
            return 3
        if self.partial is not None:
            return 1
        return 0

    def progress(self):
        job = self.mech.job
        if isinstance(job, DealJob):
            return job.filled, job.plan.total
        if isinstance(job, FeedJob):
            return job.fed, job.count
        if isinstance(job, SelftestJob):
            return job.read + job.misreads, 0
        if self.deal_job is not None:
            return self.deal_job.filled, self.deal_job.plan.total
        return 0, 0

    def busy_body(self):
        done, total = self.progress()
        return bytes((self.state_code(), min(255, done), min(255, total)))

    def status_body(self):
        done, total = self.progress()
        b = self.board
        flags = 0
        if self.mech.state == M.ESTOPPED:
            flags |= 1
        if b.hopper_has_card():
            flags |= 2
        if self.mech.held is not None:
            flags |= 4
        if self.stores.get(P.FACEUP):
            flags |= 8
        if self.mech.state == M.PAUSED:
            flags |= 16
        if b.estop_pressed():
            flags |= 32
        deal_id = self.deal_job.plan.deal_id if self.deal_job is not None else 0
        out = bytearray((self.state_code(),))
        out.extend(P.u16(deal_id))
        out.append(min(255, total))
        out.append(min(255, done))
        out.extend(P.u16(self.next_event))
        out.append(flags)
        out.append(len(self.stores.get(P.MAGAZINE, {})))
        out.extend(P.u16(self.boot_id))
        return bytes(out)

    # ---- stores ------------------------------------------------------------------------------

    def free_slot(self, target):
        """The lowest empty slot of a slotted store, -1 for plain trays and seats, None when
        the store is full (a full store is refused, never overwritten)."""
        store = self.stores.get(target)
        if store is None:
            return -1
        for s in range(self.cfg.SLOTS.get(target, 0)):
            if s not in store:
                return s
        return None

    def check_room(self, target, count=1):
        """NAK_FULL unless a slotted ``target`` has ``count`` free slots (plain targets pass)."""
        store = self.stores.get(target)
        if store is None:
            return
        if self.cfg.SLOTS.get(target, 0) - len(store) < count:
            raise Refused(P.NAK_FULL)

    def landed(self, card, target, conf, kind):
        """A card reached target: remember it if target is a slotted store, report it."""
        op_slot = self.mech.last_slot
        store = self.stores.get(target)
        if store is not None and op_slot is not None and op_slot >= 0:
            store[op_slot] = card
        if kind == P.EV_CARD_DEALT:
            self.emit(kind, bytes((card, target, conf)))
        else:
            self.emit(kind, bytes((card, target)))

    def next_stock(self):
        mag = self.stores[P.MAGAZINE]
        if not mag:
            raise Refused(P.NAK_EMPTY)
        return min(mag)

    def store_op(self, store, slot, target_fn, kind):
        """Take the card in ``slot`` of ``store`` and send it where target_fn(card) says."""
        card = self.stores[store][slot]
        dealer = self

        def route(c, conf):
            del dealer.stores[store][slot]
            return target_fn(c)

        def done(c, target, conf):
            dealer.landed(c, target, conf, kind)

        self.mech.run_op(M.Op("store", route, done, store=store, slot=slot, card=card))

    def plain_target(self, target):
        def fn(card):
            return (target, self.free_slot(target))
        return fn


def cmd_hello(d, body, resumed):
    if len(body) < 3:
        raise Refused(P.NAK_BAD_BODY)
    if body[0] != P.VERSION:
        raise Refused(P.NAK_BAD_VERSION)
    ms = P.get_u16(body, 1)
    if ms:
        d.deadman_ms = max(d.cfg.DEADMAN_MIN, min(d.cfg.DEADMAN_MAX, ms))
    return (P.IDENTIFY, d.identify_body())


def cmd_ping(d, body, resumed):
    return d.ok(P.PING)


def cmd_status(d, body, resumed):
    return (P.STATUS_REPLY, d.status_body())


def cmd_events_since(d, body, resumed):
    if len(body) not in (2, 3):
        raise Refused(P.NAK_BAD_BODY)
    limit = body[2] if len(body) == 3 else 0
    return (P.EVENTS, d.events_since(P.get_u16(body, 0), limit))


def cmd_deal_plan(d, body, resumed):
    if len(body) < 6 or (len(body) - 4) % 2:
        raise Refused(P.NAK_BAD_BODY)
    deal_id = P.get_u16(body, 0)
    total = body[2]
    offset = body[3]
    chunk = bytes(body[4:])
    k = len(chunk) // 2
    if total == 0 or offset + k > total:
        raise Refused(P.NAK_BAD_BODY)
    if total > d.cfg.MAX_PLAN:
        raise Refused(P.NAK_TOO_BIG)
    for i in range(k):
        if chunk[2 * i] >= 52 or chunk[2 * i + 1] == P.HOLD:
            raise Refused(P.NAK_BAD_BODY)
        d.check_target(chunk[2 * i + 1])
    plan = None
    for p in d.plans:
        if p.deal_id == deal_id:
            plan = p
    if plan is None and d.partial is not None and d.partial.deal_id == deal_id:
        plan = d.partial
    if plan is not None:
        if plan.total != total:
            raise Refused(P.NAK_CONFLICT)
        have = plan.received()
        overlap = min(have, offset + k) - offset
        if overlap > 0 and bytes(plan.entries[2 * offset:2 * (offset + overlap)]) != chunk[:2 * overlap]:
            raise Refused(P.NAK_CONFLICT)
        if offset + k <= have:
            return d.ok(P.DEAL_PLAN, P.OK_ALREADY)
        if offset != have:
            raise Refused(P.NAK_BAD_STATE)  # a chunk out of order: resend from `have`
    else:
        if offset != 0:
            raise Refused(P.NAK_BAD_STATE)
        plan = Plan(deal_id, total)
    last = offset + k == total
    if last:
        d.check_idle()
        stock = 0
        for i in range(k):
            if chunk[2 * i + 1] == P.MAGAZINE:
                stock += 1
        for i in range(plan.received()):
            if plan.entries[2 * i + 1] == P.MAGAZINE:
                stock += 1
        if stock > d.cfg.MAGAZINE_SLOTS:
            raise Refused(P.NAK_TOO_BIG)
        caps = d.cfg.POCKET_CAP if getattr(d.board, "COUNTS_POCKETS", False) else {}
        for target in caps:  # tray pockets: the plan must fit (counted per deal)
            n = 0
            for i in range(plan.received()):
                if plan.entries[2 * i + 1] == target:
                    n += 1
            for i in range(k):
                if chunk[2 * i + 1] == target:
                    n += 1
            if n > caps[target]:
                raise Refused(P.NAK_TOO_BIG)
        for store in d.stores:  # the stores are emptied for a deal: each holds SLOTS
            if store == P.MAGAZINE:
                continue
            n = 0
            for i in range(plan.received()):
                if plan.entries[2 * i + 1] == store:
                    n += 1
            for i in range(k):
                if chunk[2 * i + 1] == store:
                    n += 1
            if n > d.cfg.SLOTS.get(store, 0):
                raise Refused(P.NAK_TOO_BIG)
    plan.entries.extend(chunk)
    if not last:
        d.partial = plan
        return d.ok(P.DEAL_PLAN, P.OK_ACCEPTED)
    d.partial = None
    d.plans.append(plan)
    if len(d.plans) > d.cfg.DEAL_MEMORY:
        d.plans.pop(0)
    for s in d.stores:
        d.stores[s] = {}
    d.mech.pocket_count = {}  # the players gathered every card before this deal
    plan.started = True
    job = DealJob(d, plan)
    d.deal_job = job
    d.mech.start_job(job)
    return d.ok(P.DEAL_PLAN, P.OK_STARTED)


def cmd_present(d, body, resumed):
    d.need(body, 1)
    seat = body[0]
    if seat >= d.cfg.SEAT_COUNT:
        raise Refused(P.NAK_BAD_BODY)
    d.check_idle()
    slot = d.next_stock()
    card = d.stores[P.MAGAZINE][slot]

    def route(c, conf):
        del d.stores[P.MAGAZINE][slot]
        return (seat | M.PRESENT_FLAG, -1)

    def done(c, target, conf):
        d.emit(P.EV_PRESENTED, bytes((seat, c, conf)))

    d.mech.run_op(M.Op("store", route, done, store=P.MAGAZINE, slot=slot, card=card))
    return d.ok(P.PRESENT)


def cmd_route_presented(d, body, resumed):
    d.need(body, 1)
    target = body[0]
    d.check_target(target)
    m = d.mech
    if m.held is None:
        raise Refused(P.NAK_EMPTY)
    if m.state not in (M.IDLE, M.WAITING):
        raise Refused(P.NAK_BUSY)
    d.check_room(target)
    card = m.held[0]

    def route(c, conf):
        return (target, d.free_slot(target))

    def done(c, t, conf):
        d.landed(c, t, conf, P.EV_CARD_ROUTED)

    m.run_op(M.Op("gate", route, done, card=card, conf=m.held[1]))
    return d.ok(P.ROUTE_PRESENTED)


def cmd_turn_up(d, body, resumed):
    d.need(body, 0)
    d.check_idle()
    if d.stores[P.FACEUP]:
        raise Refused(P.NAK_BUSY)
    slot = d.next_stock()
    d.store_op(P.MAGAZINE, slot, d.plain_target(P.FACEUP), P.EV_CARD_DEALT)
    return d.ok(P.TURN_UP)


def cmd_deal_stock(d, body, resumed):
    d.need(body, 1)
    d.check_target(body[0])
    d.check_idle()
    d.check_room(body[0])
    slot = d.next_stock()
    d.store_op(P.MAGAZINE, slot, d.plain_target(body[0]), P.EV_CARD_DEALT)
    return d.ok(P.DEAL_STOCK)


def cmd_route_faceup(d, body, resumed):
    d.need(body, 1)
    d.check_target(body[0])
    d.check_idle()
    if not d.stores[P.FACEUP]:
        raise Refused(P.NAK_EMPTY)
    if body[0] != P.FACEUP:
        d.check_room(body[0])
    d.store_op(P.FACEUP, 0, d.plain_target(body[0]), P.EV_CARD_ROUTED)
    return d.ok(P.ROUTE_FACEUP)


def cmd_feed(d, body, resumed):
    d.need(body, 2)
    d.check_target(body[1], allow_hold=True)
    d.check_idle()
    d.check_room(body[1], max(1, body[0]))  # count 0 (until stopped): TRAY_FULL when it fills
    d.mech.start_job(FeedJob(d, body[0], body[1]))
    return d.ok(P.FEED)


def cmd_fetch(d, body, resumed):
    d.need(body, 3)
    source, card, target = body[0], body[1], body[2]
    if source not in (P.DISCARD, P.STAGING):
        raise Refused(P.NAK_BAD_BODY)
    d.check_target(target)
    d.check_idle()
    store = d.stores[source]
    slot = None
    for s in sorted(store):
        if store[s] == card:
            slot = s
            break
    if slot is None:
        raise Refused(P.NAK_EMPTY)
    if target != source:
        d.check_room(target)
    d.store_op(source, slot, d.plain_target(target), P.EV_CARD_ROUTED)
    return d.ok(P.FETCH)


def cmd_abort(d, body, resumed):
    d.need(body, 0)
    if d.mech.state != M.ESTOPPED:
        d.partial = None
        d.mech.abort()
    return d.ok(P.ABORT)


def cmd_estop(d, body, resumed):
    return d.ok(P.ESTOP)  # the stop itself happened in on_frame, before any of this


def cmd_reset(d, body, resumed):
    d.need(body, 1)
    if body[0] == 1:
        d.reboot_pending = True
        return d.ok(P.RESET)
    if body[0] != 0:
        raise Refused(P.NAK_BAD_BODY)
    if not d.mech.reset():
        raise Refused(P.NAK_ESTOPPED)
    d.partial = None
    return d.ok(P.RESET)


def cmd_resume(d, body, resumed):
    d.need(body, 0)
    if resumed:
        return d.ok(P.RESUME)
    if d.mech.state == M.ESTOPPED:
        raise Refused(P.NAK_ESTOPPED)
    if not d.mech.resume():
        raise Refused(P.NAK_BAD_STATE)
    return d.ok(P.RESUME)


def cmd_selftest(d, body, resumed):
    d.need(body, 1)
    if body[0] not in (0, 1):
        raise Refused(P.NAK_BAD_BODY)
    d.check_idle()
    if hasattr(d.board, "reader_probe"):
        d.board.reader_probe()  # FAULT 2 if the reader does not answer (firmware/board.py)
    d.mech.start_job(SelftestJob(d, body[0]))
    return d.ok(P.SELFTEST)


HANDLERS = {
    P.HELLO: cmd_hello, P.PING: cmd_ping, P.STATUS: cmd_status, P.EVENTS_SINCE: cmd_events_since,
    P.DEAL_PLAN: cmd_deal_plan, P.PRESENT: cmd_present, P.ROUTE_PRESENTED: cmd_route_presented,
    P.TURN_UP: cmd_turn_up, P.DEAL_STOCK: cmd_deal_stock, P.ROUTE_FACEUP: cmd_route_faceup,
    P.FEED: cmd_feed, P.FETCH: cmd_fetch, P.ABORT: cmd_abort, P.ESTOP: cmd_estop,
    P.RESET: cmd_reset, P.RESUME: cmd_resume, P.SELFTEST: cmd_selftest,
}
