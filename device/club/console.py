"""The director's console: what the hub knows and the director's actions, over HTTP (behind
the director's password: ``web.Site.authorised``).

``GET /console/state.json`` is everything the console page shows; ``POST /console/api/<what>``
(JSON in, JSON out) acts: ``round`` (start or end a round; ending one before every table is
done needs a reason), ``roster`` (the players, once, and the movement), ``correct`` (a score
adjusted, an average or adjusted score, a result removed, a ruling), ``withdraw`` (a correction),
``end-night``. The exports (``exports.py``) are ``/console/results.csv``, ``/console/boards.csv``,
``/console/print`` (the results to print), ``/console/cards`` (personal score cards) and
``/console/hands`` (hand records per board). A POST must say ``Content-Type: application/json`` and carry the
``X-Trickref-Console: 1`` header, which a page of another site cannot send without the hub's
leave (it gives none): a forged form on the club's Wi-Fi cannot act for the director.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from .httpd import Request, Response, text
from .state import Refused

log = logging.getLogger("trickref.club.console")


EXPORTS = {"/console/results.csv": ("results.csv", "text/csv; charset=utf-8", "results_csv"),
           "/console/boards.csv": ("boards.csv", "text/csv; charset=utf-8", "boards_csv"),
           "/console/print": ("results.html", "text/html; charset=utf-8", "results_html"),
           "/console/cards": ("cards.html", "text/html; charset=utf-8", "cards_html"),
           "/console/hands": ("hands.html", "text/html; charset=utf-8", "hands_html")}


def _json(obj: Any, status: int = 200) -> Response:
    return Response(status, json.dumps(obj, separators=(",", ":")).encode(), "application/json")


class Console:
    def __init__(self, hub: Any) -> None:
        self.hub = hub

    def handle(self, req: Request) -> Response:
        if req.path == "/console/state.json" and req.method in ("GET", "HEAD"):
            return _json(self.state())
        if req.method in ("GET", "HEAD") and req.path in EXPORTS:
            from . import exports

            name, ctype, fn = EXPORTS[req.path]
            with self.hub.lock:
                snap = self.hub.state.snapshot()
            body = getattr(exports, fn)(snap, self.hub.deals)
            headers = {"Content-Disposition": f'attachment; filename="{self.hub.night.name}-{name}"'} \
                if ctype.startswith("text/csv") else {}
            return Response(200, body.encode("utf-8"), ctype, headers)
        if req.path.startswith("/console/api/"):
            if req.method != "POST":
                return text(405, "the console's actions are POST requests", Allow="POST")
            if req.headers.get("x-trickref-console") != "1" or not req.headers.get(
                    "content-type", "").startswith("application/json"):
                return text(403, "a console action needs the console's header and a JSON body")
            try:
                body = json.loads(req.body or b"{}")
                if not isinstance(body, dict):
                    raise ValueError("not an object")
            except (ValueError, RecursionError):
                return _json({"ok": False, "error": "the request is not a JSON object"}, 400)
            what = req.path[len("/console/api/"):]
            act = getattr(self, "act_" + what.replace("-", "_"), None)
            if act is None:
                return _json({"ok": False, "error": f"no console action {what[:40]!r}"}, 404)
            try:
                words = act(body)
            except Refused as e:
                return _json({"ok": False, "error": str(e)}, 409)
            except (ValueError, KeyError, TypeError) as e:
                return _json({"ok": False, "error": f"{type(e).__name__}: {e}"}, 400)
            return _json({"ok": True, "words": words})
        return text(404, "not found")

    # ------------------------------------------------------------------ actions
    def act_round(self, body: dict[str, Any]) -> str:
        action, r = body.get("action"), body.get("round")
        if action not in ("start", "end") or isinstance(r, bool) or not isinstance(r, int):
            raise ValueError("round needs an action (start or end) and a round number (from 0)")
        if action == "start":
            return str(self.hub.start_round(r))
        reason = body.get("reason")
        return str(self.hub.end_round(r, str(reason) if reason else None))

    def act_roster(self, body: dict[str, Any]) -> str:
        names = body.get("names")
        if isinstance(names, str):
            names = names.splitlines()
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise ValueError("the roster is a list of names, one per player")
        seed = body.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError("seed is a whole number")
        return str(self.hub.set_roster(names, str(body.get("style", "howell")), seed))

    def act_correct(self, body: dict[str, Any]) -> str:
        def num(key: str) -> int:
            v = body.get(key)
            if isinstance(v, bool) or not isinstance(v, int):
                raise ValueError(f"{key} is a whole number (from 0)")
            return v
        return str(self.hub.correct(str(body.get("kind")), str(body.get("table")), num("round"), num("board"),
                                    str(body.get("reason") or ""), body.get("points"), body.get("scores")))

    def act_withdraw(self, body: dict[str, Any]) -> str:
        cid = body.get("id")
        if isinstance(cid, bool) or not isinstance(cid, int):
            raise ValueError("id is the correction's number")
        return str(self.hub.withdraw(cid))

    def act_end_night(self, body: dict[str, Any]) -> str:
        return str(self.hub.end_night())

    # ------------------------------------------------------------------ the view
    def state(self) -> dict[str, Any]:
        hub = self.hub
        night = hub.night
        with hub.lock:
            st = hub.state
            rounds = []
            for r in range(night.rounds):
                rs = st.rounds.get(r)
                waiting = st.waiting(r) if rs is not None and rs.ended is None else []
                rounds.append({"round": r, "state": "pending" if rs is None else "open" if rs.ended is None else "ended",
                               "waiting": waiting, "forced": rs.forced if rs is not None else None,
                               "tables": st.dealt(r)})
            tables = []
            for t in night.tables:
                tables.append(self._table(t))
            refusals = [{"key": x.key, "table": x.table, "reason": x.reason, "count": x.count, "last": x.last}
                        for x in list(st.refusals.values())[-200:]]
            mv = st.movement
            movement = None
            if mv is not None:
                movement = {"style": mv.style, "warnings": mv.warnings(), "repeats": mv.repeats,
                            "rounds": [{"round": r, "tables": st.seating(r),
                                        "sitting_out": [{"id": p, "name": st.name_of(p)} for p in mv.sit_outs(r)]}
                                       for r in range(night.rounds)]}
            corrections = [{"id": c.id, "kind": c.kind, "table": c.table, "round": c.round, "board": c.board,
                            "words": c.words(), "withdrawn": c.withdrawn is not None, "at": c.at}
                           for c in st.corrections]
            doc = {"night": night.name, "game": night.game, "players": night.players, "boards": night.boards,
                   "tables_all": night.tables, "roster": list(st.roster), "movement": movement,
                   "corrections": corrections, "ended": st.ended is not None, "method": night.method,
                   "rounds": rounds, "tables": tables, "refusals": refusals, "refused_total": st.refused_total,
                   "duplicates": st.duplicates, "log": list(hub.log[-200:]), "problems": list(hub.problems),
                   "quarantined": list(hub.journal.quarantined[-50:]), "broker": hub.connected.is_set(),
                   "rehearsal": night.rehearsal, "at": time.time()}
        doc["standings"] = hub.standings
        return doc

    def _table(self, t: str) -> dict[str, Any]:
        """One table's progress and what it waits on (under the hub's lock)."""
        hub = self.hub
        st = hub.state
        night = hub.night
        cur = None
        for r in sorted(st.rounds):
            if t in st.dealt(r):
                cur = r
        if cur is None:
            return {"table": t, "round": None, "hands": 0, "doing": "waiting for round 1 to start"}
        rs = st.rounds[cur]
        hands = sum(1 for b in range(night.boards) if (t, cur, b) in st.results)
        done = st.table_done(t, cur)
        last = max([x.received for (tt, rr, _b), x in st.results.items() if tt == t and rr == cur] or [0.0])
        if done:
            doing = f"round {cur + 1} done" + ("" if rs.ended is not None else ": waiting for the other tables")
        elif rs.ended is not None:
            doing = f"round {cur + 1} ended by the director with {hands} of {night.boards} boards in"
        elif (t, cur) not in st.tables and not hands:
            doing = f"round {cur + 1}: the hub has heard nothing yet (is the table on the night?)"
        else:
            doing = f"round {cur + 1}: playing board {min(hands + 1, night.boards)} of {night.boards}"
        return {"table": t, "round": cur, "hands": hands, "done": done, "doing": doing, "last": last or None}
