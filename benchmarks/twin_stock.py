"""Stock games on the physical twin: the first-in first-out loop against the sorting hopper.

    .venv/bin/python benchmarks/dealer.py --twin-stock [--stock-hands 10] [--seed 1]

Each hand runs the unmodified firmware (firmware/main.py on firmware/board.py) on the physical
twin (device/dealer/twin.py, constants from device/dealer/physical.toml), driven frame by frame
as the referee drives it (engine/referee/flows.py): the deal plan, the stagings and FETCHes of
``after_deal_steps``/``whist_steps``/``draw_steps``, every card a player feeds back through the
play slot. Three designs, the same hands (same deck order, same gathered hopper order, same
choices): ``fifo``, the v2 loop dropping every card on the top of the stack (no splitter
answers at I2C 0x41), and ``sorter``, the sorting hopper (physical.toml [sorter]) that drops
each loop card in at its place in the plan's order, and ``sorter-next``: the same sorting hopper
with FETCH flag NEXT (hardware/PROTOCOL.md) where the referee's next step is another FETCH or a
stage (two-player Spades: the next player's card, then the stage; German Whist: the winner's
card, then the loser's; the Double Nil exchange), so the move that ejects a fetched card brings
the next one to the read window (one feed move less, its read while the other card is on the
belt). ``sorter-next-before``: the same, with the FETCH as it was before a FETCH sent the
cards it finds under its card over it (firmware FetchJob.found_under), the baseline measured in
the same run, hand for hand. ``sorter-next-pullany``: sorter-next with flag NEXT pulling the
hopper's next card even when the loop's next card is on its way round (main 955e5dc's FETCH,
the baseline of the change that stopped it). ``sorter-next-overparked``: sorter-next whose
FETCH sends the cards it finds under its card to the very top of the stack, over the parked
cards (main 1eb7f64; a Double Nil's discards). ``sorter-next-waitfall``: sorter-next whose
FETCH waits for every card falling onto the stack to land (main c08caae). ``sorter-next-feednext``:
sorter-next whose FEED of a card fed back carries flag NEXT where the referee's next step is a
FETCH (two-player Spades: the card not kept, then the next player's card; German Whist: the
trick's second play, then the winner's card; the exchange's last card given): the fed card's
eject brings the loop's next card to the read window, so that FETCH starts with its card there.
``sorter-next-feednext-draw``: the same, but only the draw's feed-backs carry the flag (the
referee up to main 5cf8347: two-player Spades' FeedBack, not German Whist's trick plays nor the
exchange's cards given), the baseline of the referee sending it everywhere. ``sorter-next-sweep``: sorter-next whose first FETCH after the deal
(the stock's first card staged) carries flag SWEEP (firmware FetchJob.sweep_route): the dealer
first reads every stock card once and sends it round over the cards not read yet, so the pairs
the blade inverted during the deal come back in order before any player waits; that FETCH's
time, to its STAGED, is the read-back, its own figure (``readback_s``), left out of the fetching.

Fetching time per hand: the mechanism time from each FETCH (to a pocket, or a staging to the
read window) to its event, summed; loop passes: cards sent round the loop meanwhile. The deal
and the cards fed back are timed apart. A loop pass of the firmware is 2 ms of mechanism time
here (the Pico's is about 1 ms; tests/device/test_twin_*.py use 1 ms).
"""

from __future__ import annotations

import importlib
import os
import random
import statistics
import time
from typing import Any

from trickref.device.dealer import twin_host as th
from trickref.engine.referee import fairness

P = th.P
LOOP, TRICK, DISCARD, HOLD = 0x85, 0x84, 0x81, 0xFE
PASS_MS = 2
SCALE: dict[str, float] = {}


_STEP = [0x5000]


def step(body: bytes) -> bytes:
    """Protocol 3: FETCH and FEED carry a step id first (firmware/steps.py)."""
    _STEP[0] = (_STEP[0] + 1) & 0xFFFF
    return P.u16(_STEP[0]) + body


