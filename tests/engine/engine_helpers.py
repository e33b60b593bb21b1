"""Shared helpers of the engine tests (imported as `engine_helpers`: a module named `conftest`
would clash with tests/ui/conftest.py when both folders run in one session): loading games while they are being written, random
deck orders, a random legal player, and the facts of RULES.md the cross-game tests check
(hand sizes, tricks per hand, publicly known cards)."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from typing import Any

from hypothesis import HealthCheck, settings

from trickref.engine import cards as C
from trickref.engine.actions import Action
from trickref.engine.base import GameState
from trickref.engine.games import GAME_IDS, game_class
from trickref.engine.options import SPECS

settings.register_profile(
    "default", max_examples=8, derandomize=True, deadline=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "thorough", max_examples=200, deadline=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# Cards each seat holds when trick play starts, and tricks per hand (RULES.md).
HAND_SIZE: dict[str, dict[int, int]] = {
    "spades-2p": {2: 13},
    "cancellation-hearts": {6: 17, 7: 14, 8: 13, 9: 11, 10: 10, 11: 9},
    "german-whist": {2: 13},
    "partnership-spades": {4: 13},
    "hearts": {3: 17, 4: 13, 5: 10, 6: 8, 7: 7},
}
TRICKS: dict[str, dict[int, int]] = {g: dict(v) for g, v in HAND_SIZE.items()}
TRICKS["german-whist"] = {2: 26}

HEARTS_REMOVED: dict[int, list[str]] = {
    3: ["2D"], 4: [], 5: ["2D", "2C"], 6: ["2D", "3D", "3C", "4C"], 7: ["2D", "3D", "3C"],
}


def load_class(game: str) -> type[GameState]:
    """The game's class. A game module that does not import fails the test that needs it (it
    was once a skip, while the modules were being written: a broken module then hid as skipped
    property tests)."""
    return game_class(game)


def game_player_counts() -> Iterator[tuple[str, int]]:
    """Every (game, player count) of RULES.md, whether or not the module exists yet."""
    for g in GAME_IDS:
        for n in HAND_SIZE.get(g, {}):
            yield g, n


def random_deck(rng: random.Random, decks: int) -> list[int]:
    d = C.full_deck(decks)
    rng.shuffle(d)
    return d


def random_options(game: str, rng: random.Random) -> dict[str, Any]:
    """Random values for the choice and bool options; the lowest target, so games end."""
    out: dict[str, Any] = {}
    for spec in SPECS[game]:
        if spec.kind == "bool":
            out[spec.name] = rng.random() < 0.5
        elif spec.kind == "choice":
            out[spec.name] = rng.choice(spec.choices)
        elif spec.name == "target":
            out["target"] = max(spec.minimum or 1, min(spec.presets or (spec.default,)))
    return out


def random_action(state: GameState, rng: random.Random) -> tuple[int, Action]:
    """A uniformly random legal (seat, action); a Double Nil exchange's ``get`` is drawn at
    random from the discard pile, as the referee does."""
    seat = rng.choice(state.turn_seats())
    legal = state.legal_actions(seat)
    action = rng.choice(legal)
    if action.kind == "exchange":
        give, _ = action.value
        pile = list(getattr(state, "discards"))  # noqa: B009 - spades-2p only
        get = tuple(sorted(rng.sample(pile, len(give))))
        action = Action("exchange", (tuple(sorted(give)), get))
    return seat, action


def plays_this_hand(state: GameState) -> list[int]:
    return [a.value for _, a in state.actions if a.kind == "play"]


def card_names_in(obj: object, skip: tuple[str, ...] = ("options", "names")) -> list[str]:
    """Every string in a view that is a canonical card name ('QS'), outside ``skip`` keys."""
    found: list[str] = []

    def walk(o: object) -> None:
        if isinstance(o, str):
            if len(o) == 2 and o in _NAME_SET:
                found.append(o)
        elif isinstance(o, dict):
            for k, v in o.items():
                if k not in skip:
                    walk(k)
                    walk(v)
        elif isinstance(o, (list, tuple)):
            for v in o:
                walk(v)

    walk(obj)
    return found


_NAME_SET = frozenset(C.NAMES)


def publicly_known(state: GameState) -> set[int]:
    """Cards everybody at the table may know now (RULES.md): the cards played this hand, the
    removed cards of hearts and German Whist's face-up stock cards (taken or showing). The
    cancellation-hearts widow stays face down (only its taker sees it)."""
    known = set(plays_this_hand(state))
    g, n = state.GAME_ID, state.n
    if g == "hearts":
        known |= {C.parse(x) for x in HEARTS_REMOVED[n]}
    elif g == "german-whist" and state.deck:
        done = len(plays_this_hand(state)) // 2
        for t in range(min(done, 12) + 1):
            known.add(state.deck[26 + 2 * t])
    return known


# ---------------------------------------------------------------------------- positions
# Tests build positions through the public API (``start_hand`` with a chosen deck order, then
# ``apply``). Two helpers cover what that cannot reach directly:


def put_hand(state: GameState, seat: int, cards: list[int]) -> None:
    """Whitebox, for bot tests that set up one seat's decision: make ``seat`` hold exactly
    ``cards`` now, whichever way the game keeps its hands (52-bit masks in ``masks`` for the
    one-deck games that use them; ``once``/``twice`` masks in Cancellation Hearts; sorted
    lists in ``hands`` otherwise). This is the one place the tests write a hand; the state is
    not checked for consistency afterwards (the other hands keep their cards), so use it only
    for a decision that reads the seat's own hand."""
    from trickref.engine.masks import BIT, mask_of

    # getattr, not __dict__: the compiled engine's states have none (a field a game does not
    # use reads as missing there too)
    masks, once_l, twice_l = (getattr(state, k, None) for k in ("masks", "once", "twice"))
    if isinstance(masks, list):
        masks[seat] = mask_of(cards)
    elif isinstance(once_l, list) and isinstance(twice_l, list):
        once = twice = 0
        for c in cards:
            if once & BIT[c]:
                twice |= BIT[c]
            else:
                once |= BIT[c]
        once_l[seat], twice_l[seat] = once, twice
    else:
        getattr(state, "hands")[seat] = sorted(cards)  # noqa: B009


