"""The dealer's configuration: the mechanism's motion and geometry, stage timeouts, link timers.

One place for every number the mechanism depends on, so a re-built table changes only this
file; ``config_crc()`` is reported in IDENTIFY so the referee notices a changed dealer.
(The v1 turntable angles below remain for the simulator's slotted stores only.)
"""

FIRMWARE_VERSION = (1, 2, 0)  # 1.2: protocol 3 (step ids, STEP_QUERY, INVENTORY, state kept over a reboot)
READER_KIND = 1  # 0 none, 1 UART barcode/2D scanner, 2 simulated (the simulator overrides)

SEAT_COUNT = 11

# ---- the mechanism (dealer v2, hardware/README.md: a fixed reader and a straight path into a
# pocket per seat and per tray, Duplimate/Dealer4+ style). Lengths in mm along the path from
# the hopper throat; speeds in mm/s. Every deal time (the simulator, benchmarks/dealer.py) is
# computed from these through firmware/motion.py: a build measures and sets them here.
FULL_STEPS_PER_REV = 200  # 1.8 degree NEMA 17
MICROSTEPS = 8  # written to every TMC2209 over UART (CHOPCONF.MRES), not the MS pins
F_MM_PER_REV = 94.25  # feed section F: 30 mm roller, 20T:20T
F_V_MAX = 800
F_ACCEL = 12000
F_MOVE_MM = 100  # one feed move: card i from the read window onto the belt, card i+1 to the window
T_MM_PER_REV = 120  # transport belt T
T_V = 800
T_ACCEL = 4000
R_MM_PER_REV = 94.25  # switchback R of the return loop
R_V = 800
R_ACCEL = 16000
R_IN_MM = 95
R_OUT_MM = 70
V_START = 40  # every axis starts and stops at this speed (mm/s), no ramp below it
READ_ALLOW_MS = 100  # allowance for one decode of the stopped card (to measure on the build)
SERVO_STAGGER_MS = 80  # servo rail up: one more servo starts every 80 ms (its swing + a PWM frame)
DEFLECT_MS = 80  # a deflector flap's swing at its slowest (MG90S 0.1 s/60 degrees, 25 degrees, +30 %) + one PWM frame
LIFT_SETTLE_MS = 55  # the hopper lift coming down onto P before a feed move takes its card (swing +30 % and a PWM frame)
GATE_X_MM = 60
WINDOW_X_MM = 100  # leading edge of a card at the read window
# a card whose leading edge reached the gate this much later than the feed move's steps say
# (its pickup slipped) is moved on by its lag before it is read (the reader's field is +-5 mm)
STOP_TOL_MM = 3
GRIP_X_MM = 170  # the belt's bands take a card whose leading edge is this far along
BELT_X_MM = 150  # where the transport's bands start (they run above the card)
POCKET_X0_MM = 200  # pocket k's mouth at POCKET_X0_MM + POCKET_PITCH_MM * k
POCKET_PITCH_MM = 25
END_X_MM = 580  # end-of-run opto E
LOOP_MM = 1000  # E -> switchback -> diagonal -> top run -> drop on the hopper
CARD_LEN_MM = 88
CONFIRM_MARGIN_MS = 100  # a card not seen by its station this long after its due time: JAM
# Cards ride the belt's round bands with some slip: a belt trip may take this much longer
# (confirmation windows, when a card is past a mouth) or shorter (when a card reaches a mouth)
# than the band speed gives. device/dealer/physical.toml belt.card_speed: +-30 % swept.
BELT_LAG_PCT = 45  # 1 / 0.7 = 1.43
BELT_LEAD_PCT = 25  # 1 / 1.3 = 0.77
CARD_TOL_MM = 4  # blocked length at the gate over CARD_LEN_MM + this: a shingled double feed
# pocket index of every target: seats 0..10, then discard, centre, reject and trick last (its
# 110 cards need 36 mm of stack: only the last pocket can grow east, hardware/cad)
POCKET = {0x81: 11, 0x82: 12, 0x80: 13, 0x84: 14}
POCKET_CAP = {0x84: 110, 0x81: 32, 0x82: 8, 0x80: 24}  # trick, discard, centre, reject (cards)
# A seat pocket holds 24 cards: a plan giving one seat more is refused (NAK TOO_BIG). Seat
# pockets are not counted after the deal (their owners take the cards out as they play).
SEAT_POCKET_CAP = 24
LOOP = 0x85  # the return loop (0x85, the old stock magazine's number)
LOOP_CAPACITY = 120  # cards the hopper and the loop may hold together (IDENTIFY loop_capacity)
# A FETCH gives up (JAM stage 5, loop) after cycling this many times the loop model's length
# plus LOOP_SLACK cards without seeing the card: the model no longer matches the hopper.
LOOP_SLACK = 4
V2_TRAYS = (0x80, 0x81, 0x82, 0x84, 0x85)  # reject, discard, centre, trick pockets, the loop


