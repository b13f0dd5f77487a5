"""Post-processors: the special tokens wrapped around a single sequence.

For counting, a post-processor reduces to the ids it puts before and after the sequence.
"""

from __future__ import annotations

from typing import Any

from ..._errors import ChunkerError

Wrap = tuple[list[int], list[int]]


def _template(d: dict[str, Any]) -> Wrap:
    specials = d.get("special_tokens", {})
    before: list[int] = []
    after: list[int] = []
    seen_sequence = False
    for item in d.get("single", []):
        if "Sequence" in item:
            if item["Sequence"].get("id", "A") != "A":
                raise ChunkerError("TemplateProcessing single template names sequence B; a single sequence only has A")
            seen_sequence = True
        elif "SpecialToken" in item:
            name = item["SpecialToken"]["id"]
            if name not in specials:
                raise ChunkerError(
                    f"TemplateProcessing names special token {name!r} that its "
                    "special_tokens map lacks; the tokenizer.json is damaged"
                )
            (after if seen_sequence else before).extend(specials[name]["ids"])
        else:
            raise ChunkerError(f"TemplateProcessing item {item!r} is neither Sequence nor SpecialToken")
    if not seen_sequence:
        raise ChunkerError(
            "TemplateProcessing single template has no sequence $A, so it drops the text; the tokenizer.json is damaged"
        )
    return before, after


def _pair(d: dict[str, Any]) -> Wrap:
    return [d["cls"][1]], [d["sep"][1]]


def build(d: dict[str, Any] | None) -> Wrap:
    """(ids before, ids after) the sequence's own tokens."""
    if d is None:
        return [], []
    kind = d.get("type", "")
    if kind == "TemplateProcessing":
        return _template(d)
    if kind in ("BertProcessing", "RobertaProcessing"):
        return _pair(d)
    if kind == "ByteLevel":
        return [], []
    if kind == "Sequence":
        before: list[int] = []
        after: list[int] = []
        for p in d.get("processors", []):
            b, a = build(p)
            before, after = b + before, after + a
        return before, after
    raise ChunkerError(
        f"post-processor type {kind!r} is not supported by the pure-Python HF "
        "tokenizer; supported: BertProcessing, ByteLevel, RobertaProcessing, "
        "Sequence, TemplateProcessing"
    )
