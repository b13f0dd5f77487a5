"""Advice on a chunking: what the document looks like, and what in the result deserves a look.

Plain data (`Advice` of `Tip`s) that the page renders and the command line prints
(``--advice``). A tip that proposes other settings names them in `suggest`, so no tip can
propose what is already set: the tests hold every tip to that.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from .._errors import ChunkerError
from ..results._records import ChunkResult, Chunks
from ..settings._options import Settings
from ..settings._presets import PRESETS, ModelLimit, model_limit
from ..splitters import parse_splitter
from ..splitters._describe import describe
from ..text._tables import find_tables
from ..tokens._tokenizers import TOKENIZERS

__all__ = ["Tip", "Advice", "advise", "content_type", "model_limit"]

SCAN_CHARS = 200_000
"""Content is judged on the document's first this many characters: its kind shows early."""


@dataclass(frozen=True)
class Tip:
    """One remark. `level` is ``warn`` (likely hurts retrieval) or ``tip``. `suggest` holds the
    settings it proposes: a value, or a tuple of alternatives (``("sentence", "recursive")``)."""

    level: str
    code: str
    message: str
    suggest: dict[str, Any] = field(default_factory=dict)

    @property
    def apply(self) -> dict[str, Any] | None:
        """The settings an Apply button may set: the suggestion when it is one setting each."""
        if not self.suggest or any(isinstance(v, tuple) for v in self.suggest.values()):
            return None
        return dict(self.suggest)

    def to_dict(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "code": self.code,
            "message": self.message,
            "suggest": {k: list(v) if isinstance(v, tuple) else v for k, v in self.suggest.items()},
            "apply": self.apply,
        }


@dataclass(frozen=True)
class Advice:
    """The advice for one result: the content type guessed (a `PRESETS` name, or None) and the
    tips, warnings first."""

    content_type: str | None
    tips: tuple[Tip, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"content_type": self.content_type, "tips": [t.to_dict() for t in self.tips]}


# ---------------------------------------------------------------- what the document is

_MD = re.compile(r"^(#{1,6} \S|```|\|.*\|\s*$)", re.M)
_SPEAKER = re.compile(r"^(user|assistant|human|ai|system|bot|agent|customer|q|a)\s*:", re.I)
_QUESTION = re.compile(r"^(\*\*|#+\s*|q[:.]\s*)?[^.!?\n]{4,160}\?")
_CODE = re.compile(
    r"^\s*(def |class |import |from \S+ import |function |const |let |var |#include|public |private "
    r"|return\b|if .*:$|for .*:$|elif |else:|try:|except|with .*:$|[{}]\s*$)|[;{]\s*$"
)
_INVISIBLE = re.compile("[\u00a0\u200b\u200c\u200d\u2060\u00ad]")


def looks_like_markdown(text: str) -> bool:
    """At least two Markdown headings, fences or table rows near the start."""
    return len(_MD.findall(text[:SCAN_CHARS])) >= 2


def content_type(text: str) -> str | None:
    r"""A guess at what the document is, as a `PRESETS` name (None for an empty text).

    >>> content_type("User: hi\nAssistant: hello\nUser: help?\nAssistant: sure")
    'chat'
    >>> content_type("Q: Do you ship abroad?\nA: Yes.\nQ: How long?\nA: A week.\nQ: Refunds?\nA: 14 days.")
    'faq'
    >>> content_type("# Setup\n\nRun it:\n\n```sh\nmake\n```\n")
    'technical'
    """
    head = text[:SCAN_CHARS]
    lines = [line.strip() for line in head.splitlines() if line.strip()]
    if not lines:
        return None
    labels = [m.group(1).lower() for m in map(_SPEAKER.match, lines) if m]
    speakers = len(labels)
    if speakers >= 4 and speakers * 2 >= len(lines):
        # Q: and A: alone label a question and its answer, not two people talking.
        return "faq" if set(labels) <= {"q", "a"} else "chat"
    questions = sum(bool(_QUESTION.match(line)) for line in lines)
    if questions >= 3 and questions * 3 >= len(lines):
        return "faq"
    if "```" not in head and _is_code(lines):
        return "code"
    if "```" in head or (looks_like_markdown(head) and sum(bool(_CODE.search(x)) for x in lines) >= 3):
        return "technical"
    return "general"


def _is_code(lines: list[str]) -> bool:
    """Source code, not prose: one line in five or more reads as a statement (the same test
    the `code` pitfall makes, so the kind and the tip never disagree)."""
    code = sum(bool(_CODE.search(line)) for line in lines)
    return code * 5 >= len(lines) and code >= 5


