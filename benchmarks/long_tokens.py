"""Pathological tokens (issue 12): one random token of N characters against itself with one character changed, and
against a copy changed at both ends and in the middle (nothing in common to strip), timed in the character kernels
(Indel distance as the aligner uses it, Levenshtein similarity as the classifier uses it) next to rapidfuzz, and
optionally end to end (spaCy parse + annotate) next to errant.

    python benchmarks/long_tokens.py [--sizes 100000 1000000] [--ends-sizes 100000] [--annotate] [--errant]

Runs against whichever peet_fast is importable (PYTHONPATH=<tree>), so the same script times a tree before and after
a kernel change; it uses only entry points that exist in both."""
from __future__ import annotations

import argparse
import random
import time


def _timed(fn, *args):
    t0 = time.perf_counter()
    value = fn(*args)
    return time.perf_counter() - t0, value


def _one_token(text: str):
    import numpy as np
    from peet_fast._ext.tokens import Sent

    return Sent(np.array([[1, 2, 3, 92, 4, 5, 0]], dtype=np.uint64), [text], [True], [text.lower()], ["NN"], ["dep"])


def kernels(label: str, a: str, b: str) -> None:
    """Time the two kernel distances and rapidfuzz's on one pair; check they agree."""
    from peet_fast._ext.classify import levenshtein_normalized_similarity
    from peet_fast._ext.tokens import indel_distance
    from rapidfuzz.distance import Indel, Levenshtein

    t_in, d_in = _timed(indel_distance, _one_token(a), 0, _one_token(b), 0)
    t_rin, r_in = _timed(Indel.normalized_distance, a, b)
    t_lev, d_lev = _timed(levenshtein_normalized_similarity, a, b)
    t_rlev, r_lev = _timed(Levenshtein.normalized_similarity, a, b)
    assert d_in == r_in and d_lev == r_lev, (d_in, r_in, d_lev, r_lev)
    print(f"{label}: Indel {t_in:.3f} s (rapidfuzz {t_rin:.3f} s)  "
          f"Levenshtein {t_lev:.3f} s (rapidfuzz {t_rlev:.3f} s)", flush=True)


def end_to_end(label: str, a: str, b: str, with_errant: bool) -> None:
    """Parse and annotate the pair with peet-fast (and errant); the edits must agree."""
    from peet_fast.en.annotator import Annotator

    ann = Annotator()
    ann.annotate("warm up .", "warm up !")
    t_pf, edits = _timed(ann.annotate, a, b)
    line = f"{label}: peet-fast annotate {t_pf:.2f} s ({len(edits)} edit(s))"
    if with_errant:
        import errant

        er = errant.load("en", nlp=ann.nlp)
        t_er, er_edits = _timed(lambda: er.annotate(er.parse(a), er.parse(b)))
        line += f"  errant {t_er:.2f} s ({len(er_edits)} edit(s))"
    print(line, flush=True)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="*", default=[100_000, 1_000_000])
    ap.add_argument("--ends-sizes", type=int, nargs="*", default=[100_000],
                    help="sizes of the pair changed at both ends too (nothing to strip: the bit-parallel part)")
    ap.add_argument("--annotate", action="store_true", help="also time parse + annotate")
    ap.add_argument("--errant", action="store_true", help="with --annotate, time errant too")
    args = ap.parse_args(argv)
    from _parse_cache import private_cache   # benchmarks/ is sys.path[0] when run as a script

    CACHE = private_cache()       # a fresh private parse cache (benchmarks/_parse_cache.py)
    print(f"parse cache: a fresh private directory ({CACHE['dir']}), removed at exit")
    rng = random.Random(1)
    for n in args.sizes:
        a = "".join(rng.choice("abcdefghij") for _ in range(n))
        b = a[: n // 2] + "z" + a[n // 2 + 1:]
        kernels(f"{n:,} chars, one change", a, b)
        if args.annotate:
            end_to_end(f"{n:,} chars, one change", a, b, args.errant)
    for n in args.ends_sizes:
        a = "".join(rng.choice("abcdefghij") for _ in range(n))
        b = "z" + a[1: n // 2] + "y" + a[n // 2 + 1: -1] + "x"
        kernels(f"{n:,} chars, both ends and the middle changed", a, b)


if __name__ == "__main__":
    main()
