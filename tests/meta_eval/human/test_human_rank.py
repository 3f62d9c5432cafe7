"""Human rankings from judgments (issue 29, point 1): the Appraise reader, Expected Wins against GJG15's EW.pl (its
output on a synthetic file and on both releases, fixtures/human_rank/README.md) and the published scores, rank
ranges and clusters as cluster.py computes them, `peet-fast human-rank` and its bad inputs. TrueSkill against the
`trueskill` package: test_trueskill.py."""
from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess

import numpy as np
import pytest
from conftest import FIXTURES, SHARED_CORPORA

from peet_fast.cli import main
from peet_fast.meta_eval.human.clusters import cluster_numbers, rank_ranges, run_ranks
from peet_fast.meta_eval.human.expected_wins import expected_wins, resampled_counts
from peet_fast.meta_eval.human.ranking import human_rank
from peet_fast.meta_eval.human.judgments import read_judgments

HERE = FIXTURES / "human_rank"
SYNTHETIC = HERE / "synthetic.xml"
JUDGMENTS = SHARED_CORPORA / "judgments"
GJG15 = JUDGMENTS / "gjg15" / "data" / "judgments.xml"
SEEDA = JUDGMENTS / "seeda"
HUMAN = SHARED_CORPORA / "conll14" / "human"
SEEDA_SYSTEMS = ("BART BERT-fuse GECToR-BERT GECToR-ens GPT-3.5 INPUT LM-Critic PIE REF-F REF-M Riken-Tohoku T5 "
                 "TemplateGEC TransGEC UEDIN-MS").split()
shared = pytest.mark.skipif(not JUDGMENTS.is_dir(), reason="../shared/corpora/judgments not present")


