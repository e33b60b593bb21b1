import json
import os
import stat

from trickref.device.club.outbox import Outbox


def test_outbox_survives_a_restart_and_forgets_receipted(tmp_path) -> None:
    p = tmp_path / "o" / "outbox.jsonl"
    ob = Outbox(p)
    assert ob.put("n/t1/hand/0/0", "a/b", b'{"x":1}')
    assert ob.put("n/t1/hand/0/1", "a/c", b'{"x":2}')
    assert not ob.put("n/t1/hand/0/0", "a/b", b'{"x":1}')  # idempotent
    assert stat.S_IMODE(os.stat(p).st_mode) == 0o600
    ob.close()
    ob = Outbox(p)  # a restart: both still pending, bytes unchanged
    assert [(x.key, x.topic, x.payload) for x in ob.pending()] == [
        ("n/t1/hand/0/0", "a/b", b'{"x":1}'), ("n/t1/hand/0/1", "a/c", b'{"x":2}')]
    assert ob.done(["n/t1/hand/0/0", "unknown"]) == ["n/t1/hand/0/0"]
    ob.close()
    ob = Outbox(p)
    assert [x.key for x in ob.pending()] == ["n/t1/hand/0/1"]
    assert not ob.put("n/t1/hand/0/0", "a/b", b'{"x":1}')  # already received by the hub
    ob.done(["n/t1/hand/0/1"])
    assert len(ob) == 0
    ob.close()
    lines = p.read_text().splitlines()
    assert len(lines) == 1 and sorted(json.loads(lines[0])["done"]) == ["n/t1/hand/0/0", "n/t1/hand/0/1"]


def test_torn_last_line_is_dropped_with_a_log_line(tmp_path, caplog) -> None:
    p = tmp_path / "outbox.jsonl"
    ob = Outbox(p)
    ob.put("k1", "t", b"{}")
    ob.close()
    with open(p, "a") as f:
        f.write('{"put":"k2","topic":"t","pay')  # power cut mid-write
    ob = Outbox(p)
    assert [x.key for x in ob.pending()] == ["k1"]
    assert "torn last write" in caplog.text
    ob.close()
