"""Fair dealing anyone can check: a commitment per hand, revealed at the hand's end, and a chain
of the plays.

Before a hand is dealt the table shows ``commitment(deck, salt)`` (a SHA-256; the screen shows
its first 24 hex digits, the record the whole hash). The salt is a secret random string of at
least 128 bits (32 hex digits, ``check_salt``) that stops anyone from guessing the deck from the
hash. When the hand ends the salt is revealed in the record, so anyone can recompute the hash
from the recorded deck and salt and see that the deck played is the deck committed to before
anybody saw a card. When the hand ends the table also shows the head of the chain of plays
(chain.py), and a QR code with the hand's check code (checkcode.py: commitment, salt, deck and
head) that the verify page (device/verify_web) checks on a phone.

Double Nil replacements (spades-2p) are "drawn at random from the discard pile": the referee
derives them from the hand's salt, so a replay is exact and, once the salt is revealed, anyone
can check that the replacements were not chosen by hand. Rule exchange/2 (the hand's record
field ``exchange``; ``exchange_positions``, ``replacements_at``) takes the cards at places of
the pile the salt fixes before the deal, so a sorting hopper can park them at the bottom of its
loop during the draw; exchange/1 (``replacements``, records without the field) draws from the
pile sorted by card.

``verify_record`` checks every hand of a record: pure, used by ``trickref verify``. Its words
count hands and actions from 1 and name seats by their players (``trickref replay`` does the
same); ``HandCheck.hand`` stays the 0-based index. docs/FAIRNESS.md says in plain words what
these checks prove, and to whom.
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
from . import chain
from .checkcode import CheckCode

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


EXCHANGE_PILE = 26  # a spades-2p discard pile: 26 turns, one card discarded each


def exchange_positions(salt: str, hand: int, seat: int, k: int = 3) -> tuple[int, ...]:
    """Rule exchange/2 (docs/FAIRNESS.md; the record's hand field ``exchange``): the
    places in the discard pile (0 = the card discarded on the first turn) of ``seat``'s Double
    Nil replacement candidates in hand ``hand``, in the order they are taken: the first k are
    the replacements when k cards are exchanged. Drawn from the salt alone, so fixed before the
    deal (the commitment covers the salt) and independent of the deck and of the players'
    choices: every ordered choice of k places out of 26 equally likely, so the replacements are
    a uniformly random k of the 26 discards, as with exchange/1. Known to the referee during the
    draw, so a sorting hopper can park those discards at the bottom of the loop."""
    digest = hashlib.sha256(f"trickref-exchange/2|{salt}|{hand}|{seat}".encode()).digest()
    rng = random.Random(int.from_bytes(digest, "big"))
    return tuple(rng.sample(range(EXCHANGE_PILE), k))


EXCHANGE_V1, EXCHANGE_V2 = "exchange/1", "exchange/2"
EXCHANGE_RULES = (EXCHANGE_V1, EXCHANGE_V2)


def exchange_rule(meta: Mapping[str, Any]) -> str:
    """The Double Nil draw rule of a hand (its record field ``exchange``; none: exchange/1)."""
    rule = meta.get("exchange")
    return rule if isinstance(rule, str) else EXCHANGE_V1


def draw_replacements(meta: Mapping[str, Any], hand: int, seat: int, state: Any, k: int) -> tuple[int, ...]:
    """The ``k`` replacements for ``seat``'s Double Nil exchange in hand ``hand`` (0-based),
    under the hand's rule: exchange/1 (``replacements``, from the pile sorted by card) or
    exchange/2 (``replacements_at``, the pile in the order the cards joined it)."""
    salt = str(meta.get("salt"))
    if exchange_rule(meta) == EXCHANGE_V2:
        return replacements_at(salt, hand, seat, list(state.discards), k)
    return replacements(salt, hand, seat, discard_pool(state), k)


def replacements_at(salt: str, hand: int, seat: int, pile: Sequence[int], k: int) -> tuple[int, ...]:
    """Rule exchange/2: the ``k`` replacements, the cards of ``pile`` (the discards in the order
    they were discarded) at ``exchange_positions``' first k places. Sorted, as exchange/1's."""
    if len(pile) != EXCHANGE_PILE:
        raise ValueError(f"a discard pile of {len(pile)} cards (exchange/2 draws from {EXCHANGE_PILE})")
    return tuple(sorted(pile[p] for p in exchange_positions(salt, hand, seat)[:k]))


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
    chain: str | None = None  # the head recomputed from the record (None: the hand did not end)
    points: list[int] | None = None  # what the hand scores under the rules (None: it did not end)
    scanned: bool = False  # a check code scanned at the table was compared with this hand

    def line(self) -> str:
        c = self.commitment[:SHORT_DIGITS] if self.commitment else "-"
        if not self.ok:
            return f"hand {self.hand + 1}: MISMATCH {c}: " + "; ".join(self.problems)
        tail = f" plays {self.chain[:SHORT_DIGITS]}" if self.chain else ""
        return f"hand {self.hand + 1}: OK {c}{tail}" + (" (matches the code scanned at the table)" if self.scanned else "")


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


def verify_record(source: str | bytes | Mapping[str, Any] | Record, scans: Sequence[CheckCode] = (),
                  deal_only: bool = False) -> list[HandCheck]:
    """Check every hand: the commitment matches sha256 of its deck and revealed salt; every
    Double Nil exchange drew the replacements the salt dictates; every action is legal under
    the rules; the points recorded are what the plays score; and the chain of plays (chain.py)
    recomputed from the record ends in the head recorded for the hand. ``scans``: check codes
    read from the table's QR codes (checkcode.py); the hand with the same commitment must have
    the same deck, salt and chain head. ``deal_only`` accepts hands with no chain recorded
    (records written before the chain existed): their plays are then checked against the rules
    only. RecordError if the file is not a valid record."""
    record = source if isinstance(source, Record) else parse(source)
    cls = game_class(record.game)
    state = cls(len(record.players), record.options, record.first_dealer, record.players)
    out: list[HandCheck] = []
    before = chain.game_head(record.game, record.players, record.options, record.first_dealer)

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
        ended = False
        if state.needs_deck:
            state.start_hand(deck)
            for i, (seat, action) in enumerate(acts):
                if action.kind == "exchange" and isinstance(salt, str) and salt:
                    give, get = action.value
                    want = draw_replacements(meta, h, seat, state, len(give))
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
            ended = replay_ok and len(state.hand_results) > h
        else:
            problems.append("the previous hand had not ended")
            replay_ok = False
        check = HandCheck(h, False, full, problems)
        if ended:
            before = _check_plays(check, meta, before, acts, list(state.hand_results[h]["points"]), deal_only)
        elif not replay_ok and isinstance(meta.get("chain"), str):
            before = _check_plays(check, meta, before, acts, None, True)  # say whether the plays were changed
        elif isinstance(meta.get("chain"), str):
            problems.append("a chain head is recorded for a hand that had not ended")
        elif isinstance(salt, str) and salt and not deal_only:
            problems.append("the salt is revealed but the hand had not ended, and no chain head is recorded")
        for scan in scans:
            if full is not None and scan.commitment == full:
                check.scanned = True
                problems.extend(_scan_problems(scan, deck, salt, check.chain, h))
        check.ok = not problems
        out.append(check)
        if not replay_ok:
            for h2 in range(h + 1, len(record.hands)):
                out.append(HandCheck(h2, False, None, ["not checked: an earlier hand did not replay"]))
            break
    return out


def _check_plays(check: HandCheck, meta: Mapping[str, Any], before: str, acts: Sequence[tuple[int, Any]],
                 points: list[int] | None, deal_only: bool) -> str:
    """The points and chain head of a hand that ended (``points``: what it scores under the
    rules; None when its plays did not replay); returns the head the next hand starts from
    (the recorded one when there is one: each hand is checked on its own)."""
    problems = check.problems
    check.points = points
    said = meta.get("points")
    if said is None and points is None:
        problems.append("no points recorded for the hand, so its chain cannot be checked")
        return before
    if said is not None and points is not None and list(said) != points:
        problems.append(f"the record says the hand scored {_pts(said)}, but its plays score {_pts(points)} "
                        "under the rules")
    head = meta.get("chain")
    if check.commitment is None:
        return head if isinstance(head, str) else before
    check.chain = chain.hand_head(before, check.commitment, acts, said if said is not None else points or [])
    if head is None:
        if not deal_only:
            problems.append("no chain head recorded: the plays are not bound to what the table showed "
                            "(--deal-only checks such an older record's deal and rules alone)")
        return check.chain
    if said is None:
        problems.append("no points recorded for the hand, so its chain cannot be checked")
    elif not isinstance(head, str) or not _HEX.match(head) or len(head) != 64:
        problems.append("the chain head recorded is not 64 hex digits")
    elif head != check.chain:
        problems.append("the plays do not hash to the chain head recorded at the table "
                        f"({head[:SHORT_DIGITS]}): an action or the points were changed, added or removed")
    return head if isinstance(head, str) else check.chain


def _pts(points: Sequence[int]) -> str:
    return " ".join(f"{p:+d}" for p in points)


def _scan_problems(scan: CheckCode, deck: Sequence[int], salt: Any, head: str | None, h: int) -> list[str]:
    out = []
    if list(scan.deck) != list(deck):
        out.append("the deck differs from the one in the QR code scanned at the table")
    if scan.salt != salt:
        out.append("the salt differs from the one in the QR code scanned at the table")
    if head is not None and scan.chain != head:
        out.append(f"the plays differ from those the table showed: its QR code ends in {scan.chain[:SHORT_DIGITS]}, "
                   f"the record's plays in {head[:SHORT_DIGITS]}")
    if scan.hand != h + 1:
        out.append(f"the QR code scanned at the table was for hand {scan.hand}, not hand {h + 1}")
    return out


def unmatched_scans(source: Record, scans: Sequence[CheckCode]) -> list[CheckCode]:
    """The scanned check codes whose commitment is no hand's of the record."""
    commits = {m.get("commitment") for m in source.hand_fields}
    return [s for s in scans if s.commitment not in commits]


__all__ = ["RecordError", "commitment", "short", "replacements", "verify_record", "HandCheck", "unmatched_scans"]
