"""Sections that other packages add to a `report` page (evaluation.report.write_report's extra): what one holds, and
its images drawn into the report's directory.

May import the ground floor only (and matplotlib, when drawing)."""
from __future__ import annotations

import html
import os
from dataclasses import dataclass, field
from typing import Callable, Sequence


@dataclass
class Section:
    """A section after the report's own: its id (the <section>'s, not one of SECTIONS), title, HTML body (shown
    above the images) and images, each (file name ending .png, a function drawing its matplotlib figure: called
    when the report is written, the figure closed once saved)."""
    sid: str
    title: str
    body: str
    figures: list[tuple[str, Callable]] = field(default_factory=list)


def draw_sections(tmp: str, extra: Sequence[Section], taken: Sequence[str],
                  ids: Sequence[str]) -> list[tuple[Section, list[str]]]:
    """Save each extra section's figures in tmp; (section, its image names) per section. A section id of the
    report's own (ids) or given twice, or an image name taken (taken: the report's own images) or not a plain *.png
    name, is a programming error (ValueError)."""
    import matplotlib.pyplot as plt

    names, ids, out = set(taken), set(ids), []
    for sec in extra:
        if sec.sid in ids:
            raise ValueError(f"section id {sec.sid!r} is taken")
        ids.add(sec.sid)
        saved = []
        for name, draw in sec.figures:
            if name in names or not name.endswith(".png") or os.path.basename(name) != name:
                raise ValueError(f"image name {name!r} is taken or not a plain .png name")
            names.add(name)
            fig = draw()
            try:
                fig.savefig(os.path.join(tmp, name), format="png")
            finally:
                plt.close(fig)
            saved.append(name)
        out.append((sec, saved))
    return out


def signatures_html(signatures) -> str:
    """The signatures of the page's figures (metrics.signature; one per metric), a paragraph of code lines."""
    import html

    lines = [f"<code>{html.escape(s)}</code>" for s in signatures if s]
    return f'<p class="signatures">Signatures (docs/metrics.md): {"<br>".join(lines)}</p>' if lines else ""


def table(header: Sequence[str], rows: Sequence[Sequence[str]], left: Sequence[int] = (0,),
          head_rows: Sequence[Sequence[tuple[str, int, int]]] | None = None) -> str:
    """An HTML table, laid out as the report's own (the sections other packages build use it too); its cells never
    wrap (a system's name, an interval stay on one line: the header cells may),
    and a table wider than the page scrolls within its own box instead of squeezing its columns. left: the columns
    aligned left (the names; numbers align right). head_rows: instead of the one header row, rows of (text,
    colspan, rowspan) cells (a metric's name over its columns)."""
    e = html.escape

    def cls(k: int) -> str:
        return ' class="l"' if k in left else ""

    def span(n: int, what: str) -> str:
        return f' {what}="{n}"' if n > 1 else ""
    if head_rows is None:
        head = "<tr>" + "".join(f"<th{cls(k)}>{e(h)}</th>" for k, h in enumerate(header)) + "</tr>"
    else:
        first = [0]                                    # the first row's cells start the columns
        for _, c, _ in head_rows[0]:
            first.append(first[-1] + c)
        head = "".join("<tr>" + "".join(f"<th{cls(first[k]) if n == 0 else ''}{span(c, 'colspan')}"
                                        f"{span(r, 'rowspan')}>{e(t)}</th>" for k, (t, c, r) in enumerate(row))
                       + "</tr>" for n, row in enumerate(head_rows))
    body = "".join("<tr>" + "".join(f"<td{cls(k)}>{e(str(c))}</td>" for k, c in enumerate(r)) + "</tr>" for r in rows)
    return f'<div class="table"><table><thead>{head}</thead><tbody>{body}</tbody></table></div>'
