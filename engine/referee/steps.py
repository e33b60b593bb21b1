"""The dealer steps: queued one at a time (numbered, the first outstanding), their outcomes
(a deal checked or failed, a step done, a fault, the dealer back) and where each card then is;
the stock shown (German Whist's turned-up card, spades-2p's card on offer), a drawn card fed back
wrong."""

from __future__ import annotations

import dataclasses
from collections import Counter

from .. import cards as C
from . import flows, legacy
from .commands import (
    DealerCommand,
    DealPlan,
    FeedBack,
    Fetch,
    Release,
    RouteFed,
    Sound,
    TakeBack,
    V1Step,
    seat_target,
)
from .events import (
    UNREAD,
    DealDone,
    DealerDone,
    DealerFault,
    DealerMoved,
    DealerReady,
)
from .fault_words import (
    _public_deal_problems,
    _public_fault_words,
    _stuck_deal_words,
    _unread_deal_words,
)
from .output import RefereeOutput


class DealerSteps(RefereeOutput):
    def _push(self, step: DealerCommand) -> None:
        """Queue a dealer step (numbered here); issue it at once when nothing is pending."""
        if isinstance(step, Fetch):
            self._then_next()
        step = dataclasses.replace(step, step=self.next_step)
        self.next_step += 1
        self.steps.append(step)
        if len(self.steps) == 1 and self.dealer_fault is None:
            self._out.append(step)

    def _then_next(self) -> None:
        """A Fetch is queued: the step before it, if it ejects a card (a card fed and routed:
        RouteFed, FeedBack; a Fetch), gets the hint ``then_next``, so its eject brings the loop's
        next card to the read window and the Fetch starts with a card there (FEED /
        ROUTE_PRESENTED / FETCH flag NEXT, hardware/PROTOCOL.md): German Whist's trick's second
        play fed, then the winner's card; a Double Nil exchange's last card given, then the
        first replacement; a loop bot's card to the trick, then the winner's card. Only a step
        not issued yet, or issued by this very event (its command is still to go out, and is
        replaced there); a Stage gives no hint (a card pulled for it waits in the window, and
        the FEED that usually follows a stage sends it round first). Never on a v1 dealer."""
        if not self.steps or self.dealer_version == 1:
            return
        prev = self.steps[-1]
        if not isinstance(prev, (RouteFed, FeedBack, Fetch)) or prev.then_next:
            return
        if isinstance(prev, RouteFed) and prev.card is None:
            return  # unread: nothing is routed by ROUTE_PRESENTED
        if len(self.steps) == 1:  # issued (or held by a fault after it was): only if by this event
            at = [i for i, c in enumerate(self._out) if c is prev]
            if not at:
                return
            marked = dataclasses.replace(prev, then_next=True)
            self._out[at[-1]] = marked
        else:
            marked = dataclasses.replace(prev, then_next=True)
        self.steps[-1] = marked

    def _step_done(self) -> None:
        self.steps.pop(0)
        if self.steps and self.dealer_fault is None:
            self._out.append(self.steps[0])
        if not self.busy:
            self._prompt()

    def _route_fed(self, card: int, target: str, fed_by: int | None = None) -> None:
        """A card read by the reader waits in its gate until this step routes it."""
        self._to_gate(card, fed_by)
        self._push(RouteFed(C.NAMES[card], target))

    def _to_gate(self, card: int, fed_by: int | None) -> None:
        at = self.places.at
        # the feeder's own pocket, then the reject pocket (a card they were told went there, and
        # took back to feed again: with two decks its twin may be in another hand), then any
        order = ([seat_target(fed_by), "reject"] if fed_by is not None else []) + sorted(
            k for k in at if k.startswith("seat:")) + ["trick", "centre", "reject"]
        for src in order:
            if card in at.get(src, []):
                self.places.move(card, src, "gate")
                return
        self.places.move(card, "", "gate")

    def _start_deal(self) -> None:
        g = self._g()
        self.deal_id += 1
        self.deal_failed = False
        self.deal_progress = 0
        self._push(DealPlan(self.deal_id, flows.deal_plan(g, self.loop_bots)))
        self._msg(f"Dealing hand {g.hand_number}")

    def _on_deal_done(self, ev: DealDone) -> None:
        head = self.steps[0] if self.steps else None
        if not isinstance(head, DealPlan) or head.deal_id != ev.deal_id:
            self._msg(f"the dealer reported deal {ev.deal_id}, which is not the deal in progress: ignored", level="warn")
            return
        if not ev.ok:
            self.deal_failed = True
            same = self.deal_failure == tuple(ev.problems)
            self.deal_failure = tuple(ev.problems)
            self.deal_stuck = same
            self.dealer_fault_kind = "mismatch"
            if same:
                self.deal_unread, self.deal_whole = (), None  # the whole hand is dealt again
                self.dealer_fault = _stuck_deal_words(ev.problems)
                self._msg(self.dealer_fault, level="error")
                self._out.append(Sound("alarm"))
                return
            if ev.unread and all(t != "loop" for _, t in head.plan):
                # only cards the reader could not read, in the reject pocket, and every other
                # card where the plan says: those cards go back on the hopper and are dealt
                # alone (not a game with a stock: a second DEAL_PLAN starts the dealer's loop
                # model afresh, so a stock's deal is dealt again whole)
                self.deal_whole = self.deal_whole or head
                self.deal_unread = tuple(ev.unread)
                # where the cards are meanwhile (what a power cut's restore puts back): every card
                # dealt where its entry sent it, the unread ones in the reject pocket
                self.places.deal([(e[0], "reject") if unread else e
                                  for e, unread in _marked(self.deal_whole.plan, self.deal_unread)])
                self.dealer_fault = _unread_deal_words(len(ev.unread))
                self._msg(self.dealer_fault, level="error")
                self._out.append(Sound("alarm"))
                return
            self.deal_unread, self.deal_whole = (), None
            problems = _public_deal_problems(ev.problems)
            self.dealer_fault = (
                f"The deal did not check out ({problems}). Gather all the cards into the dealer and "
                f"press Resume: the hand is redealt from the same deck order (same commitment)."
            )
            self._msg(self.dealer_fault, level="error")
            self._out.append(Sound("alarm"))
            return
        g = self._g()
        self.deal_failure, self.deal_stuck = None, False
        self.rejects_seen = 0  # a fresh deal: the dealer's reject ledger starts again
        self.own_rejects = []
        whole = self.deal_whole  # (the deal of the cards the reader could not read finished it)
        self.deal_unread, self.deal_whole = (), None
        self.places.deal(whole.plan if whole is not None else head.plan)
        self.steps.pop(0)
        self.waiting = "turn"
        self._msg(f"Hand {g.hand_number} dealt and checked")
        if self.steps:  # steps queued behind the deal (a card read meanwhile): run the next
            self._out.append(self.steps[0])
        if self.dealer_version == 1:
            after = legacy.after_deal_steps(g)
        else:
            after = flows.after_deal_steps(g)
            self._show_stock()
        for step in after:
            self._push(step)
        if not self.busy:
            self._prompt()

    def _on_dealer_done(self, ev: DealerDone) -> None:
        head = self.steps[0] if self.steps else None
        if head is None or head.step != ev.step or isinstance(head, DealPlan):
            self._msg(f"the dealer finished step {ev.step}, which is not the step in progress: ignored", level="warn")
            return
        card = None
        if ev.card is not None:
            try:
                card = C.parse(ev.card)
            except ValueError:
                card = None
        if isinstance(head, V1Step):
            self._v1_step_done(head)
        elif isinstance(head, FeedBack) and card != C.parse(head.card):
            self._wrong_feed_back(head, card)
            return
        if isinstance(head, RouteFed) and head.target == "reject" and card is not None:
            self.own_rejects.append(card)  # its ledger entry is this step's (_on_dealer_moved)
        self.places.step_done(head, card)
        if isinstance(head, RouteFed) and head.step in self.twin_rejects:
            self._twin_rejected(head)
        if isinstance(head, Fetch) and self.presented is None:
            self._fetched(head)
        self._step_done()

    def _v1_step_done(self, head: V1Step) -> None:
        """A v1 step done while replaying a v1 journal: what the v1 referee showed."""
        due = head.args.get("expect")
        shown = C.parse(due) if isinstance(due, str) else None
        if head.op == "present" and shown is not None:
            self.presented = (head.args["seat"], shown)
            self._msg(f"{self._name(head.args['seat'])}: your card is {C.NAMES[shown]}", seat=head.args["seat"])
        elif head.op == "route_presented":
            self.presented = None
        elif head.op == "turn_up" and shown is not None:
            self.faceup = shown
            self._msg(f"Turned up: {C.NAMES[shown]}")
        elif head.op == "route_faceup":
            self.faceup = None

    def _show_stock(self) -> None:
        """A turned-up stock (German Whist): the face-up card on the screen (it stays in the
        loop); a drawn stock (spades-2p): the card in the first player's pocket after the deal."""
        g = self._g()
        pos = self.stock_pos
        stock = flows.info_of(g).stock
        if stock == "turn-up":
            self.faceup = g.deck[pos] if g.phase == "play" and pos < len(g.deck) else None
            if self.faceup is not None:
                self._msg(f"Turned up: {C.NAMES[self.faceup]}")
        elif stock == "draw" and g.phase == "draw" and g.to_move is not None and pos == 0:
            self.presented = (g.to_move, g.deck[0])
            self._msg(f"{self._name(g.to_move)}: your card is {C.NAMES[g.deck[0]]} (in your pocket)", seat=g.to_move)

    def _fetched(self, head: Fetch) -> None:
        """A drawn stock (spades-2p): the card on offer reached the player's pocket: it is
        theirs to decide on."""
        g = self._g()
        if flows.info_of(g).stock != "draw" or g.phase != "draw" or not head.target.startswith("seat:"):
            return
        card, seat = C.parse(head.card), int(head.target[5:])
        if self.stock_pos < len(g.deck) and card == g.deck[self.stock_pos] and seat == g.to_move:
            self.presented = (seat, card)
            self._msg(f"{self._name(seat)}: your card is {C.NAMES[card]} (in your pocket)", seat=seat)

    def _wrong_feed_back(self, head: FeedBack, card: int | None) -> None:
        """The card fed back is not the one due (or could not be read): it goes where it
        belongs, and the dealer waits for the right one again."""
        seat, due = head.seat, head.card
        self.steps.pop(0)
        again: list[DealerCommand] = []
        if card is None:
            self._refuse(seat, f"{self._name(seat)}: the card fed back could not be read; it went to the reject "
                               f"pocket: take it and feed it back again")
        else:
            self._refuse(seat, f"{self._name(seat)}: that is not the card to feed back; it goes back",
                         secret=f"{self._name(seat)}: {C.NAMES[card]} is not the card to feed back ({due}): "
                                f"it goes back")
            parked = card in self.places.at.get("loop", [])  # a loop card came out instead: it goes back in
            self._to_gate(card, seat)
            again.append(RouteFed(C.NAMES[card], flows.PARK if parked else self._home(card, seat)))
        # (the hints too: the place of a Double Nil's candidate, flag NEXT before a Fetch)
        again.append(FeedBack(seat, due, head.target, place=head.place, then_next=head.then_next))
        numbered = []
        for step in again:
            numbered.append(dataclasses.replace(step, step=self.next_step))
            self.next_step += 1
        self.steps[:0] = numbered
        if self.dealer_fault is None:
            self._out.append(self.steps[0])

    def _on_dealer_fault(self, ev: DealerFault) -> None:
        head = self.steps[0] if self.steps else None
        what = {
            "jam": "a card jammed",
            "link_down": "the dealer's cable is unplugged or the link is down",
            "timeout": "the dealer stopped answering",
            "mismatch": "the dealer's cards do not match the plan",
        }.get(ev.kind, "the dealer reported a fault")
        detail = _public_fault_words(ev.message)
        if detail and ev.kind == "jam" and "jam" in detail:
            what = detail  # "a card jammed at the reader stage": the driver's words say more
        elif detail:
            what = f"{what} ({detail})"
        if isinstance(head, Release) and ev.delivered:
            head = self._release_delivered(head, ev.delivered)
        self.dealer_fault_kind = ev.kind
        if ev.kind in ("link_down", "timeout"):
            after = "The table goes on by itself when the dealer answers again."
        elif ev.kind == "jam" and "fed together" in (ev.message or ""):
            # where the two cards go decides what the dealer reads next: under the stack, in
            # the order they came (the dealer's model of its hopper has them next)
            after = ("Take both cards out of the feed and put them back in the hopper under the stack, the one "
                     "that was further along at the bottom, then press Resume: the dealer goes on.")
        elif isinstance(head, DealPlan):
            after = ("Clear it and press Resume: the deal goes on; if the dealer lost the deal, "
                     "gather all the cards into it and the hand is redealt from the same deck order.")
        elif isinstance(head, RouteFed) and ev.missing and ev.kind == "fault":
            what = self._route_missing(head)
            after = "Put it in the play slot, then press Resume: the dealer reads it there and it goes on."
        elif ev.missing and ev.kind == "fault":
            what = self._loop_missing(ev.missing)
            after = ("Put the cards you find in the play slot, then press Resume: they go back into the dealer's "
                     "loop and the table goes on.")
        elif isinstance(head, Release) and ev.missing:
            what = self._release_missing(ev.missing)
            after = ("Put those cards in the play slot, then press Resume: they go on to their pockets with "
                     "the other passed cards.")
        elif isinstance(head, Release) and ev.kind == "jam":
            after = ("Clear it and press Resume: the passed cards still in the dealer go on to their "
                     "pockets.")
        elif isinstance(head, Release):
            # an e-stop carries the card in the read window to the reject pocket; a reboot leaves
            # cards on the belt: the Release done again reads them from the play slot
            aside = self._set_aside()
            if aside:
                after = (f"Clear it, put any card from the reject pocket (not {aside}: they are out of this game), "
                         f"the belt or the read window in the play slot, then press Resume: the passed cards go on "
                         f"to their pockets.")
            else:
                after = ("Clear it, put any card from the reject pocket, the belt or the read window in the play "
                         "slot, then press Resume: the passed cards go on to their pockets.")
        elif head is not None:
            after = "Clear it and press Resume: the step is done again."
        elif ev.kind == "jam":  # (a jam between steps: the table was waiting for a card to be fed)
            after = "Clear it and press Resume: the dealer goes on."
        else:
            after = "Press Resume when it is back."
        self.dealer_fault = f"Dealer stopped: {what}. {after}"
        self._msg(self.dealer_fault, level="error")
        self._out.append(Sound("alarm"))

    def _release_missing(self, missing: tuple[tuple[str, str], ...]) -> str:
        """The passed cards a Release could not find in the dealer: counted on the shared screen
        (hidden cards are never named there); each receiver's own screen names the cards passed
        to them (they may lie in that player's pocket already, delivered unreported)."""
        mine: dict[int, list[str]] = {}
        for entry in missing:
            card, target = str(entry[0]), str(entry[1])
            if target.startswith("seat:"):
                mine.setdefault(int(target[5:]), []).append(card)
        g = self.game
        for seat, cards in sorted(mine.items()):
            # two decks: the receiver may hold another copy of a named card (their own, or one
            # passed and delivered): they put in exactly the copies named, and keep the others
            held: Counter[int] = Counter(g.hand_of(seat) if g is not None else ())
            named = Counter(C.parse(c) for c in cards)
            twins = sorted(c for c, n in named.items() if held[c] > n)
            if twins:
                self._msg(f"{self._name(seat)}: look in your pocket for {', '.join(cards)} (passed to you); put exactly "
                          f"those in the play slot and keep your other {', '.join(C.names(twins))}", seat=seat,
                          level="warn")
            else:
                self._msg(f"{self._name(seat)}: look in your pocket for {', '.join(cards)} (passed to you); put any "
                          f"you find in the play slot", seat=seat, level="warn")
        n = len(missing)
        aside = self._set_aside()
        pocket = f"the reject pocket (leave {aside} there: they are out of this game)" if aside else "the reject pocket"
        return (f"{n} passed card{'s are' if n != 1 else ' is'} not in the dealer: look in {pocket}, on the "
                f"belt and in the read window, and each receiver in their pocket (their screen says which)")

    def _set_aside(self) -> str:
        """The cards the deal put in the reject pocket for the whole hand (Hearts' set-aside low
        cards, in the game's public view: known to everyone), named, or "": a person told to put
        the reject pocket's cards in the play slot leaves them there (found on the twin: hearts at
        five, a passed card misread, and the people put 2C and 2D in the slot with it; the dealer
        stopped again, reading two cards the hand-over did not hold). Not any card the referee
        knows went there: a passed card an e-stop cleared there is one to put in the slot."""
        g = self.game
        if g is None:
            return ""
        there = Counter(self.places.at.get("reject", []))  # (a passed card cleared there is not one)
        aside = [name for name in g.public_view().get("removed", ()) if there[C.parse(name)] > 0]
        return ", ".join(aside)

    def _loop_missing(self, missing: tuple[tuple[str, str], ...]) -> str:
        """Loop cards the dealer did not find after it restarted by itself (a watchdog, a
        brown-out) or after an e-stop (a FETCH's card on its way when the button was pressed):
        the card a step was bringing to a seat is named on that seat's screen only (it may lie
        in their pocket, delivered unreported); the shared screen names no card (a parked card
        may be someone's discard): any card on the belt or in the read window goes in the play
        slot."""
        for entry in missing:
            card, target = str(entry[0]), str(entry[1])
            if target.startswith("seat:"):
                seat = int(target[5:])
                self._msg(f"{self._name(seat)}: look in your pocket for {card} (the dealer was bringing it to you when "
                          f"it stopped); put it in the play slot", seat=seat, level="warn")
        n = len(missing)
        if n == 1:
            return (f"{n} card the dealer keeps in its loop is not there after it stopped or restarted: look on the belt "
                    f"and in the read window, and each player it was bringing a card to in their pocket (their screen "
                    f"says which)")
        return (f"{n} cards the dealer keeps in its loop are not there after it stopped or restarted: look on the belt "
                f"and in the read window, and each player it was bringing a card to in their pocket (their screen "
                f"says which)")

    def _route_missing(self, head: RouteFed) -> str:
        """A card read for ``head`` that a stop caught on its way (an e-stop, a jam) and the
        dealer no longer has: where to look. A card played is named on the shared screen (the
        table has seen it); a card going to a player's pocket on that player's screen only (it
        may lie there already, delivered unreported); any other card is hidden, and whoever fed
        it knows it."""
        target, card = head.target, str(head.card)
        if target == "trick":
            return (f"{card} was going to the trick pocket when the dealer stopped, and the dealer no longer has "
                    f"it: look on the belt, in the read window, in the reject pocket and in the trick pocket, and "
                    f"among any cards taken out clearing a jam")
        if target.startswith("seat:"):
            seat = int(target[5:])
            self._msg(f"{self._name(seat)}: look in your pocket for {card} (the dealer was bringing it to you when "
                      f"it stopped); put it in the play slot", seat=seat, level="warn")
            return ("The card the dealer was routing when it stopped is no longer in it: look on the belt, in the read "
                    "window and in the reject pocket, and among any cards taken out clearing a jam; the player it "
                    "was going to looks in their pocket (their screen says which)")
        return ("The card fed last is no longer in the dealer after it stopped (whoever fed it knows which): look on "
                "the belt, in the read window, in the reject pocket and in the pocket it was going to, and among any "
                "cards taken out clearing a jam")

    def _release_delivered(self, head: Release, delivered: tuple[tuple[str, str], ...]) -> Release:
        """A Release stopped partway: the cards the dealer reported in their pockets are there
        (the physical model says so), and the step, done again, hands over only the rest."""
        rest = list(head.plan)
        for entry in delivered:
            card, target = str(entry[0]), str(entry[1])
            if target != flows.PARK and (card, target) in rest:  # (a loop card is read again)
                rest.remove((card, target))
                self.places.move(C.parse(card), "loop", target)
        trimmed = dataclasses.replace(head, plan=tuple(rest))
        self.steps[0] = trimmed
        return trimmed

    def _on_dealer_moved(self, ev: DealerMoved) -> None:
        """The dealer put cards where no step sent them (the reject pocket): the model follows,
        and the people are told where each card went and what to do with it. A card of a
        player's hand goes back into that hand (named on that player's screen only); a card
        read for a step still waiting to route it ends that step where it lies."""
        self.rejects_seen = max(self.rejects_seen, int(ev.upto))
        g = self.game
        head = self.steps[0] if self.steps else None
        if g is None or self.waiting != "turn" or isinstance(head, DealPlan):
            return  # between hands, or a deal: the cards are gathered before the next deal
        for entry in ev.moves:
            name, where = str(entry[0]), str(entry[1])
            if name == UNREAD:
                if where == "reject" and not self.steps:
                    self._unread_rejected()
                # (with a dealer step in progress the card is that step's: a Release's passed card
                # it found in no pocket is asked for by its own fault, "look in the reject pocket")
                continue
            try:
                card = C.parse(name)
            except ValueError:
                continue
            if where != "reject":
                continue
            if isinstance(head, RouteFed) and head.card == name and card in self.places.at.get("gate", []):
                src: str | None = "gate"  # the card read for the step in progress (two decks: not its twin)
            elif isinstance(head, Release) and card in self.places.at.get("loop", []) and any(
                    c == name for c, _ in head.plan):
                # a passed card of the hand-over in progress, read more often than its plan
                # holds it (two decks: one copy went to its twin's receiver, the twin read after
                # it). It is no card of a hand: told to take it "back" into the hand the rules
                # give it, a receiver held it twice while the Release, done again, asked for it
                # in the play slot (the fault says so: the reject pocket's cards go in the slot)
                # and another pocket's copy was fed for it (the campaign's unplug_release trial
                # 303029: seat 4 with two QS, seat 5 none)
                self.places.move(card, "loop", "reject")
                continue
            elif card in self.own_rejects:
                # a step of the table's sent it there, and the model has it there: nothing moved
                # by itself (looked for elsewhere, a two-deck card's twin was taken out of a
                # player's hand and that player told to take "their" card back: the stuck
                # Cancellation Hearts hands, "Bot 4: QS went to the reject pocket")
                self.own_rejects.remove(card)
                continue
            else:
                places = self._rejected_from(card)
                if len(places) > 1:
                    # two decks, two seats equally likely to have fed it: neither is guessed
                    self._take_back_either(card, [int(p[5:]) for p in places])
                    continue
                src = places[0] if places else None
            if src is None:
                continue  # the model has it in the reject pocket already (a step sent it there)
            self.places.move(card, src, "reject")
            if src == "gate" and isinstance(head, RouteFed) and head.card == name:
                dest = head.target  # nothing is left in the gate to route: the step ends
                if dest.startswith("seat:"):
                    self._take_back(card, int(dest[5:]))
                elif head.step in self.twin_rejects:  # a pass's card two seats may have fed: both told
                    self._twin_rejected(head)
                elif dest == "trick":  # a card played: everyone has seen it
                    self._msg(f"{C.NAMES[card]} went to the reject pocket instead of the {dest} pocket: it stays there",
                              level="warn")
                else:  # a card passed, discarded or parked: never named on the shared screen (a
                    # passed card the hand-over then misses is asked for in the play slot)
                    self._msg("A card went to the reject pocket: leave it there", level="warn")
                self._step_done()
                head = self.steps[0] if self.steps else None
                continue
            if isinstance(head, FeedBack) and ev.ends == head.step and head.card == name \
                    and src == seat_target(head.seat):
                # the card to feed back, fed and cleared to the reject pocket before the step read
                # it (a dealer that rebooted read it first, for the relearning of its loop): the
                # dealer's port ended the step with this DealerMoved. The player takes it back and
                # feeds it again, under a new step id (the dealer may remember the old one's
                # FEED). Before, the step stood with nothing sent for it and the table waited for
                # good (reboot trial spades-2p, a card landing, a blank flash: a few in 100 loaded).
                # (Told while the step is still to be done, ``ends`` None: the step asks for it.)
                self._take_back(card, head.seat)
                self._feed_back_again(head)
                head = self.steps[0]
                continue
            # a card the model had in a seat's pocket (a card of a hand, a drawn card to feed
            # back) goes back there; else the seat whose hand the rules say holds it
            owner = int(src[5:]) if src.startswith("seat:") else next(
                (s for s in range(g.n) if card in g.hand_of(s)), None)
            if owner is not None:
                self._take_back(card, owner)
                if src == flows.PARK:
                    self._fetched_by_hand(name, owner)
            else:
                self._msg("A card went to the reject pocket: leave it there", level="warn")

    def _fetched_by_hand(self, name: str, seat: int) -> None:
        """A loop card the dealer put in the reject pocket, which the rules give to ``seat``
        (German Whist's turned-up card, the trick's winner's): the player takes it from there
        into their hand (``_take_back``), so a Fetch queued to bring it to them, not sent yet,
        is done by that hand and leaves the queue; sent, it was refused ("there is no card for
        it") at every Resume. Found on the physical twin: after an e-stop the play slot gave the
        turned-up card the stop had left in the feed, in place of the played card asked for
        there. (A Fetch already sent is the dealer's: its own outcome ends it.)"""
        for i, step in enumerate(self.steps[1:], start=1):
            if isinstance(step, Fetch) and step.card == name and step.target == seat_target(seat):
                del self.steps[i]
                return

    def _rejected_from(self, card: int) -> list[str]:
        """Where the model has a card the dealer put in the reject pocket by itself (a fed card
        it cleared from its read window when stopped, its read never reported): one place, or
        none (the model has it in the reject pocket already), or, two decks, the two pockets
        that may each have fed it. Both copies may lie in pockets; the copy that was fed is the
        one of a seat on turn (the one who feeds now) before any other place's: the seat that
        pressed OK, then one that has begun feeding. Before, the first pocket in sorted order
        lost its copy: the campaign's corrupt_5 trial 308081 (Cancellation Hearts, 6 players)
        had seat 3's 5C rejected mid-play, seat 2 told to take "their" 5C back, and seat 2 ended
        with two 5C while seat 3 had none. Two seats still equally likely (a pass nobody pressed
        OK for, where every seat is on turn; a card fed out of turn) are both returned: the
        lower one guessed ended with two copies when the other had fed it."""
        held = [k for k, v in sorted(self.places.at.items()) if k != "reject" and card in v]
        if len(held) <= 1:
            return held
        g = self.game
        on_turn = set(g.turn_seats()) if g is not None else set()

        def rank(place: str) -> int:
            seat = int(place[5:]) if place.startswith("seat:") else None
            if seat is None or seat not in on_turn:
                return 3  # elsewhere: the sorted order, as before
            if seat == self.claim:
                return 0  # pressed OK to say "I am feeding now"
            return 1 if self.fed.get(seat) else 2  # a pass: a seat that has begun feeding first

        best = min(rank(p) for p in held)
        tied = [p for p in held if rank(p) == best]  # (in sorted order)
        if not tied[0].startswith("seat:"):
            return tied[:1]  # a place before the pockets in sorted order, as before
        return [p for p in tied if p.startswith("seat:")]

    def _unread_rejected(self) -> None:
        """A card went to the reject pocket before it was read (the dealer was stopped while a
        fed card was on its way into the read window, no dealer step of the table's in
        progress: the table waited for a player's card): nobody knows which card it is, so the
        model keeps it in its hand, and whoever fed it (one of the seats on turn: the one that
        pressed OK first) takes it back and feeds it again."""
        g = self.game
        assert g is not None
        on_turn = tuple(sorted(set(g.turn_seats())))
        owners = (self.claim,) if self.claim is not None and self.claim in on_turn else on_turn
        self._msg("A card went to the reject pocket before it was read: whoever fed it takes it back and feeds it "
                  "again", level="warn")
        self._out.append(TakeBack("", "reject", "", None, owners))

    def _feed_back_again(self, head: FeedBack) -> None:
        """The FeedBack ``head`` ended without its card (the card lies back in the seat's pocket):
        asked again under a new step id, sent unless the table stands stopped for a fault (then
        DealerReady sends it)."""
        self.steps[0] = dataclasses.replace(head, step=self.next_step)
        self.next_step += 1
        if self.dealer_fault is None:
            self._out.append(self.steps[0])

    def _take_back(self, card: int, seat: int) -> None:
        """A card of ``seat``'s hand is in the reject pocket: the player takes it back."""
        self._msg(f"{self._name(seat)}: {C.NAMES[card]} went to the reject pocket: take it back into your hand",
                  seat=seat, level="warn")
        self._msg("A card went to the reject pocket: its owner takes it back into their hand (their screen says which)",
                  level="warn")
        self.places.move(card, "reject", seat_target(seat))
        self._out.append(TakeBack(C.NAMES[card], "reject", seat_target(seat), seat))

    def _twin_rejected(self, head: RouteFed) -> None:
        """The card of ``head`` (a RouteFed to the reject pocket: fed to pass without OK, two
        seats holding a copy) lies in the reject pocket: the model's copy goes back into the
        hand it was taken from, and whichever holder fed it takes it back."""
        seats = self.twin_rejects.pop(head.step)
        if head.card is None:
            return
        card = C.parse(head.card)
        self.places.move(card, "reject", seat_target(seats[0]))
        self._take_back_either(card, list(seats))

    def _take_back_either(self, card: int, seats: list[int]) -> None:
        """Two decks: a card one of ``seats`` fed (each holds a copy in the model, and nothing
        says which fed it) is in the reject pocket. Nobody is guessed: each is told, on their
        own screen, to take it back if it is no longer in their hand; the shared screen names the
        seats, not the card. The model keeps a copy in each hand, right whichever fed it."""
        for seat in seats:
            self._msg(f"{self._name(seat)}: {C.NAMES[card]} went to the reject pocket: if you no longer hold "
                      f"{C.NAMES[card]}, take it back into your hand", seat=seat, level="warn")
        names = [self._name(s) for s in seats]
        self._msg(f"A card went to the reject pocket: {', '.join(names[:-1])} or {names[-1]} fed it, and takes it "
                  f"back into their hand (their screens say which)", level="warn")
        self._out.append(TakeBack(C.NAMES[card], "reject", "", None, tuple(seats)))

    def _on_dealer_ready(self, ev: DealerReady) -> None:
        if self.dealer_fault is None and not ev.redeal:
            return
        self.dealer_fault = None
        self.dealer_fault_kind = None
        head = self.steps[0] if self.steps else None
        if head is None:
            self._msg("The dealer is back")
            self._prompt()
            return
        if isinstance(head, DealPlan) and self.deal_unread and self.deal_failed and not ev.redeal:
            # the people put the cards the reader could not read back on the hopper: a deal of
            # just those entries (a new deal id) finishes the hand's deal
            self.steps.pop(0)
            self.deal_id += 1
            self.deal_failed = False
            self.deal_progress = 0
            n = len(self.deal_unread)
            # with the cards the plan set aside in the reject pocket (Hearts' removed cards): the
            # people take every card out of it, as the screen says (face down, they cannot tell
            # which is which), and those go back there
            assert self.deal_whole is not None
            part = tuple(e for e, unread in _marked(self.deal_whole.plan, self.deal_unread)
                         if unread or e[1] == "reject")
            step = DealPlan(self.deal_id, part, step=self.next_step)
            self.next_step += 1
            self.steps.insert(0, step)
            self._msg(f"Dealing the {n} card{'s' if n != 1 else ''} the reader could not read; "
                      "every other card stays where it is")
            self._out.append(step)
            return
        if isinstance(head, DealPlan) and (ev.redeal or self.deal_failed):
            self.deal_unread, self.deal_whole = (), None
            self.steps.pop(0)
            rest = self.steps
            self.steps = []
            self._msg("Redealing the hand from the same deck order (the commitment stands)")
            self._start_deal()
            self.steps.extend(rest)
            return
        self._msg("The dealer is back: carrying on")
        self._out.append(head)


def _marked(plan: tuple[tuple[str, str], ...],
            unread: tuple[tuple[str, str], ...]) -> list[tuple[tuple[str, str], bool]]:
    """Each entry of ``plan`` and whether it is one of the ``unread`` entries (two decks: as many
    copies of an entry as ``unread`` holds, the first in the plan's order)."""
    left = list(unread)
    out: list[tuple[tuple[str, str], bool]] = []
    for entry in plan:
        hit = entry in left
        if hit:
            left.remove(entry)
        out.append((entry, hit))
    return out
