"""Chinese char-level M2 throughput: `peet-fast m2 --lang zh` against ChERRANT's parallel_to_m2.py, in one run.

    python benchmarks/zh_m2.py --cherrant DIR [--corpus DIR] [--lines N] [--strategy all|first] [--json OUT]

DIR is a checkout of MuCGEC's scorers/ChERRANT (e.g. `git archive` of github.com/HillZhang1999/MuCGEC, kept outside
this repository; nothing of it is committed here) with its own data/cilin.txt and data/confusion_dict.txt. ChERRANT
needs pypinyin, opencc and python-Levenshtein (pip install levenshtein); it imports ltp and torch at module level but
never uses them at char granularity, so this script puts tiny stand-in modules for those two in front of its path
(a temporary folder), which leaves ChERRANT's own code and char-mode behaviour untouched.

Both sides run as separate processes on the same input (the MuCGEC dev set from ../shared/corpora/mucgec, or its
first N lines), timed end to end (process start, resource loading, annotation, writing); both outputs must be
byte-identical. Reported: lines/s and (source, target) pairs/s of each side and the ratio; plus peet-fast's
steady-state rate in this process (annotator built first, untimed). Without --cherrant only peet-fast is timed.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = (HERE / ".." / "shared" / "corpora" / "mucgec").resolve()

STUBS = {
    "ltp/__init__.py": "class LTP:  # stand-in: ChERRANT imports LTP at module level, uses it only for words\n"
                       "    pass\n",
    "torch/__init__.py": "class cuda:  # stand-in: imported by ChERRANT at module level, unused for chars\n"
                         "    @staticmethod\n"
                         "    def is_available():\n"
                         "        return False\n\n"
                         "def device(name):\n"
                         "    return name\n",
}


def _timed(cmd: list, env: dict, cwd: str | None = None) -> float:
    t0 = time.perf_counter()
    res = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if res.returncode != 0:
        sys.exit(f"failed ({res.returncode}): {' '.join(cmd)}\n{res.stderr[-2000:]}")
    return dt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cherrant", type=Path, help="a checkout of MuCGEC's scorers/ChERRANT (outside this repo)")
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="the mucgec corpus folder")
    ap.add_argument("--lines", type=int, default=0, help="only the first N lines of the dev set (0: all)")
    ap.add_argument("--strategy", choices=["all", "first"], default="all")
    ap.add_argument("--json", type=Path, help="write the figures as JSON")
    args = ap.parse_args()
    from _parse_cache import private_cache   # benchmarks/ is sys.path[0] when run as a script

    CACHE = private_cache()       # a fresh private parse cache (benchmarks/_parse_cache.py)

    dev = args.corpus / "MuCGEC_dev.txt"
    if not dev.is_file():
        sys.exit(f"no MuCGEC dev set at {dev}")
    lines = dev.read_text(encoding="utf-8").strip().split("\n")
    if args.lines:
        lines = lines[:args.lines]
    pairs = sum(len(line.split("\t")) - 2 for line in lines)
    tmp = Path(tempfile.mkdtemp(prefix="zh_m2_bench_"))
    para = tmp / "dev.para"
    para.write_text("\n".join(lines) + "\n", encoding="utf-8")
    res = {"lines": len(lines), "pairs": pairs, "strategy": args.strategy}

    env = dict(os.environ)
    cherrant = args.cherrant.resolve() if args.cherrant else None
    cilin = cherrant / "data" / "cilin.txt" if cherrant else args.corpus / "resources" / "cilin.txt"
    confusion = (cherrant / "data" / "confusion_dict.txt" if cherrant
                 else args.corpus / "resources" / "confusion_dict.txt")
    ours_out = tmp / "ours.m2"
    ours_s = _timed([sys.executable, "-m", "peet_fast.cli", "m2", "--lang", "zh", "-para", str(para),
                     "-out", str(ours_out), "-s", args.strategy, "--cilin", str(cilin), "--confusion", str(confusion)],
                    env)
    res["peet_fast_s"] = round(ours_s, 3)
    res["peet_fast_lines_per_s"] = round(len(lines) / ours_s, 1)
    res["peet_fast_pairs_per_s"] = round(pairs / ours_s, 1)

    # steady state in this process (resources loaded, untimed)
    sys.path.insert(0, str(HERE))
    from peet_fast.formats.para import read_para
    from peet_fast.zh.m2 import zh_block
    from peet_fast.zh import ZhAnnotator

    ann = ZhAnnotator(cilin=cilin, confusion=confusion)
    sources, targets = read_para(str(para))
    t0 = time.perf_counter()
    for s, t in zip(sources, targets):
        zh_block(ann, s, t, args.strategy)
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    for s, t in zip(sources, targets):
        zh_block(ann, s, t, args.strategy)
    warm = time.perf_counter() - t0
    res["peet_fast_in_process_first_pass_pairs_per_s"] = round(pairs / first, 1)
    res["peet_fast_in_process_warm_pairs_per_s"] = round(pairs / warm, 1)

    if cherrant:
        stubs = tmp / "stubs"
        for rel, text in STUBS.items():
            (stubs / rel).parent.mkdir(parents=True, exist_ok=True)
            (stubs / rel).write_text(text)
        env_c = dict(env)
        env_c["PYTHONPATH"] = os.pathsep.join(p for p in (str(stubs), env.get("PYTHONPATH", "")) if p)
        ref_out = tmp / "cherrant.m2"
        ref_s = _timed([sys.executable, "parallel_to_m2.py", "-f", str(para), "-o", str(ref_out), "-g", "char",
                        "-s", args.strategy], env_c, cwd=str(cherrant))
        res["cherrant_s"] = round(ref_s, 3)
        res["cherrant_lines_per_s"] = round(len(lines) / ref_s, 2)
        res["cherrant_pairs_per_s"] = round(pairs / ref_s, 2)
        res["ratio"] = round(ref_s / ours_s, 1)
        res["identical_output"] = ref_out.read_bytes() == ours_out.read_bytes()

    for k, v in res.items():
        print(f"{k:48s} {v}")
    if args.json:
        res["parse_cache"] = CACHE
        args.json.write_text(json.dumps(res, indent=2) + "\n")


if __name__ == "__main__":
    main()
