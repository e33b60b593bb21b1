"""The whole table simulated: ``open_table``'s simulated mode (the table host, the dealer
simulator behind a pty driven through the real Dealer driver, ``MockPanels`` on gpiozero's mock
pins, the journal, the games folder) with a bot in every seat.

Bots act the way players do at the real table: bids, the moon and draws are presses of the mock
panels' pins (through the real debounce code, on a clock stepped here, so nothing waits on real
time); plays, passes and the Double Nil give are cards taken from the seat's pocket in the
simulator and dropped into its play slot, read by the table's reader loop; a spades-2p drawn card
that is not kept is fed back the same way when the dealer waits for it (``FeedBack``). So every card the referee
believes moved has moved in the simulator too. After each entry the driver waits for the table
(``drain``): the game is the same from run to run with a seed.

After a kill (power cut) the simulator is a fresh machine: ``open_table`` puts it back where the
referee's physical model says the cards are, then the pending dealer step is issued again.

Faults on demand (``faults``: ("jam", hand) / ("unplug", hand) / ("misread", hand)): ten cards
into that hand's deal the simulator jams, or its cable is out (it falls silent for one and a half
link timeouts); or the deal's first card cannot be read (the reject pocket: in a game without a
stock only that card is dealt again, from the hopper, once the person has put it there).
The bot "operator" then does what a person would: Resume (``TableHost.recover``: the jam is
cleared and the deal goes on; after the cable, the cards are gathered and the hand is redealt
from the same deck order). A deal that fails its check twice the same way is not resumed again:
the deck itself is wrong (a card missing or extra), so the run stops with ``TableStuck`` and the
referee's words.
"""

from __future__ import annotations

import re
import shutil
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from trickref.device.dealer import messages as m
from trickref.device.simulated.world import SimPeople, SimWorld, open_simulated
from trickref.device.table.open import OpenTable
from trickref.device.table.storage import RUN_AGAIN
from trickref.engine import cards as C
from trickref.engine.bots import bot_for
from trickref.engine.bots.levels import search_bot
from trickref.engine.referee import panel
from trickref.engine.referee.commands import Command, FeedBack, Message, Refusal, SaveRecord

GUARD_S = 120.0  # waits on the table: only a guard against a hang
# settle()'s guard counts GUARD_S from the last frame the host received from the dealer: a deal
# over a noisy line on a loaded machine is slow but alive (at 5 % corrupted bytes a two-deck
# deal's plan and its events were sent again and again for 57-64 s, then twice that at load 25),
# and is not a hang; a line that stays alive this long is one
SETTLE_CAP_S = 900.0


def _where_threads_stand() -> str:
    """Where the table's dealer thread and the dealer link's threads stand now (the innermost
    frames of each): what a hung table waits on, in a test's failure message."""
    names = {t.ident: t.name for t in threading.enumerate()}
    out = []
    for ident, frame in sys._current_frames().items():
        name = names.get(ident, "")
        if name.startswith(("table-dealer", "dealer-")):
            stack = traceback.extract_stack(frame)[-8:]
            out.append(f"{name}: " + " < ".join(f"{Path(f.filename).name}:{f.lineno} {f.name}"
                                                for f in reversed(stack)))
    return "threads: " + (" | ".join(sorted(out)) or "none of the dealer's")


class TableStuck(RuntimeError):
    """Nobody can act and nothing is pending: a bug, reported with what the table waits for."""


