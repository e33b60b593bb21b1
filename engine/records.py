"""Game records (RECORDS.md): parsing with precise errors, writing, and replay.

``parse`` turns JSON (text or already-loaded) into a ``Record`` or raises ``RecordError`` naming
the field; ``replay`` applies every action through the rules and raises ``ReplayError`` at the
first illegal one; ``summary`` is the ``trickref replay --json`` object.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import actions as A
from .base import GameState, RecordCodec, check_deck, use_record_codec
from .errors import IllegalAction, RecordError
from .games import GAME_IDS, game_class
from .record_input import check_card_names, check_depth, load_json, require_hands

if TYPE_CHECKING:
    from .scorekeeper import ScoreSheet

FORMAT = "trickref-record/1"

HandLog = tuple[list[int], list[tuple[int, A.Action]]]


@dataclass
class Record:
    game: str
    players: list[str]
    options: dict[str, Any] = field(default_factory=dict)
    first_dealer: int = 0
    hands: list[HandLog] = field(default_factory=list)
    # Added fields (RECORDS.md allows them): per hand, the fair-dealing "commitment" and
    # "salt", the Double Nil draw rule "exchange" (spades-2p), and at its end the "points" it scored and the "chain" head of the plays, when present (same length as ``hands`` or empty); score corrections made by an
    # admin at the table, in the order made.
    hand_fields: list[dict[str, Any]] = field(default_factory=list)
    corrections: list[dict[str, Any]] = field(default_factory=list)
    # earlier hands corrected at the table (engine.scorekeeper: ``hand``, ``entries``,
    # ``reason``, ``at``, ``by``, ``after_hand``, and ``during_hand``/``after_action`` for one
    # made during a hand), in the order made
    hand_corrections: list[dict[str, Any]] = field(default_factory=list)


HAND_FIELDS = ("commitment", "salt", "exchange", "points", "chain")


class ReplayError(ValueError):
    """An illegal action met while replaying: where it is, and the engine's reason."""

    def __init__(self, hand: int, action_index: int, seat: int, action: A.Action, reason: str) -> None:
        self.hand = hand
        self.action_index = action_index
        self.seat = seat
        self.action = action
        self.reason = reason
        super().__init__(
            f"hand {hand}, action {action_index}: seat {seat} cannot {action.describe()}: {reason}"
        )


