"""The persistent parse cache: the segment store (round trip, damage, eviction, compaction) and the parser over it
(cached Sents equal spaCy's own, warm runs parse nothing and load no pipeline, a fingerprint change misses)."""
from __future__ import annotations

import hashlib
import os
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

FP = {"test": 1}
ANY_CHAR = st.characters(blacklist_categories=())      # surrogates included


def segments(root: Path) -> list[Path]:
    return sorted(root.rglob("*.seg"))


def sentences() -> list[str]:
    rows = [line.split("\t") for line in (FIXTURES / "en_pairs.tsv").read_text("utf-8").split("\n") if line]
    return [t for r in rows for t in r]


def same_sent(a, b) -> bool:
    return (np.array_equal(a.arrays, b.arrays) and a.arrays.dtype == b.arrays.dtype and a.text == b.text
            and a.ws == b.ws and a.lower_ == b.lower_ and a.tag_ == b.tag_ and a.dep_ == b.dep_)


# --- the store -------------------------------------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.binary(min_size=16, max_size=16), st.binary(max_size=64), max_size=30))
def test_store_round_trip_any_digests(tmp_path_factory, items):
    """Every record comes back under its digest, trailing NUL bytes included; absent digests are not found."""
    root = tmp_path_factory.mktemp("store")
    C.Store(str(root), FP).put(items)
    fresh = C.Store(str(root), FP)
    absent = hashlib.blake2b(b"absent", digest_size=16).digest()
    assert fresh.get([*items, absent]) == {d: r for d, r in items.items() if d != absent}


def test_digest_ending_in_nul_bytes(tmp_path):
    d = b"\x07" + b"\x00" * 15
    C.Store(str(tmp_path), FP).put({d: b"rec", b"\x00" * 16: b"zero"})
    assert C.Store(str(tmp_path), FP).get([d, b"\x00" * 16, b"\x01" * 16]) == {d: b"rec", b"\x00" * 16: b"zero"}


def _damage(path: Path, how: str) -> None:
    data = bytearray(path.read_bytes())
    if how == "truncate":
        path.write_bytes(bytes(data[:len(data) - 5]))
    elif how == "empty":
        path.write_bytes(b"")
    else:                                   # flip one byte: header, index or the last record
        at = {"header": 3, "index": C.HEADER.size + 2, "record": len(data) - 1}[how]
        data[at] ^= 0xFF
        path.write_bytes(bytes(data))


@pytest.mark.parametrize("how", ["truncate", "empty", "header", "index", "record"])
def test_damaged_segment_one_warning_then_removed(tmp_path, capsys, how):
    items = {hashlib.blake2b(str(i).encode(), digest_size=16).digest(): f"record {i}".encode() for i in range(20)}
    C.Store(str(tmp_path), FP).put(items)
    [seg] = segments(tmp_path)
    _damage(seg, how)
    store = C.Store(str(tmp_path), FP)
    got = store.get(list(items))
    assert all(items[d] == r for d, r in got.items())        # whatever is returned passed its own checksum
    assert len(got) < len(items)
    assert store.get(list(items)) == {} or how == "record"   # the segment is gone: no second warning either
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "damaged" in err[0] and str(seg) in err[0], err
    assert not seg.exists()
    store.put(items)                                           # rebuilt by the next write
    assert C.Store(str(tmp_path), FP).get(list(items)) == items


def test_eviction_keeps_the_bound_least_recently_used_first(tmp_path):
    big = {bytes([i]) * 16: os.urandom(10_000) for i in range(1, 4)}
    store = C.Store(str(tmp_path), FP, max_size=25_000)
    for d, r in big.items():
        store.put({d: r})
        os.utime(segments(tmp_path)[-1], (1, 1 + d[0]))    # distinct, increasing times
    total = sum(p.stat().st_size for p in segments(tmp_path))
    assert total <= 25_000
    assert C.Store(str(tmp_path), FP).get(list(big)) == {d: big[d] for d in list(big)[-2:]}   # the oldest went


def test_eviction_and_clear_leave_other_directories_alone(tmp_path):
    other = tmp_path / "not-ours"
    other.mkdir()
    (other / "x.seg").write_bytes(b"0" * 5000)
    (other / "y.tmp").write_bytes(b"0")
    os.utime(other / "y.tmp", (1, 1))
    C.Store(str(tmp_path), FP, max_size=10).put({b"a" * 16: b"record"})
    C.clear(str(tmp_path))
    assert (other / "x.seg").exists() and (other / "y.tmp").exists()


