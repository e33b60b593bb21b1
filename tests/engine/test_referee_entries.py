"""Refused entries: each kind gets its own clear message, blinks the right LED, sends a card read
by the reader back where it belongs, and changes nothing in the game."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from trickref.engine import actions as A
from trickref.engine import cards as C
from trickref.engine.referee.autotable import AutoTable, engine_bot
from trickref.engine.referee.commands import DealerCommand, Led, Message, NeedShuffle, Release
from trickref.engine.referee.events import BotAction, Button, CardRead, NewGame, Shuffled, Touch
from trickref.engine.referee.referee import Referee


def table_until(game: str, n: int, cond: Callable[[Referee], bool], seed: int = 3,
                options: dict | None = None, entry: str = "touch") -> AutoTable:
    t = AutoTable(seed=seed, entry=entry)
    t.start(game, n, options)
    for _ in range(5000):
        t.drain()
        if cond(t.ref):
            return t
        assert t.step()
    raise AssertionError("condition never met")


def in_play(ref: Referee) -> bool:
    g = ref.game
    return g is not None and ref.accepting() and g.phase == "play"


def warnings(out: list) -> list[str]:
    return [c.text for c in out if isinstance(c, Message) and c.level == "warn"]


def routes(out: list) -> list[tuple[str | None, str]]:
    return [(c.card, c.target) for c in out if isinstance(c, DealerCommand) and c.OP == "route_fed"]


def mid_trick(ref: Referee) -> bool:
    """Hearts, play phase, a suit led and the seat on turn holding that suit and another."""
    g = ref.game
    if not in_play(ref) or g is None:
        return False
    trick = g.public_view()["trick"]
    if not trick:
        return False
    led = C.parse(trick[0][1]) // 13
    hand = g.hand_of(g.to_move)  # type: ignore[arg-type]
    return any(c // 13 == led for c in hand) and any(c // 13 != led for c in hand)


def test_illegal_play_from_the_reader_is_refused_and_returned() -> None:
    t = table_until("hearts", 4, mid_trick)
    ref, g = t.ref, t.ref.game
    assert g is not None
    seat = g.to_move
    assert seat is not None
    led = C.parse(g.public_view()["trick"][0][1]) // 13
    bad = next(c for c in g.hand_of(seat) if c // 13 != led)
    before = g.copy()
    out = t.feed(CardRead(C.NAMES[bad]))
    w = warnings(out)
    assert len(w) == 2 and "cannot play that card" in w[0] and "must follow" in w[0]
    private = [c for c in out if isinstance(c, Message) and c.seat == seat]
    assert private and C.NAMES[bad] in private[0].text and C.NAMES[bad] not in w[0]
    assert Led(seat, "blink") in out
    assert routes(out) == [(C.NAMES[bad], f"seat:{seat}")]
    assert g == before
    assert ref.public_view()["table"]["leds"][seat] == "blink"


def test_card_fed_out_of_turn_goes_back_to_its_owner() -> None:
    t = table_until("hearts", 4, in_play)
    g = t.ref.game
    assert g is not None
    seat = g.to_move
    other = (seat + 1) % 4  # type: ignore[operator]
    card = g.hand_of(other)[0]
    before = g.copy()
    out = t.feed(CardRead(C.NAMES[card]))
    w = warnings(out)
    assert "out of turn" in w[0] and f"P{other}" in w[0] and C.NAMES[card] not in w[0]
    assert routes(out) == [(C.NAMES[card], f"seat:{other}")]
    assert Led(other, "blink") in out
    assert g == before


def test_duplicate_read_of_a_played_card() -> None:
    t = table_until("hearts", 4, lambda r: in_play(r) and bool(r.game and r.game.public_view()["trick"]))
    g = t.ref.game
    assert g is not None
    played = g.public_view()["trick"][0][1]
    before = g.copy()
    out = t.feed(CardRead(played))
    w = warnings(out)
    assert len(w) == 1 and "duplicate read" in w[0] and played in w[0]
    assert routes(out) == [(played, "reject")]
    assert g == before


def test_card_in_nobodys_hand() -> None:
    t = table_until("hearts", 3, in_play)  # three players: the 2D is set aside
    g = t.ref.game
    assert g is not None
    before = g.copy()
    out = t.feed(CardRead("2D"))
    w = warnings(out)
    assert len(w) == 1 and "not in anyone's hand" in w[0]
    assert routes(out) == [("2D", "reject")]
    assert g == before


def test_unreadable_card_and_card_when_none_is_wanted() -> None:
    t = table_until("spades-2p", 2, lambda r: bool(r.game and r.accepting() and r.game.phase == "bid"))
    g = t.ref.game
    assert g is not None
    before = g.copy()
    out = t.feed(CardRead("ZZ"))
    assert "could not read" in warnings(out)[0] and routes(out) == [(None, "reject")]
    t.drain()
    card = g.hand_of(0)[0]
    out = t.feed(CardRead(C.NAMES[card]))
    assert "no card is wanted now" in warnings(out)[0] and C.NAMES[card] not in warnings(out)[0]
    assert routes(out) == [(C.NAMES[card], "seat:0")]
    assert g == before


def test_buttons_out_of_turn_and_without_a_choice() -> None:
    t = table_until("spades-2p", 2, lambda r: bool(r.game and r.accepting() and r.game.phase == "bid"))
    g = t.ref.game
    assert g is not None
    seat = g.to_move
    assert seat is not None
    before = g.copy()
    out = t.feed(Button(1 - seat, "plus"))
    assert "not your turn" in warnings(out)[0]
    out = t.feed(Button(seat, "ok"))
    assert "choose with - and +" in warnings(out)[0]
    assert g == before
    # Bidding on the panel: the pending value is on the public screen as it changes.
    t.feed(Button(seat, "plus"))
    assert t.ref.public_view()["table"]["pending"][seat] == "1"
    t.feed(Button(seat, "plus"))
    t.feed(Button(seat, "plus"))
    assert t.ref.public_view()["table"]["pending"][seat] == "3"
    t.feed(Button(seat, "minus"))
    t.feed(Button(seat, "ok"))
    assert g.actions[-1] == (seat, A.bid(2))
    assert t.ref.public_view()["table"]["pending"][seat] is None


def test_illegal_touch_and_bot_entries() -> None:
    t = table_until("hearts", 4, mid_trick)
    g = t.ref.game
    assert g is not None
    seat = g.to_move
    assert seat is not None
    led = C.parse(g.public_view()["trick"][0][1]) // 13
    bad = next(c for c in g.hand_of(seat) if c // 13 != led)
    before = g.copy()
    out = t.feed(Touch(seat, {"play": C.NAMES[bad]}))
    assert "must follow" in warnings(out)[0] and not routes(out)
    out = t.feed(Touch(seat, {"bid": 4}))
    assert "cannot bid 4" in warnings(out)[0]
    out = t.feed(Touch(seat, {"play": "XX"}))
    assert "not an entry the table understands" in warnings(out)[0]
    out = t.feed(BotAction((seat + 1) % 4, {"play": C.NAMES[g.hand_of((seat + 1) % 4)[0]]}))
    assert "turn" in warnings(out)[0]
    out = t.feed(Touch(9, {"play": "2C"}))
    assert "no seat 9" in warnings(out)[0]
    assert g == before


def test_a_bad_shuffle_is_refused_and_asked_again() -> None:
    ref = Referee()
    ref.handle(NewGame("hearts", ("a", "b", "c", "d")))
    deck = tuple(C.NAMES[c] for c in range(52))
    out = ref.handle(Shuffled(deck[:-1] + ("2S",), "00" * 16))
    assert "not a full deck" in warnings(out)[0] and NeedShuffle(1) in out
    out = ref.handle(Shuffled(deck, ""))
    assert "salt" in warnings(out)[0]
    assert ref.game is not None and ref.game.hand_number == 0
    out = ref.handle(Shuffled(deck, "ab" * 16))
    assert not warnings(out) and ref.game.hand_number == 1


def test_bad_new_game() -> None:
    ref = Referee()
    assert "unknown game" in warnings(ref.handle(NewGame("bridge", ("a", "b"))))[0]
    assert "for 3 to 7 players" in warnings(ref.handle(NewGame("hearts", ("a", "b"))))[0]
    assert "target" in warnings(ref.handle(NewGame("hearts", ("a", "b", "c"), {"target": 10})))[0]
    assert ref.game is None
    ref.handle(NewGame("hearts", ("a", "b", "c")))
    assert "in progress" in warnings(ref.handle(NewGame("hearts", ("a", "b", "c"))))[0]


def test_pass_through_the_reader_is_held_until_everyone_has_passed() -> None:
    t = table_until("hearts", 4, lambda r: bool(r.game and r.accepting() and r.game.phase == "pass"))
    ref, g = t.ref, t.ref.game
    assert g is not None
    hands = [g.hand_of(s) for s in range(4)]
    for s in range(4):
        for c in hands[s][:3]:
            out = t.feed(CardRead(C.NAMES[c], s))
            assert routes(out) == [] or routes(out) == [(C.NAMES[c], "loop")]  # parked in the loop
            if s < 3:
                assert not [x for x in t.commands if isinstance(x, Release)]
                assert C.NAMES[c] not in str(ref.public_view())
            t.drain()
        if s < 3:
            assert ref.public_view()["table"]["pass_progress"][s] == 3
    t.drain()
    # once everyone has passed, one plan over the 12 parked cards sends each to its receiver
    releases = [x for x in t.commands if isinstance(x, Release)]
    assert len(releases) == 1 and len(releases[0].plan) == 12
    fetched = releases[0].plan
    to = g.view(0)["pass_to"]
    assert sorted(c for c, tgt in fetched if tgt == f"seat:{to}") == sorted(C.names(hands[0][:3]))
    assert not ref.places.at.get("loop")
    for s in range(4):
        assert sorted(ref.places.at[f"seat:{s}"]) == sorted(g.hand_of(s))
    # A card of a seat that has already passed is sent back with its own message.


def test_blind_nil_pass_goes_to_the_partner() -> None:
    bot = engine_bot("partnership-spades")

    def blind(state, seat, rng):  # type: ignore[no-untyped-def]
        if any(a.kind == "blind_nil" for a in state.legal_actions(seat)):
            return A.BLIND_NIL
        return bot(state, seat, rng)

    t = AutoTable(seed=2, entry="reader", chooser=blind)
    t.start("partnership-spades", 4, {"blind_nil_margin": 0})
    g = t.ref.game
    assert g is not None
    for _ in range(5000):  # after the first hand one team trails: its first bidder goes Blind Nil
        t.step()
        if g.phase == "play" and any(a.kind == "pass" for _, a in g.actions):
            break
    fetched = [e for x in t.commands if isinstance(x, Release) for e in x.plan]
    passes = [(s, a) for s, a in g.actions if a.kind == "pass"]
    assert len(passes) == 2 and len(fetched) == 4
    for s, a in passes:
        assert sorted(c for c, tgt in fetched if tgt == f"seat:{(s + 2) % 4}") == sorted(C.names(a.value))


@pytest.mark.parametrize("game,n", [("hearts", 4), ("cancellation-hearts", 6), ("spades-2p", 2),
                                    ("partnership-spades", 4)])
def test_the_shared_screen_never_shows_a_card_in_a_hand(game: str, n: int) -> None:
    """Reader entries plus wrong cards fed at random: the table part of the public view never
    names a card that is in someone's hand (the seat's own screen may)."""
    import json
    import random

    rng = random.Random(n)
    t = AutoTable(seed=n, entry="reader")
    t.max_hands = 2
    t.start(game, n, {"target": 500} if game != "cancellation-hearts" else {"target": 150})
    g = t.ref.game
    assert g is not None
    seen = 0
    for _ in range(2000):
        if rng.random() < 0.15 and t.ref.accepting():
            s = rng.randrange(n)
            hand = g.hand_of(s)
            if hand:
                t.feed(CardRead(C.NAMES[rng.choice(hand)]))
                t.drain()
        elif not t.step():
            break
        table = json.dumps(t.ref.public_view()["table"])
        table = table.replace("heart or QS", "").replace("or a QS", "")  # rule words, not cards
        held = {C.NAMES[c] for s in range(n) for c in g.hand_of(s)}
        leaked = [c for c in held if f'"{c}"' in table or f" {c} " in table or f" {c}:" in table
                  or f" {c}." in table or table.count(c + ",") or table.count(c + ")")]
        assert not leaked, (leaked, [m["text"] for m in t.ref.messages[-5:]])
        seen += 1
    assert seen > 100
