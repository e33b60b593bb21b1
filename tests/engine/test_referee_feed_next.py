"""Flag NEXT on the cards fed back (issue 20 point 4): a step that ejects a card (a card fed and
routed, RouteFed / FeedBack; a Fetch) carries the hint ``then_next`` exactly when the referee's
next dealer step is a Fetch, so the eject brings the loop's next card to the read window
(hardware/PROTOCOL.md FEED / ROUTE_PRESENTED / FETCH flag NEXT): German Whist's trick's second
play, a Double Nil exchange's last card given; never a step the dealer was sent before (the same
step id with another body is a CONFLICT)."""

from __future__ import annotations

from trickref.engine import cards as C
from trickref.engine.referee.autotable import AutoTable, engine_bot
from trickref.engine.referee.commands import (
    Command,
    DealerCommand,
    FeedBack,
    Fetch,
    RouteFed,
    Stage,
)
from trickref.engine.referee.events import Button, CardRead, DealerDone, NewGame
from trickref.engine.referee.referee import Referee


def _dealer_steps(commands: list[Command]) -> list[DealerCommand]:
    return [c for c in commands if isinstance(c, DealerCommand)]


def _check_pairs(steps: list[DealerCommand]) -> None:
    """A step with NEXT is followed by a Fetch (a Fetch's also by a Stage); a fed card's routing
    followed by a Fetch carries it unless it went out in an event before (checked apart)."""
    for a, b in zip(steps, steps[1:] + [None], strict=True):
        if isinstance(a, (RouteFed, FeedBack)) and a.then_next:
            assert isinstance(b, Fetch), (a, b)
        if isinstance(a, Fetch) and a.then_next:
            assert isinstance(b, (Fetch, Stage)), (a, b)


def _double_nil_chooser(seats: tuple[int, ...]):  # type: ignore[no-untyped-def]
    bot = engine_bot("spades-2p")

    def choose(state, seat, rng):  # type: ignore[no-untyped-def]
        if seat in seats:
            for a in state.legal_actions(seat):
                if a.kind == "double_nil":
                    return a
        return bot(state, seat, rng)

    return choose


def test_german_whist_the_tricks_second_play_carries_next_for_the_winners_card() -> None:
    t = AutoTable(seed=3, entry="reader")
    t.run("german-whist", 2, max_hands=1)
    steps = _dealer_steps(t.commands)
    _check_pairs(steps)
    fed = [s for s in steps if isinstance(s, RouteFed) and s.target == "trick"]
    assert len(fed) == 52  # every play of the hand's 26 tricks through the reader
    # stage one: 13 tricks, the second play of each with NEXT (the winner's card is fetched
    # next); the first plays and stage two's none
    assert [f.then_next for f in fed[:26]] == [False, True] * 13
    assert not any(f.then_next for f in fed[26:])
    assert sum(s.then_next for s in steps if isinstance(s, RouteFed)) == 13
    fetches = [s for s in steps if isinstance(s, Fetch)]
    assert len(fetches) == 26 and [f.then_next for f in fetches] == [True, False] * 13


def test_german_whist_by_touch_has_no_fed_card_to_flag() -> None:
    t = AutoTable(seed=3, entry="touch")
    t.run("german-whist", 2, max_hands=1)
    steps = _dealer_steps(t.commands)
    _check_pairs(steps)
    assert not [s for s in steps if isinstance(s, (RouteFed, FeedBack))]
    assert [f.then_next for f in steps if isinstance(f, Fetch)] == [True, False] * 13


def _spades_until_play(seed: int, entry: str, declare: tuple[int, ...]) -> AutoTable:
    t = AutoTable(seed=seed, entry=entry, chooser=_double_nil_chooser(declare))
    t.start("spades-2p", 2)
    g = t.ref.game
    assert g is not None
    for _ in range(400):
        if g.phase not in ("draw", "exchange"):
            break
        assert t.step()
        t.drain()
    return t


def test_a_double_nil_exchange_through_the_reader_the_last_card_given_carries_next() -> None:
    t = _spades_until_play(6, "reader", (0, 1))
    g = t.ref.game
    assert g is not None
    steps = _dealer_steps(t.commands)
    _check_pairs(steps)
    sizes = [len(a.value[0]) for _, a in g.actions if a.kind == "exchange"]
    assert sizes == [3, 2]  # (seed 6: the second exchanger gives two, then OK)
    given = [s for s in steps if isinstance(s, RouteFed)]
    assert len(given) == 5
    # three cards given, fed one at a time: the third goes with NEXT (the replacements' Fetches
    # follow in the same event); two, then OK: the second went out (and was done) before the OK
    assert [r.then_next for r in given] == [False, False, True, False, False]
    assert isinstance(steps[steps.index(given[2]) + 1], Fetch)
    # the draw's feed-backs as before: NEXT when the next player's card is fetched (not the last)
    backs = [s for s in steps if isinstance(s, FeedBack)]
    assert len(backs) == 26 and [b.then_next for b in backs] == [True] * 25 + [False]


