"""Damaged and hostile tokenizer.json files: each is one ChunkerError line, never a traceback
or a hang, and a file Hugging Face's `tokenizers` refuses is refused here too (checked against
`tokenizers` itself, on mutations of the real files of tests/hf_fixtures.py)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from hypothesis import example, given, reject, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hf_fixtures as F

from chunker import ChunkerError
from chunker.tokens._hf import load_tokenizer


def _hf_accepts(text: str | bytes) -> bool:
    try:
        tok = F.hf().Tokenizer.from_buffer(text) if isinstance(text, bytes) else F.hf().Tokenizer.from_str(text)
        tok.encode("Hello world, Größe 42.")
    except BaseException as e:  # HF also refuses by panicking (PanicException)
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        return False
    return True


def _refused(source) -> str:
    with pytest.raises(ChunkerError) as e:
        tok = load_tokenizer(source)
        tok.count("Hello world, Größe 42.")  # a refusal may only come at counting, as one line
    msg = str(e.value)
    assert "\n" not in msg and len(msg) < 400, msg
    return msg


def _wp(**changes) -> dict:
    config = json.loads(F.wordpiece(True))
    for path, value in changes.items():
        node = config
        keys = path.split("__")
        for k in keys[:-1]:
            node = node[int(k) if k.isdigit() else k]
        last = int(keys[-1]) if keys[-1].isdigit() else keys[-1]
        if value is _DELETE:
            del node[last]
        else:
            node[last] = value
    return config


_DELETE = object()


def _uni(mutate) -> dict:
    config = json.loads(F.unigram_precompiled())
    mutate(config)
    return config


def _set(path, value):
    def mutate(config):
        node = config
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = value

    return mutate


_SPLIT = {"type": "Split", "behavior": "Isolated", "invert": False}
# (what, the file's text, words the message names). Every one HF refuses too.
BAD = [
    ("not UTF-8", b"\xff\xfe{}", "UTF-8"),
    (
        "Latin-1 inside",
        json.dumps(_wp()).replace("[UNK]", "[UNK\u00e9]").encode("latin-1", "replace").replace(b"\\u00e9", b"\xe9"),
        "UTF-8",
    ),
    ("nested past Python's limit", '{"model": ' + "[" * 200_000 + "]" * 200_000 + "}", "nested"),
    (
        "nested past serde's limit",
        json.dumps(_wp(decoder={"type": "Sequence", "decoders": [[[[]]]]})).replace("[[[[]]]]", "[" * 200 + "]" * 200),
        "nested",
    ),
    ("a top-level list", "[]", "not a tokenizer.json"),
    ("a normalizer given as a string", _wp(normalizer="NFC"), "normalizer"),
    ("a pre-tokenizer given as a list", _wp(pre_tokenizer=[]), "pre_tokenizer"),
    ("a post-processor's sep as a string", _wp(post_processor__sep="[SEP]"), "post_processor.sep"),
    ("an unclosed \\x{ escape", _wp(pre_tokenizer=dict(_SPLIT, pattern={"Regex": r"\x{41"})), "x{"),
    ("bad base64", _uni(_set(("normalizer", "normalizers", 0, "precompiled_charsmap"), "!!!")), "base64"),
    ("base64 of nothing", _uni(_set(("normalizer", "normalizers", 0, "precompiled_charsmap"), "QQ==")), "short"),
    ("a negative id", _wp(added_tokens__0__id=-1), "added_tokens[0].id is -1"),
    ("a float id", _wp(added_tokens__0__id=1.5), "added_tokens[0].id is 1.5"),
    ("a string id", _wp(added_tokens__0__id="3"), "added_tokens[0].id is '3'"),
    ("an id past u32", _wp(added_tokens__0__id=1 << 40), "added_tokens[0].id"),
    ("an added token without content", _wp(added_tokens__0__content=_DELETE), "content is missing"),
    ("an added token's flag as 1", _wp(added_tokens__0__special=1), "special"),
    (
        "truncation.max_length -1",
        _wp(truncation={"direction": "Right", "max_length": -1, "strategy": "LongestFirst", "stride": 0}),
        "max_length is -1",
    ),
    ("a vocabulary id that is negative", _wp(model__vocab__hello=-5), "model.vocab['hello'] is -5"),
    ("a vocabulary given as a list", _wp(model__vocab=[1, 2]), "model.vocab"),
    ("NaN scores", json.dumps(_uni(lambda c: [e.__setitem__(1, float("nan")) for e in c["model"]["vocab"]])), "NaN"),
    ("an infinite score", json.dumps(_uni(_set(("model", "vocab", 5, 1), float("-inf")))), "Infinity"),
    ("a score past float", json.dumps(_uni(lambda c: None)).replace('"<unk>", 0.0', '"<unk>", 1e999'), "finite"),
    ("a score as a string", _uni(_set(("model", "vocab", 5, 1), "-3.5")), "model.vocab[5][1]"),
    ("unk_id -1", _uni(_set(("model", "unk_id"), -1)), "unk_id"),
    ("a Metaspace replacement of two characters", _uni(_set(("pre_tokenizer", "replacement"), "__")), "replacement"),
    (
        "a Split behaviour that does not exist",
        _wp(pre_tokenizer=dict(_SPLIT, pattern={"String": " "}, behavior="Sideways")),
        "behavior",
    ),
    ("a template item of the wrong shape", _uni(_set(("post_processor", "single"), [{"Sequence": "A"}])), "single[0]"),
    (
        "merges as an object",
        json.dumps(dict(json.loads(F.bytelevel_bpe()), model=dict(json.loads(F.bytelevel_bpe())["model"], merges={"a": "b"}))),
        "merges",
    ),
    ("no model", _wp(model=_DELETE), 'no "model"'),
    ("a model that is a number", _wp(model=7), "model"),
]


@pytest.mark.parametrize("what, source, needle", BAD, ids=[b[0] for b in BAD])
def test_a_bad_file_is_one_line_and_hf_refuses_it_too(what, source, needle, tmp_path):
    if isinstance(source, dict):
        source = json.dumps(source)
    data = source if isinstance(source, bytes) else source.encode("utf-8")
    assert not _hf_accepts(data), what
    path = tmp_path / "tokenizer.json"
    path.write_bytes(data)
    for source_given in (path, data):
        assert needle in _refused(source_given), what


# A file picked by mistake: a model's config.json, a text file, one or many megabytes of it.
WRONG_FILES = [
    (
        "config.json",
        '{"architectures": ["BertModel"], "hidden_size": 768}',
        'config.json is not a tokenizer.json (it has no "model"): pick the tokenizer.json of your model\'s folder',
    ),
    ("notes.txt", "Some notes, not JSON at all.\n" * 2_000, "notes.txt is not a tokenizer.json"),
    ("big.txt", "x" * 1_000_000, "big.txt is not a tokenizer.json"),
    ("list.json", "[1, 2]", "list.json is not a tokenizer.json"),
]


@pytest.mark.parametrize("name, text, said", WRONG_FILES, ids=[w[0] for w in WRONG_FILES])
def test_a_wrong_file_is_one_short_line_naming_it(name, text, said):
    import chunker

    with pytest.raises(ChunkerError) as e:
        chunker.load_tokenizer(text, name=name)
    msg = str(e.value)
    assert msg.startswith(said) and "\n" not in msg and len(msg) < 200, msg[:300]


def _paths(node, path=()):
    """Every place in a config, but only the first entries of long lists and maps."""
    if path:
        yield path
    items = list(node.items()) if isinstance(node, dict) else list(enumerate(node)) if isinstance(node, list) else []
    for k, v in items[:2] if len(items) > 12 else items:
        yield from _paths(v, (*path, k))


# Fields HF requires that this reader lets a hand-written file leave out (HF's own defaults).
LENIENT = {("model", "continuing_subword_prefix"), ("model", "max_input_chars_per_word")}


@pytest.mark.parametrize("name", ["wordpiece-lower", "unigram-precompiled"])
def test_mutated_files_never_end_in_a_traceback_and_what_hf_refuses_is_refused(name):
    """A fuzz of the loader: every field of a real file deleted or given a wrong type
    (null, a negative, a float, a string, an object, a number past u64)."""
    base = json.loads(F.FAMILIES[name]())
    values = [_DELETE, None, -1, 1.5, "x", {}, 1 << 70]
    lenient = []
    for path in _paths(base):
        node = base
        for k in path[:-1]:
            node = node[k]
        for value in values:
            if value is _DELETE and not isinstance(node, dict):
                continue
            # The one field changed in place, written out, and put back as it was (a copy of
            # the whole file per mutation took most of the test's time).
            was = node[path[-1]]
            kept = list(node.items()) if value is _DELETE else None  # its keys' order, for after
            if value is _DELETE:
                del node[path[-1]]
            else:
                node[path[-1]] = value
            text = json.dumps(base)
            if kept is not None:
                node.clear()
                node.update(kept)
            else:
                node[path[-1]] = was
            try:
                tok = load_tokenizer(text)
                tok.count("Hello world, Größe 42.")
            except ChunkerError as e:
                assert "\n" not in str(e), (path, value)
                continue
            if not _hf_accepts(text):
                lenient.append((path[-2:], value is _DELETE))
    assert {p for p, deleted in lenient if deleted} <= LENIENT and not [p for p, d in lenient if not d], lenient


def test_a_file_hf_accepts_still_counts_as_hf_does_after_the_checks():
    for name in ("real-minilm", "unigram-precompiled", "byte-fallback-bpe"):
        js = F.FAMILIES[name]()
        tok, ref = load_tokenizer(js), F.reference(js)
        for text in F.short_texts(50, seed=3):
            assert tok.encode(text) == ref.encode(text).ids, (name, text)


# ------------------------------------------------------------------ regexes

CATASTROPHIC = [r"(a+)+$", r"(a|aa)*b", r"(?:\w+\s?)*$", r"((ab)*c?)+x"]


@pytest.mark.parametrize("pattern", CATASTROPHIC)
def test_a_regex_with_catastrophic_backtracking_is_refused(pattern):
    split = _wp(pre_tokenizer=dict(_SPLIT, pattern={"Regex": pattern}))
    replace = _wp(normalizer={"type": "Replace", "pattern": {"Regex": pattern}, "content": " "})
    for config in (split, replace):
        msg = _refused(json.dumps(config))
        assert "exponential time" in msg and "atomic" in msg


def test_atomic_and_possessive_forms_and_real_patterns_pass():
    from chunker.tokens._hf import _pretokenizers, _regex

    for p in [
        *_pretokenizers._KNOWN_WORD_REGEXES,
        F.LLAMA3_SPLIT,
        " {2,}",
        r"(?>a+)+$",
        r"(a++)+$",
        r"(a|b)?c+",
        r"(?i:'s|'t|'re)?",
        r"[(+]+",
        r"\(a+\)+",
    ]:
        _regex.check_backtracking(p)
    config = _wp(pre_tokenizer=dict(_SPLIT, pattern={"Regex": r"(?>a+)+$"}))
    tok = load_tokenizer(json.dumps(config))
    text = "a" * 30 + "b"
    assert tok.encode(text) == F.reference(json.dumps(config)).encode(text).ids


def test_a_catastrophic_regex_is_one_line_in_the_cli_and_the_page(tmp_path):
    from app import worker
    from chunker.cli._main import run

    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(_wp(pre_tokenizer=dict(_SPLIT, pattern={"Regex": r"(a+)+$"}))), encoding="utf-8")
    doc = tmp_path / "doc.txt"
    doc.write_text("a" * 30 + "b", encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert run([str(doc), "--tokenizer", str(path)], None, out, err) == 2
    assert "exponential time" in err.getvalue() and err.getvalue().count("\n") == 1 and not out.getvalue()
    view = worker.use_tokenizer({"text": path.read_text(encoding="utf-8")}, "evil.json")
    assert view["ok"] is False and "exponential time" in view["error"] and "\n" not in view["error"]


@pytest.mark.parametrize("pattern, text", [("x*", "abxc"), ("", "abc"), ("a?", "aab a"), (r"\s*", "a  b")])
def test_empty_matches_are_skipped_where_oniguruma_skips_them(pattern, text):
    from tokenizers import Regex, normalizers

    from chunker.tokens._hf._normalizers import Replace

    ours, ref = Replace({"Regex": pattern}, "#"), normalizers.Replace(Regex(pattern), "#")
    out, al = ours.aligned(text)
    assert ours.text(text) == out == ref.normalize_str(text)  # (HF's encode panics on these)
    assert al is None or len(al) == len(out)


def test_a_template_without_its_sequence_is_refused():
    """HF drops the text there; this reader refuses the file rather than count nothing."""
    config = _uni(_set(("post_processor", "single"), [{"SpecialToken": {"id": "<s>", "type_id": 0}}]))
    assert "no sequence" in _refused(json.dumps(config))


# ------------------------------------------------------------------ BPE dropout


def test_bpe_dropout_is_refused_unless_null_or_zero():
    config = json.loads(F.bytelevel_bpe())
    for dropout in (0.1, 1.0):
        config["model"]["dropout"] = dropout
        assert "dropout" in _refused(json.dumps(config))
    for dropout in (None, 0, 0.0):
        config["model"]["dropout"] = dropout
        js = json.dumps(config)
        text = "Hello world, the dropout is off."
        assert load_tokenizer(js).encode(text) == F.reference(js).encode(text).ids


# ------------------------------------------------------------------ long tokens


def _long_token_files(length: int) -> dict[str, str]:
    """WordPiece and Unigram files with tokens longer than the prefix set holds (tokens that
    share long prefixes, one of them `length` characters), beside short ones."""
    long = ["ab" * (length // 2), "ab" * 20, "ab" * 20 + "c", "ab" * 13, "abac" * 9, "x" * 30 + "y"]
    short = ["a", "b", "c", "x", "y", "ab", "ba", "abc"]
    wp_vocab = {"[UNK]": 0, **{t: i + 1 for i, t in enumerate(short + long)}}
    wp_vocab.update({f"##{t}": len(wp_vocab) + i for i, t in enumerate(short + long[1:])})
    wordpiece = {
        "model": {
            "type": "WordPiece",
            "unk_token": "[UNK]",
            "continuing_subword_prefix": "##",
            "vocab": wp_vocab,
            "max_input_chars_per_word": length + 50,
        },
        "pre_tokenizer": {"type": "Whitespace"},
    }
    pieces = [["<unk>", 0.0]] + [[t, -len(t) / 3 - 1.0] for t in short] + [[t, -2.0 - i] for i, t in enumerate(long)]
    unigram = {"model": {"type": "Unigram", "unk_id": 0, "vocab": pieces}, "pre_tokenizer": {"type": "Whitespace"}}
    return {"wordpiece": json.dumps(wordpiece), "unigram": json.dumps(unigram)}


@pytest.mark.parametrize("kind", ["wordpiece", "unigram"])
def test_long_tokens_are_found_as_hf_finds_them_in_memory_linear_in_the_file(kind):
    """Past the prefixes kept in a set, a token's longer prefixes are found by bisection: the
    same ids as HF, for texts that follow long tokens to their end, stop one short, or go past."""
    js = _long_token_files(3000)[kind]
    tok, ref = load_tokenizer(js), F.reference(js)
    texts = [
        "ab" * 1500, "ab" * 1499 + "a", "ab" * 1500 + "abab", "ab" * 20 + "c", "ab" * 20 + "cab", "ab" * 19 + "a",
        "abac" * 9 + "ab", "abac" * 8 + "ab", "x" * 30 + "y", "x" * 30, "x" * 31 + "y", "ab" * 13 + "c abab xyx",
    ]  # fmt: skip
    for text in texts:
        assert tok.encode(text) == ref.encode(text).ids, text[:60]


@pytest.mark.parametrize("kind", ["wordpiece", "unigram"])
def test_one_long_token_costs_memory_linear_in_its_length(kind):
    """Every prefix of a 200,000-character token in one set would be 20 GB of strings; the
    prefixes kept are bounded by a multiple of the file's own size."""
    from chunker.tokens._hf._models import _SHORT

    js = _long_token_files(200_000)[kind]
    tok = load_tokenizer(js)
    prefixes = [getattr(tok.model, a) for a in ("_ext", "_cont_ext", "extends") if hasattr(tok.model, a)]
    assert prefixes and tok.count("ab" * 100) > 0
    for p in prefixes:
        assert sum(map(len, p.short)) <= _SHORT * len(js)