class Hand:
    """One dealer on the twin and a scripted referee for it."""

    def __init__(self, sorter: bool, seed: int, seats: int = 2) -> None:
        self.next_flag = sorter and NEXT[0]  # design "sorter-next": FETCH flag NEXT where the flow allows
        scale = dict(SCALE) if sorter else {"sorter.fitted": 0}
        self.tw = th.new_twin(seats=seats, seed=seed, scale=scale)
        self.host = th.TwinHost(self.tw, pass_ms=PASS_MS)
        self.host.hello()
        self.fetch_ms = 0
        self.fetch_passes = 0
        self.stage_ms = 0
        self.feed_ms = 0
        self.fetches = 0
        self.readback_ms = 0
        self.readback_passes = 0
        self.feed_passes = 0  # loop passes while a FEED ran (the fed card's own trip round included)
        self.sweep_flag = SWEEP[0]  # design "sorter-next-sweep": the first stage carries flag SWEEP
        self.oracle_fixes = 0  # design "sorter-next-oracle": FETCHes whose model was put right
        self.bound_passes = -1  # design "sorter-next-bound": the passes no FETCH can do without
        self.draw_from = -1  # the loop passes before the first FETCH (all_passes: those since)

    @property
    def mech(self) -> Any:
        return self.tw.mech

    def _run_until(self, kinds: tuple[int, ...]) -> tuple[int, int, bytes]:
        start = len(self.host.events)
        e = self.host.until(kinds, max_ms=900_000, start=start)
        if e[1] not in (P.EV_CARD_ROUTED, P.EV_STAGED, P.EV_FEED_DONE, P.EV_DEAL_DONE):
            raise RuntimeError(f"the dealer stopped: {e}; {self.mech.log[-3:]}")
        return e

    def idle(self) -> None:
        while self.tw.fw.dealer.mech.busy():
            self.host.run(10)

    def deal(self, entries: list[tuple[int, int]]) -> int:
        t0 = self.mech.now
        end = self.host.deal(1, entries)
        short = th.deal_shortfall(end)  # a short deal is a failure named by its cards, not a figure
        if short:
            raise RuntimeError(f"the deal did not check out: {short}")
        self.idle()
        return (self.mech.now - t0) // 1000

    def fetch(self, card: int, target: int, pull: bool = False, sweep: bool = False) -> None:
        """FETCH ``card`` to ``target`` (HOLD: stage it); ``pull``: the referee's next step is a
        FETCH or a stage, so (design sorter-next) the FETCH carries flag NEXT: the move that
        ejects the card brings the loop's next card to the read window. ``sweep``: the first
        stage after the deal (design sorter-next-sweep: flag SWEEP, its time the read-back's)."""
        self.idle()
        if ORACLE[0]:
            self._tell_the_truth()
        if BOUND[0] and self.bound_passes < 0:
            self._count_the_bound()
        if self.draw_from < 0:
            self.draw_from = self.mech.passes
        t0, p0 = self.mech.now, self.mech.passes
        start = len(self.host.events)
        sweep = sweep and self.sweep_flag
        bits = (P.FETCH_NEXT if pull and self.next_flag else 0) | (P.FETCH_SWEEP if sweep else 0)
        flags = bytes((bits,)) if bits else b""
        r = self.host.command(P.FETCH, step(bytes((LOOP, card, target)) + flags))
        if r.type != P.OK:
            raise RuntimeError(f"FETCH refused: {r.body.hex()}")
        want = (P.EV_STAGED,) if target == HOLD else (P.EV_CARD_ROUTED,)
        while True:
            if target != HOLD and card in self.mech.pockets.get(target, []):
                break
            if target == HOLD and any(e[1] == P.EV_STAGED for e in self.host.events[start:]):
                break
            for e in self.host.events[start:]:
                if e[1] in (P.EV_JAM, P.EV_DOUBLE_FEED, P.EV_FAULT, P.EV_ESTOP):
                    raise RuntimeError(f"FETCH stopped: {e}; {self.mech.log[-3:]}")
            self.host.run(PASS_MS)
        if sweep:  # the read-back, to STAGED: the draw can begin (the last few cards it sent
            # round land during the first fetches; a fetch that waits for one counts the wait)
            self.readback_ms += (self.mech.now - t0) // 1000
            self.readback_passes += self.mech.passes - p0
            return
        ms = (self.mech.now - t0) // 1000
        if target == HOLD:
            self.stage_ms += ms
        else:
            self.fetch_ms += ms
            self.fetches += 1
        self.fetch_passes += self.mech.passes - p0
        del want

    def _tell_the_truth(self) -> None:
        """Design sorter-next-oracle (a bound, not a design): before each FETCH, with every card
        landed, the firmware's loop model is made the order the cards really lie in (the card in
        the read window first, then the stack from its bottom), as a FETCH that could learn the
        whole order from its reads would have it at best. The blade's errors of the cards the
        fetches send round still happen."""
        d = self.tw.fw.dealer
        if not d.sorts or not d.loop:
            return
        truth = self._true_order()
        if sorted(truth) == sorted(d.loop) and truth != d.loop:
            d.loop[:] = truth
            self.oracle_fixes += 1

    def _count_the_bound(self) -> None:
        """Design sorter-next-bound (a measurement, not a design): before the first FETCH after
        the deal the twin runs until every card has landed (so this run's figures are of a
        slightly later first FETCH), and the stack's true order gives the passes no FETCH can
        do without (stack_bound)."""
        n = 0
        while self.mech.cards and n < 10_000:
            self.host.run(10)
            n += 1
        key = self.tw.fw.dealer.loop_key
        self.bound_passes = stack_bound([key[c] for c in self._true_order()])

    def _true_order(self) -> list[int]:
        """The loop model's cards in the order they really lie on the twin: the read window's
        card, then the stack from its bottom."""
        model = set(self.tw.fw.dealer.loop)
        win = self.mech.window_card()
        return ([win.card] if win is not None and win.card in model else []) + [
            c for c in self.mech.hopper if c in model]

    def feed_back(self, card: int, seat: int, target: int, place: int | None = None, pull: bool = False,
                  draw: bool = False) -> None:
        """A player drops ``card`` from their pocket into the play slot; FEED routes it (to the
        loop: with ``place``, FEED's place byte, its place in the sorting hopper). ``pull``: the
        referee's next step is a FETCH, so (design sorter-next-feednext) the FEED carries flag
        NEXT: the fed card's eject brings the loop's next card to the read window (design
        sorter-next-feednext-draw: only a draw's feed-back, ``draw``)."""
        self.idle()
        self.mech.pockets[seat].remove(card)
        self.mech.slot.append(card)
        t0, p0 = self.mech.now, self.mech.passes
        start = len(self.host.events)
        flags = b""
        if pull and (FEEDNEXT[0] or (draw and FEEDNEXT_DRAW[0])):
            flags = bytes((0xFF if place is None else place, P.FEED_NEXT))
        elif place is not None:
            flags = bytes((place,))
        r = self.host.command(P.FEED, step(bytes((1, target)) + flags))
        if r.type != P.OK:
            raise RuntimeError(f"FEED refused: {r.body.hex()}")
        self.host.until((P.EV_FEED_DONE,), max_ms=120_000, start=start)
        self.feed_ms += (self.mech.now - t0) // 1000
        self.feed_passes += self.mech.passes - p0

    def result(self, deal_ms: int) -> dict[str, Any]:
        return {"deal_s": deal_ms / 1000, "fetch_s": self.fetch_ms / 1000, "stage_s": self.stage_ms / 1000,
                "fetching_s": (self.fetch_ms + self.stage_ms) / 1000, "fetch_passes": self.fetch_passes,
                "fetches": self.fetches, "feed_s": self.feed_ms / 1000, "feed_passes": self.feed_passes,
                **({"readback_s": self.readback_ms / 1000, "readback_passes": self.readback_passes}
                   if self.sweep_flag else {}),
                **({"oracle_fixes": self.oracle_fixes} if ORACLE[0] else {}),
                **({"bound_passes": self.bound_passes,
                    "all_passes": self.mech.passes - self.draw_from} if BOUND[0] else {})}


