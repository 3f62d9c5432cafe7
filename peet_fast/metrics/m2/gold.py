"""Reading the gold M2 and the system output as the official m2scorer does (its semantics, not the strict reader of
peet_fast.formats.m2): the Gold view (per sentence its source and its annotators' edits in the official's visiting
order), from a file, from M2 text or from peet_fast.formats.m2 blocks; what the official would crash on is an
InputError naming the file and line."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Sequence

from peet_fast.io import InputError, read_bounded
from peet_fast.metrics.m2.py2 import EMPTY, _joined, _split, _strip, py2_dict_order


@dataclass
class Gold:
    """The official's view of a gold M2 file: per sentence its source line (stripped S line) and its annotators'
    gold edits (annotator id -> [(start, end, original, [corrections])]) in the official's visiting order."""
    sources: list[str]
    edits: list[list[tuple[int, list]]]
    path: str = "<m2>"


def _decode(data: bytes, path: str, what: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(path, f"invalid UTF-8 in the {what} (byte 0x{data[exc.start]:02x})", line) from None


def read_file_bytes(path: str) -> bytes:
    """A file's bytes (gzip-decompressed as it is read when its name ends in .gz, as the official's smart_open),
    through the bounded reader: a NUL byte, a line over MAX_LINE_READ or a file over MAX_FILE_READ (once
    decompressed) is refused naming the file and line (lines end at ``\\n``, as the official reads them)."""
    path = os.fspath(path)
    return read_bounded(path, refuse_nul=True, gz=path.endswith(".gz"), cr_ends_line=False)


def read_gold(path: str) -> Gold:
    """Read a gold M2 file as the official's load_annotation does (see the module docstring)."""
    data = read_file_bytes(path)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return parse_gold(_decode(data, str(path), "gold"), str(path))


def _int(token: str, path: str, no: int, what: str) -> int:
    t = token.strip()
    try:
        if "_" in t:
            raise ValueError
        return int(t)
    except ValueError:
        raise InputError(path, f"bad {what} {token!r} in an A line: expected an integer", no) from None


def parse_gold(text: str, path: str = "<m2>") -> Gold:
    """The official's load_annotation on the decoded text of a gold M2 file."""
    sources: list[str] = []
    edits: list[list[tuple[int, list]]] = []
    lines = text.splitlines(True)
    para: list[str] = []
    start = 1
    no = 0
    for no, raw in enumerate(lines, 1):
        if raw == "\n":
            if para:
                _block(para, start, path, sources, edits)
                para = []
            continue
        if not para:
            start = no
        para.append(raw)
    if para:
        _block(para, start, path, sources, edits)
    return Gold(sources, edits, path)


def _block(para: list[str], start: int, path: str, sources: list, edits: list) -> None:
    item = "".join(para).splitlines(False)
    sentence = [_strip(line[2:]) for line in item if line.startswith("S ")]
    if not sentence:
        raise InputError(path, f"a block without an 'S ' line: {item[0][:60]!r}", start)
    whole = _split(" ".join(sentence))
    annotations: dict[int, list] = {}
    order: list[int] = []
    for k, line in enumerate(item[1:], start + 1):
        if line.startswith("I ") or line.startswith("S "):
            continue
        if not line.startswith("A "):
            raise InputError(path, f"unexpected line in an M2 block (expected 'A ...', 'S ...' or 'I ...'): "
                                   f"{line[:60]!r}", k)
        fields = line[2:].split("|||")
        if len(fields) < 6:
            raise InputError(path, f"an A line needs 6 '|||'-separated fields "
                                   f"(span|||type|||correction|||REQUIRED|||-NONE-|||annotator), got {len(fields)}", k)
        span = _split(fields[0])
        if len(span) < 2:
            raise InputError(path, f"bad span {fields[0]!r}: expected two integers 'start end'", k)
        s, e = _int(span[0], path, k, "start offset"), _int(span[1], path, k, "end offset")
        if fields[1] == "noop":
            s = e = -1
        cors = [_strip(c) if c != "-NONE-" else EMPTY for c in fields[2].split("||")]
        original = _joined(whole[s:e])
        annotator = _int(fields[5], path, k, "annotator id")
        if annotator not in annotations:
            annotations[annotator] = []
            order.append(annotator)
        annotations[annotator].append((s, e, original, cors))
    visit = py2_dict_order(order)                 # annotations.iteritems() order = this_edits' insertion order
    tok_offset = 0
    for this_sentence in sentence:
        tok_offset += len(_split(this_sentence))
        sources.append(this_sentence)
        this = [(a, [ed for ed in annotations[a] if ed[0] <= tok_offset and ed[1] <= tok_offset
                     and ed[0] >= 0 and ed[1] >= 0]) for a in visit]
        if not this:
            this = [(0, [])]
        else:
            rank = {a: i for i, a in enumerate(py2_dict_order(visit))}
            this.sort(key=lambda x: rank[x[0]])
        edits.append(this)


def read_system(path: str) -> list[str]:
    """The system's lines as the official reads them: split at '\\n' only, UTF-8, stripped."""
    data = read_file_bytes(path)
    text = _decode(data, str(path), "system output")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [_strip(line) for line in lines]


def gold_from_text_or_path(gold: str | os.PathLike) -> Gold:
    """A gold M2 given as a path or as its text (a string holding a newline)."""
    if isinstance(gold, str) and "\n" in gold:
        return parse_gold(gold.removeprefix("\ufeff"), "<gold>")
    return read_gold(os.fspath(gold))


def gold_from_blocks(blocks: Sequence[Any], path: str = "<m2>") -> Gold:
    """The official's view of blocks read by peet_fast.formats.m2 (one S line each)."""
    lines = []
    for block in blocks:
        lines.append("S " + " ".join(block.source) + "\n")
        for ed in block.edits:
            lines.append(f"A {ed.start} {ed.end}|||{ed.type}|||{ed.cor}|||REQUIRED|||-NONE-|||{ed.annotator}\n")
        lines.append("\n")
    return parse_gold("".join(lines), path)
