"""``etsb size``'s report as JSON and as a self-contained HTML page, from the
plain report :func:`selective_build.driver.size.size_report` makes: one
entry per binary (the trimmed one first, then its all-kernels companion),
each with its stripped size, its parts and its kernels per operator file.

The page has no script and loads nothing: inline CSS, a bar per part and per
operator, all drawn to one scale (the largest file shown), so that the
trimmed binary's bars stand beside the all-kernels ones."""

from __future__ import annotations

import html
import json
from collections.abc import Mapping


def render_size_json(report: Mapping) -> str:
    """The report as JSON (keys sorted, one item a line: diffable)."""
    return json.dumps(report, indent=1, sort_keys=True) + "\n"


def _kb(size: int) -> str:
    return f"{size / 1024:,.1f} KB"


def _bar(name: str, size: int, scale: int, kind: str) -> str:
    width = 100.0 * size / scale if scale else 0.0
    return (f'<div class="row {kind}"><span class="name">{html.escape(name)}</span>'
            f'<span class="bar"><span style="width:{width:.2f}%"></span></span>'
            f'<span class="size">{_kb(size)}</span></div>')


def render_size_html(report: Mapping) -> str:
    """The report as one HTML page: per binary, its parts and its operators as bars."""
    binaries = report["binaries"]
    scale = max((max(b["stripped"], b["runtime"]) for b in binaries), default=0)
    sections = []
    for binary in binaries:
        rows = [_bar("stripped binary", binary["stripped"], scale, "total")]
        for part, size in binary["parts"].items():
            rows.append(_bar(part, size, scale, "part"))
            if part == report["kernels_part"]:
                for operator, op_size in sorted(binary["operators"].items(), key=lambda item: (-item[1], item[0])):
                    rows.append(_bar(f"op_{operator}", op_size, scale, "operator"))
        if binary["runtime"]:  # none with the static runtime, which is among the parts
            rows.append(_bar("runtime: libexecutorch.so (shared, not in the binary)", binary["runtime"], scale,
                             "runtime"))
        sections.append(f'<section><h2>{html.escape(binary["label"])}</h2>\n' + "\n".join(rows) + "\n</section>")
    title = f"size of {report['label']}"
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{html.escape(title)}</title>
<style>
body {{ font: 14px/1.4 sans-serif; margin: 2em; color: #222; }}
h1 {{ font-size: 1.3em; }} h2 {{ font-size: 1.05em; margin-top: 1.5em; }}
.row {{ display: flex; align-items: center; gap: 0.8em; margin: 2px 0; }}
.name {{ width: 26em; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }}
.operator .name {{ padding-left: 2em; width: 24em; }}
.part .name {{ padding-left: 1em; width: 25em; }}
.bar {{ flex: 1; background: #eee; height: 0.9em; }}
.bar span {{ display: block; height: 100%; background: #4a7ab5; }}
.operator .bar span {{ background: #7fb07a; }} .runtime .bar span {{ background: #aaa; }}
.size {{ width: 7em; text-align: right; font-variant-numeric: tabular-nums; }}
</style>
</head>
<body>
<h1>{html.escape(title)}</h1>
<p>Stripped sizes; parts and kernels per operator file from the linker's map. Every bar is drawn to one
scale, the largest file shown ({_kb(scale)}).</p>
{chr(10).join(sections)}
</body>
</html>
"""