def stack_bound(keys: list[int]) -> int:
    """The loop passes a draw in the plan's order cannot do without, from the stack's order
    (``keys``: each card's place, the stack from its bottom, the next card fed first). Only the
    bottom card can be fed, so a card that lies under a card drawn before it is fed (read,
    sent round) at least once before it is drawn, whatever the FETCH does with it then: the
    count of such cards. The blade's errors while the fetches send cards round only add."""
    n = 0
    low = 1 << 30  # the least place over the card (the cards above it)
    for k in reversed(keys):
        if low < k:
            n += 1
        low = min(low, k)
    return n


def _orders(seed: int) -> tuple[list[int], list[int], random.Random]:
    rng = random.Random(seed)
    deck, hopper = th.shuffled(rng)  # the referee's deck order, the order the players gathered
    return deck, hopper, rng


def german_whist(sorter: bool, seed: int) -> dict[str, Any]:
    """The deal (13 + 13, the 26 of the stock round the loop), the face-up card staged, then
    13 stage-one tricks: two plays fed to the trick pocket, the face-up card FETCHed to the
    winner, the next to the loser, the new face-up card staged (flows.whist_steps)."""
    deck, hopper, rng = _orders(seed)
    h = Hand(sorter, seed)
    h.mech.hopper = list(hopper)
    deal_ms = h.deal([(c, i % 2) for i, c in enumerate(deck[:26])] + [(c, LOOP) for c in deck[26:]])
    h.fetch(deck[26], HOLD, sweep=True)
    for k in range(13):
        leader = rng.randrange(2)
        for seat in (leader, 1 - leader):
            h.feed_back(rng.choice(h.mech.pockets[seat]), seat, TRICK, pull=seat != leader)
        winner = rng.randrange(2)
        pos = 26 + 2 * k
        h.fetch(deck[pos], winner, pull=True)  # the loser's FETCH follows
        h.fetch(deck[pos + 1], 1 - winner)  # (a stage, then the trick's cards fed: no NEXT)
        if pos + 2 < 52:
            h.fetch(deck[pos + 2], HOLD)
    return h.result(deal_ms)


