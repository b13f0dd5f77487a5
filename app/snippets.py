"""Copy as code: the `chunker` call, the command line and (for the langchain strategy) the
LangChain code that give exactly the chunks on screen."""

from __future__ import annotations

import json
import shlex
from typing import Any

import chunker

from .html import esc

__all__ = ["snippets", "code_html"]


def _py(value: Any) -> str:
    """A Python literal for a setting, in double quotes like the rest of the snippet.

    >>> _py("15%"), _py(("paragraph",)), _py(500)
    ('"15%"', '("paragraph",)', '500')
    """
    if isinstance(value, (tuple, list)):
        value = tuple(value)
        return "(" + ", ".join(map(_py, value)) + ("," if len(value) == 1 else "") + ")"
    return json.dumps(value) if isinstance(value, str) else repr(value)


def snippets(settings: Any, filename: str = "document.md") -> dict[str, str]:
    """The `chunker` call, the CLI line and (for langchain) the LangChain code for ``settings``.

    Every option of `chunker.OPTIONS` is written as its entry says (``breaks`` only changes the
    sentence strategy, so it is written out for that strategy or when it differs from the
    default; a loaded tokenizer.json as its file's name).

    >>> from types import SimpleNamespace as S
    >>> s = S(strategy="fixed", unit="chars", size=300, overlap="15%", tokenizer="approx",
    ...       breaks=("paragraph", "line", "sentence"), overlap_count=45)
    >>> print(snippets(s)["cli"])
    python -m chunker document.md --strategy fixed --unit chars --size 300 --overlap 15% --tokenizer approx --format jsonl
    """
    # Each option as its entry in the table of options says: whether to write it, and how. A
    # pasted splitter fixes some of the others: they are left out, the splitter says them.
    splitter = getattr(settings, "splitter", None)
    pasted = chunker.parse_splitter(splitter) if splitter else None
    fixed = pasted.implied() if pasted is not None else {}
    written = [
        o for o in chunker.OPTIONS.values() if "chunk" in o.surfaces and o.name not in fixed and o.wanted_in_snippet(settings)
    ]
    args = [(o.name, o.shown(getattr(settings, o.name))) for o in written]
    call = ",\n".join(f"    {k}={_py(v)}" for k, v in args)
    python = (
        "import chunker\n\n"
        "# Read as the page and the command line read it: a PDF, Word or HTML file extracted to\n"
        "# text, any other file UTF-8 with its line breaks kept, so the offsets are the same.\n"
        f"doc = chunker.Document.open({_py(filename)})\n"
        f"result = doc.chunk(\n{call},\n)\n"
        "for c in result.chunks:\n"
        "    print(c.index, c.start_char, c.end_char, c.tokens, c.flags)\n"
    )
    cli = f"python -m chunker {shlex.quote(filename)}" + "".join(
        f" {o.flag} {shlex.quote(o.cli_text(getattr(settings, o.name)))}" for o in written if "cli" in o.surfaces
    )
    cli += " --format jsonl"
    out = {"python": python, "cli": cli}
    if pasted is not None:
        out[pasted.framework] = pasted.snippet(filename)
    elif settings.strategy == "langchain":
        out["langchain"] = _langchain_snippet(settings, filename)
    return out


def _langchain_snippet(settings: Any, filename: str) -> str:
    size, overlap = settings.size, settings.overlap_count
    head = "from langchain_text_splitters import RecursiveCharacterTextSplitter\n\n"
    read = f'text = open({_py(filename)}, encoding="utf-8", newline="").read()\n'
    info = chunker.TOKENIZERS.get(settings.tokenizer)
    encoding = info.encoding if info is not None else ""  # a loaded tokenizer.json has none
    if settings.unit == "tokens" and encoding:
        make = (
            "splitter = RecursiveCharacterTextSplitter.from_tiktoken_encoder(\n"
            f'    encoding_name="{encoding}", chunk_size={size}, chunk_overlap={overlap}\n)\n'
        )
    elif settings.unit == "tokens":
        head += "import chunker\n"
        shown = _py(chunker.tokenizer_label(settings.tokenizer))  # a loaded file: its name, a path there
        make = (
            "splitter = RecursiveCharacterTextSplitter(\n"
            f"    chunk_size={size}, chunk_overlap={overlap},\n"
            f"    length_function=lambda s: chunker.count_tokens(s, tokenizer={shown}),\n)\n"
        )
    elif settings.unit == "words":
        make = (
            "splitter = RecursiveCharacterTextSplitter(\n"
            f"    chunk_size={size}, chunk_overlap={overlap},\n"
            "    length_function=lambda s: len(s.split()),\n)\n"
        )
    else:
        make = f"splitter = RecursiveCharacterTextSplitter(chunk_size={size}, chunk_overlap={overlap})\n"
    return head + read + make + "chunks = splitter.split_text(text)  # the same texts as this view\n"


def code_html(snips: dict[str, str]) -> str:
    """The snippets as labelled, copyable code blocks."""
    titles = {
        "python": "Python (chunker)",
        "cli": "Command line",
        "langchain": "LangChain equivalent",
        "llama_index": "LlamaIndex equivalent",
    }
    out = []
    for key in ("python", "cli", "langchain", "llama_index"):
        if key in snips:
            out.append(
                f'<div class="snip"><div class="snip-h"><span>{titles[key]}</span>'
                f'<button type="button" class="copy-snip" data-snip="{key}">Copy</button></div>'
                f'<pre><code id="snip-{key}">{esc(snips[key])}</code></pre></div>'
            )
    return "".join(out)
