"""The report's error-analysis section (`report --by-type LEVEL`, issue 44): a heatmap of systems x types (F, P or R
on a toggle; thin types marked, not hidden), the per-type difference of two chosen systems with its paired-bootstrap
interval, and a sentence browser: the source, the references, each system's output with every edit marked TP / FP
(and the chosen reference's edits it missed, FN) by colour *and* a text mark, its ``operation:type`` and PEET's
seconds; filters by system, error type and outcome, "where A and B differ", sorting by PEET seconds.

All of it is one self-contained section of index.html: the data as JSON in the page and a small script of this
package (assets/by_type.js, no library, no network), drawn by the browser. The browser holds at most `cap`
sentences (the first ones; the page says so when it is capped); the heatmap and the differences are over all."""
from __future__ import annotations

import html
import json
import os
from typing import Sequence

import numpy as np

from peet_fast.evaluation.by_type import MIN_SUPPORT, ByType, edit_outcomes
from peet_fast.evaluation.report_sections import Section

DEFAULT_CAP = 2000
_OUTCOME = {"TP": 0, "FP": 1, "FN": 2, "unscored": 3}


def _asset(name: str) -> str:
    with open(os.path.join(os.path.dirname(__file__), "assets", name), encoding="utf-8") as fh:
        return fh.read()


def _r(x, digits: int = 4):
    return None if x is None or not np.isfinite(x) else round(float(x), digits)


def _group(t: str, level: int) -> str:
    from peet_fast.metrics.span import group_types

    return next(iter(group_types({t: [0, 0, 0]}, level)))


def browser_data(bt: ByType, sources: Sequence[str], references: Sequence[Sequence[str]],
                 seconds: np.ndarray | None, cap: int = DEFAULT_CAP, strip_cor_spaces: bool = False) -> dict:
    """The JSON the section's script reads: systems (the ranking's order), the types at the level with each system's
    figures (cells: None where a system has no edit of a type), the paired differences of every two systems, and the
    first `cap` sentences: source, references and per system (chosen reference, PEET seconds or None, its edits
    [start, end, correction, type, outcome], the chosen reference's edits marked TP / FN). Edit types index
    "fulltypes"; "group" maps each to its row of "types" (-1: none, e.g. UNK)."""
    fulltypes: dict[str, int] = {}
    sentences = []
    for i in range(min(cap, len(sources))):
        per = [_sentence_of(bt, k, i, seconds, strip_cor_spaces, fulltypes) for k in range(len(bt.systems))]
        sentences.append({"s": sources[i], "r": [ref[i] for ref in references], "o": per})
    groups = list(bt.types)
    grouped = [_group(t, bt.level) for t in fulltypes]
    return {"systems": [s.name for s in bt.systems], "types": bt.types, "cells": _cells(bt),
            "diff": _differences(bt), "f": bt.f_key, "level": bt.level, "min_support": MIN_SUPPORT,
            "groups": groups, "fulltypes": list(fulltypes),
            "group": [groups.index(g) if g in groups else -1 for g in grouped], "sentences": sentences,
            "total": len(sources)}


def _cells(bt: ByType) -> list:
    """Per system, per type: its figures, F's interval and support (TP + FN), or None without an edit of it."""
    out = []
    for s in bt.systems:
        row = []
        for t in bt.types:
            f = s.figures.get(t)
            lo, hi = s.ci.get(t, (None, None))
            row.append(None if f is None else {"TP": f["TP"], "FP": f["FP"], "FN": f["FN"], "P": f["P"], "R": f["R"],
                                               "F": f[bt.f_key], "lo": _r(lo), "hi": _r(hi),
                                               "support": f["TP"] + f["FN"]})
        out.append(row)
    return out


def _differences(bt: ByType) -> dict:
    """{"a,b": per type [F_a - F_b, low, high]} for every two systems a < b (ByType.difference)."""
    names = [s.name for s in bt.systems]
    out = {}
    for a in range(len(names)):
        for b in range(a + 1, len(names)):
            d = bt.difference(names[a], names[b])
            out[f"{a},{b}"] = [[_r(x) for x in d[t]] for t in bt.types]
    return out


