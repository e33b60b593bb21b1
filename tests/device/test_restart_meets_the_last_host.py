"""A host started again (the Pi lost power, the dealer did not) must not get the last host's answers.

Two ways it did, each met now and then by the power-cut sweep (tests/device/test_power_cut_sweep.py)
and traced on 2026-12-05 with every dealer call logged:

- Step ids. The driver's fresh ids (reads, aborts, resumes) run on from a random start; the new
  host's could land on the ids the old host had just used, and the dealer (which keeps its last
  16 steps) answered the new host's read with the card the old host had read and routed. The
  referee took a card nobody had fed, the routing found nothing in the reader gate, and every
  Resume stopped the same way, for good (Hearts cut at 0.9 of the hand; about 1 in 600 restarts).
- The reply cache. The dealer answers a frame whose seq and CRC match one of its last 8 with the
  cached reply. A new host's HELLO is the same bytes as the last host's when their random first
  seqs meet (1 in 256), so it got the last host's IDENTIFY, with the event index of that host's
  start; every event since was fetched as new, and the first read took an old PRESENTED for the
  card just fed (German Whist cut at 0.02: the fed card never read, the table stuck).

Here the two hosts are made to meet on purpose.
"""

from __future__ import annotations

import itertools

from dealer_testkit import running

from trickref.device.dealer import messages as m
from trickref.device.dealer.driver import FRESH_IDS_CHECKED, Dealer


def _host(sim, *, ids: int | None = None, seq: int | None = None) -> Dealer:
    """A host's driver on the simulator's pty, opened; ``ids``/``seq``: where its random fresh
    step ids and frame sequence numbers start (set to meet the last host's)."""
    d = Dealer(sim.stable_path, reply_timeout=0.1, deadman_ms=3000, link_timeout=8.0)
    if ids is not None:
        d._step_ids = itertools.count(ids)
    if seq is not None:
        d.link._seq = seq  # its HELLO goes out as seq + 1
    d.open()
    return d


def test_a_restarted_host_whose_ids_meet_the_last_hosts_reads_the_new_card() -> None:
    with running(seats=4, deck_seed=None) as (sim, first):
        start = 0x1234
        first._step_ids = itertools.count(start)
        sim.load_deck([])
        for card in (10, 11, 12):  # three cards fed, read and routed by the first host
            sim.play(card)
            assert first.read_card() == card
            assert first.route_presented(m.TRICK) == card
        first.close()  # the power goes; the dealer does not
        second = _host(sim, ids=start)  # the random start landing where the last host's ids were
        try:
            sim.play(13)  # the next card fed: the new host reads it, not the first host's 10
            assert second.read_card() == 13
            assert second.route_presented(m.TRICK) == 13
            assert sorted(sim.board.tray(m.TRICK)) == [10, 11, 12, 13]
            assert second.ids_skipped >= 3  # the first host's read ids, known to the dealer
            assert second.abort() is None  # a first ABORT (under an id the dealer knew: CONFLICT)
        finally:
            second.close()


def test_the_checks_end_after_the_dealers_memory_has_turned_over() -> None:
    """Only the first ids of a driver are asked about: the STEP_QUERYs stop after
    FRESH_IDS_CHECKED ids (twice the firmware's 16 remembered steps)."""
    with running(seats=4, deck_seed=None) as (sim, dealer):
        asked: list[int] = []
        query = dealer.query_step

        def counting(step: int):
            asked.append(step)
            return query(step)

        dealer.query_step = counting  # type: ignore[method-assign]
        ids = [dealer.new_step_id() for _ in range(FRESH_IDS_CHECKED + 10)]
        assert len(set(ids)) == len(ids) and all(0x8000 <= i <= 0xFFFF for i in ids)
        assert len(asked) == FRESH_IDS_CHECKED and dealer.ids_skipped == 0


def test_a_restarted_hosts_hello_is_not_answered_from_the_last_hosts_reply_cache() -> None:
    """The dealer's reply cache (its last 8 replies by seq and CRC) answered a new host's HELLO
    with the last host's IDENTIFY when their random first seqs met: the same bytes. The new host
    then took the event index of the last host's start for the dealer's, fetched every old
    event as new, and its first read took an old card's PRESENTED for the card just fed (the
    power-cut sweep's German Whist cut at 0.02: a card fed and never read, the table stuck). A
    HELLO now empties the cache and is always answered afresh."""
    with running(seats=4, deck_seed=None) as (sim, first):
        first.close()
        first = _host(sim, seq=100)  # its HELLO goes out as seq 101
        sim.load_deck([])
        sim.play(10)
        assert first.read_card() == 10
        assert first.route_presented(m.TRICK) == 10
        first.close()  # the power goes; the dealer does not
        second = _host(sim, seq=100)  # the random start meets the last host's: HELLO as seq 101 again
        try:
            assert second.identity.next_event_index == second.status().next_event_index
            sim.play(13)
            assert second.read_card() == 13  # not the 10 of the last host's PRESENTED
            assert second.route_presented(m.TRICK) == 13
            assert sorted(sim.board.tray(m.TRICK)) == [10, 13]
        finally:
            second.close()


def test_the_restart_benchmark_runs_a_restart_to_the_same_hand(bench_module) -> None:
    """benchmarks/host_restarts.py's one run: the cut, the new host, the hand to its end."""
    out = bench_module("host_restarts").run_once(("german-whist", 0.02, "no"))
    assert out["outcome"] == "right" and out["k"] >= 1, out
