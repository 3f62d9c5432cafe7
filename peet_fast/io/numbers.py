"""The one reader of a number written in a file or on a command line: ASCII digits only.

Python's float() and int() read far more than a number a person wrote in a file: ``1_5`` is 15, Arabic-Indic and
full-width digits (``٧٣``, ``７３``) are 73, ``nan`` and ``inf`` are numbers. A score misread that way changes a
figure in silence, so every reader of a number in a file (the human system scores CSV, SEEDA's score files, the
judgments' ids, a GoToScorer weight file, an M2 span, a training file's times) and every typed command-line value
reads it here: a plain decimal (``[+-]digits[.digits][e[+-]digits]``, or ``.5``) or a plain integer
(``[+-]digits``), spaces around allowed; anything else is None (the caller says where, in one line)."""
from __future__ import annotations

import re

# the characters are listed, not \d: \d matches every script's digits
DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
INTEGER = re.compile(r"[+-]?[0-9]+")
_SPACE = " \t\r\n"
_MAX_DIGITS = 4300                  # Python's own limit on int() of a string (sys.int_info.str_digits_check_threshold)


def decimal(text: str | None) -> float | None:
    """The float of a plain ASCII decimal (as Python's float reads it; past the float range: +-inf, for the caller
    to refuse as not finite), None for anything else (``1_5``, ``٣``, ``nan``, ``inf``, ``0x1``, ``1,5``, empty)."""
    if not isinstance(text, str):
        return None
    text = text.strip(_SPACE)
    return float(text) if len(text) <= _MAX_DIGITS and DECIMAL.fullmatch(text) else None


def integer(text: str | None, signed: bool = True) -> int | None:
    """The int of plain ASCII digits (a sign allowed when signed), None for anything else (``1_0``, ``٣``, ``1.0``,
    ``1e3``, empty)."""
    if not isinstance(text, str):
        return None
    text = text.strip(_SPACE)
    if not signed and text[:1] in ("+", "-"):
        return None
    return int(text) if len(text) <= _MAX_DIGITS and INTEGER.fullmatch(text) else None


def _typed(read, kind: str):
    def parse(text: str):
        value = read(text)
        if value is None:
            raise ValueError(f"invalid {kind} value: {text!r}")
        return value

    parse.__name__ = kind            # argparse names the type in its message: "invalid int value: 'abc'"
    return parse


_WORDS = re.compile(r"[+-]?(?:nan|inf|infinity)", re.IGNORECASE)


def _option_float(text: str) -> float | None:
    """A typed option's float: a plain decimal, or the words nan and inf (ASCII, read as Python reads them): an
    option's own check then refuses them naming it (--beta must be finite ...), as it always did."""
    value = decimal(text)
    if value is None and isinstance(text, str) and _WORDS.fullmatch(text.strip(_SPACE)):
        return float(text)
    return value


# the command line's types (cli's parser registers them for type=int and type=float)
as_int = _typed(integer, "int")
as_float = _typed(_option_float, "float")
