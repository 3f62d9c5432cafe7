"""The library's long jobs, one function each: featurize() and score(). Each picks its execution itself: in this
process straight to a file or to the terminal, or as a resumable sharded job (run_job) into a directory, on the
runner its caller chose (jobs.runner_for)."""
from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from typing import Callable, Iterator, Mapping, Sequence

import numpy as np

from peet_fast.en.annotator import Annotator
from peet_fast.en.features import feature_table_schema, featurize_table
from peet_fast.en.parse import DEFAULT_MAX_LINE_TOKENS
from peet_fast.formats.pairs import TableWriter, sentence_format, table_format
from peet_fast.formats.sentences import SentenceWriter
from peet_fast.io import InputError, check_not_input, check_output, check_parent, lines_located, read_parallel
from peet_fast.jobs.layout import iter_dataset_batches, shard_paths
from peet_fast.jobs.errors import Wording, with_wording
from peet_fast.jobs.local import LocalRunner
from peet_fast.jobs.shards import (
    JobInterrupted,
    JobOptionError,
    JobSpec,
    RowMeter,
    Runner,
    check_at_least_one,
    run_job,
)
from peet_fast.jobs.sizing import piece_rows
from peet_fast.jobs.sources import Source, text_source
from peet_fast.peet.model import Model, check_source_mode
from peet_fast.formats.systems import system_names
from peet_fast.peet.scoring import (
    SystemScore,
    score_systems,
    sentence_schema,
    sentence_table,
    system_score,
)

# progress(rows done, total rows or None where not known in advance); a sharded job also calls its describe(text),
# where it has one, with the number of shards
ProgressFn = Callable[[int, "int | None"], None]
_FEATURIZE_CHUNK = 4096       # rows written at once to a features file (its row groups / record batches)


@dataclass
class Featurized:
    rows: int
    shards: int | None        # None: written in this process to one file


@dataclass(frozen=True)
class JobOptions:
    """How featurize() and score() parse and where their work runs, besides what they compute: the annotator's
    options (spaCy pipeline, parse batch, tokenise: raw text through spaCy's tokenizer, max_line_tokens: en.parse's
    line limits, cache: the parse-cache options, peet_fast.en.Annotator's cache, cache_dir, cache_max_size), and the
    job's: shard_rows (None: chosen by jobs.sizing), runner (None: this process), progress (rows done, total)."""
    spacy_model: str | None = None
    batch_size: int = 256
    tokenise: bool = False
    max_line_tokens: int = DEFAULT_MAX_LINE_TOKENS
    cache: Mapping = field(default_factory=dict)
    shard_rows: int | None = None
    runner: Runner | None = None
    progress: ProgressFn | None = None

    def checked(self) -> Runner:
        """Refuse a batch_size or shard_rows below 1 (JobOptionError naming it); the runner (default: this
        process)."""
        check_at_least_one(batch_size=self.batch_size, shard_rows=self.shard_rows)
        return self.runner or LocalRunner()

    def annotator_options(self) -> dict:
        """peet_fast.en.Annotator's keyword arguments."""
        return {"spacy_model": self.spacy_model, "batch_size": self.batch_size, "tokenise": self.tokenise,
                "max_line_tokens": self.max_line_tokens, **self.cache}

    def spec_options(self) -> dict:
        """JobSpec's fields that these options set."""
        return {"spacy_model": self.spacy_model, "batch_size": self.batch_size, "shard_rows": self.shard_rows,
                "tokenise": self.tokenise, "max_line_tokens": self.max_line_tokens, "cache": dict(self.cache)}


