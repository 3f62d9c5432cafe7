"""CLEME on edit tuples: chunk partition, dependent/independent counting, length weighting, CLEME's M2 reading, and
agreement with CLEME's own scores on the MuCGEC dev set (../shared/corpora/mucgec/reference/scores.json).

Expected values are hand-computed (worked out in the comments) or CLEME's published output."""
from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from peet_fast.formats.m2 import read_m2
from peet_fast.io import InputError
from peet_fast.metrics import cleme as C

SRC = tuple("abcde")


def target(src, edits):
    """A Target from edits (s, e, replacement tokens), applied left to right."""
    toks, out, offset = list(src), [], 0
    for s, e, cor in sorted(edits, key=lambda x: x[0]):
        tb = s + offset
        toks[tb:e + offset] = list(cor)
        offset += len(cor) - (e - s)
        out.append((s, e, tb, tb + len(cor)))
    return C.Target(tuple(toks), tuple(out))


HYP = target(SRC, [(1, 2, "X")])                  # a X c d e
REF1 = target(SRC, [(1, 2, "X")])                 # a X c d e
REF2 = target(SRC, [(3, 3, "Y")])                 # a b c Y d e


def texts(chunks):
    return ["".join(c.tokens) for c in chunks]


def test_partition_distance_0_keeps_separate_chunks():
    hyp, _, r2 = C.chunk_partition(C.CSentence(SRC, HYP, (REF1, REF2)), merge_distance=0)
    # shared intervals [1, 2] and the dummy [3, 3]: chunks [0,1] [1,2] [2,3] [3,3] [3,5]
    assert texts(hyp) == ["a", "X", "c", "", "de"]
    assert texts(r2) == ["a", "b", "c", "Y", "de"]
    assert [c.changed for c in hyp] == [False, True, False, False, False]
    assert [c.changed for c in r2] == [False, False, False, True, False]
    assert [c.src_len for c in hyp] == [1, 1, 1, 0, 2]


def test_partition_distance_1_merges_nearby_edits():
    hyp, _, r2 = C.chunk_partition(C.CSentence(SRC, HYP, (REF1, REF2)), merge_distance=1)
    # the insertion at 3 starts 1 after the end of [1, 2]: one chunk [1, 3]
    assert texts(hyp) == ["a", "Xc", "de"] and texts(r2) == ["a", "bcY", "de"]
    assert [c.changed for c in r2] == [False, True, False]


def test_dependent_and_independent_counts():
    res = C.cleme([C.CSentence(SRC, HYP, (REF1, REF2))], merge_distance=0)
    # dependent: ref1 gives TP 1, TN 4 (F 1); ref2 gives FP 1 (X vs b), FN 1 (dummy chunk Y), TN 3 (F 0): ref1 kept
    d = res["dependent_unweighted"]
    assert (d.tp, d.fp, d.fn, d.tn, d.p, d.r, d.f) == (1, 0, 0, 4, 1.0, 1.0, 1.0)
    # independent: X equals ref1's chunk -> TP; the dummy chunk is not changed by every reference -> TN
    i = res["independent_unweighted"]
    assert (i.tp, i.fp, i.fn, i.tn) == (1, 0, 0, 4)
    # bias = mean length of the references' changed chunks = (1 + 1) / 2; a TP of length 1 weighs 2 / (1 + e^0) = 1
    assert res["dependent_weighted"].tp == 1.0


def test_weighting_with_merged_chunks():
    res = C.cleme([C.CSentence(SRC, HYP, (REF1, REF2))], merge_distance=1)
    # refs' changed chunks: "Xc" (length 2), "bcY" (length max(2, 3) = 3): bias 2.5; the TP chunk has length 2
    assert math.isclose(res["dependent_weighted"].tp, 2 / (1 + math.exp(0.5)))
    d = res["dependent_unweighted"]
    assert (d.tp, d.fp, d.fn, d.tn) == (1, 0, 0, 2)


def test_unchanged_hypothesis_fn_and_tn():
    src = tuple("abc")
    hyp = target(src, [])
    z, w, same = target(src, [(0, 1, "Z")]), target(src, [(0, 1, "W")]), target(src, [])
    res = C.cleme([C.CSentence(src, hyp, (z, w))])
    # both refs change chunk [0, 1]: FN under each (dependent, tie -> first) and under independence
    for name in ("dependent_unweighted", "independent_unweighted"):
        r = res[name]
        assert (r.tp, r.fp, r.fn, r.tn, r.p, r.r, r.f) == (0, 0, 1, 1, 1.0, 0.0, 0.0)
    res = C.cleme([C.CSentence(src, hyp, (z, same))])
    # an unchanged reference: dependent keeps it (TN 2, F 1); independent: not every ref changes it -> TN
    assert (res["dependent_unweighted"].fn, res["dependent_unweighted"].tn) == (0, 2)
    assert (res["independent_unweighted"].fn, res["independent_unweighted"].tn) == (0, 2)


def test_length_weigher_values():
    w = C.LengthWeigher()
    assert w.weight(3, 3.0, reverse=False) == 1.0 and w.weight(3, 3.0, reverse=True) == 1.0
    assert w.weight(4, 3.0, reverse=False) == 1.25              # 2 / (1 + e^-1) = 1.46 -> clipped
    assert w.weight(4, 3.0, reverse=True) == 0.75               # 2 / (1 + e) = 0.54 -> clipped
    assert math.isclose(w.weight(3, 2.8, reverse=False), 2 / (1 + math.exp(-0.2)))
    assert w.weight(10_000, 1.0, reverse=True) == 0.75          # no overflow


