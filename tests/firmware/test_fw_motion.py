"""firmware/motion.py: ramps with exact step counts, PIO timing, TMC2209 datagrams.

The same module runs on the Pico (board.py feeds its segments to the PIO) and here (the
simulator and benchmarks/dealer.py take their motion times from it); the MicroPython VM run of
the same cases must agree digit for digit (test_fw_micropython_vm.py, check ``motion``).
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from trickref.firmware import motion as m


@given(st.integers(0, 200000), st.integers(200, 40000), st.integers(500, 400000), st.integers(1, 2000))
def test_every_move_has_exactly_its_steps_and_never_outruns_the_ramp(steps: int, v_max: int, accel: int,
                                                                      v_start: int) -> None:
    v_start = min(v_start, v_max)
    segs = m.segments(steps, v_max, accel, v_start)
    assert sum(c for c, _ in segs) == steps
    assert all(c > 0 and d >= 0 for c, d in segs)
    pos = 0
    for count, delay in segs:
        hz = m.PIO_HZ / m.step_cycles(delay)
        assert hz <= v_max * 1.001 + 1  # never above the top speed
        # never faster than the ideal ramp allows at either end of the move
        from_start = (v_start ** 2 + 2 * accel * pos) ** 0.5
        from_end = (v_start ** 2 + 2 * accel * (steps - pos - count)) ** 0.5
        assert hz <= max(v_start, min(from_start, from_end)) * 1.01 + 1, (pos, count, delay)
        pos += count


def test_profile_is_symmetric_and_longer_moves_take_longer() -> None:
    segs = m.segments(6400, 8000, 20000, 500)
    assert segs == segs[::-1]
    times = [m.move_us(n, 8000, 20000, 500) for n in (0, 1, 10, 100, 1000, 6400, 12800)]
    assert times == sorted(times) and times[0] == 0


def test_move_time_matches_the_trapezoid_it_approximates() -> None:
    # 6400 steps, 500 -> 8000 steps/s at 20000 steps/s^2: ideal 2 * t_ramp + cruise
    steps, v, a, v0 = 6400, 8000, 20000, 500
    t_ramp = (v - v0) / a
    n_ramp = (v * v - v0 * v0) / (2 * a)
    ideal = 2 * t_ramp + (steps - 2 * n_ramp) / v
    got = m.move_us(steps, v, a, v0) / 1e6
    assert ideal <= got <= ideal * 1.15  # slower than ideal (pieces start at their low end), not much


def test_words_are_count_minus_one_then_delay() -> None:
    segs = [(10, 100), (3, 7)]
    assert m.words(segs) == [9, 100, 2, 7]
    assert m.segments_us(segs) == -(-(4 + 10 * (2 * 100 + 7) + 4 + 3 * (2 * 7 + 7)) * 10 ** 6 // m.PIO_HZ)


def test_tmc2209_datagrams() -> None:
    assert m.tmc_read_request(0, 0x00).hex() == "05000048"  # reading GCONF of node 0
    w = m.tmc_write(2, m.TMC_SGTHRS, 0x50)
    assert w[:7] == bytes((0x05, 2, 0xC0, 0, 0, 0, 0x50)) and w[7] == m.tmc_crc(w[:7])
    setup = m.tmc_setup(1, 16, 16, 8, 60, 400)
    chop = int.from_bytes(setup[1][3:7], "big")
    assert (chop >> 24) & 0xF == 4  # 16 microsteps: MRES 4
    assert [d[2] & 0x7F for d in setup] == [m.TMC_GCONF, m.TMC_CHOPCONF, m.TMC_IHOLD_IRUN,
                                            m.TMC_TPWMTHRS, m.TMC_TCOOLTHRS, m.TMC_SGTHRS]
    assert m.mres_bits(256) == 0 and m.mres_bits(1) == 8


def test_the_simulator_times_its_motions_from_the_firmware_constants() -> None:
    from trickref.device.dealer.sim import SimBoard
    from trickref.firmware import config, timing

    cfg = config.Settings(SEAT_COUNT=4)
    board = SimBoard(cfg)
    assert board.durations["feed"] == board.durations["eject"] == timing.feed_ms(cfg)
    assert board.durations["read"] == cfg.READ_ALLOW_MS
    assert timing.feed_ms(cfg) == -(-m.segments_us(timing.feed_segments(cfg)) // 1000)
    assert timing.flap_in_time(cfg)  # a flap raised with the feed move is up before the card
    # the belt's real speed (PIO rounding) is never above the nominal one
    assert timing.belt_um_per_ms(cfg) <= cfg.T_V
    assert timing.transit_ms(cfg, 0) < timing.transit_ms(cfg, 3) < timing.transit_ms(cfg, 0x80)
