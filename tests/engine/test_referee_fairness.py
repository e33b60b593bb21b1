"""Fair dealing: commitments verify, a tampered deck, salt or Double Nil replacement fails, and
``trickref verify`` prints OK/MISMATCH per hand with exit 0 / 1 / 2."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest
from fair_records import double_nil_chooser, finished_record, rewritten_last_hand

from trickref.engine import actions as A
from trickref.engine.referee import fairness
from trickref.engine.referee.events import make_shuffle
from trickref.ui.cli import main


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


# ---------------------------------------------------------------- the chain of plays

def _plays(hand: dict) -> list[int]:
    return [i for i, a in enumerate(hand["actions"]) if "play" in a]


def test_every_finished_hand_records_its_points_and_chain_head() -> None:
    from trickref.engine.records import parse, replay
    from trickref.engine.referee import chain

    rec = finished_record()
    state = replay(parse(rec))
    head = chain.game_head(rec["game"], rec["players"], rec["options"], rec["first_dealer"])
    for h, hand in enumerate(rec["hands"]):
        assert hand["points"] == state.hand_results[h]["points"]
        acts = parse(rec).hands[h][1]
        head = chain.hand_head(head, hand["commitment"], acts, hand["points"])
        assert hand["chain"] == head  # each head starts from the one before: the last binds the game
    checks = fairness.verify_record(rec)
    assert [c.chain for c in checks] == [h["chain"] for h in rec["hands"]]
    assert all(c.line().endswith(f"plays {c.chain[:24]}") for c in checks)


def test_changed_plays_fail_even_when_they_stay_legal() -> None:
    rec = finished_record()
    # a changed card: illegal, so the rules refuse it, and the chain no longer matches
    bad = copy.deepcopy(rec)
    a = bad["hands"][1]["actions"]
    i, j = _plays(bad["hands"][1])[-2:]
    a[i]["play"], a[j]["play"] = a[j]["play"], a[i]["play"]
    checks = fairness.verify_record(bad)
    assert [c.ok for c in checks] == [True, False, False]
    assert any("cannot play" in p for p in checks[1].problems)
    assert any("do not hash to the chain head" in p for p in checks[1].problems)
    # a removed action, an added one, a changed bid: each breaks the chain of its hand
    for change in ("remove", "points", "header"):
        bad = copy.deepcopy(rec)
        if change == "remove":
            bad["hands"][2]["actions"].pop()
        elif change == "points":
            bad["hands"][0]["points"][1] += 1
        else:
            bad["players"][0] = "Mallory"
        oks = [c.ok for c in fairness.verify_record(bad)]
        assert not all(oks), change
    bad = copy.deepcopy(rec)
    bad["hands"][0]["points"][1] += 1
    probs = fairness.verify_record(bad)[0].problems
    assert any("but its plays score" in p for p in probs) and any("chain head" in p for p in probs)


def test_a_rewritten_hand_with_a_recomputed_chain_fails_against_the_table_qr_code(tmp_path: Path,
                                                                                   capsys) -> None:
    """The chain has no secret: a forger can recompute it. What catches the forgery is a copy of
    the head taken at the table: the QR code a phone scanned (here given to verify --scan)."""
    from trickref.engine.referee import checkcode

    rec = finished_record()
    forged = rewritten_last_hand(rec)
    assert forged["hands"][-1]["actions"] != rec["hands"][-1]["actions"]
    assert all(c.ok for c in fairness.verify_record(forged))  # consistent on its own
    h = rec["hands"][-1]
    scanned = checkcode.make(rec["game"], 3, h["commitment"], h["salt"], h["deck"], h["chain"])
    code = checkcode.decode("http://192.168.1.20:8088/verify#" + scanned)
    checks = fairness.verify_record(forged, [code])
    assert [c.ok for c in checks] == [True, True, False] and checks[2].scanned
    assert any("the plays differ from those the table showed" in p for p in checks[2].problems)
    assert all(c.ok for c in fairness.verify_record(rec, [code]))
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged))
    assert main(["verify", str(path)]) == 0
    capsys.readouterr()
    assert main(["verify", str(path), "--scan", "http://t/verify#" + scanned]) == 1
    out = capsys.readouterr().out
    assert "hand 3: MISMATCH" in out and "the plays differ" in out
    scans = tmp_path / "scans.txt"
    scans.write_text(scanned + "\n")
    good = tmp_path / "good.json"
    good.write_text(json.dumps(rec))
    assert main(["verify", str(good), "--scans", str(scans)]) == 0
    assert "(matches the code scanned at the table)" in capsys.readouterr().out
    other = finished_record(seed=2)["hands"][0]
    stray = checkcode.make("hearts", 1, other["commitment"], other["salt"], other["deck"], other["chain"])
    assert main(["verify", str(good), "--scan", stray]) == 1
    assert "matches no hand of this record" in capsys.readouterr().out
    assert main(["verify", str(good), "--scan", "1.h.nonsense"]) == 2
    assert "scan 1 is not a check code" in capsys.readouterr().err


def test_records_from_before_the_chain_need_deal_only(tmp_path: Path, capsys) -> None:
    rec = finished_record()
    for hand in rec["hands"]:
        del hand["chain"], hand["points"]
    checks = fairness.verify_record(rec)
    assert not any(c.ok for c in checks) and "no chain head recorded" in checks[0].problems[0]
    assert all(c.ok for c in fairness.verify_record(rec, deal_only=True))
    path = tmp_path / "old.json"
    path.write_text(json.dumps(rec))
    assert main(["verify", str(path)]) == 1
    assert main(["verify", "--deal-only", "--json", str(path)]) == 0
    capsys.readouterr()


def test_check_codes_round_trip_and_name_what_is_wrong() -> None:
    from trickref.engine.referee import checkcode

    rec = finished_record()
    h = rec["hands"][0]
    text = checkcode.make("hearts", 1, h["commitment"], h["salt"], h["deck"], h["chain"], "tr")
    assert len(text) < 200 and text.startswith("1.h.1.") and text.endswith(".tr")
    code = checkcode.decode(text)
    assert (code.commitment, code.salt, code.chain, code.language) == (h["commitment"], h["salt"], h["chain"], "tr")
    from trickref.engine import cards as C

    assert [C.NAMES[c] for c in code.deck] == h["deck"]
    assert checkcode.decode("http://x:1/verify#" + text) == code
    assert checkcode.CARD_LETTERS[C.parse("2S")] == "A" and checkcode.CARD_LETTERS[C.parse("AC")] == "z"
    for bad, why in ((text.replace("1.h.", "2.h.", 1), "not a trickref check code"),
                     (text.replace(".h.", ".x.", 1), "unknown game letter"),
                     (text + ".x", "7 or 8 fields"),
                     (text.replace(".1.", ".0.", 1), "hand number"),
                     (text[:-3].rsplit(".", 1)[0] + ".abc.tr", "43 base64url"),
                     (text.replace(h["salt"], "XYZ"), "salt"),
                     (text.replace("." + text.split(".")[5] + ".", ".AB1.", 1), "not card letters"),
                     (text[:-2] + "de", "unknown language")):
        with pytest.raises(checkcode.CheckCodeError, match=why):
            checkcode.decode(bad)
    with pytest.raises(checkcode.CheckCodeError, match="64 lowercase hex"):
        checkcode.make("hearts", 1, "ab", h["salt"], h["deck"], h["chain"])


@pytest.mark.parametrize("game, n", [("spades-2p", 2), ("german-whist", 2), ("partnership-spades", 4),
                                     ("cancellation-hearts", 6)])
def test_every_game_chains_and_verifies(game: str, n: int) -> None:
    rec = finished_record(game, n)
    checks = fairness.verify_record(rec)
    assert checks and all(c.ok for c in checks) and all(c.chain for c in checks)
    bad = copy.deepcopy(rec)
    bad["hands"][0]["actions"].pop()
    assert not fairness.verify_record(bad)[0].ok


def test_chain_texts_are_the_documented_ones() -> None:
    """The texts the chain hashes are the page's too (device/verify_web): pin them down."""
    from trickref.engine.referee import chain

    assert chain.action_text(2, A.play("QS")) == "2 play QS"
    assert chain.action_text(0, A.pass_cards(["QS", "2C", "7H"])) == "0 pass QS 7H 2C"
    assert chain.action_text(1, A.bid(0)) == "1 bid 0"
    assert chain.action_text(1, A.exchange(["9D", "3S"], ["8H"])) == "1 exchange give 3S 9D get 8H"
    assert chain.action_text(1, A.exchange([], [])) == "1 exchange give get"
    assert chain.action_text(3, A.MOON_OTHERS) == "3 moon others"
    assert chain.action_text(0, A.DOUBLE_NIL) == "0 double_nil"
    assert chain.action_text(0, A.KEEP) == "0 draw keep"
    assert chain.canon(["Zoë", 'a"b', "\n"]) == '["Zo\\u00eb","a\\"b","\\n"]'
    import hashlib

    want = hashlib.sha256(b'trickref-chain/1 game\nhearts\n0\n["A","B","C","D"]\n{"target":50}').hexdigest()
    assert chain.game_head("hearts", ["A", "B", "C", "D"], {"target": 50}, 0) == want


