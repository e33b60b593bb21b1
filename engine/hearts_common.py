"""What Hearts and Cancellation Hearts share: card points, passing, the moon, broken hearts.

Both games (RULES.md, seeds 004 and 001) pass three cards face down, score 1 per heart and 13
for the Q♠, let a player who took every point card choose the moon for themself or for the
others, and forbid leading hearts until a heart or the Q♠ has been played. ``HeartsFamilyState``
holds that shared machinery; the two game modules add their deal, leads and trick winners.

Each game keeps its hands its own way behind a few hooks (``_hand_of``, ``_hand_size``,
``_holds_each``, ``_remove_cards``, ``_add_cards``): Hearts as one 52-bit mask per seat,
Cancellation Hearts as two (cards held once, cards held twice); see masks.py. The default
hooks keep sorted lists in ``hands`` (with repeats for two decks); ``hand_of(seat)`` is the
public way to read a hand whichever is used.
"""

from __future__ import annotations

import operator
import random
from bisect import bisect_left, insort
from collections.abc import Iterator, Sequence
from itertools import combinations, combinations_with_replacement
from typing import Any, ClassVar, Final, cast

from . import cards as C
from .actions import MOON_OTHERS, MOON_SELF, PLAY, Action
from .base import COMPILED, GameState

PASS_COUNT: Final = 3

