"""The package's import structure: no import cycle among peet_fast's modules (every import counts, including those
inside functions), and importing the package loads none of the heavy optional stacks; and the house rules of one
scoring path (issue 34): no comparison with a metric's name outside peet/ and metrics/, at most 8 parameters a
function, no --flag in an error below cli/."""
from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections import Counter
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
    assert "peet_fast.jobs.layout" in graph["peet_fast.cli.predict"]        # an import inside a function


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
                         timeout=600)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == [], f"import {module} loaded {res.stdout.split()}"


# The floors of the house, from the ground up (docs/design.md, "Layout"); a module may import its own floor and those
# below it, never one above. Written by hand from the layout's purpose, not read from the code.
FLOORS = [
    {"peet_fast", "peet_fast._ext", "peet_fast.io", "peet_fast.cache", "peet_fast.formats"},   # the ground floor
    {"peet_fast.languages", "peet_fast.en", "peet_fast.zh"},
    {"peet_fast.metrics"},
    {"peet_fast.peet"},
    {"peet_fast.jobs"},                  # jobs run the PEET model's scoring and features; peet imports nothing of jobs
    {"peet_fast.evaluation", "peet_fast.meta_eval"},
    {"peet_fast.api"},
    {"peet_fast.cli"},
    {"peet_fast.cluster"},               # what a `ray up` cluster runs: the command line joined to the cluster
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
    assert floor_of("peet_fast.peet.model") == 3
    assert floor_of("peet_fast.jobs.tasks") == 4
    assert floor_of("peet_fast.cli.rank") == 7
    with pytest.raises(ValueError):
        floor_of("peet_fast.attic")


def test_every_module_lies_on_a_floor():
    for module in import_graph():
        floor_of(module)


def test_imports_point_down():
    upward = [f"{a} (floor {floor_of(a)}) imports {b} (floor {floor_of(b)})"
              for a, targets in sorted(import_graph().items()) for b in sorted(targets) if floor_of(b) > floor_of(a)]
    assert not upward, "imports that climb to a higher floor:\n" + "\n".join(upward)


def test_peet_imports_nothing_of_jobs():
    """The peet <-> jobs arrow points one way (issue 34): jobs/ runs the PEET model; peet/ reads no job directory
    and no input table itself (cli/ hands it the rows, or the reader of a job's directory)."""
    graph = import_graph()
    assert "peet_fast.peet.scoring" in graph["peet_fast.jobs.tasks"]
    upward = [f"{m} imports {t}" for m in sorted(graph) if m == "peet_fast.peet" or m.startswith("peet_fast.peet.")
              for t in sorted(graph[m]) if t == "peet_fast.jobs" or t.startswith("peet_fast.jobs.")]
    assert not upward, "\n".join(upward)


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


# --- one scoring path (issue 34) ------------------------------------------------------------------------------------

def _sources(skip=()) -> list[tuple[str, ast.AST]]:
    """(path relative to peet_fast/, parsed module) of every module whose path starts with none of skip."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if not rel.startswith(tuple(skip)):
            out.append((rel, ast.parse(path.read_text(encoding="utf-8"), str(path))))
    return out


def _strings(node: ast.AST) -> set[str]:
    """The string constants a comparison operand spells out: a string, or a tuple/list/set of them."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return {s for e in node.elts for s in _strings(e)}
    return set()


def name_branches(tree: ast.AST, names: set[str]) -> list[int]:
    """Lines comparing something with a metric's name spelled out (==, !=, in, not in)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(isinstance(o, (ast.Eq, ast.NotEq, ast.In, ast.NotIn))
                                                 for o in node.ops):
            if any(_strings(x) & names for x in [node.left, *node.comparators]):
                found.append(node.lineno)
    return found


def test_name_branch_finder():
    tree = ast.parse("if m.name == 'peet':\n    pass\nx = 'wer' in stats\ny = a in ('errant', 'cleme')\nz = k == 'ok'\n")
    assert name_branches(tree, {"peet", "wer", "errant"}) == [1, 3, 4]


# modules still branching on a metric's name, each with why (TODO issue 34: meta-evaluation's own engineers)
NAME_BRANCH_EXEMPT = {
    "evaluation/excgec.py": "'cleme' is a section of excgec's own summary (CLEME beside ChERRANT), not a metric",
}


def test_no_branch_on_a_metric_name_outside_peet_and_metrics():
    """rank, report, compare, evaluate and the commands ask a Metric (its attributes and methods), never its name:
    a default or a doc may name a metric, a comparison may not (metrics.base's module docstring)."""
    from peet_fast.metrics.base import metric_names

    names = set(metric_names())
    found = [f"{rel}:{line}" for rel, tree in _sources(("peet/", "metrics/", "meta_eval/"))
             if rel not in NAME_BRANCH_EXEMPT for line in name_branches(tree, names)]
    assert not found, "comparisons with a metric's name outside peet/ and metrics/: " + ", ".join(found)


def eval_set_calls(tree: ast.AST) -> list[int]:
    """Lines calling EvalSet(...) itself (a bare name or an attribute: base.EvalSet(...)), not one of its
    constructors (EvalSet.from_files, EvalSet.from_gold)."""
    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call)
            and (isinstance(node.func, ast.Name) and node.func.id == "EvalSet"
                 or isinstance(node.func, ast.Attribute) and node.func.attr == "EvalSet")]


