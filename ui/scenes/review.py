"""The hand so far, for everyone at the table: every trick played (who led, each card, who won
it, the cards that cancelled in Cancellation Hearts) and the cards gone, suit by suit.

Public information only: what the view's ``tricks`` (engine ``GameState.trick_log``, put in
the view by the referee) holds, which is every card played face up and nothing else. A card
still in someone's hand is never shown; neither are German Whist's drawn cards (the face-up one
is in the winner's hand now). Passes are private: only the player whose hand is shown on the
screen (simulated mode) sees what they passed and received.

A grid like a bridge score's play record: a column per player, a line per trick; the leader's
card underlined, the winner's on yellow, cancelled cards struck out, a trick nobody won
shaded. The lines scroll (drag), opening on the latest trick.
"""

from __future__ import annotations

from typing import Any

import pygame

from trickref.engine import cards as C

from .. import draw as D
from .. import gameinfo as GI
from .. import tableview as TV
from .. import theme as T
from ..i18n import _
from ..widgets import Button, Widget
from .gamebase import GameScene


def card_text(name: str) -> str:
    """'TH' -> '10\u2665' (the suit drawn as its shape by ui.draw)."""
    rank = "10" if name[0] == "T" else name[0]
    return rank + C.SUIT_SYMBOLS[C.SUITS.index(name[1])]


def gone_by_suit(tricks: list[dict[str, Any]]) -> list[list[str]]:
    """The cards played so far, per suit (spades, hearts, diamonds, clubs), high to low; a card
    of two decks as often as it was played."""
    out: list[list[str]] = [[], [], [], []]
    for t in tricks:
        for _s, name in t["cards"]:
            out[C.SUITS.index(name[1])].append(name)
    order = "AKQJT98765432"
    return [sorted(s, key=lambda c: order.index(c[0])) for s in out]


def wrap_drawn(th: T.Theme, text: str, width: int) -> list[str]:
    """``text`` in lines no wider than ``width`` as drawn (suit symbols are drawn as shapes,
    wider than the font's own glyphs), split at spaces."""
    out: list[str] = []
    line = ""
    for word in text.split(" "):
        cand = word if not line else line + " " + word
        if not line or D.render(th, cand, "small").get_width() <= width:
            line = cand
        else:
            out.append(line)
            line = word
    out.append(line)
    return out


class Scroller(Widget):
    """Drag (or wheel) to scroll the lines under the headings; nothing to tap."""

    def __init__(self) -> None:
        super().__init__()
        self.offset = 0
        self.content = 0
        self.step = 20
        self.at_bottom = True
        self._down: tuple[int, int] | None = None

    def most(self) -> int:
        return max(0, self.content - self.rect.height)

    def place(self, content: int, step: int) -> None:
        self.content, self.step = content, step
        self.offset = self.most() if self.at_bottom else min(self.offset, self.most())

    def handle(self, event: Any) -> bool:
        if event.type == pygame.MOUSEWHEEL:
            self.offset = max(0, min(self.most(), self.offset - event.y * self.step))
            self.at_bottom = self.offset >= self.most()
            return True
        pos = getattr(event, "pos", None)
        if pos is None:
            return False
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1 and self.rect.collidepoint(pos):
            self._down = (pos[1], self.offset)
            return True
        if event.type == pygame.MOUSEMOTION and self._down is not None:
            y0, off0 = self._down
            self.offset = max(0, min(self.most(), off0 + y0 - pos[1]))
            self.at_bottom = self.offset >= self.most()
            return True
        if event.type == pygame.MOUSEBUTTONUP and event.button == 1 and self._down is not None:
            self._down = None
            return True
        return False


