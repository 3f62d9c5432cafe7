"""Unit tests of the alignment kernels on hand-built token arrays, with the expected values worked out by hand.

errant's substitution cost (errant/alignment.py, Alignment.get_sub_cost) of orig token o and cor token c:
    0                                              if o.lower == c.lower (case-only difference)
    lemma_cost + pos_cost + Indel(o.text, c.text)  otherwise, where
        lemma_cost = 0 if same lemma else 0.499
        pos_cost   = 0 if same POS, 0.25 if both POS are open-class (ADJ ADV NOUN VERB), else 0.5
        Indel      = (len(a) + len(b) - 2 * LCS(a, b)) / (len(a) + len(b))   (rapidfuzz Indel.normalized_distance)
The sums below are written in errant's order of operations, so == (not approx) is the right comparison.
"""
from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import spacy.symbols as sym
from errant.alignment import Alignment

from peet_fast._ext.align import alignment, substitution_cost
from peet_fast._ext.tokens import Sent, indel_distance

_IDS: dict[str, int] = {}


def _id(s: str) -> int:
    """Stand-in hash ids: any distinct ints will do, equal strings must get equal ids."""
    return _IDS.setdefault(s, 7_000_000 + len(_IDS))


def tok(text, lemma=None, pos=sym.NOUN, tag="NN", dep="dep"):
    return (text, text.lower() if lemma is None else lemma, int(pos), tag, dep)


def make_sent(tokens) -> Sent:
    """tokens: [(text, lemma, pos, tag, dep)] -> Sent; every head is the token itself (relative head 0)."""
    rows = [[_id(t), _id(t.lower()), _id(lem), pos, _id(tag), _id(dep), 0] for t, lem, pos, tag, dep in tokens]
    arr = np.array(rows, dtype=np.uint64).reshape(len(tokens), 7)
    return Sent(arr, [t[0] for t in tokens], [True] * len(tokens), [t[0].lower() for t in tokens],
                [t[3] for t in tokens], [t[4] for t in tokens])


def errant_tokens(tokens):
    """The same tokens as duck-typed objects errant's Alignment accepts (it reads orth, lower, lemma, pos, text)."""
    return [SimpleNamespace(text=t, orth=_id(t), lower=_id(t.lower()), lemma=_id(lem), pos=pos)
            for t, lem, pos, _, _ in tokens]


def cost(a, b):
    return substitution_cost(make_sent([a]), 0, make_sent([b]), 0)


# --- substitution cost -------------------------------------------------------------------------------------------------

def test_case_only_difference_costs_zero():
    # lower-case forms equal -> 0, whatever lemma and POS say
    assert cost(tok("Cat", "cat", sym.NOUN), tok("cat", "cat", sym.NOUN)) == 0.0
    assert cost(tok("THE", "the", sym.DET), tok("the", "the", sym.PRON)) == 0.0
    assert cost(tok("Run", "run", sym.VERB), tok("rUN", "other", sym.NOUN)) == 0.0


def test_same_lemma_same_pos_is_char_cost_only():
    # cat/cats: LCS("cat", "cats") = 3 -> Indel = (3 + 4 - 2*3) / (3 + 4) = 1/7
    expected = (0 + 0) + (3 + 4 - 2 * 3) / (3 + 4)
    assert expected == 1 / 7
    assert cost(tok("cat", "cat", sym.NOUN), tok("cats", "cat", sym.NOUN)) == expected
    # is/'s, same lemma "be", both AUX: LCS("is", "'s") = 1 ("s") -> (2 + 2 - 2) / 4 = 0.5
    assert cost(tok("is", "be", sym.AUX), tok("'s", "be", sym.AUX)) == (0 + 0) + (2 + 2 - 2 * 1) / (2 + 2)


