"""Command handling: the dealer's half of the conversation in hardware/PROTOCOL.md.

``Dealer`` owns the link (parser, sequence numbers, the reply cache that makes retransmitted
commands harmless), the event log the host can re-read by index, the deal plans it has seen
(so a plan re-sent after a lost reply is not dealt twice), and its model of the return loop:
the cards it sent round the loop, in the order they will come back to the read window (the
hopper is fed from the bottom, the loop drops cards on its top: one first-in first-out queue).
The card movements themselves are jobs and ops handed to mechanics.py. ``tick()`` is one pass
of the main loop.

Protocol version 2: the v1 commands PRESENT, TURN_UP, DEAL_STOCK and ROUTE_FACEUP are unknown
types, the targets 0x83 (face-up) and 0x86 (staging) are gone (hardware/PROTOCOL.md section 11).
Protocol version 3: every step carries a step id the dealer remembers (steps.py): a step sent
again is answered with its first reply and never done twice, STEP_QUERY says what it did, and
INVENTORY where the dealer put the cards (hardware/PROTOCOL.md section 12).
"""

from . import config
from . import mechanics as M
from . import protocol as P
from . import steps as S
from .ticks import ticks_diff

BATCHED_EVENTS = (P.EV_CARD_DEALT, P.EV_CARD_ROUTED, P.EV_MISREAD, P.EV_DUPLICATE)

MOVING_COMMANDS = (P.DEAL_PLAN, P.ROUTE_PRESENTED, P.FEED, P.FETCH, P.SELFTEST, P.RESUME)


LAST = 255  # a loop card's place behind every other (loop_add): first in, first out
# Places from here on are parked cards' (FEED or ROUTE_PRESENTED's place byte, 240-242, or LAST):
# a deal's loop cards have their plan index, 0-207 (a FETCH's cards sent "to the top" go under them)
PARKED = 208

# A FETCH with a sorting hopper sends the cards it reads before its card to places over it
# (FetchJob.found_under); to the top of the stack only once LIFT_TOP or more of them have come
# and the top is nearer than their places (FetchJob.top_is_nearer), or once it has sent more
# cards round than the loop held when it began (a backstop). Before, the sixth such card sent
# them all to the top whatever lay over them, and the next FETCH sent those cards round once:
# 32-39 passes on hands 1012 and 1025, where the wanted card lay over only 6 and 7 cards.
LIFT_TOP = 6
# Dealer.fetch_marks: read over the wanted card's model place and sent to its place; sent to
# the top; not read yet, its place between the wanted card's and a card read under it, so taken
# to lie under it too; sent to the very top of the stack, over the parked cards too (read again
# after TOPPED); sent to its place before any card was taken to lie under the wanted card (that
# place counted them: read again, to its place again); read again while cards are marked UNDER
# and sent to its place once more (read a third time: to the top; FetchJob.found_under)
LIFTED, TOPPED, UNDER, OVER, EARLY, AGAIN = 1, 2, 3, 4, 5, 6
# A FETCH with flag SWEEP (sorting hopper) first reads every loop card once: a card read gets
# this bit in its place (loop_key) and goes round over the cards not read yet, in their places'
# order among those read; when every card has been read the bits go (FetchJob.sweep_route)
SWEPT = 0x80


class Refused(Exception):
    """A command that cannot be carried out: becomes a NAK with ``reason``."""

    def __init__(self, reason):
        # super(), not Exception.__init__(self, ...): MicroPython's built-in types have no
        # __init__ attribute to call (AttributeError: every NAK would reboot the dealer).
        super().__init__(reason)
        self.reason = reason


class Plan:
    """A deal plan as received: entries are (card, target) pairs in deck order."""

    def __init__(self, deal_id, total, flags=0):
        self.deal_id = deal_id
        self.total = total
        self.flags = flags  # bit0: a fresh deal (the players gathered every card first)
        self.entries = bytearray()
        self.started = False

    def received(self):
        return len(self.entries) // 2

    def complete(self):
        return self.received() == self.total


class DealJob:
    """Deals the hopper by card identity against a plan.

    Entries to the loop (0x85) are read once and sent round the loop in read order: the
    dealer's loop model (``Dealer.loop``) gets them in that order. The deal stops after
    ``total`` filled entries, so a card it sent round is not fed again; a card that comes back
    round with no entry left for it means every card of the hopper was read (the deck lacks
    some): it goes round again and the deal ends as if the hopper were empty (with a sorting
    hopper: a loop card read twice; once may be a card the blade put under the last one)."""

    def __init__(self, dealer, plan):
        self.dealer = dealer
        self.plan = plan
        self.by_card = {}
        e = plan.entries
        for i in range(plan.total):
            c = e[2 * i]
            if c not in self.by_card:
                self.by_card[c] = []
            self.by_card[c].append(i)
        self.used = bytearray(plan.total)
        dealer.deal_marks_clear()  # no loop card read again yet, none under the cards to deal
        self.routed = 0  # cards given a target (some may still be on the belt)
        self.last_index = -1
        self.filled = 0
        self.rejected = 0
        self.dups = []
        self.given_up = []  # plan entries whose card a jam stopped on the belt (never filled)
        self.wrapped = False
        self.returning = []  # cards that missed their pocket and come back round the loop
        self.bottom_sent = False  # the stack's bottom card fed at the end (bottom_route)

    def next_op(self):
        d = self.dealer
        mech = d.mech
        if self.wrapped and self.routed < self.plan.total:
            if mech.flights:
                return None  # the HOPPER_EMPTY count waits for the cards on the belt
            d.emit(P.EV_HOPPER_EMPTY, bytes((min(255, self.plan.total - self.filled),)))
            self.routed = self.plan.total
            return None
        if self.routed >= self.plan.total:
            gate = mech.gate
            if gate.run and mech.belt:
                return M.WAIT  # the last card is just leaving the window: wait for a settled gate
            if gate.state and mech.belt and not d.loop:
                # the last feed move brought one more card to the window: a card beyond the
                # plan (a duplicate) goes to the reject pocket, and so does each one after it.
                # (With cards in the loop it is the loop's first card: it waits there.)
                return self._op()
            if d.deal_bottom >= 0 and d.loop and d.loop[0] == d.deal_bottom and not self.wrapped:
                # the card loop_depth_now kept at the bottom of the stack, under cards whose
                # places are before its own, goes round to its place: the deal ends with the
                # loop in the plan's order (else the first FETCH sends it round)
                if d.board.loop_dropping():
                    return M.WAIT  # (a card landing now may land under it: fed, it is read)
                op = M.Op("hopper", self.bottom_route, self.done)
                op.pull_next = False
                return op
            return None
        if not d.board.hopper_has_card() and not mech.gate.state:
            if mech.flights:
                return None  # the HOPPER_EMPTY count waits for the cards on the belt
            if mech.unswept:
                return mech.homecoming()  # cards a reboot left on the loop come home first
            d.emit(P.EV_HOPPER_EMPTY, bytes((min(255, self.plan.total - self.filled),)))
            self.routed = self.plan.total  # nothing more to feed: finish
            return None
        return self._op()

    def _op(self):
        op = M.Op("hopper", self.route, self.done, undo=self.undo)
        op.misrouted = self.misrouted
        op.lost = self.lost
        return op

    def lost(self, op):
        """The mechanism gave up on this deal's card at a jam (it never reached its pocket or
        the loop's sensors): its entry stays taken (the card is not in the hopper to be dealt
        again) and DEAL_DONE lists it as missing, never filled."""
        i = getattr(op, "index", -1)
        if i >= 0 and self.used[i] and i not in self.given_up:
            self.given_up.append(i)

    def undo(self):
        """The card just routed was part of a double feed: it goes back on the hopper."""
        i = self.last_index
        if i >= 0 and self.used[i]:
            self.used[i] = 0
            self.routed -= 1
            if self.plan.entries[2 * i + 1] == self.dealer.cfg.LOOP:
                self.dealer.loop_forget_last(self.plan.entries[2 * i])
        self.last_index = -1

    def misrouted(self, op):
        """A card of this deal passed its pocket and goes round the loop: its entry is open
        again and it is dealt when it comes back to the window."""
        i = getattr(op, "index", -1)
        if i >= 0 and self.used[i]:
            self.used[i] = 0
            self.routed -= 1
        self.returning.append(op.card)
        self.dealer.loop_add(op.card, LAST)

    def route(self, card, conf):
        d = self.dealer
        self.last_index = -1
        if card == P.UNKNOWN_CARD:
            return (P.REJECT, -1, P.EV_MISREAD)
        for i in self.by_card.get(card, ()):
            if not self.used[i]:
                self.used[i] = 1
                self.routed += 1
                self.last_index = i
                if card in self.returning:
                    self.returning.remove(card)
                    d.loop_take(card)
                target = self.plan.entries[2 * i + 1]
                last = self.routed >= self.plan.total
                if target == d.cfg.LOOP:
                    if last:
                        d.deal_last = card  # nothing is left to deal: nothing lies over it
                    d.loop_add(card, i)  # its place in the loop: the plan's order
                    return (target, -1, P.EV_CARD_DEALT, not last)
                # the last card: with cards in the loop the feed move brings none of them to
                # the window (the hopper's pickup is held): the loop's first stays next
                return (target, -1, P.EV_CARD_DEALT, not (last and d.loop))
        if card in d.loop:  # it came back round the loop: every card in the hopper was read
            d.loop_take(card)
            if card == d.deal_bottom:
                d.deal_bottom = -1  # (not at the bottom any more)
            # ... unless a sorting hopper's blade put it one too deep, under the last card not
            # yet dealt (its place was the bottom of the loop's cards; the blade's
            # repeatability is a card): it goes round to its place, over the cards still to
            # deal (deal_under), and the deal goes on. A loop card read a third time means
            # every card of the hopper was read (a second read may be one more slip of the
            # blade, rarer: a short deck costs one more trip round).
            if not d.sorts or d.deal_reread(card) >= 3:
                self.wrapped = True
            d.loop_add(card)
            return (d.cfg.LOOP, -1, "cycle")
        return (P.REJECT, -1, P.EV_DUPLICATE)

    def bottom_route(self, card, conf):
        """The stack's bottom card, fed once the plan's cards are dealt (next_op): a loop card
        goes round to its place, whichever it is (once: a card the blade put under the kept
        one goes round to its place, and the kept one is where kept_over says)."""
        d = self.dealer
        kept = d.deal_bottom
        d.deal_bottom = -1
        self.bottom_sent = True
        if card in d.loop:
            d.loop_take(card)
            if d.sorts and kept >= 0 and kept != card and d.loop_take(kept):
                self.kept_over(kept, card)
            d.loop_add(card)
            return (d.cfg.LOOP, -1, "cycle", False)
        return self.route(card, conf)

    def kept_over(self, kept, card):
        """The stack's bottom card was ``card``, not ``kept`` (the card loop_depth_now kept at the
        bottom): the blade's one-card error put ``card`` under ``kept`` when it landed, with every
        card then in the stack but ``kept`` over its place; each card whose place is before
        ``card``'s landed after it, counted ``card`` over itself and went in under ``kept`` too.
        So ``kept`` lies over every card whose place is before ``card``'s and under the others:
        the model says so (``card`` then goes round to its place counted from the top with
        ``kept`` where it lies: under it if its place is before ``kept``'s). Hand 1079 on the
        twin: TH under KC, then 36 cards under KC; the FETCH of KC read the 20 whose places are
        after KC's, sent each to its place counted with KC at the bottom, under KC again, and
        read them 2-3 times (31 passes, 20 needed), then sent them to the top of the stock: 10
        passes more at the next FETCH. In all 9 hands of 160 where the bottom card was not the
        kept one, the kept card's place in the model after the deal is its place in the stack."""
        d = self.dealer
        loop = d.loop
        key = d.loop_key
        k = key[card]
        j = 0
        while j < len(loop) and key[loop[j]] < k:
            j += 1
        loop.insert(j, kept)

    def done(self, card, target, conf):
        d = self.dealer
        kind = d.mech.last_op.tag  # the op being reported (others may be on the belt)
        if kind == "cycle":
            return
        if kind == P.EV_MISREAD:
            self.rejected += 1
            d.emit(P.EV_MISREAD, bytes((target, d.mech.op_attempts())))
        elif kind == P.EV_DUPLICATE:
            self.rejected += 1
            self.dups.append(card)
            d.emit(P.EV_DUPLICATE, bytes((card, target)))
        else:
            self.filled += 1
            d.landed(card, target, conf, P.EV_CARD_DEALT)

    def missing(self):
        """The plan entries never filled, in plan order: never taken, or given up at a jam."""
        e = self.plan.entries
        return [e[2 * i] for i in range(self.plan.total) if not self.used[i] or i in self.given_up]

    def finish(self):
        self.dealer.deal_marks_clear()
        self.dealer.emit(P.EV_DEAL_DONE, counts_payload(
            P.u16(self.plan.deal_id) + bytes((min(255, self.filled), min(255, self.rejected))),
            self.missing(), self.dups))

    def cancel(self):
        self.dealer.deal_marks_clear()
        self.dealer.emit(P.EV_ABORTED, P.u16(self.plan.deal_id))


