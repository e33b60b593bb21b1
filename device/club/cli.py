"""``trickref club``: create a night, serve it (Mosquitto, hub, standings page), start and end
rounds, print a table's settings, and play simulated tables against a served night.

``add_parser(sub)`` (alias ``register``) adds the ``club`` command to trickref's parser;
``python -m device.club.cli`` runs it alone.
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from trickref.engine import catalog

from . import topics as T

NIGHT_FILE = "night.json"
SERVE_FILE = "serve.json"
TLS_DIR = "tls"


class CliError(Exception):
    """A one-line problem for the user: printed, exit 2."""


def add_parser(sub: argparse._SubParsersAction) -> None:
    club = sub.add_parser("club", help="club night: many tables on one MQTT broker, duplicate deals, live standings")
    csub = club.add_subparsers(dest="club_command", required=True)

    n = csub.add_parser("new", help="create a club night in a folder (night.json with every password, 0600)")
    n.add_argument("dir", help="the night's folder (created)")
    n.add_argument("--name", default="night", help="the night's name (a-z 0-9 _ -)")
    n.add_argument("--game", default=catalog.DEFAULT, help=f"game id (one of {', '.join(catalog.game_ids())})")
    n.add_argument("--players", type=int, default=4, help="players per table")
    n.add_argument("--tables", type=int, default=4, help="number of tables (named t1, t2, ...)")
    n.add_argument("--rounds", type=int, default=2)
    n.add_argument("--boards", type=int, default=4, help="boards (hands) per round")
    n.add_argument("--method", default="average", help="average or matchpoints")
    n.add_argument("--move", default="", help="seats (from 1, comma-separated) whose players move to "
                   "the next table after each round, e.g. 2,4; default: nobody moves")
    n.add_argument("--tls", action="store_true", help="make the night's CA and the hub's certificate "
                   "(NIGHT_DIR/tls, with openssl): tables then connect over TLS")
    n.add_argument("--tls-name", action="append", default=[], metavar="NAME",
                   help="a host name or address tables use to reach the hub (repeatable; implies --tls). "
                   "Without it the certificate names this machine (its host name, name.local and its "
                   "network addresses); localhost and 127.0.0.1 are always in")
    n.add_argument("--rehearsal", action="store_true",
                   help="a rehearsal night: 'club sim' plays only rehearsal nights (never a live table's identity)")
    n.set_defaults(func=run, club_func=_cmd_new)

    s = csub.add_parser("serve", help="run the broker, the hub and the standings page until Ctrl+C")
    s.add_argument("dir")
    s.add_argument("--host", default="127.0.0.1", help="address for the broker and the page (0.0.0.0: the club's network)")
    s.add_argument("--port", type=int, default=1883, help="MQTT port")
    s.add_argument("--web-port", type=int, default=8080)
    s.add_argument("--tls-port", type=int, default=8883,
                   help="with a TLS night (new --tls): the TLS port tables use on --host; the plain "
                   "--port then listens on 127.0.0.1 only (for the hub)")
    s.add_argument("--use-broker", action="store_true",
                   help="use a Mosquitto already running at --host:--port (configured with <dir>/broker's passwd and acl)")
    s.set_defaults(func=run, club_func=_cmd_serve)

    r = csub.add_parser("round", help="start a round (release its decks) or end it (reveal its salts)")
    r.add_argument("dir")
    r.add_argument("action", choices=("start", "end"))
    r.add_argument("number", type=int, help="the round, counted from 1")
    r.add_argument("--force", default="", metavar="REASON",
                   help="end the round although some tables have not finished it (the reason is logged)")
    r.set_defaults(func=run, club_func=_cmd_round)

    t = csub.add_parser("table", help="a table's club settings (its password: written 0600)")
    t.add_argument("dir")
    t.add_argument("table")
    t.add_argument("--out", default="", help="write them to this file (0600) instead of printing them")
    t.add_argument("--host", default="", help="the hub's address as the tables reach it (default: the address "
                   "it serves on, or this machine's network address when it serves on every address)")
    t.set_defaults(func=run, club_func=_cmd_table)

    m = csub.add_parser("sim", help="simulated tables (bots) play a round of a served rehearsal night")
    m.add_argument("dir")
    m.add_argument("--tables", default="", help="comma-separated table names (default: all)")
    m.add_argument("--round", type=int, default=1, help="the round, counted from 1")
    m.add_argument("--seed", type=int, default=0)
    m.add_argument("--wait", action="store_true",
                   help="wait for the director to start the round (club round, or the console) instead of "
                        "starting it when nobody has")
    m.set_defaults(func=run, club_func=_cmd_sim)


register = add_parser


def _night(folder: str) -> Any:
    from .hub import Night

    path = Path(folder) / NIGHT_FILE
    if not path.exists():
        raise CliError(f"no club night in {folder} (no {NIGHT_FILE}): create one with 'trickref club new {folder}'")
    try:
        return Night.load(path)
    except (ValueError, TypeError) as e:
        raise CliError(str(e)) from None


def _tls(folder: str) -> Any:
    """The night's TLS files when it was made with --tls, else None."""
    from .tls import TlsFiles

    files = TlsFiles.in_folder(Path(folder) / TLS_DIR)
    return files if files.exist() else None


