"""Determinization for German Whist and both Spades games: ``sample_world(state, seat, rng)``.

A *world* is a full state of the same game that ``seat`` cannot tell from the real one: the
same ``view(seat)``, every card ``seat`` has not seen put at random among the places it may
be, consistently with everything ``seat`` knows and nothing else. Search bots play their
determinized searches in such worlds (engine/bots/search.py). The games' ``sample_world``
methods are one-line delegations to the functions here (the Hearts games keep their own, in
engine/hearts.py and engine/cancellation_hearts.py).

What each seat knows (RULES.md), and so what a world keeps:

- every game: its own hand, every card played, the bids, and what the rules make a play
  reveal: a suit not followed (a void), a trump led before trumps were broken (the leader held
  only trumps) and, in partnership-spades with ``must_beat``, a card that did not beat the
  winning card (no higher card of the suit led), a void that did not trump (no trump) or did
  not over-trump (no higher trump);
- partnership-spades: the Blind Nil cards it passed (with its partner until played) and
  received; the passes it took no part in are drawn again;
- german-whist: the face-up stock cards and who took them, the cards it drew face down, the
  face-up card now; a void shown in stage one lasts only until the player draws again, so the
  opponent's face-down cards are placed by the trick after which they were drawn;
- spades-2p: both cards of each of its own draw turns (the one kept and the one discarded),
  the card it is shown now, its own Double Nil exchange, and how many cards the opponent
  exchanged: the cards the opponent may have taken from the discard pile include the ones
  this seat saw go there.

Each world is built like ``GameState.undo``: from the snapshot before this hand's deal, a
deck order that deals the sampled holdings, and the hand's actions replayed (the actions of
other seats that moved hidden cards, a pass or an exchange, replaced by sampled ones), so it
is a legal state of the game in every respect (its record replays to it). Every consistent
holding can come out: the hidden cards are placed one at a time, the most constrained first,
each at random among the places that still leave a placement for the rest (a Hall-condition
check over card groups, or a greedy interval matching for German Whist's draw times). The
draw is close to, but not exactly, uniform over the consistent holdings.

Only what the seat may know is read: its own hand and private fields, public fields, and
deck positions the seat has seen (its own draw turns in spades-2p, the face-up stock cards in
German Whist). ``tests/engine/test_sample_world_tricks.py`` checks it: two states the seat
cannot tell apart give the same worlds for the same random numbers.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Sequence
from typing import Any, TypeVar, cast

from .actions import Action, exchange, pass_cards
from .base import GameState
from .masks import ALL_CARDS, BIT, SUIT_MASK, cards_of, mask_of

# The games' states are typed ``Any`` here: this module must not import the game modules
# (they import it, and tests/engine/test_import_cycles.py counts type-only imports too).
S = TypeVar("S", bound=GameState)

__all__ = ["place", "rebuild", "sample_german_whist", "sample_partnership_spades", "sample_spades_2p",
           "spades_play_limits"]


# ---------------------------------------------------------------------- placing hidden cards


def _hall_ok(counts: dict[int, int], caps: list[int]) -> bool:
    """True when every card (``counts``: how many cards may go to each set of groups, a bit
    set) fits the groups' spare capacities ``caps``: Hall's condition, every union of groups
    holds at least the cards that may go nowhere else."""
    g = len(caps)
    full = (1 << g) - 1
    cap_of = [0] * (1 << g)
    for t in range(1, 1 << g):
        low = t & -t
        cap_of[t] = cap_of[t ^ low] + caps[low.bit_length() - 1]
    sigs = [(s, n) for s, n in counts.items() if n]
    for s, _ in sigs:
        if s == 0:
            return False
    for t in range(1, full + 1):
        need = 0
        for s, n in sigs:
            if not s & ~t:
                need += n
        if need > cap_of[t]:
            return False
    return True


def place(cards: Sequence[int], allowed: Sequence[int], caps: Sequence[int], rng: random.Random,
          favour: Sequence[tuple[int, float]] | None = None) -> list[int]:
    """A group for each card: ``allowed[g]`` is the mask of cards group ``g`` may take and
    ``caps[g]`` how many it takes (``sum(caps) == len(cards)``). Each feasible placement can
    come out; unconstrained cards are placed uniformly, unless ``favour[g] = (mask, factor)``
    makes the cards of ``mask`` ``factor`` times likelier to go to group ``g`` (a prior: see
    ``sample_spades_2p``). Raises ValueError when none fits (the position contradicts
    itself)."""
    caps = list(caps)
    if sum(caps) != len(cards):
        raise ValueError(f"{len(cards)} hidden cards for {sum(caps)} places")
    g = len(caps)
    full = (1 << g) - 1
    sigs = []
    for c in cards:
        s = 0
        for j in range(g):
            if allowed[j] >> c & 1:
                s |= 1 << j
        sigs.append(s)
    counts: dict[int, int] = {}
    for s in sigs:
        counts[s] = counts.get(s, 0) + 1
    if not _hall_ok(counts, caps):
        raise ValueError("no placement of the hidden cards fits what the seat has seen")
    out = [0] * len(cards)
    constrained = [i for i in range(len(cards)) if sigs[i] != full]
    constrained.sort(key=lambda i: (sigs[i].bit_count(), rng.random()))
    for i in constrained:
        s = sigs[i]
        counts[s] -= 1
        options = [j for j in range(g) if s >> j & 1 and caps[j]]
        while True:
            # weighted by spare capacity: uniform when nothing else constrains the card
            j = _pick(options, caps, cards[i], favour, rng)
            caps[j] -= 1
            if _hall_ok(counts, caps):
                out[i] = j
                break
            caps[j] += 1
            options.remove(j)
    rest = [i for i in range(len(cards)) if sigs[i] == full]
    rng.shuffle(rest)
    if favour is not None:
        every = list(range(g))
        for i in rest:
            j = _pick([x for x in every if caps[x]], caps, cards[i], favour, rng)
            caps[j] -= 1
            out[i] = j
        return out
    k = 0
    for j in range(g):
        for i in rest[k:k + caps[j]]:
            out[i] = j
        k += caps[j]
    return out


def _pick(options: list[int], caps: list[int], card: int, favour: Sequence[tuple[int, float]] | None,
          rng: random.Random) -> int:
    """One of ``options`` (groups with spare places) for ``card``, with probability in
    proportion to its spare places (times its ``favour`` factor for the card)."""
    if favour is None:
        r = rng.randrange(sum(caps[j] for j in options))
        for j in options:
            r -= caps[j]
            if r < 0:
                return j
        return options[-1]
    ws = [caps[j] * (favour[j][1] if favour[j][0] >> card & 1 else 1.0) for j in options]
    x = rng.random() * sum(ws)
    for j, w in zip(options, ws, strict=True):
        x -= w
        if x < 0:
            return j
    return options[-1]


def _interval_ok(items: dict[tuple[int, int], int], caps: list[int]) -> bool:
    """True when every card fits: ``items[(lo, hi)]`` cards may go to any group lo..hi, group j
    takes ``caps[j]`` (greedy by earliest last group, which is optimal for intervals)."""
    by_lo: dict[int, list[tuple[int, int]]] = {}
    for (lo, hi), n in items.items():
        if n:
            if lo > hi:
                return False
            by_lo.setdefault(lo, []).append((hi, n))
    heap: list[list[int]] = []
    for j, cap in enumerate(caps):
        for hi, n in by_lo.get(j, ()):
            heapq.heappush(heap, [hi, n])
        while cap and heap:
            top = heap[0]
            if top[0] < j:
                return False
            take = min(cap, top[1])
            cap -= take
            top[1] -= take
            if not top[1]:
                heapq.heappop(heap)
        if heap and heap[0][0] <= j:
            return False
    return not heap


def place_intervals(cards: Sequence[int], spans: Sequence[tuple[int, int]], caps: Sequence[int],
                    rng: random.Random) -> list[int]:
    """Like ``place`` when each card may go to a run of groups ``spans[i] = (lo, hi)``."""
    caps = list(caps)
    if sum(caps) != len(cards):
        raise ValueError(f"{len(cards)} hidden cards for {sum(caps)} places")
    last = len(caps) - 1
    items: dict[tuple[int, int], int] = {}
    for sp in spans:
        items[sp] = items.get(sp, 0) + 1
    if not _interval_ok(items, caps):
        raise ValueError("no placement of the hidden cards fits what the seat has seen")
    out = [0] * len(cards)
    constrained = [i for i in range(len(cards)) if spans[i] != (0, last)]
    constrained.sort(key=lambda i: (spans[i][1] - spans[i][0], rng.random()))
    for i in constrained:
        lo, hi = spans[i]
        items[spans[i]] -= 1
        options = [j for j in range(lo, hi + 1) if caps[j]]
        while True:
            total = sum(caps[j] for j in options)
            r = rng.randrange(total)
            for j in options:
                r -= caps[j]
                if r < 0:
                    break
            caps[j] -= 1
            if _interval_ok(items, caps):
                out[i] = j
                break
            caps[j] += 1
            options.remove(j)
    rest = [i for i in range(len(cards)) if spans[i] == (0, last)]
    rng.shuffle(rest)
    k = 0
    for j in range(len(caps)):
        for i in rest[k:k + caps[j]]:
            out[i] = j
        k += caps[j]
    return out


def rebuild(state: S, deck: list[int], replace: dict[int, Action]) -> S:
    """``state``'s hand dealt again from ``deck`` with its actions replayed (action ``i``
    replaced by ``replace[i]`` where given), from the snapshot before the deal."""
    h = len(state.finished_hands)
    new = cast(S, state._snaps[h]._clone())
    new._snaps = state._snaps[:h]
    new.start_hand(deck)
    for i, (p, a) in enumerate(state.actions):
        new.apply(replace.get(i, a), p)
    return new


# ---------------------------------------------------------------------- trick-play knowledge


def spades_play_limits(tricks: Sequence[Sequence[tuple[int, int]]], n: int, trump: int,
                       must_beat: bool) -> list[int]:
    """For each seat, the mask of cards it may still hold given its plays (trick by trick, the
    current trick last): a suit not followed, a trump led unbroken, and with ``must_beat`` a
    card that did not head the trick, a void that did not trump or over-trump."""
    allowed = [ALL_CARDS] * n
    broken = False
    trump_mask = SUIT_MASK[trump]
    for trick in tricks:
        led = -1
        win = -1
        for p, c in trick:
            s = c // 13
            if led < 0:
                if s == trump and not broken:
                    allowed[p] &= trump_mask  # only trumps could be led
                led, win = s, c
                if s == trump:
                    broken = True
                continue
            ws = win // 13
            if s == led:
                if must_beat and ws == led and c < win:
                    allowed[p] &= ~_above(win)
            else:
                allowed[p] &= ~SUIT_MASK[led]
                if must_beat:
                    if s != trump:
                        allowed[p] &= ~trump_mask
                    elif ws == trump and c < win:
                        allowed[p] &= ~_above(win)
            if s == trump:
                broken = True
                if ws != trump or c > win:
                    win = c
            elif s == ws and c > win:
                win = c
    return allowed


def _above(card: int) -> int:
    """The cards of ``card``'s suit ranking above it."""
    s = card // 13
    return SUIT_MASK[s] & ~((1 << (card + 1)) - 1)


