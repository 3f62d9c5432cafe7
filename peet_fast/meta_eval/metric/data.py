"""The two meta-evaluation datasets, read from clones of their public releases as gec-metrics' MetaEvalSEEDA and
MetaEvalGJG build them, and the CoNLL-14 gold M2 for the references.

SEEDA (tmu-nlp/SEEDA; Kobayashi et al. 2024): DIR is the clone's root. Its 391 judged lines are the distinct
``src-id - 1`` of ``data/judgments_sent.xml`` (1-based ids into the 1,312-line CoNLL-14 test set), in increasing
order; the systems' sentences are ``outputs/subset/NAME.txt`` (those lines, in that order; each line right-stripped
as gec-metrics' read_lines does), the sources ``outputs/subset/INPUT.txt``, the references the two CoNLL-14
annotators' corrections of the gold M2 at those lines (peet_fast.formats.m2.annotator_references: an annotator
without edits in a block gives the source, as gecommon does). The human system scores are
``scores/human/{EW,TS}_{sent,edit}.txt`` (one value per system, the systems in alphabetical order), named
``ew_sent ew_edit ts_sent ts_edit``; the sentence-level judgments ``data/judgments_{sent,edit}.xml``, named
``sent`` and ``edit``. System sets: ``base`` (the 12 systems without INPUT, REF-F and GPT-3.5), ``+INPUT``,
``+REF-F_GPT-3.5`` (alias ``+fluency``) and ``all``.

GJG15 (grammatical/evaluation; Grundkiewicz et al. 2015): DIR is the clone's root (or its ``data/``). The 13
outputs (12 CoNLL-14 submissions and INPUT) are ``data/original/official_submissions/NAME`` (1,312 lines each),
the sources the gold M2's S lines, the references its two annotators'. Human scores: the paper's Table 3 (Expected
Wins ``ew`` and TrueSkill ``ts``, three decimals) as gec-metrics ships them; judgments ``data/judgments.xml``
(0-based ``src-id``), named ``sent``. The systems are in gec-metrics' order (Table 3b's), which matters at the
sentence level: a metric tie counts as a loss of the earlier system of a pair (meta_eval.metric.sentence).

The judgments (Appraise ranking XML) are read by peet_fast.meta_eval.human.judgments, with the checks `human-rank`
makes: a src-id and a rank of ASCII digits alone, a rank of 1-5, every translation naming systems of the dataset."""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

from peet_fast.io import InputError, decimal, plural, read_lines, shown
from peet_fast.meta_eval.human.judgments import read_judgments

SEEDA_SYSTEMS = ("BART", "BERT-fuse", "GECToR-BERT", "GECToR-ens", "GPT-3.5", "INPUT", "LM-Critic", "PIE", "REF-F",
                 "REF-M", "Riken-Tohoku", "T5", "TemplateGEC", "TransGEC", "UEDIN-MS")
SEEDA_LEFT_OUT = {"base": ("INPUT", "REF-F", "GPT-3.5"), "+INPUT": ("REF-F", "GPT-3.5"),
                  "+REF-F_GPT-3.5": ("INPUT",), "+fluency": ("INPUT",), "all": ()}
SEEDA_HUMAN = ("ew_sent", "ew_edit", "ts_sent", "ts_edit")
SEEDA_JUDGMENTS = ("sent", "edit")
# Table 3 of Grundkiewicz et al. (2015), as gec-metrics' MetaEvalGJG lists it: (b) Expected Wins, (c) TrueSkill
GJG_SYSTEMS = ("AMU", "RAC", "CAMB", "CUUI", "POST", "UFC", "PKU", "UMC", "IITB", "SJTU", "INPUT", "NTHU", "IPN")
GJG_EW = (0.628, 0.566, 0.561, 0.550, 0.539, 0.513, 0.506, 0.495, 0.485, 0.463, 0.456, 0.437, 0.300)
GJG_TS = {"AMU": 0.273, "CAMB": 0.182, "RAC": 0.114, "CUUI": 0.105, "POST": 0.080, "PKU": -0.001, "UMC": -0.022,
          "UFC": -0.041, "IITB": -0.055, "INPUT": -0.062, "SJTU": -0.074, "NTHU": -0.142, "IPN": -0.358}
GJG_HUMAN = ("ew", "ts")
DATASETS = ("seeda", "gjg15")
SYSTEM_SETS = tuple(SEEDA_LEFT_OUT)