CANDIDATE_PLACE = 0xF0  # FEED's place byte for exchange/2's candidates: over the stock, under the other discards


def spades_2p(sorter: bool, seed: int, double_nil: bool, positions: bool = False) -> dict[str, Any]:
    """The deal (deck[0] to seat 0's pocket, the other 51 round the loop), deck[1] staged, then
    26 draw turns (flows.draw_steps): the staged second card FETCHed to the player, the card not
    kept fed back (to the loop while a Double Nil may want the discards, else to the discard
    pocket), the next player's card FETCHed and the one after it staged. With ``double_nil``:
    then the exchange, 3 cards fed to the discard pocket and 3 replacements FETCHed from the
    discards in the loop (fairness.replacements). With ``positions`` (rule exchange/2): the
    replacements are the discards at places in the pile drawn from the salt before the deal
    (fairness.exchange_positions); the referee knows them during the draw, so those three
    discards are parked with FEED's place byte under the other discards (over the stock),
    and after the draw they are the loop's bottom cards in the order they are taken."""
    deck, hopper, rng = _orders(seed)
    salt = f"{seed:032x}"
    declarer = random.Random(seed + 7).randrange(2)  # the Double Nil seat (same both rules)
    candidates = fairness.exchange_positions(salt, 0, declarer) if positions else ()
    h = Hand(sorter, seed)
    h.mech.hopper = list(hopper)
    deal_ms = h.deal([(deck[0], 0)] + [(c, LOOP) for c in deck[1:]])
    h.fetch(deck[1], HOLD, sweep=True)
    discards: list[int] = []
    for turn in range(26):
        seat, pos = turn % 2, 2 * turn
        keep = rng.random() < 0.5
        h.fetch(deck[pos + 1], seat)
        gone = deck[pos + 1] if keep else deck[pos]
        place = CANDIDATE_PLACE + candidates.index(turn) if turn in candidates else None
        h.feed_back(gone, seat, LOOP if double_nil else DISCARD, place, pull=pos + 2 < 52, draw=True)
        discards.append(gone)
        if pos + 2 < 52:
            h.fetch(deck[pos + 2], 1 - seat, pull=pos + 3 < 52)  # the stage follows
            if pos + 3 < 52:
                h.fetch(deck[pos + 3], HOLD)
    out = h.result(deal_ms)
    if double_nil:
        seat = declarer
        give = rng.sample(h.mech.pockets[seat], 3)
        f0, p0 = h.fetch_ms, h.fetch_passes
        for k, card in enumerate(give):
            h.feed_back(card, seat, DISCARD, pull=k == len(give) - 1)
        if positions:  # the bottom three, in the order drawn
            order = [discards[t] for t in candidates]
            assert sorted(order) == list(fairness.replacements_at(salt, 0, seat, discards, 3))
        else:  # the replacements in the order they lie in the loop: one trip round it at most
            get = fairness.replacements(salt, 0, seat, discards, 3)
            loop = list(h.tw.fw.dealer.loop)
            order = sorted(get, key=loop.index)
        for k, card in enumerate(order):
            h.fetch(card, seat, pull=k + 1 < len(order))
        out.update(h.result(deal_ms))
        out["exchange_s"] = (h.fetch_ms - f0) / 1000
        out["exchange_passes"] = h.fetch_passes - p0
    return out