def test_a_double_nil_exchange_on_the_touchscreen_feeds_the_cards_given_back_with_next_on_the_last() -> None:
    """Both players declared: the first exchanger's given cards go into the loop (the other
    exchange may draw them) through the play slot, FeedBack each; the last one carries NEXT,
    the first replacement's Fetch follows."""
    t = _spades_until_play(6, "touch", (0, 1))
    g = t.ref.game
    assert g is not None
    assert len([a for _, a in g.actions if a.kind == "exchange"]) == 2
    steps = _dealer_steps(t.commands)
    _check_pairs(steps)
    backs = [s for s in steps if isinstance(s, FeedBack)]
    gives = backs[26:]
    assert len(gives) == 3 and {b.target for b in gives} == {"loop"}
    assert [b.then_next for b in gives] == [False, False, True]
    assert [b.then_next for b in backs[:26]] == [True] * 25 + [False]


def test_a_step_already_sent_is_not_given_next_afterwards() -> None:
    """Fewer than three cards given through the reader, then OK: the last RouteFed went to the
    dealer when the card was read (and is still running when OK comes): it stays as sent."""
    t = AutoTable(seed=6, entry="reader", chooser=_double_nil_chooser((0, 1)))
    t.start("spades-2p", 2)
    ref, g = t.ref, t.ref.game
    assert g is not None
    for _ in range(400):
        if g.phase == "exchange" and ref.accepting():
            break
        assert t.step()
        t.drain()
    assert g.phase == "exchange"
    seat = g.to_move
    assert seat is not None
    cards = list(g.hand_of(seat))[:2]
    (first,) = _dealer_steps(ref.handle(CardRead(C.NAMES[cards[0]], seat)))
    ref.handle(DealerDone(first.step, first.card))
    (second,) = _dealer_steps(ref.handle(CardRead(C.NAMES[cards[1]], seat)))
    assert isinstance(second, RouteFed) and not second.then_next
    out = ref.handle(Button(seat, "ok"))  # the exchange: the replacements' Fetches queue behind it
    assert g.phase != "exchange" or g.to_move != seat
    assert not _dealer_steps(out)
    assert ref.steps[0] is second and not ref.steps[0].then_next
    assert isinstance(ref.steps[1], Fetch)


def test_a_wrong_card_fed_back_keeps_the_hints_of_the_feed_back_done_again() -> None:
    t = _spades_until_play(6, "reader", ())
    ref = Referee()
    for ev in t.events:
        ref.handle(ev)
        head = ref.steps[0] if ref.steps else None
        if isinstance(head, FeedBack) and head.then_next:
            break
    head = ref.steps[0]
    assert isinstance(head, FeedBack) and head.then_next
    g = ref.game
    assert g is not None
    other = next(c for c in g.hand_of(head.seat) if C.NAMES[c] != head.card)
    out = ref.handle(DealerDone(head.step, C.NAMES[other]))  # another card of the player's came
    steps = _dealer_steps(out)
    assert isinstance(steps[0], RouteFed) and not steps[0].then_next  # it goes back: a FeedBack follows
    again = [s for s in ref.steps if isinstance(s, FeedBack)][0]
    assert again.card == head.card and again.then_next and again.place == head.place


def test_german_whist_with_a_bot_in_the_loop_its_second_play_carries_next_too() -> None:
    """A bot seat whose hand is in the dealer's loop: its play is a Fetch to the trick pocket;
    as the trick's second play it carries NEXT (FETCH flag NEXT) when the stock's Fetch follows,
    as the human's fed card does; a first play never."""

    class LoopBotTable(AutoTable):
        def route(self, seat: int) -> str:
            return "bot" if seat == 1 else "reader"

    t = LoopBotTable(seed=3, entry="reader", chooser=engine_bot("german-whist"))
    t.feed(NewGame("german-whist", ("P0", "P1"), {}, 0, (1,), bot_hands="loop"))
    t.drain()
    g = t.ref.game
    assert g is not None
    for _ in range(26):  # stage one
        assert t.step()
    assert t.ref.stock_pos == 52
    steps = _dealer_steps(t.commands)
    _check_pairs(steps)
    plays = [s for s in steps if (isinstance(s, Fetch) and s.target == "trick") or isinstance(s, RouteFed)]
    assert len(plays) == 26
    assert [p.then_next for p in plays] == [False, True] * 13  # each trick: the first play, the second
    assert {type(p) for p in plays[1::2]} == {Fetch, RouteFed}  # (the bot second in some tricks, the human in others)
