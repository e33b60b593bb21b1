"""Undo with confirmation, score corrections, dealer faults mid-deal, and journal replay."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_referee_entries import in_play, table_until, warnings

from trickref.engine import actions as A
from trickref.engine import cards as C
from trickref.engine.referee.autotable import AutoTable, engine_bot
from trickref.engine.referee.autotable import replay as replay_events
from trickref.engine.referee.commands import AskConfirm, DealerCommand, Message, SaveRecord
from trickref.engine.referee.events import (
    Button,
    CardRead,
    DealDone,
    DealerDone,
    DealerFault,
    DealerReady,
    Event,
    NewGame,
    ScoreCorrection,
    Touch,
    UndoCancel,
    UndoConfirm,
    UndoRequest,
)


def bidding(ref) -> bool:  # type: ignore[no-untyped-def]
    return bool(ref.game and ref.accepting() and ref.game.phase == "bid")


def test_undo_a_panel_bid_with_confirmation() -> None:
    t = table_until("partnership-spades", 4, bidding, entry="reader")
    g = t.ref.game
    assert g is not None
    seat = g.to_move
    assert seat is not None
    t.feed(Button(seat, "plus"))
    t.feed(Button(seat, "ok"))
    assert g.actions[-1] == (seat, A.bid(1))
    after = g.copy()
    # Another seat may not take back this seat's entry.
    out = t.feed(Button((seat + 1) % 4, "ok_long"))
    assert "the last entry was" in warnings(out)[0]
    out = t.feed(Button(seat, "ok_long"))
    ask = [c for c in out if isinstance(c, AskConfirm)]
    assert ask and "Undo P" in ask[0].text and ask[0].seat == seat
    assert t.ref.public_view()["table"]["undo"] == ask[0].text
    # While the question is up, entries wait.
    out = t.feed(Touch(g.to_move, {"bid": 3}))  # type: ignore[arg-type]
    assert "undo" in warnings(out)[0]
    out = t.feed(Button(seat, "minus"))  # minus cancels
    assert g == after and t.ref.undo_pending is None
    t.feed(Button(seat, "ok_long"))
    t.feed(Button(seat, "ok"))  # OK confirms
    assert g.to_move == seat and len(g.actions) == len(after.actions) - 1
    assert any("Undone" in m["text"] for m in t.ref.messages)


def test_undo_a_play_read_by_the_reader_asks_for_the_card_back() -> None:
    t = table_until("hearts", 4, in_play, entry="reader")
    g = t.ref.game
    assert g is not None
    seat = g.to_move
    assert seat is not None
    card = g.legal_actions(seat)[0].value
    t.feed(CardRead(C.NAMES[card]))
    t.drain()
    t.feed(UndoRequest(None))
    out = t.feed(UndoConfirm())
    texts = [c.text for c in out if isinstance(c, Message)]
    assert any(f"take {C.NAMES[card]} back" in x for x in texts)
    assert card in g.hand_of(seat) and g.to_move == seat


def test_undo_refused_when_cards_have_moved() -> None:
    t = table_until("spades-2p", 2, lambda r: bool(r.game and r.accepting() and len(r.game.actions) == 1))
    out = t.feed(UndoRequest(None))
    assert "cannot undo" in warnings(out)[0] and "routed" in warnings(out)[0]
    out = t.feed(UndoConfirm())
    assert "no undo is waiting" in warnings(out)[0]
    t2 = table_until("hearts", 4, lambda r: bool(r.game and r.accepting()))
    out = t2.feed(UndoRequest(None))
    assert "nothing to undo" in warnings(out)[0]
    out = t2.feed(UndoCancel())
    assert not warnings(out)


def test_score_corrections_are_recorded_and_shown() -> None:
    t = AutoTable(seed=4, entry="touch")
    ref = t.run("hearts", 4, {"target": 100}, max_hands=1)
    g = ref.game
    assert g is not None and ref.waiting == "shuffle"
    totals = g.totals[:]
    out = ref.handle(ScoreCorrection(2, -5, "miscounted the QS trick", "admin"))
    assert g.totals[2] == totals[2] - 5
    corr = ref.public_view()["table"]["corrections"]
    assert corr == [{"after_hand": 1, "seat": 2, "points": -5, "reason": "miscounted the QS trick", "by": "admin"}]
    save = [c for c in out if isinstance(c, SaveRecord)][0]
    assert save.record["corrections"] == corr
    assert any(isinstance(c, Message) and "Score correction" in c.text for c in out)
    # A correction can end the game between hands (someone reaches the target).
    out = ref.handle(ScoreCorrection(1, 200, "agreed at the table"))
    assert g.over and ref.waiting == "over" and [c for c in out if isinstance(c, SaveRecord)][0].finished
    assert "must be" not in str(warnings(ref.handle(ScoreCorrection(0, 0))))
    assert warnings(ref.handle(ScoreCorrection(7, 3)))


def test_correction_during_a_hand_survives_an_undo() -> None:
    t = table_until("partnership-spades", 4, bidding, entry="touch")
    g = t.ref.game
    assert g is not None
    seat = g.to_move
    t.feed(Touch(seat, {"bid": 2}))  # type: ignore[arg-type]
    t.feed(ScoreCorrection(1, 30, "carried over from last night"))
    assert g.totals[1] == g.totals[3] == 30
    t.feed(UndoRequest(None))
    t.feed(UndoConfirm())
    assert g.totals[1] == g.totals[3] == 30 and g.to_move == seat


def test_a_record_with_corrections_replays_to_the_referees_totals() -> None:
    from trickref.engine.records import parse, replay, summary

    t = AutoTable(seed=6, entry="touch")
    ref = t.run("hearts", 4, {"target": 100}, max_hands=2)
    g = ref.game
    assert g is not None
    ref.handle(ScoreCorrection(3, -7, "miscounted"))
    out = ref.handle(ScoreCorrection(0, 150, "agreed at the table"))  # ends the game
    record = [c for c in out if isinstance(c, SaveRecord)][0].record
    state = replay(parse(record))
    assert summary(state)["totals"] == g.totals and state.over == g.over and state.winners == g.winners
    without = dict(record, corrections=[])
    assert replay(parse(without)).totals != g.totals  # the corrections are what makes them equal


def test_jam_mid_deal_then_resume_and_a_lost_deal_redealt_from_the_same_order() -> None:
    t = AutoTable(seed=1, entry="touch")
    t.feed(NewGame("hearts", ("a", "b", "c", "d")))
    shuffle = t.queue.popleft()
    out = t.feed(shuffle)
    deal = [c for c in out if isinstance(c, DealerCommand)][0]
    t.queue.clear()
    out = t.feed(DealerFault("jam", "card stuck at the reader", deal.step))
    err = [c.text for c in out if isinstance(c, Message) and c.level == "error"]
    assert err and "jammed" in err[0] and "Resume" in err[0]
    assert t.ref.public_view()["table"]["dealer"]["status"] == "fault"
    assert "the dealer needs attention" in warnings(t.feed(Touch(0, {"pass": ["2S", "3S", "4S"]})))[0]
    out = t.feed(DealerReady(False))
    again = [c for c in out if isinstance(c, DealerCommand)]
    assert again == [deal]  # the same deal id: the dealer goes on with it
    out = t.feed(DealerFault("link_down", "unplugged"))
    assert "unplugged" in [c.text for c in out if isinstance(c, Message)][0]
    out = t.feed(DealerReady(True))  # the dealer lost the deal: redeal the same order
    redeal = [c for c in out if isinstance(c, DealerCommand)]
    assert redeal[0].OP == "deal" and redeal[0].deal_id == deal.deal_id + 1
    assert redeal[0].plan == deal.plan
    # A report for the old deal is ignored; a failed check asks for a redeal.
    out = t.feed(DealDone(deal.deal_id))
    assert warnings(out) and t.ref.busy
    out = t.feed(DealDone(redeal[0].deal_id, False, ("QS missing",)))
    shown = [c.text for c in out if isinstance(c, Message) and c.level == "error"][0]
    assert "a card missing" in shown and "QS" not in shown  # never a hidden card's name
    out = t.feed(DealerReady(False))
    third = [c for c in out if isinstance(c, DealerCommand)][0]
    assert third.deal_id == deal.deal_id + 2 and third.plan == deal.plan
    t.feed(DealDone(third.deal_id))
    assert t.ref.accepting() and t.ref.public_view()["table"]["commitment"]["hand"] == 1
    # The game goes on to its end from here, uncorrupted.
    t.chooser = engine_bot("hearts")
    for _ in range(20000):
        if t.ref.waiting == "over" or not t.step():
            break
    assert t.ref.waiting == "over"
    assert replay_events(t.events) == t.ref


def test_fault_during_a_fetch_step_repeats_the_step() -> None:
    t = AutoTable(seed=3, entry="touch")
    t.start("spades-2p", 2)
    g = t.ref.game
    assert g is not None and not t.ref.steps
    seat = g.to_move
    assert seat is not None
    out = t.feed(Touch(seat, {"draw": "keep"}))
    t.queue.clear()
    cmd = [c for c in out if isinstance(c, DealerCommand)][0]
    assert cmd.OP == "fetch" and cmd.card == C.NAMES[g.deck[1]]  # type: ignore[attr-defined]
    steps = [s.step for s in t.ref.steps]
    t.feed(DealerFault("timeout", "no answer", cmd.step))
    assert t.ref.busy and [s.step for s in t.ref.steps] == steps
    assert warnings(t.feed(Touch(1 - seat, {"draw": "keep"})))
    out = t.feed(DealerReady(False))
    assert [c for c in out if isinstance(c, DealerCommand)] == [cmd]
    out = t.feed(DealerDone(cmd.step, cmd.card))  # type: ignore[attr-defined]
    nxt = [c for c in out if isinstance(c, DealerCommand)]
    assert nxt[0].OP == "feed_back" and nxt[0].step == cmd.step + 1
    t.queue.clear()
    t.feed(DealerDone(nxt[0].step, nxt[0].card))  # type: ignore[attr-defined]
    t.drain()
    assert g.hand_of(seat) == [g.deck[0]] and t.ref.accepting()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.sampled_from(["hearts", "spades-2p", "german-whist", "partnership-spades"]))
def test_journal_replay_with_noise_gives_an_equal_referee(seed: int, game: str) -> None:
    """Random (mostly wrong) entries interleaved with a real game: replaying the events
    rebuilds the same referee."""
    n = {"hearts": 4, "spades-2p": 2, "german-whist": 2, "partnership-spades": 4}[game]
    noisy = AutoTable(seed=seed, entry="mixed")
    noisy.max_hands = 1
    noisy.start(game, n, {"target": 50} if game != "german-whist" else {"target": 3})
    rng = random.Random(seed)
    noise: list[Event] = []
    for _ in range(3000):
        g = noisy.ref.game
        assert g is not None
        if g.hand_results or noisy.ref.waiting != "turn":
            break
        if rng.random() < 0.3:
            ev: Event = rng.choice([
                Button(rng.randrange(n), rng.choice(["minus", "plus", "ok"])),
                Touch(rng.randrange(n), {"play": C.NAMES[rng.randrange(52)]}),
                Touch(rng.randrange(n), {"bid": rng.randrange(14)}),
                UndoRequest(None),
                UndoCancel(),
            ])
            noise.append(ev)
            noisy.feed(ev)
            noisy.feed(UndoCancel())
            noisy.drain()
            continue
        noisy.step()
    assert replay_events(noisy.events) == noisy.ref


_card = st.sampled_from(list(C.NAMES) + ["ZZ", "10H", ""])
_seat = st.integers(-1, 12)
_event = st.one_of(
    st.builds(Button, _seat, st.sampled_from(["minus", "plus", "ok", "ok_long", "bogus"])),
    st.builds(CardRead, _card, st.one_of(st.none(), _seat)),
    st.builds(Touch, _seat, st.one_of(
        st.builds(lambda c: {"play": c}, _card),
        st.builds(lambda b: {"bid": b}, st.integers(-2, 15)),
        st.builds(lambda cs: {"pass": cs}, st.lists(_card, max_size=4)),
        st.just({"moon": "self"}), st.just({"draw": "keep"}), st.just({"nonsense": 1}), st.just({}),
    )),
    st.builds(DealerDone, st.integers(0, 400), st.one_of(st.none(), _card)),
    st.builds(DealDone, st.integers(0, 5), st.booleans()),
    st.builds(DealerFault, st.sampled_from(["jam", "link_down", "timeout"]), st.text(max_size=5)),
    st.builds(DealerReady, st.booleans()),
    st.builds(UndoRequest, st.one_of(st.none(), _seat)),
    st.just(UndoConfirm()),
    st.just(UndoCancel()),
    st.builds(ScoreCorrection, _seat, st.integers(-50, 50)),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["hearts", "spades-2p", "german-whist", "partnership-spades", "cancellation-hearts"]),
       st.lists(_event, max_size=40), st.integers(0, 1000))
def test_any_event_sequence_is_survived_and_replays(game: str, events: list, seed: int) -> None:
    """Arbitrary (mostly wrong) events in the middle of a game: the referee never raises, the
    game's rules state stays legal (it replays from its record), and the journal replays."""
    from trickref.engine.records import parse, replay

    n = {"hearts": 4, "spades-2p": 2, "german-whist": 2, "partnership-spades": 4, "cancellation-hearts": 6}[game]
    t = AutoTable(seed=seed, entry="mixed")
    t.start(game, n)
    for _ in range(seed % 40):
        t.step()
    for ev in events:
        t.feed(ev)
    for _ in range(30):
        if not t.step():
            t.drain()
    g = t.ref.game
    assert g is not None
    again = replay(parse(g.to_json()))
    assert again.actions == g.actions
    assert replay_events(t.events) == t.ref


def test_a_correction_naming_no_seat_is_an_invalid_record() -> None:
    import pytest

    from trickref.engine.errors import RecordError
    from trickref.engine.records import parse

    t = AutoTable(seed=6, entry="touch")
    ref = t.run("hearts", 4, {"target": 100}, max_hands=1)
    out = ref.handle(ScoreCorrection(3, -7, "miscounted"))
    record = [c for c in out if isinstance(c, SaveRecord)][0].record
    record["corrections"][0]["seat"] = 9
    with pytest.raises(RecordError, match=r"corrections\[0\]\.seat"):
        parse(record)