def test_compaction_bounds_the_number_of_segments(tmp_path, monkeypatch):
    monkeypatch.setattr(C.store, "MAX_SEGMENTS", 4)
    store = C.Store(str(tmp_path), FP)
    items = {hashlib.blake2b(str(i).encode(), digest_size=16).digest(): str(i).encode() for i in range(12)}
    for d, r in items.items():
        store.put({d: r})
    assert len(segments(tmp_path)) <= 4
    assert C.Store(str(tmp_path), FP).get(list(items)) == items


def test_the_open_segments_stay_bounded_over_many_writes(tmp_path, monkeypatch):
    # a long job puts a segment per parse batch: merged and evicted ones leave the store's table (and their maps
    # close), so what one process holds open stays within MAX_SEGMENTS however many batches it writes
    monkeypatch.setattr(C.store, "MAX_SEGMENTS", 4)
    store = C.Store(str(tmp_path), FP)
    items = {hashlib.blake2b(str(i).encode(), digest_size=16).digest(): str(i).encode() for i in range(40)}
    for d, r in items.items():
        store.put({d: r})
        store.get([d])
    assert len(store.segments) <= 4 + 1, sorted(store.segments)
    assert store.get(list(items)) == items
    other = C.Store(str(tmp_path), FP)          # another process evicting everything: this one lets go of it all
    assert other.get(list(items)) == items
    C.clear(str(tmp_path))
    assert store.get(list(items)) == {} and store.segments == {}


def test_parse_size():
    assert C.parse_size("2G") == 2 * 1024 ** 3
    assert C.parse_size("500M") == 500 * 1024 ** 2
    assert C.parse_size("1.5GB") == 3 * 1024 ** 3 // 2
    assert C.parse_size("4096") == 4096
    with pytest.raises(ValueError):
        C.parse_size("lots")


def test_unwritable_cache_warns_once_and_goes_on(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    store = C.Store(str(blocker), FP)
    store.put({b"a" * 16: b"x"})
    store.put({b"b" * 16: b"y"})
    assert store.get([b"a" * 16]) == {}
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "continuing without writing" in err[0]


def test_info_and_clear(tmp_path):
    C.Store(str(tmp_path), {"a": 1}).put({b"a" * 16: b"x", b"b" * 16: b"y"})
    C.Store(str(tmp_path), {"a": 2}).put({b"c" * 16: b"z"})
    (tmp_path / "unrelated.txt").write_text("kept")
    info = C.info(str(tmp_path))
    assert sorted((d["fingerprint"]["a"], d["entries"], d["segments"]) for d in info) == [(1, 2, 1), (2, 1, 1)]
    assert C.clear(str(tmp_path)) == sum(d["bytes"] for d in info)
    assert C.info(str(tmp_path)) == [] and (tmp_path / "unrelated.txt").exists()


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


@pytest.mark.parametrize("folder", ["myproject", "0123456789abcdef0123456x", "link"])
def test_clear_and_eviction_touch_only_what_the_cache_made(tmp_path, folder):
    """Issue 27: a user's folder inside the cache root that holds a fingerprint.json and a results.seg (or a link
    to such a folder, or a name one letter off the cache's) is not the cache's: clear and eviction leave it whole;
    in the cache's own directory a file of a name the cache does not give is left too."""
    root = tmp_path / "C"
    store = C.Store(str(root), {"v": 1}, max_size=1 << 30)
    store.put({hashlib.md5(b"x").digest(): b"record"})
    user = tmp_path / "user-data" if folder == "link" else root / folder
    user.mkdir()
    (user / "fingerprint.json").write_text('{"v": 1}\n')
    (user / "results.seg").write_bytes(b"PFSEG001 my results")
    if folder == "link":
        (root / C.fingerprint_id({"v": 2})).symlink_to(user, target_is_directory=True)
    own = root / C.fingerprint_id({"v": 1})
    (own / "notes.txt").write_text("mine\n")
    C.evict(str(root), 0)
    assert (user / "results.seg").read_bytes() == b"PFSEG001 my results"
    assert C.clear(str(root)) == 0            # eviction to 0 bytes already removed the one segment
    assert sorted(p.name for p in user.iterdir()) == ["fingerprint.json", "results.seg"]
    assert (own / "notes.txt").read_text() == "mine\n"
    assert not list(own.glob("*.seg")) and not (own / "fingerprint.json").exists()