def pitfalls(text: str) -> list[Tip]:
    """Content a size-based chunker handles badly: structured data, source code, a byte order
    mark, invisible characters."""
    out: list[Tip] = []
    head = text[:SCAN_CHARS]
    stripped = head.strip()
    lines = [line for line in head.splitlines() if line.strip()]
    if stripped[:1] in ("[", "{"):
        try:
            json.loads(text)
            out.append(
                Tip(
                    "warn",
                    "json",
                    "This is JSON: a text chunker cuts its records in half and the "
                    "pieces embed as noise. Split it at record boundaries first (one "
                    "object per chunk).",
                )
            )
        except ValueError:
            pass
    if len(lines) >= 5 and not out:
        for sep, name in ((",", "CSV"), ("\t", "TSV")):
            counts = [line.count(sep) for line in lines[:50]]
            if counts[0] >= 2 and sum(c == counts[0] for c in counts) * 10 >= len(counts) * 8:
                out.append(
                    Tip(
                        "warn",
                        name.lower(),
                        f"This looks like {name}: chunk its rows by record (or embed a text rendering of each row), not by size.",
                    )
                )
                break
    if lines and "```" not in head:
        if _is_code(lines):
            out.append(
                Tip(
                    "tip",
                    "code",
                    "This looks like source code: the code strategy splits it at "
                    "function and class boundaries and keeps each definition that fits "
                    "whole; size-based windows cut functions apart.",
                    {"strategy": "code"},
                )
            )
    if text.startswith("\ufeff"):
        out.append(
            Tip(
                "tip",
                "bom",
                "The text starts with a byte order mark (U+FEFF). It counts as a "
                "character in the offsets; strip it if your pipeline does.",
            )
        )
    invisible = len(_INVISIBLE.findall(head))
    if invisible:
        out.append(
            Tip(
                "tip",
                "invisible",
                f"The text holds {invisible:,} invisible or non-breaking "
                "characters (no-break spaces, zero-width or soft hyphens). They "
                "change token counts: normalise them before embedding.",
            )
        )
    return out


# ---------------------------------------------------------------- what the result shows


def _n(value: float) -> str:
    return f"{value:,.1f}" if isinstance(value, float) and not value.is_integer() else f"{int(value):,}"


def _plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


def _others(current: str, *names: str) -> tuple[str, ...]:
    return tuple(n for n in names if n != current)


def advise(document: Any, result: ChunkResult, *, limit: int | str | ModelLimit | None = None) -> Advice:
    """Advice on `result`, a chunking of `document` (a str or a `Document`).

    `limit` is an embedding model's input limit: a `MODEL_LIMITS` name or a number of tokens.

    >>> from chunker import chunk
    >>> text = "# Notes\\n\\n" + "Short line\\n" * 40
    >>> res = chunk(text, strategy="fixed", unit="chars", size=60, overlap=40)
    >>> [t.code for t in advise(text, res).tips][:2]
    ['overlap_high', 'mid_sentence']
    """
    text = _checked(document, result)
    model = model_limit(limit)
    kind, found, markdown_like = _text_facts(document)
    tips: list[Tip] = []
    if kind is not None:
        tips.append(_preset_tip(kind, result, model))
    if len(result.chunks):
        tips.extend(_result_tips(text, result, model, markdown_like))
    # Already cut by its structure: the code pitfall has nothing left to say.
    tips.extend(t for t in found if not (t.code == "code" and result.settings.strategy == "code"))
    if result.settings.splitter:
        tips = _splitter_tips(result) + [_without(t, result.settings) for t in tips]
    tips = [_changes_only(t, result.settings) for t in tips]
    tips.sort(key=lambda t: t.level != "warn")  # stable: warnings first, each group in order
    return Advice(kind, tuple(tips))


def _checked(document: Any, result: Any) -> str:
    """The document's text, once `document` is a str or a `Document` and `result` a chunking of
    it: advice on another document's chunks would read this text at their offsets."""
    text = document if isinstance(document, str) else getattr(document, "text", None)
    if not isinstance(text, str) or isinstance(document, ChunkResult):
        raise ChunkerError(f"advise takes the document (a str or a Document) first, got {type(document).__name__}")
    if not isinstance(result, ChunkResult):
        raise ChunkerError(f"advise takes the ChunkResult of chunking the document, got {type(result).__name__}")
    chunks = result.chunks
    if isinstance(chunks, Chunks):
        other = chunks._text is not text and chunks._text != text
    else:
        other = any(text[c.start_char : c.end_char] != c.text for c in chunks)
    if other:
        raise ChunkerError("the result is of another document: chunk this document and pass that result")
    return text


