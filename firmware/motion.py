"""Stepper motion: acceleration ramps with exact step counts, as the rp2 PIO program runs them.

Pure integer arithmetic (no floats: the RP2040's MicroPython has single-precision floats, the
simulator's CPython doubles; integers give the same answer on both), so the dealer simulator
and the benchmark compute motion times from exactly the segments the Pico sends to its PIO.

A move of ``steps`` is a trapezoid (or a triangle when too short to reach ``v_max``): speed
rises from ``v_start`` at ``accel`` steps/s^2, cruises, falls symmetrically. The ramp is cut
into segments of constant step period, each at least ``SEG_MIN_STEPS`` steps, at most
``RAMP_SEGMENTS`` per ramp; each segment is two 32-bit words for the PIO program in
firmware/board.py: the step count minus one and the half-period delay. The PIO program spends
``2 * delay + STEP_OVERHEAD`` PIO cycles per step and ``SEG_OVERHEAD`` cycles per segment, so
``move_us`` is the exact time the hardware takes, and ``sum(count)`` is exactly ``steps``.
"""

PIO_HZ = 2000000  # the step state machine's clock: 0.5 us per PIO cycle
STEP_OVERHEAD = 7  # set, mov, set, mov, jmp x-- around the two delay loops (board.py)
SEG_OVERHEAD = 4  # pull, mov, pull, mov at the start of each segment
RAMP_SEGMENTS = 12  # constant-speed pieces per ramp
SEG_MIN_STEPS = 4


