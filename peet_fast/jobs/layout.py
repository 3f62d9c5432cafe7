"""A job directory on disk: one Parquet file per shard (part-NNNNN.parquet) and DIR/_manifest.json listing the
completed ones; read back as one dataset, shard by shard in row order."""
from __future__ import annotations

import hashlib
import json
import os

from peet_fast.io import InputError

MANIFEST = "_manifest.json"   # "_" prefix: pyarrow.parquet.read_table(DIR) skips it
FORMAT = "peet-fast-job"


def shard_file(index: int) -> str:
    return f"part-{index:05d}.parquet"


def file_sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def shard_paths(out_dir: str) -> list[str]:
    """The shard files of a completed job directory, in row order."""
    path = os.path.join(out_dir, MANIFEST)
    try:
        with open(path, encoding="utf-8") as fh:
            m = json.load(fh)
    except (OSError, ValueError) as exc:
        raise InputError(path, f"cannot read the job manifest: {exc}") from None
    if not m.get("complete"):
        raise InputError(out_dir, "the job is not complete (rerun it to finish the missing shards)")
    return [os.path.join(out_dir, e["file"]) for e in sorted(m["shards"], key=lambda e: e["index"])]


def iter_dataset_batches(path: str, columns=None, batch_rows: int = 1 << 20):
    """(schema, iterator of record batches) of a completed job directory (part-*.parquet listed in its manifest),
    read shard by shard in row order."""
    import pyarrow.parquet as pq

    files = shard_paths(path)
    if not files:
        raise InputError(path, "the dataset has no rows")
    schema = pq.ParquetFile(files[0]).schema_arrow

    def gen():
        for f in files:
            yield from pq.ParquetFile(f).iter_batches(batch_size=batch_rows, columns=columns)
    return schema, gen()
