"""The engine's own random numbers: a small generator that gives the same numbers in the compiled
and the pure-Python build, for what a simulation draws by the million (the search's worlds and
play-outs, a random deal for self-play and the benchmarks).

Not for the table's own deals: those come from the dealer's cards (``start_hand``), and a club
night's from the hub's seeded shuffle. A 32-bit state cannot reach every order of a deck; what
it draws is for play-outs and measurements, never a deal a person plays."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the compiler's native 64-bit int (mypyc reads it); never imported at run time
    from mypy_extensions import i64


class Rand:
    """A 32-bit xorshift generator (the same numbers in both builds)."""

    def __init__(self, seed: int) -> None:
        self.x: i64 = (seed & 0xFFFFFFFF) or 0x9E3779B9

    def below(self, k: int) -> int:
        """A number from 0 to k - 1 (k below 2**31)."""
        x: i64 = self.x
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        self.x = x
        return (x * k) >> 32

    def shuffle(self, xs: list[int]) -> None:
        """Fisher-Yates, in place: ``below(i + 1)`` for i from the end down, written out on
        native ints (compiled: 0.7 us for 52 cards, where ``random.shuffle`` takes 8.6 us)."""
        x: i64 = self.x  # (native 64-bit ints in the compiled build: 32 bits times a deck fit)
        i: i64 = len(xs) - 1
        while i > 0:
            x ^= (x << 13) & 0xFFFFFFFF
            x ^= x >> 17
            x ^= (x << 5) & 0xFFFFFFFF
            j: i64 = (x * (i + 1)) >> 32
            t = xs[i]
            xs[i] = xs[j]
            xs[j] = t
            i -= 1
        self.x = x
