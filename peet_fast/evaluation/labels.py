"""Scatter-plot labels laid out for reading: no label overlaps another label or any point's marker, and every
label lies inside its panel (matplotlib, measured with the figure's own renderer).

place_labels puts each label next to its point: it tries positions around the point at growing distances (right,
left, above, below, then the diagonals), keeps the first whose text box is inside the panel and clear of the boxes
already taken (every marker's, every placed label's), and joins a label set further away to its point with a thin
line. Where no position around the point is free, it takes the free spot of a grid over the panel nearest to the
point, and only where the panel has none, the position with the least overlap. Call it after the figure's layout
is final (tight_layout) and its axis limits are set: positions are computed in display pixels."""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

_DIRECTIONS = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1)]
_RADII_PT = (2, 5, 9, 14, 20, 28, 38, 50, 65, 85, 110)   # distances tried from the point's marker, in points
_LEADER_PT = 9                                          # a label set further than this gets a line to its point
_PAD_PX = 1.5                                           # clearance kept between boxes


def common_prefix(names: Sequence[str]) -> str:
    """The longest prefix every name shares that ends at a separator (``-``, ``_``, ``.``, ``/``, space) and leaves
    each name something ('' when there is none, or one name): 'conll14-task-' of 'conll14-task-AMU', ...-CAMB."""
    if len(names) < 2:
        return ""
    head = names[0]
    for name in names[1:]:
        k = 0
        while k < min(len(head), len(name)) and head[k] == name[k]:
            k += 1
        head = head[:k]
    cut = max(head.rfind(c) for c in "-_./ ") + 1
    head = head[:cut]
    return head if head and all(len(n) > len(head) for n in names) else ""


def _overlap(a, b, pad: float = 0.0) -> float:
    """The area two (x0, y0, x1, y1) boxes share, each grown by pad."""
    w = min(a[2], b[2]) - max(a[0], b[0]) + 2 * pad
    h = min(a[3], b[3]) - max(a[1], b[1]) + 2 * pad
    return w * h if w > 0 and h > 0 else 0.0


def _inside(box, frame, pad: float) -> bool:
    return box[0] >= frame[0] + pad and box[1] >= frame[1] + pad and box[2] <= frame[2] - pad and \
        box[3] <= frame[3] - pad


def place_labels(ax, xs: Sequence[float], ys: Sequence[float], texts: Sequence[str], fontsize="small",
                 marker_size: float = 36.0) -> list:
    """Annotate point k of ax (data coordinates xs[k], ys[k]) with texts[k], without overlaps and inside the panel
    (see the module docstring); marker_size: the scatter's s (points squared). Returns the annotations."""
    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    px_per_pt = fig.dpi / 72.0
    a = ax.get_window_extent(renderer)
    frame = (a.x0, a.y0, a.x1, a.y1)
    points = ax.transData.transform(np.column_stack([np.asarray(xs, float), np.asarray(ys, float)]))
    half = math.sqrt(marker_size) / 2 * px_per_pt + 1.0          # a marker's half width in pixels
    taken = [(x - half, y - half, x + half, y + half) for x, y in points]
    sizes = []
    for text in texts:
        probe = ax.text(0, 0, text, fontsize=fontsize)
        bb = probe.get_window_extent(renderer)
        probe.remove()
        sizes.append((bb.width, bb.height))
    out = []
    for (x, y), (w, h), text, xd, yd in zip(points, sizes, texts, xs, ys):
        box = _free_box(x, y, w, h, half, px_per_pt, frame, taken)
        taken.append(box)
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        far = math.hypot(cx - x, cy - y) - math.hypot(w, h) / 2 - half > _LEADER_PT * px_per_pt
        out.append(ax.annotate(text, (xd, yd), xytext=((cx - x) / px_per_pt, (cy - y) / px_per_pt),
                               textcoords="offset points", ha="center", va="center", fontsize=fontsize,
                               arrowprops={"arrowstyle": "-", "color": "0.55", "linewidth": 0.6, "shrinkA": 1,
                                           "shrinkB": half / px_per_pt} if far else None))
    return out


def _free_box(x, y, w, h, half, px_per_pt, frame, taken):
    """The box (x0, y0, x1, y1) of a w x h label for the point (x, y): see place_labels."""
    for r_pt in _RADII_PT:
        r = half + r_pt * px_per_pt
        for ux, uy in _DIRECTIONS:
            cx = x + ux * (r + w / 2)
            cy = y + uy * (r + h / 2)
            box = (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
            if _inside(box, frame, _PAD_PX) and not any(_overlap(box, t, _PAD_PX) for t in taken):
                return box
    best, best_cost = None, None
    step = max(2.0, h / 2)
    for cy in np.arange(frame[1] + h / 2 + _PAD_PX + 0.5, frame[3] - h / 2 - _PAD_PX, step):
        for cx in np.arange(frame[0] + w / 2 + _PAD_PX + 0.5, frame[2] - w / 2 - _PAD_PX, step):
            box = (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
            cost = (sum(_overlap(box, t, _PAD_PX) for t in taken), math.hypot(cx - x, cy - y))
            if best_cost is None or cost < best_cost:
                best, best_cost = box, cost
    if best is None:                      # a label wider than the panel: beside the point, as it comes
        return (x + half, y - h / 2, x + half + w, y + h / 2)
    return best
