"""What the referee says and lights: messages, refusals (with the seat's LED blinking), the
LEDs of the seats on turn, the prompt for the next entry."""

from __future__ import annotations

from collections import Counter

from .. import cards as C
from .commands import (
    Led,
    Message,
    Refusal,
    Sound,
    seat_target,
)
from .state import MESSAGES_KEPT
from .views import RefereeViews


class RefereeOutput(RefereeViews):
    def _msg(self, text: str, seat: int | None = None, level: str = "info") -> None:
        self.messages.append({"text": text, "seat": seat, "level": level})
        self.message_events.append(len(self._history))  # (the event being taken: appended after it)
        if len(self.messages) > 4 * MESSAGES_KEPT:
            del self.messages[: len(self.messages) - 2 * MESSAGES_KEPT]
            del self.message_events[: len(self.message_events) - 2 * MESSAGES_KEPT]
        self._out.append(Message(text, seat, level))

    def _name(self, seat: int) -> str:
        g = self.game
        return g.names[seat] if g is not None and 0 <= seat < g.n else f"seat {seat}"

    def _refuse(self, seat: int | None, text: str, private: bool = False, secret: str | None = None) -> None:
        """Show why an entry was refused, blink the seat's LED, change nothing. Words that name
        a card still in a hand go to that seat's screen only: ``private`` sends ``text`` there;
        ``secret`` is the seat's own version of a ``text`` that names no card."""
        self._msg(text, seat if private else None, "warn")
        self._out.append(Refusal(seat, text, private))
        if secret is not None and seat is not None:
            self._msg(secret, seat, "warn")
        self._out.append(Sound("refused"))
        if seat is not None and self.game is not None and 0 <= seat < self.game.n and seat not in self.blinking:
            self.blinking.append(seat)

    def _set_led(self, seat: int, mode: str) -> None:
        if self.leds[seat] != mode:
            self.leds[seat] = mode
            self._out.append(Led(seat, mode))

    def _sync_leds(self) -> None:
        """LEDs on for the seats that must act, off for the rest; a blink stays until the seat
        acts or the turn moves on."""
        g = self._g()
        want_on = set(g.turn_seats()) if self.waiting == "turn" and not self.busy else set()
        for s in range(g.n):
            self._set_led(s, "blink" if s in self.blinking else "on" if s in want_on else "off")

    def _prompt(self) -> None:
        g = self.game
        if g is None or self.waiting != "turn":
            return
        self._msg(self.waiting_text())

    def _holders(self, card: int, seats: list[int] | None = None) -> list[int]:
        """Seats holding ``card`` not yet fed (a two-deck card may be in two hands)."""
        g = self._g()
        out = []
        for s in (range(g.n) if seats is None else seats):
            have = Counter(g.hand_of(s))
            have.subtract(self.fed.get(s, []))
            if have[card] > 0:
                out.append(s)
        return out

    def _home(self, card: int, fed_by: int | None) -> str:
        holders = self._holders(card)
        if fed_by is not None and fed_by in holders:
            return seat_target(fed_by)
        if holders:
            return seat_target(holders[0])
        return "reject"

    def _not_held(self, card: int) -> str:
        """Why a card read is in nobody's hand, in words."""
        g = self._g()
        played = Counter(a.value for _, a in g.actions if a.kind == "play")
        name = C.NAMES[card]
        if played[card] >= g.DECKS:
            return f"duplicate read: {name} has already been played this hand"
        in_deck = Counter(g.deck)[card]
        if in_deck == 0:
            return f"{name} is not in this hand's deck"
        return f"{name} is not in anyone's hand (it is out of play this hand)"
