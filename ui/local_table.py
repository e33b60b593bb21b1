"""An in-memory table: the rules engine, bots and a pretend dealer, no referee, no journal.

The kiosk plays on ui.table_client (the table host with the simulated or real dealer,
the panels and the journal). This table stays only because tests and the staged screenshots
need positions set up instantly and synchronously (``state`` driven directly, a dealer that
deals in one call); it offers the same interface (ui.session.Table):

- ``public_view()`` -> ``{"game": <engine public view>, "table": {...}}``: what the shared
  screen may show, in the shape of engine.referee's ``Referee.public_view()``: ``table`` holds
  ``turn``, ``waiting_for``, ``pending`` (per seat, the label of the bid being entered on its
  panel before OK, or None), ``dealer`` (``status`` idle / busy / fault, ``op``, ``fault``
  text; plus ``dealt`` / ``total`` progress and ``kind`` of a simulated fault), ``messages``
  (``{"text", "seat", "level"}``) and ``bots``; the local extras are ``humans``, ``mode`` and
  ``can_undo``.
- ``seat_view(seat)``: as ``Referee.seat_view``: ``game`` is the engine's ``view(seat)`` (that
  seat's ``hand`` and private knowledge: the shown draw card, passed cards, the widow...) and
  ``table`` gains ``seat`` and ``presented`` (a card shown to that seat only).
- ``legal(seat)``: that seat's legal actions now; ``submit(seat, action)`` takes one.
- ``panel(seat, key)``: a seat panel's '-', '+' or 'OK' press (bids).
- ``step_bot()``: one bot decision, if a bot is on turn; ``undo()`` takes back actions up to
  and including the last human one (so bots do not immediately replay it).
- ``deal()`` / ``tick(dt)``: the simulated dealer routes the cards over time, then the hand
  starts; ``fault(kind)`` / ``clear_fault()`` simulate a dealer fault.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

from trickref.engine import cards as C
from trickref.engine.actions import Action
from trickref.engine.base import GameState
from trickref.engine.games import new_game

from .faults import FAULTS


class _RandomBot:
    """Stand-in while a game's bot module is missing: a random legal action."""

    def choose(self, state: GameState, seat: int, rng: random.Random) -> Action:
        return rng.choice(state.legal_actions(seat))


def _bot(game: str) -> Any:
    try:
        from trickref.engine.bots import bot_for

        return bot_for(game)
    except (ImportError, AttributeError):
        return _RandomBot()


