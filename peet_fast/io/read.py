"""Reading input files, bounded: every byte a command reads from a text, M2, JSON or gzip file or standard input
comes through open_input/read_bounded/read_stdin, which refuse a NUL byte, an over-long line (MAX_LINE_READ) or an
over-large input (MAX_FILE_READ; a .gz once decompressed, inflated as it is read) with a file:line InputError before
memory runs out; the short reads that sample a file's head (read_head, read_prefix) read a bounded prefix.

Lines are split as Python's text mode splits them (``\\n``, ``\\r\\n`` and a lone ``\\r`` end a line), which is how
errant reads its inputs, so line N here is line N there. A UTF-8 byte order mark at the start of a file is accepted
and dropped (UTF8_BOM: part of no line)."""
from __future__ import annotations

import gzip
import os
import stat
import sys
import zlib
from typing import BinaryIO, Sequence

from peet_fast.io.errors import InputError, plural

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
# the most a whole-file reader holds (1 GiB; a .gz's bytes once decompressed): a larger input is refused, a regular
# file before it is read, a stream or a .gz once that much is read (a gzip bomb is never inflated past it)
MAX_FILE_READ = 1 << 30
_READ_BLOCK = 1 << 20


def read_bounded(path: str | os.PathLike, refuse_nul: bool = False, max_line: int | None = None, *,
                 gz: bool = False, cr_ends_line: bool = True, max_bytes: int | None = None) -> bytes:
    """A whole input file's bytes (a byte order mark kept), read in blocks: refused (InputError naming the file and
    line) as soon as a line grows past max_line bytes (default MAX_LINE_READ), the whole past max_bytes (default
    MAX_FILE_READ), or (refuse_nul) a NUL byte is read. gz: the file is gzip (every member, as gzip.open reads it),
    decompressed as it is read, the bounds applying to what it inflates to. cr_ends_line: a lone ``\\r`` ends a line
    (text mode's lines; False: ``\\n`` only, as the official scorers read)."""
    path = os.fspath(path)
    max_bytes = max_bytes or MAX_FILE_READ
    with open_input(path) as fh:
        if not gz:
            try:
                st = os.fstat(fh.fileno())
            except (OSError, ValueError, AttributeError):
                st = None
            if st is not None and stat.S_ISREG(st.st_mode) and st.st_size > max_bytes:
                raise InputError(path, f"larger than {_size(max_bytes)}, the most an input file may hold")
        return _read_stream(fh, path, refuse_nul, max_line, gz, cr_ends_line, max_bytes)


def read_stdin(name: str = "<stdin>", refuse_nul: bool = False, max_line: int | None = None, *,
               cr_ends_line: bool = True, max_bytes: int | None = None) -> bytes:
    """Standard input's bytes, with read_bounded's bounds (name: how messages call it)."""
    stream = getattr(sys.stdin, "buffer", sys.stdin)
    if stream is None:
        raise InputError(name, "no standard input")
    return _read_stream(stream, name, refuse_nul, max_line, False, cr_ends_line, max_bytes or MAX_FILE_READ)


def _size(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift:,} {unit}"
    return f"{n:,} bytes"


def _ends(block: bytes, cr: bool, after_cr: bool) -> int:
    """The line ends in block (after_cr: the byte before it was a \\r, so a leading \\n is part of that end)."""
    n = block.count(b"\n")
    if cr:
        n += block.count(b"\r") - block.count(b"\r\n") - (1 if after_cr and block.startswith(b"\n") else 0)
    return n


def _read_stream(fh: BinaryIO, path: str, refuse_nul: bool, max_line: int | None, gz: bool, cr: bool,
                 max_bytes: int) -> bytes:
    max_line = max_line or MAX_LINE_READ
    source = gzip.GzipFile(fileobj=fh, mode="rb") if gz else fh
    size = min(_READ_BLOCK, max_line)
    blocks: list[bytes] = []
    total = 0
    line_bytes = 0            # bytes read since the last line end
    lines_before = 0          # line ends before the current block
    after_cr = False
    while True:
        try:
            block = source.read(size)
        except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
            raise InputError(path, f"not a valid gzip file ({exc})") from None
        except OSError as exc:
            raise InputError(path, f"cannot read: {exc.strerror or exc}") from None
        if not block:
            break
        blocks.append(block)
        total += len(block)
        if refuse_nul:
            nul = block.find(b"\x00")
            if nul >= 0:
                raise InputError(path, "contains a NUL byte (binary file?)",
                                 lines_before + _ends(block[:nul], cr, after_cr) + 1)
        end = max(block.rfind(b"\n"), block.rfind(b"\r")) if cr else block.rfind(b"\n")
        line_bytes = line_bytes + len(block) if end < 0 else len(block) - end - 1
        if line_bytes > max_line:
            raise InputError(path, f"a line longer than {max_line:,} bytes (not a text file of sentences?); "
                                   f"refused after reading {total:,} bytes",
                             lines_before + _ends(block, cr, after_cr) + 1)
        if total > max_bytes:
            raise InputError(path, f"larger than {_size(max_bytes)}{' once decompressed' if gz else ''}, the most "
                                   f"an input file may hold; refused after reading {total:,} bytes")
        lines_before += _ends(block, cr, after_cr)
        after_cr = cr and block.endswith(b"\r")
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


def read_blocks(path: str | os.PathLike, block: int, max_bytes: int, what: str = "file"):
    """The bytes of a file in blocks of `block` (the last one short, then an empty one: the end), for a caller that
    parses as it reads (an XML stream); an unreadable file, or one over max_bytes, is an InputError naming it."""
    total = 0
    with open_input(str(path)) as fh:
        while True:
            try:
                data = fh.read(block)
            except OSError as exc:
                raise InputError(str(path), f"cannot read: {exc.strerror or exc}") from None
            total += len(data)
            if total > max_bytes:
                raise InputError(str(path), f"larger than {_size(max_bytes)}, the most a {what} may hold")
            yield data
            if not data:
                return


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



def read_prefix(path: str | os.PathLike, limit: int) -> bytes:
    """At most limit bytes from the start of a file (a sample of its head, or a file that must be small: ask for
    one byte more than it may hold to tell). An OSError is the caller's to word (a sample may ignore it)."""
    with open(path, "rb") as fh:
        return fh.read(limit)

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
    mismatch = line_count_error([(os.fspath(p), len(t)) for p, t in zip(paths, texts)])
    if mismatch is not None:
        raise mismatch
    if all(len(t) == 0 for t in texts):
        raise no_lines(paths)
    return texts


def line_count_error(counts: Sequence[tuple[str, int]], message: str = "parallel files differ in line count"
                     ) -> InputError | None:
    """The error for line-aligned files whose line counts ((path, count) each) differ, naming the file that
    differs: the first whose count is not the one most of them have (on a tie, the first file's); None where they
    agree. The message lists every file's count."""
    values = [n for _, n in counts]
    if len(set(values)) <= 1:
        return None
    common = max(dict.fromkeys(values), key=values.count)      # most files; on a tie, the first file's count
    odd = next(path for path, n in counts if n != common)
    detail = ", ".join(f"{path}: {plural(n, 'line')}" for path, n in counts)
    return InputError(odd, f"{message} ({detail})")


def no_lines(paths: Sequence[str | os.PathLike]) -> InputError:
    """The error for line-aligned text files with no lines (empty, or only a byte order mark), naming the first."""
    return InputError(os.fspath(paths[0]), f"no sentences (the file{'s are' if len(paths) > 1 else ' is'} empty)")
