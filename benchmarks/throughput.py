"""End-to-end throughput: peet-fast against the published tools (errant_parallel + the PEET formula), in one run.

    python benchmarks/throughput.py [--pairs N] [--workers K] [--scale-pairs M] [--multisystem-lines L]
                                    [--skip-multisystem] [--skip-scaling] [--seed S] [--json OUT]
                                    [--baseline FILE [--margin F]] [--write-baseline FILE --from RUN.json ...]

Two uses. The documented run (no --baseline; a quiet machine, docs/benchmarks.md) prints wall-clock figures against
their goals (GOALS). The CI run (.ci/run) is a regression check instead:

    python benchmarks/throughput.py --pairs 300 --multisystem-lines 60 --skip-scaling
        --baseline benchmarks/ci_baseline.json --json benchmarks/results/ci.json         (one command line)

It judges only figures that neither a loaded machine nor the kind of CPU moves (JUDGED): peet-fast's CPU against the
parse floor's (a ratio of CPU times measured in this one run), within --margin of the stored baseline
(benchmarks/ci_baseline.json, the median of runs of that command, written with --write-baseline --from; default
MARGIN, 12%: peet-fast 20% slower moves it by +20%, and fails; four runs at load 7-11 stayed within 8% of their
median, and pass), and the parse plan (PLAN_FIGURES: the sentences sent to spaCy and the batch they go in, counts
judged exactly: any worse fails). The ratios against errant and against the reference tools' multi-system score are
shown, not judged: they depend on the CPU (spaCy's one-sentence parses against its batched ones),
writes every figure to the JSON artifact, and exits 1 on a regression (or on edits or outputs that differ); the
wall-clock figures are printed as information, with no goal. It skips the worker scaling (a 2,000-pair job is mostly
Ray's start; tests/jobs checks that a Ray job's output equals the in-process one). It takes 71-103 s on this 2-core
machine at load 7-12 (the pipeline loads and the untimed warm-up included).
PEET_FAST_BENCH_SLOWDOWN=F makes the peet-fast side F slower (it spins for F times the CPU it took), to show what
a slower kernel does to the check; for that demonstration only.

What it measures. Pipeline loading is never timed: every measured side gets its own new instance of the same spaCy
pipeline (peet_fast.en.parse.load_pipeline()'s package, NER disabled), loaded untimed just before it runs, so no side
inherits another's per-instance caches (spaCy's lemmatizer cache and lexemes: ~15% of the parse time on a first pass
over PEET sentences); and the process is warmed up first, untimed, on a throwaway instance (the first large nlp.pipe
batches of a process run ~25% slower whatever the instance). Each side thus runs as in a fresh, warmed-up process.

1. Corpus: the shared PEET pairs, peet/CONLL14 then peet/BEA19, gector_OP.txt (orig) -> gector_EC.txt (cor),
   concatenated (5,789 pairs), when ../shared/corpora is present beside the checkout; else synthetic pairs
   (peet_fast.en.synth.synthesize over the cor side of tests/fixtures/en_pairs.tsv, seeded). --pairs N keeps the first N.
2. errant, the errant_parallel way: per pair, parse(orig) alone, the noop check `orig.text.strip() == cor`, else
   parse(cor) alone + annotate (errant.load("en", nlp=<the same pipeline>)), timed end to end. (errant_parallel
   skips a line whose orig is empty; here such a pair is still annotated so that every pair can be compared.)
3. peet-fast with one worker: a fresh Annotator(nlp).annotate_batch(origs, cors), timed end to end; its edits must be
   identical to errant's (tuples (o_start, o_end, c_start, c_end, o_str, c_str, type); errant's noop = no edits).
   Breakdown: a second, instrumented peet-fast run (fresh instance; not a headline figure) records exactly what
   peet-fast sends to spaCy (nlp.pipe wrapped: each Doc's words, their order, the batch size) and splits its time
   into spaCy, Doc -> token arrays, the compiled annotate, Edit objects and the rest. parse_floor_s = nlp.pipe over
   that recorded input -- exactly the distinct sentences peet-fast had to parse, batched and ordered as it does --
   run through the whole pipeline as spaCy ships it (all components, spaCy's own attribute_ruler) on another fresh
   instance; total / parse_floor (goal <= 1.15). peet-fast itself runs the pipeline with the attribute_ruler compiled
   (peet_fast.en.ruler.CompiledAttributeRuler: the same token attributes, a third of the parse time saved), so its total
   can be below that floor; in the breakdown, the compiled ruler and the lemmatizer (run after nlp.pipe) fall in
   other_s. The same parse repeated on the now-warm instance is reported too, for information.
4. Worker scaling: M synthetic pairs (default 60,000; from the distinct sentences of the shared peet/*/*_EC.txt, else
   the fixture) written as mo.txt / trg.txt, then the sharded featurize job (peet_fast.jobs.run_job, JobSpec
   "featurize", text_source([mo, trg]), shard_rows = ceil(M / (8 K)), the same for both runs) with 1 worker (in this
   process, no Ray) and with K workers (local Ray). The K-worker time includes Ray's startup (ray.init, timed and
   reported separately) and each actor's spaCy load; the outputs (shards concatenated in order) must be equal tables.
   Both runs are cold: the parse cache is off in both (cache=False), so neither reads what the other parsed, and
   the speed-up cannot exceed the core count.
   Those fixed costs (Ray ~3-4 s, an actor's pipeline load and cold caches ~2-3 s) do not shrink with the corpus,
   so the speed-up grows with M; measured on 2 cores: 1.32x at 20,000 pairs (1.56x without Ray's startup; two
   independent `peet-fast featurize` processes on 10,000 pairs each reach 1.64x over one process on 20,000), 1.77x
   at 60,000. The default is 60,000 so that the figure describes throughput rather than startup.
5. Multi-system ranking: GMEG FCE (gmeg/dev/fce + gmeg/test/fce, 1,936 lines): 7 outputs (amu, lstm, lstm-r, marian,
   nus, transformer, source) x 4 references (ref0..ref3). The published scorer's way: for each of the 28 (output,
   reference) file pairs, errant_parallel in process (as in 2, orig parsed again in every file pair), the small
   features from those edits and the published formula (written out below), the minimum over references per sentence
   and the mean per system (features straight from errant's Edit objects in memory: errant_parallel's M2 writing
   and the scorer's reading it back are not counted) -- against ONE in-process
   `peet-fast score --hyp (7 files) --ref (4 files) --summary --no-cache` (peet_fast.cli.main; cold, as the
   published tools are; benchmarks/cache.py measures the warm cache). The system numbers must agree
   within 1e-9. Without the GMEG data: 7 synthetic outputs and 4 synthetic references over the fixture sentences.
   --multisystem-lines L keeps the first L lines.
6. Prints a report; --json OUT writes the figures, with "parse_cache": which cache the run used (a fresh private
   PEET_FAST_CACHE directory, benchmarks/_parse_cache.py, never the user's; and where it is off) and "cpu_figures". Wall
   times are never pass/fail: the exit status is 0 unless edits or outputs differ, or (--baseline) a judged CPU
   figure regressed (then 1). Every timed step also records the CPU time other processes used meanwhile (/proc/stat
   minus this process's getrusage); the report warns when that exceeds 0.1 CPU, since on a small shared machine a
   concurrent test run skews every figure.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import platform
import random
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SHARED = Path(__file__).resolve().parents[2] / "shared" / "corpora"
FIXTURE = ROOT / "tests" / "fixtures" / "en_pairs.tsv"
SEED = 20240607
DEFAULT_SYNTH_PAIRS = 5789            # the size of the shared PEET corpus, for the synthetic fallback
TOLERANCE = 1e-9
GOALS = {"ratio_vs_errant": 4.0, "total_over_parse_floor": 1.15, "speedup": 1.7, "multisystem_ratio": 10.0}
# the CI run's figures: ratios of CPU seconds (own process, getrusage) of two steps of one run: (numerator step,
# denominator step) in CPU -> whether higher is better. JUDGED: those compared with the baseline; the multi-system
# ratio is information only (its peet-fast side is 0.5 CPU-s of a 60-line score with the command's fixed costs: it
# spread 17.3-23.0 over four runs at load 7-11, wider than a 20% regression moves it)
CPU_FIGURES = {"cpu_ratio_vs_errant": (("pairs.errant", "pairs.peet"), True),
               "cpu_total_over_parse_floor": (("pairs.peet", "pairs.parse_floor"), False),
               "multisystem_cpu_ratio": (("multisystem.reference", "multisystem.peet"), True)}
# cpu_ratio_vs_errant is information only: the same commit (e632256) gave 3.8-4.2 on the machine the baseline was
# taken on and 3.20-3.37 on another 2-CPU machine (AMD EPYC), while peet-fast / parse floor stayed within 5 % of its
# baseline on both; what it caught beyond that ratio (more sentences sent to spaCy, smaller batches: the parse floor
# grows with them) the parse plan catches, exactly
JUDGED = ("cpu_total_over_parse_floor",)
# the pairs step's parse plan, counts of this run (no time): name -> whether higher is better; judged exactly
PLAN_FIGURES = {"sentences_parsed": False, "parse_batch_size": True}
MARGIN = 0.12                  # a judged figure may be this much worse than its baseline (see the module)
SLOWDOWN_ENV = "PEET_FAST_BENCH_SLOWDOWN"

GMEG_SYSTEMS = ("amu", "lstm", "lstm-r", "marian", "nus", "transformer", "source")
GMEG_REFS = ("ref0", "ref1", "ref2", "ref3")

# The published PEET model (peet_fast/models/peet_published.json), written out:
#   seconds = 4.928985111087574
#           + 1.1932367408397972 * R      (summed MO-token spans of replacement edits)
#           - 0.0802252693897299 * M      (number of missing-word edits: an insertion weighs 1)
#           + 1.2794781873575816 * U      (summed MO-token spans of unnecessary-word edits)
#           - 0.5234712378684506 * NumWordsS   (whitespace words of MO)
#           + 1.2015463695881172 * NumWordsT   (whitespace words of TRG)
#           + 2.3924896582160695 * NumEditedWords (R + M + U)
# edits of type noop, UNK and Um count nowhere; an edit's weight is o_end - o_start, 1 for an insertion.
PUBLISHED_INTERCEPT = 4.928985111087574
PUBLISHED_COEF = {"R": 1.1932367408397972, "M": -0.0802252693897299, "U": 1.2794781873575816,
                  "NumWordsS": -0.5234712378684506, "NumWordsT": 1.2015463695881172,
                  "NumEditedWords": 2.3924896582160695}
IGNORED = frozenset({"noop", "UNK", "Um"})


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


class CpuWatch:
    """CPU time used on the whole machine (/proc/stat) vs by this process (getrusage) during a timed step: the
    difference is other processes' work (a concurrent test run on a shared machine skews every timing)."""

    def __init__(self):
        self.t = time.perf_counter()
        self.busy = self._busy()
        self.own = self._own()

    @staticmethod
    def _busy() -> float | None:
        try:
            with open("/proc/stat", encoding="ascii") as fh:
                f = [int(x) for x in fh.readline().split()[1:]]
        except (OSError, ValueError):
            return None
        # user nice system idle iowait irq softirq steal ...
        return (f[0] + f[1] + f[2] + f[5] + f[6] + (f[7] if len(f) > 7 else 0)) / os.sysconf("SC_CLK_TCK")

    @staticmethod
    def _own() -> float:
        import resource

        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime

    def stop(self) -> dict:
        wall = time.perf_counter() - self.t
        busy = self._busy()
        own = self._own() - self.own
        d = {"wall_s": wall, "own_cpu_s": own}
        if busy is not None and self.busy is not None:
            d["machine_cpu_s"] = busy - self.busy
            d["other_cpu_s"] = max(0.0, busy - self.busy - own)
        return d


