"""A deal on the physical twin with a mechanism fault armed part way through it (the tests of a
card caught on the path, test_twin_caught.py, and of a double feed, test_twin_slip.py)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from trickref.device.dealer import twin_host as th

P = th.P
STOPS = th.DEAL_STOPS


def arm_after(tw: Any, hopper: list[int], entries: list[tuple[int, int]], after: int, fault: str,
              pass_ms: int = 1) -> tuple[th.TwinHost, int, int]:
    """Deal ``entries`` from ``hopper`` on twin ``tw`` (a host stepping it ``pass_ms`` at a
    time); once the card picked after ``after`` cards is the hopper's bottom card, arm the
    mechanism's fault named ``fault`` for it (``tw.mech.fault_lose``: caught on the path as it
    leaves the window; ``fault_double``: picked with the next card, shingled) and return: (host,
    that card, the index of the deal's first event)."""
    tw.mech.hopper = list(hopper)
    host = th.TwinHost(tw, pass_ms=pass_ms)
    host.hello()
    start = host.send_plan(1, entries)
    while tw.mech.hopper[0] != hopper[after]:
        host.run(2)
    setattr(tw.mech, fault, 1)
    return host, hopper[after], start


def fault_after(tw: Any, hopper: list[int], entries: list[tuple[int, int]], after: int, fault: str,
                stops: Iterable[int] = STOPS,
                pass_ms: int = 1) -> tuple[th.TwinHost, int, tuple[int, int, bytes]]:
    """arm_after, then run to the first of ``stops``: (host, the card, the stop)."""
    host, card, start = arm_after(tw, hopper, entries, after, fault, pass_ms)
    return host, card, host.until(stops, start=start)


def put_back_double(tw: Any) -> list[int]:
    """What the screen says after a double feed: the person takes both cards out of the feed
    and puts them back in the hopper under the stack, the one further along at the bottom.
    Returns them (bottom first)."""
    from trickref.device.dealer.twin_cards import TwinCards

    person = TwinCards(tw)
    back = [c for c in (person.gate, person.gate_double) if c is not None]
    person.gate = None
    person.gate_double = None
    tw.mech.hopper[:0] = back
    return back