def deal_4(sorter: bool, seed: int) -> dict[str, Any]:
    """52 cards to 4 seats (the issue's deal target: under 20 s), on the twin: from DEAL_PLAN's
    OK to DEAL_DONE and the mechanism at rest. No loop cards: the splitter plays no part."""
    rng = random.Random(seed)
    deck = list(range(52))
    rng.shuffle(deck)
    hopper = list(deck)
    rng.shuffle(hopper)
    h = Hand(sorter, seed, seats=4)
    h.mech.hopper = list(hopper)
    return {"deal_s": h.deal([(c, i % 4) for i, c in enumerate(deck)]) / 1000}


CASES = (("deal-4-seats", deal_4),
         ("german-whist", lambda s, sd: german_whist(s, sd)),
         ("spades-2p", lambda s, sd: spades_2p(s, sd, False)),
         ("spades-2p-double-nil", lambda s, sd: spades_2p(s, sd, True)),
         ("spades-2p-double-nil-positions", lambda s, sd: spades_2p(s, sd, True, positions=True)))


def median_ci(xs: list[float]) -> tuple[float, float, float]:
    """The median and a distribution-free ~90 % interval (order statistics)."""
    ys = sorted(xs)
    n = len(ys)
    k = max(0, int(n / 2 - 0.82 * n ** 0.5))
    return statistics.median(ys), ys[k], ys[n - 1 - k]


NEXT = [False]
SWEEP = [False]
FEEDNEXT = [False]
ORACLE = [False]
BOUND = [False]
FEEDNEXT_DRAW = [False]
_COMMANDS: Any = importlib.import_module("trickref.firmware.commands")
_FOUND_UNDER = _COMMANDS.FetchJob.found_under


def _found_under_before(job: Any, card: int) -> None:
    """The FETCH as it was before FetchJob.found_under (design sorter-next-before, the baseline
    measured in the same run): a card read before the wanted one goes round to its own place."""
    job.dealer.loop_take(card)
    job.dealer.loop_add(card)


def _found_under_lift6(job: Any, card: int) -> None:
    """The FETCH of main 2d94337 (design sorter-next-lift6): as now, but no card is taken to lie
    under the wanted card unread, and from the sixth card read that the model had over the
    wanted card (LIFT_TOP = 6, each counted once) those cards go to the top of the stack."""
    _found_under_top_after(job, card, lambda: getattr(job, "lifted", 0) >= 6)


