"""Long runs of changed tokens (issue 36, point 9): errant's merger tests every sub-span of a run of D/I/S operations
and recurses into what a rule leaves, O(L^4) on a run of L operations (a 300-token sentence against an unrelated one
took 33 s; `rank --metric cleme` on a 9,999-token line ran for more than 10 minutes, deaf to SIGINT). The compiled
merger takes the same decisions in O(L^2) span tests (ext/merge.pyx) and lets signals through.

- the edits equal errant's on generated pairs made of runs that trigger every merge rule (possessives, case,
  punctuation, hyphens and joined words, same POS, auxiliaries, final determiners);
- a signal raised while the merger runs surfaces from inside it (its frames are in the traceback), not after it;
- `rank --metric senterrant` on long lines, interrupted (SIGINT or SIGTERM) once the annotation has started, exits
  130 / 143 with its one line, and the earlier --summary is left as it was."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import SPACY_MODEL
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from peet_fast import Annotator

REPO = Path(__file__).parents[2]

# words that trigger the merge rules: possessive endings, capitals, punctuation, hyphenated / joined / split words,
# verbs with their auxiliaries and particles, determiners, open and closed classes
VOCAB = ("the a an The A cat cats cat's dog dogs' friend friends 's ' , . ; ! ? - to eat eating ate eaten has have "
         "had been be is was Was He he She she sub way subway sub-way a-cat acat look at watch watched quickly quick "
         "Quick big bigger run runs running ran I i it It we We home house houses on in at of and or but not n't do "
         "does did can could well-known wellknown well known e-mail email New York new york").split()


@st.composite
def long_run_pairs(draw):
    src = draw(st.lists(st.sampled_from(VOCAB), min_size=2, max_size=36))
    if draw(st.booleans()):                  # unrelated: one run of changes over the whole sentence
        cor = draw(st.lists(st.sampled_from(VOCAB), min_size=1, max_size=40))
    else:                                    # dense edits: long runs between a few kept tokens
        cor = []
        for w in src:
            op = draw(st.sampled_from("kkdsii"))
            if op == "k":
                cor.append(w)
            elif op == "s":
                cor.append(draw(st.sampled_from(VOCAB)))
            elif op == "i":
                cor.extend([w, draw(st.sampled_from(VOCAB))])
        cor = cor or ["x"]
    return " ".join(src), " ".join(cor)


@pytest.fixture(scope="module")
def annotators():
    return {lev: Annotator(spacy_model=SPACY_MODEL, lev=lev, cache=False) for lev in (False, True)}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(st.lists(long_run_pairs(), min_size=4, max_size=4), st.booleans())
def test_long_runs_match_errant(oracle, annotators, edit_tuples, mismatch_report, batch, lev):
    got = annotators[lev].annotate_batch([o for o, _ in batch], [c for _, c in batch])
    expected = [edit_tuples(oracle.annotate(oracle.parse(o), oracle.parse(c), lev, "rules")) for o, c in batch]
    bad = [(f"pair {k}", o, c, e, [tuple(x) for x in g])
           for k, ((o, c), e, g) in enumerate(zip(batch, expected, got)) if [tuple(x) for x in g] != e]
    assert not bad, mismatch_report(bad)


# One pair of 1,000 tokens against 1,000 others: a run of 1,000 substitutions. Its alignment (about a million cells)
# checks no signal; the merger does (errant's merger, and the one before this fix, would take about an hour on it).
SIGNAL_IN_MERGE = """
import signal, sys, traceback
from peet_fast import Annotator
from peet_fast._ext import annotate as _annotate
n = 1000
o, c = Annotator(spacy_model=sys.argv[1], cache=False).parse([" ".join(f"w{i}" for i in range(n)),
                                                              " ".join(f"v{i}" for i in range(n))])
class Stop(Exception):
    pass
def stop(signum, frame):
    raise Stop
signal.signal(signal.SIGALRM, stop)
signal.setitimer(signal.ITIMER_REAL, 0.02)
try:
    edits = _annotate.annotate(o, c)
    print("finished", len(edits))
except Stop as exc:
    print("stopped in", " ".join(f.name for f in traceback.extract_tb(exc.__traceback__)))
"""


def test_a_signal_stops_the_merger_from_inside(tmp_path):
    script = tmp_path / "signal_in_merge.py"
    script.write_text(SIGNAL_IN_MERGE)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, str(script), SPACY_MODEL], env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith("stopped in "), done.stdout
    frames = done.stdout.split()
    # raised by the merger's own signal check, inside the compiled annotation, not after it returned
    assert "peet_fast._ext.annotate.annotate" in frames
    assert any(f.startswith("peet_fast._ext.merge.") for f in frames), done.stdout


# Marks the moment the compiled annotation starts (a marker, not a sleep): annotate_many writes a file first.
MARK = """import os
if os.environ.get("PEET_TEST_ANNOTATION_MARK"):
    import peet_fast._ext.annotate as _a
    _real = _a.annotate_many
    def _marked(*args, **kwargs):
        open(os.environ["PEET_TEST_ANNOTATION_MARK"], "w").close()
        return _real(*args, **kwargs)
    _a.annotate_many = _marked
"""


@pytest.mark.parametrize("signum,status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"])
def test_rank_on_long_lines_stops_on_a_signal(tmp_path, signum, status):
    # 200 lines (one distinct sentence per file: three parses) of 500 tokens, every hypothesis and reference token
    # unlike the source's: 400 pairs to annotate, each one run of 500 changes (before this fix: minutes per pair)
    n, lines = 500, 200
    for name, prefix in (("src", "w"), ("hyp", "v"), ("ref", "u")):
        (tmp_path / f"{name}.txt").write_text((" ".join(f"{prefix}{i}" for i in range(n)) + "\n") * lines)
    summary = tmp_path / "summary.json"
    summary.write_text("{}\n")
    inject = tmp_path / "inject"
    inject.mkdir()
    (inject / "sitecustomize.py").write_text(MARK)
    mark = tmp_path / "annotating"
    before = sorted(p.name for p in tmp_path.iterdir())
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(inject), str(REPO)]), PEET_TEST_ANNOTATION_MARK=str(mark))
    proc = subprocess.Popen([sys.executable, "-m", "peet_fast.cli", "rank", "--src", "src.txt", "--hyp", "hyp.txt",
                             "--ref", "ref.txt", "--metric", "senterrant", "--spacy-model", SPACY_MODEL,
                             "--summary", str(summary)], cwd=tmp_path, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        while not mark.exists():
            assert proc.poll() is None, proc.communicate()[1][-3000:]
            time.sleep(0.05)
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=60)     # generous: the stop takes well under a second
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == status, err[-3000:]
    assert err.strip().splitlines() == ["peet-fast rank: interrupted; no output written"]
    assert out == ""
    assert summary.read_text() == "{}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(before + ["annotating"])
