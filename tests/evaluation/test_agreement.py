"""`peet-fast agreement` against its oracle: errant_parallel + errant_compare run here on the same files (English),
and `peet-fast compare --lang zh` on ChERRANT-format M2 (the ChERRANT-made fixture chars.all.m2 and M2 written by
`peet-fast m2 --lang zh`, itself checked against ChERRANT in tests/zh). The fixture tests/fixtures/agreement holds
12 source sentences and four hand-written correction sets a-d."""
from __future__ import annotations

import json
import os
from pathlib import Path

import errant_oracle
import numpy as np
import pytest
from conftest import FIXTURES, SPACY_MODEL
from errant_oracle import errant_compare, totals

from peet_fast.evaluation import agreement as A

FIX = FIXTURES / "agreement"
SETS = ("a", "b", "c", "d")
ZH = FIXTURES / "zh"
ZH_RES = ("--cilin", str(ZH / "cilin.txt"), "--confusion", str(ZH / "confusion.txt"))


def run(run_cli, *argv: str) -> tuple[int, str, str]:
    return run_cli("agreement", *argv)


def en_args(*sets: str) -> list[str]:
    return ["--src", str(FIX / "src.txt"), "--ref", *(str(FIX / f"{s}.txt") for s in sets),
            "--spacy-model", SPACY_MODEL]


@pytest.fixture(scope="module")
def oracle_m2(tmp_path_factory):
    """errant_parallel's M2 of every set alone (hyp_<x>.m2) and of the others together (ref_<x>.m2), any subset
    on request: m2(names) -> path."""
    d = tmp_path_factory.mktemp("agreement_oracle")
    made: dict = {}

    def m2(names: tuple) -> Path:
        if names not in made:
            out = d / ("-".join(names) + ".m2")
            errant_oracle.run(["-orig", str(FIX / "src.txt"), "-cor", *(str(FIX / f"{n}.txt") for n in names),
                               "-out", str(out)], SPACY_MODEL)
            made[names] = out
        return made[names]

    return m2


def oracle_row(m2, x: str, refs, *flags: str) -> tuple:
    """(TP, FP, FN, P, R, F) of set x against refs by errant_parallel + errant_compare."""
    return totals(errant_compare(m2((x,)), m2(tuple(refs)), *flags))


def summary_rows(path: Path) -> dict:
    data = json.loads(path.read_text("utf-8"))
    return {s["name"]: s for s in data["sets"]}, data


def as_tuple(row: dict) -> tuple:
    return row["TP"], row["FP"], row["FN"], row["P"], row["R"], row["F"]


@pytest.mark.parametrize("flags", [[], ["-dt"], ["-cse", "-b", "1.0"], ["-ds", "-single"]])
def test_counts_equal_errant_parallel_and_compare(run_cli, tmp_path, oracle_m2, flags):
    out_json = tmp_path / "agree.json"
    rc, out, err = run(run_cli, *en_args(*SETS), *flags, "--summary", str(out_json))
    assert rc == 0, err
    rows, data = summary_rows(out_json)
    for x in SETS:
        others = [s for s in SETS if s != x]
        assert rows[x]["references"] == others
        assert as_tuple(rows[x]) == oracle_row(oracle_m2, x, others, *flags), x
    assert set(data) == {"sets", "average_f", "beta", "mode", "sample", "seed"}
    assert data["average_f"] == sum(r["F"] for r in rows.values()) / 4
    assert f"average F{data['beta']}: {data['average_f']:.4f}" in out


def test_pairwise_matrix_equals_errant_compare_one_reference(run_cli, oracle_m2):
    rc, out, _ = run(run_cli, *en_args("a", "b", "c"), "--pairwise")
    assert rc == 0
    matrix = out.split("pairwise")[1].splitlines()[2:]
    for line, x in zip(matrix, "abc"):
        cells = line.split()
        assert cells[0] == x
        for y, cell in zip("abc", cells[1:]):
            assert cell == ("-" if x == y else f"{oracle_row(oracle_m2, x, [y])[5]:.4f}")


