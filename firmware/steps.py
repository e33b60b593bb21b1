"""Protocol 3's step ids: the dealer remembers what each step did, and where the cards went.

Every command that moves cards carries a step id the host chooses (DEAL_PLAN's deal id is its
step id; ROUTE_PRESENTED, FEED, FETCH, ABORT, RESUME and SELFTEST start their body with a u16
step id). The dealer keeps the last ``STEP_MEMORY`` steps: a step sent again (its answer was
lost, the link went down, the host restarted) is answered with its first reply and never done
twice; STEP_QUERY tells the host what a step did (running, done with which card to where,
stopped by a jam, aborted, interrupted by a reboot) instead of leaving it to guess.

The ``Ledger`` is the dealer's own account of where it put cards since the last fresh deal
(a DEAL_PLAN over a gathered hopper): the cards each pocket received (counts) and the cards it
sent to the reject pocket (0xFF: unreadable). It is kept from the events themselves (every
card that reaches a pocket is an event), so nothing can move a card without it being counted.
INVENTORY reports it with the read window and the loop model.

Steps, the ledger and the loop model are saved (``board.nv_write``: a file on the Pico's flash,
memory the simulator keeps across its reboots) at most once per loop pass, when a step is
accepted, holds a card, ends or stops, or a fed card is read (not for every card of a deal: a
deal is saved when it starts and when it ends, so flash is written a few times a step), and
read back at boot: a step that was still running when the power went is
INTERRUPTED; the loop model is trusted after a reboot only if no step was moving cards when it
was saved (else the host relearns it).

MicroPython: no dataclasses, no typing, integers packed by hand.
"""

from . import protocol as P

NV_MAGIC = 0xA3  # the saved image's format (a different one is ignored at boot)

# event kinds that end, stop or restart a step, or carry its card
_STOPS = (P.EV_JAM, P.EV_POCKET_FULL, P.EV_DOUBLE_FEED, P.EV_DEADMAN, P.EV_FAULT)


class Step:
    """One step as the dealer remembers it."""

    def __init__(self, sid, ftype, key, first):
        self.id = sid
        self.type = ftype
        self.key = key  # CRC-16 of the command body: the same id with another body is a CONFLICT
        self.state = P.STEP_RUNNING
        self.code = P.OK_DONE  # the first reply's OK code
        self.card = P.UNKNOWN_CARD  # the card it read or routed last
        self.target = P.UNKNOWN_CARD  # where that card went (0xFE: held in the read window)
        self.count = 0  # cards it dealt, fed or read
        self.first = first & 0xFFFF  # the index of the first event logged after it was accepted

    def open(self):
        return self.state in (P.STEP_RUNNING, P.STEP_STOPPED, P.STEP_HELD)

    def body(self):
        """The STEP reply body."""
        return (P.u16(self.id) + bytes((self.type, self.state, self.card, self.target, min(255, self.count)))
                + P.u16(self.first))

    def pack(self):
        return (P.u16(self.id) + P.u16(self.key) + bytes((self.type, self.state, self.code, self.card,
                                                          self.target, min(255, self.count))) + P.u16(self.first))

    @staticmethod
    def unpack(data, i):
        s = Step(P.get_u16(data, i), data[i + 4], P.get_u16(data, i + 2), P.get_u16(data, i + 10))
        s.state = data[i + 5]
        s.code = data[i + 6]
        s.card = data[i + 7]
        s.target = data[i + 8]
        s.count = data[i + 9]
        return s


STEP_SIZE = 12


def unknown_body(sid):
    return P.u16(sid) + bytes((0, P.STEP_UNKNOWN, P.UNKNOWN_CARD, P.UNKNOWN_CARD, 0)) + P.u16(0)


