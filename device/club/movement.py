"""Movements: who sits where in each round of a club night, for any number of tables.

The night's players (the roster) are grouped into *units*: a partnership in partnership Spades
(two players, seats 1+3 or 2+4), one player in every other game. A table has ``positions``
places for units (two partnerships; or one per seat). Every round is a fresh seating:

``mitchell``
    the first unit at each table (its *home*: North-South in bridge) stays at its table and
    place all night; the others (the visitors) move, so that each home meets as many different
    visitors as it can. With partnerships this is the bridge Mitchell: visitor pair ``j`` sits
    at table ``j + r`` in round ``r`` and meets every home pair once in ``tables`` rounds.
``howell``
    everybody moves, so that every unit meets as many different others as it can (with
    partnerships and two-player tables, the circle method: a complete round robin in
    ``units - 1`` rounds, one unit fixed, the others turning around it).
``none``
    everybody keeps their first-round place (the roster's order).

With more units than places, the ones left over *sit out* the round (the ones that sat out
least, in turn); with fewer, the tables left over are not used that round. Boards are shared
barometer-style: each table has a card dealer, so every table of a round plays every board of
the round at the same time, and each board is compared across every table that played it.

Beyond the two exact constructions, a seating is searched (seeded, so the same night always
gives the same movement): a deterministic first guess, then swaps that lower the number of
repeated meetings (squared, so repeats spread out), keeping the movement's fixed places.
``Movement.repeats`` says, per round, how many pairs of opponents meet again, and whether that
was avoidable by counting: a unit meets ``positions - 1`` others a round, so after ``rounds``
rounds it needs ``rounds * (positions - 1)`` different opponents out of ``units - 1``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

STYLES = ("mitchell", "howell", "none")
SEARCH_STEPS = 4000  # swaps tried per round (seeded)


@dataclass
class Movement:
    style: str
    tables: list[str]  # the night's tables (only the first ``active`` play)
    unit_seats: list[tuple[int, ...]]  # a unit's seats at a table, by position: [(0, 2), (1, 3)] or [(0,), ...]
    units: list[list[str]]  # each unit's players (roster ids)
    rounds: list[dict[str, list[int]]] = field(default_factory=list)  # per round: table -> unit per position
    sitting_out: list[list[int]] = field(default_factory=list)  # per round: the units that sit out
    repeats: list[int] = field(default_factory=list)  # per round: pairs of opponents meeting again
    unavoidable_from: int | None = None  # the first round from which counting says repeats must come
    _seats: dict[int, dict[str, list[str]]] = field(default_factory=dict, repr=False, compare=False)

    # ------------------------------------------------------------------ seats
    def seats(self, r: int) -> dict[str, list[str]]:
        """Round ``r``'s seating: per playing table, each seat's player id."""
        have = self._seats.get(r)
        if have is not None:
            return have
        out: dict[str, list[str]] = {}
        n = sum(len(s) for s in self.unit_seats)
        for t, placed in self.rounds[r].items():
            row = [""] * n
            for pos, u in enumerate(placed):
                for seat, player in zip(self.unit_seats[pos], self.units[u], strict=True):
                    row[seat] = player
            out[t] = row
        self._seats[r] = out
        return out

    def first_seats(self) -> dict[str, tuple[str, int]]:
        """Where each player sits first (table, seat)."""
        out: dict[str, tuple[str, int]] = {}
        for r in range(len(self.rounds)):
            for t, row in self.seats(r).items():
                for s, p in enumerate(row):
                    out.setdefault(p, (t, s))
        return out

    def tables_in_round(self, r: int) -> list[str]:
        return list(self.rounds[r])

    def sit_outs(self, r: int) -> list[str]:
        return [p for u in self.sitting_out[r] for p in self.units[u]]

    def warnings(self) -> list[str]:
        """What the director should know, in words (the console shows them)."""
        out = []
        for r, n in enumerate(self.repeats):
            if n:
                why = ("unavoidable: there are not enough different opponents left" if
                       self.unavoidable_from is not None and r >= self.unavoidable_from else
                       "the search found no seating without")
                out.append(f"round {r + 1}: {n} pair{'s' if n != 1 else ''} of opponents meet again ({why})")
        return out

    def to_json(self) -> dict[str, Any]:
        return {"style": self.style, "tables": self.tables, "unit_seats": [list(x) for x in self.unit_seats],
                "units": self.units, "rounds": self.rounds, "sitting_out": self.sitting_out,
                "repeats": self.repeats, "unavoidable_from": self.unavoidable_from}


def unit_layout(game_teams: bool, players: int) -> list[tuple[int, ...]]:
    """A table's places for units: partnerships (seats 1+3, 2+4) or single seats."""
    if game_teams:
        return [(0, 2), (1, 3)]
    return [(s,) for s in range(players)]


