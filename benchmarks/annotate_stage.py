"""The annotate stage alone: align + merge + classify on already-parsed sentence pairs, peet-fast vs errant.

Both sides get the same spaCy Docs (parsed once, up front, not timed): errant runs Annotator.annotate(orig_doc, cor_doc)
per pair, as errant_parallel does; peet-fast converts each Doc to token arrays (timed separately: it belongs to the
parse stage) and runs its compiled annotate over the batch. Only pairs whose texts differ are annotated (errant_parallel
writes a noop for the others). The edits are checked to be identical.

    python benchmarks/annotate_stage.py [--orig FILE --cor FILE] [--repeat N] [--json OUT]

Default input: ../shared/corpora/peet/CONLL14/gector_OP.txt -> gector_EC.txt when present, else the test fixtures."""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHARED = HERE.parent.parent / "shared" / "corpora" / "peet" / "CONLL14"


def load_pairs(args):
    from peet_fast.io import read_parallel

    if args.orig and args.cor:
        origs, cors = read_parallel([args.orig, args.cor])
        name = f"{args.orig} -> {args.cor}"
    elif SHARED.exists():
        origs, cors = read_parallel([SHARED / "gector_OP.txt", SHARED / "gector_EC.txt"])
        name = "peet/CONLL14 gector_OP -> gector_EC"
    else:
        rows = [l.split("\t") for l in (HERE.parent / "tests" / "fixtures" / "en_pairs.tsv").read_text("utf-8").splitlines()]
        origs, cors = [r[0] for r in rows], [r[1] for r in rows]
        name = "tests/fixtures/en_pairs.tsv"
    pairs = [(o.strip(), c.strip()) for o, c in zip(origs, cors) if " ".join(o.split()) != c.strip() and o.strip()]
    return name, len(origs), pairs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--orig")
    ap.add_argument("--cor")
    ap.add_argument("--repeat", type=int, default=5, help="timing repeats; the best is reported (default 5)")
    ap.add_argument("--json", help="write the results as JSON here")
    args = ap.parse_args(argv)
    from _parse_cache import private_cache   # benchmarks/ is sys.path[0] when run as a script

    CACHE = private_cache()       # a fresh private parse cache (benchmarks/_parse_cache.py)

    import errant
    from peet_fast.en.annotator import Annotator, configure_classifier
    from peet_fast._ext.annotate import annotate_many
    from peet_fast.en.parse import load_pipeline

    name, n_lines, pairs = load_pairs(args)
    nlp = load_pipeline()
    oracle = errant.load("en", nlp=nlp)
    ours = Annotator(nlp)
    configure_classifier()

    t0 = time.perf_counter()
    o_docs = [oracle.parse(o) for o, _ in pairs]
    c_docs = [oracle.parse(c) for _, c in pairs]
    parse_s = time.perf_counter() - t0

    best_conv = best_ours = best_errant = float("inf")
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        o_s = [ours.parser.doc_to_sent(d) for d in o_docs]
        c_s = [ours.parser.doc_to_sent(d) for d in c_docs]
        best_conv = min(best_conv, time.perf_counter() - t0)
    # both tools annotate the same already-parsed sentences, repeatedly; the best run of each is reported
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        got = annotate_many(o_s, c_s, False, "rules")
        best_ours = min(best_ours, time.perf_counter() - t0)
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        ref = [oracle.annotate(o, c) for o, c in zip(o_docs, c_docs)]
        best_errant = min(best_errant, time.perf_counter() - t0)

    ref_t = [[(e.o_start, e.o_end, e.c_start, e.c_end, e.o_str, e.c_str, e.type) for e in r] for r in ref]
    identical = ref_t == [list(g) for g in got]
    n_edits = sum(len(r) for r in ref_t)
    res = {
        "input": name, "lines": n_lines, "annotated_pairs": len(pairs), "edits": n_edits,
        "errant_annotate_s": best_errant, "peet_annotate_s": best_ours, "peet_doc_to_arrays_s": best_conv,
        "ratio_annotate": best_errant / best_ours,
        "ratio_including_doc_to_arrays": best_errant / (best_ours + best_conv),
        "errant_ms_per_pair": 1000 * best_errant / len(pairs), "peet_us_per_pair": 1e6 * best_ours / len(pairs),
        "spacy_parse_s_one_at_a_time": parse_s, "identical": identical,
    }
    print(f"input: {name}: {len(pairs)} changed pairs of {n_lines} lines, {n_edits} edits")
    print(f"errant annotate:       {best_errant:8.3f} s  ({res['errant_ms_per_pair']:.2f} ms/pair)")
    print(f"peet-fast annotate:    {best_ours:8.3f} s  ({res['peet_us_per_pair']:.1f} us/pair)   "
          f"ratio {res['ratio_annotate']:.0f}x")
    print(f"  + Doc -> arrays:     {best_conv:8.3f} s  (parse stage)            "
          f"ratio incl. {res['ratio_including_doc_to_arrays']:.0f}x")
    print(f"(spaCy parse of the same sentences, one at a time: {parse_s:.1f} s)")
    print(f"identical edits: {identical}")
    if args.json:
        from peet_fast.io import atomic_write
        res["parse_cache"] = CACHE
        with atomic_write(args.json) as fh:
            json.dump(res, fh, indent=2)
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
