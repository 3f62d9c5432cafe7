"""The parse cache through the command line: score / featurize / m2 outputs byte-equal with --no-cache, cold and
warm (fixtures; GMEG FCE from the shared corpora when present), a warm run imports no spaCy, damage is one warning
and the same output, several processes writing one cache at once, eviction under --cache-max-size, `cache info` and
`cache clear`, and the cache settings in a sharded job (not in its signature)."""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import FIXTURES, SPACY_MODEL


SAMPLE = FIXTURES / "sample"
ROOT = Path(__file__).resolve().parents[2]


def run(run_cli, *argv) -> tuple[str, str]:
    rc, out, err = run_cli(*argv)
    assert rc == 0, err
    return out, err


def segments(root: Path) -> list[Path]:
    return sorted(root.rglob("*.seg"))


def score_args(out: Path | None = None, hyps=None, refs=None) -> list:
    hyps = hyps or [SAMPLE / "system_a.txt", SAMPLE / "system_b.txt"]
    args = ["score", "-hyp", *hyps, "-ref", *(refs or [SAMPLE / "reference.txt"]), "--spacy-model", SPACY_MODEL]
    return args + (["--out", out, "--edits"] if out else [])


def three_ways(tmp_path, run_cli, make_args, read) -> None:
    """The command's output with --no-cache, then cold and warm with a fresh cache: all equal; the warm run wrote
    nothing new."""
    cache = tmp_path / "cache"
    results = []
    for k, flags in enumerate((["--no-cache"], ["--cache-dir", cache], ["--cache-dir", cache])):
        out_path = tmp_path / f"run{k}"
        stdout, _ = run(run_cli, *make_args(out_path), *flags)
        results.append((stdout, read(out_path)))
        if k == 0:
            assert not cache.exists()
        if k == 1:
            cold = segments(cache)
            assert cold
    assert results[0] == results[1] == results[2]
    assert segments(cache) == cold


def test_score_same_without_cold_and_warm(tmp_path, run_cli):
    three_ways(tmp_path, run_cli, lambda out: score_args(out.with_suffix(".tsv")),
               lambda out: out.with_suffix(".tsv").read_bytes())


def test_featurize_same_without_cold_and_warm(tmp_path, run_cli):
    pairs = FIXTURES / "en_pairs.tsv"
    rows = [line.split("\t") for line in pairs.read_text("utf-8").split("\n") if line]
    (tmp_path / "mo.txt").write_text("".join(r[0] + "\n" for r in rows), "utf-8")
    (tmp_path / "trg.txt").write_text("".join(r[1] + "\n" for r in rows), "utf-8")
    three_ways(tmp_path, run_cli,
               lambda out: ["featurize", "--mo", tmp_path / "mo.txt", "--trg", tmp_path / "trg.txt", "--out",
                            out.with_suffix(".parquet"), "--spacy-model", SPACY_MODEL],
               lambda out: pq.read_table(out.with_suffix(".parquet")))


@pytest.mark.parametrize("flags", [[], ["-tok"], ["-lev", "-merge", "all-split"]])
def test_m2_same_without_cold_and_warm(tmp_path, run_cli, flags):
    tsv = FIXTURES / ("tok_pairs.tsv" if flags == ["-tok"] else "en_pairs.tsv")
    rows = [line.split("\t") for line in tsv.read_text("utf-8").split("\n") if line]
    (tmp_path / "orig.txt").write_text("".join(r[0] + "\n" for r in rows), "utf-8")
    (tmp_path / "cor.txt").write_text("".join(r[1] + "\n" for r in rows), "utf-8")
    three_ways(tmp_path, run_cli,
               lambda out: ["m2", "-orig", tmp_path / "orig.txt", "-cor", tmp_path / "cor.txt", "-out", out,
                            "--spacy-model", SPACY_MODEL, *flags],
               lambda out: out.read_bytes())


def test_gmeg_fce_score_same_with_warm_cache(tmp_path, run_cli, shared_corpora):
    fce = shared_corpora / "gmeg" / "dev" / "fce"
    if not (fce / "amu").exists():
        pytest.skip("GMEG FCE dev not in the shared corpora")
    hyps = [fce / s for s in ("amu", "nus", "transformer")]
    refs = [fce / r for r in ("ref0", "ref1")]
    three_ways(tmp_path, run_cli, lambda out: score_args(out.with_suffix(".jsonl"), hyps, refs),
               lambda out: out.with_suffix(".jsonl").read_bytes())


RAW = ["He go to school yesterday, and he like it.", "She don't know.", "It's fine.", "It's fine.",
       "We was there (at noon)!", ""]
