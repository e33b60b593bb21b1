"""hardware/bom.py and hardware/loop_cost.py: the figures the hardware docs quote.

The scripts run as a maker would run them (a subprocess from the repository root); the tests
recompute the totals from the CSV tables independently and check that every figure the docs
quote is the scripts' output.
"""

from __future__ import annotations

import csv
import importlib.util
import itertools
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
HW = ROOT / "hardware"


def _run(*args: str) -> str:
    done = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"hw_{name}", HW / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def figures() -> dict:
    return json.loads(_run("hardware/bom.py", "--json"))


def _csv(name: str) -> list[dict[str, str]]:
    with open(HW / name, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def test_bom_total_is_the_sum_of_the_lines(figures: dict) -> None:
    rows = _csv("bom.csv")
    sections: dict[str, float] = {}
    for r in rows:
        sections[r["section"]] = sections.get(r["section"], 0.0) + int(r["qty"]) * float(r["unit_eur"])
    bom = figures["bom"]
    assert figures["lines"] == len(rows)
    for name, value in sections.items():
        assert bom[name] == pytest.approx(value, abs=0.005), name
    assert bom["total"] == pytest.approx(sum(sections.values()), abs=0.005)
    assert bom["total"] == pytest.approx(sum(v for k, v in bom.items() if k != "total"), abs=0.005)
    assert set(bom) == set(sections) | {"total"}


def test_power_budget_adds_loads_and_the_rails_each_rail_feeds(figures: dict) -> None:
    rails = {r["rail"]: r for r in _csv("rails.csv")}
    loads = _csv("power.csv")

    def peak(name: str) -> float:
        own = sum(int(x["qty"]) * float(x["ma_peak"]) for x in loads if x["rail"] == name)
        fed = sum(peak(c) * float(r["volts"]) / (float(rails[name]["volts"]) * float(r["efficiency"]))
                  for c, r in rails.items() if r["fed_from"] == name)
        return own + fed

    power = figures["power"]
    assert set(power) == set(rails)
    for name in rails:
        assert power[name]["peak_ma"] == pytest.approx(peak(name), abs=0.1), name
        assert power[name]["margin_ma"] == pytest.approx(float(rails[name]["capacity_ma"]) - peak(name), abs=0.1)
    # every rail fits its supply at the worst-case peak
    assert all(b["margin_ma"] >= 0 for b in power.values()), power
    # every load says where its figure comes from
    assert all(x["basis"].startswith(("ds:", "est")) for x in loads)


def test_bom_md_block_is_the_scripts_output() -> None:
    text = (HW / "BOM.md").read_text(encoding="utf-8")
    generated = _run("hardware/bom.py", "--markdown")
    begin, end = generated.splitlines()[0], generated.rstrip("\n").splitlines()[-1]
    block = text[text.index(begin):text.index(end) + len(end)] + "\n"
    assert block == generated, "hardware/BOM.md is stale: run python hardware/bom.py --write"


def test_quoted_totals_and_rail_figures_match_the_script(figures: dict) -> None:
    docs = {p.name: p.read_text(encoding="utf-8") for p in HW.glob("*.md")}
    totals = [(name, m) for name, t in docs.items() for m in re.findall(r"BOM total: \*{0,2}€([\d,]+\.\d\d)", t)]
    assert totals, "no document quotes the BOM total"
    for name, quoted in totals:
        assert float(quoted.replace(",", "")) == pytest.approx(figures["bom"]["total"], abs=0.005), name
    rails = [(name, m) for name, t in docs.items()
             for m in re.findall(r"bom\.py: (\S+) peak (\d+) mA of (\d+) mA", t)]
    assert len(rails) >= 4, "WIRING.md should quote the rails' peaks from bom.py"
    for name, (rail, peak, cap) in rails:
        b = figures["power"][rail]
        assert int(peak) == round(b["peak_ma"]), (name, rail)
        assert int(cap) == round(b["capacity_ma"]), (name, rail)


def test_a_bad_table_line_is_named(tmp_path: Path) -> None:
    bom = _load("bom")
    bad = tmp_path / "bom.csv"
    bad.write_text("section,qty,part,example,unit_eur,note\n"
                   "dealer,2,Roller,30 mm,3.00,\n"
                   "dealer,two,Shaft,5 mm,1.50,\n", encoding="utf-8")
    with pytest.raises(bom.TableError, match=r"bom\.csv line 3: qty must be a whole number >= 0, not 'two'"):
        bom.read_parts(bad)
    rails = tmp_path / "rails.csv"
    rails.write_text("rail,volts,fed_from,capacity_ma,efficiency,source\n"
                     "5V,5,12V,1000,0.9,buck\n", encoding="utf-8")
    with pytest.raises(bom.TableError, match="fed from '12V', which is not a rail"):
        bom.read_rails(rails)
    out = subprocess.run([sys.executable, "hardware/bom.py", "--json"], cwd=ROOT, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0


class _FixedOrder:
    """Stands in for random.Random: "shuffles" a list into a given permutation."""

    def __init__(self, order: tuple[int, ...]) -> None:
        self.order = order

    def shuffle(self, xs: list[int]) -> None:
        xs[:] = list(self.order)


def test_loop_passes_model() -> None:
    lc = _load("loop_cost")
    # queue 2,0,1 (bottom first): fetching 0 passes 2; then 1 is next; then 2 (behind) is next.
    assert lc.passes(3, False, _FixedOrder((2, 0, 1))) == 1
    # queue 1,2,0: 0 passes 1 and 2; then 1 and 2 come in order.
    assert lc.passes(3, False, _FixedOrder((1, 2, 0))) == 2
    # over every order of 4 cards the mean is n(n-1)/4 = 3
    counts = [lc.passes(4, False, _FixedOrder(p)) for p in itertools.permutations(range(4))]
    assert sum(counts) / len(counts) == 3
    # discards that stay in the loop can only add passes
    for p in itertools.permutations(range(4)):
        assert lc.passes(4, True, _FixedOrder(p)) >= lc.passes(4, False, _FixedOrder(p))


def test_readme_quotes_loop_cost_output() -> None:
    out = _run("hardware/loop_cost.py")
    values = re.findall(r"\s(\d+\.\d)$", out, flags=re.M)
    assert len(values) == 3
    readme = (HW / "README.md").read_text(encoding="utf-8")
    for v in values:
        assert v in readme, f"README.md should quote {v} from hardware/loop_cost.py"
