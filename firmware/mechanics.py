"""The per-card state machine: feed, read, aim (the "turn" stage), eject, each with a timeout.

Every card movement is an ``Op``: where the card comes from (the hopper, or the gate where a
presented/held card waits) and two callbacks from its owner in
commands.py: ``route(card, conf)`` says where the card goes once it has been read, ``done``
is told when it got there. The op becomes a list of stages; ``Mechanics.step()`` runs one
stage at a time without blocking (the main loop must keep polling the link), starting a stage,
polling its sensor and giving up after the stage's timeout: a timed-out stage is a jam (or,
for the reader, another attempt and at last a misread). Motion stops at once on e-stop, on a
jam and on the dead-man timeout; RESUME (only RESUME) restarts the stopped stage.

With a belt (board.eject_done exists: firmware/board.py, the simulator's board) a card is "in
flight" from the end of the feed move that put it on the belt until its pocket's sensor saw it
go in (board.confirmed): only then is it reported; past its window it is a JAM. The next card is
read meanwhile; a flap rises and a card leaves only when no card on the belt can be misrouted
by it (_aim_safe, _eject_safe: computed from the belt speed in firmware/timing.py).

All hardware goes through the board object (firmware/board.py on the Pico, a simulated board
on a PC), and all time through ``board.ticks_ms()`` so the simulator can run it fast.
"""

from . import config, timing
from . import protocol as P
from .ticks import ticks_add, ticks_diff

IDLE = 0  # nothing to do
RUNNING = 1  # a card is moving
WAITING = 2  # a job waits (for a held card to be routed, or for cards to be fed)
PAUSED = 3  # dead-man: motors stopped until the host is heard again
JAMMED = 4  # a stage timed out (or a tray is full): waiting for RESUME or RESET
ESTOPPED = 5  # latched until RESET

PRESENT_FLAG = 0x100  # route() result: show the card to seat (target & 0xFF) and keep it

# Stage codes as reported in JAM/DEADMAN events (hardware/PROTOCOL.md section 11).
ST_TRAY = 0  # a pocket full (POCKET_FULL)
ST_FEED = 1  # no card at the read gate in time
ST_READ = 2
ST_TRANSPORT = 3  # the card missed its pocket sensor's window (or its feed move stuck)
ST_MISROUTE = 4  # the card reached the end-of-run sensor E instead of its pocket
ST_LOOP = 5  # a loop card missed the switchback (Rv) or drop (D) sensor
ST_TURN = ST_TRANSPORT  # v1 names, for the simulator's racks (removed with them)
ST_EJECT = ST_TRANSPORT

DF_LENGTH = 1  # DOUBLE_FEED how: the gate was blocked longer than a card
DF_THICK = 2  # the thickness sensor saw two cards

WAIT = "wait"  # a job's next_op(): nothing to do yet, but not finished


class Debounced:
    """A two-state sensor that changes state only after ``samples`` consecutive raw readings
    of the other state (a flickering opto never ends a stage)."""

    def __init__(self, samples, state=False):
        self.samples = max(1, samples)
        self.state = state
        self.run = 0

    def reseed(self, raw):
        self.state = bool(raw)
        self.run = 0

    def sample(self, raw):
        raw = bool(raw)
        if raw == self.state:
            self.run = 0
        else:
            self.run += 1
            if self.run >= self.samples:
                self.state = raw
                self.run = 0
        return self.state


class Flight:
    """A card on the belt: left the feed section, not yet confirmed by its station's sensor.

    A loop card (pocket None) passes three sensors in turn: the end of run E, the switchback's
    inner opto Rv, the drop D onto the hopper; ``station`` is the next one it must reach (0, 1,
    2; 3 = back on the hopper) and ``due`` when each is due after ``left``."""

    def __init__(self, op, target, pocket, left, deadline, due=None):
        self.op = op
        self.target = target
        self.pocket = pocket  # pocket index, None for the return loop
        self.left = left  # tick when the feed move that put it on the belt ended
        self.deadline = deadline  # its pocket's sensor should have seen it (paces the next cards)
        self.late = deadline  # past this unconfirmed: JAM (a pocket card: once it would be at E)
        self.station = 0
        self.due = due
        self.overdue = False  # a pocket card past its deadline unseen: caught on the path


class Op:
    """One card movement. source: 'hopper' or 'gate'."""

    def __init__(self, source, route, done, card=P.UNKNOWN_CARD, conf=0, empty=None, undo=None):
        self.source = source
        self.route = route
        self.done = done
        self.empty = empty
        self.undo = undo  # called when a routed card is taken back (a double feed)
        self.card = card
        self.conf = conf
        self.attempts = 0
        self.tag = None
        self.target = None
        self.index = -1  # the plan entry a deal gave it
        self.misrouted = None  # told (with the op) when the card missed its pocket
        self.lost = None  # told (with the op) when the mechanism gave the card up at a jam
        # The hopper's pickup (board.hold_hopper): ``hold`` takes no hopper card at all (a fed
        # card comes from the play slot); ``pull_next`` False: the feed move that takes this
        # card onto the belt brings no hopper card to the window (it stays next in the hopper).
        self.hold = False
        self.pull_next = True
        # the feed move is for a card a stop may have left short of the gate (short_feed): no
        # card at the gate in time means none was there, not a jam
        self.short = False
        # the belt goes round first, every flap down (clear_gate after a stop forgot cards on it)
        self.home_first = False


