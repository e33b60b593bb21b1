"""The dealer's CAD model (hardware/cad/): a card swept along every path clears every part,
nips hold it, the reader sees it, every pocket holds its cards, flaps swing clear; the BOM and
the power budget follow the model; the STL export is watertight; the docs quote the model.

The checks run on the model's exact plane geometry (standard library); each test that breaks
the design on purpose shows the check catches that mistake, so a green run means something.
"""

from __future__ import annotations

import csv
import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
CAD = ROOT / "hardware" / "cad"
sys.path.insert(0, str(CAD))

import dealer_checks as C  # noqa: E402
import dealer_model as M  # noqa: E402


@pytest.fixture(scope="module")
def dealer() -> M.Dealer:
    return M.Dealer()


@pytest.fixture(scope="module")
def findings(dealer: M.Dealer) -> list[C.Finding]:
    return C.all_checks(dealer)


def failed(findings: list[C.Finding], check: str | None = None) -> list[str]:
    return [f"{f.check}: {f.subject}: {f.value} (limit {f.limit})" for f in findings
            if not f.ok and (check is None or f.check == check)]


def test_the_design_passes_every_check(findings: list[C.Finding]) -> None:
    assert failed(findings) == []
    kinds = {f.check for f in findings}
    assert kinds >= {"sweep", "drop", "bend", "nip spacing", "dive drive", "reader distance", "reader field",
                     "reader field clear", "pocket capacity", "pocket depth", "flap swing", "flap zone", "flap lowered",
                     "pickup", "printable"}


def test_the_sweep_covers_every_path_both_card_sizes_and_the_parts_in_the_way(dealer: M.Dealer,
                                                                              findings: list[C.Finding]) -> None:
    assert set(dealer.paths) == {"main", "loop", *(f"dive-{k:02d}" for k in range(15))}
    assert (dealer.card_len_min, dealer.card_len_max) == (88.0, 89.0)  # poker and bridge
    assert dealer.t_max >= 0.32  # the table's 0.30 mm plus its tolerance
    swept = {f.subject.split(" / ")[1] for f in findings if f.check == "sweep"}
    for part in ("roller-F1-low", "roller-F2-up", "idler-F2", "bands", "flap-07", "pocket-07", "mouth-opto-07", "drum-east",
                 "throat-gate", "diagonal", "one-way-flap", "hopper"):
        assert part in swept, part


def test_a_bolt_head_in_the_path_is_caught(dealer: M.Dealer) -> None:
    d = M.Dealer()
    d.add("bolt", "bought", "frame", [M.Solid(M.rect(180.0, -3.0, 185.0, 0.1), -3.0, 3.0)])
    bad = failed(C.sweep(d))
    assert any("main / bolt" in b for b in bad) and any("dive-03 / bolt" in b for b in bad)
    # a part beside the card's width (behind the guides) is not in its way
    d2 = M.Dealer()
    d2.add("bracket", "bought", "frame", [M.Solid(M.rect(300.0, -3.0, 305.0, 5.0), 33.0, 40.0)])
    assert failed(C.sweep(d2)) == []


def test_the_splitter_servo_is_the_l12_r_30_from_the_table_and_its_length_is_checked(dealer: M.Dealer) -> None:
    """Issue 20 point 4: the sorting hopper's splitter is the L12-R-30 (30 mm stroke; the -10
    reached 32 cards, a Spades stock is 51): the model draws its body and its rod from
    physical.toml [sorter], and a part over it (a lid 10 mm over the -10's body) is caught."""
    servo = next(p for p in dealer.parts if p.name == "splitter-servo")
    assert "L12-R-30" in servo.note
    stroke, body = dealer.v["sorter.stroke"], dealer.v["sorter.body_length"]
    assert stroke == 30.0
    z0 = min(s.shape.bounds()[1] for s in servo.solids)
    z1 = max(s.shape.bounds()[3] for s in servo.solids)
    assert z1 - z0 == pytest.approx(stroke + body)  # the rod out its stroke, then the body
    assert failed(C.splitter(dealer)) == []
    d = M.Dealer()
    d.add("lid", "printed", "frame", [M.Solid(M.rect(-130.0, 44.0 + 48.0 + 10.0, -80.0, 44.0 + 48.0 + 13.0), -20.0, 20.0)])
    assert any("splitter-servo (nearest: lid)" in b for b in failed(C.splitter(d)))


