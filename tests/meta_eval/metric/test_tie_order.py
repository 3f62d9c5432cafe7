"""Issue 43, points 3 and 4: own-data figures that do not depend on the order of the outputs, and human judgments
that rank nothing apart refused.

Point 3: the sentence level counts a metric tie as a loss of the earlier system of a pair (SEEDA's and GJG15's
convention). For own data "earlier" is by name unless tie_order="outputs" (--tie-order outputs) asks for the order
given, so any permutation of the outputs gives the same figures. The hand-computed case: X, Y, Y2, Z on two
sentences 'a b' -> 'a c'; WER (negated) X 0, Y -1/2, Y2 -1/2 (Y2's output is Y's: a metric tie), Z -1.
Item 1 ranks X > Y > Y2 > Z: the metric agrees on 5 pairs and ties Y, Y2. Item 2 ranks Y > Y2 > X > Z: it agrees
on 3 (X < Y and X < Y2 disagree) and ties Y, Y2. 12 pairs, 8 agreeing, 2 ties, both ties the human's Y > Y2:
earlier by name, Y loses the tie: accuracy 8/12; with Y2 given before Y (tie_order="outputs"), Y2 loses: 10/12;
tie-aware: (8 + 2/2)/12.

Point 4: judgments that are all ties, a human CSV whose scores are all equal, a SEEDA score file all 0.5: exit 2,
one line, as "no pairwise judgment" is."""
from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

import peet_fast
from peet_fast.io import InputError

SYSTEMS = ("X", "Y", "Y2", "Z")
ROOT = Path(__file__).resolve().parents[3]


def _item(k, line, ranks):
    return (f'<ranking-item doc-id="d" id="{k}" src-id="{line}" user="u">'
            + "".join(f'<translation rank="{r}" system="{s}"/>' for s, r in ranks.items()) + "</ranking-item>")


def _write(d: Path, items=None, csv="system,score\nX,4\nY,3\nY2,2\nZ,1\n") -> Path:
    for name, text in (("src", "a b"), ("ref", "a c"), ("X", "a c"), ("Y", "a b"), ("Y2", "a b"), ("Z", "d e")):
        (d / name).write_text(f"{text}\n{text}\n", encoding="utf-8")
    items = items or [_item(1, 0, {"X": 1, "Y": 2, "Y2": 3, "Z": 4}), _item(2, 1, {"Y": 1, "Y2": 2, "X": 3, "Z": 4})]
    (d / "j.xml").write_text("<set>" + "".join(items) + "</set>\n", encoding="utf-8")
    (d / "h.csv").write_text(csv, encoding="utf-8")
    return d


@pytest.fixture(scope="module")
def data():
    with tempfile.TemporaryDirectory() as d:
        yield _write(Path(d))


def _own(d: Path, order, **kw):
    return peet_fast.meta_eval(outputs={s: d / s for s in order}, judgments=d / "j.xml", human=d / "h.csv",
                               src=d / "src", references=[d / "ref"], **kw)


def _figures(me) -> dict:
    s = me.summary(["wer"], window=3, bootstrap=20, seed=1)
    return {k: v for k, v in s.items() if k != "systems"}


def _close(a, b, where="") -> None:
    """a == b, floats to 1e-12 (the same figures summed in another order may differ in their last bits)."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b), where
        for k in a:
            _close(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple)) and len(a) == len(b), where
        for k, (x, y) in enumerate(zip(a, b)):
            _close(x, y, f"{where}[{k}]")
    elif isinstance(a, float) and isinstance(b, float):
        assert a == pytest.approx(b, rel=1e-12, abs=1e-12, nan_ok=True), where
    else:
        assert a == b, where


def test_hand_computed(data):
    s = _own(data, SYSTEMS).corr_sentence("wer").sent
    assert (s.pairs, s.ties) == (12, 2)
    assert s.accuracy == 8 / 12 and s.tie_aware.accuracy == 9 / 12
    assert _own(data, ("X", "Y2", "Y", "Z"), tie_order="outputs").corr_sentence("wer").sent.accuracy == 10 / 12
    assert _own(data, SYSTEMS, tie_order="outputs").corr_sentence("wer").sent.accuracy == 8 / 12


@given(st.permutations(SYSTEMS))
def test_a_permutation_of_the_outputs_gives_identical_figures(data, order):
    """Every figure of the summary (system level, windows, sentence level, pairwise analysis, bootstrap intervals
    and tests) is the same whatever the outputs' order; with tie_order="outputs" the sentence level follows it."""
    base = _figures(_own(data, SYSTEMS))
    _close(_figures(_own(data, order)), base)
    assert base["tie_order"] == sorted(SYSTEMS)
    given_order = _own(data, order, tie_order="outputs")
    assert given_order.summary(["wer"])["tie_order"] == list(order)
    want = 10 / 12 if order.index("Y2") < order.index("Y") else 8 / 12
    assert given_order.corr_sentence("wer").sent.accuracy == want