def _found_under_loopfull(job: Any, card: int) -> None:
    """Design sorter-next-loopfull: no card is taken to lie under the wanted card unread (the
    cards read go to their own places, as before found_under), and only once this FETCH has
    sent round more cards than the loop held do they go to the top of the stack."""
    _found_under_top_after(job, card, lambda: job.passes >= job.held)


def _found_under_top_after(job: Any, card: int, top: Any) -> None:
    d = job.dealer
    loop, want = d.loop, job.card
    i, w = loop.index(card), (loop.index(want) if want in loop else -1)
    loop.pop(i)
    if i < w:
        d.loop_add_above(card, want)
        return
    marks = d.fetch_marks
    if not marks[card]:
        job.lifted = getattr(job, "lifted", 0) + 1
    if not top():
        marks[card] = _COMMANDS.LIFTED
        d.loop_add(card)
        return
    if not job.topping:  # (main's: every card sent to its place before, landed or not)
        job.topping = True
        j = 0
        while j < len(loop):
            if marks[loop[j]] == _COMMANDS.LIFTED:
                d.loop_top(loop.pop(j))
            else:
                j += 1
        d.board.loop_depth_again()
    j = d.loop_top(card)
    d.board.loop_depth(len(loop) - 1 - j, card)


_DESIGNS = {"sorter-next-before": _found_under_before, "sorter-next-lift6": _found_under_lift6,
            "sorter-next-loopfull": _found_under_loopfull}
_TOP_IS_NEARER = _COMMANDS.FetchJob.top_is_nearer
_ROUTE = _COMMANDS.FetchJob.route


def _never(job: Any, w: int) -> bool:
    return False


def _route_pull_any(job: Any, card: int, conf: int) -> Any:
    """Design sorter-next-pullany, the FETCH of main 955e5dc: flag NEXT pulls the hopper's next
    card into the read window even when the loop's next card is on its way round (a card read
    before the fetched one, under it); the pulled card then goes round too."""
    r = _ROUTE(job, card, conf)
    if len(r) > 3 and r[2] == "fetch" and job.pull and not r[3]:
        return (r[0], r[1], r[2], True)
    return r


def _loop_top_over_parked(d: Any, card: int) -> int:
    """Design sorter-next-overparked (main 1eb7f64): a card a FETCH sends to the top goes over
    the parked cards too (a Double Nil's discards), under only the cards sent there before."""
    loop, key, marks = d.loop, d.loop_key, d.fetch_marks
    marks[card] = _COMMANDS.TOPPED
    k = key[card]
    j = len(loop)
    while j > 0 and marks[loop[j - 1]] == _COMMANDS.TOPPED and key[loop[j - 1]] > k:
        j -= 1
    loop.insert(j, card)
    return j


def _top_is_nearer_counting_parked(job: Any, w: int) -> bool:
    """Design sorter-next-overparked: FetchJob.top_is_nearer counting the parked cards over the
    wanted card as cards the next FETCH sends round."""
    if job.lifted < _COMMANDS.LIFT_TOP or job.under:
        return False
    loop, marks = job.dealer.loop, job.dealer.fetch_marks
    over = sum(1 for j in range(w + 1, len(loop)) if not marks[loop[j]])
    return over <= job.lifted + job.again


def _never_falls_over(job: Any) -> bool:
    """Design sorter-next-waitfall (main c08caae): a FETCH waits for every card falling onto
    the stack to land, wherever it lands."""
    return False


_LOOP_TOP = _COMMANDS.Dealer.loop_top
_FALLS_OVER = _COMMANDS.FetchJob.falls_over


