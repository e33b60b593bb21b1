"""Every touch target of every staged screen, tapped by a finger (tests/ui/finger.py), acts.

The states are the screenshot set's (``ui.screenshots.scenarios``: a new staged screen is
walked with no change here) and ``EXTRA_STATES``, the moments it does not stage. On each, every
target ``Scene.touch_targets()`` lists (buttons, toggles, stepper and choice segments, list rows;
of the cards of a hand, which share one path, the first, middle and last) is tapped the way a person taps: held 50-500 ms while the app's own loop
draws frames, drifting a few pixels, arriving as mouse events, as SDL's touch events with their
mouse copies, or as bare FINGER events. Each tap must change what the kiosk shows or holds (the
screen's pixels, the scene stack, what the scene reports, the table's state): a target that
looks tappable and does nothing is a failure. A dialog a tap opens (a confirmation) is walked
too. A tap on a state an earlier tap changed that does nothing is tried again on a freshly
staged state; only a target idle there fails. On a screen that changes by itself (the dealing
screen while the simulated dealer deals) only a change of scene or of the words shown counts.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import time
from collections.abc import Callable
from typing import Any

import pygame
import pytest
from finger import KINDS, Clock, tap_target

from trickref.engine.actions import DOUBLE_NIL
from trickref.ui.screenshots import advance, correct, make_app, scenarios, show, start_game

HOLDS = (50, 120, 300, 500, 80, 200)


def _pass_chosen(game: str, n: int, seed: int = 7) -> Callable[[Any], Any]:
    def stage(app: Any) -> Any:
        s = start_game(app, game, n, seed=seed)
        advance(s, lambda st: st.phase == "pass" and 0 in st.turn_seats())
        sc = show(app, reveal=0)
        sc.hand.selected = [0, 3, 5]  # three cards chosen: "Pass 3 cards" offered
        app.render(force=True)
        return sc
    return stage


def _exchange(app: Any) -> Any:
    s = start_game(app, "spades-2p", 2, humans=(0,), names=["Ana", "Ben"], seed=8)
    advance(s, lambda st: st.phase == "draw" and 0 in st.turn_seats())
    s.table.submit(0, DOUBLE_NIL)
    s.table.drain()
    advance(s, lambda st: st.phase == "exchange" and 0 in st.turn_seats())
    sc = show(app, reveal=0)
    sc.hand.selected = [1, 4]
    app.render(force=True)
    return sc


def _after_review(app: Any) -> Any:
    s = start_game(app, "hearts", 4, seed=11)
    advance(s, lambda st: st.phase == "play" and 0 in st.turn_seats() and len(st.trick) == 1 and st.tricks_played >= 2)
    show(app, reveal=0)
    tap_target(app, "Last trick")  # the last trick shows; its button says Back
    assert app.scene.review
    tap_target(app, "Last trick", hold_ms=150)  # Back: the next tap must be the next tap's
    assert not app.scene.review
    return app.scene


def _blind_nil_offered(app: Any) -> Any:
    s = start_game(app, "partnership-spades", 4, humans=(0, 1, 2, 3), seed=8, options={"blind_nil_margin": 0},
                   deal=False)
    st = s.table.state
    correct(s.table, st.dealer % 2, 50, "staged: the first bidder's team trails")
    s.start_deal()
    s.table.drain()
    return show(app)


def _dealing_live(app: Any) -> Any:
    """The screenshot's dealing, its simulated dealer left running (slowed after 20 cards)."""
    from trickref.ui.screenshots import real_game

    table = real_game(app, "hearts", 4)

    def slow(ev: Any) -> None:
        if table.public_view()["table"]["dealer"]["dealt"] >= 4:
            table.opened.world.sim.speed = 0.01

    table.opened.driver.add_listener(slow)
    # at real time until then: the listener runs on the driver's thread as each card's event
    # comes in, and a loaded machine can hold that thread back for longer than a deal takes at
    # the staging speed (400x), which then ends before the slow-down and the walk meets "play"
    table.opened.world.sim.speed = 1.0
    app.session.start_deal()
    table.wait(lambda: table.public_view()["table"]["dealer"]["dealt"] >= 4, 60.0)
    return show(app)


def _fault_live(app: Any) -> Any:
    """The screenshot's dealer jam, the table left running (Resume must restart the deal)."""
    from trickref.ui.screenshots import real_game

    table = real_game(app, "german-whist", 2)
    table.arm_fault("jam", after_cards=12)
    app.session.start_deal()
    table.wait(lambda: table.referee.dealer_fault is not None, 60.0)
    return show(app)


EXTRA_STATES: list[tuple[str, Callable[[Any], Any]]] = [
    # the screenshots close these tables once drawn: walked with their tables running
    ("dealing", _dealing_live),
    ("fault", _fault_live),
    ("pass-hearts-3-chosen", _pass_chosen("hearts", 4)),
    ("pass-cancellation-hearts-3-chosen", _pass_chosen("cancellation-hearts", 6)),
    ("exchange-spades-2p", _exchange),
    ("play-after-last-trick-back", _after_review),
    ("handoff-blind-nil", _blind_nil_offered),
]

STATES = dict([*scenarios(), *EXTRA_STATES])


def settle(app: Any) -> None:
    """Let the table carry out what the tap asked (bots answer, the scene routes); a table
    that stays busy (a dealer mid-deal on the dealing screen) is not waited for."""
    wait = 0.5
    for _ in range(3):
        s = app.session
        if s is not None and wait:
            try:
                s.table.drain(wait)
            except TimeoutError:
                wait = 0
        app.tick(0.05)
        app.render()


