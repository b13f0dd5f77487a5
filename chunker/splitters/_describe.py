"""What a pasted splitter's settings do, in words: the advice's first remarks about it.

Facts of the call alone (its separators, how it keeps them, what it counts); what the result
then shows (chunks over the size, texts joined, offsets LangChain would get wrong) is said by
the advice, which has the chunks.
"""

from __future__ import annotations

import re

from ..strategies._languages import LANGUAGES
from ..strategies.langchain import DEFAULT_SEPARATORS
from ._parse import SplitterCall

__all__ = ["describe", "finest_cut"]

# How fine a cut each kind of separator makes, coarsest first.
_LEVELS = ("section", "paragraph", "line", "sentence", "word", "character")
_NEVER = {
    "section": "a paragraph",
    "paragraph": "a paragraph",
    "line": "a line",
    "sentence": "a sentence",
    "word": "a word",
}


def _level(sep: str, regex: bool) -> str:
    """The kind of place a separator cuts at."""
    if sep == "":
        return "character"
    literal = sep
    if regex:
        # A pattern's literal text, near enough to judge it: escapes dropped, classes named.
        if re.fullmatch(r"\\s[+*]?|\s+|\[\\s[^\]]*\][+*]?", sep):
            return "word"
        if "[.!?]" in sep or re.search(r"\\[.!?]", sep):
            return "sentence"
        literal = re.sub(r"\\(.)", r"\1", sep)
        literal = literal.replace("\\n", "\n")
    if literal in ("\n\n", "\n\n\n") or re.fullmatch(r"\n\s*\n|\n\\s\*\n", literal):
        return "paragraph"
    if literal in ("\n", "\r\n"):
        return "line"
    if literal.strip() in (".", "!", "?", "。", "!", "?") and literal != literal.strip():
        return "sentence"
    if literal.isspace():
        return "word"
    if literal.startswith("\n"):
        return "section"  # a keyword or a heading at a line's start: a definition, a section
    return "word"


def finest_cut(separators: tuple[str, ...], regex: bool) -> str:
    """The finest place these separators cut at: a piece none of the coarser ones split is cut
    there; the text between two cuts of it is never split."""
    levels = [_LEVELS.index(_level(s, regex)) for s in separators] or [_LEVELS.index("character")]
    return _LEVELS[max(levels)]


def _separators(call: SplitterCall) -> tuple[tuple[str, ...], bool, str]:
    values = call.values()
    if call.constructor == "from_language":
        lang = LANGUAGES[values["language"]]
        return lang.separators, True, f"{lang.label}'s separators"
    if call.cls == "CharacterTextSplitter":
        return (values["separator"],), values["is_separator_regex"], "this separator"
    given = values.get("separators")
    if not given:
        return DEFAULT_SEPARATORS, False, "the default separators (paragraph, line, space, character)"
    return tuple(given), values["is_separator_regex"], "these separators"