def _text_facts(document: Any) -> tuple[str | None, tuple[Tip, ...], bool]:
    """What the text alone says (its kind, its pitfalls, whether it reads as Markdown): read
    once per `Document`, whose text never changes, so advice on each new setting of the page's
    controls costs only the result's own tips."""
    kept: tuple[str | None, tuple[Tip, ...], bool] | None = getattr(document, "_advice_facts", None)
    if kept is not None:
        return kept
    text = document if isinstance(document, str) else document.text
    facts = (content_type(text), tuple(pitfalls(text)), looks_like_markdown(text))
    if not isinstance(document, str):
        document._advice_facts = facts
    return facts


def _splitter_tips(result: ChunkResult) -> list[Tip]:
    """What the pasted splitter's settings do, then what its chunks show."""
    call = parse_splitter(result.settings.splitter or "")
    tips = [Tip("tip", code, message) for code, message in describe(call)]
    chunks = result.chunks
    joined = sum(1 for c in chunks if c.framework_text is not None)
    if joined:
        tips.append(
            Tip(
                "tip",
                "splitter_joined",
                f"{_plural(joined, 'chunk')} of {call.kind.label} {'is' if joined == 1 else 'are'} not one slice of the "
                "document: each record's text is the slice covering it, and embed_text holds the framework's own text.",
            )
        )
    moved = result.stats.flag_counts.get("framework_offset", 0)
    if moved and call.framework == "llama_index":
        tips.append(
            Tip(
                "warn",
                "splitter_start_index",
                f"LlamaIndex's own start_char_idx is wrong for {_plural(moved, 'chunk')} (its search for the node's "
                "text lands elsewhere, or finds none): the offsets here, and chunker.llama_index's, are where the "
                "chunks really are.",
            )
        )
    elif moved:
        tips.append(
            Tip(
                "warn",
                "splitter_start_index",
                f"LangChain's own start_index is wrong for {_plural(moved, 'chunk')} (its search for the text lands on "
                "an earlier copy): the offsets here, and chunker.langchain's, are where the chunks really are.",
            )
        )
    return tips


def _without(tip: Tip, settings: Any) -> Tip:
    """A tip without suggestions the pasted splitter overrides (its size, overlap, strategy)."""
    fixed = parse_splitter(settings.splitter).implied()
    kept = {k: v for k, v in tip.suggest.items() if k not in fixed}
    return tip if kept == tip.suggest else Tip(tip.level, tip.code, tip.message, kept)


def _changes_only(tip: Tip, settings: Any) -> Tip:
    """The tip, suggesting only what differs from `settings` (a unit already in use is no
    suggestion)."""
    changes = {k: v for k, v in tip.suggest.items() if isinstance(v, tuple) or str(v) != str(getattr(settings, k))}
    return tip if changes == tip.suggest else Tip(tip.level, tip.code, tip.message, changes)