def _played_by(tricks: Sequence[Sequence[tuple[int, int]]], n: int) -> list[int]:
    out = [0] * n
    for t in tricks:
        for p, c in t:
            out[p] |= BIT[c]
    return out


# ---------------------------------------------------------------------- partnership-spades


def sample_partnership_spades(state: Any, seat: int, rng: random.Random) -> Any:
    """A world of partnership-spades for ``seat`` (a ``PartnershipSpadesState``)."""
    if state.phase in ("deal", "over"):
        return state.copy()
    n = 4
    partner = (seat + 2) % 4
    tricks = [*state.tricks, state.trick]
    played = _played_by(tricks, n)
    gone = 0
    for m in played:
        gone |= m
    allowed = spades_play_limits(tricks, n, state.trump, state.must_beat)
    own = state.masks[seat]
    mine = mask_of(state.passes[seat] or ())
    exchanged = state.received[seat] is not None
    fixed = [0] * n  # cards known to be in a hand
    flying_mine = 0
    if mine:
        if exchanged:
            fixed[partner] = mine & ~gone
        else:
            flying_mine = mine
    hidden = cards_of(ALL_CARDS & ~own & ~gone & ~fixed[partner] & ~flying_mine)
    groups: list[tuple[int, int]] = []  # (seat, 0: hand / 1: a pass in flight)
    masks: list[int] = []
    caps: list[int] = []
    for p in range(n):
        if p == seat:
            continue
        groups.append((p, 0))
        masks.append(allowed[p])
        caps.append(state.masks[p].bit_count() - fixed[p].bit_count())
        if state.passes[p] is not None and state.received[p] is None:
            groups.append((p, 1))
            masks.append(ALL_CARDS)
            caps.append(2)
    where = place(hidden, masks, caps, rng)
    hands = fixed[:]
    hands[seat] = own
    flying = [0] * n
    for c, j in zip(hidden, where, strict=True):
        p, kind = groups[j]
        if kind:
            flying[p] |= BIT[c]
        else:
            hands[p] |= BIT[c]
    passes: list[int] = [0] * n
    done = [False] * n
    for p in range(n):
        q = (p + 2) % 4
        if state.passes[p] is None:
            continue
        if p == seat:
            passes[p] = mine
        elif state.received[p] is None:
            passes[p] = flying[p]
        elif p == partner:
            passes[p] = mask_of(state.received[seat] or ())
        else:  # an exchange seat took no part in: drawn from what the receiver has held
            passes[p] = mask_of(rng.sample(cards_of(hands[q] | played[q]), 2))
        done[p] = state.received[p] is not None
    dealt = [0] * n
    for p in range(n):
        q = (p + 2) % 4
        dealt[p] = hands[p] | played[p] | passes[p]
        if done[p]:
            dealt[p] &= ~passes[q]
    first = (state.dealer + 1) % 4
    deck = [0] * 52
    for p in range(n):
        cs = cards_of(dealt[p])
        rng.shuffle(cs)
        deck[(p - first) % 4::4] = cs
    replace: dict[int, Action] = {}
    for i, (p, a) in enumerate(state.actions):
        if a.kind == "pass" and p != seat and not (p == partner and exchanged):
            replace[i] = pass_cards(cards_of(passes[p]))
    return rebuild(state, deck, replace)