def scrambled(state: GameState, seat: int, rng: random.Random, tries: int = 8) -> GameState:
    """Another state of the same game that ``seat`` cannot tell from ``state``, built through
    the public API: the game record (``to_json``) with two cards of the current hand's deck
    swapped, replayed (``from_json``). A swap is kept when the record still replays (every
    action stays legal) and ``view(seat)`` is unchanged, so only cards hidden from ``seat``
    move, with every void shown and every public fact kept. ``tries`` swaps of two different
    cards of one suit (and the same points in the Hearts games), neither named anywhere in the
    seat's view, are attempted."""
    from trickref.engine.hearts_common import POINTS

    rec = state.to_json()
    want = state.view(seat)
    deck = list(rec["hands"][-1]["deck"])
    seen = set(card_names_in(want))
    hidden = [i for i, x in enumerate(deck) if x not in seen]  # cards the seat has not seen
    out = state
    for _ in range(tries if len(hidden) > 1 else 0):
        i = rng.choice(hidden)
        a = C.parse(deck[i])
        like = [j for j in hidden if (b := C.parse(deck[j])) != a and b // 13 == a // 13 and POINTS[b] == POINTS[a]]
        if not like:
            continue
        j = rng.choice(like)
        trial = deck[:]
        trial[i], trial[j] = trial[j], trial[i]
        rec["hands"][-1]["deck"] = trial
        try:
            other = GameState.from_json(rec)
        except ValueError:  # an action became illegal (IllegalAction or RecordError)
            continue
        if other.view(seat) != want:
            continue
        deck, out = trial, other
    return out


def assert_same_in_the_other_build(module: str, mine: Any) -> None:
    """The search cores are compiled with the engine: run ``module.digest()`` (a test module in
    this folder) in a child on the other build (compiled or pure Python) and compare it with
    ``mine``, this build's digest. Skips only when the other build is not installed here."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    import pytest

    from trickref.engine import ENGINE_BUILD

    here = Path(__file__).resolve().parent
    env = dict(os.environ)
    if ENGINE_BUILD == "compiled":
        env["TRICKREF_PURE_PYTHON"] = "1"
    else:
        env.pop("TRICKREF_PURE_PYTHON", None)
    code = (f"import json, sys; sys.path.insert(0, sys.argv[1]); import {module} as t; "
            "from trickref.engine import ENGINE_BUILD; print(json.dumps([ENGINE_BUILD, t.digest()]))")
    r = subprocess.run([sys.executable, "-c", code, str(here)], env=env, capture_output=True, text=True,
                       timeout=240, cwd=here)
    assert r.returncode == 0, r.stderr[-3000:]
    ran, theirs = json.loads(r.stdout)
    if ran == ENGINE_BUILD:
        pytest.skip(f"only the {ENGINE_BUILD} build is installed here")
    assert json.loads(json.dumps(mine)) == theirs
