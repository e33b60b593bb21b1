"""The state of one game at the table: what every game shares.

A ``GameState`` is a whole game (many hands), never a single hand: totals, bags, the dealer's
seat, the hands played so far and the hand in progress. The engine never shuffles: each hand
starts when the caller supplies its deck order (``start_hand``), which is what makes a game a
pure function of its record (decks plus actions) and lets records replay exactly.

The verbs, after python-chess and OpenSpiel:

- ``turn_seats()``: the seats that may act now (several while passing, none before a deal).
- ``legal_actions(seat)``: every legal action of that seat, as a read-only sequence of ``Action``
  objects: a list, a shared tuple (the plays of one suit when following it) or a lazy sequence
  where there are hundreds (the Hearts passes). Do not modify it; ``list()`` it for a list.
- ``check(action, seat)``: ``None`` when legal, else the rule it breaks in words.
- ``apply(action, seat)``: take it and return the seats on turn after it (what
  ``turn_seats()`` would return next), or raise ``IllegalAction`` and change nothing.
- ``undo()``: take back the last action (re-deals the hand's deck and replays the rest).
- ``copy()``: a cheap independent copy (bots search on copies).
- ``view(seat)`` / ``public_view()``: what one seat, or the shared screen, may know.
- ``to_json()`` / ``from_json()``: the state as a game record (RECORDS.md) and back.

Subclasses (one module per game) implement the ``_``-prefixed hooks below and keep their hand
state in plain lists and ints (hands as 52-bit masks, see masks.py) so that ``copy`` stays
cheap; the games override ``turn_seats``, ``legal_actions`` and ``apply`` with fast paths for
their common actions and defer to these for everything else (test_fast_paths checks that
both agree).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Final

from . import cards as C
from .actions import Action
from .errors import IllegalAction, RecordError
from .options import resolve
from .rand import Rand

if TYPE_CHECKING:  # the compiler's mark only (mypyc reads it); never imported at run time
    from mypy_extensions import mypyc_attr


def _no_mark(**kw: Any) -> Any:
    return lambda cls: cls


# At run time the mark is a no-op: the compiled build has applied it (mypyc), the pure one needs none.
globals().setdefault("mypyc_attr", _no_mark)

Seat = int

# True when this module runs compiled (mypyc, see setup.py): its classes are then native
# classes, with their fields in slots of their own and no ``__dict__``. The code below reads
# and writes fields by name where it used ``__dict__`` (``_fields``).
COMPILED: Final[bool] = not __file__.endswith((".py", ".pyc"))


# A plug-in game's rules class (engine/catalog.py) is interpreted Python subclassing this one:
# the compiled class must allow it (mypyc's allow_interpreted_subclasses).
@mypyc_attr(allow_interpreted_subclasses=True)
class GameState:
    GAME_ID: ClassVar[str] = ""
    TITLE: ClassVar[str] = ""
    PLAYER_COUNTS: ClassVar[tuple[int, ...]] = ()
    DECKS: ClassVar[int] = 1
    HAS_BAGS: ClassVar[bool] = False
    # a Double Nil exchange whose replacements a salt rule draws (fairness.EXCHANGE_*: the
    # record and the journal name the rule the hand used)
    DOUBLE_NIL_EXCHANGE: ClassVar[bool] = False
    TEAMS: ClassVar[bool] = False  # partnership games: seats s and s+2 share totals and bags
    # Each bag counter per seat in the games with bags (HAS_BAGS), else None (this default,
    # no instance field). Why fields are few: CPython 3.11 keeps an instance's fields inline
    # (the fastest attribute access) while its class has at most 29 of them; with a 30th,
    # or once anything reads the instance's ``__dict__``, they move into a dict of their own
    # for good and every attribute access takes a slower path (a random Hearts hand took
    # 1.15-1.4x as long). test_fast_paths checks the count; _snapshot avoids __dict__.
    bags: list[int] | None = None

    # ------------------------------------------------------------------ construction
    def __init__(
        self,
        players: int,
        options: Mapping[str, Any] | None = None,
        first_dealer: int = 0,
        names: Sequence[str] | None = None,
        *,
        _blank: bool = False,
    ) -> None:
        if _blank:  # no field set: a copy or snapshot fills them in (``_blank()``, below)
            return
        if players not in self.PLAYER_COUNTS:
            lo, hi = min(self.PLAYER_COUNTS), max(self.PLAYER_COUNTS)
            span = f"{lo}" if lo == hi else f"{lo} to {hi}"
            raise RecordError("players", f"{self.GAME_ID} is for {span} players, not {players}")
        if not 0 <= first_dealer < players:
            raise RecordError("first_dealer", f"must be a seat from 0 to {players - 1}, not {first_dealer}")
        self.n: int = players
        self.options: dict[str, Any] = resolve(self.GAME_ID, options)
        self.first_dealer: int = first_dealer
        self.names: list[str] = list(names) if names is not None else [f"Seat {i + 1}" for i in range(players)]
        self.dealer: int = first_dealer
        self.hand_number: int = 0  # hands dealt so far (the one in progress included)
        self.totals: list[int] = [0] * players
        if self.HAS_BAGS:  # the other games keep no field: bags is the class default None
            self.bags = [0] * players
        # per finished hand: {"points": [...], "totals": [...], "bags": [...] (spades games),
        # "figures": {...}} (``_hand_figures``: what each seat bid and took in that hand)
        self.hand_results: list[dict[str, Any]] = []
        self.over: bool = False
        self.winners: list[int] = []
        self.phase: str = "deal"
        self.deck: list[int] = []
        self.actions: list[tuple[int, Action]] = []  # this hand's actions, in order
        self.finished_hands: list[tuple[list[int], list[tuple[int, Action]]]] = []
        self._snaps: list[GameState] = []  # the state just before each hand's deal
        self._reset_hand()

    # ------------------------------------------------------------------ hooks for games
    def _reset_hand(self) -> None:
        """Set the per-hand fields to their empty values (before a deal)."""

    def _deal(self) -> None:
        """Deal ``self.deck`` (already checked) and set the first phase of the hand."""
        raise NotImplementedError

    def _turn(self) -> tuple[int, ...]:
        raise NotImplementedError

    def _legal(self, seat: int) -> Sequence[Action]:
        raise NotImplementedError

    def _check(self, seat: int, action: Action) -> str | None:
        """None when legal, else the rule broken in words ('must follow clubs')."""
        raise NotImplementedError

    def _apply(self, seat: int, action: Action) -> None:
        """Carry out a legal action. At the hand's end, call ``_end_hand(points)``."""
        raise NotImplementedError

    def _public_extra(self) -> dict[str, Any]:
        return {}

    def _hand_figures(self) -> dict[str, Any]:
        """The hand just finished in figures, per seat (bids, tricks taken, point cards taken):
        kept in its ``hand_results`` row as ``figures``, since the next deal resets the hand's
        fields. Called once, when the hand is booked. Games add theirs."""
        return {}

    def _private_extra(self, seat: int) -> dict[str, Any]:
        return {}

    def trick_log(self) -> list[dict[str, Any]]:
        """Every trick of the hand so far, public information only (what was played face up):
        per trick ``leader``, ``cards`` ([seat, card name] in play order), ``winner`` (None
        while the trick is open, or when nobody won it), ``done`` and, where the game has
        them, ``cancelled`` (card names that cancelled each other) and ``stage``. The trick
        in progress comes last. Empty outside the play of a hand; games that play tricks
        override it. Never a card still in a hand."""
        return []

    def _hand_of(self, seat: int) -> list[int]:
        raise NotImplementedError

    def card_locations(self) -> dict[str, list[int]] | None:
        """Where every card of the current hand lies, by place ("hand0".., "trick", "taken",
        "discards", "widow", "removed", "stock"): together every card of the deck, each
        ``DECKS`` times. For the cross-game tests; None when a game does not say (the tests
        then check hands and plays only)."""
        return None

    # ------------------------------------------------------------------ the verbs
    @property
    def needs_deck(self) -> bool:
        """True between hands: the caller must supply the next deck order."""
        return self.phase == "deal" and not self.over

    def turn_seats(self) -> tuple[int, ...]:
        if self.phase in ("deal", "over"):
            return ()
        return self._turn()

    @property
    def to_move(self) -> int | None:
        """The single seat on turn, or None (between hands, or several seats while passing)."""
        t = self.turn_seats()
        return t[0] if len(t) == 1 else None

    def start_hand(self, deck: Sequence[int | str]) -> None:
        """Deal the next hand from ``deck`` (top first): 52 cards, or 104 for two decks."""
        self._check_dealable()
        self._start(check_deck(deck, self.DECKS))

    def start_random_hand(self, rand: Rand) -> list[int]:
        """Deal the next hand from a full deck ``rand`` shuffles (Fisher-Yates) and return that
        order, top first (also ``deck``, what the record keeps): a simulation's deal (self-play,
        the benchmarks), as OpenSpiel's engine deals its own hand at its chance nodes. A table's
        hands come from the dealer's cards, through ``start_hand``."""
        self._check_dealable()
        order = C.full_deck(self.DECKS)
        rand.shuffle(order)
        self._start(order)
        return order[:]

    def _check_dealable(self) -> None:
        """IllegalAction unless a hand may be dealt now (between hands, the game not over)."""
        if self.over:
            raise IllegalAction(None, "deal", "the game is over")
        if self.phase != "deal":
            raise IllegalAction(None, "deal", "the hand in progress has not ended")

    def _start(self, order: list[int]) -> None:
        """Deal the next hand from ``order``, a checked deck order of this game's own."""
        self._snaps.append(self._snapshot())
        self._reset_hand()
        self.deck = order
        self.actions = []
        self.hand_number += 1
        self._deal()

    def legal_actions(self, seat: int | None = None) -> Sequence[Action]:
        if self.phase in ("deal", "over"):
            return []
        # fast path for the common case (an int seat in range; bool is not int here)
        s = seat if type(seat) is int and 0 <= seat < self.n else self._seat_for(seat, None)
        if s not in self._turn():
            return []
        return self._legal(s)

    def check(self, action: Action, seat: int | None = None) -> str | None:
        """None if ``seat`` may take ``action`` now, else the reason in words."""
        if self.over:
            return "the game is over"
        if self.phase == "deal":
            return "the hand has not been dealt"
        try:
            s = self._seat_for(seat, action)
        except IllegalAction as e:
            return e.reason
        if not isinstance(action, Action):
            return f"not an action: {action!r}"
        if s not in self._turn():
            return self._not_your_turn(s)
        return self._check(s, action)

    def apply(self, action: Action, seat: int | None = None) -> tuple[int, ...]:
        """Take ``action`` for ``seat`` (default: the single seat on turn); illegal ones raise.
        Returns the seats on turn after it (``turn_seats()``): a driving loop needs no second
        call per decision (the games' fast paths return the tuple they keep)."""
        if self.over:
            raise IllegalAction(seat, action, "the game is over")
        if self.phase == "deal":
            raise IllegalAction(seat, action, "the hand has not been dealt")
        s = seat if type(seat) is int and 0 <= seat < self.n else self._seat_for(seat, action)
        if type(action) is not Action and not isinstance(action, Action):
            raise IllegalAction(s, action, "not an action")
        if s not in self._turn():
            raise IllegalAction(s, action, self._not_your_turn(s))
        reason = self._check(s, action)
        if reason is not None:
            raise IllegalAction(s, action, reason)
        self.actions.append((s, action))
        self._apply(s, action)
        return self.turn_seats()

    def _not_your_turn(self, seat: int) -> str:
        t = self._turn()
        if not t:
            return "nobody is on turn"
        if len(t) == 1:
            return f"it is seat {t[0]}'s turn"
        return "it is not this seat's turn (waiting for seats " + ", ".join(map(str, t)) + ")"

    def _seat_for(self, seat: int | None, action: object) -> int:
        if seat is None:
            t = self._turn()
            if len(t) != 1:
                raise IllegalAction(None, action, "several seats are on turn: say which seat acts")
            return t[0]
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.n:
            raise IllegalAction(None, action, f"there is no seat {seat!r} at a table of {self.n}")
        return seat

    def _end_hand(self, points: Sequence[int]) -> None:
        """Book a finished hand: totals, the result row, game end, the deal passes left."""
        pts = list(points)
        for i, p in enumerate(pts):
            self.totals[i] += p
        row: dict[str, Any] = {"points": pts, "totals": self.totals[:]}
        if self.bags is not None:
            row["bags"] = self.bags[:]
        figures = self._hand_figures()
        if figures:
            row["figures"] = figures
        self.hand_results.append(row)
        self.finished_hands.append((self.deck, self.actions))
        self.over, self.winners = self._game_end()
        self.dealer = (self.dealer + 1) % self.n
        self.phase = "over" if self.over else "deal"

    def _game_end(self) -> tuple[bool, list[int]]:
        """(over, winners) after a hand; games override. Default: target reached, lowest wins."""
        return lowest_total_wins(self.totals, self.options["target"])

    # ------------------------------------------------------------------ undo and copies
    def correct(self, seat: int, points: int, recheck_end: bool | None = None) -> None:
        """An admin's score correction: ``points`` added to ``seat``'s total (to both partners'
        in team games). Between hands it can end the game, or reopen one that a wrong score had
        ended; ``recheck_end=False`` keeps game end for the next hand's end (a correction made
        during a hand, replayed before it)."""
        if not 0 <= seat < self.n:
            raise ValueError(f"there is no seat {seat} at a table of {self.n}")
        seats = (seat, (seat + 2) % self.n) if self.TEAMS else (seat,)
        for s in seats:
            self.totals[s] += points
        between = self.phase in ("deal", "over") and self.hand_number > 0
        if between if recheck_end is None else (recheck_end and between):
            self.over, self.winners = self._game_end()
            self.phase = "over" if self.over else "deal"

    def can_undo(self) -> bool:
        return bool(self.actions) or any(acts for _, acts in self.finished_hands)

    def undo(self) -> Action:
        """Take back the last action of the game; returns it. Raises ValueError if none."""
        hands = self.record_hands()
        h = len(hands) - 1
        while h >= 0 and not hands[h][1]:
            h -= 1
        if h < 0:
            raise ValueError("nothing to undo: no action has been taken")
        deck, acts = hands[h]
        restored = self._snaps[h]._clone()
        restored._snaps = self._snaps[:h]
        restored.start_hand(deck)
        for s, a in acts[:-1]:
            restored.apply(a, s)
        if COMPILED:
            for k, v in restored._fields().items():
                setattr(self, k, v)
        else:
            self.__dict__.clear()
            self.__dict__.update(restored.__dict__)
        return acts[-1][1]

    # The fields of a game (not of a hand): all a snapshot keeps. Every other field is a
    # hand's, set by ``_reset_hand`` (which ``__init__`` and ``start_hand`` both call) and by
    # the hand's actions. A game that carried a field of its own from hand to hand would add
    # it here (none does).
    _GAME_FIELDS: ClassVar[tuple[str, ...]] = (
        "n", "options", "first_dealer", "names", "dealer", "hand_number", "totals", "bags",
        "hand_results", "over", "winners", "phase", "deck", "actions", "finished_hands",
    )
    # the fields of a game (not of a hand) that change in place from hand to hand
    _GAME_LISTS: ClassVar[tuple[str, ...]] = ("totals", "bags", "hand_results", "finished_hands", "winners", "names")

    def _snapshot(self) -> GameState:
        """The state before a deal, for ``undo``: what the game carries from hand to hand.
        ``undo`` always deals the hand again (``start_hand``, which resets every per-hand
        field), so only the game's fields (``_GAME_FIELDS``) are copied.

        Field by field, never through ``self.__dict__``: on CPython 3.11 reading an
        instance's ``__dict__`` moves its fields out of the inline values into a dict of
        their own for good, and every attribute access after that takes the slow,
        unspecialized path (a random Hearts hand then took about 1.4x as long; see
        benchmarks/RESULTS.md). start_hand calls this every hand."""
        new = _blank(type(self))
        # _GAME_FIELDS written out (by name, not getattr: the compiled build reads a field
        # directly then); the lists among them (_GAME_LISTS) copied
        new.n = self.n
        new.options = self.options
        new.first_dealer = self.first_dealer
        new.names = self.names[:]
        new.dealer = self.dealer
        new.hand_number = self.hand_number
        new.totals = self.totals[:]
        if self.bags is not None:  # else the class default (no field, see GameState.bags)
            new.bags = self.bags[:]
        new.hand_results = self.hand_results[:]
        new.over = self.over
        new.winners = self.winners[:]
        new.phase = self.phase
        new.deck = self.deck
        new.actions = self.actions
        new.finished_hands = self.finished_hands[:]
        new._snaps = []
        return new

    def _fields(self) -> dict[str, Any]:
        """Every field of this state by name (a new dict): its ``__dict__`` in the pure-Python
        build; in the compiled one, where there is none, the attributes mypyc lists for the
        class (``__mypyc_attrs__``) that are set."""
        if not COMPILED:
            return self.__dict__.copy()
        out: dict[str, Any] = {}
        names, interpreted = _field_plan(type(self))
        for k in names:
            try:
                out[k] = getattr(self, k)
            except AttributeError:  # declared, never set (e.g. a hook's field another game uses)
                pass
        if interpreted:  # a plug-in's class: its own fields are in its __dict__
            out.update(vars(self))
        return out

    def _clone(self) -> GameState:
        new = _blank(type(self))
        d = self._fields()
        for k, v in d.items():
            if type(v) is list:
                if v and type(v[0]) is list:
                    d[k] = [x[:] for x in v]
                else:
                    d[k] = v[:]
            elif type(v) is set:
                d[k] = set(v)
        if COMPILED:
            for k, v in d.items():
                setattr(new, k, v)
        else:
            new.__dict__ = d
        return new

    def __reduce__(self) -> tuple[Any, ...]:
        """For pickle and copy.deepcopy: the class and the fields (a compiled class cannot be
        made without running ``__init__``, which copyreg's default would do)."""
        return _rebuild, (type(self), self._fields())

    def copy(self) -> GameState:
        """An independent copy; cheap (lists of ints are copied, finished hands shared)."""
        return self._clone()

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        a = self._fields()
        b = other._fields()
        a.pop("_snaps", None)
        b.pop("_snaps", None)
        return a == b

    __hash__ = None  # type: ignore[assignment]

    # ------------------------------------------------------------------ records and views
    def record_hands(self) -> list[tuple[list[int], list[tuple[int, Action]]]]:
        """Every hand dealt so far as (deck, actions), the one in progress last."""
        hands = list(self.finished_hands)
        if self.phase not in ("deal", "over"):
            hands.append((self.deck, self.actions))
        return hands

    def to_json(self) -> dict[str, Any]:
        """The game as a record (RECORDS.md): enough to rebuild this exact state."""
        return _record_codec().to_json(self)

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> GameState:
        return _record_codec().from_json(obj)

    def hand_of(self, seat: int) -> list[int]:
        """The cards ``seat`` holds now (ints), in the order the engine keeps them."""
        if self.phase in ("deal",) or self.over and not self.hand_number:
            return []
        return self._hand_of(seat)

    def public_view(self) -> dict[str, Any]:
        """What the shared screen may show: no card that only one seat may see."""
        v: dict[str, Any] = {
            "game": self.GAME_ID,
            "players": self.n,
            "names": list(self.names),
            "options": dict(self.options),
            "phase": self.phase,
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "turn": list(self.turn_seats()),
            "totals": self.totals[:],
            "bags": None if self.bags is None else self.bags[:],
            "hand_results": [_row_view(r) for r in self.hand_results],
            "over": self.over,
            "winners": self.winners[:],
        }
        if self.phase != "deal":
            v.update(self._public_extra())
        return v

    def view(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may know: the public view plus its own hand and private knowledge."""
        v = self.public_view()
        v["seat"] = seat
        hand = self._hand_of(seat) if self.phase not in ("deal",) else []
        v["hand"] = C.names(C.sorted_hand(hand))
        if self.phase != "deal":
            v.update(self._private_extra(seat))
        return v


_FIELD_PLANS: dict[type, tuple[tuple[str, ...], bool]] = {}


def _field_plan(cls: type) -> tuple[tuple[str, ...], bool]:
    """The fields of a compiled (mypyc) class and of its bases (not the dunders mypyc lists
    too, such as ``__hash__``), and whether ``cls`` itself is interpreted Python (a plug-in
    game's rules class subclassing the compiled ``GameState``: its own fields are in a
    ``__dict__``); once per class."""
    got = _FIELD_PLANS.get(cls)
    if got is None:
        attrs: tuple[str, ...] = getattr(cls, "__mypyc_attrs__", ())  # the class's and its bases'
        got = _FIELD_PLANS[cls] = (tuple(a for a in attrs if not a.startswith("__")),
                                   "__mypyc_attrs__" not in cls.__dict__)
    return got



def _rebuild(cls: type[GameState], fields: dict[str, Any]) -> GameState:
    """A state of class ``cls`` with these fields (``GameState.__reduce__``)."""
    new = _blank(cls)
    if COMPILED:
        for k, v in fields.items():
            setattr(new, k, v)
    else:
        new.__dict__.update(fields)
    return new


def _blank(cls: type[GameState]) -> GameState:
    """A state of class ``cls`` with no fields set (``__init__`` not run), to be filled in."""
    # A compiled class's __new__ runs __init__, so the compiled build asks __init__ for a blank
    # state; the pure-Python one skips __init__ altogether (cheaper, and the same).
    return cls(0, _blank=True) if COMPILED else object.__new__(cls)


class RecordCodec:
    """How a state becomes a game record and back: records.py installs its own with
    ``use_record_codec`` when it is imported, and trickref.engine's ``__init__`` imports it,
    so it is in place whenever this module is. records imports base (and the games, and the
    score keeper), so base must not import records: that ring is what this breaks (issue #9)."""

    def __init__(
        self,
        to_json: Callable[[GameState], dict[str, Any]],
        from_json: Callable[[Mapping[str, Any]], GameState],
    ) -> None:
        self.to_json = to_json
        self.from_json = from_json


_CODEC: list[RecordCodec] = []


def use_record_codec(codec: RecordCodec) -> None:
    _CODEC[:] = [codec]


def _record_codec() -> RecordCodec:
    if not _CODEC:
        raise RuntimeError("no record codec: import trickref.engine.records (trickref.engine does)")
    return _CODEC[0]


_INT_ONLY: Final = {int}
_ALL_CARDS: Final = (1 << 52) - 1
_FULL_SORTED: Final[dict[int, list[int]]] = {1: list(range(52)), 2: sorted(list(range(52)) * 2)}


def check_deck(deck: Sequence[int | str], decks: int = 1, field: str = "deck") -> list[int]:
    """The deck order as card ints, checked to hold every card exactly ``decks`` times."""
    # fast paths (once per hand): a list of card ints that holds every card once (compiled: a
    # mask, a native loop) or that sorts to the full deck
    if COMPILED and decks == 1 and type(deck) is list and len(deck) == 52:
        m = 0
        for c in deck:
            if type(c) is not int or not 0 <= c < 52:
                break
            m |= 1 << c
        else:
            if m == _ALL_CARDS:
                return deck[:]
    elif type(deck) is list and len(deck) == 52 * decks and set(map(type, deck)) == _INT_ONLY:
        if sorted(deck) == _FULL_SORTED.get(decks):
            return deck[:]
    try:
        order = [C.to_card(c) for c in deck]
    except ValueError as e:
        raise RecordError(field, str(e)) from None
    want = 52 * decks
    counts = [0] * 52
    for c in order:
        counts[c] += 1
    bad_many = [C.NAMES[c] for c in range(52) if counts[c] > decks]
    bad_few = [C.NAMES[c] for c in range(52) if counts[c] < decks]
    if len(order) != want or bad_many or bad_few:
        what = f"has {len(order)} cards; a full deck has {want}" if len(order) != want else "is not a full deck"
        if bad_many:
            what += f"; {' '.join(bad_many[:6])} {'appears' if len(bad_many) == 1 else 'appear'} too often"
        if bad_few:
            what += f"; missing {' '.join(bad_few[:6])}{' ...' if len(bad_few) > 6 else ''}"
        raise RecordError(field, what)
    return order


def lowest_total_wins(totals: Sequence[int], target: int) -> tuple[bool, list[int]]:
    """(over, winners) once someone reached ``target``: the lowest total wins, a tie for lowest
    plays another hand (both Hearts games; a function so the score sheet shares it)."""
    if max(totals) < target:
        return False, []
    low = min(totals)
    best = [i for i, t in enumerate(totals) if t == low]
    if len(best) > 1:
        return False, []
    return True, best


def trick_winner(trick: Sequence[tuple[int, int]], trump: int | None) -> int:
    """The seat winning ``trick`` [(seat, card), ...]: the highest trump, else the highest of the
    suit led. Card ints order ranks within a suit, so max() on the card works."""
    led = trick[0][1] // 13
    best_seat, best = trick[0]
    best_trump = trump is not None and led == trump
    for seat, card in trick[1:]:
        s = card // 13
        if trump is not None and s == trump:
            if not best_trump or card > best:
                best_seat, best, best_trump = seat, card, True
        elif not best_trump and s == led and card > best:
            best_seat, best = seat, card
    return best_seat


def _row_view(row: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a ``hand_results`` row for a view (its lists and figures copied)."""
    out: dict[str, Any] = {k: (v[:] if type(v) is list else v) for k, v in row.items()}
    fig = out.get("figures")
    if fig is not None:
        out["figures"] = {k: (v[:] if type(v) is list else v) for k, v in fig.items()}
    for key in ("entries", "original", "corrections"):  # a corrected hand's (engine.scorekeeper)
        if key in out:
            out[key] = copy.deepcopy(out[key])
    return out
