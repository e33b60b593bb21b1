"""The director's exports, from a snapshot of the night (``state.NightState``): the results as
CSV (players, and every board at every table), a printable results page (HTML with print CSS:
``web/print.css``), personal score cards (one page per player) and hand records (each board's
deal, and how every table played it). Everything is escaped; the pages carry no script.
"""

from __future__ import annotations

import csv
import html
import io
import json
import time
from collections.abc import Mapping
from typing import Any

from trickref.engine import actions as A
from trickref.engine import cards as C
from trickref.engine.games import game_class

from .standings import compute
from .state import NightState

SUIT_SIGNS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
METHODS = {"average": "against the field's average", "matchpoints": "matchpoints"}


def _e(x: object) -> str:
    return html.escape(str(x), quote=True)


def _num(v: float) -> str:
    s = str(int(v)) if v == int(v) else f"{v:.2f}"
    return "+" + s if v > 0 else s


def _names(state: NightState, doc: Mapping[str, Any]) -> dict[str, str]:
    return {p["id"]: p["name"] for p in doc["players"]}


def _csv(rows: list[list[Any]]) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\r\n")
    for row in rows:
        # a cell a spreadsheet would read as a formula is quoted as text
        w.writerow([("'" + c) if isinstance(c, str) and c[:1] in ("=", "+", "-", "@") and not _is_number(c) else c
                    for c in row])
    return out.getvalue()


