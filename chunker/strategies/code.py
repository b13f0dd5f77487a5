"""Strategy `code`: source code cut at its definitions.

Python is cut by its syntax tree (the standard library's `ast`, so it runs in the page too).
A body's statements are its units: at the top level the functions, classes and statements of
the module; a unit that does not fit the size is split into its own body (a class into its
header and methods, a function into its header and statements, an ``if`` or ``try`` into the
statements of its branches), down to single statements, which are then cut at lines, words
and characters. A unit keeps its decorators and the comment lines right above it, and a
definition's docstring stays in its header. Units are whole pieces to the packer, so a
definition that fits the size is never cut; pieces are packed up to the size, the overlap is
whole trailing pieces, and the parts of a split unit never share a chunk with the text around
it. Each chunk's `headings` is the qualified path of the innermost definition holding all of
it: ``("Parser", "feed")`` for a method, ``("Parser",)`` for its class's header with some
methods, ``()`` for module-level code.

The syntax tree gives lines (and UTF-8 byte columns); every cut here falls at the start or end
of a line, so no byte column is ever taken for a code-point offset. Lines end where Python's
tokenizer ends them: at ``\\n``, ``\\r\\n`` or ``\\r`` only (not at a form feed or U+2028, as
`str.splitlines` would).

Every other language (and Python that does not parse: a fragment, a newer syntax than this
interpreter's, a template) is cut at its separators, coarsest first (see `_languages`): a piece
that fits is kept whole, one that does not is cut at the next separator. The language is the
`language` setting, or from the file name's extension (``source``), else Python.
"""

from __future__ import annotations

import ast
import re
import warnings
from array import array
from collections.abc import Sequence
from typing import Any

from ..text._segments import line_spans, position_kind
from ..tokens._measure import Measure
from ._languages import AUTO, LANGUAGES, language_of
from ._pack import Leaves, Spans, cascade, pack_columns

__all__ = ["split", "python_tree"]

_LINE_END = re.compile(r"\r\n|\r|\n")
_NONSPACE = re.compile(r"\S")
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_SEPARATORS: dict[str, re.Pattern[str]] = {}


def split(
    text: str,
    *,
    size: int,
    overlap: int,
    measure: Measure,
    breaks: tuple[str, ...] = (),
    language: str = AUTO,
    source: str | None = None,
) -> Spans:
    """
    >>> from chunker import chunk
    >>> code = "import os\\n\\n\\nclass A:\\n    def f(self):\\n        return 1\\n\\n    def g(self):\\n        return 2\\n"
    >>> [(c.text, c.headings) for c in chunk(code, strategy="code", unit="chars", size=45, overlap=0)][1:]
    [('class A:\\n    def f(self):\\n        return 1', ('A',)),
     ('def g(self):\\n        return 2', ('A', 'g'))]
    """
    lang = language_of(language, source)
    leaves = Leaves(position_kind(len(text)))
    paths: list[tuple[str, ...]] = []  # each piece's qualified path
    tree = python_tree(text) if lang == "python" else None
    note = ""
    if tree is not None:
        try:
            _Python(text, measure, size, leaves, paths).module(tree)
        except RecursionError:
            # An elif is an `if` inside the one before it, with no indentation to bound how
            # deep: a chain of some 500 branches parses, but splitting it branch into branch
            # goes past the interpreter's recursion limit. Start again at the separators.
            tree, leaves, paths = None, Leaves(position_kind(len(text))), []
            note = (
                "Python nested too deeply to follow (a long elif chain): "
                "cut at Python's separators instead, with no heading paths"
            )
    if tree is None:
        if lang == "python" and text.strip() and not note:
            note = f"not Python that parses ({_why_not_python(text)}): cut at Python's separators instead, with no heading paths"
        _separated(text, 0, len(text), LANGUAGES[lang].separators, measure, size, leaves)
        paths = [()] * len(leaves)
    firsts, lasts = pack_columns(leaves.starts, leaves.ends, size=size, overlap=overlap, measure=measure, hard=leaves.hard)
    kind = leaves.starts.typecode
    find = leaves.cut.find
    out = Spans(
        array(kind, map(leaves.starts.__getitem__, firsts)),
        array(kind, map(leaves.ends.__getitem__, lasts)),
        bytearray(find(1, i, j + 1) >= 0 for i, j in zip(firsts, lasts)),
        [_common(paths, i, j) for i, j in zip(firsts, lasts)],
    )
    out.notes = (note,) if note else ()
    return out


def python_tree(text: str) -> ast.Module | None:
    """`text`'s syntax tree, or None when it is not Python this interpreter parses."""
    # A byte order mark opens many files Python runs, but ast takes a str without one; the
    # line numbers stay the same without it.
    source = text[1:] if text.startswith("\ufeff") else text
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarnings ("\d" in a string) are the file's, not ours to print
            return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None


