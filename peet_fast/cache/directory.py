"""The parse cache's directory: its layout (ROOT/<fingerprint id>/ holding fingerprint.json and *.seg segments), what
in a root the cache can prove is its own (own_dirs, own_files: names it made, never a user's folder that happens to
hold a fingerprint.json), eviction of the least recently used segments, and the checks of a root given by a user."""
from __future__ import annotations

import json
import os
import re
import sys
import time

DEFAULT_MAX_SIZE = 2 * 1024 ** 3
FINGERPRINT_FILE = "fingerprint.json"
STALE_TMP_SECONDS = 3600        # a temporary file this old belongs to a writer that died
# the Cache Directory Tagging Specification's tag (backup tools skip the directory), written in the root: a root
# that holds it is ours even when it holds no entries (after `cache clear`)
CACHEDIR_TAG = "CACHEDIR.TAG"
_TAG = (b"Signature: 8a477f597d28d172789f06886806bc55\n"
        b"# This file is a cache directory tag created by peet-fast (its parse cache).\n")
_FINGERPRINT_DIR = re.compile(r"[0-9a-f]{24}")
_OTHER_FILES = re.compile(r"pinyin-cjk-.*\.txt(\..*\.tmp)?")     # zh.resources' table, kept in the same root
# ASCII digits: \d would take any script's
_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([kmgt]?)(?:i?b)?\s*$", re.IGNORECASE)


def default_dir() -> str:
    """$PEET_FAST_CACHE, else the user cache dir: $XDG_CACHE_HOME/peet-fast or ~/.cache/peet-fast (io.cache_root)."""
    from peet_fast.io import cache_root

    return cache_root()


def parse_size(text: str) -> int:
    """A size in bytes from '2G', '500M', '1.5GB', '4096' (K/M/G/T: powers of 1024); ValueError otherwise."""
    m = _SIZE.match(text)
    if m is None:
        raise ValueError(f"not a size: {text!r} (e.g. 2G, 500M, 1048576)")
    return int(float(m.group(1)) * 1024 ** " kmgt".index(m.group(2).lower() or " "))


def warn(message: str) -> None:
    print(f"peet-fast: warning: parse cache: {message}", file=sys.stderr)
_SEGMENT_NAME = re.compile(r"\d{20}-\d+-[0-9a-f]{8}\.seg")                     # store.segment_name()
_TEMP_NAME = re.compile(r"(\d{20}-\d+-[0-9a-f]{8}\.seg|fingerprint\.json|CACHEDIR\.TAG)\.\d+\.[0-9a-f]{8}\.tmp")


def fingerprint_id(fingerprint: dict) -> str:
    """The directory name of a fingerprint: a hash of its canonical JSON."""
    import hashlib

    return hashlib.sha256(json.dumps(fingerprint, sort_keys=True).encode()).hexdigest()[:24]


def own_dirs(root: str) -> list[os.DirEntry]:
    """The fingerprint directories of root that the cache made: a real directory (not a link) named as
    fingerprint_id names them (24 hex digits), holding a fingerprint file. A user's folder of another name is
    never one, whatever it holds."""
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [e for e in entries if _FINGERPRINT_DIR.fullmatch(e.name) and e.is_dir(follow_symlinks=False)
            and os.path.isfile(os.path.join(e.path, FINGERPRINT_FILE))]


def own_files(directory: str) -> list[os.DirEntry]:
    """The files of one of own_dirs that the cache wrote: its segments, its fingerprint file and its temporary
    files, by the names it gives them (regular files only)."""
    return [e for e in os.scandir(directory) if e.is_file(follow_symlinks=False)
            and (_SEGMENT_NAME.fullmatch(e.name) or _TEMP_NAME.fullmatch(e.name) or e.name == FINGERPRINT_FILE)]


def _files(root: str) -> list[tuple[float, int, str]]:
    """(mtime, size, path) of every segment of the cache's own directories under root (removing stale temporary
    files on the way)."""
    out = []
    now = time.time()
    for sub in own_dirs(root):
        for e in own_files(sub.path):
            try:
                st = e.stat()
            except FileNotFoundError:
                continue
            if e.name.endswith(".seg"):
                out.append((st.st_mtime, st.st_size, e.path))
            elif e.name.endswith(".tmp") and now - st.st_mtime > STALE_TMP_SECONDS:
                _unlink(e.path)
    return out


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def evict(root: str, max_size: int) -> None:
    """Remove the least recently used segments until the cache's segments take at most max_size bytes."""
    files = sorted(_files(root))
    total = sum(size for _, size, _ in files)
    for _, size, path in files:
        if total <= max_size:
            break
        _unlink(path)
        total -= size


def read_fingerprint(path: str) -> dict | None:
    """A fingerprint file's object, or None where it is missing, unreadable or not a small flat JSON object."""
    from peet_fast.io import json_loads

    try:
        with open(path, "rb") as fh:
            raw = fh.read(1 << 16)
        fp = json_loads(raw, max_depth=1)
    except (OSError, ValueError):
        return None
    return fp if isinstance(fp, dict) else None


def check_root(root: str) -> None:
    """Refuse (InputError) a cache root that is not a directory of ours: a file (or a link to one), or a directory
    holding entries but no fingerprint directory, no CACHEDIR.TAG of ours, nor the Chinese pinyin table. A root
    that does not exist, or is empty, is an empty cache; other entries beside the cache's own are left alone."""
    from peet_fast.io import InputError

    if not os.path.lexists(root):
        return
    if not os.path.isdir(root):
        raise InputError(root, "is not a directory (not a peet-fast cache)")
    try:
        names = sorted(os.listdir(root))
    except OSError as exc:
        raise InputError(root, f"cannot read: {exc.strerror or exc}") from None
    ours = [n for n in names if (_FINGERPRINT_DIR.fullmatch(n) and os.path.isdir(os.path.join(root, n))
                                 and not os.path.islink(os.path.join(root, n))) or _OTHER_FILES.fullmatch(n)
            or (n == CACHEDIR_TAG and _is_tag(os.path.join(root, n)))]
    if names and not ours:
        more = f" and {len(names) - 1} more" if len(names) > 1 else ""
        raise InputError(root, f"is not a peet-fast cache directory (it holds {names[0]!r}{more} and no cache "
                               "entries); give the cache's own directory")


def _is_tag(path: str) -> bool:
    try:
        with open(path, "rb") as fh:
            return fh.read(len(_TAG)) == _TAG
    except OSError:
        return False
