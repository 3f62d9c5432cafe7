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

Appraise ranking XML: ``<ranking-item src-id=N user=U>`` holding ``<translation system="A B" rank="R"/>``; the
systems of one element had identical outputs and share its rank (1 best)."""
from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Sequence

from peet_fast.io import InputError, read_text

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
class RankingItem:
    """One annotator's ranking of one source: `sentence` is the position of its source in the dataset's sentences
    (Dataset.lines), `ranks` each ranked system of the system set -> its rank (1 best)."""
    sentence: int
    user: str
    item: str
    ranks: dict


@dataclass
class Dataset:
    """A meta-evaluation dataset: `systems` (the system set, in the dataset's order), `lines` (0-based line of the
    CoNLL-14 test set of each sentence), `sources`, `references` (one list per annotator), `hypotheses` (system ->
    its sentences, in `lines` order), `human` (HUMAN -> {system: score}, higher is better), `judgments` (JUDG ->
    [RankingItem]), `gold` (the gold M2 blocks at `lines`) and `gold_path`."""
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

    @property
    def human_names(self) -> tuple:
        return SEEDA_HUMAN if self.name == "seeda" else GJG_HUMAN

    @property
    def judgment_names(self) -> tuple:
        return SEEDA_JUDGMENTS if self.name == "seeda" else ("sent",)


def read_output(path: str) -> list[str]:
    """A system's sentences as gec-metrics' read_lines gives them: the file right-stripped as a whole, split at
    newlines, each line right-stripped."""
    if not os.path.isfile(path):
        raise InputError(path, "no such file (a system's output the dataset needs)")
    return [s.rstrip() for s in read_text(path, what="a system's output").rstrip().split("\n")]


def read_rankings(path: str, one_based: bool, known: Sequence[str], n_lines: int) -> list[tuple[int, str, str, dict]]:
    """Appraise ranking XML -> [(0-based line, user, item id, {system: rank})], every system listed; InputError
    naming the file and item for malformed XML, a system not in `known`, a src-id outside the test set's n_lines,
    a rank that is not a positive integer or a system ranked twice in one item."""
    if not os.path.isfile(path):
        raise InputError(path, "no such file (the judgments)")
    try:
        root = ET.fromstring(read_text(path, what="Appraise XML").encode("utf-8"))
    except ET.ParseError as exc:
        raise InputError(path, f"malformed XML: {exc}") from None
    known_set = set(known)
    out = []
    for k, item in enumerate(root.iter("ranking-item")):
        name = f"ranking-item {item.get('id', k)} (src-id {item.get('src-id')})"
        try:
            src = int(item.get("src-id", ""))
        except ValueError:
            raise InputError(path, f"{name}: src-id is not an integer") from None
        line = src - 1 if one_based else src
        if not 0 <= line < n_lines:
            raise InputError(path, f"{name}: src-id {src} is past the test set's {n_lines} lines "
                                   f"({'1' if one_based else '0'}-based)")
        ranks: dict = {}
        for tr in item.iter("translation"):
            try:
                rank = int(tr.get("rank", ""))
            except ValueError:
                rank = 0
            if rank < 1:
                raise InputError(path, f"{name}: rank {tr.get('rank')!r} is not a positive integer")
            for system in (tr.get("system") or "").split():
                if system not in known_set:
                    raise InputError(path, f"{name}: system {system!r} has no output (known: {', '.join(known)})")
                if system in ranks:
                    raise InputError(path, f"{name}: system {system!r} is ranked twice")
                ranks[system] = rank
        out.append((line, item.get("user", ""), str(item.get("id", k)), ranks))
    if not out:
        raise InputError(path, "no ranking-item elements")
    return out


def _gold(gold_path: str):
    from peet_fast.formats.m2 import annotator_references, read_m2

    blocks = read_m2(gold_path)
    return blocks, annotator_references(blocks, gold_path)


def _items(rankings, position: dict, systems: Sequence[str]) -> list[RankingItem]:
    keep = set(systems)
    return [RankingItem(position[line], user, item, {s: r for s, r in ranks.items() if s in keep})
            for line, user, item, ranks in rankings if line in position]


def load_seeda(root: str, gold_path: str, system_set: str = "base") -> Dataset:
    """SEEDA from a clone of tmu-nlp/SEEDA (see the module docstring)."""
    if system_set not in SEEDA_LEFT_OUT:
        raise InputError("--system-set", f"unknown system set {system_set!r}; choose from {', '.join(SYSTEM_SETS)}")
    systems = [s for s in SEEDA_SYSTEMS if s not in SEEDA_LEFT_OUT[system_set]]
    blocks, refs = _gold(gold_path)
    xml = {j: os.path.join(root, "data", f"judgments_{j}.xml") for j in SEEDA_JUDGMENTS}
    rankings = {j: read_rankings(p, True, SEEDA_SYSTEMS, len(blocks)) for j, p in xml.items()}
    lines = sorted({r[0] for r in rankings["sent"]})
    position = {line: k for k, line in enumerate(lines)}
    stray = sorted({r[0] for r in rankings["edit"]} - set(lines))
    if stray:
        raise InputError(xml["edit"], f"src-id {stray[0] + 1} is not judged in {xml['sent']}: the two judgments "
                                      "must rank the same sources (the outputs/subset lines)")
    subset = os.path.join(root, "outputs", "subset")
    hyps = {}
    for s in [*systems, "INPUT"]:
        path = os.path.join(subset, f"{s}.txt")
        hyps[s] = read_output(path)
        if len(hyps[s]) != len(lines):
            raise InputError(path, f"has {len(hyps[s])} lines; the judgments name {len(lines)} sources")
    sources = hyps["INPUT"] if "INPUT" in systems else hyps.pop("INPUT")
    for k, line in enumerate(lines):
        if sources[k] != " ".join(blocks[line].source).rstrip():
            raise InputError(os.path.join(subset, "INPUT.txt"), f"line {k + 1} is not line {line + 1} of the gold "
                                                                f"M2 {gold_path} (is it the CoNLL-14 test set?)")
    human = {}
    for name in SEEDA_HUMAN:
        path = os.path.join(root, "scores", "human", f"{name[:2].upper()}_{name[3:]}.txt")
        values = _numbers(path, len(SEEDA_SYSTEMS))
        human[name] = {s: v for s, v in zip(SEEDA_SYSTEMS, values) if s in systems}
    judgments = {j: _items(rankings[j], position, systems) for j in SEEDA_JUDGMENTS}
    return Dataset("seeda", system_set, systems, lines, list(sources), [[r[i] for i in lines] for r in refs],
                   {s: hyps[s] for s in systems}, human, judgments, [blocks[i] for i in lines], gold_path)


def load_gjg15(root: str, gold_path: str, system_set: str = "all") -> Dataset:
    """GJG15 from a clone of grammatical/evaluation (see the module docstring); its one system set is all 13."""
    if system_set not in ("all", None):
        raise InputError("--system-set", "GJG15 has one system set, all (its 12 submissions and INPUT)")
    data = os.path.join(root, "data") if os.path.isdir(os.path.join(root, "data")) else root
    blocks, refs = _gold(gold_path)
    n = len(blocks)
    hyps = {}
    for s in GJG_SYSTEMS:
        path = os.path.join(data, "original", "official_submissions", s)
        hyps[s] = read_output(path)
        if len(hyps[s]) != n:
            raise InputError(path, f"has {len(hyps[s])} lines but the gold M2 {gold_path} has {n} sentence blocks")
    rankings = read_rankings(os.path.join(data, "judgments.xml"), False, GJG_SYSTEMS, n)
    human = {"ew": dict(zip(GJG_SYSTEMS, GJG_EW)), "ts": {s: GJG_TS[s] for s in GJG_SYSTEMS}}
    lines = list(range(n))
    judgments = {"sent": _items(rankings, {i: i for i in lines}, GJG_SYSTEMS)}
    return Dataset("gjg15", "all", list(GJG_SYSTEMS), lines, [" ".join(b.source) for b in blocks], refs, hyps,
                   human, judgments, list(blocks), gold_path)


def load(name: str, root: str, gold_path: str, system_set: str | None = None) -> Dataset:
    """The dataset `name` ("seeda" or "gjg15") from its clone at root, references from the gold M2 at gold_path.
    system_set: SEEDA's (default "base"); GJG15 has only "all"."""
    if not os.path.isdir(root):
        raise InputError(root, "no such directory (a clone of the dataset's repository)")
    if name == "seeda":
        return load_seeda(root, gold_path, system_set or "base")
    if name == "gjg15":
        return load_gjg15(root, gold_path, system_set or "all")
    raise InputError("--data", f"unknown dataset {name!r}; choose from {', '.join(DATASETS)}")


def _numbers(path: str, count: int) -> list[float]:
    if not os.path.isfile(path):
        raise InputError(path, "no such file (human system scores)")
    rows = [x for x in read_text(path, what="human scores").split("\n") if x.strip()]
    if len(rows) != count:
        raise InputError(path, f"has {len(rows)} scores; expected {count}, one per system in alphabetical order")
    out = []
    for k, x in enumerate(rows, 1):
        try:
            out.append(float(x))
        except ValueError:
            raise InputError(path, f"{x.strip()!r} is not a number", line=k) from None
    return out
