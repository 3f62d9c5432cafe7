"""The parse cache over the store (peet_fast.en.cache) and the parser over it (peet_fast.en.parse): cached Sents equal
spaCy's own, warm runs parse nothing and load no pipeline, a fingerprint change misses, the record codecs."""
from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
from conftest import FIXTURES, SPACY_MODEL
from hypothesis import given, settings
from hypothesis import strategies as st

import peet_fast.cache as C
from peet_fast.en.cache import ParseCache, decode, encode, encode_tokens, fingerprint
from peet_fast.en.parse import Parser

ANY_CHAR = st.characters(blacklist_categories=())      # surrogates included


def segments(root: Path) -> list[Path]:
    return sorted(root.rglob("*.seg"))


def sentences() -> list[str]:
    rows = [line.split("\t") for line in (FIXTURES / "en_pairs.tsv").read_text("utf-8").split("\n") if line]
    return [t for r in rows for t in r]


def same_sent(a, b) -> bool:
    return (np.array_equal(a.arrays, b.arrays) and a.arrays.dtype == b.arrays.dtype and a.text == b.text
            and a.ws == b.ws and a.lower_ == b.lower_ and a.tag_ == b.tag_ and a.dep_ == b.dep_)


# --- the parser over the cache ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def texts():
    return sentences()


@pytest.fixture(scope="module")
def reference(texts):
    """spaCy's own parses, without a cache."""
    return Parser(spacy_model=SPACY_MODEL, cache=False).parse(texts)


@pytest.mark.parametrize("tokenise", [False, True])
def test_cold_and_warm_parses_equal_spacy(tmp_path, texts, tokenise):
    ref = Parser(spacy_model=SPACY_MODEL, cache=False, tokenise=tokenise).parse(texts)
    cold = Parser(spacy_model=SPACY_MODEL, tokenise=tokenise, cache_dir=str(tmp_path))
    first = cold.parse(texts)
    assert cold.n_parsed == len([k for k in ref if k])
    warm = Parser(spacy_model=SPACY_MODEL, tokenise=tokenise, cache_dir=str(tmp_path))
    second = warm.parse(texts)
    assert warm.n_parsed == 0 and not warm.loaded and warm.cache.hits == cold.n_parsed
    assert first.keys() == second.keys() == ref.keys()
    assert all(same_sent(ref[k], first[k]) and same_sent(ref[k], second[k]) for k in ref)


def test_partly_cached_batch(tmp_path, texts, reference):
    Parser(spacy_model=SPACY_MODEL, cache_dir=str(tmp_path)).parse(texts[::2])
    p = Parser(spacy_model=SPACY_MODEL, cache_dir=str(tmp_path))
    got = p.parse(texts)
    assert 0 < p.n_parsed < len(reference)
    assert all(same_sent(reference[k], got[k]) for k in reference)


def test_record_codec(reference):
    assert all(same_sent(s, decode(encode(s))) for s in reference.values())


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.text(ANY_CHAR, max_size=6), st.booleans(), st.text(ANY_CHAR, max_size=3)), max_size=8),
       st.integers(0, 2 ** 64 - 1))
def test_record_codec_any_strings(tokens, big):
    """NUL, surrogates, astral characters and full 64-bit hashes survive a record."""
    from peet_fast._ext.tokens import Sent

    n = len(tokens)
    arrays = np.full((n, 7), big, dtype=np.uint64)
    arrays[:, 3] = 92                                 # a valid POS id
    arrays[:, 6] = 0
    sent = Sent(arrays, [t for t, _, _ in tokens], [w for _, w, _ in tokens], [t.lower() for t, _, _ in tokens],
                [x for _, _, x in tokens], ["dep\x00" + x for _, _, x in tokens])
    assert same_sent(sent, decode(encode(sent)))


INVALID = (ValueError, IndexError, OverflowError, struct.error)     # what the store turns into "invalid record"


def _python(decoder, record):
    """The Python decoder's value, or None where it refuses the record."""
    try:
        return decoder(record)
    except INVALID:
        return None


