"""Span-based GEC scoring of hypothesis edits against reference edits: errant_compare's and ChERRANT's compare.

The scorer works on plain tuples. A sentence's edits are a dict ``{candidate: [edit, ...]}`` where a candidate is an
annotator id (any hashable: ``(annotator, alignment)`` pairs score alternative alignments separately) and an edit is
``(start, end, type, cor)``: source tokens [start, end) replaced by ``cor`` (the correction tokens joined by single
spaces; ``-NONE-`` or ``""`` for a deletion, as the M2 file has it). ``(-1, -1, "noop", "-NONE-")`` is a noop edit.

    >>> from peet_fast.metrics.span import compare_edits
    >>> hyp = [{0: [(1, 2, "R:VERB:SVA", "is")]}]
    >>> ref = [{0: [(1, 2, "R:VERB:SVA", "is"), (3, 3, "M:DET", "a")]}, ]
    >>> r = compare_edits(hyp, ref)
    >>> (r.tp, r.fp, r.fn, r.p, r.r, r.f)
    (1, 0, 1, 1.0, 0.5, 0.8333)

Exactly as errant_compare (errant 3.0.x) and ChERRANT's compare_m2_for_evaluation (with ChERRANT's two rules):

- per sentence, every (hyp candidate, ref candidate) pair is scored and the one giving the highest corpus F so far
  (the running TP/FP/FN plus the pair's, F rounded to 4 decimals as the tools round it) is kept; ties go to more TP,
  then fewer FP, then fewer FN, then the first pair in file order;
- a sentence without any edit gets a noop candidate 0; noop edits are never TP, FP or FN; ``UNK`` edits count only in
  the detection modes; an edit repeated within a candidate counts once per repeat (the tools' "multiple tokens at the
  same span"), so alternative alignments pooled under one annotator id count a shared edit once per alignment;
- modes: ``cs`` span correction (start, end, cor), ``cse`` span correction with the type, ``ds`` span detection
  (start, end), ``dt`` token detection (each token of a span; an insertion marks the token on its right);
- per-type counts: a TP under the reference edit's type, an FP under the hypothesis edit's, an FN under the
  reference edit's; ``single``/``multi``/``filt`` filters as the tools apply them;
- ChERRANT's two differences from errant_compare are options of their own, both off by default; a language's
  package declares the ones it uses (``SpanOptions(**peet_fast.languages.span_rules("zh"))`` turns both on):
  ``strip_cor_spaces`` removes spaces from corrections before matching, and ``skip_na`` skips a sentence whose only
  reference is one ``NA`` edit (a source that "cannot be annotated").

P, R and F are the tools' figures: rounded to 4 decimals, P = 1 when FP = 0 and R = 1 when FN = 0.

M2 blocks (peet_fast.formats.m2) become sentences through :func:`m2_sentences`; its ``alignments="separate"`` (not
the default, a deliberate departure from the tools) scores each alternative alignment of a target as a candidate of
its own instead of pooling them. :func:`format_results` prints the tools' report byte for byte."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Hashable, Iterable, Mapping, Sequence, TextIO

from peet_fast.metrics import MetricResult

MODES = ("cs", "cse", "ds", "dt")
MODE_TITLES = {"dt": " Token-Based Detection ", "ds": " Span-Based Detection ",
               "cse": " Span-Based Correction + Classification ", "cs": " Span-Based Correction "}
NOOP = (-1, -1, "noop", "-NONE-")

Edit = tuple  # (start, end, type, cor)
Sentence = Mapping[Hashable, Sequence[Edit]]


def prf(tp: float, fp: float, fn: float, beta: float = 0.5) -> tuple[float, float, float]:
    """P, R, F_beta, unrounded, exactly as errant_compare, ChERRANT and CLEME compute them: P = 1 when FP = 0,
    R = 1 when FN = 0."""
    p = float(tp) / (tp + fp) if fp else 1.0
    r = float(tp) / (tp + fn) if fn else 1.0
    f = float((1 + (beta ** 2)) * p * r) / (((beta ** 2) * p) + r) if p + r else 0.0
    return p, r, f


def f_score(tp: int, fp: int, fn: int, beta: float = 0.5) -> tuple[float, float, float]:
    """(P, R, F_beta) rounded to 4 decimals, as errant_compare and ChERRANT report them."""
    p, r, f = prf(tp, fp, fn, beta)
    return round(p, 4), round(r, 4), round(f, 4)


@dataclass(frozen=True)
class SpanOptions:
    """How compare_edits and sentence_counts score (see the module docstring): F_beta's beta, the mode (cs, cse, ds,
    dt), ChERRANT's two rules (strip_cor_spaces, skip_na; peet_fast.languages.span_rules(lang) gives a language's),
    and the tools' filters (single, multi, filt: types left out). An unknown mode is refused (ValueError)."""
    beta: float = 0.5
    mode: str = "cs"
    strip_cor_spaces: bool = False
    skip_na: bool = False
    single: bool = False
    multi: bool = False
    filt: frozenset = frozenset()

    def __post_init__(self):
        if self.mode not in MODES:
            raise ValueError(f"unknown mode {self.mode!r}; choose from {', '.join(MODES)}")
        object.__setattr__(self, "filt", frozenset(self.filt))


