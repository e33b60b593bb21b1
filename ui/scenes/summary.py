"""The end of a hand: what each player (team) took and scored, and the totals."""

from __future__ import annotations

from typing import Any

import pygame

from .. import draw as D
from .. import gameinfo as GI
from .. import plot
from .. import theme as T
from ..fairshow import check, commitment_lines, verdict
from ..i18n import _, ngettext
from ..widgets import Button
from .gamebase import GameScene
from .scoresheet import columns


class SummaryScene(GameScene):
    name = "summary"
    portrait_layout = True  # laid out for Touch Display 2's portrait screen too
    show_undo = False

    def __init__(self, app: Any) -> None:
        super().__init__(app)
        self.lines: list[str] = []
        self.fair: list[str] = []

    def layout(self) -> None:
        th = self.theme
        self.widgets = self.top_buttons()
        w = th.u(260)
        self.next = Button(_("Next hand"), self.next_hand, pygame.Rect(th.width - w - 2 * th.pad, th.height - th.u(72) - th.pad,
                           w, th.u(72)), color=T.BUTTON_ON, role="large", name="Next hand")
        self.widgets.append(self.next)
        # fair dealing: the hand's check and its QR code, on a screen of their own
        cw = min(max(th.u(200), th.font("body").size(_("Check the deal"))[0] + th.u(24)),
                 self.next.rect.x - 3 * th.pad)
        self.check = Button(_("Check the deal"), lambda: self.app.go("faircheck"),
                            pygame.Rect(2 * th.pad, self.next.rect.y, cw, self.next.rect.height), name="Check the deal")
        self.widgets.append(self.check)

    def next_hand(self) -> None:
        self.session.acknowledge_summary()
        self.session.conceal()
        self.app.route()

    def draw_content(self, surface: Any) -> None:
        th = self.theme
        g = self.g
        self.draw_bar(surface)
        self.next.text = _("Final scores") if g.get("over") else _("Next hand")
        self.check.visible = check(self.t) is not None
        results = g.get("hand_results", [])
        if not results:
            return
        last = results[-1]
        labels, seats = columns(g)
        low_wins = GI.lower_wins(g)
        top = self.bar_height + th.pad
        r = D.text(surface, th, _("Hand {n} scored").format(n=len(results)), (2 * th.pad, top), "title", T.TEXT, bold=True,
                   max_width=th.width - 4 * th.pad)
        small_h = th.font("small").get_height()
        y = max(top + th.u(56), r.bottom + small_h + th.u(2))
        self.lines = []
        n = len(seats)
        few = n <= 4
        line_h = th.u(48) if few else max(th.u(26), min(th.u(40), (th.height - y - th.u(90)) // max(1, n)))
        role = "large" if few else ("body" if line_h >= th.u(34) else "small")
        narrow = th.width < th.u(600)  # a portrait screen: what was taken on its own line under each row
        # the columns: names, this hand, total, what was taken; each as wide as its words need
        font = th.font(role)
        name_w = max(font.size(lab)[0] for lab in labels) + 3 * th.pad
        x_pts = max(th.u(140), min(th.u(250), name_w))
        pts_w = max(font.size("+888")[0], th.font("small").size(_("this hand"))[0]) + 2 * th.pad
        x_tot = max(th.u(360) - (th.u(250) - x_pts), x_pts + pts_w)
        tot_w = max(font.size("8888")[0], th.font("small").size(_("total"))[0]) + 2 * th.pad
        x_extra = max(th.u(460) - (th.u(250) - x_pts), x_tot + tot_w)
        extra_w = th.width - x_extra - th.pad
        if narrow:
            x_pts = max(x_pts, th.width - 3 * th.pad - tot_w - pts_w)
            x_tot = x_pts + pts_w
            x_extra, extra_w = 4 * th.pad, th.width - 6 * th.pad
        D.text(surface, th, _("this hand"), (x_pts, y - small_h - th.u(2)), "small", T.TEXT_DIM)
        D.text(surface, th, _("total"), (x_tot, y - small_h - th.u(2)), "small", T.TEXT_DIM)
        extra_role = "body" if few else "small"
        for k, s in enumerate(seats):
            pts, tot = last["points"][s], last["totals"][s]
            D.text(surface, th, labels[k], (2 * th.pad, y), role, T.TEXT, max_width=x_pts - 3 * th.pad)
            good = pts < 0 if low_wins else pts > 0
            bad = pts > 0 if low_wins else pts < 0
            D.text(surface, th, f"{pts:+d}", (x_pts, y), role, T.GOOD if good else (T.BAD_TEXT if bad else T.TEXT))
            D.text(surface, th, str(tot), (x_tot, y), role, T.ACCENT, bold=True)
            extra = self.figures(g, s)
            if "bags" in last:
                extra = (extra + ", " if extra else "") + _("bags {n}").format(n=last["bags"][s])
            # what was taken: on as many lines as it needs (a few players have the room)
            parts = D.wrap(th, extra, extra_w, extra_role) if few or narrow else [extra]
            ey = y + (font.get_height() if narrow else th.u(4))
            for part in parts if extra else []:
                ey = D.text(surface, th, part, (x_extra, ey), extra_role, T.TEXT_DIM, max_width=extra_w).bottom
            step = line_h if len(parts) <= 1 and not narrow else max(line_h, ey - y + th.u(6))
            self.lines.append(f"{labels[k]}: {pts:+d} -> {tot}" + (f" ({extra})" if extra else ""))
            y += step
        # fair dealing: the hand's salt is revealed now; the words go under everything else,
        # left of the button
        above = narrow or self.check.visible  # the words above the buttons' row, across the screen
        fair_w = th.width - 4 * th.pad if above else self.next.rect.x - 4 * th.pad
        fair_h = max(th.u(22), small_h)
        fair_bottom = self.next.rect.y - th.pad if above else th.height - th.pad
        # as many of the words as fit under the rows: all, the check alone, the check without
        # its code (the check screen shows everything), nothing
        said = commitment_lines(self.t, after=True)
        fc = check(self.t)
        fair: list[str] = []
        for choice in (said, said[:1], [verdict(fc, with_code=False)] if fc is not None else []):
            fair = [ln for line in choice for ln in D.wrap(th, line, fair_w, "small")]
            if fair_bottom - len(fair) * fair_h >= y:
                break
        else:
            fair = []
        self.fair = fair
        fy = fair_bottom - len(fair) * fair_h
        for ln in fair:
            D.text(surface, th, ln, (2 * th.pad, fy), "small", T.TEXT_DIM, max_width=fair_w)
            fy += fair_h
        bottom = fair_bottom - len(fair) * fair_h
        # the totals so far, beside the button, when there is room
        room = pygame.Rect(2 * th.pad, y + th.pad, (th.width if narrow else self.next.rect.x) - 4 * th.pad,
                           bottom - y - 2 * th.pad)
        if (few or narrow) and room.height >= th.u(120):
            labs, series = plot.series_from(g)
            plot.draw_plot(surface, th, room, labs, series, g.get("options", {}).get("target"))

    @staticmethod
    def hand_figures(g: dict[str, Any]) -> dict[str, Any]:
        """What each seat bid and took in the hand just scored, as the engine booked it (the
        ``figures`` of its ``hand_results`` row); {} when the game keeps none."""
        results = g.get("hand_results") or []
        return dict(results[-1].get("figures") or {}) if results else {}

    def hearts_taken(self, g: dict[str, Any]) -> list[dict[str, Any]] | None:
        """Hearts games: per seat, the tricks, hearts and queens of spades the hand just scored
        took (from the engine's figures); None when the table cannot say."""
        f = self.hand_figures(g)
        tricks, hearts, queens = f.get("tricks_taken"), f.get("hearts"), f.get("queens")
        if not (tricks and hearts and queens):
            return None
        return [{"tricks": t, "hearts": h, "queens": q} for t, h, q in zip(tricks, hearts, queens, strict=True)]

    def figures(self, g: dict[str, Any], s: int) -> str:
        """Bids and tricks of the hand just played (the games with bids, German Whist's
        stages), if known; in the Hearts games who took what (tricks, hearts, the queen of
        spades); else the tricks taken."""
        if GI.point_cards(g):
            taken = self.hearts_taken(g)
            if not taken or s >= len(taken):
                return ""
            t = taken[s]
            bits = [ngettext("{n} trick", "{n} tricks", t["tricks"]).format(n=t["tricks"])]
            if t["hearts"]:
                bits.append(f"{t['hearts']} \u2665")
            if t["queens"]:
                bits.append("Q\u2660" if t["queens"] == 1 else f"{t['queens']} \u00d7 Q\u2660")
            if not (t["hearts"] or t["queens"]):
                bits.append(_("no points"))
            return _("took {what}").format(what=", ".join(bits))
        end = self.hand_figures(g)
        taken = end.get("tricks_taken") or []
        bids = end.get("bids") or []
        blind = end.get("blind_nil") or end.get("double_nil") or []

        def bid_words(k: int) -> str:
            b = bids[k] if k < len(bids) else None
            if b is None:
                return "-"
            if b == 0:
                return GI.nil_word(g, lower=True) if (k < len(blind) and blind[k]) else _("nil")
            return str(b)

        if bids and GI.teams(g) and len(taken) == 4:
            p = s + 2
            return _("bids {a} + {b}, took {x} + {y}").format(a=bid_words(s), b=bid_words(p), x=taken[s], y=taken[p])
        if bids and taken:
            return _("bid {bid}, took {n}").format(bid=bid_words(s), n=taken[s])
        if GI.stages(g) and end.get("tricks_stage2"):
            return _("stage two: {n} tricks").format(n=end["tricks_stage2"][s])
        if s < len(taken):
            return _("took {what}").format(what=ngettext("{n} trick", "{n} tricks", taken[s]).format(n=taken[s]))
        return ""

    def model(self) -> dict[str, Any]:
        m = super().model()
        m["lines"] = list(self.lines)
        if GI.point_cards(self.g):
            m["taken"] = self.hearts_taken(self.g)
        m["commitment"] = commitment_lines(self.t, after=True)
        return m
