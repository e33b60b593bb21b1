"""The ``trickref`` command: the kiosk by default, and the table's command-line tools.

Every subcommand imports what it needs when it runs, so ``trickref replay`` never loads pygame
and the kiosk never pays for the dealer simulator unless it uses it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence


def _cmd_replay(args: argparse.Namespace) -> int:
    from engine.errors import RecordError
    from engine.records import ReplayError, load_any, replay, summary
    from engine.scorekeeper import EntryError, ScoreSheet

    try:
        record = load_any(args.file)
    except RecordError as e:
        print(f"trickref replay: {args.file}: invalid record: {e}", file=sys.stderr)
        if args.json:
            print(json.dumps({"error": {"field": e.field, "reason": e.problem}}))
        return 2
    except EntryError as e:  # a scorekept game: an entry that cannot be right
        print(f"trickref replay: {args.file}: hand {e.hand}: {e.reason}", file=sys.stderr)
        if args.json:
            print(json.dumps({"error": {"hand": e.hand, "reason": e.reason}}))
        return 1
    if isinstance(record, ScoreSheet):
        result = record.summary()
        print(json.dumps(result) if args.json else _replay_text(record.names, result))
        return 0
    try:
        state = replay(record)
    except ReplayError as e:
        print(f"trickref replay: {args.file}: {e}", file=sys.stderr)
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
    p = argparse.ArgumentParser(prog="trickref", description="A table referee for trick-taking card games.")
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

    for module in ("device.dealer_sim_cli", "device.table_sim_cli", "device.verify_cli", "ui.screenshots", "ui.app"):
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as e:
            if e.name and module.startswith(e.name):
                continue  # not built into this copy
            raise
        mod.add_parser(sub)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(optional=not argv or argv[0] != "replay")
    args = parser.parse_args(argv)
    if args.command is None:
        import importlib

        try:
            app = importlib.import_module("ui.app")
        except ModuleNotFoundError:
            parser.print_help()
            return 0
        return int(app.run_default() or 0)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