@dataclass
class CompareResult(MetricResult):
    """Corpus counts and scores. per_type: {type: [TP, FP, FN]} over the chosen pairs; choices: per sentence the
    (hyp candidate, ref candidate) chosen, or None for a skipped (NA) sentence; counts: per sentence the chosen
    pair's (TP, FP, FN) ((0, 0, 0) for a skipped sentence), summing to the corpus counts."""
    tp: int
    fp: int
    fn: int
    beta: float
    mode: str
    per_type: dict = field(default_factory=dict)
    choices: list = field(default_factory=list)
    counts: list = field(default_factory=list)

    @property
    def p(self) -> float:
        return f_score(self.tp, self.fp, self.fn, self.beta)[0]

    @property
    def r(self) -> float:
        return f_score(self.tp, self.fp, self.fn, self.beta)[1]

    @property
    def f(self) -> float:
        return f_score(self.tp, self.fp, self.fn, self.beta)[2]

    def f_key(self) -> str:
        """The F column's name as the tools print it: 'F0.5' for beta 0.5."""
        return "F" + str(self.beta)

    def categories(self, level: int = 3) -> dict:
        """per_type regrouped as the tools' -cat option does: 1 operation (M/R/U), 2 main type (NOUN...), 3 all.
        UNK always stays UNK."""
        return group_types(self.per_type, level)

    def summary(self, level: int = 3) -> dict:
        """{"TP", "FP", "FN", "P", "R", "F<beta>", "per_type": {type: {TP, FP, FN, P, R, F<beta>}}} plus the mode."""
        fk = self.f_key()

        def row(tp, fp, fn):
            p, r, f = f_score(tp, fp, fn, self.beta)
            return {"TP": tp, "FP": fp, "FN": fn, "P": p, "R": r, fk: f}

        out = row(self.tp, self.fp, self.fn)
        out["beta"] = self.beta
        out["mode"] = self.mode
        out["per_type"] = {cat: row(*c) for cat, c in sorted(self.categories(level).items())}
        return out


def group_types(per_type: Mapping[str, Sequence[int]], level: int) -> dict:
    """errant_compare's processCategories: 1 -> the operation letter, 2 -> the type after 'X:', 3 -> unchanged."""
    if level not in (1, 2, 3):
        raise ValueError(f"category level must be 1, 2 or 3, not {level!r}")
    if level == 3:
        return {k: list(v) for k, v in per_type.items()}
    out: dict[str, list[int]] = {}
    for cat, cnt in per_type.items():
        key = cat if cat == "UNK" else (cat[0] if level == 1 else cat[2:])
        if key in out:
            out[key] = [x + y for x, y in zip(out[key], cnt)]
        else:
            out[key] = list(cnt)
    return out