class FetchJob:
    """FETCH from the loop: feed loop cards (each read, and sent round the loop again) until
    ``card`` is in the read window, then route it to ``target``; target HOLD (stage) keeps it
    there (event STAGED). A card read that is not the one the model predicts resyncs the
    model (it is re-queued where it really is); a card not in the model at all is a stray
    (DUPLICATE, reject pocket)."""

    def __init__(self, dealer, card, target, pull=False, sweep=False):
        self.dealer = dealer
        self.card = card
        self.target = target
        self.pull = pull  # flag NEXT: the eject brings the loop's next card to the window
        self.passes = 0
        # flag SWEEP: the loop cards not read yet in this sweep (0: no sweep, or it is over);
        # only where every place leaves SWEPT free (a deal's stock: no parked card, LAST)
        self.sweeping = 0
        if sweep and dealer.sorts:
            self.sweeping = len(dealer.loop)
            for c in dealer.loop:
                if dealer.loop_key[c] & SWEPT:
                    self.sweeping = 0
        self.swept_passes = 0  # cards the sweep sent round (passes counts the FETCH's own)
        self.found = False
        self.failed = False
        self.ready = False  # staging: the card before it has gone, it is next in the hopper
        self.staged = False
        self.limit = 2 * len(dealer.loop) + dealer.cfg.LOOP_SLACK
        self.held = len(dealer.loop)  # found_under's backstop: more passes than this, the top
        self.lifted = 0  # cards read that the model had over the wanted card (found_under)
        self.again = 0  # ... read a second time or more
        self.topping = False  # found_under sends them to the top of the stack
        self.over_all = False  # ... to the very top, over the parked cards (a topped card came again)
        self.under = False  # found_under marked cards UNDER (until the wanted card is read)
        # the card last routed, its route's tag and (sorting) its fetch mark before: undo()
        self.last_card = -1
        self.last_tag = None
        self.last_mark = 0
        if dealer.sorts:
            dealer.fetch_marks_clear()

    def next_op(self):
        d = self.dealer
        mech = d.mech
        if self.ready:
            self.staged = True
            return None
        if self.found or self.failed:
            return None
        if mech.gate.run:
            return M.WAIT
        if d.sorts:
            # (also with a card in the window, brought there by a FETCH with flag NEXT: sent
            # round now, its feed move would take the card under the one still falling, and
            # the cards behind it would go round one after the other)
            if d.board.loop_dropping() and (not self.sweeping or self.sweeping < 3) and not self.falls_over():
                # a card is falling onto the stack (D saw it): it may be this one (a sweep's
                # cards fall on the top: it goes on while more than two lie under them unread)
                return M.WAIT
            for f in (() if self.sweeping else mech.flights):
                if f.pocket is None and f.op.card == self.card:
                    # it is on its way back round the loop (a card before it was out of its
                    # place, or a FEED sent it round): the sorting hopper puts it in at its
                    # place, so wait for it; feeding the cards behind it now would send them
                    # round after it, out of their places, and the next fetches would chase them
                    return M.WAIT
        if not d.board.hopper_has_card() and not mech.gate.state:
            if mech.flights:
                return M.WAIT  # the loop is bringing cards back to the hopper
            if mech.unswept:
                return mech.homecoming()  # cards a reboot left on the loop come home first
            self.failed = True
            return None
        if self.passes > self.limit:
            self.failed = True
            return None
        op = M.Op("hopper", self.route, self.done, undo=self.undo)
        op.misrouted = self.misrouted
        return op

    def undo(self):
        """The card just routed was one of a double feed: the person puts both back in the
        hopper under the stack, the first one lowest (next to be fed), and RESUME feeds again.
        The model is made the hopper's: the card first, not where its route put it (the card
        fetched is not found yet: the FETCH goes on and reads it again; a card sent round loses
        the blade depth it was given). Found through the whole table on the twin: a double
        feed of the card wanted ended the FETCH after RESUME with no event (the host: "idle but
        never reported the end"), and sent again it was refused (no card for it)."""
        d = self.dealer
        card = self.last_card
        self.last_card = -1
        if card < 0 or self.last_tag not in ("fetch", "cycle"):
            return
        if self.last_tag == "fetch":
            self.found = False
        else:
            self.passes -= 1
            self.ready = False  # (a stage: the card wanted lies under this one again)
            if d.loop_take(card) and d.sorts:
                d.board.loop_depth_forget()
                d.fetch_marks[card] = self.last_mark
        d.loop.insert(0, card)

    def falls_over(self):
        """The card falling onto the stack is another card, and its place is two or more over
        this one's in the model: a feed move now takes no card it lands among, even if the
        blade put it one off (a Double Nil's discards fed back round the loop: waiting for each
        to land cost the next FETCH up to the 60 ms of its fall)."""
        d = self.dealer
        c = d.board.loop_falling()
        if c < 0 or c == self.card:
            return False
        loop = d.loop
        w = -1
        for j in range(len(loop)):
            x = loop[j]
            if x == self.card:
                w = j
            elif x == c:
                return 0 <= w <= j - 2
        return False

    def route(self, card, conf):
        r = self._route(card)
        self.last_tag = r[2]
        return r

    def _route(self, card):
        d = self.dealer
        loop = d.cfg.LOOP
        self.last_card = card  # (undo: a double feed)
        if d.sorts and 0 <= card < len(d.fetch_marks):
            self.last_mark = d.fetch_marks[card]
        if card == P.UNKNOWN_CARD:  # unreadable: taken to be the predicted card, sent round
            self.passes += 1
            d.loop_valid = False
            self.last_card = -1
            if d.loop:
                self.last_card = d.loop[0]
                if d.sorts:
                    self.last_mark = d.fetch_marks[self.last_card]
                d.loop_add(d.loop.pop(0))
            return (loop, -1, "cycle")
        if d.loop and d.loop[0] != card:
            d.resyncs += 1
        if self.sweeping and card in d.loop:
            self.sweep_route(card)
            return (loop, -1, "cycle")
        if card == self.card:
            self.found = True
            if self.under:  # every card under it has been read: a card still marked lies over it
                self.under_clear()
            if self.target == P.HOLD:  # read already: staged where it is, in the window
                d.loop_take(card)
                d.loop.insert(0, card)
                return (P.HOLD, -1, "stage")
            d.loop_take(card)
            pull = self.pull
            if pull and d.sorts and d.loop and d.board.loop_on_way(d.loop[0]):
                # the loop's next card is on its way round (read before this one, it lay under
                # it): the hopper's bottom card is not it, so pulling it would send it round too
                pull = False
            return (self.target, -1, "fetch", pull)
        if card in d.loop:
            if d.sorts:
                self.found_under(card)
            else:
                d.loop_take(card)
                d.loop_add(card)
            self.passes += 1
            if self.target == P.HOLD and d.loop[0] == self.card and not self.under:
                # staging: this card goes round without bringing the next one (the staged
                # card) to the window: it waits at the bottom of the hopper, next to be fed.
                # Not with cards marked UNDER: this card lay where the model had cards over
                # the staged one, so those lie under it and the staged card is not next; the
                # stage reads on and stops with it in the window, each card read going to
                # its place over it (hand 1032 on the twin: a STAGED here dropped the marks,
                # the FETCH sent ten cards to the top of the stock, over four it needed first)
                self.ready = True
                return (loop, -1, "cycle", False)
            return (loop, -1, "cycle")
        return (P.REJECT, -1, "stray")

    def sweep_route(self, card):
        """Flag SWEEP: ``card`` was read; it goes round over the cards not read yet, at its place
        among those read (its place gets the SWEPT bit, so the model keeps the unread cards under
        the read ones and the blade's depth counts only read cards with later places). Read in
        the stack's order, each card drops on the top (depth 0): a pair the blade inverted
        during the deal is put right (the later card read first goes on the top, the other in
        under it), with no player waiting. A read card read again (the blade put it under an
        unread one) goes round again. When every card has been read the bits go: the model is
        the plan's order again, and the FETCH goes on for its own card; so it does after more
        cards than the FETCH's limit (twice the loop and some) if one never comes."""
        d = self.dealer
        key = d.loop_key
        d.loop_take(card)
        if not key[card] & SWEPT:
            key[card] |= SWEPT
            self.sweeping -= 1
        self.swept_passes += 1
        d.loop_add(card)
        if not self.sweeping:  # every card read: the places as they were (the order unchanged)
            for c in d.loop:
                key[c] &= SWEPT - 1
        elif self.swept_passes > self.limit:
            # a card of the model never came (the loop holds fewer cards than it says): the
            # sweep ends here and the FETCH goes on, with its own limit (JAM 5 if its card is gone)
            self.sweep_end()

    def found_under(self, card):
        """Sorting hopper: ``card`` was read before the wanted card, so it lay under it; it goes
        round to a place over it. If the loop model had it under the wanted card (a FETCH of a
        card that is not the bottom one: the model is right), it goes in just over the wanted
        card, among the cards already sent there in their places' order; at its own place it
        would drop in under the wanted card again and be fed again at once, until the FETCH's
        limit (JAM 5).

        If the model had it over the wanted card, the wanted card lies higher than the model
        says: the blade's one-card error grows that way (depths count from the top, so every
        later card whose place lies between the two went under the first). So the cards whose
        places lie between the wanted card's and this one's, not read yet, are taken to lie
        under the wanted card too (marked UNDER): the blade's depth for a card going round,
        worked out when it moves (Dealer.loop_depth_now), leaves them out, and the card drops
        in over the wanted card even while cards under it are still unread (counted, they sent
        it under the wanted card again, to be read again: 91 passes and JAM 5 on hand 1023). A
        guess wrong by a card costs a pass at a later fetch. Once the wanted card is read the
        marks go (route), and the cards still on their way go to their own places. Only where
        the top is nearer (top_is_nearer), or once this FETCH has sent round more cards than
        the loop held (a backstop), do they, and those sent before them still on their way, go
        to the top of the stack in their places' order (a later FETCH sends the cards between
        round once). While cards are marked UNDER (the wanted card lies higher than the model
        said, over a gap), a card read again after going to its own place goes to the top at
        once (under the parked cards): its place lay under the wanted card, and the depths
        would send it there again. Without marks (the wanted card one or two cards off, as in
        hand 1006) the second time at its place is kept: once every card under the wanted one
        has been read their places are over it, and a card sent to the top would lie over the
        next cards to fetch (the next FETCH sends them round)."""
        d = self.dealer
        loop = d.loop
        want = self.card
        i = 0
        w = -1
        for j in range(len(loop)):
            c = loop[j]
            if c == card:
                i = j
            elif c == want:
                w = j
        marks = d.fetch_marks
        if 0 <= w < i:  # (the model had it over the wanted card: those between are under it too)
            first = not self.under
            for j in range(w + 1, i):
                c = loop[j]
                if not marks[c]:
                    marks[c] = UNDER
                    self.under = True
            if first and self.under:  # the cards sent to their places before counted them
                for c in loop:
                    if marks[c] == LIFTED:
                        marks[c] = EARLY
        loop.pop(i)
        if i < w:
            d.loop_add_above(card, want)
            return
        if self.over_all or marks[card] == TOPPED or marks[card] == OVER:
            # read again after it went to the top (under the parked cards): a parked card the
            # depths counted lies under the wanted card, so "the top" there is under it too and
            # every card sent there comes back (hand 1020 on the twin: 6S one over its place,
            # the 12 stock cards after it and the discard 7H under it, 68 passes and JAM 5).
            # This card and every one read after it go to the top over the parked cards too
            # (under the cards sent there before whose places are after its own). With no
            # parked card it is the place lift_to_top gives
            self.over_all = True
            j = d.loop_top(card, OVER)
            d.board.loop_depth(len(loop) - 1 - j, card)
            return
        if marks[card] == EARLY:
            # read again, sent to its place before cards were taken to lie under the wanted
            # card: that place counted them as over it, so it lay under the wanted card; its
            # place counted without them is over it (hand 1097 on the twin: JC, the card after
            # AC, went to the top of the stock instead, and the stage of it sent the 37 cards
            # of the stock round, 13 s)
            marks[card] = LIFTED
            if not self.topping:
                d.loop_add(card)
                return
        if marks[card] == LIFTED and self.under and not self.topping:
            # read again, with cards taken to lie under the wanted card: the blade's one-card
            # error may have dropped it in just under the wanted card, so it goes to its place
            # once more (hand 1119 on the twin: KH, the card after 6D, sent to the top from
            # here, and the FETCH of it sent 28 cards round)
            self.again += 1
            marks[card] = AGAIN
            d.loop_add(card)
            return
        if marks[card] == AGAIN and self.under and not self.topping:
            # read again twice: the place it went to lay under the wanted card, and the depths
            # would send it there again (hand 1020 on the twin, AD wanted: eight cards sent to
            # their places 4-7 times each, 58 passes; hand 1023, 9H: 47). It goes to the top of
            # the stack (under the parked cards, in its place's order among those sent there)
            self.again += 1
            j = d.loop_top(card)
            d.board.loop_depth(len(loop) - 1 - j, card)
            return
        if marks[card] == LIFTED or marks[card] == AGAIN:
            self.again += 1  # read again: it went round and landed under the wanted card again
        elif marks[card] != TOPPED:
            self.lifted += 1
            marks[card] = LIFTED
        if not self.topping and self.passes < self.held and not self.top_is_nearer(w):
            d.loop_add(card)
            return
        self.lift_to_top(card)

    def top_is_nearer(self, w):
        """Whether the top of the stack is the cheaper place for the cards read under the
        wanted card (the model's at ``w``): LIFT_TOP or more of them read, in the model's
        order (none has been read with cards whose places lie between it and the wanted card
        still unread: such marks tell where the wanted card is, and its place is right), and
        no more cards that can lie over it (in the model over it, not read: each goes round
        once at the next FETCH if these go to the top) than cards read under it so far,
        counting those read again (each went round for nothing). Hand 1002's FETCH of 7S, 13
        cards left, 9 under it: 17 passes to their places, 10 to the top. Parked cards (a
        Double Nil's discards) do not count: the top is the stock's, under them (loop_top).
        Once a card has been read again (found_under sent it to the top) the marks no longer
        tell where the wanted card is: a card sent to its place over the marked ones came back,
        so the wanted card lies higher still (hand 1023 on the twin, 9H: 13 cards read 2-5
        times each before the backstop, 47 passes; now 22)."""
        if self.lifted < LIFT_TOP or (self.under and not self.again):
            return False
        loop = self.dealer.loop
        marks = self.dealer.fetch_marks
        key = self.dealer.loop_key
        over = 0
        for j in range(w + 1, len(loop)):
            c = loop[j]
            if not marks[c] and key[c] < PARKED:  # (parked cards stay over the top: loop_top)
                over += 1
        return over <= self.lifted + self.again

    def lift_to_top(self, card):
        """``card`` and the cards this FETCH sent to their places before it that have not
        landed yet go to the top of the stack, in their places' order (one that has landed
        stays where it went: read again under the wanted card, it goes to the top then)."""
        d = self.dealer
        loop = d.loop
        marks = d.fetch_marks
        if not self.topping:  # the ones sent to their places before go to the top too
            self.topping = True
            j = 0
            while j < len(loop):
                c = loop[j]
                if (marks[c] == LIFTED or marks[c] == EARLY or marks[c] == AGAIN) and d.board.loop_on_way(c):
                    loop.pop(j)
                    d.loop_top(c)
                else:
                    j += 1
            d.board.loop_depth_again()  # (the blade may be set for one of them already)
        j = d.loop_top(card)
        d.board.loop_depth(len(loop) - 1 - j, card)

    def under_clear(self, drive=True):
        """The UNDER marks go (the wanted card was read, or the FETCH ended or was stopped: a
        deal or a FEED after it must count every card again)."""
        self.under = False
        marks = self.dealer.fetch_marks
        for c in self.dealer.loop:
            if marks[c] == UNDER:
                marks[c] = 0
        if drive:
            self.dealer.board.loop_depth_again()  # (the blade may be set leaving them out)

    def done(self, card, target, conf):
        d = self.dealer
        tag = d.mech.last_op.tag
        if tag == "cycle":
            return
        if tag == "stray":
            d.emit(P.EV_DUPLICATE, bytes((card, target)))
            return
        if tag == "stage":
            d.staged = card
            d.emit(P.EV_STAGED, bytes((card, min(255, self.passes))))
            d.mech.job = None
            return
        d.landed(card, target, conf, P.EV_CARD_ROUTED)

    def misrouted(self, op):
        self.dealer.loop_add(op.card, LAST)  # it missed its pocket and comes back round

    def finish(self):
        d = self.dealer
        if self.staged:
            d.staged = self.card
            d.emit(P.EV_STAGED, bytes((self.card, min(255, self.passes))))
        if self.under:
            self.under_clear()
        self.sweep_end()
        if self.failed:  # the card never came: the model no longer matches the hopper
            d.loop_valid = False
            d.mech.stop_for(M.ST_LOOP, self.card)

    def cancel(self):
        d = self.dealer
        if self.found and d.mech.unejected == self.card and self.target != P.HOLD:
            # stopped with its card routed but still in the read window: the loop's first card
            # again, where ABORT and RESET leave it (found on the simulated table: an e-stop
            # while the flap for a German Whist stock card turned; the card stayed in the window,
            # the model had taken it out, and every FETCH of it after Resume was refused)
            d.loop_take(self.card)
            d.loop.insert(0, self.card)
            d.mech.from_slot = False  # (its eject, begun with the hopper held, brought no slot card)
        elif self.found and d.mech.gone_out == self.card and self.target != P.HOLD:
            # its eject cut short after it left the window: it goes round into the loop
            # (Mechanics._gone_out), so it is a loop card again, at its place
            d.loop_add(self.card)
        if self.under:  # (aborted or e-stopped: the blade is not driven)
            self.under_clear(False)
        self.sweep_end()
        self.dealer.emit(P.EV_ABORTED, P.u16(0))

    def sweep_end(self):
        """A sweep stopped before every card was read: the places as they were."""
        if self.sweeping:
            self.sweeping = 0
            key = self.dealer.loop_key
            for c in self.dealer.loop:
                key[c] &= SWEPT - 1


