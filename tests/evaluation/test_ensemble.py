"""`peet-fast ensemble`: edit-wise majority voting, on hand-computed cases (thresholds, word order / spelling,
overlaps) at the library level and end to end. Every expected sentence below is worked out by hand in the comments."""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import SPACY_MODEL
from peet_fast.evaluation import ensemble as E
from peet_fast.en.annotator import RELAXED_TYPES
from peet_fast.zh import is_spelling
from peet_fast.cli import main


def V(start, end, cor, votes, first=0, etype="R:OTHER"):
    return E.Voted(start, end, etype, cor, votes, first)


@pytest.mark.parametrize("n,expected", [(1, (1, 1)), (2, (2, 1)), (3, (2, 1)), (4, (3, 1)), (5, (3, 2)),
                                        (6, (4, 2)), (7, (4, 3)), (8, (5, 3))])
def test_default_thresholds(n, expected):
    # more than N/2: N//2 + 1; relaxed: N/2 - 1 rounded up, at least 1 (N=5: 1.5 -> 2; N=7: 2.5 -> 3)
    assert tuple(E.default_thresholds(n)) == expected


def test_count_votes_one_vote_per_system_and_majority_type():
    systems = [
        [(1, 2, "R:VERB", "is"), (1, 2, "R:VERB", "is"), (3, 4, "U:DET", "")],   # a duplicate counts once
        [(1, 2, "R:OTHER", "is"), (3, 4, "U:DET", "-NONE-")],                     # '-NONE-' = '' (a deletion)
        [(-1, -1, "noop", "-NONE-")],                                             # noop: not an edit
        [(1, 2, "R:OTHER", "is")],
    ]
    got = {(v.start, v.end, v.cor): (v.votes, v.type, v.first) for v in E.count_votes(systems)}
    assert got == {(1, 2, "is"): (3, "R:OTHER", 0), (3, 4, ""): (2, "U:DET", 0)}


def test_select_thresholds_and_relaxed_edits():
    th = E.default_thresholds(5)            # 3 votes, 2 for word order / spelling
    voted = [V(0, 1, "a", 3), V(2, 3, "b", 2), V(4, 5, "c", 2, etype="R:SPELL"), V(6, 8, "d e", 1, etype="R:WO"),
             V(9, 10, "f", 2, etype="R:WO")]
    kept = E.select(voted, th, lambda v: v.type in RELAXED_TYPES)
    assert [(v.start, v.cor) for v in kept] == [(0, "a"), (4, "c"), (9, "f")]


def test_select_overlaps():
    th = E.Thresholds(1, 1)
    relaxed = (lambda v: False)
    # same span, 3 votes beat 2 whatever the order
    assert [v.cor for v in E.select([V(1, 2, "x", 2), V(1, 2, "y", 3)], th, relaxed)] == ["y"]
    # equal votes: the earlier position wins the overlap (1-3 before 2-4)
    assert [v.cor for v in E.select([V(2, 4, "late", 2), V(1, 3, "early", 2)], th, relaxed)] == ["early"]
    # equal votes and span start/end: the first system's edit
    assert [v.cor for v in E.select([V(1, 2, "b", 2, first=2), V(1, 2, "a", 2, first=1)], th, relaxed)] == ["a"]
    # two insertions at one position overlap; an insertion at a span's edge does not; strictly inside does
    assert [v.cor for v in E.select([V(3, 3, "i", 2), V(3, 3, "j", 1)], th, relaxed)] == ["i"]
    assert [v.cor for v in E.select([V(3, 3, "i", 1), V(3, 5, "r", 2), V(5, 5, "k", 1)], th, relaxed)] == \
        ["i", "r", "k"]
    assert [v.cor for v in E.select([V(4, 4, "i", 1), V(3, 5, "r", 2)], th, relaxed)] == ["r"]


def test_apply_edits():
    toks = ["a", "b", "c", "d"]
    # insertion before token 1, replacement of 1-2, deletion of 3, insertion at the end
    edits = [V(1, 1, "x", 1), V(1, 2, "y z", 1), V(3, 4, "", 1), V(4, 4, ".", 1)]
    assert E.apply_edits(toks, edits) == ["a", "x", "y", "z", "c", "."]
    with pytest.raises(ValueError):
        E.apply_edits(toks, [V(0, 2, "x", 1), V(1, 3, "y", 1)])


def test_zh_spelling_rule():
    assert is_spelling("再", "在")          # zai / zai
    assert is_spelling("他们", "她们")       # ta / ta, second char equal
    assert is_spelling("书看", "看书")       # same characters, another order
    assert not is_spelling("很", "非常")     # lengths differ
    assert not is_spelling("猫", "狗")       # mao / gou


# --- end to end ------------------------------------------------------------------------------------------------------

def write(path: Path, lines) -> Path:
    path.write_text("".join(line + "\n" for line in lines), "utf-8")
    return path


def run(tmp_path, src, hyps, *flags):
    s = write(tmp_path / "src.txt", src)
    hs = [write(tmp_path / f"h{k}.txt", h) for k, h in enumerate(hyps)]
    out = tmp_path / "out.txt"
    rc = main(["ensemble", "--src", str(s), "--hyp", *map(str, hs), "--out", str(out), *flags])
    return rc, out


EN_SRC = ["He go to school every days .", "I recieve it .", "I like very much it .", "He go home ."]
EN_SYSTEMS = [
    # go->goes (SVA) in 0, 1; went (TENSE) in 2; days->day in 0, 2; the spelling fix only in 0; the word-order fix
    # only in 1; 'He go home .' -> 'goes' in 2 only
    ["He goes to school every day .", "I receive it .", "I like very much it .", "He go home ."],
    ["He goes to school every days .", "I recieve it .", "I like it very much .", "He go home ."],
    ["He went to school every day .", "I recieve it .", "I like very much it .", "He goes home ."],
]


