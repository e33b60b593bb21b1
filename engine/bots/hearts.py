"""The Hearts bot: the shared rule-based Hearts player (``_hearts_play``) without cancellation."""

from __future__ import annotations

from ._hearts_play import HeartsBot

BOT = HeartsBot(cancellation=False)
