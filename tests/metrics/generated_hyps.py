"""Deterministic hypotheses made from real sentences (the CoNLL-14 test set in ../shared/corpora), for the
differential tests against reference implementations: the same recipe gives the same texts on every machine (its
own splitmix64 stream, no library random numbers), so fixtures hold only the figures the reference tool printed."""
from __future__ import annotations

from pathlib import Path

MASK = (1 << 64) - 1


class Stream:
    """splitmix64: uniform floats in [0, 1) and choices, reproducible everywhere."""

    def __init__(self, seed: int):
        self.state = seed & MASK

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def random(self) -> float:
        return (self.next() >> 11) / float(1 << 53)

    def below(self, n: int) -> int:
        return self.next() % n


def noisy(tokens: list[str], rng: Stream, pool: list[str], rate: float) -> list[str]:
    """tokens with deletions, duplications, swaps and insertions of pool tokens, each at about `rate`."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        u = rng.random()
        if u < rate:                                    # delete
            i += 1
            continue
        if u < 2 * rate:                                # duplicate
            out += [tokens[i], tokens[i]]
        elif u < 3 * rate and i + 1 < len(tokens):      # swap with the next
            out += [tokens[i + 1], tokens[i]]
            i += 1
        elif u < 4 * rate and pool:                     # insert a token from elsewhere
            out += [pool[rng.below(len(pool))], tokens[i]]
        else:
            out.append(tokens[i])
        i += 1
    return out


def conll14_set(corpora: Path, step: int = 4, seed: int = 30) -> tuple[list[str], list[list[str]], list[list[str]]]:
    """(sources, references (one list per annotator), hypotheses (3 systems)) of every step-th CoNLL-14 test
    sentence: system 0 is annotator 0's correction made noisy, system 1 the source, annotator 0's or 1's correction
    (drawn per sentence) lightly noisy, system 2 the source with tokens of the references inserted or dropped."""
    from peet_fast.formats.m2 import annotator_references, read_m2

    path = corpora / "conll14" / "official-2014.combined.m2"
    blocks = read_m2(str(path))
    refs_all = annotator_references(blocks, str(path))
    keep = list(range(0, len(blocks), step))
    sources = [" ".join(blocks[i].source) for i in keep]
    refs = [[r[i] for i in keep] for r in refs_all]
    rng = Stream(seed)
    hyps: list[list[str]] = [[], [], []]
    for k, src in enumerate(sources):
        pool = " ".join(r[k] for r in refs).split()
        hyps[0].append(" ".join(noisy(refs[0][k].split(), rng, pool, 0.06)))
        pick = [src, *(r[k] for r in refs)][rng.below(1 + len(refs))]
        hyps[1].append(" ".join(noisy(pick.split(), rng, pool, 0.02)))
        hyps[2].append(" ".join(noisy(src.split(), rng, pool, 0.12)))
    return sources, refs, hyps
