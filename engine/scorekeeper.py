"""Scorekeeper mode: the kiosk keeps the score sheet for a table playing with its own cards.

There is no deal and no play to referee: after each hand the players enter what the rules
score (bids and tricks in the Spades games, hearts and Q♠ in the Hearts games, stage-two
tricks in German Whist) and the ``ScoreSheet`` scores it. What a game's entries are and how
they score is the game's keep-score rules (``keeping.Keeping``, named by its descriptor,
``catalog.GameInfo.keeping``), which score with the *same* functions the games use
(``spades_2p.score_hand``, ``partnership_spades.score_hand``/``game_end``,
``hearts_common.moon_points``, ``hearts.omnibus_points``, ``german_whist.hand_points``/
``game_end``, ``base.lowest_total_wins``, ``spades_common.higher_total_wins``), so a hand
entered here scores exactly as the same hand played through the engine (a property test checks
it on random games).

Entries per hand of the built-in games (plain JSON, what a record stores as
``{"entries": {...}}``):

- Two-player Spades: ``{"bids": [b0, b1], "double_nil": [bool, bool], "tricks": [t0, t1]}``
  (bid 0 is Nil; Double Nil needs bid 0; tricks add up to 13).
- Partnership Spades: ``{"bids": [4], "blind_nil": [4 bools], "tricks": [4]}`` (Blind Nil
  needs bid 0, at most one per team, and the team trailing by more than ``blind_nil_margin``).
- Hearts: ``{"hearts": [n], "qs": seat, "omnibus": seat or null, "moon": null|"self"|"others"}``
  (hearts add up to 13; ``omnibus`` only, and then always, with the omnibus option; ``moon``
  only, and then always, when one seat took all 13 hearts and the Q♠).
- Cancellation Hearts: ``{"hearts": [n], "qs": [n], "nobody_hearts": h, "nobody_qs": q,
  "moon": ...}`` (hearts add up to 26 and Q♠ to 2 with what nobody took; nobody takes anything
  only under ``last_trick_cancelled = "nobody"``: a fully cancelled last trick and every
  cancelled trick still waiting under it).
- German Whist: ``{"tricks": [t0, t1]}``: stage-two tricks (13), or all tricks (26) with
  ``score_all_tricks``.

Score corrections (seat, points, reason) are kept apart from the entries, shown on the sheet
and written to the record's ``corrections`` in the referee's shape (``after_hand``); in
partnership-spades a correction counts for the seat's team.

Hand corrections (``amend``): any earlier hand's entries replaced by corrected ones, with when
and why (``{"hand": 3, "entries": {...}, "reason": "revoke", "at": "2025-05-02T21:14:03",
"after_hand": 5}``: hand 3, counted from 1, corrected when 5 hands were on the sheet). The
entries first entered stay (the sheet shows them on request, ``hand_results[h]["original"]``);
the hand scores with its last correction, and every total, bag count and the game's end after
it follow. A dealt game's hands are corrected the same way (``sheet_of_game``,
``rescore_game``): the referee's record of the plays stays as it was, and the correction is an
adjustment the record carries (``hand_corrections``, RECORDS.md).

The sheet is a pure function of its entries, corrections and hand corrections: ``undo`` drops
the last of them (whichever was made last) and the sheet is re-scored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from . import catalog
from .errors import RecordError
from .keeping import HAND_TRICKS, EntryError, Keeping
from .keeping import is_int as _is_int
from .options import non_defaults, resolve
from .record_input import require_hands

__all__ = ["HAND_TRICKS", "EntryError", "ScoreSheet", "check_hand_corrections", "entries_from_figures",
           "is_scorekeeper_record", "rescore_game", "sheet_of_game"]

MODE = "scorekeeper"
FORMAT = "trickref-record/1"


def keeping_class(game: str) -> type[Keeping]:
    """The keep-score rules of ``game`` (its descriptor's ``keeping``)."""
    cls = catalog.load(catalog.info(game).keeping)
    assert isinstance(cls, type) and issubclass(cls, Keeping)
    return cls


class ScoreSheet:
    """One scorekept game: entries per hand, corrections, and everything scored from them.

    Read-only attributes (kept up to date by ``enter``/``undo``/``correct``): ``totals``,
    ``bags`` (None outside the Spades games; partners share their team's), ``hand_results``
    (per hand: ``points``, ``totals``, ``entries`` and ``bags`` in the Spades games),
    ``over``, ``winners``, ``dealer`` (who deals the next hand) and ``corrections``.
    """

    def __init__(
        self,
        game: str,
        players: int,
        options: Mapping[str, Any] | None = None,
        first_dealer: int = 0,
        names: Sequence[str] | None = None,
    ) -> None:
        info = catalog.info(game)
        if players not in info.player_counts:
            lo, hi = min(info.player_counts), max(info.player_counts)
            span = f"{lo}" if lo == hi else f"{lo} to {hi}"
            raise RecordError("players", f"{game} is for {span} players, not {players}")
        if not _is_int(first_dealer) or not 0 <= first_dealer < players:
            raise RecordError("first_dealer", f"must be a seat from 0 to {players - 1}, not {first_dealer!r}")
        self.GAME_ID: str = game
        self.TITLE: str = info.title
        self.TEAMS: bool = info.teams
        self.n: int = players
        self.options: dict[str, Any] = resolve(game, options)
        self.first_dealer: int = first_dealer
        self.names: list[str] = list(names) if names is not None else [f"Seat {i + 1}" for i in range(players)]
        if len(self.names) != players:
            raise RecordError("players", f"{players} seats need {players} names, not {len(self.names)}")
        self.amending = False  # a ``before(hand)`` sheet a correction is checked on (nil_allowed)
        self._hasbags = info.has_bags
        self.keeping: Keeping = keeping_class(game)(self)
        self._moon_total: int = self.keeping.MOON_TOTAL
        self.entries: list[dict[str, Any]] = []  # canonical entries, one per hand, as first entered
        self.corrections: list[dict[str, Any]] = []
        self.amendments: list[dict[str, Any]] = []  # hand corrections, in the order made
        self._ops: list[str] = []  # "hand", "correction", "amendment": what undo takes back, last first
        self._rescore()

    # ------------------------------------------------------------------ what the kiosk asks
    def schema(self) -> list[dict[str, Any]]:
        """The fields of one hand's entry, in the order the kiosk asks for them.

        Each field: ``key``, ``kind`` ("count": a whole number per seat, "toggle": yes/no per
        seat, "holder": one seat, "number": one whole number for nobody), ``label``, ``min``
        and ``max`` where they apply, ``sum`` (what the seats' counts must add up to) and
        ``needs_bid_zero`` for the Nil toggles."""
        return self.keeping.schema()

    def omnibus_label(self) -> str:
        return self.keeping.holder_label("omnibus")

    def blank(self) -> dict[str, Any]:
        """An entry with nothing filled in (zeros, no holder) for the kiosk to start from."""
        n = self.n
        out: dict[str, Any] = {}
        for f in self.schema():
            k = f["kind"]
            out[f["key"]] = [0] * n if k == "count" else [False] * n if k == "toggle" else None if k == "holder" else 0
        if self._moon_total:
            out["moon"] = None
        return out

    def nil_allowed(self, seat: int) -> bool:
        """Whether ``seat`` may declare the game's special Nil this hand (Double Nil in
        two-player Spades: always; Blind Nil in Partnership Spades: its team trails by more than
        ``blind_nil_margin``)."""
        return self.keeping.nil_allowed(seat)

    def moon_shooter(self, entries: Mapping[str, Any]) -> int | None:
        """The seat that took every point card in these (otherwise sound) entries, else None."""
        if not self._moon_total:
            return None
        taken = self.keeping.points_taken(entries)
        if taken is None or self._moon_total not in taken:
            return None
        return taken.index(self._moon_total)

    def tally(self, entries: Mapping[str, Any]) -> list[str]:
        """The running check lines ('tricks: 12 of 13') for what is entered so far."""
        lines: list[str] = []
        for f in self.schema():
            v = entries.get(f["key"])
            if f["kind"] == "count" and "sum" in f and isinstance(v, list):
                got = sum(x for x in v if _is_int(x))
                want = f["sum"]
                extra = self.keeping.nobody(f["key"], entries)
                got += extra
                nobody = " (nobody's included)" if extra else ""
                label = f["label"] if f["label"].startswith("Q") else f["label"].lower()
                lines.append(f"{label}: {got} of {want}{nobody}")
            elif f["kind"] == "holder":
                who = self.names[v] if _is_int(v) and 0 <= v < self.n else "not chosen"
                lines.append(f"{f['label']}: {who}")
        return lines

    # ------------------------------------------------------------------ entering hands
    def check(self, entries: Mapping[str, Any]) -> str | None:
        """None when ``entries`` can be the next hand, else why not in words."""
        try:
            self._canonical(entries)
        except EntryError as e:
            return e.reason
        return None

    def enter(self, entries: Mapping[str, Any]) -> list[int]:
        """Score the next hand; returns its points. Raises ``EntryError`` (a ValueError) naming
        what cannot be right, and then changes nothing."""
        canon = self._canonical(entries)
        self.entries.append(canon)
        self._ops.append("hand")
        self._step(len(self.entries) - 1)
        return list(self.hand_results[-1]["points"])

    def correct(self, seat: int, points: int, reason: str = "") -> None:
        """A score correction between hands: ``points`` added to ``seat`` (its team in
        partnership-spades), kept with its reason; it can end (or reopen) the game."""
        if not _is_int(seat) or not 0 <= seat < self.n:
            raise EntryError(f"a correction names a seat from 0 to {self.n - 1}, not {seat!r}")
        if not _is_int(points) or points == 0:
            raise EntryError(f"a correction is a non-zero whole number of points, not {points!r}")
        if not isinstance(reason, str):
            raise EntryError("the reason of a correction is text")
        self.corrections.append({"after_hand": len(self.entries), "seat": seat, "points": points, "reason": reason})
        self._ops.append("correction")
        self._rescore()

    # ------------------------------------------------------------------ correcting a hand
    def effective(self, h: int) -> dict[str, Any]:
        """Hand ``h``'s entries (``h`` from 0) as the sheet scores them: its last correction's,
        else the entries first entered."""
        for a in reversed(self.amendments):
            if a["hand"] == h + 1:
                return dict(a["entries"])
        return dict(self.entries[h])

    def before(self, hand: int) -> ScoreSheet:
        """The sheet as it stood before hand ``hand`` (counted from 1), every earlier hand with
        its corrections: what correcting that hand is checked against (its Blind Nil margin,
        its dealer). A plain ScoreSheet of its own, never over."""
        ctx = ScoreSheet(self.GAME_ID, self.n, self.options, self.first_dealer, self.names)
        ctx.entries = [self.effective(h) for h in range(hand - 1)]
        ctx.corrections = [dict(c) for c in self.corrections if c["after_hand"] <= hand - 1]
        ctx._rescore()
        ctx.over, ctx.winners = False, []
        ctx.amending = True
        return ctx

    def copy(self) -> ScoreSheet:
        """An independent plain copy (to try a change on)."""
        new = ScoreSheet(self.GAME_ID, self.n, self.options, self.first_dealer, self.names)
        new.entries = [dict(e) for e in self.entries]
        new.corrections = [dict(c) for c in self.corrections]
        new.amendments = [dict(a) for a in self.amendments]
        new._ops = self._ops[:]
        new._rescore()
        return new

    def check_amend(self, hand: int, entries: Mapping[str, Any]) -> dict[str, Any]:
        """``entries`` checked and canonical as a correction of hand ``hand`` (from 1);
        EntryError says what cannot be right (a hand not on the sheet, entries that cannot
        be, entries that change nothing)."""
        if not _is_int(hand) or not 1 <= hand <= len(self.entries):
            have = f"hands 1 to {len(self.entries)}" if self.entries else "no hand yet"
            raise EntryError(f"there is no hand {hand!r} to correct (the sheet has {have})")
        canon = self.before(hand)._canonical(entries, amending=True)
        if canon == self.effective(hand - 1):
            raise EntryError(f"hand {hand} already has these figures: nothing to correct")
        return canon

    def amend(self, hand: int, entries: Mapping[str, Any], reason: str = "", at: str = "",
              by: str | None = None) -> dict[str, Any]:
        """Correct hand ``hand`` (counted from 1): its entries replaced by ``entries``, with
        ``reason`` and when (``at``, the caller's clock: the engine keeps none); the hand, every
        total after it and the game's end are scored again. Returns the correction as kept.
        Raises EntryError, and then changes nothing."""
        if not isinstance(reason, str) or not isinstance(at, str):
            raise EntryError("the reason and time of a correction are text")
        canon = self.check_amend(hand, entries)
        a: dict[str, Any] = {"hand": hand, "entries": canon, "reason": reason, "at": at,
                             "after_hand": len(self.entries)}
        if by:
            a["by"] = by
        self.amendments.append(a)
        self._ops.append("amendment")
        self._rescore()
        return dict(a)

    def corrected_hands(self) -> list[int]:
        """The hands (from 1) that have a correction."""
        return sorted({a["hand"] for a in self.amendments})

    def set_first_dealer(self, seat: int) -> None:
        """Who dealt the first hand (the deal then passes left); only before any hand or
        correction is on the sheet."""
        if self.entries or self.corrections or self.amendments:
            raise EntryError("the first dealer is chosen before the first hand is entered")
        if not _is_int(seat) or not 0 <= seat < self.n:
            raise EntryError(f"the first dealer is a seat from 0 to {self.n - 1}, not {seat!r}")
        self.first_dealer = seat
        self._rescore()

    def can_undo(self) -> bool:
        return bool(self.entries or self.corrections or self.amendments)

    def _last_change(self) -> str | None:
        """What was changed last: "hand", "correction" or "amendment" (None: nothing)."""
        if self._ops:
            return self._ops[-1]
        if self.corrections and self.corrections[-1]["after_hand"] == len(self.entries):
            return "correction"
        return "hand" if self.entries else None

    def undo(self) -> dict[str, Any]:
        """Take back the last hand, score correction or hand correction (whichever came last);
        returns ``{"entries": ...}``, ``{"correction": ...}`` or ``{"amendment": ...}``.
        ValueError when there is nothing."""
        kind = self._last_change()
        if kind is None:
            raise EntryError("nothing to undo: no hand has been entered")
        if self._ops:
            self._ops.pop()
        if kind == "amendment":
            a = self.amendments.pop()
            self._rescore()
            return {"amendment": a}
        if kind == "correction":
            c = self.corrections.pop()
            self._rescore()
            return {"correction": c}
        e = self.entries.pop()
        self._rescore()
        return {"entries": e}

    def redo(self, taken: Mapping[str, Any]) -> None:
        """Put back what ``undo`` returned (a journal that could not record the undo)."""
        if "amendment" in taken:
            self.amendments.append(dict(taken["amendment"]))
            self._ops.append("amendment")
        elif "correction" in taken:
            self.corrections.append(dict(taken["correction"]))
            self._ops.append("correction")
        else:
            self.entries.append(dict(taken["entries"]))
            self._ops.append("hand")
        self._rescore()

    def last_undo_text(self) -> str | None:
        """What ``undo`` would take back, in words (for the kiosk's confirmation)."""
        kind = self._last_change()
        if kind == "amendment":
            return f"the correction of hand {self.amendments[-1]['hand']}"
        if kind == "correction":
            c = self.corrections[-1]
            return f"the correction {self.names[c['seat']]} {c['points']:+d}"
        if kind == "hand":
            return f"hand {len(self.entries)}"
        return None

    @property
    def hand_number(self) -> int:
        """Hands entered so far."""
        return len(self.entries)

    # ------------------------------------------------------------------ scoring
    def _rescore(self) -> None:
        """Score every hand and correction from the start: the sheet is a function of them
        (undo and corrections re-score; entering a hand only adds its step)."""
        n = self.n
        self.totals: list[int] = [0] * n
        self.bags: list[int] | None = [0] * n if self._hasbags else None
        self.hand_results: list[dict[str, Any]] = []
        self.over: bool = False
        self.winners: list[int] = []
        self._apply_corrections(0)
        for h in range(len(self.entries)):
            self._step(h)
        self.dealer: int = (self.first_dealer + len(self.entries)) % n

    def _step(self, h: int) -> None:
        """Score hand ``h`` on top of the sheet after hand ``h - 1``, then the corrections
        made after it."""
        first = self.entries[h]
        fixes = [a for a in self.amendments if a["hand"] == h + 1]
        e = dict(fixes[-1]["entries"]) if fixes else first
        bags_before = None if self.bags is None else self.bags[:]
        pts = self._score(e)
        for i, p in enumerate(pts):
            self.totals[i] += p
        row: dict[str, Any] = {"points": pts, "totals": self.totals[:], "entries": e}
        if self.bags is not None:
            row["bags"] = self.bags[:]
        if fixes:  # what the hand first said, scored the same way (same bags before it)
            after = self.bags
            self.bags = bags_before
            row["original"] = {"entries": dict(first), "points": self._score(first)}
            self.bags = after
            row["corrections"] = [dict(a) for a in fixes]
        self.hand_results.append(row)
        self.over, self.winners = self._game_end()
        self._apply_corrections(h + 1)
        self.dealer = (self.first_dealer + h + 1) % self.n

    def _apply_corrections(self, after: int) -> None:
        hit = False
        for c in self.corrections:
            if c["after_hand"] == after:
                seats = [c["seat"], (c["seat"] + 2) % self.n] if self.TEAMS else [c["seat"]]
                for s in seats:
                    self.totals[s] += c["points"]
                hit = True
        if hit and after:
            self.over, self.winners = self._game_end()

    def _game_end(self) -> tuple[bool, list[int]]:
        return self.keeping.game_end()

    def _score(self, e: Mapping[str, Any]) -> list[int]:
        """The points of canonical entries ``e``; updates the bag counters."""
        return self.keeping.score(e)

    # ------------------------------------------------------------------ checking entries
    def _canonical(self, entries: Mapping[str, Any], amending: bool = False) -> dict[str, Any]:
        """The entries checked and in canonical form; EntryError says what cannot be right.
        ``amending``: a correction of a hand already played (on ``before(hand)``): the game's
        end and the Blind Nil margin were the table's to judge when it was played."""
        if self.over and not amending:
            raise EntryError("the game is over")
        if not isinstance(entries, Mapping):
            raise EntryError(f"a hand's entries are an object of named counts, not {type(entries).__name__}")
        known = {f["key"] for f in self.schema()} | self.keeping.EXTRA_KEYS
        extra = sorted(set(entries) - known)
        if extra:
            raise EntryError(f"{self.GAME_ID} has no entry {extra[0]!r} (it asks for {', '.join(sorted(known))})")
        return self.keeping.canonical(entries, amending)

    # ------------------------------------------------------------------ records
    def summary(self) -> dict[str, Any]:
        """The ``trickref replay --json`` object (RECORDS.md), as for a dealt game."""
        return {
            "game": self.GAME_ID,
            "hands": [{"points": r["points"], "totals": r["totals"]} for r in self.hand_results],
            "totals": self.totals[:],
            "bags": None if self.bags is None else self.bags[:],
            "over": self.over,
            "winners": self.winners[:],
        }

    def to_json(self) -> dict[str, Any]:
        """The game as a record: RECORDS.md plus ``"mode": "scorekeeper"``, hands as
        ``{"entries": {...}}`` and the corrections."""
        out: dict[str, Any] = {
            "format": FORMAT,
            "mode": MODE,
            "game": self.GAME_ID,
            "players": list(self.names),
            "options": non_defaults(self.GAME_ID, self.options),
            "first_dealer": self.first_dealer,
            "hands": [{"entries": dict(e)} for e in self.entries],
        }
        if self.corrections:
            out["corrections"] = [dict(c) for c in self.corrections]
        if self.amendments:
            out["hand_corrections"] = [dict(a) for a in self.amendments]
        return out

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> ScoreSheet:
        """Rebuild a sheet from its record. RecordError for a file that is not a valid
        scorekeeper record; EntryError (with ``hand``) at the first entry that cannot be right."""
        if not isinstance(obj, Mapping):
            raise RecordError("file", f"a record is a JSON object, not {type(obj).__name__}")
        if obj.get("format") != FORMAT:
            raise RecordError("format", f"must be {FORMAT!r}, not {obj.get('format')!r}")
        if obj.get("mode") != MODE:
            raise RecordError("mode", f"must be {MODE!r} for a scorekept game, not {obj.get('mode')!r}")
        game = obj.get("game")
        if not catalog.known(game):
            raise RecordError("game", f"unknown game {game!r} (one of {', '.join(catalog.game_ids())})")
        players = obj.get("players")
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise RecordError("players", "must be a list of player names (strings)")
        sheet = cls(str(game), len(players), obj.get("options") or {}, obj.get("first_dealer", 0), players)
        require_hands(obj)
        hands = obj["hands"]
        if not isinstance(hands, list):
            raise RecordError("hands", "must be a list of hands")
        corrections = obj.get("corrections", [])
        if not isinstance(corrections, list):
            raise RecordError("corrections", "must be a list of objects")
        checked: list[dict[str, Any]] = []
        for i, c in enumerate(corrections):
            where = f"corrections[{i}]"
            if not isinstance(c, Mapping):
                raise RecordError(where, "must be an object with after_hand, seat, points and reason")
            after, seat, points = c.get("after_hand"), c.get("seat"), c.get("points")
            if not _is_int(after) or not 0 <= after <= len(hands):
                raise RecordError(f"{where}.after_hand", f"must be a hand count from 0 to {len(hands)}, not {after!r}")
            if not _is_int(seat) or not 0 <= seat < sheet.n:
                raise RecordError(f"{where}.seat", f"no seat {seat!r} at a table of {sheet.n}")
            if not _is_int(points):
                raise RecordError(f"{where}.points", f"must be a whole number, not {points!r}")
            checked.append(dict(c))
        fixes = check_hand_corrections(obj.get("hand_corrections", []), len(hands))
        # every change where it was made (after ``after_hand`` hands): score corrections, then
        # hand corrections, then the next hand
        for h in range(len(hands) + 1):
            for c in checked:
                if c["after_hand"] == h:
                    sheet.corrections.append(c)
                    sheet._ops.append("correction")
                    sheet._rescore()
            for i, a in enumerate(fixes):
                if a["after_hand"] == h:
                    try:
                        sheet.amend(a["hand"], a["entries"], a.get("reason", ""), a.get("at", ""), a.get("by"))
                    except EntryError as e:
                        raise RecordError(f"hand_corrections[{i}].entries", e.reason) from None
            if h == len(hands):
                break
            hand = hands[h]
            if not isinstance(hand, Mapping) or not isinstance(hand.get("entries"), Mapping):
                raise RecordError(f"hands[{h}]", "a scorekept hand is an object {\"entries\": {...}}")
            try:
                sheet.enter(hand["entries"])
            except EntryError as e:
                raise EntryError(e.reason, h) from None
        return sheet


def is_scorekeeper_record(obj: object) -> bool:
    """True for a JSON object written by a ScoreSheet (``"mode": "scorekeeper"``)."""
    return isinstance(obj, Mapping) and obj.get("mode") == MODE


def check_hand_corrections(fixes: object, hands: int) -> list[dict[str, Any]]:
    """A record's ``hand_corrections`` checked for their shape (RecordError names the field):
    each an object with ``hand`` (from 1, a hand finished when it was made), ``after_hand``
    (hands finished then, up to ``hands``), ``entries`` (an object), optional ``reason``,
    ``at`` and ``by`` (text), ``during_hand`` and ``after_action`` (whole numbers). Whether
    the entries can be right is the sheet's to say (``ScoreSheet.amend``)."""
    if not isinstance(fixes, list):
        raise RecordError("hand_corrections", "must be a list of objects")
    out: list[dict[str, Any]] = []
    for i, a in enumerate(fixes):
        where = f"hand_corrections[{i}]"
        if not isinstance(a, Mapping):
            raise RecordError(where, "must be an object with hand, after_hand, entries and reason")
        after = a.get("after_hand")
        if not _is_int(after) or not 0 <= after <= hands:
            raise RecordError(f"{where}.after_hand", f"must be a hand count from 0 to {hands}, not {after!r}")
        hand = a.get("hand")
        if not _is_int(hand) or not 1 <= hand <= after:
            raise RecordError(f"{where}.hand", f"must be a hand finished when it was corrected (1 to {after}), "
                                               f"not {hand!r}")
        if not isinstance(a.get("entries"), Mapping):
            raise RecordError(f"{where}.entries", "must be an object of the hand's figures")
        for key in ("reason", "at", "by"):
            if key in a and not isinstance(a[key], str):
                raise RecordError(f"{where}.{key}", f"must be text, not {a[key]!r}")
        for key in ("during_hand", "after_action"):
            if key in a and (not _is_int(a[key]) or a[key] < 0):
                raise RecordError(f"{where}.{key}", f"must be a whole number, not {a[key]!r}")
        out.append(dict(a))
    return out


def entries_from_figures(game: str, options: Mapping[str, Any], figures: Mapping[str, Any]) -> dict[str, Any]:
    """A played hand's entries (the shape this module scores) from the figures the engine keeps
    in the hand's ``hand_results`` row (``GameState._hand_figures``): what the players of a
    table keeping score would have entered for that hand (the game's ``Keeping.from_figures``)."""
    return keeping_class(game).from_figures(options, figures)


def sheet_of_game(state: Any, corrections: Sequence[Mapping[str, Any]] = (),
                  hand_corrections: Sequence[Mapping[str, Any]] = ()) -> ScoreSheet:
    """A dealt game's score sheet: each finished hand's entries read off the engine
    (``entries_from_figures``), the admin's score ``corrections`` and ``hand_corrections``
    (the referee's shapes). It scores every hand as the engine did, so a game's sheet with no
    correction has the engine's points, totals and bags."""
    sheet = ScoreSheet(state.GAME_ID, state.n, state.options, state.first_dealer, state.names)
    sheet.entries = [entries_from_figures(state.GAME_ID, state.options, r.get("figures") or {})
                     for r in state.hand_results]
    sheet.corrections = [{"after_hand": int(c["after_hand"]), "seat": int(c["seat"]), "points": int(c["points"]),
                          "reason": str(c.get("reason", ""))} for c in corrections]
    sheet.amendments = [dict(a) for a in hand_corrections]
    sheet._rescore()
    return sheet


def rescore_game(state: Any, corrections: Sequence[Mapping[str, Any]],
                 hand_corrections: Sequence[Mapping[str, Any]], recheck_end: bool) -> None:
    """Score a dealt game again with its hand corrections: every finished hand's row
    (points, totals, bags; a corrected hand's ``entries``, ``original`` and ``corrections``),
    the totals and the bag counters the next hand starts from. The plays and figures stay as
    played. ``recheck_end`` (between hands): the game ends, or goes on, by the corrected
    totals; during a hand that is judged when the hand ends, as for any hand."""
    sheet = sheet_of_game(state, corrections, hand_corrections)
    rows: list[dict[str, Any]] = []
    for old, new in zip(state.hand_results, sheet.hand_results, strict=True):
        row = {k: v for k, v in old.items() if k not in ("entries", "original", "corrections")}
        row["points"], row["totals"] = new["points"][:], new["totals"][:]
        if "bags" in new:
            row["bags"] = new["bags"][:]
        if "corrections" in new:
            row["entries"] = dict(new["entries"])
            row["original"] = {"entries": dict(new["original"]["entries"]), "points": new["original"]["points"][:]}
            row["corrections"] = [dict(a) for a in new["corrections"]]
        rows.append(row)
    state.hand_results = rows
    state.totals = sheet.totals[:]
    if state.bags is not None and sheet.bags is not None:
        state.bags = sheet.bags[:]
    if recheck_end and state.phase in ("deal", "over") and state.hand_number:
        state.over, state.winners = state._game_end()
        state.phase = "over" if state.over else "deal"
