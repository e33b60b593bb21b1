"""The chain of a game's plays: one SHA-256 hash that binds every action of every hand so far.

The deck commitment (``fairness.commitment``) proves that the deck dealt is the deck fixed
before anybody saw a card; it says nothing about what was played. The chain does: each hand's
links start from the previous hand's head (the first hand's from the game's head: its game,
players, options and first dealer) and the hand's commitment, take in every action in the order
it was taken, and end with the points the hand scored. The head of hand ``h`` is shown on the
kiosk when the hand ends (its first 24 hex digits, and whole in the hand's QR code) and written
in the record as the hand's ``"chain"`` field. Change one action of any hand before it, or its
points, and the head comes out different. Anyone can recompute a head (there is no secret in
it): what makes it a proof is a copy of the head taken at the table (a photo, a phone that
scanned the QR, the club hub that received the hand), compared with the head recomputed from
the record later. docs/FAIRNESS.md says what this proves to whom.

The texts hashed (UTF-8; every hash is lowercase hex; ``\\n`` is a newline):

- game head: ``trickref-chain/1 game\\n<game>\\n<first_dealer>\\n<players>\\n<options>``, where
  ``players`` and ``options`` are canonical JSON (``canon``: keys sorted, no spaces, every
  character outside printable ASCII escaped as ``\\uXXXX``), the options as the record writes
  them (only those that differ from the defaults);
- a hand's first link: ``trickref-chain/1 hand\\n<previous head>\\n<commitment>``;
- each action: ``<link>\\n<action text>``, the action text as ``action_text`` writes it
  (``2 play QS``, ``1 bid 4``, ``3 moon others``, ``0 double_nil``, ``0 draw keep``, and with the
  cards of a pass or an exchange in the engine's order, spades, hearts, diamonds, clubs and 2 to
  ace in each: ``0 pass QS 7H 2C``, ``1 exchange give 3S 9D get 8H 4C``);
- the hand's end: ``<link>\\nend <points of each seat, space-separated>``: its head.

The verify page (device/verify_web) computes the same texts in the browser: keep both in step.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .. import actions as A
from .. import cards as C

CHAIN_PREFIX = "trickref-chain/1"


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def canon(value: Any) -> str:
    """Canonical JSON: keys sorted, no spaces, only printable ASCII (``\\uXXXX`` escapes)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def game_head(game: str, players: Sequence[str], options: Mapping[str, Any], first_dealer: int) -> str:
    """Where the chain starts: the game, its first dealer, its players and its options."""
    return _sha(f"{CHAIN_PREFIX} game\n{game}\n{first_dealer}\n{canon(list(players))}\n{canon(dict(options))}")


def action_text(seat: int, action: A.Action) -> str:
    """One action as the chain hashes it: ``<seat> <kind>`` then its value in words and cards."""
    k, v = action
    if k == "play":
        tail = [C.NAMES[v]]
    elif k == "pass":
        tail = C.names(sorted(v))
    elif k == "exchange":
        tail = ["give", *C.names(sorted(v[0])), "get", *C.names(sorted(v[1]))]
    elif k in ("double_nil", "blind_nil"):
        tail = []
    else:  # bid, draw, moon
        tail = [str(v)]
    return " ".join([str(seat), k, *tail])


def hand_start(previous: str, commitment: str) -> str:
    return _sha(f"{CHAIN_PREFIX} hand\n{previous}\n{commitment}")


def link(previous: str, seat: int, action: A.Action) -> str:
    return _sha(f"{previous}\n{action_text(seat, action)}")


def hand_end(previous: str, points: Iterable[int]) -> str:
    return _sha(f"{previous}\nend " + " ".join(str(int(p)) for p in points))


def hand_head(previous: str, commitment: str, actions: Iterable[tuple[int, A.Action]],
              points: Iterable[int]) -> str:
    """The head of a finished hand: from the previous head (or the game head) through the
    hand's commitment and every action to its points."""
    h = hand_start(previous, commitment)
    for seat, action in actions:
        h = link(h, seat, action)
    return hand_end(h, points)
