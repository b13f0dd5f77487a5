"""The one exception the library raises for bad input.

ValueError
 └── ChunkerError      bad settings or input; str(e) is one readable line that names
                       the offending value and says what to pass instead
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["ChunkerError"]


class ChunkerError(ValueError):
    """Bad settings or input. The message is one line, fit to show a user as is; `field` names
    the setting it is about (``"size"``, ``"overlap"``...), when it is about one.

    >>> ChunkerError("size must be a positive number, got -1", field="size").field
    'size'
    """

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def check_str_list(value: object, name: str, one: str) -> None:
    """Refuse a str, or anything that is no iterable, where a list of str is asked: a str is
    iterable too, and each of its characters would be taken as one `one`."""
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise ChunkerError(f"{name} must be a list of str, got {type(value).__name__}: give [{one}] for one {one}")


def shown(value: object, limit: int = 60) -> str:
    """A value as a message quotes it: its repr, on one line (characters that are not printable,
    line breaks and lone surrogates among them, escaped), cut to `limit`; an int too long to
    print by its size, and an object whose repr fails by its type.

    >>> shown("a\\nb"), shown(10**5000), shown(list(range(100)), 20)
    ("'a\\\\nb'", 'an int of 5,001 digits', '[0, 1, 2, 3, 4, 5, 6…')
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return (
            f"an int of {len(str(abs(value))) if value.bit_length() < 14_000 else int(value.bit_length() * 0.30103) + 1:,} digits"
        )
    try:
        text = repr(value)
    except Exception:  # a repr that fails, or Python's limit on an int's digits
        return type(value).__name__
    return printable(text, limit)


def printable(text: str, limit: int = 60) -> str:
    """`text` on one line: characters that are not printable (line breaks, U+2028, lone
    surrogates...) escaped, cut to `limit` with an ellipsis."""
    text = "".join(
        c if c.isprintable() else c.encode("unicode_escape", "backslashreplace").decode("ascii") for c in text[: limit + 1]
    )
    return text if len(text) <= limit else text[:limit] + "…"


def one_line(e: BaseException) -> str:
    """An exception from deep inside a reader as a short clause for our one-line errors."""
    text = " ".join(str(e).split()) or type(e).__name__
    return text if len(text) <= 120 else text[:117] + "..."
