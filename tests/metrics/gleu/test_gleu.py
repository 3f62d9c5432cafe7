"""peet-fast gleu against the official compute_gleu (cnap/gec-ranking, 2016 update).

- fixtures: tests/fixtures/gleu/expected/*.out is what the official printed (recorded by make_fixtures.py) for the
  command lines of cases.py over hand-written edge cases and over real CoNLL-14 sentences; our output must be the
  same bytes;
- differential: where the official script (PEET_FAST_GLEU_SCRIPT=.../compute_gleu) and Python 2.7 with numpy and
  scipy (PEET_FAST_PYTHON2, default python2) are present, random corpora run through both;
- the reference draws: Python 2's random.seed(seed) + randint(0, high), recorded by python2 for compute_gleu's seeds,
  and, for any seed, a plain MT19937 written out below (init_by_array + genrand_res53);
- the metric interface (corpus score, resamples), the API, bad input (exit 2, one line naming the file)."""
from __future__ import annotations

import importlib.util
import io
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import peet_fast
from peet_fast.cli import main
from peet_fast.formats.m2 import annotator_corrections, parse_m2
from peet_fast.io import InputError
from peet_fast.metrics import gleu as G
from peet_fast.metrics.base import EvalSet, get_metric

FIXTURES = Path(__file__).parents[2] / "fixtures" / "gleu"


def _load_cases():
    spec = importlib.util.spec_from_file_location("gleu_cases", FIXTURES / "cases.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CASES = _load_cases()


def run_ours(args: list[str], cwd: Path, stdin: bytes | None, capsysbinary, monkeypatch) -> tuple[int, bytes, bytes]:
    monkeypatch.chdir(cwd)
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    status = main(["gleu", *args])
    out, err = capsysbinary.readouterr()
    return status, out, err


@pytest.mark.parametrize("name,args,stdin", CASES.HAND_CASES, ids=[c[0] for c in CASES.HAND_CASES])
def test_hand_cases_match_official_output(name, args, stdin, capsysbinary, monkeypatch):
    data = (CASES.HAND / stdin).read_bytes() if stdin else None
    status, out, err = run_ours(args, CASES.HAND, data, capsysbinary, monkeypatch)
    assert status == 0, err
    assert out == (CASES.EXPECTED / f"{name}.out").read_bytes()


@pytest.fixture(scope="module")
def real_inputs(shared_corpora, tmp_path_factory):
    dest = tmp_path_factory.mktemp("gleu_real")
    digests = CASES.build_real(shared_corpora, dest)
    recorded = json.loads((FIXTURES / "real_inputs.json").read_text())
    assert digests == recorded, "the real-sentence inputs differ from those the fixtures were recorded on"
    return dest


@pytest.mark.parametrize("name,args,stdin", CASES.REAL_CASES, ids=[c[0] for c in CASES.REAL_CASES])
def test_real_sentences_match_official_output(name, args, stdin, real_inputs, capsysbinary, monkeypatch):
    status, out, err = run_ours(args, real_inputs, None, capsysbinary, monkeypatch)
    assert status == 0, err
    assert out == (CASES.EXPECTED / f"{name}.out").read_bytes()


# --- Python 2's random stream ---------------------------------------------------------------------------------

class MT19937:
    """The Mersenne Twister as Python (2 and 3) seeds and draws it: init_by_array over |seed|'s 32-bit words,
    random() = genrand_res53."""

    def __init__(self, seed: int):
        seed = abs(seed)
        key = []
        while seed:
            key.append(seed & 0xFFFFFFFF)
            seed >>= 32
        key = key or [0]
        mt = [0] * 624
        mt[0] = 19650218
        for i in range(1, 624):
            mt[i] = (1812433253 * (mt[i - 1] ^ (mt[i - 1] >> 30)) + i) & 0xFFFFFFFF
        i, j = 1, 0
        for _ in range(max(624, len(key))):
            mt[i] = ((mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525)) + key[j] + j) & 0xFFFFFFFF
            i, j = i + 1, j + 1
            if i >= 624:
                mt[0], i = mt[623], 1
            if j >= len(key):
                j = 0
        for _ in range(623):
            mt[i] = ((mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941)) - i) & 0xFFFFFFFF
            i += 1
            if i >= 624:
                mt[0], i = mt[623], 1
        mt[0] = 0x80000000
        self.mt, self.index = mt, 624

    def _int32(self) -> int:
        mt = self.mt
        if self.index >= 624:
            for k in range(624):
                y = (mt[k] & 0x80000000) | (mt[(k + 1) % 624] & 0x7FFFFFFF)
                mt[k] = mt[(k + 397) % 624] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
            self.index = 0
        y = mt[self.index]
        self.index += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        return y ^ (y >> 18)

    def random(self) -> float:
        a, b = self._int32() >> 5, self._int32() >> 6
        return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0)


