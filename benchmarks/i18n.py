"""How long the kiosk takes to compile a language's .po in memory (ui.i18n.compile_po) and to
read it with gettext, the cost paid once when a language is first chosen.

    .venv/bin/python benchmarks/i18n.py   # prints, and writes benchmarks/results/i18n.json
"""

from __future__ import annotations

import gettext
import io
import json
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from trickref.ui import i18n  # noqa: E402

RUNS = 50


def main() -> int:
    lines = [f"trickref.ui.i18n: .po -> .mo bytes -> gettext.GNUTranslations, median of {RUNS} runs"]
    figures: dict[str, dict[str, float | int]] = {}
    for lang in [code for code in i18n.LANGUAGES if code != "en"]:
        path = i18n.po_path(lang)
        text = path.read_text(encoding="utf-8")
        times = []
        for _run in range(RUNS):
            t0 = time.perf_counter()
            cat = gettext.GNUTranslations(io.BytesIO(i18n.compile_po(text, str(path))))
            times.append(time.perf_counter() - t0)
        n = len(i18n.read_po(text)) - 1  # less the header
        figures[lang] = {"messages": n, "po_bytes": len(text.encode("utf-8")),
                         "median_ms": round(statistics.median(times) * 1000, 3), "max_ms": round(max(times) * 1000, 3)}
        lines.append(f"{lang}: {n} messages, {len(text.encode('utf-8'))} bytes of .po, "
                     f"median {statistics.median(times) * 1000:.2f} ms, max {max(times) * 1000:.2f} ms "
                     f"({cat.gettext('Start game')!r})")
    out = "\n".join(lines)
    print(out)
    results = ROOT / "benchmarks" / "results"
    results.mkdir(exist_ok=True)
    (results / "i18n.json").write_text(json.dumps({
        "machine": f"{platform.platform()} (Python {platform.python_version()})", "runs": RUNS,
        "languages": figures}, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
