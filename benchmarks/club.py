"""Club night under load: 20 simulated tables against one Mosquitto on this machine.

1. Live night: ``trickref club serve`` (Mosquitto, hub and standings page) runs in its own
   processes; 20 tables (engine referees with bots in every seat, an ideal dealer, each with
   its own ``ClubLink``: outbox, QoS 1, persistent session) play ``--rounds`` rounds of
   ``--boards`` boards, started by ``trickref club round``. Measured: table messages per second
   over the night, the time from a hand's end (``hand_finished`` called at the table) to the
   standings that include it arriving at the page's feed (the viewer's MQTT subscription) and
   at a browser's event stream (``/events``), p50/p99/max, and the hub's memory (RSS of the
   serve process: hub + page server; Mosquitto's separately).
2. Catch-up: the same 20 tables play a round offline (their outboxes fill on disk), then all
   connect at once: messages per second until every receipt is back.

Afterwards every hand must be stored exactly once and the standings must equal the duplicate
scores computed from replaying every table's record; the run says so (and exits 1 if not).

Only 127.0.0.1. Prints the figures, writes ``benchmarks/results/club.json`` and the "Club
night" section of ``benchmarks/RESULTS.md`` (other sections are kept).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import paho.mqtt.client as mqtt  # noqa: E402

from trickref.device.club import scoring  # noqa: E402
from trickref.device.club import topics as T  # noqa: E402
from trickref.device.club.broker import free_port, port_open  # noqa: E402
from trickref.device.club.hub import Night  # noqa: E402
from trickref.device.club.link import ClubConfig, ClubLink  # noqa: E402
from trickref.device.club.sim import play_round  # noqa: E402
from trickref.engine.records import parse, replay  # noqa: E402

CLI = [sys.executable, "-m", "trickref.device.club.cli", "club"]


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(p / 100 * (len(s) - 1))))]


def rss_kib(pid: int) -> dict[str, int]:
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        k, _, v = line.partition(":")
        if k in ("VmRSS", "VmHWM"):
            out[k] = int(v.split()[0])
    return out


def child_pids(pid: int) -> list[int]:
    try:
        return [int(x) for x in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


class Watcher:
    """The page's feed (viewer over MQTT) and a browser's event stream, timing each hand."""

    def __init__(self, night: Night, port: int, web_port: int) -> None:
        self.mqtt_lat: dict[str, float] = {}
        self.sse_lat: dict[str, float] = {}
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="bench-watcher")
        c.username_pw_set(T.VIEWER_USER, night.passwords[T.VIEWER_USER])
        c.on_message = self._on_message
        c.connect("127.0.0.1", port)
        c.subscribe(T.standings_topic(night.name), qos=1)
        c.loop_start()
        self.client = c
        self.stop = False
        self.sse = threading.Thread(target=self._sse, args=(web_port,), daemon=True)
        self.sse.start()

    def _note(self, into: dict[str, float], doc: dict[str, Any]) -> None:
        now = time.time()
        for key, sent in (doc.get("new_hands") or {}).items():
            if sent and key not in into:
                into[key] = now - sent

    def _on_message(self, client: mqtt.Client, userdata: object, msg: mqtt.MQTTMessage) -> None:
        self._note(self.mqtt_lat, json.loads(msg.payload))

    def _sse(self, port: int) -> None:
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"GET /events HTTP/1.1\r\nHost: bench\r\n\r\n")
        buf = b""
        while not self.stop:
            chunk = s.recv(1 << 20)
            if not chunk:
                break
            buf += chunk
            while b"\n\n" in buf:
                block, buf = buf.split(b"\n\n", 1)
                for line in block.split(b"\n"):
                    if line.startswith(b"data: "):
                        self._note(self.sse_lat, json.loads(line[6:]))
        s.close()

    def close(self) -> None:
        self.stop = True
        self.client.loop_stop()
        self.client.disconnect()


def lat_summary(values: dict[str, float]) -> dict[str, Any]:
    v = [x * 1000 for x in values.values()]
    if not v:
        return {"samples": 0}
    return {"samples": len(v), "p50_ms": round(pct(v, 50), 1), "p99_ms": round(pct(v, 99), 1),
            "max_ms": round(max(v), 1), "mean_ms": round(statistics.mean(v), 1)}


CA = ""  # --tls: the night's CA certificate; the tables then connect to the TLS port


def play_tables(night: Night, d: Path, port: int, r: int, tag: str, connect: bool = True,
                pace: float = 0.0) -> tuple[dict[str, Any], list[ClubLink]]:
    records: dict[str, Any] = {}
    links: list[ClubLink] = []
    lock = threading.Lock()

    def one(i: int, t: str) -> None:
        cfg = ClubConfig(night.name, t, night.passwords[t], "127.0.0.1", port if connect else 9,
                         str(d / "tables" / f"{t}-{tag}.jsonl"), retry=10, ca=CA)
        link = ClubLink(cfg)
        if not connect:  # offline: the decks come from the released retained topics later; use the hub's file
            deals = json.loads((d / "hub" / "deals.json").read_text())
            for b, board in enumerate(deals[str(r)]):
                link.decks[(r, b)] = board["deck"]
        ref = play_round(link, r, night.game, night.players, night.options, night.boards, seed=1000 * r + i,
                         on_hand=(lambda ref, h: time.sleep(pace)) if pace else None)
        with lock:
            records[t] = ref.record()
            links.append(link)

    threads = [threading.Thread(target=one, args=(i, t)) for i, t in enumerate(night.tables)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return records, links


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", type=int, default=20)
    ap.add_argument("--pace", type=float, default=1.0,
                    help="seconds each table waits after a hand in the paced round")
    ap.add_argument("--boards", type=int, default=4)
    ap.add_argument("--game", default="hearts")
    ap.add_argument("--no-write", action="store_true", help="print only")
    ap.add_argument("--tls", action="store_true", help="tables connect over TLS (the night's own CA, "
                    "checked); figures go to results/club-tls.json and the 'Club night over TLS' section")
    args = ap.parse_args()
    global CA
    tmp = Path(tempfile.mkdtemp(prefix="club-bench-"))
    d = tmp / "night"
    night = Night("bench", args.game, 4 if args.game in ("hearts", "partnership-spades") else 2,
                  [f"t{i + 1}" for i in range(args.tables)], 3, args.boards)
    night.save(d / "night.json")
    port, web_port, tls_port = free_port(), free_port(), free_port()
    table_port = port
    if args.tls:
        from trickref.device.club.tls import make_certs

        CA = str(make_certs(d / "tls", night=night.name).ca)
        table_port = tls_port
    serve = subprocess.Popen([*CLI, "serve", str(d), "--port", str(port), "--web-port", str(web_port),
                              "--tls-port", str(tls_port)],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT)
    results: dict[str, Any] = {}
    ok = True
    try:
        deadline = time.monotonic() + 30
        while not port_open("127.0.0.1", web_port):
            if time.monotonic() > deadline or serve.poll() is not None:
                raise SystemExit(f"serve did not start: {serve.stdout.read() if serve.stdout else ''}")
            time.sleep(0.1)
        mosq = [p for p in child_pids(serve.pid)]
        watcher = Watcher(night, port, web_port)
        all_records: dict[tuple[str, int], Any] = {}
        hub_mem_before = rss_kib(serve.pid)
        # round 1: a burst (every table plays its boards back to back); round 2: paced
        for r, (mode, pace) in enumerate((("burst", 0.0), ("paced", args.pace))):
            subprocess.run([*CLI, "round", str(d), "start", str(r + 1)], check=True, cwd=ROOT, capture_output=True)
            watcher.mqtt_lat.clear()
            watcher.sse_lat.clear()
            t0 = time.monotonic()
            cpu0 = os.times()
            recs, links = play_tables(night, d, table_port, r, f"live{r}", pace=pace)
            for lk in links:
                lk.flush(60)
            live_s = time.monotonic() - t0
            cpu1 = os.times()
            for lk in links:
                lk.close()
            time.sleep(0.5)
            for t, rec in recs.items():
                all_records[(t, r)] = rec
            hands = sum(len(rec["hands"]) for rec in recs.values())
            msgs = hands + 2 * len(recs)
            results[mode] = {
                "tables": args.tables, "boards": args.boards, "game": args.game, "pace_s": pace,
                "hands": hands, "messages": msgs, "seconds": round(live_s, 2),
                "messages_per_s": round(msgs / live_s, 1),
                "tables_cpu_s": round((cpu1.user - cpu0.user) + (cpu1.system - cpu0.system), 1),
                "latency_to_feed": lat_summary(dict(watcher.mqtt_lat)),
                "latency_to_event_stream": lat_summary(dict(watcher.sse_lat)),
            }
        watcher.close()
        # 2. catch-up: a round played offline, then everyone connects at once
        r = 2
        subprocess.run([*CLI, "round", str(d), "start", str(r + 1)], check=True, cwd=ROOT, capture_output=True)
        recs, offline = play_tables(night, d, table_port, r, "offline", connect=False)
        queued = sum(len(lk.outbox) for lk in offline)
        for lk in offline:
            lk.close()
        t1 = time.monotonic()
        links = []
        for t in night.tables:
            links.append(ClubLink(ClubConfig(night.name, t, night.passwords[t], "127.0.0.1", table_port,
                                             str(d / "tables" / f"{t}-offline.jsonl"), retry=10, ca=CA)))
        for lk in links:
            lk.flush(120)
        catch_s = time.monotonic() - t1
        left = sum(len(lk.outbox) for lk in links)
        for lk in links:
            lk.close()
        for t, rec in recs.items():
            all_records[(t, r)] = rec
        results["catch_up"] = {"messages": queued, "seconds": round(catch_s, 2),
                               "messages_per_s": round(queued / catch_s, 1), "left_unreceived": left}
        mem_hub = rss_kib(serve.pid)
        mem_broker = {p: rss_kib(p) for p in mosq}
        results["memory_kib"] = {"hub_and_page_rss": mem_hub["VmRSS"], "hub_and_page_peak": mem_hub["VmHWM"],
                                 "hub_rss_before_night": hub_mem_before["VmRSS"],
                                 "mosquitto_rss": sum(m["VmRSS"] for m in mem_broker.values()),
                                 "mosquitto_peak": sum(m["VmHWM"] for m in mem_broker.values())}
        # exactly once, and standings equal to replaying the records
        lines = (d / "hub" / "results.jsonl").read_text().splitlines()
        keys = [json.loads(x)["key"] for x in lines]
        boards: dict[tuple[int, int], dict[str, list[int]]] = {}
        want = set()
        for (t, rr), rec in all_records.items():
            st = replay(parse(rec))
            for h, row in enumerate(st.hand_results):
                boards.setdefault((rr, h), {})[t] = row["points"]
                want.add(f"bench/{t}/hand/{rr}/{h}")
        got_hands = [k for k in keys if "/hand/" in k]
        once = len(got_hands) == len(set(got_hands)) and set(got_hands) == want
        totals, _ = scoring.night_scores(night.game, boards, night.method)
        with urllib_open(f"http://127.0.0.1:{web_port}/standings.json") as f:
            doc = json.loads(f.read())
        shown = {(p["table"], p["seat"]): p["score"] for p in doc["players"]}
        equal = shown == {k: round(float(v), 4) for k, v in totals.items()}
        ok = once and equal and left == 0
        results["checks"] = {"hands_stored": len(got_hands), "hands_played": len(want),
                             "every_hand_exactly_once": once, "standings_equal_replayed_records": equal}
    finally:
        serve.send_signal(signal.SIGTERM)
        try:
            serve.wait(20)
        except subprocess.TimeoutExpired:
            serve.kill()
    results.update({"tls": bool(args.tls), "platform": platform.platform(), "python": platform.python_version(),
                    "cpus": os.cpu_count(), "load_average_1min_at_end": round(os.getloadavg()[0], 2)})
    print(json.dumps(results, indent=2))
    if not args.no_write:
        out = ROOT / "benchmarks" / "results" / ("club-tls.json" if args.tls else "club.json")
        out.write_text(json.dumps(results, indent=2) + "\n")
        write_section(results)
    return 0 if ok else 1


def urllib_open(url: str) -> Any:
    import urllib.request

    return urllib.request.urlopen(url, timeout=10)


def write_section(res: dict[str, Any]) -> None:
    path = ROOT / "benchmarks" / "RESULTS.md"
    text = path.read_text() if path.exists() else "# Benchmark results\n"
    b, p, cu, m, ch = res["burst"], res["paced"], res["catch_up"], res["memory_kib"], res["checks"]

    def lat(x: dict[str, Any]) -> str:
        return f"p50 **{x.get('p50_ms')} ms**, p99 **{x.get('p99_ms')} ms**, max {x.get('max_ms')} ms ({x.get('samples')} hands)"

    tls = bool(res.get("tls"))
    title = "Club night over TLS" if tls else "Club night"
    how = (" The tables connect over TLS (`--tls`: the night's own CA from `trickref club new --tls`, the "
           "hub's certificate checked by every table; the hub and the page read the broker on 127.0.0.1 "
           "in plain MQTT)." if tls else "")
    section = f"""## {title}