class ReviewScene(GameScene):
    name = "review"
    portrait_layout = True  # laid out for Touch Display 2's portrait screen too
    show_undo = False

    def __init__(self, app: Any) -> None:
        super().__init__(app)
        self.scroller = Scroller()
        self.stagger = 1
        self.shown: list[str] = []  # every card name drawn (tests: never one in a hand)

    def layout(self) -> None:
        th = self.theme
        w = max(th.u(120), th.font("small").size(_("Back"))[0] + th.u(16))
        y = th.u(3) if not th.portrait else self.title_h()
        self.back_btn = Button(_("Back"), self.back, pygame.Rect(th.width - th.pad - w, y, w, th.touch),
                               color=T.BUTTON_OFF, role="small", name="Back")
        self.widgets = [self.back_btn, self.scroller]

    def title_h(self) -> int:
        th = self.theme
        return th.pad + th.font("large", bold=True).get_height() + th.u(4)

    @property
    def bar_height(self) -> int:
        th = self.theme
        if th.portrait:
            return self.title_h() + th.touch + th.u(6)
        return th.touch + th.u(8)

    def back(self) -> None:
        self.app.route()

    # ------------------------------------------------------------------ drawing
    def draw_content(self, surface: Any) -> None:
        th = self.theme
        g, t = self.g, self.t
        tricks: list[dict[str, Any]] = list(g.get("tricks") or [])
        names = list(g.get("names") or [])
        n = len(names)
        self.shown = [name for tr in tricks for _s, name in tr["cards"]]
        room = (self.back_btn.rect.x if not th.portrait else th.width) - 3 * th.pad
        title = _("Hand {n}: the tricks so far").format(n=g.get("hand_number", 0))
        if th.font("large", bold=True).size(title)[0] > room:
            title = _("The tricks so far")
        D.text(surface, th, title, (2 * th.pad, th.pad), "large", T.TEXT, bold=True, max_width=room)
        top = self.bar_height + th.u(2)
        small = th.font("small")
        small_h = small.get_height()
        bottom = th.height - th.pad
        # what is under the grid: the cards gone by suit, the viewer's own pass, the legend
        below = self.below_lines(g, t, tricks, th.width - 4 * th.pad)
        below_h = sum(h for _t, h, _c in below)
        grid_bottom = bottom - below_h - th.u(6)
        if not n:
            return
        label_w = small.size("88")[0] + th.u(10)
        col_w = (th.width - 2 * th.pad - label_w) // max(1, n)
        x0 = th.pad + label_w
        # too narrow for "10♥" side by side (11 players on a portrait screen): every other
        # player's card a line lower, so neighbours never touch
        widest = D.render(th, "10\u2665", "small").get_width() + th.u(12)
        self.stagger = 2 if widest > col_w and n > 2 else 1
        y = top
        for s in range(n):  # the players across the top
            room = col_w * self.stagger - th.u(6)
            D.text(surface, th, self.fit(names[s], room, bold=True),
                   (x0 + s * col_w + col_w // 2, y + (s % self.stagger) * small_h), "small", T.ACCENT, "midtop", bold=True)
        D.text(surface, th, "#", (th.pad + th.u(4), y), "small", T.TEXT_DIM)
        y += self.stagger * small_h + th.u(4)
        pygame.draw.line(surface, T.TEXT_DIM, (th.pad, y - th.u(2)), (th.width - th.pad, y - th.u(2)), 1)
        row_h = self.stagger * (small_h + th.u(4)) + th.u(6)
        body = pygame.Rect(th.pad, y, th.width - 2 * th.pad, max(row_h, grid_bottom - y))
        self.scroller.rect = body
        stage2 = next((i for i, tr in enumerate(tricks) if tr.get("stage") == 2), None)
        content = len(tricks) * row_h + (th.u(6) if stage2 else 0)
        self.scroller.place(content, row_h)
        if not tricks:
            D.text(surface, th, _("No card has been played yet this hand."), (body.centerx, body.y + th.pad), "body",
                   T.TEXT_DIM, "midtop", max_width=body.width - 2 * th.pad)
        clip = surface.get_clip()
        surface.set_clip(body)
        ry = body.y - self.scroller.offset
        for i, tr in enumerate(tricks):
            if i == stage2:  # German Whist: stage two starts here
                pygame.draw.line(surface, T.ACCENT, (body.x, ry + th.u(2)), (body.right, ry + th.u(2)), 2)
                ry += th.u(6)
            r = pygame.Rect(body.x, ry, body.width, row_h)
            ry += row_h
            if r.bottom < body.y or r.y > body.bottom:
                continue
            nobody = tr.get("done") and tr.get("winner") is None
            pygame.draw.rect(surface, T.PANEL if nobody else (T.FELT_DARK if i % 2 else T.FELT), r)
            label = str(i + 1 - (stage2 or 0) if stage2 is not None and i >= stage2 else i + 1)
            D.text(surface, th, label, (r.x + th.u(4), r.centery), "small", T.TEXT_DIM, "midleft")
            cancelled = list(tr.get("cancelled") or [])
            line_h = (row_h - th.u(6)) // self.stagger
            for s, name in tr["cards"]:
                cx = x0 + int(s) * col_w + col_w // 2
                cy = r.centery if self.stagger == 1 else r.y + th.u(3) + line_h * (int(s) % 2) + line_h // 2
                text = card_text(name)
                won = tr.get("winner") is not None and int(s) == tr["winner"]
                if won:
                    w = D.render(th, text, "small").get_width() + th.u(8)
                    pygame.draw.rect(surface, T.ACCENT, (cx - w // 2, cy - line_h // 2 + th.u(1), w, line_h - th.u(2)),
                                     border_radius=th.u(4))
                gone = name in cancelled
                color = T.BLACK if won else (T.TEXT_DIM if gone else T.TEXT)
                tr_rect = D.text(surface, th, text, (cx, cy), "small", color, "center", on_dark=not won)
                if int(s) == tr["leader"]:  # the lead: underlined
                    pygame.draw.line(surface, T.BLACK if won else T.TEXT, (tr_rect.x, tr_rect.bottom - th.u(1)),
                                     (tr_rect.right, tr_rect.bottom - th.u(1)), max(1, th.u(2)))
                if gone:  # cancelled by its twin: struck out
                    pygame.draw.line(surface, T.BAD, (tr_rect.x - th.u(2), tr_rect.centery),
                                     (tr_rect.right + th.u(2), tr_rect.centery), max(1, th.u(2)))
        surface.set_clip(clip)
        if self.scroller.most() > 0:
            frac = body.height / max(1, content)
            bar_h = max(th.u(20), round(body.height * frac))
            bar_y = body.y + round((body.height - bar_h) * self.scroller.offset / max(1, self.scroller.most()))
            pygame.draw.rect(surface, T.TEXT_DIM, (body.right - th.u(4), bar_y, th.u(3), bar_h), border_radius=2)
        y = grid_bottom + th.u(6)
        pygame.draw.line(surface, T.TEXT_DIM, (th.pad, y - th.u(3)), (th.width - th.pad, y - th.u(3)), 1)
        for text, h, color in below:
            D.text(surface, th, text, (2 * th.pad, y), "small", color)
            y += h

    def below_lines(self, g: dict[str, Any], t: dict[str, Any], tricks: list[dict[str, Any]],
                    width: int) -> list[tuple[str, int, T.Color]]:
        """The lines under the grid: the cards gone by suit (wrapped), what was out of play, the
        viewer's own pass, and what the marks mean."""
        th = self.theme
        h = th.font("small").get_height() + th.u(2)
        out: list[tuple[str, int, T.Color]] = []
        gone = gone_by_suit(tricks)
        for suit, cards in enumerate(gone):
            words = C.SUIT_SYMBOLS[suit] + "  " + (" ".join(card_text(c)[:-1] for c in cards) if cards else "\u2013")
            for line in wrap_drawn(th, words, width):
                out.append((line, h, T.TEXT))
        removed = g.get("removed") or []
        if removed:
            words = _("Out of play: {cards}").format(cards=" ".join(card_text(c) for c in removed))
            out += [(line, h, T.TEXT_DIM) for line in wrap_drawn(th, words, width)]
        seat = TV.view_seat(self.view)
        if seat is not None and g.get("passed_cards"):
            passed = " ".join(card_text(c) for c in g["passed_cards"])
            names = g.get("names") or []
            to = g.get("pass_to")
            to = (seat + 2) % 4 if to is None and GI.teams(g) else to  # partners pass across
            who = names[int(to)] if isinstance(to, int) and 0 <= to < len(names) else "?"
            words = _("You passed {cards} to {name}").format(cards=passed, name=who)
            got = g.get("received_cards") or []
            if got:
                frm = (2 * seat - int(to)) % len(names) if isinstance(to, int) else seat
                words += "; " + _("received {cards} from {name}").format(cards=" ".join(card_text(c) for c in got),
                                                                       name=names[frm])
            for line in wrap_drawn(th, words, width):
                out.append((line, h, T.ACCENT))
        legend = _("underlined: led; yellow: won the trick")
        if GI.cancels(g):
            legend += "; " + _("struck out: cancelled; shaded: nobody won")
        for line in wrap_drawn(th, legend, width):
            out.append((line, h, T.TEXT_DIM))
        return out

    def fit(self, text: str, room: int, bold: bool = False) -> str:
        font = self.theme.font("small", bold)
        if font.size(text)[0] <= room:
            return text
        while len(text) > 1 and font.size(text + "\u2026")[0] > room:
            text = text[:-1]
        return text + "\u2026" if font.size(text + "\u2026")[0] <= room else text[:1]

    def model(self) -> dict[str, Any]:
        m = super().model()
        m["cards"] = list(self.shown)
        m["tricks"] = len(self.g.get("tricks") or [])
        return m
