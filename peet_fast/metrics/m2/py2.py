"""Python 2 as the official m2scorer ran on it: unicode split/strip (Python 2's whitespace), byte and unicode
strings told apart (Bytes), repr() and str() of the values the -v report prints, and a dict's iteration order
(the order in which the official visits the annotators)."""
from __future__ import annotations

from typing import Any, Iterable, Sequence

# Python 2's unicode whitespace (Unicode 5.2): Python 3's plus U+180E
_PY2_WS = "".join(map(chr, [9, 10, 11, 12, 13, 28, 29, 30, 31, 32, 133, 160, 5760, 6158, *range(8192, 8203),
                            8232, 8233, 8239, 8287, 12288]))


def _split(text: str) -> list[str]:
    """unicode.split() of Python 2."""
    if "\u180e" in text:
        text = text.replace("\u180e", " ")
    return text.split()


def _strip(text: str) -> str:
    """unicode.strip() of Python 2."""
    return text.strip(_PY2_WS) if "\u180e" in text else text.strip()


class Bytes(str):
    """A string that Python 2 held as a byte string (repr without the u prefix): the official's '' for -NONE- and
    for the empty joins."""


EMPTY = Bytes("")


def _joined(tokens: Sequence[str]) -> str:
    """' '.join(tokens) as Python 2 typed it: '' (a byte string) for no tokens, a unicode string otherwise."""
    return " ".join(tokens) if tokens else EMPTY


# ----------------------------------------------------------------------------------------------------------------
# Python 2 formatting


def py2_repr(obj: Any) -> str:
    """repr() of Python 2.7 for the values the official report prints: ints, unicode strings (Bytes: byte
    strings), lists and tuples."""
    if isinstance(obj, str):
        if isinstance(obj, Bytes):
            return repr(str(obj))
        return _unicode_repr(obj)
    if isinstance(obj, tuple):
        return "(" + ", ".join(map(py2_repr, obj)) + ("," if len(obj) == 1 else "") + ")"
    if isinstance(obj, list):
        return "[" + ", ".join(map(py2_repr, obj)) + "]"
    if isinstance(obj, bool):
        return repr(obj)
    if isinstance(obj, int):
        return str(obj)
    if isinstance(obj, float):
        return repr(obj)
    raise TypeError(type(obj))


def _unicode_repr(s: str) -> str:
    quote = '"' if ("'" in s and '"' not in s) else "'"
    out = ["u", quote]
    for ch in s:
        o = ord(ch)
        if ch == quote or ch == "\\":
            out.append("\\" + ch)
        elif o >= 0x10000:
            out.append("\\U%08x" % o)
        elif o >= 0x100:
            out.append("\\u%04x" % o)
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif o < 0x20 or o >= 0x7f:
            out.append("\\x%02x" % o)
        else:
            out.append(ch)
    out.append(quote)
    return "".join(out)


def py2_str(x: float) -> str:
    """str() of a Python 2.7 float: 12 significant digits, '.0' added to an integral value."""
    if x != x:
        return "nan"
    if x in (float("inf"), float("-inf")):
        return "inf" if x > 0 else "-inf"
    s = format(x, ".12g")
    if "." not in s and "e" not in s:
        s += ".0"
    return s


def py2_dict_order(keys: Iterable[int]) -> list[int]:
    """The iteration order of a Python 2.7 dict into which these distinct int keys were inserted in this order
    (open addressing, 8 slots to start, perturbed probing, resized to 4 x used when two thirds full)."""
    mask64 = (1 << 64) - 1

    # a faithful lookdict: i is the running (size_t) probe value, the slot is i & mask
    def insert(table: list, key: int) -> None:
        h = (key if key != -1 else -2) & mask64
        mask = len(table) - 1
        i = h & mask
        if table[i] is None:
            table[i] = key
            return
        perturb = h
        while True:
            i = ((i << 2) + i + perturb + 1) & mask64
            if table[i & mask] is None:
                table[i & mask] = key
                return
            perturb >>= 5

    table: list = [None] * 8
    used = 0
    for key in keys:
        insert(table, key)
        used += 1
        if used * 3 >= len(table) * 2:
            minused = (2 if used > 50000 else 4) * used
            size = 8
            while size <= minused:
                size <<= 1
            old = [k for k in table if k is not None]
            table = [None] * size
            for k in old:
                insert(table, k)
    return [k for k in table if k is not None]
