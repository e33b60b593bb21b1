"""Bidding: each seat's bid as it is entered (the seat panel's pending value before OK), the
team contracts and totals; in simulated mode the revealed bidder's hand and an on-screen seat
panel (-, +, OK) standing in for the physical one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pygame

from trickref.engine.actions import BLIND_NIL

from .. import draw as D
from .. import gameinfo as GI
from .. import tableview as TV
from .. import theme as T
from ..i18n import _
from ..widgets import Button
from .gamebase import GameScene


class PanelKey(Button):
    """An on-screen seat panel key: ``on_down`` at mouse down, ``on_up`` at the mouse up that
    follows (wherever the finger is then: a physical key comes up when the finger lifts), so the
    key can be held, as the wired panel's OK is held to ask for an undo."""

    def __init__(self, text: str, on_down: Callable[[], Any], on_up: Callable[[bool], Any], **kw: Any) -> None:
        super().__init__(text, **kw)
        self.on_down = on_down
        self.on_up = on_up

    def handle(self, event: Any) -> bool:
        if not (self.visible and self.enabled):
            if self.pressed and event.type == pygame.MOUSEBUTTONUP and event.button == 1:
                self.pressed = False  # hidden while held (the turn moved on): still let go
                self.on_up(False)
            return False
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1 and self.rect.collidepoint(event.pos):
            self.pressed = True
            self.on_down()
            return True
        if event.type == pygame.MOUSEBUTTONUP and event.button == 1 and self.pressed:
            self.pressed = False
            self.on_up(self.rect.collidepoint(event.pos))
            return True
        return False


