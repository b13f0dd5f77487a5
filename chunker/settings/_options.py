"""The one table of settings: every option a run takes, declared once, and `Settings`, drawn from it.

Each `Option` says what a setting holds (its default and how a value is checked and made
canonical, with the message a bad one gets), how text typed for it reads (the command line's
flag and help, the page's fields and its link), which surfaces take it, the page's control, and
how copy-as-code writes it. `Settings`, the keyword arguments of `chunk()` and
`Document.chunk()`, both commands' options, `sweep()`, the framework adapters, the page's
worker, controls and link, and the snippets are all drawn from `OPTIONS` — in the manner of
click's parameter objects or pydantic-settings' fields: one declaration, many readers.

The choices themselves stay in their own registries (strategies, tokenizers, `UNITS`,
`BREAKS`, `DEFAULTS`, `MODEL_LIMITS`); an option names them.

>>> Settings(strategy="fixed", unit="chars", size=300, overlap="15%").overlap_count
45
>>> Settings(sise=300)
Traceback (most recent call last):
...
chunker._errors.ChunkerError: unknown setting 'sise': choose from strategy, unit, size, overlap, min_size, tokenizer, ...
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._errors import ChunkerError
from ..splitters import SPLITTERS, parse_splitter
from ..strategies import STRATEGIES
from ..strategies._languages import AUTO, LANGUAGES
from ..tokens._tokenizers import TOKENIZERS, get_tokenizer, label_of
from ._context import FIELDS, HEADINGS, NONE, check_context
from ._presets import MODEL_LIMITS, model_limit
from ._settings import (
    BREAKS,
    DEFAULTS,
    RETRIEVERS,
    UNITS,
    VOLUME_FLOOR,
    VOLUME_TIMES,
    _breaks,
    _choice,
    parse_overlap,
    whole_number,
)

__all__ = [
    "Option",
    "Control",
    "OPTIONS",
    "SURFACES",
    "Settings",
    "register_option",
    "unregister_option",
    "options_for",
    "MISSING",
]

SURFACES = frozenset({"chunk", "cli", "eval", "sweep", "adapters", "page"})
"""Where an option can be taken: `chunk()` and `Document.chunk()` (and `Settings`), the
chunking command, ``chunker eval``, `sweep()`, the framework adapters, the page."""


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""An option's `blank` when an empty page field is an error, not a value."""


@dataclass(frozen=True)
class Control:
    """The page's control for an option.

    `kind` is "select" (its options drawn from `choices`), "number", "text", "textarea" (text of
    several lines, such as a pasted import line and call) or "checkboxes".
    `in_page` says index.html lays the control out itself (with sliders, boxes and help around
    it, under the element id `id`); other options get a field the worker builds
    (`app/panels.controls`), read and written by the page generically.
    """

    kind: str
    label: str
    id: str = ""
    choices: Callable[[], Iterable[tuple[str, str]]] | None = None
    in_page: bool = False


def _identity(value: Any, flag: str) -> Any:
    return value


def _plain(value: Any) -> Any:
    return value


