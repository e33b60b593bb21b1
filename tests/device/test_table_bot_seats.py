"""Bot seats whose cards are in the dealer's loop (``NewGame.bot_hands == "loop"``), whole games on
the referee with the ideal dealer: every pass direction, one to all-but-one bot seats, two decks.

The physical model (``Referee.places``) is checked after every event: the bots' pockets stay
empty, the loop holds exactly the bots' hands (and German Whist's stock), every release plan
reads every loop card exactly once, every bot play is fetched from the loop to the trick pocket,
and at each hand's end every card is in the trick pocket. People enter physically: plays and
passes are cards read by the reader (``CardRead``), bids panel-free touches."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from trickref.engine import actions as A
from trickref.engine import cards as C
from trickref.engine.bots import bot_for
from trickref.engine.referee.autotable import ideal_outcome
from trickref.engine.referee.commands import DealerCommand, DealPlan, Fetch, Release
from trickref.engine.referee.events import BotAction, CardRead, NewGame, Touch, make_shuffle
from trickref.engine.referee.referee import Referee

CASES = [
    ("hearts", 4, (1,), {"target": 50}),
    ("hearts", 4, (1, 2, 3), {"target": 50}),
    ("hearts", 5, (0, 3), {"target": 50}),
    ("cancellation-hearts", 6, (1, 2, 4), {"target": 100}),
    ("partnership-spades", 4, (1, 3), {"target": 200}),
    ("german-whist", 2, (0,), {"target": 7}),
]


class Table:
    def __init__(self, game: str, n: int, bots: tuple[int, ...], options: dict[str, Any], seed: int) -> None:
        self.ref = Referee()
        self.rng = random.Random(seed)
        self.bot = bot_for(game)
        self.bots = bots
        self.queue: list[Any] = []
        self.fetched: list[tuple[int, str]] = []
        self.releases = 0
        self.send(NewGame(game, tuple(f"P{i}" for i in range(n)), options, 0, bots, bot_hands="loop"))
        assert self.ref.game is not None and self.ref.loop_bots == bots

    def send(self, ev: Any) -> list[Any]:
        before = Counter(self.ref.places.at.get("loop", []))
        out = self.ref.handle(ev)
        for c in out:
            if isinstance(c, DealerCommand) and self.ref.steps and self.ref.steps[0].step == c.step:
                self.queue.append(c)
            if type(c).__name__ == "NeedShuffle":
                self.queue.append(c)
        self.check(before)
        return out

    def check(self, loop_before: Counter[int]) -> None:
        ref = self.ref
        g = ref.game
        at = ref.places.at
        if ref.waiting != "turn" or g is None:
            return
        for s in self.bots:
            assert not at.get(f"seat:{s}"), f"bot seat {s}'s pocket holds {C.names(at[f'seat:{s}'])}"

    def run_dealer(self) -> None:
        while self.queue:
            c = self.queue.pop(0)
            if type(c).__name__ == "NeedShuffle":
                self.send(make_shuffle(c.decks, self.rng))
                continue
            if isinstance(c, Release):
                loop = Counter(self.ref.places.at.get("loop", []))
                assert Counter(C.parse(n) for n, _ in c.plan) == loop, "a release reads every loop card once"
                self.releases += 1
            if isinstance(c, DealPlan):
                g = self.ref.game
                to_loop = Counter(C.parse(n) for n, t in c.plan if t == "loop")
                want = Counter(x for s in self.bots for x in g.hand_of(s))
                if g.GAME_ID == "german-whist":
                    want.update(g.deck[26:])
                assert to_loop == want
            if isinstance(c, Fetch):
                self.fetched.append((C.parse(c.card), c.target))
            self.send(ideal_outcome(c))

    def step(self) -> None:
        self.run_dealer()
        ref, g = self.ref, self.ref.game
        if ref.waiting != "turn":
            return
        seats = [s for s in g.turn_seats() if s not in ref.given]
        seat = seats[0]
        action = self.bot.choose(g.copy(), seat, self.rng)
        if seat in self.bots:
            n = len(self.fetched)
            hand = g.hand_number
            self.send(BotAction(seat, _rec(seat, action)))
            if action.kind == "play":
                last = ref.waiting != "turn"  # the hand's last card: the trick pocket is checked at the end
                if not last:
                    self.run_dealer()
                    assert ref.game.hand_number == hand
                    assert action.value in ref.places.at.get("trick", [])
                assert self.fetched[n:n + 1] == [(action.value, "trick")] or last
        elif action.kind == "play":
            self.send(CardRead(C.NAMES[action.value], seat))
        elif action.kind == "pass":
            for c in action.value:
                self.send(CardRead(C.NAMES[c], seat))
                self.run_dealer()
        else:
            self.send(Touch(seat, _rec(seat, action)))


def _rec(seat: int, action: A.Action) -> dict[str, Any]:
    rec = A.to_record(seat, action)
    rec.pop("seat")
    return rec


@pytest.mark.parametrize("game,n,bots,options", CASES, ids=[f"{c[0]}-{c[1]}-{len(c[2])}bots" for c in CASES])
def test_whole_games_with_bot_hands_in_the_loop(game: str, n: int, bots: tuple[int, ...], options: dict[str, Any]) -> None:
    t = Table(game, n, bots, options, seed=11)
    ref = t.ref
    hands_seen = 0
    for _ in range(20000):
        if ref.waiting == "over":
            break
        t.step()
        if ref.waiting in ("shuffle", "over"):
            t.queue = [c for c in t.queue if type(c).__name__ != "NeedShuffle"] + \
                [c for c in t.queue if type(c).__name__ == "NeedShuffle"]
            while t.queue and type(t.queue[0]).__name__ != "NeedShuffle":  # the last card's fetch
                c = t.queue.pop(0)
                if isinstance(c, Fetch):
                    t.fetched.append((C.parse(c.card), c.target))
                t.send(ideal_outcome(c))
            # the hand just ended: every card is in the trick pocket (Hearts' removed cards in the
            # reject pocket, Cancellation Hearts' widow taken), nothing left in the loop
            at = ref.places.at
            assert not at.get("loop"), C.names(at.get("loop", []))
            assert not any(at.get(f"seat:{s}") for s in range(n))
            hands_seen += 1
            t.run_dealer()
    assert ref.waiting == "over", ref.waiting_text()
    assert hands_seen >= 1
    g = ref.game
    plays = sum(1 for _deck, acts in g.finished_hands for s, a in acts if a.kind == "play" and s in bots)
    assert Counter(card for card, target in t.fetched if target == "trick").total() == plays
    if game in ("hearts", "cancellation-hearts") and len(g.finished_hands) > 1:
        assert t.releases >= 1