# ------------------------------------------------------------------ added tokens that strip


def _stripping_added_tokens() -> str:
    def added(i, content, **flags):
        return {"id": i, "content": content, "single_word": False, "normalized": False, "special": True,
                "lstrip": flags.get("lstrip", False), "rstrip": flags.get("rstrip", False)}  # fmt: skip

    return json.dumps(
        {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": [
                added(3, "\n", lstrip=True, rstrip=True),
                added(4, "<a>", rstrip=True),
                added(5, "  ", lstrip=True),
                added(6, "<b>", lstrip=True),
            ],
            "normalizer": None,
            "pre_tokenizer": {"type": "WhitespaceSplit"},
            "post_processor": None,
            "decoder": None,
            "model": {
                "type": "WordPiece",
                "unk_token": "[UNK]",
                "continuing_subword_prefix": "##",
                "max_input_chars_per_word": 100,
                "vocab": {"[UNK]": 0, "x": 1, "y": 2},
            },  # fmt: skip
        }
    )


@settings(max_examples=300)
@given(st.lists(st.sampled_from(["\n", " ", "  ", "<a>", "<b>", "x", "y", "\t"]), max_size=12).map("".join))
@example("\n\nx")
@example("<a>  x")
def test_added_tokens_that_strip_whitespace_count_as_hf_counts(text):
    """A token whose match lies in whitespace the token before took with its rstrip makes an
    empty split, which HF drops: it is no token here either."""
    js = _stripping_added_tokens()
    try:
        expected = F.reference(js).encode(text).ids
    except BaseException as e:  # pyo3's PanicException: HF 0.23 panics on some ("AddedVocabulary bad split")
        if "bad split" not in str(e):
            raise
        reject()
    assert load_tokenizer(js).encode(text) == expected