def _keys(edits: Iterable[Edit], mode: str, strip_cor_spaces: bool, single: bool, multi: bool,
          filt: frozenset) -> dict:
    """One candidate's edits -> {match key: [types]} (errant_compare's process_edits for one coder)."""
    out: dict = {}
    detect = mode in ("ds", "dt")
    for start, end, cat, cor in edits:
        if strip_cor_spaces:
            cor = cor.replace(" ", "")
        if cat == "UNK" and not detect:
            continue
        if single and (end - start >= 2 or len(cor.split()) >= 2):
            continue
        if multi and end - start < 2 and len(cor.split()) < 2:
            continue
        if cat in filt:
            continue
        if mode == "dt":
            if start == -1:
                keys = ((start, start),)
            elif start == end:
                keys = ((start, start + 1),)
            else:
                keys = [(t, t + 1) for t in range(start, end)]
        elif mode == "ds":
            keys = ((start, end),)
        elif mode == "cse":
            keys = ((start, end, cat, cor),)
        else:
            keys = ((start, end, cor),)
        for key in keys:
            cats = out.get(key)
            if cats is None:
                out[key] = [cat]
            else:
                cats.append(cat)
    return out


def _candidates(sent: Sentence, mode: str, strip_cor_spaces: bool, single: bool, multi: bool,
                filt: frozenset) -> dict:
    if not sent:
        sent = {0: [NOOP]}
    return {cand: _keys(edits, mode, strip_cor_spaces, single, multi, filt) for cand, edits in sent.items()}


def _pair_counts(hyp: dict, ref: dict) -> tuple[int, int, int, dict]:
    """errant_compare's compareEdits: TP/FP/FN and {type: [TP, FP, FN]} of one hyp candidate vs one ref candidate."""
    tp = fp = fn = 0
    cats: dict[str, list[int]] = {}
    for key, h_cats in hyp.items():
        if h_cats[0] == "noop":
            continue
        r_cats = ref.get(key)
        if r_cats is not None:
            for c in r_cats:
                tp += 1
                _bump(cats, c, 0)
        else:
            for c in h_cats:
                fp += 1
                _bump(cats, c, 1)
    for key, r_cats in ref.items():
        if r_cats[0] == "noop" or key in hyp:
            continue
        for c in r_cats:
            fn += 1
            _bump(cats, c, 2)
    return tp, fp, fn, cats


def _bump(cats: dict, cat: str, i: int) -> None:
    row = cats.get(cat)
    if row is None:
        row = cats[cat] = [0, 0, 0]
    row[i] += 1


def _is_na(ref: dict) -> bool:
    """ChERRANT's "not annotatable" sentence: one reference candidate holding one key whose first type is NA."""
    if len(ref) != 1:
        return False
    only = next(iter(ref.values()))
    return len(only) == 1 and next(iter(only.values()))[0] == "NA"


def compare_edits(hyp: Sequence[Sentence], ref: Sequence[Sentence], options: SpanOptions = SpanOptions(), *,
                  verbose: TextIO | None = None, sources: Sequence[str] | None = None) -> CompareResult:
    """Score hypothesis sentences against reference sentences (same length, same source order) with `options` (a
    SpanOptions: beta, mode, ChERRANT's two rules, the filters); see the module docstring for the edit format and
    the exact rules. Returns a CompareResult (.tp .fp .fn .p .r .f .per_type). With `verbose`, errant_compare's -v
    report of every sentence (each pair's edits and local/global scores, the chosen pair) is written there;
    `sources` are the sentences' texts it shows."""
    if len(hyp) != len(ref):
        raise ValueError(f"hyp and ref differ in sentence count ({len(hyp)} vs {len(ref)})")
    beta, mode, single, multi, filt = options.beta, options.mode, options.single, options.multi, options.filt
    strip, skip = options.strip_cor_spaces, options.skip_na
    totals = [0, 0, 0]
    per_type: dict[str, list[int]] = {}
    choices: list = []
    counts: list = []
    for h_sent, r_sent in zip(hyp, ref):
        h_dict = _candidates(h_sent, mode, strip, single, multi, filt)
        r_dict = _candidates(r_sent, mode, strip, single, multi, filt)
        if skip and _is_na(r_dict):
            choices.append(None)
            counts.append((0, 0, 0))
            continue
        before = list(totals)
        best = _best_pair(h_dict, r_dict, totals, beta)
        if verbose is not None:
            source = sources[len(choices)] if sources is not None else ""
            verbose.write(_verbose_sentence(len(choices), source, h_dict, r_dict, before, beta, best))
        choices.append(best[:2])
        counts.append((totals[0] - before[0], totals[1] - before[1], totals[2] - before[2]))
        for cat, cnt in best[2].items():
            row = per_type.get(cat)
            if row is None:
                per_type[cat] = list(cnt)
            else:
                for i in range(3):
                    row[i] += cnt[i]
    return CompareResult(totals[0], totals[1], totals[2], beta, mode, per_type, choices, counts)