def test_prf_conventions():
    assert C.prf(0, 0, 0) == (1.0, 1.0, 1.0)
    assert C.prf(0, 0, 3) == (1.0, 0.0, 0.0)
    p, r, f = C.prf(2, 2, 6)
    assert (p, r) == (0.5, 0.25) and math.isclose(f, 1.25 * 0.125 / (0.125 + 0.25))


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_chunks_rebuild_every_target(data):
    n = data.draw(st.integers(1, 12))
    src = tuple(data.draw(st.text(alphabet="abcd", min_size=n, max_size=n)))

    def random_target():
        edits, pos = [], 0
        while pos <= n and data.draw(st.booleans()):
            s = data.draw(st.integers(pos, n))
            e = data.draw(st.integers(s, min(n, s + 3)))
            edits.append((s, e, data.draw(st.text(alphabet="XYZ", max_size=3))))
            pos = e + 1
        return target(src, edits)

    hyp = random_target()
    refs = tuple(random_target() for _ in range(data.draw(st.integers(1, 3))))
    distance = data.draw(st.integers(0, 2))
    parts = C.chunk_partition(C.CSentence(src, hyp, refs), merge_distance=distance)
    for t, chunks in zip((hyp, *refs), parts):
        assert len(chunks) == len(parts[0])
        assert sum(c.src_len for c in chunks) == n
        assert tuple(tok for c in chunks for tok in c.tokens) == t.tokens
        # every edit lies in exactly one changed chunk, and every changed chunk holds an edit
        bounds, pos = [], 0
        for c in chunks:
            bounds.append((pos, pos + c.src_len, c.changed))
            pos += c.src_len
        for s, e, _, _ in t.edits:
            assert sum(changed and c0 <= s and e <= c1 for c0, c1, changed in bounds) == 1
        for c0, c1, changed in bounds:
            if changed:
                assert any(c0 <= s and e <= c1 for s, e, _, _ in t.edits)


# --- M2 input ------------------------------------------------------------------------------------------------------

M2 = """S a b c d
T0-A0 a X c Y Z d
A 1 2|||S|||X|||REQUIRED|||-NONE-|||0
A 3 3|||M|||Y Z|||REQUIRED|||-NONE-|||0
T0-A1 a X c d
A 1 2|||S|||X|||REQUIRED|||-NONE-|||0
T1-A0 a b c d
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||1
T2-A0 b c d
A 0 1|||R|||-NONE-|||REQUIRED|||-NONE-|||2

S e f
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0
"""


def test_read_m2_as_cleme(tmp_path):
    p = tmp_path / "x.m2"
    p.write_text(M2, encoding="utf-8")
    (src, targets), (_, targets2) = [C.cleme_targets(b) for b in read_m2(p)]
    assert src == tuple("abcd")
    # annotator 0's first alignment only (T0-A1 skipped); the noop annotator 1 is unchanged; 2 deletes "a"
    assert targets == [C.Target(tuple("aXcYZd"), ((1, 2, 1, 2), (3, 3, 3, 5))), C.Target(tuple("abcd"), ()),
                       C.Target(tuple("bcd"), ((0, 1, 0, 0),))]
    assert targets2 == [C.Target(("e", "f"), ())]


@pytest.mark.parametrize("bad, message", [
    ("S a b\nA 0 5|||S|||x|||REQUIRED|||-NONE-|||0\n", "the source has 2 tokens"),
    ("S a b\nA 0 1|||S|||x|||REQUIRED\n", "an A line needs 6"),
    ("S a b\nX what\n", "unexpected line"),
    ("A 0 1|||S|||x|||REQUIRED|||-NONE-|||0\n", "a sentence block must start with 'S '"),
    ("S\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n", "empty source sentence"),
    ("S a b\nA 0 1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n", "noop edit with a span"),
])
def test_read_m2_refuses_bad_lines(tmp_path, bad, message):
    p = tmp_path / "bad.m2"
    p.write_text(bad, encoding="utf-8")
    with pytest.raises(InputError, match=message) as info:
        [C.cleme_targets(b, str(p)) for b in read_m2(p)]
    assert "bad.m2:" in str(info.value)


def test_cleme_sentences_refuse_mismatches(tmp_path):
    a, b = tmp_path / "a.m2", tmp_path / "b.m2"
    a.write_text("S x y\n\nS z\n", encoding="utf-8")
    b.write_text("S x y\n", encoding="utf-8")
    with pytest.raises(InputError, match="2 sentences, but"):
        C.cleme_sentences(a, b)
    b.write_text("S x y\n\nS w\n", encoding="utf-8")
    with pytest.raises(InputError, match="sentence 1: source differs"):
        C.cleme_sentences(a, b)


# --- agreement with CLEME on MuCGEC -----------------------------------------------------------------------------------

def test_mucgec_matches_cleme_scores(shared_corpora):
    d = shared_corpora / "mucgec" / "reference"
    scores = json.loads((d / "scores.json").read_text(encoding="utf-8"))
    sents = C.cleme_sentences(d / "mucgec_dev.example_pred.m2.char", d / "mucgec_dev.ref.m2.char")
    res = C.cleme(sents, merge_distance=0)
    tol = 5e-5 + 1e-9                                           # CLEME prints 4 decimals
    for variant in ("dependent", "independent"):
        want = scores[f"CLEME_{variant}_corpus"]
        for kind in ("weighted", "unweighted"):
            got = res[f"{variant}_{kind}"].summary()
            for key, value in want[kind].items():
                assert abs(got[key] - value) <= tol, (variant, kind, key, got[key], value)
