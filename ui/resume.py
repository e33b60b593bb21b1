"""Starting, resuming and saving games on the kiosk: the glue between the scenes and the
referee-backed table (ui.table_client), the journal and the games folder.

Every failure here ends as words on the screen (a ConfirmScene), never a traceback: a dealer
port that will not open, a journal damaged in the middle, a games folder that cannot be written.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any


def _say(app: Any, title: str, detail: str, *, yes: str = "OK", no: str | None = None, on_yes: Any = None) -> None:
    """A message (one button) or, with ``no``, a question."""
    from .scenes.confirm import ConfirmScene

    app.push(ConfirmScene(app, title, detail, yes=yes, no=no, on_yes=on_yes))


def _session(app: Any, table: Any) -> None:
    from .session import Session

    kw = dict(app.session_args)
    kw.setdefault("simulated", table.mode == "simulated")
    app.session = Session(table, **kw)


def start_new_game(app: Any, game: str, players: int, names: Sequence[str], options: dict[str, Any],
                   bots: Iterable[int]) -> bool:
    """A new game on the referee path; False (and a message on screen) if the table would not open."""
    from .table_client import TableSetupError, start_table

    app.end_session()
    try:
        table = start_table(game, players, names, options, bots, seed=app.seed, **app.table_args)
    except (TableSetupError, OSError, ValueError) as e:
        _say(app, "The table could not start", str(e))
        return False
    _session(app, table)
    app.session.start_deal()
    app.route()
    return True


def resume_saved_game(app: Any) -> bool:
    """On start: the game in progress in the journal, resumed and said so; a damaged journal
    explained (and moved aside on request). False when there is nothing to resume."""
    from trickref.device.config import load

    try:
        config = load().config
        path = Path(config.storage.journal_dir()) / "table.journal"
        if not path.exists() or path.stat().st_size == 0:
            return False  # the usual start: nothing to resume, and no dealer stack to import
    except (OSError, ValueError) as e:
        _say(app, "The settings could not be read", str(e))
        return False
    from trickref.device.journal import JournalCorrupt, JournalError

    from .table_client import JOURNAL_NAME, TableSetupError, resume_table

    assert path.name == JOURNAL_NAME
    try:
        table = resume_table(config, seed=app.seed, **app.table_args)
    except JournalCorrupt as e:
        path = Path(e.path)

        def aside() -> None:
            moved = path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
            path.rename(moved)
            _say(app, "Damaged journal moved aside", f"It is kept as {moved.name} for inspection. "
                 "Start a new game from this screen.")

        _say(app, "The saved game could not be read",
             f"The journal is damaged in the middle ({e.reason}, at byte {e.offset}; {e.good_records} entries "
             f"before it are intact), so the game cannot be resumed safely. Move the journal aside to start "
             "a new game.", yes="Move aside", no="Back", on_yes=aside)
        return False
    except (JournalError, TableSetupError, OSError, ValueError) as e:
        _say(app, "The saved game could not be resumed", str(e))
        return False
    if table is None:
        return False
    _session(app, table)
    s = app.session
    g = table.state
    # the hands before the one in the journal's last position were summarised before the stop;
    # a hand that ended just before it gets its summary again
    s.summary_seen = max(0, g.hand_number - 1) if g is not None else 0
    app.route()
    _say(app, "Game resumed", table.notice or "Resumed the game in progress.", yes="Continue")
    return True


def save_scorekept(sheet: Any) -> tuple[Path | None, str | None]:
    """A finished scorekept game's record into the games folder: (path, None) or (None, why)."""
    from trickref.device.games_store import GamesStore

    from .table_client import load_config

    try:
        store = GamesStore(load_config().storage.games_dir())
        return store.save(sheet.to_json()), None
    except (OSError, ValueError) as e:
        return None, str(e)
