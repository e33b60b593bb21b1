"""Each built-in game's own staged kiosk screens (its features: a moon, a pass, a bid on the
panel, a turned-up stock, cards that cancel), one module per game named for it
(``ui/shots/<game id with _>.py``, a ``scenarios()`` of (file stem, setup)). The screenshot set
(ui.screenshots) takes a game's module when it has one, and stages the generic screens of any
other game of the catalog (a plug-in's) itself.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from typing import Any

Scenario = tuple[str, Callable[[Any], Any]]


def of(game: str) -> list[Scenario] | None:
    """The staged screens of ``game``'s own module, None when it has none."""
    name = f"{__name__}.{game.replace('-', '_')}"
    if importlib.util.find_spec(name) is None:
        return None
    got: list[Scenario] = importlib.import_module(name).scenarios()
    return got