@dataclass
class Dataset:
    """A meta-evaluation dataset: `systems` (the system set, in the dataset's order), `lines` (0-based line of the
    CoNLL-14 test set of each sentence), `sources`, `references` (one list per annotator), `hypotheses` (system ->
    its sentences, in `lines` order), `human` (HUMAN -> {system: score}, higher is better), `judgments` (JUDG ->
    [peet_fast.meta_eval.human.judgments.RankingItem], each item's line its sentence's index in `lines`, its ranks
    those of the system set), `gold` (the gold M2 blocks at `lines`) and `gold_path`."""
    name: str
    system_set: str
    systems: list
    lines: list
    sources: list
    references: list
    hypotheses: dict
    human: dict
    judgments: dict
    gold: list = field(repr=False, default=None)
    gold_path: str | None = None
    tie_order: list | None = None        # the sentence level's tie order (meta_eval.metric.sentence); None: systems

    @property
    def human_names(self) -> tuple:
        return tuple(self.human)

    @property
    def judgment_names(self) -> tuple:
        return tuple(self.judgments)


def read_output(path: str) -> list[str]:
    """A system's sentences as gec-metrics' read_lines gives them: the file right-stripped as a whole, split at
    newlines, each line right-stripped. Read as every text input is (io.read_lines): refused at the first NUL byte
    or invalid UTF-8, naming the line."""
    if not os.path.isfile(path):
        raise InputError(path, "no such file (a system's output the dataset needs)")
    return [s.rstrip() for s in "\n".join(read_lines(path)).rstrip().split("\n")]


def check_sources(path: str, sources: list, blocks: list, lines: list, gold_path: str) -> None:
    """InputError naming the first line of the INPUT output at `path` that is not its line of the gold M2 (its S
    line, tokens joined by spaces): the outputs and the gold are of one test set, in one order."""
    for k, line in enumerate(lines):
        if sources[k] != " ".join(blocks[line].source).rstrip():
            raise InputError(path, f"is not sentence {line + 1} of the gold M2 {gold_path} (the gold and the "
                                   "outputs must be the CoNLL-14 test set, in its order)", k + 1)


CONLL14_BLOCKS = 1312        # sentence blocks of the CoNLL-14 test set's gold M2
# the largest judgments file a dataset may hold (SEEDA's and GJG15's hold under 1 MB): meta-eval keeps an object per
# ranking item and per pair of its sentence level, about 17 bytes of memory per byte of the file
MAX_DATASET_JUDGMENTS = 32 << 20


def _bounded(path: str) -> str:
    try:
        size = os.path.getsize(path)
    except OSError:
        return path                                   # read_judgments says why it cannot be read
    if size > MAX_DATASET_JUDGMENTS:
        raise InputError(path, f"holds {size:,} bytes; a dataset's judgments file holds at most "
                               f"{MAX_DATASET_JUDGMENTS >> 20} MiB (SEEDA's and GJG15's hold under 1 MB)")
    return path


def _gold(gold_path: str):
    from peet_fast.formats.m2 import read_m2
    from peet_fast.metrics.base import EvalSet

    blocks = read_m2(gold_path)
    return blocks, EvalSet.from_gold(blocks, gold_path).references


def load_seeda(root: str, gold_path: str, system_set: str = "base") -> Dataset:
    """SEEDA from a clone of tmu-nlp/SEEDA (see the module docstring)."""
    if system_set not in SEEDA_LEFT_OUT:
        raise InputError("system_set", f"unknown system set {system_set!r}; choose from {', '.join(SYSTEM_SETS)}")
    systems = [s for s in SEEDA_SYSTEMS if s not in SEEDA_LEFT_OUT[system_set]]
    blocks, refs = _gold(gold_path)
    xml = {j: os.path.join(root, "data", f"judgments_{j}.xml") for j in SEEDA_JUDGMENTS}
    conll14 = len(blocks) == CONLL14_BLOCKS     # else a src-id past the gold is the gold's error, not the judgments'
    rankings = {j: read_judgments(_bounded(p), 1, len(blocks) if conll14 else None, SEEDA_SYSTEMS)
                for j, p in xml.items()}
    for j, p in xml.items():
        last = int(rankings[j].lines.max()) if len(rankings[j].lines) else -1
        if last >= len(blocks):
            raise InputError(gold_path, f"has {len(blocks)} sentence blocks, but {p} judges src-id {last + 1}: "
                                        "is it the CoNLL-14 test set (1,312 blocks)?")
    lines = sorted(set(rankings["sent"].lines.tolist()))
    position = {line: k for k, line in enumerate(lines)}
    stray = sorted(set(rankings["edit"].lines.tolist()) - set(lines))
    if stray:
        raise InputError(xml["edit"], f"src-id {stray[0] + 1} is not judged in {xml['sent']}: the two judgments "
                                      "must rank the same sources (the outputs/subset lines)")
    subset = os.path.join(root, "outputs", "subset")
    hyps = {}
    for s in [*systems, "INPUT"]:
        path = os.path.join(subset, f"{s}.txt")
        hyps[s] = read_output(path)
        if len(hyps[s]) != len(lines):
            raise InputError(path, f"has {plural(len(hyps[s]), 'line')}; the judgments name {len(lines)} sources")
    sources = hyps["INPUT"] if "INPUT" in systems else hyps.pop("INPUT")
    check_sources(os.path.join(subset, "INPUT.txt"), sources, blocks, lines, gold_path)
    human = {}
    for name in SEEDA_HUMAN:
        path = os.path.join(root, "scores", "human", f"{name[:2].upper()}_{name[3:]}.txt")
        values = _numbers(path, len(SEEDA_SYSTEMS))
        human[name] = {s: v for s, v in zip(SEEDA_SYSTEMS, values) if s in systems}
    judgments = {j: rankings[j].restricted(position, systems) for j in SEEDA_JUDGMENTS}
    return Dataset("seeda", system_set, systems, lines, list(sources), [[r[i] for i in lines] for r in refs],
                   {s: hyps[s] for s in systems}, human, judgments, [blocks[i] for i in lines], gold_path)


