"""STATUS flags bit6: a FEED waits for a person to feed a card (hardware/PROTOCOL.md, STATUS).

With cards parked in the loop the hopper is never empty, so "FEEDING, hopper has cards" cannot
tell a dealer waiting for a player's card from one whose feed is stuck: the host took a player
who thought longer than its stall timeout for a stalled dealer and stopped the table. Bit6 says
the FEED waits for a card in the play slot (or in an empty hopper) with nothing of its own under
way; it is clear while a card moves, and a card caught in the feed path ends in a JAM.
"""

from __future__ import annotations

from fw_host import Host, make_host, park

from trickref.firmware import mechanics as M
from trickref.firmware import protocol as P

AWAITS = 64
HOPPER = 2


def status(host: Host) -> tuple[int, int]:
    body = host.command(P.STATUS).body
    return body[0], body[7]


def test_a_feed_with_cards_parked_in_the_loop_says_it_waits_for_a_person() -> None:
    host = make_host(deck=[], seats=4)
    park(host, (12, 3, 20))
    host.command(P.FEED, bytes((1, P.HOLD)))
    for _ in range(5):  # a player thinks: it stays so
        host.run(2000)
        state, flags = status(host)
        assert state == 5 and flags & HOPPER and flags & AWAITS
    host.board.slot.append(40)
    host.run(20)
    state, flags = status(host)  # the card is being taken in: the dealer's own motion
    assert not flags & AWAITS
    assert host.until(P.EV_PRESENTED)[2][:2] == bytes((P.HOLD, 40))
    state, flags = status(host)
    assert state == 3 and not flags & AWAITS  # held for the host's routing, not for a person


def test_a_feed_with_an_empty_hopper_waits_for_a_person() -> None:
    host = make_host(deck=[], seats=4)
    host.command(P.FEED, bytes((3, P.LOOP)))
    host.run(2000)
    state, flags = status(host)
    assert state == 5 and not flags & HOPPER and flags & AWAITS


def test_a_card_caught_in_the_feed_path_is_not_a_person_thinking() -> None:
    host = make_host(deck=[], seats=4)
    park(host, (12, 3))
    host.sim.jam("feed")
    host.board.slot.append(40)
    host.command(P.FEED, bytes((1, P.HOLD)))
    seen = []
    for _ in range(10):
        state, flags = status(host)
        seen.append((state, flags & AWAITS))
        if state == 7:
            break
        host.run(100)
    assert all(not awaits for _, awaits in seen), seen
    assert host.until(P.EV_JAM)[2][0] == M.ST_FEED
    state, flags = status(host)
    assert state == 7 and not flags & AWAITS


def test_a_card_dropped_in_while_the_last_is_held_is_read_though_its_twin_is_parked() -> None:
    """Two decks: a person drops 12 into the play slot while the card before it (40) is read
    and held. Routing 40 to the loop (the hopper held: only a slot card moves) brings 12 to the
    window, and the next FEED reads it there as the fed card it is, although its twin of the
    other deck is parked in the loop. Taken for the loop's first card, it waited in the window
    unread while the FEED waited for a card in the play slot: a stuck table (issue 18)."""
    host = make_host(deck=[], seats=6, decks=2)
    park(host, (12, 3))  # a pass: 12's twin is parked in the loop
    host.board.slot.append(40)
    host.command(P.FEED, bytes((1, P.HOLD)))
    assert host.until(P.EV_PRESENTED)[2][:2] == bytes((P.HOLD, 40))
    host.board.slot.append(12)  # dropped in while 40 is held, before the host routes it
    host.command(P.ROUTE_PRESENTED, bytes((P.LOOP,)))
    host.until(P.EV_CARD_ROUTED)
    host.run(3000)
    assert host.board.gate == 12 and not host.board.slot
    host.command(P.FEED, bytes((1, P.HOLD)))
    assert host.until(P.EV_PRESENTED, 20000)[2][:2] == bytes((P.HOLD, 12))
    state, flags = status(host)
    assert state == 3 and not flags & AWAITS  # held for the host's routing, not waiting for a person