def counts_payload(head, missing, dups):
    """head + n_missing, missing, n_dup, dups, lists cut so the event fits one frame."""
    room = P.MAX_BODY - 2 - 2 - len(head) - 2
    missing = list(missing)[:min(255, room)]
    dups = list(dups)[:min(255, room - len(missing))]
    return head + bytes((len(missing),)) + bytes(missing) + bytes((len(dups),)) + bytes(dups)


class FeedJob:
    """Reads cards players feed and routes them (or holds each one).

    With cards parked in the loop the hopper holds them, so fed cards come through the play
    slot (opto S): the job waits for a card there; a loop card waiting in the read window is
    sent round the loop by the feed move that brings the slot card in (the model re-queues
    it). A card already in the window is read first (it may be a fed card left there, by a
    power cut say, or the loop's first card: then it stays until a card is in the slot).
    Target 0x85 parks the fed cards in the loop (passes)."""

    def __init__(self, dealer, count, target, window_known=False, place=LAST, pull=False):
        self.dealer = dealer
        self.count = count
        self.target = target
        self.place = place  # target 0x85: the fed cards' place in a sorting hopper (loop_add)
        # FEED flag NEXT: the eject of the count's last fed card brings the loop's next card
        # (the hopper's bottom one) to the read window, unread, for the FETCH that follows
        self.pull = pull and count > 0
        self.fed = 0
        self.routed = 0
        self.expect_fed = False  # the next card in the window is the one from the slot
        self.window_known = window_known  # the window's card was read: the loop's first
        # the last next_op() waited for a person to feed a card (nothing in the play slot, or
        # an empty hopper), not for the mechanism: STATUS flags bit6, so the host does not
        # take a player who thinks for a stalled dealer
        self.awaits = False

    def next_op(self):
        self.awaits = False
        d = self.dealer
        mech = d.mech
        board = d.board
        if self.count and self.routed >= self.count:
            return None
        if (d.loop or d.hopper_unknown) and hasattr(board, "slot_has_card"):
            if mech.gate.run:
                return M.WAIT
            if mech.gate.state and not self.expect_fed and not self.window_known and mech.from_slot:
                # the feed move that brought it took it from the play slot (a person dropped it
                # in while the card before it was read and held, then routed): a fed card, even
                # when a second deck's twin parked in the loop would make it look like the loop's
                # first card (it waited in the window, unread, for a card nobody fed)
                self.expect_fed = True
            if mech.gate.state and not self.expect_fed:
                if not self.window_known:
                    return M.Op("hopper", self.route, self.done)  # what is in the window?
                if not board.slot_has_card():
                    self.awaits = True  # a person feeds the card
                    return M.WAIT
                # the loop's first card waits in the window: this feed move sends it round
                # and brings the slot card in
                card = d.loop.pop(0)
                d.loop_add(card)
                self.expect_fed = True
                self.window_known = False
                op = M.Op("gate", self.cycle, self.cycle_done, card=card)
                op.hold = True  # the feed move brings the slot card in, no hopper card
                return op
            short = False
            if not mech.gate.state:
                if mech.short_feed:
                    # a stop cut a feed move short: its card may lie short of the gate, and a
                    # feed move brings it in first (a fed card, or the loop's, as that move
                    # took). Found on the physical twin: the e-stop while a played card was fed
                    # from the slot; after RESET the FEED waited for a card in the empty slot,
                    # the played card 28 mm short of the gate, and the table waited for good
                    mech.short_feed = False
                    short = True
                    self.expect_fed = mech.from_slot
                elif not board.slot_has_card():
                    self.awaits = True
                    return M.WAIT
                else:
                    self.expect_fed = True
            op = M.Op("hopper", self.route, self.done)
            op.hold = True  # the hopper holds parked cards: only the slot's card moves
            op.short = short
            return op
        if not board.hopper_has_card() and not mech.gate.state:
            self.awaits = True
            return M.WAIT
        return M.Op("hopper", self.route, self.done)

    def cycle(self, card, conf):
        return (self.dealer.cfg.LOOP, -1, "cycle")

    def cycle_done(self, card, target, conf):
        pass

    def route(self, card, conf):
        d = self.dealer
        expected = self.expect_fed
        self.expect_fed = False
        if expected and d.mech.pull_cut and d.loop and card == d.loop[0]:
            # the loop's next card a stopped NEXT pull left in the feed path, short of the gate:
            # the feed move brought it in ahead of the slot's card (found on the physical twin,
            # an e-stop then a jam while a played card's eject pulled the stock card: it was
            # read as the card fed, and the table told a player to take a stock card back)
            expected = False
        if not expected and card != P.UNKNOWN_CARD and card in d.loop:
            # the loop's first card in the window (not a fed one): it waits there. A card the
            # feed brought from the slot is a fed card whatever the model holds (its twin of a
            # second deck, or the same card fed twice: the referee decides)
            d.loop_take(card)
            d.loop.insert(0, card)
            self.window_known = True
            return (P.HOLD, -1, "leave")
        self.routed += 1
        if card == P.UNKNOWN_CARD:
            return (P.REJECT, -1, True)
        if self.target == P.HOLD:
            return (P.HOLD, -1, False)
        if self.target == d.cfg.LOOP:
            d.loop_add(card, self.place)
        if self.pull and self.routed >= self.count and may_pull(d):
            # flag NEXT, the count's last card: its eject takes the hopper's bottom card too
            # (the pickup was held for the slot's card): the lift comes down now, during the
            # turn stage, before that feed move starts (mechanics sets it again at the eject)
            d.mech.op.hold = False
            d.mech.hold_hopper(False)
            return (self.target, -1, False, True)
        return (self.target, -1, False, not d.loop)

    def done(self, card, target, conf):
        d = self.dealer
        tag = d.mech.last_op.tag
        if tag == "cycle":
            return
        if tag == "leave":
            d.mech.held = None  # not held for the host: the loop's card, left in the window
            return
        self.fed += 1
        if tag:  # misread
            d.emit(P.EV_MISREAD, bytes((target, d.mech.op_attempts())))
        elif target == P.HOLD:
            d.emit(P.EV_PRESENTED, bytes((P.HOLD, card, conf)))
        else:
            d.landed(card, target, conf, P.EV_CARD_DEALT)

    def finish(self):
        self.dealer.emit(P.EV_FEED_DONE, bytes((min(255, self.fed),)))

    def cancel(self):
        self.dealer.emit(P.EV_ABORTED, P.u16(0))