def featurize(source: Source, out: str, feature_set: str = "small", options: JobOptions | None = None) -> Featurized:
    """Features of each (MO, TRG) pair of source (raw text tokenised by spaCy with options.tokenise). `out` with a
    suffix is one .parquet/.arrow file, written in this process from a text source, or from the shards of a scratch
    job (scratch_job_dir) for a table of pairs or a distributed runner; otherwise `out` is a directory, a resumable
    sharded job (part-*.parquet + _manifest.json) run on options.runner (default: this process), in shards of
    options.shard_rows rows (None: chosen by jobs.sizing). A sentence over options.max_line_tokens (en.parse) is
    refused naming its file and line."""
    opts = options if options is not None else JobOptions()
    runner = opts.checked()
    check_not_input(out, source.paths)
    spec = JobSpec("featurize", source, feature_set=feature_set, **opts.spec_options())
    if os.path.splitext(out)[1] != "":
        table_format(out)
        check_output(out)
        if source.kind != "text" or runner.distributed:
            # a table of pairs is read shard by shard, and workers write shards: a scratch job, then one file
            with scratch_job_dir(out, runner) as job:
                manifest = run_job(spec, job, runner, opts.progress)
                schema, batches = iter_dataset_batches(job)
                with TableWriter(out, schema) as writer:
                    for batch in batches:
                        writer.write(batch)
            return Featurized(manifest.total, None)
        annotator = functools.partial(Annotator, **opts.annotator_options())
        return Featurized(_featurize_file(source, out, feature_set, annotator, opts.progress), None)
    check_job_dir(out)
    manifest = run_job(spec, out, runner, opts.progress)
    return Featurized(manifest.total, len(manifest.done))


SCRATCH_PREFIX = ".peet-fast-job-"
SCRATCH_OWNER = "_owner.json"       # host, pid and process start time of the run that made the scratch directory


def write_owner(scratch: str) -> None:
    """Record this process as the owner of a scratch directory (read by remove_stale_scratch)."""
    import json
    import socket

    from peet_fast.jobs.layout import _proc_start

    owner = {"host": socket.gethostname(), "pid": os.getpid(), "proc_start": _proc_start(os.getpid())}
    with open(os.path.join(scratch, SCRATCH_OWNER), "w", encoding="utf-8") as fh:
        json.dump(owner, fh)


def remove_stale_scratch(parent: str) -> list[str]:
    """Remove the scratch directories in `parent` whose owner, a process of this host, is gone (a run killed with
    SIGKILL, or a machine that lost power, cannot remove its own); returns them. A directory without a readable
    owner file (being created right now, or not ours) is left alone."""
    import socket

    from peet_fast.io import json_loads
    from peet_fast.jobs.layout import _alive

    removed = []
    try:
        entries = [e for e in os.scandir(parent) if e.name.startswith(SCRATCH_PREFIX)]
    except OSError:
        return removed
    host = socket.gethostname()
    for e in entries:
        try:
            if not e.is_dir(follow_symlinks=False):
                continue
            with open(os.path.join(e.path, SCRATCH_OWNER), "rb") as fh:
                owner = json_loads(fh.read(4096))
            pid, start = int(owner["pid"]), owner.get("proc_start")
            if owner["host"] != host or pid == os.getpid() or _alive(pid, start):
                continue
        except (OSError, ValueError, KeyError, TypeError):
            continue
        shutil.rmtree(e.path, ignore_errors=True)
        removed.append(e.path)
    return removed


