"""The kiosk's side of the table's memory (``device.roster.TableMemory``): the roster of
players, each game's last setup, each player's history, and which sheet is in use.

Everything here is best effort for the game and loud for the people: a memory that cannot be
opened or written never stops a game, but the screen says why (``say_notice``), and a damaged
file is kept aside by the store and explained here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .i18n import _


def memory_of(app: Any) -> Any:
    """The app's open memory (opened on first use, in the storage home); None when it could
    not be opened (``app.memory_problem`` says why, for the screen)."""
    m = getattr(app, "memory", None)
    if m is not None:
        return m
    if getattr(app, "memory_problem", None) is not None:
        return None
    from trickref.device.roster import TableMemory, TableMemoryError

    from .table_client import load_config

    try:
        home = Path(load_config().storage.home_dir())
        m = TableMemory.open(home)
    except (TableMemoryError, OSError, ValueError) as e:
        app.memory_problem = str(e)
        return None
    app.memory = m
    if m.damage is not None:
        d = m.damage
        what = []
        if d["reason"]:
            what.append(_("{reason} at byte {offset}").format(reason=d["reason"], offset=d["offset"]))
        if d["unread"]:
            what.append(_("{n} entries it does not understand").format(n=d["unread"]))
        app.memory_problem = _("The list of players, the setups and the history were damaged ({what}). The file is "
                               "kept as {file}; the {n} entries that could be read are kept.").format(
            what="; ".join(what), file=d["aside"], n=d["kept"])
    return m


def _try(app: Any, fn: Any) -> Any:
    """Run a change of the memory; a failure is kept for the screen, the game goes on."""
    from trickref.device.roster import TableMemoryError

    try:
        return fn()
    except TableMemoryError as e:
        app.memory_problem = _("The change could not be saved: {why}").format(why=e)
        if getattr(app, "scenes", None) is not None and app.scenes.stack:
            say_notice(app)  # said now, over the screen that made the change
        return None


def restore_setup(app: Any) -> None:
    """At start: every game's remembered setup into ``app.setup``, the last game chosen again,
    and the setup saved whenever a screen changes it."""
    setup = app.setup
    m = memory_of(app)
    if m is not None:
        for game, saved in m.state["setups"].items():
            if isinstance(saved, dict) and game in setup.options:
                setup.remembered[game] = saved
        last = m.last_game
        game = last if last in setup.options else setup.game
        setup.game = game
        if game in setup.remembered:
            setup.apply(game, setup.remembered[game])
    setup.on_change = lambda: remember_setup(app)


def remember_setup(app: Any) -> None:
    """The current game's setup, saved (nothing is written when it did not change)."""
    m = memory_of(app)
    if m is not None:
        _try(app, lambda: m.save_setup(app.setup.game, app.setup.snapshot()))


def mark_in_use(app: Any, what: str | None) -> None:
    """Which journal the table now works from ("referee" or "scorekeep"): a restart resumes it."""
    m = memory_of(app)
    if m is not None:
        _try(app, lambda: m.set_in_use(what))


def in_use(app: Any) -> str | None:
    m = memory_of(app)
    return None if m is None else m.in_use


def roster(app: Any) -> list[str]:
    m = memory_of(app)
    return [] if m is None else list(m.players)


def add_player(app: Any, name: str) -> str | None:
    """``name`` on the roster (once); what it is kept as, or None (the screen says why)."""
    m = memory_of(app)
    if m is None:
        return None
    return _try(app, lambda: m.add_player(name))  # type: ignore[no-any-return]


def forget_player(app: Any, name: str) -> None:
    m = memory_of(app)
    if m is not None:
        _try(app, lambda: m.forget_player(name))


def history(app: Any, name: str) -> dict[str, Any]:
    m = memory_of(app)
    return {} if m is None else dict(m.history(name))


def reconcile(app: Any) -> None:
    """Count the finished keep-score sheets of the games folder not counted yet."""
    m = memory_of(app)
    if m is None:
        return
    from trickref.device.games_store import GamesStore

    from .table_client import load_config

    try:
        store = GamesStore(load_config().storage.games_dir())
    except (OSError, ValueError):
        return
    _try(app, lambda: m.reconcile(store))


def watch_table(app: Any, table: Any) -> None:
    """The table's finished game counted in its human players' history by the table host, right
    after its record is saved (``device.roster.CountingStore``)."""
    m = memory_of(app)
    host = getattr(table, "host", None)
    if m is None or host is None or host.store is None:
        return
    from trickref.device.roster import CountingStore

    if isinstance(host.store, CountingStore):
        return
    bots = sorted(getattr(table, "bots", ()))

    def problem(why: str) -> None:  # on the host's worker: said by the kiosk (ui.memory.say_notice)
        app.memory_problem = _("The change could not be saved: {why}").format(why=why)

    host.store = CountingStore(host.store, m, skip=lambda: bots, problem=problem)


def count_table(app: Any, table: Any) -> None:
    """A refereed game that has ended: counted in its human players' history (once)."""
    m = memory_of(app)
    if m is None:
        return
    from trickref.device.games_store import game_id

    def grab(ref: Any) -> tuple[str, str, list[str], list[int], list[int], list[int]] | None:
        g = ref.game
        if g is None or not g.over:
            return None
        return (game_id(ref.record()), g.GAME_ID, list(g.names), list(g.totals), list(g.winners), list(ref.bots))

    got = table.host.read(grab)
    if got is None:
        return
    gid, game, names, totals, winners, bots = got
    _try(app, lambda: m.count_game(gid, game, names, totals, winners, skip=bots))
    say_notice(app)  # a count the table host could not save, if any


def say_notice(app: Any) -> None:
    """A problem with the memory (damaged and kept aside, or not writable), once, on screen."""
    problem = getattr(app, "memory_problem", None)
    if not problem or getattr(app, "memory_said", None) == problem:
        return
    app.memory_said = problem
    from .scenes.confirm import ConfirmScene

    app.push(ConfirmScene(app, _("The table's memory"), problem, yes=_("OK"), no=None))