class BiddingScene(GameScene):
    name = "bidding"
    portrait_layout = True  # stacked on a portrait screen (ui.scene)
    shows_notice = True

    def __init__(self, app: Any) -> None:
        super().__init__(app)
        self.hand = TV.HandView()
        self.rows: list[str] = []
        self.error = ""
        self._held: tuple[int, str] | None = None  # the on-screen key held down: (seat, key)

    @property
    def acting_seat(self) -> int | None:
        seat = TV.view_seat(self.view)
        if seat is None or seat not in self.t.get("turn", []) or seat in self.t.get("bots", []):
            return None
        return seat

    def layout(self) -> None:
        th = self.theme
        self.widgets = self.top_buttons()
        b = th.u(64)
        self.minus = self._key("-", role="huge", name="panel -")
        self.plus = self._key("+", role="huge", name="panel +")
        self.ok = self._key("OK", color=T.BUTTON_ON, role="large", name="panel OK")
        self.blind = Button(_("Blind Nil"), self.blind_nil, color=T.BAD, role="small", name="Blind Nil")
        self.panel_buttons = [self.minus, self.plus, self.ok, self.blind]
        for w in self.panel_buttons:
            w.rect = pygame.Rect(0, 0, b, b)
        self.widgets.extend(self.panel_buttons)

    def _key(self, key: str, **kw: Any) -> PanelKey:
        return PanelKey(key, lambda: self.key_down(key), lambda inside: self.key_up(key, inside), **kw)

    @property
    def holds_keys(self) -> bool:
        """Simulated mode's mock-pin panels: keys are held and released, not clicked."""
        return bool(getattr(self.session.table, "holds_keys", False))

    @property
    def panel_seat(self) -> int | None:
        """Whose on-screen panel shows: the acting seat's; with held keys also the revealed
        seat's once it has bid (holding OK asks to undo its bid; the referee says whether it can)."""
        seat = self.acting_seat
        if seat is not None or not self.holds_keys:
            return seat
        seat = TV.view_seat(self.view)
        bids = self.g.get("bids") or []
        if seat is None or seat in self.t.get("bots", []) or seat >= len(bids) or bids[seat] is None:
            return None
        return seat

    def key_down(self, key: str) -> None:
        seat = self.panel_seat
        self._held = None
        if seat is None or not self.holds_keys:
            return
        self._held = (seat, key)
        self.session.table.panel_down(seat, key)

    def key_up(self, key: str, inside: bool) -> None:
        held, self._held = self._held, None
        if held is not None:
            self.panel(key, held[0])
        elif inside:
            self.panel(key)

    def panel(self, key: str, held: int | None = None) -> None:
        """A click on key (or the release of a held key at ``held``'s panel)."""
        seat = self.acting_seat if held is None else held
        if seat is None:
            return
        try:
            if held is not None:
                self.session.table.panel_up(seat, key)
            else:
                self.session.table.panel(seat, key)
            self.session.after_action()
            self.error = ""
        except ValueError as e:  # refused: the referee's sound comes from the table host
            self.error = str(e)
        if key == "OK":
            self.app.route()

    def blind_nil(self) -> None:
        """Blind Nil binds the hand: asked first (ui.scenes.confirm.ask_blind_nil)."""
        from .confirm import ask_blind_nil

        def declare() -> None:
            seat = self.acting_seat
            if seat is not None:
                self.session.submit(seat, BLIND_NIL)
                self.app.route()

        ask_blind_nil(self.app, declare)

    def handle(self, event: Any) -> None:
        super().handle(event)

    def draw_content(self, surface: Any) -> None:
        th = self.theme
        g, t = self.g, self.t
        self.draw_bar(surface)
        n = int(g.get("players", 2))
        names = g.get("names", [])
        bids = g.get("bids") or [None] * n
        pending = TV.pending_labels(t, n)
        turn = set(t.get("turn", []))
        # below the referee's notice to the table (a refusal is drawn over the top, as before)
        top = max(self.content_top, self.strip_bottom(notice_only=True)) + th.pad
        own = TV.view_hand(self.view)
        has_hand = own is not None
        hand_h = th.card_height("hand") + th.u(10) if has_hand else 0
        x0 = 2 * th.pad
        # landscape: the bids at the left, the seat panel at their right; portrait: the panel
        # under the bids, across the screen
        colw = th.width - 2 * x0 if th.portrait else th.u(360)
        row_h = th.u(40)
        D.text(surface, th, _("Bids"), (x0, top), "large", T.TEXT, bold=True)
        y = top + th.u(40)
        self.rows = []
        blind = g.get("blind_nil") or g.get("double_nil") or [False] * n
        for s in range(n):
            b = bids[s] if s < len(bids) else None
            if b is None:
                if pending[s] is not None:
                    txt, color = _("entering {bid}").format(bid=pending[s]), T.ACCENT
                elif s in turn:
                    txt, color = _("bidding..."), T.ACCENT
                else:
                    txt, color = "-", T.TEXT_DIM
            else:
                txt = GI.nil_word(g) if (b == 0 and s < len(blind) and blind[s]) else (_("Nil") if b == 0 else str(b))
                color = T.GOOD
            mark = " (D)" if g.get("dealer") == s else ""
            bot = " [bot]" if s in t.get("bots", []) else ""
            r = pygame.Rect(x0, y, colw, row_h - th.u(4))
            D.panel(surface, r, (92, 78, 20) if s in turn else T.PANEL_LIGHT, th.u(6))
            led_w = self.draw_led(surface, s, (r.x + th.pad + th.u(6), r.centery))
            D.text(surface, th, f"{names[s]}{mark}{bot}", (r.x + th.pad + led_w, r.centery), "body", T.TEXT, "midleft",
                   max_width=colw - th.u(130) - led_w)
            D.text(surface, th, txt, (r.right - th.pad, r.centery), "body", color, "midright")
            self.rows.append(f"{names[s]}: {txt}")
            y += row_h
        # contracts and team totals
        if TV.teams(g):
            contracts = g.get("contracts") or [0, 0]
            totals = g.get("totals", [0] * n)
            y += th.u(4)
            for team in (0, 1):
                line = _("{a} & {b}: contract {contract}, score {score}, bags {bags}").format(
                    a=names[team], b=names[team + 2], contract=contracts[team], score=totals[team],
                    bags=(g.get("bags") or [0, 0])[team])
                for ln in D.wrap(th, line, colw, "small") if th.portrait else [line]:
                    D.text(surface, th, ln, (x0, y), "small", T.TEXT, max_width=colw if th.portrait else None)
                    y += th.font("small").get_height() + th.u(2)
                self.rows.append(line)
        else:
            totals = g.get("totals", [0] * n)
            line = _("score: {totals}").format(totals=", ".join(f"{names[s]} {totals[s]}" for s in range(n)))
            D.text(surface, th, line, (x0, y + th.u(4)), "small", T.TEXT_DIM, max_width=colw)
            self.rows.append(line)
            y += th.u(4) + th.font("small").get_height()

        # the on-screen seat panel for the revealed bidder
        seat = self.panel_seat
        if th.portrait:
            px, pw = x0, colw
            top = y + th.u(16)
        else:
            px = x0 + colw + th.u(24)
            pw = th.width - px - 2 * th.pad
        for w in self.panel_buttons:
            w.visible = seat is not None
        if seat is not None:
            # the referee's panel shows nothing until the first press (which shows bid 1)
            val = pending[seat] or ("?" if "waiting" in self.t else _("Nil"))
            if seat != self.acting_seat:
                val = str(bids[seat])
            title = (_("{name}, your bid") if seat == self.acting_seat else _("{name}: hold OK to undo")).format(
                name=names[seat])
            D.text(surface, th, title, (px + pw // 2, top), "large", T.TEXT, "midtop", max_width=pw)
            b = th.u(72)
            cy = top + th.u(50)
            self.minus.rect = pygame.Rect(px + th.pad, cy, b, b)
            self.plus.rect = pygame.Rect(px + pw - b - th.pad, cy, b, b)
            D.text(surface, th, val, (px + pw // 2, cy + b // 2), "huge", T.ACCENT, "center")
            self.ok.rect = pygame.Rect(px + th.pad, cy + b + th.pad, pw - 2 * th.pad, th.touch)
            # Blind Nil is declared before looking: offered on the hand-off screen, not beside the hand
            self.blind.visible = seat == self.acting_seat and BLIND_NIL in self.session.table.legal(seat) and own is None
            self.blind.rect = pygame.Rect(px + th.pad, self.ok.rect.bottom + th.pad, pw - 2 * th.pad, th.touch)
        elif turn:
            who = ", ".join(names[s] for s in sorted(turn))
            D.text(surface, th, _("{who} to bid").format(who=who), (px + pw // 2, top + th.u(60)), "large", T.ACCENT, "midtop", max_width=pw)
            D.text(surface, th, _("on the seat panel: - / + then OK"), (px + pw // 2, top + th.u(100)), "small", T.TEXT_DIM,
                   "midtop", max_width=pw)
        if self.error:
            D.text(surface, th, self.error, (px, th.height - hand_h - th.u(30)), "small", T.BAD_TEXT, max_width=pw)
        if has_hand:
            self.hand.set(own or [])
            area = pygame.Rect(th.pad, th.height - hand_h, th.width - 2 * th.pad, hand_h - th.u(4))
            self.hand.place(th, area)
            self.hand.draw(surface, th, dim_unplayable=False)

    def draw_led(self, surface: Any, seat: int, center: tuple[int, int]) -> int:
        """The seat panel's LED as the referee set it (on: your turn; blink: look at the
        screen); returns the width it took (0 when the table has no LEDs)."""
        leds = self.t.get("leds") or []
        if seat >= len(leds):
            return 0
        th = self.theme
        mode = leds[seat]
        radius = th.u(6)
        if mode == "on":
            pygame.draw.circle(surface, T.ACCENT, center, radius)
        elif mode == "blink":
            pygame.draw.circle(surface, T.BAD, center, radius)
            pygame.draw.circle(surface, T.TEXT, center, radius, width=2)
        else:
            pygame.draw.circle(surface, T.FELT_DARK, center, radius)
            pygame.draw.circle(surface, T.TEXT_DIM, center, radius, width=1)
        return th.u(20)

    def model(self) -> dict[str, Any]:
        m = super().model()
        m["leds"] = list(self.t.get("leds") or [])
        m["rows"] = list(self.rows)
        m["hand"] = TV.view_hand(self.view)
        return m
