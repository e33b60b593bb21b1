"""Debounce and hold logic with explicit times: storms, spikes, long press, repeat."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trickref.device.debounce import ButtonLogic, Debouncer, Timing

T = Timing(debounce=0.020, long_press=1.5, repeat_delay=0.5, repeat_interval=0.1, blink=0.25)


def test_level_counts_once_stable_for_the_window() -> None:
    d = Debouncer(0.02)
    assert d.feed(True, 1.000) is None
    assert d.deadline() == 1.020
    assert d.poll(1.019) is None
    assert d.poll(1.020) is True and d.stable
    assert d.deadline() is None


def test_spike_shorter_than_the_window_is_ignored() -> None:
    d = Debouncer(0.02)
    d.feed(True, 1.0)
    d.feed(False, 1.005)
    assert d.deadline() is None
    assert d.poll(5.0) is None and not d.stable


def test_repeated_samples_of_the_same_level_do_not_restart_the_window() -> None:
    d = Debouncer(0.02)
    d.feed(True, 1.0)
    d.feed(True, 1.015)
    assert d.feed(True, 1.021) is True


def press(logic: ButtonLogic, at: float, hold: float, bounce: int = 0) -> list[tuple[str, float]]:
    """Edges of a press (with ``bounce`` extra edge pairs 1 ms apart), ticks at every deadline."""
    out: list[tuple[str, float]] = []
    t = at
    for _ in range(bounce):
        out += logic.feed(True, t)
        out += logic.feed(False, t + 0.001)
        t += 0.002
    out += logic.feed(True, t)
    out += run_until(logic, at + hold)
    t = at + hold
    for _ in range(bounce):
        out += logic.feed(False, t)
        out += logic.feed(True, t + 0.001)
        t += 0.002
    out += logic.feed(False, t)
    out += run_until(logic, t + 1.0)
    return out


def run_until(logic: ButtonLogic, end: float) -> list[tuple[str, float]]:
    out: list[tuple[str, float]] = []
    while (d := logic.deadline()) is not None and d <= end:
        out += logic.tick(d)
    return out


def test_bounce_storm_gives_exactly_one_press() -> None:
    plus = ButtonLogic("plus", Timing(repeat_interval=0))
    events = press(plus, 10.0, 0.3, bounce=8)
    assert [name for name, _ in events] == ["plus"]
    assert events[0][1] == pytest.approx(10.016)  # the start of the level that held


def test_ok_short_press_on_release_long_press_at_the_threshold() -> None:
    ok = ButtonLogic("ok", T)
    assert press(ok, 0.0, 0.4, bounce=3) == [("ok", pytest.approx(0.406))]
    events = press(ok, 5.0, 3.0, bounce=3)
    assert events == [("ok_long", pytest.approx(5.006 + 1.5))], "one ok_long, nothing on release"


def test_long_press_whose_tick_was_missed_comes_with_the_next_edge() -> None:
    ok = ButtonLogic("ok", T)
    ok.feed(True, 0.0)
    ok.tick(0.02)
    assert ok.feed(False, 2.0) == [("ok_long", 1.5)]
    assert ok.tick(2.02) == []


def test_release_just_before_the_threshold_is_a_plain_ok() -> None:
    ok = ButtonLogic("ok", T)
    ok.feed(True, 0.0)
    ok.tick(0.02)
    assert ok.feed(False, 1.49) == []
    assert ok.tick(1.51) == [("ok", 1.49)]


def test_plus_repeats_while_held_and_stops_on_release() -> None:
    plus = ButtonLogic("plus", T)
    events = press(plus, 0.0, 0.85)
    times = [round(at, 3) for name, at in events]
    assert all(name == "plus" for name, _ in events)
    assert times == [0.0, 0.5, 0.6, 0.7, 0.8]


def test_late_ticks_do_not_burst_repeats() -> None:
    minus = ButtonLogic("minus", T)
    minus.feed(True, 0.0)
    assert minus.tick(0.02) == [("minus", 0.0)]
    assert minus.tick(3.0) == [("minus", 0.5)]
    assert minus.deadline() == 3.1


def test_assumed_level_at_start_gives_no_event() -> None:
    ok = ButtonLogic("ok", T)
    ok.assume(True)
    assert ok.feed(False, 1.0) == [] and ok.tick(1.1) == []
    assert press(ok, 2.0, 0.1) == [("ok", pytest.approx(2.1))]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(min_value=0.0001, max_value=0.0199), min_size=1, max_size=40),
       st.sampled_from(["minus", "plus", "ok"]))
def test_any_storm_inside_the_window_is_one_event(gaps: list[float], name: str) -> None:
    """Edges alternating with gaps under the window, ending pressed, then a clean release."""
    logic = ButtonLogic(name, Timing(repeat_interval=0))
    events: list[tuple[str, float]] = []
    t, level = 0.0, True
    for gap in gaps:
        events += logic.feed(level, t)
        t += gap
        level = not level
    events += logic.feed(True, t)
    events += run_until(logic, t + 0.5)
    events += logic.feed(False, t + 0.5)
    events += run_until(logic, t + 2.0)
    assert [n for n, _ in events] == [name]
