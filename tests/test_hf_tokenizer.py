"""chunker.tokens._hf against Hugging Face's own `tokenizers` (pinned test requirement).

Each family (trained once per machine in set-up, see tests/hf_fixtures.py, a real model's file
from a pinned package, or one of those with the pre-tokenizer of another real model) must give
HF's ids and counts, and offsets equal to the starts of HF's tokens, on 10,000+ short real and
random texts, and keep the boundary contract: for boundaries a < b, count(text[a:b]) - specials
equals the number of the document's token offsets in [a, b).
"""

from __future__ import annotations

import bisect
import functools
import json
import random
import sys
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hf_fixtures as F

from chunker import ChunkerError
from chunker.tokens._hf import load_tokenizer

FAMILIES = list(F.FAMILIES)
N_REAL = 7500
N_RANDOM = 2500
# Texts that once broke a family, kept in every family's run. The two NFKC ones: a combining
# mark after an ASCII letter composes with it; offsets() once kept them apart (25 offsets for
# 23 tokens on anthropic's tokenizer).
REGRESSIONS = [
    "",
    " ",
    "\n",
    "  a",
    "a  \n b",
    "\r\n\r\n",
    's\u0341   \nEner\u3059ie lts \u30b3 hlgl"\u6587:\u1a68ai \u9009e',
    " n g >enedue B mhddo raogl=\n \u30b9goeu\u8b668\u9019m\u0301 sda\u5c07\u308bld rd  e  zs",
]

# Characters assigned in Python's Unicode (14.0); newer ones are unassigned here but may be
# classified by HF's newer tables. Surrogates are added on purpose (see clean_surrogates).
_CHARS = st.characters(blacklist_categories=("Cn", "Cs"))
_TEXT = st.text(st.one_of(_CHARS, st.sampled_from(" \n\t\r\u3000\u0301\u200d\ufe0f😀🇩🇪한글é\ud800\x00\ufffd")), max_size=40)


class Family(tuple):
    """(name, json, ours, HF's), shown by name (Hypothesis prints its arguments)."""

    def __repr__(self) -> str:
        return f"<family {self[0]}>"


@pytest.fixture(scope="module", params=FAMILIES)
def family(request):
    js = F.FAMILIES[request.param]()
    return Family((request.param, js, load_tokenizer(js), F.reference(js)))


def _precompiled(tok):
    from chunker.tokens._hf._precompiled import Precompiled

    stack = [tok.normalizer]
    while stack:
        n = stack.pop()
        if isinstance(n, Precompiled):
            return n
        stack += getattr(n, "parts", [])
    return None


def _hf_offsets_sound(tok, text: str) -> bool:
    """Whether HF's offsets are the true token starts. Its Precompiled normalizer books a
    character it removes (or merges into a cluster's replacement) on the change entry before
    it (tokenizers' `replace` helper): removed at the text's start, every later offset shifts
    left ("\\x08\\x08ab cd" puts "▁c" at 2, not 4); removed after a character it expanded,
    that expansion's last character moves onto the removed one ("¼\\x0b": the "4" of "1⁄4" at
    1). Ours stay true; such texts are compared on ids, counts and the number of offsets."""
    pre = _precompiled(tok)
    if pre is None or not text:
        return True
    _, al = pre.aligned(text)
    return al is None or len(set(al)) == len(text)


def _matches_hf(tok, text: str, enc) -> bool:
    ids = tok.encode(text)
    mids: list[int] = []
    offsets = list(tok.offsets(text, mids))
    if ids != enc.ids or tok.count(text) != len(enc.ids) or len(offsets) != len(ids) - tok.specials:
        return False
    if mids != _continuing(tok, enc):
        return False
    return offsets == F.starts(enc) or not _hf_offsets_sound(tok, text)


@functools.cache
def _byte_values() -> dict[str, int]:
    from chunker.tokens._hf._rewriting import byte_chars

    return {c: b for b, c in enumerate(byte_chars())}


