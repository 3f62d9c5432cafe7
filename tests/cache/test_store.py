"""The cache's segment store (peet_fast.cache): round trip, damage, eviction, compaction, clear, and what clear and
eviction leave alone."""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import peet_fast.cache as C

FP = {"test": 1}


def segments(root: Path) -> list[Path]:
    return sorted(root.rglob("*.seg"))


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
