"""One game on the kiosk: the table, who is human, whose hand is visible, and pacing.

The session decides which scene the table's state calls for (``route``), paces bots so people
can follow their plays, holds a finished trick on screen for a moment, and implements the
hot-seat privacy rule of simulated mode: a human seat's hand is shown only after that player
tapped "show my cards" on the pass-the-device screen (``revealed``). In table mode (real
dealer, physical cards) no hand is ever shown: every scene draws from ``public_view()``.
"""

from __future__ import annotations

from typing import Any

from engine.games import game_class

PRIVATE_PHASES = ("draw", "exchange", "pass", "play", "bid", "moon")


class Session:
    def __init__(self, table: Any, *, simulated: bool = True, bot_delay: float = 0.7,
                 trick_hold: float = 1.3, deal_delay: bool = True) -> None:
        self.table = table
        self.simulated = simulated
        self.bot_delay = bot_delay
        self.trick_hold = trick_hold
        self.deal_delay = deal_delay
        self.revealed: int | None = None
        self.summary_seen = 0  # hands whose summary has been acknowledged
        self._bot_wait = 0.0
        self.hold = 0.0  # seconds left showing a finished trick
        self._tricks_seen = 0

    # ------------------------------------------------------------------ views
    @property
    def game_id(self) -> str:
        return str(self.table.game)

    @property
    def title(self) -> str:
        return game_class(self.game_id).TITLE or self.game_id

    def view(self) -> dict[str, Any]:
        """The view scenes draw: the revealed seat's view in simulated mode, else public."""
        if self.simulated and self.revealed is not None:
            return dict(self.table.seat_view(self.revealed))
        return dict(self.table.public_view())

    def human_on_turn(self) -> int | None:
        for s in self.table.turn():
            if s not in self.table.bots:
                return s
        return None

    def needs_handoff(self) -> int | None:
        """The human seat that must act but whose hand is not on screen, if any."""
        if not self.simulated:
            return None
        s = self.human_on_turn()
        if s is None or s == self.revealed:
            return None
        return s

    def reveal(self, seat: int) -> None:
        self.revealed = seat

    def conceal(self) -> None:
        self.revealed = None

    # ------------------------------------------------------------------ flow
    def route(self) -> str:
        """The scene the state calls for: dealing, handoff, bidding, play, summary, gameover,
        fault."""
        t = self.table
        st = t.state
        if t.dealer.get("state") == "fault":
            return "fault"
        if st.hand_number > self.summary_seen and (st.phase in ("deal", "over")):
            return "summary"
        if st.over:
            return "gameover"
        if st.phase == "deal":
            return "dealing"
        if self.hold > 0:
            return "play"
        if self.needs_handoff() is not None:
            return "handoff"
        if st.phase == "bid":
            return "bidding"
        return "play"

    def acknowledge_summary(self) -> None:
        self.summary_seen = self.table.state.hand_number
        self._tricks_seen = 0

    def start_deal(self) -> None:
        if self.table.needs_deal:
            self.table.deal(instant=not self.deal_delay)
            self._tricks_seen = 0

    @property
    def busy(self) -> bool:
        """True while something will change without input (bots, dealing, a held trick)."""
        t = self.table
        return t.dealer.get("state") == "dealing" or self.hold > 0 or (
            t.bot_on_turn() is not None and self.route() in ("play", "bidding"))

    def update(self, dt: float) -> bool:
        """Advance time: the pretend dealer, the trick hold, one paced bot action."""
        changed = self.table.tick(dt)
        if self.hold > 0:
            self.hold = max(0.0, self.hold - dt)
            return True
        if self.route() not in ("play", "bidding"):
            return changed
        if self.table.bot_on_turn() is None:
            self._bot_wait = 0.0
            return changed
        if self.table.state.phase == "pass":  # passes are simultaneous: bots need no pacing
            while self.table.state.phase == "pass" and self.table.step_bot():
                pass
            self.after_action()
            return True
        self._bot_wait += dt
        if self._bot_wait < self.bot_delay:
            return changed
        self._bot_wait = 0.0
        self.table.step_bot()
        self.after_action()
        return True

    def after_action(self) -> None:
        """Start the trick hold when an action completed a trick."""
        g = self.table.state.public_view()
        done = _tricks_done(g)
        if done > self._tricks_seen:
            self._tricks_seen = done
            if self.trick_hold > 0 and g.get("last_trick"):
                self.hold = self.trick_hold
        elif done < self._tricks_seen:
            self._tricks_seen = done

    def submit(self, seat: int, action: Any) -> None:
        self.table.submit(seat, action)
        self.after_action()

    def undo(self) -> None:
        self.table.undo()
        self.hold = 0.0
        self._tricks_seen = _tricks_done(self.table.state.public_view())


def _tricks_done(g: dict[str, Any]) -> int:
    if "tricks_played" in g:
        return int(g["tricks_played"])
    taken = g.get("tricks_taken")
    if isinstance(taken, list):
        total = sum(int(x) for x in taken if isinstance(x, int))
        waiting = g.get("cancelled_tricks", 0)
        return total + (waiting if isinstance(waiting, int) else 0)
    return 0

