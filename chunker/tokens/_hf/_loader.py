"""Reading a tokenizer.json: a path, or the JSON itself as str or bytes."""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

from ..._errors import ChunkerError
from . import _schema
from ._tokenizer import HFTokenizer

CONTENT_PREFIX = "hf:"


def content_key(data: str | bytes) -> str:
    """The identity of a tokenizer.json's content: ``hf:`` and 16 hex digits of its SHA-256.

    >>> content_key('{"model": {}}')
    'hf:60e9a258caaf1d71'
    """
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    return CONTENT_PREFIX + hashlib.sha256(raw).hexdigest()[:16]


def _decode(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ChunkerError(
            f"{where} is not UTF-8 text (byte {e.start} is 0x{data[e.start]:02x}); pass a tokenizer.json, which is UTF-8 JSON"
        ) from None


PATH_MAX = 4096
"""A str longer than this, or of more than one line, is a file's text, never a path."""

NOT_A_TOKENIZER = "pick the tokenizer.json of your model's folder"


def is_text(source: str) -> bool:
    """Whether a str handed in is a file's text rather than a path: JSON's opening bracket
    first, or more than a path can be (a text file picked by mistake is not a path).

    >>> is_text('{"model": {}}'), is_text("model/tokenizer.json"), is_text("notes\\nmore notes")
    (True, False, True)
    """
    return source.lstrip()[:1] in ("{", "[") or "\n" in source or len(source) > PATH_MAX


def read_tokenizer(source: str | bytes | os.PathLike[str]) -> tuple[str, str]:
    """A tokenizer.json's text, and the label to show it by (the file's name, or
    "tokenizer.json" for text handed in). Not parsed yet: its identity is its text's hash."""
    if isinstance(source, bytes):
        return _decode(source, "tokenizer.json"), "tokenizer.json"
    if isinstance(source, str) and is_text(source):
        return source, "tokenizer.json"
    path = os.fspath(source)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ChunkerError(
            f"cannot read tokenizer file {path!r} ({e.strerror}); pass the path of a tokenizer.json or its JSON text"
        ) from None
    text = _decode(data, repr(path))
    parent = os.path.basename(os.path.dirname(os.path.abspath(path)))
    base = os.path.basename(path)
    return text, (f"{parent}/{base}" if parent and base == "tokenizer.json" else base)


_POW10 = [float(f"1e{k}") for k in range(309)]
_U64 = (1 << 64) - 1


def serde_float(literal: str) -> float:
    """A JSON float as serde_json (without its float_roundtrip feature) reads it, which is
    what HF `tokenizers` does: the significand's first digits as a u64 (digits past
    overflow dropped), then one multiplication or division by a power of ten. That can be
    one unit in the last place off Python's correctly rounded float(), and Unigram's
    Viterbi breaks ties on exactly such sums.

    >>> serde_float("-42.048630999033904") == float("-42.048630999033904")
    True
    """
    s = literal
    negative = s.startswith("-")
    if negative:
        s = s[1:]
    mant, _, exp_part = s.replace("E", "e").partition("e")
    whole, _, frac = mant.partition(".")
    # The digits a u64 holds, read at C speed: after the leading zeros (which add nothing),
    # 19 digits always fit and a 20th fits when the value stays at most 2**64 - 1.
    digits = whole + frac
    zeros = len(digits) - len(digits.lstrip("0"))
    held = len(digits) - zeros
    if held > 19:
        held = 20 if int(digits[zeros : zeros + 20]) <= _U64 else 19
    used = zeros + held
    if used < len(whole):  # a huge integer part: rare; take Python's reading
        return float(literal)
    significand = int(digits[:used]) if used else 0
    exponent = -(used - len(whole))
    if exp_part:
        exponent += int(exp_part)
    f = float(significand)
    while True:
        if abs(exponent) < len(_POW10):
            f = f * _POW10[exponent] if exponent >= 0 else f / _POW10[-exponent]
            break
        if f == 0.0:
            break
        if exponent >= 0:
            return float(literal)
        f /= 1e308
        exponent += 308
    return -f if negative else f


def _constant(name: str) -> float:
    raise ValueError(f"{name} is not a JSON number")


def _parse(text: str, where: str) -> Any:
    if text.lstrip()[:1] not in ("{", "["):  # a text file picked by mistake: one line, never its text
        raise ChunkerError(f"{where} is not a tokenizer.json (it is not JSON, which starts with {{): {NOT_A_TOKENIZER}")
    try:
        # NaN and Infinity are not JSON (Python's json reads them; serde_json does not).
        return json.loads(text, parse_float=serde_float, parse_constant=_constant)
    except RecursionError:
        raise ChunkerError(
            f"{where} is nested too deep to be a tokenizer.json; pass the file Hugging Face's tokenizers saves"
        ) from None
    except ValueError as e:
        raise ChunkerError(f"{where} is not valid JSON ({str(e)[:200]}); pass a tokenizer.json") from None


def parse_tokenizer(text: str, *, label: str = "tokenizer.json", key: str | None = None) -> HFTokenizer:
    """An HFTokenizer from a tokenizer.json's text, named `key` (by default its content's
    identity, `content_key`) and labelled `label` for display.

    Every field is checked against what HF `tokenizers` accepts first (`_schema`); an
    unsupported component or a bad field raises one ChunkerError line naming it.
    """
    config = _parse(text, label)
    if isinstance(config, dict) and config.get("version", "1.0") != "1.0":
        raise ChunkerError(
            f"{label} has tokenizer version {str(config.get('version'))[:40]!r}; only version 1.0 files are supported"
        )
    if isinstance(config, dict) and "model" not in config:  # a model's config.json, say
        raise ChunkerError(f'{label} is not a tokenizer.json (it has no "model"): {NOT_A_TOKENIZER}')
    _schema.check(config, label)
    try:
        return HFTokenizer(config, name=key or content_key(text), label=label)
    except ChunkerError as e:
        if str(e).startswith(label):
            raise
        raise ChunkerError(f"{label}: {e}") from None
    except (
        KeyError,
        TypeError,
        IndexError,
        ValueError,
        AttributeError,
        RecursionError,
        OverflowError,
    ) as e:  # a shape the schema let through: still one line
        raise ChunkerError(
            f"{label} is missing or misstates a field ({type(e).__name__}: {str(e)[:120]}); pass a complete tokenizer.json"
        ) from None


def load_tokenizer(source: str | bytes | os.PathLike[str]) -> HFTokenizer:
    """An HFTokenizer from a tokenizer.json path or its JSON text/bytes, named by its content."""
    text, label = read_tokenizer(source)
    return parse_tokenizer(text, label=label)