def test_exchange_2_places_are_uniform_ordered_and_fixed_by_the_salt() -> None:
    """Rule exchange/2 (docs/FAIRNESS.md): three distinct places of the 26-card discard pile,
    drawn from the salt alone (the same every time, another for another hand, seat or salt),
    every place equally likely first (a chi-square over 2,600 salts, seeded)."""
    salt = "ab" * 16
    p = fairness.exchange_positions(salt, 3, 1)
    assert p == fairness.exchange_positions(salt, 3, 1) and len(set(p)) == 3 and set(p) <= set(range(26))
    assert len({fairness.exchange_positions(salt, h, s) for h in range(4) for s in range(2)}) == 8
    rng = random.Random(7)
    firsts = [0] * 26
    for _ in range(2600):
        firsts[fairness.exchange_positions(f"{rng.getrandbits(128):032x}", 0, 0)[0]] += 1
    chi2 = sum((n - 100) ** 2 / 100 for n in firsts)
    assert chi2 < 52.6, firsts  # 25 degrees of freedom: p = 0.001
    pile = list(range(100, 126))
    assert fairness.replacements_at(salt, 3, 1, pile, 2) == tuple(sorted(pile[i] for i in p[:2]))
    assert fairness.replacements_at(salt, 3, 1, pile, 0) == ()
    with pytest.raises(ValueError, match="25 cards"):
        fairness.replacements_at(salt, 3, 1, pile[1:], 1)