class Mechanics:
    def __init__(self, board, cfg, emit):
        self.board = board
        self.cfg = cfg
        self.emit = emit
        self.state = IDLE
        self.job = None
        self.op = None
        self.stages = []
        self.stage = None
        self.stage_start = 0
        self.held = None  # (card, conf, seat) of the card waiting in the gate
        self.last_op = None
        self.gate = Debounced(getattr(cfg, "GATE_SAMPLES", 1), bool(board.gate_has_card()))
        # A board with a belt (firmware/board.py, the simulator's board) reports each card's
        # arrival at its station: the card is "in flight" from the end of its feed move until
        # that confirmation, while the next card is read. Without one, ejection is sequential.
        self.belt = hasattr(board, "eject_done")
        self.flights = []
        self.stopped_at = None  # when a jam / dead-man stop froze the cards on the belt
        # Cards sent to each tray pocket since the deal began (players empty the trick, discard,
        # centre and reject pockets only between deals; seat pockets are emptied by their
        # owners as they play, so they are not counted). A pocket at config.POCKET_CAP stops
        # with TRAY_FULL; RESUME means it was emptied.
        self.pocket_count = {}
        self.full_target = None
        # set by commands.Dealer: True when the card in the read window is the loop model's
        # head (a loop card the last feed move brought in, not a fed card): ABORT leaves it.
        self.window_is_loop = None
        self.loop_sensors = hasattr(board, "loop_seen")  # E, Rv, D reported one by one
        # ms from the window to E of the last loop card E saw (None: none yet). Loop cards
        # follow each other a switchback's cycle apart (about 330 ms) and ride the same belt,
        # so each takes about as long as the one before; E's window for one card (the slowest
        # belt plus a margin) is wider than that spacing, and a card caught on the path would
        # otherwise be taken for the next one (found on the physical twin: 20 cards of a stock
        # deal each taken for the card before it, then JAM 3 naming the plan's last card)
        self.loop_transit = None
        # RESUME restarted the belt under loop cards: they ride it again from rest and the
        # switchback pulls the one a stop caught in it again, so they no longer keep the
        # switchback's cycle apart from a card sent now; the next loop card leaves only once
        # they are all past the switchback (Rv)
        self.loop_restarted = False
        # set by commands.Dealer: told of a loop card the next one overtook (caught on the
        # path: it will not land), to take it out of the loop model and the blade's queue
        self.loop_gone = None
        self.ejecting = False  # the eject stage's feed move was started (_start_stage)
        # the card an ABORT or e-stop found routed but still in the read window (_in_window): the
        # job's cancel() puts it back in the loop model (None: no card)
        self.unejected = None
        self.aimed = False  # the turn stage raised its flap (_aim_safe let it)
        # (stage code, card) of a stop decided while F was in a feed move: it is made when the
        # move ends (_stop_for), nothing else starts meanwhile
        self.pending_stop = None
        # move_on_phase, _at_window's state: 0, or 1 lifting the stack off P, 2 moving a card
        # that lies short on by lag_mm (board.moving_on: F's move is that move_on);
        # held_before: the hopper's hold to put back (and the lift was up already: no settle
        # wait); lift_up_at: when _at_window held the hopper
        self.move_on_phase = 0
        self.lag_mm = 0
        self.held_before = False
        self.lift_up_at = 0
        self.grip_ms = timing.grip_ms(cfg)  # (the pacing's earliest arrival at a mouth)
        # a card at E sooner than this after a loop card left the read window is not that card:
        # two thirds of the fastest belt's trip (a late loop pass may have noted the card's
        # leaving up to ~120 ms late at the twin's fastest belt, +30 %); computed once, so a
        # sensor edge allocates nothing
        self.too_soon_at_e = self._fast(timing.loop_station_ms(cfg)[0]) * 2 // 3
        self.ramp_ms = timing.belt_start_ms(cfg)
        # the card the last feed move brought to the read window came from the play slot (the
        # hopper's pickup was held, or a card lay in the slot, which a feed move takes first):
        # a card a person fed, whatever the loop model holds (commands.FeedJob)
        self.hopper_held = False
        self.from_slot = False
        self.slot_fed = False  # ... and a card lay in the slot then (that move took it)
        # an eject that pulls the loop's next card (NEXT) started, and no card has been read in
        # the window since: a stop that cut it short may have left that card in the feed path,
        # short of the gate, where the next feed move brings it in ahead of a play slot card
        self.pull_cut = False
        # a stop (e-stop, ABORT) came during a feed move, its card not at the gate yet: it may
        # lie in the feed path short of the gate (commands.FeedJob brings it in first)
        self.short_feed = False
        # the e-stop cut a feed move after its card passed the gate (board.cut_lead): RESET and
        # ABORT bring that card on to the window (finish_cut). Other stops (a double feed, a
        # jam) leave the rest to the next feed move, as before
        self.cut_by_estop = False
        # the e-stop cut a FETCH's eject after its card's tail had passed the gate: that card is
        # past the read window and no flight follows it. ``send_home``: RESET (or an ABORT after
        # it) sends it round into the loop at once, every flap down, the belt running round
        # (finish_cut, until the belt has gone round); ``riding``: the steps of the move F runs
        # then, the belt not having taken the card yet (so that no later feed move pushes it onto
        # the belt unannounced). ``gone_out``: that card, for the job's cancel() (a card the
        # FETCH had found goes back into the loop model)
        self.riding = 0
        self.gone_out = None
        self.send_home = False
        # when the hopper lift last came down (ticks_ms; None: not since boot): the stack lands
        # on the pickup roller P a swing and a PWM frame later, and a feed move that takes the
        # hopper's bottom card waits for it (lift_settled, config.LIFT_SETTLE_MS)
        self.lift_down_at = None
        # The belt has not run since boot (or since a stop forgot the cards on it): cards may
        # lie on the belt or the loop's return path where the power left them, and no flight
        # follows them. A job that finds the hopper empty runs the belt round once first
        # (homecoming) and looks again.
        self.unswept = self.belt and self.loop_sensors
        # The image saved before the reboot says cards were on their way then (steps.nv_restore):
        # the first job runs the belt round before anything else, so that the loop sensors do
        # not see them pass while it follows a card of its own (two-player Spades, the
        # watchdog between a stage and its FETCH, six cards on the return path: the FETCH took
        # their edges for its card passing its pocket, JAM 4, Resume after Resume)
        self.sweep_first = False

    def op_attempts(self):
        """How many reads the current (or last finished) op needed."""
        op = self.last_op if self.last_op is not None else self.op  # done() is told of last_op
        return op.attempts if op is not None else 0

    # ---- queries -------------------------------------------------------------------------

    def moving(self):
        """True while motors may be running: the dead-man timeout applies only then."""
        return self.state == RUNNING

    def busy(self):
        return self.state in (RUNNING, WAITING, PAUSED)

    # ---- control from commands.py --------------------------------------------------------

    def start_job(self, job):
        self.job = job
        self.state = RUNNING

    def homecoming(self):
        """The op that brings home cards a reboot (or a stop that forgot its flights) left on
        the belt or the loop: every flap down, the belt runs as long as the slowest loop card
        takes from the read window to the drop D, and the cards on it go round into the
        hopper. A job asks for it (``unswept``) when it finds the hopper empty with no card it
        follows on the belt, before it calls the hopper empty: found on the simulated table,
        where the watchdog rebooted the dealer while a German Whist FETCH sent the last five
        stock cards round; the belt never ran again, and every relearning of the loop found the
        hopper empty."""
        return Op("belt", None, self._home_done)

    def _home_done(self, card, target, conf):
        pass

    def run_op(self, op):
        """Run one op now (the mechanism must be idle or waiting)."""
        self._begin(op)
        self.state = RUNNING

    def _in_window(self):
        """The card the running op routed, while it is sure to lie in the read window still: its
        flap turning, its eject not begun, or its eject under way with the gate still seeing a
        card and no other card that move could bring there (no NEXT pull, no play slot card);
        None otherwise (a card that may have left for the belt is left to the host's look at
        the loop after the stop)."""
        op, stage = self.op, self.stage
        if op is None or stage is None or op.target is None:
            return None
        if stage[0] == "turn":
            return op.card
        if stage[0] == "eject":
            if not self.ejecting:
                return op.card
            if not op.pull_next and not self.slot_fed and self.gate.state:
                return op.card
        return None

    def _gone_out(self, finishing):
        """(The e-stop, after stop_all.) The FETCH's eject it cut had taken its card's tail past
        the gate: the card lies between the window and the belt, or on the belt short of the
        first pocket, with no flight to follow it. Found on the physical twin (seed 11025 of the
        estop_fetch row): a card sent round the loop stopped 54 mm out of the window, in F2's
        rollers, short of the belt's grip; the FETCH done again after RESET ran the cut move's
        rest, which pushed it onto the belt unannounced, and the loop sensors took it for the
        next card's: a misroute stop at every Resume. Now it goes into the loop: RESET sends it
        round (``send_home``, finish_cut: the move's rest, ``riding``, with the belt running
        round, every flap down). ``finishing``: F was running such a rest when the stop came."""
        self.gone_out = None
        op, stage, board = self.op, self.stage, self.board
        if op is None or stage is None or not self.belt:
            return
        if stage[0] == "rest":
            self._ride_left(finishing)  # that rest cut short in turn
            return
        if stage[0] != "eject" or not self.ejecting or (op.tag != "cycle" and op.tag != "fetch"):
            return
        left = getattr(board, "f_cut", 0)
        if not left:
            return
        cfg = self.cfg
        num, den = config.steps_per_mm(cfg.F_MM_PER_REV)
        lead = cfg.WINDOW_X_MM + cfg.F_MOVE_MM - left * den // num
        if lead < cfg.GATE_X_MM + cfg.CARD_LEN_MM:
            return  # its tail still darkens the gate: the window's card, read again where it is
        if lead >= cfg.GRIP_X_MM and op.tag != "cycle":
            # the belt has the FETCH's own card, its flap up, and (the belt outruns F) it may be
            # in its pocket's mouth already: left to go on there (seeds 13010, 13013, 13031 and
            # 13054: sent round as a loop card, it had dropped into the pocket meanwhile)
            return
        self.gone_out = op.card
        self.riding = left if lead < cfg.GRIP_X_MM else 0
        self.send_home = self.loop_sensors
        self._homecoming_first()

    def _eject_cut(self):
        """(The e-stop, after stop_all.) An eject under way: its card may be on the belt already,
        not a flight yet (a flight starts when the eject ends), so nothing follows it: the belt
        goes home first, before anything raises a flap (clear_gate, the next job). Found on the
        physical twin (estop_deal, seed 1): the e-stop during a dealt card's eject; RESET's reject
        of the next card, unread in the window, raised the reject pocket's flap with the dealt
        card on the belt ahead of it, and the reject's own card missed its window: JAM 3 at
        RESET and again at the ABORT after it, and the hand was gathered and dealt again."""
        stage = self.stage
        if stage is not None and stage[0] == "eject" and self.ejecting:
            self._homecoming_first()

    def _ride_left(self, finishing):
        """(A stop, after stop_all.) ``finishing``: F was running finish_cut's rest of a card
        sent round (``riding``): what is left of that move is what the ride runs next time."""
        if self.riding and finishing:
            self.riding = self.board.f_rest

    def _feed_cut(self):
        """A feed move under way with its card not at the gate yet (the stop leaves it short)."""
        stage = self.stage
        return stage is not None and stage[0] == "feed" and self.feeding and not self.gate.state

    def estop(self, source):
        """Stop every motor at once and latch: nothing moves again before RESET."""
        finishing = getattr(self.board, "finishing", False)
        self.board.stop_all()
        self.unejected = self._in_window()
        self.short_feed = self._feed_cut()
        self.cut_by_estop = self.cut_by_estop or bool(getattr(self.board, "cut_lead", False))
        self._gone_out(finishing)
        self._eject_cut()
        was = self.state
        self.state = ESTOPPED
        self.pending_stop = None
        self.op = None
        self.stage = None
        self.stages = []
        self._lost_flights()
        if was != ESTOPPED or source == 1:
            self.emit(P.EV_ESTOP, bytes((source,)))
        job = self.job
        self.job = None
        if job is not None and hasattr(job, "cancel"):
            job.cancel()

    def abort(self):
        """Forget the running job and op; a card left in the gate goes to the reject tray."""
        finishing = getattr(self.board, "finishing", False)
        self.board.stop_all()
        self._ride_left(finishing)  # (an ABORT cut finish_cut's rest)
        self.unejected = self._in_window()
        self.short_feed = self.short_feed or self._feed_cut()  # (RESET after an e-stop aborts too)
        job = self.job
        self.job = None
        self.op = None
        self.stage = None
        self.stages = []
        self.state = IDLE
        self.pending_stop = None
        self._park_flights()
        forget = getattr(self.board, "forget_arrivals", None)
        if forget is not None:
            forget()  # (no flight to a pocket is left to take them)
        if job is not None and hasattr(job, "cancel"):
            job.cancel()
        self.clear_gate()
        return job

    def clear_gate(self):
        """If a card sits in the gate, send it to the reject tray (it is reported routed); a
        loop card waiting there (brought by the last feed move, or staged) stays."""
        if not self.gate.state:
            self.held = None
            return
        if self.window_is_loop is not None and self.window_is_loop():
            self.held = None
            return
        if self._cut_comes_in():
            self.held = None
            return
        card = P.UNKNOWN_CARD
        if self.held is not None:
            card = self.held[0]
        self.held = None
        emit = self.emit

        def route(c, conf):
            return (P.REJECT, -1)

        def done(c, target, conf):
            emit(P.EV_CARD_ROUTED, bytes((c, target)))

        op = Op("gate", route, done, card=card)
        if self.sweep_first and self.unswept and not self.flights:
            # cards the stop left on the belt (_lost_flights) go home before the reject pocket's
            # flap rises for this one. Found on the physical twin (estop_fetch, seed 16012): the
            # e-stop while a played card was read, the turn-up's stock card just sent round;
            # RESET's reject raised the flap at once, the stock card on the belt dropped into the
            # reject pocket, its count confirmed the played card's flight, and the played card
            # went round the loop: the screen asked its player to take back a card not there
            self.sweep_first = False
            op.home_first = True
        self.run_op(op)

    def reset(self):
        """Leave ESTOPPED/JAMMED/PAUSED for IDLE; False while the e-stop button is held."""
        if self.board.estop_pressed():
            return False
        self.gate.reseed(self.board.gate_has_card())
        self.abort()
        self._lost_flights()  # RESET forgets everything, the loop cards in flight too
        self.stopped_at = None
        self.finish_cut()
        return True

    def _cut_comes_in(self, slot_card=None):
        """The gate's card is one a feed move the e-stop cut short brought past the gate, short of
        the read window, and finish_cut (after clear_gate, in RESET and ABORT) will run that
        move's rest, the hopper held: the card comes to rest in the window, unread, where the
        next job reads it. clear_gate leaves it there. Sent to the reject pocket instead, its
        eject ran only the cut move's rest, with the hopper not held: the card came to the
        window, not the belt, the hopper's next card came in shingled under it, and the reject
        was never seen (found on the physical twin, estop_deal seed 12000 and seven more: the
        e-stop during a dealt card's eject, the next card 16.5 mm short of the window; JAM 3
        at RESET, a double feed at the ABORT after it, a jam at the feed stage, a card the
        dealer could not read: four stops for one e-stop)."""
        board = self.board
        if not (self.cut_by_estop and getattr(board, "cut_lead", False) and board.f_rest and self.gate.state):
            return False
        if self.flights:
            return False  # (finish_cut waits for them: an ABORT that froze loop cards)
        if slot_card is None:
            slot = getattr(board, "slot_has_card", None)
            slot_card = slot is not None and slot()
        return not slot_card  # (with a card in the slot the move would take it in)

    def path_gathered(self):
        """DEAL_PLAN flag FRESH: the players gathered every card into the hopper, those a stop
        left in the feed path too. What the stop's cut feed move left to run is forgotten: its
        rest, run as the fresh deal's first feed move, took the hopper's first card only that
        far (40 mm, short of the gate: JAM at the feed stage) and the next whole move past the
        window (read three times, nothing: rejected unread). Found on the physical twin,
        estop_deal seed 12039: the e-stop during a dealt card's eject, the next card in the
        throat; the deal was gathered and dealt again, with two stops more."""
        forget = getattr(self.board, "forget_cut", None)
        if forget is not None:
            forget()
        self.cut_by_estop = False
        self.short_feed = False
        self.pull_cut = False
        self.riding = 0

    def finish_cut(self):
        """After the e-stop (RESET, ABORT): a feed move the e-stop cut short after its card passed
        the gate left that card between the gate and the read window (``board.cut_lead``): run
        the rest of the move now, the hopper held, so the card is at rest in the window, where
        every job looks for it. Found on the physical twin: the e-stop during a played card's
        eject that pulled the loop's next card (NEXT) left that card 36 mm short of the window;
        the FEED that read the played card from the play slot took it for the window's card, read
        nothing three times, and its eject (the cut move's rest) brought the loop card to the
        window and the slot's card only 36 mm in: JAM, and the same at every Resume. With a card
        in the play slot nothing is done (the move would take it in)."""
        board = self.board
        home = self.send_home  # a card the e-stop left out of the window (_gone_out)
        if not home and not getattr(board, "cut_lead", False):
            self.cut_by_estop = False
            return
        if self.state != IDLE or self.flights:
            return  # (it waits for them: an ABORT that froze loop cards)
        slot = getattr(board, "slot_has_card", None)
        slot_card = slot is not None and slot()  # (the move would take that card in)
        if not home and not self._cut_comes_in(slot_card):
            return  # (no card for the rest to bring on)
        op = Op("rest", None, self._home_done)
        if home:
            steps = self.riding
            if not steps and getattr(board, "cut_lead", False) and self.gate.state:
                steps = board.f_rest  # (the belt has it: the next card past the gate comes on)
            self.riding = 0 if slot_card else steps  # (with a slot card the next feed move runs it)
            op.tag = "ride"  # with the belt round (homecoming) at once: see _begin
        self.held_before = self.hopper_held
        self.hold_hopper(True)
        self.run_op(op)

    def resume(self):
        """Restart the stage a jam or dead-man pause stopped; False if nothing is stopped."""
        if self.state not in (JAMMED, PAUSED):
            return False
        stage = 0
        if self.stage is not None:
            stage = self.stage[1]
        self.state = RUNNING
        self.gate.reseed(self.board.gate_has_card())  # hands were in the path: read it afresh
        if self.full_target is not None:
            self.pocket_count[self.full_target] = 0  # the operator emptied it
            self.full_target = None
        self._unfreeze()
        self.emit(P.EV_RESUMED, bytes((stage,)))
        if self.stage is not None:
            self._start_stage(self.stage)  # may stop again at once (a tray still full)
        return True

    def fault(self, code, detail):
        """The board found a fault (FAULT 1 home not found, 2 reader silent): stop like a jam.

        The state is JAMMED, so moving commands are refused until RESET (or RESUME, which
        restarts the stopped stage: homing again, for a home sensor that was fixed).
        """
        self._settle_eject()
        self.board.stop_all()
        self.stopped_at = self.board.ticks_ms()
        self.state = JAMMED
        self.emit(P.EV_FAULT, bytes((code, detail)))

    def deadman(self):
        """The host went quiet during motion: stop motors where they are and wait."""
        self._settle_eject()
        self.board.stop_all()
        self.stopped_at = self.board.ticks_ms()
        self.state = PAUSED
        stage = 0
        if self.stage is not None:
            stage = self.stage[1]
        self.emit(P.EV_DEADMAN, bytes((stage,)))

    # ---- the loop's step -------------------------------------------------------------------

    def step(self):
        """Advance the mechanism by at most one stage transition; never blocks."""
        board = self.board
        self.gate.sample(board.gate_has_card())
        if board.estop_pressed() and self.state != ESTOPPED:
            self.estop(1)
            return
        if self.state != ESTOPPED and hasattr(board, "fault"):  # the simulator's board has none
            found = board.fault()
            if found is not None:
                self.fault(found[0], found[1])
                return
        now = board.ticks_ms()
        if self.pending_stop is not None:
            if not self._f_moving():
                code, card = self.pending_stop
                self.pending_stop = None
                self._stop_for(code, card, now)
                return
        elif self.flights and self.stopped_at is None and self.state in (RUNNING, WAITING, IDLE) \
                and not self._check_flights(now) and self.pending_stop is None:
            return
        if self.state != RUNNING:
            if self.state == WAITING and self.job is not None and self.held is None:
                self._next_op()
                if self.state == WAITING and self.op is None and self.flights and self.stopped_at is not None:
                    # the job waits for cards an ABORT froze on the loop (a FETCH of one of
                    # them with the hopper empty): no op will begin to run the belt, so run it
                    # now (found on the simulated table: German Whist against a bot, the FETCH
                    # after the reader's ABORT waited for good)
                    self._unfreeze()
            return
        if self.op is None:
            self._next_op()
            return
        if board.jam_sensor():
            self._jam(self.stage[1] if self.stage else ST_FEED)
            return
        stage = self.stage
        if stage is None:
            self._advance()
            return
        name = stage[0]
        if self._stage_complete(name):
            self._advance()
            return
        limit = stage[2]
        if name == "eject" and not self.ejecting and hasattr(self.board, "loop_gap_ms"):
            # waiting to leave (the lift, the cards ahead, the blade's move and its weighing):
            # EJECT_MS and the blade's time; the move's own EJECT_MS runs from its start
            limit += self.board.loop_gap_ms()
        if ticks_diff(now, self.stage_start) > limit:
            self._timeout(stage)

    # ---- internals ---------------------------------------------------------------------------

    def _next_op(self):
        job = self.job
        if job is None:
            if self.op is None and not self.flights:
                self.state = IDLE
            return
        if self.sweep_first:
            self.sweep_first = False
            if self.unswept and not self.flights and self.op is None:
                self._begin(self.homecoming())
                return
        op = job.next_op()
        if op is None:
            for f in self.flights:
                if f.op.tag != "cycle":
                    return  # the job is done once its last card is confirmed
            # (cards it only sent round the loop land on their own; the loop model has them)
            self.job = None
            self.state = IDLE
            job.finish()
        elif op == WAIT:
            self.state = WAITING
        else:
            self._begin(op)
            self.state = RUNNING

    def _begin(self, op):
        self.op = op
        self.state = RUNNING
        if self.flights and self.stopped_at is not None:
            self._unfreeze()  # cards an ABORT froze on the loop: the belt takes them home
        cfg = self.cfg
        if op.source == "hopper":
            self.stages = [("feed", ST_FEED, cfg.FEED_MS, None), ("read", ST_READ, cfg.READ_MS, None)]
        elif op.source == "rest":
            self.stages = [("rest", ST_FEED, cfg.FEED_MS + cfg.LIFT_SETTLE_MS + cfg.DEFLECT_MS, None)]
            if op.tag == "ride":
                # a card the e-stop left out of the window goes round into the loop with the cards
                # the stop left on the belt: the belt runs from the start, every flap down, and F
                # carries it on once they are. Run with the belt standing, the rest closed its gap
                # to the loop card ahead of it, and the switchback, still busy with that one, let
                # it run into its nip: JAM 5 at every Resume (estop_fetch on the twin, seeds
                # 12015 and 12079; and in 12071 it dropped into the pocket its FETCH had raised
                # the flap of). The homecoming is done then (unswept), none runs before the job
                self.stages.append(self._home_stage())
        elif op.source == "belt":
            self.stages = [self._home_stage()]
        else:
            self.board.show(False)
            self.held = None
            self.stages = [("route", ST_TURN, 0, None)]
            if op.home_first:  # (clear_gate: the cards a stop left on the belt go home first)
                self.stages.insert(0, self._home_stage())
        self.stage = None
        self._advance()

    def _home_stage(self):
        """The homecoming's stage (the belt op, a ride, clear_gate's home_first): every flap
        down, the belt runs as long as the slowest loop card takes from the read window to the
        drop D, with the belt's start and the margin of a confirmation."""
        cfg = self.cfg
        run = self._loop_due()[2] + cfg.CONFIRM_MARGIN_MS + timing.belt_start_ms(cfg)
        return ("home", ST_LOOP, 2 * run, run)

    def _advance(self):
        """Finish the current stage and start the next (or complete the op)."""
        if self.stage is not None:
            self._finish_stage(self.stage)
            if self.op is None or self.state != RUNNING:
                return
        if not self.stages:
            self._complete()
            return
        self.stage = self.stages.pop(0)
        self._start_stage(self.stage)
        if self.stage[0] in ("route", "show"):
            self._advance()

    def _start_stage(self, stage):
        board = self.board
        name = stage[0]
        self.stage_start = board.ticks_ms()
        if name in ("feed", "eject") and hasattr(board, "hold_hopper") and self.op is not None:
            op = self.op
            held = op.hold or (name == "eject" and not op.pull_next)
            self.hold_hopper(held)
            if name == "eject" and not held:
                self.pull_cut = True
        if name == "feed":
            self.feeding = False  # decided in _stage_complete once the gate filter is settled
            self.move_on_phase = 0  # _at_window: 1 lifting the stack off P, 2 moving the card on
        elif name == "read":
            board.read_start()
        elif name == "turn":
            self.aimed = False
            if self._aim_safe(stage[3]):
                board.turn_start(stage[3])
                self.aimed = True
        elif name == "eject":
            self.ejecting = False  # (set before a POCKET_FULL stop too: _settle_eject reads it)
            target = self.op.target
            cap = self.cfg.POCKET_CAP.get(target) if getattr(board, "COUNTS_POCKETS", False) else None
            counted = cap is not None and self.pocket_count.get(target, 0) >= cap
            if board.tray_full(target) or counted:
                self.emit(P.EV_POCKET_FULL, bytes((target,)))
                board.stop_all()
                self.stopped_at = board.ticks_ms()
                self.state = JAMMED
                self.full_target = target
                return
            if cap is not None:
                self.pocket_count[target] = self.pocket_count.get(target, 0) + 1
            if not self._lift_wait() and self._eject_safe(self.op.target):
                self._feed_move(board.eject)
                self.ejecting = True
        elif name == "show":
            board.show(True)
        elif name == "rest":
            self.move_on_phase = 1  # the lift taking the stack off P (unless it was up)
            if self.op.tag == "ride":
                board.turn_start(self.cfg.LOOP)  # every flap down: the card goes round
                board.belt(True)
        elif name == "home":
            board.turn_start(self.cfg.LOOP)  # every flap down: a card on the belt goes round
            board.belt(True)

    def hold_hopper(self, on):
        """Hold (True) or free the hopper's pickup (``board.hold_hopper``), noting when the lift
        comes down: a feed move that would take the hopper's bottom card waits until the stack
        is on P (``lift_settled``). Found on the physical twin with the lift's swing modelled:
        a FETCH after a held eject started its feed move in the pass that lowered the lift, took
        its card late and stopped with DOUBLE_FEED."""
        if self.hopper_held and not on:
            self.lift_down_at = self.board.ticks_ms()
        self.hopper_held = on
        self.board.hold_hopper(on)

    def lift_settled(self):
        """The stack is down on the pickup roller: the lift is held up (a feed move then takes
        the play slot's card, not the hopper's), or came down at least LIFT_SETTLE_MS ago."""
        t = self.lift_down_at
        if self.hopper_held or t is None:
            return True
        if ticks_diff(self.board.ticks_ms(), t) >= self.cfg.LIFT_SETTLE_MS:
            self.lift_down_at = None
            return True
        return False

    def _lift_wait(self):
        """A feed move must wait for the lift: it would take the hopper's bottom card (no card
        in the play slot, which a feed move takes first) and the stack is not down yet."""
        if self.lift_settled():
            return False
        slot = getattr(self.board, "slot_has_card", None)
        return not (slot is not None and slot())

    def _feed_move(self, move):
        """Start a feed move (``board.feed`` or ``board.eject``), noting where the card it brings
        to the read window comes from: the play slot when the hopper is held or a card lies in
        the slot (``from_slot``)."""
        slot = getattr(self.board, "slot_has_card", None)
        self.slot_fed = slot is not None and bool(slot())
        self.from_slot = self.hopper_held or self.slot_fed
        self.cut_by_estop = False  # (this move runs a cut move's rest, if one is left)
        move(True)

    def _at_window(self):
        """The fed card is where the reader decodes it. A card whose pickup slipped (P turning
        under it before F1's nip took it) reached the gate late and lies short of the window by
        that lag (``board.window_lag_mm``): with the hopper held off P (no card taken), F moves
        it on by the lag. Found on the physical twin: a card 2-17 mm short could not be read and
        its eject's blocked length, counted from where a card at rest would be, read as two
        cards (DOUBLE_FEED)."""
        board = self.board
        if self.move_on_phase == 2:  # its move ended (eject_done): the hopper as it was
            self.move_on_phase = 0
            self.hold_hopper(self.held_before)
            return True
        if self.move_on_phase == 1:  # the lift is taking the stack off P
            # (held before: the lift was up already, no settle wait)
            if not self.held_before and ticks_diff(board.ticks_ms(), self.lift_up_at) < self.cfg.LIFT_SETTLE_MS:
                return False
            if self.pending_stop is not None:
                return False  # a stop waits (_stop_for): no move starts
            board.move_on(self.lag_mm)
            self.move_on_phase = 2
            return False
        lag = board.window_lag_mm() if hasattr(board, "window_lag_mm") else 0
        if lag <= self.cfg.STOP_TOL_MM:
            return True
        self.lag_mm = lag
        self.held_before = self.hopper_held
        self.hold_hopper(True)
        self.lift_up_at = board.ticks_ms()
        self.move_on_phase = 1
        return False

    def _stage_complete(self, name):
        board = self.board
        if name == "feed":
            if not self.feeding:
                if self.gate.run:
                    return False  # the gate is changing: decide on a settled reading
                if not self.gate.state and self._lift_wait():
                    return False  # the lift is still coming down onto the pickup roller
                if self.pending_stop is not None:
                    return False  # a stop waits (_stop_for): no move starts
                self.feeding = True
                if not self.gate.state:  # (with a belt the last feed move brought it already)
                    self._feed_move(board.feed)
            if not self.gate.state:
                return False
            if self.belt and not board.eject_done():
                # the gate sees the card's leading edge 40 mm before the window: the scanner
                # decodes a card at rest, so the read starts once the feed move has ended
                # (found on the physical twin: each such read timed out and was tried again)
                return False
            if self.belt and not self._at_window():
                return False
            if hasattr(board, "double_thick") and board.double_thick():
                self._double_feed(DF_THICK)
                return False
            return True
        if name == "read":
            result = board.read_poll()
            if result is None:
                return False
            card, conf = result
            if card == P.UNKNOWN_CARD or not 0 <= card < 52:
                self.op.attempts += 1
                if self.op.attempts < self.cfg.READ_ATTEMPTS:
                    self._start_stage(self.stage)
                    return False
                self._read_result(P.UNKNOWN_CARD, 0)
                return True
            self.op.attempts += 1
            self._read_result(card, conf)
            return True
        if name == "turn":
            if not self.aimed:
                if not self._aim_safe(self.stage[3]):
                    return False
                board.turn_start(self.stage[3])
                self.aimed = True
            return board.turn_done()
        if name == "rest":
            moved = board.eject_done()  # (it polls the loop's sensors too: the switchback serves
            # a card the belt brings to E meanwhile)
            if self.move_on_phase == 1:
                wait = 0 if self.held_before else self.cfg.LIFT_SETTLE_MS
                if self.op.tag == "ride":
                    wait = max(wait, self.cfg.DEFLECT_MS)  # the flaps are down before it moves
                if ticks_diff(board.ticks_ms(), self.stage_start) < wait:
                    return False
                self.move_on_phase = 2
                if self.riding or self.op.tag != "ride":
                    board.finish_cut(self.riding)
                else:
                    self.move_on_phase = 3  # (no move: a rest stays for the next feed move)
                return False
            if not moved:
                return False
            if self.move_on_phase == 2:
                board.cut_done()
                self.cut_by_estop = False
            self.riding = 0  # (its card on the belt now: the homecoming takes it round)
            self.move_on_phase = 0
            return True
        if name == "home":
            if self.loop_sensors:  # (each poll also runs the switchback for a card at E)
                for s in (0, 1, 2):  # the cards coming home pass E, Rv and D: no flight's edges
                    while board.loop_seen(s):
                        pass
            return ticks_diff(board.ticks_ms(), self.stage_start) >= self.stage[3]
        if name == "eject":
            if not self.ejecting:
                if self._lift_wait() or not self._eject_safe(self.op.target):
                    return False
                # the move starts now: its time allowance (EJECT_MS) runs from here, not from
                # the wait's start (a loop card waited up to 30 ms + 19 ms a card of the blade's
                # move, and with the counted lift 138 ms more: over EJECT_MS after a move of 45
                # cards, and the card was named a JAM 180 ms into its eject: hand 1135 on the twin)
                self.stage_start = board.ticks_ms()
                self._feed_move(board.eject)
                self.ejecting = True
            if hasattr(board, "gate_len_mm"):
                length = board.gate_len_mm()
                if length is not None and length > self.cfg.CARD_LEN_MM + self.cfg.CARD_TOL_MM:
                    self._double_feed(DF_LENGTH)
                    return False
            if self.belt:
                return board.eject_done()
            return not self.gate.state
        return True

    def _finish_stage(self, stage):
        board = self.board
        name = stage[0]
        if name == "feed":
            board.feed(False)
        elif name == "eject":
            board.eject(False)
        elif name == "route":
            self._routed_from_gate()
        elif name == "home":
            board.belt(False)
            self.unswept = False
            if not self.op.home_first:  # (a card RESET sends round still rides after the reject)
                self.send_home = False

    def _read_result(self, card, conf):
        op = self.op
        op.card = card
        op.conf = conf
        self._route()

    def _routed_from_gate(self):
        self._route()

    def _route(self):
        """Ask the op's owner where the card goes and queue the stages that take it there."""
        op = self.op
        # (target, slot) or (target, slot, tag for done()[, pull_next]); slot is -1 in v2
        r = op.route(op.card, op.conf)
        # (a card read in the window: the pulled one or one a stop left short, or none is on its way)
        self.pull_cut = self.short_feed = False
        op.index = getattr(self.job, "last_index", -1)
        target = r[0]
        op.tag = r[2] if len(r) > 2 else None
        if len(r) > 3:
            op.pull_next = r[3]
        op.target = target
        self._place(target)

    def _place(self, target):
        """Queue the stages that take the routed card to ``target``."""
        cfg = self.cfg
        if target == P.HOLD:
            self.stages = []
        elif target & PRESENT_FLAG:
            seat = target & 0xFF
            self.stages = [("turn", ST_TURN, cfg.TURN_MS, seat),
                           ("show", ST_TURN, 0, None)]
        else:
            self.stages = [("turn", ST_TURN, cfg.TURN_MS, target),
                           ("eject", ST_TRANSPORT, cfg.EJECT_MS, None)]

    def _complete(self):
        op = self.op
        loop = op.target == self.cfg.LOOP
        if self.belt and op.target is not None and op.target != P.HOLD \
                and not (op.target & PRESENT_FLAG):
            # on the belt: reported when its station's sensor sees it (_check_flights)
            now = self.board.ticks_ms()
            limit = self._slow(timing.transit_ms(self.cfg, op.target)) + self.cfg.CONFIRM_MARGIN_MS
            due = self._loop_due()
            f = Flight(op, op.target, config.pocket_of(self.cfg, op.target), now,
                       ticks_add(now, limit), due if loop else None)
            if not loop and self.loop_sensors:  # a card that passed its pocket shows at E first
                f.late = ticks_add(now, max(limit, due[0] + self.cfg.CONFIRM_MARGIN_MS))
            self.flights.append(f)
            self.op = None
            self.stage = None
            return
        self.op = None
        self.stage = None
        if op.target == P.HOLD or (op.target is not None and op.target & PRESENT_FLAG):
            seat = P.HOLD if op.target == P.HOLD else op.target & 0xFF
            self.held = (op.card, op.conf, seat)
        self.last_op = op
        op.done(op.card, op.target, op.conf)
        if self.state == RUNNING:
            if self.job is None:
                self.state = IDLE
            elif self.held is not None:
                self.state = WAITING

    # ---- cards on the belt ---------------------------------------------------------------------

    def _check_flights(self, now):
        """Confirm cards their station saw arrive; a card past its window is a JAM. False if
        the mechanism stopped."""
        board = self.board
        if self.loop_sensors and not self._check_loop(now):
            return False
        for f in list(self.flights):
            if f.pocket is None and self.loop_sensors:
                if f.station < 3:
                    continue
                self.flights.remove(f)
                if f.op.tag != "misrouted":  # (its job was told when it missed its pocket)
                    self.last_op = f.op
                    f.op.done(f.op.card, f.op.target, f.op.conf)
                continue
            if board.confirmed(f.target):
                if f.pocket is not None and f.overdue:
                    # overdue (marked in an earlier pass): the card that went in is the next one
                    # for this pocket (none leaves in time to reach it before f's deadline,
                    # _eject_safe, and it is all in a card's length after that). Not when the
                    # deadline passed only in this pass: a poll that came late (a busy loop, a
                    # loaded simulator) sees f's own arrival and its deadline together
                    f = self._behind(f)
                self.flights.remove(f)
                if f.pocket is not None and hasattr(board, "lower") and not self._pocket_wanted(f.pocket):
                    board.lower(f.target)
                self.last_op = f.op
                f.op.done(f.op.card, f.op.target, f.op.conf)
            elif f.pocket is not None and not f.overdue and ticks_diff(now, f.deadline) > 0:
                self._overdue(f)
            elif ticks_diff(now, f.late) > 0:
                self.flights.remove(f)
                self._given_up(f.op)
                self._stop_for(ST_TRANSPORT, f.op.card, now)  # never reported dealt
                return False
        return True

    def _overdue(self, f):
        """Pocket card ``f`` is past its deadline (the slowest belt and a margin) and its pocket's
        sensor has not seen it: it caught on the path. Its flap comes down unless a card behind
        it goes to the same pocket (the pacing left a card that passes over that mouth a flap's
        worst swing after the deadline, _eject_safe), so no later card falls into its pocket
        and is taken for it; no card leaves while it is overdue, and it is named (JAM 3) once it
        would have reached E. Found on the physical twin: with the flap left up, the next card
        crossing that mouth fell in, was reported as the caught card, and every later card of
        the deal went one pocket early."""
        f.overdue = True
        if hasattr(self.board, "lower") and not self._pocket_wanted(f.pocket, aimed=True):
            self.board.lower(f.target)

    def _behind(self, f):
        """The card a pocket's sensor saw while ``f``, the first card for it, is overdue: the
        next flight to that pocket (``f`` when there is none: a caught card that came free)."""
        seen = False
        for g in self.flights:
            if g is f:
                seen = True
            elif seen and g.target == f.target:
                return g
        return f

    def _pocket_wanted(self, pocket, aimed=False):
        """Is the flap of ``pocket`` still needed up? For a card on the belt that goes there,
        and for the card being aimed or ejected now: between its turn stage and the end of its
        eject feed move it is no flight yet, and a flap lowered then comes down (a servo swing
        of about 40-60 ms) before the card's leading edge reaches the mouth (issue 20: a deal
        with two cards in a row for one seat stopped with a misroute). ``aimed``: the card of
        the op counts only once its turn stage raised the flap (_aim_safe let it: no card had
        to pass that mouth), as _overdue asks."""
        for g in self.flights:
            if g.pocket == pocket and not g.overdue:  # (a caught card's flap comes down)
                return True
        op = self.op
        if op is None or op.target is None or config.pocket_of(self.cfg, op.target) != pocket:
            return False
        return not aimed or (self.aimed and self.stage is not None and self.stage[0] in ("turn", "eject"))

    def _check_loop(self, now):
        """Every loop card is checked at E, then Rv, then D, each within its window (JAM 3 if
        it never reached E, 5 if it missed Rv or D); a card at E that no loop card explains is
        a card that missed its pocket (JAM 4, misroute): it goes round the loop, so it is
        kept as a loop card (``misrouted``) and its job is told (``op.misrouted``)."""
        board = self.board
        for s in (0, 1, 2):
            while board.loop_seen(s):
                f = None
                for g in self.flights:
                    if g.pocket is None and g.station == s:
                        f = g
                        break
                if f is not None and s == 0 and ticks_diff(now, f.left) < self.too_soon_at_e:
                    # far sooner than any card this dealer sent can reach E (the fastest belt,
                    # and a loop pass's lateness to spare): a card that rode the belt from
                    # before, left on it when the dealer rebooted (cards a FETCH or a stage
                    # sent round). Taken for f, it taught a transit time far too short, and
                    # every loop card after it was named JAM 3 at each Resume (a two-player
                    # Spades draw, the dealer rebooting with a blank flash between two steps).
                    # No card of ours: it goes on to the hopper, as a card no loop card explains
                    f = None
                if f is not None:
                    if s == 0:
                        if self._missed_e(f, now):
                            return False
                        self.loop_transit = ticks_diff(now, f.left)
                    f.station = s + 1
                    continue
                if s != 0:
                    continue  # a flicker at Rv or D with no card due: nothing to check
                for g in self.flights:
                    if g.pocket is not None:
                        f = g
                        break
                if f is None:
                    continue
                card = f.op.card
                self.flights.remove(f)
                due = self._loop_due()
                left = ticks_add(now, -due[0])
                g = Flight(f.op, self.cfg.LOOP, None, left,
                           ticks_add(left, due[2] + self.cfg.CONFIRM_MARGIN_MS), due)
                g.station = 1
                g.op.target = self.cfg.LOOP
                g.op.tag = "misrouted"
                self.flights.append(g)
                if f.op.misrouted is not None:
                    f.op.misrouted(f.op)
                self._stop_for(ST_MISROUTE, card, now)
                return False
        for f in self.flights:
            if f.pocket is None and f.station < 3 and f.due is not None:
                late = ticks_add(f.left, f.due[f.station] + self.cfg.CONFIRM_MARGIN_MS)
                if ticks_diff(now, late) > 0:
                    self.flights.remove(f)
                    self._given_up(f.op, f.station == 0)
                    self._stop_for(ST_TRANSPORT if f.station == 0 else ST_LOOP, f.op.card, now)
                    return False
        return True

    def _missed_e(self, f, now):
        """A card at E when loop card ``f`` is the first due there: is it the loop card after
        ``f`` instead? It is when its time from the window, counted from the next card's
        departure, is closer to the last loop card's than counted from ``f``'s (the cards ride
        the same belt). Then ``f`` never reached E (it caught on the path): the card seen is the
        next one, ``f`` is given up, and the dealer stops at once with JAM 3 naming ``f`` (the
        card the person clearing the path finds), not a later card it had been taken for."""
        ref = self.loop_transit
        if ref is None:
            return False
        g = None
        seen_f = False
        for h in self.flights:
            if h is f:
                seen_f = True
            elif seen_f and h.pocket is None and h.station == 0:
                g = h
                break
        if g is None:
            return False
        if abs(ticks_diff(now, g.left) - ref) >= abs(ticks_diff(now, f.left) - ref):
            return False
        self.flights.remove(f)
        g.station = 1
        self._given_up(f.op, True)
        self._stop_for(ST_TRANSPORT, f.op.card, now)
        return True

    def _given_up(self, op, gone=False):
        """A card on the belt missed its sensor's window: it is no longer followed (the person
        clearing the jam takes it out of the path); its job is told, so a deal counts its plan
        entry as never filled (DEAL_DONE's missing). ``gone``: a loop card that never reached E
        (caught on the path, or overtaken there: it will not land; one late at Rv or D still
        may), taken out of the loop model and the blade's queue (found through the whole table
        on the twin: German Whist's stock card caught on the path stayed in the model, the
        redealt hand's fetches went round the loop 373 times and stopped with JAM 5)."""
        if gone and self.loop_gone is not None:
            self.loop_gone(op.card)
        if op.lost is not None:
            op.lost(op)

    def stop_for(self, stage_code, card):
        """Stop as for a jam at ``stage_code`` (a job found the mechanism not as expected)."""
        self._stop_for(stage_code, card, self.board.ticks_ms())

    def _f_moving(self):
        """Is F in the middle of a feed move (the feed or eject stage's, not yet ended)?"""
        stage = self.stage
        if not self.belt or self.op is None or stage is None or self.state != RUNNING:
            return False
        if stage[0] == "eject":
            started = self.ejecting
        elif stage[0] == "feed":
            started = self.feeding
        else:
            return False
        return started and not self.board.eject_done()

    def _stop_for(self, stage_code, card, now):
        """Stop for a card the sensors lost (JAM ``stage_code`` naming ``card``). Decided while F
        is in a feed move, the stop waits for the move's end (a few hundred ms at most; nothing
        else starts meanwhile): a move cut short and made again from the start put the next
        card past the read window (found on the physical twin, a card caught on the path named
        during the next card's eject: the card behind it then could not be read) or counted the
        gate's blocked length across the stop (a false DOUBLE_FEED)."""
        if self._f_moving():
            if self.pending_stop is None:
                self.pending_stop = (stage_code, card)
            return
        self._settle_eject()
        self.board.stop_all()
        self.stopped_at = now
        self.state = JAMMED
        self.emit(P.EV_JAM, bytes((stage_code, card)))

    def _settle_eject(self):
        """Before a stop: the feed move carrying the op's card onto the belt may have ended since
        the last poll (on the Pico the stepper ends its move on its own; a stop decided in the
        same pass, a card on the belt past its window, comes before the stage is polled). Then
        the card is on the belt: it becomes a flight now, followed and reported as any other.
        Left in its eject stage, RESUME would start the finished feed move again, and that move
        carries the next card, never read, into this card's pocket, unreported (issue 18: seen
        after a card lost on the belt, the next card's eject ending in the pass its JAM was
        found; the hopper then 'ran out' and that card was missing too). After stop_all() a
        finished move and a move cut short look alike (eject_done), so this asks before."""
        stage = self.stage
        if self.belt and self.state == RUNNING and self.op is not None and stage is not None \
                and stage[0] == "eject" and self.ejecting and self.board.eject_done():
            self._advance()  # (_complete: a flight from now; the op and stage are done)

    def _homecoming_first(self):
        """Cards may lie on the belt with nothing to follow them (flights forgotten, a card the
        e-stop left past the window, an eject's card not a flight yet): the belt runs round,
        every flap down, before anything raises a flap (clear_gate's reject, the next job's
        first op). Only a dealer with a belt and loop sensors has that homecoming."""
        self.unswept = self.belt and self.loop_sensors
        self.sweep_first = self.unswept

    def _lost_flights(self):
        """A stop while cards were on the belt: where they went is unknown, none is reported;
        the next job runs the belt round first (homecoming), so that the loop sensors do not see
        them pass while it follows a card of its own (found with the e-stop pressed while a
        German Whist FETCH sent cards round: after RESET the FETCH took their edges at E for its
        own card passing its pocket, JAM 4, and the table stopped at every Resume)."""
        if self.flights:
            self._homecoming_first()
        self.flights = []

    def _park_flights(self):
        """ABORT stopped every motor: a card the aborted job sent to a pocket is forgotten (as
        for any stop), but the cards a finished FETCH only cycled round the loop are still
        on the loop, frozen where they stood; they stay in flight and their windows move on by
        the time the belt stood still (``_shift_flights``, when motion starts again). Before
        this, a FEED HOLD aborted while cycled cards were still on the loop made the next card
        to a pocket a "misroute" (E saw a loop card nothing explained)."""
        self.flights = [f for f in self.flights if f.pocket is None and f.op.tag == "cycle"]
        if not self.flights:
            self.stopped_at = None
        elif self.stopped_at is None:  # (a second ABORT: the belt has stood still since the first)
            self.stopped_at = self.board.ticks_ms()

    def forget_parked(self):
        """A fresh deal: the players gathered every card, those an ABORT left frozen on the loop
        too (found through the whole table on the twin: a deal that did not check out was
        aborted with a card the deal's end sent round still on the loop; the people gathered
        it, and the redeal stopped with JAM 5 when it never reached D). One they could not
        reach comes home first: the deal's first op runs the belt round (homecoming)."""
        if self.flights:
            self.flights = []
            self.stopped_at = None
            self._homecoming_first()

    def _unfreeze(self):
        """Cards a stop froze on the belt go on (RESUME, or the next job after an ABORT): their
        windows move on by the stop and the belt runs again. The loop cards it froze short of
        the switchback ride from rest (and the switchback pulls again the one the stop caught in
        it), so the next loop card leaves only once they are past it (_loop_settled). Found
        after an ABORT on the physical twin (estop_fetch seed 16030): a put-back job started at
        once fed its first card a switchback's cycle after the last frozen one by the clock,
        the belt's ramp closed the gap, and it reached the switchback's nip with R still busy:
        JAM at every Resume."""
        self._shift_flights()
        for f in self.flights:
            if f.pocket is None and f.station < 2:
                self.loop_restarted = True
        if self.flights and hasattr(self.board, "belt"):
            self.board.belt(True)

    def _shift_flights(self):
        """The belt stood still since ``stopped_at``: the cards on it are late by that; a card
        for a pocket also by the belt's ramp from rest (it loses half of it; the whole of it is
        allowed: found on the physical twin, a card on the belt at a stop still crossing a mouth
        whose flap the next card raised after Resume). Not a loop card: E's edges are matched to
        loop cards by their times (_missed_e), and a ramp a board does not have made a parked
        card look overtaken by the next (found on the simulated board: a FETCH after an ABORT)."""
        if self.stopped_at is not None:
            gap = ticks_diff(self.board.ticks_ms(), self.stopped_at)
            for f in self.flights:
                if f.pocket is not None:
                    f.left = ticks_add(f.left, self.ramp_ms)
                    f.deadline = ticks_add(f.deadline, self.ramp_ms)
                    f.late = ticks_add(f.late, self.ramp_ms)
                f.left = ticks_add(f.left, gap)
                f.deadline = ticks_add(f.deadline, gap)
                f.late = ticks_add(f.late, gap)
            self.stopped_at = None

    def _lane(self, target):
        """(order along the path, mouth x in mm) of a target: pockets 0..14, then the loop
        (entered at the end-of-run opto E, past every mouth). None for a target off the path."""
        cfg = self.cfg
        k = config.pocket_of(cfg, target)
        if k is not None:
            return (k, config.pocket_x(cfg, k))
        if target == cfg.LOOP:
            return (99, cfg.END_X_MM)
        return None

    def _slow(self, ms):
        """The longest a belt trip of nominally ``ms`` may take: cards ride the bands with
        some slip (config.BELT_LAG_PCT; the twin sweeps the card speed +-30 %)."""
        return ms * (100 + getattr(self.cfg, "BELT_LAG_PCT", 0)) // 100

    def _fast(self, ms):
        """The shortest a belt trip of nominally ``ms`` may take (config.BELT_LEAD_PCT)."""
        return ms * (100 - getattr(self.cfg, "BELT_LEAD_PCT", 0)) // 100

    def _loop_due(self):
        """When a loop card may be as late as it can be at E, Rv and D (slowest belt)."""
        due = timing.loop_station_ms(self.cfg)
        return (self._slow(due[0]), self._slow(due[1]), self._slow(due[2]))

    def _aim_safe(self, target):
        """May the deflector of ``target`` rise now? Not while a card still on the belt has to
        pass over that pocket's mouth (its tail not yet past it, at the belt's speed)."""
        if not self.flights:
            return True
        cfg = self.cfg
        if target == cfg.LOOP:
            # aiming at the loop lowers every flap: not while a card on the belt still needs
            # its pocket's flap up (it would pass its pocket and reach E: found on the twin)
            for f in self.flights:
                if f.pocket is not None:
                    return False
            return True
        lane = self._lane(target)
        if lane is None:
            return False
        now = self.board.ticks_ms()
        front = cfg.WINDOW_X_MM + cfg.F_MOVE_MM
        for f in self.flights:
            other = self._lane(f.target)
            if other is None:
                return False
            if lane[0] < other[0]:
                past = ticks_add(f.left, self._slow(timing.belt_ms(cfg, max(0, lane[1] - front) + cfg.CARD_LEN_MM)))
                if ticks_diff(now, past) < 0:
                    return False
        return True

    def _loop_settled(self):
        """After RESUME: the loop cards then on the belt are past the switchback (or gone)."""
        if self.loop_restarted:
            for f in self.flights:
                if f.pocket is None and f.station < 2:
                    return False
            self.loop_restarted = False
        return True

    def _eject_safe(self, target):
        """May this card leave for ``target``? It reaches the mouth of a card on the belt whose
        pocket lies before ``target`` no sooner than a flap's swing after that card's deadline
        (in by then, its flap down behind it; or caught, and its flap brought down then), and
        the mouth of a card for the same pocket no sooner than its deadline; nothing leaves
        while a card is overdue or a stop waits. Cards for the loop are spaced by the
        switchback's in-and-out cycle."""
        if self.pending_stop is not None:
            return False  # a stop waits for the move in progress (_stop_for)
        if not self._loop_settled() and target == self.cfg.LOOP:
            return False
        if not self.flights:
            return True
        cfg = self.cfg
        lane = self._lane(target)
        if lane is None:
            return False
        now = self.board.ticks_ms()
        front = cfg.WINDOW_X_MM + cfg.F_MOVE_MM
        feed = timing.feed_ms(cfg)
        for f in self.flights:
            if f.overdue:
                return False  # a card caught on the path: nothing leaves until it is named
            other = self._lane(f.target)
            if other is None:
                return False
            if lane[0] >= other[0] and f.pocket is not None:  # this card reaches f's pocket
                # the earliest its leading edge can be at that mouth: F's move to the grip, then
                # the fastest belt (it rides the bands as soon as they take it)
                ride = ticks_add(now, self.grip_ms + self._fast(timing.belt_ms(cfg, max(0, other[1] - cfg.GRIP_X_MM))))
                arrive = ticks_add(now, feed + self._fast(timing.belt_ms(cfg, max(0, other[1] - front))))
                if ticks_diff(ride, arrive) < 0:
                    arrive = ride
                # passing over it: after f's deadline and a flap's swing (f's flap comes down
                # then if f is caught, _overdue). Into it: not before f's deadline, so a card
                # its sensor sees before then is f, after then the one behind (_check_flights)
                if ticks_diff(arrive, ticks_add(f.deadline, cfg.DEFLECT_MS if lane[0] > other[0] else 0)) < 0:
                    return False
            if f.pocket is None and target == cfg.LOOP:
                gap = timing.loop_switch_ms(cfg)
                if hasattr(self.board, "loop_gap_ms"):  # a sorting hopper's blade must move
                    gap = max(gap, self.board.loop_gap_ms())
                if ticks_diff(ticks_add(now, feed), ticks_add(f.left, gap)) < 0:
                    return False
        return True

    def _double_feed(self, how):
        """Two cards at once: stop everything, report DOUBLE_FEED, route nothing. The operator
        puts both back on the hopper; RESUME feeds again."""
        op = self.op
        self.board.stop_all()
        self.state = JAMMED
        card = P.UNKNOWN_CARD
        if op is not None:
            card = op.card
            if op.target is not None and op.undo is not None:
                op.undo()
        self.op = None
        self.stage = None
        self.stages = []
        if op is not None and op.target is not None and hasattr(self.board, "lower"):
            # the card's flap comes down (no card on the belt wants it): up, it would take
            # the next card past its mouth after RESUME (found on the twin: the card behind,
            # left in the throat, went into the pocket of the one the person took out)
            pocket = config.pocket_of(self.cfg, op.target)
            if pocket is not None and not self._pocket_wanted(pocket):
                self.board.lower(op.target)
        self.stopped_at = self.board.ticks_ms()  # cards already on the belt wait for RESUME
        self.emit(P.EV_DOUBLE_FEED, bytes((card, how)))

    def _timeout(self, stage):
        name = stage[0]
        op = self.op
        if name == "read":
            op.attempts += 1
            if op.attempts < self.cfg.READ_ATTEMPTS:
                self._start_stage(stage)
                return
            self._read_result(P.UNKNOWN_CARD, 0)
            self._advance()
            return
        if name == "feed" and (op.short or not self.board.hopper_has_card()):
            # (no card short of the gate after all, or an empty hopper: the job decides)
            self.board.feed(False)
            self.op = None
            self.stage = None
            self.stages = []
            if op.empty is not None:
                op.empty()
            return
        self._jam(stage[1])

    def _jam(self, stage_code):
        card = P.UNKNOWN_CARD
        if self.op is not None:
            card = self.op.card  # (before _settle_eject, which may make it a flight)
        self._settle_eject()
        self.board.stop_all()
        self.stopped_at = self.board.ticks_ms()
        self.state = JAMMED
        self.emit(P.EV_JAM, bytes((stage_code, card)))
