"""SVG bar charts of latencies (log scale), one row per program, one bar per side."""

from __future__ import annotations

import math
from typing import Callable, Sequence
from xml.sax.saxutils import escape

from lib.rounds import Timed
from lib.results import ms_cell

Side = tuple[str, str, str]   # (key in Timed.ms, legend, colour)


def _frame(title: str, sides: Sequence[Side], ratio_title: str | None, width: int, height: int,
           label_w: int, bar_w: int) -> list[str]:
    """The chart's background, title, legend and ratio column's title."""
    out = [(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">'),
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{width / 2}" y="18" text-anchor="middle" font-size="14" font-weight="bold">'
           f'{escape(title)}</text>']
    legend_x = label_w
    for _, legend, colour in sides:   # ~6 px a character
        out.append(f'<rect x="{legend_x}" y="28" width="12" height="10" fill="{colour}"/>'
                   f'<text x="{legend_x + 16}" y="37">{escape(legend)}</text>')
        legend_x += 16 + 6 * len(legend)
    if ratio_title:
        out.append(f'<text x="{label_w + bar_w + 8}" y="37" font-weight="bold">{escape(ratio_title)}</text>')
    return out


def bar_chart(title: str, results: Sequence[Timed], sides: Sequence[Side],
              ratio: tuple[str, Callable[[Timed], float | None]] | None) -> str | None:
    """A horizontal bar chart (log-scale ms), one bar per row and side, each
    labelled with its time, the row with ``ratio``'s (header, function of the
    row) unless it is None; None when no row was timed on every side."""
    keys = [key for key, _, _ in sides]
    rows = [t for t in results if all(key in t.ms for key in keys)]
    if not rows:
        return None
    label_w, bar_w, right_w, row_h, top = 130, 540, 80, 12 * len(sides) + 6, 58
    width, height = label_w + bar_w + right_w, top + row_h * len(rows) + 40
    values = [t.ms[s] for t in rows for s in keys]
    low = 10 ** math.floor(math.log10(min(values)))
    high = 10 ** math.ceil(math.log10(max(values) * 1.5))   # room for the value labels
    span = math.log10(high) - math.log10(low)

    def x(value: float) -> float:
        return label_w + bar_w * (math.log10(value) - math.log10(low)) / span

    out = _frame(title, sides, ratio[0] if ratio else None, width, height, label_w, bar_w)
    for index in range(1, len(rows), 2):   # every other row shaded, under the grid
        out.append(f'<rect x="0" y="{top + index * row_h}" width="{width}" height="{row_h}" fill="#f4f4f4"/>')
    decade = low
    while decade <= high * 1.0001:
        out.append(f'<line x1="{x(decade):.1f}" y1="{top - 6}" x2="{x(decade):.1f}" y2="{top + row_h * len(rows)}" '
                   'stroke="#ccc" stroke-width="1"/>')
        out.append(f'<text x="{x(decade):.1f}" y="{top + row_h * len(rows) + 14}" text-anchor="middle" '
                   f'fill="#555">{decade:g} ms</text>')
        decade *= 10
    for index, t in enumerate(rows):
        y = top + index * row_h
        out.append(f'<text x="{label_w - 6}" y="{y + row_h / 2 + 4}" text-anchor="end">{escape(t.name)}</text>')
        for offset, (side, _, colour) in zip(range(3, row_h, 12), sides):
            end = x(t.ms[side])
            out.append(f'<rect x="{label_w}" y="{y + offset}" width="{max(end - label_w, 1):.1f}" height="11" '
                       f'fill="{colour}"/>')
            out.append(f'<text x="{end + 3:.1f}" y="{y + offset + 9}" font-size="9" fill="#333">'
                       f'{ms_cell(t.ms[side])}</text>')
        value = ratio[1](t) if ratio else None
        if value is not None:
            out.append(f'<text x="{label_w + bar_w + 8}" y="{y + row_h / 2 + 4}" '
                       f'fill="{"#c00" if value > 1 else "#080"}" font-weight="bold">'
                       + (f"{value:.2f}x" if value >= 0.1 else f"{value:.2g}x") + "</text>")
    out.append(f'<text x="{label_w + bar_w / 2}" y="{height - 6}" text-anchor="middle" fill="#555">'
               'median latency, log scale (shorter is faster)</text>')
    return "\n".join(out + ["</svg>"]) + "\n"


def share_chart(title: str, rows: Sequence[tuple[str, str, Sequence[tuple[str, float]]]],
                colours: Sequence[tuple[str, str]], note: str) -> str:
    """A horizontal 100% stacked bar per row (label, right-hand text, (part,
    share) pairs), the parts coloured and in the legend's order (``colours``:
    (part, colour)), each part's share printed on it when there is room;
    ``note`` under the bars."""
    label_w, bar_w, right_w, row_h, top = 130, 560, 90, 18, 62
    width, height = label_w + bar_w + right_w, top + row_h * len(rows) + 34
    out = _frame(title, [("", part, colour) for part, colour in colours[:7]], None, width, height, label_w, bar_w)
    legend_x = label_w
    for part, colour in colours[7:]:   # a second legend line
        out.append(f'<rect x="{legend_x}" y="44" width="12" height="10" fill="{colour}"/>'
                   f'<text x="{legend_x + 16}" y="53">{escape(part)}</text>')
        legend_x += 16 + 6 * len(part)
    colour_of = dict(colours)
    for index, (label, right, parts) in enumerate(rows):
        y, x = top + index * row_h, float(label_w)
        out.append(f'<text x="{label_w - 6}" y="{y + 13}" text-anchor="end">{escape(label)}</text>')
        for part, share in parts:
            w = bar_w * share
            out.append(f'<rect x="{x:.1f}" y="{y + 2}" width="{w:.1f}" height="14" fill="{colour_of[part]}">'
                       f'<title>{escape(part)} {share:.0%}</title></rect>')
            if w >= 26:
                out.append(f'<text x="{x + w / 2:.1f}" y="{y + 13}" text-anchor="middle" font-size="9" '
                           f'fill="white">{share:.0%}</text>')
            x += w
        out.append(f'<text x="{label_w + bar_w + 6}" y="{y + 13}" fill="#333">{escape(right)}</text>')
    out.append(f'<text x="{label_w + bar_w / 2}" y="{height - 8}" text-anchor="middle" fill="#555">'
               f'{escape(note)}</text>')
    return "\n".join(out + ["</svg>"]) + "\n"