# ---------------------------------------------------------------------- spades-2p


# Cards a spades-2p player usually keeps when shown them: spades from the five up, and queens,
# kings and aces (the rule bot's draw keeps exactly these; people keep much the same).
KEEPERS = mask_of(c for c in range(52) if (c // 13 == 0 and c % 13 >= 3) or c % 13 >= 10)


def sample_spades_2p(state: Any, seat: int, rng: random.Random, keep_bias: float = 1.0) -> Any:
    """A world of spades-2p for ``seat``. ``keep_bias`` > 1 is a prior on how the opponent
    drew (for search bots; ``sample_world`` draws without one): the cards it usually keeps
    (``KEEPERS``) are that many times likelier to be in its hand than in the discard pile or
    the stock, as they are when the opponent keeps good cards (with the rule bot's draw, about
    nine times). Every consistent holding can still come out."""
    if state.phase in ("deal", "over"):
        return state.copy()
    opp = 1 - seat
    deck = state.deck
    # the draw turns so far: (turn index, seat, kept top card?)
    turns: list[tuple[int, int, bool]] = []
    ex_at: dict[int, int] = {}  # seat -> index of its exchange action
    for i, (p, a) in enumerate(state.actions):
        if a.kind == "draw":
            turns.append((len(turns), p, a.value == "keep"))
        elif a.kind == "exchange":
            ex_at[p] = i
    seat_turn_cards = 0
    seat_discards = 0
    for t, p, keep in turns:
        if p == seat:  # both cards of its own turns: seen by this seat
            top, nxt = deck[2 * t], deck[2 * t + 1]
            seat_turn_cards |= BIT[top] | BIT[nxt]
            seat_discards |= BIT[nxt] if keep else BIT[top]
    pos = 2 * len(turns)
    shown = -1
    if state.phase == "draw" and state.on_turn == (seat,):
        shown = deck[pos]  # the card this seat is looking at
    g_s = r_s = 0
    if seat in ex_at:
        give, get = state.exchange_log[seat]
        g_s, r_s = mask_of(give), mask_of(get)
    tricks = [*state.tricks, state.trick]
    played = _played_by(tricks, 2)
    gone = played[0] | played[1]
    own = state.masks[seat]
    allowed = spades_play_limits(tricks, 2, state.trump, False)[opp]
    k = state.exchanged[opp] if opp in ex_at else 0
    seat_before = seat in ex_at and (opp not in ex_at or ex_at[seat] < ex_at[opp])
    hsize = state.masks[opp].bit_count()
    opp_turns = sum(1 for _, p, _ in turns if p == opp)
    stock_left = 52 - pos - (1 if shown >= 0 else 0)
    unseen_got = r_s & ~seat_turn_cards  # opponent's discards this seat took in its exchange
    if k == 0:
        # the seat knows every card of its own turns and where it is
        hidden = cards_of(ALL_CARDS & ~seat_turn_cards & ~r_s & ~gone & ~(BIT[shown] if shown >= 0 else 0))
        caps = [hsize, opp_turns - unseen_got.bit_count(), stock_left]
        favour = None
        if keep_bias != 1.0 and not state.double[opp]:
            favour = [(KEEPERS, keep_bias), (0, 1.0), (0, 1.0)]
        where = place(hidden, [allowed, ALL_CARDS, ALL_CARDS], caps, rng, favour)
        held = played[opp]
        pile = unseen_got
        stock: list[int] = []
        for c, j in zip(hidden, where, strict=True):
            if j == 0:
                held |= BIT[c]
            elif j == 1:
                pile |= BIT[c]
            else:
                stock.append(c)
        dealt_o, disc_o = held, pile
        give_o = get_o = 0
    else:
        # the opponent exchanged k cards: it may have taken cards this seat saw discarded
        known_pile = seat_discards
        if seat_before:
            known_pile = (known_pile & ~r_s) | g_s
        cand = ALL_CARDS & ~own & ~gone
        if not seat_before:
            cand &= ~g_s
        cand_s = cand & known_pile
        hidden = cards_of(cand)
        took_played = (played[opp] & known_pile).bit_count()
        rest_cap = len(hidden) - hsize
        options = []
        for x in range(0, min(k - took_played, hsize, cand_s.bit_count()) + 1):
            counts: dict[int, int] = {}
            for c in hidden:
                ok = allowed >> c & 1
                sig = 4 | ((1 if cand_s >> c & 1 else 2) if ok else 0)
                counts[sig] = counts.get(sig, 0) + 1
            if _hall_ok(counts, [x, hsize - x, rest_cap]):
                options.append(x)
        if not options:
            raise ValueError("no placement of the hidden cards fits what the seat has seen")
        x = rng.choice(options)
        where = place(hidden, [cand_s & allowed, ~cand_s & allowed & ALL_CARDS, ALL_CARDS],
                      [x, hsize - x, rest_cap], rng)
        h = played[opp]
        for c, j in zip(hidden, where, strict=True):
            if j < 2:
                h |= BIT[c]
        must = h & known_pile
        others = cards_of(h & ~known_pile)
        get_o = must | mask_of(rng.sample(others, k - must.bit_count()))
        pool = ALL_CARDS & ~seat_turn_cards & ~h
        if seat_before:
            pool &= ~r_s
        give_o = mask_of(rng.sample(cards_of(pool), k))
        dealt_o = (h & ~get_o) | give_o
        disc_o = ALL_CARDS & ~seat_turn_cards & ~dealt_o
        stock = []
    # the deck: this seat's turns as they were, the opponent's kept and discarded cards
    # paired at random over its turns, the stock as placed
    new = deck[:pos] + [0] * (52 - pos)
    kept_o = cards_of(dealt_o)
    rng.shuffle(kept_o)
    thrown_o = cards_of(disc_o)
    rng.shuffle(thrown_o)
    j = 0
    for t, p, keep in turns:
        if p == opp:
            kc, dc = kept_o[j], thrown_o[j]
            j += 1
            new[2 * t], new[2 * t + 1] = (kc, dc) if keep else (dc, kc)
    if pos < 52:
        rng.shuffle(stock)
        rest = ([shown] if shown >= 0 else []) + stock
        new[pos:] = rest
    replace: dict[int, Action] = {}
    if opp in ex_at:
        replace[ex_at[opp]] = exchange(cards_of(give_o), cards_of(get_o))
    world = rebuild(state, new, replace)
    return world


# ---------------------------------------------------------------------- german-whist


def sample_german_whist(state: Any, seat: int, rng: random.Random) -> Any:
    """A world of German Whist for ``seat`` (a ``GermanWhistState``)."""
    if state.phase in ("deal", "over"):
        return state.copy()
    opp = 1 - seat
    deck = state.deck
    # the plays, by trick: (trick index, seat, card), and who won each finished trick
    plays: list[tuple[int, int, int]] = []
    for i, (p, act) in enumerate(pa for pa in state.actions if pa[1].kind == "play"):
        plays.append((i // 2, p, act.value))
    done = len(state.played) // 2  # finished tricks
    winners: list[int] = []
    for t in range(done):
        (s0, c0), (s1, c1) = [(p, c) for tt, p, c in plays if tt == t]
        if c1 // 13 == c0 // 13:
            winners.append(s1 if c1 > c0 else s0)
        elif c1 // 13 == state.trump:
            winners.append(s1)
        else:
            winners.append(s0)
    stage1 = min(done, 13)
    # face-up cards (public) and the seat's own face-down draws, by stock pair
    ups = [0] * 13
    downs_own: dict[int, int] = {}
    nth = [0, 0]
    nth_down = 0
    for t in range(stage1):
        w = winners[t]
        ups[t] = state.upcards[w][nth[w]]
        nth[w] += 1
        if w == opp:
            downs_own[t] = state.drawn[seat][nth_down]
            nth_down += 1
    opp_draws = [t for t in range(stage1) if winners[t] == seat]  # tricks after which opp drew
    face_up = deck[state.stock] if state.stock < 52 else -1
    seat_played = mask_of(c for _, p, c in plays if p == seat)
    opp_plays = {c: t for t, p, c in plays if p == opp}
    up_mask = mask_of(ups[:stage1])
    dealt_s = (mask_of(state.hands[seat]) | seat_played) & ~up_mask & ~mask_of(state.drawn[seat])
    known = dealt_s | up_mask | mask_of(state.drawn[seat]) | (BIT[face_up] if face_up >= 0 else 0)
    # the opponent's voids: (trick, suit) where it did not follow
    voids: list[tuple[int, int]] = []
    lead: dict[int, int] = {}
    for t, p, c in plays:
        if t not in lead:
            lead[t] = c // 13
        elif c // 13 != lead[t] and p == opp:
            voids.append((t, lead[t]))
    # groups: 0 the opponent's dealt cards (held from trick 0), 1..d its face-down draws
    # (held from the trick after), d+1 the stock below the face-up card
    avail = [0] + [t + 1 for t in opp_draws]
    last = len(avail)
    caps = [13] + [1] * len(opp_draws) + [max(0, 51 - state.stock)]
    hidden = cards_of(ALL_CARDS & ~known)
    spans: list[tuple[int, int]] = []
    for c in hidden:
        s = c // 13
        t_play = opp_plays.get(c)
        if t_play is None:  # still held or in the stock: held past every void of its suit
            after = max((t for t, vs in voids if vs == s), default=-1)
            lo = next((j for j in range(last) if avail[j] > after), last)
            spans.append((lo, last))
        else:  # played at trick t_play: held then, and not during a void before it
            after = max((t for t, vs in voids if vs == s and t < t_play), default=-1)
            lo = next((j for j in range(last) if avail[j] > after), last)
            hi = max(j for j in range(last) if avail[j] <= t_play)
            spans.append((lo, hi))
    where = place_intervals(hidden, spans, caps, rng)
    opp_dealt: list[int] = []
    opp_down: dict[int, int] = {}
    stock: list[int] = []
    for c, j in zip(hidden, where, strict=True):
        if j == 0:
            opp_dealt.append(c)
        elif j == last:
            stock.append(c)
        else:
            opp_down[opp_draws[j - 1]] = c
    own_dealt = cards_of(dealt_s)
    rng.shuffle(own_dealt)
    rng.shuffle(opp_dealt)
    rng.shuffle(stock)
    new = [0] * 52
    nd = 1 - state.dealer
    new[0:26:2] = own_dealt if seat == nd else opp_dealt
    new[1:26:2] = opp_dealt if seat == nd else own_dealt
    for t in range(stage1):
        new[26 + 2 * t] = ups[t]
        new[27 + 2 * t] = downs_own[t] if t in downs_own else opp_down[t]
    if face_up >= 0:
        new[state.stock] = face_up
        new[state.stock + 1:] = stock
    return rebuild(state, new, {})
