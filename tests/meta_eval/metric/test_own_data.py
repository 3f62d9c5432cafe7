"""Issue 35 point 1: meta-evaluation on a researcher's own data (`meta-eval --outputs ...`, peet_fast.meta_eval(
outputs=...)): a hand-computed case, GJG15's release given as own data equal to `--data gjg15`, GMEG FCE with its
corpus-scores CSV equal to `rank --human`, and the bad inputs refused with one line."""
from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

import peet_fast
from peet_fast.io import InputError
from peet_fast.meta_eval.metric import data as D

TOL = 1e-12          # the same arithmetic on the same scores; stated, not ==


def run_cli(command, *args):
    return subprocess.run([sys.executable, "-m", "peet_fast.cli", command, *map(str, args)], capture_output=True,
                          text=True)


def _item(k, line, ranks):
    return (f'<ranking-item doc-id="d" id="{k}" src-id="{line}" user="u">'
            + "".join(f'<translation rank="{r}" system="{s}"/>' for s, r in ranks.items()) + "</ranking-item>")


@pytest.fixture
def tiny(tmp_path):
    """Two sentences 'a b' -> reference 'a c'; X corrects it (WER 0), Y leaves it (1/2), Z rewrites it (1). Item 1
    ranks X > Y > Z on line 0 (WER agrees on its 3 pairs); item 2 Z > Y > X on line 1 (disagrees on all 3)."""
    for name, text in (("src", "a b"), ("ref", "a c"), ("X", "a c"), ("Y", "a b"), ("Z", "d e")):
        (tmp_path / name).write_text(f"{text}\n{text}\n", encoding="utf-8")
    (tmp_path / "j.xml").write_text("<set>" + _item(1, 0, {"X": 1, "Y": 2, "Z": 3})
                                    + _item(2, 1, {"Z": 1, "Y": 2, "X": 3}) + "</set>\n", encoding="utf-8")
    (tmp_path / "h.csv").write_text("system,score\nX,3\nY,2\nZ,1\nref,9\n", encoding="utf-8")
    return tmp_path


def test_hand_computed(tiny):
    outputs = {s: tiny / s for s in "XYZ"}
    me = peet_fast.meta_eval(outputs=outputs, judgments=tiny / "j.xml", human=tiny / "h.csv", src=tiny / "src",
                             references=[tiny / "ref"], human_ignore=["ref"])
    assert me.human == {"human": {"X": 3.0, "Y": 2.0, "Z": 1.0}}
    assert me.system_scores("wer") == {"X": -0.0, "Y": -0.5, "Z": -1.0}         # oriented: negated
    c = me.corr_system("wer").human
    assert abs(c.pearson - 1) < TOL and abs(c.spearman - 1) < TOL
    s = me.corr_sentence("wer").sent
    assert (s.pairs, s.accuracy) == (6, 0.5) and abs(s.kendall) < TOL
    # the human scores from the judgments instead: each system wins as often as it loses, Expected Wins 1/2 each
    ew = peet_fast.meta_eval(outputs=outputs, judgments=tiny / "j.xml", src=tiny / "src", references=[tiny / "ref"])
    assert ew.human == {"ew": {"X": 0.5, "Y": 0.5, "Z": 0.5}}
    # TrueSkill: human-rank --method ts's scores (the mean mu of the runs, one seed)
    from peet_fast.meta_eval.human.ranking import human_rank

    ts = peet_fast.meta_eval(outputs=outputs, judgments=tiny / "j.xml", src=tiny / "src", references=[tiny / "ref"],
                             human_method="ts", human_runs=7, seed=3)
    want = {s.name: s.score for s in human_rank(tiny / "j.xml", "ts", 7, 3).systems}
    assert set(ts.human) == {"ts"} and all(abs(ts.human["ts"][s] - want[s]) < TOL for s in "XYZ")
    assert len(set(ts.human["ts"].values())) > 1          # random runs: not the constant of Expected Wins


def test_csv_alone_gives_the_system_level_only(tiny):
    out = run_cli("meta-eval", "--outputs", *(f"{s}={tiny / s}" for s in "XYZ"), "--human", tiny / "h.csv",
                  "--human-ignore", "ref", "--src", tiny / "src", "--ref", tiny / "ref", "--metric", "wer",
                  "--summary", tiny / "s.json")
    assert out.returncode == 0, out.stderr
    s = json.loads((tiny / "s.json").read_text())
    assert s["data"] == "own" and s["systems"] == ["X", "Y", "Z"] and "sentence" not in s["metrics"]["wer"]
    assert "acc" not in out.stdout and "human r" in out.stdout