class SelftestJob:
    """Reads every card in the hopper: mode 0 sends each round the loop (the deck ends back
    in the hopper, in the same order; the job stops when the first card comes back round: a
    duplicate of that very card would be taken for it), mode 1 deals round robin."""

    def __init__(self, dealer, mode):
        self.dealer = dealer
        self.mode = mode
        self.seen = {}
        self.read = 0
        self.misreads = 0
        self.next_seat = 0
        self.wrapped = False
        dealer.staged = None
        if mode == 0:
            dealer.loop = []

    def next_op(self):
        d = self.dealer
        if self.wrapped:
            return None
        if not d.board.hopper_has_card() and not d.mech.gate.state:
            if self.mode == 0 and d.mech.flights:
                return M.WAIT  # the loop is bringing cards back
            return None
        return M.Op("hopper", self.route, self.done)

    def route(self, card, conf):
        d = self.dealer
        if card == P.UNKNOWN_CARD:
            return (P.REJECT, -1)
        if self.mode == 0:
            if d.loop and card == d.loop[0]:  # back round the loop: every card was read
                self.wrapped = True
                d.loop_add(d.loop.pop(0))
                return (d.cfg.LOOP, -1, "cycle")
            d.loop_add(card, LAST)
            return (d.cfg.LOOP, -1)
        seat = self.next_seat
        self.next_seat = (seat + 1) % self.dealer.cfg.SEAT_COUNT
        return (seat, -1)

    def done(self, card, target, conf):
        d = self.dealer
        if d.mech.last_op.tag == "cycle":
            return
        if card == P.UNKNOWN_CARD:
            self.misreads += 1
            d.emit(P.EV_MISREAD, bytes((target, d.mech.op_attempts())))
            return
        self.read += 1
        self.seen[card] = self.seen.get(card, 0) + 1
        d.emit(P.EV_CARD_DEALT, bytes((card, target, conf)))

    def finish(self):
        missing = [c for c in range(52) if c not in self.seen]
        dups = []
        for c in sorted(self.seen):
            dups.extend([c] * (self.seen[c] - 1))
        head = bytes((min(255, self.read), min(255, self.misreads)))
        self.dealer.emit(P.EV_SELFTEST_DONE, counts_payload(head, missing, dups))

    def cancel(self):
        self.dealer.emit(P.EV_ABORTED, P.u16(0))


class EventRing:
    """The event log: the last ``entries`` events (at most ``size`` bytes of them), each kept
    as it goes into an event block (kind, [length,] payload), in one preallocated bytearray.

    Nothing is allocated per event: an event is copied into the ring, the oldest ones give way.
    (Before issue 20 the log was a list of (index, bytes) tuples: every event allocated, and
    the 257th entry regrew the list by 4 KB in one piece, which failed on a fragmented Pico
    heap with 75 KB free.)"""

    def __init__(self, entries, size):
        self.size = size
        self.buf = bytearray(size)
        self.off = bytearray(2 * entries)  # start offset of each slot (u16)
        self.lens = bytearray(entries)
        self.entries = entries
        self.first = 0  # index of the oldest event kept
        self.count = 0
        self.head = 0  # next free byte
        self.used = 0

    def _slot(self, index):
        return index % self.entries

    def add(self, index, kind, payload):
        n = len(payload)
        need = n + (2 if kind >= 0x40 else 1)
        if self.count == 0:
            self.first = index
        while self.count and (self.count >= self.entries or self.used + need > self.size):
            self.used -= self.lens[self._slot(self.first)]
            self.first = (self.first + 1) & 0xFFFF
            self.count -= 1
        if self.count == 0:
            self.first = index
            self.used = 0
        k = self._slot(index)
        self.off[2 * k] = self.head >> 8
        self.off[2 * k + 1] = self.head & 0xFF
        self.lens[k] = need
        buf = self.buf
        size = self.size
        h = self.head
        buf[h] = kind
        h = (h + 1) % size
        if kind >= 0x40:
            buf[h] = n
            h = (h + 1) % size
        for i in range(n):
            buf[h] = payload[i]
            h = (h + 1) % size
        self.head = h
        self.used += need
        self.count += 1

    def block(self, first, out, limit, next_index=None):
        """Write an event block (u16 first index, events...) from event ``first`` on into
        ``out`` (as many as fit MAX_BODY, at most ``limit`` when given): (events, bytes).
        An index older than the log starts at the oldest kept; one past the newest gives an
        empty block at ``next_index``."""
        end = (self.first + self.count) & 0xFFFF
        back = (end - first) & 0xFFFF
        if back > self.count:
            first = self.first  # gone: start at the oldest kept
            back = self.count
        if back == 0 or (back > 0x8000):
            nxt = end if next_index is None else next_index
            out[0] = (nxt >> 8) & 0xFF
            out[1] = nxt & 0xFF
            return 0, 2
        out[0] = (first >> 8) & 0xFF
        out[1] = first & 0xFF
        size = 2
        n = 0
        buf = self.buf
        while n < back:
            if limit and n >= limit:
                break
            k = self._slot((first + n) & 0xFFFF)
            length = self.lens[k]
            if size + length > P.MAX_BODY:
                break
            at = (self.off[2 * k] << 8) | self.off[2 * k + 1]
            for i in range(length):
                out[size + i] = buf[(at + i) % self.size]
            size += length
            n += 1
        return n, size


