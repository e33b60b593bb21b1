"""The ``trickref`` command: the kiosk by default, and the table's command-line tools.

Every subcommand imports what it needs when it runs, so ``trickref replay`` never loads pygame
and the kiosk never pays for the dealer simulator unless it uses it.

Rough edges kept off the command line: a bad argument is one line on standard error (what and
why, and where to look) with exit status 2, never a usage dump or a traceback; a closed pipe
(``trickref replay game.json | head``) ends quietly; hands and actions are counted from 1 and
seats named by their players wherever a person reads them (the ``--json`` objects keep the
0-based indices of docs/RECORDS.md).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
from collections.abc import Sequence


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors: ``trickref sim: argument --speed: ... (see trickref sim --help)``."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("trickref")
    except PackageNotFoundError:
        return "unknown (not installed)"


def people(text: str, players: Sequence[str]) -> str:
    """Engine words for people: "seat 2" becomes the player's name ("Bot 3") when known."""
    from trickref.engine.referee.fairness import name_seats

    return name_seats(text, players)


def _cmd_replay(args: argparse.Namespace) -> int:
    from trickref.engine.errors import RecordError
    from trickref.engine.records import ReplayError, load_any, replay, summary
    from trickref.engine.scorekeeper import EntryError, ScoreSheet

    try:
        record = load_any(args.file)
    except RecordError as e:
        print(f"trickref replay: {args.file}: invalid record: {e}", file=sys.stderr)
        if args.json:
            print(json.dumps({"error": {"field": e.field, "reason": e.problem}}))
        return 2
    except EntryError as e:  # a scorekept game: an entry that cannot be right
        where = f"hand {e.hand + 1}: " if e.hand is not None else ""
        print(f"trickref replay: {args.file}: {where}{e.reason}", file=sys.stderr)
        if args.json:
            print(json.dumps({"error": {"hand": e.hand, "reason": e.reason}}))
        return 1
    if isinstance(record, ScoreSheet):
        result = record.summary()
        print(json.dumps(result) if args.json else _replay_text(record.names, result))
        return 0
    try:
        state = replay(record)
    except RecordError as e:  # a hand correction that cannot be right where the record puts it
        print(f"trickref replay: {args.file}: invalid record: {e}", file=sys.stderr)
        if args.json:
            print(json.dumps({"error": {"field": e.field, "reason": e.problem}}))
        return 2
    except ReplayError as e:
        who = people(f"seat {e.seat}", record.players)
        print(f"trickref replay: {args.file}: hand {e.hand + 1}, action {e.action_index + 1}: {who} "
              f"(seat {e.seat + 1}) cannot {e.action.describe()}: {people(e.reason, record.players)}",
              file=sys.stderr)
        if args.json:
            print(json.dumps({"error": {"hand": e.hand, "action": e.action_index, "seat": e.seat, "reason": e.reason}}))
        return 1
    result = summary(state)
    if args.json:
        print(json.dumps(result))
    else:
        print(_replay_text(record.players, result))
    return 0


def _replay_text(players: Sequence[str], result: dict) -> str:
    width = max(6, *(len(p) for p in players))
    lines = [f"{result['game']}: {len(result['hands'])} hand(s) scored"]
    lines.append("hand  " + "  ".join(p.rjust(width) for p in players))
    for i, h in enumerate(result["hands"]):
        pts = "  ".join(f"{p:+d}".rjust(width) for p in h["points"])
        lines.append(f"{i + 1:>4}  {pts}")
        lines.append("      " + "  ".join(str(t).rjust(width) for t in h["totals"]))
    lines.append("total " + "  ".join(str(t).rjust(width) for t in result["totals"]))
    if result["bags"] is not None:
        lines.append("bags  " + "  ".join(str(b).rjust(width) for b in result["bags"]))
    if result["over"]:
        lines.append("game over; winner(s): " + ", ".join(players[w] for w in result["winners"]))
    else:
        lines.append("game in progress")
    return "\n".join(lines)