def test_csv_alone_with_bootstrap_has_no_sentence_comparison(tiny):
    """--human CSV alone with --bootstrap: the comparison of two metrics is Williams' test only (no judgments, so no
    paired bootstrap of the sentence level: neither an empty entry in the summary nor an empty one in the table)."""
    (tiny / "Y2").write_text("a c\na b\n", encoding="utf-8")
    (tiny / "h.csv").write_text("system,score\nX,4\nY2,3\nY,2\nZ,1\n", encoding="utf-8")
    out = run_cli("meta-eval", "--outputs", *(f"{s}={tiny / s}" for s in ("X", "Y2", "Y", "Z")), "--human",
                  tiny / "h.csv", "--src", tiny / "src", "--ref", tiny / "ref", "--metric", "wer", "gleu",
                  "--bootstrap", "20", "--summary", tiny / "s.json")
    assert out.returncode == 0, out.stderr
    (c,) = json.loads((tiny / "s.json").read_text())["comparisons"]
    assert c["metrics"] == ["wer", "gleu"] and set(c) == {"metrics", "system"}
    (line,) = [ln for ln in out.stdout.splitlines() if ln.startswith("wer > gleu?")]
    assert line.startswith("wer > gleu? Williams (system, Pearson): human p=") and "bootstrap" not in line


@pytest.mark.parametrize("case", ["unjudged", "judged-without-output", "short", "unknown-csv", "runs", "no-gold",
                                  "lib"])
def test_bad_input(tiny, case):
    common = ["--src", tiny / "src", "--ref", tiny / "ref", "--metric", "wer"]
    outputs = [f"{s}={tiny / s}" for s in "XYZ"]
    if case == "judged-without-output":       # W ranked in item 3, no output for it
        (tiny / "j.xml").write_text("<set>" + _item(1, 0, {"X": 1, "Y": 2, "Z": 3}) + "\n"
                                    + _item(3, 1, {"X": 1, "W": 2}) + "</set>\n", encoding="utf-8")
        out = run_cli("meta-eval", "--outputs", *outputs, "--judgments", tiny / "j.xml", *common)
        want = [f"{tiny / 'j.xml'}:2:", "id='3'", "'W' has no output"]
    elif case == "unjudged":                  # an output the judgments never rank: no human score for it
        (tiny / "V").write_text("a b\na b\n", encoding="utf-8")
        out = run_cli("meta-eval", "--outputs", *outputs, f"V={tiny / 'V'}", "--judgments", tiny / "j.xml", *common)
        want = [str(tiny / "j.xml"), "'V'"]
    elif case == "short":
        (tiny / "Z").write_text("d e\n", encoding="utf-8")
        out = run_cli("meta-eval", "--outputs", *outputs, "--judgments", tiny / "j.xml", *common)
        want = [str(tiny / "Z"), "has 1 line (", "have 2"]
    elif case == "unknown-csv":               # the 'ref' row without --human-ignore
        out = run_cli("meta-eval", "--outputs", *outputs, "--human", tiny / "h.csv", *common)
        want = [f"{tiny / 'h.csv'}:5:", "'ref'", "--human-ignore"]
    elif case == "runs":
        out = run_cli("meta-eval", "--outputs", *outputs, "--judgments", tiny / "j.xml", "--human-method", "ts",
                      "--human-runs", "0", *common)
        want = ["--human-runs", "1 to 100,000"]
    elif case == "no-gold":                   # m2 scores against edits: text references are not enough
        out = run_cli("meta-eval", "--outputs", *outputs, "--human", tiny / "h.csv", "--human-ignore", "ref",
                      "--src", tiny / "src", "--ref", tiny / "ref", "--metric", "wer", "m2")
        want = ["--gold:", "the m2 metric needs a gold M2", "peet-fast m2 -orig"]
    else:
        with pytest.raises(InputError) as err:
            peet_fast.meta_eval(outputs={s: tiny / s for s in "XYZ"}, src=tiny / "src", references=[tiny / "ref"],
                                judgments=tiny / "j.xml").scored("sentm2")
        assert err.value.path == "gold" and "the sentm2 metric needs a gold M2" in str(err.value)
        with pytest.raises(InputError) as err:
            peet_fast.meta_eval(outputs={s: tiny / s for s in "XYZ"}, src=tiny / "src", references=[tiny / "ref"],
                                judgments=tiny / "j.xml", human_method="median")
        assert err.value.path == "human_method" and "--" not in str(err.value)
        with pytest.raises(InputError) as err:
            peet_fast.meta_eval(outputs={s: tiny / s for s in "XYZ"}, src=tiny / "src", references=[tiny / "ref"])
        assert err.value.path == "human"
        with pytest.raises(InputError) as err:         # own-data parameters without outputs
            peet_fast.meta_eval("gjg15", str(tiny), str(tiny / "ref"), judgments=tiny / "j.xml")
        assert err.value.path == "judgments"
        with pytest.raises(InputError) as err:
            peet_fast.meta_eval(outputs={s: tiny / s for s in "XYZ"}, src=tiny / "src", references=[tiny / "ref"],
                                judgments=tiny / "j.xml", human_method="ts", human_runs=0)
        assert err.value.path == "human_runs"
        with pytest.raises(TypeError, match="human_methd"):
            peet_fast.meta_eval(outputs={s: tiny / s for s in "XYZ"}, human_methd="ts")
        return
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr, out.stderr
    assert all(w in lines[0] for w in want), lines[0]
    assert not (tiny / "s.json").exists()


# --- the shared corpora ------------------------------------------------------------------------------------------

GJG_CHEAP = ("wer", "gleu")