def test_a_record_names_its_exchange_rule_and_verify_draws_by_it() -> None:
    """The table writes "exchange": "exchange/2" in every spades-2p hand; verify draws the
    replacements by the rule the hand names (none: exchange/1, older records), so the same
    hand read under the other rule is a MISMATCH; an unknown rule is refused in words."""
    from trickref.engine.errors import RecordError
    from trickref.engine.records import parse

    rec = finished_record("spades-2p", 2, chooser=double_nil_chooser())
    assert {h.get("exchange") for h in rec["hands"]} == {"exchange/2"}
    assert all(c.ok for c in fairness.verify_record(rec))
    exchanged = [h for h, hand in enumerate(rec["hands"])
                 if any("exchange" in a and a["exchange"]["get"] for a in hand["actions"])]
    assert exchanged
    old = copy.deepcopy(rec)
    for hand in old["hands"]:
        del hand["exchange"]
    checks = fairness.verify_record(old)
    assert not checks[exchanged[0]].ok
    assert any("the salt draws" in p for p in checks[exchanged[0]].problems)
    bad = copy.deepcopy(rec)
    bad["hands"][0]["exchange"] = "exchange/3"
    with pytest.raises(RecordError, match="exchange/1"):
        parse(bad)


def test_a_journal_from_before_exchange_2_replays_with_exchange_1() -> None:
    """The rule travels in the journal's shuffled event: a fresh shuffle says exchange/2, one
    journalled before the field replays under exchange/1 (the replacements already dealt stay
    the ones drawn), an unknown rule is an EventError in words."""
    from trickref.engine.referee.events import EventError, Shuffled, event_from_json

    s = make_shuffle(1, random.Random(3))
    assert s.exchange == "exchange/2"
    obj = s.to_json()
    assert event_from_json(obj) == s
    del obj["exchange"]
    assert event_from_json(obj).exchange == "exchange/1"
    obj["exchange"] = "exchange/9"
    with pytest.raises(EventError, match="unknown Double Nil rule"):
        event_from_json(obj)
    assert isinstance(s, Shuffled)
