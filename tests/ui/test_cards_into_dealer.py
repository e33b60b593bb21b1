"""At a real table the cards go back into the dealer by hand: the kiosk asks for them before each
deal and the deal waits for Deal.

After a hand every card lies in a pocket (the trick pocket, the seats', the reject pocket) or the
play slot; nothing but the people puts them back in the feeder. Until 2026-12-05 the kiosk in
hardware mode dealt as soon as "Next hand" was tapped, said nothing of the cards, and every hand
after the first stopped on the fault screen with "The deal did not check out (52 cards missing)"
(the physical rig in the tests got through it by gathering on that fault). Now the dealing screen
asks for every card of the game, the deal starts only on Deal, and no deal finds the cards
missing. In simulated mode the simulated people gather by themselves and the deal starts at once.
"""

from __future__ import annotations

from kiosk_helpers import tap_button
from physical import Rig

from trickref.device.dealer import messages as m


def _asks(rig: Rig, n: int) -> None:
    texts = " ".join(rig.screen_texts())
    assert rig.app.scene.name == "dealing" and rig.app.scene.model()["loading"], texts
    assert f"Put all {n} cards face down in the dealer's feeder" in texts, texts
    assert rig.app.scene.button("Deal").visible


def test_each_deal_waits_for_the_cards_and_the_deal_tap() -> None:
    rig = Rig("hearts", 4, seed=5, bots=(1, 2, 3))
    try:
        rig.start({"target": 100}, load=False)
        _asks(rig, 52)
        for _ in range(5):  # the screen waits: nothing is dealt until someone taps Deal
            rig.app.tick(0.2)
            rig.settle()
        assert rig.table.needs_deal and rig.ref.game.phase == "deal"
        with rig.sim.lock:
            assert len(rig.sim.board.hopper) == 52 and not rig.sim.board.trays.get(0)
        assert rig.load_cards()
        assert rig.ref.game.phase in ("pass", "play") and sorted(rig.tray(0)) == sorted(rig.ref.game.hand_of(0))
        for _ in range(3000):  # the first hand played to its end by the people and the bots
            what = rig.step()
            if what == "next":
                break
        assert rig.ref.game.hand_number == 1 and rig.app.scene.name == "dealing"
        # hand 2: the cards are in the trick pocket, not the feeder; the screen asks for them
        with rig.sim.lock:
            assert len(rig.sim.board.tray(m.TRICK)) == 52 and rig.sim.board.hopper == []
        _asks(rig, 52)
        assert rig.load_cards()
        assert rig.ref.game.hand_number == 2 and rig.ref.dealer_fault is None
        assert not any("cards missing" in f for f in rig.table.host.recoveries), rig.table.host.recoveries
    finally:
        rig.close()


def test_two_decks_ask_for_104_cards() -> None:
    rig = Rig("cancellation-hearts", 6, seed=5, bots=(1, 2, 3, 4, 5))
    try:
        rig.start({"target": 100}, load=False)
        _asks(rig, 104)
        tap_button(rig.app, "Deal")
        rig.settle()
        assert rig.ref.game.phase != "deal" and rig.ref.dealer_fault is None
    finally:
        rig.close()
