"""The referee's FEED / ROUTE_PRESENTED flag NEXT on the physical twin (issue 20 point 4): the
real Referee plays a German Whist hand and a two-player Spades draw with a Double Nil exchange,
every card through the reader, and each dealer step it gives goes to the unmodified firmware on
the twin (device/dealer/twin.py, its sorting hopper) as device/table/dealers.py sends it: DealPlan
-> DEAL_PLAN, Fetch -> FETCH (flag NEXT for ``then_next``), Stage -> FETCH to 0xFE, RouteFed ->
ROUTE_PRESENTED (place 255 and flag NEXT for ``then_next``), FeedBack -> FEED 1 HOLD, then
ROUTE_PRESENTED with its place byte and flag. A player's card is taken out of their pocket and
dropped into the play slot; FEED 1 HOLD reads it, and the referee is told what was read.

German Whist's trick's second play and the Double Nil exchange's last card given now carry the
flag (the referee before sent it only on the draw's feed-backs): the fed card's eject brings the
loop's next card to the read window, so the FETCH of the winner's card (of the first replacement)
starts with it there. The hand plays through, every card where the referee says it is; the
same hand with the hints taken off sends no such flag and fetches slower."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from typing import Any

from trickref.device.dealer import twin_host as th
from trickref.device.table.dealers import target_byte
from trickref.engine import actions as A
from trickref.engine import cards as C
from trickref.engine.bots import bot_for
from trickref.engine.referee.autotable import AutoTable
from trickref.engine.referee.commands import (
    DealerCommand,
    DealPlan,
    FeedBack,
    Fetch,
    NeedShuffle,
    RouteFed,
    Stage,
)
from trickref.engine.referee.events import CardRead, DealDone, DealerDone, NewGame, make_shuffle
from trickref.engine.referee.referee import Referee

P = th.P
HOLD = 0xFE
STOPS = (P.EV_JAM, P.EV_FAULT, P.EV_DOUBLE_FEED, P.EV_ESTOP, P.EV_POCKET_FULL, P.EV_MISREAD)


class TwinTable:
    """A Referee, bots in both seats entering through the reader, the firmware on the twin."""

    def __init__(self, game: str, seed: int, chooser: Any, hints: bool = True) -> None:
        self.ref = Referee()
        self.rng = random.Random(seed)
        self.seed = seed
        self.game = game
        self.chooser = chooser
        self.hints = hints  # False: every then_next taken off (the referee before, or worse)
        self.tw = th.new_twin(seats=2, seed=seed, scale={"sorter.error_chance": 0.0})
        self.host = th.TwinHost(self.tw)
        self.host.hello()
        self.flagged: list[str] = []  # ROUTE_PRESENTED frames sent with flag NEXT (step kind: card)
        self.fetch_ms = 0  # mechanism time from each FETCH to its card in the pocket
        self.window_at_fetch: list[tuple[int, int | None]] = []  # each FETCH's card, the card in the window as it starts
        self.sid = 0x4000
        # the auto table only for its entry events (buttons for draws, bids, the Double Nil)
        self.entries = AutoTable(seed=seed, entry="reader", referee=self.ref)

    # ---- the dealer: each referee step on the twin, as device/table/dealers.py maps it
    def _step_id(self) -> bytes:
        self.sid += 1
        return P.u16(self.sid)

    def _events_since(self, start: int) -> list[tuple[int, int, bytes]]:
        return self.host.events[start:]

    def _check(self, start: int) -> None:
        for e in self._events_since(start):
            assert e[1] not in STOPS, (e, self.tw.mech.log[-3:])

    def _rest(self) -> None:
        while self.tw.mech.busy() or self.tw.fw.dealer.mech.busy():
            self.host.run(5)

    def _command(self, ftype: int, body: bytes) -> None:
        r = self.host.command(ftype, self._step_id() + body)
        assert r.type == P.OK, (hex(ftype), body.hex(), r)

    def _until(self, kind: int, start: int) -> tuple[int, int, bytes]:
        e = self.host.until((kind,) + STOPS, max_ms=300_000, start=start)
        self._check(start)
        return e

    def _read_fed(self, seat: int, card: int) -> int:
        """The player takes ``card`` out of their pocket into the play slot; FEED 1 HOLD."""
        self._rest()
        self.tw.mech.pockets[seat].remove(card)
        self.tw.mech.slot.append(card)
        start = len(self.host.events)
        self._command(P.FEED, bytes((1, HOLD)))
        e = self._until(P.EV_PRESENTED, start)
        return int(e[2][1])

    def _route_presented(self, target: int, place: int | None, then_next: bool, what: str) -> None:
        start = len(self.host.events)
        body = bytes((target,))
        if then_next and self.hints:
            body += bytes((0xFF if place is None else place, P.FEED_NEXT))
            self.flagged.append(what)
        elif place is not None:
            body += bytes((place,))
        self._command(P.ROUTE_PRESENTED, body)
        self._until(P.EV_CARD_ROUTED, start)
        self._rest()

    def run_step(self, cmd: DealerCommand) -> Any:
        if isinstance(cmd, DealPlan):
            entries = [(C.parse(c), target_byte(t)) for c, t in cmd.plan]
            hopper = [c for c, _ in entries]
            self.rng.shuffle(hopper)  # the order the players gathered the cards in
            self.tw.mech.hopper = hopper
            end = self.host.deal(cmd.deal_id, entries)
            assert th.deal_shortfall(end) is None, th.deal_shortfall(end)
            self._rest()
            return DealDone(cmd.deal_id, True)
        if isinstance(cmd, Fetch):
            self._rest()
            win = self.tw.mech.window_card()
            card, target = C.parse(cmd.card), target_byte(cmd.target)
            self.window_at_fetch.append((card, None if win is None else win.card))
            flags = bytes((P.FETCH_NEXT,)) if cmd.then_next and self.hints else b""
            t0, start = self.tw.mech.now, len(self.host.events)
            self._command(P.FETCH, bytes((th.LOOP, card, target)) + flags)
            cfg = self.tw.board.cfg
            pocket = target if target < cfg.SEAT_COUNT else cfg.POCKET.get(target)
            while card not in self.tw.mech.pockets.get(pocket, []):  # (its event comes with the next frame)
                self._check(start)
                self.host.run(2)
            self.fetch_ms += (self.tw.mech.now - t0) // 1000
            self._rest()
            return DealerDone(cmd.step, cmd.card)
        if isinstance(cmd, Stage):
            self._rest()
            start = len(self.host.events)
            self._command(P.FETCH, bytes((th.LOOP, C.parse(cmd.card), HOLD)))
            self._until(P.EV_STAGED, start)
            self._rest()
            return DealerDone(cmd.step, cmd.card)
        if isinstance(cmd, RouteFed):
            assert cmd.card is not None
            self._route_presented(target_byte(cmd.target), None, cmd.then_next, f"RouteFed {cmd.card}")
            return DealerDone(cmd.step, cmd.card)
        if isinstance(cmd, FeedBack):
            card = self._read_fed(cmd.seat, C.parse(cmd.card))
            assert card == C.parse(cmd.card)
            place = cmd.place if cmd.target == "loop" else None
            self._route_presented(target_byte(cmd.target), place, cmd.then_next, f"FeedBack {cmd.card}")
            return DealerDone(cmd.step, cmd.card)
        raise AssertionError(f"a step this harness does not run: {cmd!r}")

    # ---- the referee and the players
    def handle(self, ev: Any) -> None:
        queue = [ev]
        while queue:
            out = self.ref.handle(queue.pop(0))
            for c in out:
                if isinstance(c, DealerCommand):
                    if not self.hints:
                        c = dataclasses.replace(c, then_next=False) if hasattr(c, "then_next") else c
                    queue.append(self.run_step(c))
                elif isinstance(c, NeedShuffle) and (self.ref.game is None or not self.ref.game.finished_hands):
                    queue.append(make_shuffle(c.decks, random.Random(self.seed * 7919 + 1)))  # the first hand only

    def start(self) -> None:
        self.handle(NewGame(self.game, ("P0", "P1"), {}, 0, (0, 1)))

    def enter(self) -> bool:
        """The seat on turn acts; False when the hand is over (or nobody can act)."""
        g = self.ref.game
        if g is None or not self.ref.accepting() or g.finished_hands:
            return False
        seat = g.turn_seats()[0]
        action = self.chooser(g.copy(), seat, self.rng)
        for ev in self.entries.entry_events(seat, action):
            if isinstance(ev, CardRead):  # the player feeds the card through the play slot
                card = self._read_fed(seat, C.parse(ev.card))
                ev = CardRead(C.NAMES[card], ev.seat)
            self.handle(ev)
        return True

    def agree(self) -> list[str]:
        """The referee's places against the twin's pockets and the firmware's loop."""
        at, pockets, cfg = self.ref.places.at, self.tw.mech.pockets, self.tw.board.cfg
        bad = []
        for where in ("seat:0", "seat:1", "trick", "discard"):
            t = target_byte(where)
            k = t if t < cfg.SEAT_COUNT else cfg.POCKET.get(t)
            want, got = Counter(at.get(where, [])), Counter(pockets.get(k, []))
            if want != got:
                bad.append(f"{where}: referee {C.names(sorted(want.elements()))}, twin {C.names(sorted(got.elements()))}")
        if Counter(at.get("loop", [])) != Counter(self.tw.fw.dealer.loop):
            bad.append("loop")
        return bad