def make(style: str, roster: Sequence[str], tables: Sequence[str], rounds: int, players: int,
         teams: bool = False, seed: int = 0) -> Movement:
    """The movement of ``style`` for ``roster`` (player ids, in the order entered: partners
    next to each other) at up to ``tables`` tables of ``players`` seats for ``rounds`` rounds.
    ValueError when it cannot be made (too few players for one table, an odd partnership)."""
    if style not in STYLES:
        raise ValueError(f"unknown movement {style!r} (one of {', '.join(STYLES)})")
    layout = unit_layout(teams, players)
    size = len(layout[0])
    if len(roster) % size:
        raise ValueError(f"partnerships are of {size}: {len(roster)} players do not make whole partnerships")
    units = [list(roster[i:i + size]) for i in range(0, len(roster), size)]
    places = len(layout)
    active = min(len(tables), len(units) // places)
    if active < 1:
        raise ValueError(f"{len(roster)} players do not fill one table of {players}")
    mv = Movement(style, list(tables), layout, units)
    mv.unavoidable_from = _unavoidable_from(len(units), places, active, rounds)
    _schedule(mv, active, places, rounds, random.Random(seed))
    return mv


def _unavoidable_from(units: int, places: int, active: int, rounds: int) -> int | None:
    """The first round (0-based) by which some units must meet again, by counting: a unit needs
    ``places - 1`` new opponents a round out of ``units - 1``; and from the second round on, a
    table of more places than there were tables in the first round holds two who met in it
    (when every unit plays: the pigeonhole)."""
    for r in range(rounds):
        if (r + 1) * (places - 1) > units - 1:
            return r
        if r == 1 and places > active and units == places * active:
            return r
    return None


def _schedule(mv: Movement, active: int, places: int, rounds: int, rng: random.Random) -> None:
    n = len(mv.units)
    seats_used = active * places
    sat_out = [0] * n
    met: dict[tuple[int, int], int] = {}
    tables = mv.tables[:active]
    homes = list(range(active)) if mv.style == "mitchell" else []
    for r in range(rounds):
        # who sits out: those who sat out least, in turn (homes play every round in a Mitchell)
        spare = n - seats_used
        order = sorted((u for u in range(n) if u not in homes), key=lambda u: (sat_out[u], (u - r) % n))
        out = sorted(order[:spare]) if spare > 0 else []
        for u in out:
            sat_out[u] += 1
        playing = [u for u in range(n) if u not in out]
        placed = _first_guess(mv.style, playing, homes, active, places, r, n)
        if not _exact(mv.style, places, active, n, rounds):
            placed = _search(placed, homes, met, rng)
        repeats = 0
        for row in placed:
            for i, a in enumerate(row):
                for b in row[i + 1:]:
                    k = (min(a, b), max(a, b))
                    repeats += met.get(k, 0) > 0
                    met[k] = met.get(k, 0) + 1
        mv.rounds.append({t: list(row) for t, row in zip(tables, placed, strict=True)})
        mv.sitting_out.append(out)
        mv.repeats.append(repeats)


def _exact(style: str, places: int, active: int, n: int, rounds: int) -> bool:
    """The constructions that are already perfect (no search): a two-place Mitchell within
    ``active`` rounds, and a two-place Howell (the circle method) with every unit seated."""
    if style == "none":
        return True
    if places != 2:
        return False
    if style == "mitchell":
        return n == 2 * active and rounds <= active
    if style == "howell":
        return n == 2 * active
    return False


def _first_guess(style: str, playing: list[int], homes: list[int], active: int, places: int, r: int,
                 n: int) -> list[list[int]]:
    """Round ``r``'s seating before any search. With everybody playing, the unit that started at
    table ``i``, place ``s`` sits at table ``i + (s + shift) * r``: ``shift`` 0 in a Mitchell
    (place 0 stays), 1 in a Howell (everybody moves). Two units of places ``s`` and ``s'`` then
    meet when ``(s - s') * r = i' - i`` (mod the tables): at most once in as many rounds as
    tables when that number is a prime at least the places. Two-place Howells use the circle
    method (a complete round robin)."""
    if style == "none":
        return [playing[t * places:(t + 1) * places] for t in range(active)]
    m = len(playing)
    if style == "howell" and places == 2 and m == 2 * active:
        fixed, others = playing[0], playing[1:]
        k = r % (m - 1)
        circle = [fixed, *(others[k:] + others[:k])]
        return [[circle[t], circle[m - 1 - t]] for t in range(active)]
    start: list[list[int]]
    if style == "mitchell":
        visitors = [u for u in playing if u not in homes]
        start = [[homes[t]] + [visitors[p * active + t] for p in range(places - 1) if p * active + t < len(visitors)]
                 for t in range(active)]
        rest = visitors[(places - 1) * active:]
    else:
        start = [[playing[t + active * p] for p in range(places)] for t in range(active)]
        rest = []
    if m == active * places or style == "mitchell":
        shift = 0 if style == "mitchell" else 1
        placed: list[list[int | None]] = [[None] * places for _ in range(active)]
        for i, row in enumerate(start):
            for s, u in enumerate(row):  # each keeps its place s (its seats) at its new table
                placed[(i + (s + shift) * r) % active][s] = u
        rows = [[u for u in row if u is not None] for row in placed]
        for t in range(active):
            while len(rows[t]) < places and rest:
                rows[t].append(rest.pop())
        return rows
    k = (r * (places + 1)) % m
    seq = playing[k:] + playing[:k]
    return [[seq[t + active * p] for p in range(places)] for t in range(active)]


def _cost(rows: list[list[int]], met: dict[tuple[int, int], int]) -> int:
    c = 0
    for row in rows:
        for i, a in enumerate(row):
            for b in row[i + 1:]:
                m = met.get((min(a, b), max(a, b)), 0)
                c += m * m
    return c


def _search(rows: list[list[int]], homes: list[int], met: dict[tuple[int, int], int],
            rng: random.Random) -> list[list[int]]:
    """Swaps of two units at different tables that lower the repeated meetings (squared)."""
    rows = [list(x) for x in rows]
    fixed = set(homes)

    def cost(row: list[int]) -> int:
        c = 0
        for i, a in enumerate(row):
            for b in row[i + 1:]:
                m = met.get((min(a, b), max(a, b)), 0)
                c += m * m
        return c

    if len(rows) < 2:
        return rows
    slots = [(t, p) for t, row in enumerate(rows) for p, u in enumerate(row) if u not in fixed]
    if len(slots) < 2:
        return rows
    total = sum(cost(r) for r in rows)
    for _ in range(SEARCH_STEPS):
        if total == 0:
            break
        (t1, p1), (t2, p2) = rng.sample(slots, 2)
        if t1 == t2:
            continue
        a, b = rows[t1], rows[t2]
        before = cost(a) + cost(b)
        a[p1], b[p2] = b[p2], a[p1]
        after = cost(a) + cost(b)
        if after <= before:
            total += after - before
        else:
            a[p1], b[p2] = b[p2], a[p1]
    return rows
