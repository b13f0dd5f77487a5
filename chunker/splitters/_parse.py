"""Reading a pasted splitter line: Python source, parsed with `ast`, never evaluated.

What is taken: import lines (they tell which framework a class name is), then one call of a
registered class or of one of its constructors, alone or assigned (``splitter = ...``). Every
argument is a literal (`ast.literal_eval`) or a dotted name the parameter lists
(``Language.PYTHON``, ``len``). A ``langchain:`` or ``llama_index:`` prefix names the framework
too. Anything else is one line naming it and what is supported.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._errors import ChunkerError
from ..text._segments import LONE_SURROGATE, surrogate_error
from ._registry import FRAMEWORKS, SPLITTERS, Expression, Param, SplitterClass, classes_named

__all__ = ["SplitterCall", "parse_splitter", "MAX_SOURCE"]

MAX_SOURCE = 20_000
"""The longest pasted line taken, in characters: a splitter call is a line or a few."""

_PREFIX = re.compile(r"\s*(" + "|".join(FRAMEWORKS) + r")\s*:(?!\s*\n)\s*")


@dataclass(frozen=True)
class SplitterCall:
    """A parsed splitter: the class, the constructor, and every argument given, canonical."""

    framework: str
    cls: str
    constructor: str
    args: tuple[tuple[str, Any], ...]
    code: str
    """The call written back: ``Class.constructor(arguments as given)``."""

    @property
    def kind(self) -> SplitterClass:
        return SPLITTERS[(self.framework, self.cls)]

    def given(self, name: str) -> bool:
        return any(k == name for k, _ in self.args)

    def get(self, name: str) -> Any:
        for k, v in self.args:
            if k == name:
                return v
        return self.kind.params_of(self.constructor)[name].default

    def values(self) -> dict[str, Any]:
        """Every parameter's value: given, else its default."""
        out = {n: p.default for n, p in self.kind.params_of(self.constructor).items()}
        out.update(self.args)
        return out

    @property
    def value(self) -> str:
        """The setting's canonical text: the code, prefixed with its framework when another
        framework has a class of the same name."""
        if len(classes_named(self.cls)) > 1:
            return f"{self.framework}:{self.code}"
        return self.code

    @property
    def import_line(self) -> str:
        """The import the code needs, from the class's first module."""
        names = [self.cls]
        if any(isinstance(v, str) and v.startswith("Language.") for _, v in self.args) or "language" in dict(self.args):
            names.append("Language")
        return f"from {self.kind.imports[0]} import {', '.join(names)}"

    def snippet(self, filename: str) -> str:
        """The framework code giving these chunks of the file `filename`: the import, the text
        read as the page and the command line read it, the call as written, the chunk texts."""
        lines = [self.import_line, ""]
        tokenizer = [v for k, v in self.args if k == "tokenizer"]
        if self.constructor == "from_huggingface_tokenizer" and tokenizer:
            lines[1:1] = [
                "from transformers import PreTrainedTokenizerFast",
                "",
                f'{tokenizer[0]} = PreTrainedTokenizerFast(tokenizer_file="tokenizer.json")  # your model\'s file',
            ]
        lines += [
            f'with open({json.dumps(filename)}, encoding="utf-8", newline="") as f:',
            "    text = f.read()",
            f"splitter = {self.code}",
            f"{self.kind.usage}  # the same texts as this view",
        ]
        return "\n".join(lines) + "\n"

    def implied(self) -> dict[str, Any]:
        """The run's settings this call fixes."""
        kind = self.kind
        return kind.implies(self.values(), self.constructor) if kind.implies else {}


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 80 else text[:77] + "..."


def _supported() -> str:
    ways = []
    for kind in SPLITTERS.values():
        ctors = [f".{c.name}" for c in kind.constructors if c.name]
        ways.append(f"{FRAMEWORKS[kind.framework]} {kind.name}" + (f" ({', '.join(ctors)})" if ctors else ""))
    return "; ".join(ways)