class ByteRing:
    """The USB transmit queue: a preallocated ring of bytes. A frame goes in whole or not at
    all (``put``); the link takes what it can from the oldest byte (``peek``/``drop``)."""

    def __init__(self, size):
        self.buf = bytearray(size)
        self.mv = memoryview(self.buf)
        self.size = size
        self.head = 0
        self.used = 0

    def __len__(self):
        return self.used

    def put(self, data):
        n = len(data)
        if self.used + n > self.size:
            return False
        tail = (self.head + self.used) % self.size
        first = min(n, self.size - tail)
        self.mv[tail:tail + first] = data[:first] if first < n else data
        if first < n:
            self.mv[0:n - first] = memoryview(data)[first:]
        self.used += n
        return True

    def peek(self, most):
        """The oldest bytes, up to ``most`` and up to the ring's end (a view: no copy)."""
        n = min(most, self.used, self.size - self.head)
        return self.mv[self.head:self.head + n]

    def drop(self, n):
        self.head = (self.head + n) % self.size
        self.used -= n


class Dealer:
    def __init__(self, board, cfg=None):
        if cfg is None:
            cfg = config.Settings()
        self.board = board
        self.cfg = cfg
        self.mech = M.Mechanics(board, cfg, self.emit)
        self.parser = P.Parser()
        self.tx_seq = 0
        self.last_host_seq = 0
        self.cache = []
        self.log = EventRing(cfg.EVENT_LOG, getattr(cfg, "EVENT_LOG_BYTES", 4096))
        self.next_event = 0
        self.pending = 0  # the newest this many events of the log wait for an EVENT frame
        self.pending_since = 0
        self.urgent = False
        self.deadman_ms = cfg.DEADMAN_MS
        now = board.link_ticks_ms()
        self.last_rx = now
        self.last_tx = now
        self.boot_id = board.boot_id() & 0xFFFF
        self.config_crc = P.crc16(config.config_bytes(cfg))
        self.plans = []
        self.partial = None
        self.deal_job = None
        # The loop model: the cards sent round the loop, first one to come back to the read
        # window first (it may be in the window already). Reset by every DEAL_PLAN.
        self.loop = []
        self.loop_valid = True
        # each card's place in the loop's order (loop_add): the plan index of a deal's loop
        # card, LAST for others; one byte per card id, allocated once
        self.loop_key = bytearray(b"\xff" * 256)
        # during a deal, per card: bit 0 set while the card lies under the cards still to deal
        # (deal_reread), bits 1-7 the times the deal read it from the loop; allocated once
        self.deal_marks = bytearray(256)
        # the deal's last card, once read (-1: none): no card is left to deal, so the loop cards
        # under the cards still to deal (deal_marks bit 0) lie under it, and its depth counts
        # them: it goes in at its place. Left out, it went in over them (hand 1020 on the twin:
        # the deck's last card, AD, place 7, read after 20 loop cards the blade had put under
        # it, went in over 19 of them; its FETCH sent 24 cards round and the next FETCH 23). The
        # cards the deal read again and sent round before it keep going in over them, as those
        # before them did (counted for those too, hand 1023 of German Whist lay split: 24 s).
        self.deal_last = -1
        # during a deal, the card loop_depth_now keeps at the bottom of the stack (-1: none):
        # its place is later than those of cards over it; it goes round when the deal is done
        self.deal_bottom = -1
        # during a FETCH, per card: LIFTED, TOPPED or UNDER (FetchJob.found_under); allocated once
        self.fetch_marks = bytearray(256)
        self.sorts = hasattr(board, "sorts") and bool(board.sorts())
        if self.sorts:  # the blade's depth for a card, worked out when it moves for it
            board.loop_depth_source(self.loop_depth_now)  # (one bound method, made once)
        self.resyncs = 0  # cards read where the model expected another (each re-queued)
        self.staged = None  # a loop card staged (FETCH ... 0xFE): held in the read window
        self.mech.window_is_loop = self.window_is_loop
        self.mech.loop_gone = self.loop_gone
        self.reboot_pending = False
        self.txq = ByteRing(cfg.LINK_TX_QUEUE)  # frames waiting for room on the USB link
        self.body = bytearray(P.MAX_BODY)  # scratch for event blocks (EVENT, EVENTS)
        self.tx_dropped = 0  # frames dropped because the host stopped reading
        self.steps = S.Steps(getattr(cfg, "STEP_MEMORY", 16))
        self.ledger = S.Ledger()
        self.nv_dirty = False
        if hasattr(board, "nv_read"):  # the steps, the ledger and the loop model before a reboot
            if S.nv_restore(self, board.nv_read()):
                self.nv_dirty = True  # (interrupted steps are saved so)
        # A card in the read window at boot that no kept loop model accounts for (a blank or
        # new flash, or nothing saved): most likely the loop's card a NEXT pull brought there
        # before the power went, possibly a fed card never read. Either way it is kept, not
        # sent to the reject pocket by the host's ABORT or RESET: the next deal (the host's
        # relearning of the loop, or a fresh deal) reads it first, and it goes where its plan
        # says (a card no plan names goes to the reject pocket by name). Found with two-player
        # Spades cut by a power loss after a draw's card was fed back (FEED flag NEXT) and the
        # dealer rebooted blank: the card was rejected unread, the relearning could never
        # find it, and the table stopped.
        self.boot_card = not self.loop and self.staged is None and bool(board.gate_has_card())
        # Cards in the hopper that no kept loop model accounts for (a blank flash, a model not
        # valid when saved): most likely cards the host parked in the loop. Until a deal reads
        # the hopper afresh (DEAL_PLAN: the host's relearning), a FEED takes only the play slot's
        # card, as with a known loop: else the next card a player feeds is taken from under the
        # parked cards (found on the simulated table: a watchdog reboot with a blank flash while
        # passed cards were parked, and the next pass fed another seat's parked card).
        self.hopper_unknown = not self.loop and bool(board.hopper_has_card())
        self.emit(P.EV_BOOT, bytes((board.reset_cause(),)))

    # ---- events ------------------------------------------------------------------------------

    def emit(self, kind, payload):
        """Log an event under the next index and queue it for the next EVENT frame. The log is
        a preallocated ring (EventRing): logging allocates nothing, and the oldest events
        make room (the host re-reads what it missed with EVENTS_SINCE while they are kept).
        The open steps and the ledger take their part of it first (steps.py)."""
        self.steps.on_event(kind, payload)
        self.ledger.on_event(kind, payload, self.cfg.LOOP)  # saved with the next step change
        self.log.add(self.next_event, kind, payload)
        if not self.pending:
            self.pending_since = self.board.ticks_ms()
        self.pending = min(self.pending + 1, self.log.count)
        if kind not in BATCHED_EVENTS:
            self.urgent = True
        self.next_event = (self.next_event + 1) & 0xFFFF

    def flush_events(self, force=True):
        """Send queued events, as many per EVENT frame as fit (consecutive indices).

        Per-card events (BATCHED_EVENTS) may wait up to EVENT_BATCH_MS of mechanism time so
        that two or three cards share one frame: that keeps a deal's line time in budget
        (hardware/PROTOCOL.md section 8). Anything else and a mechanism that has stopped (tick)
        send them at once.
        """
        if not self.pending:
            return
        if not force and not self.urgent:
            if ticks_diff(self.board.ticks_ms(), self.pending_since) < self.cfg.EVENT_BATCH_MS:
                return
        self.urgent = False
        while self.pending:
            first = (self.next_event - self.pending) & 0xFFFF
            n, size = self.log.block(first, self.body, 0)
            if n == 0:
                self.pending = 0
                return
            self.pending -= n
            self.send(P.EVENT, memoryview(self.body)[:size])

    def events_since(self, first, limit):
        n, size = self.log.block(first, self.body, limit, self.next_event)
        return bytes(memoryview(self.body)[:size])

    # ---- the link ------------------------------------------------------------------------------

    def send(self, ftype, body):
        frame = P.encode_frame(ftype, self.tx_seq, self.last_host_seq, body)
        self.tx_seq = (self.tx_seq + 1) & 0xFF
        self.queue_out(frame)
        self.last_tx = self.board.link_ticks_ms()
        return frame

    def queue_out(self, frame):
        """Queue a whole frame for the USB link, or drop it (and count it) if the queue is full.

        The link never blocks the loop: drain() hands the board at most LINK_TX_BUDGET bytes a
        pass and the board takes only what the USB buffer has room for. A host that stops
        reading fills the queue; frames that do not fit are dropped whole (never cut), counted
        in ``tx_dropped``. Nothing is lost for good: events stay in the log (EVENTS_SINCE) and
        a reply is sent again from the reply cache when the host retransmits its command.
        """
        if not self.txq.put(frame):
            self.tx_dropped += 1
            return False
        return True

    def drain(self):
        """Write queued bytes, without blocking: stop at the budget or when the board is full."""
        budget = self.cfg.LINK_TX_BUDGET
        txq = self.txq
        while txq.used and budget > 0:
            chunk = txq.peek(budget)  # a view into the ring: no copy
            n = self.board.link_write(chunk)
            if not n:
                return
            txq.drop(n)
            budget -= n

    def tick(self):
        """One pass: read the link, step the mechanism, dead-man, events, keep-alive."""
        data = self.board.link_read()
        if data:
            for b in data:
                frame = self.parser.feed(b)
                if frame is not None:
                    self.on_frame(frame)
        self.mech.step()
        now = self.board.link_ticks_ms()
        if self.mech.moving() and ticks_diff(now, self.last_rx) > self.deadman_ms:
            self.mech.deadman()
        # batching is for a working mechanism: once its job has ended no card will share the
        # frame, and the host ends its step on the last card's event (a FETCH's CARD_ROUTED);
        # config.EVENT_SEND_AT_END (on) sends it then
        self.flush_events(force=self.cfg.EVENT_SEND_AT_END and not self.mech.busy())
        if self.mech.moving() and ticks_diff(now, self.last_tx) >= self.cfg.BUSY_EVERY_MS:
            if self.pending:
                self.flush_events()  # the waiting card events are the keep-alive
            else:
                self.send(P.BUSY, self.busy_body())
        if self.reboot_pending:
            self.reboot_pending = False
            self.mech.estop(2)
            self.save()
            self.drain()  # the OK to RESET, as far as the link takes it now
            self.board.reboot()
        self.save()
        self.drain()

    def save(self):
        """Write the steps, the ledger and the loop model when they changed (one write per
        loop pass at most; steps.py says why and when)."""
        if not (self.nv_dirty or self.steps.dirty) or not hasattr(self.board, "nv_write"):
            return
        self.nv_dirty = False
        self.steps.dirty = False
        self.board.nv_write(S.nv_image(self))

    def on_frame(self, frame):
        if not frame.ok:
            self.flush_events(force=False)
            self.send(P.NAK, bytes((0, frame.reason)))
            return
        self.last_rx = self.board.link_ticks_ms()
        self.last_host_seq = frame.seq
        if frame.type == P.ESTOP:
            self.mech.estop(2)  # before the duplicate check and before anything queued
        # A dead-man pause ends only with RESUME: a frame proves some host is there, not that
        # it still wants the paused motion (a restarted host says HELLO first and knows
        # nothing of it; ABORT, ESTOP and RESET are about to stop it).
        resumed = False
        if frame.type == P.HELLO:
            # A handshake starts a conversation: the replies cached for the frames before it are
            # not answers to the frames after it. A host started again (its Pi lost power, this
            # dealer did not) begins at a random sequence number; its HELLO, the same bytes as
            # the last host's when the numbers met, got that host's IDENTIFY back from the cache
            # (the event index of an hour ago: the host then took old events for new ones, a
            # card read long before for the card just fed), and any later frame meeting a cached
            # one (a STATUS) a stale answer. Commands sent again after it are safe without the
            # cache: steps by their ids, plans by their deal ids, the rest only look.
            self.cache = []
        for seq, crc, cached in self.cache:
            if seq == frame.seq and crc == frame.crc:
                self.flush_events(force=False)
                self.queue_out(cached)
                self.last_tx = self.board.link_ticks_ms()
                return
        try:
            rtype, body = self.dispatch(frame.type, frame.body, resumed)
        except Refused as e:
            rtype, body = P.NAK, bytes((frame.type, e.reason))
        self.flush_events(force=False)
        reply = self.send(rtype, body)
        self.cache.append((frame.seq, frame.crc, reply))
        if len(self.cache) > self.cfg.REPLY_CACHE:
            self.cache.pop(0)

    # ---- commands --------------------------------------------------------------------------------

    def dispatch(self, ftype, body, resumed=False):
        handler = HANDLERS.get(ftype)
        if handler is None:
            raise Refused(P.NAK_UNKNOWN_TYPE)  # (v1 PRESENT, TURN_UP, DEAL_STOCK, ROUTE_FACEUP too)
        step = None
        if ftype in P.STEP_COMMANDS:
            if len(body) < 2:
                raise Refused(P.NAK_BAD_BODY)
            sid = P.get_u16(body, 0)
            key = P.crc16(body)
            known = self.steps.find(sid)
            if known is not None:
                if known.type != ftype or known.key != key:
                    raise Refused(P.NAK_CONFLICT)  # the same id for another step
                return (P.STEP, known.body())  # what it did: nothing is done again
            body = body[2:]
            # remembered before it acts: the events it sends at once are its own
            step = S.Step(sid, ftype, key, self.next_event)
        if ftype in MOVING_COMMANDS and ftype != P.RESUME:
            state = self.mech.state
            if state == M.ESTOPPED:
                raise Refused(P.NAK_ESTOPPED)
            if state == M.JAMMED:
                raise Refused(P.NAK_JAMMED)
        if step is not None:
            self.steps.add(step)
        try:
            out = handler(self, body, resumed)
        except Refused:
            if step is not None:
                self.steps.remove(step)  # refused: nothing was done, it may be sent again
            raise
        if step is not None and out[0] == P.OK:
            step.code = out[1][1]
            if ftype in (P.ABORT, P.RESUME):
                self.steps.set(step, P.STEP_DONE)
        return out

    def ok(self, ftype, code=P.OK_DONE):
        return (P.OK, bytes((ftype, code)))

    def need(self, body, n):
        if len(body) != n:
            raise Refused(P.NAK_BAD_BODY)

    def check_target(self, t, allow_hold=False):
        """A card can go to a seat pocket, a tray pocket or the loop (v1 face-up 0x83 and
        staging 0x86: BAD_BODY)."""
        if t == P.HOLD and allow_hold:
            return
        if 0 <= t < self.cfg.SEAT_COUNT or t in self.cfg.V2_TRAYS:
            return
        raise Refused(P.NAK_BAD_BODY)

    def check_idle(self, unstage=False):
        """Moving commands need a mechanism at rest with no card waiting in the gate (a staged
        loop card may stay there when ``unstage``: it is the loop's first card again)."""
        if self.mech.busy():
            raise Refused(P.NAK_BUSY)
        held = self.mech.held
        if held is not None:
            if not (unstage and held[0] == self.staged):
                raise Refused(P.NAK_BUSY)
            self.unstage()

    def unstage(self):
        """Forget a staging: a card staged in the window is no longer held for the host (it
        is the loop's first card there); one staged in the hopper stays next anyway."""
        if self.staged is not None:
            held = self.mech.held
            if held is not None and held[0] == self.staged:
                self.mech.held = None
            self.staged = None

    def window_is_loop(self):
        """The card in the read window belongs to the loop (the last feed move brought the
        loop's first card in, or it is staged there, or it lay there at boot with no loop model
        to say whose it is: ``boot_card``), so ABORT must not reject it. A fed card
        held there is no loop card, even while another card is staged in the hopper (issue 18:
        an e-stop's RESET left such a card in the window, held for nobody, and every routing
        of it was refused)."""
        if self.boot_card:
            return True
        held = self.mech.held
        if held is not None:
            return self.staged is not None and held[0] == self.staged
        if self.staged is not None:
            return True
        # the last feed move took its card from the play slot (a fed card not read yet when an
        # ABORT came): no loop card, whatever the loop holds (it was kept there as the loop's
        # first card, and the inventory named that card in the window)
        return bool(self.loop) and not self.mech.from_slot

    def loop_gone(self, card):
        """The next loop card overtook this one before E (it caught on the path: the person
        clearing the jam takes it out): it is in neither the hopper nor the splitter's queue."""
        self.loop_take(card)
        if self.sorts:
            self.board.loop_depth_drop(card)

    def loop_take(self, card):
        """Take ``card`` out of the loop model (it was read, wherever the model had it)."""
        for i in range(len(self.loop)):
            if self.loop[i] == card:
                self.loop.pop(i)
                return True
        return False

    def loop_forget_last(self, card):
        for i in range(len(self.loop) - 1, -1, -1):
            if self.loop[i] == card:
                self.loop.pop(i)
                if self.sorts:
                    self.board.loop_depth_forget()
                return

    def loop_add(self, card, key=None):
        """``card`` goes round the loop now (it leaves the read window for it). The return
        drops it on the top of the hopper: the model is a first-in first-out queue. With a
        sorting hopper (board.sorts(): the splitter of hardware/README.md) each card has a
        place, ``key`` (the plan's order for a deal's loop cards, LAST for parked ones; None:
        the card's own, it is only going round): the board holds the top cards off the stack
        so that it drops in under every card whose place is after its own, and the model keeps
        that order. The depth is counted from the top of the stack when the blade moves for
        the card (the card before it has landed): the cards after it in the model that are in
        the stack then (loop_depth_now)."""
        if key is not None:
            self.loop_key[card] = key
        loop = self.loop
        if not self.sorts:
            loop.append(card)
            return
        k = self.loop_key[card]
        j = len(loop)
        while j > 0 and self.loop_key[loop[j - 1]] > k:
            j -= 1
        loop.insert(j, card)
        under = self.deal_marks  # (a deal's cards under the cards still to deal: not counted)
        every = card == self.deal_last  # (... but under the deal's last card: counted)
        n = 0
        for i in range(j + 1, len(loop)):
            if every or not under[loop[i]] & 1:
                n += 1
        self.board.loop_depth(n, card)

    def deal_marks_clear(self):
        self.deal_last = -1
        self.deal_bottom = -1
        m = self.deal_marks
        for i in range(len(m)):
            m[i] = 0

    def deal_reread(self, card):
        """During a deal (sorting hopper), the loop card ``card`` was read: the blade had put it
        under the cards still to deal. Its place was then the bottom of the loop cards over
        them, so every loop card now in the stack whose place is below its own lies under them
        too (a card given its depth later counted ``card`` above it, and went one too deep, as
        hand 1020 showed on the twin: twelve cards under the deck's last card, one read twice,
        the deal short). Those are marked; loop_depth_now leaves them out, so ``card`` and
        every loop card after it drops in over the cards still to deal. So are those on their
        way round with a place below its own: their depths were given counting the marked cards,
        and the blade, moving now by the whole difference, may be late for them (on the twin it
        was: 9S in hand 1023); marked, one that landed where it should costs at most a pass at
        its fetch. A card already read again in this deal is not marked: it went round in over
        the cards still to deal, whatever its place (marked again by each later card read from
        under them, a run of such cards left each next one out of the depth, and in hand 1023
        of Double Nil under the referee the cards read after it went in under it, 22 cards
        round for one FETCH). The times ``card`` has been read this deal (this one included)."""
        m = self.deal_marks
        key = self.loop_key
        k = key[card]
        for c in self.loop:
            if key[c] < k and not m[c] >> 1:
                m[c] |= 1
        n = min(127, (m[card] >> 1) + 1)
        m[card] = n << 1  # read: it is no longer under anything
        return n

    def fetch_marks_clear(self):
        m = self.fetch_marks
        for i in range(len(m)):
            m[i] = 0

    def loop_add_above(self, card, wanted):
        """``card`` goes round to a place over ``wanted`` (a FETCH read it under that card):
        just over it, or over the cards there whose places are before its own."""
        loop = self.loop
        key = self.loop_key
        k = key[card]
        j = 0
        for i in range(len(loop)):
            if loop[i] == wanted:
                j = i + 1
                break
        while j < len(loop) and key[loop[j]] < k:
            j += 1
        loop.insert(j, card)
        self.board.loop_depth(len(loop) - 1 - j, card)

    def loop_top(self, card, mark=TOPPED):
        """Put ``card`` in the model at the top of the stack, under the cards a FETCH sent there
        before whose places are after its own, and under the parked cards (a Double Nil's
        discards over the stock: at the very top, the next FETCH sent discards round to reach
        it, 20 passes in one fetch of the twin's hand 1032); its index in the model. ``mark``
        OVER: over the parked cards too (FetchJob.found_under: the top under them lay under
        the wanted card)."""
        loop = self.loop
        key = self.loop_key
        marks = self.fetch_marks
        marks[card] = mark
        k = key[card]
        under_parked = mark == TOPPED
        j = len(loop)
        while j > 0 and key[loop[j - 1]] > k and (marks[loop[j - 1]] == TOPPED or marks[loop[j - 1]] == OVER or
                                                  (under_parked and key[loop[j - 1]] >= PARKED)):
            j -= 1
        loop.insert(j, card)
        return j

    def loop_depth_now(self, card):
        """``card``'s depth under the top of the stack now, as the blade moves for it: the
        cards after it in the model, less those on their way round behind it. Counted when it
        left the read window, a card read off its place meanwhile (taken out of the stack, sent
        round again) was counted as above it: one early one-card error of the blade then grew,
        every later card went under the card the FETCH wanted and was sent round again, to the
        same place, until the FETCH's limit (hand 1002 on the twin, JAM 5)."""
        loop = self.loop
        under = self.deal_marks
        below = self.fetch_marks  # (UNDER: taken to lie under the card a FETCH wants)
        every = card == self.deal_last  # (the deal's last card: under it too, counted)
        flying = self.board.loop_flying
        n = 0
        over = 0  # cards in the stack the model has under it
        at = -1
        first = -1  # the first card in the stack the model has over it
        marked = False  # cards taken to lie under the cards still to deal (deal_reread)
        for i in range(len(loop)):
            c = loop[i]
            if under[c] & 1:
                marked = True
            if c == card:
                at = i
            elif (every or not under[c] & 1) and below[c] != UNDER and not flying(c):
                if at < 0:
                    over += 1
                else:
                    n += 1
                    if first < 0:
                        first = i
        if n and not over and not marked and self.deal_open():
            # its place is the bottom of the stack, right over the cards still to deal: the
            # blade's one-card error there puts it under the first of them, and every card
            # after it with a place below its own then counts it and goes under too (hand 1077
            # on the twin: 7D, the second loop card, one too deep under KC; 22 cards went in
            # under KC, the deal read them again and again and ended with KC never read). It
            # goes in one card higher, over the stack's bottom card, which stays at the bottom
            # (the model says so: that card goes before it) and goes round to its place when
            # the plan's cards are dealt (DealJob.bottom_route: one pass); the next card whose
            # place is the bottom goes in over it again. The blade one card off from there
            # puts it at the bottom of the stack, never under a card still to deal.
            # (Not once the deal has read a loop card from under the cards to deal: the
            # model's bottom is then a guess, and deal_reread's marks see to those cards.)
            self.deal_bottom = loop[first]
            loop.insert(at, loop.pop(first))
            return n - 1
        return n

    def deal_open(self):
        """A deal is under way that may have cards of its plan in the hopper, under the stack's
        loop cards (a sorting hopper's loop cards drop in on top of them): until the stack's
        bottom card goes round (DealJob.bottom_route; the deal's last card is kept over it too,
        so that the card fed then is the one kept there)."""
        job = self.mech.job
        return isinstance(job, DealJob) and not job.wrapped and not job.bottom_sent


    def identify_body(self, flags2=False):
        """IDENTIFY; ``flags2``: with the second flags byte at the end (a host whose HELLO asks
        for it: an older host, which does not, reads no byte after the trays)."""
        cfg = self.cfg
        fw = cfg.FIRMWARE_VERSION
        trays = sorted(cfg.V2_TRAYS)
        out = bytearray((P.PROTOCOL, fw[0], fw[1], fw[2]))
        out.extend(P.u16(self.boot_id))
        out.extend(P.u16(self.config_crc))
        out.extend(bytes((cfg.SEAT_COUNT, cfg.READER_KIND, min(255, cfg.LOOP_CAPACITY),
                          min(255, cfg.MAX_PLAN))))
        out.extend(P.u16(self.deadman_ms))
        out.extend(P.u16(self.next_event))
        out.append(cfg.FLAGS)
        out.append(len(trays))
        out.extend(bytes(trays))
        if flags2:
            out.append(cfg.FLAGS2)
        return bytes(out)

    def state_code(self):
        m = self.mech
        if m.state == M.ESTOPPED:
            return 8
        if m.state == M.JAMMED:
            return 7
        if m.state == M.PAUSED:
            return 6
        job = m.job
        if job is not None:
            if isinstance(job, DealJob):
                return 2
            if isinstance(job, FeedJob):
                return 3 if m.held is not None else 5
            if isinstance(job, FetchJob):
                return 4
            return 9
        if m.state == M.RUNNING or m.flights:
            return 4
        if m.held is not None:
            return 3
        if self.partial is not None:
            return 1
        return 0

    def awaits_person(self):
        """A FEED waits for a player to feed a card (the play slot or the hopper is empty) with
        nothing of its own under way: the host lets a person think as long as they like (a
        motor that does not move, a card caught in the path, is a RUNNING mechanism: its own
        stage timeouts end it with a JAM)."""
        m = self.mech
        job = m.job
        return (isinstance(job, FeedJob) and job.awaits and m.state == M.WAITING
                and m.held is None and not m.gate.run)

    def progress(self):
        job = self.mech.job
        if isinstance(job, DealJob):
            return job.filled, job.plan.total
        if isinstance(job, FeedJob):
            return job.fed, job.count
        if isinstance(job, SelftestJob):
            return job.read + job.misreads, 0
        if isinstance(job, FetchJob):
            # the loop cards it sent round so far: a long fetch on a slow mechanism is progress
            # the host sees in STATUS (else the last deal's count stood still and the host took
            # the fetch for a stalled dealer: the Pi's "refused FETCH")
            return job.passes, 0
        if self.deal_job is not None:
            return self.deal_job.filled, self.deal_job.plan.total
        return 0, 0

    def busy_body(self):
        done, total = self.progress()
        return bytes((self.state_code(), min(255, done), min(255, total)))

    def status_body(self):
        done, total = self.progress()
        b = self.board
        flags = 0
        if self.mech.state == M.ESTOPPED:
            flags |= 1
        if b.hopper_has_card():
            flags |= 2
        if self.mech.held is not None:
            flags |= 4
        if self.loop_valid:
            flags |= 8  # the loop model is valid
        if self.mech.state == M.PAUSED:
            flags |= 16
        if b.estop_pressed():
            flags |= 32
        if self.awaits_person():
            flags |= 64
        deal_id = self.deal_job.plan.deal_id if self.deal_job is not None else 0
        out = bytearray((self.state_code(),))
        out.extend(P.u16(deal_id))
        out.append(min(255, total))
        out.append(min(255, done))
        out.extend(P.u16(self.next_event))
        out.append(flags)
        out.append(min(255, len(self.loop)))  # loop_count
        out.extend(P.u16(self.boot_id))
        return bytes(out)

    def landed(self, card, target, conf, kind):
        """A card reached target: report it."""
        if kind == P.EV_CARD_DEALT:
            self.emit(kind, bytes((card, target, conf)))
        else:
            self.emit(kind, bytes((card, target)))


