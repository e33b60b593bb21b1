"""Back-compat: journals written by the referee of the v1 dealer steps still restore.

The journal holds events, never dealer steps: a replay rebuilds the steps from the events, and
each ``dealer_done`` names its step by number only. A ``new_game`` without a ``dealer`` field is
a v1 game: the referee then queues the v1 step sequence (referee/legacy.py), each v1 op mapped
to its v2 step where there is one and kept as a ``V1Step`` naming it where there is none (the
device layer refuses to run those, in words). tests/engine/data/referee-v1-journals.json holds
journals recorded by the last v1 referee (see referee-v1-journals-make.py); replaying them must
rebuild the same game (hands, scores, record). ``step_from_json`` reads the v1 string form of a
step (``op`` + ``args``) the same way, or says what is wrong with it in words.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trickref.engine.referee.commands import (
    Abort,
    DealPlan,
    FeedBack,
    Fetch,
    Release,
    RouteFed,
    Stage,
    StepError,
    V1Step,
    step_from_json,
    step_to_json,
)
from trickref.engine.referee.events import NewGame, event_from_json
from trickref.engine.referee.referee import Referee

V1 = json.loads((Path(__file__).parent / "data" / "referee-v1-journals.json").read_text())


@pytest.mark.parametrize("game", sorted(V1))
def test_a_v1_journal_replays_to_the_same_game(game: str) -> None:
    rec = V1[game]
    ref = Referee()
    for obj in rec["events"]:
        ref.handle(event_from_json(obj))
    g = ref.game
    assert g is not None
    want = rec["expect"]
    # (the engine has kept each hand's figures beside its points since these were recorded)
    assert [{k: v for k, v in h.items() if k != "figures"} for h in g.hand_results] == want["hand_results"]
    assert len(g.actions) == want["actions"] and g.phase == want["phase"] and ref.waiting == want["waiting"]
    got = ref.record()
    for hand in got["hands"]:  # added since these were recorded: each finished hand's points and chain
        assert ("chain" in hand) == ("salt" in hand)
        hand.pop("points", None)
        hand.pop("chain", None)
    assert got == want["record"]
    assert not [m for m in ref.messages if m["level"] == "error"]


def test_the_string_form_of_a_step_maps_each_v1_op() -> None:
    assert step_from_json({"op": "route_fed", "args": {"card": "QS", "target": "trick"}, "step": 7}) == \
        RouteFed("QS", "trick", step=7)
    # v1 parked fed cards in staging and the stock in the magazine: v2 parks both in the loop
    assert step_from_json({"op": "route_fed", "args": {"card": "QS", "target": "staging"}}) == RouteFed("QS", "loop")
    deal = step_from_json({"op": "deal", "args": {"deal_id": 3, "plan": [["QS", "seat:0"], ["2H", "stock"]]}, "step": 1})
    assert deal == DealPlan(3, (("QS", "seat:0"), ("2H", "loop")), step=1)
    assert step_from_json({"op": "fetch", "args": {"source": "staging", "card": "4D", "target": "seat:2"},
                           "step": 9}) == Fetch("4D", "seat:2", step=9)
    assert step_from_json({"op": "abort", "args": {}}) == Abort()
    # the v1 ops with no v2 counterpart keep their name (the device layer refuses them)
    for op, args in [("present", {"seat": 1, "expect": "QS"}), ("route_presented", {"target": "discard"}),
                     ("turn_up", {"expect": "2C"}), ("deal_stock", {"target": "seat:0", "expect": "3C"}),
                     ("route_faceup", {"target": "seat:1"}),
                     ("fetch", {"source": "discard", "card": "4D", "target": "seat:0"})]:
        step = step_from_json({"op": op, "args": args, "step": 4})
        assert step == V1Step(op, args, step=4)
        assert step_from_json(step_to_json(step)) == step
    for step in (Fetch("4D", "seat:2", step=9), Stage("5H"), FeedBack(1, "QS", "discard", step=2),
                 Release((("QS", "seat:1"), ("2H", "seat:3"))), deal):
        assert step_from_json(json.loads(json.dumps(step_to_json(step)))) == step


def test_a_v1_game_keeps_the_v1_step_numbers_and_a_v1_only_step_is_a_v1step() -> None:
    """Cut a v1 spades-2p journal right after a draw: the steps pending are the v1 ones (with
    their v1 numbers), those without a v2 counterpart as V1Steps."""
    events = V1["spades-2p"]["events"]
    cut = max(i for i, e in enumerate(events) if e["type"] == "button" and e["button"] in ("plus", "minus"))
    ref = Referee()
    for obj in events[: cut + 1]:
        ref.handle(event_from_json(obj))
    assert ref.dealer_version == 1
    assert [s.op for s in ref.steps if isinstance(s, V1Step)][:3] == ["route_presented", "present", "route_presented"]
    done = [e["step"] for e in events[cut + 1:] if e["type"] == "dealer_done"]
    assert [s.step for s in ref.steps] == done[: len(ref.steps)]
    out = ref.resync()
    assert isinstance([c for c in out if isinstance(c, V1Step)][0], V1Step)


def test_a_new_game_event_says_its_dealer_steps() -> None:
    new = NewGame("hearts", ("a", "b", "c"))
    assert new.to_json()["dealer"] == 2 and event_from_json(new.to_json()) == new
    old = {k: v for k, v in new.to_json().items() if k != "dealer"}
    assert event_from_json(old).dealer == 1  # type: ignore[attr-defined]


@pytest.mark.parametrize("obj,words", [
    ({"op": "shuffle_deck", "args": {}}, "unknown dealer step 'shuffle_deck'"),
    ({"op": "fetch", "args": {"source": "centre", "card": "QS", "target": "seat:1"}},
     "the v2 dealer fetches from the loop only"),
    ({"op": "deal", "args": {"deal_id": 1, "plan": ["QS"]}}, "its plan is not a list of \\[card, target\\] pairs"),
    ({"op": "route_fed", "args": {"card": "QS"}}, "dealer step 'route_fed' lacks 'target'"),
    ({"op": "fetch", "args": []}, "its args are not a JSON object"),
    ({"op": "abort", "args": {}, "step": "x"}, "step number 'x' is not a whole number"),
    ("deal", "a dealer step is a JSON object, not str"),
])
def test_a_step_that_cannot_be_read_is_refused_in_words(obj: object, words: str) -> None:
    with pytest.raises(StepError, match=words.replace("(", r"\(").replace(")", r"\)")):
        step_from_json(obj)