def _preset_tip(kind: str, result: ChunkResult, model: ModelLimit | None) -> Tip:
    preset = PRESETS[kind]
    s = result.settings
    size, overlap = preset.size, preset.overlap
    capped = ""
    if model is not None and size > model.tokens:
        # A starting point past the model's limit would only trade one warning for another.
        size = model.tokens
        capped = f", capped at the {model.tokens:,}-token limit of {model.label}"
        if isinstance(overlap, int):
            overlap = min(overlap, size // 2)
    suggest: dict[str, Any] = {"unit": "tokens", "size": size, "overlap": overlap}
    if kind == "code":
        suggest["strategy"] = "code"  # the starting point for code is its structure, then a size
    same = (
        s.unit == "tokens"
        and s.size == size
        and str(s.overlap) == str(overlap)
        and s.strategy == suggest.get("strategy", s.strategy)
    )
    how = "the code strategy at " if kind == "code" else ""
    message = f"Looks like {preset.label.lower()}: {preset.why}. Start from {how}{size:,} tokens with {overlap} overlap{capped}"
    whole = result.stats.document_tokens
    if 0 < whole <= size:
        # A starting point the whole document fits in makes one chunk: nothing left to compare.
        approx = "" if result.stats.exact else "about "
        return Tip(
            "tip",
            "content_type",
            f"{message}; but this document is only {approx}{whole:,} tokens, so at "
            "that size it is one chunk. For a document this short, keep the size "
            "well under its length to see how it splits.",
        )
    if same:
        return Tip("tip", "content_type", message + " (these settings).")
    return Tip("tip", "content_type", message + ".", suggest)


def _result_tips(text: str, result: ChunkResult, model: ModelLimit | None, markdown_like: bool) -> list[Tip]:
    s, stats, chunks = result.settings, result.stats, result.chunks
    n = stats.chunks
    approx = "" if stats.exact else "≈"
    unit = s.unit
    strategy = s.strategy
    out: list[Tip] = []
    if s.size and s.overlap_count * 2 > s.size:
        pct = round(100 * s.overlap_count / s.size)
        out.append(
            Tip(
                "warn",
                "overlap_high",
                f"Overlap is {pct}% of the chunk size (over 50%): most text is "
                "embedded two or more times. 10–20% is the usual start.",
                {"overlap": "15%"},
            )
        )
    if s.overlap_count and n > 1 and stats.avg_overlap * 2 < s.overlap_count:
        why = {
            "markdown": "sections never share text, and within a section only whole blocks are repeated",
            "paragraph": "only whole paragraphs are repeated, and they are longer than the overlap",
            "sentence": "only whole sentences are repeated, and they are longer than the overlap",
            "recursive": "only whole pieces (paragraphs, lines, sentences) are repeated",
            "langchain": "LangChain repeats only whole pieces",
            "code": "only whole definitions and statements are repeated, never across a split definition's edge",
            "page": "pages never share text, and within a page only whole pieces are repeated",
        }.get(strategy, "the chunks' edges leave less to share")
        out.append(
            Tip(
                "tip",
                "overlap_not_achieved",
                f"Overlap asked: {_n(s.overlap_count)} {unit}; achieved: {_n(stats.avg_overlap)} on "
                f"average (at most {_n(stats.max_overlap)}), because {why}.",
            )
        )
    if model is not None:
        over = [c.tokens for c in chunks if c.tokens > model.tokens]
        if over:
            if unit != "tokens":
                fix = " Size in tokens to stay under it."
                suggest: dict[str, Any] = {"unit": "tokens", **_resized(s, model.tokens)}
            elif s.size > model.tokens:
                fix = f" Lower the size to {model.tokens:,} or less."
                suggest = _resized(s, model.tokens)
            else:
                fix = " They are blocks that could not be cut within the size (see the oversize flag)."
                suggest = {}
            if not stats.exact:
                fix += " The counts are estimates: an exact tokenizer tells for sure."
            verb = "exceeds" if len(over) == 1 else "exceed"
            out.append(
                Tip(
                    "warn",
                    "over_limit",
                    f"{len(over):,} of {_plural(n, 'chunk')} {verb} the {model.tokens:,}-token input limit "
                    f"of {model.label} (largest {approx}{max(over):,} tokens): the model would "
                    f"truncate them.{fix}",
                    suggest,
                )
            )
        else:
            out.append(Tip("tip", "fits_limit", f"Every chunk fits the {model.tokens:,}-token input limit of {model.label}."))
    mid = stats.flag_counts.get("mid_sentence", 0)
    if mid and mid * 4 >= n and n > 1:
        ends = "ends" if mid == 1 else "end"
        cut = stats.flag_counts.get("split_sentence", 0)
        if strategy in ("fixed", "langchain"):
            better = _others(strategy, *(("markdown", "recursive") if markdown_like else ("sentence", "recursive")))
            out.append(
                Tip(
                    "warn",
                    "mid_sentence",
                    f"{mid:,} of {_plural(n, 'chunk')} {ends} mid-sentence. A structure-aware strategy "
                    f"({' or '.join(better)}) ends chunks at sentences; more overlap only hides the cut.",
                    {"strategy": better},
                )
            )
        elif cut:
            out.append(
                Tip(
                    "warn",
                    "mid_sentence",
                    f"{mid:,} of {_plural(n, 'chunk')} {ends} mid-sentence: {_plural(cut, 'chunk')} "
                    f"{'holds' if cut == 1 else 'hold'} a "
                    "sentence longer than the size, cut between words. A larger size keeps them whole.",
                    _resized(s, _larger(s, model)) if _larger(s, model) > s.size else {},
                )
            )
        else:
            out.append(
                Tip(
                    "tip",
                    "no_punctuation",
                    f"{mid:,} of {_plural(n, 'chunk')} {ends} without sentence punctuation: list items, "
                    "headings, table rows or code, most likely. Nothing to fix if so.",
                )
            )
    frag = stats.flag_counts.get("fragment", 0)
    if frag and frag * 5 >= n and n > 2:
        if strategy == "markdown":
            fix = "Short sections make short chunks; recursive packs across sections."
            suggest = {"strategy": "recursive"}
        elif strategy == "fixed":
            fix = "Only the last window can be short; it is the end of the text."
            suggest = {}
        else:
            fix = "A larger size packs more into each."
            suggest = _resized(s, _larger(s, model)) if _larger(s, model) > s.size else {}
        out.append(
            Tip(
                "warn",
                "fragments",
                f"{_plural(frag, 'chunk is a fragment', 'chunks are fragments')} "
                f"(under a fifth of the size): they embed as noise. {fix}",
                suggest,
            )
        )
    orphans = stats.flag_counts.get("orphan_heading", 0)
    if orphans and strategy != "markdown":
        out.append(
            Tip(
                "warn",
                "orphan_headings",
                f"{_plural(orphans, 'chunk ends', 'chunks end')} with a heading whose body went to the "
                "next chunk. The markdown strategy keeps headings with their sections.",
                {"strategy": "markdown"},
            )
        )
    oversize = stats.flag_counts.get("oversize", 0)
    if oversize:
        crowded = any("oversize" in c.flags and "table_continued" in c.flags for c in chunks)
        why = (
            "a block that cannot be cut (a long paragraph or code block) stayed whole, or a table's "
            "header rows, repeated on each of its parts, left its rows too little room."
            if crowded
            else "a block that cannot be cut (a long paragraph or code block) stayed whole."
        )
        out.append(Tip("tip", "oversize", f"{_plural(oversize, 'chunk is', 'chunks are')} larger than the size: {why}"))
    out.extend(_table_tips(text, result, model))
    if markdown_like and strategy not in ("markdown", "recursive"):
        out.append(
            Tip(
                "tip",
                "markdown",
                "This looks like Markdown: the markdown strategy splits at headings, keeps code blocks whole "
                "and splits a long table between its rows, repeating its header rows.",
                {"strategy": "markdown"},
            )
        )
    if unit != "tokens" and stats.max_tokens > 2 * (stats.avg_tokens or 1):
        out.append(
            Tip(
                "tip",
                "tokens_vary",
                f"Sizes are in {unit}, but token counts vary a lot between chunks "
                f"({approx}{stats.min_tokens:,} to {approx}{stats.max_tokens:,}): "
                "size in tokens to stay under a model's limit.",
                {"unit": "tokens"},
            )
        )
    if not stats.exact:
        exact = tuple(t.name for t in TOKENIZERS.values() if t.exact)
        out.append(
            Tip("tip", "estimated", f"Token counts are estimates; {' and '.join(exact)} count exactly.", {"tokenizer": exact})
        )
    return out


# The strategies that keep a table's rows whole and repeat its header rows on its later parts.
_BY_ROWS = ("markdown", "recursive")


def _table_tips(text: str, result: ChunkResult, model: ModelLimit | None) -> list[Tip]:
    """What the result does with the document's tables: cut through rows (a strategy that does
    not look for them), split between rows with the header repeated, or cut a row too long."""
    s, stats = result.settings, result.stats
    out: list[Tip] = []
    if s.strategy not in _BY_ROWS:
        tables = len(find_tables(text[:SCAN_CHARS]))
        if tables:
            out.append(
                Tip(
                    "tip",
                    "tables",
                    f"The document holds {_plural(tables, 'table')}: the markdown and recursive strategies "
                    "keep a table that fits whole and split a longer one between its rows, repeating its "
                    f"header rows on every later part; {s.strategy} does not look for tables.",
                    {"strategy": _others(s.strategy, *_BY_ROWS)},
                )
            )
        return out
    continued = stats.flag_counts.get("table_continued", 0)
    if continued:
        out.append(
            Tip(
                "tip",
                "table_parts",
                f"{_plural(continued, 'chunk continues', 'chunks continue')} a table split between its rows: "
                "each carries the table's header rows as context (its embed text starts with them), "
                "counted within the size.",
            )
        )
    cut = stats.flag_counts.get("row_cut", 0)
    if cut:
        larger = _larger(s, model)
        out.append(
            Tip(
                "warn",
                "row_cut",
                f"{_plural(cut, 'chunk starts or ends', 'chunks start or end')} inside a table row too long "
                "for the size (with its header rows): the row is cut. A larger size keeps rows whole.",
                _resized(s, larger) if larger > s.size else {},
            )
        )
    return out


def _resized(settings: Any, size: int) -> dict[str, Any]:
    """A new size, with the overlap kept when it still fits (a percentage always does)."""
    if isinstance(settings.overlap, str) or settings.overlap_count < size // 2:
        return {"size": size}
    return {"size": size, "overlap": "10%"}


def _larger(settings: Settings, model: ModelLimit | None) -> int:
    """A size about half again as large, within the model's limit when sized in tokens."""
    size = settings.size
    bigger = max(size + 1, size * 3 // 2)
    return min(bigger, model.tokens) if model is not None and settings.unit == "tokens" else bigger
