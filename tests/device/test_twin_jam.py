"""The unmodified firmware (main.Firmware on firmware/board.py) deals on the physical twin
(device/dealer/twin.py): flaps take their datasheet time to swing, the belt carries each card at
its speed, and a card goes into the pocket whose flap is really up when it gets there.

The JAM of issue 20: the firmware lowered a pocket's flap when a card was confirmed there and
no card *in flight* used that pocket, while the next card for the same pocket was still in its
eject feed move; the flap came down before that card arrived, it passed its pocket and reached
the end of the run (JAM 4, misroute). A 52-card deal to 4 seats has about 12 same-pocket pairs.
"""

from __future__ import annotations

import pytest

from trickref.device.dealer import twin_host as th

P = th.P


def deal_on_twin(seats: int, seed: int, **kw: object) -> tuple[th.TwinHost, list[tuple[int, int]], tuple[int, int, bytes]]:
    tw = th.new_twin(seats=seats, seed=seed, **kw)  # type: ignore[arg-type]
    host = th.TwinHost(tw)
    hopper, entries = th.random_deal(seats, seed)
    tw.mech.hopper = list(hopper)
    host.hello()
    return host, entries, host.deal(1, entries)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_52_card_deal_to_4_seats_lands_every_card_where_the_plan_says(seed: int) -> None:
    host, entries, end = deal_on_twin(4, seed)
    jams = [(e[2][0], P.card_name(e[2][1])) for e in host.events if e[1] == P.EV_JAM]
    assert end[1] == P.EV_DEAL_DONE, f"the deal stopped: {jams} after {len(host.mech.pockets)} pockets; {host.mech.log[-4:]}"
    assert th.misplaced(host.tw, entries) == []
    assert end[2][2:5] == bytes((52, 0, 0))
    assert host.mech.stuck == []


def test_two_cards_in_a_row_for_one_pocket_both_go_in() -> None:
    """The smallest case: the second card's flap must stay up through its own feed move."""
    tw = th.new_twin(seats=4, seed=5)
    host = th.TwinHost(tw)
    cards = [10, 11, 12, 13]
    tw.mech.hopper = list(cards)
    host.hello()
    end = host.deal(1, [(10, 2), (11, 2), (12, 2), (13, 1)])
    assert end[1] == P.EV_DEAL_DONE, [e for e in host.events if e[1] == P.EV_JAM]
    assert host.mech.pockets.get(2) == [10, 11, 12] and host.mech.pockets.get(1) == [13]
