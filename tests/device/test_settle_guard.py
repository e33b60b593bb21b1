"""SimTable.settle's hang guard counts from the dealer's last frame (issue 18's campaign): a deal
over a 5 % corrupted line on a loaded machine took over 120 s while every frame was still
coming (its plan and events sent again and again) and was reported stuck; a table that stops
hearing the dealer is still reported after GUARD_S, and a line alive forever after the cap."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from trickref.device.simulated import table as T


class _Host:
    """drain() times out ``slow`` times, the line receiving ``per_wait`` frames each time."""

    def __init__(self, link: Any, slow: int, per_wait: int) -> None:
        self.link, self.slow, self.per_wait, self.drains = link, slow, per_wait, 0

    def drain(self, timeout: float) -> None:
        self.drains += 1
        if self.drains <= self.slow:
            self.link.stats.rx_frames += self.per_wait
            raise TimeoutError(f"the table was still busy after {timeout:g} s (1 dealer jobs)")


def _table(slow: int, per_wait: int) -> Any:
    link = SimpleNamespace(stats=SimpleNamespace(rx_frames=0))
    t = T.SimTable.__new__(T.SimTable)  # only the guard: no simulator, no host thread
    t.driver = SimpleNamespace(link=link)
    t.host = _Host(link, slow, per_wait)
    return t


def test_a_slow_deal_whose_frames_still_come_is_waited_for() -> None:
    t = _table(slow=3, per_wait=40)
    t._drain_while_alive()
    assert t.host.drains == 4


def test_a_table_that_hears_nothing_for_the_guard_is_stuck() -> None:
    t = _table(slow=1, per_wait=0)
    with pytest.raises(TimeoutError, match="still busy"):
        t._drain_while_alive()
    assert t.host.drains == 1


def test_a_line_alive_forever_is_stuck_after_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(T, "SETTLE_CAP_S", 0.0)
    t = _table(slow=10**6, per_wait=5)
    with pytest.raises(TimeoutError, match="line was alive all along"):
        t._drain_while_alive()