def _continuing(tok, enc) -> list[int]:
    """Indices (among non-special tokens) of HF's tokens that start with a byte continuing a
    character: a byte-level token whose first character stands for 0x80-0xBF, or a
    byte-fallback token <0x80>-<0xBF>. offsets() must report exactly these in mid_chars."""
    byte_level = any(getattr(p, "kind", "") == "ByteLevel" for p in getattr(tok.pre, "parts", [tok.pre]))
    if not byte_level and "<0x80>" not in tok.model.vocab:
        return []
    values = _byte_values()
    out = []
    tokens = [t for t, special in zip(enc.tokens, enc.special_tokens_mask) if not special]
    for i, t in enumerate(tokens):
        if t.startswith("<0x") and len(t) == 6 and t.endswith(">"):
            b = int(t[3:5], 16)
        elif byte_level and t:
            b = values.get(t[0], 0)
        else:
            continue
        if 0x80 <= b < 0xC0:
            out.append(i)
    return out


def _random_texts(n: int, seed: int, longest: int = 40) -> list[str]:
    rng = random.Random(seed)
    pool = "".join(F.short_texts(300, seed)) + "😀🇩🇪\u0301\u200d\ufe0f\u3000\t\r\n\x00\x1f\ufffd\ud83d"
    pool += "".join(chr(c) for c in rng.sample(range(0x20, 0x3000), 400))
    out = []
    for _ in range(n):
        k = rng.randrange(0, longest)
        out.append("".join(rng.choice(pool) for _ in range(k)))
    return out


@functools.cache
def _texts() -> list[str]:
    # Short texts keep the run quick; most words still come in context, and the long ones
    # (120 characters) reach the long-word paths (WordPiece's limit, BPE's heap).
    return F.short_texts(N_REAL, seed=1, lengths=(3, 8, 16, 40, 120)) + _random_texts(N_RANDOM, seed=2) + REGRESSIONS


def test_ids_counts_and_offsets_match_hf(family):
    name, js, mine, ref = family
    texts = _texts()
    want = ref.encode_batch([F.for_hf(t) for t in texts])
    bad = [text for text, enc in zip(texts, want) if not _matches_hf(mine, text, enc)]
    assert not bad, f"{name}: {len(bad)} of {len(texts)} texts differ from HF, e.g. {bad[:3]!r}"
    assert len(texts) >= 10_000
    # The caches learn as they go (characters, words): a fresh tokenizer that meets texts
    # in another order must agree with the one that has seen them all.
    fresh = load_tokenizer(js)
    some = texts[::-25]
    assert [list(fresh.offsets(t)) for t in some] == [list(mine.offsets(t)) for t in some], name
    assert [fresh.encode(t) for t in some] == [mine.encode(t) for t in some], name


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=_TEXT)
def test_hypothesis_texts_match_hf(family, text):
    name, _, mine, ref = family
    enc = ref.encode(F.for_hf(text))
    assert mine.encode(text) == enc.ids, name
    assert _matches_hf(mine, text, enc), name


def test_hf_precompiled_offset_shift_is_what_the_tests_allow():
    """The one place our offsets may differ from HF's: HF shifts them after leading
    characters its Precompiled normalizer removes (see _hf_offsets_sound)."""
    js = F.unigram_precompiled()
    tok, enc = load_tokenizer(js), F.reference(js).encode("\x08\x08ab cd")
    assert F.starts(enc) == [0, 2, 4]  # a, the space before c, d: each two early
    assert list(tok.offsets("\x08\x08ab cd")) == [2, 4, 6]
    assert not _hf_offsets_sound(tok, "\x08\x08ab cd") and _hf_offsets_sound(tok, "ab cd")


