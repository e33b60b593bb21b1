"""How long each motion of the dealer takes, from config.py's constants through motion.py.

One place for the durations, used by firmware/board.py's choices of speeds, by the dealer
simulator (device/dealer/sim.py: its stages take exactly these times, never less) and by
benchmarks/dealer.py (deal times per game and player count). Integer milliseconds, rounded up.

The feed move runs the exact PIO segment list board.py sends (motion.segments); the belt runs at
the speed its PIO delay word really gives (rounding included), so the transit times are those of
the hardware as configured, not of the nominal mm/s.
"""

from . import config, motion


def _hz(cfg, mm_s, mm_per_rev):
    num, den = config.steps_per_mm(mm_per_rev)
    return (int(mm_s) * num + den // 2) // den


def feed_steps(cfg):
    return config.mm_to_steps(cfg.F_MOVE_MM, cfg.F_MM_PER_REV)


def feed_segments(cfg, mm=None, steps=None):
    """The PIO segments of one feed move (exact step count, ramped), or of F moving ``mm``
    (or ``steps``)."""
    if steps is None:
        steps = feed_steps(cfg) if mm is None else config.mm_to_steps(mm, cfg.F_MM_PER_REV)
    return motion.segments(steps, _hz(cfg, cfg.F_V_MAX, cfg.F_MM_PER_REV),
                           _hz(cfg, cfg.F_ACCEL, cfg.F_MM_PER_REV),
                           _hz(cfg, cfg.V_START, cfg.F_MM_PER_REV))


def feed_ms(cfg):
    """One feed move: card i onto the belt and card i+1 to the read window."""
    return (motion.segments_us(feed_segments(cfg)) + 999) // 1000


def grip_ms(cfg):
    """From the start of a feed move until the card's leading edge reaches GRIP_X_MM, where the
    belt's bands take it (ms, rounded down: the earliest). From there the card rides the belt,
    which runs faster than F ramps down, so it reaches the mouths past the grip before the move
    ends (found on the physical twin: pocket 0's mouth about 60 ms before the move's end)."""
    segs = feed_segments(cfg)
    want = config.mm_to_steps(max(0, cfg.GRIP_X_MM - cfg.WINDOW_X_MM), cfg.F_MM_PER_REV)
    lo, hi = 0, motion.segments_us(segs)
    while lo < hi:
        mid = (lo + hi) // 2
        if motion.steps_at(segs, mid) >= want:
            hi = mid
        else:
            lo = mid + 1
    return lo // 1000


def belt_hz(cfg):
    return _hz(cfg, cfg.T_V, cfg.T_MM_PER_REV)


def belt_um_per_ms(cfg):
    """The belt's real speed (um per ms = mm/s) with the PIO delay word rounding."""
    hz = motion.PIO_HZ * 1000 // motion.step_cycles(motion.delay_for(belt_hz(cfg)))  # mHz
    num, den = config.steps_per_mm(cfg.T_MM_PER_REV)
    return hz * den // num // 1000 if num else 0


def belt_ms(cfg, mm):
    v = max(1, belt_um_per_ms(cfg))
    return (int(mm) * 1000 + v - 1) // v


def belt_start_ms(cfg):
    """The belt's ramp from rest to T_V (it runs continuously during a deal)."""
    hz = belt_hz(cfg)
    acc = _hz(cfg, cfg.T_ACCEL, cfg.T_MM_PER_REV)
    v0 = _hz(cfg, cfg.V_START, cfg.T_MM_PER_REV)
    n = motion.ramp_steps(v0, hz, acc)
    return motion.move_ms(2 * n, hz, acc, v0) // 2


def flap_in_time(cfg):
    """A flap raised when its card's feed move starts is up before the card's leading edge
    can reach the first mouth: what lets board.py's turn_done() answer at once."""
    return cfg.DEFLECT_MS < feed_ms(cfg)


def read_ms(cfg):
    return cfg.READ_ALLOW_MS


def transit_ms(cfg, target):
    """After the feed move: the card's leading edge is at WINDOW_X + F_MOVE on the belt; it is
    confirmed when its pocket's mouth opto has seen all of it go in (the leading edge to the
    mouth, then the card's length), or for the loop when the drop opto D sees it."""
    front = cfg.WINDOW_X_MM + cfg.F_MOVE_MM
    k = config.pocket_of(cfg, target)
    if k is None:  # the return loop: to E, through the switchback, round to the hopper
        return belt_ms(cfg, cfg.END_X_MM - front + cfg.LOOP_MM) + loop_switch_ms(cfg)
    return belt_ms(cfg, max(0, config.pocket_x(cfg, k) - front) + cfg.CARD_LEN_MM)


def _r_move_ms(cfg, mm):
    hz = _hz(cfg, cfg.R_V, cfg.R_MM_PER_REV)
    acc = _hz(cfg, cfg.R_ACCEL, cfg.R_MM_PER_REV)
    v0 = _hz(cfg, cfg.V_START, cfg.R_MM_PER_REV)
    return motion.move_ms(config.mm_to_steps(mm, cfg.R_MM_PER_REV), hz, acc, v0)


def loop_switch_ms(cfg):
    """The switchback R: pull the card in, stop, reverse it out onto the diagonal."""
    return _r_move_ms(cfg, cfg.R_IN_MM) + _r_move_ms(cfg, cfg.R_OUT_MM)


def loop_station_ms(cfg):
    """When a loop card reaches each loop sensor, in ms after the feed move that put it on the
    belt: (end of run E, switchback inner opto Rv, drop D on the hopper)."""
    front = cfg.WINDOW_X_MM + cfg.F_MOVE_MM
    e = belt_ms(cfg, cfg.END_X_MM - front)
    rv = e + _r_move_ms(cfg, cfg.R_IN_MM)
    return (e, rv, transit_ms(cfg, cfg.LOOP))


def eject_ms(cfg, target):
    """The eject stage as the firmware runs it: a feed move, then the belt to the station."""
    return feed_ms(cfg) + transit_ms(cfg, target)


def loop_pass_ms(cfg):
    """One card once round the loop: read window -> belt -> E -> switchback -> back on the
    hopper -> fed to the window again (what FETCH from the loop costs per card cycled)."""
    return feed_ms(cfg) + transit_ms(cfg, cfg.LOOP)