`benchmarks/club.py{' --tls' if tls else ''}` on {res['platform']} (Python {res['python']}, {res['cpus']} CPUs, 1-minute load {res['load_average_1min_at_end']} at the end: other work shared the machine); figures in `benchmarks/results/{'club-tls.json' if tls else 'club.json'}`. Real Mosquitto on 127.0.0.1, `trickref club serve` (hub and page) in its own process, {b['tables']} simulated tables of {b['game']} (bots in every seat, ideal dealer, one `ClubLink` each with its fsync'd outbox, all in the benchmark's one process), {b['boards']} boards a round.{how}

| what | burst round (tables play back to back) | paced round (each table waits {p['pace_s']} s after a hand) |
|---|---|---|
| table messages | {b['messages']} in {b['seconds']} s: **{b['messages_per_s']}/s** | {p['messages']} in {p['seconds']} s: {p['messages_per_s']}/s |
| hand end to standings at the page's feed (viewer's MQTT) | {lat(b['latency_to_feed'])} | {lat(p['latency_to_feed'])} |
| hand end to a browser's event stream (`/events`) | {lat(b['latency_to_event_stream'])} | {lat(p['latency_to_event_stream'])} |

| what | figure |
|---|---|
| catch-up: a round played offline, then all {b['tables']} tables connect at once | {cu['messages']} messages in {cu['seconds']} s: **{cu['messages_per_s']}/s**, {cu['left_unreceived']} left |
| hub + page process memory | RSS {m['hub_and_page_rss'] / 1024:.1f} MiB at the end (peak {m['hub_and_page_peak'] / 1024:.1f} MiB; {m['hub_rss_before_night'] / 1024:.1f} MiB before the night) |
| Mosquitto memory | RSS {m['mosquitto_rss'] / 1024:.1f} MiB (peak {m['mosquitto_peak'] / 1024:.1f} MiB) |
| checks | {ch['hands_stored']} of {ch['hands_played']} hands stored, every hand exactly once: {ch['every_hand_exactly_once']}; standings equal replaying every record: {ch['standings_equal_replayed_records']} |

A real night is far slower than either round (a hand takes minutes: 20 tables send a result every few seconds). The latency includes the tables' side in one shared Python process (20 bots and 20 paho loops under one interpreter lock, on 2 cores shared with the hub and the broker) and one fsync per result at the hub; the hub recomputes the standings once per burst of results on its own thread.
"""
    start = text.find(f"## {title}\n")
    if start >= 0:
        end = text.find("\n## ", start + 1)
        text = text[:start] + section + (text[end + 1:] if end >= 0 else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text)


if __name__ == "__main__":
    sys.exit(main())
