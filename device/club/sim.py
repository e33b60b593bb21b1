"""Simulated club tables: an engine referee with bots in every seat playing the hub's boards.

``DuplicateTable`` is ``engine.referee.autotable.AutoTable`` whose shuffles are the club's
decks (board ``h`` of the round for hand ``h``) with the table's own fresh salt, so the table's
own fair-dealing commitment still holds. ``play_round`` plays one round's game through a
``ClubLink`` exactly as a table host would call it: game started, every hand's end, game over.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from typing import Any

from trickref.engine.actions import Action
from trickref.engine.base import GameState
from trickref.engine.referee import fairness
from trickref.engine.referee.autotable import AutoTable
from trickref.engine.referee.commands import Command, DealerCommand, NeedShuffle
from trickref.engine.referee.events import Event, Shuffled
from trickref.engine.referee.referee import Referee

from .link import ClubLink

DeckSource = Callable[[int], list[str] | None]

# Simulated tables share one process (a real table is its own Pi). The engine's lazily built
# tables are not safe to build from several threads at once (engine/hearts_common._pass_table:
# a second thread can see it half filled), so the engine part of each step runs under one
# lock; the network part of each table stays on its own threads.
_ENGINE = threading.Lock()


class NoDeck(RuntimeError):
    pass


class DuplicateTable(AutoTable):
    def __init__(self, decks: DeckSource, seed: int = 0, entry: str = "bot") -> None:
        super().__init__(seed=seed, entry=entry)
        self.decks = decks

    def feed(self, event: Event) -> list[Command]:
        self.events.append(event)
        out = self.ref.handle(event)
        self.commands.extend(out)
        for cmd in out:
            if isinstance(cmd, DealerCommand):
                self.queue.append(self._dealer_answer(cmd))
            elif isinstance(cmd, NeedShuffle):
                g = self.ref.game
                done = len(g.hand_results) if g is not None else 0
                if self.max_hands is not None and done >= self.max_hands:
                    continue
                deck = self.decks(done)
                if deck is None:
                    raise NoDeck(f"no deck from the hub for board {done + 1}")
                self.queue.append(Shuffled(tuple(deck), fairness.new_salt()))
        return out


def play_game(decks: DeckSource, game: str, players: int, options: dict[str, Any], boards: int,
              seed: int, names: list[str] | None = None,
              on_hand: Callable[[Referee, int], None] | None = None,
              max_steps: int = 200000, noise: float = 0.3) -> Referee:
    """A game of at most ``boards`` hands; ``on_hand(referee, h)`` after hand ``h`` ends. The
    engine's bots are deterministic, so the same deck would give the same result at every
    table: with probability ``noise`` a seat plays a random legal action instead (seeded)."""
    t = DuplicateTable(decks, seed)
    t.max_hands = boards
    from trickref.engine.referee.autotable import engine_bot
    from trickref.engine.referee.events import NewGame

    bot = engine_bot(game)

    def chooser(state: GameState, seat: int, rng: random.Random) -> Action:
        if rng.random() < noise:
            return rng.choice(list(state.legal_actions(seat)))
        return bot(state, seat, rng)

    t.chooser = chooser
    names = names or [f"P{i + 1}" for i in range(players)]
    with _ENGINE:
        t.feed(NewGame(game, tuple(names), dict(options), 0, tuple(range(players))))
        t.drain()
    reported = 0
    for _ in range(max_steps):
        g = t.ref.game
        assert g is not None
        while reported < len(g.hand_results):
            if on_hand is not None:
                on_hand(t.ref, reported)
            reported += 1
        if t.ref.waiting == "over" or (len(g.hand_results) >= boards and t.ref.waiting == "shuffle"):
            break
        with _ENGINE:
            stepped = t.step()
            if not stepped:
                t.drain()
        if not stepped and not t.ref.accepting() and not t.queue:
            break
    return t.ref


def play_round(link: ClubLink, round_: int, game: str, players: int, options: dict[str, Any],
               boards: int, seed: int, deck_timeout: float = 30.0,
               on_hand: Callable[[Referee, int], None] | None = None,
               names: list[str] | None = None) -> Referee:
    """One table's round through ``link``: waits for the round's decks (NoDeck names a board
    that did not come), then plays and reports every hand."""
    table = link.config.table
    names = names or [f"{table}/{s + 1}" for s in range(players)]

    def hand(ref: Referee, h: int) -> None:
        link.hand_finished(ref.record(), h, round_)
        if on_hand is not None:
            on_hand(ref, h)

    decks: list[list[str] | None] = [link.deck_for(round_, b, deck_timeout) for b in range(boards)]
    link.game_started(round_, game, names, options)
    ref = play_game(lambda b: decks[b], game, players, options, boards, seed, names, hand)
    link.game_over(ref.record(), round_)
    return ref