def sentence_counts(hyp: Sequence[Sentence], ref: Sequence[Sentence],
                    options: SpanOptions = SpanOptions()) -> list[tuple[int, int, int]]:
    """Per sentence, the (TP, FP, FN) of the (hyp candidate, ref candidate) pair best for that sentence alone: the
    highest unrounded F_beta, then more TP, fewer FP, fewer FN, then the first pair in file order (gec-metrics'
    sentence-level ERRANT, ``ERRANT.score_sentence``; compare_edits instead chooses by the running corpus F). A
    skipped (NA) sentence gives (0, 0, 0)."""
    beta, mode, single, multi, filt = options.beta, options.mode, options.single, options.multi, options.filt
    strip = options.strip_cor_spaces
    out = []
    for h_sent, r_sent in zip(hyp, ref):
        h_dict = _candidates(h_sent, mode, strip, single, multi, filt)
        r_dict = _candidates(r_sent, mode, strip, single, multi, filt)
        if options.skip_na and _is_na(r_dict):
            out.append((0, 0, 0))
            continue
        best = None
        for h_keys in h_dict.values():
            for r_keys in r_dict.values():
                tp, fp, fn, _ = _pair_counts(h_keys, r_keys)
                key = (prf(tp, fp, fn, beta)[2], tp, -fp, -fn)
                if best is None or key > best[0]:
                    best = (key, (tp, fp, fn))
        out.append(best[1])
    return out


def _best_pair(h_dict: dict, r_dict: dict, totals: list, beta: float) -> tuple:
    """The (hyp candidate, ref candidate, per-type counts) of one sentence whose pair gives the best running corpus
    F (see the module docstring); adds its TP/FP/FN to totals ([TP, FP, FN], updated in place)."""
    b2 = beta ** 2
    b1 = 1 + b2
    total_tp, total_fp, total_fn = totals
    best: tuple = ()
    best_tp = best_fp = best_fn = 0
    best_f = -1.0
    forced = len(h_dict) == 1 and len(r_dict) == 1       # one pair: chosen whatever its F
    for h_id, h_keys in h_dict.items():
        for r_id, r_keys in r_dict.items():
            tp, fp, fn, cats = _pair_counts(h_keys, r_keys)
            if forced:
                best_tp, best_fp, best_fn, best = tp, fp, fn, (h_id, r_id, cats)
                break
            # the running corpus F, computed (and rounded) exactly as f_score does
            c_tp, c_fp, c_fn = tp + total_tp, fp + total_fp, fn + total_fn
            p = float(c_tp) / (c_tp + c_fp) if c_fp else 1.0
            r = float(c_tp) / (c_tp + c_fn) if c_fn else 1.0
            f = round(float(b1 * p * r) / ((b2 * p) + r), 4) if p + r else 0.0
            if (f > best_f or (f == best_f and (tp > best_tp or (tp == best_tp and (
                    fp < best_fp or (fp == best_fp and fn < best_fn)))))):
                best_tp, best_fp, best_fn, best_f = tp, fp, fn, f
                best = (h_id, r_id, cats)
    totals[0] += best_tp
    totals[1] += best_fp
    totals[2] += best_fn
    return best