def load_gjg15(root: str, gold_path: str, system_set: str = "all") -> Dataset:
    """GJG15 from a clone of grammatical/evaluation (see the module docstring); its one system set is all 13."""
    if system_set not in ("all", None):
        raise InputError("system_set", "GJG15 has one system set, all (its 12 submissions and INPUT)")
    data = os.path.join(root, "data") if os.path.isdir(os.path.join(root, "data")) else root
    blocks, refs = _gold(gold_path)
    n = len(blocks)
    hyps = {}
    for s in GJG_SYSTEMS:
        path = os.path.join(data, "original", "official_submissions", s)
        hyps[s] = read_output(path)
        if len(hyps[s]) != n:
            raise InputError(path, f"has {plural(len(hyps[s]), 'line')} but the gold M2 {gold_path} has {n} sentence "
                                   "blocks")
    check_sources(os.path.join(data, "original", "official_submissions", "INPUT"), hyps["INPUT"], blocks,
                  list(range(n)), gold_path)
    rankings = read_judgments(_bounded(os.path.join(data, "judgments.xml")), 0, n, GJG_SYSTEMS)
    human = {"ew": dict(zip(GJG_SYSTEMS, GJG_EW)), "ts": {s: GJG_TS[s] for s in GJG_SYSTEMS}}
    lines = list(range(n))
    judgments = {"sent": rankings.restricted({i: i for i in lines}, GJG_SYSTEMS)}
    return Dataset("gjg15", "all", list(GJG_SYSTEMS), lines, [" ".join(b.source) for b in blocks], refs, hyps,
                   human, judgments, list(blocks), gold_path)


def load(name: str, root: str, gold_path: str, system_set: str | None = None) -> Dataset:
    """The dataset `name` ("seeda" or "gjg15") from its clone at root, references from the gold M2 at gold_path.
    system_set: SEEDA's (default "base"); GJG15 has only "all". A parameter of the wrong type is an InputError
    naming it (data, root, gold, system_set)."""
    for param, value in (("data", name), ("root", root), ("gold", gold_path)):
        if not isinstance(value, (str, os.PathLike)):
            raise InputError(param, f"{type(value).__name__} is not a {'dataset name' if param == 'data' else 'path'}")
    if system_set is not None and not isinstance(system_set, str):
        raise InputError("system_set", f"{type(system_set).__name__} is not a system set's name")
    name, root, gold_path = os.fspath(name), os.fspath(root), os.fspath(gold_path)
    if not os.path.isdir(root):
        raise InputError(root, "no such directory (a clone of the dataset's repository)")
    if name == "seeda":
        return load_seeda(root, gold_path, system_set or "base")
    if name == "gjg15":
        return load_gjg15(root, gold_path, system_set or "all")
    raise InputError("data", f"unknown dataset {name!r}; choose from {', '.join(DATASETS)}")


def _numbers(path: str, count: int) -> list[float]:
    if not os.path.isfile(path):
        raise InputError(path, "no such file (human system scores)")
    rows = [(k, x.strip()) for k, x in enumerate(read_lines(path), 1) if x.strip()]
    if len(rows) != count:
        raise InputError(path, f"has {plural(len(rows), 'score')}; expected {count}, one per system in alphabetical "
                               "order")
    out = []
    for k, x in rows:
        value = decimal(x)              # a plain decimal number (peet_fast.io.numbers), finite: no nan, inf, 0_5
        if value is None or not math.isfinite(value):
            raise InputError(path, f"{shown(x)!r} is not a finite decimal number", line=k)
        out.append(value)
    if len(set(out)) == 1:
        raise InputError(path, f"every system has the same score ({out[0]!r}): no ranking to correlate with")
    return out