# ------------------------------------------------------------------ Metaspace "first" in a sequence


def _metaspace_after(split: dict, *, split_words: bool) -> str:
    pieces = [["<unk>", 0.0], ["▁", -2.0], ["▁hi", -1.0], ["hi", -1.5], ["h", -3.0], ["i", -3.0], ["a", -3.0], ["▁a", -1.2]]
    metaspace = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": split_words}
    return json.dumps(
        {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": [],
            "normalizer": None,
            "pre_tokenizer": {"type": "Sequence", "pretokenizers": [split, metaspace]},
            "post_processor": None,
            "decoder": None,
            "model": {"type": "Unigram", "unk_id": 0, "vocab": pieces},
        }
    )


_REMOVING = [
    {"type": "WhitespaceSplit"},
    {"type": "Split", "pattern": {"String": " "}, "behavior": "Removed", "invert": False},
    {"type": "Whitespace"},
]


@settings(max_examples=200)
@given(
    st.lists(st.sampled_from([" ", "  ", "hi", "a", "\t", "\n", "▁"]), max_size=8).map("".join),
    st.sampled_from(_REMOVING),
    st.booleans(),
)
@example(" hi", {"type": "WhitespaceSplit"}, True)
@example("  hi", _REMOVING[1], False)
def test_metaspace_first_after_a_split_that_drops_the_leading_space_prepends_as_hf_does(text, split, split_words):
    """HF's "first" is the word at the input's offset 0: a text that opens with whitespace a
    split removes has no such word, and nothing is prepended."""
    js = _metaspace_after(split, split_words=split_words)
    tok = load_tokenizer(js)
    assert tok.encode(text) == F.reference(js).encode(text).ids
    assert tok.count(text) == len(F.reference(js).encode(text).ids)