CPU: dict[str, dict] = {}      # step -> CpuWatch figures


def slowed_down(w: CpuWatch) -> None:
    """The demonstration of a slower peet-fast (PEET_FAST_BENCH_SLOWDOWN=F): spin until this step's own CPU time is
    1 + F times what it took. Nothing without the variable."""
    try:
        f = float(os.environ.get(SLOWDOWN_ENV) or 0)
    except ValueError:
        f = 0.0
    if f > 0:
        target = w._own() + f * (w._own() - w.own)
        while w._own() < target:
            pass


def watched(step: str, fn, *a, **kw):
    w = CpuWatch()
    out = fn(*a, **kw)
    CPU[step] = w.stop()
    return out


# --- spaCy pipelines -------------------------------------------------------------------------------------------

def fresh_pipeline():
    """The pipeline peet_fast.en.parse.load_pipeline() loads (same package, NER disabled, as errant does), as a new
    instance: spaCy keeps per-instance caches (the lemmatizer's, the vocabulary's lexemes), so a side that reused
    another side's instance would start warm on the same sentences."""
    import spacy

    from peet_fast.en.parse import default_model_name

    return spacy.load(default_model_name(), disable=["ner"])


def fresh_peet_pipeline():
    """peet-fast's job and CLI paths take their pipeline from load_pipeline(), cached per process: drop the cached
    instance so that they start with a new one (loaded here, untimed), as cold as in a new process. Returns it.
    (Touches peet_fast.en.parse._PIPELINES; if that cache is renamed the pipeline is simply reused, and says so.)"""
    import peet_fast.en.parse as pnlp

    cache = getattr(pnlp, "_PIPELINES", None)
    if isinstance(cache, dict):
        cache.pop(pnlp.default_model_name(), None)
    else:
        log("note: peet_fast.en.parse._PIPELINES not found; peet-fast's pipeline is reused (warm) across steps")
    return pnlp.load_pipeline()