def parse(source: str | bytes | Mapping[str, Any]) -> Record:
    """A checked Record from JSON text or a loaded object; RecordError names what is wrong."""
    if isinstance(source, (str, bytes)):
        obj = load_json(source)
    else:
        obj = source
        check_depth(obj)
    if not isinstance(obj, Mapping):
        raise RecordError("file", f"a record is a JSON object, not {type(obj).__name__}")
    fmt = obj.get("format")
    if fmt != FORMAT:
        raise RecordError("format", f"must be {FORMAT!r}, not {fmt!r}")
    if obj.get("mode") == "scorekeeper":
        raise RecordError("mode", "a scorekept game (hands of entries, no decks): read it with "
                                  "trickref.engine.scorekeeper.ScoreSheet.from_json (records.load_any does)")
    game = obj.get("game")
    if not isinstance(game, str) or game not in GAME_IDS:
        raise RecordError("game", f"unknown game {game!r} (one of {', '.join(GAME_IDS)})")
    cls = game_class(game)
    players = obj.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise RecordError("players", "must be a list of player names (strings)")
    if len(players) not in cls.PLAYER_COUNTS:
        lo, hi = min(cls.PLAYER_COUNTS), max(cls.PLAYER_COUNTS)
        span = f"{lo}" if lo == hi else f"{lo} to {hi}"
        raise RecordError("players", f"{game} is for {span} players, not {len(players)}")
    options = obj.get("options", {})
    if options is None:
        options = {}
    from .options import resolve

    resolve(game, options)  # raises RecordError("options.x", ...)
    first_dealer = obj.get("first_dealer", 0)
    if isinstance(first_dealer, bool) or not isinstance(first_dealer, int) or not 0 <= first_dealer < len(players):
        raise RecordError("first_dealer", f"must be a seat from 0 to {len(players) - 1}, not {first_dealer!r}")
    require_hands(obj)
    hands_obj = obj["hands"]
    if not isinstance(hands_obj, list):
        raise RecordError("hands", "must be a list of hands")
    hands: list[HandLog] = []
    hand_fields: list[dict[str, Any]] = []
    for h, hand in enumerate(hands_obj):
        where = f"hands[{h}]"
        if not isinstance(hand, Mapping):
            raise RecordError(where, "a hand must be an object with \"deck\" and \"actions\"")
        deck_obj = hand.get("deck")
        if not isinstance(deck_obj, list):
            raise RecordError(f"{where}.deck", "must be a list of cards")
        check_card_names(deck_obj, f"{where}.deck")
        deck = check_deck(deck_obj, cls.DECKS, f"{where}.deck")
        acts_obj = hand.get("actions", [])
        if not isinstance(acts_obj, list):
            raise RecordError(f"{where}.actions", "must be a list of actions")
        acts = [A.from_record(a, f"{where}.actions[{i}]") for i, a in enumerate(acts_obj)]
        for i, (seat, _) in enumerate(acts):
            if not 0 <= seat < len(players):
                raise RecordError(f"{where}.actions[{i}].seat", f"no seat {seat} at a table of {len(players)}")
        hands.append((deck, acts))
        extra: dict[str, Any] = {}
        for key in HAND_FIELDS:
            if key in hand:
                v = hand[key]
                if key == "points":
                    if not isinstance(v, list) or len(v) != len(players) or not all(
                            isinstance(p, int) and not isinstance(p, bool) for p in v):
                        raise RecordError(f"{where}.points", f"must be a list of {len(players)} whole numbers "
                                                             f"(one per seat), not {v!r}")
                    extra[key] = list(v)
                    continue
                if key == "exchange":  # the Double Nil draw rule (engine/referee/fairness.py)
                    if v not in ("exchange/1", "exchange/2"):
                        raise RecordError(f"{where}.exchange", f"must be \"exchange/1\" or \"exchange/2\", not {v!r}")
                    extra[key] = v
                    continue
                if not isinstance(v, str):
                    raise RecordError(f"{where}.{key}", f"must be a string of hex digits, not {v!r}")
                extra[key] = v
        hand_fields.append(extra)
    corrections = obj.get("corrections", [])
    if not isinstance(corrections, list) or not all(isinstance(c, Mapping) for c in corrections):
        raise RecordError("corrections", "must be a list of objects")
    for i, c in enumerate(corrections):
        for key, lo, hi in (("seat", 0, len(players) - 1), ("after_hand", 0, len(hands))):
            v = c.get(key)
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                raise RecordError(f"corrections[{i}].{key}", f"must be a whole number from {lo} to {hi}, not {v!r}")
        pts = c.get("points")
        if isinstance(pts, bool) or not isinstance(pts, int):
            raise RecordError(f"corrections[{i}].points", f"must be a whole number, not {pts!r}")
    if not any(hand_fields):
        hand_fields = []
    from .scorekeeper import check_hand_corrections

    fixes = check_hand_corrections(obj.get("hand_corrections", []), len(hands))
    for i, f in enumerate(fixes):
        if "during_hand" in f and ("after_action" not in f or f["during_hand"] != f["after_hand"] + 1):
            raise RecordError(f"hand_corrections[{i}].during_hand",
                              "a correction made during a hand names that hand (after_hand + 1) and after_action")
    return Record(game, list(players), dict(options), first_dealer, hands, hand_fields,
                  [dict(c) for c in corrections], fixes)


def load(path: str) -> Record:
    """Read and parse a record file ('-' is standard input)."""
    return parse(_read(path))


def _read(path: str) -> bytes:
    import sys

    if path == "-":
        return sys.stdin.buffer.read()
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise RecordError("file", f"cannot read {path}: {e.strerror}") from None


def load_any(path: str) -> Record | ScoreSheet:
    """A dealt game's Record, or for a scorekept game (``"mode": "scorekeeper"``, hands of
    ``{"entries": ...}``) its ScoreSheet, already scored: RecordError for an invalid file,
    scorekeeper.EntryError (with ``hand``) for an entry that cannot be right."""
    from .scorekeeper import ScoreSheet, is_scorekeeper_record

    obj = load_json(_read(path))
    if is_scorekeeper_record(obj):
        return ScoreSheet.from_json(obj)
    return parse(obj)


def dump(record: Record) -> dict[str, Any]:
    """The record as the JSON object of RECORDS.md, canonical card names."""
    from . import cards as C

    hands: list[dict[str, Any]] = []
    for h, (deck, acts) in enumerate(record.hands):
        hand: dict[str, Any] = {"deck": C.names(deck), "actions": [A.to_record(s, a) for s, a in acts]}
        if h < len(record.hand_fields):
            hand.update({k: v for k, v in record.hand_fields[h].items() if k in HAND_FIELDS})
        hands.append(hand)
    out: dict[str, Any] = {
        "format": FORMAT,
        "game": record.game,
        "players": list(record.players),
        "options": dict(record.options),
        "first_dealer": record.first_dealer,
        "hands": hands,
    }
    if record.corrections:
        out["corrections"] = [dict(c) for c in record.corrections]
    if record.hand_corrections:
        out["hand_corrections"] = [dict(c) for c in record.hand_corrections]
    return out


