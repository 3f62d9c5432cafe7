"""The compiled attribute_ruler (peet_fast.en.ruler.CompiledAttributeRuler) against spaCy's own component.

The oracle is spaCy: the same pipeline run the normal way (nlp.pipe with every component). Every token attribute the
pipeline sets, MORPH included (the lemmatizer reads it), must be equal."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from peet_fast.en.parse import Parser
from peet_fast.en.ruler import CompiledAttributeRuler, tail_components

FIXTURES = Path(__file__).parents[1] / "fixtures"

# Sentences that reach the ruler's rarer patterns: two-token lemma rules (gon na, got ta, let 's, c'm on, y' all,
# ai n't), the regex rules (nothin'), DEP-conditioned rules (pronoun case, expletive there, "but" as advmod, aux/auxpass,
# mark, determiners as pronouns), and words the lemmatizer treats specially.
SPECIAL = [
    "I 'm gon na go and you got ta come .",
    "Let 's go , c'm on , y' all !",
    "He ai n't here and it ai nt fair .",
    "There is nothin' to see and there 's nuthin' left .",
    "I saw you and it saw me , but I did not like it .",
    "She has been told that it was done because they had to .",
    "But then , he but smiled .",
    "That is what I want , this one and those .",
    "Do you have it ? I do . Does he ? He did .",
    "It gets better and he got it .",
    "The students is happy , are n't they ? I am n't sure .",
    "We 've been here , you 've seen it , they 're gone .",
]


def doc_arrays(doc) -> np.ndarray:
    from spacy.attrs import DEP, HEAD, IS_SPACE, LEMMA, LOWER, MORPH, ORTH, POS, TAG

    return doc.to_array([ORTH, LOWER, LEMMA, POS, TAG, DEP, HEAD, MORPH, IS_SPACE])


def spacy_docs(nlp, texts, tokenise):
    from spacy.tokens import Doc

    docs = (t if tokenise else Doc(nlp.vocab, t.split()) for t in texts)
    return list(nlp.pipe(docs, batch_size=64))


def compiled_docs(nlp, texts, tokenise):
    from spacy.tokens import Doc

    parser = Parser(nlp, tokenise=tokenise, batch_size=64)
    assert parser._tail is not None, "the shipped pipeline's attribute_ruler should compile"
    docs = (t if tokenise else Doc(nlp.vocab, t.split()) for t in texts)
    return list(parser.pipe_docs(docs))


def assert_same(nlp, texts, tokenise=False):
    want = spacy_docs(nlp, texts, tokenise)
    got = compiled_docs(nlp, texts, tokenise)
    assert len(want) == len(got)
    bad = [(t, [(a.text, a.lemma_, a.pos_, a.tag_, a.dep_, str(a.morph)) for a in w],
            [(b.text, b.lemma_, b.pos_, b.tag_, b.dep_, str(b.morph)) for b in g])
           for t, w, g in zip(texts, want, got) if not np.array_equal(doc_arrays(w), doc_arrays(g))]
    assert not bad, f"{len(bad)} of {len(texts)} sentences differ; first: {bad[0]}"


def fixture_texts() -> list[str]:
    out = []
    for line in (FIXTURES / "en_pairs.tsv").read_text(encoding="utf-8").splitlines():
        out.extend(part for part in line.split("\t")[:2] if part.strip())
    return list(dict.fromkeys(out))


def test_compiles_the_shipped_ruler(nlp):
    ruler = CompiledAttributeRuler.compile(nlp.get_pipe("attribute_ruler"))
    assert ruler is not None
    # one entry per (ruler pattern entry, alternative pattern): nothing dropped
    assert len(ruler.entries) == sum(len(p["patterns"]) for p in nlp.get_pipe("attribute_ruler").patterns)


def test_special_patterns_match_spacy(nlp):
    assert_same(nlp, SPECIAL)


def test_fixture_sentences_match_spacy(nlp):
    assert_same(nlp, fixture_texts())


def test_warm_caches_give_the_same_attributes(nlp):
    # the second pass over the same sentences hits the per-token and lemma caches of the compiled stand-in
    texts = SPECIAL + fixture_texts()[:200]
    first = [doc_arrays(d) for d in compiled_docs(nlp, texts, False)]
    second = [doc_arrays(d) for d in compiled_docs(nlp, texts, False)]
    want = [doc_arrays(d) for d in spacy_docs(nlp, texts, False)]
    assert all(np.array_equal(a, b) and np.array_equal(a, c) for a, b, c in zip(first, second, want))


def test_tokeniser_mode_with_whitespace_tokens_matches_spacy(nlp):
    # spaCy's tokenizer makes whitespace tokens of repeated spaces and newlines: the IS_SPACE rules (TAG _SP, DEP dep)
    raw = [line.split("\t")[0] for line in (FIXTURES / "tok_pairs.tsv").read_text(encoding="utf-8").splitlines()]
    raw += ["Hello  world .", "Two   spaces\nand a newline .", " Leading space", "gonna wanna y'all ain't"]
    assert_same(nlp, raw, tokenise=True)


WORDS = ("i you it he she they we there that this what but if because not n't 's 're 'm 've 'd is are am was were "
         "be been do does did have has had gon na got ta let c'm on y' all ai nothin' get gets the a an to of and "
         "dog dogs run runs ran quickly , . ! ?").split()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=14), min_size=1, max_size=8))
def test_random_token_sequences_match_spacy(nlp, sentences):
    assert_same(nlp, [" ".join(s) for s in sentences])


def test_unsupported_ruler_falls_back_to_spacy(nlp):
    spacy = pytest.importorskip("spacy")
    custom = spacy.blank("en")
    ruler = custom.add_pipe("attribute_ruler")
    ruler.add([[{"ORTH": "x", "OP": "+"}]], {"LEMMA": "ex"})       # an operator: not compiled
    assert CompiledAttributeRuler.compile(ruler) is None
    assert tail_components(custom) is None
    # a pipeline of another shape (no lemmatizer after the ruler) keeps spaCy's components
    assert Parser(custom)._tail is None


def test_compiled_ruler_can_be_turned_off(nlp):
    assert Parser(nlp, compiled_ruler=False)._tail is None
    texts = SPECIAL[:4]
    off = Parser(nlp, compiled_ruler=False).parse_list(texts)
    on = Parser(nlp).parse_list(texts)
    for a, b in zip(off, on):
        assert a.text == b.text and a.tag_ == b.tag_ and a.dep_ == b.dep_
        assert np.array_equal(a.arrays, b.arrays)       # ORTH LOWER LEMMA POS TAG DEP HEAD


@pytest.mark.slow
def test_shared_corpus_sentences_match_spacy(nlp, shared_corpora, corpus_lines):
    texts = []
    for name in ("gector_OP.txt", "gector_EC.txt", "source_EC.txt"):
        texts += corpus_lines(shared_corpora / "peet" / "CONLL14" / name)
    texts = [t for t in dict.fromkeys(texts) if t.strip()]
    assert len(texts) > 1500
    assert_same(nlp, texts)
