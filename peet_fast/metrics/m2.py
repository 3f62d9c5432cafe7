"""MaxMatch (M2): the NUS m2scorer 3.2 (Dahlmeier & Ng 2012; github nusnlp/m2scorer, scripts/m2scorer.py), the
CoNLL-2013/2014 shared tasks' official metric, with the same results and the same ``-v`` report.

The official scorer extracts the system's edits as the path through the lattice of minimum-cost token alignments that
matches the most gold edits, choosing per sentence the annotator that maximises the running corpus F (ties: more
correct edits, then fewer proposed + beta^2 gold). The lattice, its transitive arcs and the path search run in C
(ext/m2lattice.pyx, which documents how the official edge order, weights and Bellman-Ford tie-breaking are kept);
this module reads the files as the official does, chooses the annotators and formats the report.

Reading follows the official's semantics, not the strict M2 reader of peet_fast.formats.m2 (which refuses what the
official accepts): blocks are separated by lines that are exactly empty (a line of spaces belongs to a block); a
block may hold several ``S`` lines (its edits go to each sentence whose running token count covers them); ``I`` lines
are skipped; the first line of a block is never read as an edit; ``noop`` edits and edits beyond the sentence are
dropped; ``-NONE-`` is the empty correction and ``||`` separates alternative corrections; the annotators are visited
in the order of Python 2's dict. Where the official would crash (an ``A`` line with a missing field or a non-integer
offset, any other kind of line, a block without an ``S`` line, a hypothesis count that differs from the sentence
count) an InputError names the file and line."""
from __future__ import annotations

import gzip
import os
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np

from peet_fast.io import InputError, open_input
from peet_fast.metrics.base import EvalSet, Metric, register

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


# ----------------------------------------------------------------------------------------------------------------
# reading


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
    """A file's bytes (gzip-decompressed when its name ends in .gz, as the official's smart_open)."""
    path = os.fspath(path)
    with open_input(path) as fh:
        try:
            data = fh.read()
        except OSError as exc:
            raise InputError(path, f"cannot read: {exc.strerror or exc}") from None
    if path.endswith(".gz"):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise InputError(path, f"not a valid gzip file ({exc})") from None
    return data


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


# ----------------------------------------------------------------------------------------------------------------
# scoring


def _shrink(edit: tuple) -> tuple:
    """The official shrinkEdit: the edit without its common leading and trailing tokens."""
    orig, corr = _split(edit[2]), _split(edit[3])
    i = 0
    while i < min(len(orig), len(corr)) and orig[i] == corr[i]:
        i += 1
    j = 1
    while j <= min(len(orig), len(corr)) - i and orig[len(orig) - j] == corr[len(corr) - j]:
        j += 1
    return (edit[0] + i, edit[1] - (j - 1), _joined(orig[i:len(orig) - (j - 1)]),
            _joined(corr[i:len(corr) - (j - 1)]))


def _match_edit(e: tuple, g: tuple) -> bool:
    return e[0] == g[0] and e[1] == g[1] and e[2] == g[2] and e[3] in g[3]


def _match_seq(edit_seq: list, gold: list, out: list | None) -> list:
    """The official matchSeq (edit_seq from the end backwards); out: the -v lines it prints, or None."""
    m = []
    last = 0
    for e in reversed(edit_seq):
        for i in range(last, len(gold)):
            if _match_edit(e, gold[i]):
                m.append(e)
                last = i + 1
                if out is not None:
                    nxt = [_shrink(ed) for ed in edit_seq if e[1] == ed[0]]
                    prv = [_shrink(ed) for ed in edit_seq if e[0] == ed[1]]
                    if e[0] != e[1]:
                        nxt = [ed for ed in nxt if ed[0] == ed[1]]
                        prv = [ed for ed in prv if ed[0] == ed[1]]
                    else:
                        nxt = [ed for ed in nxt if ed[0] < ed[1] and ed[3] == ""]
                        prv = [ed for ed in prv if ed[0] < ed[1] and ed[3] == ""]
                    adj = any(any(_match_edit(ed, g) for g in gold) for ed in nxt) or \
                        any(any(_match_edit(ed, g) for g in gold) for ed in prv)
                    if e[0] < e[1] and len(_strip(e[3])) == 0 and (nxt or prv):
                        out.append(("! " if adj else "& ") + py2_repr(e))
                    elif e[0] == e[1] and (nxt or prv):
                        out.append(("! " if adj else "* ") + py2_repr(e))
    return m


