"""Sharded, resumable jobs (featurize, score): the unit of work is a shard of rows, written atomically as one Parquet
file and recorded in DIR/_manifest.json. A rerun of an interrupted job with the same inputs and settings reuses every
completed shard and produces identical output. Nothing here knows where shards run: run_job receives a Runner from its
caller (jobs.local.LocalRunner in this process, jobs.ray.RayRunner on an actor pool), and both run the same
run_shard()."""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
from typing import Callable, Protocol, Sequence

from peet_fast import __version__
from peet_fast.en.annotator import Annotator
from peet_fast.en.features import featurize_table
from peet_fast.en.parse import DEFAULT_MAX_LINE_TOKENS
from peet_fast.formats.pairs import pair_format
from peet_fast.io import InputError, atomic_write, json_loads, lines_located
from peet_fast.jobs.layout import (
    FORMAT,
    MANIFEST,
    PART,
    SHARD_KEY,
    JobLock,
    contained_file,
    file_sha256,
    is_job_file,
    notice,
    part_entry,
    part_verifies,
    remove_temp_files,
    shard_file,
)
from peet_fast.jobs.sizing import DEFAULT_SHARD_ROWS, sized, small_job_runner
from peet_fast.jobs.sources import Shard, Source, plan, read_shard
from peet_fast.model import from_json
from peet_fast.scoring import score_chunks, sentence_schema, sentence_table


class JobOptionError(InputError):
    """An invalid job option; `option` names the parameter (workers, ray_address, shard_rows, ...), so that a
    command line can name its own flag instead."""

    def __init__(self, option: str, message: str):
        self.option = option
        self.message = message
        super().__init__(option, message)


class WorkerError(RuntimeError):
    """The machinery that runs shards failed (a Ray worker that cannot start, a lost node or cluster): an environment
    fault, not bad input; str() is one line naming the cause."""


class JobInterrupted(KeyboardInterrupt):
    """A sharded job stopped by SIGINT or SIGTERM after recording its finished shards; str() is the one line to show
    (the signal's own KeyboardInterrupt is the __cause__)."""

    def __init__(self, done: int, total: int):
        self.done = done
        self.total = total
        super().__init__(f"interrupted: {done} of {total} shards done; run the same command again to resume")


def check_at_least_one(**options: int | None) -> None:
    """Refuse any of the given counts (shard_rows=..., batch_size=...) that is below 1 (None: chosen later)."""
    for name, value in options.items():
        if value is not None and value < 1:
            raise JobOptionError(name, "must be at least 1")


@dataclass
class JobSpec:
    """Everything that determines a job's output (and so its resume signature)."""
    kind: str                                  # "featurize" | "score"
    source: Source
    feature_set: str = "small"
    model: dict | None = None                  # score: the model's JSON
    system_names: tuple[str, ...] = ()         # score: one per hypothesis file (the first paths of a text source)
    n_refs: int = 0                            # score: the last n_refs paths are references
    spacy_model: str | None = None
    tokenise: bool = False                     # raw text: spaCy's tokenizer (-tok), not whitespace
    batch_size: int = 256
    shard_rows: int | None = DEFAULT_SHARD_ROWS    # None: chosen by run_job (jobs.sizing)
    max_line_tokens: int = DEFAULT_MAX_LINE_TOKENS   # en.parse's line limits (0: none); applied by every worker
    extra: dict = field(default_factory=dict)
    # the annotator's parse-cache options (cache, cache_dir, cache_max_size): how a worker parses, never what it
    # computes, so not part of the signature; cache_dir unset means each node's own default
    cache: dict = field(default_factory=dict)

    def signature(self) -> str:
        d = asdict(self)
        # the inputs' contents are checked shard by shard (Shard.digest), so fixing a bad line keeps the other shards
        d["source"] = {"kind": self.source.kind, "paths": [os.path.abspath(p) for p in self.source.paths],
                       "columns": self.source.columns}
        d["peet_fast"] = __version__
        d.pop("batch_size")        # parse batching does not change results
        d.pop("cache")             # nor does the parse cache
        if not self.tokenise:
            d.pop("tokenise")      # the signature of a pre-tokenised job is what it was before the option
        d.pop("max_line_tokens")   # nor does a limit: it refuses a line, or the result is the same
        return hashlib.sha256(json.dumps(d, sort_keys=True, default=str).encode()).hexdigest()


