"""What the referee shows: the shared screen's view, one seat's view, the waiting line, the
game record so far, and the words for actions and phases."""

from __future__ import annotations

import copy
from typing import Any

from .. import actions as A
from .. import cards as C
from .. import catalog
from ..options import non_defaults
from ..records import FORMAT, Record, dump
from . import fairness, panel
from .commands import DealPlan, FeedBack
from .state import MESSAGES_KEPT, RefereeState


class RefereeViews(RefereeState):
    """The read-only views of a referee."""

    def public_view(self) -> dict[str, Any]:
        """The shared screen: the engine's public view plus the table's state. No hidden card."""
        g = self.game
        table: dict[str, Any] = {
            "waiting": self.waiting,
            "waiting_for": self.waiting_text(),
            "turn": list(g.turn_seats()) if g is not None and self.waiting == "turn" else [],
            "pending": self._pending_labels(),
            "dealer": {
                "status": "fault" if self.dealer_fault else ("busy" if self.steps else "idle"),
                "op": self.steps[0].OP if self.steps else None,
                "fault": self.dealer_fault,
                **self._deal_counts(),
            },
            "messages": [m for m in self.messages if m["seat"] is None][-MESSAGES_KEPT:],
            "commitment": self._commitment_view(),
            "corrections": [dict(c) for c in self.corrections],
            "hand_corrections": copy.deepcopy(self.hand_corrections),
            "pass_progress": self._pass_progress(),
            "undo": None if self.undo_pending is None else self.undo_pending["text"],
            "leds": self.leds[:],
            "bots": list(self.bots),
            "faceup": None if self.faceup is None else C.NAMES[self.faceup],
            "presented_to": None if self.presented is None else self.presented[0],
            "hands_revealed": [dict(f) for f in self.fair if "revealed" in f],
        }
        return {"game": None if g is None else self._game_view(g.public_view()), "table": table}

    def _game_view(self, v: dict[str, Any]) -> dict[str, Any]:
        """The engine's view with the hand's tricks so far (``tricks``: GameState.trick_log,
        public), for the kiosk's review of the hand, and the game's descriptor flags (``info``:
        catalog.GameInfo.public, what the screens draw by). Added here, not in the engine's own
        view, which the bots read at every decision."""
        g = self._g()
        v["tricks"] = g.trick_log()
        v["info"] = catalog.info(g.GAME_ID).public()
        return v

    def _deal_counts(self) -> dict[str, int]:
        """``dealt`` / ``total`` cards of the deal in progress (both 0 when none is)."""
        head = self.steps[0] if self.steps else None
        if not isinstance(head, DealPlan):
            return {"dealt": 0, "total": 0}
        total = len(head.plan)
        return {"dealt": min(self.deal_progress, total), "total": total}

    def seat_view(self, seat: int) -> dict[str, Any]:
        """One seat's private screen (hot-seat mode): its hand, the card shown to it, its own
        fed cards and its own messages, on top of the public view."""
        v = self.public_view()
        if self.game is None:
            return v
        v["game"] = self._game_view(self.game.view(seat))
        t = v["table"]
        t["seat"] = seat
        t["presented"] = C.NAMES[self.presented[1]] if self.presented and self.presented[0] == seat else None
        t["fed"] = C.names(self.fed.get(seat, []))
        t["messages"] = [m for m in self.messages if m["seat"] in (None, seat)][-MESSAGES_KEPT:]
        t["choices"] = [panel.label(a) for a in self._choices(seat)]
        return v

    def waiting_text(self) -> str:
        g = self.game
        if g is None:
            return "waiting for a new game"
        if self.waiting == "over":
            return "the game is over"
        if self.dealer_fault:
            return "the dealer needs attention"
        if self.waiting == "shuffle":
            return "waiting for the shuffle"
        if self.undo_pending is not None:
            return "waiting for the undo to be confirmed or cancelled"
        if self.busy:
            head = self.steps[0]
            if isinstance(head, FeedBack):
                return f"wait: {g.names[head.seat]} feeds the drawn card back into the dealer"
            return f"wait: the dealer is {head.BUSY}"
        seats = g.turn_seats()
        if not seats:
            return "waiting"
        who = ", ".join(g.names[s] for s in seats)
        return f"waiting for {who} to {_PHASE_WORDS.get(g.phase, 'act')}"

    def record(self) -> dict[str, Any]:
        """The game record so far: finished hands with their commitment and revealed salt (the
        hand in progress, if any, with its commitment only). Finished hands never change, so
        their JSON is built once and kept (a record is written after every hand)."""
        g = self._g()
        finished = g.finished_hands
        cache = self._record_cache
        while len(cache) < len(finished):
            h = len(cache)
            deck, acts = finished[h]
            hand: dict[str, Any] = {"deck": C.names(deck), "actions": [A.to_record(s, a) for s, a in acts]}
            f = self.fair[h] if h < len(self.fair) else {}
            hand.update({k: f[k] for k in ("commitment", "salt", "exchange", "points", "chain") if k in f})
            cache.append(hand)
        hands = [dict(h) for h in cache]
        if g.phase not in ("deal", "over"):
            rec = dump(Record(g.GAME_ID, [], {}, 0, [(g.deck, g.actions)], [{}], []))
            current = rec["hands"][0]
            if len(self.fair) > len(cache):
                current["commitment"] = self.fair[len(cache)]["commitment"]
            hands.append(current)
        out: dict[str, Any] = {
            "format": FORMAT,
            "game": g.GAME_ID,
            "players": list(g.names),
            "options": non_defaults(g.GAME_ID, g.options),
            "first_dealer": g.first_dealer,
            "hands": hands,
        }
        if self.corrections:
            out["corrections"] = [dict(c) for c in self.corrections]
        if self.hand_corrections:
            out["hand_corrections"] = copy.deepcopy(self.hand_corrections)
        return out


    # ------------------------------------------------------------------ views
    def _choices(self, seat: int) -> list[A.Action]:
        g = self.game
        if g is None or self.waiting != "turn" or seat not in g.turn_seats() or g.phase in ("pass", "play", "exchange", "draw"):
            return []
        return panel.choice_list(g.legal_actions(seat))

    def _pending_labels(self) -> list[str | None]:
        g = self.game
        if g is None:
            return []
        out: list[str | None] = [None] * g.n
        for s, i in self.pending.items():
            ch = self._choices(s)
            if ch:
                out[s] = panel.label(ch[min(i, len(ch) - 1)])
        return out

    def _pass_progress(self) -> list[int] | None:
        g = self.game
        if g is None or g.phase != "pass":
            return None
        return [len(self.given[s][0]) if s in self.given else len(self.fed.get(s, [])) for s in range(g.n)]

    def _commitment_view(self) -> dict[str, Any] | None:
        if not self.fair:
            return None
        f = self.fair[-1]
        out: dict[str, Any] = {
            "hand": len(self.fair),
            "short": fairness.short(f["commitment"]),
            "full": f["commitment"],
            "salt": f["salt"] if "revealed" in f else None,
        }
        g = self.game
        h = len(self.fair) - 1
        if "revealed" in f and g is not None and h < len(g.finished_hands):
            # the hand is over: what its check code (QR) holds, for anyone to check (public now)
            out.update(game=g.GAME_ID, deck=C.names(g.finished_hands[h][0]), chain=f.get("chain"),
                       points=f.get("points"))
        return out




def public_words(action: A.Action) -> str:
    """An action in words the shared screen may show: passes and exchanges without cards."""
    if action.kind == "pass":
        return f"pass of {len(action.value)} cards"
    if action.kind == "exchange":
        return f"Double Nil exchange of {len(action.value[0])} card(s)"
    if action.kind == "draw":
        return "draw"
    return action.describe()


_PHASE_WORDS = {
    "draw": "draw (+ keep, - discard)",
    "exchange": "give up to 3 cards for Double Nil",
    "bid": "bid",
    "pass": "pass",
    "play": "play",
    "moon": "choose the moon",
}

