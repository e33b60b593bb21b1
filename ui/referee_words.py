"""The referee's words on the kiosk, in the kiosk's language.

The referee (engine/) speaks English: its refusals, waiting lines and dealer-fault paragraphs are
sentences built from templates ("Ana: it is not your turn (waiting for Ben to play)", "Ben
cannot play that card: must follow clubs", "Dealer stopped: a card jammed. Clear it and press
Resume: the step is done again."), and so are the keep-score sheet's reasons for refusing a hand
("the hearts add up to 12, not 13 (...)"). ``translate`` recognises those templates and gives
them in the kiosk's language, translating the parts that are themselves referee words (the
waiting line, the rule broken, suit names); a sentence it does not recognise is shown as the
referee said it, and ``understood`` says whether a sentence was recognised through and through
(tests/ui/test_refusal_words.py holds every refusal the engine can produce to that). Nothing here
names a card the referee did not name.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from trickref.engine import cards as C

from .i18n import N_, _, current, ngettext

_SUITS = {"spades": N_("spades"), "hearts": N_("hearts"), "diamonds": N_("diamonds"), "clubs": N_("clubs")}
_PHASES = {"play": N_("play"), "bid": N_("bid"), "pass": N_("pass"), "draw (+ keep, - discard)": N_("draw (+ keep, - discard)"),
           "give up to 3 cards for Double Nil": N_("give up to 3 cards for Double Nil"), "choose the moon": N_("choose the moon"),
           "act": N_("act")}

# whole sentences (and the fixed parts other sentences are built of)
_FIXED = {
    N_("the game is over"), N_("wait: the next hand is being shuffled"), N_("answer the undo question first"),
    N_("waiting for a new game"), N_("the dealer needs attention"), N_("waiting for the shuffle"),
    N_("waiting for the undo to be confirmed or cancelled"), N_("waiting"), N_("no hearts or QS on the first trick"),
    N_("the first lead may not be a heart or QS"), N_("hearts are not broken"), N_("a bid is 0 to 13"),
    N_("at most one Blind Nil per team"), N_("no game: start one first"),
    # referee refusals
    N_("the card fed to pass is in more than one hand: press OK on your panel before feeding; the card went to the "
       "reject pocket"),
    N_("a game is in progress: finish it before starting another"), N_("nothing to undo now"),
    N_("an undo is already waiting for confirmation"), N_("nothing to undo in this hand"),
    N_("no undo is waiting for confirmation"), N_("no game to correct"),
    N_("the drawn cards have already been routed"), N_("the exchanged cards have already been routed"),
    N_("the passed cards are in the dealer"),
    # why bot seats cannot keep their cards in the dealer (engine/referee/flows.loop_bots_refused)
    N_("bot seats inside the dealer need the v2 dealer's return loop"),
    N_("a bot seat at the dealer is not offered for two-player Spades: its 13 draws would be decided inside the "
       "dealer, with every card it keeps or discards cycled past in the 52-card stock loop that already costs about 4 "
       "minutes of fetching a hand, and the draw steps only know a player who takes the card shown from their pocket "
       "and feeds back the one not kept; play it with two people, or against the bot in simulated mode"),
    # the rules' reasons
    N_("the hand has not been dealt"), N_("the hand in progress has not ended"), N_("nobody is on turn"),
    N_("several seats are on turn: say which seat acts"), N_("must trump"), N_("it is time to play a card"),
    N_("the moon shooter must choose \"self\" or \"others\""), N_("pass exactly 2 cards"), N_("pass two different cards"),
    N_("Double Nil is already declared"), N_("Double Nil must be declared before your first draw decision"),
    N_("you may exchange at most 3 cards"), N_("the same card twice in an exchange"),
    # what the referee asks for, and actions in words
    N_("keep or discard the shown card"), N_("exchange up to 3 cards with the discard pile"), N_("bid 0 (Nil) to 13"),
    N_("pass 2 cards to your partner"), N_("play a card"), N_("wait"), N_("keep the card"), N_("discard the card"),
    N_("declare Double Nil"), N_("declare Blind Nil"), N_("bid Nil"), N_("draw"),
    N_("double nil"), N_("blind nil"), N_("exchange"), N_("moon"),
    N_("choose the moon for themself"), N_("choose the moon for the others"),
    # what the dealer is doing
    N_("busy"), N_("dealing"), N_("handing the passed cards over"), N_("routing a card"), N_("fetching a card"),
    N_("getting the next stock card ready"), N_("waiting for the drawn card to be fed back"), N_("stopping"),
    N_("stopped on a step of the old dealer"),
    # the dealer's faults: what happened, and what follows Resume
    N_("a card jammed"), N_("the dealer's cable is unplugged or the link is down"), N_("the dealer stopped answering"),
    N_("the dealer's cards do not match the plan"), N_("the dealer reported a fault"),
    N_("Clear it and press Resume: the deal goes on; if the dealer lost the deal, gather all the cards into it and the "
       "hand is redealt from the same deck order."),
    N_("Clear it and press Resume: the step is done again."), N_("Press Resume when it is back."),
    N_("Clear it and press Resume: the dealer goes on."),
    N_("Take both cards out of the feed and put them back in the hopper under the stack, the one that was further "
       "along at the bottom, then press Resume: the dealer goes on."),
    # a hand-over of passed cards stopped (an e-stop, a reboot): the cards it left outside the dealer
    N_("Clear it and press Resume: the passed cards still in the dealer go on to their pockets."),
    N_("Clear it, put any card from the reject pocket, the belt or the read window in the play slot, then press "
       "Resume: the passed cards go on to their pockets."),
    N_("Put those cards in the play slot, then press Resume: they go on to their pockets with the other passed "
       "cards."),
    N_("Put the cards you find in the play slot, then press Resume: they go back into the dealer's loop and the "
       "table goes on."),
    # a played, passed or parked card a stop caught on its way to its pocket (engine/referee/steps.py,
    # _route_missing)
    N_("Put it in the play slot, then press Resume: the dealer reads it there and it goes on."),
    N_("The card the dealer was routing when it stopped is no longer in it: look on the belt, in the read window "
       "and in the reject pocket, and among any cards taken out clearing a jam; the player it was going to looks in "
       "their pocket (their screen says which)"),
    N_("The card fed last is no longer in the dealer after it stopped (whoever fed it knows which): look on the belt, "
       "in the read window, in the reject pocket and in the pocket it was going to, and among any cards taken out "
       "clearing a jam"),
    N_("the dealt cards did not match the plan"),
    # the keep-score sheet's reasons
    N_("the game is over"), N_("nothing to undo: no hand has been entered"),
    N_("the first dealer is chosen before the first hand is entered"),
    N_("nobody shot the moon (all hearts and the Q\u2660), so there is no moon choice"),
    N_("the omnibus option is off: nobody scores for the omnibus card"),
    N_("what nobody took is a whole number of hearts and of Q\u2660 (0 or more)"),
    N_("with last_trick_cancelled = \"leader\" the leader takes a cancelled last trick: nobody's share must be 0"),
    N_("a hand has 13 tricks, each won by someone"), N_("one deck has 13 hearts and no heart is ever set aside"),
    N_("two decks have 26 hearts; what nobody took is included"), N_("two decks have two; what nobody took is included"),
    N_("tricks"), N_("stage-two tricks"), N_("bid"), N_("Q\u2660"), N_("Double Nil"), N_("Blind Nil"),
    N_("a lead"),
}


def _rx(template: str) -> re.Pattern[str]:
    """The template's English as a pattern: each {field} any text (a field named twice: the same
    text twice)."""
    out, seen, pos = [], set(), 0
    for m in re.finditer(r"\{(\w+)\}", template):
        out.append(re.escape(template[pos:m.start()]))
        name = m.group(1)
        out.append(f"(?P={name})" if name in seen else f"(?P<{name}>.+?)")
        seen.add(name)
        pos = m.end()
    out.append(re.escape(template[pos:]))
    return re.compile("".join(out), re.S)


# (template, which fields are themselves referee words to translate); the most specific first
_TEMPLATES: list[tuple[str, tuple[str, ...]]] = [
    (N_("{name}: it is not your turn ({waiting})"), ("waiting",)),
    (N_("{name}: press + to keep the card shown, - to discard it"), ()),
    (N_("{name}: feed up to 3 cards to give, then press OK"), ()),
    (N_("{name}: feed your cards to pass through the reader"), ()),
    (N_("{name}: feed the cards you pass into the dealer's play slot: the bot seats' cards are inside the dealer, so "
        "every pass goes through it"), ()),
    (N_("{name}: feed your card through the reader or tap it on the screen"), ()),
    (N_("{name}: choose with - and +, then press OK"), ()),
    (N_("{name}: you are feeding the cards to give; press OK to finish"), ()),
    (N_("{name}: the card fed back could not be read; it went to the reject pocket: take it and feed it back again"), ()),
    (N_("{name}: that is not the card to feed back; it goes back"), ()),
    (N_("{name}: {card} is not in your hand; it goes back"), ()),
    (N_("{name}: {card} is {other}'s card; it goes back"), ()),
    (N_("{name} cannot play that card: {reason}. Take the card back."), ("reason",)),
    (N_("{name} cannot play that card: {reason}"), ("reason",)),
    (N_("{name} does not hold {card}: it goes back"), ()),
    (N_("{name} has already passed: {card} goes back"), ()),
    (N_("a card of {owner}'s was fed out of turn (it is {name}'s turn): it goes back to {owner}"), ()),
    (N_("a card two players hold was fed out of turn (it is {name}'s turn): it went to the reject pocket"), ()),
    (N_("duplicate read: {card} has already been played this hand: it went to the reject pocket"), ()),
    (N_("{card} is not in this hand's deck: it went to the reject pocket"), ()),
    (N_("{card} is not in anyone's hand (it is out of play this hand): it went to the reject pocket"), ()),
    (N_("the reader could not read the card ({card}): it went to the reject pocket; feed it again"), ()),
    (N_("no card is wanted now: {who} must {phase}; the card goes back"), ("phase",)),
    (N_("the last entry was {name}'s ({what}), not {other}'s"), ("what",)),
    (N_("cannot undo {name}'s {what}: {why}"), ("what", "why")),
    (N_("cannot start {game}: {why}"), ("why",)),
    (N_("seat {n} cannot {action}: {reason}"), ("action", "reason")),
    (N_("{name} cannot {action}: {reason}"), ("action", "reason")),
    (N_("wait: {name} feeds the drawn card back into the dealer"), ()),
    (N_("wait: the dealer is {busy}"), ("busy",)),
    (N_("waiting for {who} to {phase}"), ("phase",)),
    # the rules' reasons
    (N_("must follow {suit}"), ("suit",)),
    (N_("{suit} are not broken"), ("suit",)),
    (N_("must beat the {card}"), ()),
    (N_("must over-trump the {card}"), ()),
    (N_("you do not hold {card}"), ()),
    (N_("the first lead must be the {card}"), ()),
    (N_("{card} is not in the discard pile"), ()),
    (N_("it is seat {n}'s turn"), ()),
    (N_("everyone passes {n} cards first"), ()),
    (N_("no {kind} now"), ("kind",)),
    (N_("it is not the time to {kind}: now {wanted}"), ("kind", "wanted")),
    (N_("Blind Nil needs the team to trail by more than {margin} points"), ()),
    (N_("you get as many cards as you give ({give}), not {get}"), ()),
    (N_("the team's bids may not add up to more than 13 (at most {top})"), ()),
    # actions in words
    (N_("play {card}"), ()),
    (N_("bid {n}"), ()),
    (N_("pass of {n} cards"), ()),
    (N_("Double Nil exchange of {n} card(s)"), ()),
    (N_("exchange {give} for {get}"), ()),
    (N_("pass {cards}"), ()),
    # the dealer's faults (the referee's paragraph: what happened, then what to do)
    (N_("Dealer stopped: {what}. {after}"), ("what", "after")),
    (N_("{what} ({detail})"), ("what", "detail")),
    (N_("The deal did not check out ({problems}). Gather all the cards into the dealer and press Resume: the hand is "
        "redealt from the same deck order (same commitment)."), ("problems",)),
    (N_("The deal did not check out twice in a row, the same way ({problems}): dealing again would fail again, so the "
        "table stops here. Gather every card from every pocket, look in the reject pocket and around the dealer, and "
        "count the deck: take out any extra card, find or replace a missing or unreadable one. Then put all the cards "
        "into the dealer and press Resume: the hand is redealt from the same deck order (same commitment)."), ("problems",)),
    (N_("{n} card of the deal could not be read: the dealer put it in the reject pocket, and every other card went "
        "where it belongs. Take the cards out of the reject pocket face down, wipe them, put them on the dealer's "
        "hopper and press Resume: the dealer deals just those cards."), ()),
    (N_("{n} cards of the deal could not be read: the dealer put them in the reject pocket, and every other card "
        "went where it belongs. Take the cards out of the reject pocket face down, wipe them, put them on the "
        "dealer's hopper and press Resume: the dealer deals just those cards."), ()),
    (N_("{a}, {b}"), ("a", "b")),
    (N_("{n} passed card is not in the dealer: look in the reject pocket, on the belt and in the read window, and "
        "each receiver in their pocket (their screen says which)"), ()),
    (N_("{n} passed cards are not in the dealer: look in the reject pocket, on the belt and in the read window, and "
        "each receiver in their pocket (their screen says which)"), ()),
    (N_("{n} passed card is not in the dealer: look in the reject pocket (leave {cards} there: they are out of this "
        "game), on the belt and in the read window, and each receiver in their pocket (their screen says which)"), ()),
    (N_("{n} passed cards are not in the dealer: look in the reject pocket (leave {cards} there: they are out of "
        "this game), on the belt and in the read window, and each receiver in their pocket (their screen says which)"),
     ()),
    (N_("Clear it, put any card from the reject pocket (not {cards}: they are out of this game), the belt or the read "
        "window in the play slot, then press Resume: the passed cards go on to their pockets."), ()),
    (N_("{name}: look in your pocket for {cards} (passed to you); put any you find in the play slot"), ()),
    (N_("{name}: look in your pocket for {cards} (passed to you); put exactly those in the play slot and keep your "
        "other {twins}"), ()),
    # loop cards the dealer did not find after it restarted by itself (a watchdog, a brown-out) or
    # after an e-stop (a FETCH's card on its way when the button was pressed)
    (N_("{n} card the dealer keeps in its loop is not there after it stopped or restarted: look on the belt and in the "
        "read window, and each player it was bringing a card to in their pocket (their screen says which)"), ()),
    (N_("{n} cards the dealer keeps in its loop are not there after it stopped or restarted: look on the belt and in "
        "the read window, and each player it was bringing a card to in their pocket (their screen says which)"), ()),
    (N_("{name}: look in your pocket for {cards} (the dealer was bringing it to you when it stopped); put it in the "
        "play slot"), ()),
    (N_("{n} card missing"), ()), (N_("{n} cards missing"), ()),
    (N_("{n} card too many"), ()), (N_("{n} cards too many"), ()),
    (N_("{n} card in the wrong place"), ()), (N_("{n} cards in the wrong place"), ()),
    (N_("{n} card unreadable"), ()), (N_("{n} cards unreadable"), ()),
    # the dealer driver's own words about a fault (its first clause)
    (N_("{doing}: a card jammed at the {stage} stage"), ("doing", "stage")),
    (N_("{doing}: a card passed its pocket and went round the loop"), ("doing",)),
    (N_("{doing}: the {where} pocket is full"), ("doing",)),
    (N_("{doing}: two cards were fed together (longer than one card at the gate)"), ("doing",)),
    (N_("{doing}: two cards were fed together (too thick)"), ("doing",)),
    (N_("{doing}: emergency stop by the e-stop button"), ("doing",)),
    (N_("{doing}: emergency stop by the referee"), ("doing",)),
    (N_("{doing}: the dealer reported a fault: {text}"), ("doing",)),
    (N_("{doing}: the action was aborted"), ("doing",)),
    (N_("{doing}: the dealer rebooted"), ("doing",)),
    # (the same words when the driver's "deal 12:" was taken off for the shared screen)
    (N_("emergency stop by the e-stop button"), ()), (N_("emergency stop by the referee"), ()),
    (N_("the dealer rebooted (boot id {old} -> {new})"), ()),
    (N_("the dealer refused {what}: {why}"), ("why",)),
    (N_("the dealer is still not answering: {why}"), ()),
    (N_("the fed card could not be read"), ()),
    (N_("the e-stop button is still pressed: release it (twist) and reset again"), ()),
    (N_("reading {n} fed cards"), ()),
    (N_("fetching a card to the {target}"), ()),
    (N_("a card jammed at the {stage} stage"), ("stage",)),
    # the keep-score sheet's reasons for refusing a hand
    (N_("the {what} add up to {got}, not {want} ({why})"), ("what", "why")),
    (N_("bid of {name}: {x} is not possible (from {lo} to {hi})"), ()),
    (N_("{what} of {name}: {x} is not possible (from {lo} to {hi})"), ("what",)),
    (N_("{what}: one whole number per player ({n}) is needed"), ("what",)),
    (N_("who took the {what}? Tap that player's name"), ("what",)),
    (N_("only one player can take the {what} (one deck): {names} are both marked"), ("what",)),
    (N_("{name} declared {what}, so the bid is 0 (Nil), not {bid}"), ("what",)),
    (N_("at most one Blind Nil per team: {a} and {b} both declared it"), ()),
    (N_("{name} may not declare Blind Nil: the team must trail by more than {margin} points ({us} to {them} is {gap})"),
     ("gap",)),
    (N_("{a} and {b} bid {n} together; a team's bids may not add up to more than 13"), ()),
    (N_("{name} shot the moon: choose \"self\" ({mine} for {name}) or \"others\" ({theirs} for everyone else)"), ()),
    (N_("there are only two Q\u2660, not {n}"), ()),
    (N_("{n} behind"), ()),
    (N_("hand {n}: {reason}"), ("reason",)),
    (N_("hand {n}"), ()),
    (N_("a correction is a non-zero whole number of points, not {x}"), ()),
    (N_("the correction {name} {points}"), ()),
    # correcting an earlier hand (engine.scorekeeper.amend, the referee's HandCorrection)
    (N_("hand {n} already has these figures: nothing to correct"), ()),
    (N_("hand {n} cannot be corrected so: {reason}"), ("reason",)),
    (N_("the correction of hand {n}"), ()),
    (N_("Hand {n} corrected by {by}: {points} ({reason})"), ()),
    (N_("Hand {n} corrected by {by}: {points}"), ()),
]
# protocol 3 (issue 18): a link that is down clears by itself; a card the dealer put in its reject
# pocket that no step sent there (device/table/dealers.py), in the referee's words and the driver's
_FIXED |= {
    N_("The table goes on by itself when the dealer answers again."),
    N_("A card went to the reject pocket: its owner takes it back into their hand (their screen says which)"),
    N_("A card went to the reject pocket: leave it there"),
    N_("A card went to the reject pocket before it was read: whoever fed it takes it back and feeds it again"),
}
_TEMPLATES += [
    # two decks, two seats that may each have fed it (engine/referee/steps.py, _take_back_either)
    (N_("{name}: {card} went to the reject pocket: if you no longer hold {card}, take it back into your hand"), ()),
    (N_("A card went to the reject pocket: {a} or {b} fed it, and takes it back into their hand (their screens say "
        "which)"), ()),
    (N_("{name}: {card} went to the reject pocket: take it back into your hand"), ()),
    (N_("{card} went to the reject pocket instead of the {dest} pocket: it stays there"), ("dest",)),
    (N_("the dealer did not answer {what} after {n} tries"), ()),
    (N_("the dealer did not answer {what} after {n} tries in {s} s: the line is too noisy to carry a frame"), ()),
    (N_("the dealer port {port} is gone and did not come back ({what} not delivered)"), ()),
    (N_("{card} is not in the reader gate and the dealer did not route it"), ()),
    (N_("{card} was going to the trick pocket when the dealer stopped, and the dealer no longer has it: look on the "
        "belt, in the read window, in the reject pocket and in the trick pocket, and among any cards taken out "
        "clearing a jam"), ()),
    # a slow restart's relearning the dealer did not hear (tests/device/test_slow_restart.py)
    (N_("the dealer has not taken back the {n} card(s) parked in its loop since the table restarted: {why}"), ()),
    (N_("the dealer has not taken back the {n} card(s) parked in its loop since the table restarted"), ()),
]
# what the referee tells one seat only (seat=...): what that player must do with the cards in their
# hands and pockets (engine/referee/taking.py, entries.py, steps.py); tests/ui/test_refusal_words.py
# finds every such message in engine/ and fails on one not understood whole here
_TEMPLATES += [
    (N_("{name}: {card} to pass ({n} of {need})"), ()),
    (N_("{name}: {card} to give ({n} of up to 3)"), ()),
    (N_("{name}: your second card {card} comes to your pocket: look at it and feed it back (the discards)"), ()),
    (N_("{name}: feed {card} back; you keep the card that comes to your pocket (the discards)"), ()),
    (N_("{name}: your replacements are none"), ()),
    (N_("{name}: your replacements are {cards}"), ()),
    (N_("{name}: hand your passed cards face down to {other}"), ()),
    (N_("{name}: your card is {card} (in your pocket)"), ()),
    (N_("{name}: your card is {card}"), ()),
    # an undo of a play (said to everyone: the card was face up in the trick)
    (N_("{name}: take {card} back from the trick pocket"), ()),
]


def _plurals() -> list[tuple[str, Callable[[int], str]]]:
    """The referee's "N card(s)" sentences (English template) with their words for a count:
    said in the kiosk's language as one card or as several."""
    return [
        ("{name}: take the {n} card(s) you fed back from the discard pocket",
         lambda n: ngettext("{name}: take the {n} card you fed back from the discard pocket",
                            "{name}: take the {n} cards you fed back from the discard pocket", n)),
        ("{name}: feed the {n} card(s) you gave into the play slot, one at a time (the other Double Nil exchange may "
         "draw them)",
         lambda n: ngettext("{name}: feed the {n} card you gave into the play slot (the other Double Nil exchange "
                            "may draw it)",
                            "{name}: feed the {n} cards you gave into the play slot, one at a time (the other Double "
                            "Nil exchange may draw them)", n)),
        ("{name}: put the {n} card(s) you gave in the discard pocket",
         lambda n: ngettext("{name}: put the {n} card you gave in the discard pocket",
                            "{name}: put the {n} cards you gave in the discard pocket", n)),
    ]


