"""Where a person finds and puts cards on the physical twin: the surface of ``SimBoard``
(device/dealer/sim.py) that the simulated people, the simulated table's reports and the
simulator's own helpers use, over the twin's mechanism (device/dealer/twin.py).

``SimBoard`` keeps its pockets by target byte (a seat, 0x80 reject, 0x81 discard, 0x82 centre,
0x84 trick); the twin keeps them by pocket index, as the machine has them (seats 0..10, then
firmware/config.py's ``POCKET`` for the others). ``TwinCards`` shows the twin's pockets by target
byte (the same lists: a card a person takes out of ``trays[seat]`` is gone from the twin's
pocket), its play slot, its hopper (bottom card first), the card in its read window, and the cards
on the path (the belt, the drop into a pocket, the switchback, the return loop, and a card
stuck anywhere along it). It also carries the twin's USB link bytes (``rx``/``tx``), which the
simulator's pump reads and writes.

Nothing here moves a card the way the machine would: only what a person's hands do while the
dealer waits (gather, take back, put in the play slot, lift a card off the path).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, MutableMapping
from typing import Any

from .sim import take_from_pockets

# the card modes of device/dealer/twin.py's Card: "f" is driven by the feed rollers (from the
# pickup to the read window); every other mode is on the path past the window
_FEED = "f"


class TwinPockets(MutableMapping[int, list[int]]):
    """The twin's pockets keyed by target byte; the values are the twin's own lists."""

    def __init__(self, twin: Any) -> None:
        self.twin = twin

    def index(self, target: int) -> int:
        """The pocket index of ``target`` (a seat's pocket is its own number)."""
        cfg = self.twin.board.cfg
        if 0 <= target < cfg.SEAT_COUNT:
            return target
        k = cfg.POCKET.get(target)
        if k is None:
            raise KeyError(f"target 0x{target:02x} is no pocket of the dealer (the loop's cards are in the hopper)")
        return int(k)

    def target(self, index: int) -> int:
        """The target byte of pocket ``index`` (a pocket the firmware names no target keeps its index)."""
        cfg = self.twin.board.cfg
        if 0 <= index < cfg.SEAT_COUNT:
            return index
        for t, k in cfg.POCKET.items():
            if k == index:
                return int(t)
        return index

    def __getitem__(self, target: int) -> list[int]:
        pockets = self.twin.mech.pockets
        k = self.index(target)
        if k not in pockets:
            raise KeyError(target)
        cards: list[int] = pockets[k]
        return cards

    def __setitem__(self, target: int, cards: list[int]) -> None:
        self.twin.mech.pockets[self.index(target)] = cards if isinstance(cards, list) else list(cards)

    def __delitem__(self, target: int) -> None:
        del self.twin.mech.pockets[self.index(target)]

    def __iter__(self) -> Iterator[int]:
        return iter([self.target(k) for k in sorted(self.twin.mech.pockets)])

    def __len__(self) -> int:
        return len(self.twin.mech.pockets)


class TwinCards:
    """The twin seen as a person sees it (and as ``SimBoard`` shows it to the simulator)."""

    HAS_LOOP = True

    def __init__(self, twin: Any) -> None:
        self.twin = twin
        self.trays = TwinPockets(twin)
        # cards a person lifted off the path clearing a jam, held until the cards are gathered
        self.aside: list[int] = []

    @property
    def mech(self) -> Any:
        return self.twin.mech

    # ---- the USB link (the simulator's pump) ------------------------------------------------------
    @property
    def rx(self) -> bytearray:
        rx: bytearray = self.twin.link.rx  # looked up each time: a power cycle gives a new buffer
        return rx

    @property
    def tx(self) -> bytearray:
        tx: bytearray = self.twin.link.tx
        return tx

    # ---- the hopper, the play slot, the read window ----------------------------------------------
    @property
    def slot(self) -> list[int]:
        slot: list[int] = self.mech.slot
        return slot

    @property
    def hopper(self) -> list[int]:
        """The stack, bottom card (fed next) first: the twin's own list."""
        hopper: list[int] = self.mech.hopper
        return hopper

    @hopper.setter
    def hopper(self, cards: Iterable[int]) -> None:
        self.mech.hopper = [int(c) for c in cards]

    def _in_feed(self) -> list[Any]:
        """The cards between the pickup and the read window (driven by the feed rollers),
        the one nearest the window first."""
        return sorted((c for c in self.mech.cards if c.mode == _FEED), key=lambda c: -c.x)

    @property
    def gate(self) -> int | None:
        """The card in the read window (or on its way there from the pickup)."""
        feed = self._in_feed()
        return int(feed[0].card) if feed else None

    @gate.setter
    def gate(self, card: int | None) -> None:
        """``None``: a person takes the card (and a double feed's second) out of the window
        (a card picked behind it stays in the feed). A card: a person puts it in the window (a
        restored table); one already there goes under the stack, so it is still the next card
        the hopper gives (as ``SimBoard`` does)."""
        feed = self._in_feed()
        if card is None:
            if feed:
                self.mech.cards.remove(feed[0])
            return
        if feed and feed[0].card == card:
            return
        for c in feed:
            self.mech.cards.remove(c)
            back = [c.card] + ([c.partner] if c.partner is not None else [])
            self.mech.hopper[:0] = back
        self.mech.place_in_window(int(card))

    @property
    def gate_double(self) -> int | None:
        """The second card of a double feed, travelling under the one in the window."""
        feed = self._in_feed()
        return int(feed[0].partner) if feed and feed[0].partner is not None else None

    @gate_double.setter
    def gate_double(self, card: int | None) -> None:
        if card is not None:
            raise ValueError("a person does not put a second card under the one in the read window")
        for c in self._in_feed():
            c.partner = None

    # ---- the path past the window -------------------------------------------------------------------
    def _on_path(self) -> list[Any]:
        return sorted((c for c in self.mech.cards if c.mode != _FEED), key=lambda c: -c.x)

    @property
    def belt_cards(self) -> list[tuple[int, int, int, int]]:
        """The cards on the path as ``SimBoard`` lists them ((due, card, target, station));
        on the twin only the card is known: the rest is 0, -1, 0 (for reports)."""
        out: list[tuple[int, int, int, int]] = []
        for c in self._on_path():
            out.append((0, int(c.card), -1, 0))
            if c.partner is not None:
                out.append((0, int(c.partner), -1, 0))
        return out

    def _lift(self, c: Any) -> list[int]:
        """A person lifts Card ``c`` (and a double feed's second) off the path."""
        self.mech.cards.remove(c)
        self.mech.stuck[:] = [s for s in self.mech.stuck if s[0] != c.card]
        return [int(c.card)] + ([int(c.partner)] if c.partner is not None else [])

    def take_path(self) -> list[int]:
        """Every card off the path (the belt, a drop, the switchback, the loop, a stuck card),
        first along the path first. Returns them."""
        taken: list[int] = []
        for c in self._on_path():
            taken += self._lift(c)
        return taken

    def clear_caught(self) -> list[int]:
        """A person clears a jam: every card caught on the path (in a flap's way, at the
        switchback's nip, on the belt) is lifted out and held aside (the dealer gave it up: the
        deal counts it missing, and it goes back with the cards gathered for a redeal).
        Returns them."""
        lifted: list[int] = []
        for c in self._on_path():
            if c.mode == "stuck":
                lifted += self._lift(c)
        self.aside += lifted
        return lifted

    def take_off_belt(self, card: int) -> bool:
        """A person lifts ``card`` off the path, or has it in hand already (lifted out clearing a
        jam, held aside); False if it is in neither place."""
        for c in self._on_path():
            if c.card == card:
                self._lift(c)
                return True
            if c.partner == card:
                c.partner = None
                return True
        if card in self.aside:
            self.aside.remove(card)
            return True
        return False

    def take_from_pockets(self, card: int, targets: Iterable[int]) -> bool:
        return take_from_pockets(self.trays, card, targets)

    def gather(self) -> list[int]:
        """Every card out of the pockets, the play slot, the window and the path (and those a
        person held aside clearing a jam), as the players gather them for the next deal (the
        hopper's own cards stay where they are)."""
        cards: list[int] = []
        pockets = self.mech.pockets
        for k in sorted(pockets):
            cards.extend(pockets[k])
        pockets.clear()
        cards.extend(self.take_path())
        cards.extend(self.aside)
        self.aside.clear()
        cards.extend(self.slot)
        self.slot.clear()
        for c in self._in_feed():
            cards.append(int(c.card))
            if c.partner is not None:
                cards.append(int(c.partner))
            self.mech.cards.remove(c)
        return cards

    def seat(self, seat: int) -> list[int]:
        return list(self.trays.get(seat, []))

    def tray(self, target: int) -> list[int]:
        """The cards a pocket holds, in the order they went in."""
        return list(self.trays.get(target, []))


__all__ = ["TwinCards", "TwinPockets"]
