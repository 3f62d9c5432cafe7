"""The memo of annotated pairs a meta-evaluation shares between its metrics (peet_fast.languages.PairMemo, active
inside languages.remembering): the same Annotations with and without it, pairs recalled instead of annotated again,
callers never sharing a list, at most max_entries pairs held (cleared when full), nothing remembered outside it."""
from __future__ import annotations

from conftest import FIXTURES, SPACY_MODEL

from peet_fast.en.annotator import Annotator
from peet_fast.languages import PairMemo, pair_memo, remembering


def pairs() -> tuple[list[str], list[str]]:
    rows = [line.split("\t") for line in (FIXTURES / "en_pairs.tsv").read_text("utf-8").split("\n") if line]
    origs = [r[0] for r in rows]
    cors = [r[1] for r in rows]
    # noops, blank lines and whitespace differences beside the fixture's edits
    return origs + [origs[0], "  ", origs[1] + "  "], cors + [origs[0], "", " ".join(origs[1].split())]


def test_same_annotations_and_recalled(tmp_path):
    origs, cors = pairs()
    ann = Annotator(spacy_model=SPACY_MODEL, cache_dir=str(tmp_path))
    plain = ann.annotate_pairs(origs, cors)
    memo = PairMemo()
    with remembering(memo):
        assert pair_memo() is memo
        first = ann.annotate_pairs(origs, cors)
        assert memo.hits == 0 and memo.size == len(set(zip([o.strip() for o in origs], [c.strip() for c in cors])))
        second = ann.annotate_pairs(list(reversed(origs)), list(reversed(cors)))
        assert memo.hits == len(origs)
    assert pair_memo() is None
    assert first == plain and list(reversed(second)) == plain
    first[0].source.append("x")                 # a caller changing its lists changes no one else's
    with remembering(memo):
        assert ann.annotate_pairs(origs[:1], cors[:1])[0] == plain[0]


def test_bounded_and_per_annotator(tmp_path):
    origs, cors = pairs()
    ann = Annotator(spacy_model=SPACY_MODEL, cache_dir=str(tmp_path))
    lev = Annotator(spacy_model=SPACY_MODEL, cache_dir=str(tmp_path), lev=True)
    memo = PairMemo(max_entries=5)
    with remembering(memo):
        got = ann.annotate_pairs(origs, cors)
        assert memo.size <= 5
        got_lev = lev.annotate_pairs(origs, cors)
        assert memo.size <= 5
    assert got == Annotator(spacy_model=SPACY_MODEL, cache_dir=str(tmp_path)).annotate_pairs(origs, cors)
    assert got_lev == lev.annotate_pairs(origs, cors)
