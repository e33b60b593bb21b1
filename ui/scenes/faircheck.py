"""After a hand: its fair-dealing check in words and a QR code a phone can check it with.

Reached from the hand summary ("Check the deal"); Back returns to it. The words are the kiosk's
own check (ui.fairshow.check hashes the deck and salt again); the QR code holds the verify
page's address with the hand's check code after ``#`` (the table's own page when it serves one,
``App.verify_address``), or the bare check code for a saved copy of the page. The code is as
large as the screen allows in whole pixels per module, beside the words on a wide screen and
above them on a portrait one.
"""

from __future__ import annotations

from typing import Any

import pygame

from .. import draw as D
from .. import qr
from .. import theme as T
from ..fairshow import FairCheck, check, verdict
from ..i18n import _, current
from ..widgets import Button
from .gamebase import GameScene


class FairCheckScene(GameScene):
    name = "faircheck"
    portrait_layout = True
    show_undo = False
    pauses_game = True

    def __init__(self, app: Any) -> None:
        super().__init__(app)
        self.fc: FairCheck | None = None
        self.qr_text = ""
        self.qr_rect: Any = None
        self.lines: list[tuple[str, str, T.Color]] = []

    def layout(self) -> None:
        th = self.theme
        w = max(th.u(150), th.font("body").size(_("Back"))[0] + th.u(24))
        self.back = Button(_("Back"), self.go_back, pygame.Rect(th.width - w - th.pad, th.u(3), w, th.touch), name="Back")
        self.widgets = [self.back]

    def go_back(self) -> None:
        self.app.route()

    @property
    def address(self) -> str | None:
        return getattr(self.app, "verify_address", None)

    def words(self, fc: FairCheck) -> list[tuple[str, str, T.Color]]:
        """(text, role, colour) of each paragraph, in order."""
        ok = fc.matches
        out = [(verdict(fc, with_code=False), "body", T.GOOD if ok else T.BAD_TEXT),
               (_("Commitment shown before the deal: {code}").format(code=fc.short), "small", T.TEXT),
               (_("Chain of the plays after this hand: {code}").format(code=fc.chain_short), "small", T.TEXT)]
        if self.address:
            out.append((_("Scan the code with a phone's camera: the check page opens and checks this deal on the "
                          "phone itself. The data stays on the phone."), "small", T.TEXT))
            out.append((_("Page: {address}").format(address=self.address), "small", T.TEXT))
        else:
            out.append((_("Scan the code with a phone, then paste its text into the trickref verify page (saved "
                          "from the table or the club's page): it checks this deal on the phone itself."), "small",
                        T.TEXT))
        out.append((_("The phone keeps what it checked: open the game record on the page later and any play "
                      "changed since shows up."), "small", T.TEXT_DIM))
        return out

    def _wrap(self, width: int) -> tuple[list[tuple[str, str, T.Color, bool]], int]:
        """The paragraphs' lines (text, role, colour, first of its paragraph) and their height."""
        th = self.theme
        rows: list[tuple[str, str, T.Color, bool]] = []
        h = 0
        for text, role, colour in self.lines:
            for k, ln in enumerate(D.wrap(th, text, width, role)):
                if k == 0 and rows:
                    h += self.gap
                rows.append((ln, role, colour, k == 0))
                h += th.font(role).get_linesize()
        return rows, h

    def heading(self, surface: Any, text: str) -> int:
        """The title left of Back, on two lines rather than shrunk (a narrow screen, large
        text, a long language); its bottom."""
        th = self.theme
        room = self.back.rect.x - 3 * th.pad
        for role in ("title", "large", "body"):
            lines = D.wrap(th, text, room, role)
            if len(lines) <= 2 and all(th.font(role, True).size(ln)[0] <= room for ln in lines):
                break
        y = th.pad
        for ln in lines:
            D.text(surface, th, ln, (2 * th.pad, y), role, T.TEXT, bold=True, max_width=room)
            y += th.font(role, True).get_linesize()
        return y + th.pad

    def least_module(self) -> int:
        """The least module in whole pixels that meets the layout rule on this screen."""
        import math

        from .. import layoutcheck as L

        size = (self.theme.width, self.theme.height)
        return max(2, math.ceil(L.MIN_QR_MODULE_MM * L.display_for(size).px_per_mm(size)))

    @property
    def gap(self) -> int:
        return self.theme.u(8)

    def draw_content(self, surface: Any) -> None:
        th = self.theme
        self.fc = fc = check(self.t, current())
        top = self.heading(surface, _("Check the deal") if fc is None else
                           _("Check the deal: hand {hand}").format(hand=fc.hand))
        top = max(top, self.back.rect.bottom + th.pad)
        if fc is None:
            D.text(surface, th, _("No hand is over yet."), (2 * th.pad, top), "body", T.TEXT_DIM,
                   max_width=th.width - 4 * th.pad)
            return
        self.lines = self.words(fc)
        self.qr_text = fc.qr_text(self.address)
        n = qr.modules(self.qr_text)
        bottom = th.height - th.pad
        wide = th.width > th.height
        least = self.least_module()
        # the code as large as whole modules allow; smaller (not under the layout rule's least
        # module) while the words do not fit; then the last words (the tips) left out
        side = min(bottom - top, th.width // 2) if wide else th.width - 4 * th.pad
        side = n * qr.module_px(self.qr_text, side)
        while True:
            text_w = th.width - side - 5 * th.pad if wide else th.width - 4 * th.pad
            _rows, h = self._wrap(text_w)
            need = top + h if wide else top + side + th.pad + h
            if need <= bottom:
                break
            if side - n >= least * n:
                side -= n
            elif len(self.lines) > 3:
                self.lines.pop()
            else:
                break
        if wide:  # the code at the right, the words at its left
            self.qr_rect = qr.draw(surface, self.qr_text, pygame.Rect(th.width - side - 2 * th.pad, top, side, side))
            x, text_top = 2 * th.pad, top
        else:  # portrait: the code under the title, the words under it
            self.qr_rect = qr.draw(surface, self.qr_text, pygame.Rect((th.width - side) // 2, top, side, side))
            x, text_top = 2 * th.pad, self.qr_rect.bottom + th.pad
        text_w = (self.qr_rect.x - 3 * th.pad) if th.width > th.height else th.width - 4 * th.pad
        rows, _h = self._wrap(text_w)
        y = text_top
        for k, (ln, role, colour, first) in enumerate(rows):
            if first and k:
                y += self.gap
            D.text(surface, th, ln, (x, y), role, colour, max_width=text_w)
            y += th.font(role).get_linesize()

    def model(self) -> dict[str, Any]:
        m = super().model()
        m["qr"] = self.qr_text
        m["qr_rect"] = tuple(self.qr_rect) if self.qr_rect is not None else None
        m["matches"] = self.fc.matches if self.fc else None
        m["words"] = [t for t, _r, _c in self.lines]
        return m