def test_sample_draw_is_the_documented_one(run_cli, tmp_path, oracle_m2):
    """--sample 2 --seed 11 over 4 sets: the references are numpy's documented draw, the counts errant's."""
    rng = np.random.default_rng(11)
    expected = {}
    for x in SETS:
        others = [s for s in SETS if s != x]
        expected[x] = sorted(others[int(i)] for i in rng.choice(3, size=2, replace=False))
    out_json = tmp_path / "s.json"
    rc, _, _ = run(run_cli, *en_args(*SETS), "--sample", "2", "--seed", "11", "--summary", str(out_json))
    assert rc == 0
    rows, data = summary_rows(out_json)
    assert (data["sample"], data["seed"]) == (2, 11)
    for x in SETS:
        assert rows[x]["references"] == expected[x]
        assert as_tuple(rows[x]) == oracle_row(oracle_m2, x, expected[x])


def test_sample_is_deterministic_for_a_seed():
    assert A.draw_references(10, 2, 7) == A.draw_references(10, 2, 7)
    draws = {tuple(map(tuple, A.draw_references(10, 2, s))) for s in range(5)}
    assert len(draws) > 1                                   # the seed matters
    for x, refs in enumerate(A.draw_references(10, 2, 3)):
        assert len(refs) == 2 and x not in refs and refs == sorted(set(refs))
    assert A.draw_references(3, 2, 0) == A.draw_references(3) == [[1, 2], [0, 2], [0, 1]]


def test_unchanged_set_against_its_corrections(run_cli, tmp_path):
    """SRC = set a: a has no edits (P 1, R 0, F 0 against the source set's N edits), the source set against a has N
    FP (P 0, R 1, F 0); the same name twice is refused."""
    out_json = tmp_path / "u.json"
    rc, out, _ = run(run_cli, "--src", str(FIX / "a.txt"), "--ref", str(FIX / "a.txt"), str(FIX / "src.txt"),
                     "--spacy-model", SPACY_MODEL, "--summary", str(out_json))
    assert rc == 0
    rows, data = summary_rows(out_json)
    n = rows["a"]["FN"]
    assert n > 10 and as_tuple(rows["a"]) == (0, 0, n, 1.0, 0.0, 0.0)
    assert as_tuple(rows["src"]) == (0, n, 0, 0.0, 1.0, 0.0) and data["average_f"] == 0.0
    rc, out, err = run(run_cli, *en_args("a", "a"))
    assert rc == 2 and out == "" and "two sets share the name 'a'" in err


# --- Chinese: ChERRANT-format M2 and `peet-fast compare --lang zh` ---------------------------------------------------

def zh_sets(tmp_path: Path) -> list[Path]:
    """Three ChERRANT parallel sets over chars.para's sources: chars.para itself (one or two targets a line), its
    last target of each line, and the source on odd lines / the first target on even lines."""
    rows = [line.split("\t") for line in (ZH / "chars.para").read_text("utf-8").splitlines() if line.strip()]
    last = [f"{r[0]}\t{r[1]}\t{r[-1]}" for r in rows]
    mixed = [f"{r[0]}\t{r[1]}\t{r[1] if k % 2 else r[2]}" for k, r in enumerate(rows)]
    paths = [ZH / "chars.para"]
    for name, lines in (("last", last), ("mixed", mixed)):
        paths.append(tmp_path / f"{name}.para")
        paths[-1].write_text("\n".join(lines) + "\n", "utf-8")
    return paths


def zh_m2(run_cli, tmp_path: Path, sets: list[Path], name: str) -> Path:
    """`peet-fast m2 --lang zh` of the given sets' targets together (annotators in set order)."""
    rows = [[line.split("\t") for line in p.read_text("utf-8").splitlines() if line.strip()] for p in sets]
    para = tmp_path / f"{name}.para"
    para.write_text("".join("\t".join([r[0][0], r[0][1], *(t for s in r for t in s[2:])]) + "\n"
                            for r in zip(*rows)), "utf-8")
    out = tmp_path / f"{name}.m2"
    assert run_cli("m2", "--lang", "zh", "-para", para, "-out", out, *ZH_RES)[0] == 0
    return out


def compare_zh(run_cli, hyp: Path, ref: Path) -> tuple:
    rc, out, _ = run_cli("compare", "--lang", "zh", "--hyp", hyp, "--ref", ref)
    assert rc == 0
    return totals(out)


