"""``trickref verify RECORD``: check the fair-dealing commitments of a finished game.

Every hand of a record written by the table carries ``commitment`` (shown on screen before the
deal) and ``salt`` (revealed when the hand ended). This command recomputes each hash from the
recorded deck and salt, and re-derives every Double Nil replacement from the salt, printing one
line per hand: ``hand 3: OK 1a2b3c4d5e6f`` or ``hand 3: MISMATCH ...: what differs``.

Hands and actions are counted from 1 and seats named by their players, as ``trickref replay``
does; in ``--json`` output ``hand`` is the 0-based index, as in docs/RECORDS.md. A salt shorter
than 128 bits (32 hex digits) is a mismatch: it would not stop a brute-force of the deck.

Exit status: 0 when every hand verifies, 1 on any mismatch, 2 when the file is not a valid
record (the message names the field).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def run(path: str, as_json: bool = False) -> int:
    from trickref.engine.errors import RecordError
    from trickref.engine.records import load
    from trickref.engine.referee.fairness import verify_record

    try:
        record = load(path)
        checks = verify_record(record)
    except RecordError as e:
        print(f"trickref verify: {path}: invalid record: {e}", file=sys.stderr)
        return 2
    if not checks:
        print(f"trickref verify: {path}: the record has no hands to check", file=sys.stderr)
        return 1
    ok = all(c.ok for c in checks)
    if as_json:
        print(json.dumps({
            "ok": ok,
            "hands": [{"hand": c.hand, "ok": c.ok, "commitment": c.commitment, "problems": c.problems} for c in checks],
        }))
    else:
        for c in checks:
            print(c.line())
        print("all hands verify" if ok else "MISMATCH: the record does not match its commitments")
    return 0 if ok else 1


def _cmd(args: argparse.Namespace) -> int:
    return run(args.record, args.json)


def add_parser(sub: Any) -> None:
    p = sub.add_parser("verify", help="check every hand of a game record against its fair-dealing commitment")
    p.add_argument("record", help="the record file (- for standard input)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd)