def test_added_tokens_take_ids_after_every_piece_of_a_unigram_list_a_piece_given_twice_included():
    """HF numbers the added tokens from the length of the model's list of pieces: a piece listed
    twice still takes an id there, and the next added token comes after it."""
    pieces = [["<unk>", 0.0], ["a", -1.0], ["a", -1.5], ["b", -1.0]]
    js = json.dumps(
        {
            "version": "1.0", "truncation": None, "padding": None, "normalizer": None, "post_processor": None, "decoder": None,
            "added_tokens": [{"id": 4, "content": "<x>", "single_word": False, "lstrip": False, "rstrip": False,
                              "normalized": False, "special": True}],
            "pre_tokenizer": {"type": "WhitespaceSplit"},
            "model": {"type": "Unigram", "unk_id": 0, "vocab": pieces},
        }
    )  # fmt: skip
    for text in ("b <x>", "a b <x> a"):
        assert load_tokenizer(js).encode(text) == F.reference(js).encode(text).ids


def _normalized(normalizer: dict) -> str:
    return json.dumps({"model": json.loads(F.wordpiece(True))["model"], "normalizer": normalizer})


def _replace(literal: str, content: str, regex: bool = False) -> dict:
    return {"type": "Replace", "pattern": {"Regex" if regex else "String": literal}, "content": content}


