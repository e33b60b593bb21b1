"""No import cycles in engine/, device/ or ui/ (issue 19 point 2): every import of every
module, read with ast (nothing is executed), imports inside functions included; only the ones
under ``if TYPE_CHECKING:`` (never run) are left out. A cycle is named module by module with
the lines that close it.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("engine", "device", "ui")


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for pkg in PACKAGES:
        for f in sorted((ROOT / pkg).rglob("*.py")):
            parts = list(f.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = f
    return out


def _typing_only(tree: ast.AST) -> set[int]:
    """The ids of the nodes under ``if TYPE_CHECKING:``."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            out |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
    return out


def _targets(module: str, path: Path, node: ast.Import | ast.ImportFrom, known: dict[str, Path]) -> list[str]:
    """The project modules an import statement names (``trickref.`` dropped; relative ones
    resolved; ``from package import module`` is that module)."""
    names: list[str] = []
    if isinstance(node, ast.ImportFrom):
        if node.level:
            base = module.split(".")
            if path.name != "__init__.py":
                base = base[:-1]
            base = base[: len(base) - (node.level - 1)]
            name = ".".join(base + ([node.module] if node.module else []))
        else:
            name = (node.module or "").removeprefix("trickref.")
        names = [f"{name}.{a.name}" if f"{name}.{a.name}" in known else name for a in node.names]
    else:
        names = [a.name.removeprefix("trickref.") for a in node.names]
    out = []
    for n in names:
        while n and n not in known:  # a name inside a module: the module
            n = n.rpartition(".")[0]
        if n and n != module:
            out.append(n)
    return out


def import_graph() -> dict[str, dict[str, list[int]]]:
    """module -> {module it imports: [lines]} over engine/, device/ and ui/."""
    known = _modules()
    graph: dict[str, dict[str, list[int]]] = {m: {} for m in known}
    for module, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        skip = _typing_only(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in skip:
                for t in _targets(module, path, node, known):
                    graph[module].setdefault(t, []).append(node.lineno)
    return graph


def cycles(graph: dict[str, dict[str, list[int]]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(graph[w])))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_the_graph_sees_imports_inside_functions_and_not_typing_ones() -> None:
    g = import_graph()
    assert "ui.scenes" in g["ui.app"]  # ``from .scenes import make`` inside App.go
    assert "ui.app" not in g["ui.scene"]  # under ``if TYPE_CHECKING:`` only
    assert "engine.catalog" in g["engine.scorekeeper"] and "engine" not in g["engine.catalog"]


def test_a_cycle_is_found() -> None:
    g = {"a": {"b": [1]}, "b": {"c": [2]}, "c": {"a": [3]}, "d": {"a": [4]}}
    assert cycles(g) == [["a", "b", "c"]]


def test_no_import_cycles_in_engine_device_and_ui() -> None:
    g = import_graph()
    found = cycles(g)
    lines = []
    for comp in found:
        lines.append(" <-> ".join(comp))
        lines += [f"    {m} -> {t} (line {', '.join(map(str, g[m][t]))})" for m in comp for t in g[m] if t in comp]
    assert not found, "import cycles:\n" + "\n".join(lines)
