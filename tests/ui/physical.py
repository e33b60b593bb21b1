"""The kiosk in hardware mode with people at the table, for tests.

``Rig`` is the appliance as installed: the kiosk (``App`` + ``Session``) on ``open_table``'s
hardware mode, the real ``Dealer`` driver on the dealer simulator's pty (standing in for the USB
cable to the Pico) and the wired ``Panels`` on gpiozero's ``MockFactory`` pins. What the people
do is physical only: a key press drives the panel's mock pins low and high (through the real
debounce code, on a clock the test steps, so nothing sleeps), a card is played, passed or given
by taking it from the seat's pocket and dropping it into the dealer's play slot (the reader loop
reads it); a spades-2p drawn card not kept is fed back the same way when the dealer waits for it. Faults are what happens to the machine: a jam, a pulled cable, a misread, a power cut.

Every wait is on the table host (``drain``, or ``wait`` for the card just fed to be read), with a
generous limit that only guards against a hang.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from gpiozero.pins.mock import MockFactory
from kiosk_helpers import tap_button

from trickref.device.config import Config, DealerConfig, PanelsConfig
from trickref.device.dealer import messages as m
from trickref.device.dealer.sim import DealerSimulator
from trickref.device.panels import MOCK_REVISION, mock_pin_map
from trickref.engine import cards as C
from trickref.engine.bots import bot_for
from trickref.engine.games import game_class
from trickref.engine.referee import panel

GUARD_S = 60.0
REJECT_TRAY = m.REJECT  # the reject pocket's tray
SPEED = 400.0


class FakeClock:
    """The panels' clock: it moves only when a finger is said to have held a key long enough."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Rig:
    def __init__(self, game: str, players: int, *, seed: int = 3, bots: tuple[int, ...] = ()) -> None:
        from referee_helpers import referee_app

        self.game, self.players, self.seed = game, players, seed
        self.bots = tuple(bots)  # seats the kiosk's bots play (their cards inside the dealer)
        self.sim = DealerSimulator(seats=players, decks=game_class(game).DECKS, seed=seed, speed=SPEED)
        self.sim.start()
        self.factory = MockFactory(revision=MOCK_REVISION)
        self.pins = mock_pin_map(players)
        self.clock = FakeClock()
        self.config = Config(mode="hardware", dealer=DealerConfig(port=self.sim.stable_path),
                             panels=PanelsConfig(seats=self.pins, expanders=(), reset=None))
        self.app = referee_app()
        self.app.seed = seed
        self.app.session_args = {"bot_delay": 0.0, "trick_hold": 0.0, "deal_delay": True}
        # the link's timeout: long enough that a loaded machine's slow replies are not taken for
        # a pulled cable (a real pulled cable is still found within it)
        self.app.table_args = {"config": self.config, "mode": "hardware", "pin_factory": self.factory,
                               "panel_clock": self.clock, "link_timeout": 3.0}
        self.bot = bot_for(game)
        self.rng = random.Random(seed)
        self.log: list[str] = []
        self.earlier: Counter[str] = Counter()  # events handled by tables before a power cut
        # played cards the reader could not read, in the reject pocket as the screen said: their
        # players take them out of there when they play them again
        self.unread_plays: set[int] = set()
        self.taken_from_reject = 0

    def handled(self) -> Counter[str]:
        """Events the table handled (not replayed), by type, over every start."""
        return self.earlier + Counter(self.table.host.handled)

    # ---------------------------------------------------------------- the kiosk
    @property
    def table(self) -> Any:
        return self.app.session.table

    @property
    def ref(self) -> Any:
        return self.table.referee

    def start(self, options: dict[str, Any], load: bool = True) -> None:
        """The game started on the kiosk; ``load``: the people then put the cards in the feeder
        and tap Deal, as the dealing screen asks (else the screen is left asking)."""
        from trickref.ui.resume import start_new_game

        st = self.app.setup
        st.choose_game(self.game)
        st.players = self.players
        assert start_new_game(self.app, self.game, self.players, st.seat_names(),
                              dict(st.game_options(), **options), bots=list(self.bots))
        assert self.table.mode == "hardware" and self.table.opened.world is None
        self.settle()
        if load:
            assert self.load_cards(), f"the first deal did not ask for the cards: {self.screen_texts()}"

    def load_cards(self) -> bool:
        """When the dealing screen asks for the cards: every card out of the pockets, the play
        slot and the belt into the feeder (the hopper's own cards stay), then Deal. False when
        the screen does not ask."""
        sc = self.app.scene
        if sc.name != "dealing" or not sc.model().get("loading"):
            return False
        self.sim.gather_to_hopper()
        self.log.append("cards gathered into the feeder")
        tap_button(self.app, "Deal")
        self.settle()
        return True

    def settle(self) -> None:
        """Let the table finish, then let the kiosk catch up and draw what it shows."""
        self.table.drain(GUARD_S)
        self.app.tick(0.0)
        self.table.drain(GUARD_S)  # a bot the tick let enter: its entry (from its thinker) is in
        self.app.route()
        self.app.render(force=True)

    def screen_texts(self) -> list[str]:
        self.app.render(force=True)
        return [str(t) for t in self.app.scene.model().get("texts", [])]

    def close(self) -> None:
        try:
            self.app.end_session()
        finally:
            self.sim.stop()
            self.factory.reset()

    # ---------------------------------------------------------------- people: panels
    def press(self, seat: int, button: str) -> None:
        """A finger on a seat's key: the pin low for the debounce window, then high again."""
        host = self.table.host
        panels = self.table.opened.panels
        pin = self.factory.pin(getattr(self.pins[seat], button).number)
        n = host.presses
        window = panels._timing.debounce + 0.001
        pin.drive_low()
        self.clock.now += window
        panels.tick()
        pin.drive_high()
        self.clock.now += window
        panels.tick()
        assert host.wait(lambda: host.presses > n, GUARD_S), f"seat {seat}'s {button} never reached the table"
        self.settle()

    # ---------------------------------------------------------------- people: cards
    def tray(self, target: int) -> list[int]:
        with self.sim.lock:
            return list(self.sim.board.trays.get(target, []))

    def debug(self) -> str:
        h = self.table.host
        p = h.dealer
        return (f"host reading={h._reading} outstanding={h._outstanding} wants={h.wants_cards()} "
                f"port reading={p._reading} feeding={p.adapter.feeding} want={p._want_read} waiting={p._waiting} jobs={list(p._jobs)} "
                f"errors={h.errors} msgs={self.ref.messages[-4:]} {self.where(self.sim.board.hopper[0]) if self.sim.board.hopper else ''}")

    def where(self, card: int) -> str:
        """Where the simulated machine has ``card`` (for failure messages)."""
        with self.sim.lock:
            b = self.sim.board
            at = [f"tray {t}" for t, cards in b.trays.items() if card in cards]
            at += ["hopper"] if card in b.hopper else []
            at += ["gate"] if b.gate == card else []
        return f"{C.NAMES[card]} is at {', '.join(at) or 'nowhere'}"

    def feed(self, card: int, source: int) -> None:
        """Take ``card`` from tray ``source`` (a seat, or a tray byte) into the hopper; the
        reader loop reads it; wait until the referee has handled it and the dealer routed it."""
        host = self.table.host
        n = host.cards_read
        self._take_out(card, source)
        self.sim.play(card)
        assert host.wait(lambda: host.cards_read > n or self.ref.dealer_fault is not None, GUARD_S), \
            f"{C.NAMES[card]} was never read; {self.debug()} {self.where(card)}; sim state {self.sim.board.gate, self.sim.board.pending}"
        self.settle()
        if card in self.tray(REJECT_TRAY) and any("could not read" in t for t in self.screen_texts()):
            self.unread_plays.add(card)  # the screen told its player to feed it again

    def _take_out(self, card: int, source: int) -> None:
        with self.sim.lock:
            tray = self.sim.board.trays.get(source, [])
            reject = self.sim.board.trays.get(REJECT_TRAY, [])
            if card not in tray and card in reject and card in self.unread_plays:
                # the screen said the reader could not read it and it went to the reject pocket:
                # its player takes it out of there and feeds it again, now or when they play it
                # (a read that ran out of time on a loaded machine did this, CI30;
                # test_hardware_games.py's "unread play" forces it)
                tray = reject
                self.taken_from_reject += 1
            self.unread_plays.discard(card)
            assert card in tray, (f"{C.NAMES[card]} is not in tray {source}: {C.names(tray)}; "
                                  f"{self.where(card)}; last entries {self.log[-6:]}; {self.ref.messages[-6:]}")
            tray.remove(card)

    def feed_back(self, step: Any) -> None:
        """The drawing player feeds the card the dealer waits for back (from their pocket)."""
        ref = self.ref
        self._take_out(C.parse(step.card), step.seat)
        self.sim.play(C.parse(step.card))
        assert self.table.wait(lambda: not ref.steps or ref.steps[0].step != step.step
                               or ref.dealer_fault is not None, GUARD_S), f"{step.card} fed back, never read"
        self.settle()

    # ---------------------------------------------------------------- one entry
    def enter(self, seat: int) -> None:
        """``seat``'s player chooses (the game's bot decides) and enters it physically."""
        g = self.ref.game
        action = self.bot.choose(g.copy(), seat, self.rng)
        k, v = action
        self.log.append(f"{seat} {action.describe()}")
        if k in ("bid", "blind_nil", "moon"):
            choices = panel.choice_list(g.legal_actions(seat))
            target = choices.index(action)
            start = self.ref.pending.get(seat)
            if start is None:
                self.press(seat, "plus")  # the first press shows the starting choice
                start = panel.start_index(choices)
            for _ in range(abs(target - start)):
                self.press(seat, "plus" if target > start else "minus")
            self.press(seat, "ok")
        elif k == "draw":
            self.press(seat, "plus" if v == "keep" else "minus")
        elif k == "double_nil":
            self.press(seat, "ok")
        elif k == "play":
            self.feed(v, seat)
        elif k == "pass":
            self.press(seat, "ok")  # "I am feeding now": two decks may put a card in two hands
            for c in v:
                self.feed(c, seat)
                if self.ref.dealer_fault is not None:
                    return
        elif k == "exchange":
            for c in v[0]:
                self.feed(c, seat)
            if len(v[0]) < 3:
                self.press(seat, "ok")
        else:
            raise AssertionError(f"no physical entry for {action!r}")

    # ---------------------------------------------------------------- the game
    def step(self) -> str:
        """One thing the people at the table do next; returns what."""
        self.settle()
        ref, sc = self.ref, self.app.scene
        if ref.dealer_fault is not None:
            self.fix(ref.dealer_fault)
            tap_button(self.app, "Resume")
            self.settle()
            return "resume"
        if sc.name == "summary":
            tap_button(self.app, sc.next.name)  # the next hand: dealt when the table says so
            self.settle()
            return "next"
        if self.load_cards():
            return "deal"
        g = ref.game
        head = ref.steps[0] if ref.steps else None
        if type(head).__name__ == "FeedBack":
            self.log.append(f"{head.seat} feeds {head.card} back")
            self.feed_back(head)
            return "feed back"
        people = [s for s in g.turn_seats() if s not in self.bots] if g is not None else []
        if ref.accepting() and people:
            seats = [s for s in people if not ref.fed.get(s)] or people
            self.enter(seats[0])
            return "entry"
        if ref.accepting() and g.turn_seats():  # only bots act: the kiosk asks them (its tick)
            n = self.table.host.handled["bot_action"]
            self.settle()
            assert self.table.host.handled["bot_action"] > n, f"the bot on turn did not act: {self.debug()}"
            return "bot"
        if self.bots and ref.steps and ref.dealer_fault is None:
            self.settle()  # the kiosk's tick let a bot play: the dealer fetches its card
            return "bot"
        raise AssertionError(f"nobody can act: {ref.waiting_text()} (scene {sc.name}); {self.debug()}; "
                             f"steps {ref.steps}; faults {self.table.host.dealer.adapter.faults}")

    def fix(self, fault: str) -> None:
        """What the person at the table does for the dealer's fault before tapping Resume."""
        self.sim.clear_jam()
        self.sim.go_silent(False)
        if "did not check out" in fault or "Gather" in fault:
            self.sim.gather_to_hopper()
        elif "of the deal could not be read" in fault:  # those cards from the reject pocket
            self.sim.rejects_to_hopper()

    def check_trays(self) -> None:
        """The dealer's seat trays hold exactly the hands the referee believes in (a bot seat's
        pocket is empty: its hand is in the dealer's loop)."""
        g = self.ref.game
        for s in range(self.players):
            want = [] if s in self.bots else g.hand_of(s)
            assert sorted(self.tray(s)) == sorted(want), (s, C.names(self.tray(s)), C.names(want))
        if self.bots:
            with self.sim.lock:
                loop = self.sim.board.tray(m.LOOP)
            held = [c for s in self.bots for c in g.hand_of(s)]
            assert not Counter(held) - Counter(loop), (C.names(held), C.names(loop))

    def deal_listener(self, after_cards: int, fault: Any) -> None:
        """``fault()`` once ``after_cards`` cards of the next deal have been dealt."""
        driver = self.table.opened.driver
        count = [0]

        def listener(ev: Any) -> None:
            if getattr(ev, "kind", None) == m.EV_CARD_DEALT:
                count[0] += 1
                if count[0] == after_cards:
                    driver.remove_listener(listener)
                    fault()

        driver.add_listener(listener)