class Steps:
    """The remembered steps (oldest first) and the attribution of events to the open ones."""

    def __init__(self, memory):
        self.memory = memory
        self.list = []
        self.dirty = False

    def find(self, sid):
        for s in self.list:
            if s.id == sid:
                return s
        return None

    def add(self, step):
        old = self.find(step.id)
        if old is not None:
            self.list.remove(old)
        self.list.append(step)
        # forget the oldest finished steps first; an open one is kept while it is open
        while len(self.list) > self.memory:
            drop = None
            for s in self.list:
                if not s.open():
                    drop = s
                    break
            if drop is None:
                drop = self.list[0]
            self.list.remove(drop)
        self.dirty = True

    def remove(self, step):
        if step in self.list:
            self.list.remove(step)
            self.dirty = True

    def last_open(self, t1, t2=0):
        """The newest open step of type ``t1`` (or ``t2``), or None (no list is built: this
        runs for every event)."""
        lst = self.list
        for i in range(len(lst) - 1, -1, -1):
            s = lst[i]
            if s.open() and (s.type == t1 or s.type == t2):
                return s
        return None

    def set(self, step, state):
        if step.state != state:
            step.state = state
            self.dirty = True

    def abort_open(self, keep=None):
        """ABORT, ESTOP or RESET: every open step ends unfinished."""
        for s in self.list:
            if s.open() and s is not keep:
                s.state = P.STEP_ABORTED
                self.dirty = True

    def on_event(self, kind, payload):
        """Attribute one event to the open step it belongs to (see the module docstring). Runs
        for every event: it allocates nothing."""
        if kind == P.EV_CARD_ROUTED:
            s = self.last_open(P.ROUTE_PRESENTED, P.FETCH)
            if s is not None:
                s.card, s.target = payload[0], payload[1]
                s.count += 1
                self.set(s, P.STEP_DONE)
                return
            # a card the mechanism cleared from the window: the ABORT just received says so
            if self.list:
                s = self.list[-1]
                if s.type == P.ABORT and s.card == P.UNKNOWN_CARD:
                    s.card, s.target = payload[0], payload[1]
                    self.dirty = True
            return
        if kind == P.EV_PRESENTED:
            s = self.last_open(P.FEED)
            if s is not None:
                s.card, s.target = payload[1], P.HOLD
                s.count += 1
                self.set(s, P.STEP_HELD)
            return
        if kind == P.EV_CARD_DEALT or kind == P.EV_MISREAD or kind == P.EV_DUPLICATE:
            s = self.last_open(P.DEAL_PLAN, P.FEED)
            if s is None:
                s = self.last_open(P.SELFTEST)
            if s is None:
                return
            if kind == P.EV_MISREAD:
                s.card, s.target = P.UNKNOWN_CARD, payload[0]
            else:
                s.card, s.target = payload[0], payload[1]
            s.count += 1
            if s.type == P.FEED:
                s.state = P.STEP_RUNNING  # (a held card went on)
                self.dirty = True  # a card fed by a player: saved (a deal is saved at its end)
            return
        if kind == P.EV_STAGED:
            s = self.last_open(P.FETCH)
            if s is not None:
                s.card, s.target = payload[0], P.HOLD
                self.set(s, P.STEP_DONE)
            return
        if kind == P.EV_DEAL_DONE or kind == P.EV_FEED_DONE or kind == P.EV_SELFTEST_DONE:
            want = P.DEAL_PLAN if kind == P.EV_DEAL_DONE else P.FEED if kind == P.EV_FEED_DONE else P.SELFTEST
            for s in self.list:
                if s.open() and s.type == want:
                    if kind == P.EV_DEAL_DONE and s.id != P.get_u16(payload, 0):
                        continue
                    self.set(s, P.STEP_DONE)
            return
        if kind in _STOPS:
            for s in self.list:
                if s.state == P.STEP_RUNNING and s.type != P.ABORT and s.type != P.RESUME:
                    self.set(s, P.STEP_STOPPED)
            return
        if kind == P.EV_RESUMED:
            for s in self.list:
                if s.state == P.STEP_STOPPED:
                    self.set(s, P.STEP_RUNNING)
            return
        if kind == P.EV_ABORTED or kind == P.EV_ESTOP:
            for s in self.list:
                if s.open() and s.type != P.ABORT and s.type != P.RESUME:
                    self.set(s, P.STEP_ABORTED)
            return

    def after_boot(self):
        """The image read at boot: a step still open when the power went was interrupted."""
        for s in self.list:
            if s.open():
                s.state = P.STEP_INTERRUPTED


