"""Synthetic GEC pairs: clean pre-tokenised English sentences (TRG) with injected learner / GEC-system errors (MO).

Each clean sentence becomes a pair (MO, TRG): TRG is the sentence (whitespace-normalised), MO is TRG with zero or more
errors injected by rules over the tokens -- no parser, only small hand-written word lists. Every error kind fires at
most once per sentence, independently, with its per-sentence probability (``DEFAULT_RATES``, overridable). A kind
that finds no place to apply in a sentence (no article for ``det``, no known verb for ``verb_tense``, ...) leaves it
unchanged, so the share of identical pairs is higher than the product of ``1 - rate``.

Error kinds (the ERRANT label they are meant to produce, MO -> TRG):

========== ==================================================================== =====================================
kind       what it does                                                         typical ERRANT label
========== ==================================================================== =====================================
det        drop / insert / swap an article (a, an, the)                          M:DET, U:DET, R:DET
prep       swap a preposition for a common confusion, or drop it                 R:PREP, M:PREP
verb_tense past <-> present (irregular table + regular -ed)                     R:VERB:TENSE
verb_form  to + base <-> -ing; base after modal/aux -> -ing/-ed; be + -ing ->   R:VERB:FORM
           base; have + participle -> base/past
verb_sva   is/are, was/were, am, has/have, does/do, 3sg -s dropped/added       R:VERB:SVA
noun_num   singular <-> plural (rules + irregulars); uncountables get an -s      R:NOUN:NUM (R:NOUN:INFL)
spelling   swap / drop / duplicate / substitute a character (word length >= 4)  R:SPELL
punct      drop a comma or the final . ! ?, or add a spurious comma             M:PUNCT, U:PUNCT
word_order swap two adjacent words                                              R:WO
missing    drop a word                                                          M:*
extra      duplicate a word or insert a filler (very, the, that, ...)          U:*
case       lowercase the sentence-initial word or capitalise a word mid-sentence R:ORTH
========== ==================================================================== =====================================

Determinism: sentences are used round-robin in an order shuffled by ``random.Random(seed)``; pair i's errors come
from its own ``random.Random`` seeded with the i-th 64-bit draw of that same generator, so the output is a function of
(sentences, seed, rates) only and the first k pairs for ``n_pairs=N`` are the first k for any larger N.

Invariants: MO and TRG are single-line, single-space-separated tokens (no tabs, newlines, leading or trailing
spaces); MO is never empty. Blank input sentences are skipped.
"""
from __future__ import annotations

import math
import random
from typing import Mapping, Sequence

from peet_fast.en.synth.errors import _OPS, DEFAULT_RATES, ERROR_KINDS
from peet_fast.en.synth.words import _Tok

__all__ = ["ERROR_KINDS", "DEFAULT_RATES", "synthesize", "corrupt", "parse_rates"]


# ------------------------------------------------------------------------------------------------------------------
# Public API
# ------------------------------------------------------------------------------------------------------------------

def _check_rate(kind: str, value) -> float:
    if kind not in _OPS:
        raise ValueError(f"unknown error kind {kind!r} (known: {', '.join(ERROR_KINDS)})")
    if isinstance(value, bool):
        raise ValueError(f"rate for {kind!r} must be a number in [0, 1], got {value!r}")
    try:
        rate = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"rate for {kind!r} must be a number in [0, 1], got {value!r}") from None
    if not math.isfinite(rate) or not 0.0 <= rate <= 1.0:
        raise ValueError(f"rate for {kind!r} must be in [0, 1], got {value!r}")
    return rate


def _resolve_rates(rates: Mapping[str, float] | None) -> dict[str, float]:
    """DEFAULT_RATES with the given kinds overridden (kinds not named keep their default)."""
    out = dict(DEFAULT_RATES)
    if rates is not None:
        if not isinstance(rates, Mapping):
            raise ValueError(f"rates must be a mapping of error kind -> probability, got {type(rates).__name__}")
        for kind, value in rates.items():
            out[kind] = _check_rate(kind, value)
    return out


