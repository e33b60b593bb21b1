"""Undo (with a confirmation, unless cards have physically moved because of the entry), score
corrections and hand corrections (admin entries, recorded with their reason)."""

from __future__ import annotations

from .. import cards as C
from ..scorekeeper import EntryError, rescore_game, sheet_of_game
from .commands import (
    AskConfirm,
    SaveRecord,
    seat_target,
)
from .events import (
    HandCorrection,
    ScoreCorrection,
    UndoCancel,
    UndoConfirm,
    UndoRequest,
)
from .taking import Taking
from .views import public_words


class UndoAndCorrections(Taking):
    def _on_undo_request(self, ev: UndoRequest) -> None:
        g = self.game
        if g is None or self.waiting != "turn":
            self._refuse(ev.seat, "nothing to undo now")
            return
        if self.undo_pending is not None:
            self._refuse(ev.seat, "an undo is already waiting for confirmation")
            return
        if self.busy:
            self._refuse(ev.seat, self.waiting_text())
            return
        if not g.actions:
            self._refuse(ev.seat, "nothing to undo in this hand")
            return
        last_seat, last = g.actions[-1]
        if ev.seat is not None and ev.seat != last_seat:
            self._refuse(ev.seat, f"the last entry was {self._name(last_seat)}'s ({public_words(last)}), not "
                                  f"{self._name(ev.seat)}'s")
            return
        why = self.blocked[-1] if self.blocked else None
        if why is not None:
            self._refuse(ev.seat, f"cannot undo {self._name(last_seat)}'s {public_words(last)}: {why}")
            return
        text = f"Undo {self._name(last_seat)}'s {public_words(last)}?"
        self.undo_pending = {"seat": ev.seat, "text": text}
        self._out.append(AskConfirm("undo", text, ev.seat))
        self._msg(text)

    def _on_undo_confirm(self, ev: UndoConfirm) -> None:
        g = self.game
        if g is None or self.undo_pending is None:
            self._refuse(None, "no undo is waiting for confirmation")
            return
        self.undo_pending = None
        seat, last = g.actions[-1]
        source = self.sources.pop() if self.sources else "touch"
        if self.blocked:
            self.blocked.pop()
        g.undo()
        for c in self.corrections:
            if c.get("during_hand") == g.hand_number:
                self._apply_correction_points(c["seat"], c["points"])
        if self.hand_corrections:  # the undo went back to the state at the deal: score them again
            rescore_game(g, self.corrections, self.hand_corrections, recheck_end=False)
        if last.kind == "pass":
            self.given.pop(seat, None)
            if not self.given:
                self.pass_snap = None
        self.pending.pop(seat, None)
        self._msg(f"Undone: {self._name(seat)}'s {public_words(last)}")
        if last.kind == "play":
            self.places.move(last.value, "trick", seat_target(seat))
        if last.kind == "play" and source == "reader":
            self._msg(f"{self._name(seat)}: take {C.NAMES[last.value]} back from the trick pocket")
        self._prompt()

    def _on_undo_cancel(self, ev: UndoCancel) -> None:
        if self.undo_pending is None:
            return
        self.undo_pending = None
        self._msg("Undo cancelled")
        self._prompt()

    def _apply_correction_points(self, seat: int, points: int) -> None:
        self._g().correct(seat, points, recheck_end=False)  # the referee checks game end itself

    def _on_correction(self, ev: ScoreCorrection) -> None:
        g = self.game
        if g is None:
            self._refuse(None, "no game to correct")
            return
        if not (isinstance(ev.seat, int) and 0 <= ev.seat < g.n) or isinstance(ev.points, bool) \
                or not isinstance(ev.points, int) or ev.points == 0:
            self._refuse(None, f"a correction names a seat of this table and a non-zero whole number of points, "
                               f"not seat {ev.seat!r}, {ev.points!r} points")
            return
        between = g.phase in ("deal", "over")
        entry = {
            "after_hand": len(g.hand_results),
            "seat": ev.seat,
            "points": ev.points,
            "reason": ev.reason,
            "by": ev.by,
        }
        if not between:
            entry["during_hand"] = g.hand_number
        self.corrections.append(entry)
        self._apply_correction_points(ev.seat, ev.points)
        self._msg(f"Score correction by {ev.by}: {self._name(ev.seat)} {ev.points:+d}"
                  + (f" ({ev.reason})" if ev.reason else ""), level="warn")
        if between and g.hand_number:
            was_over = g.over
            over, winners = g._game_end()
            g.over, g.winners = over, winners
            g.phase = "over" if over else "deal"
            if over != was_over:
                if over:
                    self._finish_or_next()
                else:
                    self._msg("The correction reopens the game: another hand is played")
                    self._finish_or_next()
            else:
                self._out.append(SaveRecord(self.record(), over))

    def _on_hand_correction(self, ev: HandCorrection) -> None:
        g = self.game
        if g is None:
            self._refuse(None, "no game to correct")
            return
        finished = len(g.hand_results)
        if isinstance(ev.hand, bool) or not isinstance(ev.hand, int) or not 1 <= ev.hand <= finished:
            have = f"hands 1 to {finished}" if finished else "no hand has ended yet"
            self._refuse(None, f"there is no finished hand {ev.hand!r} to correct ({have})")
            return
        if not isinstance(ev.reason, str) or not isinstance(ev.at, str) or not isinstance(ev.by, str):
            self._refuse(None, "the reason, time and author of a correction are text")
            return
        sheet = sheet_of_game(g, self.corrections, self.hand_corrections)
        try:
            canon = sheet.check_amend(ev.hand, ev.entries if isinstance(ev.entries, dict) else {})
        except EntryError as e:
            self._refuse(None, f"hand {ev.hand} cannot be corrected so: {e.reason}")
            return
        between = g.phase in ("deal", "over")
        entry = {"hand": ev.hand, "entries": canon, "reason": ev.reason, "by": ev.by, "at": ev.at,
                 "after_hand": finished}
        if not between:  # made during a hand: a replay applies it after as many of its actions
            entry["during_hand"] = g.hand_number
            entry["after_action"] = len(g.actions)
        self.hand_corrections.append(entry)
        was_over = g.over
        rescore_game(g, self.corrections, self.hand_corrections, recheck_end=between)
        row = g.hand_results[ev.hand - 1]
        pts = ", ".join(f"{g.names[s]} {p:+d}" for s, p in enumerate(row["points"]))
        self._msg(f"Hand {ev.hand} corrected by {ev.by}: {pts}" + (f" ({ev.reason})" if ev.reason else ""),
                  level="warn")
        if not between:
            return
        if g.over != was_over:
            if not g.over:
                self._msg("The correction reopens the game: another hand is played")
            self._finish_or_next()
        else:
            self._out.append(SaveRecord(self.record(), g.over))