def test_different_lemma_open_class_pos():
    # house (NOUN) vs run (VERB): lemma 0.499, both open -> 0.25, LCS("house", "run") = 1 ("u") -> (5+3-2)/8 = 0.75
    expected = 0.499 + 0.25 + (5 + 3 - 2 * 1) / (5 + 3)
    assert cost(tok("house", "house", sym.NOUN), tok("run", "run", sym.VERB)) == expected
    # quick (ADJ) vs quickly (ADV): lemma 0.499, open/open 0.25, LCS = 5 -> (5 + 7 - 10) / 12
    expected = 0.499 + 0.25 + (5 + 7 - 2 * 5) / (5 + 7)
    assert cost(tok("quick", "quick", sym.ADJ), tok("quickly", "quickly", sym.ADV)) == expected


def test_closed_class_pos_mismatch_costs_half():
    # the (DET) vs they (PRON): lemma 0.499, DET is closed -> 0.5, LCS("the", "they") = 3 -> (3 + 4 - 6) / 7
    expected = 0.499 + 0.5 + (3 + 4 - 2 * 3) / (3 + 4)
    assert cost(tok("the", "the", sym.DET), tok("they", "they", sym.PRON)) == expected
    # has (AUX) vs had (VERB), same lemma "have": one closed class -> 0.5, LCS("has", "had") = 2 -> (3+3-4)/6
    expected = 0 + 0.5 + (3 + 3 - 2 * 2) / (3 + 3)
    assert cost(tok("has", "have", sym.AUX), tok("had", "have", sym.VERB)) == expected
    # open NOUN vs closed ADP is a closed-class mismatch too: in/inn, different lemmas, LCS = 2 -> (2+3-4)/5
    expected = 0.499 + 0.5 + (2 + 3 - 2 * 2) / (2 + 3)
    assert cost(tok("inn", "inn", sym.NOUN), tok("in", "in", sym.ADP)) == 0.499 + 0.5 + (3 + 2 - 2 * 2) / (3 + 2)
    assert cost(tok("in", "in", sym.ADP), tok("inn", "inn", sym.NOUN)) == expected


def test_char_cost_counts_code_points():
    # café/cafe: LCS = 3 -> (4 + 4 - 6) / 8 = 0.25; 😀a/a: LCS 1 -> (2 + 1 - 2) / 3 (one code point each, no surrogates)
    assert cost(tok("café", "x"), tok("cafe", "x")) == (4 + 4 - 2 * 3) / (4 + 4)
    assert cost(tok("😀a", "x"), tok("a", "x")) == (2 + 1 - 2 * 1) / (2 + 1)
    # completely different texts with nothing in common: Indel 1.0, the maximum cost 0.499 + 0.5 + 1
    assert cost(tok("dog", "dog", sym.NOUN), tok("a", "a", sym.DET)) == 0.499 + 0.5 + 1.0


def test_indel_distance_uses_the_right_tokens():
    s1 = make_sent([tok("a"), tok("cat"), tok("sat")])
    s2 = make_sent([tok("cats"), tok(""), tok("mat")])
    assert indel_distance(s1, 1, s2, 0) == 1 / 7                       # cat/cats
    assert indel_distance(s1, 2, s2, 2) == (3 + 3 - 2 * 2) / (3 + 3)   # sat/mat, LCS "at"
    assert indel_distance(s1, 0, s2, 1) == (1 + 0 - 0) / (1 + 0)       # a/"" -> 1.0
    with pytest.raises(IndexError):
        indel_distance(s1, 3, s2, 0)
    with pytest.raises(IndexError):
        substitution_cost(s1, 0, s2, -1)


def test_substitution_cost_matches_errant_on_parsed_tokens(nlp):
    from peet_fast import Annotator

    o_text = "He go to the Schools yesterday and buyed three apple ."
    c_text = "He went to school yesterday , and bought three apples !"
    ann = Annotator(nlp)
    o_sent, c_sent = ann.parse([o_text, c_text])
    from spacy.tokens import Doc
    o_doc, c_doc = (nlp(Doc(nlp.vocab, t.split())) for t in (o_text, c_text))
    al = Alignment(o_doc, c_doc)
    for i, ot in enumerate(o_doc):
        for j, ct in enumerate(c_doc):
            assert substitution_cost(o_sent, i, c_sent, j) == al.get_sub_cost(ot, ct), (ot.text, ct.text)