def parse_rates(spec: str) -> dict[str, float]:
    """Parse ``"det=0.2,prep=0.1"`` into ``{"det": 0.2, "prep": 0.1}``.

    ``all=X`` (first) sets every kind, so ``"all=0,det=1"`` gives det errors only. Refuses with ValueError (naming the
    offending item) an unknown kind, a value that is not a number in [0, 1], an item without ``=``, and a kind given
    twice. An empty spec gives ``{}`` (no overrides)."""
    if not isinstance(spec, str):
        raise ValueError(f"rates spec must be a string, got {type(spec).__name__}")
    out: dict[str, float] = {}
    seen: set[str] = set()
    items = [s.strip() for s in spec.split(",")]
    if items == [""]:
        return out
    for pos, item in enumerate(items):
        if not item:
            raise ValueError(f"empty item in rates spec {spec!r}")
        kind, sep, value = item.partition("=")
        kind, value = kind.strip(), value.strip()
        if not sep or not kind or not value:
            raise ValueError(f"rates item {item!r} is not KIND=RATE")
        if kind == "all":
            if pos != 0:
                raise ValueError(f"rates item {item!r}: 'all' must come first")
            try:
                rate = _check_rate(ERROR_KINDS[0], value)
            except ValueError:
                raise ValueError(f"rate for 'all' must be a number in [0, 1], got {value!r}") from None
            out.update({k: rate for k in ERROR_KINDS})
            continue
        if kind in seen:
            raise ValueError(f"error kind {kind!r} given twice in rates spec {spec!r}")
        seen.add(kind)
        out[kind] = _check_rate(kind, value)
    return out


def corrupt(sentence: str, rng: random.Random, rates: Mapping[str, float] | None = None) -> str:
    """One MO for a clean sentence: each kind is attempted with its probability, in ERROR_KINDS order.

    Returns the sentence's tokens joined by single spaces (the sentence itself when nothing applied or it is blank)."""
    full = _resolve_rates(rates)
    return _corrupt(sentence.split(), rng, full)


def _corrupt(words: list[str], rng: random.Random, rates: Mapping[str, float]) -> str:
    fire = [kind for kind in ERROR_KINDS if rng.random() < rates[kind]]   # draws independent of the sentence
    if not words:
        return ""
    toks = [_Tok(w) for w in words]
    for kind in fire:
        _OPS[kind](toks, rng)
    out = [t.text for t in toks if t.text]
    return " ".join(out) if out else " ".join(words)


def synthesize(sentences: Sequence[str], n_pairs: int, seed: int,
               rates: Mapping[str, float] | None = None, progress=None) -> list[tuple[str, str]]:
    """``n_pairs`` (MO, TRG) pairs from clean pre-tokenised sentences (blank ones skipped).

    TRG is a sentence with its whitespace normalised to single spaces; MO is TRG with injected errors. Sentences are
    taken round-robin in an order shuffled by ``random.Random(seed)``; each pair has its own generator seeded from that
    one, so the result is deterministic and prefix-stable in ``n_pairs``. ``rates`` overrides ``DEFAULT_RATES`` for
    the kinds it names; ``progress(pairs done, n_pairs)`` is called as it goes. Raises ValueError for a negative
    ``n_pairs``, bad rates, or no non-blank sentence."""
    if isinstance(n_pairs, bool) or not isinstance(n_pairs, int) or n_pairs < 0:
        raise ValueError(f"n_pairs must be a non-negative integer, got {n_pairs!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    full = _resolve_rates(rates)
    if isinstance(sentences, str):
        raise ValueError("sentences must be a sequence of strings, not one string")
    clean = [s.split() for s in sentences]
    clean = [w for w in clean if w]
    if n_pairs == 0:
        return []
    if not clean:
        raise ValueError("no non-blank sentences to synthesise from")
    master = random.Random(seed)
    order = list(range(len(clean)))
    master.shuffle(order)
    pairs = []
    for i in range(n_pairs):
        words = clean[order[i % len(order)]]
        rng = random.Random(master.getrandbits(64))
        pairs.append((_corrupt(words, rng, full), " ".join(words)))
        if progress is not None and (i + 1) % 1000 == 0:
            progress(i + 1, n_pairs)
    if progress is not None:
        progress(n_pairs, n_pairs)
    return pairs
