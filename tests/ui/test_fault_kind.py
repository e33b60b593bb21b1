"""Which of the kiosk's fault explanations a referee fault paragraph gets (ui/faults.py).

The words asking for a card in the play slot name where to look for it, "among any cards taken
out clearing a jam" among other places; read as a jam, the screen's "What to do" said to put the
stuck card back on top of the stack, against the words above it (seen on the kiosk, the e-stop on
a played card's route: the card goes in the play slot, never on the stack)."""

from __future__ import annotations

from trickref.ui.faults import FAULTS, fault_kind

ROUTE_LOST = ("Dealer stopped: 4C was going to the trick pocket when the dealer stopped, and the dealer no longer "
              "has it: look on the belt, in the read window, in the reject pocket and in the trick pocket, and among "
              "any cards taken out clearing a jam. Put it in the play slot, then press Resume: the dealer reads it "
              "there and it goes on.")


def test_words_that_ask_for_the_play_slot_are_not_explained_as_a_jam() -> None:
    kind = fault_kind(ROUTE_LOST)
    assert kind == "fault"
    assert "top of the stack" not in FAULTS[kind]["fix"]


def test_a_jam_is_still_a_jam() -> None:
    assert fault_kind("Dealer stopped: a card jammed at the transport stage. Clear it and press Resume: the step is "
                      "done again.") == "jam"