class _Clock:
    """The mock panels' clock: it moves when a bot's finger has held a key long enough."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class SimTable:
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
        bot_level: str = "rule",
        bot_budget: float | None = None,
        bot_worlds: int | None = None,
        world: SimWorld | None = None,  # a cut table's world: the host restarts on the same dealer and cards
        twin: bool = False,  # the firmware on the physical twin instead of the simulated board
        twin_faults: bool = False,  # with twin: its random pickup slips, double feeds and misreads
    ) -> None:
        self.game_id = game
        self.players = players
        self.options = dict(options or {})
        self.out = out
        self.faults = list(faults)
        self.injected: set[tuple[str, int]] = set()
        self.clock = _Clock()
        self.opened: OpenTable = open_simulated(None, game=game, players=players, journal_file=journal_path,
                                                seed=seed, speed=speed, auto_deal=False,
                                                link_timeout=link_timeout, panel_clock=self.clock,
                                                world=world, twin=twin, twin_faults=twin_faults)
        self.host = self.opened.host
        self.host.store = store
        self.host.on_commands = self._on_commands
        port = self.host.dealer
        if hasattr(port, "adapter"):
            port.adapter.auto_feed_back = False  # the bots feed drawn cards back themselves
        self.host.rotate_finished = False
        # what the screen told the person to do that the person could not (a TakeBack whose card
        # is not where the screen says): the run stops stuck, it does not go on with a wrong model
        self.cannot: list[str] = []
        self.fed_back: set[int] = set()  # the FeedBack steps whose card the person fed
        people = self.host.people
        assert isinstance(people, SimPeople)
        people.cannot = self.cannot
        # the simulated person's last moves (what they fed, pressed, took back), for a stuck
        # run's report (``explain``)
        self.moves: deque[str] = deque(maxlen=60)
        people.log = self._note
        self.journal_path = journal_path
        self.seed = seed
        assert isinstance(self.opened.world, SimWorld)
        self.sim = self.opened.world.sim
        # the card a person put in the play slot that the dealer has not read yet (a read the
        # dealer refused, a link fault): it lies there; the person waits for it to be read
        self.in_slot: int | None = None
        self.driver = self.opened.driver
        self.journal_records: list[Any] = list(self.opened.records)
        self.messages: list[Message] = []
        self.refusals = 0  # entries the table refused (a press is looked at: was it taken?)
        self.unread_refusals = 0  # of which: a fed card the reader could not read (feed it again)
        self.unread_feed_back = False  # the screen said: the card fed back could not be read
        self.max_hands: int | None = None
        # every seat's bot at ``bot_level`` (engine.bots.levels.LEVELS): a search bot keeps the
        # level's CPU budget per decision (``bot_budget`` seconds to set another), or searches
        # exactly ``bot_worlds`` worlds per decision (then a seed, and a journal's resume, replay
        # the same game on any machine; a time budget depends on the machine's speed)
        self.bot = bot_for(game) if bot_level == "rule" else search_bot(game, bot_level, budget=bot_budget,
                                                                         worlds=bot_worlds)
        self.hands_before = 0  # hands finished before a restart (printed by the earlier run)
        self.replayed = 0
        # a link fault: how long the person waits for the table to go on by itself before Resume
        self.link_wait = 4 * link_timeout

    @property
    def referee(self) -> Any:
        return self.host.referee

    @property
    def finished_record(self) -> dict[str, Any] | None:
        return self.host.finished_record

    @property
    def recoveries(self) -> list[str]:
        return self.host.recoveries

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        """Resume from the journal (physical restore, then resync), or start a new game."""
        if self.journal_records:
            self.opened.resume()
            self.replayed = len(self.journal_records)
            g = self.referee.game
            self.hands_before = len(g.hand_results) if g is not None else 0
        else:
            names = tuple(f"Bot {i + 1}" for i in range(self.players))
            self.opened.begin(self.game_id, names, self.options, bots=range(self.players))
        self.settle()

    def close(self) -> None:
        self.opened.close()

    def __enter__(self) -> SimTable:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ a stuck run explains itself
    def _note(self, what: str) -> None:
        """One of the person's moves (or what the people port was told to do), timed."""
        self.moves.append(f"{time.monotonic():.3f} {what}")

    def diagnosis(self) -> str:
        """The dealer's own view and the simulator's cards: the mechanism's state, the loop
        model, the card staged or held in the window, the last steps it remembers, and where
        the hopper, the slot, the belt and the window are."""
        sim = self.sim
        if sim is None:
            return ""
        try:
            with sim.lock:
                fw = sim.firmware.dealer
                b = sim.board
                steps = [f"{s.id:#06x}:{m.TYPE_NAMES.get(s.type, s.type)}/{m.STEP_STATE_NAMES.get(s.state, s.state)}"
                         f"/{C.NAMES[s.card] if s.card < 52 else s.card}" for s in fw.steps.list[-6:]]
                held = fw.mech.held
                return (f"dealer {m.STATE_NAMES.get(fw.mech.state, fw.mech.state)}; loop model "
                        f"{C.names([c for c in fw.loop if c < 52])}; staged "
                        f"{C.NAMES[fw.staged] if fw.staged is not None and fw.staged < 52 else fw.staged}; "
                        f"held {C.NAMES[held[0]] if held and held[0] < 52 else held}; steps {' '.join(steps)}; "
                        f"hopper {C.names([c for c in b.hopper if c < 52])}; slot {C.names(list(b.slot))}; "
                        f"window {C.NAMES[b.gate] if isinstance(b.gate, int) and 0 <= b.gate < 52 else b.gate}; "
                        f"belt {C.names([c for _, c, _, _ in b.belt_cards])}")
        except Exception as e:  # noqa: BLE001 - a report, never a second failure
            return f"(no diagnosis: {type(e).__name__}: {e})"

    def explain(self, error: BaseException | None = None) -> str:
        """Everything a stuck run needs to explain itself, in words: what ended it, where the
        game is, every seat's pocket in the simulator beside the referee's hand (what the
        simulated person believes it holds), the referee's places, the dealer's own view, the
        faults and Resumes, the last messages and the person's last moves."""
        out: list[str] = []
        try:
            ref, host = self.referee, self.host
            g = ref.game
            out.append(f"{self.game_id}, {self.players} players, seed {self.seed}")
            if error is not None:
                out.append(f"ended by: {type(error).__name__}: {error}")
            # (a hung table may hold its locks: looked at without them after a few seconds)
            locked = host.lock.acquire(timeout=5.0)
            try:
                out.append(f"waiting: {ref.waiting} ({ref.waiting_text()}); dealer fault: {ref.dealer_fault!r}")
                out.append(f"steps: {[repr(s) for s in ref.steps]}")
                out.append(f"cards read {host.cards_read}, presses {host.presses}, in the play slot "
                           f"{C.NAMES[self.in_slot] if self.in_slot is not None else 'nothing'}")
                hands = {s: sorted(g.hand_of(s)) for s in range(self.players)} if g is not None else {}
                places = ref.places.snapshot()
                actions = list(g.actions[-24:]) if g is not None else []
            finally:
                if locked:
                    host.lock.release()
            sim = self.sim
            locked = sim.lock.acquire(timeout=5.0)
            try:
                pockets = {t: sorted(cards) for t, cards in sim.board.trays.items()}
            finally:
                if locked:
                    sim.lock.release()
            out.append("seat: simulator's pocket | referee's hand (the person's belief) | pocket less hand / hand less pocket")
            for s in range(self.players):
                p, h = list(pockets.get(s, [])), list(hands.get(s, []))
                extra, lack = list(p), list(h)
                for c in h:
                    if c in extra:
                        extra.remove(c)
                for c in p:
                    if c in lack:
                        lack.remove(c)
                out.append(f"  seat {s}: {' '.join(C.names(p))} | {' '.join(C.names(h))} | "
                           f"+{' '.join(C.names(extra)) or '-'} / -{' '.join(C.names(lack)) or '-'}")
            others = {m.target_name(t): C.names(c) for t, c in pockets.items() if not (0 <= t < self.players)}
            out.append(f"other pockets: {others}")
            out.append(f"referee's places: {places}")
            out.append(f"dealer: {self.diagnosis()}")
            out.append(f"last actions: {actions}")
            out.append(f"Resumes: {list(self.recoveries)}")
            port = host.dealer
            adapter = getattr(port, "adapter", None)
            if adapter is not None:
                out.append(f"adapter faults: {adapter.faults[-10:]}")
            out.append(f"host errors: {host.errors[-10:]}")
            out.append("messages:")
            out += [f"  {getattr(msg, 'text', msg)}" for msg in self.messages[-25:]]
            out.append("the person's last moves:")
            out += [f"  {mv}" for mv in self.moves]
        except Exception as e:  # noqa: BLE001 - a report, never a second failure
            out.append(f"(the report stopped: {type(e).__name__}: {e})")
        return "\n".join(out) + "\n"

    def keep(self, path: str | Path, error: BaseException | None = None) -> Path:
        """Write ``explain`` to ``path`` and the journal beside it (``path`` + ".journal"):
        what a stuck run leaves for whoever looks at it next. Returns the report's path."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.explain(error), encoding="utf-8")
        if self.journal_path is not None and Path(self.journal_path).exists():
            shutil.copyfile(self.journal_path, str(path) + ".journal")
        return path

    # ------------------------------------------------------------------ the table
    def _on_commands(self, cmds: list[Command]) -> None:
        """The worker's commands: keep the messages; print each hand's points."""
        for cmd in cmds:
            if isinstance(cmd, Message):
                self.messages.append(cmd)
            elif isinstance(cmd, Refusal):
                self.refusals += 1
                if "could not read the card" in cmd.text:
                    self.unread_refusals += 1
                people = self.host.people
                if "the card fed back could not be read" in cmd.text:
                    self.unread_feed_back = True  # the person takes it from the reject pocket
                    if isinstance(people, SimPeople):
                        people.unread_feed_back = True  # (the kiosk's simulated people, the same)
            elif isinstance(cmd, SaveRecord) and self.out is not None:
                g = self.referee.game
                if g is not None and g.hand_results:
                    row = g.hand_results[-1]
                    self.out(f"hand {len(g.hand_results)}: points {row['points']} totals {row['totals']}")

    def _line_frames(self) -> int:
        """Frames the host has received from the dealer so far (0 with no serial dealer)."""
        link = getattr(self.driver, "link", None)
        return int(getattr(getattr(link, "stats", None), "rx_frames", 0))

    def _drain_while_alive(self) -> None:
        """``host.drain`` with its guard of GUARD_S counted from the dealer's last frame: a wait
        in which frames still came is waited on again, up to SETTLE_CAP_S in all; a wait without
        one (the table hung) or past the cap raises drain's TimeoutError, saying which."""
        started = time.monotonic()
        while True:
            frames = self._line_frames()
            try:
                self.host.drain(GUARD_S)
                return
            except TimeoutError as e:
                now = self._line_frames()
                if now == frames:
                    raise TimeoutError(f"{e}; {_where_threads_stand()}") from None
                if time.monotonic() - started >= SETTLE_CAP_S:
                    raise TimeoutError(f"{e}; the dealer's line was alive all along ({now} frames received) for "
                                       f"{time.monotonic() - started:.0f} s: a step that never ends") from None

    def settle(self) -> None:
        """Wait until the table has carried out everything (the worker and the dealer)."""
        self._drain_while_alive()
        if self.host.dead:
            raise PowerCut("the power went (the table's cut_after said so)")
        if self.host.storage is not None:  # the journal cannot be written: nobody acts until it can
            raise TableStuck(self.host.storage.words(RUN_AGAIN))
        if self.cannot:
            raise TableStuck(f"the person cannot do what the screen says: {self.cannot[0]}")

    def _deal_next(self) -> None:
        g = self.referee.game
        hand = (g.hand_number if g is not None else 0) + 1
        for kind, at in self.faults:
            if at == hand and (kind, at) not in self.injected:
                self.injected.add((kind, at))
                self._arm(kind)
        self.host.allow_deal()
        self.settle()

    def _arm(self, kind: str) -> None:
        """Ten cards into the deal: jam the simulator or pull its cable (``misread``: the deal's
        first card cannot be read). The cable goes back in when the person at the table does it:
        after the screen said the dealer stopped answering, on Resume (the host's recovery). A
        cable back after a fixed time raced the driver's detection, which takes longer on a
        loaded machine: the fault then went unseen."""
        driver, sim = self.driver, self.sim
        assert driver is not None and sim is not None
        if kind == "misread":  # the deal's first card cannot be read: it goes to the reject pocket
            sim.misread(1)
            return
        count = [0]

        def listener(ev: Any) -> None:
            if getattr(ev, "kind", None) != m.EV_CARD_DEALT:
                return
            count[0] += 1
            if count[0] == 10:
                driver.remove_listener(listener)
                if kind == "jam":
                    sim.jam("eject")
                else:
                    sim.go_silent(True)

        driver.add_listener(listener)

    def recover(self) -> None:
        """What the person at the table does after a dealer fault: Resume."""
        self.host.recover()
        self.settle()

    def run(self, max_hands: int | None = None, max_entries: int = 100000) -> None:
        self.max_hands = max_hands
        repeats: list[str] = []  # the same fault after each Resume: Resume cannot fix it
        for _ in range(max_entries):
            self.settle()
            ref = self.referee
            g = ref.game
            if ref.waiting == "over":
                return
            if ref.dealer_fault is not None:
                if ref.deal_stuck:  # the deck itself is wrong: a person must count it, not Resume
                    raise TableStuck(ref.dealer_fault)
                if ref.dealer_fault_kind in ("link_down", "timeout") and self.host.wait(
                        lambda: self.referee.dealer_fault is None, self.link_wait):
                    continue  # the screen says the table goes on by itself when the dealer is back
                same = re.sub(r"\d+", "#", ref.dealer_fault)  # the same fault, whatever the deal id
                repeats = [*repeats, same][-3:] if not repeats or repeats[-1] == same else [same]
                if len(repeats) == 3:
                    raise TableStuck(f"the same dealer fault three times, Resume does not fix it: {ref.dealer_fault}")
                self.recover()
                continue
            repeats = []
            if ref.waiting == "shuffle":
                if max_hands is not None and g is not None and len(g.hand_results) >= max_hands:
                    return
                self._deal_next()
                continue
            head = ref.steps[0] if ref.steps else None
            if isinstance(head, FeedBack):
                self.feed_back(head)
                continue
            if self._slot_waits():
                continue
            seats = ref.bot_turns() or self._human_turns()
            if not seats:
                raise TableStuck(f"nobody can act: {ref.waiting_text()}")
            self.bot_enter(seats[0])
        raise TableStuck("too many entries")

    def _human_turns(self) -> list[int]:
        ref = self.referee
        g = ref.game
        if g is None or not ref.accepting():
            return []
        return [s for s in g.turn_seats() if not ref.fed.get(s)] or list(g.turn_seats())

    # ------------------------------------------------------------------ the bots' hands
    def press(self, seat: int, button: str) -> bool:
        """A bot's finger on a mock panel key: down for the debounce window, then up. True if
        the table took the press; False if it refused it (the dealer stopped just then, say: the
        screen shows why, and the person presses again when the table takes entries; going on
        as if it was taken fed the cards of a pass without its "I am feeding now", and a
        two-deck card of two hands went to the reject pocket: the campaign's stuck Cancellation
        Hearts hands, "seat 0's pocket does not hold QS")."""
        panels = self.opened.panels
        host = self.host
        n = host.presses
        refused = self.refusals
        self._note(f"seat {seat} presses {button}")
        panels.hold(seat, button)
        self.clock.now += panels.settle + 0.001
        panels.tick()
        panels.release(seat, button)
        self.clock.now += panels.settle + 0.001
        panels.tick()
        if not host.wait(lambda: host.presses > n, GUARD_S):
            raise TableStuck(f"seat {seat}'s {button} press never reached the table")
        self.settle()
        if self.refusals != refused:
            self._note(f"seat {seat}'s {button} was refused: {self.messages[-1].text if self.messages else ''}")
            return False
        return True

    def feed(self, card: int, seat: int) -> None:
        """A bot takes ``card`` from its tray and feeds it; the reader loop reads it. The person
        waits for that card to be read (``read_counts``), not for any card: fed while the table
        was stopped for a silent link, then going on by itself, its read came late, and the
        person, taking that late read for the next card's, fed the next card again from a pocket
        that no longer held it (the campaign's power-cut hand 219, "seat 0's pocket does not
        hold AD"). A card not read yet (the table stopped) lies in the dealer: ``in_slot``."""
        host = self.host
        n = host.cards_read
        name = C.NAMES[card]
        mine = host.read_counts[name]
        self._note(f"seat {seat} feeds {name} (read so far {n})")
        self.opened.feed(card, seat)
        self.in_slot = card
        ref = self.referee
        back = self._taken_back(card)
        unread = self.unread_refusals
        if not host.wait(lambda: host.read_counts[name] > mine or ref.dealer_fault is not None or back()
                         or self.unread_refusals > unread, GUARD_S):
            raise TableStuck(f"{name} was fed but never read")
        if host.read_counts[name] > mine or back():
            self.in_slot = None  # (taken back unread from the reject pocket: the entry is asked for again)
        elif self.unread_refusals > unread and ref.dealer_fault is None:
            self._feed_again(card, seat)
            return
        self.settle()

    def _feed_again(self, card: int, seat: int) -> None:
        """The screen said the reader could not read the card fed, that it went to the reject
        pocket and to feed it again: the person who fed it takes it from there (once it has
        landed) and feeds it again."""
        name = C.NAMES[card]
        world = getattr(self.opened, "world", None)
        if world is None:
            raise TableStuck(f"{name} could not be read and this table has no reject pocket to take it from")
        reject = world.sim.board.trays
        if not self.host.wait(lambda: card in reject.get(m.REJECT, []), GUARD_S):
            raise TableStuck(f"{name} could not be read and never reached the reject pocket")
        self._note(f"seat {seat} takes {name} back from the reject pocket (it could not be read) to feed it again")
        world.take_back(card, "reject", f"seat:{seat}")
        self.in_slot = None
        self.settle()
        self.feed(card, seat)

    def _taken_back(self, card: int) -> Callable[[], bool]:
        """Whether the person took ``card`` back from the reject pocket since now (it went there
        unread, and the screen said so)."""
        world = getattr(self.opened, "world", None)
        if world is None or not hasattr(world, "taken_back"):
            return lambda: False
        before = world.taken_back.count(card)
        return lambda: world.taken_back.count(card) > before

    def _slot_waits(self) -> bool:
        """A card the person put in the play slot and the dealer did not read (it refused the
        read, the link failed) still lies there after Resume: the person does not play another
        one, nor the same one again from a pocket that no longer holds it; the table reads it
        (True: it was read, or a fault came, and the table is looked at again)."""
        card, sim = self.in_slot, self.sim
        if card is None or sim is None:
            return False
        host, ref = self.host, self.referee
        name = C.NAMES[card]
        mine = host.read_counts[name]
        board = sim.board

        def in_the_dealer() -> bool:  # in the play slot, or taken from it into the read window
            with sim.lock:
                return card in board.slot or board.gate == card

        if not in_the_dealer():
            self.in_slot = None
            return False
        # read (its own read counted), or a fault, or gone on from the window (read before it
        # was looked at)
        if not host.wait(lambda: host.read_counts[name] > mine or ref.dealer_fault is not None
                         or not in_the_dealer(), GUARD_S):
            raise TableStuck(f"{name} lies in the play slot and is never read")
        if host.read_counts[name] > mine:
            self.in_slot = None
        self.settle()
        return True

    def feed_back(self, step: FeedBack) -> None:
        """The drawing bot feeds the card the dealer waits for back (from its pocket), once: a
        step carried on after a link fault (the dealer read the card while the link was down)
        waits for the dealer, the person has already fed it; only a card back in their pocket
        (a reconciliation's TakeBack, a card refused) is fed again."""
        host, ref = self.host, self.referee
        card = C.parse(step.card)
        sim = self.sim
        assert sim is not None
        with sim.lock:
            in_pocket = card in sim.board.trays.get(step.seat, [])
            rejected = card in sim.board.trays.get(m.REJECT, [])
        if self.unread_feed_back and rejected and not in_pocket:
            # the screen said it could not be read and went to the reject pocket: from there
            self._note(f"seat {step.seat} takes {step.card} back from the reject pocket (it could not be read)")
            world = self.opened.world
            assert isinstance(world, SimWorld)
            world.take_back(card, "reject", f"seat:{step.seat}")
            in_pocket = True
        self.unread_feed_back = False
        if step.step not in self.fed_back or in_pocket:
            self.fed_back.add(step.step)
            self._note(f"seat {step.seat} feeds {step.card} back (step {step.step})")
            self.opened.feed(card, step.seat)
        if not host.wait(lambda: not ref.steps or ref.steps[0].step != step.step or ref.dealer_fault is not None,
                         GUARD_S):
            raise TableStuck(f"{step.card} was fed back but never read")
        self.settle()

    def bot_enter(self, seat: int) -> None:
        g = self.referee.game
        assert g is not None
        action = self.bot.choose(g.copy(), seat, self.host.bot_rng(seat))
        k, v = action
        what = C.NAMES[v] if k == "play" else " ".join(C.names(list(v))) if k == "pass" else repr(v)
        self._note(f"seat {seat} chooses {k} {what}, believing it holds {' '.join(C.names(sorted(g.hand_of(seat))))}")
        press = self.press
        # a press the table refused ends the entry here: the run looks at the table again (a
        # fault is seen to first) and asks the bot again, which chooses the same (its generator
        # is seeded by the position) and goes on from what the table took
        if k in ("bid", "blind_nil", "moon"):
            choices = panel.choice_list(g.legal_actions(seat))
            target = choices.index(action)
            start = self.referee.pending.get(seat)  # a choice already on screen (before a restart)
            if start is None:
                if not press(seat, "plus"):  # the first press shows the starting choice
                    return
                start = panel.start_index(choices)
            for _ in range(abs(target - start)):
                if not press(seat, "plus" if target > start else "minus"):
                    return
            press(seat, "ok")
        elif k == "draw":
            press(seat, "plus" if v == "keep" else "minus")
        elif k == "double_nil":
            press(seat, "ok")
        elif k == "play":
            self.feed(v, seat)
        elif k in ("pass", "exchange"):
            # A feed cut short (a dealer fault, a restart) left some cards fed: feed only the rest.
            fed = list(self.referee.fed.get(seat, []))
            cards = list(v if k == "pass" else v[0])
            for c in fed:
                if c in cards:
                    cards.remove(c)
            need = (len(v) if k == "pass" else 3) - len(fed)
            # "I am feeding now": two decks may put a card in two hands; a refused OK is pressed
            # again before any card is fed
            if k == "pass" and cards and self.referee.claim != seat and not press(seat, "ok"):
                return
            for c in [c for c in cards if c in g.hand_of(seat)][:need]:
                self.feed(c, seat)
                if self.in_slot is not None or self.referee.dealer_fault is not None:
                    return  # not read yet (the table stopped meanwhile): the next card waits for it
            if k == "exchange" and len(fed) + len(cards) < 3:
                press(seat, "ok")
        else:
            raise TableStuck(f"the bot chose {action!r}, which the simulated table cannot enter")


class PowerCut(Exception):
    """Tests: the host's ``cut_after`` stopped the table dead after an event."""
