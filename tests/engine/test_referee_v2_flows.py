"""The game flows on the v2 dealer (hardware/PROTOCOL.md section 11): spades-2p discards go to the
loop while a Double Nil is declared or still possible, else to the discard pocket; the Double Nil
exchange feeds the given cards to the discard pocket and fetches the replacements (drawn by the
salt) out of the loop; the physical model accounts for every card at every step."""

from __future__ import annotations

from collections import Counter

from trickref.engine import cards as C
from trickref.engine.referee import fairness
from trickref.engine.referee.autotable import AutoTable, engine_bot
from trickref.engine.referee.commands import DealerCommand, FeedBack, Fetch, RouteFed
from trickref.engine.referee.referee import Referee


def _every_card_once(ref: Referee) -> None:
    total = Counter(c for cards in ref.places.at.values() for c in cards)
    assert total == Counter(range(52)), {C.NAMES[c]: n for c, n in total.items() if n != 1}


def _run(declare: bool, seed: int) -> AutoTable:
    bot = engine_bot("spades-2p")

    def choose(state, seat, rng):  # type: ignore[no-untyped-def]
        if declare and seat == state.first_player:
            for a in state.legal_actions(seat):
                if a.kind == "double_nil":
                    return a
        return bot(state, seat, rng)

    t = AutoTable(seed=seed, entry="reader", chooser=choose)
    t.start("spades-2p", 2)
    g = t.ref.game
    assert g is not None
    for _ in range(400):
        if g.phase not in ("draw", "exchange"):
            break
        assert t.step()
        t.drain()
        if not t.ref.steps:
            _every_card_once(t.ref)
    return t


def test_without_a_double_nil_the_discards_go_to_the_discard_pocket_after_the_second_decision() -> None:
    t = _run(declare=False, seed=4)
    g, ref = t.ref.game, t.ref
    assert g is not None and g.phase == "bid"
    feedbacks = [c for c in t.commands if isinstance(c, FeedBack)]
    assert len(feedbacks) == 26  # one card of every turn goes back through the reader
    assert [f.target for f in feedbacks[:1]] == ["loop"]  # the first player's: a Double Nil was still possible
    assert {f.target for f in feedbacks[1:]} == {"discard"}
    assert len(ref.places.at["discard"]) == 25 and len(ref.places.at["loop"]) == 1
    for s in range(2):
        assert Counter(ref.places.at[f"seat:{s}"]) == Counter(g.hand_of(s))


def test_a_double_nil_exchange_on_the_v2_dealer() -> None:
    t = _run(declare=True, seed=6)
    g, ref = t.ref.game, t.ref
    assert g is not None and g.phase in ("bid", "play")
    feedbacks = [c for c in t.commands if isinstance(c, FeedBack)]
    assert {f.target for f in feedbacks} == {"loop"}  # every discard can be drawn from
    (seat, ex), = [(s, a) for s, a in g.actions if a.kind == "exchange"]
    give, get = ex.value
    assert len(give) == 3  # the reader route: three cards fed
    # the given cards went through the reader to the discard pocket; the replacements came out
    # of the loop to the player's pocket
    routed = [(c.card, c.target) for c in t.commands if isinstance(c, RouteFed)]
    assert sorted(C.parse(c) for c, tgt in routed if tgt == "discard") == sorted(give)
    fetched = [(c.card, c.target) for c in t.commands if isinstance(c, Fetch)]
    assert sorted(C.parse(c) for c, tgt in fetched[-len(get):]) == sorted(get)
    assert all(tgt == f"seat:{seat}" for _, tgt in fetched[-len(get):])
    # rule exchange/2: the replacements are the discards at places the salt fixed before the
    # deal; their discards were parked under the others (the place hint), in the order taken,
    # and they are fetched in that order, each but the last with NEXT
    h = g.hand_number - 1
    places = fairness.exchange_positions(ref.fair[h]["salt"], h, seat)
    assert ref.fair[h]["exchange"] == "exchange/2"
    assert [f.place for f in feedbacks] == [0xF0 + places.index(t) if t in places else None for t in range(26)]
    pile = [C.parse(f.card) for f in feedbacks]  # the discards in the order they joined the pile
    assert [C.parse(c) for c, _ in fetched[-len(get):]] == [pile[p] for p in places[:len(get)]]
    last = [c for c in t.commands if isinstance(c, Fetch)][-len(get):]
    assert [f.then_next for f in last] == [True] * (len(get) - 1) + [False]
    assert sorted(ref.places.at["discard"]) == sorted(give)
    assert Counter(ref.places.at[f"seat:{seat}"]) == Counter(g.hand_of(seat))
    _every_card_once(ref)


def test_a_given_card_goes_to_the_discard_pocket_and_the_same_card_again_goes_back() -> None:
    t = _run(declare=True, seed=6)
    ref = Referee()
    for ev in t.events:
        ref.handle(ev)
        g = ref.game
        if g is not None and g.phase == "exchange" and ref.accepting():
            break
    g = ref.game
    assert g is not None and g.phase == "exchange"
    seat = g.to_move
    assert seat is not None
    from trickref.engine.referee.events import CardRead

    card = g.hand_of(seat)[0]
    ref.handle(CardRead(C.NAMES[card], seat))
    head = ref.steps[0]
    assert isinstance(head, RouteFed) and head.target == "discard"
    from trickref.engine.referee.events import DealerDone

    ref.handle(DealerDone(head.step, head.card))
    assert card in ref.places.at["discard"]
    # the same card again: it is no longer in the hand, so it is refused and sent back
    out = ref.handle(CardRead(C.NAMES[card], seat))
    (back,) = [c for c in out if isinstance(c, DealerCommand)]
    assert isinstance(back, RouteFed) and back.card == C.NAMES[card] and back.target == "reject"
    assert ref.fed[seat] == [card]
