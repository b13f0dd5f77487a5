"""The one exception the library raises for bad input.

    ValueError
     └── ChunkerError      bad settings or input; str(e) is one readable line that names
                           the offending value and says what to pass instead
"""

from __future__ import annotations

__all__ = ["ChunkerError"]


class ChunkerError(ValueError):
    """Bad settings or input. The message is one line, fit to show a user as is."""