def _ws_case_only(a: str, b: str) -> bool:
    return a.replace(" ", "").lower() == b.replace(" ", "").lower()


def comp_p(a: float, b: float) -> float:
    try:
        return a / b
    except ZeroDivisionError:
        return 1.0


def comp_f(c: float, e: float, g: float, b: float) -> float:
    """The official comp_f1 (used to choose the annotator)."""
    try:
        return (1 + b * b) * c / (b * b * g + e)
    except ZeroDivisionError:
        return 1.0 if c == 0.0 else 0.0


def final_prf(correct: float, proposed: float, gold: float, beta: float) -> tuple[float, float, float]:
    """The official corpus precision, recall and F_beta from the summed counts."""
    try:
        p = correct / proposed
    except ZeroDivisionError:
        p = 1.0
    try:
        r = correct / gold
    except ZeroDivisionError:
        r = 1.0
    try:
        f = (1.0 + beta * beta) * p * r / (beta * beta * p + r)
    except ZeroDivisionError:
        f = 0.0
    return p, r, f


# Lattices on which the official scorer would run for hours (more vertices, or transitive arcs x vertices, than
# this: its Floyd-Warshall and Bellman-Ford loops cost about that many dict operations) use the bounded search
MAX_VERTICES = 2000
MAX_WORK = 300_000_000


class _Sentence:
    """One sentence's lattice (built on first use) and the edit sequences it gives per annotator."""

    def __init__(self, candidate: str, source: str, max_unchanged_words: int):
        from peet_fast._ext.m2lattice import Lattice

        self.src = _split(source)
        self.hyp = _split(candidate)
        vocab: dict[str, int] = {}
        src_ids = np.fromiter((vocab.setdefault(t, len(vocab)) for t in self.src), dtype=np.int32,
                              count=len(self.src))
        hyp_ids = np.fromiter((vocab.setdefault(t, len(vocab)) for t in self.hyp), dtype=np.int32,
                              count=len(self.hyp))
        self.vocab = vocab
        self.lattice = Lattice(src_ids, hyp_ids, max_unchanged_words, MAX_VERTICES, MAX_WORK)

    def edit_seq(self, gold: list) -> list:
        """The official editSeq (from the end of the sentence backwards) against one annotator's gold edits."""
        spans, cors = [], []
        n = len(self.src)
        for s, e, original, corrections in gold:
            ok = 0 <= s <= e <= n and original == " ".join(self.src[s:e])
            spans.append((s, e, ok))
            cs = []
            for c in corrections:
                if c == "":
                    cs.append(np.zeros(0, dtype=np.int32))
                    continue
                pieces = c.split(" ")
                ids = [self.vocab.get(p, -1) if p and p == p.strip() else -1 for p in pieces]
                cs.append(None if -1 in ids else ids)
            cors.append(cs)
        seq = []
        for s, e, j0, j1 in self.lattice.best(spans, cors):
            seq.append((s, e, _joined(self.src[s:e]), _joined(self.hyp[j0:j1])))
        return seq


@dataclass
class M2Result:
    """What m2score returns: corpus precision, recall and F_beta (the official's printed figures, unrounded) and
    per sentence the chosen annotator's (tp, fp, fn) (stats; fp = proposed - correct) and annotator id."""
    precision: float
    recall: float
    f: float
    beta: float
    stats: np.ndarray
    annotators: list = field(default_factory=list)


