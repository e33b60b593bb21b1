"""The search bot of German Whist: ``SearchBot`` with its rollouts on engine/whist_core.py.

The worlds are ``sample_world``'s (engine/worlds.py: the opponent's hidden cards and the stock
below the face-up card dealt at random, consistently with what the seat has seen); each
candidate card is played in the world's core position and the rest of the hand by the rule
bot in both seats, the seat searching its own last ``solve_at`` cards exactly once the stock is
gone (every card is known then). The value is ``GermanWhistSearchBot``'s (bots/german_whist.py): the seat's points for the hand
minus the opponent's, plus a tenth of the stage-two trick difference.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..actions import Action
from ..base import GameState
from ..whist_core import WScorer, finish, from_state
from .german_whist import GermanWhistSearchBot


class WhistSearchBot(GermanWhistSearchBot):
    def __init__(self, game: str, *, core: bool = True, solve_at: int = 4, **kw: Any) -> None:
        if game != "german-whist":
            raise ValueError(f"WhistSearchBot plays german-whist, not {game!r}")
        super().__init__(game, **kw)
        self.core = core
        self.solve_at = solve_at

    def _play_out(self, world: GameState, seat: int, actions: Sequence[Action], seed: int,
                  value: Callable[[GameState, int], float], late: Callable[[], bool]) -> list[float]:
        if not self.core or world.phase != "play":
            return super()._play_out(world, seat, actions, seed, value, late)
        start = from_state(world)
        scorer = WScorer(seat)
        got: list[float] = []
        for a in actions:
            core = start.copy()
            core.play(a.value)
            got.append(finish(core, scorer, self.solve_at))
            if late():
                break
        return got
