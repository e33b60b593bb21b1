"""``trickref sim --club``: the whole simulated table (``device.simulated.table.SimTable``: the table
host, the dealer simulator behind a pty, mock panels, bots) joined to a club night on a real
broker, playing the round's boards the hub releases and reporting them through the club link,
exactly as a table's kiosk does.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from trickref.device.simulated.table import SimTable, TableStuck

from .table import ClubSettings, ClubTable, attach_settings


class ClubSimTable(SimTable):
    """A SimTable whose host has the club hook; waits (up to ``wait`` seconds) when the hub's
    deck is not there yet, saying so once through ``out``."""

    def __init__(self, game: str, players: int, options: dict[str, Any] | None, settings: ClubSettings,
                 home: str | Path, *, wait: float = 600.0, out: Callable[[str], None] | None = None,
                 **kw: Any) -> None:
        super().__init__(game, players, options, out=out, **kw)
        try:
            self.club: ClubTable = attach_settings(self.host, settings, home, retry=5.0)
        except BaseException:
            self.close()
            raise
        self.wait = wait
        self._said = ""

    def night_boards(self, timeout: float) -> int:
        """The night's boards per round, from the hub's description (TableStuck if it never
        comes: the link's error says why)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            b = self.club.boards()
            if b is not None:
                return b
            if self.club.link.stopped:
                break
            time.sleep(0.05)
        raise TableStuck(self.club.link.error or f"no answer from the club hub within {timeout:g} s")

    def _deal_next(self) -> None:
        super()._deal_next()
        host = self.host
        deadline = time.monotonic() + self.wait
        while host.club_waits:
            words = self.club.words
            if words != self._said and self.out is not None:
                self.out(f"club: {words}")
            self._said = words
            if self.club.link.stopped:
                raise TableStuck(f"club: {self.club.link.error}")
            if time.monotonic() > deadline:
                raise TableStuck(f"club: still {words} after {self.wait:g} s")
            host.wait(lambda: not host.club_waits, 0.5)
            self.settle()
