"""The Questions panel: the reader's questions with their answer spans, how well the chunking
on screen retrieves them (BM25, `chunker.evaluate`: each metric's mean and spread, Precision_Ω,
the library's warning, each question's own scores), and a sweep over strategies and sizes as
a table and a chart, each row with its interval against the best row (`chunker.mark_best`).

HTML and SVG built here, in the worker, from the library's plain data; every text is escaped.
Nothing is computed here that the command line does not print.

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


_LABELS = {
    "recall": "Recall",
    "precision": "Precision",
    "iou": "IoU",
    "precision_omega": "Precision Ω",
    "hit_rate": "Hit rate",
    "mrr": "MRR",
}
_SHOWN = ("recall", "precision", "iou", "precision_omega", "hit_rate", "mrr")


def _value(metric: str, x: float) -> str:
    """A metric as the panel shows it: a percentage, MRR a fraction (two decimals)."""
    return f"{x:.2f}" if metric == "mrr" else _pct(x)


def _spread(metric: str, x: float) -> str:
    """A standard deviation: in percentage points, MRR as a fraction."""
    return f"±{x:.2f}" if metric == "mrr" else f"±{100 * x:.1f}"


def warning_html(warning: str | None) -> str:
    """The library's warning that the numbers say little, or nothing."""
    if not warning:
        return ""
    said = esc(warning[:1].upper() + warning[1:])
    return f'<p class="warn" role="note" data-warning="coverage"><strong>Warning:</strong> {said}.</p>'


def evaluation_html(ev: Any, settings: Any) -> str:
    """The chunking on screen: each metric's mean and standard deviation over the questions,
    the warning when k retrieves half the chunks or more, and each question's scores."""
    head = "".join(
        f'<div class="tile" data-metric="{m}"><span class="label">{esc(_LABELS[m])}</span>'
        f'<span class="value">{esc(_value(m, getattr(ev, m)))}</span>'
        f'<span class="note" title="standard deviation over the questions">'
        f"{esc(_spread(m, getattr(ev, m + '_std')))}</span></div>"
        for m in _SHOWN
    )
    return (
        f'<div class="stats">{head}</div>{warning_html(ev.warning)}<p class="help">The top {ev.top_k} of '
        f"{plural(ev.chunks, 'chunk')} of {esc(settings.strategy)} at {num(settings.size)} {esc(settings.unit)} "
        f"by BM25 over {'each chunk as embedded (its context, then its text)' if ev.index == 'embedded' else 'the chunk texts'}, "
        f"averaged over {plural(ev.questions, 'question')}; ± is the standard deviation over the "
        "questions. Precision Ω is the precision had exactly the chunks that hold each answer been "
        f"retrieved, whatever the ranking.</p>{per_question_html(ev)}"
    )


def per_question_html(ev: Any) -> str:
    """Each question's own scores, in the list's order (its rank: the first retrieved chunk
    that holds part of the answer)."""
    rows = []
    for n, q in enumerate(ev.per_question):
        rank = "–" if q.rank is None else str(q.rank)
        cells = "".join(f"<td>{esc(_value(m, q.value(m)))}</td>" for m in ("recall", "precision", "iou", "precision_omega"))
        rows.append(
            f'<tr data-question="{n}"><td>{n + 1}</td><th scope="row">{esc(_short(q.question, 80))}</th>'
            f"<td>{rank}</td>{cells}</tr>"
        )
    return (
        '<details class="per-question"><summary>Per question</summary><div class="table-wrap">'
        '<table class="per-question"><thead><tr><th scope="col">#</th><th scope="col">Question</th>'
        '<th scope="col">Rank</th><th scope="col">Recall</th><th scope="col">Precision</th>'
        '<th scope="col">IoU</th><th scope="col">Precision Ω</th></tr></thead><tbody>'
        + "".join(rows)
        + "</tbody></table></div></details>"
    )


def _points(x: float) -> str:
    return f"{100 * x:+.1f}"


def _versus(row: Any, metric: str) -> str:
    """The cell of a row's difference from the best row: the best itself, or the difference
    and its interval in percentage points, marked by whether the interval holds 0."""
    if metric in row.best:
        return '<td class="best" title="best">best</td>'
    iv = next((iv for iv in row.versus_best if iv.metric == metric), None)
    if iv is None:
        return "<td></td>"
    kind, said = (
        ("differs", "below the best by more than these questions' noise")
        if iv.excludes_zero
        else ("same", "not told apart from the best by these questions")
    )
    return (
        f'<td class="vs {kind}" title="{esc(said)}">{_points(iv.difference)} '
        f'<span class="ci">[{_points(iv.low)}, {_points(iv.high)}]</span></td>'
    )


