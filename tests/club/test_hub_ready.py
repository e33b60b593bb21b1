"""The hub is ready only once the broker has taken its subscription to the tables' topics."""

from __future__ import annotations

import threading
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from club_rig import ClubRig, needs_mosquitto, raw_client, wait_for

from trickref.device.club import topics as T

pytestmark = needs_mosquitto


def test_a_table_message_sent_as_soon_as_the_hub_has_started_is_not_lost(club, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a loaded machine the hub's network thread may be held back between the broker's
    CONNACK and writing its SUBSCRIBE; a message a table sends in that moment reaches nobody
    (the hub's session is new). The hub's ``start`` returns only once the broker has
    acknowledged the subscription (the suite beside load lost a malformed message this way:
    test_security's 'dropped' count stayed short)."""
    real = mqtt.Client.subscribe

    def held_back(self: mqtt.Client, *args: Any, **kw: Any) -> tuple[int, int | None]:
        if self._client_id != T.HUB_USER.encode():
            return real(self, *args, **kw)
        threading.Timer(1.5, real, (self, *args), kw).start()  # written 1.5 s late, as under load
        return mqtt.MQTT_ERR_SUCCESS, None

    monkeypatch.setattr(mqtt.Client, "subscribe", held_back)
    rig: ClubRig = club(tables=["t1"], rounds=1, boards=1)
    rig.hub.start_round(0)
    c, _ = raw_client(rig, "t1")
    c.publish(T.table_topic("n1", "t1", "hand", 0, 0), b"\xff not json", qos=1).wait_for_publish(5)
    assert wait_for(lambda: len(rig.hub.dropped) == 1, 10), "the table's message never reached the hub"
    assert "not UTF-8" in rig.hub.dropped[0]
    c.loop_stop()
    c.disconnect()
