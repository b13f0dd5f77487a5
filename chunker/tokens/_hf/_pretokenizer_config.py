"""A tokenizer.json `pre_tokenizer` object as a PreTokenizer. Apart from `_pretokenizers` because
two of the kinds it builds (Metaspace, ByteLevel) live in `_rewriting`, which builds on it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..._errors import ChunkerError
from ._pretokenizers import (
    Bert,
    Digits,
    PreTokenizer,
    Punctuation,
    Sequence,
    Split,
    Whitespace,
    WhitespaceSplit,
)
from ._rewriting import ByteLevel, Metaspace

_BUILDERS: dict[str, Callable[[dict[str, Any]], PreTokenizer]] = {
    "BertPreTokenizer": lambda d: Bert(),
    "Whitespace": lambda d: Whitespace(),
    "WhitespaceSplit": lambda d: WhitespaceSplit(),
    "Metaspace": lambda d: Metaspace(d.get("replacement", "\u2581"), _scheme(d), d.get("split", True)),
    "ByteLevel": lambda d: ByteLevel(d.get("add_prefix_space", True), d.get("use_regex", True)),
    "Split": lambda d: Split(d["pattern"], d["behavior"], d.get("invert", False)),
    "Punctuation": lambda d: Punctuation(d.get("behavior", "Isolated")),
    "Digits": lambda d: Digits(d.get("individual_digits", False)),
    "Sequence": lambda d: Sequence([build(x) for x in d["pretokenizers"]]),
}


def _scheme(d: dict[str, Any]) -> str:
    scheme = str(d.get("prepend_scheme", "always"))
    if d.get("add_prefix_space") is False:
        scheme = "never"
    if scheme not in ("always", "first", "never"):
        raise ChunkerError(f"Metaspace prepend_scheme {scheme!r} is unknown; expected always, first or never")
    return scheme


def build(d: dict[str, Any]) -> PreTokenizer:
    kind = d.get("type", "")
    if kind not in _BUILDERS:
        raise ChunkerError(
            f"pre-tokenizer type {kind!r} is not supported by the pure-Python HF "
            "tokenizer; supported: " + ", ".join(sorted(_BUILDERS))
        )
    return _BUILDERS[kind](d)
