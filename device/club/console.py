"""The director's console: what the hub knows and the director's actions, over HTTP (behind
the director's password: ``web.Site.authorised``).

``GET /console/state.json`` is everything the console page shows; ``POST /console/api/<what>``
(JSON in, JSON out) acts: ``round`` (start or end a round; ending one before every table is
done needs a reason). A POST must say ``Content-Type: application/json`` and carry the
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


def _json(obj: Any, status: int = 200) -> Response:
    return Response(status, json.dumps(obj, separators=(",", ":")).encode(), "application/json")


class Console:
    def __init__(self, hub: Any) -> None:
        self.hub = hub

    def handle(self, req: Request) -> Response:
        if req.path == "/console/state.json" and req.method in ("GET", "HEAD"):
            return _json(self.state())
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
            fn = getattr(self, "act_" + what.replace("-", "_"), None)
            if fn is None:
                return _json({"ok": False, "error": f"no console action {what[:40]!r}"}, 404)
            try:
                words = fn(body)
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
            doc = {"night": night.name, "game": night.game, "players": night.players, "boards": night.boards,
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
