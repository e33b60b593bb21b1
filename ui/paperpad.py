"""The score sheet as the players would keep it on paper, as data (no pygame here).

Each game's pad has what its players write: a group of columns per player (per team in
partnership-spades) and a line per hand.

- Spades games: Bid (Nil, Double or Blind Nil marked, green when made, red when failed), Made
  (tricks), Bags (the running count), Score (the hand's points over the running total).
- Hearts: Score, the moon marked on the shooter's line.
- Cancellation Hearts: Taken (hearts and Q\u2660), Score, the moon marked.
- German Whist: Tricks (stage two; all 26 with ``score_all_tricks``), Score.

A hand corrected after the fact (engine.scorekeeper: ``hand_results[h]["corrections"]``) is
marked, with what it first said (``original``) kept for the hand's own page. Score corrections
(points, no hand) get a line of their own under the hand they followed, so every column adds up.

``pad_of(sheet)`` reads an ``engine.scorekeeper.ScoreSheet``: a kept sheet, or a dealt game's
(``sheet_of_view``: its hands' figures from the view, with the referee's corrections).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from trickref.engine import catalog
from trickref.engine.scorekeeper import ScoreSheet, entries_from_figures

from . import theme as T
from .i18n import N_, _

# column headings, translated where drawn
HEADINGS = {"bid": N_("Bid"), "made": N_("Made"), "bags": N_("Bags"), "score": N_("Score"),
            "taken": N_("Taken"), "tricks": N_("Tricks")}


def heading_lines(key: str) -> list[str]:
    """A column's heading, translated: "bidmade" (a narrow screen's Spades pad: "bid/made" in
    one column) on two lines."""
    if key == "bidmade":
        return [_("Bid"), "/" + _("Made")]
    return [_(HEADINGS[key])]
NIL_WORDS = (N_("Nil"), N_("Blind"), N_("Double"))


@dataclass
class Cell:
    """One player's (team's) figures in one column of one hand: up to two lines, the last in
    bold when it is the running total; ``color`` for the first line; ``mark``: "moon" (shot the
    moon), "made" or "failed" (a Nil's outcome)."""

    lines: list[str]
    color: T.Color = T.TEXT
    bold_last: bool = False
    mark: str | None = None


@dataclass
class Line:
    """One line of the pad: a hand (``hand`` from 1) or a score correction after one
    (``fix``); ``cells[side][column]``."""

    hand: int
    cells: list[list[Cell]]
    fix: bool = False
    corrected: bool = False
    words: str = ""  # a score correction's reason, or the hand's correction reason


@dataclass
class Pad:
    game: str
    sides: list[str]  # column group headings: player names, or "Ana & Cem" for a team
    seats: list[tuple[int, ...]]  # the seats of each side
    columns: list[str]  # the column keys of every side's group (HEADINGS)
    lines: list[Line]
    totals: list[Cell]  # per side, under the last line
    bags: list[str] | None  # per side (spades games)
    moon: bool = False  # a moon is marked somewhere (the legend says what the mark means)
    corrected: list[int] = field(default_factory=list)  # the hands with a correction

    def rows(self) -> list[list[str]]:
        """The lines in words for tests: [hand, "points/total" per side] and ["fix", ...]."""
        out = []
        k = self.columns.index("score") if "score" in self.columns else len(self.columns) - 1
        for ln in self.lines:
            if ln.fix:
                out.append(["fix", *(c[k].lines[0] if c[k].lines else "" for c in ln.cells)])
            else:
                out.append([str(ln.hand), *(f"{c[k].lines[0]}/{c[k].lines[-1]}" for c in ln.cells)])
        return out


def columns_of(game: str, compact: bool = False) -> list[str]:
    """The pad's columns for ``game`` (its descriptor's ``sheet_columns``)."""
    return list(catalog.info(game).columns(compact))


def sides_of(game: str, names: Sequence[str]) -> tuple[list[str], list[tuple[int, ...]]]:
    if catalog.info(game).teams and len(names) == 4:
        return [f"{names[0]} & {names[2]}", f"{names[1]} & {names[3]}"], [(0, 2), (1, 3)]
    return list(names), [(s,) for s in range(len(names))]


def _nil_word(kind: str) -> str:
    return {"blind_nil": _("Blind"), "double_nil": _("Double")}.get(kind, _("Nil"))


def _bid_cell(e: Mapping[str, Any], seats: tuple[int, ...]) -> tuple[Cell, Cell]:
    """(Bid, Made) of a side: one line per seat; a Nil green when made, red when failed."""
    key = "double_nil" if "double_nil" in e else "blind_nil"
    bids, made = [], []
    color, mark = T.TEXT, None
    for s in seats:
        b, t = int(e["bids"][s]), int(e["tricks"][s])
        if b == 0:
            flag = bool((e.get(key) or [False] * 8)[s])
            bids.append(f"{_nil_word(key) if flag else _('Nil')}")
            ok = t == 0
            color, mark = (T.GOOD, "made") if ok else (T.BAD_TEXT, "failed")
        else:
            bids.append(str(b))
        made.append(str(t))
    return Cell(bids, color, mark=mark), Cell(made, color if len(seats) == 1 else T.TEXT)


def pad_of(sheet: ScoreSheet, compact: bool = False) -> Pad:
    """The pad of ``sheet``; ``compact``: a Spades pad's bid and tricks made in one column
    ("4/5"), for a narrow screen."""
    game, n = sheet.GAME_ID, sheet.n
    sides, seats = sides_of(game, sheet.names)
    cols = columns_of(game, compact)
    lines: list[Line] = []
    moon = False

    def score_cell(pts: int, total: int, shooter: bool = False) -> Cell:
        return Cell([f"{pts:+d}", str(total)], T.TEXT_DIM, bold_last=True, mark="moon" if shooter else None)

    def fixes_after(h: int) -> None:
        for c in sheet.corrections:
            if c["after_hand"] != h:
                continue
            cells = []
            for group in seats:
                hit = c["seat"] in group or (sheet.TEAMS and (c["seat"] + 2) % n in group)
                cells.append([Cell([f"{int(c['points']):+d}"] if hit and k in ("score", "takentotal") else [], T.ACCENT)
                              for k in cols])
            lines.append(Line(h, cells, fix=True, words=str(c.get("reason") or "")))

    fixes_after(0)
    for h, row in enumerate(sheet.hand_results):
        e = row["entries"]
        shooter = sheet.moon_shooter(e)
        moon = moon or shooter is not None
        cells = []
        for group in seats:
            s = group[0]
            out: list[Cell] = []
            made: Cell | None = None
            for k in cols:
                if k == "bid":
                    bid, made = _bid_cell(e, group)
                    out.append(bid)
                elif k == "bidmade":
                    bid, made = _bid_cell(e, group)
                    out.append(Cell([f"{b}/{m}" for b, m in zip(bid.lines, made.lines, strict=True)], bid.color,
                                    mark=bid.mark))
                elif k == "made":
                    assert made is not None
                    out.append(made)
                elif k == "bags":
                    out.append(Cell([str(row["bags"][s])]))
                elif k == "score":
                    out.append(score_cell(row["points"][s], row["totals"][s], shooter == s))
                elif k == "takentotal":  # a narrow pad: what was taken over the running total
                    q = int(e["qs"][s])
                    took = f"{e['hearts'][s]}\u2665" + ("" if not q else " Q\u2660" if q == 1 else " 2Q\u2660")
                    out.append(Cell([took, str(row["totals"][s])], T.TEXT_DIM, bold_last=True,
                                    mark="moon" if shooter == s else None))
                elif k == "taken":
                    q = int(e["qs"][s])
                    out.append(Cell([f"{e['hearts'][s]}\u2665", "" if not q else "Q\u2660" if q == 1 else "2 Q\u2660"]))
                elif k == "tricks":
                    out.append(Cell([str(e["tricks"][s])]))
            cells.append(out)
        fixes = row.get("corrections") or []
        lines.append(Line(h + 1, cells, corrected=bool(fixes), words=str(fixes[-1].get("reason") or "") if fixes else ""))
        fixes_after(h + 1)
    totals = [Cell([str(sheet.totals[g[0]])], T.ACCENT, bold_last=True) for g in seats]
    bags = None if sheet.bags is None else [str(sheet.bags[g[0]]) for g in seats]
    return Pad(game, sides, seats, cols, lines, totals, bags, moon, sheet.corrected_hands())


def sheet_of_view(g: Mapping[str, Any], t: Mapping[str, Any]) -> ScoreSheet:
    """A dealt game's sheet from the kiosk's view: each finished hand's figures as played, the
    admin's score corrections and hand corrections (the referee's), scored by the engine's
    score sheet (which scores exactly as the game did: a property test checks it)."""
    names = list(g.get("names") or [])
    n = len(names)
    rows = list(g.get("hand_results") or [])
    game = str(g.get("game"))
    options = dict(g.get("options") or {})
    first = (int(g.get("dealer", 0)) - len(rows)) % max(1, n)
    sheet = ScoreSheet(game, n, options, first, names)
    sheet.entries = [dict(r.get("original", {}).get("entries") or entries_from_figures(game, sheet.options,
                                                                                     r.get("figures") or {}))
                     for r in rows]
    sheet.corrections = [{"after_hand": int(c["after_hand"]), "seat": int(c["seat"]), "points": int(c["points"]),
                          "reason": str(c.get("reason", ""))} for c in (t.get("corrections") or [])]
    sheet.amendments = [dict(a) for a in (t.get("hand_corrections") or [])]
    sheet._rescore()
    return sheet