def steps_per_mm(mm_per_rev):
    """Microsteps per mm, as an exact fraction (numerator, denominator) of integers."""
    return (FULL_STEPS_PER_REV * MICROSTEPS * 100, int(mm_per_rev * 100 + 0.5))


def mm_to_steps(mm, mm_per_rev):
    num, den = steps_per_mm(mm_per_rev)
    return (int(mm) * num + den // 2) // den


def pocket_of(cfg, target):
    """The pocket index of a seat or tray, or None (the loop, or a target this table lacks)."""
    if 0 <= target < cfg.SEAT_COUNT:
        return target
    return cfg.POCKET.get(target)


def pocket_x(cfg, k):
    return cfg.POCKET_X0_MM + cfg.POCKET_PITCH_MM * k


# v1 turntable angles and v1 stage timeouts (SLOT_MS, PULL_MS): nothing aims by them any more
# (the v2 board has no turntable or racks), but they stay inputs of config_bytes() so
# config_crc (HELLO/IDENTIFY) keeps its value for the same table.


def seat_angles(n):
    """Seats spread evenly over 0..230 degrees (tenths of a degree)."""
    return tuple(i * 2300 // max(1, n - 1) for i in range(n))


SEAT_ANGLES = seat_angles(SEAT_COUNT)
TRAY_ANGLES = {
    0x80: 2550,  # reject
    0x81: 2700,  # discard (slot rack)
    0x82: 2850,  # centre / widow
    0x83: 3000,  # face-up cradle
    0x84: 3150,  # trick tray
    0x85: 3300,  # stock magazine (slot rack)
    0x86: 3450,  # staging (slot rack)
}
MAX_PLAN = 208

# The gate opto is debounced: its state changes only after this many consecutive loop-pass
# samples agree (a loop pass is about 1-2 ms on the Pico), so a flicker never ends a stage.
GATE_SAMPLES = 3

# Stage timeouts (ms): past these the stage is a jam (or a misread for the reader).
FEED_MS = 1500
READ_MS = 700
READ_ATTEMPTS = 3
TURN_MS = 4000  # the "turn" (aim) stage: the flap of the target's pocket swings up
SLOT_MS = 4000  # (v1, a config_bytes input only)
EJECT_MS = 1000
PULL_MS = 4000  # (v1, a config_bytes input only)
# Reader probe (FAULT 2): after boot and at SELFTEST the board sends the scanner a serial query
# and expects some answer within this time; 0 switches the probe off (a reader that cannot
# answer serial commands). Not part of config_bytes(), so it does not change config_crc.
READER_PROBE_MS = 500

# Link timers (ms).
DEADMAN_MS = 3000
DEADMAN_MIN = 500
DEADMAN_MAX = 60000
BUSY_EVERY_MS = 1000  # BUSY only when the dealer sent nothing for this long during motion
EVENT_BATCH_MS = 1000  # per-card events may wait this long (mechanism time) to share a frame
# True: once the mechanism's job has ended, what waits goes at once (the host ends a FETCH on its
# card's CARD_ROUTED: 26 s of a German Whist hand's first stage and 53 s of a two-player Spades
# draw waited on the batch, benchmarks/event_latency.py). A deal still sends 2-3 cards a frame.
# (It was off for a day: the sooner end exposed a host race after a dealer reboot with a blank
# flash, a card fed back that the relearning sent to the reject pocket, now mended in the
# referee; benchmarks/RESULTS.md, "A step's end heard when its card lands")
EVENT_SEND_AT_END = True
LOOP_BUDGET_MS = 200  # a loop iteration slower than this does not feed the watchdog
WATCHDOG_MS = 2000
# USB writes never block: at most LINK_TX_BUDGET bytes are offered to the link per loop pass
# (the Pico writes them one byte at a time while the CDC buffer polls writable, which never
# waits), and at most LINK_TX_QUEUE bytes wait; a frame that does not fit is dropped whole
# and counted (events stay in the log for EVENTS_SINCE, replies in the reply cache).
LINK_TX_BUDGET = 512
LINK_TX_QUEUE = 2048

# IDENTIFY flags: bit0 e-stop button, bit1 jam sensing, bit2/bit3 (v1 face-up window,
# presenter shutters) 0, bit4 return loop, bit5 double-feed sensing, bit6 FETCH takes a flags
# byte (NEXT: the eject brings the loop's next card to the read window), bit7 FEED and
# ROUTE_PRESENTED take a place byte (a card parked in a sorting hopper's loop lies under those with a larger place)
FLAGS = 0xF3
# IDENTIFY's second flags byte (sent only to a host whose HELLO asks for it: PROTOCOL.md section
# 4): bit0 STATUS flags bit6 is reported (a FEED that waits for a person says so), bit1 FEED
# takes a flags byte after its place byte (NEXT: the last fed card's eject brings the loop's
# next card to the read window)
FLAGS2 = 0x03
EVENT_LOG = 256  # events kept for EVENTS_SINCE (a preallocated ring, commands.EventRing)
EVENT_LOG_BYTES = 4096  # ... in at most this many bytes (a per-card event is 3-4 bytes)
REPLY_CACHE = 8
DEAL_MEMORY = 8
STEP_MEMORY = 16  # steps whose outcome the dealer remembers (STEP_QUERY; a step sent again)


class Settings:
    """This module's values as an object, optionally overridden (the simulator's --seats).

    The firmware reads its configuration through such an object so one process (the
    simulator, the tests) can run dealers with different tables side by side.
    """

    def __init__(self, **overrides):
        g = globals()
        for k in g:
            if k.isupper():
                setattr(self, k, g[k])
        for k in overrides:
            setattr(self, k, overrides[k])
        if "SEAT_COUNT" in overrides and "SEAT_ANGLES" not in overrides:
            n = self.SEAT_COUNT
            self.SEAT_ANGLES = seat_angles(n)

    def __getattr__(self, name):
        # only for a name this table lacks (set_attr above made the rest real attributes); it
        # tells the type checker (scripts/check_firmware_types.sh) the settings are dynamic
        raise AttributeError(name)


def config_bytes(cfg):
    """A canonical byte string of everything that defines this table's geometry and timing."""
    out = bytearray((cfg.SEAT_COUNT, cfg.READER_KIND, min(255, cfg.LOOP_CAPACITY), cfg.MAX_PLAN & 0xFF))
    for a in cfg.SEAT_ANGLES:
        out.append((a >> 8) & 0xFF)
        out.append(a & 0xFF)
    for t in sorted(cfg.TRAY_ANGLES):
        a = cfg.TRAY_ANGLES[t]
        out.append(t)
        out.append((a >> 8) & 0xFF)
        out.append(a & 0xFF)
    for ms in (cfg.FEED_MS, cfg.READ_MS, cfg.READ_ATTEMPTS, cfg.TURN_MS, cfg.SLOT_MS,
               cfg.EJECT_MS, cfg.PULL_MS):
        out.append((ms >> 8) & 0xFF)
        out.append(ms & 0xFF)
    for v in (cfg.MICROSTEPS, int(cfg.F_MM_PER_REV * 100 + 0.5), cfg.F_V_MAX, cfg.F_ACCEL,
              cfg.F_MOVE_MM, int(cfg.T_MM_PER_REV * 100 + 0.5), cfg.T_V, cfg.T_ACCEL, cfg.V_START,
              cfg.READ_ALLOW_MS, cfg.DEFLECT_MS, cfg.POCKET_X0_MM, cfg.POCKET_PITCH_MM,
              cfg.END_X_MM, cfg.CARD_LEN_MM, cfg.CARD_TOL_MM):  # the v2 mechanism
        out.append((v >> 16) & 0xFF)
        out.append((v >> 8) & 0xFF)
        out.append(v & 0xFF)
    return bytes(out)