def test_the_command_line_says_its_tie_order_and_takes_outputs(data, tmp_path):
    def run(*args):
        return subprocess.run([sys.executable, "-m", "peet_fast.cli", "meta-eval", *map(str, args), "--judgments",
                               data / "j.xml", "--src", data / "src", "--ref", data / "ref", "--metric", "wer"],
                              capture_output=True, text=True)

    a = run("--outputs", *(data / s for s in SYSTEMS))
    b = run("--outputs", *(data / s for s in reversed(SYSTEMS)))
    assert a.returncode == b.returncode == 0, a.stderr + b.stderr
    line = [ln for ln in a.stdout.splitlines() if ln.startswith("wer")][-1]
    assert line == [ln for ln in b.stdout.splitlines() if ln.startswith("wer")][-1]
    assert line.split()[2] == "0.667"
    assert "a metric tie is a loss of the earlier system in the order X, Y, Y2, Z" in a.stdout
    c = run("--outputs", *(data / s for s in reversed(SYSTEMS)), "--tie-order", "outputs")
    assert c.returncode == 0
    assert [ln for ln in c.stdout.splitlines() if ln.startswith("wer")][-1].split()[2] == "0.833"
    assert "in the order Z, Y2, Y, X" in c.stdout
    d = subprocess.run([sys.executable, "-m", "peet_fast.cli", "meta-eval", "--data", "gjg15", str(tmp_path), "--gold",
                        str(data / "ref"), "--metric", "wer", "--tie-order", "outputs"], capture_output=True, text=True)
    assert d.returncode == 2 and d.stderr.strip().endswith("--tie-order: is for own data (--outputs), not --data")


def test_the_docs_list_the_datasets_orders():
    from peet_fast.meta_eval.metric.data import GJG_SYSTEMS, SEEDA_SYSTEMS

    text = " ".join((ROOT / "docs" / "meta-eval.md").read_text(encoding="utf-8").split())
    seeda = re.search(r"SEEDA, name order \(a set leaves its missing systems out\): ([^.]*\.[^.]*)\. GJG15", text)
    gjg = re.search(r"GJG15, Table 3's \(Expected Wins\) order: ([^.]*)\.", text)
    assert seeda and seeda.group(1).split(", ") == list(SEEDA_SYSTEMS) == sorted(SEEDA_SYSTEMS)
    assert gjg and gjg.group(1).split(", ") == list(GJG_SYSTEMS)


# --- point 4: nothing ranked apart --------------------------------------------------------------------------------

def _one_line(out, *parts):
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr, out.stderr
    assert all(p in lines[0] for p in parts), lines[0]


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "peet_fast.cli", *map(str, args)], capture_output=True, text=True)


def test_all_tie_judgments_are_refused(tmp_path):
    ties = [_item(1, 0, {s: 1 for s in SYSTEMS}), _item(2, 1, {"X": 2, "Y": 2, "Z": 2})]
    d = _write(tmp_path, ties)
    _one_line(_cli("human-rank", d / "j.xml"), str(d / "j.xml"), "are ties", "no system is ranked above another")
    _one_line(_cli("meta-eval", "--outputs", *(d / s for s in SYSTEMS), "--judgments", d / "j.xml", "--src",
                   d / "src", "--ref", d / "ref", "--metric", "wer"), str(d / "j.xml"), "are ties")
    # with a CSV too: the judgments give the sentence level, and all-tie judgments have none
    _one_line(_cli("meta-eval", "--outputs", *(d / s for s in SYSTEMS), "--judgments", d / "j.xml", "--human",
                   d / "h.csv", "--src", d / "src", "--ref", d / "ref", "--metric", "wer"), "are ties")
    with pytest.raises(InputError, match="are ties"):
        _own(d, SYSTEMS)


def test_a_human_csv_of_equal_scores_is_refused(tmp_path):
    d = _write(tmp_path, csv="system,score\nX,0.5\nY,0.5\nY2,0.50\nZ,5e-1\n")
    _one_line(_cli("meta-eval", "--outputs", *(d / s for s in SYSTEMS), "--human", d / "h.csv", "--src", d / "src",
                   "--ref", d / "ref", "--metric", "wer"), str(d / "h.csv"), "the same score (0.5)")
    _one_line(_cli("rank", "--hyp", *(d / s for s in SYSTEMS), "--ref", d / "ref", "--metric", "wer", "--human",
                   d / "h.csv"), str(d / "h.csv"), "the same score")


def test_a_seeda_score_file_all_equal_is_refused(tmp_path):
    from peet_fast.meta_eval.metric.data import _numbers

    path = tmp_path / "EW_sent.txt"
    path.write_text("0.5\n" * 15, encoding="utf-8")
    with pytest.raises(InputError, match=r"every system has the same score \(0\.5\)") as err:
        _numbers(str(path), 15)
    assert err.value.path == str(path)
    path.write_text("0.5\n" * 14 + "0.25\n", encoding="utf-8")
    assert _numbers(str(path), 15)[-1] == 0.25
