"""The strategy registry: one entry per strategy, each strategy a module of this package.

A strategy module exposes ``split(text, *, size, overlap, measure, breaks)``, which returns the
chunks' offsets in document order, sized by `measure` (see chunker/tokens/_measure.py): a list of
`Span`, or `Spans`, the same as columns (strategies that can make millions of chunks). Everything
else (the CLI's choices and help, the page's select, the comparison table, the docs' table)
is drawn from `STRATEGIES`, so a new strategy is its module plus one line below.

>>> [s.name for s in STRATEGIES.values()][:3]
['recursive', 'fixed', 'sentence']
>>> STRATEGIES["sentence"].size_zero, STRATEGIES["fixed"].size_zero
(True, False)
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .._errors import ChunkerError, shown
from ._spans import Span, Spans

__all__ = ["Span", "Spans", "Strategy", "STRATEGIES", "register_strategy"]

SplitFunction = Callable[..., "list[Span] | Spans"]


@dataclass(frozen=True)
class Strategy:
    """One strategy: its name, what it does, and which options it honours.

    `module` names the module of this package that holds its ``split`` (the name itself by
    default), imported when the strategy is first used: a page that never picks a strategy
    does not pay for loading it. A strategy registered from outside the package passes its
    function as `function` instead.
    """

    name: str
    description: str
    size_zero: bool = False
    """Size 0 is allowed and means one chunk per natural unit (sentence, paragraph)."""
    breaks: bool = False
    """It honours the break points setting."""
    keeps_blank: bool = False
    """Whitespace-only chunks are kept (LangChain keeps them at tiny sizes); others drop them."""
    own_context: bool = False
    """Its chunks may carry a context of their own, without the `context` setting (a split
    table's later parts, its header rows): their records then carry `embed_text`, so a table
    of records made with it has the embed text's columns."""
    wants: tuple[str, ...] = ()
    """What else its ``split`` takes, as keyword arguments: ``pages`` (the document's page
    starts), ``source`` (the name the document was read from), or the name of a setting."""
    module: str = ""
    function: SplitFunction | None = field(default=None, repr=False, compare=False)

    @property
    def split(self) -> SplitFunction:
        if self.function is not None:
            return self.function
        found: SplitFunction = importlib.import_module(f"{__name__}.{self.module or self.name}").split
        object.__setattr__(self, "function", found)
        return found

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "size_zero": self.size_zero, "breaks": self.breaks}


STRATEGIES: dict[str, Strategy] = {}
"""Every strategy by name, in the order the CLI's help and the page list them."""


def register_strategy(strategy: Strategy) -> None:
    """Add a strategy (or replace the one of the same name) everywhere at once: `chunk()`, the
    CLI, the playground's select and its comparison table."""
    if not isinstance(strategy, Strategy):
        raise ChunkerError(f"register_strategy takes a Strategy, got {type(strategy).__name__}")
    if not isinstance(strategy.name, str) or not strategy.name.isidentifier():
        raise ChunkerError(f"strategy name {shown(strategy.name, 60)} must be a plain identifier such as my_split")
    STRATEGIES[strategy.name] = strategy


for _entry in (
    Strategy(
        "recursive",
        "Paragraph, then line, sentence, word and character breaks; pieces are packed up to the size. "
        "A Markdown table longer than the size is split between rows, the header rows repeated on each later part.",
        own_context=True,
    ),
    Strategy("fixed", "Windows of exactly the size, a stride of size minus overlap apart; ignores structure."),
    Strategy(
        "sentence",
        "Packs whole sentences up to the size; a sentence longer than the size is cut and flagged.",
        size_zero=True,
        breaks=True,
    ),
    Strategy(
        "paragraph", "Packs whole blank-line-separated paragraphs; a long paragraph is never split, only flagged.", size_zero=True
    ),
    Strategy(
        "markdown",
        "Heading-aware sections with their heading path; code blocks stay whole, a table longer than the size is "
        "split between rows, the header rows repeated on each later part.",
        own_context=True,
    ),
    Strategy(
        "code",
        "Source code at its definitions: Python by its syntax tree (classes, functions, methods, "
        "statements), other languages at their separators; the language from the file name or setting.",
        wants=("language", "source"),
    ),
    Strategy(
        "page",
        "One chunk per page (a PDF's); a page larger than the size is split, pages are never merged.",
        size_zero=True,
        wants=("pages",),
    ),
    Strategy(
        "semantic",
        "Ends chunks where the topic changes: sentences embedded (an embedding_model, else their words), "
        "cut where neighbouring windows differ most (breakpoint_percentile), packed up to the size, never over it.",
        breaks=True,
        wants=("embedding_model", "breakpoint_percentile"),
    ),
    Strategy(
        "langchain", "Exactly what LangChain's RecursiveCharacterTextSplitter returns, with correct offsets.", keeps_blank=True
    ),
):
    register_strategy(_entry)
