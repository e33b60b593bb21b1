"""The fair-dealing commitment reaches the table: 96 bits on the dealing screen before the
cards are out; on the hand summary after, the kiosk's own check in words (the deck dealt and the
salt revealed hash to that same commitment) and the chain of the plays."""

from __future__ import annotations

import re

from referee_helpers import human_step, pump, referee_app, start

from trickref.engine.referee import fairness

HEX = re.compile(r"\b[0-9a-f]{4}(?: [0-9a-f]{4}){5}\b")


def test_commitment_before_the_deal_and_salt_after_the_hand():
    app = referee_app(speed=40.0)
    session = start(app, "german-whist", 2, humans=(0,), options={"target": 3})
    pump(app, lambda a: a.scene.name == "dealing" and a.scene.model()["commitment"])
    before = app.scene.model()["commitment"]
    shown = HEX.search(before[0])
    assert shown, before  # 24 hex digits in groups of four: 96 bits, more than the 80 asked
    assert "after the hand" in before[1] and "QR code" in before[1]
    seen: list[str] = []
    for _ in range(3000):
        pump(app)
        if app.scene.name == "summary":
            break
        seen.append(human_step(app))
    assert app.scene.name == "summary"
    after = app.scene.model()["commitment"]
    assert shown.group(0) in after[0] and "this deal matches the commitment shown before it" in after[0]
    ref = session.table.referee
    commit = session.view()["table"]["commitment"]
    salt = commit["salt"]
    deck, _actions = ref.game.finished_hands[0]
    full = fairness.commitment(deck, salt)
    assert full == ref.fair[0]["commitment"]
    assert fairness.short(full) == shown.group(0)
    assert fairness.short(ref.fair[0]["chain"]) in after[1]
    assert "Check the deal" in app.scene.model()["buttons"]