class Ledger:
    """Cards delivered to each pocket and sent to the reject pocket since the last fresh deal."""

    def __init__(self):
        self.pockets = {}
        self.rejects = []

    def clear(self):
        self.pockets = {}
        self.rejects = []

    def on_event(self, kind, payload, loop):
        if kind in (P.EV_CARD_DEALT, P.EV_CARD_ROUTED, P.EV_DUPLICATE):
            card, target = payload[0], payload[1]
        elif kind == P.EV_MISREAD:
            card, target = P.UNKNOWN_CARD, payload[0]
        else:
            return False
        if target == loop or target == P.HOLD:
            return False
        self.pockets[target] = self.pockets.get(target, 0) + 1
        if target == P.REJECT and len(self.rejects) < 255:
            self.rejects.append(card)
        return True


def inventory_body(dealer, part, offset, limit):
    """The INVENTORY reply: u8 part, u8 offset, u8 total, then that part's bytes from offset."""
    led = dealer.ledger
    if part == P.INV_SUMMARY:
        m = dealer.mech
        held = m.held
        window = P.UNKNOWN_CARD
        flags = 0
        if m.gate.state:
            flags |= 1
            if held is not None:
                window = held[0]
                flags |= 2
            elif dealer.loop and dealer.window_is_loop():
                window = dealer.loop[0]
        if dealer.loop_valid:
            flags |= 4
        if dealer.staged is not None:
            flags |= 8
        head = bytes((window, flags, min(255, len(dealer.loop)), min(255, len(led.rejects))))
        return bytes((part, 0, len(head))) + head
    items = bytearray()
    if part == P.INV_POCKETS:
        for t in sorted(led.pockets):
            items.append(t)
            items.append(min(255, led.pockets[t]))
        size = 2
    elif part == P.INV_REJECT:
        items.extend(bytes(led.rejects))
        size = 1
    elif part == P.INV_LOOP:
        items.extend(bytes(dealer.loop[:255]))
        size = 1
    else:
        return None
    count = len(items) // size
    room = (P.MAX_BODY - 3) // size
    if limit:
        room = min(room, limit)
    offset = min(offset, count)
    end = min(count, offset + room)
    return bytes((part, offset, min(255, count))) + bytes(items[offset * size:end * size])


def nv_image(dealer):
    """Steps, the ledger and the loop model as bytes (saved at most once per loop pass)."""
    steps = dealer.steps.list
    moving = False
    for s in steps:
        if s.open() and s.type != P.ABORT:
            moving = True
    out = bytearray((NV_MAGIC, len(steps)))
    for s in steps:
        out.extend(s.pack())
    led = dealer.ledger
    out.append(len(led.pockets))
    for t in sorted(led.pockets):
        out.append(t)
        out.append(min(255, led.pockets[t]))
    out.append(min(255, len(led.rejects)))
    out.extend(bytes(led.rejects[:255]))
    valid = dealer.loop_valid and not moving and dealer.mech.held is None
    # bit 0: the loop model is valid; bit 1: cards were on their way then (on the belt or the
    # loop's return path: after a reboot the first job runs the belt round first, homecoming)
    out.append((1 if valid else 0) | (2 if dealer.mech.flights else 0))
    loop = dealer.loop[:255]
    out.append(len(loop))
    out.extend(bytes(loop))
    out.extend(P.u16(P.crc16(out)))
    return bytes(out)


def nv_restore(dealer, data):
    """Read an image back at boot; False (nothing restored) if it is not a whole valid one."""
    if not data or len(data) < 8 or data[0] != NV_MAGIC:
        return False
    if P.crc16(data[:-2]) != P.get_u16(data, len(data) - 2):
        return False
    try:
        i = 2
        steps = []
        for _ in range(data[1]):
            steps.append(Step.unpack(data, i))
            i += STEP_SIZE
        pockets = {}
        for _ in range(data[i]):
            pockets[data[i + 1]] = data[i + 2]
            i += 2
        i += 1
        n = data[i]
        rejects = list(data[i + 1:i + 1 + n])
        i += 1 + n
        valid = data[i] & 1 == 1
        flying = data[i] & 2 == 2
        n = data[i + 1]
        loop = list(data[i + 2:i + 2 + n])
    except IndexError:
        return False
    dealer.steps.list = steps
    dealer.steps.after_boot()
    dealer.ledger.pockets = pockets
    dealer.ledger.rejects = rejects
    if flying and dealer.mech.unswept:
        dealer.mech.sweep_first = True
    if valid:
        dealer.loop = loop
        dealer.loop_valid = True
    else:
        dealer.loop = []
        dealer.loop_valid = not loop  # an empty loop needs no relearning
    return True