def test_draws_equal_python2_recorded():
    table = json.loads((FIXTURES / "python2_draws.json").read_text())
    for high, rows in table.items():
        for seed, digits in rows:
            got = G.python2_randint_stream(seed, int(high), len(digits))
            assert "".join(map(str, got.tolist())) == digits, (seed, high)


def test_compute_gleu_draws_are_the_recorded_ones():
    table = json.loads((FIXTURES / "python2_draws.json").read_text())
    rows = {seed: digits for seed, digits in table["1"]}
    picks = G.draws(40, 2, 500)
    for j in range(500):
        assert "".join(map(str, picks[j].tolist())) == rows[j * 101]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(-(2 ** 100), 2 ** 100), high=st.integers(0, 30), count=st.integers(0, 40))
def test_draws_equal_plain_mersenne_twister(seed, high, count):
    mt = MT19937(seed)
    expected = [int(mt.random() * (high + 1)) for _ in range(count)]
    assert G.python2_randint_stream(seed, high, count).tolist() == expected
    stdlib = random.Random(seed)          # Python 3 seeds an int as Python 2 does; random() is the same
    assert [int(stdlib.random() * (high + 1)) for _ in range(count)] == expected


# --- the differential test against the official script ----------------------------------------------------------

def _official():
    script = os.environ.get("PEET_FAST_GLEU_SCRIPT")
    python2 = os.environ.get("PEET_FAST_PYTHON2", "python2")
    if not script or not Path(script).is_file() or not shutil.which(python2):
        return None
    check = subprocess.run([python2, "-c", "import numpy, scipy.stats"], capture_output=True)
    return (python2, script) if check.returncode == 0 else None


OFFICIAL = _official()
needs_official = pytest.mark.skipif(OFFICIAL is None, reason="compute_gleu or Python 2.7 with numpy/scipy absent "
                                                             "(set PEET_FAST_GLEU_SCRIPT, PEET_FAST_PYTHON2)")
WORDS = ["the", "a", "cat", "cats", "sat", "on", "mat", ".", ",", "is", "are", "he", "go", "goes", "é", "x"]
sentence = st.lists(st.sampled_from(WORDS), max_size=9).map(" ".join)


@needs_official
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_corpora_match_official(data, tmp_path_factory, capsysbinary, monkeypatch):
    n = data.draw(st.integers(1, 8))
    n_refs = data.draw(st.integers(1, 4))
    texts = {"src.txt": data.draw(st.lists(sentence, min_size=n, max_size=n))}
    for r in range(n_refs):
        texts[f"ref{r}.txt"] = data.draw(st.lists(sentence, min_size=n, max_size=n))
    texts["hyp.txt"] = data.draw(st.lists(sentence, min_size=n, max_size=n))
    args = ["-s", "src.txt", "-r", *[f"ref{r}.txt" for r in range(n_refs)], "-o", "hyp.txt", "src.txt",
            "-n", str(data.draw(st.integers(1, 5))), "--iter", str(data.draw(st.integers(1, 30)))]
    if data.draw(st.booleans()):
        args.append("-d")
    where = tmp_path_factory.mktemp("gleu_diff")
    for name, lines in texts.items():
        (where / name).write_text("".join(s + "\n" for s in lines), encoding="utf-8")
    python2, script = OFFICIAL
    official = subprocess.run([python2, script, *args], cwd=where, capture_output=True, check=True).stdout
    status, out, err = run_ours(args, where, None, capsysbinary, monkeypatch)
    assert status == 0, err
    assert out == official, args