def _sentence_of(bt: ByType, k: int, i: int, seconds, strip_cor_spaces: bool, fulltypes: dict) -> list:
    """System k in sentence i: [chosen reference id or None, PEET seconds or None, its edits, the chosen reference's
    edits], each edit [start, end, correction, index in fulltypes (added on first sight), outcome code]."""
    choice = bt.systems[k].choices[i]
    hyp_sent, ref_sent = bt.hyp[k][i], bt.ref[i]
    h = hyp_sent.get(choice[0], []) if choice is not None else []
    r = ref_sent.get(choice[1], []) if choice is not None and ref_sent else []
    marked_h, marked_r = edit_outcomes(h, r, strip_cor_spaces)
    marked_h += [(e, "unscored") for e in h if e[2] == "UNK"]

    def code(e, outcome):
        return [e[0], e[1], e[3], fulltypes.setdefault(e[2], len(fulltypes)), _OUTCOME[outcome]]
    ref_id = choice[1] if choice is not None and ref_sent else None
    return [ref_id if isinstance(ref_id, int) else None, None if seconds is None else _r(seconds[k][i], 2),
            [code(e, o) for e, o in marked_h], [code(e, o) for e, o in marked_r]]


_HTML = """
<p>Each system scored alone as <code>compare -cat {level}</code> (errant_compare -cat {level}) scores it; intervals:
95 % paired bootstrap ({resamples} resamples, seed {seed}). A value in (parentheses), on a hatched cell, rests on
fewer than {min_support} reference edits (TP + FN) of that type; &ndash;: the system has no edit of that type.</p>
<fieldset class="bt-bar"><legend>heatmap</legend>
<label><input type="radio" name="bt-figure" value="F" checked> {fk}</label>
<label><input type="radio" name="bt-figure" value="P"> precision</label>
<label><input type="radio" name="bt-figure" value="R"> recall</label></fieldset>
<div class="table bt-heat"><table><thead><tr><th class="l">type</th>{heads}</tr></thead>
<tbody id="bt-heat-body"></tbody></table></div>
<h3>Difference per type of two systems</h3>
<div class="bt-bar"><label>A <select id="bt-da"></select></label> <label>minus B <select id="bt-db"></select></label>
</div>
<div id="bt-diff" class="bt-diff"></div>
<p>A type in (parentheses) rests on fewer than {min_support} reference edits for A or for B (or one of them has no
edit of it).</p>
<h3>Sentences</h3>
<p id="bt-cap">{cap_note}</p>
<div class="bt-bar">
<label>system <select id="bt-sys"><option value="all">all</option></select></label>
<label>error type <select id="bt-type"><option value="any">any</option></select></label>
<label>outcome <select id="bt-outcome"><option value="any">any</option><option value="0">TP</option>
<option value="1">FP</option><option value="2">FN</option></select></label>
<label><input type="checkbox" id="bt-differ"> only where A and B differ</label>
<label>order <select id="bt-sort"><option value="order">sentence order</option>
<option value="peet">PEET seconds, most first</option></select></label></div>
<p id="bt-matching"></p>
<div class="table"><table class="bt-counts"><thead><tr><th class="l">system</th><th>TP</th><th>FP</th><th>FN</th></tr>
</thead><tbody id="bt-counts-body"></tbody></table></div>
<p class="bt-key">Marks: <span class="e o0"><b class="m">[TP]</b></span> a correct edit,
<span class="e o1"><b class="m">[FP]</b></span> a wrong one, <span class="e o2"><b class="m">[FN]</b></span> a missed
reference edit (of the reference chosen for that system in that sentence), each with its type;
<del>struck</del> text is replaced by <ins>underlined</ins> text.</p>
<div id="bt-list"></div>
<button type="button" id="bt-more">show more</button>
<script type="application/json" id="bt-data">{data}</script>
<style>{css}</style>
<script>{script}</script>
"""


def by_type_section(bt: ByType, sources: Sequence[str], references: Sequence[Sequence[str]],
                    seconds: np.ndarray | None = None, cap: int = DEFAULT_CAP) -> Section:
    """The error-analysis Section of a report (evaluation.report_sections), its figures drawn by the page."""
    data = browser_data(bt, sources, references, seconds, cap)
    e = html.escape
    total, kept = len(sources), len(data["sentences"])
    note = (f"All {total} sentences." if kept == total else
            f"Capped: the first {kept} of {total} sentences are in the browser (the report's sentence cap); the figures "
            f"above are over all {total}.")
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    body = _HTML.format(level=bt.level, resamples=bt.resamples, seed=bt.seed, min_support=MIN_SUPPORT, fk=e(bt.f_key),
                        heads="".join(f'<th class="v"><span>{e(s.name)}</span></th>' for s in bt.systems),
                        cap_note=e(note), data=text, css=_asset("by_type.css"), script=_asset("by_type.js"))
    return Section("by-type", f"Error types (compare -cat {bt.level}) and the edits", body)
