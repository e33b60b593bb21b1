"""No snapshot offers a turn the table will not take.

The kiosk draws "Your turn" (and makes the hand tappable) for the seat its view names on turn.
The referee's own view names the game's turn seats whenever a hand is in play, also while a
dealer step gates the table: after the bot's draw in two-player Spades the dealer fetches the
human's next card ([Fetch, Stage]), after a German Whist trick it fetches the stock cards; the
game already has the human on turn, the table takes no entry until the fetch is done. Every
snapshot the host published in between offered the human a turn: a frame of "Your draw" (on a
real dealer, seconds of it) with nothing the person could do, and a tap then was refused. The
kiosk's snapshot now names a seat on turn only while the table takes its entries; meanwhile
the screen says what it waits for.
"""

from __future__ import annotations

import pytest
from kiosk_helpers import act, play_hand, settle
from test_play_through import random_chooser

from trickref.device.table import host as H
from trickref.engine.referee.commands import Fetch
from trickref.ui.screenshots import start_game


def _watch(table) -> list[str]:
    """Every snapshot the host publishes from now on is checked: a seat named on turn in any
    view (the shared screen's, every seat's) is one whose entry the table takes now."""
    host = table.host
    built = host.publisher
    wrong: list[str] = []

    def publisher(ref):
        snap = built(ref)
        steps = [s.OP for s in ref.steps]
        for who, view in [("public", snap.public), *snap.seats.items()]:
            offered = list(view["table"]["turn"])
            for s in offered:
                if not (snap.accepting and s in snap.turn and snap.legal.get(s)):
                    wrong.append(f"{who} view names seat {s} on turn while the table takes no entry "
                                 f"(steps {steps}, waiting for: {ref.waiting_text()!r})")
        return snap

    host.publisher = publisher
    return wrong


@pytest.mark.parametrize("game", ["spades-2p", "german-whist"])
def test_no_snapshot_offers_a_turn_while_a_dealer_step_gates_the_table(small_app, game):
    app = small_app
    session = start_game(app, game, 2, humans=(0,), seed=5)
    wrong = _watch(session.table)
    app.route()
    play_hand(app, random_chooser(1))
    assert not wrong, f"{len(wrong)} snapshots offered a turn the table would not take, e.g. {wrong[:3]}"


def test_while_the_dealer_fetches_the_humans_card_the_screen_says_wait(small_app, monkeypatch):
    """Two-player Spades: the bot has drawn; the dealer's Fetch of the human's next card is held
    (a slow dealer): the human is not offered the draw, the screen says what the table waits
    for; once the card is in the pocket the draw is theirs."""
    held: list[tuple[H.IdealDealer, Fetch]] = []
    run = H.IdealDealer.run
    app = small_app
    session = start_game(app, "spades-2p", 2, humans=(0,), seed=5)
    table = session.table

    def slow_run(self, cmd):  # (on the host's worker)
        g = table.host.referee.game
        if not held and isinstance(cmd, Fetch) and cmd.target == "seat:0" and g.actions and g.actions[-1][0] == 1:
            held.append((self, cmd))  # the bot has drawn: the human's next card is on its way
            return
        run(self, cmd)

    monkeypatch.setattr(H.IdealDealer, "run", slow_run)
    app.route()
    chooser = random_chooser(1)
    # each look waits until the table has done what the last one asked (its worker idle, a
    # bot's thinking entered) or the Fetch is held: the number of looks, not the machine's
    # speed, bounds the wait (a loaded CI machine burned 400 bare frames before the bot drew)
    for _ in range(400):
        table.wait(lambda: bool(held) or table.host._idle(), timeout=60)
        if held:
            break
        app.tick(0.05)
        app.render()
        if table.turn() == (0,) and app.scene.name == "play":
            act(app, chooser)
    assert held, "the dealer was never asked to fetch the human's card after the bot's draw"
    assert table.wait(lambda: table.snapshot.public["table"]["dealer"]["op"] == "fetch", timeout=30)
    app.tick(0.0)
    app.render(force=True)
    sc = app.scene
    sc.refresh()
    assert table.state.to_move == 0 and table.turn() == () and table.legal(0) == []
    assert sc.name == "play" and sc.acting_seat is None
    shown = sc.shown["message"]
    assert "Your" not in shown and shown.startswith("wait: the dealer is fetching a card"), shown
    assert sc.shown.get("drawn_card") is None and not [b for b in sc.action_buttons if b.visible]
    dealer, cmd = held.pop()
    table.host.job(lambda: run(dealer, cmd))  # the card reaches the pocket
    settle(app)
    sc = app.scene
    sc.refresh()
    assert sc.acting_seat == 0 and table.legal(0)
    assert sc.shown["message"].startswith("Your draw"), sc.shown["message"]
