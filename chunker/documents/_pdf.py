"""PDF to text with pypdf: each page's lines, with the size and place pypdf drew them at, go
to `_layout.lines_to_text`, which documents how pages, headings and paragraphs come out.

pypdf is imported here, lazily. It reports problems through the `logging` module (and now and
then `warnings`); while it reads, both are captured, so nothing is printed, and any failure
becomes one `ChunkerError` line.
"""

from __future__ import annotations

import contextlib
import io
import logging
import math
import warnings
from collections.abc import Callable, Iterator
from typing import Any

from .._errors import ChunkerError
from .._errors import one_line as _one_line
from ._layout import Line, lines_to_text

__all__ = ["pdf_to_text"]

_INSTALL = "pip install 'chunker[documents]' (or pip install pypdf)"


def pdf_to_text(data: bytes, *, label: str, keep_running: bool = False,
                progress: Callable[[int, int], None] | None = None) -> tuple[str, tuple[int, ...]]:
    """The text of a PDF given as bytes, and the offset where each page starts in it."""
    try:
        import pypdf
    except ImportError:
        raise ChunkerError(f"{label}: reading PDF needs the pypdf package: {_INSTALL}") from None
    if b"%%EOF" not in data[-4096:]:
        # pypdf would rebuild what it can and quietly return part of the text.
        raise ChunkerError(f"{label} looks truncated (the PDF does not end with %%EOF): copy or "
                           "download it again")
    with _quiet():
        reader = _open(pypdf, data, label)
        try:
            count = len(reader.pages)
        except Exception as e:
            raise _damaged(label, e) from None
        if count == 0:
            raise ChunkerError(f"{label} has no pages")
        pages = []
        for number in range(count):
            try:
                pages.append(_page_lines(reader.pages[number]))
            except Exception as e:
                raise ChunkerError(f"{label}: page {number + 1} of {count} cannot be read "
                                   f"({_one_line(e)}); the PDF may be damaged") from None
            if progress is not None:
                progress(number + 1, count)
    if not any(line.text.strip() for page in pages for line in page):
        raise ChunkerError(f"{label} has no text layer (it looks scanned, or its pages are "
                           "images); OCR is not done here: run it through an OCR tool first")
    return lines_to_text(pages, keep_running=keep_running)


def _open(pypdf: Any, data: bytes, label: str) -> Any:
    try:
        reader = pypdf.PdfReader(io.BytesIO(data), strict=False)
    except Exception as e:
        raise _damaged(label, e) from None
    if reader.is_encrypted:
        # Many PDFs are encrypted only to restrict printing or copying: their user password
        # is empty, and they open without one, as in any viewer.
        try:
            opened = reader.decrypt("")
        except pypdf.errors.DependencyError:
            raise ChunkerError(f"{label} is encrypted with AES: even without a password, opening "
                               "it needs the cryptography package (pip install cryptography); "
                               "or save an unencrypted copy") from None
        except Exception as e:
            raise ChunkerError(f"{label} is encrypted and cannot be opened ({_one_line(e)}): "
                               "save an unencrypted copy") from None
        if not opened:
            raise ChunkerError(f"{label} is encrypted: it needs a password; save an unencrypted "
                               "copy (e.g. print it to PDF from a viewer) and try again")
    return reader


def _page_lines(page: Any) -> list[Line]:
    """The page's lines as pypdf writes them, each with its font size and position when the
    pieces pypdf reported add up to its text (they always have; the check keeps us honest)."""
    pieces: list[tuple[str, list[float], list[float], float]] = []

    def visit(text: str, cm: list[float], tm: list[float], font: Any, size: float) -> None:
        if text:
            pieces.append((text, cm, tm, size))

    text = page.extract_text(visitor_text=visit)
    if "".join(p[0] for p in pieces) != text:
        return [Line(t) for t in text.split("\n")]
    lines: list[Line] = []
    chars: dict[float, int] = {}  # the current line's characters by size
    place: tuple[float, float] | None = None
    parts: list[str] = []
    for piece, cm, tm, size in pieces:
        geometry: tuple[float, float, float] | None = None
        for n, chunk in enumerate(piece.split("\n")):
            if n:
                lines.append(_line(parts, chars, place))
                parts, chars, place = [], {}, None
            if chunk.strip():
                if geometry is None:
                    geometry = _geometry(cm, tm, size)
                if geometry is not None:
                    rendered, x, y = geometry
                    chars[rendered] = chars.get(rendered, 0) + len(chunk.strip())
                    if place is None:
                        place = (x, y)
            parts.append(chunk)
    lines.append(_line(parts, chars, place))
    return lines


def _line(parts: list[str], chars: dict[float, int], place: tuple[float, float] | None) -> Line:
    size = max(chars, key=chars.__getitem__) if chars else None
    x, y = place if place is not None else (None, None)
    return Line("".join(parts), size, x, y)


def _geometry(cm: list[float], tm: list[float], size: float) -> tuple[float, float, float] | None:
    """The size text is drawn at (the font size scaled by the text and page matrices) and
    where it starts on the page."""
    try:
        a = tm[0] * cm[0] + tm[1] * cm[2]
        b = tm[0] * cm[1] + tm[1] * cm[3]
        c = tm[2] * cm[0] + tm[3] * cm[2]
        d = tm[2] * cm[1] + tm[3] * cm[3]
        x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
        y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
        rendered = round(float(size) * math.sqrt(abs(a * d - b * c)), 2)
    except (TypeError, ValueError, IndexError):
        return None
    return (rendered, x, y) if rendered > 0 and math.isfinite(x + y) else None


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Keep pypdf's log records and warnings from reaching the terminal while it reads."""
    logger = logging.getLogger("pypdf")
    handler = logging.NullHandler()
    old = logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        logger.removeHandler(handler)
        logger.propagate = old


def _damaged(label: str, e: BaseException) -> ChunkerError:
    return ChunkerError(f"{label} is not a readable PDF ({_one_line(e)}): it may be damaged or "
                        "truncated; copy or download it again")

