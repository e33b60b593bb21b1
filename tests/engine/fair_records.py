"""Game records for the fair-dealing tests: a finished game from the referee (AutoTable), and
what a careful forger would make of it (another legal hand with its points and chain
recomputed). The verify page's browser test (tests/device) uses them too."""

from __future__ import annotations

import copy
import random

from trickref.engine import actions as A
from trickref.engine.games import game_class
from trickref.engine.referee.autotable import AutoTable, engine_bot
from trickref.engine.referee.commands import SaveRecord


def finished_record(game: str = "hearts", n: int = 4, seed: int = 1, chooser=None, **opts) -> dict:  # type: ignore[no-untyped-def]
    t = AutoTable(seed=seed, entry="mixed", chooser=chooser)
    t.run(game, n, opts or None, max_hands=3)
    return [c for c in t.commands if isinstance(c, SaveRecord)][-1].record


def double_nil_chooser(game: str = "spades-2p"):  # type: ignore[no-untyped-def]
    bot = engine_bot(game)

    def choose(state, seat, rng):  # type: ignore[no-untyped-def]
        for a in state.legal_actions(seat):
            if a.kind == "double_nil":
                return a
        return bot(state, seat, rng)

    return choose


def rewritten_last_hand(rec: dict) -> dict:
    """The record with its last hand played differently from one play on (legal all the way),
    its points and chain recomputed to fit: what a careful forger would write."""
    from trickref.engine.records import parse
    from trickref.engine.referee import chain

    r = parse(rec)
    h = len(r.hands) - 1
    game = game_class(r.game)
    bot = engine_bot(r.game)
    for start in range(len(r.hands[h][1]) - 8, 0, -1):
        state = game(len(r.players), r.options, r.first_dealer, r.players)
        for deck, acts in r.hands[:h]:
            state.start_hand(deck)
            for s, act in acts:
                state.apply(act, s)
        deck, acts = r.hands[h]
        state.start_hand(deck)
        for s, act in acts[:start]:
            state.apply(act, s)
        seat, was = acts[start]
        other = [x for x in state.legal_actions(seat) if x != was]
        if not other:
            continue
        new = list(acts[:start]) + [(seat, other[0])]
        state.apply(other[0], seat)
        rng = random.Random(5)
        while len(state.hand_results) <= h:
            s = state.turn_seats()[0]
            act = bot(state, s, rng)
            state.apply(act, s)
            new.append((s, act))
        out = copy.deepcopy(rec)
        hand = out["hands"][h]
        hand["actions"] = [A.to_record(s, x) for s, x in new]
        hand["points"] = list(state.hand_results[h]["points"])
        before = rec["hands"][h - 1]["chain"]
        hand["chain"] = chain.hand_head(before, hand["commitment"], new, hand["points"])
        return out
    raise AssertionError("no other legal play found")
