"""Deal plans, and the host's own check of a deal against its plan.

A plan lists the deck order with each card's destination. The dealer routes by identity (the
n-th copy of a card read takes the n-th plan entry of that card); it reports every card by an
event. The referee must never play a hand the dealer got wrong, so ``check_deal`` replays the
events against the plan on the host, independently of the dealer's own DEAL_DONE summary,
and lists every difference: a card routed elsewhere, one read twice, one missing, an
unreadable card, or a DEAL_DONE that disagrees with what the events showed.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from trickref.device.dealer import messages as m
from trickref.device.dealer.types import EV_EVENTS_LOST, Event

PlanEntry = tuple[int, int]


def _card(value: int | str) -> int:
    if isinstance(value, str):
        from trickref.engine import cards  # engine is the project's card table; the host may use it

        return cards.parse(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"not a card: {value!r}")
    return m.check_card(value)


@dataclass(frozen=True)
class DealPlan:
    """(card, target) pairs in deck order. Cards are 0..51 (or names like 'QS'); targets are
    seats 0..10 or pocket bytes (``messages.REJECT``, ``CENTRE``, ``MAGAZINE``...)."""

    entries: tuple[PlanEntry, ...]

    def __init__(self, entries: Iterable[tuple[int | str, int]]) -> None:
        checked = []
        for i, (card, target) in enumerate(entries):
            try:
                checked.append((_card(card), m.check_target(int(target))))
            except ValueError as exc:
                raise ValueError(f"plan entry {i}: {exc}") from None
        if not 1 <= len(checked) <= 255:
            raise ValueError(f"a deal plan holds 1..255 cards, this one has {len(checked)}")
        object.__setattr__(self, "entries", tuple(checked))

    @classmethod
    def from_order(cls, deck_order: Sequence[int | str],
                   targets: Sequence[int]) -> DealPlan:
        """Pair a deck order with the destination of each position."""
        if len(deck_order) != len(targets):
            raise ValueError(f"{len(deck_order)} cards but {len(targets)} destinations")
        return cls(zip(deck_order, targets, strict=True))

    def __len__(self) -> int:
        return len(self.entries)

    def hands(self) -> dict[int, list[int]]:
        """Target -> cards planned for it, in deck order (the stock in stock order)."""
        out: dict[int, list[int]] = {}
        for card, target in self.entries:
            out.setdefault(target, []).append(card)
        return out

    @property
    def stock(self) -> list[int]:
        """The cards parked in the stock magazine, top (position 0) first."""
        return [c for c, t in self.entries if t == m.MAGAZINE]


@dataclass(frozen=True)
class DealReport:
    """A deal that matched its plan: every card read once and routed where planned."""

    deal_id: int
    plan: DealPlan
    placements: tuple[PlanEntry, ...]
    events: tuple[Event, ...] = field(repr=False, default=())

    @property
    def ok(self) -> bool:
        return True

    def hands(self) -> dict[int, list[int]]:
        """Target -> cards in the order they arrived there."""
        out: dict[int, list[int]] = {}
        for card, target in self.placements:
            out.setdefault(target, []).append(card)
        return out

    @property
    def stock(self) -> list[int]:
        return self.plan.stock


@dataclass
class DealCheck:
    """The result of replaying a deal's events against its plan."""

    deal_id: int
    plan: DealPlan
    placements: list[PlanEntry] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    done: Event | None = None
    # the missing cards a jam of this deal stopped on the belt, which the dealer gave up (its
    # DEAL_DONE lists them missing), in plan order
    jammed: list[int] = field(default_factory=list)
    # the cards read that the plan does not hold at all (each sent to the reject pocket), when
    # they are the deal's only difference from its plan: every entry filled right, the dealer's
    # counts agreeing; else None
    strays: list[int] | None = None
    # the cards of the plan no card filled, when they are the deal's only difference from its
    # plan (every other entry filled right, nothing else read, the dealer's counts agreeing):
    # else None. A relearning of the loop after the dealer rebooted by itself, with a card it had
    # just delivered unreported, is such a deal.
    missing: list[int] | None = None
    # the plan entries of the cards the reader could not read (each sent to the reject pocket),
    # when they are the deal's only difference from its plan: as many misreads as entries left
    # unfilled, every other entry filled right, nothing else read, no jam, the dealer's counts
    # agreeing. Dealing just these entries again, with those cards put back on the hopper,
    # finishes the deal (every other card is where the plan says); else None
    unread: list[PlanEntry] | None = None

    @property
    def good(self) -> bool:
        return self.done is not None and not self.problems