def _verbose_sentence(sent_id: int, source: str, h_dict: dict, r_dict: dict, before: Sequence[int], beta: float,
                      best: tuple) -> str:
    """errant_compare's -v lines for one sentence: every (hyp, ref) pair's edits, local and running-global TP/FP/FN
    and P/R/F (before = the corpus counts before this sentence), then the chosen pair and its per-type counts."""
    rule = "{:-^40}".format("")
    lines = [rule, f"Original sentence {sent_id}: {source}"]
    for h_id, h_keys in h_dict.items():
        for r_id, r_keys in r_dict.items():
            tp, fp, fn, _ = _pair_counts(h_keys, r_keys)
            g_tp, g_fp, g_fn = tp + before[0], fp + before[1], fn + before[2]
            lines += [rule, f"SENTENCE {sent_id} - HYP {h_id} - REF {r_id}",
                      f"HYPOTHESIS EDITS : {_shown_edits(h_keys)}", f"REFERENCE EDITS  : {_shown_edits(r_keys)}",
                      f"Local TP/FP/FN   : {tp} {fp} {fn}",
                      f"Local P/R/F{beta}  : " + " ".join(map(str, f_score(tp, fp, fn, beta))),
                      f"Global TP/FP/FN  : {g_tp} {g_fp} {g_fn}",
                      f"Global P/R/F{beta}  : " + " ".join(map(str, f_score(g_tp, g_fp, g_fn, beta)))]
    lines += [rule, f"^^ HYP {best[0]}, REF {best[1]} chosen for sentence {sent_id}", "Local results:"]
    table = [["Category", "TP", "FP", "FN"]] + [[k, *v] for k, v in best[2].items()]
    widths = [max(len(str(row[i])) for row in table) + 3 for i in range(4)]
    lines += ["".join(str(cell).rjust(w) for cell, w in zip(row, widths)) for row in table]
    return "\n".join(lines) + "\n"


def _shown_edits(keys: dict) -> str:
    """A candidate's edits as errant_compare -v shows them: sorted match keys, each with its first type appended;
    a noop candidate shows as []."""
    shown = [k + (keys[k][0],) for k in sorted(keys)]
    if not shown or shown[0][0] == -1:
        shown = []
    return str(shown)


def m2_sentences(blocks, *, alignments: str = "pool") -> list[dict]:
    """M2 blocks (peet_fast.formats.m2.read_m2) -> the scorer's sentences. alignments="pool" (what the tools do):
    every edit of an annotator id is one candidate, whatever alternative alignment (ChERRANT T<i>-A<j>) it came from;
    "separate": each (annotator, alignment) is its own candidate, so the best alignment of a target is chosen."""
    if alignments not in ("pool", "separate"):
        raise ValueError(f"alignments must be 'pool' or 'separate', not {alignments!r}")
    out: list[dict] = []
    pool = alignments == "pool"
    for block in blocks:
        sent: dict = {}
        for e in block.edits:
            key = e.annotator if pool else (e.annotator, e.alignment)
            lst = sent.get(key)
            if lst is None:
                lst = sent[key] = []
            lst.append((e.start, e.end, e.type, e.cor))
        out.append(sent)
    return out


def format_results(result: CompareResult, cat: int | None = None) -> str:
    """The report errant_compare / ChERRANT print (byte for byte): optional category table, then the totals."""
    beta = result.beta
    title = MODE_TITLES[result.mode]
    lines: list[str] = []
    if cat:
        cats = result.categories(cat)
        lines.append("")
        lines.append("{:=^66}".format(title))
        lines.append(" ".join(["Category".ljust(14), "TP".ljust(8), "FP".ljust(8), "FN".ljust(8), "P".ljust(8),
                               "R".ljust(8), "F" + str(beta)]))
        for name, cnts in sorted(cats.items()):
            p, r, f = f_score(cnts[0], cnts[1], cnts[2], beta)
            lines.append(" ".join([name.ljust(14), str(cnts[0]).ljust(8), str(cnts[1]).ljust(8),
                                   str(cnts[2]).ljust(8), str(p).ljust(8), str(r).ljust(8), str(f)]))
    lines.append("")
    lines.append("{:=^46}".format(title))
    lines.append("\t".join(["TP", "FP", "FN", "Prec", "Rec", "F" + str(beta)]))
    lines.append("\t".join(map(str, [result.tp, result.fp, result.fn, result.p, result.r, result.f])))
    lines.append("{:=^46}".format(""))
    lines.append("")
    return "\n".join(lines) + "\n"