RAW_COR = ["He went to school yesterday, and he liked it.", "She doesn't know.", "It's fine.", "It is fine.",
           "We were there (at noon)!", ""]


@pytest.mark.parametrize("kind", ["score", "score -tok", "m2 -tok", "featurize -tok"])
def test_warm_run_imports_no_spacy(tmp_path, run_cli, kind):
    """A run whose sentences are all cached never imports spaCy; with -tok too, where sentence lengths and the
    tokens of pairs that need no parse come from spaCy's tokenizer alone (the token records of the cache). The warm
    output equals the cold one and the --no-cache one."""
    cache = tmp_path / "cache"
    (tmp_path / "raw.txt").write_text("\n".join(RAW) + "\n", "utf-8")
    (tmp_path / "cor.txt").write_text("\n".join(RAW_COR) + "\n", "utf-8")
    out = tmp_path / "out.m2"
    argv = {"score": score_args(),
            "score -tok": ["score", "--hyp", tmp_path / "raw.txt", "--ref", tmp_path / "cor.txt", "-tok",
                           "--spacy-model", SPACY_MODEL, "--out", out.with_suffix(".tsv")],
            "m2 -tok": ["m2", "-orig", tmp_path / "raw.txt", "-cor", tmp_path / "cor.txt", "-out", out, "-tok",
                        "--spacy-model", SPACY_MODEL],
            "featurize -tok": ["featurize", "--mo", tmp_path / "raw.txt", "--trg", tmp_path / "cor.txt", "-tok",
                               "--spacy-model", SPACY_MODEL, "--out", out.with_suffix(".parquet")]}[kind]

    outputs = [out, out.with_suffix(".parquet"), out.with_suffix(".tsv")]

    def written() -> bytes:
        found = [p for p in outputs if p.exists()]
        return found[0].read_bytes() if found else b""

    expected, _ = run(run_cli, *argv, "--no-cache")
    expected_file = written()
    for p in outputs:
        p.unlink(missing_ok=True)
    cold, _ = run(run_cli, *argv, "--cache-dir", cache)
    assert (cold, written()) == (expected, expected_file)
    for p in outputs:
        p.unlink(missing_ok=True)
    code = ("import sys; from peet_fast.cli import main; rc = main(sys.argv[1:]); "
            "print('SPACY' if 'spacy' in sys.modules else 'NO-SPACY', file=sys.stderr); sys.exit(rc)")
    res = subprocess.run([sys.executable, "-c", code, *map(str, argv), "--cache-dir", str(cache)],
                         capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert res.returncode == 0, res.stderr
    assert (res.stdout, written()) == (expected, expected_file)
    assert res.stderr.strip().splitlines()[-1] == "NO-SPACY"


def test_damaged_file_one_warning_same_result_rebuilt(tmp_path, run_cli):
    cache = tmp_path / "cache"
    expected, _ = run(run_cli, *score_args(), "--cache-dir", cache)
    [seg] = segments(cache)
    seg.write_bytes(seg.read_bytes()[:-7])                   # truncated
    out, err = run(run_cli, *score_args(), "--cache-dir", cache)
    assert out == expected
    warnings = [line for line in err.splitlines() if "warning: parse cache" in line]
    assert len(warnings) == 1 and str(seg) in warnings[0] and "damaged" in warnings[0]
    assert not seg.exists() and len(segments(cache)) == 1    # removed, and its sentences written anew
    out, err = run(run_cli, *score_args(), "--cache-dir", cache)
    assert out == expected and "warning" not in err


WRITER = """
import random, sys
from peet_fast.en.parse import Parser
texts = sys.argv[3].split("\\n")
random.Random(int(sys.argv[2])).shuffle(texts)
p = Parser(spacy_model=sys.argv[1], cache_dir=sys.argv[4], batch_size=7)
for lo in range(0, len(texts), 25):        # many small segments, written while the others write theirs
    p.parse(texts[lo:lo + 25])
"""


def test_concurrent_writers_one_cache_dir(tmp_path):
    rows = [line.split("\t") for line in (FIXTURES / "en_pairs.tsv").read_text("utf-8").split("\n") if line]
    texts = sorted({t for r in rows for t in r if t.strip()})
    cache = tmp_path / "cache"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, SPACY_MODEL, str(seed), "\n".join(texts), str(cache)],
                              cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True) for seed in range(3)]
    for p in procs:
        assert p.wait(timeout=600) == 0, p.stderr.read()
        assert p.stderr.read() == ""                          # no damage seen, no failed write
    from peet_fast.en.parse import Parser

    warm = Parser(spacy_model=SPACY_MODEL, cache_dir=str(cache))
    got = warm.parse(texts)
    assert warm.n_parsed == 0 and not warm.loaded
    ref = Parser(spacy_model=SPACY_MODEL, cache=False).parse(texts)
    assert all(got[k].text == ref[k].text and (got[k].arrays == ref[k].arrays).all() and got[k].tag_ == ref[k].tag_
               and got[k].dep_ == ref[k].dep_ and got[k].lower_ == ref[k].lower_ and got[k].ws == ref[k].ws
               for k in ref)