def _whist(hints: bool) -> TwinTable:
    t = TwinTable("german-whist", 3, bot_for("german-whist").choose, hints)
    t.start()
    for _ in range(26):  # stage one: 13 tricks of two plays
        assert t.enter() and t.enter()
    return t


def test_a_german_whist_hand_on_the_twin_sends_next_with_each_tricks_second_play() -> None:
    t = _whist(True)
    g = t.ref.game
    assert g is not None and t.ref.stock_pos == 52  # stage one played: the stock is gone
    assert not t.agree(), t.agree()
    assert len(t.flagged) == 13 and all(w.startswith("RouteFed") for w in t.flagged)
    # each trick's winner's card was in the read window when its FETCH began (pulled by the
    # second play's eject): 13 of the 26 FETCHes, the winners'
    fetches = t.window_at_fetch
    assert len(fetches) == 26
    assert [w for c, w in fetches[0::2]] == [c for c, w in fetches[0::2]], fetches
    # and the rest of the hand (stage two: no stock, no flag) plays through
    while t.enter():
        pass
    assert g.finished_hands or t.ref.game is not g
    assert len(t.flagged) == 13
    before = _whist(False)
    assert before.flagged == [] and not before.agree()
    # the same hand, the same stage-one plays: each winner's FETCH about a feed move quicker
    assert t.fetch_ms <= before.fetch_ms - 13 * 100, (t.fetch_ms, before.fetch_ms)
    print("twin fetching ms, with the referee's hints / without:", t.fetch_ms, before.fetch_ms)