@pytest.mark.parametrize(
    "normalizer,needle",
    [
        # 10**8 times: this 730-byte file took 15.8 s and 4.4 GB to count 53 characters.
        ({"type": "Sequence", "normalizers": [_replace("a", "a" * 10)] * 8}, "100 times longer (with the steps before it)"),
        (_replace("a", "a" * 10_000), "10,000 times longer"),
        ({"type": "Sequence", "normalizers": [_replace("ab", "x" * 9)] * 3}, "20 times longer"),
        (_replace("x*", "y" * 20, regex=True), "21 times longer plus 20 characters"),
        ({"type": "Prepend", "prepend": "\u2581" * 2000}, "plus 2,000 characters"),
    ],
)
def test_normalizers_that_multiply_a_texts_length_are_refused_at_load(normalizer, needle):
    msg = _refused(_normalized(normalizer))
    assert needle in msg and ("normalizer Replace" in msg or "normalizer Prepend" in msg)
    assert "more than the 16 times plus 1,024 allowed" in msg


@pytest.mark.parametrize(
    "normalizer",
    [
        {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "\u2581"}, _replace(" ", "\u2581")]},
        {"type": "Sequence", "normalizers": [_replace("a", "a" * 4), _replace("b", "bbbb"), _replace("``", '"')]},
        _replace(" {2,}", " ", regex=True),
        _replace("a", "a" * 16),
    ],
)
def test_normalizers_within_the_bound_load_and_count_as_hf(normalizer):
    text = _normalized(normalizer)
    ours, theirs = load_tokenizer(text), F.hf().Tokenizer.from_str(text)
    for s in ["Hello world, Größe 42.", "a  bb ``quote'' " * 50, "aaaa" * 300]:
        assert ours.encode(s) == theirs.encode(s).ids


