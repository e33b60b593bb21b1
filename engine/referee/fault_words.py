"""The dealer's faults and failed deal checks in words fit for the shared screen: never a card's
name (a jammed or missing card can be from someone's hand), counts instead; what the people at
the table do next."""

from __future__ import annotations

import re

# A card name in a driver's words ("4H", "10S", "QD"): never shown on the shared screen.
_CARD_WORD = re.compile(r"\b(?:10|[2-9TJQKA])[SHDC]\b")


def _public_fault_words(message: str) -> str:
    """The dealer driver's words about a fault, fit for the shared screen: its first clause
    only (the referee says what to do itself), no internal deal id, and never a card's name
    (the jammed card can be from someone's hand)."""
    text = (message or "").strip()
    text = re.sub(r"^(?:deal|step|feed|action)\s+\d+\s*:\s*", "", text)
    text = re.sub(r"\s*\((?:card|cards)\b[^)]*\)", "", text)
    text = text.split(";")[0].strip().rstrip(".")
    return _CARD_WORD.sub("a card", text)


def deal_problem_counts(problems: tuple[str, ...] | list[str]) -> dict[str, int]:
    """How many cards a failed deal check found missing, extra (read more often than the plan
    holds them), in the wrong place and unreadable: counted from the driver's problem lines
    (``device.dealer.plan.check_deal``), so the shared screen can say it without a card's name."""
    counts = {"missing": 0, "extra": 0, "misplaced": 0, "unreadable": 0}
    ran_out = 0
    for p in problems:
        if p.startswith("missing from the deal:"):
            counts["missing"] += len(p.split(":", 1)[1].split())
        elif "read more often than the plan holds" in p or "plan holds no (more) copies" in p:
            counts["extra"] += 1
        elif "the plan says" in p:
            counts["misplaced"] += 1
        elif "could not be read" in p:
            counts["unreadable"] += 1
        else:
            m = re.search(r"ran out with (\d+) cards", p)
            if m:
                ran_out = max(ran_out, int(m.group(1)))
    counts["missing"] = max(counts["missing"], ran_out)
    return counts


def _plural(n: int, what: str) -> str:
    return f"{n} card{'' if n == 1 else 's'} {what}"


def _stuck_deal_words(problems: tuple[str, ...] | list[str]) -> str:
    """The shared screen's words for a deal that failed its check twice the same way: counts
    only (never a card's name: the deal is hidden), and what the people at the table do."""
    counts = deal_problem_counts(problems)
    found = [_plural(counts["missing"], "missing"), _plural(counts["extra"], "too many")]
    if counts["misplaced"]:
        found.append(_plural(counts["misplaced"], "in the wrong place"))
    if counts["unreadable"]:
        found.append(_plural(counts["unreadable"], "unreadable"))
    return (f"The deal did not check out twice in a row, the same way ({', '.join(found)}): dealing "
            "again would fail again, so the table stops here. Gather every card from every pocket, look "
            "in the reject pocket and around the dealer, and count the deck: take out any extra card, find "
            "or replace a missing or unreadable one. Then put all the cards into the dealer and press "
            "Resume: the hand is redealt from the same deck order (same commitment).")


def _public_deal_problems(problems: tuple[str, ...] | list[str]) -> str:
    """A failed deal check in words for the shared screen: counts, never a card's name (the
    deal is hidden; the names stay in the driver's log)."""
    counts = deal_problem_counts(problems)
    found = [_plural(n, what) for n, what in ((counts["missing"], "missing"), (counts["extra"], "too many"),
                                              (counts["misplaced"], "in the wrong place"),
                                              (counts["unreadable"], "unreadable")) if n]
    if found:
        return ", ".join(found)
    text = "; ".join(problems) or "the dealt cards did not match the plan"
    return _CARD_WORD.sub("a card", text)


# in the words of a deal whose only difference was cards the reader could not read (the host's
# recovery puts them back on the hopper when it sees these words: device/table/host.py)
UNREAD_DEAL_WORDS = "of the deal could not be read"


def _unread_deal_words(n: int) -> str:
    """The shared screen's words for a deal whose only difference from its plan is ``n`` cards
    the reader could not read, in the reject pocket: no card's name (the deal is hidden), and
    what the people at the table do so that only those cards are dealt again (with any card the
    plan set aside in the reject pocket, Hearts' removed cards: face down, nobody can tell them
    apart, so every card there goes back on the hopper and the set-aside ones are dealt there
    again)."""
    if n == 1:
        return ("1 card of the deal could not be read: the dealer put it in the reject pocket, and every "
                "other card went where it belongs. Take the cards out of the reject pocket face down, wipe "
                "them, put them on the dealer's hopper and press Resume: the dealer deals just those cards.")
    return (f"{n} cards of the deal could not be read: the dealer put them in the reject pocket, and every "
            "other card went where it belongs. Take the cards out of the reject pocket face down, wipe "
            "them, put them on the dealer's hopper and press Resume: the dealer deals just those cards.")
