"""Reading input files, bounded: every byte a command reads from a text, M2, JSON or gzip file or standard input
comes through open_input/read_bounded, which refuse a NUL byte, an over-long line or an over-large file with a
file:line InputError before memory runs out.

Lines are split as Python's text mode splits them (``\\n``, ``\\r\\n`` and a lone ``\\r`` end a line), which is how
errant reads its inputs, so line N here is line N there. A UTF-8 byte order mark at the start of a file is accepted
and dropped (UTF8_BOM: part of no line)."""
from __future__ import annotations

import os
from typing import BinaryIO, Sequence

from peet_fast.io.errors import InputError

UTF8_BOM = b"\xef\xbb\xbf"


def open_input(path: str) -> BinaryIO:
    """Open an input file for binary reading, or raise InputError saying why not."""
    try:
        return open(path, "rb")
    except FileNotFoundError:
        raise InputError(path, "no such file") from None
    except IsADirectoryError:
        raise InputError(path, "is a directory, not a file") from None
    except OSError as exc:
        raise InputError(path, f"cannot read: {exc.strerror or exc}") from None


def without_bom(data: bytes) -> bytes:
    """data without a leading UTF-8 byte order mark."""
    return data[len(UTF8_BOM):] if data.startswith(UTF8_BOM) else data


# the longest line any reader holds in memory (16 MiB, 16 x the parser's MAX_LINE_BYTES): a file with a longer one
# (a binary file, /dev/zero, a stream with no line ends) is refused once that much is read, never read to its end
MAX_LINE_READ = 16 << 20
_READ_BLOCK = 1 << 20


def read_bounded(path: str | os.PathLike, refuse_nul: bool = False, max_line: int | None = None) -> bytes:
    """A whole input file's bytes (a byte order mark kept), read in blocks: refused (InputError naming the file and
    line) as soon as a line grows past max_line bytes (default MAX_LINE_READ), or (refuse_nul) a NUL byte is
    read."""
    path = os.fspath(path)
    max_line = max_line or MAX_LINE_READ
    blocks: list[bytes] = []
    line_bytes = 0            # bytes read since the last line end
    with open_input(path) as fh:
        while True:
            try:
                block = fh.read(_READ_BLOCK)
            except OSError as exc:
                raise InputError(path, f"cannot read: {exc.strerror or exc}") from None
            if not block:
                break
            blocks.append(block)
            if refuse_nul:
                nul = block.find(b"\x00")
                if nul >= 0:
                    data = b"".join(blocks)
                    at = len(data) - len(block) + nul
                    raise InputError(path, "contains a NUL byte (binary file?)", _line_of(data, at))
            end = max(block.rfind(b"\n"), block.rfind(b"\r"))
            line_bytes = line_bytes + len(block) if end < 0 else len(block) - end - 1
            if line_bytes > max_line:
                data = b"".join(blocks)
                raise InputError(path, f"a line longer than {max_line:,} bytes (not a text file of sentences?); "
                                       f"refused after reading {len(data):,} bytes", _line_of(data, len(data) - 1))
    return b"".join(blocks)


def read_bytes(path: str | os.PathLike) -> bytes:
    """A whole input file's bytes, without a leading UTF-8 byte order mark, or InputError saying why not (a line over
    MAX_LINE_READ bytes included: read_bounded)."""
    return without_bom(read_bounded(path))


def read_text(path: str | os.PathLike, encoding: str = "utf-8", what: str = "") -> str:
    """A whole text file decoded with encoding, line ends as in text mode (CRLF and CR read as LF), or InputError
    naming the file (and the offending byte). A UTF-8 byte order mark at its start is dropped."""
    path = os.fspath(path)
    data = read_bounded(path)
    try:
        return data.decode(encoding).removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    except UnicodeDecodeError as exc:
        raise InputError(path, f"{what or 'invalid ' + encoding.upper()} ({exc.reason} at byte {exc.start})") from None