def warm_process(origs, cors, batch_size: int) -> float:
    """Untimed process warm-up on throwaway pipeline instances: the first large nlp.pipe batches of a process are
    slower whichever instance runs them (measured: about +25% on the first ~1,400 PEET sentences, and still ~+15% on
    peet-fast's first 300-pair run after a parse-only warm-up; a process-wide effect, presumably memory growth), so
    without this the first side measured would pay for it. Runs nlp.pipe, then peet-fast and errant themselves, on
    the last pairs of the corpus, each on a throwaway instance; the measured sides then start on new instances."""
    import errant
    from spacy.tokens import Doc

    from peet_fast.en.annotator import Annotator

    t0 = time.perf_counter()
    o, c = origs[::-1][:1024], cors[::-1][:1024]
    nlp = fresh_pipeline()
    for _ in nlp.pipe((Doc(nlp.vocab, t.split()) for t in c if t.strip()), batch_size=batch_size):
        pass
    del nlp
    Annotator(fresh_pipeline(), batch_size=batch_size).annotate_batch(o, c)
    errant_parallel_edits(errant.load("en", nlp=fresh_pipeline()), o[:48], c[:48])
    return time.perf_counter() - t0


# --- data -----------------------------------------------------------------------------------------------------------

def fixture_sentences() -> list[str]:
    rows = [line.split("\t") for line in FIXTURE.read_text("utf-8").splitlines() if line.strip()]
    return [r[1].strip() for r in rows if len(r) > 1 and r[1].strip()]


def load_corpus(n: int | None, seed: int) -> tuple[str, list[str], list[str]]:
    from peet_fast.io import read_parallel

    peet = SHARED / "peet"
    files = [(peet / s / "gector_OP.txt", peet / s / "gector_EC.txt") for s in ("CONLL14", "BEA19")]
    if all(p.exists() for pair in files for p in pair):
        origs, cors = [], []
        for op, ec in files:
            o, c = read_parallel([op, ec])
            origs += o
            cors += c
        name = "shared peet/{CONLL14,BEA19} gector_OP -> gector_EC"
        if n is not None:
            origs, cors = origs[:n], cors[:n]
        return name, origs, cors
    from peet_fast.en.synth import synthesize

    pairs = synthesize(fixture_sentences(), DEFAULT_SYNTH_PAIRS if n is None else n, seed)
    return (f"synthetic (peet_fast.en.synth, seed {seed}) over tests/fixtures/en_pairs.tsv (shared corpora absent)",
            [p[0] for p in pairs], [p[1] for p in pairs])


def scaling_sentences() -> tuple[str, list[str]]:
    found = sorted((SHARED / "peet").glob("*/*_EC.txt")) if (SHARED / "peet").is_dir() else []
    if found:
        from peet_fast.io import read_lines

        seen: dict[str, None] = {}
        for p in found:
            for line in read_lines(p):
                s = " ".join(line.split())
                if s:
                    seen.setdefault(s)
        return f"distinct sentences of shared peet/*/*_EC.txt ({len(found)} files)", list(seen)
    return "tests/fixtures/en_pairs.tsv (cor side)", fixture_sentences()


# --- errant, the errant_parallel way --------------------------------------------------------------------------------

def errant_parallel_edits(annotator, origs, cors) -> list:
    """What errant_parallel does per line and corrected file: parse orig alone, noop check, else parse cor alone and
    annotate. Returns errant's Edit lists (None for a noop). Unlike errant_parallel, an empty orig is not skipped."""
    out = []
    parse, annotate = annotator.parse, annotator.annotate
    for orig, cor in zip(origs, cors):
        o = parse(orig.strip())
        cor = cor.strip()
        if o.text.strip() == cor:
            out.append(None)
        else:
            out.append(annotate(o, parse(cor)))
    return out


def edit_tuples(edits) -> list[tuple]:
    return [(e.o_start, e.o_end, e.c_start, e.c_end, e.o_str, e.c_str, e.type) for e in edits or ()]


def small_features(edits, orig: str, cor: str) -> tuple[int, int, int, int, int, int]:
    """(R, M, U, NumWordsS, NumWordsT, NumEditedWords) of one pair from errant's edits (None = noop)."""
    r = m = u = 0
    for e in edits or ():
        if e.type in IGNORED:
            continue
        w = e.o_end - e.o_start
        if w <= 0:
            w = 1
        op = e.type.split(":", 1)[0]
        if op == "R":
            r += w
        elif op == "M":
            m += w
        elif op == "U":
            u += w
    return r, m, u, len(orig.split()), len(cor.split()), r + m + u


def published_seconds(r, m, u, nws, nwt, ned) -> float:
    c = PUBLISHED_COEF
    return (PUBLISHED_INTERCEPT + c["R"] * r + c["M"] * m + c["U"] * u + c["NumWordsS"] * nws
            + c["NumWordsT"] * nwt + c["NumEditedWords"] * ned)


def check_published_model() -> str | None:
    """None when the shipped published model is the formula above; else what differs."""
    d = json.loads((ROOT / "peet_fast" / "peet" / "models" / "peet_published.json").read_text("utf-8"))
    if d.get("standardization") is not None:
        return "the shipped model has a standardization"
    ours = [PUBLISHED_COEF[f] for f in d["features"]] if set(d["features"]) <= set(PUBLISHED_COEF) else None
    if ours is None or list(d["features"]) != list(PUBLISHED_COEF) or ours != list(d["coefficients"]) \
            or d["intercept"] != PUBLISHED_INTERCEPT:
        return "the shipped model's features/coefficients/intercept differ from the formula written here"
    return None