def xml(*items: str, doc_id: str = "doc.txt-0") -> str:
    """An Appraise file of ranking items, each given as 'SRC USER|rank:SYS SYS|rank:SYS...'."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>', "<appraise-results>",
           '<error-correction-ranking-result id="t">']
    for k, item in enumerate(items):
        head, *translations = item.split("|")
        src, user = head.split()
        out.append(f'<ranking-item doc-id="{doc_id}" id="{k}" src-id="{src}" user="{user}">')
        for t in translations:
            rank, systems = t.split(":")
            out.append(f'  <translation rank="{rank}" system="{systems}"/>')
        out.append("</ranking-item>")
    return "\n".join(out + ["</error-correction-ranking-result>", "</appraise-results>", ""])


def write(tmp_path, text: str, name: str = "j.xml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def ew_pl(name: str) -> dict[str, str]:
    """EW.pl's printed scores (4 decimals) in a fixture."""
    out = {}
    for line in (HERE / name).read_text().splitlines():
        m = re.fullmatch(r"(\S+) (\d\.\d{4}) \(\d+, \d+\)", line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


# --- hand-computed ---------------------------------------------------------------------------------------------------

# A beats B and C, B and C tie (one element); B beats A and C, A and C tie (two elements of one rank); C beats A
HAND = ("3 u1|1:A|3:B C", "4 u2|2:B|4:A|4:C", "5 u1|1:C|2:A")


def test_pairs_of_collapsed_outputs_and_equal_ranks(tmp_path):
    j = read_judgments(write(tmp_path, xml(*HAND)))
    assert j.systems == ("A", "B", "C") and j.src_base == 0 and [it.line for it in j.items] == [3, 4, 5]
    assert j.items[0].groups() == (("A",), ("B", "C")) and j.items[1].groups() == (("B",), ("A", "C"))
    p = j.pairs()
    rows = sorted(zip(p.item.tolist(), p.first.tolist(), p.second.tolist(), p.outcome.tolist()))
    # outcome 0: the pair's first (A < B < C) ranked better, 1: tie, 2: the second better
    assert rows == [(0, 0, 1, 0), (0, 0, 2, 0), (0, 1, 2, 1), (1, 0, 1, 2), (1, 0, 2, 1), (1, 1, 2, 0),
                    (2, 0, 2, 2)]


def test_expected_wins_by_hand(tmp_path):
    p = read_judgments(write(tmp_path, xml(*HAND))).pairs()
    # wins: A>B 1, A>C 1, B>A 1, B>C 1, C>A 1. EW.pl averages over the opponents a system beat at least once:
    # A: (1/2 + 1/2) / 2; B: (1/2 + 1/1) / 2; C beat only A: (1/2) / 1 (not (1/2 + 0) / 2)
    assert expected_wins(p) == pytest.approx({"A": 0.5, "B": 0.75, "C": 0.5}, abs=1e-15)
    # -t: each tie a win for both: A>B 1, A>C 2, B>A 1, B>C 2, C>A 2, C>B 1
    assert expected_wins(p, ties=True) == pytest.approx({"A": (1 / 2 + 2 / 4) / 2, "B": (1 / 2 + 2 / 3) / 2,
                                                         "C": (2 / 4 + 1 / 3) / 2}, abs=1e-15)


def test_a_subset_of_systems_drops_the_others_from_every_item(tmp_path):
    p = read_judgments(write(tmp_path, xml(*HAND))).pairs(["C", "A"])
    assert p.systems == ("A", "C")
    assert p.counts().tolist() == [[1, 1, 1]]             # A>C (item 0), A=C (item 1), C>A (item 2)


def test_seeda_src_ids_are_one_based_gjg15s_zero_based(tmp_path):
    seeda = read_judgments(write(tmp_path, xml("12 annotator1|1:A|2:B", doc_id="INPUT")))
    gjg = read_judgments(write(tmp_path, xml("12 annotator01|1:A|2:B"), "g.xml"))
    assert (seeda.src_base, seeda.items[0].line) == (1, 11)
    assert (gjg.src_base, gjg.items[0].line) == (0, 12)
    assert read_judgments(write(tmp_path, xml("12 a|1:A|2:B"), "h.xml"), src_base=1).items[0].line == 11


def test_clusters_as_cluster_py_by_hand():
    # 10 runs of 3 systems; confidence 0.8: alpha = ceil((10 - 8) / 2) = 1 run cut from each end of the sorted ranks
    scores = np.array([[3, 2, 1]] * 7 + [[2, 3, 1], [1, 3, 2], [3, 1, 2]], dtype=float)
    ranks = run_ranks(scores)
    assert ranks[7].tolist() == [2, 1, 3] and ranks[8].tolist() == [3, 1, 2]
    # sorted ranks, one cut from each end: system 0: 1 x8, 2, 3 -> 1..2; system 1: 1 x2, 2 x7, 3 -> 1..2;
    # system 2: 2 x2, 3 x8 -> 2..3
    assert rank_ranges(ranks, 0.8) == [(1, 2), (1, 2), (2, 3)]
    assert rank_ranges(ranks, 1.0) == [(1, 3), (1, 3), (2, 3)]          # alpha 0: every run
    assert cluster_numbers([(1, 2), (1, 2), (2, 3)]) == [1, 1, 1]
    assert cluster_numbers([(1, 2), (1, 2), (3, 3)]) == [1, 1, 2]
    # a boundary follows a system whose worst rank is above every later best: after 2-3 here, though the 2-4 before
    # it reaches the last system's rank (cluster.py checks the system just before the boundary only)
    assert cluster_numbers([(1, 1), (2, 4), (2, 3), (4, 4)]) == [1, 2, 2, 3]
    # equal scores: the later system first (cluster.py sorts (mu, sigma^2, name) reversed); then by the tiebreak
    assert run_ranks(np.array([[1.0, 1.0, 0.5]])).tolist() == [[2, 1, 3]]
    assert run_ranks(np.array([[1.0, 1.0]]), np.array([[0.2, 0.1]])).tolist() == [[1, 2]]


def test_bootstrap_units(tmp_path):
    p = read_judgments(write(tmp_path, xml(*HAND))).pairs()
    rng = np.random.default_rng(5)
    by_pairs = resampled_counts(p, 200, rng, "pairs")
    assert (by_pairs.sum(axis=(1, 2)) == len(p)).all()
    one = read_judgments(write(tmp_path, xml("1 u|1:A|2:B C", "2 u"), "one.xml")).pairs()    # one judged item
    by_items = resampled_counts(one, 50, rng, "items")
    assert (by_items == one.counts()[None]).all()                    # every resample draws that item once
    by_items = resampled_counts(p, 400, rng, "items")
    per_item = [np.bincount(p.pair_id[p.item == k] * 3 + p.outcome[p.item == k], minlength=9) for k in range(3)]
    # every resample is a sum of whole items: a combination n0 * item0 + n1 * item1 + n2 * item2, n0+n1+n2 = 3
    combos = {tuple(a * per_item[0] + b * per_item[1] + (3 - a - b) * per_item[2])
              for a in range(4) for b in range(4 - a)}
    assert all(tuple(c.ravel()) in combos for c in by_items)


# --- EW.pl -----------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("fixture, kwargs", [("ew_pl_synthetic.txt", {}), ("ew_pl_synthetic_t.txt", {"ties": True}),
                                             ("ew_pl_synthetic_u02.txt", {"users": ["annotator02"]}),
                                             ("ew_pl_synthetic_x01.txt", {"exclude_users": ["annotator01"]})])
