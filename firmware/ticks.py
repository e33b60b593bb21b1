"""Millisecond tick arithmetic that survives the counter's wrap.

On MicroPython these are ``time.ticks_add`` and ``time.ticks_diff`` themselves (the Pico's
``time.ticks_ms()`` wraps after 2**30 ms, about 12.4 days, and a plain ``a - b`` across the
wrap is off by 2**30). On CPython (the dealer simulator, the firmware tests) the same
arithmetic is done here with the same period, so a simulated clock started just below the wrap
behaves exactly as the Pico's does. Every duration in the firmware goes through these two.
"""

PERIOD = 1 << 30  # MicroPython's TICKS_PERIOD for ticks_ms on the rp2 port
HALF = PERIOD >> 1

try:
    from time import ticks_add, ticks_diff  # MicroPython
except ImportError:  # CPython: the same arithmetic

    def ticks_add(ticks, delta):  # type: ignore[misc]
        """ticks + delta, wrapped into 0..PERIOD-1."""
        return (ticks + delta) % PERIOD

    def ticks_diff(end, start):  # type: ignore[no-redef]
        """Signed end - start, correct across one wrap (|result| < PERIOD/2)."""
        return ((end - start + HALF) % PERIOD) - HALF


def wrap(ms):
    """A plain millisecond count as a tick value (what ticks_ms() would read)."""
    return ms % PERIOD
