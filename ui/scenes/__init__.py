"""The kiosk's scenes, one per module, created by name (modules load on first use)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..app import App
    from ..scene import Scene

SCENES: dict[str, tuple[str, str]] = {
    "home": ("home", "HomeScene"),
    "players": ("players", "PlayersScene"),
    "roster": ("roster", "RosterScene"),
    "player": ("roster", "PlayerScene"),
    "options": ("options", "OptionsScene"),
    "rules": ("rules", "RulesScene"),
    "settings": ("settings", "SettingsScene"),
    "club": ("club", "ClubScene"),
    "pin": ("pin", "PinScene"),
    "dealing": ("dealing", "DealingScene"),
    "handoff": ("handoff", "HandoffScene"),
    "bidding": ("bidding", "BiddingScene"),
    "play": ("play", "PlayScene"),
    "summary": ("summary", "SummaryScene"),
    "faircheck": ("faircheck", "FairCheckScene"),
    "scoresheet": ("scoresheet", "ScoreSheetScene"),
    "review": ("review", "ReviewScene"),
    "gameover": ("gameover", "GameOverScene"),
    "fault": ("fault", "FaultScene"),
    "confirm": ("confirm", "ConfirmScene"),
    "keyboard": ("trickref.ui.keyboard", "KeyboardScene"),
}


def make(name: str, app: App, **kw: Any) -> Scene:
    module, cls = SCENES[name]
    mod = importlib.import_module(module if "." in module else f"trickref.ui.scenes.{module}")
    scene: Scene = getattr(mod, cls)(app, **kw)
    return scene
