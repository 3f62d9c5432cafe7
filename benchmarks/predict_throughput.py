"""The predict stage alone: peet-fast's streaming predictor vs pandas + scikit-learn, on the same Arrow IPC file.

    python benchmarks/predict_throughput.py [--rows N] [--batch-rows B] [--repeat R] [--json OUT] [--keep DIR]

One run, one data set:

1. Writes N synthetic feature rows (default 10,000,000) with feature_table_schema("small") and the metadata it carries
   to <tmp or --keep DIR>/features.arrow, an uncompressed Arrow IPC *file* (memory-mappable), in record batches of
   --batch-rows rows (default 1,048,576 = predict_file's default batch size). Values are drawn with a seeded NumPy
   generator, chunk by chunk: source sentences of 1-60 words (a skewed distribution around ~20), edits per sentence
   mostly 0-3 (about 45% of rows unedited), each edit a replacement / missing / unnecessary word span of weight 1-3
   (mostly 1); R, M, U are the summed weights, NONE = 1 for an unedited row, NumEditedWords = R + M + U and
   NumWordsT = NumWordsS + M - U (at least 1). An existing file of the same row count and batch size in --keep DIR
   is reused (delete it to regenerate).
2. peet: times peet_fast.peet.model.predict_file(load_model(), path) -- the published model, no output file -- and, as a
   separate measurement, predict_file(..., out_path=<dir>/peet_out.arrow) (the (sentence, seconds) output file;
   the previous run's output is deleted before each run, untimed, so each run writes a new file as a user's would).
   Note: for an Arrow IPC input, predict_file streams the file's own record batches; its batch_rows argument only
   applies to Parquet, so --batch-rows acts through the batch size the file is written with.
3. reference: pyarrow.ipc.open_file(pa.memory_map(path)).read_all().to_pandas(), then a scikit-learn Ridge fitted on
   a tiny dummy set whose coef_ / intercept_ are overwritten with the published model's, .predict(df[features]
   .to_numpy()). Timed as load+predict together, and predict alone (on the already-loaded frame).
4. checks that both give the same predictions: predict_file's (rows, sum) against the reference's, and every row --
   peet's predictions recomputed batch-wise with Model.predict over the file's record batches (the same arithmetic
   predict_file runs), and the seconds/sentence columns of the output file peet wrote -- against the reference's
   predictions; max abs diff must be < 1e-9. A few sample rows are printed.
5. reports rows/s for each path (best of --repeat runs after one untimed warm-up; the median is reported too), the
   ratio peet / (pandas+sklearn load+predict), and the peak RSS of each path.

Peak RSS: every timed path runs in its own fresh subprocess (this script re-invoked with a private --_worker flag),
so the peak RSS of one path cannot be inherited from another (ru_maxrss is a process-lifetime high-water mark and
never goes down). Each worker reports
  - peak_mb: its ru_maxrss (= VmHWM) at the end -- interpreter + imports + the work;
  - base_mb: its RSS after imports and model loading, before touching the data, so peak_mb - base_mb is what the
    path itself added;
  - peak_anon_mb / peak_file_mb: from a separate untimed pass that samples /proc/self/status (RssAnon, RssFile) every
    2 ms in a background thread (the sampler is off during the timed runs). This matters for reading the figures:
    the memory-mapped input's pages count towards the RSS of whoever touches them, but they are file-backed page
    cache (shared, reclaimable, not allocated by the process), whereas the pandas path's copies are anonymous
    memory. A streaming predictor should have a small peak_anon_mb whatever N is.
The input file is in the page cache when the paths run (it was just written, and each path gets a warm-up), so these
are warm-cache figures: they measure the predictor, not the disk.

The goal stated by the product issue is >= 20 M rows/s from a memory-mapped Arrow file of 10 M rows; the report says
whether peet's no-output rate meets it. --json OUT writes {"rows", "peet_rows_per_s", "peet_with_output_rows_per_s",
"sklearn_rows_per_s", "sklearn_predict_only_rows_per_s", "ratio", "identical", "peak_rss_mb": {...}, ...}.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
GOAL_ROWS_PER_S = 20e6
TOLERANCE = 1e-9
FEATURE_SET = "small"
DATA_NAME = "features.arrow"
SEED = 20240607


# --- data -----------------------------------------------------------------------------------------------------------

def synth_chunk(rng, n: int, start: int) -> dict:
    """n rows of plausible small-set features (int32) and their sentence numbers (int64, from start)."""
    import numpy as np

    # Source sentence length: 1..60 words, gamma-shaped around ~20 (short sentences and long ones both occur).
    s = np.clip(np.rint(rng.gamma(4.0, 5.0, n)), 1, 60).astype(np.int32)
    # Edits per sentence: mostly 0-3, a tail up to 8; longer sentences get slightly more.
    p = np.array([0.45, 0.22, 0.13, 0.08, 0.05, 0.03, 0.02, 0.01, 0.01])
    n_edits = rng.choice(len(p), size=n, p=p / p.sum()).astype(np.int64)
    n_edits += (rng.random(n) < s / 240.0)            # up to +1 for long sentences
    # Split the edits into replacement / missing / unnecessary; each edit weighs 1 (84%), 2 (12%) or 3 (4%) words.
    counts = rng.multinomial(n_edits, [0.55, 0.25, 0.20])
    r_n, m_n, u_n = counts[:, 0], counts[:, 1], counts[:, 2]

    def weigh(k):
        extra = rng.binomial(k, 0.16) + rng.binomial(k, 0.04)
        return (k + extra).astype(np.int32)

    R, M, U = weigh(r_n), weigh(m_n), weigh(u_n)
    U = np.minimum(U, s)                              # cannot delete more words than the sentence has
    none = (R + M + U == 0).astype(np.int32)
    edited = (R + M + U).astype(np.int32)
    t = np.maximum(s + M - U, 1).astype(np.int32)
    sentence = np.arange(start, start + n, dtype=np.int64)
    return {"sentence": sentence, "R": R, "M": M, "U": U, "NONE": none,
            "NumWordsS": s, "NumWordsT": t, "NumEditedWords": edited}


def write_features(path: Path, rows: int, batch_rows: int, seed: int = SEED) -> float:
    """Write the synthetic features file (Arrow IPC file, uncompressed, record batches of batch_rows). Seconds."""
    import numpy as np
    import pyarrow as pa

    from peet_fast.en.features import feature_table_schema

    schema = feature_table_schema(FEATURE_SET)
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    tmp = path.with_name(path.name + ".tmp")
    with pa.OSFile(str(tmp), "wb") as sink, pa.ipc.new_file(sink, schema) as writer:
        for start in range(0, rows, batch_rows):
            cols = synth_chunk(rng, min(batch_rows, rows - start), start)
            writer.write_batch(pa.RecordBatch.from_arrays([pa.array(cols[f.name]) for f in schema], schema=schema))
    os.replace(tmp, path)
    return time.perf_counter() - t0


def describe_file(path: Path) -> dict:
    import pyarrow as pa

    with pa.memory_map(str(path), "r") as src:
        reader = pa.ipc.open_file(src)
        sizes = [reader.get_batch(i).num_rows for i in range(reader.num_record_batches)]
        meta = {k.decode(): v.decode() for k, v in (reader.schema.metadata or {}).items()}
    return {"rows": sum(sizes), "record_batches": len(sizes), "max_batch_rows": max(sizes) if sizes else 0,
            "bytes": path.stat().st_size, "metadata": meta}


# --- memory ---------------------------------------------------------------------------------------------------------

def _status_kb(*keys: str) -> dict:
    out = {}
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                k, _, v = line.partition(":")
                if k in keys:
                    out[k] = int(v.split()[0])
    except OSError:
        pass
    return out


def rss_mb() -> float:
    kb = _status_kb("VmRSS").get("VmRSS")
    return kb / 1024 if kb is not None else float("nan")


def peak_rss_mb() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return r / 1024 if sys.platform != "darwin" else r / 2**20


class AnonSampler:
    """Samples RssAnon / RssFile of this process every `interval` s in a background thread; keeps the peaks."""

    def __init__(self, interval: float = 0.002):
        self.interval = interval
        self.peak = {"RssAnon": 0, "RssFile": 0, "VmRSS": 0}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self):
        for k, v in _status_kb(*self.peak).items():
            self.peak[k] = max(self.peak[k], v)

    def _run(self):
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(self.interval)

    def __enter__(self):
        self._sample()
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self._sample()

    def mb(self) -> dict:
        return {"peak_anon_mb": self.peak["RssAnon"] / 1024, "peak_file_mb": self.peak["RssFile"] / 1024,
                "sampled_peak_rss_mb": self.peak["VmRSS"] / 1024}


# --- the timed paths (each runs in its own subprocess) ---------------------------------------------------------------

def published_ridge(model):
    """A scikit-learn Ridge carrying the published model's coefficients and intercept."""
    import numpy as np
    from sklearn.linear_model import Ridge

    k = len(model.features)
    rng = np.random.default_rng(0)
    ridge = Ridge(alpha=1.0).fit(rng.random((k + 2, k)), rng.random(k + 2))   # tiny dummy fit, then overwrite
    ridge.coef_ = np.asarray(model.coefficients, dtype=np.float64).copy()
    ridge.intercept_ = float(model.intercept)
    if model.mean is not None:
        raise SystemExit("the reference path assumes an unstandardized model (the published one is)")
    return ridge


