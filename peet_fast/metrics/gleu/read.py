"""Reading as compute_gleu reads: lines split at ``\\n`` only (Python 2's file iteration), kept as bytes, tokens
split on ASCII whitespace; a byte order mark dropped, NUL bytes and invalid UTF-8 refused naming the file and line."""
from __future__ import annotations

from typing import Sequence

from peet_fast.io import InputError, read_bounded, without_bom


def split_lines(data: bytes) -> list[bytes]:
    """Lines as Python 2's file iteration yields them, without their ``\\n`` (a last line without one counts)."""
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    return lines


def read_gleu_lines(path: str, data: bytes | None = None) -> list[bytes]:
    """A file's lines as bytes, split at ``\\n`` only, as compute_gleu reads them; a UTF-8 byte order mark at its
    start is dropped. InputError naming the file (and line) for a missing/unreadable file, a NUL byte, invalid
    UTF-8, through the bounded reader (a line over MAX_LINE_READ, a file over MAX_FILE_READ). data: the bytes
    already read (standard input: peet_fast.io.read_stdin), path then only names them."""
    data = without_bom(read_bounded(path, refuse_nul=True, cr_ends_line=False) if data is None else data)
    nul = data.find(b"\x00")
    if nul >= 0:
        raise InputError(path, "contains a NUL byte (binary file?)", data.count(b"\n", 0, nul) + 1)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        start = data.rfind(b"\n", 0, exc.start) + 1
        raise InputError(path, f"invalid UTF-8 (byte 0x{data[exc.start]:02x} at column {exc.start - start + 1})",
                         data.count(b"\n", 0, exc.start) + 1) from None
    return split_lines(data)


def tokens_of(lines: Sequence[str | bytes]) -> list[list[bytes]]:
    """Each line's tokens as compute_gleu splits them (bytes split on ASCII whitespace)."""
    return [(s.encode("utf-8", "surrogatepass") if isinstance(s, str) else s).split() for s in lines]
