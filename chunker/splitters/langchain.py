"""LangChain's text splitters, as `langchain-text-splitters` 1.1 cuts, with offsets into the text.

Each class of the registry whose module is this one: `RecursiveCharacterTextSplitter` (and its
``from_language``, ``from_tiktoken_encoder``, ``from_huggingface_tokenizer``),
`CharacterTextSplitter`, `TokenTextSplitter` and `MarkdownHeaderTextSplitter`. The chunk texts
are LangChain's, character for character; every span is the slice of the document the chunk
came from. Where LangChain's text is not that slice (it joins pieces with the separator, or
stripped lines with a line break), the span covers it and carries LangChain's text as `embed`,
the text an embedder is handed. Where LangChain's own ``add_start_index`` (a ``str.find`` from
near the previous chunk) lands elsewhere than the chunk really is, the span says so (its `framework_offset` flag).

The package itself is never imported; tests/test_splitters.py compares with it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .._errors import ChunkerError
from ..strategies._languages import LANGUAGES
from ..strategies._spans import Span
from ..strategies.langchain import DEFAULT_SEPARATORS, Configured
from ..tokens._tokenizers import TOKENIZERS, TokenizerLike, get_tokenizer
from ._parse import SplitterCall
from ._registry import TIKTOKEN_ENCODINGS, tiktoken_encoding_of

__all__ = ["split", "SPECIAL_TOKENS"]

SPECIAL_TOKENS: dict[str, tuple[str, ...]] = {
    "o200k_base": ("<|endoftext|>", "<|endofprompt|>"),
    "cl100k_base": ("<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|endofprompt|>"),
}
"""Each encoding's special tokens: LangChain's tiktoken counting refuses a text holding one
(``disallowed_special="all"``)."""


def split(text: str, call: SplitterCall, tokenizer: TokenizerLike, *, metadata: str | None = "") -> list[Span]:
    """The registry's entry. LangChain's splitters size their chunks alone, so `metadata`
    (a LlamaIndex node's, see `chunker.splitters.splitter_spans`) changes nothing."""
    values = call.values()
    if call.cls == "MarkdownHeaderTextSplitter":
        return _markdown_headers(text, values)
    if call.cls == "TokenTextSplitter":
        spans = _tokens(text, values)
    else:
        length = _length(call, values, tokenizer)
        keep = values["keep_separator"]
        mode = "end" if keep == "end" else "start" if keep else ""
        if call.cls == "CharacterTextSplitter":
            sep, regex = values["separator"], values["is_separator_regex"]
            cutter = Configured(
                text, values["chunk_size"], values["chunk_overlap"], length, regex=regex, keep=mode,
                strip=values["strip_whitespace"],
            )  # fmt: skip
            lookaround = regex and sep.startswith(("(?=", "(?<!", "(?<=", "(?!"))
            cutter.split_flat(sep, "" if keep or lookaround else sep)
        else:
            if call.constructor == "from_language":
                seps, regex = LANGUAGES[values["language"]].separators, True
            else:
                seps, regex = tuple(values["separators"] or DEFAULT_SEPARATORS), values["is_separator_regex"]
            cutter = Configured(
                text, values["chunk_size"], values["chunk_overlap"], length, regex=regex, keep=mode,
                strip=values["strip_whitespace"],
            )  # fmt: skip
            cutter.split(0, len(text), seps)
        embeds = cutter.embeds
        spans = [Span(a, b, embed=embeds.get(k)) for k, (a, b) in enumerate(cutter.out)]
    if values["add_start_index"]:
        spans = _moved(text, spans, values["chunk_overlap"])
    return spans


def _refuse_specials(encoding: str) -> Callable[[str], None]:
    specials = SPECIAL_TOKENS[encoding]

    def check(s: str) -> None:
        if "<|" in s:
            for t in specials:
                if t in s:
                    raise ChunkerError(
                        f"the text holds {t!r}, a special token of {encoding}: LangChain's tiktoken counting "
                        "refuses it (disallowed_special='all'); take it out of the text"
                    )

    return check


def _length(call: SplitterCall, values: dict[str, Any], tokenizer: TokenizerLike) -> Callable[[str], int]:
    if call.constructor == "from_tiktoken_encoder":
        encoding = tiktoken_encoding_of(values)
        count = get_tokenizer(TIKTOKEN_ENCODINGS[encoding]).count
        refuse = _refuse_specials(encoding)

        def tiktoken_length(s: str) -> int:
            refuse(s)
            return count(s)

        return tiktoken_length
    if call.constructor == "from_huggingface_tokenizer":
        if isinstance(tokenizer.name, str) and tokenizer.name in TOKENIZERS:
            raise ChunkerError(
                "from_huggingface_tokenizer counts with your model's tokenizer.json: give it as the tokenizer "
                f"(tokenizer=PATH, --tokenizer PATH, or the page's Use my model's tokenizer.json), not {tokenizer.name!r}"
            )
        hf_count, specials = tokenizer.count, tokenizer.specials

        def hf_length(s: str) -> int:
            # transformers' tokenize(): the tokens without the special ones around a sequence.
            return hf_count(s) - specials

        return hf_length
    return len


def _tokens(text: str, values: dict[str, Any]) -> list[Span]:
    """`TokenTextSplitter`: windows of token ids decoded back to text."""
    encoding = tiktoken_encoding_of(values)
    _refuse_specials(encoding)(text)
    tok = get_tokenizer(TIKTOKEN_ENCODINGS[encoding])
    ids = tok.encode(text)
    mids: list[int] = []
    offsets = tok.offsets(text, mid_chars=mids)
    inside = set(mids)
    token_bytes = tok._token_bytes  # type: ignore[attr-defined]
    size, step = values["chunk_size"], values["chunk_size"] - values["chunk_overlap"]
    n = len(ids)
    out: list[Span] = []
    start = 0
    while start < n:
        stop = min(start + size, n)
        decoded = b"".join(map(token_bytes, ids[start:stop])).decode("utf-8", errors="replace")
        if decoded:
            a = offsets[start]
            # A window ending inside a character (a token of part of its bytes) covers it.
            b = len(text) if stop == n else offsets[stop] + (1 if stop in inside else 0)
            out.append(Span(a, b, embed=None if text[a:b] == decoded else decoded))
        if stop == n:
            break
        start += step
    return out


def _moved(text: str, spans: list[Span], overlap: int) -> list[Span]:
    """Mark the chunks whose start LangChain's `create_documents` finds elsewhere: it searches
    for the chunk's text from the previous start plus its length minus the overlap."""
    out = []
    index = previous = 0
    for sp in spans:
        chunk = sp.embed if sp.embed is not None else text[sp.start : sp.end]
        index = text.find(chunk, max(0, index + previous - overlap))
        previous = len(chunk)
        out.append(sp._replace(flags=(*sp.flags, "framework_offset")) if index != sp.start else sp)
    return out


# ---------------------------------------------------------------- MarkdownHeaderTextSplitter


class _Block:
    """Lines LangChain keeps together, with the slice of the text each came from."""

    __slots__ = ("lines", "start", "end", "metadata")

    def __init__(self, metadata: dict[str, str]) -> None:
        self.lines: list[str] = []
        self.start = -1
        self.end = -1
        self.metadata = metadata


def _custom_header(line: str, sep: str, custom: dict[str, int]) -> bool:
    import re

    if sep not in custom:
        return False
    e = re.escape(sep)
    m = re.match(f"^{e}(?!{e})(.+?)(?<!{e}){e}$", line)
    if m:
        content = m.group(1).strip()
        return bool(content) and not all(c in sep for c in content.replace(" ", ""))
    return False


def _markdown_headers(text: str, values: dict[str, Any]) -> list[Span]:
    headers: Sequence[tuple[str, str]] = sorted(values["headers_to_split_on"], key=lambda h: len(h[0]), reverse=True)
    strip_headers, each_line = values["strip_headers"], values["return_each_line"]
    custom = dict(values["custom_header_patterns"] or ())
    blocks: list[_Block] = []
    current: list[tuple[str, int, int]] = []  # (stripped line, start, end) of the block being read
    current_meta: dict[str, str] = {}
    stack: list[tuple[int, str, str]] = []  # (level, name, text)
    initial: dict[str, str] = {}
    in_code, fence = False, ""

    def flush(meta: dict[str, str]) -> None:
        block = _Block(meta)
        block.lines = [s for s, _, _ in current]
        block.start, block.end = current[0][1], current[-1][2]
        blocks.append(block)
        current.clear()

    pos = 0
    for line in text.split("\n"):
        line_start = pos
        pos += len(line) + 1
        stripped = line.strip()
        if stripped:
            a = line_start + len(line) - len(line.lstrip())
            b = line_start + len(line.rstrip())
        else:
            a = b = line_start
        stripped = "".join(filter(str.isprintable, stripped))
        if not in_code:
            if stripped.startswith("```") and stripped.count("```") == 1:
                in_code, fence = True, "```"
            elif stripped.startswith("~~~"):
                in_code, fence = True, "~~~"
        elif stripped.startswith(fence):
            in_code, fence = False, ""
        if in_code:
            current.append((stripped, a, b))
            continue
        for sep, name in headers:
            standard = stripped.startswith(sep) and (len(stripped) == len(sep) or stripped[len(sep)] == " ")
            is_custom = _custom_header(stripped, sep, custom)
            if standard or is_custom:
                level = custom[sep] if sep in custom else sep.count("#")
                while stack and stack[-1][0] >= level:
                    popped = stack.pop()
                    initial.pop(popped[1], None)
                data = (stripped[len(sep) : -len(sep)] if is_custom else stripped[len(sep) :]).strip()
                stack.append((level, name, data))
                initial[name] = data
                if current:
                    flush(current_meta.copy())
                if not strip_headers:
                    current.append((stripped, a, b))
                break
        else:
            if stripped:
                current.append((stripped, a, b))
            elif current:
                flush(current_meta.copy())
        current_meta = initial.copy()
    if current:
        flush(current_meta)
    if not each_line:
        blocks = _aggregate(blocks, strip_headers)
    out = []
    for block in blocks:
        content = "\n".join(block.lines)
        a, b = block.start, max(block.start, block.end)
        out.append(Span(a, b, headings=tuple(block.metadata.values()), embed=None if text[a:b] == content else content))
    return out


def _last_line(content: str) -> str:
    last = content.split("\n")[-1]
    if not last:
        raise ChunkerError(
            "LangChain's MarkdownHeaderTextSplitter fails on this text (a block ending in an empty line "
            "before a deeper heading): it raises IndexError"
        )
    return last[0]


def _aggregate(blocks: list[_Block], strip_headers: bool) -> list[_Block]:
    """LangChain's `aggregate_lines_to_chunks`: neighbours with the same headings become one."""
    out: list[_Block] = []
    contents: list[str] = []
    for block in blocks:
        content = "\n".join(block.lines)
        if out and out[-1].metadata == block.metadata:
            contents[-1] += "  \n" + content
            out[-1].end = block.end
        elif out and len(out[-1].metadata) < len(block.metadata) and _last_line(contents[-1]) == "#" and not strip_headers:
            contents[-1] += "  \n" + content
            out[-1].end = block.end
            out[-1].metadata = block.metadata
        else:
            out.append(block)
            contents.append(content)
    for block, content in zip(out, contents):
        block.lines = [content]
    return out
