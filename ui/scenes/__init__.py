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
    # keep-score: the entry screen's sheet, its game over and a score correction (the entry
    # screen and the hand corrections go to them by name: they import the entry screen)
    "scorekeeper_sheet": ("scorekeeper_sheet", "ScorekeeperSheetScene"),
    "scorekeeper_over": ("scorekeeper_sheet", "ScorekeeperOverScene"),
    "scorekeeper_correct": ("scorekeeper_sheet", "ScorekeeperCorrectScene"),
}


def make(name: str, app: App, **kw: Any) -> Scene:
    module, cls = SCENES[name]
    mod = importlib.import_module(module if "." in module else f"trickref.ui.scenes.{module}")
    scene: Scene = getattr(mod, cls)(app, **kw)
    return scene