# Points of each card: every heart 1, the queen of spades 13, everything else 0.
POINTS: Final[tuple[int, ...]] = tuple(1 if c // 13 == C.HEARTS else 13 if c == C.QS else 0 for c in range(52))
HEARTS_LO: Final = C.HEARTS * 13  # hearts are the ints 13..25
HEARTS_HI: Final = C.HEARTS * 13 + 13

ONE: Final[tuple[tuple[int, ...], ...]] = tuple((i,) for i in range(16))  # (seat,) without allocating
ALL_SEATS: Final[tuple[tuple[int, ...], ...]] = tuple(tuple(range(n)) for n in range(16))  # every seat of n
MOON_ACTIONS: Final[tuple[Action, ...]] = (MOON_SELF, MOON_OTHERS)

_PASS_TABLE: dict[tuple[int, ...], Action] = {}


# _PASS_FLAT[a * 2704 + b * 52 + c]: the same shared Action for three different cards a < b < c
# (None elsewhere): a list index instead of a dict lookup keyed by a new tuple, for
# ``PassChoices[i]`` (what ``random.choice`` calls). 52**3 slots, about 1.1 MB of pointers.
_PASS_FLAT: Final[list[Action | None]] = []


def _pass_table() -> dict[tuple[int, ...], Action]:
    """One shared pass Action per sorted triple (repeats allowed: two decks), built on first use.
    Built aside and published by one dict.update (a single C call under the GIL), so a state
    used from another thread at the same moment never sees the table half filled; the flat
    table is published after it, by one list.extend (also a single C call)."""
    if not _PASS_TABLE:
        built: dict[tuple[int, ...], Action] = {t: Action("pass", t) for t in combinations_with_replacement(range(52), PASS_COUNT)}
        _PASS_TABLE.update(built)
    if not _PASS_FLAT:
        flat: list[Action | None] = [None] * (52 * 52 * 52)
        for (a, b, c), act in _PASS_TABLE.items():
            if a < b < c:
                flat[a * 2704 + b * 52 + c] = act
        _PASS_FLAT.extend(flat)
    return _PASS_TABLE


# The position triples of a hand of n distinct cards, in itertools.combinations order.
_POSITIONS: dict[int, tuple[tuple[int, int, int], ...]] = {}


def _positions(n: int) -> tuple[tuple[int, int, int], ...]:
    got = _POSITIONS.get(n)
    if got is None:
        got = _POSITIONS[n] = tuple(combinations(range(n), 3))
    return got


class PassChoices:
    """Every way to pass 3 cards from a sorted hand (each multiset of cards once), as a lazy
    read-only sequence of the shared pass Actions.

    Why lazy: a 13-card hand has 286 passes and a 17-card two-deck hand 680; building them all
    was a third of a random Hearts hand, though a caller usually wants one of them
    (``random.choice``), a membership test (``action in legal``) or the count. ``len`` is
    computed, ``[i]`` unranks pass ``i`` directly, ``in`` checks the cards against the hand, and
    iteration walks ``itertools.combinations``. The order is exactly that of the list the
    engine used to return (``combinations`` of the sorted hand, first occurrences only), so a
    seeded random choice picks the same pass as before. It compares equal to a list of the
    same actions, and ``+`` and slices give lists; it is a snapshot of the hand at the time of
    the call, like the list was.

    Not a subclass of ``collections.abc.Sequence`` but registered as one (``isinstance`` and
    ``random.sample`` accept it; ``index``, ``count`` and ``reversed`` are written out): the
    compiled build then makes it a native class, whose ``len`` and ``[i]`` (what
    ``random.choice`` calls) cost a fifth of those of a Python class's methods.
    """

    __slots__ = ("hand", "_len", "_pos", "_vals", "_mult", "_c2")

    hand: tuple[int, ...]

    def __init__(self, hand: Sequence[int], distinct: bool = False) -> None:
        """``distinct``: the caller knows the cards are all different (one deck)."""
        if not _PASS_FLAT:
            _pass_table()
        h = tuple(hand)
        self.hand = h
        n = len(h)
        if distinct or len(set(h)) == n:  # distinct cards (one deck): pass i is a triple of positions
            self._pos = _positions(n)
            self._len = len(self._pos)
            self._vals: tuple[int, ...] = ()
            self._mult: tuple[int, ...] = ()
            self._c2: list[int] = []
            return
        # two decks: distinct values with multiplicity 1 or 2; unranked in _multiset()
        vals = tuple(sorted(set(h)))
        mult = tuple(h.count(v) for v in vals)
        k = len(vals)
        # c2[j]: the 2-card multisets of the values from j on (pairs of distinct values plus
        # the doubles among them); c2[k] == 0.
        c2 = [0] * (k + 1)
        doubles = 0
        for j in range(k - 1, -1, -1):
            doubles += mult[j] > 1
            r = k - j
            c2[j] = r * (r - 1) // 2 + doubles
        self._pos = ()
        self._vals, self._mult, self._c2 = vals, mult, c2
        self._len = k * (k - 1) * (k - 2) // 6 + doubles * (k - 1)

    def __len__(self) -> int:
        return self._len

    def _multiset(self, i: int) -> tuple[int, int, int]:
        """The ``i``-th 3-card multiset in lexicographic order (0 <= i < len)."""
        vals, mult, c2 = self._vals, self._mult, self._c2
        k = len(vals)
        j = 0
        while True:  # the lowest card: passes starting with vals[j] number c2[j+1] (+ k-j-1 if doubled)
            f = c2[j + 1] + (k - j - 1 if mult[j] > 1 else 0)
            if i < f:
                break
            i -= f
            j += 1
        a = vals[j]
        if mult[j] > 1:
            if i < k - j - 1:
                return (a, a, vals[j + 1 + i])
            i -= k - j - 1
        m = j + 1
        while True:  # the middle card: pairs starting with vals[m] number k-m-1 (+1 if doubled)
            f = k - m - 1 + (mult[m] > 1)
            if i < f:
                break
            i -= f
            m += 1
        b = vals[m]
        if mult[m] > 1:
            if i == 0:
                return (a, b, b)
            i -= 1
        return (a, b, vals[m + 1 + i])

    def __getitem__(self, i: Any) -> Any:
        if type(i) is not int:
            if isinstance(i, slice):
                return list(self)[i]
            i = operator.index(i)
        pos = self._pos
        if pos:
            a, b, c = pos[i]  # negative indexes and IndexError as for a list
            h = self.hand
            return _PASS_FLAT[h[a] * 2704 + h[b] * 52 + h[c]]
        n = self._len
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("pass choice index out of range")
        return _PASS_TABLE[self._multiset(i)]

    def __iter__(self) -> Iterator[Action]:
        combos = combinations(self.hand, PASS_COUNT)
        if not self._pos and self._len:
            return map(_PASS_TABLE.__getitem__, dict.fromkeys(combos))
        return map(_PASS_TABLE.__getitem__, combos)

    def __contains__(self, x: object) -> bool:
        if not isinstance(x, tuple) or len(x) != 2:
            return any(a == x for a in self)  # odd objects: compare as a list would
        if x[0] != "pass":
            return False
        v = x[1]
        if not isinstance(v, tuple) or len(v) != PASS_COUNT:
            return False
        if type(v[0]) is not int or type(v[1]) is not int or type(v[2]) is not int:
            return any(a == x for a in self)
        h = self.hand
        return v[0] <= v[1] <= v[2] and all(h.count(c) >= v.count(c) for c in v)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PassChoices):
            return self.hand == other.hand or list(self) == list(other)
        if isinstance(other, list):
            return len(other) == self._len and list(self) == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __add__(self, other: object) -> list[Action]:
        if isinstance(other, (list, PassChoices)):
            return [*self, *other]
        return NotImplemented

    def __radd__(self, other: object) -> list[Action]:
        if isinstance(other, list):
            return [*other, *self]
        return NotImplemented

    def __repr__(self) -> str:
        return f"PassChoices({C.names(self.hand)}: {self._len} passes)"

    def __reduce__(self) -> tuple[Any, ...]:
        """For pickle and copy (a compiled class is not made without ``__init__``): the hand."""
        return PassChoices, (self.hand, bool(self._pos))

    # -- what collections.abc.Sequence would have mixed in
    def __reversed__(self) -> Iterator[Action]:
        return reversed(list(self))

    def index(self, value: object, start: int = 0, stop: int | None = None) -> int:
        return list(self).index(value, start, self._len if stop is None else stop)  # type: ignore[arg-type]

    def count(self, value: object) -> int:
        return list(self).count(value)  # type: ignore[arg-type]