@dataclass(frozen=True)
class Option:
    """One setting, declared once.

    - `check(value, so_far)` validates a value and returns it canonical; `so_far` holds the
      options before it in `OPTIONS`, already canonical (the size is checked against the
      strategy, the overlap against the size). It raises `ChunkerError` naming the value.
    - `parse(text, flag)` reads text typed for it (a flag's value, a page field), naming
      `flag` in its error.
    - `help()` is the command line's help (and the docs'), drawn from the registries when asked,
      so a strategy registered later shows in it; `description` is one line for fields elsewhere.
    - `blank` is what an empty page field means (`MISSING`: an error).
    - `snippet(settings)` says whether copy-as-code writes it (by default: when not the default);
      `shown(value)` is the value it writes there and in the link.
    - `aliases` maps an adapter (its `owner` name) to that library's own name for the option.
    - `implies(value)` gives the options its value fixes (see the field).
    """

    name: str
    default: Any
    check: Callable[[Any, Mapping[str, Any]], Any]
    help: Callable[[], str]
    description: str
    annotation: Any = Any
    parse: Callable[[str, str], Any] = _identity
    flag: str = ""
    metavar: str | None = None
    surfaces: frozenset[str] = SURFACES
    control: Control | None = None
    url_key: str = ""
    blank: Any = MISSING
    snippet: Callable[[Any], bool] | None = None
    shown: Callable[[Any], Any] = _plain
    to_json: Callable[[Any], Any] = _plain
    aliases: Mapping[str, str] = field(default_factory=dict)
    implies: Callable[[Any], Mapping[str, Any]] | None = None
    """Other options this one's canonical value fixes, whatever they were given as (a pasted
    splitter fixes the strategy, unit, size, overlap and tokenizer). Such an option is checked
    before every other, and the others' checks see it in `so_far`."""
    cuts: bool = True
    """Its value can change a chunk (where it starts or ends, its text) or what is embedded for
    it: it is part of every chunk's id (`chunker.results._records.id_base`). False for an
    option that only judges or ranks the chunks (the model's limit flags them, the retriever
    ranks them): changing it keeps every id, so a vector store keeps its rows."""

    def __post_init__(self) -> None:
        if not self.name.isidentifier() or self.name.startswith("_"):
            raise ChunkerError(f"option name {self.name!r} must be a Python identifier not starting with _")
        unknown = set(self.surfaces) - SURFACES
        if unknown:
            raise ChunkerError(
                f"option {self.name!r} names unknown surfaces {sorted(unknown)}: choose from {', '.join(sorted(SURFACES))}"
            )
        if not self.flag:
            object.__setattr__(self, "flag", "--" + self.name.replace("_", "-"))
        if not self.url_key:
            object.__setattr__(self, "url_key", self.name)
        if self.control is not None and not self.control.id:
            object.__setattr__(
                self,
                "control",
                Control(self.control.kind, self.control.label, "opt-" + self.name, self.control.choices, self.control.in_page),
            )

    def wanted_in_snippet(self, settings: Any) -> bool:
        if self.snippet is not None:
            return self.snippet(settings)
        return bool(getattr(settings, self.name, self.default) != self.default)

    def cli_text(self, value: Any) -> str:
        """The value as a command line or a link writes it."""
        value = self.shown(value)
        if isinstance(value, (tuple, list)):
            return ",".join(map(str, value))
        return str(value)


def _names(registry: Mapping[str, Any]) -> str:
    return " | ".join(registry)


# ---------------------------------------------------------------- the checks


def _strategy(value: Any, so_far: Mapping[str, Any]) -> str:
    return _choice("strategy", value, STRATEGIES)


def _unit(value: Any, so_far: Mapping[str, Any]) -> str:
    return _choice("unit", value, UNITS)


def _size(value: Any, so_far: Mapping[str, Any]) -> int:
    size = whole_number("size", value)
    strategy = so_far.get("strategy", DEFAULTS["strategy"])
    if size < 0 or (size == 0 and not STRATEGIES[strategy].size_zero):
        zero = ""
        if size == 0:
            allowed = [s.name for s in STRATEGIES.values() if s.size_zero]
            zero = f" (0 is allowed for {' and '.join(allowed)}: one chunk each)"
        raise ChunkerError(f"size must be a positive number, got {size}{zero}", field="size")
    return size


def _overlap(value: Any, so_far: Mapping[str, Any]) -> int | str:
    size = so_far.get("size", DEFAULTS["size"])
    count, label = parse_overlap(value, size)
    if size == 0:
        return label  # one chunk per sentence or paragraph: overlap has nothing to repeat
    if count < 0:
        raise ChunkerError(f"overlap must be 0 or more, got {count}", field="overlap")
    if count >= size and not (so_far.get("splitter") and count == size):
        # A pasted splitter may overlap by its whole size, as LangChain's recursive one allows;
        # its own checks have said what it takes.
        raise ChunkerError(f"overlap {label} must be smaller than the size {size}: try {size // 10} (10%)", field="overlap")
    return label