def test_expected_wins_equal_ew_pl_on_a_synthetic_file(fixture, kwargs):
    ties = kwargs.pop("ties", False)
    p = read_judgments(SYNTHETIC).pairs(**kwargs)
    ours = expected_wins(p, ties)
    theirs = ew_pl(fixture)
    assert {s: format(ours[s], ".4f") for s in theirs} == theirs
    # a system that never ranked above another: EW.pl prints no score, here 0
    assert all(ours[s] == 0 for s in set(ours) - set(theirs))
    assert "zeta" in set(ours) - set(theirs) or ties


def ew_pl_script() -> str | None:
    """GJG15's EW.pl where a checkout of grammatical/evaluation is named by PEET_FAST_EW_PL, runnable by Perl."""
    script = os.environ.get("PEET_FAST_EW_PL")
    if not script or not os.path.isfile(script) or not shutil.which("perl"):
        return None
    probe = subprocess.run(["perl", "-MXML::Twig", "-e", "1"], capture_output=True)
    return script if probe.returncode == 0 else None


@pytest.mark.skipif(ew_pl_script() is None, reason="EW.pl (PEET_FAST_EW_PL) or Perl's XML::Twig not available")
def test_expected_wins_equal_ew_pl_run_now(tmp_path):
    items = ["%d a%d|%s" % (k, k % 2, "|".join(f"{1 + (k * 7 + i * 3) % 5}:{s}" for i, s in enumerate("PQRST"[:2 + k % 4])))
             for k in range(30)]
    path = write(tmp_path, xml(*items))
    run = subprocess.run(["perl", ew_pl_script()], stdin=open(path, "rb"), capture_output=True, text=True, check=True)
    theirs = {m.group(1): m.group(2) for m in re.finditer(r"^(\S+) (\d\.\d{4}) ", run.stdout, re.M)}
    ours = expected_wins(read_judgments(path).pairs())
    assert theirs and {s: format(ours[s], ".4f") for s in theirs} == theirs


@shared
def test_gjg15_expected_wins_equal_table_3_and_ew_pl():
    ours = expected_wins(read_judgments(GJG15).pairs())
    rows = list(csv.DictReader(open(HUMAN / "gjg_EW.csv")))
    assert len(rows) == 13
    assert {r["system"]: format(ours[r["system"].removeprefix("conll14-task-")], ".3f") for r in rows} == \
        {r["system"]: r["score"] for r in rows}
    assert {s: format(ours[s], ".4f") for s in ew_pl("ew_pl_gjg15.txt")} == ew_pl("ew_pl_gjg15.txt")


@shared
@pytest.mark.parametrize("kind, equal", [("sent", 13), ("edit", 10)])
def test_seeda_expected_wins_equal_ew_pl_and_within_0001_of_the_published(kind, equal):
    ours = expected_wins(read_judgments(SEEDA / "data" / f"judgments_{kind}.xml").pairs())
    theirs = ew_pl(f"ew_pl_seeda_{kind}.txt")
    assert len(theirs) == 15 and {s: format(ours[s], ".4f") for s in theirs} == theirs
    published = [float(x) for x in (SEEDA / "scores" / "human" / f"EW_{kind}.txt").read_text().split()]
    assert max(abs(ours[s] - v) for s, v in zip(SEEDA_SYSTEMS, published)) < 0.001
    # SEEDA's release is not EW.pl's output: only some systems agree at the 3 decimals it prints
    assert sum(format(ours[s], ".3f") == format(v, ".3f") for s, v in zip(SEEDA_SYSTEMS, published)) == equal