def _check_contract(tok, doc: str, rng: random.Random) -> None:
    mid: list[int] = []
    offs = tok.offsets(doc, mid_chars=mid)
    assert list(offs) == sorted(offs)
    assert len(offs) == tok.count(doc) - tok.specials
    bounds = [p for p in range(len(doc) + 1) if tok.boundary_at(doc, p)]
    assert bounds[0] == 0 and bounds[-1] == len(doc)
    for _ in range(12):
        a, b = sorted(rng.sample(bounds, 2)) if len(bounds) > 1 else (0, len(doc))
        derived = bisect.bisect_left(offs, b) - bisect.bisect_left(offs, a)
        assert tok.count(doc[a:b]) - tok.specials == derived, (a, b, doc[a:b])
    for _ in range(5):
        s = rng.randrange(len(doc) + 1)
        e = rng.randrange(s, len(doc) + 1)
        fb = tok.first_boundary(doc, s, e)
        assert fb == next((p for p in bounds if s <= p < e), None)
        lb = tok.last_boundary(doc, s, e)
        assert lb == next((p for p in reversed(bounds) if s < p <= e), None)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_boundary_contract(family, data):
    _, _, mine, _ = family
    texts = F.short_texts(400, seed=3)
    parts = data.draw(st.lists(st.one_of(st.sampled_from(texts), _TEXT), min_size=1, max_size=6))
    doc = data.draw(st.sampled_from([" ", "\n", "", "  "])).join(parts)
    _check_contract(mine, doc, random.Random(data.draw(st.integers(0, 1 << 30))))


def test_boundaries_exist_where_components_allow(family):
    """Families whose components allow cuts must find some in real text (a contract that
    only holds because nothing is a boundary would prove nothing)."""
    name, _, mine, _ = family
    doc = F.passages()["english"][0]
    inner = [p for p in range(1, len(doc)) if mine.boundary_at(doc, p)]
    blocked = {
        "byte-fallback-bpe": "normalizer Prepend",  # every slice would gain its "▁"
        "bytelevel-bpe-falcon-digits": "pre-tokenizer Sequence",
    }  # Punctuation merges
    if name in blocked:
        assert not inner and any(b.startswith(blocked[name]) for b in mine.cut_blockers)
    else:
        assert len(inner) > 100, mine.cut_blockers
        _check_contract(mine, doc, random.Random(0))


@functools.cache
def _small_blocks(name: str):
    """A tokenizer of the family that cuts any text longer than a few words into blocks
    (a long document's path; a fresh one, so the module's `mine` keeps the default)."""
    tok = load_tokenizer(F.FAMILIES[name]())
    tok.block = 12
    return tok


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_text_encoded_in_blocks_matches_hf(family, data):
    """Ids, count, offsets and mid-character tokens of a text encoded in blocks are HF's for
    the whole text; a family whose components allow no boundary is encoded whole."""
    name, _, _, ref = family
    tok = _small_blocks(name)
    texts = F.short_texts(400, seed=7)
    parts = data.draw(st.lists(st.one_of(st.sampled_from(texts), _TEXT), min_size=2, max_size=8))
    doc = data.draw(st.sampled_from([" ", "\n", "  ", " \n"])).join(parts)
    spans = tok._blocks(doc)
    assert spans[0][0] == 0 and spans[-1][1] == len(doc)
    assert all(b == c for (_, b), (c, _) in zip(spans, spans[1:]))
    assert all(tok.boundary_at(doc, a) for a, _ in spans)
    if not tok._cut_ok:
        assert len(spans) == 1
    assert _matches_hf(tok, doc, ref.encode(F.for_hf(doc))), name


def test_long_documents_are_encoded_in_blocks(family):
    """A real passage set long enough is cut (where components allow), and still equals HF."""
    name, _, _, ref = family
    tok = _small_blocks(name)
    doc = "\n\n".join(F.passages()["english"][:4] + F.passages()["german"][:2])
    spans = tok._blocks(doc)
    assert (len(spans) > 20) == tok._cut_ok, (name, len(spans))
    assert _matches_hf(tok, doc, ref.encode(doc)), name


def test_real_minilm_reads_its_limit_and_ignores_truncation_and_padding():
    path = F.minilm_path()
    config = json.loads(path.read_text(encoding="utf-8"))
    assert config["truncation"]["max_length"] == 128  # the file enables truncation...
    tok = load_tokenizer(path)
    assert tok.model_max == 128 and tok.specials == 2 and tok.label.endswith("tokenizer.json") and tok.name.startswith("hf:")
    long = " ".join(F.passages()["english"][:3])
    ref = F.reference(path.read_text(encoding="utf-8"))
    assert tok.count(long) == len(ref.encode(long).ids) > 128  # ...which counting ignores


