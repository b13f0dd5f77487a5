"""Questions with their answer spans, read from and written to JSON Lines.

One JSON object per line, with the field names of Chroma's chunking evaluation, so that its
datasets load as they are::

    {"question": "How long does a deployment take?",
     "references": [{"start_index": 402, "end_index": 446, "content": "about twelve minutes"}]}

Offsets are code points (Python string indices) into the document exactly as given: no
newline translation, no byte or UTF-16 offsets. `content` is optional; where it is given it
must equal ``document[start_index:end_index]``, which catches offsets meant for another
version of the document. Other keys (Chroma's ``corpus_id``) are ignored.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .._errors import ChunkerError, printable, shown
from ..text._segments import LONE_SURROGATE

__all__ = ["Question", "Reference", "dump_questions", "load_questions"]


@dataclass(frozen=True)
class Reference:
    """One answer span: ``content == document[start_index:end_index]``, never empty."""

    start_index: int
    end_index: int
    content: str

    def __post_init__(self) -> None:
        start, end = self.start_index, self.end_index
        if not (_whole(start) and _whole(end) and isinstance(self.content, str)):
            raise ChunkerError(
                f"a reference needs whole-number offsets and a str content, got "
                f"({shown(start, 40)}, {shown(end, 40)}, {type(self.content).__name__})"
            )
        if max(abs(start), abs(end)) >= _MAX_OFFSET:  # no document holds it, and its digits would fill the message
            raise ChunkerError(f"a reference's offsets are code points into a document: at most {_MAX_OFFSET - 1:,}")
        if not 0 <= start < end:
            raise ChunkerError(f"reference [{start}, {end}) is empty or reversed: give 0 <= start_index < end_index")
        if end - start != len(self.content):
            raise ChunkerError(
                f"reference [{start}, {end}) spans {end - start} characters but its "
                f"content has {len(self.content)}: give content = document[start:end]"
            )

    def to_dict(self) -> dict[str, Any]:
        return {"start_index": self.start_index, "end_index": self.end_index, "content": self.content}


@dataclass(frozen=True)
class Question:
    """A question and the spans of the document that answer it (a list becomes a tuple)."""

    question: str
    references: tuple[Reference, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.question, str) or not self.question.strip():
            raise ChunkerError(f"a question must be a non-empty str, got {shown(self.question, 60)}")
        # A non-iterable (None, one Reference) is no list of them either.
        refs = tuple(self.references) if isinstance(self.references, Iterable) else ()
        if not refs or not all(isinstance(r, Reference) for r in refs):
            raise ChunkerError(f"question {_preview(self.question)} needs at least one Reference")
        object.__setattr__(self, "references", refs)

    def to_dict(self) -> dict[str, Any]:
        return {"question": self.question, "references": [r.to_dict() for r in self.references]}


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _kind(value: Any) -> str:
    """What a JSON value is, in JSON's words."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    return "a string" if isinstance(value, str) else "an array" if isinstance(value, list) else "an object"


def _preview(text: str, limit: int = 40) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "…")


