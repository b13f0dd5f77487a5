"""Reading a tokenizer.json: a path, or the JSON itself as str or bytes."""

from __future__ import annotations

import json
import os
from typing import Any

from .._errors import ChunkerError
from ._tokenizer import HFTokenizer


def _read(source: str | bytes | os.PathLike[str]) -> tuple[Any, str]:
    if isinstance(source, bytes):
        return _parse(source.decode("utf-8"), "tokenizer.json"), "tokenizer.json"
    if isinstance(source, str) and source.lstrip().startswith("{"):
        return _parse(source, "tokenizer.json"), "tokenizer.json"
    path = os.fspath(source)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise ChunkerError(f"cannot read tokenizer file {path!r} ({e.strerror}); pass the path "
                           "of a tokenizer.json or its JSON text") from None
    parent = os.path.basename(os.path.dirname(os.path.abspath(path)))
    base = os.path.basename(path)
    name = f"{parent}/{base}" if parent and base == "tokenizer.json" else base
    return _parse(text, path), name


def _parse(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as e:
        raise ChunkerError(f"{where} is not valid JSON ({e}); pass a tokenizer.json") from None


def load_tokenizer(source: str | bytes | os.PathLike[str]) -> HFTokenizer:
    """An HFTokenizer from a tokenizer.json path or its JSON text/bytes.

    Unsupported components raise ChunkerError naming the component.
    """
    config, name = _read(source)
    if isinstance(config, dict) and config.get("version", "1.0") != "1.0":
        raise ChunkerError(f"{name} has tokenizer version {config.get('version')!r}; only "
                           "version 1.0 files are supported")
    try:
        return HFTokenizer(config, name=name)
    except (KeyError, TypeError, IndexError) as e:
        raise ChunkerError(f"{name} is missing or misstates a field ({e!r}); pass a complete "
                           "tokenizer.json") from None