def _why_not_python(text: str) -> str:
    """Why `python_tree` found no tree: the parser's message and line, in a few words."""
    source = text[1:] if text.startswith("\ufeff") else text
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(source)
    except SyntaxError as e:
        return f"{e.msg} at line {e.lineno}" if e.lineno else str(e.msg)
    except (ValueError, RecursionError, MemoryError, OverflowError) as e:
        return type(e).__name__
    return "no tree"


def _common(paths: Sequence[tuple[str, ...]], i: int, j: int) -> tuple[str, ...]:
    """The longest path every piece i..j lies in."""
    common = paths[i]
    for k in range(i + 1, j + 1):
        other = paths[k]
        if other[: len(common)] != common:
            n = 0
            while n < len(common) and n < len(other) and common[n] == other[n]:
                n += 1
            common = common[:n]
    return common


def _separated(text: str, start: int, end: int, separators: Sequence[str], measure: Measure, size: int, leaves: Leaves) -> None:
    """Pieces of text[start:end] at the first separator that cuts it, each piece that does not
    fit cut again at the separators after it; past the last one, between characters."""
    for i, sep in enumerate(separators):
        if not sep:
            break
        pattern = _SEPARATORS.get(sep)
        if pattern is None:
            pattern = _SEPARATORS[sep] = re.compile(sep)
        # A match starts the next piece (LangChain's keep_separator); one at either end cuts nothing.
        cuts = [m.start() for m in pattern.finditer(text, start, end) if start < m.start() < end]
        if not cuts:
            continue
        cut = sep == " "  # words of a line: the line was cut to fit
        for a, b in zip([start, *cuts], [*cuts, end]):
            m = _NONSPACE.search(text, a, b)
            if m is None:
                continue
            a = m.start()
            b = a + len(text[a:b].rstrip())
            if measure.over(a, b, size):
                leaves.hard.add(len(leaves))
                _separated(text, a, b, separators[i + 1 :], measure, size, leaves)
                leaves.hard.add(len(leaves))
            else:
                leaves.add(a, b, cut)
        return
    m = _NONSPACE.search(text, start, end)
    if m is not None:
        stop = m.start() + len(text[m.start() : end].rstrip())
        cascade(text, m.start(), stop, 0, measure=measure, size=size, leaves=leaves, levels=("char",))


def _first_line(node: ast.stmt) -> int:
    decorators = getattr(node, "decorator_list", None)
    return min(node.lineno, *(d.lineno for d in decorators)) if decorators else node.lineno


def _children(node: ast.stmt) -> list[ast.stmt]:
    """The statements of every body `node` holds (branches, handlers and cases too), in order."""
    out: list[ast.stmt] = []
    for name in ("body", "handlers", "cases", "orelse", "finalbody"):
        for item in getattr(node, name, None) or ():
            if isinstance(item, ast.stmt):
                out.append(item)
            else:  # an except handler or a match case: its own body
                out.extend(item.body)
    out.sort(key=_first_line)
    return out


def _units(nodes: Sequence[ast.stmt]) -> list[tuple[int, int, list[ast.stmt]]]:
    """Statements as (first line, last line, statements): statements sharing a line are one."""
    units: list[tuple[int, int, list[ast.stmt]]] = []
    for node in nodes:
        first, last = _first_line(node), node.end_lineno or node.lineno
        if units and first <= units[-1][1]:
            top, bottom, group = units[-1]
            # Appended in place: copying the group for each statement would be quadratic on
            # a line of many (``x=1;x=1;...``).
            group.append(node)
            units[-1] = (top, max(bottom, last), group)
        else:
            units.append((first, last, [node]))
    return units


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


