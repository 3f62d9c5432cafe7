"""Docs that cannot go stale (issue 21, point 5): the fenced examples of README.md and docs/*.md run here, so a
changed flag, output or signature fails the tests instead of a reader.

Marker convention: an HTML comment on the line just before a fence (invisible on GitHub) makes the block an example:

    <!-- example -->              run it and compare its output with the block's
    <!-- example: exit0 -->       run it; check only that every command exits 0 (output long, or figures that vary)
    <!-- example: exit2 -->       (any exitN) its last command must exit N; the block's output lines, if any, must
                                  be the last lines of that command's stderr (the error message)
    <!-- example: shared -->      needs ../shared/corpora beside the checkout (skipped when it is absent)
    <!-- example: slow -->        minutes of work: skipped unless PEET_FAST_DOCS_SLOW=1
Modifiers combine: `<!-- example: shared slow exit0 -->`.

Every ```python block and every fenced block with a `$ ` command line must carry a marker (test_every_example_is_
marked), so that no example is left out by accident; a usage synopsis is a fence without `$ ` prompts.

Shell examples: a line starting with `$ ` is a command (a line ending in `\\` continues on the next); the lines after
it, up to the next `$ ` line, are its expected stdout, compared line by line (trailing spaces and blank lines at both
ends ignored). The blocks of one file run in order, in one temporary directory holding links to the checkout's
tests/ and to ../shared (so paths relative to the checkout and files an earlier block wrote both work), with this
project's peet-fast first on PATH and the suite's temporary parse cache.

A slow shell example's output is also kept in tests/fixtures/docs_slow.json, recorded by its last slow run
(regenerate: `PEET_FAST_DOCS_SLOW=1 PEET_FAST_DOCS_RECORD=1 python -m pytest tests/test_docs.py`), and the default
suite checks every slow example's figures against that recording (test_slow_examples_equal_their_recorded_run);
docs/meta-eval.md's slow examples are checked against their own fixtures by tests/meta_eval/metric/test_docs_figures.py.

Python examples (```python) run with exec, in one namespace per file, in order, in that file's directory; a top-level
line `EXPR  # -> TEXT` also checks that repr(EXPR) == TEXT.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SHARED_CORPORA

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MARKER = re.compile(r"<!--\s*example(?::\s*(?P<mods>[\w\s,]*))?\s*-->")
MODIFIERS = re.compile(r"exit\d+|shared|slow")
CHECK = re.compile(r"^(?P<expr>\S.*?)\s+# -> (?P<expected>.*)$")


class Block:
    def __init__(self, path: Path, line: int, lang: str, text: str, marker: str | None):
        self.path, self.line, self.lang, self.text = path, line, lang, text
        self.mods = set(re.split(r"[\s,]+", marker.strip())) - {""} if marker is not None else None
        self.is_example = marker is not None

    @property
    def id(self) -> str:
        path = self.path.relative_to(ROOT) if self.path.is_relative_to(ROOT) else self.path.name
        return f"{path}:{self.line}"

    @property
    def kind(self) -> str | None:
        if self.lang == "python":
            return "python"
        if any(ln.startswith("$ ") for ln in self.text.splitlines()):
            return "shell"
        return None


def fenced_blocks(path: Path) -> list[Block]:
    """Every fenced block of a Markdown file, with the example marker on the line before it (if any)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks, k = [], 0
    while k < len(lines):
        m = re.match(r"^```(\w*)\s*$", lines[k])
        if not m:
            k += 1
            continue
        start = k
        k += 1
        body = []
        while k < len(lines) and not lines[k].startswith("```"):
            body.append(lines[k])
            k += 1
        prev = lines[start - 1].strip() if start else ""
        marker = MARKER.fullmatch(prev)
        blocks.append(Block(path, start + 1, m.group(1), "\n".join(body),
                            (marker.group("mods") or "") if marker else None))
        k += 1
    return blocks


BLOCKS = [b for path in DOCS for b in fenced_blocks(path)]
EXAMPLES = [b for b in BLOCKS if b.is_example]