def test_en_three_systems(tmp_path):
    # N = 3: 2 votes to keep; R:SPELL / R:WO need 1
    rc, out = run(tmp_path, EN_SRC, EN_SYSTEMS, "--spacy-model", SPACY_MODEL)
    assert rc == 0
    assert out.read_text("utf-8").splitlines() == [
        "He goes to school every day .", "I receive it .", "I like it very much .", "He go home ."]


def test_en_four_and_five_systems(tmp_path):
    unchanged = list(EN_SRC)
    # N = 4: 3 votes to keep (goes 2, day 2: dropped), relaxed 1 (spelling and word order kept)
    rc, out = run(tmp_path, EN_SRC, EN_SYSTEMS + [unchanged], "--spacy-model", SPACY_MODEL)
    assert rc == 0
    assert out.read_text("utf-8").splitlines() == [
        "He go to school every days .", "I receive it .", "I like it very much .", "He go home ."]
    # N = 5 with a second copy of system 0: goes 3, day 3 kept; spelling 2 >= 2 kept; word order 1 < 2 dropped
    rc, out = run(tmp_path, EN_SRC, EN_SYSTEMS + [unchanged, EN_SYSTEMS[0]], "--spacy-model", SPACY_MODEL)
    assert rc == 0
    assert out.read_text("utf-8").splitlines() == [
        "He goes to school every day .", "I receive it .", "I like very much it .", "He go home ."]
    # explicit thresholds: everything with a vote (N = 5, 1 / 1): goes (3) beats went (1) on the same span
    rc, out = run(tmp_path, EN_SRC, EN_SYSTEMS + [unchanged, EN_SYSTEMS[0]], "--min-votes", "1",
                  "--min-votes-relaxed", "1", "--spacy-model", SPACY_MODEL)
    assert rc == 0
    assert out.read_text("utf-8").splitlines() == [
        "He goes to school every day .", "I receive it .", "I like it very much .", "He goes home ."]


def test_zh_three_systems(tmp_path):
    src = ["我们去学校。", "他再学校。", "我书看。", "他很高兴。"]
    systems = [
        ["我们去学校了。", "他在学校。", "我书看。", "他非常高兴。"],    # 了 (M), 再->在 (spelling), 很->非常
        ["我们去学校了。", "他再学校。", "我看书。", "他很高兴。"],      # 了, 书看->看书 (W)
        ["我们去学校。", "他再学校。", "我书看。", "他很高兴。"],        # nothing
    ]
    # N = 3: 了 has 2 votes (kept); 在 is a spelling fix (1 vote, kept); 看书 is W (1 vote, kept); 非常 1 vote: no
    rc, out = run(tmp_path, src, systems, "--lang", "zh")
    assert rc == 0
    assert out.read_text("utf-8").splitlines() == ["我们去学校了。", "他在学校。", "我看书。", "他很高兴。"]


def test_two_copies_of_a_system_reproduce_it_en(tmp_path):
    """Two copies of system B and the source itself as a third system: every edit of B has 2 of 3 votes and nothing
    else has any, so applying the kept edits must rebuild B exactly (tokens joined by single spaces)."""
    sample = Path(__file__).parents[1] / "fixtures" / "sample"
    src, b = sample / "system_a.txt", sample / "system_b.txt"
    out = tmp_path / "out.txt"
    rc = main(["ensemble", "--src", str(src), "--hyp", str(b), str(b), str(src), "--out", str(out),
               "--spacy-model", SPACY_MODEL])
    assert rc == 0
    expected = [" ".join(line.split()) for line in b.read_text("utf-8").splitlines()]
    assert out.read_text("utf-8").splitlines() == expected


def test_two_copies_of_a_system_reproduce_it_zh(tmp_path, shared_corpora):
    """The same on MuCGEC dev (1,137 sentences): the example predictions rebuilt character for character."""
    rows = [ln.split("\t") for ln in (shared_corpora / "mucgec" / "example_pred_dev.txt").read_text("utf-8")
            .splitlines()]
    src = write(tmp_path / "src.txt", [r[1] for r in rows])
    pred = write(tmp_path / "pred.txt", [r[2] for r in rows])
    out = tmp_path / "out.txt"
    rc = main(["ensemble", "--lang", "zh", "--src", str(src), "--hyp", str(pred), str(pred), str(src), "--out",
               str(out)])
    assert rc == 0
    assert out.read_text("utf-8").splitlines() == ["".join(r[2].split()) for r in rows]


def test_bad_input(tmp_path, capsys):
    out = tmp_path / "out.txt"
    s = write(tmp_path / "src.txt", ["a b", "c d"])
    h1 = write(tmp_path / "h1.txt", ["a b", "c d"])
    h2 = write(tmp_path / "h2.txt", ["a b"])
    rc = main(["ensemble", "--src", str(s), "--hyp", str(h1), str(h2), "--out", str(out)])
    assert rc == 2 and "line count" in capsys.readouterr().err and not out.exists()
    rc = main(["ensemble", "--src", str(s), "--hyp", str(h1), "--out", str(out)])
    assert rc == 2 and "at least two" in capsys.readouterr().err and not out.exists()
    rc = main(["ensemble", "--src", str(s), "--hyp", str(h1), str(h1), "--min-votes", "3", "--out", str(out)])
    assert rc == 2 and "--min-votes" in capsys.readouterr().err and not out.exists()
    rc = main(["ensemble", "--src", str(s), "--hyp", str(h1), str(h1), "--out", str(tmp_path / "no" / "x.txt")])
    assert rc == 2 and "output directory does not exist" in capsys.readouterr().err