def _shown(value: Any, limit: int = 60) -> str:
    """A JSON value as the file has it, cut short (a message is one line)."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (ValueError, RecursionError, TypeError):  # what json.loads gave, it dumps; not any other value
        text = _kind(value)
    return printable(text, limit)  # JSON keeps U+2028 as it is


# An offset past this is no offset into any document a str can hold, and its digits would
# fill the message.
_MAX_OFFSET = 1 << 62


def _offset(value: Any, where: str, name: str) -> int:
    if isinstance(value, _Rounded):
        raise ChunkerError(f"{where}: {name} must be a whole number (a code-point offset), got {printable(value.digits, 40)}")
    if isinstance(value, float) and value.is_integer() and abs(value) < _MAX_OFFSET:
        return int(value)  # JSON writers that only know floats write 12.0
    if not _whole(value) or abs(value) >= _MAX_OFFSET:
        raise ChunkerError(f"{where}: {name} must be a whole number (a code-point offset), got {_shown(value)}")
    return int(value)


def _reference(raw: Any, document: str, where: str) -> Reference:
    if not isinstance(raw, dict):
        raise ChunkerError(f"{where}: must be an object with start_index and end_index, got {_shown(raw)}")
    for name in ("start_index", "end_index"):
        if name not in raw:
            raise ChunkerError(f"{where}: {name} is missing")
    start = _offset(raw["start_index"], where, "start_index")
    end = _offset(raw["end_index"], where, "end_index")
    n = len(document)
    if start < 0 or end > n:
        raise ChunkerError(
            f"{where}: [{start}, {end}) lies outside the document of {n:,} characters: offsets are code points from 0 to {n}"
        )
    if end <= start:
        what = "empty" if end == start else "reversed"
        raise ChunkerError(f"{where}: [{start}, {end}) is {what}: end_index must be greater than start_index")
    found = document[start:end]
    content = raw.get("content")
    if content is not None:
        if not isinstance(content, str):
            raise ChunkerError(f"{where}: content must be a string, got {_shown(content)}")
        if content != found:
            at = document.find(content) if content else -1
            hint = (
                f"that text is at [{at}, {at + len(content)}): fix the offsets"
                if at >= 0
                else "fix the offsets (code points into this very document) or the content"
            )
            raise ChunkerError(
                f"{where}: content {_preview(content)} does not match the document at "
                f"[{start}, {end}), which holds {_preview(found)}; {hint}"
            )
    return Reference(start, end, found)


def _question(raw: Any, document: str, where: str) -> Question:
    if not isinstance(raw, dict):
        raise ChunkerError(f'{where}: expected an object with "question" and "references", got {_kind(raw)}')
    if "question" not in raw:
        raise ChunkerError(f'{where}: "question" is missing')
    text = raw["question"]
    if not isinstance(text, str):
        raise ChunkerError(f'{where}: "question" must be a string, got {_shown(text)}')
    if not text.strip():
        raise ChunkerError(f'{where}: "question" is empty: write the question a user would ask')
    if "references" not in raw:
        raise ChunkerError(
            f'{where}: "references" is missing: give the answer spans as [{{"start_index": ..., "end_index": ...}}]'
        )
    refs = raw["references"]
    if not isinstance(refs, list):
        raise ChunkerError(f'{where}: "references" must be an array of spans, got {_shown(refs)}')
    if not refs:
        raise ChunkerError(f'{where}: "references" is empty: mark at least one answer span')
    return Question(text, tuple(_reference(r, document, f"{where}, reference {k}") for k, r in enumerate(refs, 1)))


def load_questions(jsonl_text: str, document: str) -> tuple[Question, ...]:
    """Read questions from JSON Lines and check every span against `document`.

    Blank lines are skipped; anything else wrong raises `ChunkerError` naming the line.
    A reference without `content` gets it from the document.

    >>> doc = "Deploys take twelve minutes. Rollback takes one."
    >>> qs = load_questions('{"question": "How long is a deploy?", '
    ...                     '"references": [{"start_index": 13, "end_index": 27}]}', doc)
    >>> qs[0].references[0].content
    'twelve minutes'
    >>> load_questions('{"question": "Why?", "references": []}', doc)
    Traceback (most recent call last):
    ...
    chunker._errors.ChunkerError: line 1: "references" is empty: mark at least one answer span
    """
    if not isinstance(jsonl_text, str):
        raise ChunkerError(f"questions must be JSON Lines text (a str), got {type(jsonl_text).__name__}")
    if not isinstance(document, str):
        raise ChunkerError(f"document must be a str, got {type(document).__name__}")
    out = []
    # Only "\n" ends a line: JSON strings may hold U+2028 and other breaks splitlines() cuts at.
    for number, line in enumerate(jsonl_text.split("\n"), 1):
        line = line.rstrip("\r")
        if number == 1:
            line = line.removeprefix("\ufeff")  # a byte-order mark some editors write
        if not line.strip():
            continue
        where = f"line {number}"
        try:
            if _too_deep(line):
                raise RecursionError
            raw = json.loads(line, parse_int=_parse_int, parse_float=_parse_float)
        except json.JSONDecodeError as e:
            raise ChunkerError(f"{where}: not valid JSON ({e.msg} at column {e.colno}): write one JSON object per line") from None
        except RecursionError:
            raise ChunkerError(
                f'{where}: nested too deep to be a question: write one object with "question" and "references"'
            ) from None
        except ValueError as e:  # a number too long to read (see _parse_int)
            raise ChunkerError(f"{where}: {e}") from None
        _surrogates(raw, where)
        out.append(_question(raw, document, where))
    return tuple(out)


_MAX_DEPTH = 64
"""A question is nested three deep (the object, its references, each reference). Deeper JSON
is refused before it is parsed: the page's Python ran out of JavaScript stack inside
json.loads at some 3,000 levels, before its own recursion check, and could not go on."""

# A string left open runs to the end of the line (json.loads then says it is not JSON): a
# pattern that needs the closing quote tries again from every later quote, in quadratic time.
_NESTING = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[{]|[\]}]')


def _too_deep(line: str) -> bool:
    """Whether brackets outside strings nest past _MAX_DEPTH (a line of fewer cannot)."""
    if line.count("[") + line.count("{") <= _MAX_DEPTH:
        return False
    depth = 0
    for m in _NESTING.finditer(line):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > _MAX_DEPTH:
                return True
        elif c in "]}":
            depth -= 1
    return False


_MAX_DIGITS = 30


def _parse_int(digits: str) -> int:
    """A JSON integer; past _MAX_DIGITS it is no offset (and int() refuses 4,300 digits)."""
    if len(digits.lstrip("-")) > _MAX_DIGITS:
        raise ValueError(f"a number of {len(digits):,} digits is no offset into a document: offsets are code points")
    return int(digits)


class _Rounded(float):
    """A JSON number that is no whole number although its float is one (0.000…1 underflows to
    0.0, 12.0000000000000001 rounds to 12.0): an offset it is not."""

    digits: str


def _parse_float(digits: str) -> float:
    value = float(digits)
    if not value.is_integer():
        return value
    from decimal import Decimal, InvalidOperation

    try:
        exact = Decimal(digits) == value  # exact: a Decimal compares with a float exactly
    except InvalidOperation:
        # An exponent past what a Decimal holds (1e-99999999999999999999): its float is 0.0
        # (a larger one is inf, no whole number), which it is only if its digits are all 0.
        exact = not any(d in "123456789" for d in digits.lower().partition("e")[0])
    if not exact:
        rounded = _Rounded(value)
        rounded.digits = digits
        return rounded
    return value  # 12.0, 1.2e1: JSON writers that only know floats write them


def _surrogates(raw: Any, where: str) -> None:
    """A \\ud800-style escape that is not half of a pair is no character: no UTF-8 text (and
    no document read from one) can hold it. json.loads joins the pairs, so any surrogate left
    in a string is such an escape."""
    stack = [raw]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            m = LONE_SURROGATE.search(v)
            if m is not None:
                raise ChunkerError(
                    f"{where}: the escape \\u{ord(m.group()):04x} is half of a surrogate "
                    "pair, which is no character: write the character itself, or both halves"
                )
        elif isinstance(v, dict):
            stack.extend(v)
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)


def dump_questions(questions: Iterable[Question]) -> str:
    """The questions as JSON Lines, `content` included: `load_questions` reads it back.

    >>> q = Question("Who?", (Reference(0, 3, "Ada"),))
    >>> print(dump_questions([q]), end="")
    {"question": "Who?", "references": [{"start_index": 0, "end_index": 3, "content": "Ada"}]}
    """
    if not isinstance(questions, Iterable):
        raise ChunkerError(f"dump_questions takes a list of Question records, got {type(questions).__name__}")
    out = []
    for q in questions:
        if not isinstance(q, Question):
            raise ChunkerError(f"dump_questions takes Question records, got {type(q).__name__}")
        out.append(json.dumps(q.to_dict(), ensure_ascii=False).translate(_LINE_BREAKS) + "\n")
    return "".join(out)


# Line breaks JSON may leave raw inside strings, escaped: a reader that splits the file with
# str.splitlines() (or JavaScript's line terminators) must still see one object per line.
_LINE_BREAKS = {0x85: "\\u0085", 0x2028: "\\u2028", 0x2029: "\\u2029"}