def dumps(record: Record) -> str:
    return json.dumps(dump(record), indent=None, separators=(",", ":")) + "\n"


def record_of(state: GameState) -> Record:
    from .options import non_defaults

    return Record(state.GAME_ID, list(state.names), non_defaults(state.GAME_ID, state.options),
                  state.first_dealer, state.record_hands())


def replay(record: Record) -> GameState:
    """Rebuild the game by applying every action; ReplayError at the first illegal one."""
    state = game_class(record.game)(len(record.players), record.options, record.first_dealer, record.players)
    # Score corrections are applied where they were made: after ``after_hand`` hands had ended
    # (one made during the next hand is applied before it, without a game-end check then).
    # Hand corrections too, one made during a hand after as many of its actions as then: the
    # hands after it were played on the totals it gave.
    pending = list(record.corrections)
    done: list[dict[str, Any]] = []
    fixes = list(record.hand_corrections)
    fixed: list[dict[str, Any]] = []

    def corrections_due() -> None:
        while pending and pending[0]["after_hand"] <= len(state.hand_results):
            c = pending.pop(0)
            done.append(c)
            state.correct(c["seat"], c["points"], recheck_end="during_hand" not in c)
        while fixes and "during_hand" not in fixes[0] and fixes[0]["after_hand"] <= len(state.hand_results):
            fixed.append(dict(fixes.pop(0)))
            _rescore(state, done, fixed, recheck_end=True)

    def fixes_in_hand(actions_taken: int) -> None:
        while fixes and fixes[0].get("during_hand") == state.hand_number and fixes[0]["after_action"] <= actions_taken:
            fixed.append(dict(fixes.pop(0)))
            _rescore(state, done, fixed, recheck_end=False)

    for h, (deck, acts) in enumerate(record.hands):
        corrections_due()
        if state.over:
            raise ReplayError(h, 0, acts[0][0] if acts else 0, acts[0][1] if acts else A.Action("deal", None),
                              "the game was already over before this hand")
        if not state.needs_deck:
            s, a = (acts[0] if acts else (0, A.Action("deal", None)))
            raise ReplayError(h, 0, s, a, f"hand {h - 1} had not ended (the record is missing its last actions)")
        state.start_hand(deck)
        for i, (seat, action) in enumerate(acts):
            fixes_in_hand(i)
            try:
                state.apply(action, seat)
            except IllegalAction as e:
                raise ReplayError(h, i, seat, action, e.reason) from None
        if state.phase not in ("deal", "over"):
            fixes_in_hand(len(acts))
    corrections_due()
    if fixes:  # one that names a hand the record does not reach (a truncated record)
        f = fixes[0]
        raise RecordError("hand_corrections", f"the correction of hand {f['hand']} was made at a point the "
                                              "record's hands do not reach")
    return state


def _rescore(state: GameState, corrections: list[dict[str, Any]], fixes: list[dict[str, Any]],
             recheck_end: bool) -> None:
    """A record's hand corrections applied to the replayed game (engine.scorekeeper); a
    correction whose figures cannot be right is a broken record."""
    from .scorekeeper import EntryError, rescore_game, sheet_of_game

    f = fixes[-1]
    try:
        f["entries"] = sheet_of_game(state, corrections, fixes[:-1]).check_amend(f["hand"], f["entries"])
    except EntryError as e:
        raise RecordError(f"hand_corrections[{len(fixes) - 1}].entries", e.reason) from None
    rescore_game(state, corrections, fixes, recheck_end)


def summary(state: GameState) -> dict[str, Any]:
    """The object ``trickref replay --json`` prints."""
    return {
        "game": state.GAME_ID,
        "hands": [{"points": r["points"], "totals": r["totals"]} for r in state.hand_results],
        "totals": state.totals[:],
        "bags": None if state.bags is None else state.bags[:],
        "over": state.over,
        "winners": state.winners[:],
    }


def _state_to_json(state: GameState) -> dict[str, Any]:
    return dump(record_of(state))


def _state_from_json(obj: Mapping[str, Any]) -> GameState:
    return replay(parse(obj))


use_record_codec(RecordCodec(_state_to_json, _state_from_json))
