"""The table's side of a club night: ``ClubLink`` publishes the table's games to the hub.

The table host calls ``game_started``, ``hand_finished`` and ``game_over`` as its referee goes;
each call writes the message to the outbox on disk (fsync) and returns at once: the network is
left to the link's own threads (paho's network loop and a sender), so the referee never waits on
Wi-Fi. Messages go out with QoS 1 on a persistent session (clean_session False) and stay in the
outbox until the hub's retained receipt names them; after a reconnect, or when no receipt came
within ``retry`` seconds, they are sent again. The hub stores each key once, so repeats are
harmless.

The link also receives the hub's deals for this table (``deck_for``), retained by the broker and
readable by this table only (the broker's ACL).
"""

from __future__ import annotations

import logging
import socket
import ssl
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from trickref.engine.records import parse, replay

from . import topics as T
from .outbox import Outbox

log = logging.getLogger("trickref.club.link")

# CONNACK reason codes (MQTT 3.1.1) in words for the kiosk
REFUSED = {
    1: "the broker does not speak this MQTT version",
    2: "the broker refused the client id",
    3: "the club hub is unavailable",
    4: "the club hub refused this table's name or password",
    5: "the club hub refused this table: not authorised (wrong name or password)",
}
# paho 2 reports MQTT 3.1.1 refusals with MQTT 5 reason codes
REFUSED.update({132: REFUSED[1], 133: REFUSED[2], 136: REFUSED[3], 134: REFUSED[4], 135: REFUSED[5]})
# seconds after the night's description for a message on this table's own topics
# (``_check_authorised``); a busy table (or broker) can take a few seconds to deliver them
RECEIPT_WAIT = 8.0
BAD_CREDENTIALS = (4, 5, 134, 135)  # retrying will not help: the link stops until told otherwise

# What went wrong, for the kiosk (``ClubLink.error_kind``; the words are in ``error``):
PASSWORD = "password"  # the broker refused the user name or password
TABLE = "table"  # the credentials are good, but not for this table (the ACL refuses its topics)
UNREACHABLE = "unreachable"  # no broker at that address (wrong address, hub down, no network)
TLS = "tls"  # the hub's certificate is not the club's, or TLS itself failed
REFUSED_KIND = "refused"  # any other refusal (protocol version, client id, server unavailable)


def diagnose(host: str, port: int, ca: str = "", timeout: float = 2.0) -> tuple[str, str]:
    """Why a connection to the broker fails, in words: (kind, words). paho only says that it
    failed, so the link asks the network itself (a TCP connection, then TLS if configured)."""
    where = f"{host}:{port}"
    try:
        socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror:
        return UNREACHABLE, f"cannot find the club hub's address {host!r} on the network"
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except ConnectionRefusedError:
        return UNREACHABLE, f"nothing answers at {where}: is the club hub running?"
    except TimeoutError:
        return UNREACHABLE, f"no answer from {where} within {timeout:g} s (wrong address, or no network)"
    except OSError as e:
        return UNREACHABLE, f"cannot reach {where}: {e.strerror or e}"
    try:
        if not ca:
            return UNREACHABLE, f"the connection to {where} failed (the club hub closed it)"
        try:
            ctx = ssl.create_default_context(cafile=ca)
        except (OSError, ssl.SSLError) as e:
            return TLS, f"cannot read the club's CA certificate {ca}: {getattr(e, 'strerror', None) or e}"
        try:
            with ctx.wrap_socket(sock, server_hostname=host):
                pass
        except ssl.SSLCertVerificationError as e:
            return TLS, f"the hub at {where} is not the club's: its certificate fails the check ({e.verify_message})"
        except (ssl.SSLError, OSError) as e:
            return TLS, f"TLS with the hub at {where} failed ({getattr(e, 'reason', None) or e}): is it the TLS port?"
        return UNREACHABLE, f"the connection to {where} failed (the club hub closed it)"
    finally:
        sock.close()


