"""A bug inside the referee never leaves a half-applied state: the event is ignored with an
error message, the referee is exactly as before it, and replaying the journal (which holds the
event) rebuilds the same referee."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from trickref.device.journal import Journal
from trickref.engine import cards as C
from trickref.engine.referee.autotable import AutoTable
from trickref.engine.referee.autotable import replay as replay_events
from trickref.engine.referee.commands import Message
from trickref.engine.referee.events import Touch, event_from_json
from trickref.engine.referee.referee import Referee


def in_play(ref: Referee) -> bool:
    g = ref.game
    return g is not None and ref.accepting() and g.phase == "play" and g.hand_number == 1


def table_in_play(game: str, n: int) -> AutoTable:
    t = AutoTable(seed=5, entry="touch")
    t.start(game, n)
    for _ in range(5000):
        t.drain()
        if in_play(t.ref):
            return t
        assert t.step()
    raise AssertionError("never in play")


def state(ref: Referee) -> dict:
    """Everything but the message list and the event count (the ignored event adds to both)."""
    return {k: v for k, v in ref.__dict__.items() if k not in ("messages", "message_events", "events_handled", "_out", "_history", "event_places")}


@pytest.mark.parametrize("error", [KeyError, TypeError, RuntimeError, AssertionError])
@pytest.mark.parametrize("game,n", [("hearts", 4), ("spades-2p", 2), ("german-whist", 2)])
def test_a_bug_half_way_through_an_entry_changes_nothing(monkeypatch, caplog, tmp_path: Path, game, n, error):
    t = table_in_play(game, n)
    ref = t.ref
    k = ref.events_handled + 1
    real = Referee._announce

    def buggy(self: Referee, seat: int, action) -> None:
        # after the game applied the card and the table noted its source: a half-applied state
        if self.events_handled == k:
            raise error("injected bug")
        real(self, seat, action)

    monkeypatch.setattr(Referee, "_announce", buggy)
    before = replay_events(list(t.events))
    assert before == ref
    seat = ref.game.turn_seats()[0]
    card = next(a for a in ref.game.legal_actions(seat) if a.kind == "play").value
    with caplog.at_level(logging.ERROR, logger="trickref.referee"):
        out = t.feed(Touch(seat, {"play": C.NAMES[card]}))
    errors = [c.text for c in out if isinstance(c, Message) and c.level == "error"]
    assert len(errors) == 1 and "injected bug" in errors[0] and "nothing changed" in errors[0]
    assert "Traceback" in caplog.text or caplog.records[0].exc_info, "the bug is logged loudly"
    assert state(ref) == state(before), "no half-applied entry"
    assert card in ref.game.hand_of(seat) and ref.messages[-1]["level"] == "error"
    # the table goes on: the same card now goes through (the bug fired at that one event)
    t.feed(Touch(seat, {"play": C.NAMES[card]}))
    assert card not in ref.game.hand_of(seat)
    for _ in range(60):
        t.step()
    # the journal holds every event, the ignored one too; replaying it gives the same referee
    path = tmp_path / "table.journal"
    j, _, _ = Journal.open(path)
    for ev in t.events:
        j.append(ev.to_json())
    j.close()
    j, records, _ = Journal.open(path)
    j.close()
    again = Referee()
    for rec in records:
        again.handle(event_from_json(rec))
    assert again == ref and again.record() == ref.record()


def test_a_bug_in_a_new_game_keeps_the_finished_game(monkeypatch) -> None:
    """NewGame resets the referee before it builds the new game: a bug after the reset brings
    back the game that was there, not a blank referee."""
    from trickref.engine.referee.events import NewGame

    t = AutoTable(seed=2, entry="mixed")
    ref = t.run("hearts", 4, {"target": 50})
    assert ref.waiting == "over"
    before = replay_events(list(t.events))
    real = Referee._ask_shuffle

    def broken(self: Referee) -> None:
        if self.game is not None and self.game.GAME_ID == "german-whist":
            raise ValueError("injected")
        real(self)

    monkeypatch.setattr(Referee, "_ask_shuffle", broken)
    out = ref.handle(NewGame("german-whist", ("A", "B"), {}, 0, ()))
    assert [c.level for c in out if isinstance(c, Message)] == ["error"]
    assert ref.game is not None and ref.game.GAME_ID == "hearts"
    assert state(ref) == state(before)
