"""Ray stays in its corner: the only modules that import Ray are peet_fast/jobs/ray*.py (the runner, its start, its
actor pool, its known noise), or modules of a peet_fast/jobs/ray/ package should it become one. Every import counts:
top level, inside functions, `from ray... import`, importlib.import_module("ray...") and __import__("ray")."""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "peet_fast"


def imports_ray(source: str) -> list[int]:
    """The lines of source that import Ray or one of its modules."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""] if not node.level else []
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) and (
                isinstance(node.func, ast.Name) and node.func.id == "__import__" or
                isinstance(node.func, ast.Attribute) and node.func.attr == "import_module"):
            names = [node.args[0].value] if isinstance(node.args[0].value, str) else []
        else:
            continue
        if any(n == "ray" or n.startswith("ray.") for n in names):
            found.append(node.lineno)
    return found


def may_import_ray(path: Path) -> bool:
    rel = path.relative_to(PACKAGE)
    return rel.parts[:1] == ("jobs",) and (rel.parts[1:2] == ("ray",) or
                                           len(rel.parts) == 2 and rel.name.startswith("ray"))


def test_the_finder_sees_every_way_of_importing_ray():
    assert imports_ray("import ray\n") == [1]
    assert imports_ray("def f():\n    from ray._private import worker\n") == [2]
    assert imports_ray("import os, ray.util as u\n") == [1]
    assert imports_ray("import importlib\nimportlib.import_module('ray')\n") == [2]
    assert imports_ray("__import__('ray.exceptions')\n") == [1]
    assert imports_ray("import rayon\nfrom peet_fast.jobs import ray\nfrom . import ray\nx = sys.modules.get('ray')\n") \
        == []


def test_the_rule_names_the_ray_modules_only():
    assert may_import_ray(PACKAGE / "jobs" / "ray.py")
    assert may_import_ray(PACKAGE / "jobs" / "raystart.py")
    assert may_import_ray(PACKAGE / "jobs" / "ray" / "pool.py")
    assert not may_import_ray(PACKAGE / "jobs" / "tasks.py")
    assert not may_import_ray(PACKAGE / "cli" / "ray.py")
    assert not may_import_ray(PACKAGE / "jobs" / "sub" / "raystart.py")


def test_only_the_ray_modules_import_ray():
    importers, outside = set(), []
    for path in sorted(PACKAGE.rglob("*.py")):
        lines = imports_ray(path.read_text(encoding="utf-8"))
        if lines:
            importers.add(path.relative_to(PACKAGE).as_posix())
            if not may_import_ray(path):
                outside += [f"{path.relative_to(PACKAGE.parent)}:{n}" for n in lines]
    assert not outside, "Ray imported outside peet_fast/jobs/ray*.py:\n" + "\n".join(outside)
    # the runner and the starter do import it (the walk sees them), and the watchdog never does
    assert {"jobs/ray.py", "jobs/raystart.py", "jobs/raypool.py"} <= importers, importers
    assert "jobs/raywatch.py" not in importers
