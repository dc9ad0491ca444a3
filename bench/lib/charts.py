"""SVG charts: latencies as bars on a log scale (a row per program, a bar per
side), and shares as 100% stacked bars (a row per program, a part per kind)."""

from __future__ import annotations

import math
from typing import Callable, Sequence
from xml.sax.saxutils import escape

from lib.results import ms_cell
from lib.rounds import Timed

LABEL_W = 130   # the rows' labels, left of the bars


def _svg(title: str, legend: Sequence[tuple[str, str]], bar_w: int, right_w: int, top: int, row_h: int,
         rows: int, body: list[str], note: str, ratio_title: str | None = None) -> str:
    """A chart of ``rows`` rows (``body``, drawn under ``top``): its title, legend ((text, colour), 7 a
    line, ~6 px a character), ``note`` under the bars; ``ratio_title``: the ratio column's title of a
    latency chart (its rows shaded every other one), None for a share chart."""
    width, height = LABEL_W + bar_w + right_w, top + row_h * rows + (40 if ratio_title is not None else 34)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} '
           f'{height}" font-family="sans-serif" font-size="11">', f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{width / 2}" y="18" text-anchor="middle" font-size="14" font-weight="bold">{escape(title)}</text>']
    for line in range(0, len(legend), 7):
        x, y = LABEL_W, 28 + 16 * (line // 7)
        for text, colour in legend[line:line + 7]:
            out.append(f'<rect x="{x}" y="{y}" width="12" height="10" fill="{colour}"/>'
                       f'<text x="{x + 16}" y="{y + 9}">{escape(text)}</text>')
            x += 16 + 6 * len(text)
    if ratio_title:
        out.append(f'<text x="{LABEL_W + bar_w + 8}" y="37" font-weight="bold">{escape(ratio_title)}</text>')
    out += [f'<rect x="0" y="{top + i * row_h}" width="{width}" height="{row_h}" fill="#f4f4f4"/>'
            for i in range(1, rows, 2) if ratio_title is not None]
    return "\n".join(out + body + [f'<text x="{LABEL_W + bar_w / 2}" y="{height - (6 if ratio_title is not None else 8)}" '
                                   f'text-anchor="middle" fill="#555">{escape(note)}</text>', "</svg>"]) + "\n"


def bar_chart(title: str, results: Sequence[Timed], sides: Sequence[tuple[str, str, str]],
              ratio: tuple[str, Callable[[Timed], float | None]] | None) -> str | None:
    """Bars of log-scale ms, a row per result and a bar per side ((key in Timed.ms, legend, colour)), each
    labelled with its time, the row with ``ratio``'s (header, function of the row) unless it is None;
    None when no row was timed on every side."""
    rows = [t for t in results if all(key in t.ms for key, _, _ in sides)]
    if not rows:
        return None
    bar_w, row_h, top = 540, 12 * len(sides) + 6, 58
    values = [t.ms[key] for t in rows for key, _, _ in sides]
    low, high = 10 ** math.floor(math.log10(min(values))), 10 ** math.ceil(math.log10(max(values) * 1.5))

    def x(value: float) -> float:
        return LABEL_W + bar_w * (math.log10(value) - math.log10(low)) / (math.log10(high) - math.log10(low))

    body, bottom, decade = [], top + row_h * len(rows), low
    while decade <= high * 1.0001:
        body += [f'<line x1="{x(decade):.1f}" y1="{top - 6}" x2="{x(decade):.1f}" y2="{bottom}" stroke="#ccc" '
                 'stroke-width="1"/>', f'<text x="{x(decade):.1f}" y="{bottom + 14}" text-anchor="middle" '
                 f'fill="#555">{decade:g} ms</text>']
        decade *= 10
    for index, t in enumerate(rows):
        y = top + index * row_h
        body.append(f'<text x="{LABEL_W - 6}" y="{y + row_h / 2 + 4}" text-anchor="end">{escape(t.name)}</text>')
        for offset, (key, _, colour) in zip(range(3, row_h, 12), sides):
            end = x(t.ms[key])
            body.append(f'<rect x="{LABEL_W}" y="{y + offset}" width="{max(end - LABEL_W, 1):.1f}" height="11" '
                        f'fill="{colour}"/><text x="{end + 3:.1f}" y="{y + offset + 9}" font-size="9" fill="#333">'
                        f'{ms_cell(t.ms[key])}</text>')
        if (value := ratio[1](t) if ratio else None) is not None:
            colour = "#c00" if value > 1 else "#080"
            body.append(f'<text x="{LABEL_W + bar_w + 8}" y="{y + row_h / 2 + 4}" fill="{colour}" font-weight="bold">'
                        + (f"{value:.2f}x" if value >= 0.1 else f"{value:.2g}x") + "</text>")
    return _svg(title, [(legend, colour) for _, legend, colour in sides], bar_w, 80, top, row_h, len(rows), body,
                "median latency, log scale (shorter is faster)", ratio[0] if ratio else "")


def share_chart(title: str, rows: Sequence[tuple[str, str, Sequence[tuple[str, float]]]],
                colours: Sequence[tuple[str, str]], note: str) -> str:
    """A 100% stacked bar per row (label, right-hand text, (part, share) pairs), the parts coloured and in the
    legend's order (``colours``: (part, colour)), each share printed on its part where there is room."""
    bar_w, colour_of, body = 560, dict(colours), []
    for index, (label, right, parts) in enumerate(rows):
        y, x = 62 + index * 18, float(LABEL_W)
        body.append(f'<text x="{LABEL_W - 6}" y="{y + 13}" text-anchor="end">{escape(label)}</text>')
        for part, share in parts:
            body.append(f'<rect x="{x:.1f}" y="{y + 2}" width="{bar_w * share:.1f}" height="14" '
                        f'fill="{colour_of[part]}"><title>{escape(part)} {share:.0%}</title></rect>')
            if bar_w * share >= 26:
                body.append(f'<text x="{x + bar_w * share / 2:.1f}" y="{y + 13}" text-anchor="middle" font-size="9" '
                            f'fill="white">{share:.0%}</text>')
            x += bar_w * share
        body.append(f'<text x="{LABEL_W + bar_w + 6}" y="{y + 13}" fill="#333">{escape(right)}</text>')
    return _svg(title, [(part, colour) for part, colour in colours], bar_w, 90, 62, 18, len(rows), body, note)
