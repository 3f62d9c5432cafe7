"""The package's import structure: no import cycle among peet_fast's modules (every import counts, including those
inside functions), and importing the package loads none of the heavy optional stacks."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "peet_fast"
HEAVY = ("spacy", "ray", "matplotlib", "pypinyin", "sklearn")


def module_names() -> dict[str, Path]:
    """Module name -> source file; a package's __init__.py is the package."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _known(name: str, modules: dict) -> str | None:
    """The module an imported dotted name lives in: the longest prefix that is one of the package's modules."""
    parts = name.split(".")
    for k in range(len(parts), 0, -1):
        prefix = ".".join(parts[:k])
        if prefix in modules:
            return prefix
    return None


def imports_of(module: str, path: Path, modules: dict) -> set[str]:
    """The package's modules that `module` imports anywhere in its source (top level, functions, classes)."""
    is_package = path.name == "__init__.py"
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                if not is_package:
                    base = base[:-1]
                base = base[:len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module
            # `from a import b`: b may be a submodule of a, or a name defined in a
            names = [f"{source}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            target = _known(name, modules)
            if target is not None and target != module:
                found.add(target)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = module_names()
    return {m: imports_of(m, p, modules) for m, p in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def test_graph_sees_every_kind_of_import():
    graph = import_graph()
    assert "peet_fast.jobs.shards" in graph["peet_fast.jobs.local"]         # from peet_fast.jobs.shards import ...
    assert "peet_fast.jobs.local" in graph["peet_fast.jobs"]                # a package's __init__ is the package
    assert "peet_fast.jobs.layout" in graph["peet_fast.peet.model"]              # an import inside a function


def test_cycle_finder():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles():
    found = cycles(import_graph())
    assert not found, "import cycles among peet_fast's modules:\n" + "\n".join(" <-> ".join(c) for c in found)


@pytest.mark.parametrize("module", ["peet_fast", "peet_fast.jobs"])
def test_import_loads_no_heavy_stack(module):
    code = f"import sys, {module}; print(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=PACKAGE.parent,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == [], f"import {module} loaded {res.stdout.split()}"


# The floors of the house, from the ground up (docs/design.md, "Layout"); a module may import its own floor and those
# below it, never one above. Written by hand from the layout's purpose, not read from the code.
FLOORS = [
    {"peet_fast", "peet_fast._ext", "peet_fast.io", "peet_fast.cache", "peet_fast.formats"},   # the ground floor
    {"peet_fast.languages", "peet_fast.en", "peet_fast.zh"},
    {"peet_fast.metrics"},
    {"peet_fast.peet", "peet_fast.jobs"},
    {"peet_fast.evaluation", "peet_fast.meta_eval"},
    {"peet_fast.api"},
    {"peet_fast.cli"},
]


def floor_of(module: str) -> int:
    """The floor of a module: that of the longest FLOORS entry it is or lies in (ValueError for a module of none)."""
    parts = module.split(".")
    for k in range(len(parts), 0, -1):
        prefix = ".".join(parts[:k])
        for level, names in enumerate(FLOORS):
            if prefix in names and (prefix != "peet_fast" or module == "peet_fast"):
                return level
    raise ValueError(f"{module} lies on no floor of tests/test_imports.py's FLOORS")


def test_floor_of():
    assert floor_of("peet_fast") == 0
    assert floor_of("peet_fast.io") == 0
    assert floor_of("peet_fast.en.synth.errors") == 1
    assert floor_of("peet_fast.cli.rank") == 6
    with pytest.raises(ValueError):
        floor_of("peet_fast.attic")


def test_every_module_lies_on_a_floor():
    for module in import_graph():
        floor_of(module)


def test_imports_point_down():
    upward = [f"{a} (floor {floor_of(a)}) imports {b} (floor {floor_of(b)})"
              for a, targets in sorted(import_graph().items()) for b in sorted(targets) if floor_of(b) > floor_of(a)]
    assert not upward, "imports that climb to a higher floor:\n" + "\n".join(upward)


def test_human_rankings_stand_without_the_metric_meta_evaluation():
    """meta_eval.human (judgments, Expected Wins, TrueSkill, rankings) imports nothing of meta_eval.metric, which
    builds on it; the two subpackages are the whole of meta_eval."""
    graph = import_graph()
    human = [m for m in graph if m.startswith("peet_fast.meta_eval.human")]
    assert "peet_fast.meta_eval.human.judgments" in human
    upward = [f"{m} imports {t}" for m in human for t in sorted(graph[m]) if t.startswith("peet_fast.meta_eval.metric")]
    assert not upward, "\n".join(upward)
    loose = [m for m in graph if m.startswith("peet_fast.meta_eval.") and
             not m.startswith(("peet_fast.meta_eval.human", "peet_fast.meta_eval.metric"))]
    assert not loose, f"modules of meta_eval outside its two subpackages: {loose}"


def test_the_package_root_holds_the_ground_floor_only():
    """At most five modules at peet_fast's root (the face, the API and what every floor uses)."""
    root = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(root) <= 5, root


def test_every_package_says_what_it_holds():
    for init in sorted(PACKAGE.rglob("__init__.py")):
        if "_ext" in init.parts:
            continue
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert doc and len(doc.split()) >= 8, f"{init.relative_to(PACKAGE.parent)} has no docstring saying what it holds"



def test_no_module_over_450_lines():
    long = {str(p.relative_to(PACKAGE.parent)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 450}
    assert not long, f"modules over 450 lines: {long}"
