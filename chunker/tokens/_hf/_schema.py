"""What a tokenizer.json may hold: every field of every component read, with the type HF's
serde gives it (a u32 id, a bool flag, a string), checked before anything is built.

HF `tokenizers` refuses a file whose field has the wrong type, is missing when its struct
has no default, or holds a number out of its type's range; so does this check, in one line
that names the field and its value. Components are then built from values known to be of
the right shape (nothing downstream meets a string where it expects an object).

>>> try:
...     check({"model": {"type": "WordPiece", "vocab": {"a": -1}, "unk_token": "a"}}, "t.json")
... except ChunkerError as e:
...     print(str(e)[:72])
t.json: model.vocab['a'] is -1, expected an integer from 0 to 4294967295
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..._errors import ChunkerError

# serde_json's recursion limit: HF refuses a file nested deeper.
MAX_DEPTH = 128
_U32 = (1 << 32) - 1
_USIZE = (1 << 64) - 1

Check = Callable[[Any, str], None]


class Bad(Exception):
    """A field that HF would refuse: where it is, and what was expected there."""

    def __init__(self, where: str, value: Any, expected: str) -> None:
        super().__init__(where, value, expected)
        self.where, self.value, self.expected = where, value, expected


def _shown(value: Any) -> str:
    if isinstance(value, dict):
        return "an object" if value else "an empty object"
    if isinstance(value, list):
        return "a list" if value else "an empty list"
    text = "null" if value is None else "true" if value is True else "false" if value is False else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _integer(top: int) -> Check:
    def check(v: Any, where: str) -> None:
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= top:
            raise Bad(where, v, f"an integer from 0 to {top}")

    return check


U32, USIZE = _integer(_U32), _integer(_USIZE)


def BOOL(v: Any, where: str) -> None:
    if not isinstance(v, bool):
        raise Bad(where, v, "true or false")


def STR(v: Any, where: str) -> None:
    if not isinstance(v, str):
        raise Bad(where, v, "a string")


def CHAR(v: Any, where: str) -> None:
    if not isinstance(v, str) or len(v) != 1:
        raise Bad(where, v, "a string of one character")


def FLOAT(v: Any, where: str) -> None:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise Bad(where, v, "a finite number")


def opt(inner: Check) -> Check:
    """null allowed (and, as a struct field, leaving it out)."""

    def check(v: Any, where: str) -> None:
        if v is not None:
            inner(v, where)

    check.optional = True  # type: ignore[attr-defined]
    return check


def default(inner: Check) -> Check:
    """May be left out (serde's default), but not null."""

    def check(v: Any, where: str) -> None:
        inner(v, where)

    check.optional = True  # type: ignore[attr-defined]
    return check


def listof(inner: Check) -> Check:
    def check(v: Any, where: str) -> None:
        if not isinstance(v, list):
            raise Bad(where, v, "a list")
        for k, x in enumerate(v):
            inner(x, f"{where}[{k}]")

    return check


def mapof(inner: Check) -> Check:
    def check(v: Any, where: str) -> None:
        if not isinstance(v, dict):
            raise Bad(where, v, "an object")
        for k, x in v.items():
            inner(x, f"{where}[{k!r}]")

    return check


def pair(a: Check, b: Check) -> Check:
    def check(v: Any, where: str) -> None:
        if not isinstance(v, list) or len(v) != 2:
            raise Bad(where, v, "a list of two items")
        a(v[0], f"{where}[0]")
        b(v[1], f"{where}[1]")

    return check


def one_of(*names: str) -> Check:
    def check(v: Any, where: str) -> None:
        if not isinstance(v, str) or v not in names:
            raise Bad(where, v, "one of " + ", ".join(names))

    return check


def either(expected: str, *checks: Check) -> Check:
    def check(v: Any, where: str) -> None:
        for c in checks:
            try:
                c(v, where)
                return
            except Bad:
                continue
        raise Bad(where, v, expected)

    return check


def struct(**fields: Check) -> Check:
    """An object with these fields; unknown fields are ignored, as serde does."""

    def check(v: Any, where: str) -> None:
        if not isinstance(v, dict):
            raise Bad(where, v, "an object")
        for name, c in fields.items():
            at = f"{where}.{name}" if where else name
            if name not in v:
                if not getattr(c, "optional", False):
                    raise Bad(at, _MISSING, "a value (the field is required)")
                continue
            c(v[name], at)

    return check


class _Missing:
    def __repr__(self) -> str:
        return "missing"


_MISSING = _Missing()


def tagged(kinds: dict[str, Check], what: str, untyped: Callable[[dict[str, Any]], str] | None = None) -> Check:
    """An object whose "type" names one of `kinds` (unknown types are left to the builders,
    which name what is supported)."""

    def check(v: Any, where: str) -> None:
        if not isinstance(v, dict):
            raise Bad(where, v, f'an object (a {what} with a "type")')
        kind = v.get("type")
        if kind is None and untyped is not None and "type" not in v:
            kind = untyped(v)
        if not isinstance(kind, str):
            raise Bad(f"{where}.type", v.get("type", _MISSING), f"the name of a {what}")
        c = kinds.get(kind)
        if c is not None:
            c(v, where)

    return check


def _recursive(get: Callable[[], Check]) -> Check:
    return lambda v, where: get()(v, where)


_PATTERN = either('{"String": ...} or {"Regex": ...}', struct(String=STR), struct(Regex=STR))
_BEHAVIOR = one_of("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous")

NORMALIZER: Check = tagged(
    {
        "BertNormalizer": struct(clean_text=BOOL, handle_chinese_chars=BOOL, strip_accents=opt(BOOL), lowercase=BOOL),
        "Strip": struct(strip_left=BOOL, strip_right=BOOL),
        "Replace": struct(pattern=_PATTERN, content=STR),
        "Prepend": struct(prepend=STR),
        "Precompiled": struct(precompiled_charsmap=opt(STR)),
        "Sequence": struct(normalizers=listof(_recursive(lambda: NORMALIZER))),
    },
    "normalizer",
)

PRE_TOKENIZER: Check = tagged(
    {
        "Metaspace": struct(
            replacement=CHAR,
            add_prefix_space=opt(BOOL),
            prepend_scheme=default(one_of("always", "first", "never")),
            split=opt(BOOL),
            str_rep=opt(STR),
        ),
        "ByteLevel": struct(add_prefix_space=BOOL, trim_offsets=BOOL, use_regex=default(BOOL)),
        "Split": struct(pattern=_PATTERN, behavior=_BEHAVIOR, invert=BOOL),
        "Punctuation": struct(behavior=default(_BEHAVIOR)),
        "Digits": struct(individual_digits=BOOL),
        "Sequence": struct(pretokenizers=listof(_recursive(lambda: PRE_TOKENIZER))),
    },
    "pre-tokenizer",
)

_PIECE = either(
    '{"Sequence": {"id": "A" or "B", "type_id": n}} or {"SpecialToken": {"id": name, "type_id": n}}',
    struct(Sequence=struct(id=one_of("A", "B"), type_id=U32)),
    struct(SpecialToken=struct(id=STR, type_id=U32)),
)

POST_PROCESSOR: Check = tagged(
    {
        "BertProcessing": struct(sep=pair(STR, U32), cls=pair(STR, U32)),
        "RobertaProcessing": struct(sep=pair(STR, U32), cls=pair(STR, U32)),  # HF reads its flags leniently
        "ByteLevel": struct(add_prefix_space=BOOL, trim_offsets=BOOL, use_regex=default(BOOL)),
        "TemplateProcessing": struct(
            single=listof(_PIECE), pair=listof(_PIECE), special_tokens=mapof(struct(id=STR, ids=listof(U32), tokens=listof(STR)))
        ),
        "Sequence": struct(processors=listof(_recursive(lambda: POST_PROCESSOR))),
    },
    "post-processor",
)

_VOCAB = mapof(U32)

MODEL: Check = tagged(
    {
        "BPE": struct(
            dropout=opt(FLOAT),
            unk_token=opt(STR),
            continuing_subword_prefix=opt(STR),
            end_of_word_suffix=opt(STR),
            fuse_unk=opt(BOOL),
            byte_fallback=opt(BOOL),
            ignore_merges=opt(BOOL),
            vocab=_VOCAB,
            merges=either('a list of merges, each "a b" or ["a", "b"]', listof(STR), listof(pair(STR, STR))),
        ),
        # HF also requires the two fields with defaults here; hand-written files leave them out.
        "WordPiece": struct(
            unk_token=STR, continuing_subword_prefix=default(STR), max_input_chars_per_word=default(USIZE), vocab=_VOCAB
        ),
        "Unigram": struct(vocab=listof(pair(STR, FLOAT)), unk_id=opt(USIZE), byte_fallback=default(BOOL)),
    },
    "model",
    untyped=lambda d: "Unigram" if isinstance(d.get("vocab"), list) else ("BPE" if "merges" in d else "WordPiece"),
)

_ADDED = struct(id=U32, content=STR, single_word=BOOL, lstrip=BOOL, rstrip=BOOL, normalized=BOOL, special=BOOL)

TOKENIZER: Check = struct(
    version=default(STR),
    truncation=opt(
        struct(
            direction=default(one_of("Left", "Right")),
            max_length=USIZE,
            strategy=one_of("LongestFirst", "OnlyFirst", "OnlySecond"),
            stride=USIZE,
        )
    ),
    padding=opt(
        struct(
            strategy=either('"BatchLongest" or {"Fixed": n}', one_of("BatchLongest"), struct(Fixed=USIZE)),
            direction=one_of("Left", "Right"),
            pad_to_multiple_of=opt(USIZE),
            pad_id=U32,
            pad_type_id=U32,
            pad_token=STR,
        )
    ),
    added_tokens=default(listof(_ADDED)),
    normalizer=opt(NORMALIZER),
    pre_tokenizer=opt(PRE_TOKENIZER),
    model=MODEL,
    post_processor=opt(POST_PROCESSOR),
    decoder=opt(tagged({}, "decoder")),
)


def depth_ok(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether no list or object lies more than `limit` deep (without recursion)."""
    stack = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            v = list(v.values())
        elif not isinstance(v, list):
            continue
        if d > limit:
            return False
        stack.extend((x, d + 1) for x in v if isinstance(x, (list, dict)))
    return True


def check(config: Any, name: str) -> None:
    """ChunkerError, one line, for the first field HF would refuse."""
    if not isinstance(config, dict):
        raise ChunkerError(
            f"{name} is not a tokenizer.json (it holds {_shown(config)}, not an "
            "object); pass the file Hugging Face's tokenizers saves"
        )
    if not depth_ok(config):
        raise ChunkerError(
            f"{name} is nested more than {MAX_DEPTH} levels deep, which Hugging "
            "Face's tokenizers refuses; pass a real tokenizer.json"
        )
    try:
        TOKENIZER(config, "")
    except Bad as e:
        value = "missing" if e.value is _MISSING else f"is {_shown(e.value)}"
        head = f"{e.where} is missing" if e.value is _MISSING else f"{e.where} {value}"
        raise ChunkerError(
            f"{name}: {head}, expected {e.expected} (as Hugging Face's tokenizers "
            "requires); fix the file, or pass one tokenizers saves"
        ) from None
