"""The Cancellation Hearts bot: the shared rule-based Hearts player (``_hearts_play``) that
works out trick winners with the cancellation rule (identical cards cancel), so it ducks by
matching the winning card where it can."""

from __future__ import annotations

from ._hearts_play import HeartsBot

BOT = HeartsBot(cancellation=True)