def _served(folder: str) -> dict[str, Any]:
    path = Path(folder) / SERVE_FILE
    try:
        obj = json.loads(path.read_text())
        out = {"host": str(obj["host"]), "port": int(obj["port"])}
        for k in ("tls_port", "web_port"):
            if obj.get(k):
                out[k] = int(obj[k])
        return out
    except (OSError, ValueError, KeyError, TypeError):
        raise CliError(f"the night in {folder} is not being served (no readable {SERVE_FILE}): "
                       f"run 'trickref club serve {folder}' first") from None


def _cmd_new(args: argparse.Namespace) -> int:
    from trickref.engine.errors import RecordError

    from .hub import Night

    folder = Path(args.dir)
    if (folder / NIGHT_FILE).exists():
        raise CliError(f"{folder / NIGHT_FILE} already exists: a night is never overwritten")
    if not 1 <= args.tables <= T.MAX_TABLES:
        raise CliError(f"--tables must be from 1 to {T.MAX_TABLES}, not {args.tables}")
    try:
        move = [int(x) - 1 for x in args.move.split(",") if x.strip()]
    except ValueError:
        raise CliError(f"--move must be seat numbers separated by commas, not {args.move!r}") from None
    try:
        night = Night(args.name, args.game, args.players, [f"t{i + 1}" for i in range(args.tables)],
                      args.rounds, args.boards, args.method, moving_seats=move, rehearsal=args.rehearsal)
    except (ValueError, RecordError) as e:
        raise CliError(str(e)) from None
    files = None
    if args.tls or args.tls_name:
        from .tls import TlsError, make_certs

        names = list(args.tls_name) or machine_names()
        try:
            files = make_certs(folder / TLS_DIR, names, night.name)
        except TlsError as e:
            raise CliError(str(e)) from None
    night.save(folder / NIGHT_FILE)
    print(f"club night {night.name}: {night.game}, {len(night.tables)} tables of {night.players}, "
          f"{night.rounds} rounds of {night.boards} boards, scored {night.method}")
    print(f"written {folder / NIGHT_FILE} (0600: it holds every password)")
    if files is not None:
        print(f"TLS: the club's CA {files.ca} (give it to every table) and the hub's certificate {files.cert} "
              f"for {', '.join(names + ['localhost', '127.0.0.1'])}")
    print(f"next: trickref club serve {folder}; each table's settings: trickref club table {folder} t1")
    return 0