@shared
def test_gjg15_ew_rank_ranges_are_those_of_a_bootstrap_of_pairwise_judgments():
    r = human_rank(GJG15, "ew", bootstrap=1000, seed=3)
    ranges = {s.name: s.rank_range for s in r.systems}
    assert ranges["AMU"] == (1, 1) and ranges["IPN"] == (13, 13)      # as EW.pl's bootstrap and Table 3
    for name, (best, worst) in {"RAC": (2, 3), "CAMB": (2, 4), "CUUI": (3, 5), "POST": (4, 5)}.items():
        assert abs(ranges[name][0] - best) <= 1 and abs(ranges[name][1] - worst) <= 1   # EW.pl's: random


# --- the command -----------------------------------------------------------------------------------------------------

def cli(capsys, *argv) -> tuple[int, str, str]:
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def test_human_rank_prints_table_3_and_writes_the_summary(capsys, tmp_path):
    summary = tmp_path / "s.json"
    rc, out, err = cli(capsys, "human-rank", SYNTHETIC, "--bootstrap", "200", "--summary", summary)
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["#", "score", "range", "system"]
    listed = [ln.split() for ln in lines[1:] if not ln.startswith("-")]
    theirs = ew_pl("ew_pl_synthetic.txt")
    assert [row[-1] for row in listed][:len(theirs)] == sorted(theirs, key=lambda s: -float(theirs[s]))
    assert all(row[-3] == format(float(theirs[row[-1]]), ".3f") for row in listed if row[-1] in theirs)
    data = json.loads(summary.read_text())
    assert data["method"] == "ew" and set(data["systems"]) == {"alpha", "beta", "gamma", "delta", "epsilon",
                                                               "zeta", "eta"}
    first = data["systems"]["alpha"]
    assert format(first["score"], ".4f") == theirs["alpha"] and len(first["rank_range"]) == 2
    assert "Expected Wins" in err and "200 bootstrap resamples of the pairwise judgments" in err


def test_human_rank_subset_seed_and_no_bootstrap(capsys, tmp_path):
    rc, out, _ = cli(capsys, "human-rank", SYNTHETIC, "--bootstrap", "0", "--systems", "beta", "alpha", "gamma")
    assert rc == 0
    rows = [ln.split() for ln in out.splitlines()[1:]]
    assert [r[-1] for r in rows] == ["alpha", "beta", "gamma"] and all(r[-2] == "-" for r in rows)
    a = cli(capsys, "human-rank", SYNTHETIC, "--method", "ts", "--bootstrap", "20", "--seed", "4")
    b = cli(capsys, "human-rank", SYNTHETIC, "--method", "ts", "--bootstrap", "20", "--seed", "4")
    c = cli(capsys, "human-rank", SYNTHETIC, "--method", "ts", "--bootstrap", "20", "--seed", "5")
    assert a == b and a[1] != c[1] and a[0] == 0
    rc, out, _ = cli(capsys, "human-rank", SYNTHETIC, "--bootstrap", "50", "--resample", "items")
    assert rc == 0 and "-" in out


def bad(capsys, *argv) -> str:
    rc, out, err = cli(capsys, "human-rank", *argv)
    assert rc == 2 and out == "" and len(err.splitlines()) == 1, err
    return err.strip()


def test_the_library_names_its_parameters_and_the_command_its_flags(capsys):
    """human_rank's errors name its parameters (no '--'); `peet-fast human-rank` maps them to its flags."""
    from peet_fast.io import InputError

    for kwargs, param in (({"method": "x"}, "method"), ({"method": "ts", "bootstrap": 0}, "bootstrap"),
                          ({"seed": -1}, "seed"), ({"resample": "x"}, "resample"), ({"confidence": 2.0}, "confidence"),
                          ({"systems": ["alpha"]}, "systems"), ({"systems": ["alpha", "nobody"]}, "systems")):
        with pytest.raises(InputError) as info:
            human_rank(SYNTHETIC, **kwargs)
        assert info.value.path == param and "--" not in str(info.value), str(info.value)
    assert bad(capsys, SYNTHETIC, "--systems", "alpha") == ("peet-fast human-rank: error: --systems: give at least "
                                                            "two systems to rank")
    assert bad(capsys, SYNTHETIC, "--resample", "items", "--confidence", "2").startswith(
        "peet-fast human-rank: error: --confidence: must be in (0, 1]")


