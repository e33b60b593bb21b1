"""A dealer fault: what happened and what to do about it, then Resume."""

from __future__ import annotations

from typing import Any

import pygame

from .. import draw as D
from .. import theme as T
from ..faults import FAULTS, STORAGE
from ..i18n import _, current
from ..referee_words import card_words, translate, understood
from ..widgets import Button
from .gamebase import GameScene


class FaultScene(GameScene):
    name = "fault"
    portrait_layout = True  # stacked on a portrait screen (ui.scene)
    show_undo = False

    def layout(self) -> None:
        th = self.theme
        self.widgets = self.top_buttons()
        w = th.u(260)
        self.resume = Button(_("Resume"), self.do_resume, name="Resume", rect= pygame.Rect(th.width - w - 2 * th.pad, th.height - th.u(72) - th.pad,
                             w, th.u(72)), color=T.BUTTON_ON, role="large")
        self.widgets.append(self.resume)

    def do_resume(self) -> None:
        self.session.table.clear_fault()
        self.app.route()

    def info(self) -> dict[str, str]:
        storage = self.t.get("storage")
        if storage:  # the journal cannot be written: before any dealer fault (nothing is saved)
            return storage_info(storage)
        d = self.t.get("dealer", {})
        known = FAULTS.get(d.get("kind") or "")
        if known is not None:
            out = {k: _(v) for k, v in known.items()}
            if d.get("fault"):  # the referee's words: what the dealer said, and what follows Resume
                words = str(d["fault"])
                # (the shared screen's words name only cards everyone may see, such as Hearts'
                # set-aside 2C and 2D: named as the kiosk draws cards, 2\u2663, in every language)
                if current() == "en" or understood(words):  # said whole in the kiosk's language
                    out["what"] = card_words(translate(words))
                else:  # partly in English (a dealer's detail the kiosk does not know): below, as its details
                    out["details"] = card_words(translate(words))
            return out
        # the referee's fault text says what happened and what to do, in one paragraph
        return {"title": _("The dealer needs attention"),
                "what": card_words(translate(str(d.get("fault")))) if d.get("fault") else _("The dealer stopped."),
                "fix": _("Fix what the message says (clear a jam, reseat the dealer's cable, refill the "
                         "feeder), then tap Resume.")}

    def draw_content(self, surface: Any) -> None:
        th = self.theme
        self.draw_bar(surface)
        info = self.info()
        top = self.bar_height + th.pad
        box = pygame.Rect(2 * th.pad, top, th.width - 4 * th.pad, th.height - top - th.u(90))
        D.panel(surface, box, (70, 30, 30), th.u(10), border=T.BAD)
        D.text(surface, th, info["title"], (box.x + 2 * th.pad, box.y + th.pad), "title", T.TEXT, bold=True,
               max_width=box.width - 4 * th.pad)
        y = box.y + th.u(60)
        width = box.width - 4 * th.pad
        sections = [(_("What happened"), info["what"]), (_("What to do"), info["fix"])]
        # the body size where it fits, else the small one (a long translated paragraph at 800x480)
        role = "body"
        for role in ("body", "small"):
            need = sum(th.u(24) + th.u(12) + len(D.wrap(th, text, width, role)) * th.font(role).get_height()
                       for _head, text in sections)
            if y + need <= box.bottom - th.pad:
                break
        for head, text in sections:
            D.text(surface, th, head, (box.x + 2 * th.pad, y), "small", T.ACCENT)
            y += th.u(24)
            for ln in D.wrap(th, text, width, role):
                y = D.text(surface, th, ln, (box.x + 2 * th.pad, y), role, T.TEXT).bottom
            y += th.u(12)
        y -= th.u(12)
        if info.get("details"):
            y += th.u(8)
            for ln in D.wrap(th, _("The dealer's words: {words}").format(words=info["details"]), box.width - 4 * th.pad,
                             "small"):
                if y + th.font("small").get_height() > box.bottom - th.pad:
                    break
                y = D.text(surface, th, ln, (box.x + 2 * th.pad, y), "small", T.TEXT_DIM).bottom

    def model(self) -> dict[str, Any]:
        m = super().model()
        m.update(self.info())
        return m


def storage_info(s: dict[str, Any]) -> dict[str, str]:
    """The fault screen's words for a journal the table cannot write (ui.faults.STORAGE)."""
    return {"title": _(STORAGE["title"]),
            "what": _(STORAGE["what"]).format(path=s["path"], reason=s["reason"], mount=s["mount"],
                                              free=s["free"], total=s["total"]),
            "fix": _(STORAGE["fix_full"] if s.get("full") else STORAGE["fix_other"])}
