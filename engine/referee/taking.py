"""Taking an action: checked and applied to the game, then its physical consequences (the dealer
steps of a draw, an exchange, a German Whist stage-one trick, the release of passes), the end
of a hand and of the game."""

from __future__ import annotations

from collections import Counter

from .. import actions as A
from .. import cards as C
from ..errors import IllegalAction
from ..options import non_defaults
from . import chain, fairness, flows, legacy
from .commands import (
    FeedBack,
    Fetch,
    NeedShuffle,
    Release,
    SaveRecord,
    ShowCommitment,
    Sound,
    seat_target,
)
from .steps import DealerSteps


class Taking(DealerSteps):
    def _give_target(self, seat: int) -> str:
        """Where a Double Nil player's given cards go: the discard pocket, or the loop when the
        other player's Double Nil exchange is still to come (its replacements are drawn from a
        pile those cards have joined, and the dealer fetches only from the loop; v1: the loop)."""
        g = self._g()
        if self.dealer_version == 1:
            return flows.PARK
        double, done = list(getattr(g, "double", ())), list(getattr(g, "exchanged", ()))
        later = [s for s in range(len(double)) if s != seat and double[s] and done[s] < 0]
        return flows.PARK if later else "discard"

    def _candidate_place(self, hand: int, g: object, turn: int) -> int | None:
        """spades-2p under rule exchange/2: the loop place of draw turn ``turn``'s discard when
        it is one of the first Double Nil exchanger's replacement candidates (flows.candidate_place),
        so a sorting hopper has them at the bottom of the loop when the draw ends."""
        meta = self.fair[hand] if hand < len(self.fair) else {}
        double = list(getattr(g, "double", ()))
        if fairness.exchange_rule(meta) != fairness.EXCHANGE_V2 or not any(double):
            return None
        first = next(s for s in (getattr(g, "first_player", 0), getattr(g, "second_player", 1)) if double[s])
        return flows.candidate_place(fairness.exchange_positions(str(meta["salt"]), hand, first), turn)

    def _take(self, seat: int, action: A.Action, source: str) -> bool:
        """Check and apply one action; then its physical consequences. False if refused."""
        g = self._g()
        hand_index = g.hand_number - 1
        fetch_order: list[int] = []  # an exchange's replacements in the order the loop gives them
        if action.kind == "exchange":
            give = action.value[0]
            get = fairness.draw_replacements(self.fair[hand_index], hand_index, seat, g, len(give))
            action = A.Action("exchange", (tuple(give), get))
            fetch_order = list(get)
            if fairness.exchange_rule(self.fair[hand_index]) == fairness.EXCHANGE_V2:
                # the order of their places: parked so (flows.candidate_place), each is the
                # loop's bottom card when its turn comes
                pile = list(getattr(g, "discards", ()))
                places = fairness.exchange_positions(str(self.fair[hand_index]["salt"]), hand_index, seat)
                fetch_order = [pile[p] for p in places[:len(give)] if p < len(pile)] or fetch_order
        reason = g.check(action, seat)
        if reason is not None:
            hidden = action.kind in ("pass", "exchange")
            if action.kind == "play":
                self._refuse(seat, f"{self._name(seat)} cannot play that card: {reason}",
                             secret=f"{self._name(seat)} cannot {action.describe()}: {reason}")
            else:
                self._refuse(seat, f"{self._name(seat)} cannot {action.describe()}: {reason}", private=hidden)
            if hidden and source == "reader":
                fed = self.fed.pop(seat, [])
                if action.kind == "exchange" and self._give_target(seat) == "discard":  # fed to the discard pocket
                    for c in fed:
                        self.places.move(c, "discard", seat_target(seat))
                    if fed:
                        self._msg(f"{self._name(seat)}: take the {len(fed)} card(s) you fed back from the discard "
                                  f"pocket", seat=seat)
                else:  # parked in the loop: fetched back to the seat
                    for c in fed:
                        self._push(Fetch(C.NAMES[c], seat_target(seat)))
            return False
        before = [list(g.hand_of(s)) for s in range(g.n)]
        if action.kind == "pass" and self.pass_snap is None:
            self.pass_snap = before
        pos = self.stock_pos
        try:
            g.apply(action, seat)
        except IllegalAction as e:  # check() said yes; keep the table safe anyway
            self._refuse(seat, str(e))
            return False
        self.sources.append(source)
        self.blocked.append(None)
        self.pending.pop(seat, None)
        self.blinking = []
        self._announce(seat, action)
        kind = action.kind
        if seat in self.loop_bots and source != "reader":  # the bot's cards are in the dealer's loop
            if kind == "play":
                self._push(Fetch(C.NAMES[action.value], "trick"))
                self.blocked[-1] = "the dealer has put the bot's card in the trick pocket"
                self._msg(f"{self._name(seat)} plays {C.NAMES[action.value]}: the dealer takes it from its loop to "
                          f"the trick pocket")
            elif kind == "pass":
                source = "loop"  # parked already: the Release hands them over with the others
        elif source != "reader":  # cards players move by hand
            if kind == "play":
                self.places.move(action.value, seat_target(seat), "trick")
            elif kind == "exchange" and self.dealer_version != 1 and self._give_target(seat) == flows.PARK:
                # the other player's Double Nil exchange is still to come and may draw these
                # (rule exchange/2: places in a pile they join), and the dealer fetches only from
                # the loop: the player feeds them through the play slot into it, as on the reader
                for c in action.value[0]:
                    self._push(FeedBack(seat, C.NAMES[c], flows.PARK))
            elif kind == "exchange":
                for c in action.value[0]:
                    self.places.move(c, seat_target(seat), "discard")
        if kind == "draw":
            self.blocked[-1] = "the drawn cards have already been routed"
            nxt = g.to_move if g.phase == "draw" else None
            keep = action.value == "keep"
            self.presented = None
            if self.dealer_version == 1:
                steps = legacy.draw_steps(g.deck, pos, seat, keep, nxt)
            else:
                steps = flows.draw_steps(g.deck, pos, seat, keep, nxt, flows.discard_target(g),
                                         self._candidate_place(hand_index, g, pos // 2))
                due = g.deck[pos + 1] if keep else g.deck[pos]
                self._msg(f"{self._name(seat)}: " + (f"your second card {C.NAMES[due]} comes to your pocket: look at "
                                                      f"it and feed it back" if keep else
                                                      f"feed {C.NAMES[due]} back; you keep the card that comes to "
                                                      f"your pocket") + " (the discards)", seat=seat)
            for step in steps:
                self._push(step)
            self.stock_pos = pos + 2
        elif kind == "exchange":
            self.blocked[-1] = "the exchanged cards have already been routed"
            give, get = action.value
            fed = self.fed.pop(seat, [])
            if self.dealer_version == 1:
                for step in legacy.exchange_steps(seat, get, fed):
                    self._push(step)
            else:  # the replacements come out of the loop; the fed cards are in the discard pocket
                # (or in the loop while the other player's Double Nil exchange is to come)
                for i, c in enumerate(fetch_order):  # each but the last makes way for the next (NEXT)
                    self._push(Fetch(C.NAMES[c], seat_target(seat), then_next=i + 1 < len(fetch_order)))
            if source != "reader" and give and any(isinstance(st, FeedBack) and st.seat == seat for st in self.steps):
                self._msg(f"{self._name(seat)}: feed the {len(give)} card(s) you gave into the play slot, one at a "
                          f"time (the other Double Nil exchange may draw them)", seat=seat)
            elif source != "reader" and give:
                self._msg(f"{self._name(seat)}: put the {len(give)} card(s) you gave in the discard pocket", seat=seat)
            self._msg(f"{self._name(seat)}: your replacements are {' '.join(C.names(get)) or 'none'}", seat=seat)
        elif kind == "pass":
            self.given[seat] = (action.value, source)
            self.fed.pop(seat, None)
            if source == "reader":
                self.blocked[-1] = "the passed cards are in the dealer"
            if g.phase != "pass":
                self._release_passes()
        elif kind == "play" and flows.info_of(g).stock == "turn-up":
            after = [list(g.hand_of(s)) for s in range(g.n)]
            got = [flows.gained(before[s], after[s], [action.value] if s == seat else []) for s in range(g.n)]
            if any(got):
                winner = next((s for s in range(g.n) if g.deck[pos] in got[s]), 0)
                loser = 1 - winner
                if self.dealer_version == 1:
                    steps = legacy.whist_steps(g.deck, pos, winner, loser)
                else:
                    steps = flows.whist_steps(g.deck, pos, winner, loser, self.loop_bots)
                for step in steps:
                    self._push(step)
                self.stock_pos = pos + 2
                if self.dealer_version != 1:
                    self._show_stock()
                self.blocked[-1] = "the stock cards have been drawn"
        if g.phase in ("deal", "over"):
            self._end_of_hand()
        elif not self.busy:
            self._prompt()
        return True

    def _announce(self, seat: int, action: A.Action) -> None:
        name = self._name(seat)
        k = action.kind
        if k == "pass":
            self._msg(f"{name} has passed")
        elif k == "exchange":
            self._msg(f"{name} exchanged {len(action.value[0])} card(s)")
        elif k == "draw":
            self._msg(f"{name} drew")
        else:
            self._msg(f"{name}: {action.describe()}")

    def _release_passes(self) -> None:
        """Everyone has passed: the fed cards parked in the loop go to their receivers' pockets in
        one Release (a v1 game: one fetch per card, as the v1 referee did)."""
        g = self._g()
        snap = self.pass_snap or [list(g.hand_of(s)) for s in range(g.n)]
        after = [list(g.hand_of(s)) for s in range(g.n)]
        given = {s: tuple(v[0]) for s, v in self.given.items()}
        moves = flows.pass_moves(snap, after, given)
        parked: list[tuple[int, int]] = []
        for giver, (cards, source) in sorted(self.given.items()):
            to = moves.get(giver)
            if to is None:
                continue
            if source in ("reader", "loop"):
                parked += [(c, to) for c in cards]
            else:
                for c in cards:
                    self.places.move(c, seat_target(giver), seat_target(to))
                self._msg(f"{self._name(giver)}: hand your passed cards face down to {self._name(to)}", seat=giver)
        if parked and self.dealer_version == 1:
            for step in legacy.release_steps(parked):
                self._push(step)
        elif parked:
            plan = [(C.NAMES[c], flows.PARK if to in self.loop_bots else seat_target(to)) for c, to in parked]
            if self.loop_bots:  # the bots' hands share the loop: each is read once and goes round again
                stay = Counter(self.places.at.get(flows.PARK, []))
                stay.subtract(c for c, _ in parked)
                plan += [(C.NAMES[c], flows.PARK) for c in sorted(stay.elements())]
            self._push(Release(tuple(plan)))
        if self.blocked:
            self.blocked[-1] = "the passed cards have been handed over"
        self._msg("Everyone has passed: pick up the cards you received")
        self.pass_snap = None
        self.given = {}
        self.claim = None

    def _end_of_hand(self) -> None:
        g = self._g()
        h = g.hand_number - 1
        f = self.fair[h]
        f["revealed"] = "yes"
        row = g.hand_results[-1] if g.hand_results else {"points": [], "totals": []}
        self._chain_hand(h, row["points"])
        pts = ", ".join(f"{g.names[s]} {p:+d}" for s, p in enumerate(row["points"]))
        self._msg(f"Hand {g.hand_number} over: {pts}")
        self._out.append(ShowCommitment(g.hand_number, fairness.short(f["commitment"]), f["commitment"], f["salt"]))
        self.pending.clear()
        self.presented = None
        self.faceup = None
        self._finish_or_next()

    def _chain_hand(self, h: int, points: list[int]) -> None:
        """The chain of plays through hand ``h``, now over (chain.py): its head and its points,
        as the rules scored them at the hand's end, go into the record and onto the screen."""
        g = self._g()
        f = self.fair[h]
        before = self.fair[h - 1].get("chain") if h > 0 else None
        if not isinstance(before, str):
            before = chain.game_head(g.GAME_ID, g.names, non_defaults(g.GAME_ID, g.options), g.first_dealer)
        _deck, acts = g.finished_hands[h]
        f["points"] = list(points)
        f["chain"] = chain.hand_head(before, str(f["commitment"]), acts, points)

    def _finish_or_next(self) -> None:
        g = self._g()
        if g.over:
            self.waiting = "over"
            names = " and ".join(g.names[w] for w in g.winners)
            self._msg(f"Game over: {names} {'win' if len(g.winners) > 1 else 'wins'}")
            self._out.append(Sound("game_over"))
            self._out.append(SaveRecord(self.record(), True))
        else:
            self._out.append(SaveRecord(self.record(), False))
            self._ask_shuffle()

    def _ask_shuffle(self) -> None:
        g = self._g()
        self.waiting = "shuffle"
        self._out.append(NeedShuffle(g.DECKS))