def test_zh_equals_compare_on_cherrant_m2(run_cli, tmp_path):
    sets = zh_sets(tmp_path)
    names = [os.path.splitext(p.name)[0] for p in sets]
    out_json = tmp_path / "zh.json"
    rc, out, err = run(run_cli, "--lang", "zh", "--para", "--ref", *map(str, sets), *ZH_RES, "--pairwise",
                       "--summary", str(out_json))
    assert rc == 0, err
    rows, _ = summary_rows(out_json)
    hyp_m2 = {n: zh_m2(run_cli, tmp_path, [p], "hyp_" + n) for n, p in zip(names, sets)}
    assert hyp_m2["chars"].read_text("utf-8") == (ZH / "chars.all.m2").read_text("utf-8")   # ChERRANT's own M2
    for k, x in enumerate(names):
        others = [p for j, p in enumerate(sets) if j != k]
        ref_m2 = zh_m2(run_cli, tmp_path, others, "ref_" + x)
        assert as_tuple(rows[x]) == compare_zh(run_cli, hyp_m2[x], ref_m2), x
    matrix = out.split("pairwise")[1].splitlines()[2:]
    for line, x in zip(matrix, names):
        for y, cell in zip(names, line.split()[1:]):
            assert cell == ("-" if x == y else f"{compare_zh(run_cli, hyp_m2[x], hyp_m2[y])[5]:.4f}")


def test_zh_text_sets(run_cli, tmp_path):
    """Plain text sets with --src in Chinese: a set equal to another agrees fully with it (F 1)."""
    src, r1, r2 = tmp_path / "src.txt", tmp_path / "r1.txt", tmp_path / "r2.txt"
    src.write_text("我们去学校。\n他再学校。\n", "utf-8")
    r1.write_text("我们去学校了。\n他在学校。\n", "utf-8")
    r2.write_text("我们去学校了。\n他在学校。\n", "utf-8")
    rc, out, _ = run(run_cli, "--lang", "zh", "--src", str(src), "--ref", str(r1), str(r2))
    assert rc == 0 and out.splitlines()[1].split()[2:] == ["2", "0", "0", "1.0000", "1.0000", "1.0000"]


# --- bad input -------------------------------------------------------------------------------------------------------

def test_bad_input_one_line_exit_2_nothing_written(run_cli, tmp_path):
    summary = tmp_path / "out.json"
    empty = tmp_path / "empty.txt"
    empty.write_text("", "utf-8")
    short = tmp_path / "short.txt"
    short.write_text("This is a cat .\n", "utf-8")
    a, b, c = (str(FIX / f"{s}.txt") for s in "abc")
    cases = [
        (en_args("a"), f"{a}: agreement needs at least 2 sets"),
        (en_args("a", "b", "c") + ["--sample", "3"], "--sample: must be between 1 and 2"),
        (en_args("a", "b", "c") + ["--sample", "0"], "--sample: must be between 1 and 2"),
        (["--src", str(FIX / "src.txt"), "--ref", a, str(short)], "parallel files differ in line count"),
        (["--src", str(empty), "--ref", a, b], f"{empty}: no sentences"),
        (["--ref", a, b], "--src: give --src"),
        (en_args("a", "b") + ["--seed", "3"], "--seed: needs --sample"),
        (en_args("a", "b") + ["-b", "0"], "--beta: must be"),
        (["--lang", "zh", "--para", "--ref", str(ZH / "chars.para"), str(tmp_path / "missing.para")],
         "missing.para"),
    ]
    for argv, message in cases:
        rc, out, err = run(run_cli, *argv, "--summary", str(summary))
        assert rc == 2 and out == "" and len(err.splitlines()) == 1 and message in err, (argv, err)
        assert not summary.exists()


def test_para_sources_must_agree(run_cli, tmp_path):
    p1, p2 = tmp_path / "p1.para", tmp_path / "p2.para"
    p1.write_text("1\t我们去学校。\t我们去学校了。\n2\t他再学校。\t他在学校。\n", "utf-8")
    p2.write_text("1\t我们去学校。\t我们去学校了。\n2\t他在学校。\t他在学校。\n", "utf-8")
    rc, out, err = run(run_cli, "--lang", "zh", "--para", "--ref", str(p1), str(p2))
    assert rc == 2 and out == "" and f"{p2}:2: source differs from {p1}:2" in err