def _time(fn, repeat: int, setup=None) -> tuple[list[float], object]:
    if setup:
        setup()
    result = fn()                                   # warm-up (page cache, allocator, lazy imports), not timed
    times = []
    for _ in range(repeat):
        if setup:
            setup()                                 # not timed
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return times, result


def worker(kind: str, path: str, repeat: int, out_dir: str) -> dict:
    import numpy as np
    import pyarrow as pa

    from peet_fast.peet.model import load_model, predict_file

    model = load_model()
    features = list(model.features)
    info = {"kind": kind}

    if kind in ("peet", "peet_out"):
        out_path = os.path.join(out_dir, "peet_out.arrow") if kind == "peet_out" else None
        fn = lambda: predict_file(model, path, out_path=out_path)            # noqa: E731

        def fresh_output():
            # Time the writing of a new file: replacing an existing 160 MB output would add the cost of freeing
            # its blocks (tens of ms on ext4 with discard) to every repeat but the first.
            if out_path and os.path.exists(out_path):
                os.unlink(out_path)

        info["base_mb"] = rss_mb()
        times, (n, total) = _time(fn, repeat, fresh_output)
        info["peak_mb"] = peak_rss_mb()
        fresh_output()
        with AnonSampler() as s:
            fn()
        info.update(s.mb())
        info.update(rows=int(n), sum=float(total), times=times)
        if out_path:
            info["out_path"] = out_path
            info["out_bytes"] = os.path.getsize(out_path)
        return info

    if kind == "sklearn":
        ridge = published_ridge(model)

        def load():
            with pa.memory_map(path, "r") as src:
                return pa.ipc.open_file(src).read_all().to_pandas()

        def load_predict():
            df = load()
            return ridge.predict(df[features].to_numpy())

        info["base_mb"] = rss_mb()
        times, y = _time(load_predict, repeat)
        info["peak_mb"] = peak_rss_mb()
        with AnonSampler() as s:
            load_predict()
        info.update(s.mb())
        df = load()
        t_pred, y2 = _time(lambda: ridge.predict(df[features].to_numpy()), repeat)
        info.update(rows=int(len(y)), sum=float(y.sum()), times=times, predict_only_times=t_pred,
                    df_mb=float(df.memory_usage(index=True, deep=True).sum() / 2**20),
                    sklearn_input_dtype=str(df[features].to_numpy().dtype))
        if not np.array_equal(y, y2):
            info["warning"] = "predict-only run gave different predictions from load+predict"
        np.save(os.path.join(out_dir, "sklearn_pred.npy"), y)
        return info

    if kind == "check":
        return check(model, path, out_dir)

    raise SystemExit(f"unknown worker kind {kind!r}")


