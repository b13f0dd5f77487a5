"""The one exception the library raises for bad input.

ValueError
 └── ChunkerError      bad settings or input; str(e) is one readable line that names
                       the offending value and says what to pass instead
"""

from __future__ import annotations

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


def one_line(e: BaseException) -> str:
    """An exception from deep inside a reader as a short clause for our one-line errors."""
    text = " ".join(str(e).split()) or type(e).__name__
    return text if len(text) <= 120 else text[:117] + "..."
