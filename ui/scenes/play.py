"""The table in play: the trick and who played what, whose turn, trump and broken markers,
"taken / bid" beside each name, German Whist's face-up stock card, cancelled tricks waiting,
the last trick on a tap; in simulated mode the revealed player's hand, to play by tapping.

The same scene handles the other card-choosing phases of a hand: passing (select 3 cards),
spades-2p's draw (keep / discard the shown card, Double Nil) and Double Nil exchange, and the
moon shooter's choice.
"""

from __future__ import annotations

from typing import Any

import pygame

from trickref.engine import cards as C
from trickref.engine.actions import Action

from .. import card_art as A
from .. import draw as D
from .. import gameinfo as GI
from .. import tableview as TV
from .. import theme as T
from ..i18n import N_, _, ngettext
from ..referee_words import translate
from ..widgets import Button
from .gamebase import GameScene


class PlayScene(GameScene):
    name = "play"
    portrait_layout = True  # stacked on a portrait screen (ui.scene)
    fit_bar = True  # five buttons (Review beside Last trick): each only as wide as its label
    shows_notice = True

    def __init__(self, app: Any) -> None:
        super().__init__(app)
        self.hand = TV.HandView()
        self.review = False
        self.shown: dict[str, Any] = {}
        self.error = ""
        self.action_buttons: list[Button] = []
        self._choices: dict[str, Button] = {}  # the choice buttons by name, kept across frames
        self._card_down: tuple[int, tuple[int, int]] | None = None  # (card, where) a finger pressed
        self._dismiss = False  # a tap that ends the last-trick review is under way

    # ------------------------------------------------------------------ layout
    def layout(self) -> None:
        th = self.theme
        self.widgets = self.top_buttons()
        self.last_btn = next(b for b in self.bar_buttons if b.name == "Last trick")
        self._hand_h = th.card_height("hand") + th.u(22)

    @property
    def acting_seat(self) -> int | None:
        """The revealed seat when it is on turn (simulated mode), else None."""
        seat = TV.view_seat(self.view)
        if seat is None or seat not in self.t.get("turn", []) or seat in self.t.get("bots", []):
            return None
        return seat

    def extra_buttons(self) -> list[tuple[str, Any]]:
        return [(N_("Last trick"), self.toggle_review), (N_("Review"), lambda: self.app.go("review"))]

    def other_labels(self, name: str) -> list[str]:
        return ["Back"] if name == "Last trick" else []

    def regions(self) -> tuple[pygame.Rect, pygame.Rect, pygame.Rect]:
        """(table area, trick area, hand area)."""
        th = self.theme
        top = self.content_top
        n = int(self.g.get("players", 4))
        # from 7 players on (two rows of trick), with large text and while a drawn card and its
        # buttons need the room, the hand is lower
        compact = n >= 7 or th.large_text or bool(TV.presented(self.view))
        hand_h = (th.u(80) + th.u(20) if compact else self._hand_h) if TV.view_hand(self.view) is not None else 0
        table = pygame.Rect(th.pad, top + th.u(4), th.width - 2 * th.pad, th.height - top - hand_h - th.pad - th.u(4))
        pw, ph = TV.plate_size(th, n, table, TV.plate_need(th, self.g, self.t))
        inset_x = pw + th.pad if n > 2 else th.pad
        trick = table.inflate(-2 * inset_x, -2 * (ph + th.u(4)))
        hand = pygame.Rect(th.pad, th.height - hand_h, th.width - 2 * th.pad, hand_h - th.u(4))
        return table, trick, hand

    # ------------------------------------------------------------------ actions
    def toggle_review(self) -> None:
        self.review = not self.review

    def legal(self) -> list[Action]:
        s = self.acting_seat
        return [] if s is None else self.session.table.legal(s)

    def submit(self, action: Action) -> None:
        seat = self.acting_seat
        if seat is None:
            return
        try:
            self.session.submit(seat, action)
            self.error = ""
        except ValueError as e:  # refused: the referee's sound comes from the table host
            self.error = str(e)
        self.hand.selected = []
        self.app.route()

    def tap_card(self, i: int) -> None:
        legal = self.legal()
        if not legal:
            return
        kind = legal[0].kind
        c = self.hand.cards[i]
        if kind == "play":
            if c in self.hand.playable:
                self.submit(A_play(c))
            else:
                seat = self.acting_seat
                self.error = "" if seat is None else (self.session.table.check(seat, A_play(c)) or "")
                self.app.sounds.play("error")
        elif kind in ("pass", "exchange"):
            limit = self.select_limit(legal)
            self.error = ""
            if i in self.hand.selected:
                self.hand.selected.remove(i)
            elif len(self.hand.selected) < limit:
                self.hand.selected.append(i)
            else:  # a card more than the pass takes: say so, rather than do nothing
                self.error = ngettext("{n} card is chosen already: tap it to put it back first",
                                      "{n} cards are chosen already: tap one to put it back first",
                                      limit).format(n=limit)
                self.app.sounds.play("error")

    def select_limit(self, legal: list[Action]) -> int:
        if legal[0].kind == "pass":
            return len(legal[0].value)
        return 3

    def confirm_selection(self) -> None:
        legal = self.legal()
        if not legal:
            return
        cards = [self.hand.cards[i] for i in self.hand.selected]
        if legal[0].kind == "pass":
            self.submit(Action("pass", tuple(sorted(cards))))
        else:
            self.submit(Action("exchange", (tuple(sorted(cards)), None)))

    def handle(self, event: Any) -> None:
        self._ensure_layout()
        press = event.type == pygame.MOUSEBUTTONDOWN and event.button == 1
        release = event.type == pygame.MOUSEBUTTONUP and event.button == 1
        if self.review and (press or release):
            # while the last trick shows, a tap anywhere but on the bar's buttons puts the table
            # back: the whole tap (its press and its release) is that, and nothing else
            if press and not any(b.visible and b.rect.collidepoint(event.pos) for b in self.bar_buttons):
                self._dismiss = True
                return
            if release and self._dismiss:
                self._dismiss = False
                self.review = False
                self.needs_redraw = True
                return
        if press:
            self._dismiss = False
            self._card_down = None
        for w in [*self.action_buttons, *self.widgets]:
            if w.visible and w.handle(event):
                self.needs_redraw = True
                return
        if TV.view_hand(self.view) is None:
            return
        if press:
            i = self.hand.hit(event.pos)
            self._card_down = None if i is None else (i, tuple(event.pos))
        elif release and self._card_down is not None:
            # the card pressed, if the finger lifts on it or has drifted only a little (the
            # cards overlap: a few pixels can cross into the next one)
            i, (x0, y0) = self._card_down
            self._card_down = None
            slop = self.theme.u(12)
            if self.hand.hit(event.pos) == i or (abs(event.pos[0] - x0) <= slop and abs(event.pos[1] - y0) <= slop):
                if i < len(self.hand.cards):
                    self.tap_card(i)
                    self.needs_redraw = True

    def tap_card_named(self, name: str) -> None:
        """Tap the card called ``name`` in the hand (tests)."""
        self.refresh()
        self._sync_hand()
        self.tap_card(self.hand.cards.index(C.parse(name)))

    # ------------------------------------------------------------------ drawing
    def _sync_hand(self) -> None:
        self.hand.set(TV.view_hand(self.view) or [])
        legal = self.legal()
        self.hand.playable = {a.value for a in legal if a.kind == "play"}

    def _action_specs(self) -> list[tuple[str, str, Any, T.Color]]:
        """The choices the acting player has besides tapping a card: (the button's English
        name, which tests tap; its words in the kiosk's language; action; colour)."""
        legal = self.legal()
        specs: list[tuple[str, str, Any, T.Color]] = []
        if not legal:
            return specs
        kinds = {a.kind for a in legal}
        if "pass" in kinds:
            need = len(legal[0].value)
            have = len(self.hand.selected)
            if have == need:
                specs.append((f"Pass {need} cards", _("Pass {n} cards").format(n=need), self.confirm_selection,
                              T.BUTTON_ON))
            else:
                specs.append((f"Select {need - have} more", _("Select {n} more").format(n=need - have),
                              self.confirm_selection, T.BUTTON_OFF))
        if "exchange" in kinds:
            k = len(self.hand.selected)
            specs.append((f"Exchange {k} card{'s' if k != 1 else ''}",
                          ngettext("Exchange {n} card", "Exchange {n} cards", k).format(n=k), self.confirm_selection,
                          T.BUTTON_ON))
        if "draw" in kinds:
            specs.append(("Keep it", _("Keep it"), lambda: self.submit(Action("draw", "keep")), T.BUTTON_ON))
            specs.append(("Discard it", _("Discard it"), lambda: self.submit(Action("draw", "discard")), T.BUTTON))
        if "double_nil" in kinds:
            specs.append(("Double Nil", _("Double Nil"), self.ask_double_nil, T.BAD))
        if "moon" in kinds:
            o = self.g.get("options", {})
            me, others = f"{o.get('moon_self', -26):+d}", f"{o.get('moon_others', 26):+d}"
            specs.append((f"Me {me}", _("Me {points}").format(points=me), lambda: self.ask_moon("self", me),
                          T.BUTTON_ON))
            specs.append((f"Others {others}", _("Others {points}").format(points=others),
                          lambda: self.ask_moon("others", others), T.BUTTON))
        return specs

    # one tap must not make a choice that binds the whole hand: these ask first
    def ask_double_nil(self) -> None:
        from .confirm import ConfirmScene

        self.app.push(ConfirmScene(
            self.app, _("Bid Double Nil?"),
            _("Your bid is then fixed: you must take no trick this hand (+200 if you take none, -200 if you take "
              "any). After the draw you may exchange up to three cards."),
            yes=_("Double Nil"), no=N_("Back"), on_yes=lambda: self.submit(Action("double_nil", True))))

    def ask_moon(self, choice: str, points: str) -> None:
        from .confirm import ConfirmScene

        if choice == "self":
            question = _("You shot the moon: score {points} yourself?").format(points=points)
            detail = _("Every other player scores 0 for this hand.")
            yes = _("Me {points}").format(points=points)
        else:
            question = _("You shot the moon: every other player scores {points}?").format(points=points)
            detail = _("You score 0 for this hand.")
            yes = _("Others {points}").format(points=points)
        self.app.push(ConfirmScene(self.app, question, detail, yes=yes, no=N_("Back"),
                                   on_yes=lambda: self.submit(Action("moon", choice))))

    def _choice(self, name: str, text: str, fn: Any, rect: pygame.Rect, color: T.Color) -> Button:
        """The choice button called ``name``: the same object from frame to frame (its words,
        action, place and colour brought up to date), so a finger holding it across frames holds
        one button (the scene also restores a press by name: ui.scene)."""
        b = self._choices.get(name)
        if b is None:
            b = self._choices[name] = Button(text, fn, rect, color=color, name=name)
        else:
            b.text, b.on_click, b.rect, b.color = text, fn, pygame.Rect(rect), color
        b.visible = b.enabled = True
        return b

    def _action_buttons(self, trick_area: pygame.Rect) -> list[Button]:
        th = self.theme
        out: list[Button] = []
        specs = self._action_specs()
        if not specs:
            return out
        if TV.presented(self.view):
            # the draw: buttons to the right of the shown card, stacked; two to a row when a
            # stack would reach the plate below (Double Nil beside Keep it / Discard it at 800x480)
            x = trick_area.centerx + th.u(60)
            y = trick_area.y + th.u(30)
            room_w = trick_area.right - x
            cols = 1 if y + len(specs) * (th.touch + th.pad) - th.pad <= trick_area.bottom else 2
            bw = th.u(190) if cols == 1 else min(th.u(190), (room_w - th.pad) // 2)
            for i, (name, text, fn, color) in enumerate(specs):
                r, c = divmod(i, cols)
                out.append(self._choice(name, text, fn, pygame.Rect(x + c * (bw + th.pad), y + r * (th.touch + th.pad),
                                                                    bw, th.touch), color))
            return out
        bw = min(th.u(240 if len(specs) == 1 else 190), (trick_area.width - th.pad * (len(specs) - 1)) // max(1, len(specs)))
        total = len(specs) * bw + (len(specs) - 1) * th.pad
        x = trick_area.centerx - total // 2
        y = trick_area.bottom - th.touch
        for name, text, fn, color in specs:
            out.append(self._choice(name, text, fn, pygame.Rect(x, y, bw, th.touch), color))
            x += bw + th.pad
        return out

    @property
    def cell_mode(self) -> bool:
        """The table as a grid of seat cells, each with the card its seat played (tableview's
        seat cells): on a portrait screen, and from 7 players on, where a trick drawn between
        plates around the edge would leave its cards too small."""
        return self.theme.portrait or int(self.g.get("players", 4)) >= 7

    def draw_content(self, surface: Any) -> None:
        self.strip_inset = self.strip_min_h = 0  # (the top row beside the strip: _top_row_beside_strip)
        self.draw_bar(surface)
        if self.cell_mode:
            self._draw_cells(surface)
        else:
            self._draw_around(surface)

    def _trick_shown(self) -> tuple[list[list[Any]], int | None, bool]:
        """(the trick to show, its winner when finished, holding or reviewing): the trick in
        progress, or the one just finished (held for a moment), or the last one under review."""
        g = self.g
        trick = g.get("trick") or []
        winner = None
        holding = self.session.hold > 0 and not trick
        if (self.review or holding) and g.get("last_trick"):
            trick = g["last_trick"]
            winner = g.get("last_trick_winner")
        return trick, winner, holding

    def _draw_hand(self, surface: Any, hand_area: pygame.Rect, shown: dict[str, Any], rows: int = 1) -> None:
        th, g = self.theme, self.g
        own = TV.view_hand(self.view)
        if own is None:
            return
        self._sync_hand()
        self.hand.place(th, hand_area, rows)
        self.hand.received = {TV.card(c) for c in g.get("received_cards") or []} if g.get("phase") != "pass" else set()
        self.hand.draw(surface, th, dim_unplayable=bool(self.hand.playable))
        shown["hand"] = own
        shown["received_marked"] = sorted(TV.C.NAMES[c] for c in self.hand.received if c in self.hand.cards)
        shown["hand_rects"] = [tuple(r) for r in self.hand.rects]

    def _draw_cells(self, surface: Any) -> None:
        """The stacked layout: the message under the bar, the seat cells (the trick in them),
        the choices and the shown card, the hand at the bottom (on two rows when one would
        leave too narrow a strip of each card)."""
        th = self.theme
        g, t = self.g, self.t
        turn = set(t.get("turn", []))
        trick, winner, holding = self._trick_shown()
        reviewing = bool(self.review or holding)
        shown: dict[str, Any] = {"plates": {}, "trick": [(s, c) for s, c in trick], "face_up": [],
                                 "turn": sorted(turn), "reviewing": reviewing}
        width = th.width - 2 * th.pad
        # the message: whose turn, or who won (a refused card's reason takes its place, in red);
        # under the bar, or in landscape beside the hand (the cells then get the room)
        msg = self._message(turn, reviewing, winner)
        shown["message"] = msg
        words, colour = (self.error, T.BAD_TEXT) if self.error else (msg, T.ACCENT)
        own = TV.view_hand(self.view)
        side = not th.portrait and own is not None
        line_h = th.font("body").get_height() + th.u(5)  # (an accent reaches above a line's box)
        small_h = th.font("small").get_height() + th.u(3)
        top = max(self.content_top, self.strip_bottom()) + th.u(4)  # (below the table's words strip)
        box = pygame.Rect(th.pad, top, width, 0)  # where the message (and the trick's marks) go
        # from the bottom up: the hand, then the choices and the shown card
        bottom = th.height - th.pad
        rows = 1
        hand_area = None
        if own is not None:
            lift = th.u(14)
            if th.portrait:
                card_hh = TV.stacked_hand_card(th, int(g.get("players", 0)))
                rows = TV.hand_rows(th, len(own), width, card_hh)
                hand_h = card_hh + lift + (TV.hand_row_rise(th, card_hh) if rows > 1 else 0)
            else:
                hand_h = th.u(84) + lift
            hand_w = width - (th.u(290) + th.pad if side else 0)
            hand_area = pygame.Rect(th.pad, th.height - th.u(4) - hand_h, hand_w, hand_h)
            bottom = hand_area.y - th.u(4)
            if side:
                box = pygame.Rect(hand_area.right + th.pad, hand_area.y, width - hand_w - th.pad, hand_h)
        lines = D.wrap(th, words, box.width, "body")[:2] if words else []
        if not side:
            top += max(1, len(lines)) * line_h + th.u(4)
        specs = self._action_specs() if not holding else []
        card = TV.presented(self.view) if self.acting_seat is not None else None
        stock = g.get("stock_card") if GI.stock(g) == "turn-up" else None
        strip_h = 0
        big = th.card_height("table")
        if card:
            strip_h = max(big, len(specs) * th.touch + (len(specs) - 1) * th.pad)
        elif specs or stock:
            stock_h = th.card_height("small") + th.u(6) + th.font("small").get_height() if stock else 0
            strip_h = max(th.touch if specs else 0, stock_h)
        strip = pygame.Rect(th.pad, bottom - strip_h, width, strip_h)
        grid_bottom = strip.y - th.u(6) if strip_h else bottom
        area = pygame.Rect(th.pad, top, width, grid_bottom - top)
        leader, winning = TV.trick_leader_and_winner(g, trick)
        if winner is not None:
            winning = winner
        cancelled = TV.cancelled_cards(g, trick)
        cells, card_h = TV.seat_grid(th, g, t, area)
        avail, need, tag_need = TV.cell_needs(th, g, t, cells, card_h)
        tag_line = avail >= need + tag_need
        total_line = avail >= need + 1 + (tag_need if tag_line and trick else 0)
        marks = D.wrap(th, TV.trick_legend(g, leader, winning, cancelled, reviewing), box.width, "small")[:2] \
            if trick and not tag_line else []
        if marks and not side:  # the marks over the cells
            area = pygame.Rect(th.pad, top + len(marks) * small_h, width, grid_bottom - top - len(marks) * small_h)
            cells, card_h = TV.seat_grid(th, g, t, area)
        y = box.y
        if side:  # the words in the middle of their box beside the hand
            y = box.centery - (len(lines) * line_h + len(marks) * small_h) // 2
        first = y
        for ln in lines:
            D.text(surface, th, ln, (box.centerx, y), "body", colour, "midtop", bold=bool(self.error), max_width=box.width)
            y += line_h
        if self.error:
            shown["error"], shown["error_rect"] = self.error, (box.x, first, box.width, max(1, y - first))
        if not side:
            y = top
        for ln in marks:
            D.text(surface, th, ln, (box.centerx, y), "small", T.TEXT_DIM, "midtop", max_width=box.width)
            y += small_h
        played = {int(s): str(c) for s, c in trick}
        for s, r in enumerate(cells):
            shown["plates"][s] = TV.draw_seat_cell(
                surface, th, g, t, s, r, card_h, active=s in turn, played=played.get(s), leader=leader,
                winning=winning, cancelled=cancelled, complete=reviewing, tag_line=tag_line, total_line=total_line)
        shown["plate_rects"] = [tuple(r) for r in cells]
        shown["trick_leader"], shown["trick_winning"] = leader, winning
        shown["cancelled"] = sorted(cancelled)
        # the choices, German Whist's stock, the spades-2p drawn card
        x = strip.x
        if stock:
            sh = th.card_height("small")
            A.draw_card(surface, None, (x + th.u(6), strip.y + th.u(4)), sh, th)
            A.draw_card(surface, TV.card(stock), (x, strip.y), sh, th)
            shown["face_up"].append(stock)
            D.text(surface, th, _("stock {n}").format(n=g.get("stock_size", 0)), (x, strip.y + sh + th.u(6)),
                   "small", T.TEXT_DIM)
            x += A.card_size(sh)[0] + th.u(6) + th.u(16)
        self.action_buttons = []
        if card:
            cr = A.draw_card(surface, TV.card(card), (x, strip.y), big, th, highlight=True)
            shown["drawn_card"] = card
            x = cr.right + th.u(16)
            bw = min(th.u(220), strip.right - x)
            y = strip.y
            for name, text, fn, color in specs:
                self.action_buttons.append(self._choice(name, text, fn, pygame.Rect(x, y, bw, th.touch), color))
                y += th.touch + th.pad
        elif specs:
            room = strip.right - x
            bw = min(th.u(240 if len(specs) == 1 else 200), (room - th.pad * (len(specs) - 1)) // len(specs))
            total = len(specs) * bw + (len(specs) - 1) * th.pad
            bx = x + (room - total) // 2
            for name, text, fn, color in specs:
                self.action_buttons.append(self._choice(name, text, fn, pygame.Rect(bx, strip.y + strip_h - th.touch,
                                                                                    bw, th.touch), color))
                bx += bw + th.pad
        for b in self.action_buttons:
            b.draw(surface, th)
        self.last_btn.enabled = bool(g.get("last_trick")) and not holding
        self.last_btn.text = _("Back") if self.review else _("Last trick")
        if hand_area is not None:
            self._draw_hand(surface, hand_area, shown, rows)
        self.shown = shown

    def _top_row_beside_strip(self, plates: list[Any], table: Any) -> tuple[list[Any], set[int]]:
        """While the table's words strip under the bar is shown (a refusal, the referee's
        notice), it would hide the top row of plates (the strip hid the north plate): those
        plates go on one line each, stacked at the strip's right end, the strip narrower by
        their width and at least as tall as they need. The trick and the other plates stay
        where they were. (plates, the seats drawn on one line.)"""
        th = self.theme
        top = [s for s, r in enumerate(plates) if r.y == table.y]
        if not top or not (self._strip_lines("refusal") or self._strip_lines("notice")):
            return plates, set()
        h, gap = TV.plate_line_height(th), th.u(4)
        w = min(plates[top[0]].width, th.u(200))
        self.strip_inset = w + th.pad
        self.strip_min_h = len(top) * h + (len(top) - 1) * gap + th.u(8)
        x = th.width - 2 * th.pad - w
        y = self.bar_height + th.u(4) + th.u(4)
        out = list(plates)
        for j, s in enumerate(top):
            out[s] = pygame.Rect(x, y + j * (h + gap), w, h)
        return out, set(top)

    def _draw_around(self, surface: Any) -> None:
        """The table as the players sit around it: plates on the edges, the trick between them
        (landscape, up to 6 players)."""
        th = self.theme
        g, t = self.g, self.t
        table, trick_area, hand_area = self.regions()
        n = int(g.get("players", 0))
        seat = TV.view_seat(self.view)
        bottom = seat if seat is not None else 0
        turn = set(t.get("turn", []))
        plates = TV.plate_rects(th, n, table, bottom, TV.plate_need(th, g, t))
        plates, one_line = self._top_row_beside_strip(plates, table)
        shown: dict[str, Any] = {"plates": {}, "trick": [], "face_up": [], "turn": sorted(turn)}
        for s, r in enumerate(plates):
            draw = TV.draw_plate_line if s in one_line else TV.draw_plate
            shown["plates"][s] = draw(surface, th, g, t, s, r, active=s in turn)

        trick, winner, holding = self._trick_shown()
        # a message above the trick: whose turn, or who won; a card refused takes its place (in
        # red, between the plates, over nothing: the turn is the player's own anyway); on two
        # lines when one would shrink it
        msg = self._message(turn, holding or self.review, winner)
        shown["message"] = msg
        words = self.error or msg
        msg_h = th.font("body").get_height() + th.u(5)  # (an accent reaches above a line's box)
        # one line, then two, as wide as the table where no side plate is beside them
        lines: list[str] = []
        msg_w = trick_area.width
        # the table's words under the bar (a refusal, the referee's notice) reach over the top
        # of the table: the message goes below them (a two-line notice hid whose turn it is)
        shift = max(0, self.strip_bottom() + th.u(2) - trick_area.y)
        for k in (1, 2):
            band = pygame.Rect(table.x, trick_area.y + shift - th.u(2), table.width, k * msg_h + th.u(4))
            msg_w = table.width if not any(band.colliderect(r) for r in plates) else trick_area.width
            lines = D.wrap(th, words, msg_w, "body") if words else []
            if len(lines) <= k:
                break
        if len(lines) > 2:
            lines = [words]
        extra = max(0, len(lines) - 1) * msg_h + shift
        below = pygame.Rect(trick_area.x, trick_area.y + extra, trick_area.width, trick_area.height - extra)
        self._draw_extras(surface, below, table, shown)
        gap = msg_h + extra + th.u(4)  # (an accent can reach above a line's box: a little air)
        cards_area = pygame.Rect(trick_area.x, trick_area.y + gap, trick_area.width, trick_area.height - gap)
        marks = TV.draw_trick(surface, th, g, trick, cards_area, winner, complete=bool(self.review or holding))
        shown["trick"] = [(s, c) for s, c in trick]
        shown["reviewing"] = bool(self.review or holding)
        shown["trick_leader"], shown["trick_winning"] = marks["leader"], marks["winning"]
        shown["cancelled"] = marks["cancelled"]
        shown["plate_rects"] = [tuple(r) for r in plates]

        er = None
        for i, ln in enumerate(lines):
            r = D.text(surface, th, ln, (trick_area.centerx, trick_area.y + shift + i * msg_h), "body",
                       T.BAD_TEXT if self.error else T.ACCENT, "midtop", bold=bool(self.error), max_width=msg_w)
            er = r if er is None else er.union(r)
        if self.error and er is not None:
            shown["error"], shown["error_rect"] = self.error, tuple(er)

        # last-trick button, the hand and the actions
        self.last_btn.enabled = bool(g.get("last_trick")) and not holding
        self.last_btn.text = _("Back") if self.review else _("Last trick")
        self._draw_hand(surface, hand_area, shown)
        self.action_buttons = self._action_buttons(below) if not holding else []
        for b in self.action_buttons:
            b.draw(surface, th)
        self.shown = shown

    def _message(self, turn: set[int], reviewing: bool, winner: int | None) -> str:
        g = self.g
        names = g.get("names", [])
        if reviewing:
            if winner is not None:
                return _("{name} wins the trick").format(name=names[winner])
            if GI.cancels(g) and g.get("waiting"):
                return _("all cancelled: the cards wait for the next trick")
            return _("last trick")
        phase = str(g.get("phase"))
        who = ", ".join(names[s] for s in sorted(turn))
        k = GI.pass_count(g)
        if self.acting_seat is not None:
            if phase == "draw":
                return _("Your draw: keep the shown card, or discard it and keep the next")
            mine = {"play": _("Your turn, {name}: play"), "pass": _("Your turn, {name}: pass {n} cards"),
                    "exchange": _("Your turn, {name}: exchange"), "moon": _("Your turn, {name}: shot the moon: choose"),
                    "bid": _("Your turn, {name}: bid")}.get(phase, _("Your turn, {name}"))
            to = g.get("pass_to")
            if phase == "pass" and isinstance(to, int) and 0 <= to < len(names):
                mine = _("Your turn, {name}: pass {n} cards to {to}").replace("{to}", names[to])
            text = mine.format(name=names[self.acting_seat], n=k)
        elif who:
            theirs = {"play": _("{who} to play"), "pass": _("{who} to pass {n} cards"), "draw": _("{who} to draw"),
                      "exchange": _("{who} to exchange"), "moon": _("{who} shot the moon: choose"),
                      "bid": _("{who} to bid")}.get(phase, "{who}")
            text = theirs.format(who=who, n=k)
        elif TV.dealer_status(self.t) == "busy" and self.t.get("waiting_for"):
            # nobody is offered a turn while a dealer step holds the table: say what it waits for
            return translate(str(self.t["waiting_for"]))
        else:
            return ""
        done = [s for s in g.get("passed", []) if isinstance(s, int) and s < len(names)] if phase == "pass" else []
        if done:  # who has passed already (the others are the ones named as on turn)
            text = _("{text}; already passed: {names}").format(text=text, names=", ".join(names[s] for s in done))
        return text

    def _draw_extras(self, surface: Any, trick_area: pygame.Rect, table: pygame.Rect, shown: dict[str, Any]) -> None:
        """A turned-up stock (German Whist's), the waiting cards of a game whose cards cancel
        (Cancellation Hearts), the drawn card (spades-2p's)."""
        th = self.theme
        g = self.g
        small = th.card_height("small")
        if GI.stock(g) == "turn-up" and g.get("stock_card"):
            x, y = trick_area.x + th.pad, trick_area.y + th.u(30)
            A.draw_card(surface, None, (x + th.u(6), y + th.u(4)), small, th)
            A.draw_card(surface, TV.card(g["stock_card"]), (x, y), small, th)
            shown["face_up"].append(g["stock_card"])
            D.text(surface, th, _("stock {n}").format(n=g.get("stock_size", 0)), (x, y + small + th.u(6)), "small", T.TEXT_DIM)
        card = TV.presented(self.view)
        if card and self.acting_seat is not None:
            h = min(th.card_height("table"), trick_area.bottom - trick_area.y - th.u(30))
            A.draw_card(surface, TV.card(card), (trick_area.centerx - A.card_size(h)[0] - th.u(20),
                                                         trick_area.y + th.u(30)), h, th, highlight=True)
            shown["drawn_card"] = card

    def buttons(self) -> list[Button]:
        return [*self.action_buttons, *super().buttons()]

    def touch_targets(self) -> list[tuple[str, Any]]:
        """The buttons, and the cards of the hand when tapping one does something (the acting
        player's turn to play, pass or exchange): each as the strip of it that shows."""
        out = super().touch_targets()
        legal = self.legal()
        if self.review or not legal or legal[0].kind not in ("play", "pass", "exchange"):
            return out
        rects = self.hand.rects
        for i, c in enumerate(self.hand.cards[: len(rects)]):
            r = rects[i].copy()
            if self.hand.lifted(i):
                r.y -= self.hand.lift
            nxt = rects[i + 1] if i + 1 < len(rects) else None
            right = nxt.x if nxt is not None and nxt.y == rects[i].y and nxt.x > r.x else r.right
            name = f"card {C.NAMES[c]}"
            if self.hand.cards[:i].count(c):  # two decks: the second of a card
                name += " (2)"
            out.append((name, pygame.Rect(r.x, r.y, max(1, right - r.x), r.height)))
        return out

    def model(self) -> dict[str, Any]:
        m = super().model()
        m.update(self.shown)
        return m

    @property
    def tick_ms(self) -> int | None:
        return None


def A_play(c: int) -> Action:
    from trickref.engine.actions import PLAY

    return PLAY[c]
