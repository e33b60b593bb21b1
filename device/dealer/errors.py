"""Typed errors of the dealer driver.

Every failure the referee can see from the card dealer is a ``DealerError``, so the kiosk can
catch one class, show ``str(error)`` (each message says what went wrong and what state the
dealer was left in) and decide by subclass whether a retry, a human or a new deal is needed.
"""

from __future__ import annotations


class DealerError(Exception):
    """Base of every error the dealer driver raises; the message is meant for a human."""


class DealerTimeout(DealerError):
    """The dealer did not answer a command (after every retransmit) or a deal did not finish
    in time."""


class DealerStalled(DealerTimeout):
    """The dealer answers, but what it does made no progress for the driver's stall timeout
    while nothing it reports waits for a person (a card caught where no sensor sees it, a motor
    that does not turn): not the link, so nothing goes on by itself; a person looks, then
    resumes. ``progress``: what the stall check compared, the dealer's (state, cards done, next
    event index) when it gave up."""

    def __init__(self, message: str, progress: tuple[int, int, int] | None = None) -> None:
        super().__init__(message)
        self.progress = progress


class DealerLinkDown(DealerError):
    """The serial link is gone (unplugged, port closed) and did not come back in time."""


class DealerProtocolError(DealerError):
    """The dealer answered something the protocol does not allow: a bad version, an unknown
    message, a body of the wrong size, or a NAK that names a malformed command."""


class DealerGarbled(DealerProtocolError):
    """The dealer kept answering a command with replies that do not parse, or that do not
    answer the command sent, for the link's whole budget of such replies (``garble_limit`` in a
    row). One such reply is line noise (a frame damaged past its CRC-16) and is asked again;
    this many in a row is a dealer that speaks another layout, or a line that no longer
    carries frames. The message names the command and what was wrong with the last answer."""


class DealerStepConflict(DealerProtocolError):
    """The dealer refused a step command CONFLICT: it holds that step id for a step with
    another body (it keeps the steps it took, to answer a step sent again with what it did).
    Sent again under the same id, it is refused again; under a fresh id it is a new step."""


class DealerFault(DealerError):
    """The dealer reported a fault (hopper empty, e-stop pressed, motor stall, misread card,
    busy, bad state) and stopped. ``code`` is the wire fault code, ``name`` its name."""

    def __init__(self, message: str, code: int = 0, name: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.name = name


class DealerJam(DealerFault):
    """A card jammed in the path; the dealer stopped the mechanics and needs a human."""


class DealMismatch(DealerError):
    """A deal did not match its plan (a card missing, read twice, routed elsewhere or not in
    the deck). The hand must not be played; ``problems`` lists every difference found."""

    def __init__(self, message: str, problems: list[str] | None = None, strays: list[int] | None = None,
                 missing: list[int] | None = None,
                 unread: list[tuple[int, int]] | None = None) -> None:
        super().__init__(message)
        self.problems: list[str] = list(problems or [])
        # the cards of the deal that its plan does not hold at all, read and sent to the reject
        # pocket, when they are the only difference (every entry of the plan filled right):
        # else None. A relearning of the loop after a restart (device/table/dealers.py) that
        # reads a card a player fed while the table was down is such a deal.
        self.strays: list[int] | None = strays
        # the cards of the plan not found, when they are the only difference (every card read
        # went where the plan says, nothing else was read): else None
        self.missing: list[int] | None = missing
        # the plan entries (card, target) of the cards the reader could not read, sent to the
        # reject pocket, when they are the only difference (device/dealer/plan.py DealCheck.unread):
        # dealt again alone, from those cards put back on the hopper, they finish the deal
        self.unread: list[tuple[int, int]] | None = unread
