"""Plain scores handed to the meta-evaluation API (``me.corr_system({"BART": 0.5, ...})``, ``{system: [one score per
sentence]}``) checked before any figure is computed: every system of the dataset has one, each a finite real
number (not None, NaN, inf, a bool or a string), a sentence-score list one finite number per sentence, and either
every system has a number or every system has a list. A bad value is an InputError naming the parameter
(``scores``) and the system, in the library's words: no command-line flag."""
from __future__ import annotations

import math
import numbers
from typing import Mapping, Sequence

import numpy as np

from peet_fast.io import InputError, plural, shown

PARAMETER = "scores"


def _bad(system: str, message: str) -> InputError:
    return InputError(PARAMETER, f"system {shown(system)!r}: {message}")


def _is_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _sentence_row(system: str, value, n: int) -> np.ndarray:
    if value is None or isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__len__"):
        raise _bad(system, f"{type(value).__name__} is neither a number nor a list of sentence scores")
    try:
        row = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise _bad(system, f"the sentence scores are not a list of numbers ({exc})") from None
    if row.ndim != 1:
        raise _bad(system, f"the sentence scores have shape {row.shape}; give one number per sentence")
    if row.dtype.kind not in "iuf":
        k = next((i for i, v in enumerate(value) if not _is_number(v)), 0)
        raise _bad(system, f"sentence score {k + 1} is {shown(repr(value[k]))}, not a number")
    row = row.astype(np.float64)
    if len(row) != n:
        raise _bad(system, f"has {plural(len(row), 'sentence score')}; the data has {n} sentences")
    bad = np.flatnonzero(~np.isfinite(row))
    if len(bad):
        raise _bad(system, f"sentence score {int(bad[0]) + 1} is {row[bad[0]]}, not a finite number")
    return row


def checked_scores(scores, systems: Sequence[str], n: int) -> dict:
    """{system: float} or {system: (n,) float64 array} over `systems`, from the plain scores given (see the module
    docstring); InputError naming `scores` and the system otherwise."""
    if not isinstance(scores, Mapping):
        raise InputError(PARAMETER, f"{type(scores).__name__} is not a dict of scores: give {{system: score}} or "
                                    "{system: [one score per sentence]}")
    missing = [s for s in systems if s not in scores]
    if missing:
        raise InputError(PARAMETER, f"no score for the system{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    plain = [_is_number(scores[s]) for s in systems]
    out = {}
    if all(plain):
        for s in systems:
            value = float(scores[s])
            if not math.isfinite(value):
                raise _bad(s, f"score {value} is not a finite number")
            out[s] = value
        return out
    if plain.count(True) >= plain.count(False):          # system scores, one of them not a number
        s = systems[plain.index(False)]
        raise _bad(s, f"{shown(repr(scores[s]))} is not a number (the other systems have a score each)")
    if any(plain):
        s = systems[plain.index(True)]
        raise _bad(s, "has one number where the others have sentence scores: give every system a number, or "
                      "every system a list")
    return {s: _sentence_row(s, scores[s], n) for s in systems}