class _DoubleNil:
    """Seat 0 declares Double Nil and gives three cards (the reader: the exchange is taken as
    the third is read); otherwise the game's bot."""

    def __init__(self) -> None:
        self.bot = bot_for("spades-2p")

    def __call__(self, state: Any, seat: int, rng: random.Random) -> A.Action:
        legal = state.legal_actions(seat)
        if seat == 0:
            for a in legal:
                if a.kind == "double_nil":
                    return a
            three = [a for a in legal if a.kind == "exchange" and len(a.value[0]) == 3]
            if three:
                return rng.choice(three)
        return self.bot.choose(state, seat, rng)


def _spades(hints: bool) -> TwinTable:
    t = TwinTable("spades-2p", 6, _DoubleNil(), hints)
    t.start()
    g = t.ref.game
    assert g is not None
    for _ in range(200):
        if g.phase not in ("draw", "exchange"):
            break
        assert t.enter()
    return t


def test_a_double_nil_exchange_on_the_twin_sends_next_with_the_last_card_given() -> None:
    t = _spades(True)
    g = t.ref.game
    assert g is not None and g.phase not in ("draw", "exchange")
    (seat, ex), = [(s, a) for s, a in g.actions if a.kind == "exchange"]
    give, get = ex.value
    assert seat == 0 and len(give) == 3 and len(get) == 3
    assert not t.agree(), t.agree()
    assert Counter(t.tw.mech.pockets[0]) == Counter(g.hand_of(0))
    # the draw's 25 feed-backs (as before) and the exchange's last card given (new)
    assert [w.split()[0] for w in t.flagged] == ["FeedBack"] * 25 + ["RouteFed"], t.flagged
    assert C.parse(t.flagged[-1].split()[1]) in give
    # the first replacement's FETCH began with its card in the read window (rule exchange/2:
    # the replacements' discards were parked at the loop's bottom, so it is the loop's next)
    first, window = t.window_at_fetch[-3]
    assert first == get[0] or first in get
    assert window == first, (C.NAMES[first], window)
    before = _spades(False)
    assert before.flagged == [] and not before.agree()
    assert before.window_at_fetch[-3][1] is None
    print("twin fetching ms, with the referee's hints / without:", t.fetch_ms, before.fetch_ms)