def _is_number(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


def results_csv(state: NightState, deals: Any = None) -> str:
    doc = compute(state, full=True)
    rows: list[list[Any]] = [["rank", "player", "id", "first table", "first seat", "score", "boards"]]
    rank, prev = 0, None
    for i, p in enumerate(doc["players"]):
        if p["score"] != prev:
            rank = i + 1
        prev = p["score"]
        rows.append([rank, p["name"], p["id"], p["table"], p["seat"] + 1, p["score"], p["boards"]])
    return _csv(rows)


def boards_csv(state: NightState, deals: Any = None) -> str:
    doc = compute(state, full=True)
    names = _names(state, doc)
    rows: list[list[Any]] = [["round", "board", "table", "seat", "player", "points", "score", "adjusted", "notes"]]
    for b in doc["board_results"]:
        for t, cell in b["tables"].items():
            for s, score in enumerate(cell["scores"]):
                pts = cell["points"][s] if cell["points"] else ""
                pid = cell["players"][s]
                rows.append([b["round"] + 1, b["board"] + 1, t, s + 1, names.get(pid, pid), pts, score,
                             "yes" if cell.get("adjusted") else "", " | ".join(b["notes"])])
    return _csv(rows)


def _page(title: str, body: str, night: Any) -> str:
    return (f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{_e(title)}</title>'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<link rel="stylesheet" href="/console/print.css"></head>'
            f'<body class="print"><header><h1>{_e(title)}</h1>'
            f'<p class="sub">{_e(night.game)} · {night.players} players a table · duplicate, '
            f'{_e(METHODS.get(night.method, night.method))} · {night.rounds} rounds of {night.boards} boards · '
            f'printed {_e(time.strftime("%Y-%m-%d %H:%M"))}</p></header>\n{body}\n</body></html>\n')


def results_html(state: NightState, deals: Any = None) -> str:
    night = state.night
    doc = compute(state, full=True)
    names = _names(state, doc)
    out = [f'<p class="status">{"Final results" if doc["final"] else "Results so far (the night has not ended)"}'
           f' · {doc["hands_received"]} hands</p>',
           '<h2>Standings</h2><table class="standings"><thead><tr><th>#</th><th>Player</th><th>Started at</th>'
           '<th class="num">Score</th><th class="num">Boards</th></tr></thead><tbody>']
    rank, prev = 0, None
    for i, p in enumerate(doc["players"]):
        if p["score"] != prev:
            rank = i + 1
        prev = p["score"]
        out.append(f'<tr><td>{rank}</td><td><bdi>{_e(p["name"])}</bdi></td><td>{_e(p["table"])} seat {p["seat"] + 1}'
                   f'</td><td class="num">{_num(p["score"])}</td><td class="num">{p["boards"]}</td></tr>')
    out.append("</tbody></table>")
    corr = [c for c in state.corrections]
    if corr:
        out.append('<h2>Corrections and rulings</h2><ul class="corrections">')
        for c in corr:
            out.append(f'<li>{_e(c.words())}{" (withdrawn)" if c.withdrawn is not None else ""}</li>')
        out.append("</ul>")
    out.append('<h2>Boards</h2><div class="boards">')
    for b in doc["board_results"]:
        out.append(f'<section class="board"><h3>Round {b["round"] + 1}, board {b["board"] + 1}</h3><table><thead><tr>'
                   '<th>Table</th>' + "".join(f'<th class="num">Seat {s + 1}</th>' for s in range(night.players)) +
                   "</tr></thead><tbody>")
        for t, cell in b["tables"].items():
            tds = []
            for s, score in enumerate(cell["scores"]):
                who = names.get(cell["players"][s], cell["players"][s])
                pts = cell["points"][s] if cell["points"] else "–"
                adj = " adj." if cell.get("adjusted") else ""
                tds.append(f'<td class="num"><bdi>{_e(who)}</bdi><br>{_e(pts)} ({_num(score)}{adj})</td>')
            out.append(f"<tr><td>{_e(t)}</td>{''.join(tds)}</tr>")
        out.append("</tbody></table>")
        for n in b["notes"]:
            out.append(f'<p class="note">{_e(n)}</p>')
        out.append("</section>")
    out.append("</div>")
    return _page(f"Club night {night.name}: results", "\n".join(out), night)


def cards_html(state: NightState, deals: Any = None) -> str:
    """A personal score card per player: every board they played, where, with whom, their points
    and score, and the running total (one printed page each)."""
    night = state.night
    doc = compute(state, full=True)
    names = _names(state, doc)
    out = []
    for p in sorted(doc["players"], key=lambda p: p["name"].casefold()):
        rows = []
        total = 0.0
        for b in doc["board_results"]:
            for t, cell in b["tables"].items():
                if p["id"] not in cell["players"]:
                    continue
                s = cell["players"].index(p["id"])
                others = ", ".join(names.get(x, x) for i, x in enumerate(cell["players"]) if i != s)
                score = cell["scores"][s]
                total += score
                pts = cell["points"][s] if cell["points"] else "–"
                rows.append(f'<tr><td>{b["round"] + 1}</td><td>{b["board"] + 1}</td><td>{_e(t)}</td><td>{s + 1}</td>'
                            f'<td><bdi>{_e(others)}</bdi></td><td class="num">{_e(pts)}</td>'
                            f'<td class="num">{_num(score)}</td><td class="num">{_num(round(total, 4))}</td></tr>')
        out.append(f'<section class="card"><h2><bdi>{_e(p["name"])}</bdi></h2>'
                   f'<p>Score {_num(p["score"])} over {p["boards"]} boards</p>'
                   '<table><thead><tr><th>Round</th><th>Board</th><th>Table</th><th>Seat</th><th>At the table</th>'
                   '<th class="num">Points</th><th class="num">Score</th><th class="num">Total</th></tr></thead><tbody>' +
                   "".join(rows) + "</tbody></table></section>")
    return _page(f"Club night {night.name}: score cards", "\n".join(out), night)


def deal_of(state: NightState, r: int, b: int) -> list[list[str]] | None:
    """Each seat's cards on board ``b`` of round ``r``, as dealt (the engine deals the board's
    deck after the boards before it, as a table does); None until a table has played them."""
    night = state.night
    deck = state.decks[str(r)][b]["deck"]
    for t in state.dealt(r):
        if not all((t, r, i) in state.plays for i in range(b)):
            continue
        game = game_class(night.game)(night.players, night.options, 0, [f"s{s}" for s in range(night.players)])
        try:
            for i in range(b):
                game.start_hand(state.decks[str(r)][i]["deck"])
                for seat, action in (A.from_record(a) for a in json.loads(state.plays[(t, r, i)])):
                    game.apply(action, seat)
            game.start_hand(deck)
            return [C.names(sorted(game.hand_of(s), key=lambda c: (C.suit(c), -C.rank(c))))
                    for s in range(night.players)]
        except Exception:  # noqa: BLE001 - another table's plays may replay
            continue
    return None


def _hand_text(cards: list[str]) -> str:
    by: dict[str, list[str]] = {s: [] for s in "SHDC"}
    for c in cards:
        by[c[-1]].append(c[:-1].replace("T", "10"))
    return " ".join(f'<span class="suit s{s}">{SUIT_SIGNS[s]}</span> {" ".join(v) or "–"}' for s, v in by.items())


def hands_html(state: NightState, deals: Any = None) -> str:
    """Every board's hand record: each seat's cards, then each table's points and scores."""
    night = state.night
    doc = compute(state, full=True)
    names = _names(state, doc)
    shown = {(b["round"], b["board"]): b for b in doc["board_results"]}
    out = []
    for r in sorted(state.rounds):
        for b in range(night.boards):
            hands = deal_of(state, r, b)
            out.append(f'<section class="hand"><h2>Round {r + 1}, board {b + 1}</h2>')
            if hands is None:
                out.append("<p>No table has played this board yet.</p></section>")
                continue
            out.append('<table class="deal"><tbody>' + "".join(
                f"<tr><th>Seat {s + 1}</th><td>{_hand_text(h)}</td></tr>" for s, h in enumerate(hands)) + "</tbody></table>")
            res = shown.get((r, b))
            if res:
                out.append('<table><thead><tr><th>Table</th><th>Players</th><th>Points</th><th>Scores</th></tr></thead><tbody>')
                for t, cell in res["tables"].items():
                    who = ", ".join(names.get(x, x) for x in cell["players"])
                    pts = " ".join(str(x) for x in cell["points"]) if cell["points"] else "–"
                    out.append(f"<tr><td>{_e(t)}</td><td><bdi>{_e(who)}</bdi></td><td>{_e(pts)}</td>"
                               f"<td>{_e(' '.join(_num(x) for x in cell['scores']))}</td></tr>")
                out.append("</tbody></table>")
                for n in res["notes"]:
                    out.append(f'<p class="note">{_e(n)}</p>')
            out.append("</section>")
    return _page(f"Club night {night.name}: hand records", "\n".join(out), night)
