"""engine/ is standard library only (ARCHITECTURE.md): walk every import of every module
(ast, so nothing is executed; imports inside functions count too) and fail on anything that
is neither the standard library nor engine itself."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"


TYPING_ONLY = {"mypy_extensions"}  # the compiler's marks, imported under TYPE_CHECKING only


def _typing_only(tree: ast.AST) -> set[int]:
    """The ids of the import nodes under ``if TYPE_CHECKING:`` (never run)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            out |= {id(n) for stmt in node.body for n in ast.walk(stmt) if isinstance(n, ast.Import | ast.ImportFrom)}
    return out


def imports_of(path: Path) -> list[tuple[int, str]]:
    """(line, top-level module) of every absolute import; relative imports stay in engine. A
    compiler's mark imported for type checking only (TYPING_ONLY, under ``if TYPE_CHECKING:``)
    is no import at run time."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    skip = _typing_only(tree)
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if id(node) in skip and isinstance(node, ast.ImportFrom) and node.module in TYPING_ONLY:
            continue
        if isinstance(node, ast.Import):
            out.extend((node.lineno, _top(a.name)) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.append((node.lineno, _top(node.module)))
        elif isinstance(node, ast.Call) and _is_dynamic_import(node):
            arg = node.args[0] if node.args else None
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                out.append((node.lineno, _top(arg.value)))
    return out


def _top(module: str) -> str:
    """The part of the project (or the outside package) a module belongs to: trickref.device.x
    is 'device', trickref.engine.x is 'engine', json is 'json'."""
    parts = module.split(".")
    return parts[1] if parts[0] == "trickref" and len(parts) > 1 else parts[0]


def _is_dynamic_import(node: ast.Call) -> bool:
    f = node.func
    return (isinstance(f, ast.Attribute) and f.attr == "import_module") or (
        isinstance(f, ast.Name) and f.id == "__import__"
    )


def outside_imports(root: Path) -> list[str]:
    allowed = set(sys.stdlib_module_names) | {"engine", "__future__"}
    bad = []
    for path in sorted(root.rglob("*.py")):
        for line, mod in imports_of(path):
            if mod not in allowed:
                bad.append(f"{path.relative_to(root.parent)}:{line} imports {mod}")
    return bad


def test_engine_imports_only_the_standard_library_and_itself() -> None:
    files = list(ENGINE.rglob("*.py"))
    assert len(files) >= 10  # the walk really sees the engine
    assert outside_imports(ENGINE) == []


def test_the_walk_catches_outside_imports(tmp_path: Path) -> None:
    pkg = tmp_path / "engine"
    pkg.mkdir()
    (pkg / "ok.py").write_text("import json\nfrom . import cards\nfrom engine.base import X\n")
    (pkg / "bad.py").write_text(
        "import os\n\ndef f():\n    import pygame\n    from trickref.device import journal\n"
        "    import importlib\n    importlib.import_module('serial.tools')\n"
    )
    assert outside_imports(pkg) == [
        "engine/bad.py:4 imports pygame",
        "engine/bad.py:5 imports device",
        "engine/bad.py:7 imports serial",
    ]
