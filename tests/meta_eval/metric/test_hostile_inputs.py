"""Bad inputs to `meta-eval` and `human-rank` (issue 36, points 1, 2, 3, 5, 7): a gold that does not match GJG15's
outputs, judgments human-rank refuses, loose human score files and a NUL byte in an output each end in one line
naming the file and the line or item, exit 2, before anything is scored."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from conftest import SHARED_CORPORA

from peet_fast.cli import main

JUDGMENTS = SHARED_CORPORA / "judgments"
GOLD = SHARED_CORPORA / "conll14" / "official-2014.combined.m2"
shared = pytest.mark.skipif(not (JUDGMENTS.is_dir() and GOLD.is_file()), reason="../shared/corpora not present")


def one_line_exit_2(capsys, *argv) -> str:
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert rc == 2 and out == "" and len(err.strip().splitlines()) == 1, (rc, err)
    assert "Traceback" not in err
    return err.strip()


def linked_copy(source: Path, target: Path, replaced: dict[str, bytes]) -> Path:
    """target: source's tree as symbolic links, but for the files of `replaced` (relative path -> content)."""
    for rel, content in replaced.items():
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    for dirpath, dirnames, filenames in os.walk(source):
        rel_dir = Path(dirpath).relative_to(source)
        for name in filenames:
            rel = rel_dir / name
            if str(rel) not in replaced:
                (target / rel).parent.mkdir(parents=True, exist_ok=True)
                (target / rel).symlink_to(Path(dirpath) / name)
    return target


def seeda_with(tmp_path, replaced: dict[str, bytes]) -> Path:
    return linked_copy(JUDGMENTS / "seeda", tmp_path / "SEEDA", replaced)


def meta_eval(capsys, root, data="seeda", gold=GOLD) -> str:
    return one_line_exit_2(capsys, "meta-eval", "--data", data, root, "--gold", gold, "--metric", "wer")


# --- point 2, 7: one reader, one set of checks ---------------------------------------------------------------------

ITEM = ('<appraise-results><ranking-item doc-id="INPUT" id="7" src-id="{src}" user="annotator1">'
        '<translation rank="1" system="BART"/><translation {attrs}/></ranking-item></appraise-results>\n')
BAD = [
    ({"src": "+12", "attrs": 'rank="2" system="PIE"'}, "src-id '+12' is not a line number"),
    ({"src": "1_2", "attrs": 'rank="2" system="PIE"'}, "src-id '1_2' is not a line number"),
    ({"src": "\u0661\u0662", "attrs": 'rank="2" system="PIE"'}, "is not a line number"),
    ({"src": "12", "attrs": 'rank="6" system="PIE"'}, "rank '6' is not one of 1-5"),
    ({"src": "12", "attrs": 'rank="100000000000000000000" system="PIE"'},
     "rank '100000000000000000000' is not one of 1-5"),
    ({"src": "12", "attrs": 'rank="2" system=""'}, "a translation without a system"),
    ({"src": "12", "attrs": 'rank="2"'}, "a translation without a system"),
]


@shared
@pytest.mark.parametrize("fields,message", BAD)
def test_meta_eval_refuses_what_human_rank_refuses(capsys, tmp_path, fields, message):
    root = seeda_with(tmp_path, {"data/judgments_sent.xml": ITEM.format(**fields).encode("utf-8")})
    xml = root / "data" / "judgments_sent.xml"
    err = meta_eval(capsys, root)
    assert err.startswith(f"peet-fast meta-eval: error: {xml}:1: ranking-item id='7'") and message in err
    assert one_line_exit_2(capsys, "human-rank", xml) == err.replace("meta-eval", "human-rank")


# --- point 1: GJG15's outputs against the gold ---------------------------------------------------------------------

def gjg15_with(tmp_path, replaced: dict[str, bytes]) -> Path:
    return linked_copy(JUDGMENTS / "gjg15", tmp_path / "GJG15", replaced)


