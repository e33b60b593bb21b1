"""The simulated world of a table: the dealer simulator behind a pty and the simulated people.

``open_simulated`` opens the kiosk's (and ``trickref sim``'s) simulated table: it builds a
``SimWorld`` (``DealerSimulator``: the real firmware behind a pty) and hands it to
``device.table.open.open_table``, which opens the real ``Dealer`` driver on the pty and the real
panel code on gpiozero's mock pins, as it would on hardware. The host talks to the pty and to
its ``People`` port only; ``SimPeople`` answer that port by doing, on the simulator, only what
the screen tells a person: gather the cards into the hopper, clear a jam, plug the cable back
in, put a card in the play slot, take a card back from the pocket the screen names (two decks, when
the screen tells two players "if you no longer hold it": the one whose pocket no longer holds it),
move a card played on the screen onto the trick pile.

After a restart the simulator is a fresh machine: ``SimWorld.restore`` puts every card where
the referee's physical model says it is (the pockets, the loop's cards in the hopper, a card
read just before the power went in the reader gate, as the hardware keeps it).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from trickref.device.dealer import messages as dm
from trickref.device.table.dealers import target_byte
from trickref.device.table.open import OpenTable, open_table
from trickref.engine import cards as C
from trickref.engine.games import game_class
from trickref.engine.referee.commands import DealPlan, TakeBack
from trickref.engine.referee.events import BotAction, Event, Touch

if TYPE_CHECKING:
    from trickref.device.dealer.sim import DealerSimulator

SIM_SPEED = 8.0  # the simulated dealer's speed-up: a deal takes a second or two, visible on screen
SIM_OPEN_S = 60.0  # how long the first HELLO waits for the simulated dealer (see open_simulated)


class SimPeople:
    """The people at a simulated table: the host's ``People`` port, done on the simulator.

    ``cannot``: when a list, what the screen told a person to do that they could not (a
    ``TakeBack`` whose card is not where the screen says) is written there instead of raised
    (``trickref sim`` then stops stuck rather than go on with a wrong model)."""

    def __init__(self, world: SimWorld) -> None:
        self.world = world
        self.cannot: list[str] | None = None
        # cards the screen said to leave in the reject pocket (set aside for the hand)
        self.leave: list[int] = []
        # the screen said a card fed back could not be read and went to the reject pocket: the
        # person takes it from there to feed it back again (set by whoever shows the screen)
        self.unread_feed_back = False
        # told of every move done here (SimTable keeps the last ones for a stuck run's report)
        self.log: Callable[[str], None] = lambda what: None

    def gather(self) -> None:
        self.log("the people gather the cards into the hopper")
        self.world.sim.gather_to_hopper()

    def fix(self, fault: str) -> None:
        self.log(f"the people fix: {fault}")
        # "look in the reject pocket (leave 2C, 2D there: ...)", "... (not 2C, 2D: ...)"
        said = re.search(r"reject pocket \((?:leave|not) ([^:)]*?)(?: there)?:", fault)
        self.leave = [C.parse(c) for c in said.group(1).split(", ")] if said else []
        sim = self.world.sim
        sim.clear_jam()
        sim.go_silent(False)
        if "fed together" in fault:  # a double feed: both back under the stack, in their order
            sim.put_back_double()
        if "emergency stop" in fault:  # the button twisted out again
            sim.press_estop(False)

    def unread_to_hopper(self) -> None:
        cards = self.world.sim.rejects_to_hopper()
        self.log(f"the people put the reject pocket's {len(cards)} card(s) on the hopper, the unread and any "
                 f"set aside there ({' '.join(C.names(cards))})")

    def to_play_slot(self, missing: list[tuple[int, int | None]], only_named: bool = False) -> None:
        cards = [c for c, _ in missing]
        if only_named:
            self.log(f"the people put the cards named in the play slot ({' '.join(C.names(cards))})")
        else:
            self.log(f"the people put the stray cards in the play slot ({' '.join(C.names(cards))} named)")
        self.world.sim.strays_to_slot(cards, [seat for _, seat in missing], only_named=only_named, leave=self.leave)

    def feed_back(self, card: int, seat: int | None) -> None:
        if seat is None:
            raise ValueError(f"the screen names nobody to feed {C.NAMES[card]} back")
        if self.unread_feed_back:
            self.unread_feed_back = False
            sim = self.world.sim
            with sim.lock:
                rejected = card in sim.board.trays.get(target_byte("reject"), [])
                held = card in sim.board.trays.get(seat, [])
            if rejected and not held:
                self.log(f"seat {seat} takes {C.NAMES[card]} back from the reject pocket (it could not be read)")
                self.world.take_back(card, "reject", f"seat:{seat}")
        self.log(f"seat {seat} feeds {C.NAMES[card]} back (the dealer asked)")
        self.world.feed(card, seat)

    def take_back(self, cmd: TakeBack) -> None:
        if not cmd.card:  # never read: whoever fed it knows it is theirs
            self.log(f"the screen says: the unread card in the {cmd.source} pocket back to whichever of seats "
                     f"{', '.join(map(str, cmd.owners))} fed it, to feed again")
            try:
                self.world.take_back_unread(cmd.source, cmd.owners)
            except ValueError as e:
                if self.cannot is None:
                    raise
                self.cannot.append(str(e))
            return
        if cmd.owners:
            self.log(f"the screen says: {cmd.card} from the {cmd.source} pocket to whichever of seats "
                     f"{', '.join(map(str, cmd.owners))} no longer holds it")
        else:
            self.log(f"the screen says: {cmd.card} from the {cmd.source} pocket to {cmd.dest}")
        try:
            if cmd.owners:
                self.world.take_back_missing(C.parse(cmd.card), cmd.source, cmd.owners)
            else:
                self.world.take_back(C.parse(cmd.card), cmd.source, cmd.dest)
        except ValueError as e:
            if self.cannot is None:
                raise
            self.cannot.append(str(e))

    def moved(self, event: Event, before: dict[str, Any], after: dict[str, Any]) -> None:
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
        sim = self.world.sim
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
                    self.log(f"moved by hand: {C.NAMES[card]} from {src} to {store}")


class SimWorld:
    """The dealer simulator behind its pty and the simulated people: a ``World`` for
    ``open_table``. ``sim`` is the simulator (tests reach into it as a person's hands would)."""

    def __init__(self, sim: DealerSimulator, open_timeout: float = SIM_OPEN_S) -> None:
        self.sim = sim
        self.port: str = sim.stable_path
        # the simulator runs in this process: at start it can only be slow (a loaded machine),
        # never gone; the first HELLO waits for it (2 s were not enough at load 90)
        self.open_timeout = open_timeout
        self.people = SimPeople(self)
        self.fed_last: dict[int, int] = {}  # each seat's card last fed through the play slot (its person knows)
        self.taken_back: list[int] = []  # unread cards the people took back from the reject pocket to feed again
        # False: the cards lie where they physically are (the same dealer and table, only the host
        # restarted, the dealer rebooted or not: ``open_simulated(world=...)``), and a resume
        # puts nothing in place (``restore`` is for a fresh simulator)
        self.fresh = True

    @classmethod
    def start(cls, *, game: str, players: int, seed: int | None = None, speed: float = SIM_SPEED,
              twin: bool = False, twin_faults: bool = False) -> SimWorld:
        """The dealer simulator started at ``speed``: the firmware on the simulated board, or
        with ``twin`` on the physical twin (device/dealer/twin.py: a card goes where the flaps
        stand; ``twin_faults``: its random pickup slips, double feeds and misreads too)."""
        sim: DealerSimulator
        if twin:
            from trickref.device.dealer.twin_sim import TwinDealerSimulator

            sim = TwinDealerSimulator(seats=players, decks=game_class(game).DECKS, seed=seed or 0, speed=speed,
                                      faults=twin_faults)
        else:
            from trickref.device.dealer.sim import DealerSimulator

            sim = DealerSimulator(seats=players, decks=game_class(game).DECKS, seed=seed or 0, speed=speed)
        sim.start()
        return cls(sim)

    def close(self) -> None:
        self.sim.stop()

    # ---------------------------------------------------------------- what people do by hand
    def feed(self, card: int, seat: int) -> None:
        """A player takes ``card`` from their own pocket (``seat``'s) and puts it in the
        dealer's play slot; the reader loop reads it. A person feeds only a card they hold: a
        card that is not in that pocket raises ValueError naming where it is not (it is never
        found wherever it lies, which would hide a referee that lost track of it)."""
        sim = self.sim
        with sim.lock:
            pocket = sim.board.trays.get(seat, [])
            if card not in pocket:
                raise ValueError(f"seat {seat}'s pocket does not hold {C.NAMES[card]} (it holds "
                                 f"{' '.join(C.names(pocket)) or 'nothing'})")
            pocket.remove(card)
            self.fed_last[seat] = card
        sim.play(card)  # into the play slot: read before the hopper's (the loop's) cards

    def take_back(self, card: int, source: str, dest: str) -> None:
        """A person does what the screen says (``TakeBack``): ``card`` from the ``source``
        pocket (the reject pocket) into ``dest`` ("seat:k": that player's pocket). Only that: a
        card that is not in ``source`` raises ValueError (a person would not find it there;
        moving it from elsewhere would hide a wrong model)."""
        sim = self.sim
        with sim.lock:
            trays = sim.board.trays
            pile = trays.get(target_byte(source), [])
            if card not in pile:
                raise ValueError(f"the screen says to take {C.NAMES[card]} from the {source} pocket, which holds "
                                 f"{' '.join(C.names(pile)) or 'nothing'}")
            pile.remove(card)
            trays.setdefault(target_byte(dest), []).append(card)

    def take_back_unread(self, source: str, owners: tuple[int, ...]) -> None:
        """The screen says: a card went to the ``source`` pocket before it was read; whichever
        of ``owners`` fed it takes it back. The person who fed it remembers which card it was
        (``fed_last``) and finds it there; none or two of them raise ValueError."""
        sim = self.sim
        with sim.lock:
            pile = sim.board.trays.get(target_byte(source), [])
            mine = [s for s in owners if self.fed_last.get(s) in pile]
            if len(mine) != 1:
                raise ValueError(f"the screen says whichever of seats {', '.join(map(str, owners))} fed the unread "
                                 f"card takes it back: {len(mine)} of them find their card in the {source} pocket")
            card = self.fed_last.pop(mine[0])
            self.taken_back.append(card)
        self.take_back(card, source, f"seat:{mine[0]}")

    def take_back_missing(self, card: int, source: str, owners: tuple[int, ...]) -> None:
        """Two decks, the screen tells each of ``owners``: "if you no longer hold ``card``, take
        it back from the ``source`` pocket". Each person looks in their own pocket; the one who
        fed it (it is no longer there) takes it back. Not exactly one of them missing it raises
        ValueError (the words would leave the people at the table unsure)."""
        sim = self.sim
        with sim.lock:
            trays = sim.board.trays
            missing = [s for s in owners if card not in trays.get(s, [])]
            if len(missing) != 1:
                raise ValueError(f"the screen says whichever of seats {', '.join(map(str, owners))} no longer holds "
                                 f"{C.NAMES[card]} takes it back: {len(missing)} of them do not hold it")
            self.take_back(card, source, f"seat:{missing[0]}")

    def fault(self, kind: str) -> None:
        """The simulator jams at its next motion, misreads the next card fed, or its cable is
        pulled."""
        sim = self.sim
        if kind == "jam":
            sim.jam("eject")
        elif kind == "misread":
            sim.misread(1)
        elif kind in ("unplug", "link"):
            sim.go_silent(True)
        else:
            raise ValueError(f"the simulator can jam, misread or be unplugged, not {kind!r}")

    def misread_after(self, cards: int) -> None:
        """The simulator misreads the card read after the next ``cards`` (counted by itself)."""
        self.sim.misread_after(cards)

    def restore(self, ref: Any) -> None:
        """A fresh simulator after a restart: put every card where the referee says it is (a
        world that went on, ``fresh`` False, is left as it is)."""
        if not self.fresh:
            return
        sim = self.sim
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


def open_simulated(config: Any, *, game: str, players: int, journal_file: str | os.PathLike[str] | None = None,
                   games_dir: str | os.PathLike[str] | None = None, seed: int | None = None,
                   speed: float = SIM_SPEED, world: SimWorld | None = None, twin: bool = False,
                   twin_faults: bool = False, **kw: Any) -> OpenTable:
    """``open_table`` in simulated mode, its world built here (the dealer simulator started at
    ``speed``, on the physical twin with ``twin``: ``SimWorld.start``); the world stops with the
    table, or at once when the table cannot be opened.
    ``world``: the world of a table whose host stopped (a power cut), the cards where they lie
    and its dealer as it is (rebooted or not): the host restarts on the same table."""
    if world is None:
        world = SimWorld.start(game=game, players=players, seed=seed, speed=speed, twin=twin,
                               twin_faults=twin_faults)
    else:
        world.fresh = False
    try:
        return open_table(config, "simulated", game=game, players=players, journal_file=journal_file,
                          games_dir=games_dir, seed=seed, world=world, **kw)
    except BaseException:
        world.close()
        raise


def open_any(config: Any, mode: str | None = None, *, speed: float = SIM_SPEED, **kw: Any) -> OpenTable:
    """The table for ``mode`` (default: the configuration's, simulated without one): the
    simulated mode through ``open_simulated``, the others through ``open_table``."""
    mode = mode or (config.resolved_mode() if config is not None else "simulated")
    if mode == "simulated":
        return open_simulated(config, speed=speed, **kw)
    return open_table(config, mode, **kw)


__all__ = ["SIM_OPEN_S", "SIM_SPEED", "SimPeople", "SimWorld", "open_any", "open_simulated"]