class WorkerState:
    """What a worker loads once and keeps: the annotator (spaCy pipeline) and the model."""

    def __init__(self, spec: JobSpec):
        self.spec = spec
        self.signature = spec.signature()
        self.annotator = Annotator(spacy_model=spec.spacy_model, batch_size=spec.batch_size, tokenise=spec.tokenise,
                                   max_line_tokens=spec.max_line_tokens, **spec.cache)
        self.model = from_json(spec.model, "<job model>") if spec.model is not None else None


def run_shard(state: WorkerState, shard: Shard, out_dir: str) -> dict:
    """Compute one shard and write it atomically; returns its manifest entry."""
    import pyarrow.parquet as pq

    spec = state.spec
    rows = read_shard(spec.source, shard)
    with _lines_of_shard(spec.source, shard, rows):
        table = _compute_shard(state, shard, rows)
    path = os.path.join(out_dir, shard_file(shard.index))
    entry = {"index": shard.index, "start": shard.start, "stop": shard.stop, "file": shard_file(shard.index),
             "rows": table.num_rows, "input": shard.digest}
    try:
        with atomic_write(path, "wb") as fh:
            with pq.ParquetWriter(fh, table.schema, compression="zstd", write_page_checksum=True) as writer:
                writer.write_table(table)
                writer.add_key_value_metadata({SHARD_KEY: json.dumps({**entry, "signature": state.signature})})
        entry["sha256"] = file_sha256(path)
    except OSError as exc:        # disk full, permission: name the directory and the shard
        raise OSError(exc.errno, f"{exc.strerror or exc} (shard {shard.index})", out_dir) from exc
    return entry


def _lines_of_shard(source: Source, shard: Shard, rows: dict):
    """lines_located for a shard's rows: file and line (a Parquet table: row) of a sentence too long to parse."""
    suffix = f" (shard {shard.index})"
    if source.kind == "text":
        return lines_located(list(zip(source.paths, rows["columns"])), shard.start + 1, suffix)
    path = source.paths[0]
    kind = pair_format(path)
    first = None if kind == "parquet" else shard.start + (2 if kind == "tsv" else 1)
    return lines_located([(path, rows["mo"]), (path, rows["trg"])], first, suffix)


def _compute_shard(state: WorkerState, shard: Shard, rows: dict):
    """The table of one shard's rows."""
    spec = state.spec
    if spec.kind == "featurize":
        if spec.source.kind == "text":
            mo, trg = rows["columns"]
        else:
            mo, trg = rows["mo"], rows["trg"]
        table = featurize_table(state.annotator, mo, trg, spec.feature_set, start=shard.start)
        if spec.source.kind == "table":
            import pyarrow as pa

            table = table.add_column(1, pa.field("id", pa.string()), pa.array([str(i) for i in rows["id"]]))
    elif spec.kind == "score":
        import pyarrow as pa

        cols = rows["columns"]
        n_h = len(cols) - spec.n_refs
        contrib = bool(spec.extra.get("contributions", False))
        edits = bool(spec.extra.get("edits", False))
        tables = [sentence_table(state.model, spec.system_names, ch, contrib)
                  for ch in score_chunks(state.annotator, state.model, cols[:n_h], cols[n_h:], offset=shard.start,
                                         edits=edits)]
        table = pa.concat_tables(tables) if tables else None
        if table is None:
            table = sentence_schema(state.model, contrib, edits).empty_table()
    else:
        raise ValueError(f"unknown job kind {spec.kind!r}")
    return table


