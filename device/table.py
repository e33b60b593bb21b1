"""The table host: the referee joined to the dealer, the panels, the journal and the games folder.

The referee (engine/referee) is a pure state machine; this loop feeds it events and carries out
its commands. The one rule that keeps games safe across power cuts: every event is appended to
the journal and fsync'd BEFORE the referee handles it. On start the journal is replayed into a
fresh Referee (the commands produced during the replay are NOT carried out again: they already
were), then ``resync`` puts the table back where the referee is: the pending dealer step is
issued again, the LEDs set, a pending question shown.

Dealer steps run here one at a time, synchronously (the Dealer driver blocks until a step is
done); each outcome goes back into the referee as an event (DealDone, DealerDone, DealerFault),
and so into the journal. Bots run outside the referee: ``bot_entries`` asks engine.bots for a
seat's choice with a generator seeded from the seed and the game's position (hand number and
actions taken), so a game resumed from its journal, or one that met a dealer fault, makes the
same choices an uninterrupted one would.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from engine.referee.commands import (
    AskConfirm,
    Command,
    DealerCommand,
    Led,
    Message,
    NeedShuffle,
    SaveRecord,
    ShowCommitment,
)
from engine.referee.events import Event, Shuffled, event_from_json, make_shuffle
from engine.referee.referee import Referee


class DealerPort(Protocol):
    """What the table needs from a dealer: run one referee step, return its outcome event."""

    def run(self, cmd: DealerCommand) -> Event: ...


class JournalPort(Protocol):
    def append(self, obj: Any) -> None: ...


class StorePort(Protocol):
    def save(self, record: Any) -> Any: ...


class LedPort(Protocol):
    def set_led(self, seat: int, mode: str) -> None: ...


def shuffle_for(seed: int | None, hand_index: int, decks: int) -> Shuffled:
    """The hand's shuffle: from ``secrets`` without a seed, else reproducible per hand."""
    if seed is None:
        return make_shuffle(decks)
    return make_shuffle(decks, random.Random(f"trickref-sim/{seed}/shuffle/{hand_index}"))


class Table:
    """One table: ``submit`` events (panel presses, touches, reader reads), ``pump`` to carry
    out what follows, ``run`` to play to the end with bots."""

    def __init__(
        self,
        dealer: DealerPort,
        *,
        journal: JournalPort | None = None,
        store: StorePort | None = None,
        leds: LedPort | None = None,
        seed: int | None = None,
        on_command: Callable[[Command], None] | None = None,
    ) -> None:
        self.referee = Referee()
        self.dealer = dealer
        self.journal = journal
        self.store = store
        self.leds = leds
        self.seed = seed
        self.on_command = on_command
        self.todo: deque[Command] = deque()
        self.inbox: deque[Event] = deque()  # events from other sources (panels), in order
        self.messages: list[Message] = []
        self.saved: list[Any] = []
        self.finished_record: dict[str, Any] | None = None
        self.replayed = 0

    # ------------------------------------------------------------------ journal
    def resume(self, records: list[Any]) -> None:
        """Rebuild the referee from journal records; nothing is carried out again."""
        for obj in records:
            self.referee.handle(event_from_json(obj))
        self.replayed = len(records)

    def resync(self) -> None:
        """After ``resume`` (and any physical restore): issue what the table must redo."""
        self._queue(self.referee.resync())

    # ------------------------------------------------------------------ events in, commands out
    def submit(self, event: Event) -> list[Command]:
        """Journal the event (durable on return), then let the referee handle it."""
        if self.journal is not None:
            self.journal.append(event.to_json())
        out = self.referee.handle(event)
        self._queue(out)
        return out

    def _queue(self, cmds: list[Command]) -> None:
        for c in cmds:
            if self.on_command is not None:
                self.on_command(c)
            if isinstance(c, Led):
                if self.leds is not None:
                    self.leds.set_led(c.seat, c.mode)
            elif isinstance(c, Message):
                self.messages.append(c)
            elif isinstance(c, SaveRecord):
                self.saved.append(c.record)
                if c.finished:
                    self.finished_record = c.record
                    if self.store is not None:
                        self.store.save(c.record)
            elif isinstance(c, (DealerCommand, NeedShuffle)):
                self.todo.append(c)
            elif isinstance(c, (ShowCommitment, AskConfirm)):
                pass  # the kiosk shows these; the command-line table prints messages only

    def pump(self) -> bool:
        """Carry out one pending thing (a dealer step, a shuffle, an inbox event). False if idle."""
        if self.inbox:
            self.submit(self.inbox.popleft())
            return True
        if not self.todo:
            return False
        cmd = self.todo.popleft()
        if isinstance(cmd, NeedShuffle):
            if self.referee.waiting == "shuffle":
                self.before_shuffle()
                self.submit(shuffle_for(self.seed, len(self.referee.fair), cmd.decks))
            return True
        assert isinstance(cmd, DealerCommand)
        if self.referee.steps and self.referee.steps[0]["step"] == cmd.step:
            self.submit(self.dealer.run(cmd))
        return True

    def before_shuffle(self) -> None:
        """Hook: the cards are gathered for the next deal (the simulator moves them)."""

    def bot_rng(self, seat: int) -> random.Random:
        """Seeded by the game's position (hand, actions taken), not by the event count, so
        refused entries, dealer faults and restarts never change what a bot chooses."""
        g = self.referee.game
        where = (0, 0) if g is None else (g.hand_number, len(g.actions))
        return random.Random(f"trickref-sim/{self.seed}/bot/{where[0]}/{where[1]}/{seat}")