def test_truncation_and_padding_in_the_file_do_not_change_counts():
    config = json.loads(F.wordpiece(True))
    config["truncation"] = {"direction": "Right", "max_length": 7, "strategy": "LongestFirst", "stride": 0}
    config["padding"] = {
        "strategy": {"Fixed": 50},
        "direction": "Right",
        "pad_to_multiple_of": None,
        "pad_id": 0,
        "pad_type_id": 0,
        "pad_token": "[PAD]",
    }
    tok = load_tokenizer(json.dumps(config).encode())
    plain = load_tokenizer(F.wordpiece(True))
    text = F.passages()["german"][0]
    assert tok.model_max == 7
    assert tok.count(text) == plain.count(text) > 50
    assert plain.model_max is None


@pytest.mark.parametrize(
    "where, component, kind",
    [
        ("normalizer", {"type": "ByteLevel"}, "ByteLevel"),
        ("pre_tokenizer", {"type": "UnicodeScripts"}, "UnicodeScripts"),
        ("post_processor", {"type": "Fancy"}, "Fancy"),
        ("pre_tokenizer", {"type": "Split", "pattern": {"Regex": r"\p{Han}+"}, "behavior": "Isolated", "invert": False}, "Han"),
    ],
)
def test_unsupported_component_is_one_clear_line(where, component, kind):
    config = json.loads(F.wordpiece(True))
    config[where] = component
    with pytest.raises(ChunkerError) as e:
        load_tokenizer(json.dumps(config))
    msg = str(e.value)
    assert "\n" not in msg and kind in msg


def test_model_type_unsupported():
    with pytest.raises(ChunkerError, match="WordLevel"):
        load_tokenizer('{"model": {"type": "WordLevel", "vocab": {}}}')


def test_bad_sources_are_clear(tmp_path):
    with pytest.raises(ChunkerError, match="cannot read"):
        load_tokenizer(tmp_path / "missing.json")
    (tmp_path / "x.json").write_text("{not json")
    with pytest.raises(ChunkerError, match="not valid JSON"):
        load_tokenizer(tmp_path / "x.json")


def test_precompiled_trie_lookup_is_faithful():
    """The double-array walk finds what sentencepiece's nmt_nfkc maps (full-width letters,
    compatibility forms), shortest key first."""
    tok = load_tokenizer(F.unigram_precompiled())
    pre = tok.normalizer.parts[0]
    assert pre.transform("Ａ") == "A"
    assert pre.transform("ｱ") == "ア"
    assert pre.transform("a") is None
    ref = F.reference(F.unigram_precompiled())
    for s in ["Ａ\u0301", "ｶﾞ", "①②", "e\u0301\u0302x", "\r\n", "ﬁ", "\u200dＡ"]:
        assert tok.normalizer.text(s) == ref.normalizer.normalize_str(s), repr(s)


def test_lone_surrogates_count_as_replacement_characters():
    tok = load_tokenizer(F.bytelevel_bpe())
    assert tok.encode("a\ud800b") == tok.encode("a\ufffdb")
    assert len(tok.offsets("a\ud800b")) == tok.count("a\ud800b") - tok.specials


