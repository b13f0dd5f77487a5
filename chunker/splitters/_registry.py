"""The registry of framework splitter classes the `splitter` setting accepts.

One `SplitterClass` per framework class: its framework and name, the modules it is imported
from (an import line pasted with the call tells two classes of the same name apart), its
constructors (the class itself and class methods such as ``from_language``), every parameter
with its default and its check, what it fixes of the run's settings, and the module of this
package that implements it (``split(text, call, tokenizer)``, imported when first used).

A parameter's check receives the literal the user wrote (already read by `ast.literal_eval`,
or a dotted name such as ``Language.PYTHON`` as the string ``"Language.PYTHON"``) and returns
its canonical value, or raises `ChunkerError` in one line naming it and saying what it takes.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._errors import ChunkerError, shown
from ..strategies._languages import LANGUAGES
from ..tokens._hf._regex import check_backtracking

__all__ = [
    "Param",
    "Constructor",
    "SplitterClass",
    "SPLITTERS",
    "FRAMEWORKS",
    "register_splitter",
    "classes_named",
    "Checked",
]

FRAMEWORKS: dict[str, str] = {"langchain": "LangChain", "llama_index": "LlamaIndex"}
"""Framework keys (the prefix a pasted line may carry, ``langchain:``) and their names."""

Checked = Callable[[Any, str], Any]
"""A check: (the value as written, the parameter's name) -> the canonical value."""


class Expression(str):
    """A parameter written as any expression, kept as its source text and never evaluated
    (``from_huggingface_tokenizer(tokenizer, ...)``'s tokenizer: the run's tokenizer setting
    stands for it)."""


@dataclass(frozen=True)
class Param:
    """One parameter: its name, default, check and what it takes (said in errors)."""

    name: str
    default: Any
    check: Checked
    takes: str
    names: tuple[str, ...] = ()
    """Dotted names the user may write for it (``Language.PYTHON``), handed to `check` as text."""
    expression: bool = False
    """Any expression is taken, as its source text (see `Expression`)."""


@dataclass(frozen=True)
class Constructor:
    """How the class is made: ``""`` is the class called itself, else a class method's name;
    `params` are the method's own (before the class's keyword arguments), `positional` the names
    that may be given by position, in order."""

    name: str = ""
    params: tuple[Param, ...] = ()
    positional: tuple[str, ...] = ()
    excluded: tuple[str, ...] = ()
    """Class parameters this constructor sets itself (``from_language``'s separators)."""


@dataclass(frozen=True)
class SplitterClass:
    """A framework class the `splitter` setting accepts."""

    framework: str
    name: str
    module: str
    """The module of chunker/splitters/ holding ``split(text, call, tokenizer, *, metadata)``
    (`metadata`: see `chunker.splitters.splitter_spans`)."""
    imports: tuple[str, ...]
    """Module paths it is imported from; an import line from any of them names this class."""
    params: tuple[Param, ...]
    constructors: tuple[Constructor, ...] = (Constructor(),)
    positional: tuple[str, ...] = ()
    check: Callable[[Mapping[str, Any], str], None] | None = field(default=None, repr=False, compare=False)
    """Checks across parameters (overlap against size), given every value and the constructor."""
    implies: Callable[[Mapping[str, Any], str], dict[str, Any]] | None = field(default=None, repr=False, compare=False)
    """The run's settings this call fixes (strategy, unit, size, overlap, tokenizer, min_size)."""
    description: str = ""
    usage: str = "chunks = splitter.split_text(text)"
    """The line that gets the chunk texts out of ``splitter`` for ``text`` (copy-as-code)."""

    @property
    def key(self) -> tuple[str, str]:
        return (self.framework, self.name)

    @property
    def label(self) -> str:
        return f"{FRAMEWORKS.get(self.framework, self.framework)}'s {self.name}"

    def constructor(self, name: str) -> Constructor:
        for c in self.constructors:
            if c.name == name:
                return c
        ways = ", ".join(f"{self.name}.{c.name}(...)" if c.name else f"{self.name}(...)" for c in self.constructors)
        raise ChunkerError(f"{self.name} has no constructor {name!r} here: supported are {ways}")

    def params_of(self, constructor: str) -> dict[str, Param]:
        """Every parameter the constructor takes, by name: its own, then the class's."""
        c = self.constructor(constructor)
        found = {p.name: p for p in c.params}
        for p in self.params:
            if p.name not in c.excluded:
                found.setdefault(p.name, p)
        return found

    def split(self, text: str, call: Any, tokenizer: Any, *, metadata: str | None = "") -> Any:
        module = importlib.import_module(f"{__package__}.{self.module}")
        return module.split(text, call, tokenizer, metadata=metadata)


SPLITTERS: dict[tuple[str, str], SplitterClass] = {}
"""Every supported class by (framework, class name), in the order errors list them."""


def register_splitter(kind: SplitterClass) -> SplitterClass:
    """Add a framework class (or replace the one of the same framework and name)."""
    if not isinstance(kind, SplitterClass):
        raise ChunkerError(f"register_splitter takes a SplitterClass, got {type(kind).__name__}")
    if not isinstance(kind.framework, str) or kind.framework not in FRAMEWORKS:
        raise ChunkerError(f"unknown framework {_shown(kind.framework)}: choose one of {', '.join(FRAMEWORKS)}")
    if not isinstance(kind.name, str) or not kind.name.isidentifier():
        raise ChunkerError(f"splitter class name {_shown(kind.name)} must be a Python identifier")
    SPLITTERS[kind.key] = kind
    return kind


def classes_named(name: str) -> list[SplitterClass]:
    """The registered classes called `name`, in every framework."""
    return [k for k in SPLITTERS.values() if k.name == name]


# ---------------------------------------------------------------- checks


def _shown(value: Any) -> str:
    return shown(value, 60)


def positive_int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ChunkerError(f"{name} must be a whole number above 0, got {_shown(value)}", field=name)
    return value


def non_negative_int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ChunkerError(f"{name} must be a whole number, 0 or more, got {_shown(value)}", field=name)
    return value


def boolean(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise ChunkerError(f"{name} must be True or False, got {_shown(value)}", field=name)
    return value


def one_of(*allowed: Any) -> Checked:
    def check(value: Any, name: str) -> Any:
        if isinstance(value, (list, dict, set)) or not any(type(value) is type(a) and value == a for a in allowed):
            raise ChunkerError(
                f"{name} {_shown(value)} is not supported: give one of {', '.join(map(repr, allowed))}", field=name
            )
        return value

    return check


def string(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise ChunkerError(f"{name} must be a string, got {_shown(value)}", field=name)
    return value


def strings(value: Any, name: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, (list, tuple)) or not all(isinstance(s, str) for s in value):
        raise ChunkerError(f"{name} must be a list of strings, got {_shown(value)}", field=name)
    return tuple(value)


def pattern_checked(pattern: str, name: str) -> None:
    """A separator taken as a regular expression compiles, and has no capturing group (the
    framework splits with the separator inside a group of its own, and a second group would
    shift what it joins back)."""
    try:
        groups = re.compile(pattern).groups
    except (re.error, RecursionError, OverflowError) as e:
        raise ChunkerError(f"{name} {_shown(pattern)} is not a valid regular expression: {e}", field=name) from None
    if groups:
        raise ChunkerError(f"{name} {_shown(pattern)} has a capturing group: write (?:...) instead of (...)", field=name)
    # The framework splits with Python's re, which has no time limit: a group that can match
    # the same text in more than one way backtracks exponentially ((?:a+)+$ takes most of a
    # minute on 29 characters). The screen tokenizer.json regexes go through; its message
    # speaks of tokenizer files, so it is said again here for a separator.
    try:
        check_backtracking(pattern)
    except ChunkerError:
        raise ChunkerError(
            f"{name} {_shown(pattern)} repeats a group that can match the same text in more than one "
            "way (a quantifier or | inside a group under * + or {n,m}), which can take exponential "
            "time on a short text: make the group atomic (?>...) or its quantifier possessive (*+, ++)",
            field=name,
        ) from None


LANGUAGE_NAMES: dict[str, str] = {f"Language.{n.upper()}": n for n in LANGUAGES}
"""``Language.PYTHON`` and the rest, as LangChain's enum names them, to our language names."""


def language(value: Any, name: str) -> str:
    # LangChain's Language is a str enum: "python" is taken as Language.PYTHON is.
    if isinstance(value, str) and value in LANGUAGE_NAMES:
        return LANGUAGE_NAMES[value]
    if isinstance(value, str) and value in LANGUAGES:
        return value
    if value in ("perl", "Language.PERL"):
        raise ChunkerError("LangChain has no separators for Language.PERL (it raises too): pick another language")
    raise ChunkerError(f"unknown language {_shown(value)}: choose one of {', '.join(LANGUAGE_NAMES)}", field=name)


def any_expression(value: Any, name: str) -> Any:
    return value


def listed(items: Sequence[str]) -> str:
    return ", ".join(items)


# ---------------------------------------------------------------- LangChain's classes

_LC_IMPORTS = ("langchain_text_splitters", "langchain.text_splitter", "langchain_text_splitters.character")

TIKTOKEN_ENCODINGS = {"o200k_base": "o200k", "cl100k_base": "cl100k"}
"""tiktoken encodings built in, and the tokenizer that counts them exactly."""

_MODELS = {
    "o1": "o200k_base",
    "o3": "o200k_base",
    "o4-mini": "o200k_base",
    "gpt-5": "o200k_base",
    "gpt-4.1": "o200k_base",
    "gpt-4o": "o200k_base",
    "gpt-4": "cl100k_base",
    "gpt-3.5-turbo": "cl100k_base",
    "gpt-3.5": "cl100k_base",
    "gpt-35-turbo": "cl100k_base",
    "davinci-002": "cl100k_base",
    "babbage-002": "cl100k_base",
    "text-embedding-ada-002": "cl100k_base",
    "text-embedding-3-small": "cl100k_base",
    "text-embedding-3-large": "cl100k_base",
}
_MODEL_PREFIXES = {
    "o1-": "o200k_base",
    "o3-": "o200k_base",
    "o4-mini-": "o200k_base",
    "gpt-5": "o200k_base",
    "gpt-4.5-": "o200k_base",
    "gpt-4.1-": "o200k_base",
    "chatgpt-4o-": "o200k_base",
    "gpt-4o-": "o200k_base",
    "gpt-4-": "cl100k_base",
    "gpt-3.5-turbo-": "cl100k_base",
    "gpt-35-turbo-": "cl100k_base",
    "ft:gpt-4o": "o200k_base",
    "ft:gpt-4": "cl100k_base",
    "ft:gpt-3.5-turbo": "cl100k_base",
    "ft:davinci-002": "cl100k_base",
    "ft:babbage-002": "cl100k_base",
}
"""tiktoken's own model table (tiktoken.model), for the models whose encoding is built in here."""


def encoding_for_model(model: str) -> str | None:
    """The encoding tiktoken's `encoding_for_model` picks, when it is one built in here."""
    if model in _MODELS:
        return _MODELS[model]
    return next((e for p, e in _MODEL_PREFIXES.items() if model.startswith(p)), None)


def _encoding(value: Any, name: str) -> str:
    if value not in TIKTOKEN_ENCODINGS:
        raise ChunkerError(
            f"encoding_name {_shown(value)} is not built in: give encoding_name='o200k_base' or 'cl100k_base'", field=name
        )
    return str(value)


def _model(value: Any, name: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or encoding_for_model(value) is None:
        raise ChunkerError(
            f"model_name {_shown(value)} has no encoding built in here: give a model counted in o200k_base or "
            "cl100k_base (gpt-4o, gpt-4.1, gpt-4, gpt-3.5-turbo, text-embedding-3-small ...), or encoding_name",
            field=name,
        )
    return value


def tiktoken_encoding_of(values: Mapping[str, Any]) -> str:
    """The encoding a tiktoken constructor counts in: the model's, else `encoding_name`."""
    model = values.get("model_name")
    if model is not None:
        found = encoding_for_model(model)
        assert found is not None
        return found
    return str(values["encoding_name"])


def _length_function(value: Any, name: str) -> str:
    if value != "len":
        raise ChunkerError(
            f"length_function={value} is not read: only len (characters) is; for tokens use "
            ".from_tiktoken_encoder(...) or .from_huggingface_tokenizer(...)",
            field=name,
        )
    return "len"


def _keep(value: Any, name: str) -> Any:
    return one_of(True, False, "start", "end")(value, name)


def _headers(value: Any, name: str) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, (list, tuple)) or not all(
        isinstance(h, (list, tuple)) and len(h) == 2 and all(isinstance(x, str) for x in h) and h[0] for h in value
    ):
        raise ChunkerError(
            f"{name} must be a list of (marker, name) pairs such as [('#', 'Header 1'), ('##', 'Header 2')], got {_shown(value)}",
            field=name,
        )
    return tuple((h[0], h[1]) for h in value)


def _custom_headers(value: Any, name: str) -> tuple[tuple[str, int], ...] | None:
    if value is None:
        return None
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and k and isinstance(v, int) and not isinstance(v, bool) for k, v in value.items()
    ):
        raise ChunkerError(f"{name} must be a dict of marker to level such as {{'**': 1}}, got {_shown(value)}", field=name)
    return tuple(value.items())


_SIZE = (
    Param("chunk_size", 4000, positive_int, "a whole number above 0"),
    Param("chunk_overlap", 200, non_negative_int, "a whole number, 0 or more"),
    Param("length_function", "len", _length_function, "len", names=("len",)),
)
_COMMON = (
    Param("add_start_index", False, boolean, "True or False"),
    Param("strip_whitespace", True, boolean, "True or False"),
)
_TIKTOKEN = (
    Param("encoding_name", "gpt2", _encoding, "'o200k_base' or 'cl100k_base'"),
    Param("model_name", None, _model, "a model counted in o200k_base or cl100k_base"),
)
_FROM_TIKTOKEN = Constructor("from_tiktoken_encoder", _TIKTOKEN, positional=("encoding_name", "model_name"))
_FROM_HF = Constructor(
    "from_huggingface_tokenizer",
    (Param("tokenizer", None, any_expression, "your tokenizer (the tokenizer setting is used)", expression=True),),
    positional=("tokenizer",),
)


def _sizes(values: Mapping[str, Any], constructor: str) -> None:
    if constructor == "from_language" and values.get("language") is None:
        raise ChunkerError(
            "from_language needs a language (LangChain raises without one): write "
            "RecursiveCharacterTextSplitter.from_language(Language.PYTHON, chunk_size=..., chunk_overlap=...)",
            field="splitter",
        )
    size, overlap = values["chunk_size"], values["chunk_overlap"]
    if overlap > size:
        raise ChunkerError(
            f"chunk_overlap {overlap} is larger than chunk_size {size} (LangChain refuses it): give at most {size}",
            field="splitter",
        )
    if constructor == "from_tiktoken_encoder" and values.get("model_name") is None and values["encoding_name"] == "gpt2":
        raise ChunkerError(
            "from_tiktoken_encoder counts in gpt2 by default, which is not built in: give "
            "encoding_name='o200k_base' or 'cl100k_base', or a model_name",
            field="splitter",
        )
    for name in ("separators",):
        for sep in values.get(name) or ():
            if values.get("is_separator_regex"):
                pattern_checked(sep, "separator")
    if values.get("is_separator_regex") and isinstance(values.get("separator"), str):
        pattern_checked(values["separator"], "separator")


def _token_sizes(values: Mapping[str, Any], constructor: str) -> None:
    if values["chunk_overlap"] >= values["chunk_size"]:
        raise ChunkerError(
            f"chunk_overlap {values['chunk_overlap']} must be smaller than chunk_size {values['chunk_size']} "
            "for TokenTextSplitter (it raises otherwise)",
            field="splitter",
        )
    if values.get("model_name") is None and values["encoding_name"] == "gpt2":
        raise ChunkerError(
            "TokenTextSplitter counts in gpt2 by default, which is not built in: give "
            "encoding_name='o200k_base' or 'cl100k_base', or a model_name",
            field="splitter",
        )


def _sized(values: Mapping[str, Any], constructor: str) -> dict[str, Any]:
    out: dict[str, Any] = {
        "strategy": "langchain",
        "size": values["chunk_size"],
        "overlap": values["chunk_overlap"],
        "min_size": 0,
        "unit": "chars",
    }
    if constructor == "from_tiktoken_encoder":
        out.update(unit="tokens", tokenizer=TIKTOKEN_ENCODINGS[tiktoken_encoding_of(values)])
    elif constructor == "from_huggingface_tokenizer":
        out["unit"] = "tokens"  # counted by the tokenizer setting: the user's tokenizer.json
    return out


def _token_sized(values: Mapping[str, Any], constructor: str) -> dict[str, Any]:
    return {
        "strategy": "fixed",
        "unit": "tokens",
        "size": values["chunk_size"],
        "overlap": values["chunk_overlap"],
        "min_size": 0,
        "tokenizer": TIKTOKEN_ENCODINGS[tiktoken_encoding_of(values)],
    }


def _headers_given(values: Mapping[str, Any], constructor: str) -> None:
    if not values["headers_to_split_on"]:
        raise ChunkerError(
            "MarkdownHeaderTextSplitter needs headers_to_split_on, such as [('#', 'Header 1'), ('##', 'Header 2')]",
            field="splitter",
        )


def _headed(values: Mapping[str, Any], constructor: str) -> dict[str, Any]:
    return {"strategy": "markdown", "overlap": 0, "min_size": 0}


# Language.PERL is a name too: LangChain has the member but no separators for it, which
# `language` says.
_LANGUAGE = Param("language", None, language, "a Language", names=(*LANGUAGE_NAMES, "Language.PERL"))

for _kind in (
    SplitterClass(
        "langchain",
        "RecursiveCharacterTextSplitter",
        "langchain",
        _LC_IMPORTS,
        (
            Param("separators", None, strings, "a list of strings"),
            Param("keep_separator", True, _keep, "True, False, 'start' or 'end'"),
            Param("is_separator_regex", False, boolean, "True or False"),
            *_SIZE,
            *_COMMON,
        ),
        (
            Constructor(),
            Constructor("from_language", (_LANGUAGE,), ("language",), excluded=("separators", "is_separator_regex")),
            _FROM_TIKTOKEN,
            _FROM_HF,
        ),
        positional=("separators", "keep_separator", "is_separator_regex"),
        check=_sizes,
        implies=_sized,
        description="Cuts at the first separator found, again with the next for pieces still too long; packs pieces.",
    ),
    SplitterClass(
        "langchain",
        "CharacterTextSplitter",
        "langchain",
        _LC_IMPORTS,
        (
            Param("separator", "\n\n", string, "a string"),
            Param("is_separator_regex", False, boolean, "True or False"),
            Param("keep_separator", False, _keep, "True, False, 'start' or 'end'"),
            *_SIZE,
            *_COMMON,
        ),
        (Constructor(), _FROM_TIKTOKEN, _FROM_HF),
        positional=("separator", "is_separator_regex"),
        check=_sizes,
        implies=_sized,
        description="Cuts at one separator and packs the pieces; a piece longer than the size stays whole.",
    ),
    SplitterClass(
        "langchain",
        "TokenTextSplitter",
        "langchain",
        ("langchain_text_splitters", "langchain.text_splitter", "langchain_text_splitters.base"),
        (*_TIKTOKEN, *_SIZE[:2], *_COMMON),
        (Constructor(), _FROM_TIKTOKEN),
        positional=("encoding_name", "model_name"),
        check=_token_sizes,
        implies=_token_sized,
        description="Windows of chunk_size tokens, chunk_size - chunk_overlap apart, decoded back to text.",
    ),
    SplitterClass(
        "langchain",
        "MarkdownHeaderTextSplitter",
        "langchain",
        ("langchain_text_splitters", "langchain.text_splitter", "langchain_text_splitters.markdown"),
        (
            Param("headers_to_split_on", (), _headers, "a list of (marker, name) pairs"),
            Param("return_each_line", False, boolean, "True or False"),
            Param("strip_headers", True, boolean, "True or False"),
            Param("custom_header_patterns", None, _custom_headers, "a dict of marker to level"),
        ),
        positional=("headers_to_split_on", "return_each_line", "strip_headers", "custom_header_patterns"),
        check=_headers_given,
        implies=_headed,
        usage="chunks = [d.page_content for d in splitter.split_text(text)]",
        description="Sections at the headings named, lines stripped and joined, each with its headings.",
    ),
):
    register_splitter(_kind)


# ---------------------------------------------------------------- LlamaIndex's classes

_LI_IMPORTS = ("llama_index.core.node_parser", "llama_index.core.text_splitter", "llama_index.core")
_CHUNKING_REGEX = "[^,.;。？！]+[,.;。？！]?|[,.;。？！]"  # SentenceSplitter's default (see llamaindex.py)


def _separator(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value:
        raise ChunkerError(f"{name} must be a string of one character or more, got {_shown(value)}", field=name)
    return value


def _regex_or_none(value: Any, name: str) -> str | None:
    if value is None:
        return None
    pattern = string(value, name)
    try:
        groups = re.compile(pattern).groups
    except (re.error, RecursionError, OverflowError) as e:
        raise ChunkerError(f"{name} {_shown(value)} is not a valid regular expression: {e}", field=name) from None
    if groups > 1:
        raise ChunkerError(
            f"{name} {_shown(value)} has {groups} capturing groups (LlamaIndex fails on them): write (?:...) for all but one",
            field=name,
        )
    return pattern


def _separator_list(value: Any, name: str) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)):  # None too: the field is a list, pydantic refuses None
        raise ChunkerError(f"{name} must be a list of strings such as ['\\n'] or [], got {_shown(value)}", field=name)
    return tuple(_separator(s, name) for s in value)


def _li_sizes(values: Mapping[str, Any], constructor: str) -> None:
    if values["chunk_overlap"] > values["chunk_size"]:
        raise ChunkerError(
            f"chunk_overlap {values['chunk_overlap']} is larger than chunk_size {values['chunk_size']} "
            f"(LlamaIndex refuses it): give at most {values['chunk_size']}",
            field="splitter",
        )


def _li_sized(strategy: str) -> Callable[[Mapping[str, Any], str], dict[str, Any]]:
    def implied(values: Mapping[str, Any], constructor: str) -> dict[str, Any]:
        return {
            "strategy": strategy,
            "unit": "tokens",
            "size": values["chunk_size"],
            "overlap": values["chunk_overlap"],
            "min_size": 0,
            "tokenizer": "cl100k",  # LlamaIndex's default tokenizer
        }

    return implied


def _li_sections(values: Mapping[str, Any], constructor: str) -> dict[str, Any]:
    return {"strategy": "markdown", "overlap": 0, "min_size": 0}


# NodeParser's own fields: taken (they change no chunk text), so a pasted line keeps them.
_NODE_PARSER = (
    Param("include_metadata", True, boolean, "True or False"),
    Param("include_prev_next_rel", True, boolean, "True or False"),
)
_SENTENCE = (
    Param("separator", " ", _separator, "a string"),
    Param("chunk_size", 1024, positive_int, "a whole number above 0"),
    Param("chunk_overlap", 200, non_negative_int, "a whole number, 0 or more"),
    Param("paragraph_separator", "\n\n\n", _separator, "a string"),
    Param("secondary_chunking_regex", _CHUNKING_REGEX, _regex_or_none, "a regular expression or None"),
    *_NODE_PARSER,
)
_TOKEN = (
    Param("chunk_size", 1024, positive_int, "a whole number above 0"),
    Param("chunk_overlap", 20, non_negative_int, "a whole number, 0 or more"),
    Param("separator", " ", _separator, "a string"),
    Param("backup_separators", ("\n",), _separator_list, "a list of strings"),
    Param("keep_whitespaces", False, boolean, "True or False"),
    *_NODE_PARSER,
)
_MARKDOWN = (Param("header_path_separator", "/", string, "a string"), *_NODE_PARSER)
# The nodes of a document without metadata: what the reproductions give (chunker/splitters/llamaindex.py).
_LI_USAGE = (
    "from llama_index.core import Document\nchunks = [n.text for n in splitter.get_nodes_from_documents([Document(text=text)])]"
)

for _kind in (
    SplitterClass(
        "llama_index",
        "SentenceSplitter",
        "llamaindex",
        _LI_IMPORTS,
        _SENTENCE,
        (Constructor(), Constructor("from_defaults", positional=("separator", "chunk_size", "chunk_overlap"))),
        positional=("separator", "chunk_size", "chunk_overlap"),
        check=_li_sizes,
        implies=_li_sized("sentence"),
        description="Paragraphs, then sentences (nltk's Punkt), then phrases, words and characters; packed in cl100k tokens.",
        usage=_LI_USAGE,
    ),
    SplitterClass(
        "llama_index",
        "TokenTextSplitter",
        "llamaindex",
        _LI_IMPORTS,
        _TOKEN,
        (
            Constructor(),
            Constructor("from_defaults", positional=("chunk_size", "chunk_overlap", "separator", "backup_separators")),
        ),
        positional=("chunk_size", "chunk_overlap"),
        check=_li_sizes,
        implies=_li_sized("recursive"),
        description="Words (then lines, then characters) packed in cl100k tokens, with overlap.",
        usage=_LI_USAGE,
    ),
    SplitterClass(
        "llama_index",
        "MarkdownNodeParser",
        "llamaindex",
        _LI_IMPORTS,
        _MARKDOWN,
        (
            Constructor(),
            Constructor("from_defaults", positional=("include_metadata", "include_prev_next_rel", "header_path_separator")),
        ),
        implies=_li_sections,
        description="A section at every heading line outside code fences, with the headings above it.",
        usage=_LI_USAGE,
    ),
):
    register_splitter(_kind)