def _sendable(record: Mapping[str, Any]) -> dict[str, Any]:
    """The record as the hub takes it: the players' names cleaned and bounded
    (``topics.clean_name``); the hub names players from its own seating anyway."""
    out = dict(record)
    out["players"] = [T.clean_name(p) or f"seat {i + 1}" for i, p in enumerate(record.get("players", []))]
    return out


@dataclass
class ClubConfig:
    night: str
    table: str
    password: str
    host: str = "127.0.0.1"
    port: int = 1883
    outbox: str = "club-outbox.jsonl"
    retry: float = 10.0  # seconds before a message without a receipt is sent again
    keepalive: int = 15
    user: str = ""  # the broker user name; empty: the table's name (what ``trickref club new`` makes)
    ca: str = ""  # the club's CA certificate: TLS, the hub's certificate checked against it

    def __post_init__(self) -> None:
        T.check_name("night", self.night)
        T.check_name("table", self.table)
        if self.user:
            T.check_name("user", self.user)

    @property
    def username(self) -> str:
        return self.user or self.table

    @classmethod
    def from_settings(cls, club: Mapping[str, Any], outbox: str) -> ClubConfig:
        """From a table's ``[club]`` settings (what ``trickref club table`` prints); ValueError
        naming the setting and why."""
        def text(key: str) -> str:
            v = club.get(key)
            if not isinstance(v, str) or not v:
                raise ValueError(f"club.{key} must be a non-empty string, not {v!r}")
            return v
        port = club.get("port", 1883)
        if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
            raise ValueError(f"club.port must be a port number from 1 to 65535, not {port!r}")
        night, table, password, host = text("night"), text("table"), text("password"), text("host")
        extra: dict[str, str] = {}
        for key in ("user", "ca"):
            v = club.get(key, "")
            if not isinstance(v, str):
                raise ValueError(f"club.{key} must be text, not {v!r}")
            extra[key] = v
        try:
            return cls(night, table, password, host, port, outbox, user=extra["user"], ca=extra["ca"])
        except ValueError as e:
            raise ValueError(f"club: {e}") from None