Sequence.register(PassChoices)


def distinct_pass_choices(hand: tuple[int, ...]) -> PassChoices:
    """``PassChoices(hand, distinct=True)`` for a tuple of different cards, built without
    ``__init__``'s generality (Hearts lists its passes this way, every hand)."""
    if COMPILED:  # a compiled class cannot be made without __init__, which is fast there
        return PassChoices(hand, True)
    if not _PASS_FLAT:
        _pass_table()
    pc = _new_pass_choices(PassChoices)
    pos = _positions(len(hand))
    pc.hand = hand
    pc._pos = pos
    pc._len = len(pos)
    pc._vals = pc._mult = ()
    pc._c2 = _NO_C2
    return pc


_new_pass_choices = object.__new__
_NO_C2: Final[list[int]] = []  # shared, never modified (read only when _pos is empty and _len is not)


def pass_actions(hand: Sequence[int]) -> PassChoices:
    """Every way to pass 3 cards from the sorted ``hand`` (each multiset of cards once), as a
    lazy sequence (``PassChoices``); ``list()`` it for a list."""
    return PassChoices(hand)


def check_pass(hand: Sequence[int], value: object) -> str | None:
    """None when ``value`` is a sorted tuple of 3 cards the hand holds, else the reason."""
    if type(value) is not tuple or len(value) != PASS_COUNT:
        return f"a pass is exactly {PASS_COUNT} cards"
    for c in value:
        if type(c) is not int or not 0 <= c < 52:
            return f"not a card: {c!r}"
    if list(value) != sorted(value):
        return "the passed cards must be a sorted tuple (build the action with actions.pass_cards)"
    for c in value:
        need = value.count(c)
        have = hand.count(c)
        if have < need:
            return f"you do not hold {C.NAMES[c]}" if have == 0 else f"you hold {C.NAMES[c]} only {have} time(s)"
    return None


def direction_name(offset: int, players: int) -> str:
    """'left', 'right', 'across' or 'none' for a pass to seat ``s + offset``."""
    if offset == 0:
        return "none"
    if offset == 1:
        return "left"
    if offset == players - 1:
        return "right"
    return "across"


def moon_points(shooter: int, players: int, choice: str, moon_self: int, moon_others: int) -> list[int]:
    """The hand's points when ``shooter`` took every point card and chose ``choice``."""
    if choice == "self":
        pts = [0] * players
        pts[shooter] = moon_self
        return pts
    pts = [moon_others] * players
    pts[shooter] = 0
    return pts


def only_hearts(hand: Sequence[int]) -> bool:
    """True when every card of the sorted ``hand`` is a heart (the leader may then lead one)."""
    return bool(hand) and HEARTS_LO <= hand[0] and hand[-1] < HEARTS_HI


def may_lead_hearts(hand: Sequence[int], broken: bool) -> bool:
    """The broken-hearts rule of both games: hearts may be led once a heart or the Q♠ has
    been played, or when the leader holds nothing but hearts."""
    return broken or (bool(hand) and HEARTS_LO <= hand[0] and hand[-1] < HEARTS_HI)


def leads(hand: list[int], broken: bool) -> list[int]:
    """The cards of the sorted ``hand`` that may be led after the first trick's lead: all of
    them when hearts may be led, else every card but the hearts (the Q♠ included)."""
    if broken or (HEARTS_LO <= hand[0] and hand[-1] < HEARTS_HI):
        return hand
    lo = bisect_left(hand, HEARTS_LO)
    hi = bisect_left(hand, HEARTS_HI, lo)
    return hand[:lo] + hand[hi:]