@shared
def test_gjg15_refuses_a_gold_whose_blocks_are_reordered(capsys, tmp_path):
    blocks = GOLD.read_text(encoding="utf-8").strip("\n").split("\n\n")
    shuffled = tmp_path / "shuffled.m2"
    shuffled.write_text("\n\n".join(blocks[1:] + blocks[:1]) + "\n", encoding="utf-8")
    root = gjg15_with(tmp_path, {})
    inputs = root / "data" / "original" / "official_submissions" / "INPUT"
    err = meta_eval(capsys, root, "gjg15", shuffled)
    assert err == (f"peet-fast meta-eval: error: {inputs}:1: is not sentence 1 of the gold M2 {shuffled} (the gold "
                   "and the outputs must be the CoNLL-14 test set, in its order)")


@shared
def test_gjg15_refuses_an_input_edited_at_line_1(capsys, tmp_path):
    rel = "data/original/official_submissions/INPUT"
    lines = (JUDGMENTS / "gjg15" / rel).read_bytes().split(b"\n")
    lines[0] = b"Edited " + lines[0]
    root = gjg15_with(tmp_path, {rel: b"\n".join(lines)})
    assert meta_eval(capsys, root, "gjg15").startswith(f"peet-fast meta-eval: error: {root / rel}:1: is not sentence 1")


# --- point 3: human score files ------------------------------------------------------------------------------------

@shared
@pytest.mark.parametrize("first", ["nan", "inf", "-Infinity", "1e400", "0_5", "0x1p-2", "\u0660.5", "0.5.1", ""])
def test_human_scores_are_finite_decimal_numbers(capsys, tmp_path, first):
    rel = "scores/human/EW_sent.txt"
    lines = (JUDGMENTS / "seeda" / rel).read_text(encoding="utf-8").split("\n")
    lines[0] = first
    root = seeda_with(tmp_path, {rel: "\n".join(lines).encode("utf-8")})
    err = meta_eval(capsys, root)
    if first:
        assert err == (f"peet-fast meta-eval: error: {root / rel}:1: {first!r} is not a finite decimal number")
    else:                                   # a blank line is no score: one score too few
        assert "has 14 scores; expected 15" in err


@shared
def test_plain_decimal_human_scores_still_read(tmp_path):
    from peet_fast.meta_eval.metric import data as D

    rel = "scores/human/EW_sent.txt"
    values = (JUDGMENTS / "seeda" / rel).read_text(encoding="utf-8").split()
    spelled = [f"+{values[0]}", f" {float(values[1]):.6e} ", *values[2:]]
    root = seeda_with(tmp_path, {rel: "\r\n".join(spelled).encode("utf-8")})
    got = D.load("seeda", str(root), str(GOLD), "all").human["ew_sent"]
    want = D.load("seeda", str(JUDGMENTS / "seeda"), str(GOLD), "all").human["ew_sent"]
    assert got.keys() == want.keys() and all(abs(got[s] - want[s]) < 1e-12 for s in got)


# --- point 5: a NUL byte in a system output ------------------------------------------------------------------------

@shared
@pytest.mark.parametrize("data,rel", [("seeda", "outputs/subset/BART.txt"),
                                      ("gjg15", "data/original/official_submissions/AMU")])
def test_a_nul_byte_in_an_output_is_refused_at_its_line(capsys, tmp_path, data, rel):
    lines = (JUDGMENTS / data / rel).read_bytes().split(b"\n")
    lines[2] = lines[2][:3] + b"\x00" + lines[2][3:]
    maker = seeda_with if data == "seeda" else gjg15_with
    root = maker(tmp_path, {rel: b"\n".join(lines)})
    err = meta_eval(capsys, root, data)
    assert err == f"peet-fast meta-eval: error: {root / rel}:3: contains a NUL byte (binary file?)"


def test_linked_copy_links_all_but_the_replaced(tmp_path):
    src = tmp_path / "src"
    (src / "a").mkdir(parents=True)
    (src / "a" / "x").write_text("x")
    (src / "y").write_text("y")
    out = linked_copy(src, tmp_path / "out", {"a/x": b"new"})
    assert (out / "a" / "x").read_text() == "new" and not (out / "a" / "x").is_symlink()
    assert (out / "y").is_symlink() and (out / "y").read_text() == "y"
    shutil.rmtree(out)