def cmd_hello(d, body, resumed):
    if len(body) < 3:
        raise Refused(P.NAK_BAD_BODY)
    if body[0] != P.PROTOCOL:
        raise Refused(P.NAK_BAD_VERSION)  # a version-1 host
    ms = P.get_u16(body, 1)
    if ms:
        d.deadman_ms = max(d.cfg.DEADMAN_MIN, min(d.cfg.DEADMAN_MAX, ms))
    # an optional 4th byte, host_flags (ignored by a firmware before it, as any byte after the 3rd)
    host_flags = body[3] if len(body) > 3 else 0
    return (P.IDENTIFY, d.identify_body(bool(host_flags & P.HELLO_WANTS_FLAGS2)))


def cmd_ping(d, body, resumed):
    return d.ok(P.PING)


def cmd_status(d, body, resumed):
    return (P.STATUS_REPLY, d.status_body())


def cmd_events_since(d, body, resumed):
    if len(body) not in (2, 3):
        raise Refused(P.NAK_BAD_BODY)
    limit = body[2] if len(body) == 3 else 0
    return (P.EVENTS, d.events_since(P.get_u16(body, 0), limit))


def cmd_deal_plan(d, body, resumed):
    if len(body) < 7 or (len(body) - 5) % 2:
        raise Refused(P.NAK_BAD_BODY)
    deal_id = P.get_u16(body, 0)
    total = body[2]
    offset = body[3]
    flags = body[4]
    chunk = bytes(body[5:])
    k = len(chunk) // 2
    if total == 0 or offset + k > total:
        raise Refused(P.NAK_BAD_BODY)
    if total > d.cfg.MAX_PLAN:
        raise Refused(P.NAK_TOO_BIG)
    for i in range(k):
        if chunk[2 * i] >= 52 or chunk[2 * i + 1] == P.HOLD:
            raise Refused(P.NAK_BAD_BODY)
        d.check_target(chunk[2 * i + 1])
    plan = None
    for p in d.plans:
        if p.deal_id == deal_id:
            plan = p
    known = d.steps.find(deal_id)
    if known is not None and known.type != P.DEAL_PLAN:
        raise Refused(P.NAK_CONFLICT)  # the id of another step
    if plan is None and known is not None:
        return (P.STEP, known.body())  # a deal it began before a reboot: what it did
    if plan is None and d.partial is not None and d.partial.deal_id == deal_id:
        plan = d.partial
    if plan is not None:
        if plan.total != total or plan.flags != flags:
            raise Refused(P.NAK_CONFLICT)
        have = plan.received()
        overlap = min(have, offset + k) - offset
        if overlap > 0 and bytes(plan.entries[2 * offset:2 * (offset + overlap)]) != chunk[:2 * overlap]:
            raise Refused(P.NAK_CONFLICT)
        if offset + k <= have:
            if known is not None:
                return (P.STEP, known.body())  # the deal began: what it did (nothing again)
            return d.ok(P.DEAL_PLAN, P.OK_ALREADY)
        if offset > have:
            raise Refused(P.NAK_BAD_STATE)  # a chunk out of order: resend from `have`
        if offset < have:  # it overlaps what came (the host re-cut its chunks): take the rest
            chunk = chunk[2 * (have - offset):]
            k = len(chunk) // 2
            offset = have
    else:
        if offset != 0:
            raise Refused(P.NAK_BAD_STATE)
        plan = Plan(deal_id, total, flags)
    last = offset + k == total
    if last:
        d.check_idle(unstage=True)
        counts = {}  # cards per target over the whole plan
        for i in range(plan.received()):
            t = plan.entries[2 * i + 1]
            counts[t] = counts.get(t, 0) + 1
        for i in range(k):
            t = chunk[2 * i + 1]
            counts[t] = counts.get(t, 0) + 1
        if counts.get(d.cfg.LOOP, 0) > d.cfg.LOOP_CAPACITY:
            raise Refused(P.NAK_TOO_BIG)
        if getattr(d.board, "COUNTS_POCKETS", False):  # every pocket must hold its share
            for t in counts:
                cap = d.cfg.POCKET_CAP.get(t)
                if t < d.cfg.SEAT_COUNT:
                    cap = d.cfg.SEAT_POCKET_CAP
                if cap is not None and counts[t] > cap:
                    raise Refused(P.NAK_TOO_BIG)
    plan.entries.extend(chunk)
    if not last:
        d.partial = plan
        return d.ok(P.DEAL_PLAN, P.OK_ACCEPTED)
    d.partial = None
    d.plans.append(plan)
    if len(d.plans) > d.cfg.DEAL_MEMORY:
        d.plans.pop(0)
    d.mech.pocket_count = {}  # the players gathered every card before this deal
    if plan.flags & P.PLAN_FRESH:
        d.mech.forget_parked()  # (and the cards an ABORT froze on the loop)
        d.mech.path_gathered()  # (and a card a stop left in the feed path)
        if d.sorts:
            d.board.loop_depth_clear()  # (the blade's queue of them: each landing one card off)
        d.ledger.clear()  # the players gathered every card into the hopper: pockets are empty
        d.steps.list = []  # and the last hand's steps are history (its ids may come again)
        d.nv_dirty = True
    step = S.Step(deal_id, P.DEAL_PLAN, 0, d.next_event)
    step.code = P.OK_STARTED
    d.steps.add(step)
    d.loop = []  # the cards in the hopper are read afresh (a plan over parked cards too)
    d.staged = None
    d.boot_card = False  # a card left in the read window at boot is this deal's first read
    d.hopper_unknown = False  # the deal reads the hopper afresh
    d.loop_valid = True
    plan.started = True
    job = DealJob(d, plan)
    d.deal_job = job
    d.mech.start_job(job)
    return d.ok(P.DEAL_PLAN, P.OK_STARTED)