def without_points(hand: Sequence[int]) -> list[int]:
    """The cards of ``hand`` worth no points (neither a heart nor the Q♠)."""
    return [c for c in hand if not POINTS[c]]


def plays(cards: Sequence[int]) -> list[Action]:
    """The shared play Actions of ``cards`` (sorted, repeats removed)."""
    return list(map(PLAY.__getitem__, dict.fromkeys(cards)))


def place_hidden(cards: list[int], slots: list[tuple[int, int]], allowed: list[int],
                 rng: random.Random) -> list[tuple[int, int]]:
    """For ``sample_world``: a place for every hidden card (``slots``: one (seat, 0) per free
    card of a seat's hand, (seat, 1) per card of a pass in flight, (-1, 1) per card of a
    face-down widow), each slot used once, a card in a hand only if ``allowed[seat]`` (a
    mask) has it; passes in flight and the widow take anything.

    Card by card, the most constrained first, each to a random place among those that still
    leave a placement of the rest, so it never backtracks and every consistent placement can
    come out (not uniformly). Whether the rest still fits is a flow question (the cards grouped
    by the places they may take, against the places' free slots): one placement of all the
    cards is found first (``_first_flow``) and kept up to date card by card (``_take``: a card
    that the kept placement already puts there costs nothing; otherwise one augmenting path),
    rather than solved again for every card."""
    free: dict[tuple[int, int], int] = {}
    for sl in slots:
        free[sl] = free.get(sl, 0) + 1
    places = list(free)
    n_places = len(places)
    cap = [free[sl] for sl in places]  # free slots left per place
    every_card = (1 << 52) - 1
    pmask = [every_card if where == 1 else allowed[p] for p, where in places]
    # each card's signature: the places it may take, as a bit set over ``places`` (a card
    # value's signature is worked out once: two decks hide a card twice)
    sigs: list[int] = []
    memo: dict[int, int] = {}
    for c in cards:
        if c in memo:
            sigs.append(memo[c])
            continue
        g = 0
        for j in range(n_places):
            if pmask[j] >> c & 1:
                g |= 1 << j
        memo[c] = g
        sigs.append(g)
    everywhere = (1 << n_places) - 1
    gindex: dict[int, int] = {}
    need: list[int] = []
    for g in sigs:
        if g in gindex:
            need[gindex[g]] += 1
        else:
            gindex[g] = len(need)
            need.append(1)
    gsigs = list(gindex)
    hard = 0  # cards still to place that may not go everywhere
    for g in sigs:
        if g != everywhere:
            hard += 1
    flow: list[list[int]] = []
    load = [0] * n_places
    if hard:
        flow = _first_flow(gsigs, need, cap)
        if not flow:
            raise AssertionError("no placement of the hidden cards fits what has been shown")
        for row in flow:
            for j in range(n_places):
                load[j] += row[j]
    out: list[tuple[int, int]] = [(0, 0)] * len(cards)
    # the most constrained cards first (random among equals): once they are placed the rest
    # go anywhere and need no flow check
    order = sorted(range(len(cards)), key=lambda i: (sigs[i].bit_count(), rng.random()))
    rand = rng.random
    for i in order:
        g = sigs[i]
        if g != everywhere:
            hard -= 1
        options = [j for j in range(n_places) if g >> j & 1 and cap[j]]
        # a random place among those that keep the rest placeable: drawn one at a time (a
        # place that does not keep them is struck off), so each of them is equally likely;
        # a card with one place left takes it (the placement of the rest held before it)
        while True:
            if not options:  # pragma: no cover - the rest fitted before this card
                raise AssertionError("placement lost its way")
            k = int(rand() * len(options))
            j = options[k]
            cap[j] -= 1
            if not hard:  # the rest may go anywhere: any spare slot will do
                out[i] = places[j]
                break
            if _take(flow, load, cap, gsigs, gindex[g], j):
                out[i] = places[j]
                break
            if len(options) == 1:  # pragma: no cover - the kept placement had it there
                raise AssertionError("placement lost its way")
            cap[j] += 1
            options[k] = options[-1]
            options.pop()
    return out