_PLURAL_PATTERNS = [(_rx(t), words) for t, words in _plurals()]
# fields that hold the referee's card names ("KH", "TS QS"): a seat's own message names them as
# the kiosk draws them (K♥, 10♠), in every language
_CARD_FIELDS = {"card", "cards", "give", "get", "twins"}
_CARD = re.compile(r"(?<![\w])([2-9TJQKA])([SHDC])(?![\w])")
_POCKETS = {"trick": N_("trick"), "discard": N_("discard"), "centre": N_("centre"), "loop": N_("loop")}
_PATTERNS: list[tuple[re.Pattern[str], str, tuple[str, ...]]] = [(_rx(t), t, inner) for t, inner in _TEMPLATES]

# fields holding the dealer driver's own words: a sentence whose only unknown part is one of
# these is still given in the kiosk's language, that part as the driver said it
_DRIVER_FIELDS = {"detail", "doing", "why"}

# the dealer's stages in the driver's words (a jam "at the reader stage")
_STAGES = {"feed": N_("feed"), "read": N_("read"), "transport": N_("transport"), "misroute": N_("misroute"),
           "loop": N_("loop"), "pocket full": N_("pocket full"), "reading a fed card": N_("reading a fed card"),
           "the self-test": N_("the self-test")}


def translate(text: str) -> str:
    """``text`` (the referee's words) in the kiosk's language, as far as it is known."""
    if current() == "en" or not text:
        return text
    return _words(text)[0]