def check(model, path: str, out_dir: str) -> dict:
    """Row-by-row comparison of peet's predictions (batch-wise Model.predict, and the output file) with sklearn's."""
    import numpy as np
    import pyarrow as pa

    ref = np.load(os.path.join(out_dir, "sklearn_pred.npy"))
    parts = []
    sentences = []
    with pa.memory_map(path, "r") as src:
        reader = pa.ipc.open_file(src)
        for i in range(reader.num_record_batches):
            b = reader.get_batch(i)
            parts.append(model.predict({f: b.column(f).to_numpy(zero_copy_only=False) for f in model.features}))
            sentences.append(b.column("sentence").to_numpy())
    peet = np.concatenate(parts)
    sent = np.concatenate(sentences)
    res = {"rows": int(len(peet)), "ref_rows": int(len(ref))}
    if len(peet) == len(ref):
        diff = np.abs(peet - ref)
        j = int(diff.argmax()) if len(diff) else 0
        res.update(max_abs_diff=float(diff.max()) if len(diff) else 0.0, argmax_row=j,
                   peet_sum=float(peet.sum()), ref_sum=float(ref.sum()))
        rng = np.random.default_rng(1)
        idx = np.unique(np.concatenate([[0, len(peet) - 1, j], rng.integers(0, len(peet), 5)]))
        with pa.memory_map(path, "r") as src:
            table = pa.ipc.open_file(src).read_all()
        res["sample"] = [{"row": int(i), **{f: int(table.column(f)[int(i)].as_py()) for f in model.features},
                          "peet": float(peet[i]), "sklearn": float(ref[i])} for i in idx]
    out_path = os.path.join(out_dir, "peet_out.arrow")
    if os.path.exists(out_path):
        with pa.memory_map(out_path, "r") as src:
            out = pa.ipc.open_file(src).read_all()
        secs = out.column("seconds").to_numpy()
        res["out_rows"] = int(len(secs))
        if len(secs) == len(ref):
            res["out_max_abs_diff"] = float(np.abs(secs - ref).max()) if len(secs) else 0.0
            res["out_sentence_ok"] = bool(np.array_equal(out.column("sentence").to_numpy(), sent))
    return res