def test_eval_set_call_finder():
    tree = ast.parse("a = EvalSet(s, r)\nb = base.EvalSet(s, r)\nc = EvalSet.from_files(i)\n"
                     "d = EvalSet.from_gold(g)\ne = isinstance(x, EvalSet)\n")
    assert eval_set_calls(tree) == [1, 2]


def test_eval_set_built_in_one_place():
    """The package builds a test set only through EvalSet.from_files / EvalSet.from_gold (issue 42: what an EvalSet
    is made of, its memo included, decided in metrics/base.py alone)."""
    found = [f"{rel}:{line}" for rel, tree in _sources() if rel != "metrics/base.py"
             for line in eval_set_calls(tree)]
    assert not found, "EvalSet(...) called outside metrics/base.py (use EvalSet.from_files or from_gold): " + \
        ", ".join(found)


MAX_PARAMETERS = 8
# functions over MAX_PARAMETERS, and their count (none left: the options of each are grouped into a dataclass, as
# rank_systems' RankOptions, rank_files' RankRequest and the jobs' JobOptions); none may join
PARAMETERS_TODO: dict[str, int] = {}


def parameter_counts(tree: ast.AST, public: set[str] = frozenset()) -> dict[str, int]:
    """Function name -> parameters (self/cls not counted; the keyword-only options of a public function, and of a
    public class's constructor, not counted)."""
    out = {}
    constructors = {id(f) for c in ast.walk(tree) if isinstance(c, ast.ClassDef) and c.name in public
                    for f in c.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            is_public = node.name in public or id(node) in constructors
            params = [*a.posonlyargs, *a.args] + ([] if is_public else a.kwonlyargs)
            if params and params[0].arg in ("self", "cls"):
                params = params[1:]
            out[node.name] = max(out.get(node.name, 0), len(params))
    return out


def test_parameter_counter():
    tree = ast.parse("def f(a, b, *, c):\n    pass\nclass K:\n    def g(self, x):\n        pass\n")
    assert parameter_counts(tree) == {"f": 3, "g": 1}
    assert parameter_counts(tree, {"f"}) == {"f": 2, "g": 1}
    tree = ast.parse("class K:\n    def __init__(self, a, *, b, c):\n        pass\n    def m(self, *, d):\n"
                     "        pass\n")
    assert parameter_counts(tree) == {"__init__": 3, "m": 1}
    assert parameter_counts(tree, {"K"}) == {"__init__": 1, "m": 1}       # a public class's constructor


def public_names() -> dict[str, set[str]]:
    """Module path (relative to peet_fast/) -> the public names (peet_fast.__all__) defined there: api.py has them
    all, as before; a public class also counts in the module that defines it (its constructor is public API)."""
    import inspect

    import peet_fast

    out = {"api.py": set(peet_fast.__all__)}
    for name in peet_fast.__all__:
        obj = getattr(peet_fast, name)
        if inspect.isclass(obj) and obj.__module__.startswith("peet_fast."):
            rel = Path(inspect.getsourcefile(obj)).resolve().relative_to(PACKAGE).as_posix()
            out.setdefault(rel, set()).add(name)
    return out


def test_internal_functions_take_at_most_eight_parameters():
    """No function takes more than 8 parameters, except the public API's keyword-only options (peet_fast's own
    names: api.py's functions, the public classes' constructors such as Annotator's and Parser's);
    PARAMETERS_TODO lists those still over, none of which may grow."""
    public = public_names()
    assert "Annotator" in public["en/annotator.py"] and "Parser" in public["en/parse.py"]
    over = []
    for rel, tree in _sources():
        for name, n in parameter_counts(tree, public.get(rel, set())).items():
            allowed = PARAMETERS_TODO.get(f"{rel}:{name}", MAX_PARAMETERS)
            if n > allowed:
                over.append(f"{rel}:{name} ({n})")
    assert not over, "functions over 8 parameters: " + ", ".join(over)


FLAG = re.compile(r"(?:^|[\s(\"'`/])--[a-z]")
# another tool's command line quoted in a message (`ray start --temp-dir DIR`, `ray job submit --address`): its flags
# are Ray's, not ours
FOREIGN_COMMAND = re.compile(r"`ray [^`]*`")


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the docstring constants of a module, its classes and functions."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def flag_texts(tree: ast.AST) -> list[int]:
    """Lines of the strings (not docstrings) that spell out a --flag: an error's message, a default option name, a
    printed line, a table's value."""
    docs = _docstrings(tree)
    return sorted({c.lineno for c in ast.walk(tree) if isinstance(c, ast.Constant) and isinstance(c.value, str)
                   and id(c) not in docs and FLAG.search(FOREIGN_COMMAND.sub("", c.value))})


def test_flag_text_finder():
    tree = ast.parse("raise InputError('--window', 'x')\nraise ValueError(f'give {a} --src')\nraise E('a-b -- c')\n"
                     "def f(option='--seed'):\n    \"the --seed option\"\nNAMES = {'k': '--features'}\n"
                     "print(f'as --workers {n}')\nE('(`ray start --temp-dir DIR`)')\nE('`ray up` then --out')\n")
    assert flag_texts(tree) == [1, 2, 4, 6, 7, 9]


def test_no_flag_text_below_the_command_line():
    """Below cli/, an error names the parameter or the file (`window`, `gold`, a path and line); cli/ maps them to
    its flags (cluster/, above it, is a command line of its own: `ray submit`'s script)."""
    found = [f"{rel}:{line}" for rel, tree in _sources(("cli/", "cluster/")) for line in flag_texts(tree)]
    assert not found, "errors naming a command-line flag below cli/: " + ", ".join(found)


def flag_tables(tree: ast.AST) -> list[int]:
    """Lines of the dict displays that map a name to a flag ({'window': '--window'}, {'n': '-n'}): a table of the
    option vocabulary of its own."""
    def is_flag(node) -> bool:
        return isinstance(node, ast.Constant) and isinstance(node.value, str) and re.fullmatch(r"--?[a-z][\w-]*",
                                                                                                node.value) is not None
    return sorted({d.lineno for d in ast.walk(tree) if isinstance(d, ast.Dict)
                   and any(isinstance(k, ast.Constant) and isinstance(k.value, str) and k.value.isidentifier()
                           and is_flag(v) for k, v in zip(d.keys, d.values))})


def test_flag_table_finder():
    tree = ast.parse("A = {'window': '--window'}\nB = {'--src': args.src}\nC = {'n': '-n', 'x': 1}\n"
                     "D = {'src': ('--src', '-orig')}\nE = {'a': 'b'}\n")
    assert flag_tables(tree) == [1, 3]


def test_one_table_of_the_option_vocabulary():
    """The option vocabulary is one table, derived from the parsers (cli._flags.Words, PARAMETERS naming dests, not
    flags): no dict anywhere in the package maps a name to a flag of its own (issue 42)."""
    found = [f"{rel}:{line}" for rel, tree in _sources() for line in flag_tables(tree)]
    assert not found, "tables of parameter -> flag besides cli._flags.Words: " + ", ".join(found)


# --- the tests mirror the package (issue 34) ------------------------------------------------------------------------

TESTS = Path(__file__).resolve().parent
NOT_TESTS = {"fixtures", "__pycache__"}          # data and bytecode beside the tests, not tests of a package
# test files at the top of tests/: the project-wide ones, the tests of the root modules, and those not moved yet
TOP_LEVEL_TESTS = {
    "test_api.py": "api.py, the Python API (a root module)",
    "test_api_edge.py": "api.py's edge: the API as a user calls it, every argument checked (a root module)",
    "test_docs.py": "the examples of README.md and docs/ (project-wide)",
    "test_imports.py": "the import structure and the house rules (project-wide)",
    "test_packaging.py": "pyproject.toml (project-wide)",
    "test_scaling_bench.py": "benchmarks/scaling.py (project-wide: the benchmarks are no package of peet_fast)",
    "test_ci_bench.py": "benchmarks/throughput.py's CI regression check (project-wide, as test_scaling_bench.py)",
}


def test_tests_mirror_the_package():
    """A test file sits under the package it tests: every folder of tests/ is a package of peet_fast (tests/cli/
    for peet_fast/cli/, ...), and a test file at the top is one of TOP_LEVEL_TESTS. No __init__.py in tests/, so
    pytest's prepend import mode needs every test module's basename to be unique."""
    packages = {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    folders = {p.name for p in TESTS.iterdir() if p.is_dir() and not p.name.startswith(".")} - NOT_TESTS
    assert {"cli", "evaluation", "peet", "jobs"} <= folders
    strays = sorted(folders - packages)
    assert not strays, f"folders of tests/ that are no package of peet_fast: {strays}"
    loose = sorted(p.name for p in TESTS.glob("test_*.py") if p.name not in TOP_LEVEL_TESTS)
    assert not loose, f"test files at the top of tests/: move each under the package it tests: {loose}"
    missing = sorted(name for name in TOP_LEVEL_TESTS if not (TESTS / name).exists())
    assert not missing, f"moved or gone, drop from TOP_LEVEL_TESTS: {missing}"
    seen: dict[str, Path] = {}
    clashes = []
    for path in sorted(TESTS.rglob("*.py")):
        if NOT_TESTS & set(path.relative_to(TESTS).parts):
            continue
        if path.name != "conftest.py" and path.name in seen:
            clashes.append(f"{seen[path.name].relative_to(TESTS)} and {path.relative_to(TESTS)}")
        seen.setdefault(path.name, path)
    assert not clashes, "test modules sharing a basename (prepend import mode): " + ", ".join(clashes)
    assert not list(TESTS.rglob("__init__.py")), "tests/ has no __init__.py (prepend import mode)"


# --- one level deeper: a test of a subpackage's module sits in the subpackage's folder (issue 42) ------------------

# the registry every metric test reaches its metric through (get_metric, EvalSet): no part of what a test tests
REGISTRY = {"metrics": {"base"}}


def _parts(package: str) -> tuple[set[str], set[str]]:
    """The subpackages and the modules of peet_fast/<package>/."""
    subpackages = {p.parent.name for p in (PACKAGE / package).glob("*/__init__.py")}
    modules = {p.stem for p in (PACKAGE / package).glob("*.py") if p.stem != "__init__"}
    return subpackages, modules


def parts_imported(source: str, package: str) -> Counter:
    """How many names a test imports from each part (subpackage or module) of peet_fast/<package>/: `from
    peet_fast.metrics.m2 import m, py` counts 2 for m2, `from peet_fast.metrics import gleu as G` 1 for gleu."""
    counts: Counter = Counter()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            bits = node.module.split(".")
            if bits[:2] == ["peet_fast", package]:
                if len(bits) > 2:
                    counts[bits[2]] += len(node.names)
                else:
                    counts.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            counts.update(bits[2] for bits in (alias.name.split(".") for alias in node.names)
                          if bits[:2] == ["peet_fast", package] and len(bits) > 2)
    return counts


def homes(source: str, package: str) -> set[str]:
    """Where in tests/<package>/ a test may sit: "" (the package's level) or a subpackage's folder. Its home is the
    part of the package it imports most names from; one subpackage alone: that folder; a tie may sit in any tied
    subpackage's folder, or at the package's level where the package has modules of its own; a test importing no part
    sits at the package's level, or (a package of subpackages only, as meta_eval) in any subpackage's folder."""
    subpackages, modules = _parts(package)
    counts = {part: n for part, n in parts_imported(source, package).items()
              if part in subpackages | modules and part not in REGISTRY.get(package, ())}
    top = {""} if modules else set()
    if not counts:
        return top or subpackages
    most = {part for part, n in counts.items() if n == max(counts.values())}
    if len(most) == 1 and most <= subpackages:
        return most
    return (most & subpackages) | top


def test_homes_of_a_test():
    """The rule itself, on hand-written imports."""
    assert homes("from peet_fast.metrics.m2 import m, py\nfrom peet_fast.metrics.base import get_metric, EvalSet\n"
                 "from peet_fast.metrics import stats", "metrics") == {"m2"}
    assert homes("from peet_fast.metrics import gleu as G\nfrom peet_fast.metrics.base import get_metric, EvalSet",
                 "metrics") == {"gleu"}
    assert homes("from peet_fast.metrics.m2 import read_system\nfrom peet_fast.metrics.m2_types import matched",
                 "metrics") == {"", "m2"}
    assert homes("from peet_fast.metrics.sentm2 import a, b\nfrom peet_fast.metrics.m2 import read_system",
                 "metrics") == {""}
    assert homes("import peet_fast.en.synth\nfrom peet_fast.en import parse", "en") == {"", "synth"}
    assert homes("from peet_fast.cli import main", "en") == {""}
    assert homes("from peet_fast.cli import main", "meta_eval") == {"human", "metric"}
    assert homes("from peet_fast.meta_eval.human import a\nfrom peet_fast.meta_eval.metric import b, c",
                 "meta_eval") == {"metric"}
    assert homes("from peet_fast.meta_eval.human import a\nfrom peet_fast.meta_eval.metric import b",
                 "meta_eval") == {"human", "metric"}


def test_tests_mirror_the_subpackages():
    """One level deeper: in tests/<package>/ a folder is a subpackage of peet_fast/<package>/ (tests/metrics/m2/ for
    peet_fast/metrics/m2/, ...), nothing deeper, and every test file sits where homes() puts it."""
    with_subpackages = sorted({p.parent.parent.name for p in PACKAGE.glob("*/*/__init__.py")})
    assert {"metrics", "meta_eval", "en"} <= set(with_subpackages)
    strays, misplaced = [], []
    for package in sorted(p.name for p in TESTS.iterdir()
                          if p.is_dir() and p.name not in NOT_TESTS and not p.name.startswith(".")):
        subpackages, _ = _parts(package)
        for folder in sorted(p for p in (TESTS / package).rglob("*") if p.is_dir() and p.name != "__pycache__"):
            if folder.parent != TESTS / package or folder.name not in subpackages:
                strays.append(str(folder.relative_to(TESTS)))
        for path in sorted((TESTS / package).rglob("test_*.py")):
            where = "" if path.parent == TESTS / package else path.parent.name
            allowed = homes(path.read_text(encoding="utf-8"), package)
            if where not in allowed:
                places = ", ".join(f"tests/{package}/{home}".rstrip("/") for home in sorted(allowed))
                misplaced.append(f"{path.relative_to(TESTS)} (belongs in {places})")
    assert not strays, f"folders of tests/ that are no subpackage of the package above them: {strays}"
    assert not misplaced, "tests of a subpackage's module outside its folder: " + ", ".join(misplaced)