def lan_addresses() -> list[str]:
    """This machine's addresses on its networks (not loopback), best first: the one its
    default route leaves from, then the others its host name resolves to."""
    import socket

    out: list[str] = []
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # (no packet is sent: this only picks the route)
            out.append(s.getsockname()[0])
    except OSError:
        pass
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            a = str(info[4][0])
            if a not in out:
                out.append(a)
    except OSError:
        pass
    return [a for a in out if not a.startswith("127.") and a != "0.0.0.0"]


WILDCARD = ("0.0.0.0", "::", "")


def machine_names() -> list[str]:
    """The names and addresses tables may use for this machine: its host name, name.local
    (mDNS) and its network addresses."""
    import socket

    host = socket.gethostname().split(".")[0]
    ok = bool(host) and host != "localhost" and all(c.isalnum() or c == "-" for c in host)
    out = [host, f"{host}.local"] if ok else []
    return out + [a for a in lan_addresses() if a not in out]


def _cmd_table(args: argparse.Namespace) -> int:
    import os
    import stat

    night = _night(args.dir)
    if args.table not in night.tables:
        raise CliError(f"no table {args.table!r} in night {night.name} (tables: {', '.join(night.tables)})")
    try:
        served = _served(args.dir)
    except CliError:
        served = {"host": "", "port": 1883}
    host = args.host or served["host"]
    note = ""
    if host in WILDCARD:  # served on every address: the tables need one of them
        found = lan_addresses()
        if not found:
            raise CliError("the hub serves on every address and this machine has no network address to give "
                           "the tables: name it with --host")
        host = found[0]
        if len(found) > 1:
            note = f"  # this machine's other addresses: {', '.join(found[1:4])}"
    lines = ["[club]", f'night = "{night.name}"', f'table = "{args.table}"',
             f'password = "{night.passwords[args.table]}"',
             f'host = "{host}"{note}' if host else 'host = ""  # the hub\'s address: serve the night first, or --host']
    files = _tls(args.dir)
    if files is not None:
        lines.append(f"port = {served.get('tls_port', 8883)}")
        lines.append(f'ca = "{files.ca.resolve()}"  # copy this file to the table and name it here')
    else:
        lines.append(f"port = {served['port']}")
    out = "\n".join(lines) + "\n"
    if args.out:
        from .hub import write_private

        write_private(Path(args.out), out)
        print(f"table {args.table}'s settings written to {args.out} (0600: they hold its password)", file=sys.stderr)
        return 0
    # printed: when that is into a file (club table night/ t1 > t1.toml) the shell made it with
    # its umask, readable by everyone: the password must not be
    try:
        st = os.fstat(sys.stdout.fileno())
        if stat.S_ISREG(st.st_mode) and st.st_mode & 0o077:
            os.fchmod(sys.stdout.fileno(), 0o600)
            print("(the file these settings go into is now 0600: it holds the table's password)", file=sys.stderr)
    except (OSError, ValueError):
        pass
    sys.stdout.write(out)
    return 0


def _console(folder: str, what: str, body: dict[str, Any]) -> dict[str, Any]:
    """A console action on the served night's hub (HTTP, the director's password)."""
    import base64
    import urllib.error
    import urllib.request

    night = _night(folder)
    served = _served(folder)
    port = served.get("web_port")
    if not port:
        raise CliError(f"the night in {folder} was served by an older trickref: serve it again")
    # the console listens where the night is served: on a wildcard, 127.0.0.1 reaches it; on one
    # address (serve --host 192.168.1.20), only that address does
    host = "127.0.0.1" if served["host"] in WILDCARD else served["host"]
    where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    req = urllib.request.Request(f"http://{where}/console/api/{what}", data=json.dumps(body).encode(),
                                 method="POST", headers={"Content-Type": "application/json", "X-Trickref-Console": "1"})
    token = base64.b64encode(f"{T.DIRECTOR_USER}:{night.passwords[T.DIRECTOR_USER]}".encode()).decode()
    req.add_header("Authorization", "Basic " + token)
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            return dict(json.loads(r.read()))
    except urllib.error.HTTPError as e:
        try:
            answer = json.loads(e.read())
        except ValueError:
            answer = {}
        raise CliError(str(answer.get("error") or f"the hub answered {e.code} {e.reason}")) from None
    except OSError as e:
        raise CliError(f"cannot reach the hub's console at {where}: "
                       f"{getattr(e, 'reason', None) or e} (is 'trickref club serve {folder}' running?)") from None


