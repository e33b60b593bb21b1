"""The referee behind the kiosk's table interface (``ui.session.Table``).

``ui.local_table.LocalTable`` lets the kiosk play on the bare rules engine; ``RefereeTable``
offers the same methods on top of the referee, so every entry goes through the referee's table
logic (refusals, panels, commitments, undo with the referee's rules) and, given a journal, every
event is on disk before it is acted on. The dealer is ideal here (every step done at once, like
``engine.referee.autotable``); the physical table uses ``device.table.Table`` with the driver.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

from engine import actions as A
from engine.bots import bot_for
from engine.errors import IllegalAction
from engine.referee import fairness
from engine.referee.commands import Command, DealerCommand, NeedShuffle
from engine.referee.events import (
    BotAction,
    Button,
    DealDone,
    DealerDone,
    DealerFault,
    DealerReady,
    Event,
    NewGame,
    Touch,
    UndoConfirm,
    UndoRequest,
    make_shuffle,
)
from engine.referee.referee import Referee

_KEYS = {"-": "minus", "+": "plus", "OK": "ok", "OK_LONG": "ok_long"}
_FAULT_KINDS = {"jam": "jam", "link": "link_down", "misread": "fault", "empty": "fault"}


class RefereeTable:
    def __init__(self, game: str, players: int, names: Sequence[str] | None = None,
                 options: dict[str, Any] | None = None, bots: Iterable[int] = (),
                 seed: int | None = None, first_dealer: int = 0, journal: Any = None) -> None:
        self.game = game
        self.players = players
        self.bots = set(bots)
        self.referee = Referee()
        self.journal = journal
        self.rng = random.Random(seed)
        self.seed = seed
        self.bot = bot_for(game)
        self._todo: list[Command] = []
        names = tuple(names) if names is not None else tuple(f"Seat {i + 1}" for i in range(players))
        self._feed(NewGame(game, names, dict(options or {}), first_dealer, tuple(sorted(self.bots))))
        if self.referee.game is None:
            raise ValueError("; ".join(m["text"] for m in self.referee.messages) or "the game was refused")

    # ------------------------------------------------------------------ events
    def _feed(self, event: Event) -> list[Command]:
        if self.journal is not None:
            self.journal.append(event.to_json())
        out = self.referee.handle(event)
        self._todo.extend(c for c in out if isinstance(c, (DealerCommand, NeedShuffle)))
        return out

    def _run_dealer(self) -> bool:
        """The ideal dealer: answer every pending step at once (not the shuffle)."""
        changed = False
        while self._todo:
            cmd = self._todo[0]
            if not isinstance(cmd, DealerCommand):
                return changed
            self._todo.pop(0)
            head = self.referee.steps[0] if self.referee.steps else None
            if head is None or head["step"] != cmd.step or self.referee.dealer_fault:
                continue
            if cmd.op == "deal":
                self._feed(DealDone(cmd.args["deal_id"], True))
            else:
                self._feed(DealerDone(cmd.step, cmd.args.get("expect")))
            changed = True
        return changed

    @property
    def messages(self) -> list[str]:
        return [m["text"] for m in self.referee.messages if m["seat"] is None]

    # ------------------------------------------------------------------ views
    def public_view(self) -> dict[str, Any]:
        v = self.referee.public_view()
        g = self.referee.game
        n = g.n if g is not None else 0
        v["table"].update(mode="referee", humans=[s for s in range(n) if s not in self.bots],
                          can_undo=self.can_undo())
        d = v["table"]["dealer"]  # the extras LocalTable's dealer view carries
        d.update(kind=None, dealt=0, total=0, message=d["fault"] or self.referee.waiting_text())
        return v

    def seat_view(self, seat: int) -> dict[str, Any]:
        v = self.referee.seat_view(seat)
        v["table"].update(mode="referee", can_undo=self.can_undo())
        return v

    # ------------------------------------------------------------------ dealing
    @property
    def needs_deal(self) -> bool:
        return self.referee.waiting == "shuffle"

    def deal(self, instant: bool = False) -> None:
        """Shuffle (seeded when the table has a seed) and let the ideal dealer deal."""
        g = self.referee.game
        if g is None or not self.needs_deal:
            return
        self._todo = [c for c in self._todo if not isinstance(c, NeedShuffle)]
        rng = None if self.seed is None else random.Random(f"{self.seed}/{len(self.referee.fair)}")
        self._feed(make_shuffle(g.DECKS, rng))
        self._run_dealer()

    def tick(self, dt: float) -> bool:
        return self._run_dealer()

    def fault(self, kind: str) -> None:
        self._feed(DealerFault(_FAULT_KINDS.get(kind, "fault"), kind))

    def clear_fault(self) -> None:
        self._feed(DealerReady(False))
        self._run_dealer()

    # ------------------------------------------------------------------ actions
    def turn(self) -> tuple[int, ...]:
        g = self.referee.game
        return tuple(g.turn_seats()) if g is not None and self.referee.waiting == "turn" else ()

    def legal(self, seat: int) -> list[A.Action]:
        g = self.referee.game
        return list(g.legal_actions(seat)) if g is not None and self.referee.accepting() else []

    def check(self, seat: int, action: A.Action) -> str | None:
        g = self.referee.game
        if g is None:
            return "no game"
        if not self.referee.accepting():
            return self.referee.waiting_text()
        if action.kind == "exchange":  # checked with the replacements the salt will draw
            give = tuple(sorted(action.value[0]))
            h = g.hand_number - 1
            pool = fairness.discard_pool(g)
            if len(give) > min(3, len(pool)):
                return "you may exchange at most 3 cards"
            action = A.Action("exchange", (give, fairness.replacements(self.referee.fair[h]["salt"], h, seat, pool, len(give))))
        return g.check(action, seat)

    def _take(self, seat: int, action: A.Action, bot: bool) -> None:
        g = self.referee.game
        assert g is not None
        if action.kind == "exchange":  # the referee draws the replacements from the salt
            action = A.exchange(action.value[0], [])
        rec = A.to_record(seat, action)
        rec.pop("seat")
        before = self._actions_taken()
        out = self._feed((BotAction if bot else Touch)(seat, rec))
        self._run_dealer()
        if self._actions_taken() == before:
            words = [getattr(c, "text", "") for c in out if getattr(c, "level", "") == "warn"]
            raise IllegalAction(seat, action, words[0] if words else "refused by the table")

    def _actions_taken(self) -> int:
        g = self.referee.game
        return 0 if g is None else sum(len(acts) for _, acts in g.record_hands())

    def submit(self, seat: int, action: A.Action) -> None:
        """Take ``action`` (a touchscreen entry); raises IllegalAction with the referee's words."""
        self._take(seat, action, bot=False)

    def panel(self, seat: int, key: str) -> None:
        if key not in _KEYS:
            raise ValueError(f"a seat panel has the keys -, + and OK, not {key!r}")
        self._feed(Button(seat, _KEYS[key]))
        self._run_dealer()

    def bot_on_turn(self) -> int | None:
        seats = self.referee.bot_turns()
        return seats[0] if seats else None

    def step_bot(self) -> tuple[int, A.Action] | None:
        s = self.bot_on_turn()
        g = self.referee.game
        if s is None or g is None:
            return None
        action = self.bot.choose(g.copy(), s, self.rng)
        self._take(s, action, bot=True)
        return s, g.actions[-1][1] if g.actions else action

    def can_undo(self) -> bool:
        g = self.referee.game
        return (g is not None and self.referee.accepting()
                and any(s not in self.bots for s, _ in g.actions)
                and all(b is None for b in self.referee.blocked[-len(g.actions):]))

    def undo(self) -> list[A.Action]:
        """Take back actions up to and including this hand's last human one (each confirmed)."""
        g = self.referee.game
        taken: list[A.Action] = []
        if g is None or not self.can_undo():
            return taken
        while g.actions:
            seat, last = g.actions[-1]
            self._feed(UndoRequest(None))
            if self.referee.undo_pending is None:
                break
            self._feed(UndoConfirm())
            taken.append(last)
            if seat not in self.bots:
                break
        return taken