def test_f2s_old_lower_roller_blocks_the_reader(dealer: M.Dealer) -> None:
    """Issue 20: the GM65-S reads from 40 mm, where F2's lower roller used to sit."""
    d = M.Dealer()
    x = d.v["geometry.f2_x"]
    d.add("old-F2-lower-roller", "bought", "drive", [M.Solid(M.Circle(x, -15.0, 15.0), -22.0, 22.0)], item="Roller")
    assert any("old-F2-lower-roller" in b for b in failed(C.reader(d)))
    assert failed(C.reader(M.Dealer(overrides={"cad.reader.distance": 35.0}))) != []  # closer than it focuses


def test_nips_are_closer_than_a_card(dealer: M.Dealer, findings: list[C.Finding]) -> None:
    spacing = [f for f in findings if f.check == "nip spacing"]
    assert spacing and max(f.value for f in spacing) <= dealer.card_len_min - dealer.v["cad.path.nip_overlap"]
    main = dict(dealer.paths["main"].nips)
    assert {"P", "F1", "F2", "drum-west", "drum-east", "R"} <= set(main)
    # F2 moved 100 mm downstream leaves a card without a nip
    assert failed(C.nips(M.Dealer(overrides={"geometry.f2_x": 195.0}))) != []


def test_every_pocket_holds_its_count(dealer: M.Dealer) -> None:
    fw = dealer.fw
    caps = {pk.target: pk.count for pk in dealer.pockets}
    assert caps["trick"] == fw.POCKET_CAP[0x84] and caps["seat 0"] == fw.SEAT_POCKET_CAP
    for pk in dealer.pockets:
        assert pk.stack_room >= pk.count * dealer.t_max / math.cos(math.radians(dealer.v["cad.pocket.floor_slope"])), pk
        assert pk.depth >= dealer.card_len_max  # a standing card is below the path
    # the trick pocket is last: its 110 cards need more than a 25 mm pitch gives
    assert dealer.pockets[-1].target == "trick"
    assert dealer.pockets[-1].stack_room > dealer.v["geometry.pocket_pitch"]


