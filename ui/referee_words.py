"""The referee's words on the kiosk, in the kiosk's language.

The referee (engine/) speaks English: its refusals and waiting lines are sentences built from a
few templates ("Ana: it is not your turn (waiting for Ben to play)", "Ben cannot play that
card: must follow clubs"). ``translate`` recognises those templates and gives them in the
kiosk's language, translating the parts it knows (the waiting line, the rule broken, suit
names); a sentence it does not recognise is shown as the referee said it. Nothing here names a
card the referee did not name.
"""

from __future__ import annotations

import re

from .i18n import N_, _, current

_SUITS = {"spades": N_("spades"), "hearts": N_("hearts"), "diamonds": N_("diamonds"), "clubs": N_("clubs")}
_PHASES = {"play": N_("play"), "bid": N_("bid"), "pass": N_("pass"), "draw (+ keep, - discard)": N_("draw (+ keep, - discard)"),
           "give up to 3 cards for Double Nil": N_("give up to 3 cards for Double Nil"), "choose the moon": N_("choose the moon"),
           "act": N_("act")}

# whole sentences
_FIXED = {
    N_("the game is over"), N_("wait: the next hand is being shuffled"), N_("answer the undo question first"),
    N_("waiting for a new game"), N_("the dealer needs attention"), N_("waiting for the shuffle"),
    N_("waiting for the undo to be confirmed or cancelled"), N_("waiting"), N_("no hearts or QS on the first trick"),
    N_("the first lead may not be a heart or QS"), N_("hearts are not broken"), N_("a bid is 0 to 13"),
    N_("at most one Blind Nil per team"), N_("no game: start one first"),
}

# (pattern, template, which groups are themselves referee words to translate)
_PATTERNS: list[tuple[re.Pattern[str], str, tuple[str, ...]]] = [
    (re.compile(r"(?P<name>.+?): it is not your turn \((?P<waiting>.+)\)"),
     N_("{name}: it is not your turn ({waiting})"), ("waiting",)),
    (re.compile(r"(?P<name>.+?): press \+ to keep the card shown, - to discard it"),
     N_("{name}: press + to keep the card shown, - to discard it"), ()),
    (re.compile(r"(?P<name>.+?): feed up to 3 cards to give, then press OK"),
     N_("{name}: feed up to 3 cards to give, then press OK"), ()),
    (re.compile(r"(?P<name>.+?): feed your cards to pass through the reader"),
     N_("{name}: feed your cards to pass through the reader"), ()),
    (re.compile(r"(?P<name>.+?): feed your card through the reader or tap it on the screen"),
     N_("{name}: feed your card through the reader or tap it on the screen"), ()),
    (re.compile(r"(?P<name>.+?): choose with - and \+, then press OK"),
     N_("{name}: choose with - and +, then press OK"), ()),
    (re.compile(r"(?P<name>.+?) cannot play that card: (?P<reason>.+)"),
     N_("{name} cannot play that card: {reason}"), ("reason",)),
    (re.compile(r"waiting for (?P<who>.+?) to (?P<phase>.+)"), N_("waiting for {who} to {phase}"), ("phase",)),
    (re.compile(r"must follow (?P<suit>spades|hearts|diamonds|clubs)"), N_("must follow {suit}"), ("suit",)),
    (re.compile(r"the team's bids may not add up to more than 13 \(at most (?P<top>\d+)\)"),
     N_("the team's bids may not add up to more than 13 (at most {top})"), ()),
]


def translate(text: str) -> str:
    """``text`` (the referee's words) in the kiosk's language, as far as it is known."""
    if current() == "en" or not text:
        return text
    return _words(text)


def _words(text: str) -> str:
    if text in _FIXED:
        return _(text)
    if text in _SUITS:
        return _(_SUITS[text])
    if text in _PHASES:
        return _(_PHASES[text])
    for pattern, template, inner in _PATTERNS:
        m = pattern.fullmatch(text)
        if m is not None:
            parts = {k: (_words(v) if k in inner else v) for k, v in m.groupdict().items()}
            return _(template).format(**parts)
    return text
