"""What an evaluation of several systems reads: the hypothesis files and the references, as text files (with the
sources) or one gold M2 (its S lines the sources, each annotator's corrections a reference set), validated into one
EvalInputs, and the human system scores (read_human_csv); read_eval_inputs is what `rank`, `report`, `compare --metric` and `meta-eval` call."""
from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from typing import Any, NamedTuple, Sequence

from peet_fast.io import InputError, decimal, plural, read_bytes, read_parallel

MIN_CORRELATION_SYSTEMS = 3

# how the library's messages name what its caller gave; a command line passes its flags instead (cli._common.FLAGS)
NAMES = {"ref": "reference", "src": "src", "human_subset": "human_subset", "human_ignore": "human_ignore",
         "out": "out_dir"}


@dataclass
class EvalInputs:
    """hyps (per system its lines), references (per reference set its lines), sources (or None), gold (M2 blocks or
    None) and gold_path, and columns ((file, lines) of the references and sources, for messages naming a file and
    line)."""
    hyps: list
    references: list
    sources: list | None
    gold: Sequence[Any] | None
    gold_path: str | None
    columns: list


def read_eval_inputs(hyp_paths: Sequence[str], ref_paths: Sequence[str], src: str | None = None,
                     names: dict | None = None) -> EvalInputs:
    """Read the hypothesis files and the references: text files (with src, the sources too) or one gold M2
    (formats.m2.annotator_references). Refused with InputError: files of different line counts, a gold M2 beside
    other references or beside src, a hypothesis whose line count is not the gold's block count. names: how the
    messages name the references and the sources (NAMES by default)."""
    names = {**NAMES, **(names or {})}
    from peet_fast.formats.m2 import looks_like_m2, read_m2
    from peet_fast.metrics.base import EvalSet

    gold_refs = [r for r in ref_paths if looks_like_m2(r)]
    if not gold_refs:
        texts = read_parallel([*hyp_paths, *ref_paths, *([src] if src else [])])
        hyps = texts[:len(hyp_paths)]
        refs = texts[len(hyp_paths):len(hyp_paths) + len(ref_paths)]
        sources = texts[-1] if src else None
        columns = list(zip(ref_paths, refs)) + ([(src, sources)] if src else [])
        return EvalInputs(hyps, refs, sources, None, None, columns)
    if len(ref_paths) > 1:
        raise InputError(gold_refs[0], f"a gold M2 {names['ref']} is the only reference (its annotators are the "
                                       f"reference sets); {len(ref_paths)} {names['ref']} files were given")
    if src:
        raise InputError(names["src"], f"the gold M2 {gold_refs[0]} supplies the sources; leave out {names['src']}")
    gold_path = gold_refs[0]
    blocks = read_m2(gold_path)
    hyps = read_parallel(hyp_paths)
    if len(hyps[0]) != len(blocks):
        raise InputError(hyp_paths[0], f"has {plural(len(hyps[0]), 'line')} but the gold M2 {gold_path} has "
                                       f"{len(blocks)} "
                                       "sentence blocks")
    gold = EvalSet.from_gold(blocks, gold_path)
    return EvalInputs(hyps, gold.references, gold.sources, blocks, gold_path, [(gold_path, gold.sources)])


# --- compare's edit inputs: two M2 files, or two ChERRANT parallel files ------------------------------------------

def load_m2_pair(hyp_path: str, ref_path: str, check_sources: bool = True):
    """Read and cross-check a hypothesis and a reference M2 file (metrics.inputs.check_m2_pair). Returns (hyp_blocks,
    ref_blocks); raises InputError naming the file and line."""
    from peet_fast.formats.m2 import read_m2
    from peet_fast.metrics.inputs import check_m2_pair

    return check_m2_pair(read_m2(hyp_path), read_m2(ref_path), hyp_path, ref_path, check_sources)


