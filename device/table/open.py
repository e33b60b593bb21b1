"""``open_table(config, mode)``: one table host with the ports of its mode plugged in.

The modes differ only in the ports (``device.table.host``):

- ``"hardware"``: the real ``Dealer`` driver on the configured serial port and the wired seat
  panels (``Panels``; gpiozero's default pin factory on the Pi, ``MockFactory`` in tests).
- ``"simulated"``: the dealer simulator (``DealerSimulator``) behind a pty, driven through the
  same ``Dealer`` driver, and ``MockPanels`` (the real panel code on gpiozero's mock pins, which
  the kiosk's on-screen keys hold and release). ``sim`` is the simulator: what people do by
  hand at a real table (feed a card, move a card a bot played by hand) happens on it.
- ``"instant"``: the one ideal dealer in-process, no panels (presses go to the inbox as
  ``Button`` events): tests and staged screenshots.

Every event goes through the host's inbox and journal whatever the mode. ``OpenTable.begin``
starts a new game; ``OpenTable.resume`` rebuilds the one in the journal (in simulated mode the
fresh simulator is first put back where the referee's physical model says the cards are: the
pockets, the loop's cards in the hopper). A card read just before the power went, not yet
routed, is still in the reader gate (the simulator keeps it there as the hardware does): the
resumed dealer reads it where it is, then routes it. The dealer may have rebooted and forgotten
its loop model: then (and only then: a dealer whose loop model is still valid and holds as many
cards as the referee parks there only saw the host restart) the cards the referee parks in the
loop are dealt back to the loop before anything is fed (read once each), so the dealer knows them
again.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from trickref.device.dealer import messages as dm
from trickref.device.dealer.driver import Dealer
from trickref.device.dealer.errors import DealerError
from trickref.device.journal import Journal, OpenReport
from trickref.device.table.dealers import target_byte
from trickref.device.table.host import IdealDealer, SerialDealer, TableHost
from trickref.engine import cards as C
from trickref.engine.games import game_class
from trickref.engine.referee.commands import DealPlan, RouteFed
from trickref.engine.referee.events import BotAction, Button, Event, NewGame, Touch

MODES = ("hardware", "simulated", "instant")
SIM_SPEED = 8.0  # the simulated dealer's speed-up: a deal takes a second or two, visible on screen
SIM_OPEN_S = 60.0  # how long the first HELLO waits for the simulated dealer (see open_table)


class TableSetupError(ValueError):
    """The table could not be opened (dealer port, panels, journal): what and why, in words."""


class OpenTable:
    """A host with its ports: what ``open_table`` returns. ``host`` takes the events."""

    def __init__(self, host: TableHost, mode: str, players: int, *, panels: Any = None, driver: Dealer | None = None,
                 sim: Any = None, records: list[Any] | None = None, report: OpenReport | None = None) -> None:
        self.host = host
        self.mode = mode
        self.players = players
        self.panels = panels
        self.driver = driver
        self.sim = sim
        self.records = records or []
        self.report = report
        self._unplugged = False

    # ---------------------------------------------------------------- lifecycle
    def begin(self, game: str, names: Sequence[str], options: dict[str, Any], bots: Sequence[int] = (),
              first_dealer: int = 0, bot_hands: str | None = None) -> None:
        """Start a new game. ``bot_hands``: where the bot seats' cards go (``NewGame.bot_hands``);
        by default "loop" at a physical table (hardware mode: nobody may see a bot's hand, and
        nobody is there to play its cards), "pocket" otherwise (the simulator's person moves a
        bot's card by hand)."""
        self.host.start()
        hands = bot_hands or ("loop" if self.mode == "hardware" else "pocket")
        out = self.host.call(NewGame(game, tuple(names), dict(options), first_dealer, tuple(sorted(bots)),
                                     bot_hands=hands))
        if self.host.referee.game is None:
            texts = [getattr(c, "text", "") for c in out if getattr(c, "TYPE", "") == "message"]
            raise TableSetupError("; ".join(t for t in texts if t) or "the game was refused")

    def resume(self) -> None:
        """Replay the journal, restore the simulator's cards, redo the pending step."""
        h = self.host
        h.resume(self.records)
        if self.driver is not None:
            self._stop_leftover()
            ref, port = h.referee, h.dealer
            loop = ref.places.at.get("loop", [])
            if loop and isinstance(port, SerialDealer) and ref.waiting == "turn" and not self._knows_loop(loop):
                port.adapter.relearn = list(loop)
        if self.sim is not None:
            self._restore()
        port = h.dealer
        if isinstance(port, SerialDealer):  # the hand's salt: the step ids of the steps to come
            ref = h.referee
            port.sync(ref.fair[-1]["salt"] if ref.fair else "", ref.rejects_seen)
        if isinstance(port, SerialDealer) and port.adapter.relearn is not None and port.adapter.in_gate is None:
            # now, before the reader loop feeds anything: a dealer that does not know the cards
            # parked in its hopper would give one of them as the next card fed
            try:
                port.adapter.relearn_now()
            except (DealerError, OSError, ValueError):
                pass  # the adapter keeps it pending: the first step does it (or shows the fault)
        h.start(resync=True)

    def _knows_loop(self, loop: list[int]) -> bool:
        """Whether the dealer still knows the cards the journal parks in its loop (only the host
        restarted): its loop model valid and holding as many cards. A dealer that rebooted (a
        fresh simulator too) has an empty model; one that lost track says so (model invalid):
        then the loop is relearned."""
        if self.sim is not None:
            return False  # a fresh simulator: it knows nothing yet
        assert self.driver is not None
        try:
            st = self.driver.status()
        except (DealerError, OSError, ValueError):
            return False  # the first step shows the fault; the loop is relearned then
        return st.loop_model_valid and st.loop_count == len(loop)

    def _stop_leftover(self) -> None:
        """The dealer may still be doing what the table asked before the power went (waiting
        for a card to be fed, say): stop it, unless the referee's next step routes a card that
        was read and waits in the reader gate (an abort would reject it)."""
        ref, driver = self.host.referee, self.driver
        assert driver is not None
        head = ref.steps[0] if ref.steps else None
        if isinstance(head, RouteFed):
            card = head.card
            port = self.host.dealer
            if card is not None and isinstance(port, SerialDealer):
                port.adapter.in_gate = C.parse(card)  # read it where it is before routing it
            return
        try:
            driver.abort()
        except (DealerError, OSError, ValueError):
            pass  # a dealer that does not answer shows as a fault at the first step

    def close(self) -> None:
        try:
            self.host.close()
        finally:
            try:
                if self.panels is not None:
                    self.panels.close()
            finally:
                if self.sim is not None:
                    self.sim.stop()

    # ---------------------------------------------------------------- the seat panels
    def press(self, seat: int, button: str) -> None:
        """A press of a seat panel's key: the mock pins when there are panels, else an event."""
        if self.panels is not None and hasattr(self.panels, "press"):
            self.panels.press(seat, button)
        else:
            self.host.post(Button(seat, button))

    # ---------------------------------------------------------------- simulated people
    def feed(self, card: int | str, seat: int) -> None:
        """Simulated mode: a player takes ``card`` from their own pocket (``seat``'s) and puts it
        in the dealer's play slot; the reader loop reads it. A person feeds only a card they
        hold: a card that is not in that pocket raises ValueError naming where it is not (it is
        never found wherever it lies, which would hide a referee that lost track of it)."""
        sim = self._need_sim("feed a card")
        c = C.parse(card) if isinstance(card, str) else card
        with sim.lock:
            pocket = sim.board.trays.get(seat, [])
            if c not in pocket:
                raise ValueError(f"seat {seat}'s pocket does not hold {C.NAMES[c]} (it holds "
                                 f"{' '.join(C.names(pocket)) or 'nothing'})")
            pocket.remove(c)
        sim.play(c)  # into the play slot: read before the hopper's (the loop's) cards

    def take_back(self, card: int | str, source: str, dest: str) -> None:
        """Simulated mode: a person does what the screen says (``TakeBack``): ``card`` from the
        ``source`` pocket (the reject pocket) into ``dest`` ("seat:k": that player's pocket).
        Only that: a card that is not in ``source`` raises ValueError (a person would not find
        it there; moving it from elsewhere would hide a wrong model)."""
        sim = self._need_sim("move a card by hand")
        c = C.parse(card) if isinstance(card, str) else card
        with sim.lock:
            trays = sim.board.trays
            pile = trays.get(target_byte(source), [])
            if c not in pile:
                raise ValueError(f"the screen says to take {C.NAMES[c]} from the {source} pocket, which holds "
                                 f"{' '.join(C.names(pile)) or 'nothing'}")
            pile.remove(c)
            trays.setdefault(target_byte(dest), []).append(c)

    def fault(self, kind: str) -> None:
        """Simulated mode: the simulator jams at its next motion, misreads the next card fed, or
        its cable is pulled."""
        sim = self._need_sim("inject a fault")
        if kind == "jam":
            sim.jam("eject")
        elif kind == "misread":
            sim.misread(1)
        elif kind in ("unplug", "link"):
            self._unplugged = True
            sim.go_silent(True)
        else:
            raise ValueError(f"the simulator can jam, misread or be unplugged, not {kind!r}")

    def arm_fault(self, kind: str, after_cards: int = 10) -> None:
        """Simulated mode: the fault strikes ``after_cards`` cards into the next deal."""
        from trickref.device.dealer import messages as m

        driver = self.driver
        assert driver is not None
        count = [0]

        def listener(ev: Any) -> None:
            if getattr(ev, "kind", None) == m.EV_CARD_DEALT:
                count[0] += 1
                if count[0] == after_cards:
                    driver.remove_listener(listener)
                    self.fault(kind)

        driver.add_listener(listener)

    def _need_sim(self, what: str) -> Any:
        if self.sim is None:
            raise ValueError(f"only the simulated dealer can {what} (this table is {self.mode})")
        return self.sim

    def _restore(self) -> None:
        """A fresh simulator after a restart: put every card where the referee says it is."""
        ref, sim, driver = self.host.referee, self.sim, self.driver
        assert driver is not None
        g = ref.game
        head = ref.steps[0] if ref.steps else None
        full = [c for _ in range(g.DECKS if g is not None else 1) for c in range(52)]
        pockets, loop, gate = ref.places.restore()
        if g is None or ref.waiting in ("new_game", "shuffle", "over") or isinstance(head, DealPlan):
            rest = list(full)
            for c in gate[:1]:
                rest.remove(c)
            if gate and ref.waiting == "shuffle":
                # the hand just ended with its last card in the gate: the others lie played on
                # the table (gathered after that card is routed), none in the hopper yet
                sim.load_deck([])
                with sim.lock:
                    sim.board.trays.setdefault(dm.TRICK, []).extend(rest)
            else:
                sim.load_deck(rest)
        else:  # the cards lie where they were: the pockets, and the loop's in the hopper
            sim.load_deck(loop)
            with sim.lock:
                for target, cards in pockets.items():
                    sim.board.trays[target_byte(target)] = list(cards)
        if gate:
            # The card read just before the power went stays in the reader gate (a second one,
            # which a healthy table never has, goes back on the hopper to be fed again).
            with sim.lock:
                sim.board.gate = gate[0]
                sim.board.hopper[:0] = gate[1:]

    def _mirror(self, event: Event, before: dict[str, list[str]], after: dict[str, list[str]]) -> None:
        """Cards moved by hand (a card played on the screen or by a bot goes on the trick pile,
        passed cards to their receiver): move them in the simulator too, so its pockets match."""
        if not isinstance(event, (Touch, BotAction)):
            return
        inside = {target_byte("loop")}  # inside the dealer: nobody puts a card there by hand
        gone: list[tuple[str, int]] = []
        came: list[tuple[str, int]] = []
        for store in set(before) | set(after):
            b, a = list(before.get(store, [])), list(after.get(store, []))
            for c in list(b):
                if c in a:
                    a.remove(c)
                    b.remove(c)
            gone += [(store, C.parse(c)) for c in b]
            came += [(store, C.parse(c)) for c in a]
        sim = self.sim
        with sim.lock:
            trays = sim.board.trays
            for store, card in came:
                try:
                    dst = target_byte(store)
                except ValueError:
                    continue
                if dst in inside:
                    continue
                src = next((s for s, c in gone if c == card), None)
                try:
                    src_b = target_byte(src) if src is not None else None
                except ValueError:
                    src_b = None
                if src_b is not None and card in trays.get(src_b, []):
                    trays[src_b].remove(card)
                    trays.setdefault(dst, []).append(card)


def open_table(config: Any, mode: str | None = None, *, game: str, players: int,
               journal_file: str | os.PathLike[str] | None = None, games_dir: str | os.PathLike[str] | None = None,
               seed: int | None = None, speed: float = SIM_SPEED, fresh: bool = False, auto_deal: bool = True,
               pin_factory: Any = None, on_change: Any = None, link_timeout: float | None = None,
               panel_clock: Any = None) -> OpenTable:
    """The table for ``mode`` (default: the configuration's). Nothing runs until ``begin`` or
    ``resume``. TableSetupError names what could not be opened and why."""
    mode = mode or (config.resolved_mode() if config is not None else "simulated")
    if mode not in MODES:
        raise TableSetupError(f"unknown table mode {mode!r}: one of {', '.join(MODES)}")
    from trickref.device.games_store import GamesStore

    store = GamesStore(games_dir) if games_dir is not None else None
    journal: Journal | None = None
    records: list[Any] = []
    report: OpenReport | None = None
    if journal_file is not None:
        p = Path(journal_file)
        if fresh and p.exists():
            p.unlink()
        journal, records, report = Journal.open(p)
    holder: dict[str, TableHost] = {}

    def on_panel(ev: Any) -> None:  # the panels' thread: post, nothing else
        holder["host"].post(Button(ev.seat, ev.button))

    panels: Any = None
    driver: Dealer | None = None
    sim: Any = None
    try:
        if mode == "instant":
            port: Any = IdealDealer()
        elif mode == "simulated":
            from trickref.device.dealer.sim import DealerSimulator
            from trickref.device.panels import MockPanels, timing_of

            sim = DealerSimulator(seats=players, decks=game_class(game).DECKS, seed=seed or 0, speed=speed)
            sim.start()
            driver = Dealer(sim.stable_path, link_timeout=link_timeout or 1.0, stall_timeout=10.0)
            # the simulator runs in this process: at start it can only be slow (a loaded
            # machine), never gone; the first HELLO waits for it (2 s were not enough at load 90)
            driver.open(timeout=SIM_OPEN_S)
            panels = MockPanels(players, on_panel, timing=None if config is None else timing_of(config.panels),
                                **({"clock": panel_clock} if panel_clock is not None else {}))
        else:
            from trickref.device.panels import open_panels

            driver = Dealer(config.dealer.port, baudrate=config.dealer.baud, link_timeout=link_timeout or 10.0)
            try:
                driver.open()
            except (DealerError, OSError, ValueError) as e:
                raise TableSetupError(f"cannot open the dealer on {config.dealer.port}: {e}") from None
            try:
                panels = open_panels(config, on_panel, "hardware", seats=players, pin_factory=pin_factory,
                                     **({"clock": panel_clock} if panel_clock is not None else {}))
            except (ValueError, OSError) as e:
                raise TableSetupError(f"cannot open the seat panels: {e}") from None
    except BaseException:
        try:
            if driver is not None:
                driver.close()
            if sim is not None:
                sim.stop()
        except (DealerError, OSError):
            pass
        if journal is not None:
            journal.close()
        raise
    parts: dict[str, OpenTable] = {}

    def refeed(card: int, seat: int | None = None) -> None:  # the simulated player feeds the card (back)
        if seat is None:
            raise ValueError(f"the screen names nobody to feed {C.NAMES[card]} back")
        parts["table"].feed(card, seat)

    def mirror(event: Event, before: dict[str, list[str]], after: dict[str, list[str]]) -> None:
        parts["table"]._mirror(event, before, after)

    if driver is not None:
        port = SerialDealer(driver, sim=sim, refeed=refeed if sim is not None else None)
    host = TableHost(port, journal=journal, store=store, leds=panels, seed=seed, auto_deal=auto_deal,
                     on_change=on_change, after_event=mirror if sim is not None else None)
    holder["host"] = host
    if config is not None and (config.storage.home_dir() / "club.toml").exists():
        from trickref.device.club.table import attach  # joined to a club night: the hub's boards

        attach(host, config.storage.home_dir())
    table = OpenTable(host, mode, players, panels=panels, driver=driver, sim=sim, records=records, report=report)
    parts["table"] = table
    if sim is not None:
        host.take_back = lambda c: table.take_back(c.card, c.source, c.dest)
    return table


__all__ = ["MODES", "SIM_SPEED", "OpenTable", "TableSetupError", "open_table"]
