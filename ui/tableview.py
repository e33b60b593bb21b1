"""Drawing the table from a view dict: seat plates, the trick, markers, the hand, the top bar.

Scenes draw the view they were given, in the shape of engine.referee's views: a public view
``{"game": <engine public view>, "table": {...}}`` or a seat view, where ``game`` is the
engine's ``view(seat)`` (with that seat's ``hand``) and ``table["seat"]`` says whose it is.
Nothing here looks at engine objects: what the rules say (who is taking the trick, who took
the last one) comes in the view from the engine. Only cards in the public view are drawn face up, except a seat view's
hand and presented card, which exist only in simulated mode after that player asked to see
them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pygame

from trickref.engine import cards as C

from . import card_art as A
from . import draw as D
from . import gameinfo as GI
from . import theme as T
from .i18n import N_


def card(name: str) -> int:
    return C.parse(name)


def view_seat(view: dict[str, Any]) -> int | None:
    """The seat a seat view belongs to; None for the public view."""
    seat = view.get("table", {}).get("seat")
    return None if seat is None else int(seat)


def view_hand(view: dict[str, Any]) -> list[str] | None:
    """The cards of a seat view's own hand; None for the public view."""
    if view_seat(view) is None:
        return None
    return list(view.get("game", {}).get("hand", []))


def presented(view: dict[str, Any]) -> str | None:
    """A card shown to this seat only (the spades-2p draw), in a seat view."""
    if view_seat(view) is None:
        return None
    return view.get("table", {}).get("presented") or view.get("game", {}).get("shown")


def pending_labels(t: dict[str, Any], n: int) -> list[str | None]:
    """Per seat, the bid being entered on its panel (a label such as '4' or 'Nil'), or None."""
    p = t.get("pending") or []
    if isinstance(p, dict):
        return [None if p.get(s) is None else str(p[s]) for s in range(n)]
    return [p[s] if s < len(p) else None for s in range(n)]


def dealer_status(t: dict[str, Any]) -> str:
    """'idle', 'busy' or 'fault'."""
    return str(t.get("dealer", {}).get("status") or "idle")


def suit_index(value: Any) -> int | None:
    """A suit from 'S' / 'spades' / 0; None when there is none."""
    if value is None:
        return None
    if isinstance(value, int):
        return value
    v = str(value).lower()
    if len(v) == 1 and v.upper() in C.SUITS:
        return C.SUITS.index(v.upper())
    for i, n in enumerate(C.SUIT_NAMES):
        if v in (n, n[:-1]):
            return i
    return None


def symbol(suit: int) -> str:
    return C.SUIT_SYMBOLS[suit]


def teams(g: dict[str, Any]) -> bool:
    return GI.teams(g)


def seat_line(g: dict[str, Any], s: int) -> str:
    """The second line of a seat plate: this hand's tricks taken and bid, or points taken."""
    from .i18n import _, ngettext

    tb = g.get("taken_bid")
    if isinstance(tb, list) and s < len(tb):
        bids = g.get("bids") or []
        blind = g.get("blind_nil") or g.get("double_nil") or []
        took, _sep, bid = str(tb[s]).partition("/")
        if s < len(bids) and bids[s] == 0:
            bid = GI.nil_word(g, lower=True) if (s < len(blind) and blind[s]) else _("nil")
        if bid in ("", "-"):
            return _("took {n}, no bid yet").format(n=took)
        return _("took {n}, bid {bid}").format(n=took, bid=bid)
    taken = g.get("tricks_taken") or []
    pts = g.get("points_taken")
    if isinstance(pts, list) and s < len(pts):
        k = taken[s] if s < len(taken) else 0
        return ngettext("{n} trick, {pts} pts", "{n} tricks, {pts} pts", k).format(n=k, pts=pts[s])
    if GI.stages(g):
        t1 = (g.get("tricks_stage1") or [0, 0])[s]
        t2 = (g.get("tricks_stage2") or [0, 0])[s]
        if g.get("stage") == 2:
            return _("stage 1: {a}  stage 2: {b}").format(a=t1, b=t2)
        return ngettext("{n} trick", "{n} tricks", t1).format(n=t1)
    if s < len(taken):
        return ngettext("{n} trick", "{n} tricks", taken[s]).format(n=taken[s])
    return ""


def total_words(g: dict[str, Any], s: int, bare: bool = False) -> str:
    """'total 34': the seat's (team's) score so far, shown on its plate during play ('34' when
    ``bare``)."""
    from .i18n import _

    totals = g.get("totals") or []
    if s >= len(totals) or totals[s] is None:
        return ""
    return str(totals[s]) if bare else _("total {n}").format(n=totals[s])


@dataclass
class Plate:
    seat: int
    rect: pygame.Rect


