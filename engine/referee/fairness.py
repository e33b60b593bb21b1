"""Fair dealing anyone can check: a commitment per hand, revealed at the hand's end.

Before a hand is dealt the table shows ``commitment(deck, salt)`` (a SHA-256; the screen shows
its first 12 hex digits, the record the whole hash). The salt is a secret random string of at
least 128 bits (32 hex digits, ``check_salt``) that stops anyone from guessing the deck from the
hash. When the hand ends the salt is revealed in
the record, so anyone can recompute the hash from the recorded deck and salt and see that the
deck played is the deck committed to before anybody saw a card.

Double Nil replacements (spades-2p) are "drawn at random from the discard pile": the referee
derives them from the hand's salt (``replacements``), so a replay is exact and, once the salt is
revealed, anyone can check that the replacements were not chosen by hand.

``verify_record`` checks every hand of a record: pure, used by ``trickref verify``. Its words
count hands and actions from 1 and name seats by their players (``trickref replay`` does the
same); ``HandCheck.hand`` stays the 0-based index.
"""

from __future__ import annotations

import hashlib
import random
import re
import secrets
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import cards as C
from ..errors import IllegalAction, RecordError
from ..games import game_class
from ..records import Record, parse

COMMIT_PREFIX = "trickref-commit/1"
SHORT_DIGITS = 24  # 96 bits: matching another deck order to it by brute force is out of reach
SALT_BITS = 128  # the least a salt may have: a shorter one lets the deck be guessed from the hash
SALT_HEX_DIGITS = SALT_BITS // 4
_HEX = re.compile(r"^[0-9a-f]+$")


def commitment(deck: Sequence[int | str], salt: str) -> str:
    """The full commitment (64 hex digits) of a deck order and a salt."""
    names = " ".join(C.NAMES[C.to_card(c)] for c in deck)
    return hashlib.sha256(f"{COMMIT_PREFIX}\n{names}\n{salt}".encode()).hexdigest()


def short(full: str) -> str:
    """What the screen shows: the first 24 hex digits (96 bits), in groups of four for reading
    aloud or photographing. 48 bits (12 digits) could be matched by another deck order with a
    few days of hashing; 96 cannot."""
    s = full[:SHORT_DIGITS]
    return " ".join(s[i:i + 4] for i in range(0, len(s), 4))


def replacements(salt: str, hand: int, seat: int, pool: Sequence[int], k: int) -> tuple[int, ...]:
    """The ``k`` Double Nil replacement cards for ``seat`` in hand ``hand`` (0-based), drawn
    from ``pool`` (the discard pile) by a generator seeded from the salt. Sorted."""
    if k == 0:
        return ()
    digest = hashlib.sha256(f"trickref-exchange/1|{salt}|{hand}|{seat}".encode()).digest()
    rng = random.Random(int.from_bytes(digest, "big"))
    return tuple(sorted(rng.sample(sorted(pool), k)))


def discard_pool(state: Any) -> list[int]:
    """The cards of the hand's deck in nobody's hand (spades-2p after the draw: the discards)."""
    left = Counter(state.deck)
    for s in range(state.n):
        left.subtract(state.hand_of(s))
    return sorted(left.elements())


@dataclass
class HandCheck:
    hand: int
    ok: bool
    commitment: str | None
    problems: list[str] = field(default_factory=list)

    def line(self) -> str:
        c = self.commitment[:SHORT_DIGITS] if self.commitment else "-"
        status = "OK" if self.ok else "MISMATCH"
        return f"hand {self.hand + 1}: {status} {c}" + ("" if self.ok else ": " + "; ".join(self.problems))


_SEAT_WORD = re.compile(r"\bseat (\d+)('s)?")


def name_seats(text: str, players: Sequence[str]) -> str:
    """Engine words for people: "seat 2" (0-based) becomes that player's name when known."""
    def name(m: re.Match[str]) -> str:
        s = int(m[1])
        return players[s] + (m[2] or "") if 0 <= s < len(players) else m[0]
    return _SEAT_WORD.sub(name, text)


def new_salt() -> str:
    """A fresh secret salt: 128 random bits as 32 lowercase hex digits."""
    return secrets.token_hex(SALT_BITS // 8)


def check_salt(salt: object) -> str | None:
    """Why ``salt`` cannot bind a commitment, or None. A salt is at least 32 lowercase hex
    digits (128 bits): with fewer, a player who knows some of the cards (their own hand) could
    try every salt and recover the rest of the deck from the commitment shown before the deal."""
    if not isinstance(salt, str) or not salt:
        return "no salt revealed"
    if not _HEX.match(salt):
        return "the salt is not lowercase hex digits (0-9, a-f)"
    if len(salt) < SALT_HEX_DIGITS:
        return (f"the salt is {len(salt)} hex digit{'s' if len(salt) != 1 else ''} ({len(salt) * 4} bits); "
                f"it must be at least {SALT_HEX_DIGITS} ({SALT_BITS} bits), or the deck could be "
                "recovered from the commitment by trying every salt")
    return None


def verify_record(source: str | bytes | Mapping[str, Any] | Record) -> list[HandCheck]:
    """Check every hand: the commitment matches sha256 of its deck and revealed salt, and every
    Double Nil exchange drew the replacements the salt dictates. RecordError if the file is
    not a valid record."""
    record = source if isinstance(source, Record) else parse(source)
    cls = game_class(record.game)
    state = cls(len(record.players), record.options, record.first_dealer, record.players)
    out: list[HandCheck] = []

    def who(seat: int) -> str:  # words for people: the player's name and seat, counted from 1
        name = record.players[seat] if 0 <= seat < len(record.players) else "?"
        return f"{name} (seat {seat + 1})"

    for h, (deck, acts) in enumerate(record.hands):
        meta = record.hand_fields[h] if h < len(record.hand_fields) else {}
        full = meta.get("commitment")
        salt = meta.get("salt")
        problems: list[str] = []
        if not isinstance(full, str) or len(full) != 64 or not _HEX.match(full):
            problems.append("no commitment (64 hex digits) recorded")
            full = full if isinstance(full, str) else None
        elif check_salt(salt) is not None:
            problems.append(str(check_salt(salt)))
        elif commitment(deck, str(salt)) != full:
            problems.append("the deck and salt do not hash to the commitment (the deck was changed)")
        replay_ok = True
        if state.needs_deck:
            state.start_hand(deck)
            for i, (seat, action) in enumerate(acts):
                if action.kind == "exchange" and isinstance(salt, str) and salt:
                    give, get = action.value
                    want = replacements(salt, h, seat, discard_pool(state), len(give))
                    if tuple(get) != want:
                        problems.append(
                            f"action {i + 1}: {who(seat)} got {' '.join(C.names(get)) or 'nothing'} but the "
                            f"salt draws {' '.join(C.names(want)) or 'nothing'}"
                        )
                try:
                    state.apply(action, seat)
                except IllegalAction as e:
                    problems.append(f"action {i + 1}: {who(seat)} cannot {action.describe()}: "
                                    f"{name_seats(e.reason, record.players)}")
                    replay_ok = False
                    break
        else:
            problems.append("the previous hand had not ended")
            replay_ok = False
        out.append(HandCheck(h, not problems, full, problems))
        if not replay_ok:
            for h2 in range(h + 1, len(record.hands)):
                out.append(HandCheck(h2, False, None, ["not checked: an earlier hand did not replay"]))
            break
    return out


__all__ = ["RecordError", "commitment", "short", "replacements", "verify_record", "HandCheck"]
