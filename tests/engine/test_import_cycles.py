"""The engine's modules import each other without a ring (issue #9): build the import graph of
every module under engine/ with ast (nothing is executed) and fail on any cycle.

Every import counts: module level, inside functions and methods, and under ``TYPE_CHECKING``
(a ring that only closes inside a function still means the two modules cannot be understood
or changed apart). Relative (``from .x``, ``from ..x``) and absolute (``trickref.engine.x``)
imports are both resolved; ``from . import cards`` is an edge to the module ``cards``.
``importlib.import_module("trickref.engine.x")`` with a literal name counts too; a name built at
run time (games.py's registry of game modules) cannot be seen. An import of a module's own
enclosing package (``from . import name`` where ``name`` is no submodule) is not an edge."""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"
PACKAGE = "trickref.engine"


def module_name(root: Path, path: Path, package: str = PACKAGE) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([package, *parts])


def _resolve(node: ast.ImportFrom, here: str, is_package: bool) -> str:
    if node.level == 0:
        return node.module or ""
    base = here.split(".")
    if not is_package:
        base.pop()
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def import_graph(root: Path, package: str = PACKAGE) -> dict[str, set[str]]:
    """module -> the engine modules it imports (anywhere in its file)."""
    files = {module_name(root, p, package): p for p in sorted(root.rglob("*.py"))}
    graph: dict[str, set[str]] = {m: set() for m in files}

    def known(name: str) -> str | None:
        # the module itself, or the nearest enclosing engine module (a name imported from it)
        while name:
            if name in files:
                return name
            name = name.rpartition(".")[0]
        return None

    for mod, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        targets: list[str] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets.extend(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                src = _resolve(node, mod, path.name == "__init__.py")
                # ``from pkg import sub`` imports the submodule when there is one
                targets.extend(f"{src}.{a.name}" if f"{src}.{a.name}" in files else src for a in node.names)
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "import_module"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                targets.append(node.args[0].value)
        for t in targets:
            k = known(t)
            # a module importing its own package (``from . import x`` for a plain name) is no ring
            if k is not None and k != mod and not mod.startswith(k + "."):
                graph[mod].add(k)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected part of more than one module (Tarjan), as a sorted ring."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                out.append(sorted(part))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_engine_has_no_import_cycle() -> None:
    graph = import_graph(ENGINE)
    assert len(graph) >= 20 and f"{PACKAGE}.records" in graph
    assert f"{PACKAGE}.base" in graph[f"{PACKAGE}.records"]  # the walk sees edges
    assert cycles(graph) == []


def test_the_walk_finds_a_ring_through_function_level_and_absolute_imports(tmp_path: Path) -> None:
    root = tmp_path / "engine"
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "a.py").write_text("from .b import x\n")
    (root / "b.py").write_text("def f():\n    from trickref.engine.sub import c\n")
    (root / "sub" / "__init__.py").write_text("")
    (root / "sub" / "c.py").write_text("from .. import a\n")
    (root / "d.py").write_text("import trickref.engine.a\n")
    graph = import_graph(root)
    assert graph["trickref.engine.b"] == {"trickref.engine.sub.c"}
    assert graph["trickref.engine.sub.c"] == {"trickref.engine.a"}
    assert cycles(graph) == [["trickref.engine.a", "trickref.engine.b", "trickref.engine.sub.c"]]
