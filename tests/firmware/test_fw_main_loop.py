"""The main loop feeds the watchdog only while it is healthy."""

from __future__ import annotations

from trickref.device.dealer.sim import DealerSimulator
from trickref.firmware import protocol as P
from trickref.firmware.main import Firmware


def test_healthy_passes_feed_the_watchdog() -> None:
    sim = DealerSimulator()
    fw = Firmware(sim.board, sim.cfg)
    before = sim.board.wdt_feeds
    for _ in range(10):
        assert fw.step()
    assert sim.board.wdt_feeds == before + 10


def test_a_slow_pass_does_not_feed_it() -> None:
    sim = DealerSimulator()
    fw = Firmware(sim.board, sim.cfg)
    board = sim.board
    real_tick = fw.dealer.tick

    def slow_tick() -> None:
        real_tick()
        board.link_skew += sim.cfg.LOOP_BUDGET_MS + 50

    fw.dealer.tick = slow_tick  # type: ignore[method-assign]
    fed = board.wdt_feeds
    assert not fw.step()
    assert board.wdt_feeds == fed
    fw.dealer.tick = real_tick  # type: ignore[method-assign]
    assert fw.step()  # a slow pass is not a failure: the next healthy one feeds again


def test_an_exception_stops_motors_reports_a_fault_and_starves_the_watchdog() -> None:
    sim = DealerSimulator()
    fw = Firmware(sim.board, sim.cfg)
    board = sim.board
    sim.load_deck(list(range(52)))
    board.rx.extend(P.encode_frame(P.SELFTEST, 1, 0, P.u16(1) + b"\x00"))
    for _ in range(5):
        board.now += 20
        fw.step()
    assert board.pending  # motion under way

    def broken() -> bool:
        raise RuntimeError("sensor driver bug")

    board.jam_sensor = broken  # type: ignore[method-assign]
    fed = board.wdt_feeds
    board.now += 20
    assert not fw.step()
    assert board.pending == {}
    events = [e for f in P.Parser().feed_bytes(bytes(board.tx)) if f.type == P.EVENT
              for e in P.parse_event_block(f.body)]
    assert (P.EV_FAULT, b"\x04\x00") in [(k, p) for _, k, p in events]
    for _ in range(10):
        board.now += 20
        assert not fw.step()
    assert board.wdt_feeds == fed


def test_main_switches_off_keyboard_interrupt() -> None:
    import ast
    import inspect

    from trickref.firmware import main

    tree = ast.parse(inspect.getsource(main.main))
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "kbd_intr"]
    assert calls and isinstance(calls[0].args[0], ast.UnaryOp)  # kbd_intr(-1)
