"""The real referee on the physical twin: the stock games' fetching as the referee drives it.

    .venv/bin/python benchmarks/twin_referee.py [--hands 30] [--first 0] [--seed 1] \
        [--cases german-whist,spades-2p-double-nil] [--modes old,new] [--out issue20/...json]

benchmarks/twin_stock.py scripts the referee's flows by hand (which steps carry flag NEXT is
written there). Here the Referee itself (engine/referee) plays, bots in both seats entering
everything through the reader as at the table (bids and draws by panel presses, every card
taken out of the seat's pocket and dropped into the play slot), and each dealer step it gives
goes to the unmodified firmware on the twin (device/dealer/twin.py, physical.toml as is: the
sorting hopper, the blade's 3 % error a landing) as device/table/dealers.py sends it: DealPlan ->
DEAL_PLAN; Fetch -> FETCH (flag NEXT for ``then_next``); Stage -> FETCH to 0xFE; RouteFed ->
ROUTE_PRESENTED (place 255 and flag NEXT for ``then_next``); FeedBack -> FEED 1 HOLD, then
ROUTE_PRESENTED with its place byte and flag. The driver's guards (IDENTIFY flags bit6, flags2
bit1) hold on this firmware, so every hint becomes a flag.

Modes, the same hands (same deck, same gathered hopper order, the same bots' choices, so the
same game), alternating hand by hand: ``new``, the referee as it is; ``old``, the referee
without ``DealerSteps._then_next`` (up to main 5cf8347: NEXT only on the draw's FeedBack and
the fetches ``flows`` marks); ``none``, every hint taken off; ``nocell``, the referee as it is
on a dealer without the counted lift (hardware/README.md item 9: no load cell under the
splitter's blade).

Cases: ``german-whist`` (the deal, then stage one's 13 tricks: the two plays fed, the
stock cards fetched and staged); ``spades-2p-double-nil`` (the deal, the 26 draw turns, seat 0
on Double Nil giving three cards through the reader, the three replacements fetched; rule
exchange/2). Fetching: the twin's mechanism time from each FETCH to its card in its pocket plus
each stage to STAGED, summed (as twin_stock.py counts it); ``exchange_s`` the replacements'
FETCHes; ``flagged`` the ROUTE_PRESENTED frames sent with flag NEXT; ``pulled`` the FETCHes that
began with their card already in the read window.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import random
import statistics
import sys
import time
import zlib
from collections import Counter
from pathlib import Path
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
    Release,
    RouteFed,
    Stage,
)
from trickref.engine.referee.events import (
    BotAction,
    CardRead,
    DealDone,
    DealerDone,
    NewGame,
    make_shuffle,
)
from trickref.engine.referee.referee import Referee
from trickref.engine.referee.steps import DealerSteps

ROOT = Path(__file__).resolve().parents[1]
P = th.P
HOLD = 0xFE
STOPS = (P.EV_JAM, P.EV_FAULT, P.EV_DOUBLE_FEED, P.EV_ESTOP, P.EV_POCKET_FULL, P.EV_MISREAD)
_THEN_NEXT = DealerSteps._then_next


class Stopped(RuntimeError):
    """The dealer stopped typed (JAM, FAULT...): the hand is counted apart."""


class TwinTable:
    """A Referee, bots in both seats entering through the reader, the firmware on the twin.
    ``hints``: False takes every then_next off the steps (mode ``none``)."""

    def __init__(self, game: str, seed: int, chooser: Any, hints: bool = True,
                 scale: dict[str, float] | None = None, pass_ms: int = 1, loop_bots: tuple[int, ...] = (),
                 heard: bool = False, cfg: dict[str, Any] | None = None, players: int = 2) -> None:
        self.ref = Referee()
        self.rng = random.Random(seed)
        self.seed = seed
        self.game = game
        self.chooser = chooser
        self.hints = hints
        self.loop_bots = loop_bots  # bot seats whose hands are in the dealer's loop (BotAction entries)
        self.players = players
        self.tw = th.new_twin(seats=players, seed=seed, scale=scale, **(cfg or {}))
        self.host = th.TwinHost(self.tw, pass_ms=pass_ms)
        # ``heard``: a FETCH, a RouteFed and a FeedBack end when the host hears the card's
        # CARD_ROUTED, as device/dealer/driver.py ends them (not when the card lands); each such
        # step's (kind, twin ms from its command to the card landing in its pocket (-1: the loop),
        # to the event heard)
        self.heard = heard
        self.heard_steps: list[tuple[str, int, int]] = []
        self.host.hello()
        self.flagged: list[str] = []  # ROUTE_PRESENTED frames sent with flag NEXT ("RouteFed 4D")
        self.fetch_ms = 0  # from each FETCH to its card in the pocket
        self.stage_ms = 0  # from each stage to STAGED
        self.fetch_passes = 0  # cards sent round the loop during the FETCHes and stages
        self.fetches = 0
        self.exchange_ms = 0  # the FETCHes of a Double Nil's replacements
        self.window_at_fetch: list[tuple[int, int | None]] = []  # each FETCH's card, the window's card as it began
        self.deal_ms = 0
        self.sid = 0x4000
        # the auto table only for its entry events (panel presses for bids, draws, Double Nil)
        self.entries = AutoTable(seed=seed, entry="reader", referee=self.ref)

    # ---- the dealer: each referee step on the twin, as device/table/dealers.py maps it
    def _step_id(self) -> bytes:
        self.sid = (self.sid + 1) & 0xFFFF
        return P.u16(self.sid)

    def _check(self, start: int) -> None:
        for e in self.host.events[start:]:
            if e[1] in STOPS:
                raise Stopped(f"the dealer stopped: {e}; {self.tw.mech.log[-3:]}")

    def _rest(self) -> None:
        """Until the firmware's mechanism is idle, as a host's next command finds it (a card a
        FEED sent round the loop may still be on its way: the FETCH after it starts meanwhile,
        as twin_stock.py's ``Hand.idle``)."""
        while self.tw.fw.dealer.mech.busy():
            self.host.run(5)

    def settle(self) -> None:
        """Until nothing moves on the twin either (every card landed)."""
        while self.tw.mech.busy() or self.tw.fw.dealer.mech.busy():
            self.host.run(5)

    def _command(self, ftype: int, body: bytes) -> None:
        r = self.host.command(ftype, self._step_id() + body)
        if r.type != P.OK:
            raise Stopped(f"command 0x{ftype:02x} {body.hex()} refused: {r}")

    def _until(self, kind: int, start: int) -> tuple[int, int, bytes]:
        e = self.host.until((kind,) + STOPS, max_ms=600_000, start=start)
        self._check(start)
        return e

    def read_fed(self, seat: int, card: int) -> int:
        """The player takes ``card`` out of their pocket into the play slot; FEED 1 HOLD."""
        self._rest()
        self.tw.mech.pockets[seat].remove(card)
        self.tw.mech.slot.append(card)
        start = len(self.host.events)
        self._command(P.FEED, bytes((1, HOLD)))
        e = self._until(P.EV_PRESENTED, start)
        return int(e[2][1])

    def _route_presented(self, target: int, place: int | None, then_next: bool, what: str, card: int) -> None:
        start = len(self.host.events)
        body = bytes((target,))
        if then_next:
            body += bytes((0xFF if place is None else place, P.FEED_NEXT))
            self.flagged.append(what)
        elif place is not None:
            body += bytes((place,))
        t0 = self.tw.mech.now
        self._command(P.ROUTE_PRESENTED, body)
        if self.heard:
            self._hear(what.split()[0], target, card, t0, start)
        else:
            self._until(P.EV_CARD_ROUTED, start)
        self._rest()

    def _hear(self, kind: str, target: int, card: int, t0: int, start: int) -> None:
        """Pass by pass until the host hears ``card``'s CARD_ROUTED; keeps when the card landed in
        ``target``'s pocket and when the event came, from the command (``heard_steps``)."""
        cfg = self.tw.board.cfg
        pocket = target if target < cfg.SEAT_COUNT else cfg.POCKET.get(target)  # (None: the loop)
        landed = -1
        while True:
            self._check(start)
            if landed < 0 and pocket is not None and card in self.tw.mech.pockets.get(pocket, []):
                landed = self.tw.mech.now
            if any(e[1] == P.EV_CARD_ROUTED and e[2][0] == card for e in self.host.events[start:]):
                if landed < 0 and pocket is not None:  # heard before it fell (it lands as the next step begins)
                    landed = self.tw.mech.now
                self.heard_steps.append((kind, -1 if landed < 0 else (landed - t0) // 1000,
                                         (self.tw.mech.now - t0) // 1000))
                return
            self.host.run(1)

    def run_step(self, cmd: DealerCommand) -> Any:
        if isinstance(cmd, DealPlan):
            entries = [(C.parse(c), target_byte(t)) for c, t in cmd.plan]
            hopper = [c for c, _ in entries]
            self.rng.shuffle(hopper)  # the order the players gathered the cards in
            self.tw.mech.hopper = hopper
            t0 = self.tw.mech.now
            end = self.host.deal(cmd.deal_id, entries)
            short = th.deal_shortfall(end)
            if short:
                raise Stopped(f"the deal did not check out: {short}")
            self._rest()
            self.deal_ms += (self.tw.mech.now - t0) // 1000
            return DealDone(cmd.deal_id, True)
        if isinstance(cmd, Fetch):
            self._rest()
            win = self.tw.mech.window_card()
            card, target = C.parse(cmd.card), target_byte(cmd.target)
            self.window_at_fetch.append((card, None if win is None else win.card))
            flags = bytes((P.FETCH_NEXT,)) if cmd.then_next else b""
            t0, p0, start = self.tw.mech.now, self.tw.mech.passes, len(self.host.events)
            self._command(P.FETCH, bytes((th.LOOP, card, target)) + flags)
            cfg = self.tw.board.cfg
            pocket = target if target < cfg.SEAT_COUNT else cfg.POCKET.get(target)
            if self.heard:
                self._hear("Fetch", target, card, t0, start)
            while card not in self.tw.mech.pockets.get(pocket, []):  # (its event may come with a later frame)
                self._check(start)
                self.host.run(2)
            ms = (self.tw.mech.now - t0) // 1000
            self.fetch_ms += ms
            self.fetches += 1
            g = self.ref.game
            if g is not None and any(a.kind == "exchange" for _, a in g.actions):
                self.exchange_ms += ms
            self.fetch_passes += self.tw.mech.passes - p0
            self._rest()
            return DealerDone(cmd.step, cmd.card)
        if isinstance(cmd, Stage):
            self._rest()
            t0, p0, start = self.tw.mech.now, self.tw.mech.passes, len(self.host.events)
            self._command(P.FETCH, bytes((th.LOOP, C.parse(cmd.card), HOLD)))
            self._until(P.EV_STAGED, start)
            self.stage_ms += (self.tw.mech.now - t0) // 1000
            self.fetch_passes += self.tw.mech.passes - p0
            self._rest()
            return DealerDone(cmd.step, cmd.card)
        if isinstance(cmd, Release):  # the passed cards parked in the loop, dealt to their seats
            self._rest()
            end = self.host.deal((0x7000 + cmd.step) & 0xFFFF, [(C.parse(c), target_byte(t)) for c, t in cmd.plan])
            short = th.deal_shortfall(end)
            if short:
                raise Stopped(f"the release did not check out: {short}")
            self._rest()
            return DealerDone(cmd.step, None)
        if isinstance(cmd, RouteFed):
            assert cmd.card is not None
            self._route_presented(target_byte(cmd.target), None, cmd.then_next, f"RouteFed {cmd.card}",
                                  C.parse(cmd.card))
            return DealerDone(cmd.step, cmd.card)
        if isinstance(cmd, FeedBack):
            card = self.read_fed(cmd.seat, C.parse(cmd.card))
            if card != C.parse(cmd.card):
                raise Stopped(f"read {C.NAMES[card]} for {cmd.card}")
            place = cmd.place if cmd.target == "loop" else None
            self._route_presented(target_byte(cmd.target), place, cmd.then_next, f"FeedBack {cmd.card}", card)
            return DealerDone(cmd.step, cmd.card)
        raise AssertionError(f"a step this harness does not run: {cmd!r}")

    # ---- the referee and the players
    def handle(self, ev: Any) -> None:
        queue = [ev]
        while queue:
            out = self.ref.handle(queue.pop(0))
            for c in out:
                if isinstance(c, DealerCommand):
                    if not self.hints and hasattr(c, "then_next"):
                        c = dataclasses.replace(c, then_next=False)
                    queue.append(self.run_step(c))
                elif isinstance(c, NeedShuffle) and (self.ref.game is None or not self.ref.game.finished_hands):
                    queue.append(make_shuffle(c.decks, random.Random(self.seed * 7919 + 1)))  # the first hand only

    def start(self) -> None:
        names = tuple(f"P{i}" for i in range(self.players))
        if self.loop_bots:
            self.handle(NewGame(self.game, names, {}, 0, self.loop_bots, bot_hands="loop"))
        else:
            self.handle(NewGame(self.game, names, {}, 0, tuple(range(self.players))))

    def enter(self) -> bool:
        """The seat on turn acts; False when the hand is over (or nobody can act)."""
        g = self.ref.game
        if g is None or not self.ref.accepting() or g.finished_hands:
            return False
        seat = g.turn_seats()[0]
        action = self.chooser(g.copy(), seat, self.rng)
        if seat in self.loop_bots:  # the bot's entry: its card comes out of the loop (a Fetch)
            rec = A.to_record(seat, action)
            rec.pop("seat")
            self.handle(BotAction(seat, rec))
            return True
        for ev in self.entries.entry_events(seat, action):
            if isinstance(ev, CardRead):  # the player feeds the card through the play slot
                card = self.read_fed(seat, C.parse(ev.card))
                ev = CardRead(C.NAMES[card], ev.seat)
            self.handle(ev)
        return True

    def agree(self) -> list[str]:
        """The referee's places against the twin's pockets and the firmware's loop model."""
        self.settle()
        at, pockets, cfg = self.ref.places.at, self.tw.mech.pockets, self.tw.board.cfg
        bad = []
        for where in ("seat:0", "seat:1", "trick", "discard"):
            t = target_byte(where)
            k = t if t < cfg.SEAT_COUNT else cfg.POCKET.get(t)
            want, got = Counter(at.get(where, [])), Counter(pockets.get(k, []))
            if want != got:
                bad.append(f"{where}: referee {C.names(sorted(want.elements()))}, "
                           f"twin {C.names(sorted(got.elements()))}")
        if Counter(at.get("loop", [])) != Counter(self.tw.fw.dealer.loop):
            bad.append("loop: the referee's and the firmware's differ")
        return bad

    def result(self) -> dict[str, Any]:
        return {"deal_s": self.deal_ms / 1000, "fetch_s": self.fetch_ms / 1000, "stage_s": self.stage_ms / 1000,
                "fetching_s": (self.fetch_ms + self.stage_ms) / 1000, "fetch_passes": self.fetch_passes,
                "fetches": self.fetches, "flagged": len(self.flagged),
                "pulled": sum(1 for c, w in self.window_at_fetch if c == w)}


class DoubleNil:
    """Seat 0 declares Double Nil when it may and gives three cards (through the reader: the
    exchange is taken as the third is read); otherwise the game's bot."""

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


def german_whist(seed: int, hints: bool = True, scale: dict[str, float] | None = None,
                 loop_bots: tuple[int, ...] = (), **table: Any) -> TwinTable:
    """The deal and stage one (13 tricks, the stock drawn); ``loop_bots``: bot seats whose
    hands are in the loop (their plays fetched to the trick pocket); ``table``: TwinTable's
    ``heard`` and ``cfg``."""
    t = TwinTable("german-whist", seed, bot_for("german-whist").choose, hints, scale, loop_bots=loop_bots, **table)
    t.start()
    for _ in range(26):
        if not t.enter():
            raise Stopped("nobody could act in stage one")
    return t


def spades_double_nil(seed: int, hints: bool = True, scale: dict[str, float] | None = None,
                      **table: Any) -> TwinTable:
    """The deal, the draw, seat 0's Double Nil and its exchange (until the bidding)."""
    t = TwinTable("spades-2p", seed, DoubleNil(), hints, scale, **table)
    t.start()
    g = t.ref.game
    assert g is not None
    for _ in range(200):
        if g.phase not in ("draw", "exchange"):
            break
        if not t.enter():
            raise Stopped("nobody could act in the draw")
    return t


def hearts(seed: int, hints: bool = True, scale: dict[str, float] | None = None, **table: Any) -> TwinTable:
    """A whole hand of four-player Hearts: the deal, the passes fed into the loop and released to
    their seats, 52 plays through the reader to the trick pocket (no stock: a control)."""
    t = TwinTable("hearts", seed, bot_for("hearts").choose, hints, scale, players=4, **table)
    t.start()
    g = t.ref.game
    assert g is not None
    while not g.finished_hands:
        if not t.enter():
            raise Stopped("nobody could act in the hand")
    return t


CASES = {"german-whist": german_whist, "spades-2p-double-nil": spades_double_nil, "hearts": hearts}


def _mode(mode: str) -> bool:
    """Set the referee for ``mode``; whether the steps keep their hints."""
    DealerSteps._then_next = _THEN_NEXT if mode != "old" else (lambda self: None)  # type: ignore[method-assign]
    return mode != "none"


def median_ci(xs: list[float]) -> tuple[float, float, float]:
    """The median and a distribution-free ~90 % interval (order statistics), as twin_stock.py."""
    ys = sorted(xs)
    n = len(ys)
    k = max(0, int(n / 2 - 0.82 * n ** 0.5))
    return statistics.median(ys), ys[k], ys[n - 1 - k]


def run(hands: int, first: int, seed: int, cases: list[str], modes: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"hands": hands, "first": first, "seed": seed, "modes": modes}
    for case in cases:
        fn = CASES[case]
        rows: dict[str, list[dict[str, Any]]] = {m: [] for m in modes}
        stopped: dict[str, list[dict[str, Any]]] = {m: [] for m in modes}
        loads: dict[str, list[float]] = {m: [] for m in modes}
        for n, i in enumerate(range(first, first + hands)):
            hand = seed * 1000 + i
            for mode in (modes if n % 2 == 0 else modes[::-1]):
                try:
                    # ``nocell``: the referee as it is on a dealer without the counted lift (no load
                    # cell under the splitter's blade: physical.toml sorter.scale_fitted 0)
                    cell = {"sorter.scale_fitted": 0.0} if mode == "nocell" else None
                    t = fn(hand, _mode("new" if mode == "nocell" else mode), cell)
                    r = t.result()
                    r["seed"] = hand
                    r["agree"] = not t.agree()
                    g = t.ref.game
                    # the same game in every mode (the same deck, choices, plays): its actions' digest
                    r["actions_crc"] = zlib.crc32(repr(None if g is None else list(g.actions)).encode())
                    if case == "spades-2p-double-nil":
                        r["exchanged"] = g is not None and any(a.kind == "exchange" for _, a in g.actions)
                        r["exchange_s"] = t.exchange_ms / 1000
                    rows[mode].append(r)
                    print(case, mode, "hand", i, r, "load", round(os.getloadavg()[0], 1), flush=True)
                except Stopped as e:
                    stopped[mode].append({"seed": hand, "why": str(e)[:300]})
                    print(case, mode, "hand", i, "STOPPED", str(e)[:200], flush=True)
                finally:
                    _mode("new")
                loads[mode].append(round(os.getloadavg()[0], 1))
        out[case] = {}
        for mode in modes:
            row: dict[str, Any] = {"finished": len(rows[mode]), "stopped": stopped[mode],
                                   "load_1min": [min(loads[mode]), max(loads[mode])], "hands_run": rows[mode]}
            for key in ("fetching_s", "fetch_passes", "exchange_s", "flagged", "pulled"):
                xs = [float(r[key]) for r in rows[mode] if key in r]
                if xs:
                    med, lo, hi = median_ci(xs)
                    row[key] = {"median": round(med, 2), "lo": round(lo, 2), "hi": round(hi, 2), "max": round(max(xs), 2)}
            out[case][mode] = row
            print(case, mode, len(rows[mode]), "finished", len(stopped[mode]), "stopped",
                  {k: v["median"] for k, v in row.items() if isinstance(v, dict)}, flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=30)
    ap.add_argument("--first", type=int, default=0, help="the first hand's number (seed*1000+n)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", default="german-whist,spades-2p-double-nil")
    ap.add_argument("--modes", default="old,new")
    ap.add_argument("--out", default="twin_referee.json", help="file in benchmarks/results")
    args = ap.parse_args()
    t0 = time.time()
    res = run(args.hands, args.first, args.seed, args.cases.split(","), args.modes.split(","))
    res["machine"] = {"platform": platform.platform(), "python": platform.python_version(),
                      "load_1min_end": os.getloadavg()[0], "wall_s": round(time.time() - t0, 1)}
    path = ROOT / "benchmarks" / "results" / args.out
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(res, indent=1) + "\n")
    print("written", path, file=sys.stderr)


if __name__ == "__main__":
    main()
