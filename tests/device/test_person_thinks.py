"""A person who thinks longer than the driver's stall timeout does not stop the table.

While cards sit in the dealer's hopper (the passed cards parked in its loop during a Hearts pass,
the stock of German Whist and of spades-2p), a FEED waiting for a player's card reports FEEDING
with "hopper has cards". The driver's stall check took that for a dealer that should be moving:
a player who thought longer than ``stall_timeout`` (30 s at a real table, 10 s simulated) over a
pass card or a play stopped the table with "the dealer stopped answering (reading a fed card: no
progress for 10 s (dealer FEEDING, 0 cards done))".

Here the whole table is simulated (the real firmware behind a pty, the real driver and host);
the stall timeout is made short (0.3 s, looked at every 0.05 s) and the person really waits
(sleeps 1.5 s, five stall timeouts) with the dealer's FEED outstanding before feeding the card.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from trickref.device.simulated.table import SimTable
from trickref.engine import cards as C
from trickref.engine.referee.commands import FeedBack

STALL_S = 0.3
THINK_S = 1.5


class _Thought(Exception):
    """The slow card was read: the test has what it wants."""


class ThinkingTable(SimTable):
    """A SimTable whose person thinks ``THINK_S`` before feeding the card ``slow(table)`` picks."""

    def __init__(self, *args: Any, slow: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.slow = slow
        self.thought: list[str] = []
        driver = self.driver
        assert driver is not None
        driver.stall_timeout = STALL_S
        driver.poll_interval = 0.05

    def _think(self, waiting: Any, what: str) -> None:
        """Wait until the dealer's FEED is outstanding (``waiting()``), then think."""
        deadline = time.monotonic() + 60.0
        while not waiting():
            assert time.monotonic() < deadline, "the table never asked the dealer for a card"
            time.sleep(0.01)
        time.sleep(THINK_S)
        self.thought.append(f"{what}: thought {THINK_S:g} s")

    def feed(self, card: int, seat: int) -> None:
        if self.thought or not self.slow(self, card, seat):
            super().feed(card, seat)
            return
        port = self.host.dealer
        self._think(lambda: port._waiting, f"seat {seat} plays {C.NAMES[card]}")  # the reader waits in the driver
        super().feed(card, seat)
        raise _Thought

    def feed_back(self, step: FeedBack) -> None:
        if self.thought or not self.slow(self, C.parse(step.card), step.seat):
            super().feed_back(step)
            return
        adapter = self.host.dealer.adapter
        self._think(lambda: adapter.feeding, f"seat {step.seat} feeds {step.card} back")
        super().feed_back(step)
        raise _Thought


def _loop_holds_cards(table: SimTable) -> bool:
    sim = table.sim
    assert sim is not None
    with sim.lock:
        return bool(sim.firmware.dealer.loop)


def _run_until_thought(table: ThinkingTable) -> None:
    table.start()
    with pytest.raises(_Thought):
        table.run(max_hands=1)
    assert table.thought, "the person never thought"
    assert table.referee.dealer_fault is None, (table.thought, table.referee.dealer_fault)
    assert table.recoveries == []


def test_a_player_thinking_over_a_pass_card_does_not_stop_the_table() -> None:
    """Hearts: the second card of a pass is fed while the first is parked in the loop."""
    with ThinkingTable("hearts", 4, seed=5, slow=lambda t, card, seat: _loop_holds_cards(t)) as table:
        _run_until_thought(table)
        assert table.referee.fed  # the pass goes on: the slow card was taken


def test_a_player_thinking_over_a_play_with_the_stock_in_the_loop() -> None:
    """German Whist: the stock waits in the loop while the players play."""
    with ThinkingTable("german-whist", 2, seed=7, slow=lambda t, card, seat: _loop_holds_cards(t)) as table:
        _run_until_thought(table)


def test_a_player_thinking_before_feeding_a_drawn_card_back() -> None:
    """Spades for two: the drawn card not kept is fed back (FeedBack) with the stock in the loop."""
    with ThinkingTable("spades-2p", 2, seed=3, slow=lambda t, card, seat: _loop_holds_cards(t)) as table:
        _run_until_thought(table)
        assert " back" in table.thought[0]


def test_a_player_thinking_at_a_dealer_that_does_not_report_bit6(monkeypatch: pytest.MonkeyPatch) -> None:
    """A dealer on firmware from before STATUS flags bit6 (IDENTIFY without flags2) never says a
    FEED waits for a person: the driver gives no stall verdict while its FEED is outstanding, so a
    player thinking over a pass card does not stop the table (it did, with bit6 trusted)."""
    from trickref.firmware import commands as fw_commands

    identify = fw_commands.Dealer.identify_body
    monkeypatch.setattr(fw_commands.Dealer, "identify_body", lambda self, *a: identify(self))
    monkeypatch.setattr(fw_commands.Dealer, "awaits_person", lambda self: False)
    with ThinkingTable("hearts", 4, seed=5, slow=lambda t, card, seat: _loop_holds_cards(t)) as table:
        driver = table.driver
        assert driver is not None and driver.link.identity is not None
        assert not driver.link.identity.reports_awaits_person
        _run_until_thought(table)
        assert table.referee.fed


def test_a_feed_that_never_takes_the_card_still_stops_the_table_in_words(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stalled mechanism is still a stall: the card lies in the play slot and the dealer's feed
    never takes it, nor says it waits for a person or jammed (a motor that does not turn where no
    sensor sees it; made here by a FEED whose every look waits on its own mechanism). The table
    stops with words that say what to look for; it does not promise to go on by itself (the
    link is alive: nothing would ever end that wait), and Resume, once it moves again, reads the
    card."""
    from trickref.firmware import commands as fw_commands
    from trickref.firmware import mechanics as fw_mech

    stuck = {"on": False}
    real_next_op = fw_commands.FeedJob.next_op

    def next_op(job: Any) -> Any:
        if stuck["on"]:
            job.awaits = False
            return fw_mech.WAIT
        return real_next_op(job)

    monkeypatch.setattr(fw_commands.FeedJob, "next_op", next_op)

    class StallingTable(ThinkingTable):
        def feed(self, card: int, seat: int) -> None:
            if self.thought or not self.slow(self, card, seat):
                super().feed(card, seat)
                return
            stuck["on"] = True
            self.thought.append(f"seat {seat} feeds {C.NAMES[card]} into a stalled feed")
            SimTable.feed(self, card, seat)
            raise _Thought

    with StallingTable("hearts", 4, seed=5, slow=lambda t, card, seat: _loop_holds_cards(t)) as table:
        table.start()
        with pytest.raises(_Thought):
            table.run(max_hands=1)
        fault = table.referee.dealer_fault
        assert fault is not None and table.referee.dealer_fault_kind == "fault", fault
        assert "made no progress for 0.3 s (dealer FEEDING" in fault and "a motor that does not turn" in fault
        assert "goes on by itself" not in fault and "stopped answering" not in fault
        card = table.in_slot
        assert card is not None
        name = C.NAMES[card]
        read = table.host.read_counts[name]
        stuck["on"] = False  # the person frees it, then presses Resume
        table.recover()
        assert table.host.wait(lambda: table.host.read_counts[name] > read, 60.0), table.referee.dealer_fault
        assert table.referee.dealer_fault is None
