"""Nothing in device/table names the simulator (issue 19 point 2): the simulated world stands only
behind the dealer port (the pty), the panel pins and the host's ``People`` port, like real
hardware and real people. This reads device/table's sources: an import of a simulator module
(``device.dealer.sim*``, ``device.simulated*``, at the top or inside a function), a name
(variable, attribute, argument, function or class) of the simulator, or the simulator named in a
comment or a string fails, with the file and line."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "device" / "table"

SIM_MODULE = re.compile(r"(^|\.)(dealer\.sim(_cli)?|simulated)(\.|$)")
SIM_NAME = re.compile(r"^_*sim(_|$)|simulat|^Sim[A-Z]|Simulator")
SIM_WORDS = re.compile(r"simulator|DealerSimulator|SimTable|SimBoard|SimWorld|SimPeople|device[./]simulated"
                       r"|dealer[./]sim\b|gather_to_hopper|strays_to_slot|go_silent|\.board\.trays", re.I)


def _module_of(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    parts = package.split(".")
    parts = parts[: len(parts) - node.level + 1]
    return ".".join([*parts, node.module] if node.module else parts)


def simulator_names(path: Path, package: str | None = None) -> list[str]:
    """Every place in ``path`` (a module of ``package``, by default the one its folder is)
    that names the simulator: "file:line: what"."""
    text = path.read_text(encoding="utf-8")
    rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    package = package or ".".join(["trickref", *path.relative_to(ROOT).parent.parts])
    found: list[str] = []
    tree = ast.parse(text, str(path))
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            found += [f"{rel}:{node.lineno}: imports {a.name}" for a in node.names if SIM_MODULE.search(a.name)]
            names = [a.asname for a in node.names if a.asname]
        elif isinstance(node, ast.ImportFrom):
            mod = _module_of(node, package)
            if SIM_MODULE.search(mod) or any(SIM_MODULE.search(f"{mod}.{a.name}") for a in node.names):
                found.append(f"{rel}:{node.lineno}: imports from {mod}")
            names = [a.asname or a.name for a in node.names]
        elif isinstance(node, ast.Name):
            names = [node.id]
        elif isinstance(node, ast.Attribute):
            names = [node.attr]
        elif isinstance(node, ast.arg):
            names = [node.arg]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, ast.keyword) and node.arg:
            names = [node.arg]
        line = getattr(node, "lineno", 0)
        found += [f"{rel}:{line}: the name {n!r}" for n in names if SIM_NAME.search(n)]
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type in (tokenize.COMMENT, tokenize.STRING) or tok.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
            for m in SIM_WORDS.finditer(tok.string):
                found.append(f"{rel}:{tok.start[0]}: {m.group(0)!r} in a {tokenize.tok_name[tok.type].lower()}")
    return found


def test_device_table_names_no_simulator() -> None:
    files = sorted(TABLE.glob("*.py"))
    assert len(files) >= 5, files  # host, dealers, open, bot_worker, storage at least
    found = [f for p in files for f in simulator_names(p)]
    assert not found, "device/table names the simulator:\n" + "\n".join(found)


def test_the_check_finds_the_simulator_where_it_is(tmp_path: Path) -> None:
    """The check is not blind: the simulated world's own module names it (imports, names, words),
    and each kind of naming in a table module is caught."""
    world = simulator_names(ROOT / "device" / "simulated" / "world.py")
    assert any("imports from trickref.device.dealer.sim" in f for f in world), world
    assert any("the name 'sim'" in f for f in world), world
    assert any("'simulator' in a comment" in f.lower() or "in a string" in f for f in world), world
    probe = tmp_path / "probe.py"  # read as a module of device/table (its relative imports)
    probe.write_text("def f(port):\n    from ..dealer import sim as s\n    from . import host\n"
                     "    port.sim.jam()  # ask the simulator\n    return s, host\n", encoding="utf-8")
    got = simulator_names(probe, "trickref.device.table")
    assert any("imports from trickref.device.dealer" in f for f in got), got
    assert any("the name 'sim'" in f for f in got), got
    assert any("'simulator' in a comment" in f for f in got), got
    assert not any("device.table" in f and "imports" in f for f in got), got
