"""The page's panels around the chunks: the live counts, the stats strip, the comparison of
strategies, the advice, the records preview, and the settings' controls themselves.

Each is drawn from the library's plain data and registries (`chunker.STRATEGIES`,
`chunker.PRESETS`...), so a new strategy, tokenizer, format or preset shows up here with no
change to this module.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import chunker

from .cards import flag_label
from .html import esc, num, plural

__all__ = ["counts_html", "stats_html", "compare_html", "advice_html", "records_preview", "controls"]


def counts_html(chars: int, words: int, tokens: int | None, tokenizer: str, exact: bool) -> str:
    """The live counts under the text box (``≈`` unless the tokenizer is exact).

    >>> counts_html(1200, 1, 300, "approx", False)
    '1,200 chars · 1 word · ≈300 tokens (approx)'
    """
    out = f"{plural(chars, 'char')} · {plural(words, 'word')}"
    if tokens is not None:
        out += f" · {'' if exact else '≈'}{plural(tokens, 'token')} ({esc(tokenizer)})"
    return out


def _tile(label: str, value: str, note: str = "") -> str:
    note_html = f'<span class="note">{esc(note)}</span>' if note else ""
    return f'<div class="tile"><span class="label">{esc(label)}</span><span class="value">{esc(value)}</span>{note_html}</div>'


def stats_html(stats: Any, settings: Any) -> str:
    """The stats strip: chunks, sizes, overlap asked and achieved, tokens embedded more than
    once and in all (``≈`` when estimated)."""
    a = "" if stats.exact else "≈"
    out = [
        _tile("Chunks", num(stats.chunks)),
        _tile("Tokens min / avg / max", f"{a}{num(stats.min_tokens)} / {a}{num(stats.avg_tokens)} / {a}{num(stats.max_tokens)}"),
        _tile("Chars min / avg / max", f"{num(stats.min_chars)} / {num(stats.avg_chars)} / {num(stats.max_chars)}"),
    ]
    asked = settings.overlap_count
    if asked or stats.max_overlap:
        unit = settings.unit
        achieved = f"{'≈' if unit == 'tokens' and a else ''}{num(stats.avg_overlap)}"
        differs = stats.chunks > 1 and abs(stats.avg_overlap - asked) >= max(1.0, asked * 0.1)
        out.append(
            _tile(
                "Overlap asked / achieved",
                f"{num(asked)} / {achieved} {unit}",
                "average between neighbours; structure-aware strategies share whole pieces only"
                if differs
                else "average between neighbours",
            )
        )
    out.append(
        _tile(
            "Duplicated tokens",
            f"{a}{num(stats.duplicated_tokens)}",
            f"{num(stats.duplicated_pct)}% of the document, embedded twice",
        )
    )
    out.append(_tile("Embedding tokens total", f"{a}{num(stats.embedding_tokens)}", "what you pay to embed every chunk"))
    if a:
        exact = " or ".join(t.name for t in chunker.TOKENIZERS.values() if t.exact)
        out.append(f'<p class="tile-note">≈ estimated counts: pick the {esc(exact)} tokenizer for exact ones.</p>')
    return "".join(out)


def compare_html(
    rows: Mapping[str, Any],
    current: str,
    flags: Iterable[str],
    order: Sequence[str],
    splitter: tuple[str, Any] | None = None,
) -> str:
    """Every strategy on the same document and settings. ``rows`` maps a strategy to its Stats,
    to an error (an exception or a message), or lacks it (not computed yet). `splitter` is a
    pasted splitter's (label, Stats): its row comes first and is the current one, the
    strategies beside it at its size, overlap and unit."""
    flags = list(flags)
    head = "".join(f'<th scope="col" title="{esc(f)}">{esc(flag_label(f))}</th>' for f in flags)
    out = [
        '<table class="compare"><caption class="sr-only">Every strategy on this document</caption>'
        '<thead><tr><th scope="col">Strategy</th><th scope="col">Chunks</th>'
        '<th scope="col">Avg tokens</th><th scope="col">Min</th><th scope="col">Max</th>'
        f"{head}</tr></thead><tbody>"
    ]
    current_mark = ' class="current" aria-current="true"'
    entries: list[tuple[str, Any, str, str]] = []
    if splitter is not None:
        entries.append(("", splitter[1], current_mark, f'<th scope="row" class="yours">Your splitter: {esc(splitter[0])}</th>'))
    for name in order:
        mark = current_mark if name == current and splitter is None else ""
        label = (
            f'<th scope="row"><button type="button" class="linkish" data-strategy="{esc(name)}" '
            f'title="Switch to {esc(name)}">{esc(name)}</button></th>'
        )
        entries.append((name, rows.get(name), mark, label))
    for _, row, mark, label in entries:
        if row is None:
            cells = f'<td colspan="{4 + len(flags)}" class="pending">computing…</td>'
        elif isinstance(row, (str, Exception)):
            cells = f'<td colspan="{4 + len(flags)}" class="err">{esc(row)}</td>'
        else:
            a = "" if row.exact else "≈"
            cells = (
                f"<td>{num(row.chunks)}</td><td>{a}{num(row.avg_tokens)}</td>"
                f"<td>{a}{num(row.min_tokens)}</td><td>{a}{num(row.max_tokens)}</td>"
            )
            counts = [row.flag_counts.get(f, 0) for f in flags]
            cells += "".join(f"<td>{num(n)}</td>" if n else '<td class="zero">0</td>' for n in counts)
        out.append(f"<tr{mark}>{label}{cells}</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _apply_button(apply: Mapping[str, Any]) -> str:
    label = ", ".join(f"{k} {v}" for k, v in apply.items())
    return f'<button type="button" data-apply="{esc(json.dumps(apply))}" title="Apply: {esc(label)}">Apply</button>'


def advice_html(advice: Any | None) -> str:
    """The advice list (`chunker.Advice`); a tip with one concrete suggestion gets an Apply button."""
    if advice is None or not advice.tips and advice.content_type is None:
        return (
            '<p class="ok">Paste some text to start. A common starting point is 400 to 512 tokens '
            "with 10% to 20% overlap; measure it against your own questions.</p>"
        )
    parts = []
    for tip in advice.tips:
        level = "Warning" if tip.level == "warn" else "Tip"
        button = f" {_apply_button(tip.apply)}" if tip.apply else ""
        parts.append(
            f'<li class="{esc(tip.level)}" data-code="{esc(tip.code)}"><span class="lvl">{level}:</span> '
            f"{esc(tip.message)}{button}</li>"
        )
    return '<ul class="advice">' + "".join(parts) + "</ul>"


def records_preview(result: Any, count: int = 3) -> str:
    """The first records exactly as the JSON export writes them."""
    return esc(chunker.to_json(chunker.ChunkResult(result.chunks[:count], result.stats, result.settings)).rstrip())


# ---------------------------------------------------------------- controls


def _options(items: Iterable[tuple[str, str]]) -> str:
    return "".join(f'<option value="{esc(value)}">{esc(label)}</option>' for value, label in items)


def presets_html() -> str:
    """The starting-points table, one row per `chunker.PRESETS` entry."""
    rows = []
    for p in chunker.PRESETS.values():
        apply = {"unit": "tokens", "size": p.size, "overlap": p.overlap}
        rows.append(
            f'<tr><th scope="row">{esc(p.label)}</th><td>{esc(p.size_range)}</td>'
            f"<td>{esc(p.overlap_range)}</td><td>{esc(p.why[:1].upper() + p.why[1:])}.</td>"
            f'<td><button type="button" data-apply="{esc(json.dumps(apply))}">'
            f"Use {num(p.size)} / {esc(p.overlap)}</button></td></tr>"
        )
    return "".join(rows)


def _field_html(option: Any) -> str:
    """A field for an option index.html does not lay out itself: its label, its control and its
    help, read and written by the page under ``data-setting`` (its link's key)."""
    c = option.control
    default = chunker.PLAYGROUND_DEFAULTS.get(option.name, option.default)
    shown = "" if default is None else option.cli_text(default)
    attrs = (
        f'id="{esc(c.id)}" name="{esc(option.url_key)}" data-setting="{esc(option.url_key)}" aria-describedby="{esc(c.id)}-help"'
    )
    if c.kind == "select":
        items = "".join(
            f'<option value="{esc(v)}"{" selected" if v == shown else ""}>{esc(label)}</option>'
            for v, label in (c.choices() if c.choices else ())
        )
        control = f"<select {attrs}>{items}</select>"
    elif c.kind == "textarea":
        control = f'<textarea {attrs} rows="3" spellcheck="false" autocomplete="off">{esc(shown)}</textarea>'
    else:
        kind = "number" if c.kind == "number" else "text"
        control = f'<input type="{kind}" {attrs} value="{esc(shown)}">'
    wide = " wide" if c.kind == "textarea" else ""
    return (
        f'<div class="field{wide}"><label for="{esc(c.id)}">{esc(c.label)}</label>{control}'
        f'<p id="{esc(c.id)}-help" class="help">{esc(option.description)}</p></div>'
    )


def controls() -> dict[str, Any]:
    """The settings' controls, drawn from the library's registries and the table of options:
    each select's options, the break-point boxes, a field for each option index.html does not
    lay out, the link's keys, the export buttons and the starting-points table, plus the help
    texts."""
    page = [(o, o.control) for o in chunker.OPTIONS.values() if "page" in o.surfaces and o.control is not None]
    selects = {c.id: _options(c.choices()) for o, c in page if c.in_page and c.kind == "select" and c.choices}
    breaks = "\n".join(
        f'<label><input type="checkbox" name="breaks" value="{esc(b.name)}"'
        f"{' checked' if b.name in chunker.DEFAULTS['breaks'] else ''}> {esc(b.label)}</label>"
        for b in chunker.BREAKS.values()
    )
    exports = "".join(
        f'<button type="button" class="dl" data-format="{esc(f.name)}" data-mime="{esc(f.mime)}" '
        f'data-ext="{esc(f.extension)}" title="{esc(f.description)}">Download {esc(f.name.upper())}</button>'
        for f in chunker.FORMATS.values()
    )
    more = [(o, c) for o, c in page if not c.in_page]
    defaults = {
        o.url_key: o.cli_text(chunker.PLAYGROUND_DEFAULTS.get(o.name, o.default))
        for o, _ in page
        if chunker.PLAYGROUND_DEFAULTS.get(o.name, o.default) is not None
    }
    return {
        **selects,
        "breaks": breaks,
        # Options the page reads and writes generically: their fields, their link keys.
        "more": "".join(_field_html(o) for o, _ in more),
        "fields": [{"key": o.url_key, "id": c.id} for o, c in more],
        "params": [o.url_key for o, _ in page],
        "exports": exports,
        "presets": presets_html(),
        "help": {
            "strategy": {s.name: s.description for s in chunker.STRATEGIES.values()},
            "unit": {u.name: u.description for u in chunker.UNITS.values()},
            "tokenizer": {t.name: t.description for t in chunker.TOKENIZERS.values()},
        },
        "order": list(chunker.STRATEGIES),
        "size_zero": [s.name for s in chunker.STRATEGIES.values() if s.size_zero],
        "uses_breaks": [s.name for s in chunker.STRATEGIES.values() if s.breaks],
        "defaults": defaults,
        "flags": dict(chunker.FLAGS),
    }
