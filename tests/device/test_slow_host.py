"""A host slower than its dealer (issue 18 point 2: the emulated Pi, a plain two-player Spades
game, stopped with "the dealer refused FETCH: there is no card for it").

A Pi is 3-4x slower a core than this machine (the emulated one ~10x): its answers come late
against its own timers, steps are sent again, and a step sent again must get its first outcome,
never a refusal. ``slow_host`` makes the host's timers 20x shorter than its work (the same
thing seen from the host's side); the dealer is the real firmware behind a pty. The mechanism
slow against the host (a real dealer, or the simulator starved of CPU) is
tests/device/test_slow_dealer.py.
"""

from __future__ import annotations

from trickref.device.simulated.fault_trials import _Table, clean_run, slow_host


def test_a_slow_host_plays_a_spades_hand_to_the_same_result() -> None:
    want = clean_run("spades-2p", 2, {}, 1)
    table = _Table("spades-2p", 2, {}, seed=1)
    table.mismatches = []
    try:
        slow_host(table, 20.0)
        table.start()
        table.run(max_hands=1)
        g = table.referee.game
        assert g is not None
        assert [dict(r) for r in g.hand_results] == want
        assert table.mismatches == []
        shown = " ".join(m.text for m in table.messages) + " ".join(table.recoveries)
        assert "refused" not in shown, shown
        # every stop was the link's own ("goes on by itself"), and nobody had to press Resume
        assert all("stopped answering" in r or "unplugged" in r for r in table.recoveries), table.recoveries
    finally:
        table.close()
