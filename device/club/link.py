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

import json
import logging
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

    def __post_init__(self) -> None:
        T.check_name("night", self.night)
        T.check_name("table", self.table)

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
        try:
            return cls(night, table, password, host, port, outbox)
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
        self.connected = False
        self.decks: dict[tuple[int, int], list[str]] = {}
        self._sent: dict[str, float] = {}
        self._wake = threading.Condition()
        self._stop = False
        self._deck_event = threading.Condition()
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"trickref-{config.night}-{config.table}",
                        clean_session=False, protocol=mqtt.MQTTv311)
        c.username_pw_set(config.table, config.password)
        c.reconnect_delay_set(1, 5)
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_message = self._on_message
        self.client = c
        self._sender = threading.Thread(target=self._send_loop, name=f"club-{config.table}", daemon=True)
        c.connect_async(config.host, config.port, keepalive=config.keepalive)
        c.loop_start()
        self._sender.start()

    # ------------------------------------------------------------------ what the table calls
    def game_started(self, round_: int, game: str, players: Sequence[str],
                     options: Mapping[str, Any] | None = None) -> None:
        self.round = round_
        self._queue("start", round_, None, {"game": game, "players": list(players),
                                            "options": dict(options or {})})

    def hand_finished(self, record: Mapping[str, Any], hand_index: int, round_: int | None = None) -> None:
        """Hand ``hand_index`` (0-based) of ``record`` (Referee.record()) has ended. Its points
        and totals come from replaying the record up to that hand (the rules, not the screen)."""
        r = self._round(round_)
        hands = list(record["hands"])
        if not 0 <= hand_index < len(hands):
            raise ValueError(f"no hand {hand_index} in a record of {len(hands)} hands")
        part = dict(record)
        part["hands"] = hands[:hand_index + 1]
        state = replay(parse(part))
        if len(state.hand_results) <= hand_index:
            raise ValueError(f"hand {hand_index + 1} of the record has not ended")
        row = state.hand_results[hand_index]
        self._queue("hand", r, hand_index, {"points": list(row["points"]), "totals": list(row["totals"]),
                                            "entry": hands[hand_index], "game": record["game"]})

    def game_over(self, record: Mapping[str, Any], round_: int | None = None) -> None:
        self._queue("over", self._round(round_), None, {"record": dict(record)})

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
        return {"connected": self.connected, "pending": len(self.outbox), "error": self.error}

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
                if last is not None and now - last < self.config.retry:
                    continue
                info = self.client.publish(p.topic, p.payload, qos=1)
                if info.rc == mqtt.MQTT_ERR_SUCCESS:
                    self._sent[p.key] = now
                else:
                    break

    def _on_connect(self, client: mqtt.Client, userdata: object, flags: object, rc: Any,
                    props: object = None) -> None:
        code = rc.value if hasattr(rc, "value") else int(rc)
        if code != 0:
            words = REFUSED.get(code, str(rc))
            self.error = f"club night {self.config.night}: {words} (table {self.config.table!r})"
            log.error("%s", self.error)
            if code in (4, 5, 134, 135):  # bad credentials: retrying will not help
                client.disconnect()
            return
        self.error = None
        self.connected = True
        root = T.night_root(self.config.night)
        client.subscribe(f"{root}/{T.TO}/{self.config.table}/#", qos=1)
        self._sent.clear()  # send everything not yet receipted again
        with self._wake:
            self._wake.notify_all()

    def _on_disconnect(self, client: mqtt.Client, userdata: object, flags: object, rc: Any,
                       props: object = None) -> None:
        self.connected = False

    def _on_message(self, client: mqtt.Client, userdata: object, msg: mqtt.MQTTMessage) -> None:
        cfg = self.config
        try:
            body = json.loads(msg.payload)
        except (json.JSONDecodeError, UnicodeDecodeError):
            log.warning("club: unreadable message on %s dropped", msg.topic)
            return
        if msg.topic == T.receipts_topic(cfg.night, cfg.table):
            if isinstance(body, dict) and isinstance(body.get("keys"), list):
                self.outbox.done(str(k) for k in body["keys"])
            return
        parts = msg.topic.split("/")
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
