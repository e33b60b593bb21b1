"""Both players on Double Nil in two-player Spades, the exchanges entered on the touchscreen (the
kiosk's entry, no buttons, no cards through the reader for the give), on the simulated table:
the real firmware behind a pty, the real driver and host.

Under rule exchange/2 the second exchanger's replacements are the cards at places of a pile
that the first exchanger's given cards have joined, and the dealer fetches only from its loop.
Entered by touch, the given cards went by hand to the discard pocket (the screen said so): a
replacement that was one of them was fetched from a loop that did not hold it (the FETCH
refused, the table stopped on a dealer fault). Now, while the other player's exchange is to
come, the screen asks for the given cards through the play slot and the dealer parks them in
the loop; the referee's places and the dealer's pockets agree card for card."""

from __future__ import annotations

from collections import Counter
from typing import Any

from trickref.device.simulated.table import SimTable
from trickref.device.table.dealers import target_byte
from trickref.engine import actions as A
from trickref.engine import cards as C
from trickref.engine.bots import bot_for
from trickref.engine.referee import fairness
from trickref.engine.referee.commands import Command, FeedBack
from trickref.engine.referee.events import Touch

BASE = bot_for("spades-2p")


class DoubleNil:
    def choose(self, state: Any, seat: int, rng: Any) -> A.Action:
        legal = state.legal_actions(seat)
        for a in legal:
            if a.kind == "double_nil":
                return a
        three = [a for a in legal if a.kind == "exchange" and len(a.value[0]) == 3]
        if three:  # three cards given: the most the second exchange can draw from
            return rng.choice(three)
        return BASE.choose(state, seat, rng)


class Fixed:
    def __init__(self, action: A.Action) -> None:
        self.action = action

    def choose(self, state: Any, seat: int, rng: Any) -> A.Action:
        return self.action


class TouchTable(SimTable):
    """The bots declare Double Nil and exchange on the touchscreen; everything else as usual.
    After each exchange (its cards fed, fetched, moved by hand) the referee's places and the
    simulator's pockets are compared."""

    commands: list[Command]
    disagree: list[str]

    def _on_commands(self, cmds: list[Command]) -> None:
        self.commands += cmds
        super()._on_commands(cmds)

    def compare(self) -> None:
        at, sim = self.referee.places.at, self.sim
        assert sim is not None
        with sim.lock:
            trays = {k: list(v) for k, v in sim.board.trays.items()}
        for store in ("discard", "seat:0", "seat:1"):
            want, got = Counter(at.get(store, [])), Counter(trays.get(target_byte(store), []))
            if want != got:
                self.disagree.append(f"{store}: referee {C.names(sorted(want.elements()))}, "
                                     f"dealer {C.names(sorted(got.elements()))}")

    def bot_enter(self, seat: int) -> None:
        g = self.referee.game
        assert g is not None
        action = self.bot.choose(g.copy(), seat, self.host.bot_rng(seat))
        if action.kind in ("double_nil", "exchange"):
            rec = A.to_record(seat, action)
            rec.pop("seat")
            self.host.call(Touch(seat, rec))
            self.settle()
            if action.kind == "exchange":
                while self.referee.steps and isinstance(self.referee.steps[0], FeedBack):
                    self.feed_back(self.referee.steps[0])  # the person feeds the given cards
                self.settle()
                self.compare()
            return
        chooser, self.bot = self.bot, Fixed(action)
        try:
            super().bot_enter(seat)
        finally:
            self.bot = chooser


def test_both_double_nil_exchanges_by_touch_keep_the_referee_and_the_dealer_agreed() -> None:
    with TouchTable("spades-2p", 2, {"target": 150}, seed=3) as t:
        t.commands, t.disagree = [], []
        t.bot = DoubleNil()
        t.start()
        t.run(max_hands=1)
        ref = t.referee
        g = ref.game
        assert g is not None
        (_, acts), = g.finished_hands
        (s1, first), (s2, second) = [(s, a) for s, a in acts if a.kind == "exchange"]
        assert s1 != s2 and len(first.value[0]) == 3
        given = set(first.value[0])
        # the seed's point: a replacement of the second exchange is a card the first one gave
        assert given & set(second.value[1]), (C.names(first.value[0]), C.names(second.value[1]))
        # the first exchanger fed the given cards into the loop (by the play slot); the second,
        # whose cards nobody can draw any more, put them in the discard pocket by hand
        fed = [c for c in t.commands if isinstance(c, FeedBack) and c.seat == s1 and c.target == "loop"]
        assert given <= {C.parse(c.card) for c in fed}
        assert not t.disagree
        assert not [m.text for m in t.messages if m.level != "info"]
        assert not ref.dealer_fault
        assert all(c.ok for c in fairness.verify_record(ref.record()))
