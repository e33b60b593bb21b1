"""Back-compat: journals written by the referee of the v1 dealer steps still restore.

The journal holds events, never dealer steps: a replay rebuilds the steps from the events, and
each ``dealer_done`` names its step by number only. tests/engine/data/referee-v1-journals.json holds
journals recorded by the last v1 referee (see referee-v1-journals-make.py); replaying them must
rebuild the same game (hands, scores, record). Dealer steps also have a JSON form
(``step_to_json``); ``step_from_json`` reads the older string form (``op`` + ``args``) or says
what is wrong with it in words.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trickref.engine.referee.commands import (
    DealPlan,
    Fetch,
    RouteFed,
    StepError,
    step_from_json,
    step_to_json,
)
from trickref.engine.referee.events import event_from_json
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
    assert g.hand_results == want["hand_results"]
    assert len(g.actions) == want["actions"] and g.phase == want["phase"] and ref.waiting == want["waiting"]
    assert ref.record() == want["record"]
    assert not [m for m in ref.messages if m["level"] == "error"]


def test_the_string_form_of_a_step_reads_as_its_typed_step() -> None:
    assert step_from_json({"op": "route_fed", "args": {"card": "QS", "target": "trick"}, "step": 7}) == \
        RouteFed("QS", "trick", step=7)
    deal = step_from_json({"op": "deal", "args": {"deal_id": 3, "plan": [["QS", "seat:0"], ["2H", "reject"]]}, "step": 1})
    assert deal == DealPlan(3, (("QS", "seat:0"), ("2H", "reject")), step=1)
    fetch = Fetch("staging", "4D", "seat:2", step=9)
    assert step_from_json(step_to_json(fetch)) == fetch
    assert step_from_json(json.loads(json.dumps(step_to_json(deal)))) == deal


@pytest.mark.parametrize("obj,words", [
    ({"op": "shuffle_deck", "args": {}}, "unknown dealer step 'shuffle_deck'"),
    ({"op": "route_fed", "args": {"card": "QS"}}, "dealer step 'route_fed' lacks 'target'"),
    ({"op": "fetch", "args": []}, "its args are not a JSON object"),
    ({"op": "abort", "args": {}, "step": "x"}, "step number 'x' is not a whole number"),
    ("deal", "a dealer step is a JSON object, not str"),
])
def test_a_step_that_cannot_be_read_is_refused_in_words(obj: object, words: str) -> None:
    with pytest.raises(StepError, match=words.replace("(", r"\(")):
        step_from_json(obj)