# --- step 2 + 3: errant vs peet, one worker --------------------------------------------------------------------------

class PipeRecorder:
    """Wraps one pipeline instance's nlp.pipe to record exactly what peet-fast sends to spaCy (each call's batch size
    and its Docs' words, in order) and the time spent inside spaCy (including building the Docs it consumes). Used
    on the instrumented run only, never on a headline timing."""

    def __init__(self, nlp):
        self.nlp = nlp
        self.real = nlp.pipe
        self.calls: list[tuple] = []          # (batch_size, [words list or text, ...])
        self.spacy_s = 0.0
        nlp.pipe = self.pipe

    def reset(self):
        self.calls, self.spacy_s = [], 0.0

    def pipe(self, docs, *args, **kwargs):
        rec: list = []
        self.calls.append((kwargs.get("batch_size", args[0] if args else None), rec))

        def feed():
            for d in docs:
                rec.append(d if isinstance(d, str) else [t.text for t in d])
                yield d

        it = iter(self.real(feed(), *args, **kwargs))

        def out():
            while True:
                t = time.perf_counter()
                try:
                    d = next(it)
                except StopIteration:
                    self.spacy_s += time.perf_counter() - t
                    return
                self.spacy_s += time.perf_counter() - t
                yield d

        return out()

    def close(self):
        self.nlp.pipe = self.real


def time_parse_floor(nlp, calls) -> float:
    """nlp.pipe over exactly what peet-fast piped (recorded calls: same Docs, same order, same batch size)."""
    from spacy.tokens import Doc

    vocab = nlp.vocab
    t0 = time.perf_counter()
    for batch_size, items in calls:
        docs = (w if isinstance(w, str) else Doc(vocab, w) for w in items)
        kw = {} if batch_size is None else {"batch_size": batch_size}
        for _ in nlp.pipe(docs, **kw):
            pass
    return time.perf_counter() - t0


def instrumented_run(nlp, origs, cors, batch_size) -> tuple[list, dict]:
    """A second peet-fast run on a fresh instance, with nlp.pipe recorded (PipeRecorder) and Doc -> token arrays
    timed (Parser.doc_to_sent wrapped). When peet-fast's internals allow (Annotator._sents_for and the compiled
    annotate_many), the annotate stage and the Edit objects are timed apart; otherwise only the whole. Returns
    (recorded pipe calls, breakdown)."""
    from peet_fast.en.annotator import Annotator, Edit

    rec = PipeRecorder(nlp)
    ann = Annotator(nlp, batch_size=batch_size)
    parser = ann.parser
    real = parser.doc_to_sent
    conv = [0.0]

    def timed_doc_to_sent(doc):
        t = time.perf_counter()
        s = real(doc)
        conv[0] += time.perf_counter() - t
        return s

    parser.doc_to_sent = timed_doc_to_sent
    bd: dict = {}
    try:
        from peet_fast._ext import annotate as _annotate

        t0 = time.perf_counter()
        _, o_s, c_s = ann._sents_for(origs, cors)
        t1 = time.perf_counter()
        edits = _annotate.annotate_many(o_s, c_s, ann.lev, ann.merge)
        t2 = time.perf_counter()
        objs = [[Edit(*e) for e in pair] for pair in edits]
        t3 = time.perf_counter()
        del objs, edits, o_s, c_s
        bd = {"total_s": t3 - t0, "annotate_s": t2 - t1, "edit_objects_s": t3 - t2}
        rest = (t1 - t0)
    except Exception as exc:  # noqa: BLE001 - internals changed: time the public call as a whole
        rec.reset()
        conv[0] = 0.0
        bd = {"note": f"stage split unavailable ({type(exc).__name__}: {exc}); annotate + Edit objects in other_s"}
        t0 = time.perf_counter()
        ann.annotate_batch(origs, cors)
        bd["total_s"] = rest = time.perf_counter() - t0
    finally:
        parser.doc_to_sent = real
        rec.close()
    bd["spacy_s"] = rec.spacy_s
    bd["doc_to_arrays_s"] = conv[0]
    bd["other_s"] = rest - rec.spacy_s - conv[0]      # pair checks, dedup, sorting, dict building (+ see note)
    bd["batch_sizes"] = sorted({c[0] for c in rec.calls if c[0] is not None})
    return rec.calls, bd


def bench_pairs(origs, cors, batch_size) -> dict:
    """Steps 2 and 3. Each side runs on its own new instance of the pipeline (loaded untimed)."""
    import errant

    from peet_fast.en.annotator import Annotator

    n = len(origs)
    log(f"[pairs] peet-fast annotate_batch over {n} pairs ...")
    nlp = fresh_peet_pipeline()
    ann = Annotator(nlp, batch_size=batch_size)
    w = CpuWatch()
    got = ann.annotate_batch(origs, cors)
    slowed_down(w)
    CPU["pairs.peet"] = w.stop()
    peet_s = CPU["pairs.peet"]["wall_s"]
    n_parsed = getattr(ann.parser, "n_parsed", None)
    del ann, nlp

    log("[pairs] instrumented peet-fast run (records what it sends to spaCy; stage breakdown) ...")
    w = CpuWatch()
    calls, breakdown = instrumented_run(fresh_pipeline(), origs, cors, batch_size)
    CPU["pairs.breakdown"] = w.stop()
    distinct = sum(len(items) for _, items in calls)

    log(f"[pairs] parse floor: nlp.pipe over the {distinct} sentences peet-fast sent to spaCy, as it sent them ...")
    floor_nlp = fresh_pipeline()
    floor_s = watched("pairs.parse_floor", time_parse_floor, floor_nlp, calls)
    floor_warm_s = time_parse_floor(floor_nlp, calls)     # the same again: warm caches (information)
    del floor_nlp

    log(f"[pairs] errant, one sentence at a time, over {n} pairs ...")
    errant_annotator = errant.load("en", nlp=fresh_pipeline())
    w = CpuWatch()
    ref = errant_parallel_edits(errant_annotator, origs, cors)
    CPU["pairs.errant"] = w.stop()
    errant_s = CPU["pairs.errant"]["wall_s"]
    del errant_annotator

    ref_t = [edit_tuples(r) for r in ref]
    got_t = [[tuple(e) for e in g] for g in got]
    diffs = [k for k in range(n) if ref_t[k] != got_t[k]]
    return {
        "pairs": n, "noop_pairs": sum(r is None for r in ref), "edits": sum(len(r) for r in ref_t),
        "distinct_parsed": distinct, "peet_n_parsed": n_parsed,
        "errant_parses": sum(1 if r is None else 2 for r in ref),
        "errant_s": errant_s, "total_s": peet_s, "parse_floor_s": floor_s,
        "parse_floor_warm_s": floor_warm_s,
        "errant_pairs_per_s": n / errant_s, "peet_pairs_per_s": n / peet_s, "ratio_vs_errant": errant_s / peet_s,
        "total_over_parse_floor": peet_s / floor_s if floor_s > 0 else float("nan"),
        "breakdown": breakdown,
        "identical": not diffs, "mismatched_pairs": len(diffs),
        "mismatch_examples": [{"pair": k, "orig": origs[k], "cor": cors[k], "errant": ref_t[k], "peet": got_t[k]}
                              for k in diffs[:3]],
    }


