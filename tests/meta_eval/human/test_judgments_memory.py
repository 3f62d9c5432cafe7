"""A large valid judgments file is ranked in bounded memory (issue 36, point 8): the reader streams the XML into
compact arrays and builds the pairwise judgments with numpy (human/judgments.py), so `human-rank` on a 32 MB file
runs under a 400 MiB address-space limit (the reader of objects per item and per judgment needed about 700 MB), with
the figures of one copy of the items."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from peet_fast.meta_eval.human.judgments import MAX_PAIRS, read_judgments

SYSTEMS = ["AMU", "RAC", "CAMB", "CUUI", "POST", "UFC", "PKU", "UMC", "IITB", "SJTU", "INPUT", "NTHU", "IPN"]
REPO = Path(__file__).resolve().parents[3]


def block(copy: int) -> str:
    """26 ranking items (GJG15's systems, five ranks, two translations holding two systems each)."""
    out = []
    for k in range(26):
        pick = [SYSTEMS[(k % 13 + 3 * j) % 13] for j in range(7)]
        out.append(f'<ranking-item doc-id="d" id="{copy}-{k}" src-id="{k % 1312}" user="annotator{k % 9:02d}">\n'
                   f'  <translation rank="1" system="{pick[0]} {pick[1]}"/>\n'
                   f'  <translation rank="2" system="{pick[2]}"/>\n'
                   f'  <translation rank="3" system="{pick[3]} {pick[4]}"/>\n'
                   f'  <translation rank="{4 + k % 2}" system="{pick[5]}"/>\n'
                   f'  <translation rank="5" system="{pick[6]}"/>\n</ranking-item>\n')
    return "".join(out)


def judgments_file(path: Path, copies: int) -> Path:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("<appraise-results>\n")
        for c in range(copies):
            fh.write(block(c))
        fh.write("</appraise-results>\n")
    return path


LIMITED = """
import resource, sys
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
from peet_fast.cli import main
sys.exit(main(sys.argv[2:]))
"""


def test_a_32_mb_file_is_ranked_under_400_mib(tmp_path):
    big = judgments_file(tmp_path / "big.xml", 4200)                        # 26 items of 290 bytes each, 4200 times
    assert 30e6 < big.stat().st_size < 34e6
    small = judgments_file(tmp_path / "small.xml", 1)
    env = {**os.environ, "PYTHONPATH": str(REPO), "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    summary = tmp_path / "s.json"
    run = subprocess.run([sys.executable, "-c", LIMITED, str(400 << 20), "human-rank", str(big), "--bootstrap",
                          "20", "--summary", str(summary)], capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "MemoryError" not in run.stderr and "109200 ranking items" in run.stderr
    got = json.loads(summary.read_text())["systems"]
    one = read_judgments(small).pairs()
    from peet_fast.meta_eval.human.expected_wins import expected_wins

    want = expected_wins(one)
    assert set(got) == set(SYSTEMS)
    assert all(abs(got[s]["score"] - want[s]) < 1e-12 for s in SYSTEMS)


def test_pairs_are_counted_before_they_are_built(tmp_path, monkeypatch):
    from peet_fast.io import InputError
    from peet_fast.meta_eval.human import judgments as J

    path = judgments_file(tmp_path / "j.xml", 2)
    pairs = read_judgments(path).pairs()
    assert len(pairs) == 52 * 21                 # 7 systems an item: 21 pairs (2 of them ties)
    monkeypatch.setattr(J, "MAX_PAIRS", len(pairs) - 1)
    with pytest.raises(InputError, match=f"holds {len(pairs):,} pairwise judgments among the systems ranked; at most "
                                         f"{len(pairs) - 1:,} are ranked"):
        read_judgments(path).pairs()
    assert MAX_PAIRS >= 1 << 26


@pytest.mark.skipif(not (REPO.parent / "shared" / "corpora" / "judgments" / "gjg15").is_dir(),
                    reason="../shared/corpora not present")
def test_meta_eval_refuses_a_dataset_judgments_file_past_its_bound(tmp_path, capsys):
    from peet_fast.cli import main
    from peet_fast.meta_eval.metric.data import MAX_DATASET_JUDGMENTS

    shared = REPO.parent / "shared" / "corpora"
    root = tmp_path / "GJG15"
    (root / "data").mkdir(parents=True)
    (root / "data" / "original").symlink_to(shared / "judgments" / "gjg15" / "data" / "original")
    with open(root / "data" / "judgments.xml", "wb") as fh:          # sparse: nothing is written or read
        fh.truncate(MAX_DATASET_JUDGMENTS + 1)
    rc = main(["meta-eval", "--data", "gjg15", str(root), "--gold", str(shared / "conll14" /
                                                                       "official-2014.combined.m2"), "--metric", "wer"])
    err = capsys.readouterr().err
    assert rc == 2 and err.strip() == (f"peet-fast meta-eval: error: {root / 'data' / 'judgments.xml'}: holds "
                                       f"{MAX_DATASET_JUDGMENTS + 1:,} bytes; a dataset's judgments file holds at "
                                       "most 32 MiB (SEEDA's and GJG15's hold under 1 MB)")