def isqrt(n):
    """Integer square root (floor), the same on MicroPython and CPython."""
    if n <= 0:
        return 0
    x = n
    y = (x + 1) >> 1
    while y < x:
        x = y
        y = (x + n // x) >> 1
    return x


def delay_for(hz):
    """The PIO half-period delay word for a step rate (steps/s): the period rounds up, so the
    motor never steps faster than asked."""
    hz = max(1, hz)
    cycles = (PIO_HZ + hz - 1) // hz
    d = (cycles - STEP_OVERHEAD + 1) // 2
    return d if d > 0 else 0


def step_cycles(delay):
    return 2 * delay + STEP_OVERHEAD


def speed_at(v_start, accel, n):
    """Speed (steps/s) after n steps of constant acceleration from v_start."""
    return isqrt(v_start * v_start + 2 * accel * n)


def ramp_steps(v_start, v_max, accel):
    """Steps needed to accelerate from v_start to v_max."""
    if v_max <= v_start:
        return 0
    return (v_max * v_max - v_start * v_start) // (2 * accel)


def segments(steps, v_max, accel, v_start):
    """[(count, delay)] for a move of ``steps``: sum(count) == steps, ramps up and down."""
    steps = abs(int(steps))
    if steps == 0:
        return []
    n_ramp = ramp_steps(v_start, v_max, accel)
    if 2 * n_ramp > steps:
        n_ramp = steps // 2
    cruise = steps - 2 * n_ramp
    up = []
    if n_ramp > 0:
        # equal speed steps: every boundary jumps by the same (v_top - v_start) / k, and each
        # piece runs at the speed of its first step, so the motor is never ahead of the ramp
        v_top = speed_at(v_start, accel, n_ramp)
        k = RAMP_SEGMENTS
        done = 0
        v_piece = -1  # the speed of a piece that began but was too short to stand alone
        for i in range(k):
            v = v_start + (v_top - v_start) * i // k
            if v_piece < 0:
                v_piece = v
            v_next = v_start + (v_top - v_start) * (i + 1) // k
            # where the ideal ramp reaches v_next, rounded up: a piece never starts early
            end = n_ramp if i == k - 1 else -(-(v_next * v_next - v_start * v_start) // (2 * accel))
            count = min(n_ramp, end) - done
            if count < SEG_MIN_STEPS and i < k - 1:
                continue  # too short: merged into the next piece, at this lower speed
            if count <= 0:
                continue
            up.append((count, delay_for(max(v_piece, v_start, 1))))
            v_piece = -1
            done += count
        if done < n_ramp:
            up.append((n_ramp - done, delay_for(v_top)))
    v_top = speed_at(v_start, accel, n_ramp) if n_ramp else v_start
    out = list(up)
    if cruise:
        out.append((cruise, delay_for(min(v_max, max(v_top, v_start)))))
    for i in range(len(up) - 1, -1, -1):
        out.append(up[i])
    return out


def steps_at(segs, us):
    """How many steps of these segments the PIO has emitted ``us`` microseconds after it
    started them (the board turns a sensor edge's time into a position with it)."""
    cycles = us * PIO_HZ // 1000000
    done = 0
    for count, delay in segs:
        cycles -= SEG_OVERHEAD
        if cycles <= 0:
            return done
        per = step_cycles(delay)
        n = cycles // per
        if n < count:
            return done + n
        done += count
        cycles -= count * per
    return done


def words(segs):
    """The 32-bit words the PIO program pulls: count - 1, then delay, per segment."""
    out = []
    for count, delay in segs:
        out.append(count - 1)
        out.append(delay)
    return out


def segments_us(segs):
    """Exact duration of these segments on the PIO, in microseconds (rounded up)."""
    cycles = 0
    for count, delay in segs:
        cycles += SEG_OVERHEAD + count * step_cycles(delay)
    return (cycles * 1000000 + PIO_HZ - 1) // PIO_HZ


def move_us(steps, v_max, accel, v_start):
    """How long the hardware takes for a move of ``steps`` with this profile (us)."""
    return segments_us(segments(steps, v_max, accel, v_start))


def move_ms(steps, v_max, accel, v_start):
    return (move_us(steps, v_max, accel, v_start) + 999) // 1000


# ---- TMC2209 over its single-wire UART (datasheet section 4) -----------------------------------

TMC_GCONF = 0x00
TMC_IHOLD_IRUN = 0x10
TMC_TPWMTHRS = 0x13
TMC_TCOOLTHRS = 0x14
TMC_SGTHRS = 0x40
TMC_COOLCONF = 0x42
TMC_CHOPCONF = 0x6C


def tmc_crc(data):
    """The TMC2209 datagram CRC8 (polynomial x^8 + x^2 + x + 1, bits taken LSB first)."""
    crc = 0
    for byte in data:
        for _ in range(8):
            if ((crc >> 7) ^ (byte & 1)) & 1:
                crc = ((crc << 1) ^ 0x07) & 0xFF
            else:
                crc = (crc << 1) & 0xFF
            byte >>= 1
    return crc


def tmc_write(address, register, value):
    """An 8-byte write datagram: sync 0x05, node address 0..3, register | 0x80, data, CRC."""
    d = bytearray((0x05, address & 3, (register & 0x7F) | 0x80,
                   (value >> 24) & 0xFF, (value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF))
    d.append(tmc_crc(d))
    return bytes(d)


def tmc_read_request(address, register):
    d = bytearray((0x05, address & 3, register & 0x7F))
    d.append(tmc_crc(d))
    return bytes(d)


def mres_bits(microsteps):
    """CHOPCONF.MRES for 256, 128, ..., 1 microsteps (0 = 256 ... 8 = full step)."""
    m = 256
    bits = 0
    while m > microsteps and bits < 8:
        m >>= 1
        bits += 1
    if m != microsteps:
        raise ValueError("microsteps must be a power of two from 1 to 256")
    return bits


def tmc_setup(address, microsteps, run_current, hold_current, sg_threshold, coolstep_tstep):
    """The datagrams that configure one TMC2209 for StealthChop with StallGuard4 on DIAG.

    GCONF: pdn_disable (UART owns the standby pin), mstep_reg_select (microsteps from MRES, not
    MS1/MS2), I_scale_analog kept. CHOPCONF: the reset default 0x10000053 with MRES set.
    TCOOLTHRS: StallGuard (and so DIAG) is active only while TSTEP <= this value, i.e. above a
    minimum speed; SGTHRS: the stall threshold (DIAG rises when SG_RESULT <= 2 * SGTHRS).
    TPWMTHRS 0 keeps StealthChop at every speed (StallGuard4 works only in StealthChop).
    """
    chop = (0x10000053 & ~(0xF << 24)) | (mres_bits(microsteps) << 24)
    return [
        tmc_write(address, TMC_GCONF, 0x000001C1),  # I_scale_analog, pdn_disable, mstep_reg_select, multistep_filt
        tmc_write(address, TMC_CHOPCONF, chop),
        tmc_write(address, TMC_IHOLD_IRUN, (8 << 16) | ((run_current & 31) << 8) | (hold_current & 31)),
        tmc_write(address, TMC_TPWMTHRS, 0),
        tmc_write(address, TMC_TCOOLTHRS, coolstep_tstep & 0xFFFFF),
        tmc_write(address, TMC_SGTHRS, sg_threshold & 0xFF),
    ]
