"""Driving the kiosk with synthesized taps, as a touch screen would."""

from __future__ import annotations

from typing import Any

import pygame

from trickref.engine import cards as C

# pytest-timeout of a whole game played by taps. What bounds its hang is counted in moves
# (``max_steps`` of play_whole_game and referee_helpers.play_to_end) and, on the referee path, in
# seconds without any change at the table (referee_helpers.HANG_GUARD_S); this wall limit only
# catches a call that never returns. A game's wall time is its CPU time over the share of a core
# the machine leaves it: the suite's 300 s cut a whole six-player Cancellation Hearts game that
# was still playing on a loaded machine (issue 18).
WHOLE_GAME_TIMEOUT_S = 1200  # as the whole physical games (test_hardware_games) and the finger walk


def tap(app: Any, pos: tuple[int, int]) -> None:
    """A tap: the mouse down/up pair SDL synthesizes from a touch (``touch`` set)."""
    pos = (int(pos[0]), int(pos[1]))
    app.dispatch(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1, touch=True))
    app.dispatch(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=pos, button=1, touch=True))
    app.render()


def tap_button(app: Any, name: str) -> None:
    app.render()
    b = app.scene.button(name)
    assert b.visible and b.enabled, f"button {name!r} is not tappable on {app.scene.name}"
    assert b.rect.width >= 48 * app.theme.scale - 1 and b.rect.height >= 48 * app.theme.scale - 1, (name, b.rect)
    tap(app, b.rect.center)


def tap_shown_button(app: Any, name: str, frames: int = 400) -> None:
    """Tap ``name`` once the screen shows it: a person taps what is drawn, and on a loaded machine
    the frame that offers a choice the table already takes (the draw's Keep/Discard) may come a
    few frames after the table's state (the loaded suite tapped 'Keep it' on a play screen that
    did not show it yet). Between two looks the table finishes what it is doing (``drain``), so
    the number of looks, not the machine's speed, bounds the wait."""
    for _ in range(frames):
        app.render(force=True)
        if any(b.name == name and b.visible and b.enabled for b in app.scene.buttons()):
            break
        drain(app)
        app.tick(0.05)
    tap_button(app, name)


def tap_card(app: Any, name: str) -> None:
    """Tap the visible part of a card of the hand on screen."""
    app.render(force=True)
    hand = app.scene.hand
    i = hand.cards.index(C.parse(name))
    r = hand.rects[i]
    right = hand.rects[i + 1].x if i + 1 < len(hand.rects) else r.right
    tap(app, ((r.x + right) // 2, r.bottom - hand.lift - 4))


def settle(app: Any, seconds: float = 0.0) -> None:
    """Let time pass: bots act, the dealer deals, held tricks clear (each step waits until the
    table has carried out what the last one asked: ``drain``)."""
    for _ in range(2000):
        drain(app)
        app.tick(0.05)
        app.render()
        s = app.session
        if s is None or not s.busy:
            # a bot's entry comes from its thinker: it may have landed after that frame was drawn
            app.tick(0.0)
            app.render(force=True)
            return
    raise AssertionError("the table never settled")


def drain(app: Any) -> None:
    """Wait until the session's table has nothing left to do (the table host's worker)."""
    s = app.session
    if s is not None:
        s.table.drain()


def play_whole_game(app: Any, chooser: Any, max_steps: int = 20000) -> list[str]:
    """Play until game over by tapping, the human choosing with ``chooser(table, seat)`` (an
    Action). Returns the scene names seen."""
    seen: list[str] = []
    for _ in range(max_steps):
        settle(app)
        sc = app.scene
        seen.append(sc.name)
        if sc.name == "gameover":
            return seen
        if sc.name == "summary":
            tap_button(app, "Next hand")
        elif sc.name == "handoff":
            tap_button(app, "Show my cards")
        elif sc.name == "dealing":
            app.tick(1.0)
        elif sc.name in ("play", "bidding"):
            act(app, chooser)
        elif sc.name == "fault":
            tap_button(app, "Resume")
        else:
            raise AssertionError(f"unexpected scene {sc.name}")
    raise AssertionError("the game did not end")


def play_hand(app: Any, chooser: Any, max_steps: int = 3000) -> None:
    """Play by taps, the human choosing with ``chooser(table, seat)``, until the hand's summary
    is on screen."""
    for _ in range(max_steps):
        settle(app)
        name = app.scene.name
        if name == "summary":
            return
        if name == "handoff":
            tap_button(app, "Show my cards")
        else:
            act(app, chooser)
    raise AssertionError("the hand did not end")


def act(app: Any, chooser: Any) -> None:
    """The revealed human on turn takes the action ``chooser`` picks, by tapping."""
    table = app.session.table
    for _ in range(50):
        sc = app.scene
        sc.refresh()
        seat = sc.acting_seat
        if seat is not None and table.legal(seat):
            break
        # the table does not take the seat's entry yet (the screen says why: the dealer is
        # fetching the stock's card, say, begun after the last frame, and a bot's turn may come
        # after it): the person waits for it
        settle(app)
        if app.scene.name not in ("play", "bidding"):
            return
    else:
        raise AssertionError(f"{sc.name}: nobody let act; turn {sc.t.get('turn')}, revealed {app.session.revealed}, "
                             f"the table: {table.snapshot.waiting_text!r}")
    action = chooser(table, seat)
    k, v = action
    if k == "play":
        # the hand on screen is the seat's hand, and the card is offered
        assert sc.model()["hand"] == table.seat_view(seat)["game"]["hand"]
        tap_card(app, C.NAMES[v])
    elif k == "bid":
        # the panel walks the referee's choices (Blind Nil, Nil, 1..13); the first press shows 1
        choices = table.seat_view(seat)["table"]["choices"]
        want = choices.index("Nil" if v == 0 else str(v))
        for _ in range(2 * len(choices) + 2):
            cur = table.public_view()["table"]["pending"][seat]
            if cur is not None and choices.index(cur) == want:
                break
            tap_button(app, "panel -" if cur is not None and choices.index(cur) > want else "panel +")
        assert table.public_view()["table"]["pending"][seat] == choices[want]
        tap_button(app, "panel OK")
    elif k == "pass":
        for c in v:
            tap_card(app, C.NAMES[c])
        tap_button(app, f"Pass {len(v)} cards")
    elif k == "draw":
        tap_shown_button(app, "Keep it" if v == "keep" else "Discard it")
    elif k == "exchange":
        for c in v[0]:
            tap_card(app, C.NAMES[c])
        n = len(v[0])
        tap_button(app, f"Exchange {n} card{'s' if n != 1 else ''}")
    elif k == "moon":
        o = table.state.options
        tap_button(app, f"Me {o['moon_self']:+d}" if v == "self" else f"Others {o['moon_others']:+d}")
        tap_button(app, "yes")  # the choice binds the hand: the kiosk asks first
    elif k == "double_nil":
        tap_button(app, "Double Nil")
        tap_button(app, "yes")
    elif k == "blind_nil":
        tap_button(app, "Blind Nil")
        tap_button(app, "yes")
    else:
        raise AssertionError(f"no tap for {action}")