@contextlib.contextmanager
def scratch_job_dir(out: str | None, runner: Runner) -> Iterator[str]:
    """A job directory for a sharded run whose output is one file (`out`) or none (None): a new temporary directory
    beside `out` (the file system the output goes to, which a cluster's workers must share), else in the system's
    temporary directory (refused for a cluster: its other nodes could not write there). Removed however the run
    ends; an interrupted run says that nothing was written (there is nothing to resume)."""
    if out is None and getattr(runner, "address", None) is not None:
        raise JobOptionError("out_dir", "a job on a Ray cluster needs an output directory its nodes share")
    parent = None
    if out is not None:
        from peet_fast.io import output_target

        target, in_place = output_target(out)
        # a device or a process's open file (/dev/null, /dev/stdout): the system's temporary directory, not /dev
        parent = None if in_place else os.path.dirname(os.path.abspath(target))
    remove_stale_scratch(parent or tempfile.gettempdir())
    scratch = tempfile.mkdtemp(prefix=SCRATCH_PREFIX, dir=parent)
    write_owner(scratch)
    try:
        yield os.path.join(scratch, "job")
    except JobInterrupted as exc:
        raise KeyboardInterrupt from exc.__cause__       # no shards kept: "interrupted; no output written"
    except OSError as exc:    # a full disk while writing shards: name the user's output, not our scratch directory
        if exc.filename is None or not os.path.abspath(str(exc.filename)).startswith(scratch):
            raise
        what = (exc.strerror or str(exc)).split(" (shard ")[0]
        if out is None:
            where = Wording("{what} (the temporary directory of a {workers} run)", what=what)
            raise with_wording(OSError(exc.errno, str(where), os.path.dirname(scratch)), where) from exc
        raise OSError(exc.errno, f"{what} (writing its shards in a temporary directory beside it)", out) from exc
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _featurize_file(source: Source, out: str, feature_set: str, load_annotator: Callable[[], Annotator],
                    progress: ProgressFn | None) -> int:
    import pyarrow as pa

    mo, trg = read_parallel(source.paths)
    annotator = load_annotator()
    n = len(mo)
    report = (lambda rows: progress(rows, n)) if progress is not None else (lambda rows: None)
    piece = piece_rows(2)
    with TableWriter(out, feature_table_schema(feature_set)) as w, lines_located(list(zip(source.paths, (mo, trg)))), \
            RowMeter(annotator, n, piece, report) as meter:
        for lo in range(0, n, _FEATURIZE_CHUNK):          # computed a piece at a time (progress), written per chunk
            hi = min(n, lo + _FEATURIZE_CHUNK)
            pieces = []
            for a in range(lo, hi, piece):
                b = min(hi, a + piece)
                pieces.append(featurize_table(annotator, mo[a:b], trg[a:b], feature_set, start=a))
                meter.advance(b)
            w.write(pa.concat_tables(pieces))
    return n


def score(hyp_files: Sequence[str], ref_files: Sequence[str], model: Model, out_dir: str | None = None, *,
          contributions: bool = False, edits: bool = False, names: Sequence[str] | None = None,
          options: JobOptions | None = None) -> list[SystemScore]:
    """PEET of each system (hypothesis file) against the references, in input order. The per-sentence rows (system,
    sentence, reference, features, seconds, with contributions each feature's share, with edits the pair's M2 ``A``
    lines) go to out_dir: a directory (an existing one, or a name without a suffix) runs a resumable sharded job,
    DIR/part-*.parquet, on options.runner (default: this process; options.shard_rows None: jobs.sizing's size); a
    .tsv/.csv/.jsonl/.parquet/.arrow file is written in this process (formats.sentences), or from the shards of a
    scratch job (scratch_job_dir) where the runner is distributed. Without out_dir, computed in this process, or by a
    scratch job on a distributed runner. Systems are named `names` (one per file) or after their files; options: the
    annotator's and the job's (JobOptions; tokenise: the texts are raw, spaCy's tokenizer as `m2 -tok`)."""
    opts = options if options is not None else JobOptions()
    names = system_names(hyp_files, names)
    check_not_input(out_dir, [*hyp_files, *ref_files])
    to_file = out_dir is not None and is_sentence_file(out_dir)
    if to_file:
        check_output(out_dir)
    elif out_dir is not None:
        check_job_dir(out_dir)
    runner = opts.checked()
    for option, given in (("contributions", contributions), ("edits", edits)):
        if given and out_dir is None:
            raise JobOptionError(option, "needs a per-sentence output (a file or a directory)")
    check_source_mode(model, "mo-trg", "score (MO -> TRG pairs)")
    if (out_dir is None or to_file) and not runner.distributed:
        texts = read_parallel([*hyp_files, *ref_files])
        hyps, refs = texts[:len(hyp_files)], texts[len(hyp_files):]
        annotator = Annotator(**opts.annotator_options())
        with lines_located(list(zip([*hyp_files, *ref_files], texts))):
            return score_in_process(annotator, model, names, hyps, refs,
                                    SentenceOutput(out_dir, contributions=contributions, edits=edits),
                                    hyp_files=hyp_files, progress=opts.progress)
    extra = {k: True for k, v in (("contributions", contributions), ("edits", edits)) if v}
    spec = JobSpec("score", text_source([*hyp_files, *ref_files]), feature_set=model.feature_set,
                   model=model.to_json(), system_names=tuple(names), n_refs=len(ref_files), extra=extra,
                   **opts.spec_options())
    if out_dir is None or to_file:       # workers write shards: a scratch job, then its summary and the one file
        import pyarrow as pa

        with scratch_job_dir(out_dir, runner) as job:
            manifest = run_job(spec, job, runner, opts.progress)
            if to_file:
                schema, batches = iter_dataset_batches(job)
                with SentenceWriter(out_dir, schema) as writer:
                    for batch in batches:
                        writer.write(pa.Table.from_batches([batch]))
            return score_summary(job, names, hyp_files, manifest.total)
    manifest = run_job(spec, out_dir, runner, opts.progress)
    return score_summary(out_dir, names, hyp_files, manifest.total)