def route_held(d, target, kind, pull=False, place=LAST):
    """Route the card held in the read window (fed with HOLD, staged, or presented); ``pull``
    (FETCH flag NEXT): the move that ejects it brings the hopper's next card to the window;
    ``place``: a card parked in the loop lies under those with a larger one (loop_add)."""
    m = d.mech
    card = m.held[0]
    if d.staged is not None and d.staged == card:
        d.loop_take(card)  # it leaves the loop now
        d.staged = None
    if target == d.cfg.LOOP:
        d.loop_add(card, place)  # parked (a pass): it comes back on top of the hopper

    def route(c, conf):
        # with cards in the loop the feed move brings none of them to the window (unless the
        # host asked for the next one: its next step is a FETCH or a stage, not a FEED)
        return (target, -1, None, pull or not d.loop)

    def done(c, t, conf):
        d.landed(c, t, conf, kind)

    def undo():
        # a double feed (the card held had a second one under it): the person puts both back
        # in the hopper under the stack, this one lowest, and RESUME fetches it from there
        # and routes it as asked (found through the whole table on the twin: a staged card
        # double-fed was gone from the model, and the FETCH sent again was refused)
        if target == d.cfg.LOOP:
            d.loop_forget_last(card)
        d.loop.insert(0, card)
        if m.job is None:
            m.job = FetchJob(d, card, target, pull)

    op = M.Op("gate", route, done, card=card, conf=m.held[1], undo=undo)
    op.hold = bool(d.loop) and not pull
    m.run_op(op)