@needs_official
def test_hand_inputs_run_through_official(capsysbinary, monkeypatch):
    python2, script = OFFICIAL
    args = ["-s", "src.txt", "-r", "ref0.txt", "ref2.txt", "ref3.txt", "--iter", "23", "-d", "-o", "hyp_crlf.txt"]
    official = subprocess.run([python2, script, *args], cwd=CASES.HAND, capture_output=True, check=True).stdout
    status, out, _ = run_ours(args, CASES.HAND, None, capsysbinary, monkeypatch)
    assert (status, out) == (0, official)


# --- the metric interface and the API ---------------------------------------------------------------------------

def _hand(name: str) -> list[str]:
    return (CASES.HAND / name).read_text(encoding="utf-8").split("\n")[:-1]


def _expected_scores(name: str) -> dict[str, str]:
    return dict(line.split(" ") for line in (CASES.EXPECTED / name).read_text().splitlines())


def test_metric_corpus_score_is_official_figure():
    data = EvalSet(_hand("src.txt"), [_hand("ref0.txt"), _hand("ref1.txt"), _hand("ref2.txt"), _hand("ref3.txt")])
    metric = get_metric("gleu")
    expected = _expected_scores("hand_4ref.out")
    for name in ("hyp.txt", "src.txt", "ref2.txt"):
        stats = metric.sentence_stats(_hand(name), data)
        assert stats.shape == (12, 504, 10)      # 500 iterations, then the 4 references
        assert "%f" % metric.corpus_score(stats) == expected[name]


def test_metric_n_and_single_reference():
    expected = _expected_scores("hand_n3.out")
    data = EvalSet(_hand("src.txt"), [_hand(f"ref{k}.txt") for k in range(4)])
    metric = get_metric("gleu", n=3)
    assert "%f" % metric.corpus_score(metric.sentence_stats(_hand("hyp.txt"), data)) == expected["hyp.txt"]
    one = get_metric("gleu").sentence_stats(_hand("hyp.txt"), EvalSet(_hand("src.txt"), [_hand("ref0.txt")]))
    assert one.shape == (12, 2, 10)         # one reference: one iteration, as compute_gleu; then the reference
    assert "%f" % get_metric("gleu").corpus_score(one) == _expected_scores("hand_1ref.out")["hyp.txt"]


def test_bootstrap_equals_corpus_score_of_each_resample():
    data = EvalSet(_hand("src.txt"), [_hand("ref0.txt"), _hand("ref1.txt"), _hand("ref2.txt")])
    metric = get_metric("gleu", iterations=40)
    stats = metric.sentence_stats(_hand("hyp.txt"), data)
    rng = np.random.default_rng(5)
    idx = np.vstack([np.arange(12), rng.integers(0, 12, size=(30, 12))])
    got = metric.bootstrap(stats, idx)
    want = np.array([metric.corpus_score(stats[row]) for row in idx])
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    assert (got > 0).any() and len(set(np.round(got, 9))) > 5


def test_api_matches_official_report():
    refs = [_hand("ref0.txt"), _hand("ref1.txt")]
    result = peet_fast.gleu(_hand("src.txt"), refs, _hand("hyp.txt"))
    expected = (CASES.EXPECTED / "hand_2ref_d.out").read_text().split("\n")
    assert result.lines("hyp.txt", debug=True) == expected[:19]       # the first of its two reports
    assert "%f" % result.score == _expected_scores("hand_2ref.out")["hyp.txt"]
    assert result.sentences.shape == (12, 4)
    several = peet_fast.gleu(_hand("src.txt"), refs, {"a": _hand("hyp.txt"), "b": _hand("src.txt")})
    assert ["%f" % several[k].score for k in "ab"] == [_expected_scores("hand_2ref.out")[f] for f in
                                                        ("hyp.txt", "src.txt")]
    with pytest.raises(InputError, match="differ in length"):
        peet_fast.gleu(_hand("src.txt"), refs, _hand("hyp.txt")[:-1])