def _cmd_round(args: argparse.Namespace) -> int:
    night = _night(args.dir)
    if not 1 <= args.number <= night.rounds:
        raise CliError(f"round must be from 1 to {night.rounds}, not {args.number}")
    body: dict[str, Any] = {"action": args.action, "round": args.number - 1}
    if args.action == "end" and args.force:
        body["reason"] = args.force
    answer = _console(args.dir, "round", body)
    print(answer.get("words", "done"))
    return 0


def _interrupt(*_a: object) -> None:
    """SIGTERM's handler: once, as Ctrl+C (a second SIGTERM does not cut the clean stop short)."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise KeyboardInterrupt


def _cmd_serve(args: argparse.Namespace) -> int:
    """Serve the night until Ctrl+C or SIGTERM (systemd stopping the service, a kill), which stop
    it cleanly at any moment: also while the broker, the hub or the page are still starting (a
    handler installed only once all had started let an early SIGTERM kill the process mid-start,
    Mosquitto left running and nothing said)."""
    parts: dict[str, Any] = {}
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        _serve(args, parts)
    except KeyboardInterrupt:
        pass
    finally:
        for name in ("web", "hub", "broker"):
            part = parts.get(name)
            if part is not None:
                part.stop()
        signal.signal(signal.SIGTERM, previous)
    print("stopping")
    return 0


def _serve(args: argparse.Namespace, parts: dict[str, Any]) -> None:
    """Start the broker (or use a running one), the hub and the page, each put in ``parts`` as
    soon as it exists (the caller stops what is there), and wait."""
    from .broker import Broker, BrokerError, port_open
    from .hub import Hub, broker_for, write_private
    from .web import Site

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S")
    night = _night(args.dir)
    folder = Path(args.dir)
    broker: Broker | None = None
    files = _tls(args.dir)
    local = "127.0.0.1" if files is not None else args.host  # with TLS, plain MQTT stays on this machine
    if args.use_broker:
        if not port_open(args.host, args.port):
            raise CliError(f"--use-broker: nothing listens at {args.host}:{args.port}")
        b = broker_for(night, folder / "broker", args.port, args.host)
        b.write_config()  # its passwd and acl, for the running broker to load
        print(f"using the broker already running at {args.host}:{args.port}; give it "
              f"{folder / 'broker' / 'passwd'} and {folder / 'broker' / 'acl'}")
    else:
        if port_open(local, args.port):
            raise CliError(f"port {args.port} on {local} is taken (a broker already running? "
                           "then add --use-broker, or choose another --port)")
        broker = parts["broker"] = broker_for(night, folder / "broker", args.port, local)
        if files is not None:
            broker.tls_files, broker.tls_port, broker.tls_host = files, args.tls_port, args.host
        try:
            broker.start()
        except BrokerError as e:
            raise CliError(str(e)) from None
        print(f"Mosquitto listening at {local}:{broker.port} (log: {folder / 'broker' / 'mosquitto.log'})")
        if files is not None:
            print(f"TLS: tables connect to {args.host}:{broker.tls_port} with the club's CA {files.ca}")
    served = {"host": args.host, "port": args.port, "web_port": args.web_port}
    if files is not None:
        served["tls_port"] = args.tls_port
    write_private(folder / SERVE_FILE, json.dumps(served) + "\n")
    try:
        hub = parts["hub"] = Hub(night, folder / "hub", local, args.port).start()
    except RuntimeError as e:
        raise CliError(str(e)) from None
    for words in [*(broker.problems if broker is not None else []), *hub.problems]:
        print(f"stored data: {words}")
    try:
        web = parts["web"] = Site(hub, args.host, args.web_port).start()
    except OSError as e:
        raise CliError(f"cannot serve the page on {args.host}:{args.web_port}: {e.strerror or e}") from None
    print(f"standings page: {web.url}")
    print(f"director's console: {web.url}console (user director, password in {folder / NIGHT_FILE})")
    print(f"start a round: trickref club round {args.dir} start 1   (Ctrl+C stops)")
    sys.stdout.flush()
    forever = threading.Event()
    while not forever.wait(1):  # until Ctrl+C or SIGTERM (KeyboardInterrupt)
        pass


def _start_unless_started(folder: str, number: int) -> None:
    """A rehearsal's round, started by ``club sim`` when nobody has (it was: the bots waited two
    minutes for decks nobody released, then said so). A round that may not start yet (the one
    before it not ended) is said at once."""
    try:
        print(_console(folder, "round", {"action": "start", "round": number - 1}).get("words", "started"))
    except CliError as e:
        if f"round {number} has already started" not in str(e):
            raise CliError(f"round {number} cannot start: {e}") from None


def _cmd_sim(args: argparse.Namespace) -> int:
    from .link import ClubConfig, ClubLink
    from .sim import NoDeck, play_round

    night = _night(args.dir)
    if not night.rehearsal:
        raise CliError(f"night {night.name} is a live night: club sim plays only rehearsal nights, never a live "
                       f"table's identity (make one: trickref club new REHEARSAL_DIR --rehearsal ...)")
    served = _served(args.dir)
    names = [t for t in args.tables.split(",") if t] or night.tables
    for t in names:
        if t not in night.tables:
            raise CliError(f"no table {t!r} in night {night.name}")
    if not 1 <= args.round <= night.rounds:
        raise CliError(f"--round must be from 1 to {night.rounds}, not {args.round}")
    r = args.round - 1
    if not args.wait:
        _start_unless_started(args.dir, args.round)
    errors: list[str] = []
    done: dict[str, str] = {}

    files = _tls(args.dir)
    host = "127.0.0.1" if served["host"] in WILDCARD else served["host"]

    def one(i: int, t: str) -> None:
        cfg = ClubConfig(night.name, t, night.passwords[t], host,
                         served["tls_port"] if files is not None else served["port"],
                         str(Path(args.dir) / "sim" / f"{t}-outbox.jsonl"), retry=5,
                         ca=str(files.ca) if files is not None else "")
        link = ClubLink(cfg)
        try:
            ref = play_round(link, r, night.game, night.players, night.options, night.boards,
                             seed=args.seed * 1000 + 100 * r + i, names=night.seating(r)[t])
            hands = len(ref.record()["hands"])
            ok = link.flush(60)
            # said after every table is done: two threads printing at once interleave their lines
            done[t] = (f"{t}: round {args.round}, {hands} hand{'' if hands == 1 else 's'}"
                       + ("" if ok else f", {len(link.outbox)} not yet received"))
        except NoDeck as e:
            errors.append(f"{t}: {e} (has the round been started? trickref club round {args.dir} start {args.round})")
        finally:
            if link.error:
                errors.append(f"{t}: {link.error}")
            link.close()

    threads = [threading.Thread(target=one, args=(i, t)) for i, t in enumerate(names)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    for t in names:
        if t in done:
            print(done[t])
    for e in errors:
        print(e, file=sys.stderr)
    return 1 if errors else 0


def run(args: argparse.Namespace) -> int:
    try:
        return int(args.club_func(args) or 0)
    except CliError as e:
        print(f"trickref club {args.club_command}: {e}", file=sys.stderr)
        return 2


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="trickref")
    sub = p.add_subparsers(dest="command", required=True)
    add_parser(sub)
    args = p.parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