def test_every_example_is_marked_and_every_marker_is_known():
    unmarked = [b.id for b in BLOCKS if b.kind is not None and not b.is_example]
    assert unmarked == [], f"fenced examples without an <!-- example --> marker: {unmarked}"
    for b in EXAMPLES:
        assert b.kind is not None, f"{b.id}: marked as an example but neither python nor `$ ` commands"
        unknown = [m for m in b.mods if not MODIFIERS.fullmatch(m)]
        assert unknown == [], f"{b.id}: unknown marker modifiers {unknown}"
    assert len(EXAMPLES) >= 10


def test_readme_is_a_front_page_with_cis_commands():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 300
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    for command in ('pip install -e ".[test]" && peet-fast score --hyp tests/fixtures/sample/system_a.txt '
                    'tests/fixtures/sample/system_b.txt --ref tests/fixtures/sample/reference.txt',
                    "python -m pytest -q --durations=10"):
        assert command in ci                                          # .ci/run runs the README's commands
        assert any(line.endswith(command) for line in text.splitlines()), command
    for link in re.findall(r"\]\((docs/[\w.-]+\.md)", text):        # every linked document exists
        assert (ROOT / link).is_file(), link



def _anchor(heading: str) -> str:
    """GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces as dashes."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_every_relative_link_leads_somewhere_else():
    """A link in README.md or docs/*.md names a file that exists (relative to the document) other than the document
    itself (a section of it is '#anchor'), and an anchor names one of the target's headings (or <a id="...">)."""
    bad = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"\w+:", target):
                continue                                              # http:, https:, mailto:
            path, _, frag = target.partition("#")
            dest = (doc.parent / path).resolve() if path else doc
            if path and not dest.exists():
                bad.append(f"{doc.name}: {target}: no such file")
            elif path and dest == doc.resolve():
                bad.append(f"{doc.name}: {target}: links to itself (use #anchor)")
            elif frag and dest.suffix == ".md":
                target_text = dest.read_text(encoding="utf-8")
                anchors = {_anchor(h) for h in re.findall(r"^#+ (.*)$", target_text, re.M)}
                anchors |= set(re.findall(r'<a id="([^"]+)"></a>', target_text))
                if frag not in anchors:
                    bad.append(f"{doc.name}: {target}: no such heading")
    assert not bad, "\n".join(bad)


def test_the_rank_metrics_table_names_every_registered_metric_and_its_module():
    """docs/rank-metrics.md's table has a row per metric of the registry, naming the module that defines it."""
    from peet_fast.metrics.base import MODULES

    rows = {}
    for line in (ROOT / "docs" / "rank-metrics.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0].startswith("`") and cells[4].startswith("`"):
            rows[cells[0].strip("`")] = cells[4].strip("`")
    for name, module in MODULES.items():
        assert name in rows, f"docs/rank-metrics.md has no row for the {name} metric"
        path = module.removeprefix("peet_fast.").replace(".", "/")
        assert rows[name] in (f"{path}.py", f"{path}/"), (name, rows[name], module)
        assert (ROOT / "peet_fast" / rows[name]).exists(), rows[name]


def test_the_marker_parser(tmp_path):
    doc = tmp_path / "d.md"
    doc.write_text("text\n<!-- example: shared exit0 -->\n```\n$ echo hi\nhi\n```\n\n```python\nx = 1\n```\n"
                   "```\nusage: a synopsis\n```\n")
    a, b, c = fenced_blocks(doc)
    assert (a.is_example, a.mods, a.kind, a.line) == (True, {"shared", "exit0"}, "shell", 3)
    assert (b.is_example, b.kind) == (False, "python")
    assert (c.is_example, c.kind) == (False, None)
    assert split_commands("$ a \\\n   b\nout1\nout2\n$ c\n") == [("a \\\n   b", ["out1", "out2"]), ("c", [])]


def test_the_runner_fails_on_wrong_output_status_or_value(tmp_path, monkeypatch):
    doc = tmp_path / "d.md"
    doc.write_text("<!-- example -->\n```\n$ printf 'a\\nb\\n'\na\nb\n$ true\n```\n"
                   "<!-- example -->\n```\n$ printf 'a\\n'\nb\n```\n"
                   "<!-- example -->\n```\n$ false\n```\n"
                   "<!-- example: exit3 -->\n```\n$ sh -c 'echo oops >&2; exit 3'\noops\n```\n"
                   "<!-- example -->\n```python\nx = [1, 2]\nlen(x)  # -> 2\n```\n"
                   "<!-- example -->\n```python\nx  # -> [1, 3]\n```\n")
    good, wrong_output, wrong_status, error_shown, py_good, py_wrong = fenced_blocks(doc)
    run_shell(good, tmp_path)
    with pytest.raises(AssertionError, match="printed"):
        run_shell(wrong_output, tmp_path)
    with pytest.raises(AssertionError, match="exited 1, not 0"):
        run_shell(wrong_status, tmp_path)
    run_shell(error_shown, tmp_path)
    namespace: dict = {}
    run_python(py_good, tmp_path, namespace, monkeypatch)
    with pytest.raises(AssertionError, match=r"x is \[1, 2\], the example says \[1, 3\]"):
        run_python(py_wrong, tmp_path, namespace, monkeypatch)


# --- running them ---------------------------------------------------------------------------------------------------

_dirs: dict[Path, Path] = {}
_namespaces: dict[Path, dict] = {}


def workdir(path: Path, factory) -> Path:
    """The one working directory of a document's examples: <tmp>/work, with work/tests -> the checkout's tests and
    <tmp>/shared -> the shared data (so ../shared/corpora resolves as it does from a checkout)."""
    if path not in _dirs:
        base = factory.mktemp("docs")
        work = base / "work"
        work.mkdir()
        (work / "tests").symlink_to(ROOT / "tests")
        if SHARED_CORPORA.is_dir():
            (base / "shared").symlink_to(SHARED_CORPORA.parent)
        _dirs[path] = work
    return _dirs[path]


def split_commands(text: str) -> list[tuple[str, list[str]]]:
    """(command, expected stdout lines) of a shell example."""
    out: list[tuple[str, list[str]]] = []
    lines = text.splitlines()
    k = 0
    while k < len(lines):
        line = lines[k]
        if line.startswith("$ "):
            cmd = [line[2:]]
            while cmd[-1].endswith("\\") and k + 1 < len(lines):
                k += 1
                cmd.append(lines[k])
            out.append(("\n".join(cmd), []))
        elif out:
            out[-1][1].append(line)
        k += 1
    return out


def normal(lines: list[str]) -> list[str]:
    lines = [ln.rstrip() for ln in lines]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return lines


SEP = "@@peet-fast-docs@@"
RECORDED = ROOT / "tests" / "fixtures" / "docs_slow.json"
# slow examples whose figures another default-suite test checks against fixtures of its own
CHECKED_ELSEWHERE = {"docs/meta-eval.md": "tests/meta_eval/metric/test_docs_figures.py (make_docs_figures.py's fixtures)"}


def slow_key(block: Block) -> str:
    """A slow example's key in the recording: its file and its commands (not its line, which edits above move)."""
    path = block.path.relative_to(ROOT).as_posix()
    return path + "\n" + "\n".join(cmd for cmd, _ in split_commands(block.text))


def record_slow_run(block: Block, runs: list[tuple[str, list[str], int]]) -> None:
    """Keep what a slow example's commands printed (stdout, normalised) and their exit statuses."""
    import json

    kept = json.loads(RECORDED.read_text(encoding="utf-8")) if RECORDED.exists() else {}
    kept[slow_key(block)] = [{"command": cmd, "stdout": out, "status": status} for cmd, out, status in runs]
    RECORDED.write_text(json.dumps(dict(sorted(kept.items())), indent=1, ensure_ascii=False) + "\n",
                        encoding="utf-8")


SLOW_SHELL = [b for b in EXAMPLES if "slow" in b.mods and b.kind == "shell"
              and b.path.relative_to(ROOT).as_posix() not in CHECKED_ELSEWHERE]


@pytest.mark.parametrize("block", SLOW_SHELL, ids=[b.id for b in SLOW_SHELL])
def test_slow_examples_equal_their_recorded_run(block):
    """A slow example's figures (skipped by default) are what its last slow run printed: the docs cannot drift from
    the recording, and the slow run (PEET_FAST_DOCS_SLOW=1) checks the recording against the code."""
    import json

    kept = json.loads(RECORDED.read_text(encoding="utf-8")) if RECORDED.exists() else {}
    runs = kept.get(slow_key(block))
    assert runs is not None, (f"{block.id}: no recorded run; record it with PEET_FAST_DOCS_SLOW=1 "
                              f"PEET_FAST_DOCS_RECORD=1 python -m pytest tests/test_docs.py")
    want_exit = next((int(m[4:]) for m in block.mods if m.startswith("exit")), 0)
    commands = split_commands(block.text)
    assert [r["command"] for r in runs] == [cmd for cmd, _ in commands]
    for k, ((cmd, expected), run) in enumerate(zip(commands, runs)):
        assert run["status"] == (want_exit if k == len(commands) - 1 else 0), f"{block.id}: `{cmd}` {run}"
        if "exit0" not in block.mods and normal(expected) and run["status"] == 0:
            assert run["stdout"] == normal(expected), f"{block.id}: `{cmd}` printed when recorded:\n" + \
                "\n".join(run["stdout"])


def test_slow_run_recordings_are_all_in_use():
    """No recording of an example that is gone or changed (it would no longer be checked)."""
    import json

    kept = json.loads(RECORDED.read_text(encoding="utf-8")) if RECORDED.exists() else {}
    live = {slow_key(b) for b in SLOW_SHELL}
    assert sorted(set(kept) - live) == []


def run_shell(block: Block, cwd: Path) -> None:
    commands = split_commands(block.text)
    script = ["set -u"]
    for k, (cmd, _) in enumerate(commands):
        script.append(f"{{ {cmd}\n}} 2> .docs-err-{k}; printf '\\n{SEP} %d\\n' $?")
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    res = subprocess.run(["bash", "-c", "\n".join(script)], cwd=cwd, env=env, capture_output=True, text=True,
                         timeout=900)
    parts = re.split(rf"\n{SEP} (\d+)\n", res.stdout)
    assert len(parts) == 2 * len(commands) + 1, f"{block.id}: the script stopped early:\n{res.stdout}\n{res.stderr}"
    if "slow" in block.mods and os.environ.get("PEET_FAST_DOCS_RECORD") == "1":
        record_slow_run(block, [(cmd, normal(parts[2 * k].splitlines()), int(parts[2 * k + 1]))
                                for k, (cmd, _) in enumerate(commands)])
    want_exit = next((int(m[4:]) for m in block.mods if m.startswith("exit")), 0)
    compare = "exit0" not in block.mods
    for k, (cmd, expected) in enumerate(commands):
        output, status = parts[2 * k], int(parts[2 * k + 1])
        err = (cwd / f".docs-err-{k}").read_text(encoding="utf-8", errors="replace")
        expected_status = want_exit if k == len(commands) - 1 else 0
        assert status == expected_status, (f"{block.id}: `{cmd}` exited {status}, not {expected_status}\n"
                                           f"stdout:\n{output}\nstderr:\n{err}")
        if not compare or not normal(expected):
            continue
        if expected_status != 0:       # the block shows the error message: the last lines of stderr
            got = normal(err.splitlines())[-len(normal(expected)):]
        else:
            got = normal(output.splitlines())
        assert got == normal(expected), f"{block.id}: `{cmd}` printed:\n" + "\n".join(got)


def run_python(block: Block, cwd: Path, namespace: dict, monkeypatch) -> None:
    source = []
    for line in block.text.splitlines():
        m = CHECK.match(line)
        if m:
            line = f"__doc_check__({m.group('expr')}, {m.group('expected')!r}, {m.group('expr')!r})"
        source.append(line)

    def check(value, expected, expr):
        assert repr(value) == expected, f"{block.id}: {expr} is {value!r}, the example says {expected}"

    namespace["__doc_check__"] = check
    monkeypatch.chdir(cwd)
    exec(compile("\n".join(source), block.id, "exec"), namespace)     # noqa: S102 - our own documentation


@pytest.mark.parametrize("block", EXAMPLES, ids=[b.id for b in EXAMPLES])
def test_example(block, tmp_path_factory, monkeypatch):
    if "shared" in block.mods and not SHARED_CORPORA.is_dir():
        pytest.skip("needs ../shared/corpora")
    if "slow" in block.mods and os.environ.get("PEET_FAST_DOCS_SLOW") != "1":
        pytest.skip("slow: set PEET_FAST_DOCS_SLOW=1 to run it")
    cwd = workdir(block.path, tmp_path_factory)
    if block.kind == "shell":
        run_shell(block, cwd)
    else:
        run_python(block, cwd, _namespaces.setdefault(block.path, {"__name__": "__doc__"}), monkeypatch)