# --- alignment ---------------------------------------------------------------------------------------------------------

def _check_with_errant(o_toks, c_toks, lev, expected):
    """The hand-worked expectation, and errant's own Alignment on the same tokens, must both agree with the kernel."""
    got = alignment(make_sent(o_toks), make_sent(c_toks), lev)
    assert got == expected
    assert Alignment(errant_tokens(o_toks), errant_tokens(c_toks), lev).align_seq == expected


def test_two_token_transposition():
    # o = dog bites, c = bites dog; sub(dog, bites) = 0.499 + 0.25 + 1.0 = 1.749 (NOUN vs VERB, no common chars)
    # C[1][1] = min(S 0 + 1.749, I 2, D 2) = 1.749 (S); C[1][2] = M (dog=dog) = C[0][1] = 1; C[2][1] = M = C[1][0] = 1
    # C[2][2]: trans: C[1][1] != C[0][0] and sorted(dog bites) == sorted(bites dog) -> C[0][0] + 1 = 1;
    #          sub = 1.749 + 1.749; ins = C[2][1] + 1 = 2; del = C[1][2] + 1 = 2  -> T2 (cost 1)
    o = [tok("dog", "dog", sym.NOUN), tok("bites", "bite", sym.VERB)]
    c = [tok("bites", "bite", sym.VERB), tok("dog", "dog", sym.NOUN)]
    _check_with_errant(o, c, False, [("T2", 0, 2, 0, 2)])
    # the same with a case change inside the transposed block: transpositions compare lower-case forms
    c2 = [tok("bites", "bite", sym.VERB), tok("Dog", "dog", sym.NOUN)]
    _check_with_errant(o, c2, False, [("T2", 0, 2, 0, 2)])


def test_three_token_transposition():
    # o = x y z, c = z x y; all NOUN, different lemmas, no shared characters -> every sub costs 0.499 + 0 + 1 = 1.499
    #   C11 x/z = S 1.499; C12 x/x = M C01 = 1; C13 x/y: sub C02+1.499, ins C12+1 = 2, del C03+1 = 4 -> I 2
    #   C21 y/z: sub C10+1.499 = 2.499, del C11+1 = 2.499, ins C20+1 = 3 -> S 2.499 (S/D tie)
    #   C22 y/x: sub C11+1.499 = 2.998, ins C21+1 = 3.499, del C12+1 = 2; k=1: sorted(x y) != sorted(z x) -> D 2
    #   C23 y/y = M C12 = 1;  C31 z/z = M C20 = 2
    #   C32 z/x: sub C21+1.499 = 3.998, ins C31+1 = 3, del C22+1 = 3; k=1: sorted(y z) != sorted(z x) -> I 3
    #   C33 z/y: sub C22+1.499 = 3.499, ins C32+1 = 4, del C23+1 = 2;
    #        k=1: C22 != C11, sorted(y z) != sorted(x y); k=2: C11 != C00, sorted(x y z) == sorted(z x y)
    #        -> trans = C00 + 2 = 2, tied with del = 2: the transposition wins -> a single T3
    o = [tok("x"), tok("y"), tok("z")]
    c = [tok("z"), tok("x"), tok("y")]
    _check_with_errant(o, c, False, [("T3", 0, 3, 0, 3)])


def test_tie_transposition_before_substitution():
    # o = ab ac, c = ac ab; same lemma "a", same POS NOUN, so sub(ab, ac) = 0 + 0 + (2 + 2 - 2*1) / 4 = 0.5
    # C[1][1] = min(S 0.5, I 2, D 2) = 0.5;  C[1][2] = M = 1;  C[2][1] = M = 1
    # C[2][2]: trans = C[0][0] + 1 = 1  (C[1][1] = 0.5 != C[0][0] = 0, and sorted(ab ac) == sorted(ac ab))
    #          sub   = C[1][1] + 0.5 = 1.0  (exact in binary floating point)
    #          ins = del = 2   -> tie trans/sub at 1, the transposition wins: one T2, not two substitutions
    o = [tok("ab", "a"), tok("ac", "a")]
    c = [tok("ac", "a"), tok("ab", "a")]
    assert cost(o[0], c[0]) + cost(o[1], c[1]) == 1.0
    _check_with_errant(o, c, False, [("T2", 0, 2, 0, 2)])


