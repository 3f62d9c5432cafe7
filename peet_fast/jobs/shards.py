"""Sharded, resumable jobs (featurize, score): the unit of work is a shard of rows, written atomically as one Parquet
file and recorded in DIR/_manifest.json. A rerun of an interrupted job with the same inputs and settings reuses every
completed shard and produces identical output. Nothing here knows where shards run: run_job receives a Runner from its
caller (jobs.local.LocalRunner in this process, jobs.ray.RayRunner on an actor pool), and both run the same
run_shard()."""
from __future__ import annotations

import hashlib
import json
import os
import sys
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
from peet_fast.jobs.sizing import DEFAULT_SHARD_ROWS, piece_rows, sized, small_job_runner, texts_per_row
from peet_fast.jobs.sources import Shard, Source, id_type, plan, read_shard, typed_ids
from peet_fast.peet.model import from_json
from peet_fast.peet.scoring import score_chunks, sentence_schema, sentence_table


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
    (the signal's own KeyboardInterrupt is the __cause__): how many shards are kept and that a rerun resumes, or,
    where none had finished, that there is nothing to resume."""

    def __init__(self, done: int, total: int):
        self.done = done
        self.total = total
        if done:
            message = f"interrupted: {done} of {total} shards done; run the same command again to resume"
        else:
            message = f"interrupted before any of {total} shards finished; nothing to resume"
        super().__init__(message)


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
        return hashlib.sha256(json.dumps(self.settings(), sort_keys=True, default=str).encode()).hexdigest()

    def settings(self) -> dict:
        """What the signature is the hash of: the settings that determine the output."""
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
        if self.source.kind == "table":
            d["ids"] = "typed"     # the id column keeps the input's type (earlier versions: always strings)
        return d

    def recorded_settings(self) -> dict:
        """settings() as the manifest records them, for naming what differs in a later run: the model by its name
        and a hash of its JSON."""
        d = json.loads(json.dumps(self.settings(), default=str))
        if d.get("model") is not None:
            d["model"] = {"name": d["model"].get("name"),
                          "sha256": hashlib.sha256(json.dumps(d["model"], sort_keys=True).encode()).hexdigest()}
        return d


# the settings of a job as the user knows them, for the message naming what differs from an earlier job's
SETTING_NAMES = {"kind": "command", "source": "inputs", "feature_set": "--features", "tokenise": "-tok",
                 "spacy_model": "--spacy-model", "shard_rows": "--shard-rows", "model": "--model",
                 "system_names": "system names", "n_refs": "references", "extra": "--contributions/--edits",
                 "peet_fast": "peet-fast version", "ids": "id column"}


def _shown(key: str, value) -> str:
    if key == "tokenise":
        return "given" if value else "not given"
    if key == "source" and isinstance(value, dict):
        return " ".join(map(str, value.get("paths") or [])) or "?"
    if key == "model" and isinstance(value, dict):
        return f"{value.get('name')} ({str(value.get('sha256'))[:12]})"
    if key == "extra" and isinstance(value, dict):
        return " ".join(f"--{k}" for k in sorted(value)) or "neither"
    if key == "ids":
        return "the input's type" if value == "typed" else "strings (an earlier peet-fast)"
    if value is None:
        return "the default"
    if isinstance(value, (list, tuple)):
        return " ".join(map(str, value))
    return str(value)


def setting_differences(old: dict, new: dict) -> list[str]:
    """'NAME OLD there, NEW here' for each setting of `new` (JobSpec.recorded_settings) that differs in `old`."""
    out = []
    for key in sorted(set(old) | set(new), key=lambda k: list(SETTING_NAMES).index(k) if k in SETTING_NAMES else 99):
        a, b = old.get(key, False if key == "tokenise" else None), new.get(key, False if key == "tokenise" else None)
        if a != b:
            name = SETTING_NAMES.get(key, key)
            out.append(f"{name}: {_shown(key, a)} there, {_shown(key, b)} here")
    return out


class WorkerState:
    """What a worker loads once and keeps: the annotator (spaCy pipeline) and the model. on_rows, where its runner
    sets it, hears on_rows(shard index, rows of the shard done) while run_shard computes a shard."""

    def __init__(self, spec: JobSpec):
        self.spec = spec
        self.signature = spec.signature()
        self.annotator = Annotator(spacy_model=spec.spacy_model, batch_size=spec.batch_size, tokenise=spec.tokenise,
                                   max_line_tokens=spec.max_line_tokens, **spec.cache)
        self.model = from_json(spec.model, "<job model>") if spec.model is not None else None
        self.on_rows: Callable[[int, int], None] | None = None
        self.id_type = id_type(spec.source) if spec.source.kind == "table" else None


class RowMeter:
    """Rows done of a computation that goes through `total` rows in pieces of `piece` rows: report(rows) after each
    piece (advance(stop)) and, inside a piece, after each parse batch of the annotator's parser (its share of the
    piece's sentences parsed, the bulk of the work); rows reported only ever grow. A context manager: the parser's
    progress hook is installed inside the block only."""

    def __init__(self, annotator, total: int, piece: int, report: Callable[[int], None]):
        self.parser = getattr(annotator, "parser", None)
        self.total = total
        self.piece = max(1, piece)
        self.report = report
        self.lo, self.hi = 0, min(total, self.piece)
        self.shown = 0
        self._saved = None

    def __enter__(self) -> RowMeter:
        if self.parser is not None and hasattr(self.parser, "progress"):
            self._saved = self.parser.progress
            self.parser.progress = self._parsed
        return self

    def __exit__(self, *exc) -> None:
        if self.parser is not None and hasattr(self.parser, "progress"):
            self.parser.progress = self._saved

    def _parsed(self, parsed: int, to_parse: int) -> None:
        if self._saved is not None:
            self._saved(parsed, to_parse)
        self._show(self.lo + (self.hi - self.lo) * parsed // max(1, to_parse))

    def advance(self, stop: int) -> None:
        """The rows up to `stop` are done; the next piece starts there."""
        self._show(stop)
        self.lo, self.hi = stop, min(self.total, stop + self.piece)

    def _show(self, rows: int) -> None:
        if rows > self.shown:
            self.shown = rows
            self.report(rows)


def run_shard(state: WorkerState, shard: Shard, out_dir: str) -> dict:
    """Compute one shard (in pieces, reporting its rows done to state.on_rows where set) and write it atomically;
    returns its manifest entry."""
    import pyarrow.parquet as pq

    spec = state.spec
    rows = read_shard(spec.source, shard)
    on_rows = state.on_rows
    report = (lambda n: on_rows(shard.index, n)) if on_rows is not None else (lambda n: None)
    with _lines_of_shard(spec.source, shard, rows), \
            RowMeter(state.annotator, shard.stop - shard.start, piece_rows(texts_per_row(spec)), report) as meter:
        table = _compute_shard(state, shard, rows, meter)
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


def _compute_shard(state: WorkerState, shard: Shard, rows: dict, meter: RowMeter):
    """The table of one shard's rows, computed a piece (meter.piece rows) at a time."""
    import pyarrow as pa

    spec = state.spec
    if spec.kind == "featurize":
        if spec.source.kind == "text":
            mo, trg = rows["columns"]
        else:
            mo, trg = rows["mo"], rows["trg"]
        pieces = []
        for lo in range(0, len(mo), meter.piece):
            hi = min(len(mo), lo + meter.piece)
            pieces.append(featurize_table(state.annotator, mo[lo:hi], trg[lo:hi], spec.feature_set,
                                          start=shard.start + lo))
            meter.advance(hi)
        table = (pa.concat_tables(pieces) if pieces else
                 featurize_table(state.annotator, mo, trg, spec.feature_set, start=shard.start))
        if spec.source.kind == "table":
            table = table.add_column(1, pa.field("id", state.id_type),
                                     typed_ids(spec.source, shard, rows["id"], state.id_type))
    elif spec.kind == "score":
        cols = rows["columns"]
        n_h = len(cols) - spec.n_refs
        contrib = bool(spec.extra.get("contributions", False))
        edits = bool(spec.extra.get("edits", False))
        tables = []
        for ch in score_chunks(state.annotator, state.model, cols[:n_h], cols[n_h:], chunk=meter.piece,
                               offset=shard.start, edits=edits):
            tables.append(sentence_table(state.model, spec.system_names, ch, contrib))
            meter.advance(ch.stop - shard.start)
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
            raise self.different_job(old)
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

    def different_job(self, old) -> InputError:
        """The refusal of a directory holding another job's output, naming each setting that differs with both
        values where its manifest records them."""
        settings = old.get("settings") if isinstance(old, dict) else None
        diffs = setting_differences(settings, self.spec.recorded_settings()) if isinstance(settings, dict) else []
        what = "; ".join(diffs) if diffs else "other inputs or settings"
        return InputError(self.out_dir, f"holds the output of a different job ({what}); use another directory, or "
                                        f"remove it to start again")

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
            raise self.different_job(self._read_old())
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
             "complete": len(self.done) == self.n_shards, "settings": self.spec.recorded_settings(),
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
        as it finishes (in any order), and, where on_done has a `rows` attribute, on_done.rows(shard index, rows of
        it done) while a shard runs (every second or two: WorkerState.on_rows)."""

    def start(self, spec: JobSpec, out_dir: str, shards: int) -> None:
        """Get ready for a job of this many shards (start workers) without waiting: called by run_job as soon as
        the job's settings are final, before it verifies an earlier run's shards."""

    def close(self) -> None:
        """Release what start or run took, however the job ended (called by run_job)."""


def run_job(spec: JobSpec, out_dir: str, runner: Runner,
            progress: Callable[[int, int], None] | None = None) -> Manifest:
    """Plan the shards (of spec.shard_rows rows, or as jobs.sizing chooses where it is None; a small job for a local
    Ray runner runs in this process instead), skip those an earlier run completed, compute the rest with runner, and
    return the manifest. progress, if given, sees progress(rows done, total rows) once the shards are planned, while
    shards run (rows of finished shards plus those done in running ones) and after each shard; its describe(text)
    method, where it has one, hears the number of shards. A rerun says on stderr how many shards it reused, or that
    the job is already complete (then no runner is started: no Ray for nothing to do). While it runs,
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
        maybe_complete = _recorded_complete(manifest, *previous[:2])
        if not maybe_complete:
            runner.start(spec, out_dir, len(shards))     # Ray's actors warm up while this process verifies
        manifest.verify_previous(*previous)
        remove_temp_files(out_dir)            # left by a run that was killed (we hold the lock)
        manifest.write()
        _say_reused(manifest, out_dir)
        if maybe_complete and len(manifest.done) < manifest.n_shards:
            runner.start(spec, out_dir, manifest.n_shards - len(manifest.done))    # a recorded shard did not verify
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


def _recorded_complete(manifest: Manifest, parts: dict[int, str], recorded: dict[int, dict]) -> bool:
    """Whether the old manifest lists every planned shard of this job with its part file present (cheap: nothing
    read but the listing): then the rerun most likely has nothing to compute, and starts no runner unless the
    verification finds a shard missing."""
    return bool(manifest.shards) and all(
        index in recorded and recorded[index].get("file") == parts.get(index) and manifest._planned(recorded[index])
        for index in manifest.shards)


def _say_reused(manifest: Manifest, out_dir: str) -> None:
    """One line on stderr when a rerun keeps shards of an earlier run: how many it reused, or that it is complete."""
    done, n = len(manifest.done), manifest.n_shards
    if not done:
        return
    what = manifest.spec.kind
    if done == n:
        print(f"peet-fast {what}: {out_dir}: the job is already complete ({n} of {n} shards); nothing to compute",
              file=sys.stderr)
    else:
        print(f"peet-fast {what}: {out_dir}: {done} of {n} shards already done, reused", file=sys.stderr)


def _run_shards(manifest: Manifest, runner: Runner, progress: Callable[[int, int], None] | None) -> None:
    todo = [s for s in manifest.shards.values() if s.index not in manifest.done]
    total = manifest.total
    done_rows = total - sum(s.stop - s.start for s in todo)
    running: dict[int, int] = {}      # rows done so far in each running shard
    shown = done_rows

    def show() -> None:
        nonlocal shown
        shown = max(shown, done_rows + sum(running.values()))     # a retried shard starts again: never back
        if progress is not None:
            progress(shown, total)

    def finished(entry: dict) -> None:
        nonlocal done_rows
        manifest.add(entry)
        running.pop(entry["index"], None)
        done_rows += entry["stop"] - entry["start"]
        show()

    def rows(index: int, n: int) -> None:
        shard = manifest.shards.get(index)
        if shard is None or index in manifest.done:
            return
        running[index] = max(0, min(n, shard.stop - shard.start))
        show()

    finished.rows = rows                      # type: ignore[attr-defined]   (see Runner.run)

    if progress is not None:
        if hasattr(progress, "describe"):
            progress.describe(f"{manifest.n_shards} shard{'' if manifest.n_shards == 1 else 's'}")
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