def check_deal(plan: DealPlan, deal_id: int, events: Iterable[Event]) -> DealCheck:
    """Replay ``events`` (those of this deal, in index order) against ``plan``.

    The result is good only if every plan entry was filled by exactly one card of that
    identity routed to that entry's target, nothing else was read, and the dealer's DEAL_DONE
    agrees. Events after DEAL_DONE are ignored."""
    result = DealCheck(deal_id, plan)
    want: dict[int, deque[int]] = {}
    for card, target in plan.entries:
        want.setdefault(card, deque()).append(target)
    problems = result.problems
    dups_seen: list[int] = []
    misreads = 0
    jams: Counter[int] = Counter()  # the cards the deal's JAM events named
    ran_out: list[int] = []  # each HOPPER_EMPTY's count of plan entries still to deal
    for ev in events:
        f = ev.fields
        if ev.kind == m.EV_CARD_DEALT:
            card, target = f["card"], f["target"]
            result.placements.append((card, target))
            queue = want.get(card)
            if not queue:
                problems.append(f"{m.card_name(card)} went to {m.target_name(target)} but the "
                                "plan holds no (more) copies of it")
                continue
            if target in queue:
                # (two decks: the copies are alike, and a copy that was lost on the way, a card
                # caught on the path, leaves its entry to fill while the other copy fills its own)
                queue.remove(target)
                continue
            planned = queue.popleft()
            if target != planned:
                problems.append(f"{m.card_name(card)} went to {m.target_name(target)}, the plan "
                                f"says {m.target_name(planned)}")
        elif ev.kind == m.EV_DUPLICATE:
            dups_seen.append(f["card"])
            problems.append(f"{m.card_name(f['card'])} was read more often than the plan holds "
                            f"it (sent to the {m.target_name(f['target'])})")
        elif ev.kind == m.EV_MISREAD:
            misreads += 1
            problems.append(f"a card could not be read after {f['attempts']} tries (sent to the "
                            f"{m.target_name(f['target'])})")
        elif ev.kind == m.EV_JAM and f["card"] != m.UNKNOWN_CARD:
            # (a jam that names no card stopped a feed move that brought none to the window: the
            # hopper ran empty as cards going round the loop came home; Resume feeds again)
            jams[f["card"]] += 1
        elif ev.kind == m.EV_HOPPER_EMPTY:
            ran_out.append(f["remaining"])
            problems.append(f"the hopper ran out with {f['remaining']} cards of the plan "
                            "still to deal")
        elif ev.kind == EV_EVENTS_LOST:
            problems.append(f"{f['lost']} dealer events were lost; the deal cannot be checked")
        elif ev.kind == m.EV_DEAL_DONE and f["deal_id"] == deal_id:
            result.done = ev
            break
    # The entries no card filled, in the plan's order: the targets left in each card's queue
    # (the dealer fills the first unused entry of a card; a copy given up at a jam keeps its own)
    unfilled: list[PlanEntry] = []
    left = {card: Counter(q) for card, q in want.items()}
    for card, target in plan.entries:
        if left[card][target] > 0:
            unfilled.append((card, target))
            left[card][target] -= 1
    missing = [card for card, _ in unfilled]
    if missing:
        problems.append("missing from the deal: " + " ".join(m.card_name(c) for c in missing))
    # the hopper running out with as many cards still to deal as are missing says the same once
    # more (a relearning whose card a reboot left delivered unreported: every other card found)
    said_again = sum(1 for ev in ran_out if ev == len(missing))
    only_missing = bool(missing) and len(problems) - said_again == 1 and not jams
    done = result.done
    if done is None:
        problems.append("the dealer never reported the end of the deal")
        return result
    d = done.fields
    filled = len(plan) - len(missing)
    if d["dealt"] != filled:
        problems.append(f"the dealer says it dealt {d['dealt']} cards, its events show {filled}")
    if d["rejected"] != len(dups_seen) + misreads:
        problems.append(f"the dealer says it rejected {d['rejected']} cards, its events show "
                        f"{len(dups_seen) + misreads}")
    if Counter(d["missing"]) != Counter(missing) and len(d["missing"]) < 200:
        problems.append("the dealer's list of missing cards ("
                        + (" ".join(m.card_name(c) for c in d["missing"]) or "none")
                        + ") differs from the events")
    if Counter(d["duplicates"]) != Counter(dups_seen) and len(d["duplicates"]) < 200:
        problems.append("the dealer's list of duplicate cards differs from the events")
    # A card a jam stopped on the belt never reached its pocket: the dealer gives it up and lists
    # its entry as missing (an older firmware counted it nowhere: the check above says its list
    # differs). Say which of the missing cards they are.
    given_up = Counter(missing) & Counter(d["missing"]) & jams
    for card, target in unfilled:
        if given_up[card] > 0:
            given_up[card] -= 1
            result.jammed.append(card)
            problems.append(f"{m.card_name(card)} stopped on its way to {m.target_name(target)} "
                            "at a jam and the dealer gave it up")
    if dups_seen and len(problems) == len(dups_seen) and not any(c in want for c in dups_seen):
        result.strays = list(dups_seen)  # only cards the plan does not hold: every entry right
    if only_missing and len(problems) - said_again == 1:
        result.missing = list(missing)  # only cards not found: every card read went where planned
    # (the hopper running out with those cards still to deal is the same story: said_again)
    if (misreads and len(unfilled) == misreads and not jams and not dups_seen
            and all(r == len(missing) for r in ran_out)
            and len(problems) - said_again == misreads + 1):  # each misread's line and the missing line
        result.unread = list(unfilled)
    return result