class LocalTable:
    DEAL_RATE = 30.0  # cards per second the pretend dealer routes

    def __init__(self, game: str, players: int, names: Sequence[str] | None = None,
                 options: dict[str, Any] | None = None, bots: Iterable[int] = (),
                 seed: int | None = None, first_dealer: int = 0) -> None:
        self.state: GameState = new_game(game, players, options, first_dealer, names)
        self.game = game
        self.bots = set(bots)
        self.rng = random.Random(seed)
        self.bot = _bot(game)
        self.pending: dict[int, int] = {}
        self.messages: list[str] = []
        self.dealer: dict[str, Any] = {"state": "idle", "dealt": 0, "total": 0, "message": "ready"}
        self._deck: list[int] | None = None

    # ------------------------------------------------------------------ views
    @property
    def players(self) -> int:
        return self.state.n

    @property
    def humans(self) -> list[int]:
        return [s for s in range(self.state.n) if s not in self.bots]

    def public_view(self) -> dict[str, Any]:
        st = self.state
        d = self.dealer
        turn = list(st.turn_seats())
        return {
            "game": st.public_view(),
            "table": {
                "mode": "simulated",
                "turn": turn,
                "waiting_for": ("waiting for " + ", ".join(st.names[s] for s in turn)) if turn else "waiting",
                "pending": [None if s not in self.pending else ("Nil" if self.pending[s] == 0 else str(self.pending[s]))
                            for s in range(st.n)],
                "dealer": {
                    "status": {"dealing": "busy", "fault": "fault"}.get(d["state"], "idle"),
                    "op": "deal" if d["state"] == "dealing" else None,
                    "fault": FAULTS[d["fault"]]["what"] if d["state"] == "fault" else None,
                    "kind": d.get("fault"),
                    "dealt": d["dealt"], "total": d["total"], "message": d["message"],
                },
                "messages": [{"text": m, "seat": None, "level": "info"} for m in self.messages[-5:]],
                "bots": sorted(self.bots),
                "humans": self.humans,
                "can_undo": self.can_undo(),
            },
        }

    def seat_view(self, seat: int) -> dict[str, Any]:
        v = self.public_view()
        v["game"] = self.state.view(seat)
        t = v["table"]
        t["seat"] = seat
        t["presented"] = v["game"].get("shown")
        return v

    # ------------------------------------------------------------------ dealing
    @property
    def needs_deal(self) -> bool:
        return self.state.needs_deck and self.dealer["state"] not in ("dealing", "fault")

    def deal(self, instant: bool = False) -> None:
        """Shuffle and start routing the next hand; ``instant`` skips the pretend delay."""
        deck = C.full_deck(self.state.DECKS)
        self.rng.shuffle(deck)
        self._deck = deck
        self.dealer = {"state": "dealing", "dealt": 0, "total": len(deck),
                       "message": f"dealing hand {self.state.hand_number + 1}"}
        if instant:
            self.tick(1e9)

    def tick(self, dt: float) -> bool:
        """Advance the pretend dealer by ``dt`` seconds; True when something changed."""
        d = self.dealer
        if d["state"] != "dealing":
            return False
        d["dealt"] = min(d["total"], d["dealt"] + max(1, round(dt * self.DEAL_RATE)))
        if d["dealt"] >= d["total"]:
            assert self._deck is not None
            self.state.start_hand(self._deck)
            self._deck = None
            d.update(state="done", message="all cards routed")
        return True

    def fault(self, kind: str) -> None:
        info = FAULTS[kind]
        self.dealer = dict(self.dealer, state="fault", fault=kind, message=info["title"],
                           resume_state=self.dealer.get("state"))
        self.messages.append(f"dealer: {info['title']}")

    def clear_fault(self) -> None:
        d = self.dealer
        if d.get("state") == "fault":
            d["state"] = d.pop("resume_state", "idle") or "idle"
            d.pop("fault", None)
            d["message"] = "resumed"

    # ------------------------------------------------------------------ actions
    def legal(self, seat: int) -> list[Action]:
        return self.state.legal_actions(seat)

    def turn(self) -> tuple[int, ...]:
        return self.state.turn_seats()

    def check(self, seat: int, action: Action) -> str | None:
        """None when ``seat`` may take ``action`` now, else the rule it breaks in words."""
        return self.state.check(action, seat)

    def submit(self, seat: int, action: Action) -> None:
        """Take ``action`` for ``seat``; raises IllegalAction (a ValueError) naming the rule."""
        if action.kind == "exchange" and action.value[1] is None:
            action = self.exchange_for(seat, action.value[0])
        self.state.apply(action, seat)
        self.pending.pop(seat, None)
        self.messages.append(f"{self.state.names[seat]}: {_public_words(action)}")

    def exchange_for(self, seat: int, give: Sequence[int]) -> Action:
        """A Double Nil exchange giving ``give``: the dealer draws as many at random."""
        pool = list(getattr(self.state, "discards", []))
        get = self.rng.sample(pool, len(give)) if len(give) <= len(pool) else []
        return Action("exchange", (tuple(sorted(give)), tuple(sorted(get))))

    def panel(self, seat: int, key: str) -> None:
        """A seat panel button: '-' / '+' change the bid being entered, 'OK' submits it."""
        if key in ("-", "+"):
            v = self.pending.get(seat, 0) + (1 if key == "+" else -1)
            self.pending[seat] = max(0, min(13, v))
        elif key == "OK":
            self.submit(seat, Action("bid", self.pending.get(seat, 0)))
        else:
            raise ValueError(f"a seat panel has the keys -, + and OK, not {key!r}")

    def bot_on_turn(self) -> int | None:
        for s in self.state.turn_seats():
            if s in self.bots:
                return s
        return None

    def step_bot(self) -> tuple[int, Action] | None:
        """Let one bot on turn decide; returns (seat, action), or None when no bot is on turn."""
        s = self.bot_on_turn()
        if s is None:
            return None
        action = self.bot.choose(self.state, s, self.rng)
        if action.kind == "exchange":  # the dealer, not the bot, picks the replacements
            action = self.exchange_for(s, action.value[0])
        self.submit(s, action)
        return s, action

    def run_bots(self, limit: int = 10_000) -> int:
        """Let bots act until a human is on turn or the hand ends; returns how many acted."""
        n = 0
        while n < limit and self.step_bot():
            n += 1
        return n

    def can_undo(self) -> bool:
        return any(s not in self.bots for s, _ in self.state.actions)

    def undo(self) -> list[Action]:
        """Take back actions up to and including this hand's last human one."""
        taken: list[Action] = []
        if not self.can_undo():
            return taken
        while self.state.actions:
            seat = self.state.actions[-1][0]
            taken.append(self.state.undo())
            if seat not in self.bots:
                break
        self.pending.clear()
        self.messages.append("undone: " + ", ".join(_public_words(a) for a in taken))
        return taken


def _public_words(action: Action) -> str:
    """What the shared screen may say about an action (never which cards were passed)."""
    if action.kind == "pass":
        return f"passed {len(action.value)} cards"
    if action.kind == "exchange":
        return f"exchanged {len(action.value[0])} cards"
    if action.kind == "draw":
        return "drew"
    return action.describe()