def _first_flow(gsigs: list[int], need: list[int], cap: list[int]) -> list[list[int]]:
    """A placement of every card (``place_hidden``): units of each group (cards with the
    signature ``gsigs[i]``, ``need[i]`` of them) per place, within the places' ``cap``; [] when
    none exists. Bipartite flow, groups to places: each augmenting path, found breadth-first,
    carries as many cards as it can."""
    n_groups, n_places = len(gsigs), len(cap)
    need = need[:]
    left = cap[:]
    reach = [[j for j in range(n_places) if g >> j & 1] for g in gsigs]
    flow = [[0] * n_places for _ in gsigs]
    for i in range(n_groups):
        while need[i]:
            # from group i: group -> a place it may take; place -> a group with cards there
            # (they may move on to another of that group's places)
            ppar = [-1] * n_places  # the group a place was reached from
            gpar = [-2] * n_groups  # the place a group was reached through (-1: the start)
            gpar[i] = -1
            frontier = [i]
            end = -1
            while frontier and end < 0:
                nxt: list[int] = []
                for k in frontier:
                    for j in reach[k]:
                        if ppar[j] >= 0:
                            continue
                        ppar[j] = k
                        if left[j] > 0:
                            end = j
                            break
                        for k2 in range(n_groups):
                            if gpar[k2] == -2 and flow[k2][j]:
                                gpar[k2] = j
                                nxt.append(k2)
                    if end >= 0:
                        break
                frontier = nxt
            if end < 0:
                return []
            b = min(need[i], left[end])
            k = ppar[end]
            while k != i:
                b = min(b, flow[k][gpar[k]])
                k = ppar[gpar[k]]
            j = end
            k = ppar[j]
            while True:
                flow[k][j] += b
                if k == i:
                    break
                j = gpar[k]
                flow[k][j] -= b
                k = ppar[j]
            left[end] -= b
            need[i] -= b
    return flow


def _take(flow: list[list[int]], load: list[int], cap: list[int], gsigs: list[int], gi: int, j: int) -> bool:
    """``place_hidden``'s check that the cards still to place fit once a card of group ``gi``
    takes a slot of place ``j`` (``cap[j]`` already lowered): the kept placement ``flow``
    (units per group and place; ``load`` the units per place) is changed to one without that
    card that fits the lowered ``cap``, or left as it was and False returned when none exists.
    One unit of ``gi`` leaves the placement (from ``j`` itself when it has one there); if ``j``
    is then over its slots, one of its units moves along an augmenting path (a group with a unit
    at an over-full place moves it to another place it may take, until a place with a spare
    slot): by max-flow/min-cut the rest fits exactly when such a path exists."""
    row = flow[gi]
    if row[j]:
        row[j] -= 1
        load[j] -= 1
        return True
    n_places = len(cap)
    src = 0
    while not row[src]:
        src += 1
    row[src] -= 1
    load[src] -= 1
    if load[j] <= cap[j]:
        return True
    # breadth-first from place j: place -> a group with a unit there -> another place it may take
    n_groups = len(gsigs)
    pfrom = [-1] * n_places  # the group that moves a unit into a place
    pprev = [-1] * n_places  # the place that unit comes from
    seen = [False] * n_places
    seen[j] = True
    frontier = [j]
    end = -1
    while frontier and end < 0:
        nxt: list[int] = []
        for p in frontier:
            for k in range(n_groups):
                if not flow[k][p]:
                    continue
                g = gsigs[k]
                for q in range(n_places):
                    if seen[q] or not g >> q & 1:
                        continue
                    seen[q] = True
                    pfrom[q] = k
                    pprev[q] = p
                    if load[q] < cap[q]:
                        end = q
                        break
                    nxt.append(q)
                if end >= 0:
                    break
            if end >= 0:
                break
        frontier = nxt
    if end < 0:
        row[src] += 1
        load[src] += 1
        return False
    q = end
    while q != j:
        k = pfrom[q]
        p = pprev[q]
        flow[k][q] += 1
        flow[k][p] -= 1
        q = p
    load[end] += 1
    load[j] -= 1
    return True


