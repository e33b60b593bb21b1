"""What the referee tells one seat only, on the one shared screen: letters.

The referee addresses some of its words to one seat (``_msg(text, seat=...)``): what that player
must do with their cards ("put the 2 cards you gave in the discard pocket", "hand your passed
cards face down to Ben") and what only they may know ("your replacements are JS TD", "KH to pass
(2 of 3)"). A ``Letterbox`` (on the table host's worker, ui.table_client) picks each such
message up once, as a ``Letter`` with a number of its own, the hand and the entries taken when
it was said; a letter goes when its seat makes its next entry (it was about the move before),
when the hand it belongs to is over or undone, or when that seat has more than ``KEPT`` newer
ones; the read-back of a card fed to pass or give goes with the entry those cards make up. Whether it was read is the kiosk's (ui.session: read when its player tapped OK).

A letter that names a card is ``secret``: the shared screen shows only "Ben: a message for you"
until Ben taps it and the others look away (ui.scenes.letter); one that names no card is shown
as it is, to everyone. The undo's "Ana: take QS back from the trick pocket" (said to everyone:
the card was face up) is Ana's letter too, not secret.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

KEPT = 4  # letters kept per seat (the newest)

# a card as the referee names it ("KH", "TS") or as the kiosk draws it ("K♥", "10♠")
_NAMES_CARD = re.compile(r"(?<![\w])(10|[2-9TJQKA])[SHDC\u2660\u2665\u2666\u2663](?![\w])")


# said to everyone but meant for one player: an undone play fed through the reader goes back to
# its player's hand (engine/referee/undo.py; the card was face up in the trick: not secret)
_TO_ONE = re.compile(r"(?P<name>.+?): take \S+ back from the trick pocket")


# the read-back of a card fed to pass or to give ("Ana: KH to pass (2 of 3)", engine/referee/entries.py):
# about the entry the fed cards make up, so it goes once the seat has no fed cards waiting (the
# entry was taken or refused); said in the same item as that entry, before it
_READ_BACK = re.compile(r".+?: \S+ to (pass|give) \(\d+ of (up to )?\d+\)")


def names_card(text: str, name: str = "") -> bool:
    """Whether ``text`` names a card (the addressee's own ``name`` left out: a player may be
    called "AS")."""
    if name:
        text = text.replace(name, " ")
    return _NAMES_CARD.search(text) is not None


@dataclass(frozen=True)
class Letter:
    serial: int  # its own number, in the order said (the kiosk remembers the ones read)
    seat: int
    text: str  # the referee's words (English; ui.referee_words.seat_words says them)
    level: str  # "info" or "warn"
    hand: int  # the hand it was said in
    at: int  # the entries of that hand taken when it was said
    secret: bool  # names a card: only that seat may see it


class Letterbox:
    """The referee's messages to one seat, picked up as they are said (``collect`` after
    every item the table host's worker takes, before it publishes the snapshot)."""

    def __init__(self) -> None:
        self._ref: Any = None
        self._last: Any = None  # the last message seen (the referee's own dict: found again by identity)
        self._serial = 0
        self.letters: tuple[Letter, ...] = ()

    def collect(self, ref: Any) -> tuple[Letter, ...]:
        said = list(ref.messages)
        g = ref.game
        hand, at = (int(g.hand_number), len(g.actions)) if g is not None else (0, 0)
        # each message where the event that said it left the game (Referee.said_where): a
        # referee rebuilt from the journal (the kiosk after a power cut) says its words again
        # while replaying, and the ones still due come back as letters, each at its own place
        # (before, every letter was lost across a restart: "Ana: 7D went to the reject pocket:
        # take it back into your hand" among them)
        where = getattr(ref, "said_where", None)
        if ref is not self._ref:  # a table first seen, or a referee rebuilt from the journal
            self._ref, self.letters, i = ref, (), -1
            if where is None:  # (a referee that cannot say where: what it said before is past)
                i = len(said) - 1
        else:
            i = len(said) - 1
            while i >= 0 and said[i] is not self._last:
                i -= 1
        first = [(said[k], where(k) if where is not None else (hand, at)) for k in range(i + 1, len(said))]
        if said:
            self._last = said[-1]
        if g is None:
            self.letters = ()
            return self.letters
        names = list(g.names)
        out = list(self.letters)
        for m, (m_hand, m_at) in first:
            seat, text = m.get("seat"), str(m.get("text", ""))
            public = seat is None
            if public:
                to = _TO_ONE.fullmatch(text)
                seat = names.index(to["name"]) if to is not None and to["name"] in names else None
            if not isinstance(seat, int) or not 0 <= seat < len(names):
                continue
            self._serial += 1
            out.append(Letter(self._serial, seat, text, str(m.get("level", "info")), m_hand, m_at,
                              not public and names_card(text, str(names[seat]))))
        last: dict[int, int] = {}  # each seat's latest entry of the hand
        for k, (s, _a) in enumerate(g.actions):
            last[s] = k
        fed = getattr(ref, "fed", {})
        out = [x for x in out if x.hand == hand and x.at <= at and x.at > last.get(x.seat, -1)
               and (fed.get(x.seat) or not _READ_BACK.fullmatch(x.text))]
        per_seat: dict[int, int] = {}
        kept: list[Letter] = []
        for x in reversed(out):
            per_seat[x.seat] = per_seat.get(x.seat, 0) + 1
            if per_seat[x.seat] <= KEPT:
                kept.append(x)
        self.letters = tuple(reversed(kept))
        return self.letters