def test_cache_max_size_bounds_the_cache(tmp_path, run_cli):
    cache = tmp_path / "cache"
    expected, _ = run(run_cli, *score_args(), "--cache-dir", cache, "--no-cache")
    out, _ = run(run_cli, *score_args(), "--cache-dir", cache, "--cache-max-size", "1K")
    assert out == expected
    assert sum(p.stat().st_size for p in segments(cache)) <= 1024


def test_cache_info_and_clear(tmp_path, run_cli):
    cache = tmp_path / "cache"
    run(run_cli, *score_args(), "--cache-dir", cache)
    run(run_cli, *score_args(), "--cache-dir", cache, "-tok")
    out, _ = run(run_cli, "cache", "info", "--json", "--cache-dir", cache)
    info = json.loads(out)
    assert info["dir"] == str(cache) and len(info["fingerprints"]) == 3     # -tok also keeps tokenizer output
    assert sorted((d["fingerprint"]["tokenise"], d["fingerprint"].get("records", "")) for d in info["fingerprints"]) \
        == [(False, ""), (True, ""), (True, "tokens")]
    assert all(d["entries"] > 0 and d["bytes"] > 0 for d in info["fingerprints"])
    text, _ = run(run_cli, "cache", "info", "--cache-dir", cache)
    assert f"entries: {sum(d['entries'] for d in info['fingerprints'])};" in text and SPACY_MODEL in text
    assert sum("tokens only" in line for line in text.splitlines()) == 1
    _, err = run(run_cli, "cache", "clear", "--cache-dir", cache)
    assert "cleared" in err and not segments(cache)
    out, _ = run(run_cli, "cache", "info", "--json", "--cache-dir", cache)
    assert json.loads(out)["fingerprints"] == []


def test_default_dir_is_the_suites_temporary_one(tmp_path, run_cli):
    run(run_cli, *score_args())
    assert segments(Path(os.environ["PEET_FAST_CACHE"]))
    assert not str(Path(os.environ["PEET_FAST_CACHE"])).startswith(str(Path.home() / ".cache"))


def test_cache_flags_refused_for_chinese(tmp_path, run_cli):
    src = tmp_path / "s.txt"
    src.write_text("我们一起去\n", "utf-8")
    rc, _, err = run_cli("m2", "-orig", src, "-cor", src, "-out", tmp_path / "o.m2", "--lang", "zh", "--no-cache")
    assert rc == 2 and "--no-cache: is for --lang en only" in err


def test_job_carries_cache_settings_outside_its_signature(tmp_path, run_cli):
    from peet_fast.jobs import JobSpec
    from peet_fast.jobs.sources import text_source

    source = text_source([str(SAMPLE / "system_a.txt"), str(SAMPLE / "reference.txt")])
    assert JobSpec("featurize", source).signature() == JobSpec(
        "featurize", source, cache={"cache": False, "cache_dir": "/x"}).signature()
    cache = tmp_path / "cache"
    flat, _ = run(run_cli, *score_args(), "--cache-dir", cache)
    before = segments(cache)
    out, _ = run(run_cli, *score_args(tmp_path / "job"), "--cache-dir", cache, "--shard-rows", "10")
    assert out == flat and segments(cache) == before          # the shards' workers read the warm cache
    out, _ = run(run_cli, *score_args(tmp_path / "job2"), "--no-cache", "--shard-rows", "10")
    assert out == flat


def test_random_subsets_warm_in_any_order(tmp_path):
    """Batches of any mix of cached and new sentences parse to spaCy's own."""
    from peet_fast.en.parse import Parser

    rows = [line.split("\t") for line in (FIXTURES / "en_pairs.tsv").read_text("utf-8").split("\n") if line]
    texts = [t for r in rows for t in r]
    ref = Parser(spacy_model=SPACY_MODEL, cache=False).parse(texts)
    rng = random.Random(7)
    for _ in range(4):
        batch = rng.sample(texts, 60)
        got = Parser(spacy_model=SPACY_MODEL, cache_dir=str(tmp_path)).parse(batch)
        assert all(got[k].text == ref[k].text and (got[k].arrays == ref[k].arrays).all() for k in got)