def score_corpus(candidates: Sequence[str], gold: Gold, max_unchanged_words: int = 2, beta: float = 0.5,
                 ignore_whitespace_casing: bool = False, verbose: list | None = None,
                 system_path: str = "<system>") -> M2Result:
    """The official batch_multi_pre_rec_f1. verbose: a list receiving the -v report's lines, or None."""
    if len(candidates) != len(gold.sources):
        raise InputError(system_path, f"{len(candidates)} lines, but the gold {gold.path} has "
                                      f"{len(gold.sources)} sentences")
    sqbeta = beta * beta
    stat_correct = stat_proposed = stat_gold = 0.0
    stats = np.zeros((len(candidates), 3), dtype=np.int64)
    chosen_ids = []
    out = verbose
    for i, (candidate, source, golds_set) in enumerate(zip(candidates, gold.sources, gold.edits), 1):
        sentence = _Sentence(candidate, source, max_unchanged_words)
        chosen = -1
        f_max = -1.0
        max_correct = -1.0
        min_proposed = min_gold = float("inf")
        arg = (0, 0, 0)
        for annotator, g in golds_set:
            seq = sentence.edit_seq(g)
            if out is not None:
                out.append(f">> Annotator: {annotator}")
            if ignore_whitespace_casing:
                seq = [x for x in seq if not _ws_case_only(x[2], x[3])]
            correct = _match_seq(seq, g, out)
            c_local = stat_correct + len(correct)
            p_local_n = stat_proposed + len(seq)
            g_local = stat_gold + len(g)
            f_local = comp_f(c_local, p_local_n, g_local, beta)
            if f_max < f_local or (f_max == f_local and max_correct < c_local) or \
                    (f_max == f_local and max_correct == c_local
                     and min_proposed + sqbeta * min_gold > p_local_n + sqbeta * g_local):
                chosen = annotator
                f_max = f_local
                max_correct = c_local
                min_proposed = p_local_n
                min_gold = g_local
                arg = (len(correct), len(seq), len(g))
            if out is not None:
                out.append(f"SOURCE        : {source}")
                out.append(f"HYPOTHESIS    : {candidate}")
                out.append(f"EDIT SEQ      : {py2_repr([_shrink(ed) for ed in reversed(seq)])}")
                out.append(f"GOLD EDITS    : {py2_repr(g)}")
                out.append(f"CORRECT EDITS : {py2_repr(correct)}")
                out.append(f"# correct     : {int(c_local)}")
                out.append(f"# proposed    : {int(p_local_n)}")
                out.append(f"# gold        : {int(g_local)}")
                out.append(f"precision     : {py2_str(comp_p(c_local, p_local_n))}")
                out.append(f"recall        : {py2_str(comp_p(c_local, g_local))}")
                out.append(f"f_{beta:.1f}         : {py2_str(f_local)}")
                out.append("-------------------------------------------")
        if out is not None:
            out.append(f">> Chosen Annotator for line {i} : {chosen}")
            out.append("")
        stat_correct += arg[0]
        stat_proposed += arg[1]
        stat_gold += arg[2]
        stats[i - 1] = (arg[0], arg[1] - arg[0], arg[2] - arg[0])
        chosen_ids.append(chosen)
    p, r, f = final_prf(stat_correct, stat_proposed, stat_gold, beta)
    if out is not None:
        out.append(f"CORRECT EDITS  : {int(stat_correct)}")
        out.append(f"PROPOSED EDITS : {int(stat_proposed)}")
        out.append(f"GOLD EDITS     : {int(stat_gold)}")
        out.append(f"P = {py2_str(p)}")
        out.append(f"R = {py2_str(r)}")
        out.append(f"F_{beta:.1f} = {py2_str(f)}")
    return M2Result(p, r, f, beta, stats, chosen_ids)


def summary_lines(result: M2Result) -> list[str]:
    """The three lines the official prints last."""
    return [f"Precision   : {result.precision:.4f}", f"Recall      : {result.recall:.4f}",
            f"F_{result.beta:.1f}       : {result.f:.4f}"]


