"""The one form of a bad-input error: InputError (a file, line or option, and what is wrong with it, on one line),
how a file's name or text is shown in a message (shown: control characters escaped, long text cut), and where the
cache lives (cache_root)."""
from __future__ import annotations

import contextlib
import os
from typing import Sequence

def cache_root() -> str:
    """peet-fast's cache directory (not created here): $PEET_FAST_CACHE, else the user cache directory
    (platformdirs: $XDG_CACHE_HOME/peet-fast or ~/.cache/peet-fast on Linux)."""
    explicit = os.environ.get("PEET_FAST_CACHE")
    if explicit:
        return explicit
    import platformdirs

    return platformdirs.user_cache_dir("peet-fast", appauthor=False)


SHOWN_LIMIT = 200


def plural(n: int, word: str, words: str | None = None) -> str:
    """'1 line', '2 lines' (words: the plural where it is not word + 's'): every message that counts."""
    return f"{n} {word if n == 1 else (words or word + 's')}"


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
        self.message = message
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