def _min_size(value: Any, so_far: Mapping[str, Any]) -> int:
    n = whole_number("min_size", value)
    size = so_far.get("size", DEFAULTS["size"])
    if n < 0:
        raise ChunkerError(f"min_size must be 0 (off) or more, got {n}", field="min_size")
    if n and size == 0:
        raise ChunkerError(
            f"min_size {n} needs a size: size 0 makes one chunk per sentence or paragraph, "
            "nothing is merged; give a size, or min_size 0",
            field="min_size",
        )
    if n and n >= size:
        raise ChunkerError(f"min_size {n} must be smaller than the size {size}: try {size // 4}", field="min_size")
    return n


def _language(value: Any, so_far: Mapping[str, Any]) -> str:
    return _choice("language", value, {AUTO: None, **LANGUAGES})


def _tokenizer(value: Any, so_far: Mapping[str, Any]) -> str:
    if isinstance(value, str) and value in TOKENIZERS:
        return value
    # A tokenizer.json path, a loaded tokenizer's identity, or a tokenizer object: loaded (once)
    # and named by its identity, which keeps meaning this tokenizer whatever is loaded later.
    return get_tokenizer(value).name


def _model_max(value: Any, so_far: Mapping[str, Any]) -> int | str | None:
    if value is None or value == "":  # 0 is refused, as the command line refuses it (model_limit)
        return None
    limit = model_limit(value)
    if isinstance(value, int) or (limit is not None and str(value).isdigit()):
        return limit.tokens if limit else None
    return str(value)  # a MODEL_LIMITS name, kept as named


def _splitter(value: Any, so_far: Mapping[str, Any]) -> str | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return parse_splitter(value).value


def _splitter_implies(value: Any) -> Mapping[str, Any]:
    return parse_splitter(value).implied() if value else {}


def _splitter_help() -> str:
    names = ", ".join(dict.fromkeys(k.name for k in SPLITTERS.values()))
    return (
        "your splitter's constructor call as your code has it, read (never run), such as "
        '"RecursiveCharacterTextSplitter.from_language(Language.PYTHON, chunk_size=800, chunk_overlap=80)"; '
        f"the chunks are then that framework's, and it sets strategy, unit, size and overlap: {names}"
    ).replace("%", "%%")


def _embedding_model(value: Any, so_far: Mapping[str, Any]) -> str | None:
    if value is None or value == "":
        return None
    from ..embeddings import get_model  # only a run that names a model loads one

    # A folder's path, a loaded model or its identity: named by its content's identity, which
    # keeps meaning this model whatever is loaded later (as a tokenizer.json is named).
    return get_model(value).name


def _percentile(value: Any, so_far: Mapping[str, Any]) -> float:
    try:
        p = float(value)
    except (TypeError, ValueError):
        p = float("nan")
    if isinstance(value, bool) or not 0 <= p <= 100:
        raise ChunkerError(
            f"breakpoint_percentile must be a number from 0 to 100, got {str(value)[:40]!r}: try 95",
            field="breakpoint_percentile",
        )
    return int(p) if p == int(p) else p


def _retriever(value: Any, so_far: Mapping[str, Any]) -> str:
    name = _choice("retriever", value, RETRIEVERS)
    if name != "bm25" and so_far.get("embedding_model") is None:
        raise ChunkerError(
            f"the {name} retriever needs an embedding model: give embedding_model= (--embedding-model), "
            "the folder of a model2vec model",
            field="retriever",
        )
    return name


def _percentile_text(text: str, flag: str) -> Any:
    return text.strip() or 95


def _shown_model(value: Any) -> Any:
    if value is None:
        return value
    from ..embeddings import label_of as model_label

    return model_label(value)