def describe(call: SplitterCall) -> list[tuple[str, str]]:
    """(code, message) remarks on what the call's settings do."""
    out: list[tuple[str, str]] = []
    values = call.values()
    name = call.cls + (f".{call.constructor}" if call.constructor else "")
    if call.framework == "llama_index":
        return _llama_index(call, name, values)
    if call.cls == "MarkdownHeaderTextSplitter":
        markers = ", ".join(m for m, _ in values["headers_to_split_on"])
        out.append(
            (
                "splitter_cuts",
                f"{name} cuts only at the headings {markers}: a section is one chunk however long it is, "
                "and its lines are stripped and joined, so the embedded text differs from the document's.",
            )
        )
        if values["strip_headers"]:
            out.append(
                ("splitter_headers", "strip_headers=True: the heading lines are not in the chunk texts, only in their metadata.")
            )
        return out
    if call.cls == "TokenTextSplitter":
        out.append(
            (
                "splitter_cuts",
                f"{name} cuts every {values['chunk_size']} tokens whatever the text holds: mid-word and mid-sentence, "
                "and a window that ends inside a character is decoded with a replacement character.",
            )
        )
        return out
    seps, regex, which = _separators(call)
    finest = finest_cut(seps, regex)
    cut = {
        "character": (
            f"{which} end with the empty string: a piece still longer than chunk_size is cut between any two characters, mid-word"
        ),
        "word": f"the finest cut {which} make is at spaces: they split sentences, but never inside a word",
    }.get(finest, f"{which} never {'splits' if which == 'this separator' else 'split'} inside {_NEVER.get(finest, 'a line')}")
    if "" not in seps and call.cls == "RecursiveCharacterTextSplitter":
        cut += "; a piece none of them splits stays whole past chunk_size (flagged oversize)"
    if call.cls == "CharacterTextSplitter":
        cut += "; a piece longer than chunk_size stays whole (flagged oversize)"
    out.append(("splitter_cuts", f"{name}: {cut[:1].upper() + cut[1:]}."))
    keep = values["keep_separator"]
    if keep is False:
        out.append(
            (
                "splitter_keep",
                "keep_separator=False drops each separator from the pieces and joins them back with it: "
                "where two separators meet, or a regex one matched other text, the embedded text is not the document's.",
            )
        )
    elif keep == "end":
        out.append(
            ("splitter_keep", "keep_separator='end': each separator ends the piece before it, instead of starting the next.")
        )
    if not values["strip_whitespace"]:
        out.append(("splitter_strip", "strip_whitespace=False: chunks keep the spaces and line breaks at their edges."))
    if call.constructor == "from_tiktoken_encoder":
        out.append(("splitter_counts", "chunk_size and chunk_overlap count tiktoken tokens, exactly as tiktoken counts them."))
    elif call.constructor == "from_huggingface_tokenizer":
        out.append(("splitter_counts", "chunk_size and chunk_overlap count your tokenizer's tokens, without its special tokens."))
    else:
        out.append(("splitter_counts", "chunk_size and chunk_overlap count characters (length_function=len), not tokens."))
    if values["chunk_overlap"]:
        out.append(
            (
                "splitter_overlap",
                "The overlap is whole trailing pieces, at most chunk_overlap: chunks share less when pieces are long.",
            )
        )
    return out


def _llama_index(call: SplitterCall, name: str, values: dict[str, object]) -> list[tuple[str, str]]:
    """Remarks on LlamaIndex's classes (chunker/splitters/llamaindex.py reproduces them)."""
    counts = (
        "splitter_counts",
        "chunk_size and chunk_overlap count cl100k tokens (LlamaIndex's default tokenizer); a document's "
        "metadata string is counted into chunk_size when nodes are made from it.",
    )
    if call.cls == "MarkdownNodeParser":
        return [
            (
                "splitter_cuts",
                f"{name} cuts at every heading line outside code fences: a section is one node however long it "
                "is (no size applies), and its metadata holds the headings above it.",
            )
        ]
    if call.cls == "TokenTextSplitter":
        seps = [values["separator"], *values["backup_separators"]]  # type: ignore[misc]
        return [
            (
                "splitter_cuts",
                f"{name} cuts at {', then '.join(repr(s) for s in seps)}, then between characters, and packs "
                "the pieces: it splits sentences, but a word only when one word is over chunk_size.",
            ),
            counts,
            ("splitter_reserve", "As a node parser it keeps 2 tokens of chunk_size for the metadata's format."),
        ]
    regex = values["secondary_chunking_regex"]
    phrases = "phrases (secondary_chunking_regex), " if regex else ""
    out = [
        (
            "splitter_cuts",
            f"{name} cuts at paragraph_separator {values['paragraph_separator']!r}, then between sentences (nltk's "
            f"Punkt, untrained), then at {phrases}{values['separator']!r} and characters: a sentence that fits "
            "chunk_size is never split.",
        ),
        counts,
    ]
    if values["chunk_overlap"]:
        out.append(
            (
                "splitter_overlap",
                "The overlap is the previous chunk's last whole splits that fit chunk_overlap: chunks share less "
                "when sentences are long.",
            )
        )
    return out