def read_head(path: str | os.PathLike, max_lines: int, max_bytes: int = _READ_BLOCK) -> list[str]:
    """At most max_lines whole lines from the start of a text file, reading at most max_bytes (a sample: undecodable
    bytes replaced, a byte order mark dropped, a last line cut by the bound left out); [] where it cannot be read."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except OSError:
        return []
    cut = len(data) > max_bytes
    lines = without_bom(data[:max_bytes]).decode("utf-8", "replace").splitlines()
    if cut and lines:
        lines.pop()
    return lines[:max_lines]


MAX_JSON_DEPTH = 64


class JSONTooDeep(ValueError):
    """JSON nested deeper than a reader accepts (instead of a RecursionError)."""


def json_depth(obj) -> int:
    """The nesting depth of parsed JSON (a scalar: 0), computed without recursion."""
    deepest = 0
    stack = [(obj, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        elif not isinstance(item, list):
            continue
        deepest = max(deepest, depth)
        stack.extend((x, depth + 1) for x in item if isinstance(x, (dict, list)))
    return deepest


def json_loads(text: str | bytes, max_depth: int = MAX_JSON_DEPTH):
    """json.loads, refusing (JSONTooDeep, a ValueError) objects and arrays nested deeper than max_depth, where
    json.loads would raise RecursionError or a later recursive use of the data would."""
    import json

    try:
        obj = json.loads(text)
    except RecursionError:
        raise JSONTooDeep(f"nested too deeply (more than {max_depth} levels)") from None
    if isinstance(obj, (dict, list)) and json_depth(obj) > max_depth:
        raise JSONTooDeep(f"nested too deeply (more than {max_depth} levels)")
    return obj


def read_lines(path: str | os.PathLike) -> list[str]:
    """All lines of a UTF-8 text file, without line ends (a byte order mark at its start is part of no line).
    Refuses unreadable files, invalid UTF-8 and NUL bytes."""
    path = os.fspath(path)
    data = without_bom(read_bounded(path, refuse_nul=True))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, f"invalid UTF-8 (byte 0x{data[exc.start]:02x} at column "
                               f"{exc.start - _line_start(data, exc.start) + 1})", _line_of(data, exc.start)) from None
    return split_lines(text)


def split_lines(text: str) -> list[str]:
    """The lines of a text as errant (Python's text mode) reads a file: split at ``\\n``, ``\\r\\n`` and ``\\r``
    only (never at the form feeds, ``\\x1c``-``\\x1e``, ``\\x85`` or ``\\u2028`` that str.splitlines also splits
    at: spaCy keeps those as tokens); a final line end ends the last line."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _line_start(data: bytes, pos: int) -> int:
    return max(data.rfind(b"\n", 0, pos), data.rfind(b"\r", 0, pos)) + 1


def _line_of(data: bytes, pos: int) -> int:
    head = data[:pos]
    return head.count(b"\n") + head.count(b"\r") - head.count(b"\r\n") + 1


def read_parallel(paths: Sequence[str | os.PathLike]) -> list[list[str]]:
    """Read several line-aligned files; refuses files whose line counts differ, naming each file and its count, and
    files with no lines (no_lines)."""
    texts = [read_lines(p) for p in paths]
    counts = {len(t) for t in texts}
    if len(counts) > 1:
        detail = ", ".join(f"{os.fspath(p)}: {len(t)} lines" for p, t in zip(paths, texts))
        raise InputError(os.fspath(paths[0]), f"parallel files differ in line count ({detail})")
    if counts == {0}:
        raise no_lines(paths)
    return texts


def no_lines(paths: Sequence[str | os.PathLike]) -> InputError:
    """The error for line-aligned text files with no lines (empty, or only a byte order mark), naming the first."""
    return InputError(os.fspath(paths[0]), f"no sentences (the file{'s are' if len(paths) > 1 else ' is'} empty)")