def _breaks_check(value: Any, so_far: Mapping[str, Any]) -> tuple[str, ...]:
    return _breaks(value)


def _size_text(text: str, flag: str) -> int:
    if not text.strip():
        raise ChunkerError(f"{flag} is empty: type a whole number such as {DEFAULTS['size']}", field="size")
    return whole_number(flag, text)


def _count_text(text: str, flag: str) -> int:
    return whole_number(flag, text) if text.strip() else 0


def _overlap_text(text: str, flag: str) -> int | str:
    text = text.strip()
    return text if text.endswith("%") else whole_number(flag, text)


def _shown_tokenizer(value: Any) -> Any:
    # A loaded tokenizer.json is written as its file's name: the identity means nothing to a
    # fresh process, the path is what a reader passes there.
    return label_of(value) if isinstance(value, str) and value not in TOKENIZERS else value


def _uses_breaks(settings: Any) -> bool:
    strategy = STRATEGIES.get(settings.strategy)
    return bool(strategy is not None and strategy.breaks) or tuple(settings.breaks) != tuple(DEFAULTS["breaks"])


def _always(settings: Any) -> bool:
    return True


def _given(settings: Any) -> bool:
    return bool(getattr(settings, "model_max", None))


def _given_splitter(settings: Any) -> bool:
    return bool(getattr(settings, "splitter", None))