def test_the_trick_pocket_in_the_middle_cannot_hold_its_cards(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before issue 20 the trick pocket (110 cards) was pocket 11 of 15 at a 25 mm pitch."""
    real = M.firmware_config

    def old_order() -> Any:
        cfg = real()
        cfg.POCKET = {0x84: 11, 0x81: 12, 0x82: 13, 0x80: 14}
        return cfg

    monkeypatch.setattr(M, "firmware_config", old_order)
    assert any("11 trick" in b for b in failed(C.pockets(M.Dealer())))


def test_flaps_swing_clear_and_a_passing_card_clears_a_lowered_flap(dealer: M.Dealer, findings: list[C.Finding]) -> None:
    swing = [f for f in findings if f.check == "flap swing"]
    assert len(swing) == 15 and all(f.ok for f in swing)
    for flap in dealer.flaps:
        assert max(z for _, z in flap.closed.pts) < 0  # lowered: under the floor
        assert max(z for _, z in flap.opened.pts) > dealer.t_max + 1  # raised: across the card's way
        zone = dealer.flap_zone[flap.k]
        x = dealer.pocket_x(flap.k)
        assert x - 12.5 <= zone[0] < zone[1] <= x + 12.5
    # a flap too long reaches the floor upstream while it swings
    assert failed(C.flaps(M.Dealer(overrides={"cad.pocket.finger_len": 15.0}))) != []


def test_the_dive_bends_no_tighter_than_a_card_takes(dealer: M.Dealer) -> None:
    assert failed(C.bends(dealer)) == []
    assert failed(C.bends(M.Dealer(overrides={"cad.pocket.chute_radius": 9.0}))) != []


def test_pickup_drives_the_bottom_card_of_every_stack(dealer: M.Dealer) -> None:
    cap = dealer.fw.LOOP_CAPACITY
    drives = [dealer.pickup(n)["drive"] for n in range(1, cap + 1)]
    assert min(drives) > 0
    assert drives == sorted(drives)  # more cards, more grip
    # the model names where the pickup falls behind the feed ramp (the docs quote it)
    n = dealer.pickup_lag_below()
    assert 1 < n <= cap and dealer.pickup_lag_mm(n) == 0 and dealer.pickup_lag_mm(1) > 0
    # if P carried less than half the stack the card above would win
    assert min(M.Dealer(overrides={"cad.feed.pickup_share": 0.4}).pickup(n)["drive"] for n in (10, 52)) < 0


def test_bom_quantities_follow_the_model(dealer: M.Dealer) -> None:
    with open(ROOT / "hardware" / "bom.csv", newline="", encoding="utf-8") as f:
        rows = {r["part"]: int(r["qty"]) for r in csv.DictReader(f)}
    counts = dealer.bought_counts()
    for item in ("Roller", "Roller 20 mm", "Idler bearing", "Micro servo", "Reflective opto module", "Card reader"):
        assert rows[item] == counts[item], item
    springs = dealer.springs()
    assert rows["Extension spring (nips)"] == springs["nip"]["count"]
    assert rows["Compression spring (idlers)"] == springs["idler"]["count"]
    assert "Separator pad" not in rows  # replaced by the throat gate: no spring, no entry force
    assert rows["Throat gate screw"] == 1
    # enough filament for every printed part printed solid (PETG 1.27 g/cm3), from the manifest
    manifest = json.loads((CAD / "out" / "manifest.json").read_text())
    solid_kg = sum(f["volume_cm3"] * f["print"] for f in manifest["stl"].values()) * 1.27 / 1000
    assert rows["Frame filament"] >= solid_kg


def test_power_budget_counts_the_lift_from_the_model(dealer: M.Dealer) -> None:
    with open(ROOT / "hardware" / "power.csv", newline="", encoding="utf-8") as f:
        lift = next(r for r in csv.DictReader(f) if r["load"].startswith("HS-311"))
    load = dealer.lift_load()
    # HS-311 spec sheet: 7.4 mA idle, 700 mA stalled at 3.0 kg.cm (4.8 V); current grows with torque
    assert float(lift["ma_typ"]) == round(7.4 + 700 * load["torque_kgcm"] / 3.0)
    assert f"{load['torque_kgcm']:g} kg.cm" in lift["basis"]


def test_the_docs_quote_the_model() -> None:
    text = (ROOT / "hardware" / "README.md").read_text(encoding="utf-8")
    assert C.markdown() in text, "run: python hardware/cad/dealer_checks.py --write"


def test_the_checks_command_runs_as_a_maker_runs_it() -> None:
    done = subprocess.run([sys.executable, "hardware/cad/dealer_checks.py", "--json"], cwd=ROOT, capture_output=True,
                          text=True, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr
    out = json.loads(done.stdout)
    assert out["failed"] == [] and out["summary"]["sweep"]["count"] > 1000


def test_a_printed_part_exports_as_a_watertight_stl_of_the_models_volume(dealer: M.Dealer, tmp_path: Path) -> None:
    import importlib

    import numpy as np

    # hardware/cad/build.py (manifold3d), by name: a plain `import build` sorts as first-party
    # where a build/ folder (the compiled engine's) sits beside pyproject.toml and as
    # third-party where none does, so ruff's import order held in one checkout only
    build = importlib.import_module("build")

    part = dealer.part("flap-03")
    body = build.part_manifold(part)
    assert body.status().name == "NoError" and body.genus() == len(part.holes)  # one through-bore: genus 1
    fig = build.write_stl(body, tmp_path / "flap.stl")
    # the model's volume: every profile's area times its width, less the bore
    def area(s: M.Solid) -> float:
        if isinstance(s.shape, M.Circle):
            return math.pi * s.shape.r ** 2
        return abs(s.shape.area())

    fingers = sum(area(s) * (s.y1 - s.y0) for s in part.solids if not isinstance(s.shape, M.Circle))
    spine = next(s for s in part.solids if isinstance(s.shape, M.Circle))
    # the spine's disc lies inside each finger's profile (the bar and its rounded end round the axle)
    overlap = sum(area(spine) * (s.y1 - s.y0) for s in part.solids if not isinstance(s.shape, M.Circle))
    hole = part.holes[0]
    expected = fingers + area(spine) * (spine.y1 - spine.y0) - overlap - area(hole) * (spine.y1 - spine.y0)
    assert fig["volume_cm3"] * 1000 == pytest.approx(expected, rel=0.01)
    raw = (tmp_path / "flap.stl").read_bytes()
    n = int.from_bytes(raw[80:84], "little")
    assert len(raw) == 84 + 50 * n and n == fig["triangles"]
    tri = np.frombuffer(raw[84:], dtype=[("n", "<f4", 3), ("v", "<f4", 9), ("a", "<u2")])
    assert tri["v"].min() >= -1e-4  # moved to the origin for printing


def test_committed_drawings_match_the_model() -> None:
    manifest = CAD / "out" / "manifest.json"
    import build

    assert manifest.exists(), "run: python hardware/cad/build.py"
    assert json.loads(manifest.read_text())["source"] == build.source_hash(), (
        "the model changed since the drawings were made: run python hardware/cad/build.py and commit hardware/cad/out")
