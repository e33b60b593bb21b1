"""The kiosk's table client on the instant table (the table host with the ideal dealer): whole
games with a human seat entering on the touchscreen and the panel, bots elsewhere, refusals with
the referee's words (its Refusal command), undo, dealer faults. Waits are on the host (drain)."""

from __future__ import annotations

import random

import pytest

from trickref.engine import actions as A
from trickref.engine.games import player_counts
from trickref.engine.records import parse, replay
from trickref.engine.referee import fairness
from trickref.engine.referee.events import DealerFault
from trickref.ui.table_client import TableClient, open_client


def play(table: TableClient, human: int, rng: random.Random, max_steps: int = 20000) -> None:
    for _ in range(max_steps):
        if table.referee.waiting == "over":
            return
        if table.needs_deal:
            table.deal(instant=True)
            table.drain()
            continue
        if table.step_bot():
            continue
        if human in table.turn():
            legal = table.legal(human)
            action = rng.choice(legal)
            if action.kind == "bid" and rng.random() < 0.5:
                table.panel(human, "+")  # shows 1
                for _ in range(action.value - 1 if action.value >= 1 else 1):
                    table.panel(human, "+" if action.value >= 1 else "-")
                table.panel(human, "OK")
                table.drain()
                assert table.referee.game.actions[-1] == (human, action)  # type: ignore[union-attr]
            else:
                assert table.check(human, action) is None
                table.submit(human, action)
            continue
        table.drain()
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("game", ["hearts", "spades-2p", "german-whist", "partnership-spades", "cancellation-hearts"])
def test_whole_game_through_the_kiosk_interface(game: str) -> None:
    n = min(player_counts(game))
    target = {"hearts": 50, "cancellation-hearts": 100, "german-whist": 3}.get(game, 100)
    t = open_client(game, n, options={"target": target}, bots=range(1, n), seed=3)
    play(t, 0, random.Random(1))
    g = t.referee.game
    assert g is not None and g.over
    record = t.referee.record()
    assert replay(parse(record)).totals == g.totals
    assert all(c.ok for c in fairness.verify_record(record))
    assert t.public_view()["table"]["mode"] == "instant"
    t.close()


def test_refusal_undo_and_fault() -> None:
    t = open_client("hearts", 4, bots=(1, 2, 3), seed=2)
    t.deal(instant=True)
    t.drain()
    g = t.referee.game
    assert g is not None
    bad = next(c for c in range(52) if c not in g.hand_of(0))
    with pytest.raises(ValueError, match="cannot pass") as refused:
        t.submit(0, A.pass_cards([bad, *g.hand_of(0)[:2]]))
    assert any(m["text"] == str(refused.value) for m in t.referee.messages)  # the referee's words
    t.submit(0, A.pass_cards(g.hand_of(0)[:3]))
    assert t.can_undo()
    taken = t.undo()
    assert taken and taken[-1].kind == "pass" and not g.actions
    t.host.call(DealerFault("jam", "a card jammed at the eject stage"))
    assert t.public_view()["table"]["dealer"]["status"] == "fault" and t.legal(0) == []
    with pytest.raises(ValueError, match="only the simulated dealer"):
        t.fault("jam")  # the ideal dealer cannot be jammed on purpose
    t.clear_fault()
    t.drain()
    assert t.legal(0) and t.host.recoveries
    t.close()


def test_the_kiosk_session_runs_on_the_referee() -> None:
    """trickref.ui.session.Session (the kiosk's game logic, no drawing) plays whole games on the client."""
    from trickref.ui.session import Session

    for game, n in [("hearts", 4), ("spades-2p", 2), ("partnership-spades", 4)]:
        t = open_client(game, n, options={"target": 50 if game == "hearts" else 100}, bots=range(1, n), seed=1)
        s = Session(t, simulated=True, bot_delay=0.0, trick_hold=0.0, deal_delay=False)
        rng = random.Random(0)
        for _ in range(20000):
            route = s.route()
            if t.referee.waiting == "over":
                break
            if route == "summary":
                s.acknowledge_summary()
            elif t.needs_deal:
                s.start_deal()
                s.update(1.0)
            elif (h := s.human_on_turn()) is not None:
                if s.needs_handoff() is not None:
                    s.reveal(h)
                s.submit(h, rng.choice(t.legal(h)))
            else:
                s.update(1.0)
            t.drain()
        assert t.referee.waiting == "over", (game, t.referee.waiting_text())
        t.close()