def load_para_pair(hyp_path: str, ref_path: str):
    """Read ChERRANT parallel files (``id \\t source \\t target ...``) for the hypothesis and the references; refuses
    different line counts and a line whose source differs (metrics.inputs.check_para_sources).
    Returns (sources, hyp targets per line, ref targets per line)."""
    from peet_fast.formats.para import read_para
    from peet_fast.metrics.inputs import check_para_sources

    h_src, h_tgt = read_para(hyp_path)
    r_src, r_tgt = read_para(ref_path)
    check_para_sources(hyp_path, h_src, ref_path, r_src, "hyp and ref")
    return r_src, h_tgt, r_tgt


# --- human scores: a system,score CSV --------------------------------------------------------------------------------------------------

class HumanScores(NamedTuple):
    """The human scores of the ranked systems, and the CSV's other systems, left out (`subset`)."""
    scores: dict
    skipped: list


def read_human_scores(path: str, systems: Sequence[str], ignore: Sequence[str] = ()) -> dict[str, float]:
    """A `system,score` CSV (header line required; higher is better) -> {system: score} (read_human_csv, every
    row naming one of `systems` or a name in `ignore`)."""
    return read_human_csv(path, systems, ignore).scores


def read_human_csv(path: str, systems: Sequence[str], ignore: Sequence[str] = (), subset: bool = False,
                   names: dict | None = None) -> HumanScores:
    """A `system,score` CSV (header line required; higher is better) -> HumanScores.

    Rows naming a system in `ignore` are skipped on request. Rows naming none of `systems` (the ranked systems'
    names) are listed in one InputError (file and the first such line) unless `subset`, which skips them and lists
    them in .skipped. A repeated system, a missing or non-finite score, or a malformed row raises InputError naming
    the file and line, and so do fewer than MIN_CORRELATION_SYSTEMS scored systems. names: how the messages name
    the subset and ignore options (NAMES by default)."""
    names = {**NAMES, **(names or {})}
    data = read_bytes(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(path, "invalid UTF-8") from None
    rows = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        scores, unknown = _human_rows(path, rows, set(systems), set(ignore))
    except csv.Error as exc:
        raise InputError(path, f"malformed CSV: {exc}", line=rows.line_num) from None
    if unknown and not subset:
        listed = ", ".join(f"{name!r}" + (f" (line {line})" if k else "") for k, (name, line) in enumerate(unknown))
        raise InputError(path, f"unknown system{'s' if len(unknown) > 1 else ''} {listed}: not among the ranked "
                               f"systems ({', '.join(sorted(systems))}); leave out such rows with {names['human_subset']}, "
                               f"or name them with {names['human_ignore']}", line=unknown[0][1])
    if len(scores) < MIN_CORRELATION_SYSTEMS:
        raise InputError(path, f"a correlation needs at least {MIN_CORRELATION_SYSTEMS} ranked systems with a human "
                               f"score; this file scores {len(scores)}")
    if len(set(scores.values())) == 1:
        raise InputError(path, f"every ranked system has the same score ({next(iter(scores.values()))!r}): no "
                               "ranking to correlate with")
    return HumanScores(scores, [name for name, _ in unknown])


def _human_rows(path: str, rows, known: set, skip: set) -> tuple[dict[str, float], list[tuple[str, int]]]:
    """({ranked system: score}, [(unknown name, line)]) of the CSV rows after the header."""
    scores: dict[str, float] = {}
    unknown: list[tuple[str, int]] = []
    header = next(rows, None)
    if header is None or [h.strip().lower() for h in header] != ["system", "score"]:
        raise InputError(path, f"the header must be 'system,score', got {','.join(header or [])!r}", line=1)
    for row in rows:
        line = rows.line_num
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) != 2:
            raise InputError(path, f"expected 2 fields (system,score), got {len(row)}", line=line)
        name, value = row[0].strip(), row[1].strip()
        if name in skip:
            continue
        if name in scores or name in (u for u, _ in unknown):
            raise InputError(path, f"system {name!r} appears twice", line=line)
        score = decimal(value)             # peet_fast.io.numbers: ASCII digits only (no 1_5, no ٣, no nan)
        if score is None:
            raise InputError(path, f"score {value!r} is not a number (plain decimal digits)", line=line)
        if not math.isfinite(score):
            raise InputError(path, f"score {value!r} is not finite", line=line)
        if name in known:
            scores[name] = score
        else:
            unknown.append((name, line))
    return scores, unknown
