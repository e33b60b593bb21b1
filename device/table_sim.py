"""The whole table simulated: the referee, the dealer simulator behind a pty (driven through
the real Dealer driver), on-screen panels, the journal, the games folder and a bot in every seat.

Bots act the way players do at the real table: bids, the moon and draws are panel presses
(minus/plus/OK through ``SimulatedPanels``); plays, passes and the Double Nil give are cards
taken from the seat's tray in the simulator and fed through the dealer's reader. So every card
the referee believes moved has moved in the simulator too.

After a kill (power cut) the simulator is a fresh machine. ``restore`` puts it back where the
referee's physical model says the cards are (one deal plan: every tray, the stock in order, the
card shown to a seat shown again), then the pending dealer step is issued again.

Faults on demand (``faults``: ("jam", hand) / ("unplug", hand)): ten cards into that hand's
deal the simulator jams, or its cable is out (it falls silent for one and a half link timeouts). The bot "operator" then does what a person
would: clears the jam and presses Resume (the deal goes on), or plugs the cable back in,
gathers the cards and presses Resume (the hand is redealt from the same deck order).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from device import dealer_messages as m
from device.dealer import Dealer
from device.dealer_errors import DealerError
from device.dealer_sim import DealerSimulator
from device.journal import Journal
from device.panels import SimulatedPanels
from device.table import Table
from device.table_dealer import DealerAdapter, plan_bytes
from engine import cards as C
from engine.bots import bot_for
from engine.games import game_class
from engine.referee import panel
from engine.referee.commands import Command, NeedShuffle, SaveRecord
from engine.referee.events import Button, CardRead, DealerFault, DealerReady, NewGame


class TableStuck(RuntimeError):
    """Nobody can act and nothing is pending: a bug, reported with what the table waits for."""


class SimTable(Table):
    def __init__(
        self,
        game: str,
        players: int,
        options: dict[str, Any] | None = None,
        *,
        seed: int | None = None,
        journal_path: str | None = None,
        store: Any = None,
        speed: float = 20000.0,
        faults: Sequence[tuple[str, int]] = (),
        out: Callable[[str], None] | None = None,
        link_timeout: float = 2.0,
    ) -> None:
        self.game_id = game
        self.players = players
        self.options = dict(options or {})
        self.decks = game_class(game).DECKS
        self.out = out
        self.faults = list(faults)
        self.injected: set[tuple[str, int]] = set()
        self.sim = DealerSimulator(seats=players, decks=self.decks, seed=seed or 0, speed=speed)
        self.sim.start()
        self.driver = Dealer(self.sim.stable_path, link_timeout=link_timeout, stall_timeout=10.0)
        self.driver.open()
        adapter = DealerAdapter(self.driver, refeed=self._refeed)
        self.panels = SimulatedPanels(players, self._on_panel)
        self.journal_records: list[Any] = []
        journal = None
        if journal_path:
            journal, self.journal_records, _report = Journal.open(journal_path)
        self._journal = journal
        super().__init__(adapter, journal=journal, store=store, leds=self.panels, seed=seed,
                         on_command=self._on_command)
        self.adapter = adapter
        self.max_hands: int | None = None
        self.bot = bot_for(game)
        self.recoveries: list[str] = []
        self.hands_before = 0  # hands finished before a restart (printed by the earlier run)

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        """Resume from the journal (physical restore, then resync), or start a new game."""
        if self.journal_records:
            self.resume(self.journal_records)
            g = self.referee.game
            self.hands_before = len(g.hand_results) if g is not None else 0
            self.restore()
            self.resync()
        else:
            names = tuple(f"Bot {i + 1}" for i in range(self.players))
            self.submit(NewGame(self.game_id, names, self.options, 0, tuple(range(self.players))))

    def close(self) -> None:
        try:
            self.driver.close()
        finally:
            self.sim.stop()
            if self._journal is not None:
                self._journal.close()

    def __enter__(self) -> SimTable:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ physical state
    def restore(self) -> None:
        ref = self.referee
        full = [c for _ in range(self.decks) for c in range(52)]
        head = ref.steps[0]["op"] if ref.steps else None
        if ref.game is None or ref.waiting in ("new_game", "shuffle", "over") or head == "deal":
            self.sim.load_deck(full)
            return
        plan, again, _gate = ref.places.restore_plan()
        self.sim.load_deck([c for c, _ in plan])
        self.driver.deal(plan_bytes(plan))
        if again is not None:
            self.driver.present_top(again)

    def before_shuffle(self) -> None:
        self.sim.gather_to_hopper()

    def _refeed(self, card: int) -> None:
        """Put ``card`` back in the hopper (from wherever it lies) to be read again."""
        with self.sim.lock:
            b = self.sim.board
            for cards in b.trays.values():
                if card in cards:
                    cards.remove(card)
                    break
            b.hopper.append(card)

    def feed(self, card: int, seat: int | None, seat_of_card: int) -> None:
        """A player takes ``card`` from their tray and feeds it to the reader."""
        with self.sim.lock:
            b = self.sim.board
            tray = b.trays.get(seat_of_card, [])
            if card in tray:
                tray.remove(card)
            else:
                for cards in b.trays.values():
                    if card in cards:
                        cards.remove(card)
                        break
            b.hopper.append(card)
        try:
            read = self.adapter.read_fed()
        except DealerError as e:  # the reader failed: the card goes back, the table is told
            with self.sim.lock:
                if card in self.sim.board.hopper:
                    self.sim.board.hopper.remove(card)
                    self.sim.board.trays.setdefault(seat_of_card, []).append(card)
            self.submit(DealerFault("timeout" if "answer" in str(e) else "fault", str(e), None))
            return
        self.submit(CardRead(C.NAMES[read], seat))
        self.settle()

    # ------------------------------------------------------------------ the loop
    def _on_panel(self, event: Any) -> None:
        self.inbox.append(Button(event.seat, event.button))

    def _on_command(self, cmd: Command) -> None:
        if isinstance(cmd, SaveRecord) and self.out is not None:
            g = self.referee.game
            if g is not None and g.hand_results:
                row = g.hand_results[-1]
                self.out(f"hand {len(g.hand_results)}: points {row['points']} totals {row['totals']}")

    def pump(self) -> bool:
        if not self.inbox and self.todo and isinstance(self.todo[0], NeedShuffle):
            g = self.referee.game
            if self.max_hands is not None and g is not None and len(g.hand_results) >= self.max_hands:
                return False
        if not self.inbox and self.todo:
            cmd = self.todo[0]
            if getattr(cmd, "op", None) == "deal":
                self._maybe_inject()
        return super().pump()

    def settle(self) -> None:
        while self.pump():
            pass

    def _maybe_inject(self) -> None:
        g = self.referee.game
        if g is None:
            return
        for kind, hand in self.faults:
            if hand == g.hand_number and (kind, hand) not in self.injected:
                self.injected.add((kind, hand))
                self._arm(kind)

    def _arm(self, kind: str) -> None:
        """Ten cards into the deal: jam the simulator or pull its cable."""
        count = [0]

        def listener(ev: Any) -> None:
            if getattr(ev, "kind", None) != m.EV_CARD_DEALT:
                return
            count[0] += 1
            if count[0] == 10:
                if kind == "jam":
                    self.sim.jam("eject")
                else:  # the cable out: the dealer goes silent, and is back a little later
                    self.sim.go_silent(True)
                    threading.Timer(self.driver.link.link_timeout * 1.5, self.sim.go_silent, (False,)).start()

        self.driver.add_listener(listener)

    def recover(self) -> None:
        """What the person at the table does after a dealer fault, then Resume."""
        ref = self.referee
        fault = ref.dealer_fault or ""
        self.recoveries.append(fault)
        if "jammed" in fault:
            self.sim.clear_jam()
            self.submit(DealerReady(False))
            return
        deadline = time.monotonic() + 30
        while True:  # wait for the cable to be back
            try:
                self.driver.status()
                break
            except (DealerError, ValueError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        head = ref.steps[0]["op"] if ref.steps else None
        if head == "deal":
            try:
                self.driver.abort()
                for _ in range(100):  # let the card in flight land before gathering
                    if self.driver.status().state == 0:
                        break
                    time.sleep(0.02)
            except (DealerError, ValueError):
                pass
            self.sim.gather_to_hopper()
            self.submit(DealerReady(True))
        else:
            self.submit(DealerReady(False))

    def run(self, max_hands: int | None = None, max_entries: int = 100000) -> None:
        self.max_hands = max_hands
        for _ in range(max_entries):
            self.settle()
            ref = self.referee
            g = ref.game
            if ref.waiting == "over":
                return
            if ref.dealer_fault is not None:
                self.recover()
                continue
            if max_hands is not None and g is not None and len(g.hand_results) >= max_hands \
                    and ref.waiting == "shuffle":
                return
            seats = ref.bot_turns()
            if not seats:
                raise TableStuck(f"nobody can act: {ref.waiting_text()}")
            self.bot_enter(seats[0])
        raise TableStuck("too many entries")

    def bot_enter(self, seat: int) -> None:
        g = self.referee.game
        assert g is not None
        action = self.bot.choose(g.copy(), seat, self.bot_rng(seat))
        k, v = action
        press = self.panels.press
        if k in ("bid", "blind_nil", "moon"):
            choices = panel.choice_list(g.legal_actions(seat))
            target = choices.index(action)
            start = self.referee.pending.get(seat)  # a choice already on screen (before a restart)
            if start is None:
                press(seat, "plus")  # the first press shows the starting choice
                start = panel.start_index(choices)
            for _ in range(abs(target - start)):
                press(seat, "plus" if target > start else "minus")
            press(seat, "ok")
        elif k == "draw":
            press(seat, "plus" if v == "keep" else "minus")
        elif k == "double_nil":
            press(seat, "ok")
        elif k == "play":
            self.feed(v, None, seat)
        elif k in ("pass", "exchange"):
            # A feed cut short (a dealer fault) left some cards fed: feed only the rest.
            fed = list(self.referee.fed.get(seat, []))
            cards = list(v if k == "pass" else v[0])
            for c in fed:
                if c in cards:
                    cards.remove(c)
            need = (len(v) if k == "pass" else 3) - len(fed)
            for c in [c for c in cards if c in g.hand_of(seat)][:need]:
                self.feed(c, seat, seat)
                if self.referee.dealer_fault is not None:
                    return
            if k == "exchange" and len(fed) + len(cards) < 3:
                press(seat, "ok")
        else:
            raise TableStuck(f"the bot chose {action!r}, which the simulated table cannot enter")
        self.settle()
