"""The Questions panel: the reader's questions with their answer spans, how well the chunking
on screen retrieves them (BM25, `chunker.evaluate`), and a sweep over strategies and sizes as
a table and a chart.

HTML and SVG built here, in the worker, from the library's plain data; every text is escaped.

>>> line_chart({"recursive": [(128, 0.5, 0.2), (256, 0.75, 0.1)]}).startswith("<svg")
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from chunker import SWEEP_SIZES, SWEEP_STRATEGIES  # the sweep the panel runs is the library's

from .html import esc, num, plural

__all__ = ["questions_html", "evaluation_html", "sweep_html", "line_chart", "SWEEP_STRATEGIES", "SWEEP_SIZES"]

_TINTS = ("#2563eb", "#c2410c", "#15803d", "#7e22ce", "#a16207", "#0e7490")


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def questions_html(questions: Sequence[Any], document: str, selected: int | None = None) -> str:
    """The list of questions, each with its answers' starts and a button to show what the
    chunking retrieves for it."""
    if not questions:
        return (
            '<p class="help">No questions yet. Type one, select its answer in the document '
            "view, and add it; or import a JSONL file.</p>"
        )
    out = ['<ol class="questions">']
    for n, q in enumerate(questions):
        answers = "; ".join(esc(_short(document[r.start_index : r.end_index])) for r in q.references)
        mark = ' aria-current="true" class="current"' if n == selected else ""
        out.append(
            f'<li data-question="{n}"{mark}><button type="button" class="linkish q-show" '
            f'data-question="{n}" title="Show the chunks retrieved for it">{esc(q.question)}</button> '
            f'<span class="help">{plural(len(q.references), "answer")}: “{answers}”</span> '
            f'<button type="button" class="q-remove" data-question="{n}" '
            f'aria-label="Remove this question">×</button></li>'
        )
    out.append("</ol>")
    return "".join(out)


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def evaluation_html(ev: Any, settings: Any) -> str:
    """The chunking on screen: its five means, and each question's ranks."""
    tiles = (
        ("Recall", _pct(ev.recall)),
        ("Precision", _pct(ev.precision)),
        ("IoU", _pct(ev.iou)),
        ("Hit rate", _pct(ev.hit_rate)),
        ("MRR", f"{ev.mrr:.2f}"),
    )
    head = "".join(
        f'<div class="tile"><span class="label">{esc(k)}</span><span class="value">{esc(v)}</span></div>' for k, v in tiles
    )
    return (
        f'<div class="stats">{head}</div><p class="help">The top {ev.top_k} chunks of '
        f"{esc(settings.strategy)} at {num(settings.size)} {esc(settings.unit)} by BM25 over "
        f"{'each chunk as embedded (its context, then its text)' if ev.index == 'embedded' else 'the chunk texts'}, "
        f"averaged over {plural(ev.questions, 'question')}.</p>"
    )


def sweep_html(rows: Sequence[Any], strategies: Sequence[str], sizes: Sequence[int]) -> str:
    """The sweep so far: a table of every strategy and size (rows still to come say so), and
    the chart of recall and IoU against size."""
    found = {(r.strategy, r.size): r for r in rows}
    out = [
        '<table class="sweep"><caption class="sr-only">Retrieval by strategy and size</caption>'
        '<thead><tr><th scope="col">Strategy</th><th scope="col">Size</th><th scope="col">Chunks</th>'
        '<th scope="col">Recall</th><th scope="col">Precision</th><th scope="col">IoU</th>'
        '<th scope="col">Hit rate</th></tr></thead><tbody>'
    ]
    for s in strategies:
        for z in sizes:
            r = found.get((s, z))
            cells = (
                '<td colspan="5" class="pending">computing…</td>'
                if r is None
                else f"<td>{num(r.chunks)}</td><td{_best(r, 'recall')}>{_pct(r.recall)}</td>"
                f"<td>{_pct(r.precision)}</td><td{_best(r, 'iou')}>{_pct(r.iou)}</td>"
                f"<td>{_pct(r.hit_rate)}</td>"
            )
            out.append(f'<tr data-strategy="{esc(s)}" data-size="{z}"><th scope="row">{esc(s)}</th><td>{num(z)}</td>{cells}</tr>')
    out.append("</tbody></table>")
    series: dict[str, list[tuple[float, float, float]]] = {}
    for r in rows:
        series.setdefault(r.strategy, []).append((r.size, r.recall, r.iou))
    return line_chart(series) + "".join(out)


def _best(row: Any, metric: str) -> str:
    return ' class="best" title="best"' if metric in getattr(row, "best", ()) else ""


def line_chart(series: Mapping[str, Sequence[tuple[float, float, float]]], *, width: int = 560, height: int = 240) -> str:
    """Recall (solid) and IoU (dashed) against size, one colour per strategy; the size axis is
    logarithmic (sizes double). Plain SVG, no library."""
    import math

    pad_l, pad_r, pad_t, pad_b = 44, 120, 12, 30
    xs = sorted({p[0] for pts in series.values() for p in pts}) or [1.0]
    lo, hi = math.log2(xs[0]), math.log2(xs[-1]) if xs[-1] > xs[0] else math.log2(xs[0]) + 1
    plot_w, plot_h = width - pad_l - pad_r, height - pad_t - pad_b

    def x(v: float) -> float:
        return pad_l + (math.log2(v) - lo) / (hi - lo) * plot_w

    def y(v: float) -> float:
        return pad_t + (1 - v) * plot_h

    out = [
        f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="Recall and IoU against chunk size, one line per strategy">'
    ]
    for t in (0, 0.25, 0.5, 0.75, 1):
        out.append(
            f'<line x1="{pad_l}" x2="{pad_l + plot_w}" y1="{y(t):.1f}" y2="{y(t):.1f}" class="grid"/>'
            f'<text x="{pad_l - 6}" y="{y(t) + 4:.1f}" text-anchor="end">{int(t * 100)}%</text>'
        )
    for v in xs:
        out.append(f'<text x="{x(v):.1f}" y="{height - 10}" text-anchor="middle">{num(v)}</text>')
    for k, (name, pts) in enumerate(series.items()):
        tint = _TINTS[k % len(_TINTS)]
        pts = sorted(pts)
        for metric, dash in ((1, ""), (2, ' stroke-dasharray="5 4"')):
            path = " ".join(f"{'M' if i == 0 else 'L'}{x(p[0]):.1f},{y(p[metric]):.1f}" for i, p in enumerate(pts))
            out.append(f'<path d="{path}" fill="none" stroke="{tint}" stroke-width="2"{dash}/>')
            out.extend(f'<circle cx="{x(p[0]):.1f}" cy="{y(p[metric]):.1f}" r="3" fill="{tint}"/>' for p in pts)
        ly = pad_t + 14 + 18 * k
        out.append(f'<text x="{pad_l + plot_w + 10}" y="{ly}" fill="{tint}">{esc(name)}</text>')
    ly = pad_t + 14 + 18 * len(series) + 8
    out.append(
        f'<text x="{pad_l + plot_w + 10}" y="{ly}" class="legend">— recall</text>'
        f'<text x="{pad_l + plot_w + 10}" y="{ly + 16}" class="legend">- - IoU</text></svg>'
    )
    return "".join(out)
