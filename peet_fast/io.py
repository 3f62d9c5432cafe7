"""The read stage's boundary: reading and validating input files, and writing outputs atomically.

Lines are split as Python's text mode splits them (``\\n``, ``\\r\\n`` and a lone ``\\r`` end a line), which is how
errant reads its inputs, so line N here is line N there. A UTF-8 byte order mark at the start of a file is accepted
and dropped (UTF8_BOM: part of no line). Bad input raises InputError naming the file and line."""
from __future__ import annotations

import contextlib
import os
import tempfile
from typing import BinaryIO, Iterator, Sequence

UTF8_BOM = b"\xef\xbb\xbf"


def cache_root() -> str:
    """peet-fast's cache directory (not created here): $PEET_FAST_CACHE, else the user cache directory
    (platformdirs: $XDG_CACHE_HOME/peet-fast or ~/.cache/peet-fast on Linux)."""
    explicit = os.environ.get("PEET_FAST_CACHE")
    if explicit:
        return explicit
    import platformdirs

    return platformdirs.user_cache_dir("peet-fast", appauthor=False)


SHOWN_LIMIT = 200


def shown(text, limit: int = SHOWN_LIMIT) -> str:
    """A user-supplied string (a file name, a model's or a system's name) as it is safe to print on one line: control
    characters, line and paragraph separators, escape codes and bidirectional overrides written as Python escapes
    (as repr writes them, without quotes), and a string longer than `limit` cut in its middle, saying how much was
    left out. Plain text is unchanged."""
    text = str(text)
    if not text.isprintable():
        text = "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in text)
    if len(text) > limit:
        keep = max(limit - 40, 20)
        head, tail = text[:keep // 2], text[-(keep - keep // 2):]
        text = f"{head}...[{len(text) - len(head) - len(tail):,} characters left out]...{tail}"
    return text


def shown_line(message: str, limit: int = 10 * SHOWN_LIMIT) -> str:
    """A whole message line as it is safe to print: shown() with a longer limit (the printer of errors, warnings)."""
    return shown(message, limit)


class InputError(ValueError):
    """A user-facing input problem; str() names the file (and line), the name escaped and cut (shown)."""

    def __init__(self, path: str, message: str, line: int | None = None):
        self.path = shown(path)
        self.line = line
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {message}")


class LineTooLong(InputError):
    """A sentence the parser refuses (over its line limits), raised before it is placed: `text` is the sentence,
    `reason` the message. Where the lines were read, lines_located() turns it into an InputError naming the file and
    line; unplaced, it names "<input>"."""

    def __init__(self, text: str, reason: str):
        self.text = text
        self.reason = reason
        super().__init__("<input>", reason)


@contextlib.contextmanager
def lines_located(columns: Sequence[tuple[str, Sequence[str]]], first_line: int | None = 1, suffix: str = ""):
    """Within the block, a LineTooLong about one of these lines becomes an InputError naming its file and line.
    columns: (path, its lines) each, line k of a file being line first_line + k (first_line None: row k of a table,
    named in the message); suffix ends the message (e.g. " (shard 3)"). The earliest line holding the sentence is
    named (whitespace as the parser normalises it)."""
    try:
        yield
    except LineTooLong as exc:
        raise locate_line(exc, columns, first_line, suffix) from None


def locate_line(exc: LineTooLong, columns: Sequence[tuple[str, Sequence[str]]], first_line: int | None = 1,
                suffix: str = "") -> InputError:
    """The InputError naming where exc's sentence is (see lines_located); exc itself where it is in none of them."""
    key = " ".join(exc.text.split())
    found = None
    for path, lines in columns:
        for k, line in enumerate(lines):
            if (found is None or k < found[1]) and len(line) >= len(key) and " ".join(line.split()) == key:
                found = (path, k)
                break
    if found is None:
        return exc
    path, k = found
    if first_line is None:
        return InputError(path, f"row {k}: {exc.reason}{suffix}")
    return InputError(path, exc.reason + suffix, first_line + k)


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


def check_output(path: str | os.PathLike | None, inputs: Sequence = ()) -> None:
    """Refuse, before any work is done, an output path whose directory does not exist (or is a file) or that is a
    directory, and an output that is one of `inputs` (check_not_input)."""
    if path is None:
        return
    path = os.fspath(path)
    if os.path.isdir(path):
        raise InputError(path, "is a directory; give a file name")
    check_not_input(path, inputs)
    target, in_place = output_target(path)
    if in_place:
        return
    check_parent(path, os.path.dirname(os.path.abspath(target)))


def check_parent(path: str, directory: str | None = None) -> None:
    """Refuse an output whose directory (default: path's own) does not exist or is not a directory (`afile/sub`)."""
    directory = directory or os.path.dirname(os.path.abspath(path))
    if os.path.isdir(directory):
        return
    here = directory
    while here and not os.path.lexists(here):         # the nearest part of the path that exists
        parent = os.path.dirname(here)
        here = "" if parent == here else parent
    if here and not os.path.isdir(here):
        raise InputError(path, f"cannot be created: {here} is a file, not a directory")
    raise InputError(path, "output directory does not exist")


def _real(path: str) -> str:
    return os.path.realpath(os.path.abspath(path))


def _inside(path: str, directory: str) -> bool:
    return path != directory and path.startswith(directory.rstrip(os.sep) + os.sep)


def _stat_or_none(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except (OSError, ValueError):
        return None


def input_conflict(out: str | os.PathLike, inputs: Sequence) -> str | None:
    """Why writing `out` would destroy one of `inputs` (paths; None entries skipped), or None: out is the same file
    as an input (same device and inode, or the same real path; through symlinks), out is (or will be) a directory
    that holds an input, or an input is a directory that out lies inside. A character device read and written
    (/dev/null, a terminal) is no conflict."""
    import stat

    out = os.fspath(out)
    out_real = _real(out)
    out_st = _stat_or_none(out)
    for inp in inputs:
        if inp is None:
            continue
        inp = os.fspath(inp)
        in_real = _real(inp)
        in_st = _stat_or_none(inp)
        if out_st is not None and in_st is not None:
            same = (out_st.st_dev, out_st.st_ino) == (in_st.st_dev, in_st.st_ino)
            if same and stat.S_ISCHR(out_st.st_mode):
                continue
        else:
            same = out_real == in_real
        if same:
            return f"is the same file as the input {inp}; give another output (an input is never overwritten)"
        if _inside(in_real, out_real) and out_st is not None and stat.S_ISDIR(out_st.st_mode):
            return f"holds the input {inp}; give an output directory that holds no input"
        if _inside(out_real, in_real) and in_st is not None and stat.S_ISDIR(in_st.st_mode):
            return f"lies inside the input directory {inp}; give an output outside it"
    return None


def check_not_input(out: str | os.PathLike | None, inputs: Sequence) -> None:
    """Refuse (InputError naming both, before anything is read) an output that would destroy an input
    (input_conflict)."""
    if out is None:
        return
    why = input_conflict(out, inputs)
    if why is not None:
        raise InputError(os.fspath(out), why)


# Links through these point at a process's open file (a terminal, a pipe, a shell's `>>` log): never replaced
_FD_LINK_DIRS = ("/proc/", "/dev/fd/", "/dev/stdout", "/dev/stderr")


def output_target(path: str | os.PathLike) -> tuple[str, bool]:
    """Where an output at path is written: (the path to write, whether to write it in place).

    In place (opened and written, never replaced) when path exists and is not a regular file (a character device
    such as /dev/null, a FIFO, a socket; a symlink to one), or when path or a link on the way to its file goes
    through /proc/*/fd, /dev/fd or /dev/stdout (the file a process already holds open: a shell's `> log` or
    `>> log` must not be replaced behind its back). Otherwise the file is replaced atomically; a symlink to a
    regular file (or to a name not yet created) is followed, so its target is replaced and the link kept."""
    import stat

    path = os.fspath(path)
    seen = 0
    current = path
    while True:
        absolute = os.path.abspath(current)
        if absolute.startswith(_FD_LINK_DIRS):
            return path, True
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            return current, False
        except OSError:
            return path, False
        if stat.S_ISLNK(st.st_mode):
            seen += 1
            if seen > 40:       # a loop of links: let open() report it
                return path, True
            target = os.readlink(current)
            current = os.path.join(os.path.dirname(absolute), target)
            continue
        if stat.S_ISREG(st.st_mode):
            return current, False
        if stat.S_ISDIR(st.st_mode):
            return current, False   # refused by check_output / the rename below
        return path, True


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "w", encoding: str | None = "utf-8") -> Iterator:
    """Write to a temporary file beside path and rename it over path only when the block succeeds.

    An existing output that is not a regular file (a device, a FIFO, a process's open file through /proc or
    /dev/fd; a symlink to one) is written in place instead, never replaced; a symlink to a regular file is
    followed: its target is replaced, the link kept (output_target)."""
    path = os.fspath(path)
    target, in_place = output_target(path)
    kwargs = {"encoding": encoding, "newline": "\n"} if "b" not in mode else {}
    if in_place:
        try:   # appended, never truncated: a process's stdout that is a file keeps what was written before
            fh = open(path, mode.replace("w", "a"), **kwargs)
        except OSError as exc:
            raise InputError(path, f"cannot write: {exc.strerror or exc}") from None
        with naming(path), fh:
            yield fh
        return
    directory = os.path.dirname(os.path.abspath(target))
    check_parent(path, directory)
    remove_stale_temp_files(directory)
    with naming(path):
        fd, tmp = tempfile.mkstemp(prefix=f"{_temp_prefix()}-", suffix=".tmp", dir=directory)
    try:
        with naming(path):
            os.chmod(tmp, 0o666 & ~current_umask())
            with os.fdopen(fd, mode, **kwargs) as fh:
                yield fh
            os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _host_tag() -> str:
    import hashlib
    import socket

    return hashlib.sha1(socket.gethostname().encode("utf-8", "replace")).hexdigest()[:8]


def _temp_prefix() -> str:
    """The name start of this process's temporary output files: .peet-fast-<host tag>-<pid> (the owner, so that a
    later run can tell a file a killed run left behind from one a live run is writing)."""
    return f".peet-fast-{_host_tag()}-{os.getpid()}"


_TEMP_NAME = None


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:          # not ours to signal: it exists
        return True
    return True


def remove_stale_temp_files(directory: str) -> list[str]:
    """Remove the temporary output files in `directory` that a run of this host killed before it could (kill -9, a
    lost machine) left behind: .peet-fast-<host tag>-<pid>-*.tmp whose process is gone. Files of other hosts (a
    shared file system), of live processes, and every other name are left alone. Returns the paths removed."""
    import re

    global _TEMP_NAME
    if _TEMP_NAME is None:
        _TEMP_NAME = re.compile(r"\.peet-fast-([0-9a-f]{8})-(\d+)-[^/]*\.tmp\Z")
    removed = []
    host = _host_tag()
    try:
        entries = [e for e in os.scandir(directory) if e.name.startswith(".peet-fast-")]
    except OSError:
        return removed
    for e in entries:
        m = _TEMP_NAME.match(e.name)
        if not m or m.group(1) != host:
            continue
        pid = int(m.group(2))
        if pid == os.getpid() or _pid_alive(pid):
            continue
        try:
            if e.is_file(follow_symlinks=False):
                os.unlink(e.path)
                removed.append(e.path)
        except OSError:
            pass
    return removed


@contextlib.contextmanager
def naming(path: str) -> Iterator[None]:
    """Within the block, an OSError that names no file, or names a temporary file of ours, (a full disk on write(),
    a failed rename) names `path` instead: the user's output, never an internal name."""
    try:
        yield
    except OSError as exc:
        if exc.filename is None or os.path.basename(str(exc.filename)).startswith(".peet-fast-"):
            raise OSError(exc.errno, exc.strerror or str(exc), path) from exc
        raise


def current_umask() -> int:
    """The process's file-mode creation mask (read by setting it and restoring it)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_json(path: str | os.PathLike, obj) -> None:
    """Write obj as indented UTF-8 JSON (non-ASCII kept as is), atomically."""
    import json

    with atomic_write(path) as fh:
        json.dump(obj, fh, indent=2, ensure_ascii=False)
        fh.write("\n")