@st.composite
def near_valid_records(draw):
    """Parse records (encode's layout) whose every field may be right or wrong: token counts, heads, POS ids,
    whitespace flags, string lengths, UTF-8 text, trailing or missing bytes."""
    n = draw(st.integers(0, 4))
    small = st.integers(-2, 2).map(lambda x: x % 2 ** 64)
    rows = [[draw(st.integers(0, 2 ** 64 - 1)), draw(st.integers(0, 2 ** 64 - 1)), 0,
             draw(st.sampled_from([92, 92, 92, 97, 2 ** 16 - 1, 2 ** 16, 2 ** 64 - 1])), 0, 0,
             draw(st.one_of(small, small, small, st.integers(0, 2 ** 64 - 1)))] for _ in range(n)]
    ws = bytes(draw(st.lists(st.sampled_from([0, 1] * 8 + [2, 255]), min_size=n, max_size=n)))
    strings = draw(st.lists(st.text(ANY_CHAR, max_size=4), min_size=4 * n, max_size=4 * n))
    lengths = [len(t) + draw(st.sampled_from([0, 0, 0, 0, 1, -1, -5])) for t in strings]
    text = "".join(strings).encode("utf-8", "surrogatepass") + draw(st.sampled_from([b"", b"", b"\xff", b"x"]))
    count = draw(st.sampled_from([n, n, n, n + 1, max(n - 1, 0), 2 ** 32 - 1]))
    rec = (struct.pack("<I", count) + np.array(rows, dtype="<u8").reshape(n, 7).tobytes() + ws
           + np.array(lengths, dtype="<i4").tobytes() + text)
    cut = draw(st.sampled_from([None] * 6 + [0, 3, 4, len(rec) // 2, len(rec) - 1]))
    return rec if cut is None else rec[:cut]


@settings(max_examples=400, deadline=None)
@given(st.one_of(near_valid_records(), st.binary(max_size=200)))
def test_compiled_record_decoder_equals_python(record):
    """The compiled decoder (the warm path's) accepts exactly the records the Python decoder accepts, and decodes
    them to the same Sent; it returns None where the Python decoder raises (decode then raises its error)."""
    from peet_fast._ext import records
    from peet_fast.en.cache import decode_checked

    want = _python(decode_checked, record)
    got = records.decode_sent(record)
    assert (got is None) == (want is None)
    if want is not None:
        assert same_sent(got, want) and same_sent(decode(record), want)
    else:
        with pytest.raises(INVALID):
            decode(record)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.lists(st.text(ANY_CHAR, max_size=5), max_size=6).map(lambda ts: encode_tokens(ts)),
                 st.binary(max_size=80),
                 st.tuples(st.lists(st.integers(-2, 6), max_size=4), st.binary(max_size=12)).map(
                     lambda t: struct.pack("<I", len(t[0])) + np.array(t[0], dtype="<i4").tobytes() + t[1])))
def test_compiled_token_decoder_equals_python(record):
    from peet_fast._ext import records
    from peet_fast.en.cache import decode_tokens, decode_tokens_checked

    want = _python(decode_tokens_checked, record)
    assert records.decode_tokens(record) == want
    if want is not None:
        assert decode_tokens(record) == want


def test_compiled_decoder_on_cached_parses(reference):
    from peet_fast._ext import records

    assert all(same_sent(records.decode_sent(encode(s)), s) for s in reference.values())


def test_fingerprint_covers_what_changes_a_parse():
    base = fingerprint(SPACY_MODEL, tokenise=False, compiled_ruler=True)
    assert base["pipeline"] == SPACY_MODEL and base["spacy"] and len(base["pipeline_hash"]) == 64
    for other in (fingerprint(SPACY_MODEL, tokenise=True, compiled_ruler=True),
                  fingerprint(SPACY_MODEL, tokenise=False, compiled_ruler=False)):
        assert C.fingerprint_id(other) != C.fingerprint_id(base)
    assert fingerprint("no_such_pipeline_xyz", tokenise=False, compiled_ruler=True) is None


def test_tokenise_change_misses(tmp_path, texts):
    Parser(spacy_model=SPACY_MODEL, cache_dir=str(tmp_path)).parse(texts)
    p = Parser(spacy_model=SPACY_MODEL, tokenise=True, cache_dir=str(tmp_path))
    p.parse(texts)
    assert p.n_parsed > 0 and p.cache.hits == 0


def test_no_cache_for_a_pipeline_object_or_a_bad_name(tmp_path, nlp):
    assert Parser(nlp, cache_dir=str(tmp_path)).cache is None
    assert Parser(spacy_model=SPACY_MODEL, cache=False).cache is None
    from peet_fast.en.parse import PipelineError

    with pytest.raises(PipelineError, match="no_such_pipeline_xyz"):
        Parser(spacy_model="no_such_pipeline_xyz", cache_dir=str(tmp_path))


def test_damaged_cache_never_changes_a_parse(tmp_path, texts, reference, capsys):
    Parser(spacy_model=SPACY_MODEL, cache_dir=str(tmp_path)).parse(texts)
    [seg] = segments(tmp_path)
    data = bytearray(seg.read_bytes())
    for at in range(len(data) // 2, len(data), 997):     # flipped bytes across the records
        data[at] ^= 0x55
    seg.write_bytes(bytes(data))
    p = Parser(spacy_model=SPACY_MODEL, cache_dir=str(tmp_path))
    got = p.parse(texts)
    assert all(same_sent(reference[k], got[k]) for k in reference)
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert p.n_parsed > 0 and not seg.exists()
    again = Parser(spacy_model=SPACY_MODEL, cache_dir=str(tmp_path))
    again.parse(texts)
    assert again.n_parsed == 0                          # rebuilt


def test_parse_cache_put_get_batch(tmp_path, reference):
    cache = ParseCache(fingerprint(SPACY_MODEL, tokenise=False, compiled_ruler=True), str(tmp_path))
    cache.put({k: s for k, s in reference.items() if k})
    got = cache.get([*reference, "never seen"])
    assert "never seen" not in got and all(same_sent(reference[k], got[k]) for k in reference if k)
