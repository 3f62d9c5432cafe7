"""The checks of a Python caller's arguments, at the API's edge (peet_fast.api and the methods of what it returns):
each takes the value and the parameter's name and returns the value as the library uses it, or raises InputError
naming the parameter (docs/api.md's promise): a None or a wrong type is never a bare TypeError from deep inside.

- sentences: a list of strings (one sentence each); any other iterable of strings (a generator too) is read once
  into a list, so the caller's iterator is never used up by a check and then read again; a string is refused (it
  would be read a character at a time);
- items: a list of values (paths, names); a string or path is one item, never its characters;
- integer / number: an int (no bool, no float, no string "8") / a real number, within bounds, finite;
- path: a str or os.PathLike."""
from __future__ import annotations

import math
import numbers
import os
from collections.abc import Iterable, Mapping

from peet_fast.io.errors import InputError


def _kind(value) -> str:
    return "None" if value is None else type(value).__name__


def sentences(value, param: str) -> list[str]:
    """value as a list of strings (read once if an iterator); InputError(param) for a string, None, a non-iterable
    or an item that is not a string."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable) or isinstance(value, Mapping):
        raise InputError(param, f"must be a list of strings (one sentence each), not {_kind(value)}")
    out = list(value)
    bad = next((k for k, s in enumerate(out) if not isinstance(s, str)), None)
    if bad is not None:
        raise InputError(param, f"must be a list of strings (one sentence each); item {bad} is {_kind(out[bad])}")
    return out


def items(value, param: str, what: str = "a list") -> list:
    """value as a list: a string or a path is one item (not its characters); None and non-iterables refused."""
    if isinstance(value, (str, os.PathLike)):
        return [value]
    if value is None or not isinstance(value, Iterable) or isinstance(value, Mapping):
        raise InputError(param, f"must be {what}, not {_kind(value)}")
    return list(value)


def mapping(value, param: str, what: str) -> Mapping:
    if not isinstance(value, Mapping):
        raise InputError(param, f"must be {what}, not {_kind(value)}")
    return value


def integer(value, param: str, low: int | None = None, high: int | None = None) -> int:
    """An int (a numpy integer too; not a bool, a float or a string) in [low, high]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InputError(param, f"must be an integer, not {_kind(value)} {value!r}"[:200])
    value = int(value)
    if low is not None and value < low:
        raise InputError(param, f"must be at least {low:,}, not {value:,}")
    if high is not None and value > high:
        raise InputError(param, f"must be at most {high:,}, not {value:,}")
    return value


def number(value, param: str, low: float | None = None) -> float:
    """A finite real number (not a bool or a string), at least low."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputError(param, f"must be a number, not {_kind(value)} {value!r}"[:200])
    value = float(value)
    if not math.isfinite(value):
        raise InputError(param, f"must be a finite number, not {value}")
    if low is not None and value < low:
        raise InputError(param, f"must be at least {low}, not {value}")
    return value


def boolean(value, param: str) -> bool:
    if not isinstance(value, bool):
        raise InputError(param, f"must be True or False, not {_kind(value)}")
    return value


def string(value, param: str, none: bool = False) -> str | None:
    """A str (or None where none is allowed)."""
    if not isinstance(value, str) and not (none and value is None):
        raise InputError(param, f"must be a string{' or None' if none else ''}, not {_kind(value)}")
    return value


def path(value, param: str) -> str:
    if not isinstance(value, (str, os.PathLike)):
        raise InputError(param, f"must be a path (str or os.PathLike), not {_kind(value)}")
    return os.fspath(value)