def sweep_html(rows: Sequence[Any], strategies: Sequence[str], sizes: Sequence[int]) -> str:
    """The sweep so far: a table of every strategy and size (rows still to come say so), and
    the chart of recall and IoU against size; once every row is in, each row's difference
    from the best with its 95% interval, on the chart as a bar."""
    found = {(r.strategy, r.size): r for r in rows}
    out = [
        '<table class="sweep"><caption class="sr-only">Retrieval by strategy and size</caption>'
        '<thead><tr><th scope="col">Strategy</th><th scope="col">Size</th><th scope="col">Chunks</th>'
        '<th scope="col">Recall</th><th scope="col">Precision</th><th scope="col">IoU</th>'
        '<th scope="col">Hit rate</th><th scope="col">Precision Ω</th>'
        '<th scope="col">Recall vs best</th><th scope="col">IoU vs best</th></tr></thead><tbody>'
    ]
    for s in strategies:
        for z in sizes:
            r = found.get((s, z))
            covered = ""
            if r is None:
                cells = '<td colspan="8" class="pending">computing…</td>'
            else:
                mark = f' <span class="covered" title="{esc(r.warning)}">*</span>' if r.warning else ""
                covered = ' class="covered"' if r.warning else ""
                means = "".join(_mean_cell(r, m) for m in ("recall", "precision", "iou", "hit_rate", "precision_omega"))
                cells = f"<td>{num(r.chunks)}{mark}</td>{means}{_versus(r, 'recall')}{_versus(r, 'iou')}"
            out.append(
                f'<tr data-strategy="{esc(s)}" data-size="{z}"{covered}><th scope="row">{esc(s)}</th>'
                f"<td>{num(z)}</td>{cells}</tr>"
            )
    out.append("</tbody></table>")
    if any(r.versus_best for r in rows):
        out.append(
            "<p class=\"help\">Vs best: the row's mean minus the best row's, in percentage points, and its "
            "95% paired bootstrap interval over the questions; an interval that holds 0 means these "
            "questions cannot tell the row from the best. On the chart each point's bar is that interval, "
            "drawn from the best row's level (dotted).</p>"
        )
    if any(r.warning for r in rows):
        out.append(
            '<p class="help">* The top k is half of these chunks or more, so any ranking would retrieve most '
            "answers: such a row is never marked best.</p>"
        )
    if len(rows) == len(strategies) * len(sizes) and rows and all(r.warning for r in rows):
        out.append(
            '<p class="warn" role="note" data-warning="unranked"><strong>No setting can be ranked:</strong> '
            "the top k retrieves half the chunks or more at every size. Lower the top k, or check a longer "
            "document.</p>"
        )
    series: dict[str, list[tuple[float, ...]]] = {}
    best_levels: dict[int, float] = {}
    for r in rows:
        point: list[float] = [r.size, r.recall, r.iou]
        for k, metric in ((1, "recall"), (2, "iou")):
            iv = next((iv for iv in r.versus_best if iv.metric == metric), None)
            if iv is not None:
                level = getattr(r, metric) - iv.difference  # the best row's mean
                best_levels[k] = level
                point += [level + iv.low, level + iv.high]
        series.setdefault(r.strategy, []).append(tuple(point))
    return line_chart(series, best=best_levels) + "".join(out)


def _mean_cell(row: Any, metric: str) -> str:
    """A row's mean, its standard deviation over the questions in the title; the best marked."""
    spread = f"{_spread(metric, getattr(row, metric + '_std'))} standard deviation over the questions"
    best = metric in row.best
    kind = ' class="best"' if best else ""
    title = esc(spread + ("; best" if best else ""))
    return f'<td{kind} title="{title}">{_pct(getattr(row, metric))}</td>'


def line_chart(
    series: Mapping[str, Sequence[tuple[float, ...]]],
    *,
    best: Mapping[int, float] | None = None,
    width: int = 560,
    height: int = 240,
) -> str:
    """Recall (solid) and IoU (dashed) against size, one colour per strategy; the size axis is
    logarithmic (sizes double). Plain SVG, no library.

    A point is (size, recall, IoU), or (size, recall, IoU, recall low, recall high, IoU low,
    IoU high) with an interval bar for each; `best` maps 1 (recall) and 2 (IoU) to the level
    drawn dotted across the chart."""
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
    for metric, level in sorted((best or {}).items()):
        dash = "1 3" if metric == 1 else "1 6"
        out.append(
            f'<line class="best-level" data-metric="{"recall" if metric == 1 else "iou"}" x1="{pad_l}" '
            f'x2="{pad_l + plot_w}" y1="{y(level):.1f}" y2="{y(level):.1f}" stroke-dasharray="{dash}"/>'
        )
    for k, (name, pts) in enumerate(series.items()):
        tint = _TINTS[k % len(_TINTS)]
        pts = sorted(pts)
        for metric, dash in ((1, ""), (2, ' stroke-dasharray="5 4"')):
            path = " ".join(f"{'M' if i == 0 else 'L'}{x(p[0]):.1f},{y(p[metric]):.1f}" for i, p in enumerate(pts))
            out.append(f'<path d="{path}" fill="none" stroke="{tint}" stroke-width="2"{dash}/>')
            out.extend(f'<circle cx="{x(p[0]):.1f}" cy="{y(p[metric]):.1f}" r="3" fill="{tint}"/>' for p in pts)
            lo_at = 3 if metric == 1 else 5
            for p in pts:
                if len(p) > lo_at + 1:
                    # The interval bar, a little to the side for IoU so the two do not cover each other.
                    bx = x(p[0]) + (0 if metric == 1 else 4)
                    bottom, top = y(min(1.0, max(0.0, p[lo_at]))), y(min(1.0, max(0.0, p[lo_at + 1])))
                    name_of = "recall" if metric == 1 else "iou"
                    out.append(
                        f'<path class="ci" data-metric="{name_of}" d="M{bx:.1f},{bottom:.1f}V{top:.1f}'
                        f'M{bx - 3:.1f},{bottom:.1f}h6M{bx - 3:.1f},{top:.1f}h6" stroke="{tint}" stroke-width="1.2" fill="none"/>'
                    )
        ly = pad_t + 14 + 18 * k
        out.append(f'<text x="{pad_l + plot_w + 10}" y="{ly}" fill="{tint}">{esc(name)}</text>')
    ly = pad_t + 14 + 18 * len(series) + 8
    out.append(
        f'<text x="{pad_l + plot_w + 10}" y="{ly}" class="legend">— recall</text>'
        f'<text x="{pad_l + plot_w + 10}" y="{ly + 16}" class="legend">- - IoU</text></svg>'
    )
    return "".join(out)