def cmd_route_presented(d, body, resumed):
    if len(body) not in (2, 3):  # (u8 place, optional: IDENTIFY flags bit7; u8 flags after it: flags2 bit1)
        d.need(body, 1)
    target = body[0]
    d.check_target(target)
    m = d.mech
    if m.held is None:
        raise Refused(P.NAK_EMPTY)
    if m.state not in (M.IDLE, M.WAITING):
        raise Refused(P.NAK_BUSY)
    # flag NEXT (as FEED's): a fed card's eject brings the loop's next card to the window; not
    # a staged loop card's (FETCH's own flag does that) nor while a FEED goes on (more to feed)
    job = m.job
    pull = len(body) == 3 and bool(body[2] & P.FEED_NEXT) and m.held[0] != d.staged \
        and (job is None or (isinstance(job, FeedJob) and 0 < job.count <= job.routed)) and may_pull(d)
    if pull:  # the lift comes down now, during the turn stage, before the eject's feed move
        m.hold_hopper(False)
    route_held(d, target, P.EV_CARD_ROUTED, pull, place=body[1] if len(body) >= 2 else LAST)
    return d.ok(P.ROUTE_PRESENTED)


def may_pull(d):
    """A fed card's eject may take the hopper's bottom card into the read window (FEED and
    ROUTE_PRESENTED flag NEXT): it is the loop's next card (with a sorting hopper, not one on
    its way round: read out of turn by a FETCH before, it lands at its place later, and the
    bottom card pulled now would go round too), and no card lies in the play slot (the feed
    move would take that one). Allocates nothing."""
    board = d.board
    if not d.loop:
        return False
    if hasattr(board, "slot_has_card") and board.slot_has_card():
        return False
    if d.sorts and board.loop_on_way(d.loop[0]):
        return False
    return bool(board.hopper_has_card())


def cmd_feed(d, body, resumed):
    if len(body) not in (3, 4):  # (u8 place, optional: IDENTIFY flags bit7; u8 flags after it: flags2 bit1)
        d.need(body, 2)
    d.check_target(body[1], allow_hold=True)
    pull = len(body) == 4 and bool(body[3] & P.FEED_NEXT) and body[1] != P.HOLD
    held = d.mech.held
    known = held is not None and held[0] == d.staged  # staged in the window: read already
    staged = d.staged
    d.check_idle(unstage=True)
    if not known:
        d.staged = staged  # staged in the hopper: fed cards come from the slot, it stays next
    # (count 0: until stopped; a pocket that fills stops the job with POCKET_FULL)
    if body[1] == d.cfg.LOOP and len(d.loop) + max(1, body[0]) > d.cfg.LOOP_CAPACITY:
        raise Refused(P.NAK_FULL)
    place = body[2] if len(body) >= 3 else LAST  # a parked card's place: under those with a larger one
    d.mech.start_job(FeedJob(d, body[0], body[1], window_known=known, place=place, pull=pull))
    return d.ok(P.FEED)


def cmd_fetch(d, body, resumed):
    if len(body) != 4:  # (u8 flags, optional: IDENTIFY flags bit6)
        d.need(body, 3)
    source, card, target = body[0], body[1], body[2]
    pull = len(body) > 3 and bool(body[3] & P.FETCH_NEXT)
    sweep = len(body) > 3 and bool(body[3] & P.FETCH_SWEEP) and d.sorts and d.mech.held is None
    if source == d.cfg.LOOP:
        if card >= 52 or target == d.cfg.LOOP:
            raise Refused(P.NAK_BAD_BODY)
        d.check_target(target, allow_hold=True)
        if card not in d.loop:
            raise Refused(P.NAK_EMPTY)
        if d.mech.busy():
            raise Refused(P.NAK_BUSY)
        if d.mech.held is not None and d.mech.held[0] != d.staged:
            raise Refused(P.NAK_BUSY)  # a fed card waits in the window for ROUTE_PRESENTED
        held = d.mech.held
        if d.staged == card and held is not None and held[0] == card:  # staged in the window
            if target == P.HOLD:
                d.emit(P.EV_STAGED, bytes((card, 0)))
            else:
                route_held(d, target, P.EV_CARD_ROUTED, pull)
            return d.ok(P.FETCH)
        if target == P.HOLD and held is None and not d.mech.gate.state and d.loop[0] == card and not sweep:
            d.staged = card  # already the next card the hopper gives
            d.emit(P.EV_STAGED, bytes((card, 0)))
            return d.ok(P.FETCH)
        d.unstage()
        d.mech.start_job(FetchJob(d, card, target, pull and target != P.HOLD, sweep))
        return d.ok(P.FETCH)
    raise Refused(P.NAK_BAD_BODY)  # the loop is the only source (v1 discard/staging racks are gone)


def cmd_abort(d, body, resumed):
    d.need(body, 0)
    me = d.steps.list[-1] if d.steps.list and d.steps.list[-1].type == P.ABORT else None
    d.steps.abort_open(keep=me)  # what it stops ends unfinished
    if d.mech.state != M.ESTOPPED:
        d.partial = None
        d.mech.abort()  # (a staged card stays in the window: the loop's first card)
        d.staged = None
        d.mech.finish_cut()  # (a card a cut feed move left short of the window comes on to it)
    return d.ok(P.ABORT)


def cmd_estop(d, body, resumed):
    return d.ok(P.ESTOP)  # the stop itself happened in on_frame, before any of this


def cmd_reset(d, body, resumed):
    d.need(body, 1)
    if body[0] == 1:
        d.reboot_pending = True
        return d.ok(P.RESET)
    if body[0] != 0:
        raise Refused(P.NAK_BAD_BODY)
    if not d.mech.reset():
        raise Refused(P.NAK_ESTOPPED)
    d.steps.abort_open()
    d.staged = None
    d.partial = None
    return d.ok(P.RESET)


def cmd_resume(d, body, resumed):
    d.need(body, 0)
    if resumed:
        return d.ok(P.RESUME)
    if d.mech.state == M.ESTOPPED:
        raise Refused(P.NAK_ESTOPPED)
    if not d.mech.resume():
        raise Refused(P.NAK_BAD_STATE)
    return d.ok(P.RESUME)


def cmd_selftest(d, body, resumed):
    d.need(body, 1)
    if body[0] not in (0, 1):
        raise Refused(P.NAK_BAD_BODY)
    d.check_idle(unstage=True)
    if hasattr(d.board, "reader_probe"):
        d.board.reader_probe()  # FAULT 2 if the reader does not answer (firmware/board.py)
    d.mech.start_job(SelftestJob(d, body[0]))
    return d.ok(P.SELFTEST)


def cmd_step_query(d, body, resumed):
    d.need(body, 2)
    sid = P.get_u16(body, 0)
    step = d.steps.find(sid)
    return (P.STEP, step.body() if step is not None else S.unknown_body(sid))


def cmd_inventory(d, body, resumed):
    if len(body) not in (2, 3):
        raise Refused(P.NAK_BAD_BODY)
    out = S.inventory_body(d, body[0], body[1], body[2] if len(body) == 3 else 0)
    if out is None:
        raise Refused(P.NAK_BAD_BODY)
    return (P.INVENTORY_REPLY, out)


HANDLERS = {
    P.HELLO: cmd_hello, P.PING: cmd_ping, P.STATUS: cmd_status, P.EVENTS_SINCE: cmd_events_since,
    P.DEAL_PLAN: cmd_deal_plan, P.ROUTE_PRESENTED: cmd_route_presented, P.FEED: cmd_feed, P.FETCH: cmd_fetch, P.ABORT: cmd_abort, P.ESTOP: cmd_estop,
    P.RESET: cmd_reset, P.RESUME: cmd_resume, P.SELFTEST: cmd_selftest,
    P.STEP_QUERY: cmd_step_query, P.INVENTORY: cmd_inventory,
}