def build_parser(optional: bool = True) -> argparse.ArgumentParser:
    """The command line; ``optional=False`` leaves out the subcommands registered by other
    modules (``replay`` then imports nothing beyond the engine: no pygame banner on stdout,
    no failure of an unrelated module)."""
    p = Parser(prog="trickref", description="A table referee for trick-taking card games.")
    from trickref.engine.build import describe as engine_build

    p.add_argument("--version", action="version", version=f"trickref {version()}, engine {engine_build()}")
    sub = p.add_subparsers(dest="command")

    r = sub.add_parser("replay", help="replay a game record through the rules and print the scores")
    r.add_argument("file", help="the record file, or - for standard input")
    r.add_argument("--json", action="store_true", help="print one JSON object (RECORDS.md)")
    r.set_defaults(func=_cmd_replay)

    if optional:
        _add_optional_commands(sub)
    return p


def _add_optional_commands(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Subcommands whose modules register themselves: each module has ``add_parser(sub)``."""
    import importlib

    for module in ("trickref.device.dealer.sim_cli", "trickref.device.simulated.cli", "trickref.device.verify_cli", "trickref.ui.screenshots", "trickref.ui.app",
                   "trickref.device.club.cli"):
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as e:
            if e.name and module.startswith(e.name):
                continue  # not built into this copy
            raise
        mod.add_parser(sub)


def output_dir_problem(path: str) -> str | None:
    """Why ``path`` cannot be a folder to write files into (created if missing), or None."""
    import tempfile

    p = os.path.abspath(path)
    if os.path.exists(p) and not os.path.isdir(p):
        return f"{path} is a file, not a folder"
    try:
        os.makedirs(p, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=p, prefix=".trickref-probe"):
            pass
    except OSError as e:
        return f"cannot write into {path}: {e.strerror or e}"
    return None


def _precheck(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Checks argparse cannot make by itself, before any work starts."""
    if args.command == "screenshots":
        problem = output_dir_problem(args.dir)
        if problem is not None:
            parser.exit(2, f"trickref screenshots: {problem}\n")


def ctrl_c_stops() -> None:
    """Make Ctrl+C (SIGINT) raise KeyboardInterrupt again when trickref was started with it
    ignored: the kiosk, ``dealer-sim``, ``sim`` and the hub all stop on Ctrl+C, and say so.

    A shell without job control (a script, ``bash -c``, a CI step, a test runner started from
    one) starts the commands it puts in the background (``cmd &``) with SIGINT ignored, and
    their children inherit that; Python then installs no handler for it (SDL neither), so
    Ctrl+C, or a supervisor's or a test's SIGINT, did nothing and the command ran on until it
    was killed (the tests that stop it with SIGINT hung every time the suite ran as such a
    background job). A handler the program or its caller chose (anything but "ignore") is kept."""
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    ctrl_c_stops()
    try:
        code = _main(argv)
        sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
        return code
    except BrokenPipeError:
        # the reader went away (``| head``): nothing more to say to it, and no traceback
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        print("trickref: interrupted", file=sys.stderr)
        return 130


def _main(argv: list[str]) -> int:
    parser = build_parser(optional=not argv or argv[0] != "replay")
    args = parser.parse_args(argv)
    if args.command is None:
        import importlib

        try:
            app = importlib.import_module("trickref.ui.app")
        except ModuleNotFoundError:
            parser.print_help()
            return 0
        return int(app.run_default() or 0)
    _precheck(parser, args)
    try:
        return int(args.func(args) or 0)
    except ValueError as e:
        if not _setup_refused(e):
            raise
        # a table the referee would not start (an unknown rule option, a bad value): its words, once
        print(f"trickref {args.command}: {e}", file=sys.stderr)
        return 2


def _setup_refused(e: BaseException) -> bool:
    """True for the table's TableSetupError (device.table.open: the game the referee refused)."""
    try:
        from trickref.device.table.open import TableSetupError
    except ModuleNotFoundError:
        return False
    return isinstance(e, TableSetupError)


if __name__ == "__main__":
    sys.exit(main())