# --- step 4: worker scaling ------------------------------------------------------------------------------------------

def read_job_output(out_dir: str):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from peet_fast.jobs import shard_paths

    return pa.concat_tables([pq.read_table(p) for p in shard_paths(out_dir)])


def bench_scaling(m: int, workers: int, seed: int, tmp: str, batch_size: int) -> dict:
    from peet_fast.jobs import JobSpec, LocalRunner, RayRunner, run_job, text_source
    from peet_fast.en.synth import synthesize

    src_name, sentences = scaling_sentences()
    pairs = synthesize(sentences, m, seed)
    d = os.path.join(tmp, "scaling")
    os.makedirs(d)
    mo, trg = os.path.join(d, "mo.txt"), os.path.join(d, "trg.txt")
    with open(mo, "w", encoding="utf-8") as fm, open(trg, "w", encoding="utf-8") as ft:
        for a, b in pairs:
            fm.write(a + "\n")
            ft.write(b + "\n")
    shard_rows = max(1, math.ceil(m / (8 * workers)))
    # the parse cache off on both sides: cold, each side parses every sentence (with one cache, the 1-worker run
    # would fill it and the K-worker run read it: a "speed-up" above the core count)
    spec = JobSpec("featurize", text_source([mo, trg]), shard_rows=shard_rows, batch_size=batch_size,
                   cache={"cache": False})
    res = {"scale_pairs": m, "scale_source": src_name, "scale_identical_pairs": sum(a == b for a, b in pairs),
           "shard_rows": shard_rows, "shards": math.ceil(m / shard_rows), "cpus": os.cpu_count()}

    log(f"[scaling] featurize job, 1 worker (in process), {m} pairs, {res['shards']} shards of {shard_rows} ...")
    fresh_peet_pipeline()          # the in-process worker starts cold, as each Ray actor does (its load untimed)
    w = CpuWatch()
    run_job(spec, os.path.join(d, "w1"), LocalRunner())
    CPU["scaling.1"] = w.stop()
    t1 = CPU["scaling.1"]["wall_s"]

    log(f"[scaling] featurize job, {workers} workers (local Ray) ...")
    import ray

    # as --workers N runs it: the runner starts a new local Ray instance in the background while this process
    # computes the first shards, then N-1 actors; Ray's start is inside the job's time
    runner = RayRunner(workers)
    try:
        w = CpuWatch()
        run_job(spec, os.path.join(d, f"w{workers}"), runner)
        CPU[f"scaling.{workers}"] = w.stop()      # own_cpu_s is the driver's only; machine_cpu_s includes the actors
        job_s = CPU[f"scaling.{workers}"]["wall_s"]
    finally:
        t0 = time.perf_counter()
        ray.shutdown()
        res["ray_shutdown_s"] = time.perf_counter() - t0
    ray_s = runner.ray_start_s or 0.0
    tk = job_s

    a, b = read_job_output(os.path.join(d, "w1")), read_job_output(os.path.join(d, f"w{workers}"))
    same = a.num_rows == m and a.equals(b, check_metadata=True)
    res.update({
        "one_worker_s": t1, "k_workers_s": tk, "ray_startup_s": ray_s,
        "workers": {"1": m / t1, str(workers): m / tk},
        "speedup": t1 / tk,
        "scaling_identical": same, "rows": [a.num_rows, b.num_rows],
    })
    return res


# --- step 5: multi-system ranking ------------------------------------------------------------------------------------

def multisystem_data(lines: int | None, seed: int, tmp: str) -> tuple[str, list[str], list[str]]:
    """Writes the outputs and references (dev+test concatenated) to tmp; returns (description, hyp paths, ref paths)."""
    d = os.path.join(tmp, "multisystem")
    os.makedirs(os.path.join(d, "hyp"))
    os.makedirs(os.path.join(d, "ref"))
    gmeg = SHARED / "gmeg"
    names = GMEG_SYSTEMS + GMEG_REFS
    if all((gmeg / split / "fce" / nm).exists() for split in ("dev", "test") for nm in names):
        from peet_fast.io import read_lines

        texts = {nm: read_lines(gmeg / "dev" / "fce" / nm) + read_lines(gmeg / "test" / "fce" / nm) for nm in names}
        desc = "GMEG FCE dev+test"
    else:
        from peet_fast.en.synth import ERROR_KINDS, corrupt

        base = fixture_sentences()
        light = {kind: 0.0 for kind in ERROR_KINDS} | {"det": 0.1, "prep": 0.1, "punct": 0.1}
        texts = {}
        for k, nm in enumerate(names):
            if nm == "ref0":              # one clean reference, three with a few differences, outputs corrupted
                texts[nm] = list(base)
                continue
            rates = light if nm in GMEG_REFS else None
            texts[nm] = [corrupt(s, random.Random(seed * 1_000_003 + k * 10_007 + i), rates)
                         for i, s in enumerate(base)]
        desc = "synthetic (7 corrupted outputs, 4 references) over tests/fixtures/en_pairs.tsv (GMEG absent)"
    total = len(texts[names[0]])
    if lines is not None and lines < total:
        desc += f", first {lines} of {total} lines (--multisystem-lines)"
        texts = {k: v[:lines] for k, v in texts.items()}
    else:
        desc += f", all {total} lines"
    paths = {}
    for nm in names:
        p = os.path.join(d, "ref" if nm in GMEG_REFS else "hyp", nm)
        with open(p, "w", encoding="utf-8") as fh:
            fh.writelines(t + "\n" for t in texts[nm])
        paths[nm] = p
    return desc, [paths[s] for s in GMEG_SYSTEMS], [paths[r] for r in GMEG_REFS]


