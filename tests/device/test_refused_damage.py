"""A command damaged on its way to the dealer past its CRC is refused, and sent again (issue 18,
point 3: degrade, never die, under line noise).

A 16-bit CRC passes one damaged frame in 65,536; at 5 % corrupted bytes that is a command every
few hundred deals. The dealer then refuses it as malformed (NAK BAD_BODY: its body does not
parse) or, when the damage hit a step's id, as the id of another step (NAK CONFLICT). A refused
command did nothing (the firmware forgets a refused step), so the link sends it again under a
new seq; only a refusal that comes back every time is the dealer's answer and goes to the
caller. The campaign of stop 29 met it three times at 5 % corrupted bytes (a FEED, a DEAL_PLAN):
each stopped the table until a person pressed Resume. Then the real firmware behind its pty, in
the table's real path (fault_trials' ``refused_play_read``).
"""

from __future__ import annotations

from typing import Any

import pytest
from test_dealer_link import FakeDealer, open_link
from test_malformed_replies import _answer

from trickref.device.dealer import messages as m
from trickref.device.dealer.frames import Frame
from trickref.device.simulated.fault_trials import run_trial

COMMANDS: list[tuple[int, dict[str, Any], int]] = [
    (m.FEED, {"step": 9, "count": 1, "target": m.HOLD}, m.NAK_BAD_BODY),
    (m.DEAL_PLAN, {"deal_id": 7, "total": 2, "offset": 0, "flags": 1, "entries": [[3, 0], [4, 1]]}, m.NAK_BAD_BODY),
    (m.ROUTE_PRESENTED, {"step": 10, "target": 2}, m.NAK_CONFLICT),
    (m.ABORT, {"step": 12}, m.NAK_CONFLICT),
]


def _refusing(kind: int, reason: int, times: int) -> tuple[FakeDealer, list[Frame]]:
    """A scripted dealer that refuses the first ``times`` ``kind`` commands after it is armed
    with ``reason`` (what a frame damaged past its CRC gets), then answers as a dealer does."""
    refused: list[Frame] = []

    def handler(fake: FakeDealer, cmd: Frame) -> list[Frame]:
        if cmd.type == kind and fake.armed and len(refused) < times:
            refused.append(cmd)
            return [fake.frame(m.NAK, {"command_type": kind, "reason": reason}, cmd.seq)]
        return [_answer(fake, cmd)]

    fake = FakeDealer(handler)
    fake.armed = False
    return fake, refused


@pytest.mark.parametrize(("ftype", "fields", "reason"), COMMANDS,
                         ids=[f"{m.TYPE_NAMES[f]}-{m.NAK_REASON_NAMES[r]}" for f, _, r in COMMANDS])
def test_a_command_refused_as_damaged_is_sent_again_under_a_new_seq(ftype: int, fields: dict[str, Any],
                                                                     reason: int) -> None:
    fake, refused = _refusing(ftype, reason, 1)
    link = open_link(fake, keepalive=False)
    fake.armed = True
    try:
        reply = link.request(ftype, fields)
        assert reply.type != m.NAK, reply
        mine = [f for f in fake.received if f.type == ftype]
        assert len(mine) == 2 and len(refused) == 1
        assert mine[0].body == mine[1].body  # the same command (the same step id) ...
        assert mine[0].seq != mine[1].seq  # ... as a new frame: dispatched afresh, not replayed
        assert link.stats.refused_resent == 1
    finally:
        link.close()


def test_a_refusal_that_comes_back_every_time_is_the_dealers_answer() -> None:
    fake, refused = _refusing(m.FEED, m.NAK_BAD_BODY, 100)
    link = open_link(fake, keepalive=False)
    fake.armed = True
    try:
        reply = link.request(m.FEED, {"step": 9, "count": 1, "target": m.HOLD})
        assert reply.type == m.NAK and reply.fields["reason"] == m.NAK_BAD_BODY
        assert len(refused) == 1 + link.refusal_retries
        assert link.stats.refused_resent == link.refusal_retries
    finally:
        link.close()


@pytest.mark.parametrize("reason", [m.NAK_EMPTY, m.NAK_BUSY, m.NAK_JAMMED])
def test_any_other_refusal_goes_to_the_caller_at_once(reason: int) -> None:
    fake, refused = _refusing(m.FEED, reason, 100)
    link = open_link(fake, keepalive=False)
    fake.armed = True
    try:
        reply = link.request(m.FEED, {"step": 9, "count": 1, "target": m.HOLD})
        assert reply.type == m.NAK and reply.fields["reason"] == reason
        assert len(refused) == 1 and link.stats.refused_resent == 0
    finally:
        link.close()


def test_a_play_whose_feed_was_refused_as_damaged_never_stops_the_table() -> None:
    """Cancellation Hearts, seed 7041 (the campaign's 2 %-corrupted-bytes row met it: a FEED frame
    damaged past its CRC, refused as malformed, the player's card in the play slot): the link
    sends the FEED again and the card is read where it lies. Before, the table stopped with "the
    dealer refused FEED: BAD_BODY" until a person pressed Resume."""
    r = run_trial("refused_play_read", 7041, compare=False, guard_s=240.0, at=5)
    assert r.struck
    assert r.mismatches == [], r.mismatches
    assert r.outcome == "right", (r.outcome, r.detail, r.faults)
    assert r.faults == [] and r.pressed == 0, r.faults