def is_sentence_file(out: str) -> bool:
    """Whether a per-sentence output path names one file (it has a suffix and is not an existing directory) rather
    than a sharded job's directory; a file's suffix must be a known format (InputError otherwise)."""
    if os.path.isdir(out) or os.path.splitext(out.rstrip("/" + os.sep))[1] == "":
        return False
    sentence_format(out)
    return True


@dataclass(frozen=True)
class SentenceOutput:
    """Where score_in_process's per-sentence rows go, and their optional columns: `out`, a file (SentenceWriter;
    None: none), and/or on_table, given each chunk's table; contributions adds each feature's share of the seconds
    (contrib:<feature>), edits the pair's M2 ``A`` lines."""
    out: str | None = None
    contributions: bool = False
    edits: bool = False
    on_table: Callable | None = None


def score_in_process(annotator, model: Model, names: Sequence[str], hyps: Sequence[Sequence[str]],
                     refs: Sequence[Sequence[str]], output: SentenceOutput | None = None, *,
                     hyp_files: Sequence[str] | None = None, progress: ProgressFn | None = None) -> list[SystemScore]:
    """Score texts in this process: PEET of each system (named `names`; `file` is its hyp_files entry, else its
    name), with the per-sentence tables of each chunk written as `output` says (none by default)."""
    output = output if output is not None else SentenceOutput()
    n = len(refs[0]) if refs else 0
    files = list(hyp_files) if hyp_files is not None else list(names)
    sinks = [] if output.on_table is None else [output.on_table]
    # chunks of about PIECE_SENTENCES sentences, and the parser's batches inside them: progress every second or two
    chunk = piece_rows(len(hyps) + len(refs))
    meter = RowMeter(annotator, n, chunk, (lambda rows: progress(rows, n)) if progress is not None else lambda r: None)

    def on_chunk(ch) -> None:
        if sinks:
            table = sentence_table(model, names, ch, output.contributions)
            for sink in sinks:
                sink(table)
        meter.advance(ch.stop)

    def run() -> list[SystemScore]:
        with meter:
            scores = score_systems(annotator, model, files, hyps, refs, chunk, on_chunk=on_chunk, edits=output.edits)
            return [dataclasses.replace(s, name=name) for s, name in zip(scores, names)]

    if output.out is None:
        return run()
    with SentenceWriter(output.out, sentence_schema(model, output.contributions, output.edits)) as writer:
        sinks.append(writer.write)
        return run()


def check_job_dir(out_dir: str) -> None:
    """Refuse, before any work, a job directory that is a file or whose parent does not exist."""
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise InputError(out_dir, "is not a directory")
    check_parent(out_dir)


def score_summary(out_dir: str, system_names: Sequence[str], hyp_files: Sequence[str],
                  total: int) -> list[SystemScore]:
    """System scores from a completed score job's per-sentence shards (correctly rounded means)."""
    import pyarrow.parquet as pq

    parts: dict[str, list] = {name: [] for name in system_names}
    words: dict[str, list] = {name: [] for name in system_names}
    for p in shard_paths(out_dir):
        t = pq.read_table(p, columns=["system", "seconds", "NumWordsS"])
        systems = np.asarray(t.column("system").to_pylist(), dtype=object)
        secs = t.column("seconds").to_numpy()
        n_words = t.column("NumWordsS").to_numpy()
        for name in system_names:
            parts[name].append(secs[systems == name])
            words[name].append(n_words[systems == name])
    return [system_score(name, f, parts[name], words[name], total) for name, f in zip(system_names, hyp_files)]