def m2score(hyp_lines: Sequence[str], gold: str | os.PathLike, beta: float = 0.5, max_unchanged_words: int = 2,
            ignore_whitespace_casing: bool = False) -> M2Result:
    """The official M2 scores of hypotheses (one string per sentence) against a gold M2 (a path, or the M2 text
    itself: a string holding a newline)."""
    if isinstance(hyp_lines, str) or not all(isinstance(s, str) for s in hyp_lines):
        raise InputError("hyp_lines", "must be a list of strings (one sentence each)")
    g = gold_from_text_or_path(gold)
    return score_corpus([_strip(h) for h in hyp_lines], g, max_unchanged_words, beta, ignore_whitespace_casing,
                        system_path="hyp_lines")


@register
class M2Metric(Metric):
    """M2 F_beta (the official's figure); per-sentence statistics: the chosen annotator's (tp, fp, fn) as the
    official chooses it over the whole corpus in order (so a subset's figure sums those)."""
    name = "m2"
    title = "M2 F0.5"
    higher_is_better = True
    needs_gold = True

    def __init__(self, beta: float = 0.5, max_unchanged_words: int = 2, ignore_whitespace_casing: bool = False):
        self.beta = float(beta)
        self.max_unchanged_words = int(max_unchanged_words)
        self.ignore_whitespace_casing = bool(ignore_whitespace_casing)
        self.title = f"M2 F{self.beta:g}"
        self._gold_cache: dict = {}

    def _gold(self, data: EvalSet) -> Gold:
        """The gold file read as the official reads it; the blocks where the path names no file (the API's
        "<gold>" for a gold M2 given as text)."""
        if data.gold_path and (data.gold is None or os.path.isfile(data.gold_path)):
            key = os.path.abspath(data.gold_path)
            if key not in self._gold_cache:
                self._gold_cache[key] = read_gold(data.gold_path)
            return self._gold_cache[key]
        if data.gold is None:
            raise InputError("m2", "needs a gold M2 (give the gold M2 file as the reference)")
        key = ("blocks", id(data.gold))
        if self._gold_cache.get(key, (None,))[0] is not data.gold:
            self._gold_cache[key] = (data.gold, gold_from_blocks(data.gold))
        return self._gold_cache[key][1]

    def sentence_stats(self, hyp: Sequence[str], data: EvalSet) -> np.ndarray:
        gold = self._gold(data)
        result = score_corpus([_strip(h) for h in hyp], gold, self.max_unchanged_words, self.beta,
                              self.ignore_whitespace_casing)
        self._remember(result.stats, (list(hyp), gold, data, result.annotators))
        return result.stats

    def breakdown(self, stats: np.ndarray) -> dict | None:
        """Recall per gold error type, {type: {"gold", "TP", "FN", "R"}}, with the annotators chosen for these
        statistics (peet_fast.metrics.m2_types)."""
        from peet_fast.formats.m2 import read_m2
        from peet_fast.metrics.m2_types import recall_by_type, typed_gold

        kept = self._recalled(stats)
        if kept is None:
            return None
        hyp, gold, data, annotators = kept
        blocks = data.gold if data.gold is not None else read_m2(data.gold_path)
        sequences = []
        for h, source, golds_set, chosen in zip(hyp, gold.sources, gold.edits, annotators):
            g = dict(golds_set).get(chosen, [])
            seq = _Sentence(_strip(h), source, self.max_unchanged_words).edit_seq(g) if g else []
            if self.ignore_whitespace_casing:
                seq = [x for x in seq if not _ws_case_only(x[2], x[3])]
            sequences.append(seq)
        return recall_by_type(gold, typed_gold(blocks, gold), annotators, sequences)

    def corpus_score(self, stats: np.ndarray) -> float:
        stats = np.asarray(stats)
        tp, fp, fn = (float(x) for x in stats.reshape(-1, 3).sum(axis=0)) if len(stats) else (0.0, 0.0, 0.0)
        return final_prf(tp, tp + fp, tp + fn, self.beta)[2]

    def bootstrap(self, stats: np.ndarray, idx: np.ndarray) -> np.ndarray:
        sums = np.asarray(stats, dtype=np.float64)[idx].sum(axis=1)       # (resamples, 3)
        return np.array([final_prf(tp, tp + fp, tp + fn, self.beta)[2] for tp, fp, fn in sums.tolist()],
                        dtype=np.float64)
