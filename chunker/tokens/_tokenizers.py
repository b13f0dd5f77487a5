"""The tokenizer registry: two estimates, two exact BPE vocabularies, and loaded tokenizer.json files.

`approx` and `estimate` are pure arithmetic. `o200k` and `cl100k` are exact, built by
chunker/tokens/_tiktoken.py, which the registry names. A new exact kind is one module with a
`make(info)` function plus one `TokenizerInfo` entry naming it.

A loaded tokenizer.json is known by its content (``hf:`` and a prefix of its SHA-256), never
by its file name: two files both called tokenizer.json are two tokenizers, and settings that
name one keep meaning it whatever is loaded after. The file name is kept as `label`, for
display only.
"""

from __future__ import annotations

import importlib
import os
import threading
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate, compress
from itertools import count as _naturals
from typing import Any, Protocol, runtime_checkable

from .._errors import ChunkerError
from ..text._segments import check_text, position_kind, stripped_length

__all__ = [
    "Tokenizer",
    "TokenizerLike",
    "TokenizerInfo",
    "TOKENIZERS",
    "get_tokenizer",
    "load_tokenizer",
    "count_tokens",
    "approx_tokens",
    "label_of",
]


@runtime_checkable
class TokenizerLike(Protocol):
    """What the chunker asks of a tokenizer: `Tokenizer`, `HFTokenizer` and any object of this
    shape may be passed as a `tokenizer` setting.

    `name` is its identity in settings and caches (a loaded tokenizer.json's is its content
    hash), `label` what a person is shown. `boundary_at`, `first_boundary` and `last_boundary`
    name positions where the encoding of any text falls apart into the encodings of the text
    before and after (at least the text's ends); `offsets` are the code-point offsets of each
    token's start. `specials` are the tokens added to every sequence, `model_max` the model's
    input limit if the tokenizer knows it.
    """

    name: str
    exact: bool
    specials: int
    model_max: int | None

    def count(self, text: str) -> int: ...

    def encode(self, text: str) -> list[int]: ...

    def offsets(self, text: str, *, mid_chars: list[int] | None = None) -> Sequence[int]: ...

    def boundary_at(self, text: str, p: int) -> bool: ...

    def first_boundary(self, text: str, start: int, end: int) -> int | None: ...

    def last_boundary(self, text: str, start: int, end: int) -> int | None: ...


@dataclass(frozen=True)
class TokenizerInfo:
    """A named tokenizer: what it counts, for an exact one its tiktoken encoding, and the module
    of this package whose `make(info)` builds it (none: built in here)."""

    name: str
    label: str
    description: str
    exact: bool
    encoding: str = ""
    module: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "label": self.label,
            "description": self.description,
            "exact": self.exact,
            "encoding": self.encoding,
        }

    def make(self) -> Tokenizer:
        if self.name == "approx":
            return Tokenizer(self.name, False, approx_tokens, backend="rule")
        if not self.module:
            return Tokenizer(self.name, False, _estimate_count, backend="character classes")
        # Imported when first used: the page's worker never pays for an encoding it is not asked.
        made: Tokenizer = importlib.import_module(f"{__package__}.{self.module}").make(self)
        return made


TOKENIZERS: dict[str, TokenizerInfo] = {
    t.name: t
    for t in (
        TokenizerInfo(
            "estimate",
            "estimate (character classes)",
            "An estimate from character classes, calibrated on real text: a median 1-4% off o200k on "
            "prose, code and Markdown, more on CJK; lines of one repeated symbol (-----) and URL lists "
            "count 10-60% high. Pick an exact tokenizer for those.",
            exact=False,
        ),
        TokenizerInfo(
            "approx", "approx (chars / 4)", "A rough estimate: trimmed characters / 4, rounded half up (at least 1).", exact=False
        ),
        TokenizerInfo(
            "o200k",
            "o200k (exact, GPT-4o)",
            "Exact: OpenAI o200k_base (GPT-4o, GPT-4.1, o-series).",
            exact=True,
            encoding="o200k_base",
            module="_tiktoken",
        ),
        TokenizerInfo(
            "cl100k",
            "cl100k (exact, GPT-4)",
            "Exact: OpenAI cl100k_base (GPT-4, GPT-3.5, text-embedding-3).",
            exact=True,
            encoding="cl100k_base",
            module="_tiktoken",
        ),
    )
}
"""Every named tokenizer, in the order the CLI's help and the page list them."""

