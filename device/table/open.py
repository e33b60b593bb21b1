"""``open_table(config, mode)``: one table host with the ports of its mode plugged in.

The modes differ only in the ports (``device.table.host``):

- ``"hardware"``: the real ``Dealer`` driver on the configured serial port and the wired seat
  panels (``Panels``; gpiozero's default pin factory on the Pi, ``MockFactory`` in tests).
- ``"simulated"``: a ``World`` stands where the table's hardware and people would: the same
  ``Dealer`` driver on the serial device it names, ``MockPanels`` (the real panel code on
  gpiozero's mock pins, which the kiosk's on-screen keys hold and release), and its ``People``
  port, told what the screen asks of people by hand. Whoever opens a simulated table builds the
  world and hands it in: nothing here knows what answers on the port.
- ``"instant"``: the one ideal dealer in-process, no panels (presses go to the inbox as
  ``Button`` events): tests and staged screenshots.

Every event goes through the host's inbox and journal whatever the mode. ``OpenTable.begin``
starts a new game; ``OpenTable.resume`` rebuilds the one in the journal (a world is first told
where the referee's physical model says the cards are: ``World.restore``). A card read just
before the power went, not yet routed, is still in the reader gate (as the hardware keeps it):
the resumed dealer reads it where it is, then routes it. The dealer may have rebooted and forgotten
its loop model: then (and only then: a dealer whose loop model is still valid and holds as many
cards as the referee parks there only saw the host restart) the cards the referee parks in the
loop are dealt back to the loop before anything is fed (read once each), so the dealer knows them
again.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from trickref.device.dealer.driver import Dealer
from trickref.device.dealer.errors import DealerError
from trickref.device.journal import Journal, OpenReport
from trickref.device.table.host import (
    IdealDealer,
    LinkBack,
    People,
    SerialDealer,
    TableHost,
    relearn_unheard,
)
from trickref.engine import cards as C
from trickref.engine.referee.commands import RouteFed
from trickref.engine.referee.events import Button, NewGame

MODES = ("hardware", "simulated", "instant")


class World(Protocol):
    """What stands where the table's hardware and people would (simulated mode): a serial
    device the dealer answers on, and the people told what the screen asks of them by hand."""

    port: str  # the serial device the dealer answers on
    open_timeout: float  # how long the first HELLO may wait for it

    @property
    def people(self) -> People:
        """Told what the screen asks of people by hand (the host's ``People`` port)."""

    def restore(self, referee: Any) -> None:
        """After a restart: the cards lie where the referee's physical model says they do."""

    def feed(self, card: int, seat: int) -> None:
        """The player at ``seat`` feeds ``card`` from their own pocket into the play slot
        (ValueError when their pocket does not hold it)."""

    def take_back(self, card: int, source: str, dest: str) -> None:
        """A person moves ``card`` from the ``source`` pocket into ``dest`` (ValueError when it
        is not in ``source``)."""

    def fault(self, kind: str) -> None:
        """The dealer jams at its next motion ("jam"), misreads the next card fed ("misread"),
        or its cable is pulled ("unplug", "link")."""

    def close(self) -> None:
        """The table closed: the world stops."""


class TableSetupError(ValueError):
    """The table could not be opened (dealer port, panels, journal): what and why, in words."""


class OpenTable:
    """A host with its ports: what ``open_table`` returns. ``host`` takes the events."""

    def __init__(self, host: TableHost, mode: str, players: int, *, panels: Any = None, driver: Dealer | None = None,
                 world: World | None = None, records: list[Any] | None = None,
                 report: OpenReport | None = None) -> None:
        self.host = host
        self.mode = mode
        self.players = players
        self.panels = panels
        self.driver = driver
        self.world = world
        self.records = records or []
        self.report = report

    # ---------------------------------------------------------------- lifecycle
    def begin(self, game: str, names: Sequence[str], options: dict[str, Any], bots: Sequence[int] = (),
              first_dealer: int = 0, bot_hands: str | None = None) -> None:
        """Start a new game. ``bot_hands``: where the bot seats' cards go (``NewGame.bot_hands``);
        by default "loop" at a physical table (hardware mode: nobody may see a bot's hand, and
        nobody is there to play its cards), "pocket" otherwise (a person moves a bot's card by
        hand)."""
        self.host.start()
        hands = bot_hands or ("loop" if self.mode == "hardware" else "pocket")
        out = self.host.call(NewGame(game, tuple(names), dict(options), first_dealer, tuple(sorted(bots)),
                                     bot_hands=hands))
        if self.host.referee.game is None:
            texts = [getattr(c, "text", "") for c in out if getattr(c, "TYPE", "") == "message"]
            raise TableSetupError("; ".join(t for t in texts if t) or "the game was refused")

    def resume(self) -> None:
        """Replay the journal, put the world's cards where they were, redo the pending step."""
        h = self.host
        h.resume(self.records)
        if self.driver is not None:
            self._stop_leftover()
            ref, port = h.referee, h.dealer
            loop = ref.places.at.get("loop", [])
            if loop and isinstance(port, SerialDealer) and ref.waiting == "turn" and not self._knows_loop(loop):
                port.adapter.relearn = list(loop)
        if self.world is not None:
            self.world.restore(h.referee)
        port = h.dealer
        if isinstance(port, SerialDealer):  # the hand's salt: the step ids of the steps to come
            ref = h.referee
            port.sync(ref.fair[-1]["salt"] if ref.fair else "", ref.rejects_seen)
        if isinstance(port, SerialDealer) and port.adapter.relearn is not None and port.adapter.in_gate is None:
            # now, before the reader loop feeds anything: a dealer that does not know the cards
            # parked in its hopper would give one of them as the next card fed
            try:
                port.adapter.relearn_now()
            except (DealerError, OSError, ValueError) as e:
                # not heard (a slow restart: a starved host's write timed out): the adapter keeps
                # it pending, and the table stops until the dealer has it, before anybody is told
                # to feed a card (posted ahead of the resync: no read starts first). Resume, or
                # the link coming back, deals the parked cards back to the loop (SerialDealer).
                if port.adapter.relearn is not None:  # (a jam instead: the first step resumes it)
                    h.post(relearn_unheard(port.adapter, e))
                    h.post(LinkBack())
            moved = port.adapter.take_moved()
            if moved is not None:  # a card fed while the table was down, read and rejected by it
                h.post(moved)
        h.start(resync=True)

    def _knows_loop(self, loop: list[int]) -> bool:
        """Whether the dealer still knows the cards the journal parks in its loop (only the host
        restarted): its loop model valid and holding as many cards. A dealer that rebooted has
        an empty model; one that lost track says so (model invalid): then the loop is relearned."""
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
                if self.world is not None:
                    self.world.close()

    # ---------------------------------------------------------------- the seat panels
    def press(self, seat: int, button: str) -> None:
        """A press of a seat panel's key: the mock pins when there are panels, else an event."""
        if self.panels is not None and hasattr(self.panels, "press"):
            self.panels.press(seat, button)
        else:
            self.host.post(Button(seat, button))

    # ---------------------------------------------------------------- what only a world can do
    def feed(self, card: int | str, seat: int) -> None:
        """A player takes ``card`` from their own pocket (``seat``'s) and puts it in the
        dealer's play slot; the reader loop reads it. Only a world's people do it on request: a
        card that is not in that pocket raises ValueError naming where it is not."""
        self._need_world("feed a card").feed(C.parse(card) if isinstance(card, str) else card, seat)

    def take_back(self, card: int | str, source: str, dest: str) -> None:
        """A person does what the screen says (``TakeBack``): ``card`` from the ``source``
        pocket into ``dest`` ("seat:k"); ValueError when it is not in ``source``."""
        self._need_world("move a card by hand").take_back(C.parse(card) if isinstance(card, str) else card,
                                                          source, dest)

    def fault(self, kind: str) -> None:
        """The dealer jams at its next motion, misreads the next card fed, or its cable is
        pulled (a world only)."""
        self._need_world("inject a fault").fault(kind)

    def arm_fault(self, kind: str, after_cards: int = 10) -> None:
        """A world's fault strikes ``after_cards`` cards into the next deal (``fault``)."""
        from trickref.device.dealer import messages as m

        world = self._need_world("inject a fault")
        misread_after = getattr(world, "misread_after", None)
        if kind == "misread" and misread_after is not None:
            # counted by the world's dealer as the cards come into its read window: a host that
            # heard of the twelfth card only once the deal's reads were over (likely on a loaded
            # machine) would arm a misread no card of the deal was left to meet
            misread_after(after_cards)
            return
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

    def _need_world(self, what: str) -> World:
        if self.world is None:
            raise ValueError(f"only the simulated dealer can {what} (this table is {self.mode})")
        return self.world


def open_table(config: Any, mode: str | None = None, *, game: str, players: int,
               journal_file: str | os.PathLike[str] | None = None, games_dir: str | os.PathLike[str] | None = None,
               seed: int | None = None, fresh: bool = False, auto_deal: bool = True,
               pin_factory: Any = None, on_change: Any = None, link_timeout: float | None = None,
               panel_clock: Any = None, world: World | None = None) -> OpenTable:
    """The table for ``mode`` (default: the configuration's; "simulated" when a ``world`` is
    given, which simulated mode needs: it stands where the hardware and people would). Nothing
    runs until ``begin`` or ``resume``. TableSetupError names what could not be opened and why;
    the caller closes the world it made."""
    mode = mode or (config.resolved_mode() if config is not None else "simulated" if world is not None else "instant")
    if mode not in MODES:
        raise TableSetupError(f"unknown table mode {mode!r}: one of {', '.join(MODES)}")
    if (mode == "simulated") != (world is not None):
        raise TableSetupError("the simulated mode, and only it, has a world standing for the dealer port, the panels"
                              f" and the people (mode {mode!r}, {'a' if world is not None else 'no'} world)")
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
    try:
        if mode == "instant":
            port: Any = IdealDealer()
        elif world is not None:
            from trickref.device.panels import MockPanels, timing_of

            driver = Dealer(world.port, link_timeout=link_timeout or 1.0, stall_timeout=10.0)
            driver.open(timeout=world.open_timeout)
            panels = MockPanels(players, on_panel, timing=None if config is None else timing_of(config.panels),
                                **({"clock": panel_clock} if panel_clock is not None else {}))
        else:
            from trickref.device.panels import open_panels

            port = config.dealer.resolved_port()
            driver = Dealer(port, baudrate=config.dealer.baud, link_timeout=link_timeout or 10.0)
            try:
                driver.open()
            except (DealerError, OSError, ValueError) as e:
                raise TableSetupError(f"cannot open the dealer on {port}: {e}") from None
            try:
                panels = open_panels(config, on_panel, "hardware", seats=players, pin_factory=pin_factory,
                                     **({"clock": panel_clock} if panel_clock is not None else {}))
            except (ValueError, OSError) as e:
                raise TableSetupError(f"cannot open the seat panels: {e}") from None
    except BaseException:
        try:
            if driver is not None:
                driver.close()
        except (DealerError, OSError):
            pass
        if journal is not None:
            journal.close()
        raise
    people = world.people if world is not None else None
    if driver is not None:
        port = SerialDealer(driver, people=people)
    host = TableHost(port, journal=journal, store=store, leds=panels, seed=seed, auto_deal=auto_deal,
                     on_change=on_change, people=people)
    holder["host"] = host
    if config is not None and (config.storage.home_dir() / "club.toml").exists():
        from trickref.device.club.table import attach  # joined to a club night: the hub's boards

        attach(host, config.storage.home_dir())
    return OpenTable(host, mode, players, panels=panels, driver=driver, world=world, records=records, report=report)


__all__ = ["MODES", "OpenTable", "TableSetupError", "World", "open_table"]
