"""The referee through every game's whole flow with a scripted table (AutoTable): panels,
reader, touchscreen and bot entries; the dealer steps each game needs; records that replay,
commitments that verify, and a journal replay that rebuilds an equal referee."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from trickref.engine import cards as C
from trickref.engine.games import player_counts
from trickref.engine.records import parse, replay
from trickref.engine.referee import fairness
from trickref.engine.referee.autotable import AutoTable, engine_bot
from trickref.engine.referee.autotable import replay as replay_events
from trickref.engine.referee.commands import (
    DealerCommand,
    FeedBack,
    Fetch,
    Led,
    RouteFed,
    SaveRecord,
    ShowCommitment,
    Stage,
)
from trickref.engine.referee.events import Button, DealDone, DealerDone, NewGame, make_shuffle
from trickref.engine.referee.referee import Referee

SHORT = {"hearts": 50, "cancellation-hearts": 100, "german-whist": 5, "spades-2p": 100, "partnership-spades": 100}
GAMES = [(g, n) for g in SHORT for n in player_counts(g)]


@pytest.mark.parametrize("game,n", GAMES)
@pytest.mark.parametrize("entry", ["mixed", "reader"])
def test_whole_game(game: str, n: int, entry: str) -> None:
    opts: dict = {"target": SHORT[game]}
    if game == "partnership-spades":
        opts["blind_nil_margin"] = 0
    t = AutoTable(seed=n * 11 + len(entry), entry=entry)
    ref = t.run(game, n, opts)
    g = ref.game
    assert g is not None and ref.waiting == "over" and g.over and g.winners
    refused = [m["text"] for m in ref.messages if m["level"] != "info"]
    assert not refused
    # The saved record replays through the rules to the same totals and verifies.
    saves = [c for c in t.commands if isinstance(c, SaveRecord)]
    assert saves[-1].finished and all(not s.finished for s in saves[:-1])
    assert len(saves) == len(g.hand_results)
    rec = parse(json.dumps(saves[-1].record))
    again = replay(rec)
    assert again.totals == g.totals and again.winners == g.winners
    checks = fairness.verify_record(rec)
    assert len(checks) == len(g.hand_results) and all(c.ok for c in checks)
    for hand in saves[-1].record["hands"]:
        assert len(hand["commitment"]) == 64 and hand["salt"]
    # Journal promise: the same events give an equal referee.
    assert replay_events(t.events) == ref


def test_every_entry_route_gives_the_same_game() -> None:
    results = []
    for entry in ("reader", "touch", "bot", "mixed"):
        t = AutoTable(seed=5, entry=entry)
        ref = t.run("hearts", 4, {"target": 50})
        assert ref.game is not None
        results.append((ref.game.totals, ref.game.to_json()))
    assert all(r == results[0] for r in results)


def _start(game: str, n: int, seed: int = 1, options: dict | None = None) -> tuple[Referee, list]:
    """A referee with the first hand shuffled; returns it and the commands so far."""
    ref = Referee()
    out = ref.handle(NewGame(game, tuple(f"P{i}" for i in range(n)), options or {}, 0, ()))
    import random

    out += ref.handle(make_shuffle(2 if game == "cancellation-hearts" else 1, random.Random(seed)))
    return ref, out


def _deal_cmd(out: list) -> DealerCommand:
    return [c for c in out if isinstance(c, DealerCommand) and c.OP == "deal"][-1]


def test_deal_plans_follow_each_game() -> None:
    ref, out = _start("hearts", 3)
    plan = _deal_cmd(out).plan
    assert [c for c, t in plan if t == "reject"] == ["2D"]
    assert len(plan) == 52
    ref, out = _start("cancellation-hearts", 7)
    plan = _deal_cmd(out).plan
    assert sum(t == "centre" for _, t in plan) == 6 and len(plan) == 104
    ref, out = _start("spades-2p", 2)
    plan = _deal_cmd(out).plan
    assert plan[0][1] == f"seat:{ref.game.to_move}"  # type: ignore[union-attr]  # the first card shown: to its pocket
    assert all(t == "loop" for _, t in plan[1:])
    assert [c for c, _ in plan] == C.names(ref.game.deck)  # type: ignore[union-attr]
    ref, out = _start("german-whist", 2)
    plan = _deal_cmd(out).plan
    g = ref.game
    assert g is not None
    assert [c for c, t in plan if t == "loop"] == C.names(g.deck[26:])
    for s in range(2):
        assert sorted(C.parse(c) for c, t in plan if t == f"seat:{s}") == sorted(g.hand_of(s))


def test_commitment_shown_before_the_deal_and_salt_revealed_after() -> None:
    ref, out = _start("hearts", 4)
    shows = [c for c in out if isinstance(c, ShowCommitment)]
    assert len(shows) == 1 and not shows[0].salt
    assert out.index(shows[0]) < out.index(_deal_cmd(out))
    pv = ref.public_view()["table"]["commitment"]
    assert pv["salt"] is None and pv["full"] == shows[0].full
    assert shows[0].short.replace(" ", "") == shows[0].full[:24]
    t = AutoTable(seed=2, entry="touch", referee=ref)
    t.chooser = engine_bot("hearts")
    t.drain()
    t.queue.append(DealDone(ref.steps[0].deal_id))
    t.max_hands = 1
    while ref.waiting == "turn" or ref.busy:
        if not t.step():
            t.drain()
    reveal = [c for c in t.commands if isinstance(c, ShowCommitment) and c.salt]
    assert len(reveal) == 1 and reveal[0].full == shows[0].full
    g = ref.game
    assert g is not None
    assert fairness.commitment(g.finished_hands[0][0], reveal[0].salt) == shows[0].full


def test_nothing_happens_before_the_verified_deal() -> None:
    ref, out = _start("hearts", 4)
    before = ref.game.copy()  # type: ignore[union-attr]
    out = ref.handle(Button(0, "plus"))
    assert any("dealing" in getattr(c, "text", "") for c in out)
    assert ref.game == before
    deal = _deal_cmd(_start("hearts", 4)[1])
    assert deal.deal_id == 1


def _run_steps(ref: Referee, fed: dict[int, str] | None = None) -> list[DealerCommand]:
    """Answer every pending dealer step as the ideal dealer would (a FeedBack reads ``fed[step]``
    when given: a player feeding another card); returns the steps, numbers set to 0."""
    done: list[DealerCommand] = []
    while ref.steps and ref.dealer_fault is None:
        c = ref.steps[0]
        done.append(replace(c, step=0))
        card = (fed or {}).pop(c.step, None) or getattr(c, "card", None)
        ref.handle(DealerDone(c.step, card))
    return done


def test_spades_2p_draw_flow_and_privacy() -> None:
    ref, out = _start("spades-2p", 2, seed=9)
    g = ref.game
    assert g is not None
    deal = _deal_cmd(out)
    out = ref.handle(DealDone(deal.deal_id))
    first = g.to_move
    assert first == 1  # the player left of the dealer (seat 0) draws first
    top, d = C.NAMES[g.deck[0]], C.names(g.deck)
    # the top card was dealt straight into the first player's pocket; the next one is staged
    assert [replace(c, step=0) for c in out if isinstance(c, DealerCommand)] == [Stage(d[1])]
    assert ref.places.at[f"seat:{first}"] == [g.deck[0]]
    assert ref.seat_view(first)["table"]["presented"] == top
    assert ref.seat_view(1 - first)["table"]["presented"] is None
    assert top not in json.dumps(ref.public_view())
    assert ref.accepting()  # staging runs in the background
    # + keeps: the next card is fetched to the player, who feeds it back (checked) to the loop
    # (a Double Nil is still possible); then the opponent's card is fetched, the next staged.
    out = ref.handle(Button(first, "plus"))
    assert "feeds the drawn card back" not in ref.waiting_text()
    assert _run_steps(ref) == [
        Stage(d[1]),
        Fetch(d[1], f"seat:{first}"),
        FeedBack(first, d[1], "loop"),
        Fetch(d[2], f"seat:{1 - first}"),
        Stage(d[3]),
    ]
    assert g.hand_of(first) == [g.deck[0]]
    assert ref.places.at[f"seat:{first}"] == [g.deck[0]] and g.deck[1] in ref.places.at["loop"]
    assert ref.seat_view(1 - first)["table"]["presented"] == d[2]
    # - discards (the second player's first decision: no Double Nil any more, so the discard
    # pocket): the shown card fed back (checked), the next one fetched and kept.
    out = ref.handle(Button(1 - first, "minus"))
    steps = _run_steps(ref)
    assert steps[:2] == [Fetch(d[3], f"seat:{1 - first}"), FeedBack(1 - first, d[2], "discard")]
    assert g.hand_of(1 - first) == [g.deck[3]] and ref.places.at["discard"] == [g.deck[2]]


def test_a_wrong_card_fed_back_goes_back_and_the_dealer_waits_again() -> None:
    ref, out = _start("spades-2p", 2, seed=9)
    g = ref.game
    assert g is not None
    ref.handle(DealDone(_deal_cmd(out).deal_id))
    first = g.to_move
    assert first is not None
    ref.handle(Button(first, "minus"))  # feed the top card back
    for _ in range(2):  # the stage, the fetch of the second card
        head = ref.steps[0]
        out = ref.handle(DealerDone(head.step, head.card))  # type: ignore[attr-defined]
    fb = [c for c in out if isinstance(c, DealerCommand)][0]
    assert isinstance(fb, FeedBack) and fb.card == C.NAMES[g.deck[0]]
    wrong = C.NAMES[g.deck[5]]  # a stock card (in the loop) came out instead: it goes back round
    out = ref.handle(DealerDone(fb.step, wrong))
    assert any("not the card to feed back" in getattr(c, "text", "") for c in out)
    again = [replace(c, step=0) for c in ref.steps[:2]]
    assert again == [RouteFed(wrong, "loop"), FeedBack(first, C.NAMES[g.deck[0]], "loop")]
    assert ref.busy
    _run_steps(ref)
    assert not ref.steps and ref.accepting() and g.hand_of(first) == [g.deck[1]]


def test_german_whist_stock_after_a_stage_one_trick() -> None:
    ref, out = _start("german-whist", 2, seed=4)
    g = ref.game
    assert g is not None
    out = ref.handle(DealDone(_deal_cmd(out).deal_id))
    d = C.names(g.deck)
    # the turned-up card is on the screen at once (it stays in the loop), staged in the background
    assert ref.public_view()["table"]["faceup"] == d[26]
    assert [replace(c, step=0) for c in out if isinstance(c, DealerCommand)] == [Stage(d[26])]
    assert ref.accepting()
    steps: list[DealerCommand] = _run_steps(ref)
    from trickref.engine.referee.events import CardRead

    for _ in range(2):
        seat = g.to_move
        assert seat is not None
        card = g.legal_actions(seat)[0].value
        steps += (ref.handle(CardRead(C.NAMES[card])), _run_steps(ref))[1]
    winner = g.leader
    assert [s for s in steps if not isinstance(s, RouteFed)] == [
        Stage(d[26]),
        Fetch(d[26], f"seat:{winner}"),
        Fetch(d[27], f"seat:{1 - winner}"),
        Stage(d[28]),
    ]
    assert g.deck[26] in g.hand_of(winner) and g.deck[27] in g.hand_of(1 - winner)
    assert ref.public_view()["table"]["faceup"] == d[28]
    assert d[27] not in json.dumps(ref.public_view())


def test_leds_follow_the_turn() -> None:
    ref, out = _start("spades-2p", 2, seed=3)
    out = ref.handle(DealDone(_deal_cmd(out).deal_id))
    leds = {c.seat: c.mode for c in out if isinstance(c, Led)}
    assert leds == {1: "on"}
    assert ref.public_view()["table"]["leds"] == ["off", "on"]


@pytest.mark.parametrize("game,n", [("hearts", 4), ("cancellation-hearts", 7), ("spades-2p", 2),
                                    ("german-whist", 2), ("partnership-spades", 4)])
def test_physical_model_tracks_the_cards(game: str, n: int) -> None:
    """Reader entries: in play, each seat's tray holds exactly the engine's hand, and no card is
    ever lost or duplicated in the model."""
    from collections import Counter

    t = AutoTable(seed=8, entry="reader")
    t.max_hands = 2
    t.start(game, n, {"target": SHORT[game]})
    ref = t.ref
    g = ref.game
    assert g is not None
    decks = g.DECKS
    checked = 0
    for _ in range(3000):
        if not t.step():
            break
        if ref.busy or ref.steps:
            continue
        total = Counter(c for cards in ref.places.at.values() for c in cards)
        assert total == Counter({c: decks for c in range(52)})
        if g.phase == "play":
            for s in range(n):
                assert Counter(ref.places.at.get(f"seat:{s}", [])) == Counter(g.hand_of(s))
            checked += 1
    assert checked > 20
    pockets, loop, gate = ref.places.restore()
    assert sum(map(len, pockets.values())) + len(loop) + len(gate) == 52 * decks


def test_moon_choice_on_the_panel() -> None:
    """A hand where one seat takes every point: the shooter steps to a choice with minus/plus
    and confirms with OK; the record holds the choice."""
    t = AutoTable(seed=2, entry="reader")
    ref = t.run("hearts", 3, {"target": 100})
    g = ref.game
    assert g is not None
    moons = [(h, s, a) for h, (_, acts) in enumerate(g.finished_hands) for s, a in acts if a.kind == "moon"]
    assert moons
    h, seat, action = moons[0]
    fresh = Referee()
    for ev in t.events:  # the event that took the moon choice is the shooter's OK
        fresh.handle(ev)
        assert fresh.game is not None
        if len(fresh.game.finished_hands) > h:
            assert ev == Button(seat, "ok")
            break
    from trickref.engine import actions as A
    from trickref.engine.referee import panel

    assert panel.choice_list([A.MOON_OTHERS, A.MOON_SELF]) == [A.MOON_SELF, A.MOON_OTHERS]
    assert panel.label(A.MOON_SELF) == "moon: themself"
    assert panel.choice_list([A.bid(3), A.BLIND_NIL, A.bid(0)]) == [A.BLIND_NIL, A.bid(0), A.bid(3)]
    assert panel.start_index([A.BLIND_NIL, A.bid(0), A.bid(1)]) == 2
