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

from .i18n import _


def _say(app: Any, title: str, detail: str, *, yes: str | None = None, no: str | None = None, on_yes: Any = None) -> None:
    """A message (one button, "OK" unless ``yes`` says otherwise) or, with ``no``, a question."""
    from .scenes.confirm import ConfirmScene

    app.push(ConfirmScene(app, title, detail, yes=_("OK") if yes is None else yes, no=no, on_yes=on_yes))


def _session(app: Any, table: Any) -> None:
    from .session import Session

    kw = dict(app.session_args)
    kw.setdefault("simulated", table.mode == "simulated")
    app.session = Session(table, **kw)
    from .memory import mark_in_use, watch_table

    mark_in_use(app, "referee")  # a restart resumes this game (not a keep-score sheet)
    watch_table(app, table)  # its end counted in the players' history


def _levels(app: Any, table: Any) -> None:
    """The bot seats play at the levels chosen on the players screen."""
    set_levels = getattr(table, "set_bot_levels", None)
    if set_levels is not None:
        set_levels(app.setup.bot_levels)


def start_new_game(app: Any, game: str, players: int, names: Sequence[str], options: dict[str, Any],
                   bots: Iterable[int]) -> bool:
    """A new game on the referee path; False (and a message on screen) if the table would not open."""
    from .table_client import TableSetupError, start_table

    app.end_session()
    try:
        table = start_table(game, players, names, options, bots, seed=app.seed, **app.table_args)
    except (TableSetupError, OSError, ValueError) as e:
        _say(app, _("The table could not start"), str(e))
        return False
    _levels(app, table)
    _session(app, table)
    if table.mode != "hardware":  # at a real table the dealing screen first asks for the cards
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
        _say(app, _("The settings could not be read"), str(e))
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
            _say(app, _("Damaged journal moved aside"),
                 _("It is kept as {name} for inspection. Start a new game from this screen.").format(name=moved.name))

        _say(app, _("The saved game could not be read"),
             _("The journal is damaged in the middle ({reason}, at byte {offset}; {good} entries before it are "
               "intact), so the game cannot be resumed safely. Move the journal aside to start a new game.").format(
                 reason=e.reason, offset=e.offset, good=e.good_records), yes=_("Move aside"), no=_("Back"), on_yes=aside)
        return False
    except (JournalError, TableSetupError, OSError, ValueError) as e:
        _say(app, _("The saved game could not be resumed"), str(e))
        return False
    if table is None:
        return False
    _levels(app, table)
    _session(app, table)
    s = app.session
    g = table.state
    # the hands before the one in the journal's last position were summarised before the stop;
    # a hand that ended just before it gets its summary again
    s.summary_seen = max(0, g.hand_number - 1) if g is not None else 0
    app.route()
    _say(app, _("Game resumed"), table.notice or _("Resumed the game in progress."), yes=_("Continue"))
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


class Unfinished:
    """The refereed game an unfinished journal holds, rebuilt offline (no dealer, no threads):
    enough to name it on the home screen and to save it as a partial record."""

    def __init__(self, referee: Any, path: Path, games_dir: str) -> None:
        self.referee = referee
        self.path = path
        self.games_dir = games_dir

    @property
    def game(self) -> str:
        return str(self.referee.game.GAME_ID)

    def describe(self) -> str:
        """'Hearts, 4 players, hand 3' for the home screen and the question before replacing it."""
        from .i18n import _
        from .setup import title

        g = self.referee.game
        return _("{game}, {n} players, hand {hand}").format(game=title(g.GAME_ID), n=len(g.names),
                                                          hand=g.hand_number)

    def played(self) -> bool:
        """Anything worth keeping: a finished hand or a move in the hand in progress."""
        g = self.referee.game
        return bool(g.finished_hands) or bool(g.actions)

    def save_partial(self) -> Path | None:
        """The game so far into the games folder (replay reads it as an unfinished game) and
        the journal emptied; None when nothing had been played (the journal is simply emptied)."""
        from trickref.device.games_store import GamesStore
        from trickref.device.journal import Journal

        saved = GamesStore(self.games_dir).save(self.referee.record()) if self.played() else None
        j, _records, _report = Journal.open(self.path)
        try:
            j.rotate(None)
        finally:
            j.close()
        return saved


def unfinished_game(app: Any = None) -> Unfinished | None:
    """The unfinished refereed game waiting in the journal (none while a game is on screen):
    read without opening the table. None for no journal, a finished game or a damaged journal
    (that one is explained when the kiosk resumes it)."""
    if app is not None and getattr(app, "session", None) is not None:
        return None
    from trickref.device.journal import Journal, JournalError
    from trickref.engine.referee.events import event_from_json
    from trickref.engine.referee.referee import Referee

    from .table_client import journal_path, load_config

    try:
        config = load_config()
        path = journal_path(config)
        if not path.exists() or path.stat().st_size == 0:
            return None
        j, records, _report = Journal.open(path)
        j.close()
        first = records[0] if records else None
        if not isinstance(first, dict) or first.get("type") != "new_game":
            return None
        ref = Referee()
        for obj in records:
            ref.handle(event_from_json(obj))
    except (JournalError, OSError, ValueError, KeyError, TypeError):
        return None
    if ref.game is None or ref.waiting == "over":
        return None
    return Unfinished(ref, path, config.storage.games_dir())


def resume_left_game(app: Any) -> bool:
    """Home's Resume: the game left with Menu -> Leave, back where it stopped."""
    return resume_saved_game(app)


def ask_new_game(app: Any, start: Any) -> None:
    """Start game while the journal holds an unfinished game: asked first; on yes the old
    game is saved as an unfinished record in the games folder, then ``start()`` runs."""
    from .i18n import _

    left = unfinished_game(app)
    if left is None:
        start()
        return

    def replace() -> None:
        try:
            saved = left.save_partial()
        except (OSError, ValueError) as e:
            _say(app, _("The unfinished game could not be saved"), str(e))
            return
        app.last_partial = saved
        start()

    _say(app, _("Start a new game?"),
         _("The unfinished game ({what}) is saved in the games folder as an unfinished record, and the new game "
           "takes its place. \"Resume game\" brings the unfinished one back instead.").format(what=left.describe()),
         yes=_("Start new"), no=_("Back"), on_yes=replace)
