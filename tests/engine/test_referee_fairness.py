"""Fair dealing: commitments verify, a tampered deck, salt or Double Nil replacement fails, and
``trickref verify`` prints OK/MISMATCH per hand with exit 0 / 1 / 2."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest

from trickref.engine import actions as A
from trickref.engine.referee import fairness
from trickref.engine.referee.autotable import AutoTable, engine_bot
from trickref.engine.referee.commands import SaveRecord
from trickref.engine.referee.events import make_shuffle
from trickref.ui.cli import main


def finished_record(game: str = "hearts", n: int = 4, seed: int = 1, chooser=None, **opts) -> dict:  # type: ignore[no-untyped-def]
    t = AutoTable(seed=seed, entry="mixed", chooser=chooser)
    t.run(game, n, opts or None, max_hands=3)
    return [c for c in t.commands if isinstance(c, SaveRecord)][-1].record


def double_nil_chooser(game: str = "spades-2p"):  # type: ignore[no-untyped-def]
    bot = engine_bot(game)

    def choose(state, seat, rng):  # type: ignore[no-untyped-def]
        for a in state.legal_actions(seat):
            if a.kind == "double_nil":
                return a
        return bot(state, seat, rng)

    return choose


def test_commitment_is_deterministic_and_salted() -> None:
    s = make_shuffle(1, random.Random(1))
    c = fairness.commitment(s.deck, s.salt)
    assert c == fairness.commitment(list(s.deck), s.salt) and len(c) == 64
    assert c != fairness.commitment(s.deck, s.salt + "0")
    assert fairness.short(c).replace(" ", "") == c[:24] and len(c[:24]) * 4 >= 80
    assert make_shuffle(1).salt != make_shuffle(1).salt  # secrets by default


def test_a_finished_game_verifies() -> None:
    rec = finished_record()
    checks = fairness.verify_record(rec)
    assert len(checks) == 3 and all(c.ok for c in checks)
    assert all(c.line().startswith(f"hand {c.hand + 1}: OK ") for c in checks)


def test_a_tampered_deck_fails() -> None:
    rec = finished_record()
    bad = copy.deepcopy(rec)
    deck = bad["hands"][1]["deck"]
    deck[10], deck[40] = deck[40], deck[10]
    checks = fairness.verify_record(bad)
    assert checks[0].ok and not checks[1].ok
    assert "do not hash to the commitment" in checks[1].problems[0]
    bad = copy.deepcopy(rec)
    bad["hands"][2]["salt"] = "00" * 16
    assert [c.ok for c in fairness.verify_record(bad)] == [True, True, False]
    bad = copy.deepcopy(rec)
    del bad["hands"][0]["commitment"]
    assert not fairness.verify_record(bad)[0].ok


def test_double_nil_replacements_come_from_the_salt() -> None:
    rec = finished_record("spades-2p", 2, chooser=double_nil_chooser())
    exchanges = [(h, a) for h, hand in enumerate(rec["hands"]) for a in hand["actions"] if "exchange" in a]
    assert exchanges
    assert all(c.ok for c in fairness.verify_record(rec))
    # Swap a replacement for another discard: the verifier catches it.
    bad = copy.deepcopy(rec)
    for hand in bad["hands"]:
        for a in hand["actions"]:
            if "exchange" in a and a["exchange"]["get"]:
                held = {x for b in hand["actions"] if "exchange" in b for x in b["exchange"]["give"]}
                got = set(a["exchange"]["get"])
                pool = [c for c in hand["deck"] if c not in got and c not in held]
                a["exchange"]["get"][0] = pool[-1]
                break
        else:
            continue
        break
    checks = fairness.verify_record(bad)
    assert not all(c.ok for c in checks)
    assert any("the salt draws" in p or "cannot" in p for c in checks for p in c.problems)


def test_replacements_are_a_pure_function() -> None:
    pool = list(range(26))
    a = fairness.replacements("ab" * 16, 3, 1, pool, 3)
    assert a == fairness.replacements("ab" * 16, 3, 1, list(reversed(pool)), 3)
    assert len(set(a)) == 3 and set(a) <= set(pool)
    assert fairness.replacements("ab" * 16, 3, 1, pool, 0) == ()
    assert A.exchange([], []).value == ((), ())


def test_verify_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = finished_record()
    good = tmp_path / "good.json"
    good.write_text(json.dumps(rec))
    assert main(["verify", str(good)]) == 0
    out = capsys.readouterr().out
    assert out.count(": OK ") == 3 and "all hands verify" in out
    bad_rec = copy.deepcopy(rec)
    d = bad_rec["hands"][0]["deck"]
    d[0], d[1] = d[1], d[0]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(bad_rec))
    assert main(["verify", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "hand 1: MISMATCH" in out
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    assert main(["verify", str(broken)]) == 2
    assert "invalid record" in capsys.readouterr().err
    assert main(["verify", "--json", str(good)]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True


def test_records_keep_commitment_salt_and_corrections() -> None:
    """The added record fields survive parse/dump; records without them are unchanged."""
    from trickref.engine.errors import RecordError
    from trickref.engine.records import dump, parse

    rec = finished_record()
    rec["corrections"] = [{"after_hand": 1, "seat": 0, "points": -3, "reason": "x", "by": "admin"}]
    again = dump(parse(json.dumps(rec)))
    assert again == rec
    plain = copy.deepcopy(rec)
    del plain["corrections"]
    for hand in plain["hands"]:
        del hand["commitment"], hand["salt"]
    assert dump(parse(plain)) == plain
    bad = copy.deepcopy(rec)
    bad["hands"][0]["salt"] = 5
    with pytest.raises(RecordError, match=r"hands\[0\]\.salt"):
        parse(bad)


@pytest.mark.parametrize("salt, why", [
    ("a", "1 hex digit (4 bits)"),
    ("ab" * 15, "30 hex digits (120 bits)"),
    ("Z" * 40, "not lowercase hex"),
])
def test_verify_refuses_salts_under_128_bits(tmp_path: Path, capsys, salt: str, why: str) -> None:
    """A one-character salt once verified; with a short salt the deck can be brute-forced
    from the commitment, so the commitment binds nothing."""
    rec = finished_record()
    hand = rec["hands"][1]
    hand["salt"] = salt
    hand["commitment"] = fairness.commitment(hand["deck"], salt)  # consistent, but too weak
    checks = fairness.verify_record(rec)
    assert [c.ok for c in checks] == [True, False, True]
    assert why in checks[1].problems[0]
    assert "at least 32 (128 bits)" in checks[1].problems[0] or "hex" in why
    path = tmp_path / "weak.json"
    path.write_text(json.dumps(rec))
    assert main(["verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"hand 2: MISMATCH {hand['commitment'][:fairness.SHORT_DIGITS]}: the salt is" in out and why in out


def test_the_referee_makes_and_requires_128_bit_salts() -> None:
    from trickref.engine.referee.events import NewGame, Shuffled
    from trickref.engine.referee.referee import Referee

    for s in (make_shuffle(1).salt, make_shuffle(2, random.Random(4)).salt, fairness.new_salt()):
        assert fairness.check_salt(s) is None and len(s) >= 32
    ref = Referee()
    ref.handle(NewGame("hearts", ("a", "b", "c", "d")))
    deck = make_shuffle(1).deck
    out = ref.handle(Shuffled(deck, "ab" * 8))  # 64 bits: was accepted
    assert any("at least 32 (128 bits)" in getattr(c, "text", "") for c in out)
    assert ref.game is not None and ref.game.hand_number == 0
    ref.handle(Shuffled(deck, fairness.new_salt()))
    assert ref.game.hand_number == 1
