"""Dealing: a progress bar of the cards routed and the dealer's status.

At a real table (hardware mode) nothing puts the cards back in the dealer but the people: after a
hand they lie in the pockets (the trick pocket, the seats', the reject pocket) and the deal would
find the feeder empty. So there the scene first asks for them, and the deal starts when someone
taps Deal. The simulated table's people gather the cards themselves (the table host tells them)."""

from __future__ import annotations

from typing import Any

import pygame

from trickref.engine.errors import RecordError
from trickref.engine.games import game_class

from .. import draw as D
from .. import tableview as TV
from .. import theme as T
from ..fairshow import commitment_lines
from ..i18n import _
from ..widgets import Button
from .gamebase import GameScene


class DealingScene(GameScene):
    name = "dealing"
    portrait_layout = True  # stacked on a portrait screen (ui.scene)
    show_undo = False

    loading = False  # hardware mode: the screen asks for the cards, and Deal starts the deal

    def enter(self) -> None:
        super().enter()
        table = self.session.table
        self.loading = getattr(table, "mode", None) == "hardware" and table.needs_deal
        if not self.loading:
            self.session.start_deal()

    def cards_in(self) -> None:
        """Deal: the people say the cards are in the feeder."""
        self.loading = False
        self.session.start_deal()
        self.needs_redraw = True
        self.app.route()

    def layout(self) -> None:
        th = self.theme
        self.widgets = self.top_buttons()
        w = th.u(260)
        self.deal = Button(_("Deal"), self.cards_in, pygame.Rect(th.width - w - 2 * th.pad, th.height - th.u(72) - th.pad,
                           w, th.u(72)), color=T.BUTTON_ON, role="large", name="Deal")
        self.widgets.append(self.deal)
        bw, y = th.u(220), th.height - th.touch - 2 * th.pad
        self.jam = Button(_("Simulate a jam"), self.simulate_jam, name="Simulate a jam", rect=pygame.Rect(
            th.width - bw - 2 * th.pad, y, bw, th.touch), color=T.BUTTON_OFF, role="small")
        # side by side, or on a portrait screen one over the other
        unplug = (pygame.Rect(th.width - bw - 2 * th.pad, y - th.touch - th.pad, bw, th.touch) if th.portrait
                  else pygame.Rect(th.width - 2 * bw - 3 * th.pad, y, bw, th.touch))
        self.unplug = Button(_("Unplug the dealer"), self.simulate_unplug, name="Unplug the dealer", rect=unplug,
                             color=T.BUTTON_OFF, role="small")
        self.widgets += [self.jam, self.unplug]

    def simulate_jam(self) -> None:
        """Debug (simulated mode): the simulator's next card sticks; the fault scene follows
        (meanwhile the status line says what is coming, and the buttons are off)."""
        self.session.table.fault("jam")
        self.note = _("jam on its way: the next card will stick")
        self.app.route()

    def simulate_unplug(self) -> None:
        """Debug (simulated mode): the dealer's cable out; Resume on the fault scene plugs it back."""
        self.session.table.fault("link")
        self.note = _("dealer cable out: the table notices in a moment")
        self.app.route()

    note = ""  # what a simulated fault just asked for, until the fault shows

    @property
    def tick_ms(self) -> int | None:
        return 33 if TV.dealer_status(self.t) == "busy" else None

    def update(self, dt: float) -> None:
        self.needs_redraw = True

    def draw_content(self, surface: Any) -> None:
        th = self.theme
        g, t = self.g, self.t
        self.draw_bar(surface)
        self.deal.visible = self.loading
        if self.loading:
            self.draw_loading(surface)
            self.jam.visible = self.unplug.visible = False
            return
        d = t.get("dealer", {})
        dealt, total = int(d.get("dealt", 0)), max(1, int(d.get("total", 1)))
        names = g.get("names", [])
        dealer = g.get("dealer", 0)
        hand = self.hand_dealt()
        heading = D.wrap(th, _("Dealing hand {hand}").format(hand=hand), th.width - 4 * th.pad, "title")[:2]
        step = th.font("title", bold=True).get_height()
        for i, ln in enumerate(heading):  # (on a narrow screen in two lines, the last where one would be)
            D.text(surface, th, ln, (th.width // 2, th.height // 2 - th.u(90) - (len(heading) - 1 - i) * step),
                   "title", T.TEXT, "midbottom", bold=True, max_width=th.width - 4 * th.pad)
        D.text(surface, th, _("dealer: {name}").format(name=names[dealer] if names else ""), (th.width // 2, th.height // 2 - th.u(84)),
               "body", T.TEXT_DIM, "midtop")
        bar = pygame.Rect(th.u(80), th.height // 2 - th.u(20), th.width - th.u(160), th.u(40))
        pygame.draw.rect(surface, T.PANEL, bar, border_radius=th.u(8))
        fill = bar.copy()
        fill.width = round(bar.width * dealt / total)
        pygame.draw.rect(surface, T.GOOD, fill, border_radius=th.u(8))
        pygame.draw.rect(surface, T.TEXT_DIM, bar, width=2, border_radius=th.u(8))
        D.text(surface, th, _("{dealt} / {total} cards").format(dealt=dealt, total=total), bar.center, "body", T.TEXT, "center")
        status = _("status: {message}").format(message=_(str(d["message"]))) if d.get("message") else ""
        if self.note:
            status = self.note
        sr = D.text(surface, th, status, (th.width // 2, bar.bottom + th.u(12)), "body",
                    T.ACCENT, "midtop", max_width=th.width - 4 * th.pad)
        y = max(sr.bottom, bar.bottom + th.u(12) + th.font("body").get_height()) + th.u(10)
        # the words stop above the simulated dealer's buttons when they show
        end = min(self.jam.rect.y, self.unplug.rect.y) - th.u(4) if self.session.simulated and TV.dealer_status(t) == "busy" else th.height
        for k, line in enumerate(commitment_lines(t, after=False)):  # fair dealing: shown before the cards are out
            role = "body" if k == 0 else "small"  # the code itself, then how to use it
            for ln in D.wrap(th, line, th.width - 4 * th.pad, role):
                if y + th.font(role).get_height() > end:
                    break
                y = D.text(surface, th, ln, (th.width // 2, y), role, T.TEXT if k == 0 else T.TEXT_DIM, "midtop",
                           max_width=th.width - 4 * th.pad).bottom + th.u(2)
        self.jam.visible = self.unplug.visible = self.session.simulated and TV.dealer_status(t) == "busy"
        self.jam.enabled = self.unplug.enabled = not self.note  # one simulated fault at a time

    def hand_dealt(self) -> int:
        """The number of the hand this deal is for."""
        g = self.g
        # the referee starts the hand's rules before dealing it; the in-memory table after
        return int(g.get("hand_number", 0)) + (1 if g.get("phase") in ("deal", "over", None) else 0)

    def loading_words(self) -> list[str]:
        """What the people do before the deal: every card of the game into the feeder."""
        try:
            n = 52 * game_class(str(self.g.get("game", ""))).DECKS
        except RecordError:  # not a game this kiosk knows by id: one deck
            n = 52
        return [_("Put all {n} cards face down in the dealer's feeder: gather them from every pocket "
                  "(the trick pocket, the seats' pockets, the reject pocket) and any left in the play slot.").format(n=n),
                _("Then tap Deal.")]

    def draw_loading(self, surface: Any) -> None:
        th = self.theme
        hand = self.hand_dealt()
        width = th.width - 4 * th.pad
        y = th.u(70)
        for ln in D.wrap(th, _("Hand {hand}: the cards into the dealer").format(hand=hand), width, "title")[:2]:
            y = D.text(surface, th, ln, (th.width // 2, y), "title", T.TEXT, "midtop", bold=True, max_width=width).bottom
        y += th.u(14)
        end = self.deal.rect.y - th.u(8)
        lines = [(ln, "body", T.TEXT) for ln in self.loading_words()]
        lines += [(ln, "small" if k else "body", T.TEXT_DIM) for k, ln in enumerate(commitment_lines(self.t, after=False))]
        for text, role, color in lines:
            for ln in D.wrap(th, text, width, role):
                if y + th.font(role).get_height() > end:
                    return
                y = D.text(surface, th, ln, (th.width // 2, y), role, color, "midtop", max_width=width).bottom + th.u(2)
            y += th.u(8)

    def model(self) -> dict[str, Any]:
        m = super().model()
        d = self.t.get("dealer", {})
        m.update(dealt=d.get("dealt"), total=d.get("total"), status=d.get("message"),
                 commitment=commitment_lines(self.t, after=False), loading=self.loading)
        return m
