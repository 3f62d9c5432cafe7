"""What `peet-fast cache` does to a cache directory: info (per fingerprint directory: its fingerprint, segments,
entries, bytes) and clear (removes only what the cache can prove it wrote: directory.own_dirs, own_files)."""
from __future__ import annotations

import os

from peet_fast.cache.directory import FINGERPRINT_FILE, _unlink, check_root, own_dirs, own_files, read_fingerprint, warn
from peet_fast.cache.store import Damaged, Segment


def info(root: str) -> list[dict]:
    """Per fingerprint directory: its id, fingerprint, segments, entries and bytes. A damaged fingerprint file is
    one warning and shown as {} (the next run that uses the directory writes it again). Refuses a root that is not
    a cache directory (check_root)."""
    out = []
    check_root(root)
    if not os.path.isdir(root):
        return out
    for sub in own_dirs(root):
        fp_path = os.path.join(sub.path, FINGERPRINT_FILE)
        fingerprint = read_fingerprint(fp_path)
        if fingerprint is None:
            warn(f"{fp_path}: damaged; the next run that uses this directory writes it again")
            fingerprint = {}
        entries = segments = size = 0
        for e in own_files(sub.path):
            if e.name.endswith(".seg"):
                try:
                    seg = Segment.open(e.path)
                except (FileNotFoundError, Damaged):
                    continue
                segments += 1
                entries += len(seg.index)
                size += len(seg.data)
        out.append({"id": sub.name, "fingerprint": fingerprint, "segments": segments, "entries": entries,
                    "bytes": size})
    return out


def clear(root: str) -> int:
    """Remove every fingerprint directory of the cache, and in it only the files the cache wrote (own_dirs,
    own_files: a folder or file of another name is left as it is); returns bytes freed. Refuses a root that is not
    a cache directory (check_root)."""
    freed = 0
    check_root(root)
    if not os.path.isdir(root):
        return freed
    for sub in own_dirs(root):
        for e in own_files(sub.path):
            freed += e.stat().st_size if e.name.endswith(".seg") else 0
            _unlink(e.path)
        try:
            os.rmdir(sub.path)
        except OSError:
            pass
    return freed