_CONTINUATION_BYTES = bytes(range(0x80, 0xC0))  # UTF-8 bytes that do not start a character

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

    def __init__(
        self,
        name: str,
        exact: bool,
        count: Callable[[str], int],
        encode: Callable[[str], list[int]] | None = None,
        token_bytes: Callable[[int], bytes] | None = None,
        backend: str = "",
        vocabulary: dict[bytes, int] | None = None,
        encode_array: Callable[[str], Any] | None = None,
    ) -> None:
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
        self._arrays: tuple[Any, ...] | None = None  # (numpy, widths, starts-mid-character), see _array_offsets

    specials = 0
    """Tokens added to every sequence (none for tiktoken's encodings)."""
    model_max: int | None = None
    """The model's input limit the tokenizer knows of (none for tiktoken's encodings)."""

    def __repr__(self) -> str:
        return f"<Tokenizer {self.name} exact={self.exact} {self.backend}>".replace(" >", ">")

    # Boundaries: positions where the encoding of any text falls apart into the encodings of
    # the text before and after; ExactTokenMeasure counts spans from them. Only the text's ends
    # are known to be one for any tokenizer: a kind that knows more (chunker/tokens/_tiktoken.py)
    # says so by overriding these three, and spans are then counted without encoding them whole.

    def boundary_at(self, text: str, p: int) -> bool:
        """Whether a boundary falls at `p`: here only the ends of the text."""
        return p <= 0 or p >= len(text)

    def first_boundary(self, text: str, start: int, end: int) -> int | None:
        """The first boundary p with start <= p < end, or None."""
        return start if start < end and self.boundary_at(text, start) else None

    def last_boundary(self, text: str, start: int, end: int) -> int | None:
        """The last boundary p with start < p <= end, or None."""
        return end if end > start and self.boundary_at(text, end) else None

    def encode(self, text: str) -> list[int]:
        if self._encode is None:
            raise TypeError(f"tokenizer {self.name} is an estimate and has no token ids")
        return self._encode(text)

    def offsets(self, text: str, block: int = 1 << 16, mid_chars: list[int] | None = None) -> array[int]:
        """Code-point offset of each token's start, for a text encoded once.

        A token that starts inside a multi-byte character gets that character's offset, so
        cutting at an offset never splits a character (the array is non-decreasing). The text
        is encoded in blocks of about `block` characters cut at boundaries (see
        `first_boundary`), which gives exactly the whole text's tokens while only one block's
        ids are ever held as Python objects. `mid_chars`, when given, receives the indices of
        the tokens that start inside a character (cutting there would split it).
        """
        pos, n = 0, len(text)
        kind = position_kind(n)
        out = array(kind)
        # Importing numpy costs more than a short text's offsets: only a long one takes it.
        arrays = n >= ARRAY_MIN_CHARS and self._array_tables() is not None
        while pos < n:
            cut = self.first_boundary(text, pos + block, n) if pos + block < n else None
            stop = cut if cut is not None else n
            out.extend(self._block_offsets(text[pos:stop], pos, kind, mid_chars, len(out), arrays))
            pos = stop
        return out

    def _block_offsets(
        self, text: str, base: int, kind: str = "q", mid_chars: list[int] | None = None, first: int = 0, arrays: bool = False
    ) -> array[int]:
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

    def _array_tables(self) -> tuple[Any, ...] | None:
        """(numpy, widths, starts-mid-character) indexed by token id, or None without numpy.

        A width is -1 for a token whose shape is not known yet; the vocabulary, read here if
        it was not yet, leaves none.
        """
        if self._encode_array is None:
            return None
        if self._arrays is None:
            try:
                import numpy  # optional, and heavy to import
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

    def _array_offsets(self, ids: Any, base: int, kind: str, mid_chars: list[int] | None, first: int) -> array[int] | None:
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
    from ._estimate import estimate_tokens  # keeps import light

    return estimate_tokens(text)


_lock = threading.Lock()
_cache: dict[str, Tokenizer] = {}
_loaded: dict[str, TokenizerLike] = {}  # by identity: loaded tokenizer.json files (by content), or handed in


def get_tokenizer(name: str | TokenizerLike) -> TokenizerLike:
    """The tokenizer `name` names, loaded once: approx, estimate, o200k, cl100k, a loaded
    tokenizer's identity (``hf:...``), or the path of a Hugging Face tokenizer.json; a tokenizer
    object (one `load_tokenizer` returned) is itself.

    >>> get_tokenizer("o200k").count("hello world")
    2
    """
    if not isinstance(name, str):
        return use_tokenizer(name)
    tok: TokenizerLike | None = _cache.get(name) or _loaded.get(name)
    if tok is not None:
        return tok
    if name not in TOKENIZERS:
        from ._hf import CONTENT_PREFIX  # only a name not in the registry needs it

        if name.startswith(CONTENT_PREFIX):
            raise ChunkerError(
                f"tokenizer {name!r} is not loaded in this process: load its tokenizer.json "
                "first (load_tokenizer), or give the file's path",
                field="tokenizer",
            )
        if name.endswith(".json") or os.path.sep in name:
            return load_tokenizer(name)
        raise ChunkerError(
            f"unknown tokenizer {name!r}: choose one of {', '.join(TOKENIZERS)}, or give the path of a tokenizer.json",
            field="tokenizer",
        )
    with _lock:
        made = _cache.get(name)
        if made is None:
            made = _cache[name] = TOKENIZERS[name].make()
    return made