def test_the_package_imports_without_third_party_modules():
    import subprocess

    code = (
        "import sys, chunker.tokens._hf; "
        "bad = [m for m in ('tokenizers', 'sentencepiece', 'numpy') if m in sys.modules]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=str(F.ROOT))


def test_nfkc_composes_a_mark_with_the_ascii_letter_before_it():
    """The two anthropic texts in REGRESSIONS, in small: NFKC turns s + U+0341 into one
    character, which offsets() must align with the s."""
    tok = load_tokenizer(F.claude_path())
    assert tok.normalizer.aligned("s\u0341 x") == ("\u015b x", [0, 2, 3])
    # Reordered marks that compose: the segment maps to its first character.
    assert tok.normalizer.aligned("ac\u0301\u0327d") == ("a\u1e09d", [0, 1, 4])
    ref = F.reference(F.claude_path().read_text(encoding="utf-8"))
    for text in REGRESSIONS[-2:]:
        enc = ref.encode(text)
        assert tok.encode(text) == enc.ids and tok.count(text) == len(enc.ids)
        assert list(tok.offsets(text)) == F.starts(enc)


def test_unicode_table_is_unicode_14():
    """chunker.tokens._hf._ucd holds Python 3.11's general categories (Unicode 14), so every Python
    that runs the package builds the same \\p{..} classes."""
    from chunker.tokens._hf import _ucd

    if unicodedata.unidata_version != _ucd.UNICODE_VERSION:
        pytest.skip(f"this Python has Unicode {unicodedata.unidata_version}; the table is {_ucd.UNICODE_VERSION}")
    assert _ucd.encode() == _ucd._RUNS


def test_unicode_normalizers_match_hf_on_marks_jamo_and_characters_hf_does_not_know():
    """NFC/NFD/NFKC/NFKD against HF's on strings of characters that compose, reorder or
    decompose, among them ones assigned after HF's Unicode 9.0 tables (U+0898 has a
    combining class in Unicode 14, not to HF; U+11938 decomposes in 14; U+107A1 has a
    compatibility form). The alignment must always cover the output."""
    from tokenizers import normalizers

    from chunker.tokens._hf._normalizers import Unicode

    chars = [
        chr(c)
        for c in (
            0x61,
            0x301,
            0x316,
            0x327,
            0x898,
            0x1100,
            0x1161,
            0x11A8,
            0xAC00,
            0x1EF4,
            0xFB1D,
            0x11930,
            0x11935,
            0x11938,
            0x107A1,
            0xAB69,
            0x1FBF0,
            0x1E2AE,
            0x1D15E,
            0x2167,
            0xFF76,
            0xFF9E,
        )
    ]
    rng = random.Random(7)
    for form in ("NFC", "NFD", "NFKC", "NFKD"):
        mine, ref = Unicode(form), getattr(normalizers, form)()
        for _ in range(2500):
            s = "".join(rng.choice(chars) for _ in range(rng.randrange(1, 7)))
            out, al = mine.aligned(s)
            assert out == mine.text(s) == ref.normalize_str(s), (form, ascii(s))
            assert al is None or (len(al) == len(out) and al == sorted(al) and al[-1] < len(s))


def _all_code_points() -> list[str]:
    return [chr(cp) for cp in range(0x110000) if not 0xD800 <= cp < 0xE000]


def test_strip_accents_and_unicode_normalizers_match_hf_on_every_code_point():
    """HF's StripAccents and NFC/NFD/NFKC/NFKD have Unicode 9.0 tables; ours must give HF's
    answer for every code point, whatever the running Python's Unicode (issue 29: U+0D3B
    kept by HF, removed by us; U+32FF and U+1F16C, of Unicode 12, left alone by HF's NFKC)."""
    from tokenizers import normalizers

    from chunker.tokens._hf._normalizers import StripAccents, Unicode

    chars = _all_code_points()
    everything = "".join(chars)
    assert StripAccents().text(everything) == normalizers.StripAccents().normalize_str(everything)
    assert StripAccents().aligned("a\u0d3b\u0301b")[0] == "a\u0d3bb"
    chars.remove("\n")
    for form in ("NFC", "NFD", "NFKC", "NFKD"):
        mine = Unicode(form)
        ref = getattr(normalizers, form)().normalize_str("\n".join(chars)).split("\n")
        bad = [f"U+{ord(c):04X}" for c, r in zip(chars, ref) if mine.text(c) != r]
        assert not bad, (form, len(bad), bad[:10])


def test_combining_marks_reorder_as_hf_orders_them():
    """Canonical reordering: marks HF's tables know reorder by combining class, marks
    assigned after Unicode 9.0 (U+0D3B, U+07FD) are starters to HF. Pairs and triples of
    every such mark and one known mark of each class."""
    from tokenizers import normalizers

    from chunker.tokens._hf._normalizers import Unicode
    from chunker.tokens._hf._unicode import unknown_to_hf_normalizers

    marks = [c for c in _all_code_points() if unicodedata.combining(c)]
    sel = [c for c in marks if unknown_to_hf_normalizers(c)]
    by_class = {unicodedata.combining(c): c for c in reversed(marks) if c not in sel}
    sel += list(by_class.values()) + ["\u0651", "\u0650", "\u1037", "\u103a"]
    assert "\u0d3b" in sel and "\u07fd" in sel
    texts = [f"a{x}{y}" for x in sel for y in sel]
    texts += [f"a{x}{y}{z}" for x in sel[::3] for y in sel for z in "\u0301\u0651"]
    for form in ("NFC", "NFD", "NFKC", "NFKD"):
        mine = Unicode(form)
        ref = getattr(normalizers, form)().normalize_str("\n".join(texts)).split("\n")
        bad = [ascii(t) for t, r in zip(texts, ref) if mine.text(t) != r]
        assert not bad, (form, len(bad), bad[:10])


def test_reordered_and_composed_marks_align_as_hf_aligns_them():
    """Issue 29: where NFC reorders marks (Arabic shadda + kasra, Burmese), HF hands out the
    original characters by position ("\u0628\u0651\u0650" is at 0, 1, 2), a composed mark's
    share goes to its starter, and an inserted character takes the last one consumed."""
    from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers

    from chunker.tokens._hf._normalizers import Unicode

    pool = (
        "\u0628\u062a\u0651\u0650\u064e\u1000\u1037\u103a\u102f\u1039aeD\u0301\u0316"
        "\u0327\u0323\u0307\u1e0b\u00e9\u0344\u0f73\u0f71\u0d3b\u07fd\u1100\u1161\u11a8 "
    )
    rng = random.Random(11)
    for form in ("NFC", "NFD", "NFKC", "NFKD"):
        ref = Tokenizer(models.WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
        ref.normalizer = getattr(normalizers, form)()
        ref.pre_tokenizer = pre_tokenizers.Split(Regex("."), "isolated")
        mine = Unicode(form)
        assert mine.aligned("\u0628\u0651\u0650")[1] in (None, [0, 1, 2])
        for _ in range(1500):
            s = "".join(rng.choice(pool) for _ in range(rng.randrange(1, 9)))
            out, al = mine.aligned(s)
            want = [a for a, _ in ref.encode(s).offsets]
            assert (list(range(len(out))) if al is None else al) == want, (form, ascii(s))


def test_real_and_trained_files_agree_with_hf_on_marks_hf_tables_know_otherwise():
    """Issue 29 on whole files: MiniLM's (Bert classes: U+1734 Mn, U+166D and U+111C9
    punctuation to HF) and a trained Unigram behind NFD + StripAccents, NFC or NFKC, on texts
    of marks that reorder (shadda + kasra, Burmese) or that HF's Unicode 9.0 does not know
    (U+0D3B): ids, counts and offsets."""
    js = F.minilm_path().read_text(encoding="utf-8")
    cases = [(js, ["a\u1734b", "x\u166dy", "q\U000111c9r", "\u0d3b", "\u1cf2a\u1734"])]
    base = json.loads(F.unigram_metaspace())
    rng = random.Random(5)
    pool = "\u0628\u062a\u0651\u0650\u064e\u064f \u1000\u1037\u103a\u102f\u1039 a\u0301\u0316e\u0d3b\u1e0b\u0323"
    texts = ["\u0d3b", "a\u0d3b b"] + ["".join(rng.choice(pool) for _ in range(rng.randrange(1, 30))) for _ in range(600)]
    for norm in (["NFD", "StripAccents"], ["NFC"], ["NFKC"]):
        config = dict(base, normalizer={"type": "Sequence", "normalizers": [{"type": n} for n in norm]})
        cases.append((json.dumps(config), texts))
    for js, sample in cases:
        tok, ref = load_tokenizer(js), F.reference(js)
        for text in sample:
            enc = ref.encode(text)
            assert tok.encode(text) == enc.ids and tok.count(text) == len(enc.ids), ascii(text)
            assert list(tok.offsets(text)) == F.starts(enc), ascii(text)


def test_bert_character_classes_match_hf_on_every_code_point():
    """BertNormalizer's Mn (strip_accents) and control (clean_text) tests and Bert's
    punctuation come from the `unicode_categories` crate (older than Unicode 9.0): ours must
    agree on every code point (U+1734 is Mn there; U+166D and U+111C9 are punctuation)."""
    from tokenizers import normalizers, pre_tokenizers

    from chunker.tokens._hf._normalizers import BertNormalizer, _DropMn
    from chunker.tokens._hf._pretokenizers import Bert

    chars = _all_code_points()
    chars.remove("\n")
    # strip_accents removes Mn after NFD: on the characters NFD leaves alone, Mn alone.
    alone = [c for c, r in zip(chars, normalizers.NFD().normalize_str("\n".join(chars)).split("\n")) if r == c]
    strip = normalizers.BertNormalizer(clean_text=False, handle_chinese_chars=False, strip_accents=True, lowercase=False)
    assert _DropMn().text("\n".join(alone)) == strip.normalize_str("\n".join(alone))
    clean = {"clean_text": True, "handle_chinese_chars": False, "strip_accents": False, "lowercase": False}
    text = "".join(chars)
    assert BertNormalizer(**clean).text(text) == normalizers.BertNormalizer(**clean).normalize_str(text)
    text = "x".join(chars)
    ref = [p for p, _ in pre_tokenizers.BertPreTokenizer().pre_tokenize_str(text)]
    assert Bert().split(text, True) == ref


_ASTRAL_TEXT = st.text(
    st.one_of(
        st.characters(blacklist_categories=("Cs",)),
        st.characters(min_codepoint=0x10000, blacklist_categories=("Cs",)),
        st.sampled_from(" \n'sé1!😀𐐷𝟙🄰\U000110bd"),
    ),
    max_size=30,
)


@settings(max_examples=300, deadline=None)
@given(text=_ASTRAL_TEXT)
def test_patterns_with_stand_ins_match_the_full_classes(text):
    """A pattern runs with characters above U+FFFF replaced by stand-ins below it (see
    _regex.Pattern): the matches must be those of the full classes, for the word regexes of
    real tokenizers and the covers of the built-in pre-tokenizers."""
    from chunker.tokens._hf import _pretokenizers, _regex

    patterns = [_regex.translate(p) for p in sorted(_pretokenizers._KNOWN_WORD_REGEXES)]
    patterns += [_regex.classes(f) for f in (_pretokenizers._bert_cover, _pretokenizers._whitespace_cover)]
    for p in patterns:
        want = [m.span() for m in p.full.finditer(text)]
        assert p.spans(text) == want, (p.source[:40], ascii(text))
        assert p.findall(text) == [text[a:b] for a, b in want]
        assert p.sub("<>", text) == p.full.sub("<>", text)


def test_metaspace_first_after_a_charsmap_that_removes_the_first_characters():
    """HF's Precompiled books the characters it removes at the start nowhere, so a text that
    starts with one (a control character nmt_nfkc drops) still starts the input for
    Metaspace's prepend_scheme "first" ("\\x07beep" is "▁be" "e" "p", not "be" "e" "p")."""
    config = json.loads(F.unigram_precompiled())
    config["pre_tokenizer"]["prepend_scheme"] = "first"
    js = json.dumps(config)
    tok, ref = load_tokenizer(js), F.reference(js)
    texts = ["\x07beep", "\x07\x07the dog", "\x07 beep", "\x08\x08ab cd", "the \x07dog"]
    texts += ["\x07" + t for t in F.short_texts(300, seed=6)] + F.short_texts(300, seed=5)
    for text in texts:
        enc = ref.encode(text)
        assert tok.encode(text) == enc.ids and tok.count(text) == len(enc.ids), ascii(text[:40])
        assert len(tok.offsets(text)) == len(enc.ids) - tok.specials
