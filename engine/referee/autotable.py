"""A scripted table for a Referee: an ideal dealer, seeded shuffles and bots in every seat.

Pure (no I/O), so tests and benchmarks can run whole games through the referee exactly as the
host would: every dealer command is answered at once (``DealDone`` / ``DealerDone`` with the
card due), every ``NeedShuffle`` by a seeded ``make_shuffle``, and the seats on turn act the
way a real table would enter their choice: bids and the moon by stepping the panel's minus/plus
and OK, draws by + and -, plays and passes and the Double Nil give by feeding the cards through
the reader (``entry="reader"``), or everything on the touchscreen (``"touch"``) or as bot
actions (``"bot"``). ``"mixed"`` varies the entry route with the seat.

``events`` keeps every event fed, in order: replaying it into a fresh Referee must give an
equal referee (the journal's promise).
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from typing import Any

from .. import actions as A
from .. import cards as C
from ..base import GameState
from . import panel
from .commands import Command, DealerCommand, DealPlan, NeedShuffle, V1Step
from .events import (
    BotAction,
    Button,
    CardRead,
    DealDone,
    DealerDone,
    Event,
    NewGame,
    Touch,
    make_shuffle,
)
from .referee import Referee

Chooser = Callable[[GameState, int, random.Random], A.Action]


def ideal_outcome(cmd: DealerCommand) -> Event:
    """The one ideal dealer: every step done at once, as planned (a deal checks out, a step
    that reads a card reads the card due). AutoTable answers with it, and so does the table
    host's instant mode (device.table.host.IdealDealer)."""
    if isinstance(cmd, DealPlan):
        return DealDone(cmd.deal_id, True)
    if isinstance(cmd, V1Step):
        return DealerDone(cmd.step, cmd.args.get("expect"))
    return DealerDone(cmd.step, getattr(cmd, "card", None))


def random_chooser(state: GameState, seat: int, rng: random.Random) -> A.Action:
    return rng.choice(state.legal_actions(seat))


def engine_bot(game: str) -> Chooser:
    """The game's bot from engine.bots, or a random legal action if none is installed."""
    try:
        from ..bots import bot_for

        bot = bot_for(game)
    except (ImportError, AttributeError):
        return random_chooser
    return bot.choose


class AutoTable:
    def __init__(self, seed: int = 0, entry: str = "mixed", chooser: Chooser | None = None,
                 referee: Referee | None = None) -> None:
        self.ref = referee or Referee()
        self.rng = random.Random(seed)
        self.shuffle_rng = random.Random(seed * 7919 + 1)
        self.entry = entry
        self.chooser = chooser
        self.events: list[Event] = []
        self.commands: list[Command] = []
        self.queue: deque[Event] = deque()
        self.hands_started = 0
        self.max_hands: int | None = None

    def feed(self, event: Event) -> list[Command]:
        self.events.append(event)
        out = self.ref.handle(event)
        self.commands.extend(out)
        for cmd in out:
            if isinstance(cmd, DealerCommand):
                self.queue.append(self._dealer_answer(cmd))
            elif isinstance(cmd, NeedShuffle):
                g = self.ref.game
                if self.max_hands is not None and g is not None and len(g.hand_results) >= self.max_hands:
                    continue
                self.queue.append(make_shuffle(cmd.decks, self.shuffle_rng))
        return out

    @staticmethod
    def _dealer_answer(cmd: DealerCommand) -> Event:
        return ideal_outcome(cmd)

    def drain(self) -> None:
        """Answer every pending dealer command and shuffle request."""
        while self.queue:
            ev = self.queue.popleft()
            if type(ev).__name__ == "Shuffled":
                self.hands_started += 1
            self.feed(ev)

    def start(self, game: str, players: int, options: dict[str, Any] | None = None, first_dealer: int = 0) -> None:
        names = tuple(f"P{i}" for i in range(players))
        if self.chooser is None:
            self.chooser = engine_bot(game)
        self.feed(NewGame(game, names, dict(options or {}), first_dealer, tuple(range(players))))
        self.drain()

    def step(self) -> bool:
        """One seat's entry (as events); False when nothing can act."""
        self.drain()
        ref = self.ref
        g = ref.game
        if g is None or not ref.accepting():
            return False
        seats = [s for s in g.turn_seats() if not ref.fed.get(s)] or list(g.turn_seats())
        seat = seats[0]
        assert self.chooser is not None
        action = self.chooser(g.copy(), seat, self.rng)
        for ev in self.entry_events(seat, action):
            self.feed(ev)
            self.drain()
        return True

    def route(self, seat: int) -> str:
        if self.entry != "mixed":
            return self.entry
        return ("reader", "touch", "bot")[seat % 3]

    def entry_events(self, seat: int, action: A.Action) -> list[Event]:
        """The events a real table produces for ``seat`` taking ``action``."""
        g = self.ref.game
        assert g is not None
        route = self.route(seat)
        k, v = action
        rec = A.to_record(seat, action)
        rec.pop("seat")
        if k in ("bid", "blind_nil", "moon"):
            if route == "touch":
                return [Touch(seat, rec)]
            if route == "bot":
                return [BotAction(seat, rec)]
            choices = panel.choice_list(g.legal_actions(seat))
            start = panel.start_index(choices)
            target = choices.index(action)
            presses: list[Event] = [Button(seat, "plus")]  # the first press shows the starting choice
            step = "plus" if target > start else "minus"
            presses += [Button(seat, step)] * abs(target - start)
            return presses + [Button(seat, "ok")]
        if k == "draw":
            return [Button(seat, "plus" if v == "keep" else "minus")] if route == "reader" else [
                (Touch if route == "touch" else BotAction)(seat, rec)]
        if k == "double_nil":
            return [Button(seat, "ok")] if route == "reader" else [(Touch if route == "touch" else BotAction)(seat, rec)]
        if route == "reader":
            if k == "play":
                return [CardRead(C.NAMES[v])]
            if k == "pass":
                if seat % 2:
                    return [CardRead(C.NAMES[c], seat) for c in v]
                return [Button(seat, "ok")] + [CardRead(C.NAMES[c]) for c in v]
            if k == "exchange":
                evs: list[Event] = [CardRead(C.NAMES[c]) for c in v[0]]
                return evs + ([Button(seat, "ok")] if len(v[0]) < 3 else [])
        return [(Touch if route == "touch" else BotAction)(seat, rec)]

    def run(self, game: str, players: int, options: dict[str, Any] | None = None,
            max_hands: int | None = None, max_steps: int = 200000) -> Referee:
        """Play until the game is over (or ``max_hands`` hands have been dealt and finished)."""
        self.max_hands = max_hands
        self.start(game, players, options)
        for _ in range(max_steps):
            g = self.ref.game
            assert g is not None
            if self.ref.waiting == "over":
                break
            if max_hands is not None and len(g.hand_results) >= max_hands and self.ref.waiting == "shuffle":
                break
            if not self.step():
                self.drain()
                if not self.ref.accepting() and not self.queue:
                    break
        return self.ref


def replay(events: list[Event]) -> Referee:
    """A fresh referee fed ``events``: what the host does with its journal."""
    ref = Referee()
    for ev in events:
        ref.handle(ev)
    return ref