def _design(design: str) -> None:
    """Design sorter-next-span: the firmware's FETCH without FetchJob.top_is_nearer (the cards
    read under the wanted card go to the top only past the backstop)."""
    NEXT[0] = design.startswith("sorter-next")
    SWEEP[0] = design == "sorter-next-sweep"
    FEEDNEXT[0] = design in ("sorter-next-feednext", "sorter-next-oracle", "sorter-next-bound")
    ORACLE[0] = design == "sorter-next-oracle"
    BOUND[0] = design == "sorter-next-bound"
    FEEDNEXT_DRAW[0] = design == "sorter-next-feednext-draw"
    _COMMANDS.FetchJob.found_under = _DESIGNS.get(design, _FOUND_UNDER)
    _COMMANDS.FetchJob.top_is_nearer = {"sorter-next-span": _never,
                                         "sorter-next-overparked": _top_is_nearer_counting_parked}.get(
        design, _TOP_IS_NEARER)
    _COMMANDS.Dealer.loop_top = _loop_top_over_parked if design == "sorter-next-overparked" else _LOOP_TOP
    _COMMANDS.FetchJob.falls_over = _never_falls_over if design == "sorter-next-waitfall" else _FALLS_OVER
    _COMMANDS.FetchJob.route = _route_pull_any if design == "sorter-next-pullany" else _ROUTE


def run(hands: int, seed: int, designs: tuple[str, ...] = ("fifo", "sorter"),
        cases: tuple[str, ...] = tuple(c[0] for c in CASES[1:]), first: int = 0,
        only: tuple[int, ...] = ()) -> dict[str, Any]:
    """Every hand of a case in each design, the designs alternating (their order reversed every
    other hand), so a load that changes during the run falls on all of them alike. ``only``:
    these hands' numbers (seed*1000+n: n) instead of ``hands`` from ``first``."""
    out: dict[str, Any] = {"hands": list(only) or hands, "seed": seed, "pass_ms": PASS_MS}
    for name, fn in CASES:
        if name not in cases:
            continue
        out[name] = {}
        runs: dict[str, list[dict[str, Any]]] = {d: [] for d in designs}
        stopped: dict[str, list[dict[str, Any]]] = {d: [] for d in designs}
        loads: dict[str, list[float]] = {d: [] for d in designs}
        walls: dict[str, float] = {d: 0.0 for d in designs}
        for n, i in enumerate(only or range(first, first + hands)):
            for design in (designs if n % 2 == 0 else designs[::-1]):
                t0 = time.time()
                try:
                    _design(design)
                    r = fn(design.startswith("sorter"), seed * 1000 + i)
                    r["seed"] = seed * 1000 + i
                    runs[design].append(r)
                    print(name, design, "hand", i, r, "load", round(os.getloadavg()[0], 1), flush=True)
                except RuntimeError as e:  # the dealer stopped typed (a FAULT/JAM event): counted apart
                    stopped[design].append({"seed": seed * 1000 + i, "why": str(e)[:300]})
                    print(name, design, "hand", i, "STOPPED", str(e)[:200], flush=True)
                finally:
                    _design("sorter-next")
                walls[design] += time.time() - t0
                loads[design].append(round(os.getloadavg()[0], 1))
        for design in designs:
            row: dict[str, Any] = {"finished": len(runs[design]), "stopped": stopped[design],
                                   "load_1min": [min(loads[design]), max(loads[design])],
                                   "wall_s": round(walls[design], 1), "hands_run": runs[design]}
            for key in ("fetching_s", "fetch_s", "stage_s", "fetch_passes", "deal_s", "feed_s", "exchange_s",
                        "exchange_passes", "readback_s", "readback_passes", "bound_passes"):
                xs = [float(r[key]) for r in runs[design] if key in r]
                if xs:
                    med, lo, hi = median_ci(xs)
                    row[key] = {"median": round(med, 1), "lo": round(lo, 1), "hi": round(hi, 1),
                                "max": round(max(xs), 1)}
            out[name][design] = row
            print(name, design, len(runs[design]), "finished,", len(stopped[design]), "stopped",
                  {k: v["median"] for k, v in row.items() if isinstance(v, dict)}, "load", row["load_1min"],
                  flush=True)
    return out
