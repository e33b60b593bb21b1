"""How tests/engine/data/referee-v1-journals.json was made: journals (event lists, exactly what the table
host journals) recorded by the referee of commit b4ea534, the last one with the v1 dealer steps
(present, turn_up, deal_stock, route_faceup, staging), for the back-compat test
tests/engine/test_referee_v1_journals.py. Each game: two finished hands and part of a third.

Run on a checkout of that commit (``git archive b4ea534 | tar -x -C /tmp/v1tree``)::

    python tests/engine/data/referee-v1-journals-make.py /tmp/v1tree > tests/engine/data/referee-v1-journals.json
"""

from __future__ import annotations

import json
import sys

sys.path.insert(0, sys.argv[1])
import trickref  # noqa: E402

assert trickref.__file__.startswith(sys.argv[1]), trickref.__file__
from trickref.engine.referee.autotable import AutoTable  # noqa: E402
from trickref.engine.referee.events import make_shuffle  # noqa: E402

out = {}
for game, n, extra in [("hearts", 4, 30), ("spades-2p", 2, 9), ("german-whist", 2, 9),
                       ("partnership-spades", 4, 12), ("cancellation-hearts", 6, 25)]:
    t = AutoTable(seed=5, entry="mixed")
    t.run(game, n, {}, max_hands=2)
    t.max_hands = None
    t.drain()
    g = t.ref.game
    if t.ref.waiting == "shuffle":
        t.feed(make_shuffle(g.DECKS, t.shuffle_rng))
        t.drain()
    for _ in range(extra):
        t.step()
    ref = t.ref
    out[game] = {"players": n, "events": [e.to_json() for e in t.events],
                 "expect": {"hand_results": ref.game.hand_results, "actions": len(ref.game.actions),
                            "phase": ref.game.phase, "waiting": ref.waiting,
                            "steps": [dict(s) for s in ref.steps], "record": ref.record()}}
json.dump(out, sys.stdout, separators=(",", ":"))
