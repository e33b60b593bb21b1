"""One game on the kiosk: the table, who is human, whose hand is visible, and pacing.

The session decides which scene the table's state calls for (``route``), paces bots so people
can follow their plays, holds a finished trick on screen for a moment, and implements the
hot-seat privacy rule of simulated mode: a human seat's hand is shown only after that player
tapped "show my cards" on the pass-the-device screen (``revealed``). In table mode (real
dealer, physical cards) no hand is ever shown: every scene draws from ``public_view()``.
"""

from __future__ import annotations

from typing import Any, Protocol

from trickref.engine.actions import BLIND_NIL, Action
from trickref.engine.games import game_class


class Table(Protocol):
    """What the kiosk needs from a table: ui.table_client.TableClient, the one way to a table
    (the table host, in hardware, simulated or instant mode). Views have the shape of
    engine.referee's ``public_view``/``seat_view``."""

    game: str  # the game id
    bots: set[int]  # seats played by bots
    players: int  # seats at the table

    @property
    def messages(self) -> list[str]: ...  # notes for the shared screen

    def public_view(self) -> dict[str, Any]: ...
    def seat_view(self, seat: int) -> dict[str, Any]: ...
    def turn(self) -> tuple[int, ...]: ...
    def legal(self, seat: int) -> list[Action]: ...
    def check(self, seat: int, action: Action) -> str | None: ...
    def submit(self, seat: int, action: Action) -> None: ...
    def panel(self, seat: int, key: str) -> None: ...
    def bot_on_turn(self) -> int | None: ...
    def step_bot(self) -> tuple[int, Action] | None: ...
    def bot_go(self) -> None: ...
    def bot_turn(self) -> tuple[int, int, int, int] | None: ...
    def can_undo(self) -> bool: ...
    def undo(self) -> list[Action]: ...
    @property
    def needs_deal(self) -> bool: ...
    def deal(self, instant: bool = False) -> None: ...
    def tick(self, dt: float) -> bool: ...
    def fault(self, kind: str) -> None: ...
    def clear_fault(self) -> None: ...


