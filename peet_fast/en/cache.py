"""The English parse cache: each parsed sentence's Sent token arrays, kept across runs (peet_fast.cache stores them).

A sentence's entry is keyed by a content hash of its text as ``Parser.key`` gives it, in the directory of a
fingerprint of everything that can change a parse: the spaCy version, the pipeline's name, version and the hash of
its meta.json and config.cfg, the compiled-ruler switch, the tokenisation mode and this module's FORMAT_VERSION (the
record layout, see encode). The fingerprint is computed from the installed files, without
loading spaCy or the pipeline, so a run whose sentences are all cached never loads either.

Only a pipeline loaded by name (or path) is cached: a pipeline object handed in may have been changed in memory in
ways its meta and config do not show.

On a cluster, each node's workers use the cache directory as that node resolves it (``PEET_FAST_CACHE`` or the user
cache dir of the worker's environment), unless ``--cache-dir`` names one: a node-local disk warms per node; a
directory all nodes share works too (segments are renamed into place), at the speed of that file system."""
from __future__ import annotations

import glob
import hashlib
import importlib.metadata
import importlib.util
import os
import struct

import numpy as np

from peet_fast._ext import records as _records
from peet_fast._ext.tokens import Sent
from peet_fast.cache import DEFAULT_MAX_SIZE, Store, default_dir

FORMAT_VERSION = 1
_COMPILED = _records.little_endian()       # the compiled decoders read records in the machine's byte order


def pipeline_files(name: str) -> list[str] | None:
    """meta.json and config.cfg of an installed pipeline package or a pipeline directory, without importing it;
    None when they cannot be found (then the pipeline is not cached)."""
    if os.path.isdir(name):
        base = name
    else:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            return None
        if spec is None or not spec.submodule_search_locations:
            return None
        found = sorted(glob.glob(os.path.join(spec.submodule_search_locations[0], "*", "config.cfg")))
        if len(found) != 1:
            return None
        base = os.path.dirname(found[0])
    files = [os.path.join(base, "meta.json"), os.path.join(base, "config.cfg")]
    return files if all(os.path.isfile(f) for f in files) else None


def fingerprint(name: str, *, tokenise: bool, compiled_ruler: bool) -> dict | None:
    """Everything that can change the parse of a sentence by pipeline `name`; None when it cannot be known."""
    files = pipeline_files(name)
    if files is None:
        return None
    import json

    digest = hashlib.sha256()
    for path in files:
        with open(path, "rb") as fh:
            digest.update(fh.read())
    try:
        with open(files[0], encoding="utf-8") as fh:
            version = json.load(fh).get("version")
        spacy_version = importlib.metadata.version("spacy")
    except (OSError, ValueError, importlib.metadata.PackageNotFoundError):
        return None
    return {"format": FORMAT_VERSION, "spacy": spacy_version, "pipeline": name,
            "pipeline_version": version, "pipeline_hash": digest.hexdigest(), "compiled_ruler": bool(compiled_ruler),
            "tokenise": bool(tokenise)}


def encode(sent: Sent) -> bytes:
    """A Sent's record: n (u32), its (n, 7) uint64 arrays, n whitespace flags (one byte each), the lengths in code
    points of its 4n token strings (text, lower_, tag_, dep_; int32) and those strings as one UTF-8 text. Plain
    data: nothing in a record is ever executed or unpickled."""
    strings = (*sent.text, *sent.lower_, *sent.tag_, *sent.dep_)
    lengths = np.fromiter((len(t) for t in strings), dtype="<i4", count=len(strings))
    return b"".join((struct.pack("<I", sent.n), sent.arrays.astype("<u8", copy=False).tobytes(), bytes(sent.ws),
                     lengths.tobytes(), "".join(strings).encode("utf-8", "surrogatepass")))


MAX_POS_ID = 1 << 16     # spaCy's part-of-speech symbols are small integers (ADJ = 84 ... X = 101)


def _strings(record: bytes, count: int, at: int) -> list[str]:
    """`count` strings from their int32 lengths at offset `at` and the UTF-8 text after them (the rest of the
    record), each length checked: ValueError where they do not add up to the text exactly."""
    if len(record) < at + 4 * count:
        raise ValueError("record shorter than its string lengths")
    lengths = np.frombuffer(record, "<i4", count, at)
    if count and int(lengths.min()) < 0:
        raise ValueError("negative string length")
    text = record[at + 4 * count:].decode("utf-8", "surrogatepass")
    ends = np.cumsum(lengths, dtype=np.int64).tolist()
    if (ends[-1] if ends else 0) != len(text):
        raise ValueError("string lengths do not add up to the text")
    return [text[a:b] for a, b in zip([0, *ends[:-1]], ends)]