class _Python:
    """One Python text cut into pieces, each with its qualified path."""

    def __init__(self, text: str, measure: Measure, size: int, leaves: Leaves, paths: list[tuple[str, ...]]) -> None:
        self.text, self.measure, self.size, self.leaves, self.paths = text, measure, size, leaves, paths
        # starts[k] is where line k + 1 starts; the text's end closes the last line.
        self.starts = [0, *(m.end() for m in _LINE_END.finditer(text))]

    # -- lines

    def line(self, k: int) -> tuple[int, int]:
        """Line k (from 1) without its line end."""
        starts = self.starts
        a = starts[k - 1]
        b = starts[k] if k < len(starts) else len(self.text)
        while b > a and self.text[b - 1] in "\r\n":
            b -= 1
        return a, b

    def blank(self, k: int) -> bool:
        a, b = self.line(k)
        return _NONSPACE.search(self.text, a, b) is None

    def indent(self, k: int) -> int:
        a, b = self.line(k)
        m = _NONSPACE.search(self.text, a, b)
        return (m.start() if m else b) - a

    def span(self, first: int, last: int) -> tuple[int, int]:
        """Lines first..last, trimmed (an empty span when they are blank)."""
        if first > last:
            return 0, 0
        a = self.line(first)[0]
        m = _NONSPACE.search(self.text, a, self.line(last)[1])
        if m is None:
            return 0, 0
        while self.blank(last):
            last -= 1
        b0, b = self.line(last)
        return m.start(), b0 + len(self.text[b0:b].rstrip())

    def runs(self, first: int, last: int) -> list[tuple[int, int]]:
        """The runs of non-blank lines in first..last."""
        out: list[tuple[int, int]] = []
        for k in range(first, last + 1):
            if self.blank(k):
                continue
            if out and out[-1][1] == k - 1:
                out[-1] = (out[-1][0], k)
            else:
                out.append((k, k))
        return out

    def starts_line(self, node: ast.stmt) -> bool:
        """Nothing comes before `node` on its first line (a header's text would)."""
        if getattr(node, "decorator_list", None):
            return True  # a decorator opens its own line
        # Indentation is ASCII, so its width in UTF-8 bytes (col_offset) is its width in characters.
        return self.indent(node.lineno) == node.col_offset

    # -- pieces

    def add(self, a: int, b: int, path: tuple[str, ...], cut: bool = False) -> None:
        self.leaves.add(a, b, cut)
        self.paths.append(path)

    def hard(self) -> None:
        self.leaves.hard.add(len(self.leaves))

    def over(self, a: int, b: int) -> bool:
        return self.measure.over(a, b, self.size)

    def lines(self, first: int, last: int, path: tuple[str, ...]) -> None:
        """Lines first..last as one piece, or cut at lines, words and characters to fit."""
        a, b = self.span(first, last)
        if a >= b:
            return
        if not self.over(a, b):
            self.add(a, b, path)
            return
        self.cut(a, b, path)

    def cut(self, a: int, b: int, path: tuple[str, ...]) -> None:
        leaves = self.leaves
        self.hard()
        for s, e in line_spans(self.text, a, b):
            if not self.over(s, e):
                self.add(s, e, path)
                continue
            self.hard()
            cascade(self.text, s, e, 0, measure=self.measure, size=self.size, leaves=leaves, levels=("word", "char"))
            self.paths.extend([path] * (len(leaves) - len(self.paths)))
            self.hard()
        self.hard()

    # -- units

    def module(self, tree: ast.Module) -> None:
        self.region(_units(tree.body), 1, len(self.starts), ())

    def region(self, units: list[tuple[int, int, list[ast.stmt]]], first: int, last: int, path: tuple[str, ...]) -> None:
        """The units of one body, in lines first..last. The comment lines right above a unit
        (and a branch's ``else:``, ``except E:``) go with it; lines right after a unit and
        indented deeper than it (a comment at the end of its body) too; any other run of
        lines between units is a piece of its own."""
        # [first, last, own first, own last, statements]; a run of lines of its own has no statements.
        items: list[list[Any]] = []
        prev = first - 1
        for top, bottom, nodes in [*units, (last + 1, last + 1, [])]:
            gap = self.runs(prev + 1, min(top - 1, last))
            lead = top
            if nodes and gap and gap[-1][1] == top - 1:
                lead = gap.pop()[0]
            if gap and items and items[-1][4] and gap[0][0] == prev + 1 and self.indent(gap[0][0]) > self.indent(items[-1][2]):
                items[-1][1] = gap.pop(0)[1]
            items.extend([a, b, a, b, []] for a, b in gap)
            if nodes:
                items.append([lead, bottom, top, bottom, nodes])
            prev = bottom
        for a, b, own_a, own_b, nodes in items:
            if nodes:
                self.unit(a, b, own_a, own_b, nodes, path)
            else:
                self.lines(a, b, path)

    def unit(self, first: int, last: int, own_first: int, own_last: int, nodes: list[ast.stmt], path: tuple[str, ...]) -> None:
        node = nodes[0] if len(nodes) == 1 else None
        own = (*path, node.name) if isinstance(node, _DEFS) else path
        a, b = self.span(first, last)
        if a >= b:
            return
        if not self.over(a, b):
            self.add(a, b, own)
            return
        if (first, last) != (own_first, own_last):
            # With its comments it is too big, alone it fits: the comments go apart, the
            # definition stays whole.
            na, nb = self.span(own_first, own_last)
            if not self.over(na, nb):
                self.lines(first, own_first - 1, path)
                self.add(na, nb, own)
                self.lines(own_last + 1, last, path)
                return
        body = _children(node) if node is not None else []
        if not body or not self.starts_line(body[0]):
            self.cut(a, b, own)  # one statement (or a body on its header's line): lines, words, characters
            return
        units = _units(body)
        if isinstance(node, _DEFS) and _is_docstring(body[0]):
            head_last = units.pop(0)[1]  # the docstring stays in the header
        else:
            head_last = units[0][0] - 1
            while head_last > own_first and (self.blank(head_last) or self.comment(head_last)):
                head_last -= 1
        self.hard()
        self.lines(first, head_last, own)
        self.region(units, head_last + 1, last, own)
        self.hard()

    def comment(self, k: int) -> bool:
        a, b = self.line(k)
        m = _NONSPACE.search(self.text, a, b)
        return m is not None and self.text[m.start()] == "#"
