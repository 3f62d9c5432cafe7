"""The persistent parse cache, on the ground floor: its directory (layout, what is its own, eviction), its store of
checksummed append-only segment files, and info/clear. Imports only peet_fast.io; en.cache and zh use it.

Every name is re-exported here (``from peet_fast.cache import Store, default_dir, clear``)."""
from __future__ import annotations

from peet_fast.cache.directory import (
    CACHEDIR_TAG,
    DEFAULT_MAX_SIZE,
    FINGERPRINT_FILE,
    STALE_TMP_SECONDS,
    check_root,
    default_dir,
    evict,
    fingerprint_id,
    own_dirs,
    own_files,
    parse_size,
    read_fingerprint,
    warn,
)
from peet_fast.cache.store import HEADER, INDEX_DTYPE, MAGIC, MAX_SEGMENTS, Damaged, Segment, Store, encode_segment, segment_name, write_atomic
from peet_fast.cache.admin import clear, info