def parse_splitter(source: str) -> SplitterCall:
    """The splitter a pasted line describes, checked; `ChunkerError` on anything else.

    >>> call = parse_splitter("RecursiveCharacterTextSplitter.from_language(Language.PYTHON, chunk_size=800, chunk_overlap=80)")
    >>> call.cls, call.constructor, call.get("language"), call.get("chunk_overlap"), call.get("strip_whitespace")
    ('RecursiveCharacterTextSplitter', 'from_language', 'python', 80, True)
    >>> parse_splitter("RecursiveCharacterTextSplitter(chunk_size=size)")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    chunker._errors.ChunkerError: chunk_size=size is not a literal: write the value itself (a number, a string, ...
    """
    if not isinstance(source, str):
        raise ChunkerError(f"splitter must be the constructor call as text, got {type(source).__name__}", field="splitter")
    if len(source) > MAX_SOURCE:
        raise ChunkerError(
            f"splitter text is {len(source):,} characters: paste only the splitter's line (at most {MAX_SOURCE:,})",
            field="splitter",
        )
    lone = LONE_SURROGATE.search(source)
    if lone is not None:  # Python cannot read it (ast.parse: UnicodeEncodeError)
        raise surrogate_error(
            "the splitter",
            source,
            lone.start(),
            "write the character itself: a lone surrogate is half of a pair and matches no text",
            field="splitter",
        )
    return _parse(source)


@functools.lru_cache(maxsize=64)
def _parse(source: str) -> SplitterCall:
    framework = ""
    m = _PREFIX.match(source)
    if m:
        framework = m.group(1)
        source = source[m.end() :]
    try:
        tree = ast.parse(source.strip(), mode="exec")
    except SyntaxError as e:
        raise ChunkerError(
            f"the splitter is not Python ({e.msg}, line {e.lineno}): paste the constructor call, "
            "such as RecursiveCharacterTextSplitter(chunk_size=800, chunk_overlap=80)",
            field="splitter",
        ) from None
    except (ValueError, RecursionError, MemoryError, OverflowError) as e:
        raise ChunkerError(
            f"the splitter could not be read ({type(e).__name__}): paste the constructor call", field="splitter"
        ) from None
    names: dict[str, tuple[str, str]] = {}  # a name in the code -> (module, class or enum)
    modules: dict[str, str] = {}  # a module alias -> the module
    calls: list[ast.Call] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom):
            for a in stmt.names:
                names[a.asname or a.name] = (stmt.module or "", a.name)
        elif isinstance(stmt, ast.Import):
            for a in stmt.names:
                if a.asname:
                    modules[a.asname] = a.name
                else:
                    modules[a.name.split(".")[0]] = a.name.split(".")[0]
        elif isinstance(stmt, (ast.Expr, ast.Assign, ast.AnnAssign)) and isinstance(stmt.value, ast.Call):
            calls.append(stmt.value)
        else:
            raise ChunkerError(
                f"the splitter holds {_one_line(ast.unparse(stmt))!r}: paste only import lines and the constructor call",
                field="splitter",
            )
    if len(calls) != 1:
        raise ChunkerError(
            f"the splitter holds {len(calls)} calls: paste one constructor call, such as "
            "RecursiveCharacterTextSplitter(chunk_size=800, chunk_overlap=80)",
            field="splitter",
        )
    return _read_call(calls[0], framework, names, modules)


def _dotted(node: ast.expr) -> list[str] | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return parts[::-1]


def _takes(kind: SplitterClass, constructor: str, names: set[str]) -> bool:
    """Whether `kind` has the constructor and takes every one of `names`."""
    if not any(c.name == constructor for c in kind.constructors):
        return False
    return names <= kind.params_of(constructor).keys()


def _framework_of(module: str) -> str:
    top = module.split(".")[0]
    if top.startswith("langchain"):
        return "langchain"
    if top.startswith("llama_index"):
        return "llama_index"
    return ""


