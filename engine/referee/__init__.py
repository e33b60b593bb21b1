"""The table referee: a pure state machine from table events to commands (no I/O, threads or
clocks), with fair-dealing commitments anyone can check.

- ``events``: what happens at the table (NewGame, Shuffled, Button, CardRead, Touch, BotAction,
  DealDone, DealerDone, DealerFault, DealerReady, Undo*, ScoreCorrection) and ``make_shuffle``.
- ``commands``: what the table must do (DealerCommand, Led, Message, Sound, AskConfirm,
  NeedShuffle, SaveRecord, ShowCommitment).
- ``referee.Referee``: ``handle(event) -> [Command]``, ``public_view()``, ``seat_view(seat)``,
  ``resync()``, ``record()``, ``bot_turns()``.
- ``fairness``: commitments, Double Nil replacements from the salt, ``verify_record``;
  ``chain``: the chain of the plays (a hash per finished hand); ``checkcode``: a finished hand's
  proof as the text of the QR code the kiosk shows (docs/FAIRNESS.md).
- ``flows`` / ``panel`` / ``places``: the physical flow of each game, the panel buttons, and
  where every card physically is.
- ``autotable.AutoTable``: a scripted table (ideal dealer, seeded shuffles, bots) for tests and
  benchmarks.
"""

from .commands import (
    AskConfirm,
    Command,
    DealerCommand,
    Led,
    Message,
    NeedShuffle,
    SaveRecord,
    ShowCommitment,
    Sound,
)
from .events import Event, event_from_json, make_shuffle
from .referee import Referee

__all__ = [
    "AskConfirm", "Command", "DealerCommand", "Event", "Led", "Message", "NeedShuffle", "Referee",
    "SaveRecord", "ShowCommitment", "Sound", "event_from_json", "make_shuffle",
]