def test_tie_substitution_before_insertion_and_deletion():
    # lev=True: every substitution costs 1.
    # o = a b, c = b a: C[1][1] = S 1; C[1][2] = M = 1; C[2][1] = M = 1;
    # C[2][2]: sub = C[1][1] + 1 = 2, ins = C[2][1] + 1 = 2, del = C[1][2] + 1 = 2 (no transpositions with lev)
    #          -> three-way tie, substitution wins; backtrace S, S
    a, b, c = tok("a"), tok("b"), tok("c")
    _check_with_errant([a, b], [b, a], True, [("S", 0, 1, 0, 1), ("S", 1, 2, 1, 2)])
    # o = a b, c = c: C[1][1] = min(S 1, I 2, D 2) = 1 (S);
    # C[2][1]: sub = C[1][0] + 1 = 2, ins = C[2][0] + 1 = 3, del = C[1][1] + 1 = 2 -> tie S/D, S wins;
    # backtrace: S(b -> c) at C[2][1], then C[1][0] is D(a)
    _check_with_errant([a, b], [c], True, [("D", 0, 1, 0, 0), ("S", 1, 2, 0, 1)])
    # mirror image, o = c, c = a b: C[1][2]: sub = C[0][1] + 1 = 2, ins = C[1][1] + 1 = 2, del = C[0][2] + 1 = 3
    # -> tie S/I, S wins; backtrace S(c -> b), then C[0][1] is I(a)
    _check_with_errant([c], [a, b], True, [("I", 0, 0, 0, 1), ("S", 0, 1, 1, 2)])


def test_tie_insertion_before_deletion():
    # lev=True, o = a b a, c = b a b. Cost matrix (rows o prefix 0..3, columns c prefix 0..3):
    #   row 0: 0 1 2 3
    #   row 1 (a): C11 a/b = S 1; C12 a/a = M C01 = 1; C13 a/b: sub C02+1 = 3, ins C12+1 = 2, del C03+1 = 4 -> I 2
    #   row 2 (b): C21 b/b = M C10 = 1; C22 b/a: sub C11+1 = 2, ins C21+1 = 2, del C12+1 = 2 -> S 2; C23 b/b = M C12 = 1
    #   row 3 (a): C31 a/b: sub C20+1 = 3, ins C30+1 = 4, del C21+1 = 2 -> D 2; C32 a/a = M C21 = 1
    #              C33 a/b: sub C22+1 = 3, ins C32+1 = 2, del C23+1 = 2 -> tie I/D, insertion wins
    # backtrace from C33: I (c[2]), M (a=a at C32), M (b=b at C21), D (o[0] at C10)
    # (had deletion won: D o[2], M, M, I c[0] - an equally cheap but different alignment)
    a, b = tok("a"), tok("b")
    _check_with_errant([a, b, a], [b, a, b], True,
                       [("D", 0, 1, 0, 0), ("M", 1, 2, 0, 1), ("M", 2, 3, 1, 2), ("I", 3, 3, 2, 3)])