def _edge_counts(n: int, side_cap: int) -> tuple[int, int, int]:
    """(bottom row, each side column, top row) plate counts for ``n`` seats."""
    if n <= 2:
        return 1, 0, n - 1
    sides = min(side_cap, max(1, round(n / 6)))
    rest = n - 2 * sides
    bottom = 1 if rest <= 3 else rest // 2  # the viewer sits alone at the bottom when it can
    return bottom, sides, rest - bottom


def _plate_geometry(theme: T.Theme, n: int, area: pygame.Rect, need: int = 0) -> tuple[int, int, int, tuple[int, int, int]]:
    h = max(theme.u(48), plate_lines(n, theme) * theme.font("small").get_height() + theme.u(6))
    gap = theme.u(8)
    side_range = area.height - 2 * h - 2 * gap
    side_cap = max(0, (side_range + gap) // (h + gap))
    counts = _edge_counts(n, max(1, side_cap))
    k = max(counts[0], counts[2], 1)
    w = min(max(theme.u(168 if n > 4 else 200 if n > 2 else 300), need), (area.width - (k - 1) * gap) // k)
    return w, h, gap, counts


def plate_head(g: dict[str, Any], t: dict[str, Any], s: int, sep: str = "  ") -> str:
    """A plate's first line: the name with the dealer and bot marks ("Ana  [D bot]"; a seat
    cell, narrower, separates them with one space)."""
    marks = []
    if g.get("dealer") == s:
        marks.append("D")
    if s in t.get("bots", []):
        marks.append("bot")
    return g["names"][s] + (f"{sep}[{' '.join(marks)}]" if marks else "")


def plate_need(theme: T.Theme, g: dict[str, Any], t: dict[str, Any]) -> int:
    """The plate width the words of the widest plate need without shrinking (a French "0
    levées, annonce 5" in large text is wider than the usual plate), within reason."""
    n = int(g.get("players", 0))
    names = g.get("names") or []
    if not n or len(names) < n:
        return 0
    small, bold = theme.font("small"), theme.font("small", bold=True)
    three = plate_lines(n, theme) == 3
    widest = 0
    for s in range(n):
        head_w = bold.size(plate_head(g, t, s))[0]
        total = total_words(g, s, bare=not three)
        widest = max(widest, small.size(seat_line(g, s))[0],
                     head_w + (0 if three or not total else bold.size(total)[0] + theme.u(6)),
                     bold.size(total)[0] if three else 0)
    # two players sit top and bottom (no side columns): their plates can be as wide as needed
    return min(widest + theme.u(14), theme.u(420 if n <= 2 else 236))


def plate_size(theme: T.Theme, n: int, area: pygame.Rect, need: int = 0) -> tuple[int, int]:
    w, h, _gap, _counts = _plate_geometry(theme, n, area, need)
    return w, h


def plate_rects(theme: T.Theme, n: int, area: pygame.Rect, bottom_seat: int, need: int = 0) -> list[pygame.Rect]:
    """Seat plates in a bottom row, two side columns and a top row inside ``area``; the plates
    of one edge are evenly spaced and the side columns sit between the rows, so no two plates
    overlap. ``bottom_seat`` (the viewer) is on the bottom row nearest the centre; then the
    seats go clockwise as the players sit: the next seat is on its left (screen left). Plates
    are at least ``need`` wide (``plate_need``) when the row has the room."""
    w, h, gap, (nb, ns, nt) = _plate_geometry(theme, n, area, need)

    def row(k: int, y: int) -> list[pygame.Rect]:
        return [pygame.Rect(round(area.x + (i + 0.5) * area.width / k - w / 2), y, w, h) for i in range(k)]

    def column(k: int, x: int) -> list[pygame.Rect]:
        y0 = area.y + h + gap
        span = area.height - 2 * (h + gap)
        return [pygame.Rect(x, round(y0 + (i + 0.5) * span / k - h / 2), w, h) for i in range(k)]

    bottom = row(nb, area.bottom - h)
    top = row(nt, area.y)
    left = column(ns, area.x)[::-1]  # bottom to top
    right = column(ns, area.right - w)  # top to bottom
    me = (nb - 1) // 2
    slots = [bottom[me], *bottom[:me][::-1], *left, *top, *right, *bottom[me + 1:][::-1]]
    return [slots[(s - bottom_seat) % n] for s in range(n)]


def plate_line_height(theme: T.Theme) -> int:
    """A plate on one line (``draw_plate_line``)."""
    return theme.font("small", bold=True).get_height() + theme.u(6)


def draw_plate_line(surface: Any, theme: T.Theme, g: dict[str, Any], t: dict[str, Any], s: int,
                    rect: pygame.Rect, *, active: bool) -> str:
    """A seat's plate on one line (name and marks, the total at the right): the top row's,
    beside the table's words strip under the bar while it is shown. Returns its text."""
    color = T.PANEL_LIGHT if not active else (92, 78, 20)
    D.panel(surface, rect, color, theme.u(6), border=T.ACCENT if active else None)
    head = plate_head(g, t, s)
    number = total_words(g, s, bare=True)
    y = rect.y + (rect.height - theme.font("small", bold=True).get_height()) // 2
    room = rect.width - theme.u(12)
    if number:
        tr = D.text(surface, theme, number, (rect.right - theme.u(6), y), "small", T.ACCENT, "topright", bold=True)
        room -= tr.width + theme.u(6)
    D.text(surface, theme, head, (rect.x + theme.u(6), y), "small", T.ACCENT if active else T.TEXT, bold=True,
           max_width=room)
    line, total = seat_line(g, s), total_words(g, s)
    return f"{head} | {total} | {line}" if total else f"{head} | {line}"


def plate_lines(n: int, theme: T.Theme | None = None) -> int:
    """Lines on a seat plate: name, this hand and "total N" up to 6 players; from 7 on, or with
    large text, two (the total's number at the right of the name) so the trick keeps its room."""
    return 3 if n <= 6 and not (theme is not None and theme.large_text) else 2


def draw_plate(surface: Any, theme: T.Theme, g: dict[str, Any], t: dict[str, Any], s: int, rect: pygame.Rect,
               *, active: bool) -> str:
    """One seat's plate: name with dealer and bot marks, this hand's tricks taken / bid, and the
    total so far (standings stay in view during play). Returns its text."""
    color = T.PANEL_LIGHT if not active else (92, 78, 20)
    D.panel(surface, rect, color, theme.u(8), border=T.ACCENT if active else None)
    head = plate_head(g, t, s)
    total = total_words(g, s)
    line = seat_line(g, s)
    step = theme.font("small").get_height()
    x = rect.x + theme.u(6)
    room = rect.width - theme.u(12)
    three = plate_lines(int(g.get("players", 4)), theme) == 3
    y = rect.y + (rect.height - step * (3 if three else 2)) // 2
    if total and not three:  # two lines: the total's number at the right of the name
        number = total_words(g, s, bare=True)
        tr = D.text(surface, theme, number, (rect.right - theme.u(6), y), "small", T.ACCENT, "topright", bold=True)
        room_head = room - tr.width - theme.u(6)
    else:
        room_head = room
    D.text(surface, theme, head, (x, y), "small", T.ACCENT if active else T.TEXT, bold=True, max_width=room_head)
    D.text(surface, theme, line, (x, y + step), "small", T.TEXT_DIM, max_width=room)
    if total and three:
        D.text(surface, theme, total, (x, y + 2 * step), "small", T.ACCENT, bold=True, max_width=room)
    return f"{head} | {total} | {line}" if total else f"{head} | {line}"


def cancelled_cards(g: dict[str, Any], trick: list[list[Any]]) -> set[str]:
    """A game whose identical cards cancel (Cancellation Hearts): the cards played twice in
    ``trick``."""
    if not GI.cancels(g):
        return set()
    names = [str(c) for _s, c in trick]
    return {c for c in names if names.count(c) > 1}


def trick_leader_and_winner(g: dict[str, Any], trick: list[list[Any]]) -> tuple[int | None, int | None]:
    """(the seat that led ``trick``, the seat taking it so far, as the engine says:
    ``trick_winning`` of the trick in progress; None for any other trick, whose winner the
    caller passes, and when nobody is winning, as in Cancellation Hearts when every led-suit
    card is cancelled)."""
    if not trick:
        return None, None
    leader = int(trick[0][0])
    current = g.get("trick") or []
    winning = g.get("trick_winning") if [list(x) for x in trick] == [list(x) for x in current] else None
    return leader, None if winning is None else int(winning)


def trick_rows(n: int) -> int:
    """The trick is drawn in one row of ``n`` slots, or two rows from 7 players on."""
    return 1 if n <= 6 else 2


def trick_layout(theme: T.Theme, count: int, n: int, area: pygame.Rect, tag_lines: int = 2) -> tuple[int, list[tuple[int, int]]]:
    """Card height and top-left positions for a trick of ``count`` cards in ``n`` slots: one row
    with ``tag_lines`` lines above it, or two rows (from 7 players on) with one line above them;
    the names go below each row."""
    gap = theme.u(6)
    rows = trick_rows(n)
    vgap = theme.u(3)  # between two rows
    per = -(-max(1, n) // rows)
    line_h = theme.font("small").get_height() + theme.u(2)
    row_extra = (tag_lines + 1) * line_h if rows == 1 else line_h  # one row: tag lines and names; two: names
    top_extra = 0 if rows == 1 else line_h + theme.u(3)  # two rows: one legend line above them
    room = (area.height - top_extra - rows * row_extra - (rows - 1) * vgap - theme.u(2)) // rows
    hmax = min(theme.card_height("table"), room)
    w = min(A.card_size(hmax)[0], (area.width - gap * (per - 1)) // per)
    h = max(8, min(hmax, int(w / A.ASPECT)))
    w = A.card_size(h)[0]
    row_w = per * w + (per - 1) * gap
    row_h = h + row_extra
    block = top_extra + rows * row_h + (rows - 1) * vgap
    y0 = area.centery - block // 2 + top_extra + (row_extra - line_h)
    x0 = area.centerx - row_w // 2
    return h, [(x0 + (i % per) * (w + gap), y0 + (i // per) * (row_h + vgap)) for i in range(count)]


def draw_trick(surface: Any, theme: T.Theme, g: dict[str, Any], trick: list[list[Any]], area: pygame.Rect,
               winner: int | None = None, *, complete: bool = False) -> dict[str, Any]:
    """The trick as face-up cards with each player's name below, leader first; the card taking
    the trick is highlighted and its player's name is gold; in Cancellation Hearts cancelled
    pairs are dimmed and struck through. Words mark them too: above the cards, "led" over the
    leader's and "winning" (or "won", for a ``complete`` trick) over the winner's, "cancelled"
    over cancelled ones; when a tag would be wider than a card (many players), one line above
    the trick says it instead ("led: Fay   winning: Joe   cancelled: 2♥"). Returns what it
    marked."""
    from .i18n import _

    n = int(g["players"])
    h, pos = trick_layout(theme, len(trick), n, area)
    small = theme.font("small")
    won = _("won") if complete else _("winning")
    words = [_("led"), won] + ([_("cancelled")] if cancelled_cards(g, trick) else [])
    h1, pos1 = trick_layout(theme, len(trick), n, area, tag_lines=1)
    # the words go on one line over the trick when tags would not fit over a card, or when the
    # second line of tags would cost the cards some height
    legend = trick_rows(n) > 1 or max(small.size(x)[0] for x in words) > A.card_size(h)[0] + theme.u(4) or h < h1
    if legend and trick_rows(n) == 1:  # one line of words above the row, not two
        h, pos = h1, pos1
    leader, winning = trick_leader_and_winner(g, trick)
    if winner is not None:
        winning = winner
    cancelled = cancelled_cards(g, trick)
    w = A.card_size(h)[0]
    rects = []
    tag_h = small.get_height()
    names = g["names"]
    for (s, name), p in zip(trick, pos, strict=False):
        gone = str(name) in cancelled
        r = A.draw_card(surface, card(name), p, h, theme, highlight=(winning == s), dim=gone)
        rects.append(r)
        if gone:
            pygame.draw.line(surface, T.BAD, r.topleft, r.bottomright, max(2, theme.u(3)))
            pygame.draw.line(surface, T.BAD, r.bottomleft, r.topright, max(2, theme.u(3)))
        D.text(surface, theme, names[s], (r.centerx, r.bottom + theme.u(1)), "small",
               T.ACCENT if winning == s else T.TEXT, "midtop", max_width=w + theme.u(5))
        if legend:
            continue
        tags = []
        if s == leader:
            tags.append((_("led"), T.TEXT_DIM))
        if s == winning:
            tags.append((won, T.ACCENT))
        elif gone:
            tags.append((_("cancelled"), T.BAD_TEXT))
        y = r.y - theme.u(2)
        for word, colour in tags[::-1]:
            D.text(surface, theme, word, (r.centerx, y), "small", colour, "midbottom", max_width=w + theme.u(4))
            y -= tag_h
    if legend and trick:
        top = min(r.y for r in rects) - theme.u(2)
        D.text(surface, theme, trick_legend(g, leader, winning, cancelled, complete), (area.centerx, top), "small",
               T.TEXT_DIM, "midbottom", max_width=area.width)
    return {"rects": rects, "leader": leader, "winning": winning, "cancelled": sorted(cancelled), "legend": legend}


def trick_legend(g: dict[str, Any], leader: int | None, winning: int | None, cancelled: set[str],
                 complete: bool) -> str:
    """The trick's marks in one line: "led: Fay   winning: Joe   cancelled: 2♥"."""
    from .i18n import _

    names = g["names"]
    bits = [_("led: {name}").format(name=names[leader])] if leader is not None else []
    if winning is not None:
        bits.append((_("won: {name}") if complete else _("winning: {name}")).format(name=names[winning]))
    if cancelled:
        bits.append(_("cancelled: {cards}").format(cards=" ".join(A.card_text(card(c)) for c in sorted(cancelled))))
    return "   ".join(bits)


# ---------------------------------------------------------------------- seat cells
# A portrait screen (and a landscape one from 7 players on) shows the table as a grid of seat
# cells, in seat order: each cell is the seat's plate with the card it played in the trick beside
# its words, as the cards lie in front of the players at the table. The trick then needs no
# row of its own, and each card is as large as its cell allows.

def cell_inner(theme: T.Theme) -> int:
    """A seat cell's margin (and the space between its card and its words)."""
    return theme.u(3)


CELL_GAP = 4  # layout units between two seat cells
CELL_TOTAL_GAP = 4  # between a cell's name and its total's number


def stacked_hand_card(theme: T.Theme, n: int) -> int:
    """The height of the hand's cards under the seat cells of a stacked (portrait) table: 23 mm
    up to 6 players, then smaller as the cells need the room (19 mm, 14 mm from 9 players)."""
    return theme.card_height("hand") if n < 7 else theme.u(100) if n < 9 else theme.u(72)


def wrap_figures(theme: T.Theme, line: str, room: int) -> list[str]:
    """A plate's figures ("3 tricks, 29 pts") in lines of ``room`` pixels, broken after a comma
    where it can ("3 tricks," / "29 pts"), else between words."""
    font = theme.font("small")
    if font.size(line)[0] <= room or ", " not in line:
        return D.wrap(theme, line, room, "small")
    out: list[str] = []
    parts = line.split(", ")
    cur = ""
    for i, part in enumerate(parts):
        piece = part + ("," if i < len(parts) - 1 else "")
        cand = piece if not cur else cur + " " + piece
        if cur and font.size(cand)[0] > room:
            out.append(cur)
            cur = piece
        else:
            cur = cand
    out.append(cur)
    if any(font.size(x)[0] > room for x in out):
        return D.wrap(theme, line, room, "small")
    return out


@dataclass
class CellWords:
    """A seat cell's words as laid out in ``room`` pixels: the name line and this hand's figures
    (wrapped), where the total goes (0: its number at the right of the name; -1: "total N" on a
    line of its own), and whether every line fits unshrunk."""

    lines: list[tuple[str, bool]]  # (text, bold): the name line first
    total_on: int
    fits: bool

    @property
    def count(self) -> int:
        return len(self.lines) + (1 if self.total_on < 0 and self.has_total else 0)

    has_total: bool = False


def cell_words(theme: T.Theme, g: dict[str, Any], t: dict[str, Any], s: int, room: int, most: int = 99) -> CellWords:
    """Seat ``s``'s words for a cell ``room`` pixels wide: its figures broken after a comma when
    they do not fit (in at most ``most`` lines), the total's number at the right of the first
    line with room for it."""
    small, bold = theme.font("small"), theme.font("small", bold=True)
    head = plate_head(g, t, s, " ")
    figures = seat_line(g, s)
    body = wrap_figures(theme, figures, room) if figures else []
    if len(body) > max(1, most):
        body = [figures]
    lines = [(head, True)] + [(x, False) for x in body]
    fits = all((bold if b else small).size(x)[0] <= room for x, b in lines)
    number = total_words(g, s, bare=True)
    total_on = -1
    if number:  # the total's number beside the name, or "total N" on a line of its own
        total_on = 0 if bold.size(head)[0] + theme.u(CELL_TOTAL_GAP) + bold.size(number)[0] <= room else -1
        if total_on < 0 and bold.size(total_words(g, s))[0] > room:
            fits = False
    return CellWords(lines, total_on, fits, bool(number))


def _cell_words_fit(theme: T.Theme, g: dict[str, Any], t: dict[str, Any], n: int, room: int, avail: int) -> int:
    """The most lines any of the ``n`` cells' words take in ``room`` pixels (``cell_words``),
    or 0 when some line cannot fit unshrunk or they need more than ``avail`` lines."""
    most = 0
    for s in range(n):
        w = cell_words(theme, g, t, s, room)
        if not w.fits or w.count > avail:
            return 0
        most = max(most, w.count)
    return most


def seat_grid(theme: T.Theme, g: dict[str, Any], t: dict[str, Any], area: pygame.Rect) -> tuple[list[pygame.Rect], int]:
    """The cells of the seats in ``area`` (seat order, row by row) and the card height in them:
    the number of columns and the card height that give the largest card (at least 56 units,
    10.8 mm) while every cell's words fit beside it unshrunk; the last row is centred when short.
    When nothing fits, the most room for the words (the text then shrinks)."""
    n = int(g.get("players", 0))
    gap = theme.u(CELL_GAP)
    inner = cell_inner(theme)
    step = theme.font("small").get_height()
    least = theme.u(56)
    best: tuple[int, int, int, int, int, int] | None = None  # (card h, -cols, cols, cell w, cell h, lines)
    for cols in range(1, min(n, 4) + 1):
        rows = -(-n // cols)
        cw = (area.width - (cols - 1) * gap) // cols
        ch = (area.height - (rows - 1) * gap) // rows
        avail = (ch - 2 * inner) // step
        h = min(theme.card_height("table"), ch - 2 * inner)
        while h >= least:
            lines = _cell_words_fit(theme, g, t, n, cw - A.card_size(h)[0] - 4 * inner, avail)
            if lines:
                key = (h, -cols, cols, cw, ch, lines)
                if best is None or key[:2] > best[:2]:
                    best = key
                break
            h -= theme.u(3)
    if best is None:  # nothing fits unshrunk: the columns that leave the words most room
        cols = min(n, 4)
        for c in range(1, min(n, 4) + 1):
            rows = -(-n // c)
            if (area.height - (rows - 1) * gap) // rows >= least + 2 * inner:
                cols = c
                break
        rows = -(-n // cols)
        cw = (area.width - (cols - 1) * gap) // cols
        ch = max(1, (area.height - (rows - 1) * gap) // rows)
        h = max(8, min(theme.card_height("table"), ch - 2 * inner, least))
        lines = max(1, (ch - 2 * inner) // step)
    else:
        h, _neg, cols, cw, ch, lines = best
    rows = -(-n // cols)
    # no taller than the card, or the words and a tag line, and a little air
    ch = min(ch, max(h + 2 * inner + theme.u(24), (lines + 1) * step + 2 * inner + theme.u(6)))
    block = rows * ch + (rows - 1) * gap
    y0 = area.y + (area.height - block) // 2
    out = []
    for s in range(n):
        r, c = divmod(s, cols)
        in_row = min(cols, n - r * cols)
        x0 = area.x + (area.width - (in_row * cw + (in_row - 1) * gap)) // 2
        out.append(pygame.Rect(x0 + c * (cw + gap), y0 + r * (ch + gap), cw, ch))
    return out, h


def cell_needs(theme: T.Theme, g: dict[str, Any], t: dict[str, Any], cells: list[pygame.Rect],
               card_h: int) -> tuple[int, int, int]:
    """(the lines each cell has, the most any cell's words take with the total beside the name
    where it fits, the lines the tags "led winning" take: 1, 2 on a narrow cell, or more than
    the cell has when a tag cannot fit): the caller puts the trick's marks in the cells, and
    every total on a line of its own, when every cell has the lines to spare."""
    from .i18n import _

    if not cells:
        return 0, 0, 0
    step = theme.font("small").get_height()
    inner = cell_inner(theme)
    avail = (cells[0].height - 2 * inner) // step
    room = cells[0].width - A.card_size(card_h)[0] - 4 * inner
    need = _cell_words_fit(theme, g, t, len(cells), room, avail) or avail
    bold = theme.font("small", bold=True)
    widest = max(bold.size(w)[0] for w in (_("won"), _("winning"), _("cancelled")))
    if widest > room:
        return avail, need, avail + 1
    return avail, need, 1 if theme.font("small").size(_("led"))[0] + theme.u(8) + widest <= room else 2


def draw_seat_cell(surface: Any, theme: T.Theme, g: dict[str, Any], t: dict[str, Any], s: int, rect: pygame.Rect,
                   card_h: int, *, active: bool, played: str | None, leader: int | None, winning: int | None,
                   cancelled: set[str], complete: bool, tag_line: bool, total_line: bool = False) -> str:
    """One seat's cell: its plate (name, dealer and bot marks, this hand, the total) with the
    card it played in the trick at its left (the card taking the trick highlighted, a cancelled
    one dimmed and crossed), and, when ``tag_line``, the words "led" / "winning" / "cancelled"
    under the rest; the total beside the name, or with ``total_line`` (or when it does not fit
    there) as "total N" on a line of its own. Returns its text."""
    from .i18n import _

    inner = cell_inner(theme)
    color = T.PANEL_LIGHT if not active else (92, 78, 20)
    D.panel(surface, rect, color, theme.u(8), border=T.ACCENT if active else None)
    cw = A.card_size(card_h)[0]
    slot = pygame.Rect(rect.x + inner, rect.centery - card_h // 2, cw, card_h)
    gone = played is not None and str(played) in cancelled
    if played is not None:
        r = A.draw_card(surface, card(played), slot.topleft, card_h, theme, highlight=(winning == s), dim=gone)
        if gone:
            pygame.draw.line(surface, T.BAD, r.topleft, r.bottomright, max(2, theme.u(3)))
            pygame.draw.line(surface, T.BAD, r.bottomleft, r.topright, max(2, theme.u(3)))
    elif g.get("phase") == "play":  # the place the card will go
        pygame.draw.rect(surface, T.FELT_DARK, slot, border_radius=max(2, round(cw * 0.08)))
        pygame.draw.rect(surface, T.TEXT_DIM, slot, width=1, border_radius=max(2, round(cw * 0.08)))
    x = slot.right + 2 * inner
    room = rect.right - inner - x
    step = theme.font("small").get_height()
    avail = max(1, (rect.height - 2 * inner) // step)
    head = plate_head(g, t, s, " ")
    tags = []
    if played is not None:
        if s == leader:
            tags.append((_("led"), T.TEXT_DIM))
        if s == winning:
            tags.append((_("won") if complete else _("winning"), T.ACCENT))
        elif gone:
            tags.append((_("cancelled"), T.BAD_TEXT))
    total = total_words(g, s)
    tag_lines = 0
    if tag_line and tags:
        widths = [theme.font("small", bold=c == T.ACCENT).size(w)[0] for w, c in tags]
        tag_lines = 1 if sum(widths) + theme.u(8) * (len(widths) - 1) <= room else len(widths)
    words = cell_words(theme, g, t, s, room, max(1, avail - 1 - tag_lines))
    own_line = words.has_total and (words.total_on < 0 or total_line)
    count = len(words.lines) + tag_lines + (1 if own_line else 0)
    y = rect.y + (rect.height - count * step) // 2
    for i, (ln, is_head) in enumerate(words.lines):
        room_line = room
        if words.has_total and not own_line and i == words.total_on:
            tr = D.text(surface, theme, total_words(g, s, bare=True), (rect.right - inner, y), "small", T.ACCENT,
                        "topright", bold=True)
            room_line = room - tr.width - theme.u(CELL_TOTAL_GAP)
        if is_head:
            D.text(surface, theme, ln, (x, y), "small", T.ACCENT if active else T.TEXT, bold=True, max_width=room_line)
        else:
            D.text(surface, theme, ln, (x, y), "small", T.TEXT_DIM, max_width=room_line)
        y += step
    if own_line:
        D.text(surface, theme, total, (x, y), "small", T.ACCENT, bold=True, max_width=room)
        y += step
    y -= step
    body = [ln for ln, is_head in words.lines if not is_head]
    if tag_line and tags:
        y += step
        tx = x
        for word, colour in tags:
            font = theme.font("small", bold=colour == T.ACCENT)
            if tx > x and tx + font.size(word)[0] > x + room:  # no room beside the last: the next line
                tx, y = x, y + step
            tr = D.text(surface, theme, word, (tx, y), "small", colour, bold=colour == T.ACCENT,
                        max_width=max(1, rect.right - inner - tx))
            tx = tr.right + theme.u(8)
    text = f"{head} | {total} | {' '.join(body)}" if total else f"{head} | {' '.join(body)}"
    return text


def hand_rects(theme: T.Theme, count: int, area: pygame.Rect, height: int | None = None,
               rows: int = 1) -> tuple[int, list[pygame.Rect]]:
    """Overlapping card rects for a hand of ``count`` cards centred in ``area``; with ``rows``
    2 (a narrow portrait screen) the first half of the hand is a row behind the second, showing
    the top of its cards (their corner index), so each card keeps a wide strip to tap."""
    if rows > 1 and count > 1:
        front = count // 2
        back = count - front
        h = height or min(theme.card_height("hand"), int((area.height - theme.u(14)) / (1 + ROW_RISE)))
        rise = hand_row_rise(theme, h)
        _h, top = hand_rects(theme, back, pygame.Rect(area.x, area.y, area.width, area.height - rise), h)
        _h, low = hand_rects(theme, front, area, h)
        return h, top + low
    h = height or min(theme.card_height("hand"), area.height - theme.u(14))
    w = A.card_size(h)[0]
    if count <= 0:
        return h, []
    step = min(w + theme.u(4), (area.width - w) / max(1, count - 1)) if count > 1 else 0
    total = w + step * (count - 1)
    x0 = area.centerx - total / 2
    y = area.bottom - h
    return h, [pygame.Rect(round(x0 + i * step), y, w, h) for i in range(count)]


ROW_RISE = 0.52  # the part of a card's height the back row of a two-row hand shows


def hand_row_rise(theme: T.Theme, height: int | None = None) -> int:
    """How far the back row of a two-row hand of cards ``height`` high (the usual hand's by
    default) stands above the front row: its corner index and the top of its pips show."""
    return round((height or theme.card_height("hand")) * ROW_RISE)


def hand_rows(theme: T.Theme, count: int, width: int, height: int | None = None) -> int:
    """Two rows when one would leave each card (``height`` high, the usual hand's by default)
    a strip under 40 units (7.7 mm) wide."""
    w = A.card_size(height or theme.card_height("hand"))[0]
    return 2 if count > 1 and (width - w) / (count - 1) < theme.u(40) else 1


class HandView:
    """The revealed player's hand: tap a card to play it, or to select it for a pass."""

    def __init__(self) -> None:
        self.cards: list[int] = []
        self.rects: list[pygame.Rect] = []
        self.playable: set[int] = set()
        self.selected: list[int] = []  # indexes into cards
        self.received: set[int] = set()  # cards passed to this player this hand: marked
        self.height = 0
        self.lift = 0

    def set(self, names: list[str]) -> None:
        new = [card(n) for n in names]
        if new != self.cards:
            self.cards = new
            self.selected = []

    def place(self, theme: T.Theme, area: pygame.Rect, rows: int = 1) -> None:
        self.lift = theme.u(14)
        self.height, self.rects = hand_rects(theme, len(self.cards), area, rows=rows)

    def lifted(self, i: int) -> bool:
        """Selected cards, and playable ones while nothing is selected, stand a little higher."""
        return i in self.selected or (self.cards[i] in self.playable and not self.selected)

    def hit(self, pos: tuple[int, int]) -> int | None:
        """Index of the topmost card under ``pos`` (cards overlap to the right)."""
        for i in range(len(self.rects) - 1, -1, -1):
            r = self.rects[i].copy()
            if self.lifted(i):
                r.y -= self.lift
            if r.collidepoint(pos):
                return i
        return None

    def draw(self, surface: Any, theme: T.Theme, dim_unplayable: bool = True) -> None:
        for i, (c, r) in enumerate(zip(self.cards, self.rects, strict=True)):
            y = r.y - self.lift if self.lifted(i) else r.y
            cr = A.draw_card(surface, c, (r.x, y), self.height, theme, highlight=i in self.selected,
                             dim=dim_unplayable and bool(self.playable) and c not in self.playable and i not in self.selected)
            if c in self.received:  # a received card: a gold tab on its top edge, in the visible part
                nxt = self.rects[i + 1] if i + 1 < len(self.rects) else None
                right = nxt.x if nxt is not None and nxt.y == r.y else cr.right
                tab = pygame.Rect(cr.x + theme.u(3), cr.y - theme.u(7), max(theme.u(12), right - cr.x - theme.u(6)),
                                  theme.u(7))
                pygame.draw.rect(surface, T.ACCENT, tab, border_radius=theme.u(3))


PASS_WORDS = {"left": N_("left"), "right": N_("right"), "across": N_("across"), "none": N_("none")}


def status_y(theme: T.Theme) -> int:
    """Where the bar's status line starts: under the title, clear of its descenders (a
    Turkish "ç" reaches below the font's line)."""
    return max(theme.u(30), theme.u(4) + theme.font("body").get_height() + theme.u(4))


def status_bar(surface: Any, theme: T.Theme, g: dict[str, Any], title: str, right_space: int) -> list[str]:
    """Game title, hand number, trump and broken-suit markers; returns the texts drawn."""
    from .i18n import _

    out = []
    x = theme.pad * 2
    y = theme.u(4)
    D.text(surface, theme, title, (x, y), "body", T.TEXT, bold=True, max_width=theme.width - x - right_space)
    out.append(title)
    y = status_y(theme)
    bits = [_("hand {n}").format(n=g["hand_number"])] if g.get("hand_number") else []
    trump = suit_index(g.get("trump"))
    if trump is not None:
        bits.append(_("trump {suit}").format(suit=symbol(trump)))
    elif GI.point_cards(g):
        bits.append(_("no trump"))
    if g.get("broken"):
        if GI.point_cards(g):
            bits.append(_("{suit} broken").format(suit=symbol(1)))
        elif trump is not None:
            bits.append(_("{suit} broken").format(suit=symbol(trump)))
    if GI.stages(g) and g.get("stage"):
        bits.append(_("stage {n}").format(n=g["stage"]))
    waiting = g.get("waiting") or []
    if waiting:
        bits.append((_("{n} cards waiting + widow") if g.get("widow_on_table") else _("{n} cards waiting")).format(
            n=len(waiting)))
    pd = g.get("pass_direction")
    if g.get("phase") == "pass" and pd:
        bits.append(_("pass {direction}").format(direction=_(PASS_WORDS.get(str(pd), str(pd)))))
    line = "  ".join(bits)
    room = theme.width - x - right_space
    # too long: first "no trump" goes (hearts games never have one), then the hand number (the
    # score sheet has it)
    for drop in (_("no trump"), _("hand {n}").format(n=g.get("hand_number"))):
        if theme.font("small").size(line)[0] > room and drop in bits and len(bits) > 1:
            bits.remove(drop)
            line = "  ".join(bits)
    D.text(surface, theme, line, (x, y), "small", T.ACCENT, max_width=theme.width - x - right_space)
    out.append(line)
    return out