class Manifest:
    """DIR/_manifest.json: the job's signature and its completed shards, rewritten atomically after each shard."""

    def __init__(self, out_dir: str, spec: JobSpec, shards: Sequence[Shard], total: int):
        self.shards = {s.index: s for s in shards}
        self.out_dir = out_dir
        self.path = os.path.join(out_dir, MANIFEST)
        self.signature = spec.signature()
        self.spec = spec
        self.total = total
        self.n_shards = len(shards)
        self.done: dict[int, dict] = {}

    def load_previous(self) -> None:
        """Keep the completed shards of an earlier run of the same job: those its manifest lists whose checksums hold,
        and part files it does not list (or all of them, where the manifest is damaged) that verify. Refuse a
        directory holding anything else, or another job's finished shards; another job's manifest without finished
        shards is replaced."""
        self.verify_previous(*self.check_directory())

    def check_directory(self) -> tuple[dict[int, str], dict[int, dict], object]:
        """The cheap half of load_previous (the directory listing and the old manifest, no part file read): refuse
        a directory holding anything but a job, or another job's finished shards; returns (part files by index,
        the old manifest's entries by index, the old manifest as _read_old gives it)."""
        names = sorted(os.listdir(self.out_dir))
        foreign = [n for n in names if not is_job_file(n)]
        if foreign:
            more = f" and {len(foreign) - 1} more" if len(foreign) > 1 else ""
            raise InputError(self.out_dir, f"is not empty and not a peet-fast job (it holds {foreign[0]!r}{more}); "
                                           f"give an empty or new directory")
        parts = {int(m.group(1)): m.group(0) for m in map(PART.fullmatch, names) if m}
        for name in parts.values():          # a part file that is a link leading out of the directory: refused
            contained_file(self.out_dir, name, self.out_dir)
        old = self._read_old()
        recorded: dict[int, dict] = {}
        if isinstance(old, dict) and old.get("signature") == self.signature:
            recorded = {e.get("index"): e for e in old.get("shards", []) if isinstance(e, dict)}
        elif isinstance(old, dict) and (old.get("shards") or parts):
            raise InputError(self.out_dir, "holds the output of a different job (other inputs or settings); use "
                                           "another directory, or remove it to start again")
        return parts, recorded, old

    def verify_previous(self, parts: dict[int, str], recorded: dict[int, dict], old: object) -> None:
        """The costly half of load_previous: keep the part files that verify (checksums read from disk)."""
        for index, name in parts.items():
            entry = recorded.get(index)
            if entry is not None and self._planned(entry) and entry.get("file") == name and \
                    file_sha256(os.path.join(self.out_dir, name)) == entry.get("sha256"):
                self.done[index] = entry
            else:
                self._adopt(index, name, ours=entry is not None)
        if old in (None, "") and self.done:
            notice(f"{self.path} was damaged or missing; rebuilt it from {len(self.done)} verified shard file(s)")

    def _read_old(self) -> dict | str | None:
        """The previous manifest; "" where there is none, None where it is damaged (truncated, not JSON)."""
        try:
            with open(self.path, encoding="utf-8") as fh:
                old = json_loads(fh.read())
        except FileNotFoundError:
            return ""
        except OSError as exc:
            raise InputError(self.path, f"unreadable manifest: {exc.strerror or exc}") from None
        except ValueError:
            return None
        if not isinstance(old, dict) or "signature" not in old:
            return None
        if old.get("format") != FORMAT:
            raise InputError(self.out_dir, f"{MANIFEST} is not a peet-fast job's; give an empty or new directory")
        return old

    def _planned(self, entry: dict) -> bool:
        sh = self.shards.get(entry.get("index"))
        return sh is not None and (sh.start, sh.stop, sh.digest) == (entry.get("start"), entry.get("stop"),
                                                                     entry.get("input"))

    def _adopt(self, index: int, name: str, ours: bool) -> None:
        """Record a part file the manifest does not vouch for if it verifies; a shard of this job that no longer
        verifies or matches its input is computed again, one no longer planned is removed."""
        path = os.path.join(self.out_dir, name)
        entry = part_entry(path)
        if entry is None or entry.get("index") != index:
            if ours:
                return
            raise InputError(path, "is not a shard file this job can verify (damaged, or not written by this "
                                   "version); delete it and run the same command again")
        if entry.pop("signature", None) != self.signature:
            raise InputError(self.out_dir, "holds the output of a different job (other inputs or settings); use "
                                           "another directory, or remove it to start again")
        if index not in self.shards:
            os.unlink(path)
        elif self._planned(entry) and part_verifies(path, entry.get("rows", -1)):
            self.done[index] = {**entry, "sha256": file_sha256(path)}

    def record_finished(self) -> None:
        """Record the part files on disk that finished but are not yet listed (results in flight when the job
        stopped)."""
        for index, name in self._unrecorded():
            self._adopt(index, name, ours=True)

    def _unrecorded(self) -> list[tuple[int, str]]:
        names = os.listdir(self.out_dir)
        return [(int(m.group(1)), m.group(0)) for m in map(PART.fullmatch, sorted(names))
                if m and int(m.group(1)) not in self.done]

    def add(self, entry: dict) -> None:
        self.done[entry["index"]] = entry
        self.write()

    def write(self) -> None:
        d = {"format": FORMAT, "version": 1, "kind": self.spec.kind, "signature": self.signature,
             "total_rows": self.total, "shard_rows": self.spec.shard_rows, "shards_total": self.n_shards,
             "complete": len(self.done) == self.n_shards,
             "shards": [self.done[k] for k in sorted(self.done)]}
        try:
            with atomic_write(self.path) as fh:
                json.dump(d, fh, indent=1)
                fh.write("\n")
        except OSError as exc:        # disk full, permission: name the manifest
            raise OSError(exc.errno, exc.strerror or str(exc), self.path) from exc


