"""Hugging Face `tokenizer.json` files, counted exactly in pure Python (standard library).

>>> import json
>>> tok = load_tokenizer(json.dumps({"model": {"type": "WordPiece", "unk_token": "[UNK]",
...     "vocab": {"[UNK]": 0, "un": 1, "##able": 2}}, "pre_tokenizer": {"type": "Whitespace"}}))
>>> tok.encode("unable un")
[1, 2, 1]
"""

from __future__ import annotations

from ._loader import CONTENT_PREFIX, content_key, is_text, load_tokenizer, parse_tokenizer, read_tokenizer
from ._tokenizer import HFTokenizer

__all__ = ["CONTENT_PREFIX", "HFTokenizer", "content_key", "is_text", "load_tokenizer", "parse_tokenizer", "read_tokenizer"]
