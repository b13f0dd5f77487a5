"""Two registries of numbers users size chunks by: starting points by content type, and the
input limits of common embedding models. The advice, the command line and the page's tables
and selects are drawn from here."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .._errors import ChunkerError

__all__ = ["Preset", "PRESETS", "ModelLimit", "MODEL_LIMITS", "model_limit"]


@dataclass(frozen=True)
class Preset:
    """A starting point for one kind of content: the range people start from, and one setting
    within it that an Apply button sets (in tokens)."""

    name: str
    label: str
    size_range: str
    overlap_range: str
    size: int
    overlap: int | str
    why: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "label": self.label,
            "size_range": self.size_range,
            "overlap_range": self.overlap_range,
            "size": self.size,
            "overlap": self.overlap,
            "why": self.why,
        }


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset(
            "faq",
            "FAQ or short Q&A",
            "200–400 tokens",
            "10–20%",
            300,
            "15%",
            "an answer is short: keep it in one chunk with its question",
        ),
        Preset("general", "General prose", "400–512 tokens", "10–20%", 500, "10%", "the usual first setting to measure from"),
        Preset(
            "technical",
            "Technical documentation",
            "1,024–2,048 tokens",
            "10–15%",
            1024,
            "10%",
            "procedures and code samples need room to stay in one piece",
        ),
        Preset(
            "code",
            "Source code",
            "256–512 tokens",
            "none–10%",
            400,
            "10%",
            "a function or class is what a question about code is answered by: cut at definitions",
        ),
        Preset(
            "chat",
            "Chat history or agent memory",
            "256–512 tokens a turn",
            "none",
            384,
            0,
            "a turn is the natural unit: split by turn or topic rather than by size",
        ),
        Preset(
            "openai",
            "OpenAI file search default",
            "800 tokens",
            "400 (50%)",
            800,
            400,
            "the documented default of OpenAI's vector stores, whose overlap may not pass half the size",
        ),
    )
}
"""Starting points by content type: rules of thumb to measure from, not standards."""


@dataclass(frozen=True)
class ModelLimit:
    """An embedding model's input limit in tokens: past it, the model silently truncates."""

    name: str
    label: str
    tokens: int

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "label": self.label, "tokens": self.tokens}


MODEL_LIMITS: dict[str, ModelLimit] = {
    m.name: m
    for m in (
        ModelLimit("minilm", "all-MiniLM-L6-v2", 256),
        ModelLimit("bge", "BGE / E5 base models", 512),
        ModelLimit("cohere", "Cohere embed v3", 512),
        ModelLimit("openai", "OpenAI text-embedding-3", 8191),
        ModelLimit("nomic", "nomic-embed-text", 8192),
    )
}
"""Input limits of common embedding models, for the "over the model's limit" warning."""


def model_limit(value: int | str | ModelLimit | None) -> ModelLimit | None:
    """A model limit from a `MODEL_LIMITS` name, a number of tokens, or None.

    >>> model_limit("minilm").tokens, model_limit(300).label
    (256, '300-token model')
    """
    if value is None or value == "":
        return None
    if isinstance(value, ModelLimit):
        return value
    if isinstance(value, str) and value in MODEL_LIMITS:
        return MODEL_LIMITS[value]
    text = str(value).strip()
    # A number that is no count of tokens (0, -5, 1.5) is said to be one, not an unknown name.
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if number or re.fullmatch(r"[+-]?\d+(?:\.\d*)?", text):
        if not (text.isascii() and text.isdigit()) or int(text) <= 0:
            raise ChunkerError(
                f"model limit {str(value)[:40]!r} must be a whole number of tokens above 0, or a name: one of "
                f"{', '.join(MODEL_LIMITS)}",
                field="model_max",
            )
    if not (text.isascii() and text.isdigit()) or int(text) <= 0:
        raise ChunkerError(
            f"unknown model limit {str(value)[:40]!r}: name one of {', '.join(MODEL_LIMITS)}, or give a number of tokens",
            field="model_max",
        )
    return ModelLimit(text, f"{int(text):,}-token model", int(text))