class ClubLink:
    def __init__(self, config: ClubConfig, on_deal: Callable[[int, int, list[str]], None] | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.config = config
        self.outbox = Outbox(Path(config.outbox))
        self.on_deal = on_deal
        self.clock = clock
        self.round: int | None = None
        self.error: str | None = None
        self.error_kind: str | None = None  # PASSWORD, TABLE, UNREACHABLE, TLS or REFUSED_KIND
        self.connected = False
        self.stopped = False  # refused for good (credentials): no more tries
        self.closed = False  # closed: nothing more is queued (the outbox file stays)
        self.decks: dict[tuple[int, int], list[str]] = {}
        self.night_info: dict[str, Any] | None = None  # the hub's public/night (game, boards...)
        self.commitments: dict[int, list[str]] = {}  # round -> the boards' commitments (before it)
        self.salts: dict[int, list[str]] = {}  # round -> the boards' salts (revealed after it)
        self.seats: dict[int, list[str]] = {}  # round -> who sits where at this table (the hub's)
        self.last_receipt: float | None = None  # when the hub last acknowledged (clock())
        self.acknowledged = 0  # messages the hub acknowledged since the link started
        self._listeners: list[Callable[[], None]] = []
        self._sub_mid: int | None = None
        self._got_receipts = False  # the hub's retained receipt for this table came (readable)
        self._sent: dict[str, tuple[float, int]] = {}  # key -> (when it was last sent, how often)
        self._hub_seen: object = None  # the hub's connection, from its night description
        self._wake = threading.Condition()
        self._stop = False
        self._deck_event = threading.Condition()
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"trickref-{config.night}-{config.table}",
                        clean_session=False, protocol=mqtt.MQTTv311)
        c.username_pw_set(config.username, config.password)
        c.reconnect_delay_set(1, 5)
        c.on_connect = self._on_connect
        c.on_connect_fail = self._on_connect_fail
        c.on_disconnect = self._on_disconnect
        c.on_message = self._on_message
        c.on_subscribe = self._on_subscribe
        self.client = c
        self._sender = threading.Thread(target=self._send_loop, name=f"club-{config.table}", daemon=True)
        self._sender.start()
        if config.ca:
            try:  # the hub's certificate must be signed by the club's CA and name its address
                c.tls_set(ca_certs=config.ca, cert_reqs=ssl.CERT_REQUIRED)
            except (OSError, ssl.SSLError) as e:
                self._fail(TLS, f"cannot read the club's CA certificate {config.ca}: "
                                f"{getattr(e, 'strerror', None) or e}", stop=True)
                return
        c.connect_async(config.host, config.port, keepalive=config.keepalive)
        c.loop_start()

    # ------------------------------------------------------------------ what the table calls
    def game_started(self, round_: int, game: str, players: Sequence[str],
                     options: Mapping[str, Any] | None = None) -> None:
        self.round = round_
        self._queue("start", round_, None, {"game": game, "players": [T.clean_name(p) for p in players],
                                            "options": dict(options or {})})

    def hand_finished(self, record: Mapping[str, Any], hand_index: int, round_: int | None = None) -> None:
        """Hand ``hand_index`` (0-based) of ``record`` (Referee.record()) has ended. Its points
        and totals come from replaying the record up to that hand (the rules, not the screen)."""
        r = self._round(round_)
        hands = list(record["hands"])
        if not 0 <= hand_index < len(hands):
            raise ValueError(f"no hand {hand_index} in a record of {len(hands)} hands")
        part = _sendable(record)
        part["hands"] = hands[:hand_index + 1]
        state = replay(parse(part))
        if len(state.hand_results) <= hand_index:
            raise ValueError(f"hand {hand_index + 1} of the record has not ended")
        row = state.hand_results[hand_index]
        # the hub scores the hand itself from its plays (the record up to it); the points are
        # only compared with what the hub computes
        self._queue("hand", r, hand_index, {"points": list(row["points"]), "totals": list(row["totals"]),
                                            "record": part})

    def game_over(self, record: Mapping[str, Any], round_: int | None = None) -> None:
        self._queue("over", self._round(round_), None, {"record": _sendable(record)})

    def deck_for(self, round_: int, board: int, timeout: float = 0.0) -> list[str] | None:
        """Board ``board`` of round ``round_``'s deck from the hub, waiting up to ``timeout``."""
        deadline = time.monotonic() + timeout
        with self._deck_event:
            while (round_, board) not in self.decks:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._deck_event.wait(left)
            return list(self.decks[(round_, board)])

    def status(self) -> dict[str, Any]:
        """What the kiosk shows: connected, results waiting for the hub's receipt, the last
        receipt's time, and what went wrong (kind and words) if anything."""
        return {"connected": self.connected, "pending": len(self.outbox), "error": self.error,
                "error_kind": self.error_kind, "last_receipt": self.last_receipt,
                "acknowledged": self.acknowledged, "stopped": self.stopped}

    def add_listener(self, fn: Callable[[], None]) -> None:
        """``fn()`` whenever a deal or the night's description arrives (on the network thread)."""
        self._listeners.append(fn)

    def remove_listener(self, fn: Callable[[], None]) -> None:
        if fn in self._listeners:
            self._listeners.remove(fn)

    def _tell(self) -> None:
        for fn in list(self._listeners):
            try:
                fn()
            except Exception:  # a listener's bug must not stop the link's network loop
                log.exception("club: a listener failed")

    def released_rounds(self) -> list[int]:
        """Rounds whose decks have arrived (the director started them), in order."""
        with self._deck_event:
            return sorted({r for r, _ in self.decks})

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until the hub has acknowledged everything (tests, shutdown); True if it has."""
        deadline = time.monotonic() + timeout
        while len(self.outbox) and time.monotonic() < deadline:
            time.sleep(0.02)
        return not len(self.outbox)

    def close(self) -> None:
        with self._wake:
            self._stop = True
            self._wake.notify_all()
        self._sender.join(2)
        self.stopped = self.closed = True
        self.client.disconnect()
        self.client.loop_stop()
        self.outbox.close()

    # ------------------------------------------------------------------ internals
    def _round(self, round_: int | None) -> int:
        r = self.round if round_ is None else round_
        if r is None:
            raise ValueError("no round: call game_started first or pass round_")
        return r

    def _queue(self, kind: str, round_: int, hand: int | None, body: dict[str, Any]) -> None:
        cfg = self.config
        msg = {"v": T.VERSION, "night": cfg.night, "table": cfg.table, "kind": kind, "round": round_,
               "sent": self.clock(), **body}
        if hand is not None:
            msg["hand"] = hand
        key = T.message_key(cfg.night, cfg.table, kind, round_, hand)
        if self.outbox.put(key, T.table_topic(cfg.night, cfg.table, kind, round_, hand), T.encode(msg)):
            with self._wake:
                self._wake.notify_all()

    def _send_loop(self) -> None:
        while True:
            with self._wake:
                if self._stop:
                    return
                self._wake.wait(0.5)
                if self._stop:
                    return
            if not self.connected:
                continue
            now = time.monotonic()
            for p in self.outbox.pending():
                last = self._sent.get(p.key)
                # sent again after ``retry`` s without a receipt, then twice as long each time
                # (up to 16x): a hub that is slow to answer is not buried under copies
                if last is not None and now - last[0] < self.config.retry * 2 ** min(last[1] - 1, 4):
                    continue
                info = self.client.publish(p.topic, p.payload, qos=1)
                if info.rc == mqtt.MQTT_ERR_SUCCESS:
                    self._sent[p.key] = (now, (last[1] if last else 0) + 1)
                else:
                    break

    def _fail(self, kind: str, words: str, stop: bool = False) -> None:
        text = f"club night {self.config.night}: {words} (table {self.config.table!r})"
        if text != self.error:
            log.error("%s", text)
        self.error, self.error_kind = text, kind
        if stop:
            self.stopped = True

    def _on_connect(self, client: mqtt.Client, userdata: object, flags: object, rc: Any,
                    props: object = None) -> None:
        code = rc.value if hasattr(rc, "value") else int(rc)
        if code != 0:
            bad = code in BAD_CREDENTIALS
            self._fail(PASSWORD if bad else REFUSED_KIND, REFUSED.get(code, str(rc)), stop=bad)
            if bad:  # retrying will not help
                client.disconnect()
            return
        self.error = self.error_kind = None
        self.connected = True
        root = T.night_root(self.config.night)
        # its deals and receipts, and the night's description; a SUBACK refusal means these
        # credentials are not this table's (``_on_subscribe``)
        res, self._sub_mid = client.subscribe([(f"{root}/{T.TO}/{self.config.table}/#", 1),
                                               (T.public_topic(self.config.night, "night"), 1),
                                               (T.public_topic(self.config.night, "commit") + "/+", 1),
                                               (T.public_topic(self.config.night, "salt") + "/+", 1)])
        self._sent.clear()  # send everything not yet receipted again
        with self._wake:
            self._wake.notify_all()

    def _on_connect_fail(self, client: mqtt.Client, userdata: object) -> None:
        cfg = self.config
        kind, words = diagnose(cfg.host, cfg.port, cfg.ca)
        self._fail(kind, words + "; trying again every few seconds")

    def _check_authorised(self) -> None:
        """The hub keeps a retained receipt for every table of the night: the night's
        description came but this table's receipt did not, so the broker's ACL does not let
        these credentials read this table's topics (Mosquitto grants an MQTT 3.1.1 subscription
        it will never deliver to, and drops unauthorised publishes silently)."""
        if self._got_receipts or not self.connected or self.closed:
            return
        cfg = self.config
        self._fail(TABLE, f"user {cfg.username!r} is not authorised for table {cfg.table!r} "
                          "(the broker does not let it read the table's deals): these credentials are another table's",
                   stop=True)
        self.connected = False
        self.client.disconnect()

    def _on_subscribe(self, client: mqtt.Client, userdata: object, mid: int, codes: Any,
                      props: object = None) -> None:
        if mid != self._sub_mid:
            return
        if any(getattr(c, "is_failure", False) or getattr(c, "value", c) == 0x80 for c in codes):
            cfg = self.config
            self._fail(TABLE, f"user {cfg.username!r} is not authorised for table {cfg.table!r} "
                              "(the broker refuses its topics): these credentials are another table's",
                       stop=True)
            self.connected = False
            client.disconnect()

    def _on_disconnect(self, client: mqtt.Client, userdata: object, flags: object, rc: Any,
                       props: object = None) -> None:
        self.connected = False

    def _on_message(self, client: mqtt.Client, userdata: object, msg: mqtt.MQTTMessage) -> None:
        cfg = self.config
        if not msg.payload:
            return  # a retained message the hub erased (a round's decks once it has ended)
        try:
            body = T.loads(msg.payload)
        except ValueError:
            log.warning("club: unreadable message on %s dropped", msg.topic)
            return
        parts = msg.topic.split("/")
        if msg.topic.startswith(f"{T.night_root(cfg.night)}/{T.TO}/{cfg.table}/"):
            self._got_receipts = True  # anything on this table's own topics: these credentials read them
        if msg.topic.startswith(T.seat_topic(cfg.night, cfg.table, 0)[:-1]) and parts[-1].isdigit():
            seats = body.get("seats") if isinstance(body, dict) else None
            if isinstance(seats, list) and all(isinstance(x, str) for x in seats):
                self.seats[int(parts[-1])] = [T.clean_name(x) for x in seats]
                self._tell()
            return
        if msg.topic.startswith(T.receipts_topic(cfg.night, cfg.table) + "/"):
            self._got_receipts = True
            if isinstance(body, dict) and isinstance(body.get("keys"), list):
                hit = self.outbox.done(str(k) for k in body["keys"])
                if hit:  # (a retained receipt seen again on reconnecting acknowledges nothing new)
                    self.acknowledged += len(hit)
                    self.last_receipt = self.clock()
            return
        if msg.topic == T.public_topic(cfg.night, "night"):
            hub = body.get("hub") if isinstance(body, dict) else None
            fresh = hub != self._hub_seen
            self._hub_seen = hub
            if not msg.retain and fresh:
                # the hub has just (re)connected and subscribed (it republishes the night right
                # after): what it has not acknowledged may have gone to nobody (a broker that
                # restarted without its sessions, a hub started after the table), so send it
                # again now rather than after ``retry`` seconds
                self._sent.clear()
                with self._wake:
                    self._wake.notify_all()
            if isinstance(body, dict):
                self.night_info = body
                self._tell()
                if not self._got_receipts:
                    t = threading.Timer(RECEIPT_WAIT, self._check_authorised)
                    t.daemon = True
                    t.start()
            return
        for what, into, field in (("commit", self.commitments, "commitments"), ("salt", self.salts, "salts")):
            if msg.topic.startswith(T.public_topic(cfg.night, what) + "/") and parts[-1].isdigit():
                got = body.get(field) if isinstance(body, dict) else None
                if isinstance(got, list) and all(isinstance(x, str) for x in got):
                    into[int(parts[-1])] = list(got)
                    self._tell()
                else:
                    log.warning("club: %s without %s dropped", msg.topic, field)
                return
        if len(parts) >= 3 and parts[-3] == "deal" and parts[-2].isdigit() and parts[-1].isdigit():
            deck = body.get("deck") if isinstance(body, dict) else None
            if not isinstance(deck, list):
                log.warning("club: deal on %s without a deck dropped", msg.topic)
                return
            key = (int(parts[-2]), int(parts[-1]))
            with self._deck_event:
                self.decks[key] = [str(c) for c in deck]
                self._deck_event.notify_all()
            if self.on_deal is not None:
                self.on_deal(key[0], key[1], list(deck))
            self._tell()