# --- bad input --------------------------------------------------------------------------------------------------

def _bad(args, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status = main(["gleu", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_bad_input(tmp_path, capsys, monkeypatch):
    for name in ("src.txt", "ref0.txt", "hyp.txt"):
        shutil.copy(CASES.HAND / name, tmp_path / name)
    (tmp_path / "short.txt").write_text("a\nb\n")
    (tmp_path / "empty.txt").write_bytes(b"")
    (tmp_path / "bad.txt").write_bytes(b"ok\n" * 4 + b"caf\xe9\n" + b"ok\n" * 7)
    (tmp_path / "nul.txt").write_bytes(b"ok\n" * 2 + b"a\x00b\n" + b"ok\n" * 9)
    base = ["-s", "src.txt", "-r", "ref0.txt", "-o"]
    cases = [(base + ["short.txt"], "short.txt: 2 lines"),
             (base + ["missing.txt"], "missing.txt: no such file"),
             (base + ["bad.txt"], "bad.txt:5: invalid UTF-8 (byte 0xe9 at column 4)"),
             (base + ["nul.txt"], "nul.txt:3: contains a NUL byte"),
             (["-s", "short.txt", "-r", "ref0.txt", "-o", "hyp.txt"], "short.txt: the files differ in line count"),
             (base + ["hyp.txt", "-n", "0"], "-n: the n-gram order must be an integer of at least 1"),
             (base + ["hyp.txt", "--iter", "0"], "--iter: the number of iterations must be"),
             (["-s", "empty.txt", "-r", "empty.txt", "-o", "empty.txt"], "empty.txt: no sentences"),
             (base + ["-", "-"], "-o: standard input ('-') can be read once")]
    for args, message in cases:
        status, out, err = _bad(args, tmp_path, capsys, monkeypatch)
        assert status == 2, args
        assert out == ""
        assert len(err.strip().splitlines()) == 1 and message in err, err


# --- the M2 helper the CoNLL-14 references come from ------------------------------------------------------------

def test_annotator_corrections():
    m2 = """S The cat sat on mat in the house .
A 4 4|||ArtOrDet|||the|||REQUIRED|||-NONE-|||0
A 5 8|||Others|||-NONE-|||REQUIRED|||-NONE-|||0
A 1 2|||Nn|||dog|||REQUIRED|||-NONE-|||1
A 4 4|||ArtOrDet|||a|||REQUIRED|||-NONE-|||1
A 4 4|||Wform|||big|||REQUIRED|||-NONE-|||1

S Nothing to do .
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S He go .
A 1 2|||SVA|||goes|||REQUIRED|||-NONE-|||0
"""
    got = annotator_corrections(parse_m2(m2.splitlines()))
    assert got == {0: ["The cat sat on the mat .", "Nothing to do .", "He goes ."],
                   1: ["The dog sat on a big mat in the house .", "Nothing to do .", "He go ."]}
    overlapping = "S a b c\nA 0 2|||X|||x|||REQUIRED|||-NONE-|||0\nA 1 3|||X|||y|||REQUIRED|||-NONE-|||0\n"
    with pytest.raises(InputError, match="<m2>:1: annotator 0's edits overlap"):
        annotator_corrections(parse_m2(overlapping.splitlines()))


@pytest.mark.slow
def test_conll14_all_outputs_match_official(shared_corpora, tmp_path, capsysbinary, monkeypatch):
    """The 27 CoNLL-14 / SEEDA outputs against the two CoNLL-14 annotators: compute_gleu's 27 lines."""
    name, args, stdin = CASES.CONLL14_CASE
    where = CASES.build_conll14(shared_corpora, tmp_path / "conll14")
    status, out, err = run_ours(args, where, None, capsysbinary, monkeypatch)
    assert status == 0, err
    assert out == (CASES.EXPECTED / f"{name}.out").read_bytes()