class Session:
    def __init__(self, table: Table, *, simulated: bool = True, bot_delay: float = 0.7,
                 trick_hold: float = 1.3, deal_delay: bool = True) -> None:
        self.table = table
        self.simulated = simulated
        self.bot_delay = bot_delay
        self.trick_hold = trick_hold
        self.deal_delay = deal_delay
        self.revealed: int | None = None
        self.summary_seen = 0  # hands whose summary has been acknowledged
        self._bot_wait = 0.0
        self._bot_at: Any = None  # the bot turn being paced
        self._go_said = False  # the table was told the bot on turn may enter
        self.hold = 0.0  # seconds left showing a finished trick
        self._tricks_seen = 0
        self.cues: list[str] = []  # sound cues for the app: 'turn', 'trick'
        self._announced: tuple[Any, ...] | None = None
        self.letters_read: set[int] = set()  # the referee's letters to one seat its player has read (ui.letters)

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

    def letters(self, seat: int | None = None) -> list[Any]:
        """The referee's words to one seat (``seat``, or every person's seat) not read yet, oldest
        first (ui.letters.Letter). Bot seats have none: nobody at the table reads them."""
        get = getattr(self.table, "letters", None)
        if get is None:
            return []
        bots = set(self.table.bots)
        return [x for x in get() if x.serial not in self.letters_read and x.seat not in bots
                and (seat is None or x.seat == seat)]

    def read_letters(self, letters: list[Any]) -> None:
        """Those letters have been read by their player (or seen by everyone: they name no card)."""
        get = getattr(self.table, "letters", None)
        held = {x.serial for x in get()} if get is not None else set()
        self.letters_read = {n for n in self.letters_read if n in held} | {x.serial for x in letters}

    def human_on_turn(self) -> int | None:
        for s in self.table.turn():
            if s not in self.table.bots:
                return s
        return None

    def only_human(self) -> int | None:
        """The one human seat when every other seat is a bot: nobody to hide the hand from."""
        humans = [s for s in range(self.table.players) if s not in self.table.bots]
        return humans[0] if len(humans) == 1 else None

    def needs_handoff(self) -> int | None:
        """The human seat that must act but whose hand is not on screen, if any. With one
        human at the table there is no one to pass the device to: their hand stays shown."""
        if not self.simulated:
            return None
        alone = self.only_human()
        if alone is not None and self.revealed != alone:
            if alone in self.table.turn() and BLIND_NIL in self.table.legal(alone):
                return alone  # Blind Nil is declared before looking: the cards wait behind a tap
            self.revealed = alone  # shown at once; take_cues still chimes when their turn comes
        if alone is not None:
            return None
        s = self.human_on_turn()
        if s is None or s == self.revealed:
            return None
        return s

    def reveal(self, seat: int) -> None:
        self.revealed = seat
        self._announced = self._turn_key(seat)  # the hand-off screen already chimed

    def conceal(self) -> None:
        self.revealed = None

    # ------------------------------------------------------------------ flow
    def _views(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The public view's game and table parts, for reading only: the table's published view
        itself where it offers one (``public_read``), not a copy. The routing reads a few fields
        of it several times a frame, and a deep copy each time (of a view that grows with the
        game's history) was a fifth of the kiosk's CPU in a whole six-player game."""
        read = getattr(self.table, "public_read", None)
        v = read() if read is not None else self.table.public_view()
        return v["game"], v["table"]

    def route(self) -> str:
        """The scene the table's public view calls for: dealing, handoff, bidding, play,
        summary, gameover, fault."""
        g, t = self._views()
        phase = g.get("phase")
        d = t.get("dealer", {})
        if d.get("status") == "fault" or t.get("storage"):
            return "fault"
        if d.get("op") == "deal" and d.get("status") == "busy":
            return "dealing"  # the referee starts the hand's rules before the cards are out
        if g.get("hand_number", 0) > self.summary_seen and phase in ("deal", "over"):
            return "summary"
        if g.get("over"):
            return "gameover"
        if phase == "deal":
            return "dealing"
        if self.hold > 0:
            return "play"
        if self.needs_handoff() is not None:
            return "handoff"
        if phase == "bid":
            return "bidding"
        return "play"

    def acknowledge_summary(self) -> None:
        self.summary_seen = int(self._views()[0].get("hand_number", 0))
        self._tricks_seen = 0

    def start_deal(self) -> None:
        if self.table.needs_deal:
            self.table.deal(instant=not self.deal_delay)
            self._tricks_seen = 0

    @property
    def busy(self) -> bool:
        """True while something will change without input (bots, dealing, a held trick)."""
        _g, t = self._views()
        return t.get("dealer", {}).get("status") == "busy" or self.hold > 0 or (
            self.table.bot_on_turn() is not None and self.route() in ("play", "bidding"))

    def update(self, dt: float) -> bool:
        """Advance time: what the table did since the last tick, the trick hold, the bots' pace.

        Bots think on their own thinker from the moment their turn comes (never on this
        thread: the screen keeps drawing and taking taps); the session only says when the bot
        on turn may enter its decision (``bot_go``): after ``bot_delay`` so people can follow
        the plays, at once for the simultaneous passes. The entry comes back as a table change."""
        changed = bool(self.table.tick(dt))
        if changed:
            self.after_action()
        if self.hold > 0:
            self.hold = max(0.0, self.hold - dt)
            return True
        if self.route() not in ("play", "bidding"):
            return changed
        at = self.table.bot_turn()
        if at is None:
            self._bot_wait, self._bot_at = 0.0, None
            return changed
        if at != self._bot_at:  # a new bot turn: its pause starts now
            self._bot_at, self._bot_wait, self._go_said = at, 0.0, False
        if self._go_said:
            return changed
        self._bot_wait += dt
        if self._views()[0].get("phase") != "pass" and self._bot_wait < self.bot_delay:  # passes: no pacing
            return changed
        self._go_said = True
        self.table.bot_go()
        return changed

    def hold_bots(self) -> None:
        """The game is paused (a confirmation, the score sheet, the rules): a bot that was told
        it may enter waits until the game goes on (it is told again then, at once)."""
        if self._go_said:
            self._go_said = False
            self._bot_wait = self.bot_delay
            hold = getattr(self.table, "bot_hold", None)
            if hold is not None:
                hold()

    @property
    def bot_thinking(self) -> int | None:
        """The bot seat still working out its decision (the screen may say so)."""
        return getattr(self.table, "bot_thinking", None)

    def after_action(self) -> None:
        """Start the trick hold when an action completed a trick."""
        g = self._views()[0]
        done = _tricks_done(g)
        if done > self._tricks_seen:
            self._tricks_seen = done
            if self.trick_hold > 0 and g.get("last_trick"):
                self.hold = self.trick_hold
            self.cues.append("trick")
        elif done < self._tricks_seen:
            self._tricks_seen = done

    def take_cues(self) -> list[str]:
        """Sound cues since the last call, plus 'turn' when the revealed player's turn comes."""
        s = self.human_on_turn()
        if s is not None and s == self.revealed and self.simulated:
            key = self._turn_key(s)
            if key != self._announced:
                self._announced = key
                self.cues.append("turn")
        out, self.cues = self.cues, []
        return out

    def _turn_key(self, seat: int) -> tuple[Any, ...]:
        g = self._views()[0]
        return (seat, g.get("hand_number"), g.get("phase"), _tricks_done(g), len(g.get("trick") or []))

    def submit(self, seat: int, action: Any) -> None:
        self.table.submit(seat, action)
        self.after_action()

    def last_hand(self) -> dict[str, Any] | None:
        """The engine's row for the hand just finished: ``points``, ``totals`` (``bags``) and
        ``figures`` (what each seat bid and took: the engine keeps them when it books the
        hand); None before the first hand ends."""
        rows = self.table.public_view()["game"].get("hand_results") or []  # a copy: the caller keeps it
        return dict(rows[-1]) if rows else None

    def undo(self) -> None:
        self.table.undo()
        self.hold = 0.0
        self._bot_at, self._go_said = None, False
        self._tricks_seen = _tricks_done(self._views()[0])


def _tricks_done(g: dict[str, Any]) -> int:
    if "tricks_played" in g:
        return int(g["tricks_played"])
    taken = g.get("tricks_taken")
    if isinstance(taken, list):
        total = sum(int(x) for x in taken if isinstance(x, int))
        waiting = g.get("cancelled_tricks", 0)
        return total + (waiting if isinstance(waiting, int) else 0)
    return 0