def understood(text: str) -> bool:
    """Whether every part of ``text`` is a known template (so ``translate`` gives it whole)."""
    return bool(text) and _words(text)[1]


def seat_words(text: str) -> str:
    """A message the referee said to one seat only, in the kiosk's language (English too) with
    its cards named as the kiosk names them ("K♥", not the referee's "KH"); a sentence not
    known is shown as the referee said it."""
    if not text:
        return text
    return _words(text, cards=True)[0]


def card_words(text: str) -> str:
    """The referee's card names in ``text`` ("KH", "TS QS", "2C, 3D") as the kiosk names cards."""
    from . import card_art as A

    return _CARD.sub(lambda m: A.card_text(C.parse(m.group(0))), text)


def _words(text: str, cards: bool = False) -> tuple[str, bool]:
    if text in _FIXED:
        return _(text), True
    if text in _SUITS:
        return _(_SUITS[text]), True
    if text in _PHASES:
        return _(_PHASES[text]), True
    if text in _STAGES:
        return _(_STAGES[text]), True
    if text in _POCKETS:
        return _(_POCKETS[text]), True
    for plural, said in _PLURAL_PATTERNS:
        m = plural.fullmatch(text)
        if m is not None and m.group("n").isdigit():
            return said(int(m.group("n"))).format(**m.groupdict()), True
    partial: str | None = None  # the first template that fits with some part not known (kept as said)
    for pattern, template, inner in _PATTERNS:
        m = pattern.fullmatch(text)
        if m is None:
            continue
        parts: dict[str, str] = {}
        unknown: set[str] = set()
        for k, v in m.groupdict().items():
            if k in inner:
                v, known = _words(v, cards)
                if not known:
                    unknown.add(k)
            elif cards and k in _CARD_FIELDS:
                v = card_words(v)
            parts[k] = v
        if not unknown:
            return _(template).format(**parts), True
        if partial is None and unknown <= _DRIVER_FIELDS:
            partial = _(template).format(**parts)
    return (text, False) if partial is None else (partial, False)
