"""The check code: one finished hand's fair-dealing proof in a compact text for a QR code.

After a hand the kiosk shows a QR code holding this text (after the verify page's address and
a ``#``, so a phone's camera opens the page with it and the data never leaves the phone: a URL's
fragment is not sent to the server). Fields are separated by dots::

    1.h.3.<commitment>.<salt>.<deck>.<head>[.<language>]

- ``1``: the form's version;
- the game: one letter, its descriptor's ``check_letter`` (h Hearts, c Cancellation Hearts,
  s Two-player Spades, p Partnership Spades, w German Whist);
- the hand's number, counted from 1;
- the commitment shown before the deal: its 32 bytes in base64url without padding (43
  characters; RFC 4648 section 5);
- the salt revealed after the hand, as the record writes it (lowercase hex);
- the deck order, top first, one letter per card (``CARD_LETTERS``): ``A``-``M`` the spades
  2 to ace, ``N``-``Z`` the hearts, ``a``-``m`` the diamonds, ``n``-``z`` the clubs (the card's
  number in ``engine.cards`` is its letter's place); 52 letters per deck (104 for two);
- the head of the chain of plays after this hand (``chain``), base64url like the commitment;
- optionally the kiosk's language (``en``, ``fr``, ``ht``, ``tr``), so the page answers in it.

A Hearts hand is about 190 characters; with ``http://192.168.1.20:8088/verify#`` in front it
is a version 11 QR code at error correction M (12 for two decks' 104 cards).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Sequence
from dataclasses import dataclass

from .. import cards as C
from .. import catalog

VERSION = "1"
CARD_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
LANGUAGES = ("en", "fr", "ht", "tr")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_SALT = re.compile(r"^[0-9a-f]+$")
_B64 = re.compile(r"^[A-Za-z0-9_-]{43}$")


class CheckCodeError(ValueError):
    """A check code that cannot be read: which field, and why."""


@dataclass(frozen=True)
class CheckCode:
    game: str
    hand: int  # counted from 1
    commitment: str  # 64 hex digits
    salt: str
    deck: tuple[int, ...]
    chain: str  # 64 hex digits
    language: str | None = None


def hex_to_b64(h: str) -> str:
    return base64.urlsafe_b64encode(bytes.fromhex(h)).decode("ascii").rstrip("=")


def b64_to_hex(b: str) -> str:
    return base64.urlsafe_b64decode(b + "=").hex()


def encode(code: CheckCode) -> str:
    """The compact text (no address in front)."""
    for name, value in (("commitment", code.commitment), ("chain", code.chain)):
        if not _HEX64.match(value):
            raise CheckCodeError(f"the {name} must be 64 lowercase hex digits, not {value!r}")
    if not _SALT.match(code.salt):
        raise CheckCodeError(f"the salt must be lowercase hex digits, not {code.salt!r}")
    letter = catalog.info(code.game).check_letter
    if not letter:
        raise CheckCodeError(f"{code.game} has no check-code letter (its descriptor's check_letter)")
    fields = [VERSION, letter, str(code.hand), hex_to_b64(code.commitment), code.salt,
              "".join(CARD_LETTERS[c] for c in code.deck), hex_to_b64(code.chain)]
    if code.language:
        fields.append(code.language)
    return ".".join(fields)


def make(game: str, hand: int, commitment: str, salt: str, deck: Sequence[int | str], chain: str,
         language: str | None = None) -> str:
    return encode(CheckCode(game, hand, commitment, salt, tuple(C.to_card(c) for c in deck), chain,
                            language if language in LANGUAGES else None))


def decode(text: str) -> CheckCode:
    """Read a check code: the compact text, or a whole address with it after ``#``.
    CheckCodeError names the field that is wrong."""
    t = text.strip()
    if "#" in t:
        t = t.split("#", 1)[1]
    parts = t.split(".")
    if not parts or parts[0] != VERSION:
        raise CheckCodeError(f"not a trickref check code (it starts {parts[0][:12]!r}, not '1.')")
    if len(parts) not in (7, 8):
        raise CheckCodeError(f"a check code has 7 or 8 fields separated by dots, not {len(parts)}")
    found = catalog.by_letter(parts[1])
    if found is None:
        letters = [g.check_letter for g in catalog.games() if g.check_letter]
        raise CheckCodeError(f"unknown game letter {parts[1]!r} (one of {', '.join(letters)})")
    game = found.id
    if not parts[2].isdigit() or int(parts[2]) < 1:
        raise CheckCodeError(f"the hand number must be a whole number from 1, not {parts[2]!r}")
    hexes = []
    for name, b in (("commitment", parts[3]), ("chain", parts[6])):
        if not _B64.match(b):
            raise CheckCodeError(f"the {name} must be 43 base64url characters, not {len(b)}")
        hexes.append(b64_to_hex(b))
    if not _SALT.match(parts[4]):
        raise CheckCodeError("the salt must be lowercase hex digits")
    bad = sorted({ch for ch in parts[5] if ch not in CARD_LETTERS})
    if bad:
        raise CheckCodeError(f"the deck holds {''.join(bad)!r}, which are not card letters")
    lang = parts[7] if len(parts) == 8 else None
    if lang is not None and lang not in LANGUAGES:
        raise CheckCodeError(f"unknown language {lang!r}")
    return CheckCode(game, int(parts[2]), hexes[0], parts[4], tuple(CARD_LETTERS.index(ch) for ch in parts[5]),
                     hexes[1], lang)
