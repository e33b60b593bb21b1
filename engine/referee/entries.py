"""Player entries: the panels' buttons, the touchscreen and bots, and cards fed to the reader
(plays, passes, the Double Nil give), each checked before anything changes."""

from __future__ import annotations

from .. import actions as A
from .. import cards as C
from ..errors import RecordError
from . import flows, panel
from .commands import (
    RouteFed,
    seat_target,
)
from .events import (
    BotAction,
    Button,
    CardRead,
    Touch,
    UndoCancel,
    UndoConfirm,
    UndoRequest,
)
from .undo import UndoAndCorrections
from .views import _PHASE_WORDS


class Entries(UndoAndCorrections):
    def _entry_ok(self, seat: int | None) -> bool:
        """Common gate for player entries; refuses with the reason when the table is not ready."""
        g = self.game
        if g is None:
            self._refuse(None, "no game: start one first")
            return False
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < g.n):
            self._refuse(None, f"there is no seat {seat!r} at this table")
            return False
        if self.waiting == "over":
            self._refuse(seat, "the game is over")
            return False
        if self.waiting == "shuffle":
            self._refuse(seat, "wait: the next hand is being shuffled")
            return False
        if self.undo_pending is not None:
            self._refuse(seat, "answer the undo question first")
            return False
        if self.busy:
            self._refuse(seat, self.waiting_text())
            return False
        return True

    def _on_button(self, ev: Button) -> None:
        g = self.game
        if g is None or not (isinstance(ev.seat, int) and 0 <= ev.seat < g.n):
            self._refuse(None, f"a button on seat {ev.seat!r}, which is not at this table")
            return
        seat, b = ev.seat, ev.button
        if self.undo_pending is not None and self.undo_pending["seat"] in (seat, None):
            if b == "ok":
                self._on_undo_confirm(UndoConfirm())
                return
            if b == "minus":
                self._on_undo_cancel(UndoCancel())
                return
        if b == "ok_long":
            self._on_undo_request(UndoRequest(seat))
            return
        if b not in ("minus", "plus", "ok"):
            self._refuse(seat, f"unknown button {b!r}")
            return
        if not self._entry_ok(seat):
            return
        if seat not in g.turn_seats():
            self._refuse(seat, f"{self._name(seat)}: it is not your turn ({self.waiting_text()})")
            return
        phase = g.phase
        if phase == "draw":
            if b == "plus":
                self._take(seat, A.KEEP, "panel")
            elif b == "minus":
                self._take(seat, A.DISCARD, "panel")
            elif g.check(A.DOUBLE_NIL, seat) is None:
                self._take(seat, A.DOUBLE_NIL, "panel")
            else:
                self._refuse(seat, f"{self._name(seat)}: press + to keep the card shown, - to discard it")
            return
        if phase == "exchange":
            if b == "ok":
                self._finish_give(seat, "reader")
            else:
                self._refuse(seat, f"{self._name(seat)}: feed up to 3 cards to give, then press OK")
            return
        if phase == "pass":
            if b == "ok":
                self.claim = seat
                self._msg(f"{self._name(seat)} is feeding cards to pass")
            else:
                self._refuse(seat, f"{self._name(seat)}: feed your cards to pass through the reader")
            return
        choices = self._choices(seat)
        if not choices:
            self._refuse(seat, f"{self._name(seat)}: feed your card through the reader or tap it on the screen")
            return
        if b == "ok":
            if seat not in self.pending:
                self._refuse(seat, f"{self._name(seat)}: choose with - and +, then press OK")
                return
            action = choices[min(self.pending[seat], len(choices) - 1)]
            self._take(seat, action, "panel")
            return
        if seat not in self.pending:
            self.pending[seat] = panel.start_index(choices)
        else:
            step = 1 if b == "plus" else -1
            self.pending[seat] = max(0, min(len(choices) - 1, self.pending[seat] + step))
        self._msg(f"{self._name(seat)}: {panel.label(choices[self.pending[seat]])}?")

    def _on_touch(self, ev: Touch | BotAction) -> None:
        source = "bot" if isinstance(ev, BotAction) else "touch"
        if not self._entry_ok(ev.seat):
            return
        try:
            _, action = A.from_record({"seat": ev.seat, **ev.action}, "entry")
        except RecordError as e:
            self._refuse(ev.seat, f"{self._name(ev.seat)}: not an entry the table understands ({e})")
            return
        if action.kind == "pass" and source == "touch" and self.loop_bots and ev.seat not in self.loop_bots:
            self._refuse(ev.seat, f"{self._name(ev.seat)}: feed the cards you pass into the dealer's play slot: the "
                                  f"bot seats' cards are inside the dealer, so every pass goes through it")
            return
        if action.kind == "exchange" and ev.seat in self.fed and self.fed[ev.seat]:
            self._refuse(ev.seat, f"{self._name(ev.seat)}: you are feeding the cards to give; press OK to finish")
            return
        self._take(ev.seat, action, source)

    def _on_card_read(self, ev: CardRead) -> None:
        g = self.game
        try:
            card = C.parse(ev.card)
        except ValueError:
            self._refuse(None, f"the reader could not read the card ({ev.card!r}): it went to the reject pocket; feed it again")
            self._route_fed_any(None, "reject")
            return
        back = seat_target(ev.seat) if isinstance(ev.seat, int) and g is not None and 0 <= ev.seat < g.n else "reject"
        if not self._entry_ok(ev.seat if back != "reject" else None):
            self._route_fed(card, back, ev.seat)
            return
        g = self._g()
        phase = g.phase
        if phase == "pass":
            self._fed_pass(card, ev.seat)
        elif phase == "exchange":
            self._fed_give(card)
        elif phase == "play":
            self._fed_play(card)
        else:
            seat = g.to_move
            who = self._name(seat) if seat is not None else "the table"
            self._refuse(ev.seat, f"no card is wanted now: {who} must {_PHASE_WORDS.get(phase, 'act')}; "
                                  f"the card goes back", secret=f"{C.NAMES[card]} goes back")
            self._route_fed(card, self._home(card, ev.seat), ev.seat)

    def _route_fed_any(self, card: int | None, target: str) -> None:
        self._push(RouteFed(None if card is None else C.NAMES[card], target))

    def _fed_play(self, card: int) -> None:
        g = self._g()
        seat = g.to_move
        assert seat is not None
        if card in g.hand_of(seat):
            reason = g.check(A.PLAY[card], seat)
            if reason is not None:
                self._refuse(seat, f"{self._name(seat)} cannot play that card: {reason}. Take the card back.",
                             secret=f"{self._name(seat)}: {C.NAMES[card]} cannot be played: {reason}")
                self._route_fed(card, seat_target(seat), seat)
                return
            self._route_fed(card, "trick", seat)  # first: the gate must be free for the steps after it
            self._take(seat, A.PLAY[card], "reader")
            return
        holders = self._holders(card)
        if len(holders) > 1:
            # two decks, two seats off turn hold it: nobody knows whose it is (before, the first
            # got it: when the other had fed it, that pocket held two copies, the feeder's none)
            self._refuse(None, f"a card two players hold was fed out of turn (it is {self._name(seat)}'s turn): it "
                               f"went to the reject pocket")
            self._route_fed(card, "reject", holders[0])
            self.twin_rejects[self.steps[-1].step] = tuple(holders)
            return
        if holders:
            owner = holders[0]
            self._refuse(owner, f"a card of {self._name(owner)}'s was fed out of turn (it is {self._name(seat)}'s "
                                f"turn): it goes back to {self._name(owner)}",
                         secret=f"{self._name(owner)}: {C.NAMES[card]} was fed out of turn and goes back to you")
            self._route_fed(card, seat_target(owner), owner)
            return
        self._refuse(None, f"{self._not_held(card)}: it went to the reject pocket")
        self._route_fed(card, "reject")

    def _fed_pass(self, card: int, fed_by: int | None) -> None:
        g = self._g()
        passing = list(g.turn_seats())
        if fed_by is not None and fed_by in passing:
            seat: int | None = fed_by if fed_by in self._holders(card, [fed_by]) else None
            if seat is None:
                self._refuse(fed_by, f"{self._name(fed_by)} does not hold {C.NAMES[card]}: it goes back", private=True)
                self._route_fed(card, self._home(card, fed_by), fed_by)
                return
        else:
            holders = self._holders(card, passing)
            mid = [s for s in holders if self.fed.get(s)]
            if self.claim in holders:
                seat = self.claim
            elif len(mid) == 1:
                seat = mid[0]
            elif len(holders) == 1:
                seat = holders[0]
            elif holders:
                self._refuse(None, "the card fed to pass is in more than one hand: press OK on your panel "
                                   "before feeding; the card went to the reject pocket")
                # nobody knows whose it was: the model's copy comes out of the first hand for now
                # (back in it when the card lies in the reject pocket, both holders told then);
                # before, it stayed out of that hand while the other holder had fed it
                self._route_fed(card, "reject", holders[0])
                self.twin_rejects[self.steps[-1].step] = tuple(holders)
                return
            else:
                others = self._holders(card)
                if others:
                    self._refuse(others[0], f"{self._name(others[0])} has already passed: {C.NAMES[card]} goes back",
                                 private=True)
                    self._route_fed(card, seat_target(others[0]), others[0])
                else:
                    self._refuse(None, f"{self._not_held(card)}: it went to the reject pocket")
                    self._route_fed(card, "reject")
                return
        assert seat is not None
        need = self._pass_need(seat)
        fed = self.fed.setdefault(seat, [])
        fed.append(card)
        self._route_fed(card, flows.PARK, seat)
        self._msg(f"{self._name(seat)}: {C.NAMES[card]} to pass ({len(fed)} of {need})", seat=seat)
        if len(fed) >= need:
            self.claim = None if self.claim == seat else self.claim
            self._take(seat, A.pass_cards(fed), "reader")

    def _pass_need(self, seat: int) -> int:
        """Cards one pass takes (the game's ``pass_count``: 2 for partnership-spades' Blind Nil
        exchange, 3 in the Hearts games)."""
        return flows.pass_count(self._g())

    def _fed_give(self, card: int) -> None:
        g = self._g()
        seat = g.to_move
        assert seat is not None
        if not self._holders(card, [seat]):
            holders = self._holders(card)
            why = "is not in your hand" if not holders else f"is {self._name(holders[0])}'s card"
            self._refuse(seat, f"{self._name(seat)}: {C.NAMES[card]} {why}; it goes back", private=True)
            self._route_fed(card, self._home(card, seat), seat)
            return
        fed = self.fed.setdefault(seat, [])
        fed.append(card)
        self._route_fed(card, self._give_target(seat), seat)
        self._msg(f"{self._name(seat)}: {C.NAMES[card]} to give ({len(fed)} of up to 3)", seat=seat)
        if len(fed) >= 3:
            self._finish_give(seat, "reader")

    def _finish_give(self, seat: int, source: str) -> None:
        give = self.fed.get(seat, [])
        self._take(seat, A.exchange(give, []), source)