def decode(record: bytes) -> Sent:
    """The Sent of a record (encode): the compiled decoder (peet_fast._ext.records, the same checks), else, where it
    finds the record invalid, decode_checked, which says why (ValueError)."""
    sent = _records.decode_sent(record) if _COMPILED else None
    return decode_checked(record) if sent is None else sent


def decode_checked(record: bytes) -> Sent:
    """The Sent of a record (encode), every field checked before use (a record whose checksum holds may still be
    crafted): ValueError where the sizes, whitespace flags, string lengths, heads (inside the sentence) or
    part-of-speech ids do not hold."""
    (n,) = struct.unpack_from("<I", record)
    at = 4 + 56 * n
    if len(record) < at + 5 * n:
        raise ValueError("record shorter than its token count")
    arrays = np.frombuffer(record, "<u8", 7 * n, 4).reshape(n, 7)
    ws = record[at:at + n]
    if ws.strip(b"\x00\x01"):
        raise ValueError("whitespace flags other than 0 and 1")
    heads = np.arange(n, dtype=np.int64) + arrays[:, 6].view(np.int64)
    if n and (int(heads.min()) < 0 or int(heads.max()) >= n):
        raise ValueError("a head outside the sentence")
    if n and int(arrays[:, 3].max()) >= MAX_POS_ID:
        raise ValueError("a part-of-speech id out of range")
    strings = _strings(record, 4 * n, at + n)
    return Sent(arrays, strings[:n], ws, strings[n:2 * n], strings[2 * n:3 * n], strings[3 * n:])


def encode_tokens(tokens: list[str]) -> bytes:
    """A token list's record: n (u32), the lengths in code points of its n tokens (int32), the tokens as one UTF-8
    text (plain data, as encode)."""
    lengths = np.fromiter((len(t) for t in tokens), dtype="<i4", count=len(tokens))
    return b"".join((struct.pack("<I", len(tokens)), lengths.tobytes(),
                     "".join(tokens).encode("utf-8", "surrogatepass")))


def decode_tokens(record: bytes) -> list[str]:
    """The token list of a record (encode_tokens), checked as decode checks: ValueError where it does not hold
    (the compiled decoder, else decode_tokens_checked, which says why)."""
    tokens = _records.decode_tokens(record) if _COMPILED else None
    return decode_tokens_checked(record) if tokens is None else tokens


def decode_tokens_checked(record: bytes) -> list[str]:
    """decode_tokens in Python (the reference the compiled decoder is tested against): ValueError where it does
    not hold."""
    (n,) = struct.unpack_from("<I", record)
    return _strings(record, n, 4)


def digest(key: str) -> bytes:
    return hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class ParseCache:
    """Sents by sentence key, for one pipeline fingerprint: get() and put() whole batches."""

    def __init__(self, fp: dict, cache_dir: str | None = None, max_size: int | None = None):
        self.store = Store(cache_dir or default_dir(), fp, DEFAULT_MAX_SIZE if max_size is None else max_size)
        self.hits = 0

    @classmethod
    def open(cls, name: str, *, tokenise: bool, compiled_ruler: bool, cache_dir: str | None = None,
             max_size: int | None = None) -> "ParseCache | None":
        """The cache of pipeline `name`, or None when its fingerprint cannot be computed."""
        fp = fingerprint(name, tokenise=tokenise, compiled_ruler=compiled_ruler)
        return None if fp is None else cls(fp, cache_dir, max_size)

    def get(self, keys: list[str]) -> dict[str, Sent]:
        """The cached Sents of a batch of keys (those found)."""
        digests = [digest(k) for k in keys]
        found = self.store.get(digests, decode)
        out = {}
        for k, d in zip(keys, digests):
            sent = found.get(d)
            if sent is not None:
                out[k] = sent
        self.hits += len(out)
        return out

    def put(self, sents: dict[str, Sent]) -> None:
        self.store.put({digest(k): encode(s) for k, s in sents.items()})

    def tokens(self) -> "TokenCache":
        """The companion cache of spaCy's tokenizer output (no parse) for the same fingerprint."""
        return TokenCache(self.store)


class TokenCache:
    """Token lists by text, for one pipeline fingerprint: what the tokenizer alone gives (-tok sentence lengths and
    the tokens of sentences that need no parse), so that a run whose texts are all cached never loads spaCy. Its own
    directory: the parse cache's fingerprint with "records": "tokens"."""

    def __init__(self, parses: Store):
        self.store = Store(parses.root, {**parses.fingerprint, "records": "tokens"}, parses.max_size)

    def get(self, texts: list[str]) -> dict[str, list[str]]:
        digests = [digest(t) for t in texts]
        found = self.store.get(digests, decode_tokens)
        return {t: found[d] for t, d in zip(texts, digests) if d in found}

    def put(self, tokens: dict[str, list[str]]) -> None:
        self.store.put({digest(t): encode_tokens(toks) for t, toks in tokens.items()})