def outputs_dir(tmp_path, systems, lines: int):
    d = tmp_path / "outputs"
    d.mkdir()
    for s in systems:
        (d / f"{s}.txt").write_text("".join(f"line {k}\n" for k in range(lines)))
    return d


def test_bad_inputs_exit_2_with_one_line_naming_file_and_item(capsys, tmp_path):
    broken = write(tmp_path, xml(*HAND).replace("</ranking-item>", "</ranking-itme>", 1), "broken.xml")
    assert bad(capsys, broken).startswith(f"peet-fast human-rank: error: {broken}:7: malformed XML: mismatched tag (column 3)")
    good = write(tmp_path, xml(*HAND))
    d = outputs_dir(tmp_path, "ABC", 5)
    assert bad(capsys, good, "--outputs", d) == (f"peet-fast human-rank: error: {good}:13: ranking-item id='2' "
                                                 "(src-id 5): src-id 5 is past the end of the 5-line outputs (src-id "
                                                 "here is 0-based)")
    (d / "C.txt").unlink()
    (d / "A.txt").write_text("".join(f"x {k}\n" for k in range(6)))
    (d / "B.txt").write_text("".join(f"x {k}\n" for k in range(6)))
    assert bad(capsys, good, "--outputs", d) == (f"peet-fast human-rank: error: {good}:6: ranking-item id='0' "
                                                 "(src-id 3): system 'C' has no output")
    seeda = write(tmp_path, xml("0 annotator1|1:A|2:B", doc_id="INPUT"), "s.xml")
    assert bad(capsys, seeda).endswith("src-id 0 is before the first line (src-id here is 1-based)")
    assert bad(capsys, write(tmp_path, xml("1 u|7:A|2:B"), "r.xml")).endswith(
        "ranking-item id='0' (src-id 1): rank '7' is not one of 1-5")
    assert bad(capsys, write(tmp_path, xml("1 u|1:A|2:B A"), "d.xml")).endswith("system 'A' is ranked twice")
    assert bad(capsys, write(tmp_path, xml("x u|1:A|2:B"), "x.xml")).endswith("src-id 'x' is not a line number")
    assert bad(capsys, write(tmp_path, "<appraise-results/>\n", "e.xml")).endswith(
        "no ranking-item elements (not an Appraise ranking XML file?)")
    assert bad(capsys, good, "--systems", "A", "Z") == ("peet-fast human-rank: error: --systems: no system 'Z' in "
                                                        f"{good} (it ranks A, B, C)")
    assert bad(capsys, good, "--method", "ts", "--bootstrap", "0").endswith("TrueSkill needs at least one run "
                                                                            "(GJG15: 1000)")
    assert bad(capsys, tmp_path / "missing.xml") == f"peet-fast human-rank: error: {tmp_path / 'missing.xml'}: no such file"
    assert bad(capsys, good, "--summary", good).startswith("peet-fast human-rank: error: ")


@shared
def test_the_releases_check_against_their_outputs():
    from peet_fast.meta_eval.human.judgments import read_judgments_with_outputs

    seeda, lines = read_judgments_with_outputs(SEEDA / "data" / "judgments_sent.xml", SEEDA / "outputs" / "all")
    assert seeda.src_base == 1 and len(seeda) == 600 and set(lines) == set(SEEDA_SYSTEMS)
    subset = [int(x) for x in (SEEDA / "subset_lines.txt").read_text().split()]
    assert sorted({it.line for it in seeda.items}) == subset
    gjg, lines = read_judgments_with_outputs(GJG15, JUDGMENTS / "gjg15" / "data" / "original" / "official_submissions")
    assert gjg.src_base == 0 and len(gjg) == 2319 and len(lines["AMU"]) == 1312
    assert len({it.line for it in gjg.items}) == 663 and len(gjg.pairs()) == 109098
