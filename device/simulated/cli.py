"""``trickref sim``: the whole table without a screen, a bot in every seat.

    trickref sim --game hearts --players 4 --seed 7 --to-end --journal /tmp/t.journal --records games/
    trickref sim --game partnership-spades --players 4 --seed 7 --bot-level strong [--budget 0.5]

Runs the referee, the dealer simulator (the real firmware behind a pty, driven through the real
driver), simulated panels and bots; prints each hand's scores and the winner, and writes the
record to the games folder. With ``--seed`` everything (shuffles, salts, bot choices) is
reproducible, except a search bot's choices under a time budget (``--bot-level search`` or
``strong``: a faster machine searches more deals in its CPU seconds per decision,
``--budget``); ``--worlds N`` searches a fixed number of deals instead, and replays on any
machine. With ``--journal`` every event is on disk before it is acted on: kill the process at
any moment and run the same command again, and the game resumes where it was and ends exactly
as an uninterrupted run would (with search bots: under ``--worlds``). A journal of a game
already over just prints the result.

``--fault jam:2`` / ``--fault unplug:3`` jams the simulated dealer, or takes its cable out (the
dealer falls silent for a while), ten cards into that hand's deal (repeatable): the table shows
the fault, the simulated person clears it, and the hand goes on (jam) or is redealt from the
same deck order (cable). With ``--twin`` a jam is a card caught on the twin's path: the dealer
names it, the person lifts it out, and the deal ends one card short (the hand is redealt).
``--fault misread:1``: the deal's first card cannot be read and goes to the reject pocket; in a
game without a stock the person puts it back on the hopper and only it is dealt again.
``--twin --twin-faults`` adds the twin's own random faults at their estimated rates (pickup
slips, double feeds, misreads, a late gate interrupt): the dealer goes on by itself where it
can (a slipped card moved on to the window) and stops where a person must help (a double feed, a
card it cannot read); the person does what the screen says, and the game goes on.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from typing import Any

from trickref.engine import catalog

# the twin's random faults, as its last line names them (TwinDealerSimulator.figures)
_DRAWN = {"pickup_slip": "pickup slips", "double_feed": "double feeds", "misread": "misreads",
          "late_gate_irq": "gate interrupts held up by a garbage collection"}


def _option(text: str) -> tuple[str, Any]:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"an option is NAME=VALUE, not {text!r}")
    key, raw = text.split("=", 1)
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    return key.strip(), value


SPEED_RANGE = (0.1, 1e7)  # 0 or less never finishes a deal; a tiny speed looks like a hang


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


BUDGET_RANGE = (0.001, 60.0)  # seconds of CPU per decision


def _budget(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, not {text!r}") from None
    if not (math.isfinite(value) and BUDGET_RANGE[0] <= value <= BUDGET_RANGE[1]):
        raise argparse.ArgumentTypeError(
            f"must be from {BUDGET_RANGE[0]:g} to {BUDGET_RANGE[1]:g} seconds of CPU per decision, not {text}")
    return value


def _speed(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, not {text!r}") from None
    if not (math.isfinite(value) and SPEED_RANGE[0] <= value <= SPEED_RANGE[1]):
        raise argparse.ArgumentTypeError(
            f"must be from {SPEED_RANGE[0]:g} (a tenth of real time) to {SPEED_RANGE[1]:g} sim ms per real ms, "
            f"not {text}")
    return value


def _fault(text: str) -> tuple[str, int]:
    kind, _, hand = text.partition(":")
    if kind not in ("jam", "unplug", "misread") or not hand.isdigit() or int(hand) < 1:
        raise argparse.ArgumentTypeError(f"a fault is jam:HAND, unplug:HAND or misread:HAND (HAND from 1), not {text!r}")
    return kind, int(hand)


def _paths_problem(args: argparse.Namespace) -> str | None:
    """Before a game is played: can the journal and the games folder be written? (Made private,
    0700, if missing.)"""
    import os

    from trickref.device.journal import private_dir

    for flag, folder in (("--records", args.records), ("--journal", os.path.dirname(os.path.abspath(args.journal))
                                                      if args.journal else None)):
        if folder is None:
            continue
        if os.path.exists(folder) and not os.path.isdir(folder):
            return f"{flag}: {folder} is a file, not a folder"
        try:
            private_dir(folder)
        except OSError as e:
            return f"{flag}: cannot create the folder {folder}: {e.strerror or e}"
        if not os.access(folder, os.W_OK | os.X_OK):
            return f"{flag}: cannot write into {folder}"
    if args.journal and os.path.isdir(args.journal):
        return f"--journal: {args.journal} is a folder; name the journal file in it"
    return None


def _journal_problem(args: argparse.Namespace) -> str | None:
    """Before anything opens it: ``--journal`` names a file that is not a journal (a game
    record, random bytes), or the journal of another game or table size. Either is refused and
    left exactly as it is (resuming it here would overwrite it, or play it by the wrong rules)."""
    from trickref.device.journal import JournalError, peek

    path = args.journal
    if not path or not os.path.isfile(path):
        return None
    try:
        records = peek(path)
    except JournalError as e:
        return f"--journal {e}"
    if not records:
        return None
    first = records[0]
    if not isinstance(first, dict) or first.get("type") != "new_game":
        return (f"--journal {path}: a journal, but not of a table game (it does not start with a new game); left "
                "untouched. Name a new file for a new game.")
    game, names = first.get("game"), first.get("names")
    players = len(names) if isinstance(names, list) else None
    if game == args.game and players == args.players:
        return None
    return (f"--journal {path} holds a {game} game of {players} players, not {args.game} with {args.players}; left "
            f"untouched. Resume it with --game {game} --players {players}, or name another journal file.")


def run(args: argparse.Namespace) -> int:
    from trickref.device.games_store import GamesStore, GamesStoreError
    from trickref.device.journal import JournalError
    from trickref.device.simulated.table import SimTable, TableStuck
    from trickref.device.table.open import TableSetupError
    from trickref.device.table.storage import RUN_AGAIN
    from trickref.engine.errors import RecordError
    from trickref.engine.games import GAME_IDS, game_class
    from trickref.engine.records import parse, summary
    from trickref.engine.records import replay as replay_record

    if args.game not in GAME_IDS:
        print(f"trickref sim: unknown game {args.game!r} (one of {', '.join(GAME_IDS)})", file=sys.stderr)
        return 2
    counts = game_class(args.game).PLAYER_COUNTS
    if args.players is None and len(counts) == 1:
        args.players = counts[0]
    if args.players not in counts:
        many = f"{min(counts)} players" if len(counts) == 1 else f"{min(counts)} to {max(counts)} players"
        print(f"trickref sim: {args.game} is for {many}, " + ("say how many with --players" if args.players is None
                                                             else f"not {args.players}"), file=sys.stderr)
        return 2
    if args.bot_level == "rule" and (args.budget is not None or args.worlds is not None):
        print(f"trickref sim: {'--budget' if args.budget is not None else '--worlds'} is for the search bots: "
              "add --bot-level search or strong", file=sys.stderr)
        return 2
    if args.twin_faults and not args.twin:
        print("trickref sim: --twin-faults is for the physical twin: add --twin", file=sys.stderr)
        return 2
    options = dict(args.option or [])
    store = GamesStore(args.records) if args.records else None
    problem = _paths_problem(args) or _journal_problem(args)
    if problem is not None:
        print(f"trickref sim: {problem}", file=sys.stderr)
        return 2
    say = (lambda s: None) if args.json else print
    club_settings = None
    club_table: Any = None  # device.club.simtable.ClubSimTable with --club
    table: SimTable
    if args.club:  # a table of a club night: the hub's boards (device.club.simtable)
        from trickref.device.club.table import read_settings_file

        loaded = read_settings_file(args.club)
        if loaded.problem is not None:
            print(f"trickref sim: --club {loaded.problem}", file=sys.stderr)
            return 2
        club_settings = loaded.settings
    try:
        if club_settings is not None:
            from trickref.device.club.simtable import ClubSimTable

            table = club_table = ClubSimTable(args.game, args.players, options, club_settings,
                                 os.path.dirname(os.path.abspath(args.club)), wait=args.club_wait,
                                 seed=args.seed, journal_path=args.journal, store=store, speed=args.speed,
                                 faults=args.fault or [], out=say, bot_level=args.bot_level,
                                 bot_budget=args.budget, bot_worlds=args.worlds, twin=args.twin,
                                 twin_faults=args.twin_faults)
        else:
            table = SimTable(args.game, args.players, options, seed=args.seed, journal_path=args.journal,
                             store=store, speed=args.speed, faults=args.fault or [], out=say, bot_level=args.bot_level,
                             bot_budget=args.budget, bot_worlds=args.worlds, twin=args.twin,
                             twin_faults=args.twin_faults)
    except JournalError as e:
        print(f"trickref sim: --journal {e}", file=sys.stderr)
        return 2
    except ValueError as e:
        print(f"trickref sim: --club {e}", file=sys.stderr)
        return 2
    try:
        try:
            table.start()
        except TableSetupError as e:  # a rule option out of range, a game the table cannot begin
            print(f"trickref sim: {e}", file=sys.stderr)
            return 2
        ref = table.referee
        if ref.game is None:
            msg = [m.text for m in table.messages if m.level == "warn"]
            print(f"trickref sim: cannot start: {'; '.join(msg) or 'the game was refused'}", file=sys.stderr)
            return 2
        if table.replayed:
            say(f"resumed from {args.journal}: {table.replayed} events replayed")
            g0 = ref.game  # the hands the earlier run finished, in order before the ones played now
            for i, h in enumerate(g0.hand_results[: table.hands_before]):
                say(f"hand {i + 1}: points {h['points']} totals {h['totals']} (before the restart)")
        try:
            max_hands = None if args.to_end else args.hands
            if club_settings is not None:
                max_hands = club_table.night_boards(args.club_wait)  # the round's boards, no more
                club = club_table.club
                if not club.club_game and club.club_game is not None:
                    print(f"trickref sim: --club: {club.words}", file=sys.stderr)
                    return 2
            table.run(max_hands=max_hands)
        except TableStuck as e:
            storage = table.host.storage  # a full disk: its words, not the wait it cut short
            print(f"trickref sim: {storage.words(RUN_AGAIN) if storage is not None else e}", file=sys.stderr)
            return 1
        g = ref.game
        record = table.finished_record or ref.record()
        try:
            path = store.save(record) if store is not None else None
        except GamesStoreError as e:  # a full disk under the games folder: the journal still has the game
            print(f"trickref sim: the game is over but its record was not saved: {e}", file=sys.stderr)
            return 1
        try:
            state = replay_record(parse(record))
            result = summary(state)
        except RecordError as e:  # pragma: no cover - the referee only writes valid records
            print(f"trickref sim: the record does not replay: {e}", file=sys.stderr)
            return 1
        club_line = None
        if club_settings is not None:
            link = club_table.club.link
            acked = link.flush(args.club_wait)
            r = club_table.club.round
            club_line = (f"club night {club_settings.night}, table {club_settings.table}: round "
                         f"{'?' if r is None else r + 1}, " + ("every result acknowledged by the hub" if acked else
                         f"{len(link.outbox)} results not yet acknowledged (kept in the outbox, sent when the hub "
                         "is back)"))
        twin_figures = None
        if args.twin:
            from trickref.device.dealer.twin_sim import TwinDealerSimulator

            assert isinstance(table.sim, TwinDealerSimulator)
            twin_figures = table.sim.figures()
        faults = [m.text for m in table.messages if m.level == "error"]
        recoveries = [m.text for m in table.messages
                      if m.text.startswith(("Redealing", "The dealer is back"))]
        if args.json:
            print(json.dumps({**result, "players": list(g.names), "record": str(path) if path else None,
                              "corrections": ref.corrections, "dealer_faults": faults, "recoveries": recoveries,
                              "replayed": table.replayed, "club": club_line,
                              "twin": twin_figures}))
            return 0
        for text in faults:
            print(f"dealer: {text}")
        if g.over:
            print("winner: " + " and ".join(g.names[w] for w in g.winners) + f" (totals {g.totals})")
        else:
            print(f"stopped after {len(g.hand_results)} hand(s); totals {g.totals}")
        if twin_figures is not None:
            print(f"dealer on the physical twin: {twin_figures['machine_s']} s of its clock, "
                  f"{twin_figures['loop_passes']} cards round the return loop, "
                  f"{len(twin_figures['stuck'])} stuck on the path, {twin_figures['boots']} boot(s)")
            drawn = twin_figures["random_faults"]
            if drawn is not None:
                print("the twin's random faults: " + ", ".join(f"{_DRAWN[what]} {n}" for what, n in drawn.items()))
        if path is not None:
            print(f"record: {path}")
        if club_line is not None:
            print(club_line)
        return 0
    finally:
        table.close()
        if club_settings is not None:
            from trickref.device.club.table import links

            links.close()


def add_parser(sub: Any) -> None:
    p = sub.add_parser("sim", help="play a whole game with bots on the simulated table (no screen)")
    p.add_argument("--game", required=True, help=f"game id: {', '.join(catalog.game_ids())}")
    p.add_argument("--players", type=_positive_int, default=None,
                   help="number of players (may be left out for a game with one player count: two-player Spades, "
                        "German Whist, partnership Spades)")
    p.add_argument("--seed", type=int, default=None, help="make shuffles, salts and bot choices reproducible")
    stop = p.add_mutually_exclusive_group()
    stop.add_argument("--hands", type=_positive_int, default=None, help="stop after this many hands (1 or more)")
    stop.add_argument("--to-end", action="store_true", help="play until the game is over (the default)")
    p.add_argument("--journal", default=None, help="journal file: resume from it after a crash or kill")
    p.add_argument("--records", default=None, help="games folder to write the record to")
    p.add_argument("--option", type=_option, action="append", metavar="NAME=VALUE",
                   help="a rule option, e.g. target=50 (repeatable)")
    p.add_argument("--fault", type=_fault, action="append", metavar="KIND:HAND",
                   help="inject a dealer fault during a hand's deal: jam:2, unplug:3 or misread:1 (repeatable)")
    p.add_argument("--speed", type=_speed, default=20000.0, help="simulated dealer speed (sim ms per real ms, 0.1 to 1e7)")
    p.add_argument("--twin", action="store_true",
                   help="the dealer's firmware on the physical twin (device/dealer/twin.py: motors, flaps, sensors "
                        "and the sorting hopper with their timings; a card goes where the flaps stand) instead "
                        "of the simulated board, which puts each card where the firmware aims it")
    p.add_argument("--twin-faults", action="store_true",
                   help="with --twin: the twin's random faults at their estimated rates (physical.toml: pickup "
                        "slips, double feeds, misreads, a gate interrupt held up by a garbage collection); where "
                        "the dealer stops for one, the simulated people do what the screen says")
    p.add_argument("--bot-level", default="rule", choices=("rule", "search", "strong"),
                   help="the bots' level: the rule bot, or a search over sampled deals with the level's "
                        "CPU time per decision (search 0.1 s, strong 0.2 s)")
    think = p.add_mutually_exclusive_group()
    think.add_argument("--budget", type=_budget, default=None, metavar="SECONDS",
                       help="with a search level: CPU seconds of search per decision instead of the level's "
                            "(the search keeps it on any machine; a slower one searches fewer deals)")
    think.add_argument("--worlds", type=_positive_int, default=None, metavar="N",
                       help="with a search level: exactly N sampled deals per decision, no time limit, so "
                            "--seed (and a --journal's resume) replays the same game on any machine")
    p.add_argument("--json", action="store_true", help="print one JSON object (the replay summary and more)")
    p.add_argument("--club", default=None, metavar="FILE",
                   help="join a club night: FILE holds the table's [club] settings (trickref club table "
                   "prints them); the table plays the round's boards from the hub and reports them")
    p.add_argument("--club-wait", type=float, default=600.0, metavar="SECONDS",
                   help="with --club: how long to wait for the hub (the round's start, its receipts)")
    p.set_defaults(func=run)