@pytest.fixture(scope="module")
def gjg15(request):
    shared = request.getfixturevalue("shared_corpora")
    root = shared / "judgments" / "gjg15"
    gold = shared / "conll14" / "official-2014.combined.m2"
    if not (root / "data" / "judgments.xml").is_file() or not gold.is_file():
        pytest.skip("GJG15 or the CoNLL-14 gold absent")
    subs = root / "data" / "original" / "official_submissions"
    return root, gold, {s: subs / s for s in D.GJG_SYSTEMS}


def test_gjg15_as_own_data_equals_data_gjg15(gjg15, tmp_path):
    root, gold, outputs = gjg15
    ref = peet_fast.meta_eval("gjg15", str(root), str(gold), share=False)
    own = peet_fast.meta_eval(outputs=outputs, judgments=root / "data" / "judgments.xml", gold=gold,
                              tie_order="outputs")
    # Expected Wins from the judgments: Table 3's, to its three decimals
    assert own.systems == list(D.GJG_SYSTEMS)
    assert all(abs(own.human["ew"][s] - e) <= 0.0005 + TOL for s, e in zip(D.GJG_SYSTEMS, D.GJG_EW))
    # Table 3 given as a CSV: the same human scores as --data, so the same system-level figures and windows
    csv = tmp_path / "table3.csv"
    csv.write_text("system,score\n" + "".join(f"{s},{e!r}\n" for s, e in zip(D.GJG_SYSTEMS, D.GJG_EW)))
    table = peet_fast.meta_eval(outputs=outputs, judgments=root / "data" / "judgments.xml", gold=gold, human=csv)
    for m in GJG_CHEAP:
        a, b = ref.corr_sentence(m).sent, own.corr_sentence(m).sent
        assert (a.pairs, a.ties) == (b.pairs, b.ties)
        for k in ("accuracy", "kendall"):
            assert abs(a[k] - b[k]) < TOL and abs(a.tie_aware[k] - b.tie_aware[k]) < TOL
        assert ref.pairwise_analysis(m).sent == own.pairwise_analysis(m).sent
        for k in ("pearson", "spearman"):
            assert abs(ref.corr_system(m).ew[k] - table.corr_system(m).human[k]) < TOL
        for wa, wb in zip(ref.window_analysis(m, 4).ew, table.window_analysis(m, 4).human):
            assert (wa["from"], wa["to"]) == (wb["from"], wb["to"])
            assert all(abs(wa[k] - wb[k]) < TOL or (math.isnan(wa[k]) and math.isnan(wb[k]))
                       for k in ("pearson", "spearman"))


def test_gjg15_cli_own_equals_data(gjg15, tmp_path):
    root, gold, outputs = gjg15
    got = {}
    for how, args in (("data", ["--data", "gjg15", root]),
                      ("own", ["--outputs", *(f"{s}={p}" for s, p in outputs.items()),
                               "--judgments", root / "data" / "judgments.xml", "--tie-order", "outputs"])):
        out = run_cli("meta-eval", *args, "--gold", gold, "--metric", "wer", "--summary", tmp_path / f"{how}.json")
        assert out.returncode == 0, out.stderr
        got[how] = json.loads((tmp_path / f"{how}.json").read_text())["metrics"]["wer"]
    assert got["own"]["sentence"] == got["data"]["sentence"]
    assert got["own"]["pairwise"] == got["data"]["pairwise"]


GMEG_SYSTEMS = ("amu", "lstm", "lstm-r", "marian", "nus", "transformer")


def test_gmeg_fce_equals_rank_human(shared_corpora, tmp_path):
    """GMEG FCE dev, its corpus scores alone: the system level, equal to `rank --human`'s correlations (raw sign
    there: WER's flips)."""
    g = shared_corpora / "gmeg" / "dev"
    if not (g / "fce-corpus-scores.csv").is_file():
        pytest.skip("GMEG absent")
    hyps = [g / "fce" / s for s in GMEG_SYSTEMS]
    refs = [g / "fce" / f"ref{k}" for k in range(4)]
    inputs = ["--human", g / "fce-corpus-scores.csv", "--human-ignore", "ref", "source", "--src", g / "fce" / "source",
              "--ref", *refs, "--metric", "wer", "gleu"]
    out = run_cli("meta-eval", "--outputs", *hyps, *inputs, "--summary", tmp_path / "m.json")
    assert out.returncode == 0, out.stderr
    mine = json.loads((tmp_path / "m.json").read_text())
    out = run_cli("rank", "--hyp", *hyps, *inputs, "--bootstrap", "10", "--summary", tmp_path / "r.json")
    assert out.returncode == 0, out.stderr
    theirs = json.loads((tmp_path / "r.json").read_text())["correlation"]
    assert mine["systems"] == list(GMEG_SYSTEMS)
    for m, sign in (("wer", -1), ("gleu", 1)):
        for k in ("pearson", "spearman"):
            assert abs(mine["metrics"][m]["system"]["human"][k] - sign * theirs[m][k]) < TOL
    assert abs(mine["metrics"]["gleu"]["system"]["human"]["spearman"] - 1) < TOL      # docs/meta-eval.md's figure