def test_lev_gives_plain_levenshtein_ops():
    # the transposition of test_two_token_transposition is two substitutions under lev (see the S/S tie above)
    o = [tok("dog", "dog", sym.NOUN), tok("bites", "bite", sym.VERB)]
    c = [tok("bites", "bite", sym.VERB), tok("dog", "dog", sym.NOUN)]
    _check_with_errant(o, c, True, [("S", 0, 1, 0, 1), ("S", 1, 2, 1, 2)])
    # lev ignores the linguistic costs; o = a cat, c = cats b (all NOUN, cat/cats share the lemma "cat"):
    # lev=True: C11 a/cats = S 1; C12 a/b: sub C01+1 = 2, ins C11+1 = 2, del C02+1 = 3 -> S 2;
    #           C21 cat/cats: sub C10+1 = 2, del C11+1 = 2, ins C20+1 = 3 -> S 2;
    #           C22 cat/b: sub C11+1 = 2, ins C21+1 = 3, del C12+1 = 3 -> S 2;  backtrace S, S
    a, cat, cats, b = tok("a"), tok("cat"), tok("cats", "cat"), tok("b")
    _check_with_errant([a, cat], [cats, b], True, [("S", 0, 1, 0, 1), ("S", 1, 2, 1, 2)])
    # lev=False: sub(a, cats) = 0.499 + 0 + (1 + 4 - 2*1) / 5 = 1.099; sub(cat, cats) = 0 + 0 + 1/7; sub(., b) = 1.499
    #           C11 = S 1.099; C12 a/b: sub 1 + 1.499, ins C11+1 = 2.099, del C02+1 = 3 -> I 2.099
    #           C21 cat/cats: sub C10 + 1/7 = 1.143, del C11+1 = 2.099, ins 3 -> S 1.143
    #           C22 cat/b: sub C11 + 1.499 = 2.598, ins C21+1 = 2.143, del C12+1 = 3.099, no transposition -> I
    #           backtrace I(b), S(cat -> cats), D(a): the similar tokens are aligned with each other
    _check_with_errant([a, cat], [cats, b], False, [("D", 0, 1, 0, 0), ("S", 1, 2, 0, 1), ("I", 2, 2, 1, 2)])
    # matches, insertions and deletions at the edges
    x, y, z = tok("x"), tok("y"), tok("z")
    _check_with_errant([x, y], [x, y, z], True, [("M", 0, 1, 0, 1), ("M", 1, 2, 1, 2), ("I", 2, 2, 2, 3)])
    _check_with_errant([z, x, y], [x, y], True, [("D", 0, 1, 0, 0), ("M", 1, 2, 0, 1), ("M", 2, 3, 1, 2)])
    _check_with_errant([], [x], True, [("I", 0, 0, 0, 1)])
    _check_with_errant([x], [], False, [("D", 0, 1, 0, 0)])
    _check_with_errant([], [], False, [])


# --- POS constants -----------------------------------------------------------------------------------------------------

POS_NAMES = ("ADJ", "ADP", "ADV", "AUX", "DET", "NOUN", "NUM", "PART", "PRON", "PUNCT", "VERB")
POS_VALUES = (84, 85, 86, 87, 90, 92, 93, 94, 95, 97, 100)


def test_pos_constants_equal_spacy_symbols():
    assert tuple(getattr(sym, name) for name in POS_NAMES) == POS_VALUES
    # the enum the kernels are compiled with (ext/tokens.pxd)
    pxd = (Path(__file__).parents[2] / "ext" / "tokens.pxd").read_text(encoding="utf-8")
    declared = {m.group(1): int(m.group(2)) for m in re.finditer(r"^\s*POS_(\w+)\s*=\s*(\d+)\s*$", pxd, re.M)}
    assert set(declared) == set(POS_NAMES)
    for name in POS_NAMES:
        assert declared[name] == getattr(sym, name), name


def test_open_class_set_used_by_the_compiled_cost():
    """Behavioural check of the compiled constants: pos_cost is 0.25 exactly for pairs of open classes."""
    open_pos = {sym.ADJ, sym.ADV, sym.NOUN, sym.VERB}
    all_pos = [getattr(sym, n) for n in POS_NAMES + ("CCONJ", "INTJ", "PROPN", "SCONJ", "SYM", "X", "SPACE")]
    for p in all_pos:
        for q in all_pos:
            pos_cost = 0 if p == q else 0.25 if (p in open_pos and q in open_pos) else 0.5
            # same lemma; ab/ac -> Indel 0.5
            assert cost(tok("ab", "a", p), tok("ac", "a", q)) == pos_cost + 0.5, (p, q)