class HeartsFamilyState(GameState):
    """Passing, the moon choice and the shared per-hand fields of both Hearts games.

    Per-hand fields (plain lists and ints, so the base ``_clone`` copies them): the hands
    (see the hooks below), ``passes`` (the 3 cards each seat passed, () until
    it has), ``received`` (what each seat got, known once everyone has passed), ``pass_offset``
    (pass to seat s + offset; 0 = no pass), ``trick`` (cards of the trick in progress, the
    leader's first), ``leader``, ``led`` (suit of the trick, -1 when empty), ``broken``,
    ``tricks_played``, ``tricks_taken`` and ``points_taken`` per seat, ``tricks`` (history:
    (leader, cards, winner or -1) per finished trick), ``moon_shooter`` (-1 if none) and
    ``turn_t`` (the seats on turn).
    """

    MOON_TOTAL: ClassVar[int] = 26  # points a moon shooter has taken (every point card)
    moon_shooter: int = -1  # the seat that took every point card this hand (an instance field only then)
    __deletable__ = ["moon_shooter"]  # for mypyc (the compiled build): ``del`` it in _reset_hand

    @property
    def tricks_played(self) -> int:
        """Tricks finished this hand (a property, not a field: see GameState.bags)."""
        return len(self.tricks)

    hands: list[list[int]]
    passes: list[tuple[int, ...]]
    received: list[tuple[int, ...]]
    trick: list[int]
    tricks: list[tuple[int, tuple[int, ...], int]]
    tricks_taken: list[int]
    points_taken: list[int]
    turn_t: tuple[int, ...]

    # ------------------------------------------------------------------ hooks for the two games
    def _pass_offsets(self) -> tuple[int, ...]:
        """The passing cycle as seat offsets (hand 1 uses the first); 0 means no pass."""
        raise NotImplementedError

    def _begin_play(self) -> None:
        """After passing (or without it): set the first leader, phase 'play' and the turn."""
        raise NotImplementedError

    def _extra_points(self) -> list[int]:
        """Points added to every hand's score regardless of the moon (Hearts' omnibus)."""
        return [0] * self.n

    # -- where the hands are kept: Cancellation Hearts in sorted lists (``hands``, a card may
    # be held twice), Hearts in 52-bit masks (``masks``, see masks.py); these hooks are all
    # the shared machinery needs of them.
    def _reset_holdings(self) -> None:
        """Empty hands (before a deal)."""
        self.hands = [[] for _ in range(self.n)]

    def _hand_of(self, seat: int) -> list[int]:
        """The sorted cards of ``seat`` (a new list)."""
        return self.hands[seat][:]

    def _hand_size(self, seat: int) -> int:
        return len(self.hands[seat])

    def _holds_each(self, seat: int, a: int, b: int, c: int) -> bool:
        """True when ``seat`` holds the three different cards ``a``, ``b`` and ``c``."""
        h = self.hands[seat]
        return a in h and b in h and c in h

    def _remove_cards(self, seat: int, cards: tuple[int, ...]) -> None:
        hand = self.hands[seat]
        for c in cards:
            hand.remove(c)

    def _add_cards(self, seat: int, cards: tuple[int, ...]) -> None:
        hand = self.hands[seat]
        for c in cards:
            insort(hand, c)

    # ------------------------------------------------------------------ shared machinery
    def _reset_hand(self) -> None:
        n = self.n
        self._reset_holdings()
        self.passes = [() for _ in range(n)]
        self.received = [() for _ in range(n)]
        self.pass_offset = 0
        self.trick = []
        self.leader = 0
        self.led = -1
        self.broken = False
        self.tricks_taken = [0] * n
        self.points_taken = [0] * n
        self.tricks = []
        if self.moon_shooter >= 0:  # back to the class default (no instance field, see GameState.bags)
            if COMPILED:  # a compiled class keeps every field in its own slot: no class default to go back to
                self.moon_shooter = -1
            else:
                del self.moon_shooter
        self.turn_t = ()

    def _start_passing(self) -> None:
        """Called by ``_deal`` once the hands are dealt: pass phase, or straight to play."""
        cycle = self._pass_offsets()
        self.pass_offset = cycle[(self.hand_number - 1) % len(cycle)]
        if self.pass_offset:
            self.phase = "pass"
            self.turn_t = ALL_SEATS[self.n]
        else:
            self._begin_play()

    def _turn(self) -> tuple[int, ...]:
        return self.turn_t

    # -- fast paths of the verbs for the play phase ---------------------------------------
    # Plays are nearly all of a hand's actions. These skip the generic checks of GameState
    # when the answer is plainly the same (the seat on turn playing a card) and defer to it
    # otherwise, so errors and edge cases behave exactly as in the base class. ``turn_t`` is
    # () whenever no seat may act (before a deal, between hands, after the game).
    def turn_seats(self) -> tuple[int, ...]:
        return self.turn_t

    def legal_actions(self, seat: int | None = None) -> Sequence[Action]:
        if self.phase == "play":
            on = self.turn_t[0]
            if seat is None or (seat == on and type(seat) is int):
                return self._legal_play(on)
        elif self.phase == "pass" and type(seat) is int and seat in self.turn_t:
            return cast(Sequence[Action], PassChoices(self._hand_of(seat), self.DECKS == 1))
        return super().legal_actions(seat)

    def apply(self, action: Action, seat: int | None = None) -> tuple[int, ...]:
        if self.phase == "play" and type(action) is Action and action[0] == "play":
            on = self.turn_t[0]
            if (seat is None or (seat == on and type(seat) is int)) and self._check_play(on, action[1]) is None:
                self.actions.append((on, action))
                self._apply_play(on, action[1])
                return self.turn_t
        elif self.phase == "pass" and type(action) is Action and action[0] == "pass" and type(seat) is int:
            # the plain pass: three different cards (ints, ascending) that the seat holds
            v = action[1]
            if type(v) is tuple and len(v) == PASS_COUNT and seat in self.turn_t:
                a, b, c = v
                if (type(a) is int and type(b) is int and type(c) is int and 0 <= a < b < c < 52
                        and self._holds_each(seat, a, b, c)):
                    self.actions.append((seat, action))
                    self._apply_pass(seat, v)
                    return self.turn_t
        return super().apply(action, seat)

    def _legal_play(self, seat: int) -> Sequence[Action]:
        """The cards ``seat`` (on turn) may play now."""
        raise NotImplementedError

    def _check_play(self, seat: int, card: Any) -> str | None:
        """None when ``seat`` (on turn) may play ``card``, else the rule it breaks."""
        raise NotImplementedError

    def _apply_play(self, seat: int, card: int) -> None:
        """Play a checked card (and finish the trick, and the hand, when complete)."""
        raise NotImplementedError

    def _legal(self, seat: int) -> Sequence[Action]:
        if self.phase == "play":
            return self._legal_play(seat)
        return self._legal_setup(seat)

    def _check(self, seat: int, action: Action) -> str | None:
        if self.phase == "play":
            if action.kind != "play":
                return "it is time to play a card"
            return self._check_play(seat, action.value)
        return self._check_setup(seat, action)

    def _apply(self, seat: int, action: Action) -> None:
        if self.phase == "play":
            self._apply_play(seat, action.value)
        else:
            self._apply_setup(seat, action)

    def _legal_setup(self, seat: int) -> Sequence[Action]:
        """Legal actions outside the play phase: passes or the moon choice."""
        if self.phase == "pass":
            return cast(Sequence[Action], PassChoices(self._hand_of(seat), self.DECKS == 1))
        if self.phase == "moon":
            return list(MOON_ACTIONS)
        return []

    def _check_setup(self, seat: int, action: Action) -> str | None:
        kind = action.kind
        if self.phase == "pass":
            if kind != "pass":
                return f"everyone passes {PASS_COUNT} cards first"
            return check_pass(self._hand_of(seat), action.value)
        if self.phase == "moon":
            if kind != "moon":
                return "the moon shooter must choose \"self\" or \"others\""
            if action.value not in ("self", "others") or type(action.value) is not str:
                return f"the moon choice is \"self\" or \"others\", not {action.value!r}"
            return None
        return f"no {kind} now"

    def _apply_setup(self, seat: int, action: Action) -> None:
        if self.phase == "pass":
            self._apply_pass(seat, action.value)
        else:
            self.turn_t = ()
            self._end_hand(self._moon_result(action.value))

    def _apply_pass(self, seat: int, cards: tuple[int, ...]) -> None:
        self._remove_cards(seat, cards)
        self.passes[seat] = cards
        t = self.turn_t
        i = t.index(seat)
        waiting = t[:i] + t[i + 1:]
        self.turn_t = waiting
        if waiting:
            return
        n, off = self.n, self.pass_offset
        for s in range(n):
            to = (s + off) % n
            self.received[to] = self.passes[s]
            self._add_cards(to, self.passes[s])
        self._begin_play()

    def _finish_hand(self) -> None:
        """After the last trick: the moon choice if one seat took every point, else score."""
        pts = self.points_taken
        if self.MOON_TOTAL in pts:
            self.moon_shooter = pts.index(self.MOON_TOTAL)
            self.phase = "moon"
            self.turn_t = ONE[self.moon_shooter]
            return
        extra = self._extra_points()
        self.turn_t = ()
        self._end_hand([p + e for p, e in zip(pts, extra, strict=True)])

    def _moon_result(self, choice: str) -> list[int]:
        pts = moon_points(self.moon_shooter, self.n, choice, self.options["moon_self"], self.options["moon_others"])
        extra = self._extra_points()
        return [p + e for p, e in zip(pts, extra, strict=True)]

    # ------------------------------------------------------------------ views
    def _hand_figures(self) -> dict[str, Any]:
        """Per seat: tricks taken, and the hearts and queens of spades among the cards taken
        (cancelled tricks go with the next trick won, as ``_cards_taken`` says)."""
        got, _left = self._cards_taken()
        return {"tricks_taken": self.tricks_taken[:],
                "hearts": [sum(1 for c in cards if c // 13 == C.HEARTS) for cards in got],
                "queens": [sum(1 for c in cards if c == C.QS) for cards in got],
                "moon": self._moon_choice()}

    def _moon_choice(self) -> str | None:
        """The shooter's choice this hand ("self" or "others"), None when nobody shot the moon."""
        if self.moon_shooter < 0:  # nobody took every point card: no moon action to look for
            return None
        acts = self.actions
        i = len(acts) - 1
        while i >= 0:
            a = acts[i][1]
            if a.kind == "moon":
                return str(a.value)
            i -= 1
        return None

    def trick_log(self) -> list[dict[str, Any]]:
        """GameState.trick_log: the finished tricks (a trick whose led-suit cards all cancelled
        is won by nobody), then the trick in progress. ``cancelled``: the led-suit cards played
        twice to the trick (Cancellation Hearts' two decks; never in Hearts)."""
        n = self.n
        out: list[dict[str, Any]] = []
        rows: list[tuple[int, tuple[int, ...], int]] = list(self.tricks)
        if self.trick and self.phase == "play":
            rows.append((self.leader, tuple(self.trick), -2))
        for lead, cards, w in rows:
            led = cards[0] // 13
            twice: list[int] = sorted({c for c in cards if c // 13 == led and cards.count(c) > 1})
            seats: list[list[Any]] = []
            for i in range(len(cards)):
                seats.append([(lead + i) % n, C.NAMES[cards[i]]])
            out.append({"leader": lead, "cards": seats, "winner": w if w >= 0 else None, "done": w != -2,
                        "cancelled": C.names(twice)})
        return out

    def _trick_winning(self) -> int | None:
        """The seat whose card is taking the trick in progress (the highest of the suit led);
        None while the trick is empty."""
        trick = self.trick
        if not trick:
            return None
        led = trick[0] // 13
        best = max(range(len(trick)), key=lambda i: trick[i] if trick[i] // 13 == led else -1)
        return (self.leader + best) % self.n

    def _cards_taken(self) -> tuple[list[list[int]], list[int]]:
        """The cards each seat took this hand, from the trick history (a trick won by nobody,
        -1, waits for the next trick won), and the cards of trailing tricks nobody won.
        Cancellation Hearts adds the widow and the end of the hand."""
        got: list[list[int]] = [[] for _ in range(self.n)]
        waiting: list[int] = []
        for _lead, cards, w in self.tricks:
            waiting.extend(cards)
            if w >= 0:
                got[w].extend(waiting)
                waiting = []
        return got, waiting

    def card_locations(self) -> dict[str, list[int]] | None:
        """Hands ("hand0".."), "passing" (passed, not yet received), "trick", "taken" (won
        cards) and what each game adds ("removed"; "waiting" and "widow")."""
        if self.phase == "deal":
            return None
        out: dict[str, list[int]] = {f"hand{s}": self._hand_of(s) for s in range(self.n)}
        out["passing"] = [c for p in self.passes for c in p] if self.phase == "pass" else []
        out["trick"] = self.trick[:]
        out["taken"] = [c for _, cards, _ in self.tricks for c in cards]
        return out

    def _public_extra(self) -> dict[str, Any]:
        n = self.n
        last: list[list[Any]] = []
        last_winner: int | None = None
        if self.tricks:
            lead, cards, w = self.tricks[-1]
            last = [[(lead + i) % n, C.NAMES[c]] for i, c in enumerate(cards)]
            last_winner = None if w < 0 else w
        return {
            "trick": [[(self.leader + i) % n, C.NAMES[c]] for i, c in enumerate(self.trick)],
            "trick_winning": self._trick_winning(),
            "leader": self.leader,
            "led": None if self.led < 0 else C.SUIT_NAMES[self.led],
            "tricks_played": self.tricks_played,
            "tricks_taken": self.tricks_taken[:],
            "points_taken": self.points_taken[:],
            "last_trick": last,
            "last_trick_winner": last_winner,
            "hand_sizes": [self._hand_size(s) for s in range(n)],
            "broken": self.broken,
            "pass_direction": direction_name(self.pass_offset, n),
            "passed": [s for s in range(n) if self.passes[s]] if self.pass_offset else [],
            "moon_shooter": None if self.moon_shooter < 0 else self.moon_shooter,
        }

    def _private_extra(self, seat: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.pass_offset:
            out["pass_to"] = (seat + self.pass_offset) % self.n
            out["passed_cards"] = C.names(self.passes[seat])
            out["received_cards"] = [] if self.phase == "pass" else C.names(self.received[seat])
        return out