def fingerprint(app: Any) -> tuple[Any, ...]:
    """What a tap can change: the scenes on the stack, what the top one reports, the table's
    state, and the screen's pixels."""
    settle(app)  # (and drawn: what the screen shows now)
    top = app.scene
    model = repr(sorted(top.model().items(), key=lambda kv: kv[0])) if top is not None else ""
    table = ""
    s = app.session
    if s is not None:
        try:
            table = repr(s.table.public_view())
        except Exception as e:  # noqa: BLE001 - a closed table: its absence is the state
            table = type(e).__name__
    pixels = hashlib.sha1(pygame.image.tobytes(app.screen, "RGB")).hexdigest()
    words = re.sub(r"\d+", "#", repr(top.model().get("texts"))) if top is not None else ""  # the words, not the counts
    return ((tuple(id(x) for x in app.scenes.stack), words), model, table, pixels,
            repr(vars(app.settings.config.display)))


class Walker:
    def __init__(self, stage: Callable[[Any], Any]) -> None:
        self.stage = stage
        self.app: Any = None
        self.n = 0
        self.homes = 0
        self.base = os.environ.get("TRICKREF_HOME") or tempfile.mkdtemp()
        self.clock = Clock()

    def fresh(self, path: tuple[str, ...] = ()) -> Any:
        if self.app is not None:
            self.app.end_session()
        self.homes += 1  # a journal and games folder of its own: nothing carries over
        home = os.path.join(self.base, f"walk-{self.homes}")
        os.makedirs(home, exist_ok=True)
        os.environ["TRICKREF_HOME"] = home
        self.app = make_app((800, 480))
        self.stage(self.app)
        settle(self.app)
        for name in path:  # the taps that open a dialog
            self.tap(name)
            settle(self.app)
        return self.app

    def tap(self, name: str) -> None:
        i = self.n
        self.n += 1
        tap_target(self.app, name, hold_ms=HOLDS[i % len(HOLDS)], kind=KINDS[i % len(KINDS)],
                   drift=((-1) ** i * 3, 2 - i % 5), clock=self.clock)

    def targets(self) -> list[str]:
        self.app.render(force=True)
        return [n for n, _r in self.app.scene.touch_targets()]

    def acts(self, name: str, path: tuple[str, ...] = ()) -> tuple[bool, Any]:
        """Tap ``name`` on the current state; if the state is not fresh or the target is gone,
        on a fresh one. (acted, the stack after)."""
        if name not in self.targets():
            self.fresh(path)
        before = fingerprint(self.app)
        moving = fingerprint(self.app) != before  # the screen changes by itself (a deal under way)
        stack = list(self.app.scenes.stack)
        self.tap(name)
        after = fingerprint(self.app)
        if moving:  # then only a change of screen or of its words counts (numbers aside: a deal
            # counts on); a dealer unplugged is noticed when its link times out: it is waited for
            for _ in range(100):
                if after[0] != before[0]:
                    break
                time.sleep(0.1)
                after = fingerprint(self.app)
            return before[0] != after[0], stack
        return before != after, stack


def walk(stage: Callable[[Any], Any]) -> tuple[list[str], int]:
    w = Walker(stage)
    w.fresh()
    names = w.targets()
    dup = sorted({n for n in names if names.count(n) > 1})
    assert not dup, f"touch targets with the same name on {w.app.scene.name}: {dup} (a held press is kept by name)"
    # the cards of a hand share one path (PlayScene.handle): its first, middle and last card
    cards = [n for n in names if n.startswith("card ")]
    names = [n for n in names if not n.startswith("card ") or n in (cards[0], cards[len(cards) // 2], cards[-1])]
    idle: list[str] = []
    dialogs: set[Any] = set()
    tapped = 0
    dirty = False
    for name in names:
        if dirty:
            w.fresh()
        acted, before = w.acts(name)
        if not acted:
            w.fresh()
            acted, before = w.acts(name)
        tapped += 1
        if not acted:
            idle.append(name)
        stack = w.app.scenes.stack
        opened = stack[-1] if len(stack) == len(before) + 1 and stack[:-1] == before and stack[-1].modal else None
        dirty = [id(x) for x in stack] != [id(x) for x in before]
        kind = None if opened is None else (opened.name, tuple(n for n, _r in opened.touch_targets()))
        if kind in dialogs:
            opened = None  # the same dialog (seat 2's name keyboard after seat 1's): walked once
        if opened is not None:  # a dialog: each of its targets, from a fresh state and the same tap
            dialogs.add(kind)
            for sub in [n for n, _r in opened.touch_targets()]:
                w.fresh((name,))
                acted, _ = w.acts(sub)
                tapped += 1
                if not acted:
                    idle.append(f"{name} > {sub}")
            dirty = True
    w.app.end_session()
    return idle, tapped


# A hang guard, not a timed check: a ten-player score sheet is staged again after each tap that
# changes it (a 10-player game advanced to its sheet each time), 400 s at load 32-36 on this
# project's shared 2-core machine against pytest's default 300 s.
@pytest.mark.timeout(1200)
@pytest.mark.parametrize("state", list(STATES))
def test_every_touch_target_acts_under_a_finger(state):
    idle, tapped = walk(STATES[state])
    assert tapped > 0, f"{state}: nothing to tap"
    assert not idle, f"{state}: {len(idle)} of {tapped} touch targets did nothing under a finger: {idle}"
