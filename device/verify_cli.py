"""``trickref verify RECORD``: check the fair-dealing commitments and the plays of a game.

Every hand of a record written by the table carries ``commitment`` (shown on screen before the
deal) and ``salt`` (revealed when the hand ended), and every finished hand its ``points`` and the
``chain`` head of the plays (shown on screen and in the hand's QR code when it ended). This
command recomputes each commitment from the recorded deck and salt, re-derives every Double Nil
replacement from the salt, replays every action through the rules (each must be legal, and the
hand must score the points recorded), and recomputes the chain of plays, printing one line per
hand: ``hand 3: OK 1a2b... plays 5e6f...`` or ``hand 3: MISMATCH ...: what differs``.

``--scan CODE`` (repeatable; or ``--scans FILE``, one per line) compares the record with check
codes read from the table's QR codes (the text or the whole address a phone shows): the hand
with the same commitment must have the same deck, salt and chain head, which catches a record
rewritten with a chain recomputed to fit (docs/FAIRNESS.md). ``--deal-only`` accepts hands
recorded before the chain existed.

Hands and actions are counted from 1 and seats named by their players, as ``trickref replay``
does; in ``--json`` output ``hand`` is the 0-based index, as in docs/RECORDS.md. A salt shorter
than 128 bits (32 hex digits) is a mismatch: it would not stop a brute-force of the deck.

Exit status: 0 when every hand verifies, 1 on any mismatch, 2 when the file is not a valid
record (the message names the field) or a scan is not a check code.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any


def run(path: str, as_json: bool = False, scans: Sequence[str] = (), deal_only: bool = False) -> int:
    from trickref.engine.errors import RecordError
    from trickref.engine.records import load
    from trickref.engine.referee.fairness import unmatched_scans, verify_record

    try:
        codes = read_scans(scans)
    except ValueError as e:
        print(f"trickref verify: {e}", file=sys.stderr)
        return 2
    try:
        record = load(path)
        checks = verify_record(record, codes, deal_only)
    except RecordError as e:
        print(f"trickref verify: {path}: invalid record: {e}", file=sys.stderr)
        return 2
    if not checks:
        print(f"trickref verify: {path}: the record has no hands to check", file=sys.stderr)
        return 1
    stray = [f"the QR code of hand {c.hand} (commitment {c.commitment[:24]}) matches no hand of this record"
             for c in unmatched_scans(record, codes)]
    ok = all(c.ok for c in checks) and not stray
    if as_json:
        print(json.dumps({
            "ok": ok,
            "hands": [{"hand": c.hand, "ok": c.ok, "commitment": c.commitment, "chain": c.chain, "points": c.points,
                       "scanned": c.scanned, "problems": c.problems} for c in checks],
            "scans": stray,
        }))
    else:
        for c in checks:
            print(c.line())
        for line in stray:
            print(f"MISMATCH: {line}")
        print("all hands verify" if ok else "MISMATCH: the record does not match its commitments and chain")
    return 0 if ok else 1


def read_scans(scans: Sequence[str]) -> list[Any]:
    """The check codes given with --scan / --scans (checkcode.decode); ValueError names the bad one."""
    from trickref.engine.referee.checkcode import CheckCodeError, decode

    out = []
    for i, text in enumerate(scans):
        try:
            out.append(decode(text))
        except CheckCodeError as e:
            raise ValueError(f"scan {i + 1} is not a check code: {e}") from None
    return out


def _scan_texts(args: argparse.Namespace) -> list[str]:
    texts = list(args.scan or [])
    for name in args.scans or []:
        try:
            with open(name, encoding="utf-8") as f:
                texts += [ln.strip() for ln in f if ln.strip()]
        except (OSError, UnicodeDecodeError) as e:
            raise ValueError(f"cannot read the scans file {name}: {getattr(e, 'strerror', None) or e}") from None
    return texts


def _cmd(args: argparse.Namespace) -> int:
    try:
        scans = _scan_texts(args)
    except ValueError as e:
        print(f"trickref verify: {e}", file=sys.stderr)
        return 2
    return run(args.record, args.json, scans, args.deal_only)


def add_parser(sub: Any) -> None:
    p = sub.add_parser("verify", help="check every hand of a game record against its fair-dealing commitment "
                                      "and its chain of plays")
    p.add_argument("record", help="the record file (- for standard input)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--scan", action="append", metavar="CODE",
                   help="a check code read from the table's QR code (the text or the whole address); repeatable")
    p.add_argument("--scans", action="append", metavar="FILE", help="a file of check codes, one per line")
    p.add_argument("--deal-only", action="store_true",
                   help="accept hands recorded without a chain of plays (records from before it existed)")
    p.set_defaults(func=_cmd)