def load_tokenizer(source: str | bytes | os.PathLike[str], *, name: str | None = None) -> TokenizerLike:
    """A Hugging Face tokenizer.json (a path, or the file's text or bytes), counted exactly in
    pure Python as `tokenizers` counts it with truncation and padding off, special tokens
    included.

    It is known by its content (`content_key`: settings then name it ``hf:...``), so the same
    file loaded twice is one tokenizer and two files are two, whatever they are called. `name`
    is only its `label`, shown to people (by default the file's name).

    >>> import json
    >>> text = json.dumps({"model": {"type": "WordPiece", "unk_token": "[UNK]",
    ...     "vocab": {"[UNK]": 0, "hello": 1}}, "pre_tokenizer": {"type": "Whitespace"}})
    >>> tok = load_tokenizer(text, name="tiny")
    >>> tok.count("hello hello"), tok.label, tok.name, get_tokenizer(tok.name) is tok
    (2, 'tiny', 'hf:c9d90198b16c92d3', True)
    """
    from ._hf import content_key, is_text, parse_tokenizer, read_tokenizer  # only a tokenizer.json needs it

    if not isinstance(source, (str, bytes, os.PathLike)):
        raise ChunkerError(
            f"load_tokenizer takes a tokenizer.json's path, text or bytes, got {type(source).__name__}", field="tokenizer"
        )
    if isinstance(source, os.PathLike) or (isinstance(source, str) and not is_text(source)):
        path = os.fspath(source)
        if not os.path.isfile(path):
            what = "a folder" if os.path.isdir(path) else "no such file"
            raise ChunkerError(
                f"tokenizer {path!r}: {what}; give the path of a model's tokenizer.json, or one of " + ", ".join(TOKENIZERS),
                field="tokenizer",
            )
    # Read (and hashed) before parsing: a file loaded again is found by its content, unparsed.
    text, label = read_tokenizer(source)
    key = content_key(text)
    with _lock:
        known = _loaded.get(key)
    if known is not None:
        return known
    tok = parse_tokenizer(text, label=name or label, key=key)
    with _lock:
        return _loaded.setdefault(key, tok)


_EXACT_METHODS = ("encode", "offsets", "boundary_at", "first_boundary", "last_boundary")
"""What an exact tokenizer is asked besides `count` (an estimate is asked only to count)."""


def use_tokenizer(tok: TokenizerLike) -> TokenizerLike:
    """Make a tokenizer object known by its name (settings then carry the name). A name already
    held by another tokenizer is refused: settings naming it would change meaning."""
    if not (hasattr(tok, "count") and isinstance(getattr(tok, "name", None), str)):
        raise ChunkerError(
            f"tokenizer must be a name, a tokenizer.json path or a loaded tokenizer, got {type(tok).__name__}", field="tokenizer"
        )
    # Checked before it is made known by its name: an object the chunker cannot use must not
    # hold that name, nor fail later with an AttributeError halfway through a chunking.
    wanted = ["exact"] if not hasattr(tok, "exact") else list(_EXACT_METHODS) if tok.exact else []
    missing = [m for m in wanted if not hasattr(tok, m)]
    if missing:
        raise ChunkerError(
            f"tokenizer {tok.name[:40]!r} ({type(tok).__name__}) lacks {', '.join(missing)}: give an object shaped "
            "as chunker.TokenizerLike (exact, and for exact=True also its encode, offsets and boundary methods)",
            field="tokenizer",
        )
    with _lock:
        held = _cache.get(tok.name) or _loaded.setdefault(tok.name, tok)
    if held is not tok:
        raise ChunkerError(
            f"another tokenizer is already known as {tok.name!r}: give this one another name "
            "(a loaded tokenizer.json is named by its content)",
            field="tokenizer",
        )
    return tok


def label_of(name: str | TokenizerLike) -> str:
    """What a person is shown for a tokenizer: a loaded file's label, else its name."""
    tok = name if not isinstance(name, str) else (_cache.get(name) or _loaded.get(name))
    if tok is None:
        return str(name)
    if not isinstance(getattr(tok, "name", None), str):
        raise ChunkerError(f"tokenizer must be a name or a loaded tokenizer, got {type(tok).__name__}", field="tokenizer")
    return str(getattr(tok, "label", None) or tok.name)


def count_tokens(text: str, tokenizer: str | TokenizerLike = "estimate") -> int:
    """Tokens in `text` by the tokenizer `tokenizer` names (see `get_tokenizer`).

    >>> count_tokens("Chunk size is a balance.", tokenizer="cl100k")
    6
    """
    return get_tokenizer(tokenizer).count(check_text(text))