def reference_scores(errant_annotator, hyp_paths, ref_paths) -> dict[str, float]:
    """The published scorer's way: errant_parallel per (output, reference) file pair, features from its edits, the
    formula, min over references, mean per system."""
    def read(path):                     # as errant_parallel reads its input files
        with open(path, encoding="utf-8") as fh:
            return [line.strip() for line in fh]

    refs = [read(p) for p in ref_paths]
    out = {}
    n_pairs = len(hyp_paths) * len(ref_paths)
    done = 0
    t0 = time.perf_counter()
    for hp in hyp_paths:
        hyp = read(hp)
        best = [math.inf] * len(hyp)
        for ref in refs:
            edits = errant_parallel_edits(errant_annotator, hyp, ref)
            for i, (e, o, c) in enumerate(zip(edits, hyp, ref)):
                s = published_seconds(*small_features(e, o, c))
                if s < best[i]:
                    best[i] = s
            done += 1
            log(f"[multisystem] reference: {done}/{n_pairs} file pairs, {time.perf_counter() - t0:.0f} s")
        out[os.path.basename(hp)] = math.fsum(best) / len(best) if best else float("nan")
    return out


def bench_multisystem(lines, seed, tmp, batch_size: int) -> dict:
    import errant

    from peet_fast import cli

    desc, hyp_paths, ref_paths = multisystem_data(lines, seed, tmp)
    with open(hyp_paths[0], encoding="utf-8") as fh:
        n_lines = sum(1 for _ in fh)
    log(f"[multisystem] {desc}: {len(hyp_paths)} outputs x {len(ref_paths)} references")
    summary = os.path.join(tmp, "multisystem", "summary.json")
    # --no-cache: cold, as the published tools always are (benchmarks/cache.py measures the cache)
    argv = ["score", "--hyp", *hyp_paths, "--ref", *ref_paths, "--summary", summary, "--batch-size", str(batch_size),
            "--no-cache"]
    log("[multisystem] peet-fast score (one in-process call) ...")
    fresh_peet_pipeline()          # the CLI's Annotator gets a new pipeline instance (loaded here, untimed)
    out, err = io.StringIO(), io.StringIO()
    w = CpuWatch()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = cli.main(argv)
    slowed_down(w)
    CPU["multisystem.peet"] = w.stop()
    peet_s = CPU["multisystem.peet"]["wall_s"]
    if rc != 0:
        raise RuntimeError(f"peet-fast score exited {rc}: {err.getvalue().strip()}")
    with open(summary, encoding="utf-8") as fh:
        peet = {s["name"]: s["peet"] for s in json.load(fh)["systems"]}

    log("[multisystem] reference: errant_parallel per file pair + published formula ...")
    errant_annotator = errant.load("en", nlp=fresh_pipeline())
    w = CpuWatch()
    ref = reference_scores(errant_annotator, hyp_paths, ref_paths)
    CPU["multisystem.reference"] = w.stop()
    ref_s = CPU["multisystem.reference"]["wall_s"]

    diffs = {k: abs(ref[k] - peet.get(k, math.nan)) for k in ref}
    same = set(ref) == set(peet) and all(v <= TOLERANCE for v in diffs.values())
    return {"data": desc, "lines": n_lines, "systems": len(hyp_paths), "references": len(ref_paths),
            "file_pairs": len(hyp_paths) * len(ref_paths), "reference_s": ref_s, "peet_s": peet_s,
            "ratio": ref_s / peet_s, "peet_scores": peet, "reference_scores": ref,
            "max_abs_diff": max(diffs.values()) if diffs else float("nan"), "identical": same,
            "peet_table": out.getvalue().rstrip()}


# --- report ---------------------------------------------------------------------------------------------------------

def cpu_figures(cpu: dict) -> dict:
    """The CI run's judged figures (CPU_FIGURES) of the steps that ran."""
    out = {}
    for name, ((num, den), _) in CPU_FIGURES.items():
        if num in cpu and den in cpu and cpu[den]["own_cpu_s"] > 0:
            out[name] = cpu[num]["own_cpu_s"] / cpu[den]["own_cpu_s"]
    return out


def judge(figures: dict, baseline: dict, margin: float) -> tuple[bool, list[str]]:
    """Each judged figure against its baseline: a CPU-time ratio (JUDGED) at most `margin` worse, a count of the
    parse plan (PLAN_FIGURES) no worse at all. (passed, one report line per figure)."""
    lines, ok = [], True
    for name, higher in PLAN_FIGURES.items():
        if name in figures and name in baseline:
            value, base = figures[name], baseline[name]
            passed = value >= base if higher else value <= base
            ok = ok and passed
            lines.append(f"  {name}: {value}  (baseline {base}; {'at least' if higher else 'at most'} {base}: "
                         f"{'ok' if passed else 'REGRESSION'})")
    for name, (_, higher) in CPU_FIGURES.items():
        if name not in figures or name not in baseline:
            continue
        if name not in JUDGED:
            lines.append(f"  {name}: {figures[name]:.3f}  (baseline {baseline[name]:.3f}; information, not judged)")
            continue
        value, base = figures[name], baseline[name]
        limit = base * (1 - margin) if higher else base * (1 + margin)
        passed = value >= limit if higher else value <= limit
        ok = ok and passed
        lines.append(f"  {name}: {value:.3f}  (baseline {base:.3f}; {'at least' if higher else 'at most'} "
                     f"{limit:.3f}: {'ok' if passed else 'REGRESSION'}; {100 * (value / base - 1):+.1f}%)")
    return ok, lines