OPTIONS: dict[str, Option] = {
    o.name: o
    for o in (
        # A sweep takes lists of strategies and sizes instead (strategies=, sizes=).
        Option(
            "strategy",
            DEFAULTS["strategy"],
            _strategy,
            annotation=str,
            surfaces=SURFACES - {"sweep"},
            help=lambda: (
                f"{_names(STRATEGIES)} (default {DEFAULTS['strategy']}); code cuts source at its "
                "definitions, page gives one chunk per PDF page; with any of them --min-size merges "
                "small chunks and --context puts the heading path or a template before each chunk "
                "for the embedder, within the size"
            ),
            description="Where the text is cut: one of chunker.STRATEGIES.",
            control=Control(
                "select", "Strategy", "strategy", lambda: ((s.name, s.name) for s in STRATEGIES.values()), in_page=True
            ),
            snippet=_always,
        ),
        Option(
            "unit",
            DEFAULTS["unit"],
            _unit,
            annotation=str,
            help=lambda: f"{_names(UNITS)} (default {DEFAULTS['unit']})",
            description="What size and overlap count: tokens, chars or words.",
            control=Control("select", "Unit", "unit", lambda: ((u.name, u.label) for u in UNITS.values()), in_page=True),
            snippet=_always,
        ),
        Option(
            "size",
            DEFAULTS["size"],
            _size,
            annotation=int,
            parse=_size_text,
            metavar="N",
            surfaces=SURFACES - {"sweep"},
            help=lambda: f"chunk size in the unit (default {DEFAULTS['size']})",
            description="Chunk size in the unit.",
            aliases={"langchain": "chunk_size"},
            control=Control("number", "Chunk size", "size", in_page=True),
            snippet=_always,
        ),
        Option(
            "overlap",
            DEFAULTS["overlap"],
            _overlap,
            annotation=int | str,
            parse=_overlap_text,
            help=lambda: f"overlap in the unit, or N%% of the size (default {DEFAULTS['overlap']})",
            description="Overlap in the unit, or a percentage such as '15%'.",
            aliases={"langchain": "chunk_overlap"},
            control=Control("number", "Overlap", "overlap", in_page=True),
            blank="0",
            snippet=_always,
        ),
        # After the size, which it is checked against.
        Option(
            "min_size",
            0,
            _min_size,
            annotation=int,
            parse=_count_text,
            metavar="N",
            help=lambda: (
                "merge a chunk smaller than N (in the unit) into a neighbour in its section, when the "
                "two fit the size; what stays smaller is flagged tiny (default 0: off)"
            ),
            description="Merge chunks smaller than this into a neighbour; 0 is off.",
            control=Control("number", "Min size"),
            blank="0",
        ),
        Option(
            "tokenizer",
            DEFAULTS["tokenizer"],
            _tokenizer,
            annotation=str,
            help=lambda: f"{_names(TOKENIZERS)}, or the path of a model's tokenizer.json (default {DEFAULTS['tokenizer']})",
            description="approx, estimate, o200k, cl100k, or a tokenizer.json path.",
            control=Control(
                "select", "Tokenizer", "tokenizer", lambda: ((t.name, t.label) for t in TOKENIZERS.values()), in_page=True
            ),
            snippet=_always,
            shown=_shown_tokenizer,
        ),
        Option(
            "breaks",
            DEFAULTS["breaks"],
            _breaks_check,
            annotation=tuple[str, ...],
            help=lambda: (
                f"break points for the sentence strategy, from {','.join(BREAKS)} (default {','.join(DEFAULTS['breaks'])})"
            ),
            description="Break points of the sentence strategy.",
            control=Control(
                "checkboxes", "Break points", "breaks", lambda: ((b.name, b.label) for b in BREAKS.values()), in_page=True
            ),
            snippet=_uses_breaks,
            to_json=list,
        ),
        Option(
            "language",
            AUTO,
            _language,
            annotation=str,
            metavar="LANGUAGE",
            help=lambda: (
                f"the code strategy's language: {AUTO} (from the file's extension, else python) | "
                f"{_names(LANGUAGES)} (default {AUTO})"
            ),
            description="The code strategy's language; auto: from the file name.",
            control=Control(
                "select",
                "Language",
                choices=lambda: [(AUTO, "auto (file name)")] + [(lang.name, lang.label) for lang in LANGUAGES.values()],
            ),
            blank=AUTO,
        ),
        Option(
            "context",
            NONE,
            check_context,
            annotation=str,
            metavar="CONTEXT",
            help=lambda: (
                f"what the embedder reads before each chunk: {NONE} | {HEADINGS} (its heading path) | a "
                f"template of {', '.join('{' + f + '}' for f in FIELDS)} such as '{{title}} > {{headings}}\\n\\n' "
                f"(\\n a line break); it counts against the size (default {NONE})"
            ),
            description="Text put before each chunk for the embedder: none, headings or a template.",
            control=Control("text", "Context"),
            blank=NONE,
        ),
        Option(
            "model_max",
            None,
            _model_max,
            annotation=int | str | None,
            metavar="MODEL",
            help=lambda: (
                f"the embedding model's input limit: {_names(MODEL_LIMITS)}, or tokens; chunks past it "
                "are flagged truncated (default: a tokenizer.json's own limit, if it has one)"
            ),
            description="The embedding model's input limit: a MODEL_LIMITS name or tokens.",
            control=Control(
                "select",
                "Model limit",
                "limit",
                lambda: [("", "none")] + [(m.name, f"{m.label} ({m.tokens:,})") for m in MODEL_LIMITS.values()],
                in_page=True,
            ),
            url_key="limit",
            blank=None,
            snippet=_given,
            cuts=False,  # it flags chunks truncated, never cuts them
        ),
        Option(
            "splitter",
            None,
            _splitter,
            annotation=str | None,
            metavar="EXPR",
            surfaces=SURFACES - {"sweep"},
            help=_splitter_help,
            description=(
                "Your LangChain or LlamaIndex splitter's line, as your code has it (with its import line, if "
                "you like): while it is here its chunks are shown, and it sets the strategy, unit, size and overlap."
            ),
            control=Control("textarea", "Paste your splitter"),
            blank=None,
            snippet=_given_splitter,
            implies=_splitter_implies,
        ),
        Option(
            "embedding_model",
            None,
            _embedding_model,
            annotation=str | None,
            metavar="PATH",
            # The page's select lists the models the reader loaded from picked files (or the
            # one a built site bundles), each by its identity: none is a path typed in a field.
            control=Control("select", "Embedding model", "embedding-model", lambda: [("", "none")], in_page=True),
            help=lambda: (
                "the folder of a model2vec static embedding model (model.safetensors, tokenizer.json, "
                "config.json): the semantic strategy embeds sentences with it (default: none, words are compared)"
            ),
            description="A model2vec model folder: what the semantic strategy embeds with.",
            blank=None,
            shown=_shown_model,
        ),
        Option(
            "breakpoint_percentile",
            95,
            _percentile,
            annotation=float,
            parse=_percentile_text,
            metavar="P",
            control=Control("number", "Semantic break percentile"),
            help=lambda: (
                "the semantic strategy ends a chunk where neighbouring sentences differ more than at P%% "
                "of all places, 0 to 100 (default 95)"
            ),
            description="The semantic strategy's break threshold, a percentile of the distances.",
            blank=95,
        ),
        # After embedding_model, which dense and hybrid need.
        Option(
            "retriever",
            "bm25",
            _retriever,
            annotation=str,
            # chunk() takes it too: a result carries its settings to evaluate().
            surfaces=frozenset({"chunk", "eval", "sweep"}),
            help=lambda: (
                f"how the check ranks chunks: {_names(RETRIEVERS)} (hybrid: reciprocal rank fusion of the "
                "two; dense and hybrid need --embedding-model) (default bm25)"
            ),
            description="How the retrieval check ranks chunks: bm25, dense (the embedding model) or hybrid.",
            blank="bm25",
            cuts=False,  # it ranks the chunks the other settings made
        ),
    )
}
"""Every setting, in the order they are checked, shown and written."""