class Runner(Protocol):
    """Where a job's shards run: this process (jobs.local.LocalRunner) or a Ray actor pool (jobs.ray.RayRunner)."""

    distributed: bool     # True: shards run in other processes (their output must go to a directory)

    def run(self, spec: JobSpec, shards: Sequence[Shard], out_dir: str, on_done: Callable[[dict], None]) -> None:
        """Compute these shards of the job (run_shard) into out_dir, calling on_done with each one's manifest entry
        as it finishes (in any order)."""

    def start(self, spec: JobSpec, out_dir: str, shards: int) -> None:
        """Get ready for a job of this many shards (start workers) without waiting: called by run_job as soon as
        the job's settings are final, before it verifies an earlier run's shards."""

    def close(self) -> None:
        """Release what start or run took, however the job ended (called by run_job)."""


def run_job(spec: JobSpec, out_dir: str, runner: Runner,
            progress: Callable[[int, int], None] | None = None) -> Manifest:
    """Plan the shards (of spec.shard_rows rows, or as jobs.sizing chooses where it is None; a small job for a local
    Ray runner runs in this process instead), skip those an earlier run completed, compute the rest with runner, and
    return the manifest. progress, if given, sees progress(rows done, total rows) once the shards are planned and
    after each shard; its describe(text) method, where it has one, hears the number of shards. While it runs,
    DIR/_lock stops a second job on the directory. However the run ends (an error, SIGINT or SIGTERM as
    KeyboardInterrupt), the finished shards are recorded and temporary files removed; an interruption is raised as
    JobInterrupted. A directory this run created is removed again when it ends before any shard finished (nothing
    to resume, no output left behind)."""
    check_at_least_one(shard_rows=spec.shard_rows)
    shards, total = plan(spec.source, spec.shard_rows or DEFAULT_SHARD_ROWS)
    runner = small_job_runner(spec, runner, total)
    spec, shards = sized(spec, shards, total, out_dir, getattr(runner, "workers", 1))
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise InputError(out_dir, "is not a directory")
    created = not os.path.exists(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    lock = JobLock(out_dir)
    lock.acquire()
    manifest = None
    try:
        manifest = Manifest(out_dir, spec, shards, total)
        previous = manifest.check_directory()
        runner.start(spec, out_dir, len(shards))     # Ray's actors warm up while this process verifies
        manifest.verify_previous(*previous)
        remove_temp_files(out_dir)            # left by a run that was killed (we hold the lock)
        manifest.write()
        _run_shards(manifest, runner, progress)
        return manifest
    except BaseException:
        if created and (manifest is None or not manifest.done):
            import shutil

            lock.release()
            shutil.rmtree(out_dir, ignore_errors=True)
        raise
    finally:
        runner.close()
        lock.release()


def _run_shards(manifest: Manifest, runner: Runner, progress: Callable[[int, int], None] | None) -> None:
    todo = [s for s in manifest.shards.values() if s.index not in manifest.done]
    total = manifest.total
    done_rows = total - sum(s.stop - s.start for s in todo)

    def finished(entry: dict) -> None:
        nonlocal done_rows
        manifest.add(entry)
        done_rows += entry["stop"] - entry["start"]
        if progress is not None:
            progress(done_rows, total)

    if progress is not None:
        if hasattr(progress, "describe"):
            progress.describe(f"{manifest.n_shards} shards")
        progress(done_rows, total)

    if not todo:
        return
    try:
        runner.run(manifest.spec, todo, manifest.out_dir, finished)
    except BaseException as exc:
        try:
            manifest.record_finished()
            manifest.write()
        except (OSError, InputError):
            pass                              # (a full disk): the rerun recovers them from the part files
        finally:
            remove_temp_files(manifest.out_dir)
        if isinstance(exc, KeyboardInterrupt) and not isinstance(exc, JobInterrupted):
            raise JobInterrupted(len(manifest.done), manifest.n_shards) from exc
        raise
