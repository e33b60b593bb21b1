"""Small value types the dealer driver hands to its callers: who the dealer is, its status,
its events, and a received reply.

They are frozen dataclasses built from the decoded fields of ``device.dealer.messages``, so the
referee and the kiosk never touch raw bytes or field dicts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from trickref.device.dealer import messages as m


@dataclass(frozen=True)
class Identity:
    """The dealer's IDENTIFY answer to HELLO: firmware, capabilities and the boot id that
    tells a reboot apart from a reconnect."""

    protocol_version: int
    firmware: tuple[int, int, int]
    boot_id: int
    config_crc: int
    seat_count: int
    reader_kind: int
    loop_capacity: int
    max_plan: int
    deadman_ms: int
    next_event_index: int
    flags: int
    trays: tuple[int, ...]
    flags2: int = 0  # the second flags byte (absent from a dealer before it: 0)

    @classmethod
    def from_fields(cls, f: dict[str, Any]) -> Identity:
        fw = f["firmware_version"]
        return cls(
            protocol_version=f["protocol_version"], firmware=(fw[0], fw[1], fw[2]),
            boot_id=f["boot_id"], config_crc=f["config_crc"], seat_count=f["seat_count"],
            reader_kind=f["reader_kind"], loop_capacity=f["loop_capacity"],
            max_plan=f["max_plan"], deadman_ms=f["deadman_ms"],
            next_event_index=f["next_event_index"], flags=f["flags"],
            trays=tuple(f["trays"]), flags2=int(f.get("flags2", 0)),
        )

    @property
    def firmware_version(self) -> str:
        return ".".join(str(p) for p in self.firmware)

    @property
    def has_estop(self) -> bool:
        return bool(self.flags & 0x01)

    @property
    def has_jam_sensor(self) -> bool:
        return bool(self.flags & 0x02)

    @property
    def has_loop(self) -> bool:
        """The return loop (target 0x85, FETCH from it by identity)."""
        return bool(self.flags & 0x10)

    @property
    def senses_double_feed(self) -> bool:
        return bool(self.flags & 0x20)

    @property
    def reports_awaits_person(self) -> bool:
        """STATUS flags bit6 is reported: a FEED that waits for a person says so (flags2 bit0). A
        dealer before it never sets bit6, so a FEED of its may always be waiting for a person."""
        return bool(self.flags2 & m.IDENT2_AWAITS_PERSON)

    @property
    def magazine_slots(self) -> int:
        """v1 name of ``loop_capacity``."""
        return self.loop_capacity


@dataclass(frozen=True)
class Status:
    """The dealer's STATUS: its state machine, the current deal's progress and flags."""

    state: int
    deal_id: int
    plan_total: int
    done: int
    next_event_index: int
    flags: int
    loop_count: int
    boot_id: int

    @classmethod
    def from_fields(cls, f: dict[str, Any]) -> Status:
        return cls(**{k: f[k] for k in (
            "state", "deal_id", "plan_total", "done", "next_event_index", "flags",
            "loop_count", "boot_id")})

    @property
    def state_name(self) -> str:
        return m.STATE_NAMES.get(self.state, f"state {self.state}")

    @property
    def estop_latched(self) -> bool:
        return bool(self.flags & 0x01)

    @property
    def hopper_has_cards(self) -> bool:
        return bool(self.flags & 0x02)

    @property
    def card_presented(self) -> bool:
        return bool(self.flags & 0x04)

    @property
    def loop_model_valid(self) -> bool:
        """The dealer's model of the cards in its loop matches what it read (v1: bit 3 was
        "the face-up window holds a card")."""
        return bool(self.flags & 0x08)

    @property
    def stock_left(self) -> int:
        """v1 name of ``loop_count``: the cards the dealer believes are queued in its hopper."""
        return self.loop_count

    @property
    def deadman_paused(self) -> bool:
        return bool(self.flags & 0x10)

    @property
    def estop_pressed(self) -> bool:
        return bool(self.flags & 0x20)

    @property
    def awaits_person(self) -> bool:
        """A FEED waits for a player to feed a card (the play slot, or an empty hopper) and
        nothing of the dealer's own moves: however long a player thinks, not a stall."""
        return bool(self.flags & 0x40)

    @property
    def stopped(self) -> bool:
        """True when no motor may be running: idle, jammed, e-stopped, paused or faulted."""
        return self.state in (0, 6, 7, 8, 10)


@dataclass(frozen=True)
class StepInfo:
    """What the dealer remembers of one step (STEP_QUERY, protocol 3): its state (running, done,
    stopped, aborted, interrupted by a reboot, held at the reader, or unknown), the card it read
    or routed last and where that card went, how many cards it moved, and the index of the
    first event it logged (its events can be re-read from there)."""

    step: int
    command_type: int
    state: int
    card: int
    target: int
    count: int
    first_index: int

    @classmethod
    def from_fields(cls, f: dict[str, Any]) -> StepInfo:
        return cls(**{k: f[k] for k in ("step", "command_type", "state", "card", "target", "count",
                                        "first_index")})

    @property
    def state_name(self) -> str:
        return m.STEP_STATE_NAMES.get(self.state, f"state {self.state}")

    @property
    def finished(self) -> bool:
        """It will not move another card: done, aborted or interrupted."""
        return self.state in (m.STEP_DONE, m.STEP_ABORTED, m.STEP_INTERRUPTED)


@dataclass(frozen=True)
class Inventory:
    """Where the dealer believes the cards are (INVENTORY, protocol 3): the card in its read
    window (``window``: None when empty, 0xFF when unread), whether it holds it for the host,
    the loop model (first card to come back first) and whether it is trusted, and since the last
    fresh deal: the cards each pocket received (by target byte) and the cards it sent to the
    reject pocket, in order (0xFF: unreadable)."""

    window: int | None
    held: bool
    loop_valid: bool
    loop: tuple[int, ...]
    pockets: dict[int, int]
    rejects: tuple[int, ...]


# Kinds the driver makes up itself (never on the wire): they tell listeners about the link.
EV_EVENTS_LOST = 0x100
EV_REBOOTED = 0x101
EV_LINK_DOWN = 0x102
EV_LINK_UP = 0x103


@dataclass(frozen=True)
class Event:
    """One dealer event, in index order. ``fields`` holds the payload by PROTOCOL.md's names
    (``card``, ``target``...). Link notices (events lost, dealer rebooted, link down/up) use
    kinds >= 0x100 and index -1, so one callback sees everything the kiosk must show."""

    index: int
    kind: int
    name: str
    fields: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, key: str) -> Any:
        return self.fields[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.fields.get(key, default)

    @property
    def is_notice(self) -> bool:
        return self.kind >= 0x100

    @classmethod
    def from_fields(cls, f: dict[str, Any]) -> Event:
        payload = {k: v for k, v in f.items() if k not in ("index", "kind", "name")}
        return cls(index=f["index"], kind=f["kind"], name=f["name"], fields=payload)

    def describe(self) -> str:
        """A short human sentence for logs and the kiosk."""
        f = self.fields
        if "card" in f and "target" in f:
            return (f"{self.name}: {m.card_name(f['card'])} to "
                    f"{m.target_name(f['target'])}")
        if self.fields:
            inner = ", ".join(f"{k}={v}" for k, v in f.items())
            return f"{self.name} ({inner})"
        return self.name


@dataclass(frozen=True)
class Reply:
    """A reply frame matched to the command it answers."""

    type: int
    seq: int
    ack: int
    fields: dict[str, Any]

    @property
    def name(self) -> str:
        return m.TYPE_NAMES.get(self.type, f"type {self.type:#04x}")