def test_chained_unicode_growth_is_stopped_while_normalizing():
    # Chinese padding puts a space on each side of a character; k of them chained make 2k + 1
    # characters of one. Fifteen (31 times) still count; sixteen (33 times) pass the 32 times
    # normalization may expand a text to, and stop with one line naming the step.
    bert = {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True, "lowercase": True}
    fifteen = _normalized({"type": "Sequence", "normalizers": [bert] * 15})
    assert load_tokenizer(fifteen).encode("\u4e2d" * 2000) == F.hf().Tokenizer.from_str(fifteen).encode("\u4e2d" * 2000).ids
    tok = load_tokenizer(_normalized({"type": "Sequence", "normalizers": [bert] * 16}))
    for count in (tok.count, tok.encode, tok.offsets):
        with pytest.raises(ChunkerError) as e:
            count("\u4e2d" * 2000)
        msg = str(e.value)
        assert "normalizer BertNormalizer turned 2,000 characters into 66,000" in msg and "\n" not in msg


def _charsmap(mutate_blob) -> str:
    """The real nmt_nfkc charsmap of unigram_precompiled with its replacement strings changed."""
    import base64

    config = json.loads(F.unigram_precompiled())
    step = config["normalizer"]["normalizers"][0]
    charsmap = base64.b64decode(step["precompiled_charsmap"])
    size = int.from_bytes(charsmap[:4], "little")
    step["precompiled_charsmap"] = base64.b64encode(charsmap[: 4 + size] + mutate_blob(charsmap[4 + size :])).decode()
    return json.dumps(config)


def test_a_charsmap_whose_replacements_multiply_a_text_is_refused_at_load():
    # Without its NULs every replacement runs to the end of the strings: each fullwidth letter
    # of a text became 31,451 characters before any cap saw the result, and a replacement of a
    # megabyte made a megabyte of every character. The real charsmap's longest is 18 (U+FDFA).
    real = _charsmap(lambda blob: blob)
    assert load_tokenizer(real).encode("Ｈｅｌｌｏ ﷺ") == F.hf().Tokenizer.from_str(real).encode("Ｈｅｌｌｏ ﷺ").ids
    for blob, needle in [
        (lambda b: b.replace(b"\x00", b"x") + b"\x00", "characters, more than the 32"),
        (lambda b: b + b"y" * 1_000_000 + b"\x00", "a replacement of 1,000,000 characters, more than the 32"),
        (lambda b: b + b"\xff\x00", "replacement strings are not UTF-8"),
    ]:
        msg = _refused(_charsmap(blob))
        assert needle in msg and "Precompiled normalizer" in msg, msg