_BUILT_IN = frozenset(OPTIONS)
"""The package's own options: results, ids and every surface rely on them."""

MAX_CHUNK_CHARS_HELP = (
    f"refuse settings whose chunks would hold more than N characters in all (default "
    f"{VOLUME_TIMES} times each file, at least {VOLUME_FLOOR:,}; 0: no limit)"
)
"""`max_chunk_chars` is a run's volume limit beside the settings (not part of a result's
settings): each surface that takes settings takes it too."""


def options_for(surface: str) -> list[Option]:
    """The options `surface` takes, in table order."""
    return [o for o in OPTIONS.values() if surface in o.surfaces]


_SIGNED: list[tuple[Callable[..., Any], str]] = []


def signed(surface: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Give a function taking ``**settings`` the signature the table draws for `surface`, so
    `help()` and editors list every option with its default (kept in step by `register_option`)."""

    def wrap(func: Callable[..., Any]) -> Callable[..., Any]:
        _SIGNED.append((func, surface))
        _sign(func, surface)
        return func

    return wrap


def _sign(func: Callable[..., Any], surface: str) -> None:
    base: inspect.Signature = getattr(func, "_unsigned", None) or inspect.signature(func)
    func._unsigned = base  # type: ignore[attr-defined]
    params = [p for p in base.parameters.values() if p.kind is not p.VAR_KEYWORD]
    taken = {p.name for p in params}
    at = next((i for i, p in enumerate(params) if p.kind is p.KEYWORD_ONLY), len(params))
    drawn = [
        inspect.Parameter(o.name, inspect.Parameter.KEYWORD_ONLY, default=o.default)
        for o in options_for(surface)
        if o.name not in taken
    ]
    func.__signature__ = base.replace(parameters=params[:at] + drawn + params[at:])  # type: ignore[attr-defined]


def register_option(option: Option) -> Option:
    """Add an option to the table: every surface it names takes it from now on (the page from
    its next start). Its name must be new."""
    if not isinstance(option, Option):
        raise ChunkerError(f"register_option takes an Option, got {type(option).__name__}")
    if option.name in OPTIONS or option.name in ("source", "max_chunk_chars"):
        raise ChunkerError(f"there is already a setting named {option.name!r}: give the option another name")
    OPTIONS[option.name] = option
    for func, surface in _SIGNED:
        _sign(func, surface)
    return option


def unregister_option(name: str) -> None:
    """Take an option out of the table again (tests register throwaway ones); the package's own
    options stay."""
    if name in _BUILT_IN:
        raise ChunkerError(
            f"{name!r} is one of chunker's own settings and cannot be taken out: unregister only what you registered"
        )
    OPTIONS.pop(name, None)
    for func, surface in _SIGNED:
        _sign(func, surface)


def unknown_setting(name: str, *, owner: str = "", others: Iterable[str] = (), surface: str = "chunk") -> ChunkerError:
    """The error for a setting no option of `surface` has."""
    known = ", ".join([*(o.name for o in options_for(surface)), *others])
    who = f"{owner} has no setting" if owner else "unknown setting"
    return ChunkerError(f"{who} {name!r}: choose from {known}")


@dataclass(frozen=True, init=False, repr=False)
class Settings:
    """One validated set of chunking options: one attribute per option of `OPTIONS`.

    Made with keyword arguments only (any option left out takes its default); each value is
    checked, in table order, by its option and kept canonical. Equal settings compare, hash
    and serialise (`to_dict`) equal.
    """

    _items: tuple[tuple[str, Any], ...]

    if TYPE_CHECKING:  # the built-in options, typed for readers and mypy; others are Any
        strategy: str
        unit: str
        size: int
        overlap: int | str
        tokenizer: str
        breaks: tuple[str, ...]
        model_max: int | str | None
        min_size: int
        language: str
        context: str
        splitter: str | None
        embedding_model: str | None
        breakpoint_percentile: float
        retriever: str

    def __init__(self, **given: Any) -> None:
        for name in given:
            if name not in OPTIONS:
                raise unknown_setting(name)
        # Options that fix others are checked first; what they fix replaces what was given.
        first: dict[str, Any] = {}
        fixed: dict[str, Any] = {}
        for option in OPTIONS.values():
            if option.implies is not None:
                first[option.name] = value = option.check(given.get(option.name, option.default), first)
                fixed.update(option.implies(value))
        values: dict[str, Any] = {}
        for option in OPTIONS.values():
            if option.name in first:
                values[option.name] = first[option.name]
                continue
            wanted = fixed[option.name] if option.name in fixed else given.get(option.name, option.default)
            values[option.name] = option.check(wanted, {**first, **values})
        for name, value in values.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_items", tuple(values.items()))

    def __repr__(self) -> str:
        return "Settings(" + ", ".join(f"{k}={v!r}" for k, v in self._items) + ")"

    def __reduce__(self) -> tuple[Any, ...]:
        # Made again from its values: a worker process checks them as this one did.
        return (_settings, (dict(self._items),))

    @property
    def model_tokens(self) -> int | None:
        """The model limit in tokens: `model_max`'s, else the tokenizer's own (or None)."""
        limit = model_limit(self.model_max)
        if limit is not None:
            return limit.tokens
        return getattr(get_tokenizer(self.tokenizer), "model_max", None)

    @property
    def overlap_count(self) -> int:
        """The overlap in the size's unit (a percentage resolved against `size`)."""
        if self.size == 0:
            return 0
        return parse_overlap(self.overlap, self.size)[0]

    def to_dict(self) -> dict[str, Any]:
        return {k: OPTIONS[k].to_json(v) if k in OPTIONS else v for k, v in self._items}


def _settings(values: dict[str, Any]) -> Settings:
    return Settings(**{k: v for k, v in values.items() if k in OPTIONS})


def options_doc(surface: str = "chunk") -> str:
    """The options `surface` takes, one line each, for a docstring."""
    return "\n".join(f"    {o.name} (default {o.default!r}): {o.description}" for o in options_for(surface))
