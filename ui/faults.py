"""The dealer faults the kiosk explains: a title, what happened and what to do, per kind
(marked with ``N_``: the fault screen shows them in the kiosk's language).

Shared by the referee-backed table (which maps the referee's fault words to a kind) and the
in-memory test table."""

from __future__ import annotations

from .i18n import N_

FAULTS: dict[str, dict[str, str]] = {
    "jam": {
        "title": N_("Card jam in the dealer"),
        "what": N_("A card stuck between the reader and the turntable."),
        "fix": N_("Open the top cover, pull the stuck card out gently, put it back on top of the stack, close the cover and tap Resume."),
    },
    "misread": {
        "title": N_("Card not recognised"),
        "what": N_("The reader could not read the card in the throat three times."),
        "fix": N_("Take the card out, wipe its face, check it is the right way up and put it back on top of the stack, then tap Resume."),
    },
    "link": {
        "title": N_("Dealer not answering"),
        "what": N_("The dealer stopped answering on the serial link."),
        "fix": N_("Check the USB cable between the dealer and the screen (reseat it at both ends) and that the dealer's power light is on: the table goes on by itself as soon as the dealer answers (or tap Resume)."),
    },
    "empty": {
        "title": N_("Dealer ran out of cards"),
        "what": N_("The feeder is empty but the hand needs more cards."),
        "fix": N_("Put the remaining cards face down in the feeder, then tap Resume."),
    },
}

# the referee's fault kinds (engine.referee.events.FAULT_KINDS) on the kiosk's fault texts
FAULTS["link_down"] = FAULTS["link"]
FAULTS["timeout"] = FAULTS["link"]
FAULTS["fault"] = {
    "title": N_("The dealer reported a fault"),
    "what": N_("The dealer stopped and reported a fault."),
    "fix": N_("Read the dealer's words above, fix what they say (a full pocket, the stop button pressed, "
           "a card out of place), then tap Resume."),
}
FAULTS["mismatch"] = {
    "title": N_("The deal did not check out"),
    "what": N_("The cards the dealer routed did not match the deal plan."),
    "fix": N_("Gather all the cards from every pocket into the dealer's feeder, then tap Resume: the hand "
           "is dealt again from the same deck order."),
}
FAULTS["unread_deal"] = {
    "title": N_("Cards not read in the deal"),
    "what": N_("The reader could not read some cards of the deal; they went to the reject pocket. Every other "
               "card is where it belongs."),
    # (the referee's words above say what to do with the cards; this is what comes after)
    "fix": N_("If a card still cannot be read, the screen then asks for all the cards: gather them, replace the "
              "unreadable card with a sound one, and tap Resume: the hand is dealt again."),
}


def fault_kind(text: str | None) -> str | None:
    """The FAULTS key for the referee's fault paragraph (it keeps words, not a kind; so a
    fault restored from the journal reads the same as a fresh one)."""
    if not text:
        return None
    t = text.lower()
    if "did not check out" in t:
        return "mismatch"
    if "of the deal could not be read" in t:
        return "unread_deal"
    if "play slot" in t:
        # the words say which cards go in the play slot, and where to look for them (clearing a
        # jam among other places): not the jam's "put it back on top of the stack"
        return "fault"
    if "jam" in t:
        return "jam"
    if "cable" in t or "link" in t or "stopped answering" in t:
        return "link"
    if "not recognised" in t or "misread" in t or "could not read" in t:
        return "misread"
    if "empty" in t or "ran out" in t:
        return "empty"
    return "fault"


# the journal cannot be written (device/table/storage.py): a full disk, or one gone read-only
STORAGE = {
    "title": N_("The table cannot save the game"),
    "what": N_("Writing the game's journal {path} failed ({reason}). The disk at {mount} has {free} free of {total}."),
    "fix_full": N_("Make room on that disk (delete old game records or other files there), then tap Resume: "
                   "the table saves the waiting entry and goes on. Nothing is lost."),
    "fix_other": N_("Check that disk (is it still plugged in, or has it become read-only?), then tap Resume: "
                    "the table saves the waiting entry and goes on. Nothing is lost."),
}
