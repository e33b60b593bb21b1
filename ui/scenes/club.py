"""Club night settings (behind the admin PIN, from Settings): the hub's address, the night,
this table and its credentials; Join and Leave; and how the link is doing: connected, results
waiting for the hub, the hub's last receipt, and what is wrong when it is refused (a bad
password, credentials that are not this table's, a hub nobody answers at, a certificate that is
not the club's). The settings live in ``<storage home>/club.toml`` (``device.club.table``); the
next game started on this table is a club game when its game is the night's."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pygame

from .. import draw as D
from .. import theme as T
from ..i18n import N_, _
from ..keyboard import KeyboardScene
from ..scene import Scene
from ..widgets import Button, Label, LabelledButton, ScrollArea, Widget

STATUS_TICK_MS = 500

FIELDS: list[tuple[str, str, int]] = [  # (setting, label, longest entry)
    ("host", "Club hub address", 60), ("port", "Port", 5), ("night", "Club night", 32),
    ("table", "Table", 32), ("user", "User (empty: the table)", 32), ("password", "Password", 64),
    ("ca", "CA certificate (TLS)", 120),
]


# the club hook's words (device.club.table.ClubTable.said), shown on the dealing screen
CLUB_WORDS = (
    N_("waiting for club night {night}'s description from the hub"),
    N_("not a club game: night {night} plays {game} for {players} players"),
    N_("waiting for the director to start round {round}"),
    N_("waiting for board {board} of round {round} from the club hub"),
    N_("club night {night}: round {round}, board {board} of {boards}"),
    N_("club night {night}: round {round}, board {board}"),
    N_("round {round} done: all {boards} boards played; the next round is a new game"),
    N_("round {round} done; the next round is a new game"),
    N_("round {round}: every deck the hub gave matches the commitment it published before the round"),
    N_("round {round}: the hub's deck for board {boards} is not the deck it committed to before the round"),
)


def club_words(said: tuple[str, dict[str, Any]]) -> str:
    """The club hook's words in the kiosk's language."""
    text, values = said
    return _(text).format(**values) if text else ""


def _label(key: str) -> str:
    return {"host": _("Club hub address"), "port": _("Port"), "night": _("Club night"), "table": _("Table"),
            "user": _("User (empty: the table)"), "password": _("Password"),
            "ca": _("CA certificate (TLS)")}[key]


def problem_words(kind: str | None, table: str, host: str, port: int) -> str:
    """The link's trouble in the kiosk's language, naming what is wrong."""
    if kind == "password":
        return _("Bad password: the club hub refused table {table}'s name or password.").format(table=table)
    if kind == "table":
        return _("Not authorised for this table: these credentials are not table {table}'s.").format(table=table)
    if kind == "unreachable":
        return _("Club hub unreachable at {where}: check the address and the network (trying again).").format(
            where=f"{host}:{port}")
    if kind == "tls":
        return _("The club hub's certificate is not trusted: check the CA certificate.")
    return _("The club hub refused this table.")


def _line(role: str, color: T.Color) -> Label:
    return Label("", role=role, color=color)


class ClubScene(Scene):
    name = "club"
    portrait_layout = True  # laid out for Touch Display 2's portrait screen too

    def __init__(self, app: Any) -> None:
        super().__init__(app)
        from trickref.device.club import table as CT

        self.CT = CT
        self.home = Path(app.settings.config.storage.home_dir())
        loaded = CT.load_settings(self.home)
        self.club = loaded.settings
        self.message = loaded.problem or ""
        self.link: Any = None
        if self.club.joined:
            self._open()

    # ------------------------------------------------------------------ the link
    def _open(self) -> None:
        try:
            self.link = self.CT.links.open(self.home, self.club)
        except (ValueError, OSError) as e:
            self.link = None
            self.message = _("Cannot join: {why}").format(why=e)

    def status(self) -> dict[str, Any]:
        """What the screen shows about the link (tests read it)."""
        if not self.club.joined:
            return {"state": "not joined"}
        if self.link is None:
            return {"state": "not connected", "problem": self.message}
        st = self.link.status()
        out = {"state": "connected" if st["connected"] else "not connected", "pending": st["pending"],
               "last_receipt": st["last_receipt"], "error_kind": st["error_kind"], "error": st["error"]}
        if st["error_kind"] and not st["connected"]:
            out["problem"] = problem_words(st["error_kind"], self.club.table, self.club.host, self.club.port)
        # the link's network thread adds rounds while this draws: work on copies (a dict copied
        # in one C call is whole; iterating the live one raised "dictionary changed size during
        # iteration", seen once in the suite)
        salts, seats = dict(self.link.salts), dict(self.link.seats)
        revealed = sorted(salts)  # the last round whose salts are out: its decks checked
        if revealed:
            out["fairness"] = self.CT.check_round(self.link, revealed[-1])
        upcoming = sorted(r for r in seats if r not in salts)
        if upcoming:  # the hub's seating of the next round (a movement): who sits where here
            out["seating"] = (upcoming[0], list(seats[upcoming[0]]))
        return out

    # ------------------------------------------------------------------ layout
    def layout(self) -> None:
        th = self.theme
        narrow = th.width < th.u(600)
        top = self.header_bottom(self._sub(), right=2 * th.pad if narrow else None) + th.u(4)
        self.field_buttons: dict[str, Button] = {}
        self.state_text = _line("body", T.ACCENT)
        self.problem_text = _line("small", T.BAD_TEXT)
        self.detail_text = _line("small", T.TEXT_DIM)
        self.pending_text = _line("small", T.TEXT_DIM)
        self.receipt_text = _line("small", T.TEXT_DIM)
        self.fair_text = _line("small", T.GOOD)
        self.seat_text = _line("small", T.TEXT)
        self._refresh()
        # the status first (on screen without scrolling: what is wrong must be seen), then only
        # the lines that say something; the settings below
        rows: list[tuple[int, Widget]] = [(th.u(34), self.state_text)]
        for w, h in ((self.problem_text, 28), (self.detail_text, 26), (self.pending_text, 28),
                     (self.receipt_text, 28), (self.fair_text, 28), (self.seat_text, 28)):
            if w.text:
                rows.append((th.u(h), w))
        self._shown_lines = self._filled()
        for key, _label_en, _n in FIELDS:
            b = Button(self._shown(key), self._editor(key), name=f"club {key}", role="small")
            b.enabled = not self.club.joined
            self.field_buttons[key] = b
            rows.append((LabelledButton.height(th), LabelledButton(_label(key), b)))
        self.area = ScrollArea(pygame.Rect(th.pad, top, th.width - 2 * th.pad, th.height - top - th.touch - 3 * th.pad))
        self.area.set_rows(rows)
        y = th.height - th.touch - th.pad
        w = th.u(180)
        self.join_btn = Button(_("Leave") if self.club.joined else _("Join"), self.toggle_join,
                               pygame.Rect(th.width - 2 * w - 3 * th.pad, y, w, th.touch),
                               name="Leave" if self.club.joined else "Join",
                               color=T.BUTTON if self.club.joined else T.BUTTON_ON)
        self.done = Button(_("Done"), self.close, pygame.Rect(th.width - w - 2 * th.pad, y, w, th.touch), name="Done")
        self.widgets = [self.area, self.join_btn, self.done]

    def _filled(self) -> tuple[bool, ...]:
        return tuple(bool(w.text) for w in (self.problem_text, self.detail_text, self.pending_text,
                                             self.receipt_text, self.fair_text, self.seat_text))

    def _shown(self, key: str) -> str:
        v = getattr(self.club, key)
        if key == "password":
            return "\u2022" * min(len(v), 12) if v else _("(none)")
        if key == "port":
            return str(v)
        return str(v) if v else _("(none)")

    def _editor(self, key: str) -> Callable[[], None]:
        return lambda: self.edit(key)

    def edit(self, key: str) -> None:
        n = next(m for k, _l, m in FIELDS if k == key)

        def done(text: str) -> None:
            text = text.strip()
            if key == "port":
                if not text.isdigit() or not 1 <= int(text) <= 65535:
                    self.message = _("the port is a number from 1 to 65535")
                    self.needs_redraw = True
                    return
                self.club = self.club.with_(port=int(text))
            elif key in ("night", "table", "user"):
                self.club = self.club.with_(**{key: text.lower()})
            else:
                self.club = self.club.with_(**{key: text})
            self.message = ""
            self.relayout()

        value = "" if key == "password" else str(getattr(self.club, key))
        kb = KeyboardScene(self.app, title=_label(key), text=value, on_done=done, max_len=n,
                           digits=key == "port", secret=key == "password")
        kb.shift = False
        self.app.push(kb)

    # ------------------------------------------------------------------ actions
    def toggle_join(self) -> None:
        if self.club.joined:
            self.leave()
        else:
            self.join()

    def join(self) -> None:
        bad = self.club.problems()
        if bad:
            self.message = _("Cannot join: {why}").format(why="; ".join(bad))
            self.needs_redraw = True
            return
        self.club = self.club.with_(joined=True)
        if not self._save():
            self.club = self.club.with_(joined=False)
            return
        self.message = ""
        self._open()
        self.relayout()

    def leave(self) -> None:
        self.club = self.club.with_(joined=False)
        if not self._save():
            self.club = self.club.with_(joined=True)
            return
        self.CT.links.close(self.home)  # results not yet acknowledged stay in the outbox
        self.link = None
        self.message = ""
        self.relayout()

    def _save(self) -> bool:
        try:
            self.CT.save_settings(self.home, self.club)
            return True
        except OSError as e:
            self.message = _("could not save: {error}").format(error=e)
            self.needs_redraw = True
            return False

    def close(self) -> None:
        self.app.go("settings")

    # ------------------------------------------------------------------ status
    @property
    def tick_ms(self) -> int | None:
        return STATUS_TICK_MS if self.club.joined else None

    def update(self, dt: float) -> None:
        if self._refresh():
            self.needs_redraw = True
            if self._filled() != self._shown_lines:  # a line came or went: rows again
                self.relayout()

    def _refresh(self) -> bool:
        """Status lines from the link; True when they changed."""
        st = self.status()
        if st["state"] == "not joined":
            state = _("Not joined to a club night")
        elif st["state"] == "connected":
            state = _("Connected to club night {night} as table {table}").format(night=self.club.night,
                                                                                 table=self.club.table)
        else:
            state = _("Not connected to the club hub")
        problem = st.get("problem") or self.message
        detail = st.get("error") or "" if problem and problem != self.message else ""
        pending = "" if "pending" not in st else _("Results waiting for the hub: {n}").format(n=st["pending"])
        receipt = ""
        if "last_receipt" in st:
            when = st["last_receipt"]
            receipt = _("Last receipt from the hub: {time}").format(time=time.strftime("%H:%M:%S", time.localtime(when))) \
                if when else _("Last receipt from the hub: none yet")
        fair = ""
        verdict = st.get("fairness")
        if verdict is not None:
            fair = club_words(verdict[1])
            self.fair_text.color = T.GOOD if verdict[0] else T.BAD_TEXT
        seating = ""
        if "seating" in st:
            r, names = st["seating"]
            seating = (_("Round {round} at this table: {names}").format(
                round=r + 1, names=", ".join(f"{i + 1}. {n}" for i, n in enumerate(names)))
                if names else _("Nobody plays at this table in round {round}").format(round=r + 1))
        new = (state, problem, detail, pending, receipt, fair, seating)
        old = (self.state_text.text, self.problem_text.text, self.detail_text.text, self.pending_text.text,
               self.receipt_text.text, self.fair_text.text, self.seat_text.text)
        self.state_text.text, self.problem_text.text, self.detail_text.text, self.pending_text.text, \
            self.receipt_text.text, self.fair_text.text, self.seat_text.text = new
        return new != old

    def draw_content(self, surface: Any) -> None:
        self._refresh()
        if self._filled() != self._shown_lines:
            self.relayout()  # drawn again at once with the status lines that say something
        th = self.theme
        self.title(surface, _("Club night"), self._sub(), right=2 * th.pad if th.width < th.u(600) else None)

    def _sub(self) -> str:
        return (_("the next game on this table plays the night's boards") if self.club.joined
                else _("join a club night: the director gives these settings"))

    def _sub_lines(self, sub: str | None, room: int) -> list[str]:
        return D.wrap(self.theme, sub, room, "small") if sub else []  # as many lines as it takes

    def model(self) -> dict[str, Any]:
        m = super().model()
        m.update(club={k: getattr(self.club, k) for k in ("joined", "host", "port", "night", "table", "user", "ca")},
                 status=self.status(), lines=[self.state_text.text, self.problem_text.text, self.detail_text.text,
                                              self.pending_text.text, self.receipt_text.text, self.fair_text.text,
                                              self.seat_text.text])
        return m