def _read_call(call: ast.Call, framework: str, names: Mapping[str, tuple[str, str]], modules: Mapping[str, str]) -> SplitterCall:
    parts = _dotted(call.func)
    if parts is None:
        raise ChunkerError(
            f"{_one_line(ast.unparse(call.func))!r} is not a splitter class: supported are {_supported()}", field="splitter"
        )
    known = {k.name for k in SPLITTERS.values()}
    at, cls, module = -1, "", ""
    for i, part in enumerate(parts):
        target = names.get(part, ("", part)) if i == 0 else ("", part)
        if target[1] in known:
            at, cls, module = i, target[1], target[0]
            break
    if at < 0:
        shown = ".".join(parts)
        raise ChunkerError(f"unknown splitter class {shown!r}: supported are {_supported()}", field="splitter")
    if at > 0:  # a module path before the class: lts.RecursiveCharacterTextSplitter
        head = parts[0]
        base = modules.get(head) or (".".join(names[head]) if head in names else head)
        module = ".".join([base, *parts[1:at]])
    if len(parts) > at + 2:
        raise ChunkerError(f"{'.'.join(parts)!r} is not a constructor of {cls}", field="splitter")
    constructor = parts[at + 1] if len(parts) == at + 2 else ""
    candidates = classes_named(cls)
    by_import = _framework_of(module)
    if framework:
        chosen = [k for k in candidates if k.framework == framework]
        if not chosen:
            raise ChunkerError(
                f"{FRAMEWORKS[framework]} has no supported class {cls}: supported are {_supported()}", field="splitter"
            )
    elif by_import:
        chosen = [k for k in candidates if k.framework == by_import] or candidates
    else:
        chosen = candidates
    if len(chosen) > 1:
        # Two frameworks' classes of one name: the constructor and the argument names tell them
        # apart when only one takes them (encoding_name is LangChain's TokenTextSplitter's,
        # backup_separators LlamaIndex's).
        named = {kw.arg for kw in call.keywords if kw.arg}
        fitting = [k for k in chosen if _takes(k, constructor, named)]
        chosen = fitting if len(fitting) == 1 else chosen
    if len(chosen) > 1:
        raise ChunkerError(
            f"{cls} is both {' and '.join(FRAMEWORKS[k.framework] + chr(39) + 's' for k in chosen)}: paste its import "
            f"line with it, or write {' or '.join(k.framework + ':' + cls + '(...)' for k in chosen)}",
            field="splitter",
        )
    kind = chosen[0]
    ctor = kind.constructor(constructor)
    params = kind.params_of(constructor)
    positional = ctor.positional if constructor else kind.positional
    given: list[tuple[str, Any]] = []
    written: list[str] = []
    if len(call.args) > len(positional):
        raise ChunkerError(
            f"{cls}{'.' + constructor if constructor else ''} takes {len(positional)} positional argument(s)"
            f"{' (' + ', '.join(positional) + ')' if positional else ''}, got {len(call.args)}: name the others",
            field="splitter",
        )
    pairs: list[tuple[str, ast.expr]] = list(zip(positional, call.args))
    for kw in call.keywords:
        if kw.arg is None:
            raise ChunkerError(f"**{_one_line(ast.unparse(kw.value))} is not read: write each argument out", field="splitter")
        pairs.append((kw.arg, kw.value))
    for i, (name, node) in enumerate(pairs):
        param = params.get(name)
        if param is None:
            raise ChunkerError(
                f"{cls}{'.' + constructor if constructor else ''} has no parameter {name!r} here: "
                f"supported are {', '.join(params)}",
                field="splitter",
            )
        if any(k == name for k, _ in given):
            raise ChunkerError(f"{name} is given twice: give it once", field="splitter")
        given.append((name, _value(param, name, node)))
        written.append(ast.unparse(node) if i < len(call.args) else f"{name}={ast.unparse(node)}")
    values = {n: p.default for n, p in params.items()}
    values.update(given)
    if kind.check is not None:
        kind.check(values, constructor)
    code = f"{cls}{'.' + constructor if constructor else ''}({', '.join(written)})"
    return SplitterCall(kind.framework, cls, constructor, tuple(given), code)


_LITERAL = "write the value itself (a number, a string, True or False, a list), not a variable or a call"


def _value(param: Param, name: str, node: ast.expr) -> Any:
    if param.expression:
        return Expression(ast.unparse(node))
    dotted = _dotted(node)
    if dotted is not None:
        text = ".".join(dotted)
        if text in param.names:
            return param.check(text, name)
        if text not in ("True", "False", "None"):
            hint = _LITERAL
            if param.names:
                hint = f"write one of {', '.join(param.names[:6])}{', ...' if len(param.names) > 6 else ''}"
            raise ChunkerError(f"{name}={_one_line(text)} is not a literal: {hint}", field="splitter")
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise ChunkerError(f"{name}={_one_line(ast.unparse(node))} is not a literal: {_LITERAL}", field="splitter") from None
    return param.check(value, name)