def run_worker(kind: str, path: Path, repeat: int, out_dir: Path) -> dict:
    cmd = [sys.executable, os.path.abspath(__file__), "--_worker", kind, "--_path", str(path),
           "--repeat", str(repeat), "--_out", str(out_dir)]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, env=env, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"worker {kind!r} failed (exit {proc.returncode})")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# --- main -----------------------------------------------------------------------------------------------------------

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=10_000_000, help="feature rows to generate (default 10,000,000)")
    ap.add_argument("--batch-rows", type=int, default=1 << 20,
                    help="rows per record batch of the generated file (default 1,048,576)")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per path, after one warm-up (default 3)")
    ap.add_argument("--json", metavar="OUT", help="write the results as JSON")
    ap.add_argument("--keep", metavar="DIR", help="write (and keep) the data and outputs in DIR instead of a temp dir")
    ap.add_argument("--_worker", help=argparse.SUPPRESS)
    ap.add_argument("--_path", help=argparse.SUPPRESS)
    ap.add_argument("--_out", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    from _parse_cache import private_cache   # benchmarks/ is sys.path[0] when run as a script

    args.parse_cache = private_cache()       # a fresh private parse cache (benchmarks/_parse_cache.py)

    if args._worker:
        print(json.dumps(worker(args._worker, args._path, args.repeat, args._out)))
        return 0
    if args.rows < 1 or args.batch_rows < 1 or args.repeat < 1:
        ap.error("--rows, --batch-rows and --repeat must be positive")

    sys.path.insert(0, str(ROOT))
    if args.keep:
        work = Path(args.keep)
        work.mkdir(parents=True, exist_ok=True)
        cleanup = None
    else:
        work = Path(tempfile.mkdtemp(prefix="peet-predict-bench-"))
        cleanup = work
    try:
        return run(args, work)
    finally:
        if cleanup is not None:
            shutil.rmtree(cleanup, ignore_errors=True)


def run(args, work: Path) -> int:
    import numpy as np
    import pyarrow as pa
    import sklearn

    data = work / DATA_NAME
    info = describe_file(data) if data.exists() else None
    if info and info["rows"] == args.rows and info["max_batch_rows"] == min(args.batch_rows, args.rows):
        gen_s = None
        print(f"reusing {data}")
    else:
        print(f"writing {args.rows:,} rows to {data} (record batches of {args.batch_rows:,}) ...", flush=True)
        gen_s = write_features(data, args.rows, args.batch_rows)
        info = describe_file(data)
    print(f"  {info['rows']:,} rows, {info['record_batches']} record batches, {info['bytes'] / 2**20:.0f} MiB, "
          f"metadata {info['metadata']}" + (f", written in {gen_s:.1f} s" if gen_s else ""), flush=True)

    results = {}
    for kind, label in (("peet", "peet predict_file, no output"), ("peet_out", "peet predict_file -> .arrow"),
                        ("sklearn", "pandas + sklearn Ridge")):
        print(f"timing {label} ...", flush=True)
        results[kind] = run_worker(kind, data, args.repeat, work)
    print("checking predictions row by row ...", flush=True)
    chk = run_worker("check", data, 1, work)

    n = info["rows"]
    rate = lambda ts: n / min(ts)                               # noqa: E731
    med = lambda ts: n / statistics.median(ts)                  # noqa: E731
    peet, peet_out, sk = results["peet"], results["peet_out"], results["sklearn"]
    diff_ok = chk.get("max_abs_diff", float("inf")) < TOLERANCE
    out_ok = chk.get("out_max_abs_diff", float("inf")) < TOLERANCE and chk.get("out_sentence_ok", False)
    sums_ok = all(r["rows"] == n for r in (peet, peet_out, sk)) and \
        all(abs(r["sum"] - sk["sum"]) <= TOLERANCE * n for r in (peet, peet_out))
    identical = bool(diff_ok and out_ok and sums_ok)

    report = {
        "rows": n,
        "batch_rows": min(args.batch_rows, n),
        "record_batches": info["record_batches"],
        "file_mb": info["bytes"] / 2**20,
        "repeat": args.repeat,
        "peet_rows_per_s": rate(peet["times"]),
        "peet_with_output_rows_per_s": rate(peet_out["times"]),
        "sklearn_rows_per_s": rate(sk["times"]),
        "sklearn_predict_only_rows_per_s": rate(sk["predict_only_times"]),
        "median_rows_per_s": {"peet": med(peet["times"]), "peet_with_output": med(peet_out["times"]),
                              "sklearn": med(sk["times"]), "sklearn_predict_only": med(sk["predict_only_times"])},
        "seconds": {"peet": peet["times"], "peet_with_output": peet_out["times"], "sklearn": sk["times"],
                    "sklearn_predict_only": sk["predict_only_times"]},
        "ratio": rate(peet["times"]) / rate(sk["times"]),
        "ratio_vs_predict_only": rate(peet["times"]) / rate(sk["predict_only_times"]),
        "goal_rows_per_s": GOAL_ROWS_PER_S,
        "meets_goal": rate(peet["times"]) >= GOAL_ROWS_PER_S,
        "identical": identical,
        "check": {k: chk.get(k) for k in ("max_abs_diff", "argmax_row", "out_max_abs_diff", "out_sentence_ok",
                                          "peet_sum", "ref_sum")} | {
            "sums": {"peet": peet["sum"], "peet_with_output": peet_out["sum"], "sklearn": sk["sum"]},
            "tolerance": TOLERANCE},
        "peak_rss_mb": {k: {m: round(r[m], 1) for m in ("peak_mb", "base_mb", "peak_anon_mb", "peak_file_mb")}
                        for k, r in (("peet", peet), ("peet_with_output", peet_out), ("sklearn", sk))},
        "sklearn_input_dtype": sk.get("sklearn_input_dtype"),
        "pandas_frame_mb": sk.get("df_mb"),
        "env": {"python": platform.python_version(), "numpy": np.__version__, "pyarrow": pa.__version__,
                "sklearn": sklearn.__version__, "cpus": os.cpu_count(),
                "OPENBLAS_CORETYPE": os.environ.get("OPENBLAS_CORETYPE")},
    }

    w = 34
    print()
    print(f"{'path':<{w}} {'rows/s (best)':>14} {'median':>12} {'peak RSS':>9} {'+work':>7} {'anon':>7} {'file':>7}")
    for key, label, ts in (("peet", "peet predict_file (no output)", peet["times"]),
                           ("peet_with_output", "peet predict_file -> .arrow", peet_out["times"]),
                           ("sklearn", "pandas load + sklearn predict", sk["times"]),
                           (None, "sklearn predict only", sk["predict_only_times"])):
        mem = report["peak_rss_mb"].get(key) if key else None
        mem_s = (f" {mem['peak_mb']:>7.0f}MB {mem['peak_mb'] - mem['base_mb']:>5.0f}MB {mem['peak_anon_mb']:>5.0f}MB "
                 f"{mem['peak_file_mb']:>5.0f}MB") if mem else ""
        print(f"{label:<{w}} {n / min(ts) / 1e6:>12.2f} M {n / statistics.median(ts) / 1e6:>10.2f} M{mem_s}")
    print(f"\nratio peet / (pandas+sklearn load+predict): {report['ratio']:.2f}x   "
          f"(vs sklearn predict alone: {report['ratio_vs_predict_only']:.2f}x)")
    print(f"goal >= {GOAL_ROWS_PER_S / 1e6:.0f} M rows/s: {'met' if report['meets_goal'] else 'NOT met'} "
          f"({report['peet_rows_per_s'] / 1e6:.2f} M rows/s)")
    print(f"identical: {identical}  (max |peet - sklearn| = {chk.get('max_abs_diff')}, output file "
          f"{chk.get('out_max_abs_diff')}, sentence column ok: {chk.get('out_sentence_ok')}; sums peet "
          f"{peet['sum']:.6f} / with output {peet_out['sum']:.6f} / sklearn {sk['sum']:.6f})")
    for s in chk.get("sample", []):
        feats = " ".join(f"{k}={v}" for k, v in s.items() if k not in ("row", "peet", "sklearn"))
        print(f"  row {s['row']:>9}: {feats}  peet {s['peet']:.12f}  sklearn {s['sklearn']:.12f}")
    print("peak RSS: per-path subprocess ru_maxrss; +work = peak minus RSS after imports; anon/file = sampled peak "
          "RssAnon/RssFile (mapped input pages are file-backed page cache)")

    if args.json:
        report["parse_cache"] = args.parse_cache
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(report, fh, indent=2)
            fh.write("\n")
        print(f"wrote {args.json}")
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