def write_baseline(out: str, runs: list[str]) -> int:
    """The baseline: the median of each judged figure over the runs' JSON artifacts."""
    import statistics

    from peet_fast.io import atomic_write

    docs = [json.loads(Path(r).read_text("utf-8")) for r in runs]
    figures = [{**d["cpu_figures"], **d.get("plan_figures", {})} for d in docs]
    median = {k: statistics.median(f[k] for f in figures) for k in [*PLAN_FIGURES, *CPU_FIGURES]
              if all(k in f for f in figures)}
    spread = {k: [min(f[k] for f in figures), max(f[k] for f in figures)] for k in median}
    doc = {"figures": median, "runs": len(runs), "spread": spread,
           "command": "python benchmarks/throughput.py --pairs 300 --multisystem-lines 60 --skip-scaling --json RUN"}
    with atomic_write(out) as fh:
        json.dump(doc, fh, indent=2)
        fh.write("\n")
    print(json.dumps(doc, indent=2))
    return 0


def _goal(value: float, target: float, higher_is_better: bool = True) -> str:
    ok = value >= target if higher_is_better else value <= target
    return f"goal {'>=' if higher_is_better else '<='} {target:g}: {'met' if ok else 'MISSED'}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pairs", type=int, metavar="N", help="use the first N pairs (default: all)")
    ap.add_argument("--workers", type=int, default=2, metavar="K", help="workers of the scaling run (default 2)")
    ap.add_argument("--scale-pairs", type=int, default=60_000, metavar="M",
                    help="synthetic pairs of the scaling run (default 60000)")
    ap.add_argument("--multisystem-lines", type=int, metavar="L", help="use the first L GMEG lines (default: all)")
    ap.add_argument("--skip-multisystem", action="store_true")
    ap.add_argument("--skip-scaling", action="store_true")
    ap.add_argument("--batch-size", type=int, default=None, metavar="B",
                    help="peet-fast's nlp.pipe batch size, in every step (default: peet-fast's default)")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--json", metavar="OUT", help="write the figures as JSON here")
    ap.add_argument("--baseline", metavar="FILE", help="the CI regression check: judge the CPU-time figures against "
                                                       "this baseline (no wall-clock goals)")
    ap.add_argument("--margin", type=float, default=MARGIN, metavar="F",
                    help=f"how much worse than its baseline a judged figure may be (default {MARGIN:g})")
    ap.add_argument("--write-baseline", metavar="FILE", help="write the median of --from runs as a baseline; no run")
    ap.add_argument("--from", dest="runs", nargs="+", metavar="RUN.json", help="the JSON artifacts of CI runs")
    args = ap.parse_args(argv)
    if args.write_baseline:
        if not args.runs:
            ap.error("--write-baseline needs --from RUN.json ...")
        return write_baseline(args.write_baseline, args.runs)
    baseline = json.loads(Path(args.baseline).read_text("utf-8"))["figures"] if args.baseline else None
    from _parse_cache import private_cache   # benchmarks/ is sys.path[0] when run as a script

    CACHE = private_cache()       # a fresh private parse cache (benchmarks/_parse_cache.py)
    for name in ("pairs", "scale_pairs", "multisystem_lines"):
        v = getattr(args, name)
        if v is not None and v < 1:
            ap.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.workers < 2 and not args.skip_scaling:
        ap.error("--workers must be at least 2 (the scaling run compares 1 worker with K)")

    import errant
    import spacy

    from peet_fast.en.parse import DEFAULT_BATCH_SIZE, default_model_name, load_pipeline

    batch_size = args.batch_size or DEFAULT_BATCH_SIZE
    t0 = time.perf_counter()
    load_pipeline()
    load_s = time.perf_counter() - t0

    CACHE["note"] = ("steps 2-3 run on pipeline objects (never cached); the scaling step's jobs run with "
                     "cache=False and the multi-system step with --no-cache: every figure is cold")
    res: dict = {"parse_cache": CACHE, "env": {"python": platform.python_version(), "spacy": spacy.__version__,
                         "errant": getattr(errant, "__version__", "?"), "spacy_model": default_model_name(),
                         "cpus": os.cpu_count(), "machine": platform.machine(), "batch_size": batch_size,
                         "pipeline_load_s": load_s}}
    model_note = check_published_model()
    if model_note:
        log(f"warning: {model_note}")
        res["published_model_note"] = model_note

    name, origs, cors = load_corpus(args.pairs, args.seed)
    res["corpus"] = name
    res["workers"] = res["multisystem"] = None          # filled in unless skipped
    log("warming the process up (untimed) ...")
    _, all_o, all_c = load_corpus(None, args.seed)
    res["env"]["process_warmup_s"] = warm_process(all_o, all_c, batch_size)
    del all_o, all_c
    p = bench_pairs(origs, cors, batch_size)
    res.update({k: p[k] for k in ("pairs", "errant_pairs_per_s", "peet_pairs_per_s", "ratio_vs_errant",
                                  "parse_floor_s", "total_s")})
    res["pairs_detail"] = p
    res["distinct_parsed"] = p["distinct_parsed"]
    identical = {"edits": p["identical"]}

    with tempfile.TemporaryDirectory(prefix="peet-throughput-") as tmp:
        if not args.skip_scaling:
            s = bench_scaling(args.scale_pairs, args.workers, args.seed, tmp, batch_size)
            res["workers"] = s["workers"]
            res["scale_pairs"] = s["scale_pairs"]
            res["ray_startup_s"] = s["ray_startup_s"]
            res["scaling"] = s
            identical["scaling"] = s["scaling_identical"]
        if not args.skip_multisystem:
            ms = bench_multisystem(args.multisystem_lines, args.seed, tmp, batch_size)
            res["multisystem"] = {k: ms[k] for k in ("reference_s", "peet_s", "ratio")}
            res["multisystem_detail"] = ms
            identical["multisystem"] = ms["identical"]
    res["cpu"] = CPU
    res["other_load"] = {k: v.get("other_cpu_s", 0.0) / v["wall_s"] for k, v in CPU.items()
                         if v["wall_s"] > 0 and (k == "scaling.1" or not k.startswith("scaling."))}
    res["identical"] = all(identical.values())
    res["identical_checks"] = identical
    res["goals"] = GOALS
    res["cpu_figures"] = cpu_figures(CPU)
    res["plan_figures"] = {"sentences_parsed": p["distinct_parsed"],
                           "parse_batch_size": min(p["breakdown"].get("batch_sizes") or [batch_size])}
    if baseline is not None:
        passed, judged = judge({**res["cpu_figures"], **res["plan_figures"]}, baseline, args.margin)
        res["regression"] = {"baseline": args.baseline, "margin": args.margin, "passed": passed,
                             "slowdown_injected": os.environ.get(SLOWDOWN_ENV)}

    def goal(value, target, higher_is_better=True):          # wall-clock goals: the documented quiet run only
        return _goal(value, target, higher_is_better) if baseline is None else "information; not judged"

    # --- report
    print(f"corpus: {name}")
    print(f"  {p['pairs']} pairs ({p['noop_pairs']} identical), {p['edits']} edits; "
          f"machine: {os.cpu_count()} CPUs; spaCy {spacy.__version__} ({default_model_name()}), "
          f"errant {res['env']['errant']}; pipeline load {load_s:.1f} s (not timed)")
    print("\n1 worker, end to end (parse + annotate):")
    print(f"  errant (errant_parallel way): {p['errant_s']:8.2f} s  {p['errant_pairs_per_s']:9.1f} pairs/s  "
          f"({p['errant_parses']} single-sentence parses)")
    print(f"  peet-fast annotate_batch:     {p['total_s']:8.2f} s  {p['peet_pairs_per_s']:9.1f} pairs/s")
    print(f"  ratio: {p['ratio_vs_errant']:.2f}x  ({goal(p['ratio_vs_errant'], GOALS['ratio_vs_errant'])})")
    print(f"  identical edits: {p['identical']}" + ("" if p["identical"] else
                                                   f"  ({p['mismatched_pairs']} pairs differ)"))
    for ex in p["mismatch_examples"]:
        print(f"    pair {ex['pair']}: {ex['orig']!r} -> {ex['cor']!r}\n      errant: {ex['errant']}\n"
              f"      peet:   {ex['peet']}")
    b = p["breakdown"]
    if p["peet_n_parsed"] is not None and p["distinct_parsed"] != p["peet_n_parsed"]:
        print(f"  note: peet-fast's parser counted {p['peet_n_parsed']} sentences sent to spaCy in the timed run, "
              f"the instrumented run {p['distinct_parsed']}")
    print(f"\nbreakdown: parse floor = nlp.pipe over exactly the {p['distinct_parsed']} distinct sentences peet-fast "
          f"sent to spaCy, in its order and batch size ({', '.join(map(str, b['batch_sizes'])) or 'default'}), on a "
          f"fresh instance: {p['parse_floor_s']:.2f} s")
    print(f"  peet total / parse floor: {p['total_over_parse_floor']:.3f}  "
          f"({goal(p['total_over_parse_floor'], GOALS['total_over_parse_floor'], False)}); the same parse again on "
          f"the now-warm instance: {p['parse_floor_warm_s']:.2f} s")
    split = (f" + annotate {b['annotate_s']:.3f} s + Edit objects {b['edit_objects_s']:.3f} s"
             if "annotate_s" in b else "")
    print(f"  instrumented run (fresh instance): total {b['total_s']:.2f} s = spaCy (pipe + Doc build) "
          f"{b['spacy_s']:.2f} s + Doc->arrays {b['doc_to_arrays_s']:.3f} s{split} + other (pair checks, dedup, "
          f"ordering) {b['other_s']:.3f} s")
    if "note" in b:
        print(f"  ({b['note']})")
    if not args.skip_scaling:
        k = str(args.workers)
        print(f"\nworker scaling: featurize job, {s['scale_pairs']} synthetic pairs ({s['scale_source']}), "
              f"{s['shards']} shards of {s['shard_rows']} rows, {os.cpu_count()} CPUs")
        print(f"  1 worker (in process):  {s['one_worker_s']:7.2f} s  {s['workers']['1']:8.1f} pairs/s")
        print(f"  {k} workers (Ray):        {s['k_workers_s']:7.2f} s  {s['workers'][k]:8.1f} pairs/s  "
              f"(the whole job: Ray's start, {s['ray_startup_s']:.2f} s, runs while this process computes, and "
              f"each actor's spaCy load)")
        print(f"  speedup: {s['speedup']:.2f}x  ({goal(s['speedup'], GOALS['speedup'])})")
        cw = CPU.get(f"scaling.{k}", {})
        if "machine_cpu_s" in cw:
            print(f"  machine CPU use during the {k}-worker job: {cw['machine_cpu_s'] / cw['wall_s']:.2f} of "
                  f"{os.cpu_count()} cores (1-worker job: "
                  f"{CPU['scaling.1'].get('machine_cpu_s', 0) / CPU['scaling.1']['wall_s']:.2f})")
        print(f"  identical outputs: {s['scaling_identical']}")
    if not args.skip_multisystem:
        print(f"\nmulti-system ranking: {ms['data']}: {ms['systems']} outputs x {ms['references']} references "
              f"= {ms['file_pairs']} file pairs")
        print(f"  reference (errant_parallel per file pair + published formula): {ms['reference_s']:8.2f} s")
        print(f"  peet-fast score (one call):                                    {ms['peet_s']:8.2f} s")
        print(f"  ratio: {ms['ratio']:.1f}x  ({goal(ms['ratio'], GOALS['multisystem_ratio'])})")
        print(f"  same system scores (within {TOLERANCE:g}): {ms['identical']}  (max |diff| {ms['max_abs_diff']:.2e})")
        for line in ms["peet_table"].splitlines():
            print(f"    {line}")
    busy = {k: v for k, v in res["other_load"].items() if v > 0.1}
    if baseline is not None:
        print(f"\nregression check (this run's parse plan and CPU-time ratios vs {args.baseline}, margin "
              f"{args.margin:.0%}; other "
              f"processes' load, which these ratios do not depend on: up to "
              f"{max(res['other_load'].values(), default=0):.2f} CPU):")
        for line in judged:
            print(line)
        print(f"  {'passed' if passed else 'FAILED: a regression'}")
    elif busy:
        print("\nWARNING: other processes used the CPUs during timed steps (CPU-seconds of other processes per "
              "second of wall time): " + ", ".join(f"{k} {v:.2f}" for k, v in busy.items())
              + " -- those timings are skewed; rerun on a quiet machine")
    else:
        print("\nmachine quiet during the single-process steps (other processes < 0.1 CPU on average)")
    print(f"\nall identical: {res['identical']}")
    if args.json:
        from peet_fast.io import atomic_write

        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with atomic_write(args.json) as fh:
            json.dump(res, fh, indent=2, default=str)
            fh.write("\n")
    return 0 if res["identical"] and res.get("regression", {}).get("passed", True) else 1


if __name__ == "__main__":
    sys.exit(main())
