"""The M2 lattice's memory bound (issue 36, point 10): a sentence under the 16.8-million-cell cap can still have
millions of vertices (a few source tokens against a 2.3-million-token hypothesis: every cell is on some cheapest
alignment), whose edges and search states ended in std::bad_alloc under 2 GiB. The bytes they would need are counted
from the cells first; over MAX_LATTICE_BYTES the sentence is refused in one line naming the system file and line
(exit 2), for m2scorer, rank --metric m2 and rank --metric sentm2 alike, within a 2 GiB address space."""
from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import peet_fast.metrics.m2.search as search
from peet_fast.io import InputError
from peet_fast.metrics.m2 import LatticeTooLarge, m2score

REPO = Path(__file__).parents[3]
GOLD = ("S a b c\nA 0 1|||R:OTHER|||x|||REQUIRED|||-NONE-|||0\n\n"
        "S s0 s1 s2 s3 s4 s5\nA -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0\n\n")
TOKENS = 2_300_000


def _limit_address_space():
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


@pytest.fixture(scope="module")
def huge(tmp_path_factory):
    d = tmp_path_factory.mktemp("lattice")
    (d / "gold.m2").write_text(GOLD, encoding="utf-8")
    # line 2: 2.3 million tokens (997 distinct) against a 6-token source: 16.1 million cells, under MAX_CELLS
    (d / "hyp.txt").write_text("x b c\n" + " ".join(f"h{i % 997}" for i in range(TOKENS)) + "\n", encoding="utf-8")
    assert 7 * (TOKENS + 1) <= search.MAX_CELLS
    return d


@pytest.mark.parametrize("argv", [["m2scorer", "hyp.txt", "gold.m2"],
                                  ["rank", "--hyp", "hyp.txt", "--ref", "gold.m2", "--metric", "m2"],
                                  ["rank", "--hyp", "hyp.txt", "--ref", "gold.m2", "--metric", "sentm2"]],
                         ids=["m2scorer", "rank-m2", "rank-sentm2"])
def test_refused_in_one_line_within_2_gib(huge, argv):
    env = dict(os.environ, PYTHONPATH=str(REPO), OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    done = subprocess.run([sys.executable, "-m", "peet_fast.cli", *argv], cwd=huge, env=env, capture_output=True,
                          text=True, timeout=600, preexec_fn=_limit_address_space)
    assert done.returncode == 2, done.stderr[-3000:]
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr[-3000:]
    assert lines[0].startswith(f"peet-fast {argv[0]}: error: hyp.txt:2: 6 source tokens and 2,300,000 hypothesis "
                               "tokens: a lattice that would need "), lines[0]
    assert lines[0].endswith(f" MiB, over the {search.MAX_LATTICE_BYTES >> 20:,} MiB this scorer holds (the "
                             "official would need hours and gigabytes)")


def test_the_bound_refuses_or_changes_nothing(monkeypatch):
    """An unrelated 60-token pair (3,721 vertices: the bounded search): refused under a small bound, the same
    figures as without one under a large bound."""
    src = " ".join(f"s{i}" for i in range(60))
    hyp = " ".join(f"h{i}" for i in range(60))
    gold = f"S {src}\nA 3 5|||R:OTHER|||h3 h4|||REQUIRED|||-NONE-|||0\nA 9 10|||R:OTHER|||x|||REQUIRED|||-NONE-|||0\n\n"
    sentence = search._Sentence(hyp, src, 2)
    assert not sentence.lattice.exact and sentence.lattice.sizes()[0] == 61 * 61
    monkeypatch.setattr(search, "MAX_LATTICE_BYTES", 0)          # 0: no bound
    unbounded = m2score([hyp], gold)
    monkeypatch.setattr(search, "MAX_LATTICE_BYTES", 1 << 30)
    bounded = m2score([hyp], gold)
    # the gold h3 h4 found; the rest of the changes as two edits (before it, after it); the gold x missed
    assert bounded.stats.tolist() == unbounded.stats.tolist() == [[1, 2, 1]]
    monkeypatch.setattr(search, "MAX_LATTICE_BYTES", 100_000)
    with pytest.raises(LatticeTooLarge) as info:
        search._Sentence(hyp, src, 2)
    assert info.value.text == hyp
    assert info.value.reason.startswith("60 source tokens and 60 hypothesis tokens: a lattice that would need ")
    with pytest.raises(InputError, match=r"^hyp_lines:1: 60 source tokens and 60 hypothesis tokens: a lattice that "):
        m2score([hyp], gold)
    # more unchanged words allowed inside an edit: more search states a vertex, more bytes
    from peet_fast._ext.m2lattice import Lattice

    ids = np.arange(60, dtype=np.int32)
    needs = [Lattice(ids, ids + 60, k, 0, search.MAX_WORK, 1).needs for k in (0, 1, 2, 10)]
    assert 0 < needs[0] == needs[1] < needs[2] < needs[3]

def test_a_closed_lattice_is_never_refused(monkeypatch):
    """Lattices small enough to close (at most MAX_VERTICES vertices) take the official's path whatever the bound."""
    monkeypatch.setattr(search, "MAX_LATTICE_BYTES", 1)
    sentence = search._Sentence("a b d", "a b c", 2)
    assert sentence.lattice.exact
    assert sentence.edit_seq([(2, 3, "c", ["d"])]) == [(2, 3, "c", "d")]
