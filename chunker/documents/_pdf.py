"""PDF to text with pypdf: each page's lines, with the size and place pypdf drew them at, go
to `_layout.lines_to_text`, which documents how pages, headings and paragraphs come out.

pypdf is imported here, lazily. It reports problems through the `logging` module (and now and
then `warnings`); while it reads, both are captured, so nothing is printed, and any failure
becomes one `ChunkerError` line.

pypdf spends about 50 µs on each drawing operation and a few ms on each page, and a small file
can ask for millions of either (a content stream that inflates a thousandfold, forms drawn
within forms, one page object listed 50,000 times), so the work is bounded by the file's
size: a budget of `WORK_BASE` plus `WORK_PER_BYTE` units a byte, where an operation is one
unit, a page `PAGE_COST` and each byte of content to parse an eighth. A real PDF needs a
fraction of its budget (an operation takes several bytes of compressed content); a file that
overdraws it is refused in one line, early rather than after minutes.
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

_INSTALL = "pip install 'chunkscope[documents]' (or pip install pypdf)"
WORK_BASE = 100_000
WORK_PER_BYTE = 2
PAGE_COST = 50


class _Overdrawn(Exception):
    pass


class _Budget:
    def __init__(self, units: int) -> None:
        self.left = units

    def spend(self, units: int) -> None:
        self.left -= units
        if self.left < 0:
            raise _Overdrawn


def pdf_to_text(
    data: bytes, *, label: str, keep_running: bool = False, progress: Callable[[int, int], None] | None = None
) -> tuple[str, tuple[int, ...]]:
    """The text of a PDF given as bytes, and the offset where each page starts in it."""
    try:
        import pypdf
    except ImportError:
        raise ChunkerError(f"{label}: reading PDF needs the pypdf package: {_INSTALL}") from None
    if b"%%EOF" not in data[-4096:]:
        # pypdf would rebuild what it can and quietly return part of the text.
        raise ChunkerError(f"{label} looks truncated (the PDF does not end with %%EOF): copy or download it again")
    with _quiet():
        reader = _open(pypdf, data, label)
        try:
            count = len(reader.pages)
        except Exception as e:
            raise _damaged(label, e) from None
        if count == 0:
            raise ChunkerError(f"{label} has no pages")
        budget = _Budget(WORK_BASE + WORK_PER_BYTE * len(data))
        if count * PAGE_COST > budget.left:
            raise _too_much(label, f"{count:,} pages in {_size(len(data))}")
        forms: set[int] = set()  # the form XObjects measured already
        pages = []
        for number in range(count):
            try:
                page = reader.pages[number]
                budget.spend(PAGE_COST)
                _spend_content(page, forms, budget)
                pages.append(_page_lines(page, budget))
            except _Overdrawn:
                raise _too_much(label, f"page {number + 1} of {count} draws more than its {_size(len(data))} can hold") from None
            except pypdf.errors.DependencyError:
                # The key opened with the empty password; the streams need AES to decrypt.
                raise _needs_cryptography(label) from None
            except Exception as e:
                raise ChunkerError(
                    f"{label}: page {number + 1} of {count} cannot be read ({_one_line(e)}); the PDF may be damaged"
                ) from None
            if progress is not None:
                progress(number + 1, count)
    if not any(line.text.strip() for page in pages for line in page):
        raise ChunkerError(
            f"{label} has no text layer (it looks scanned, or its pages are "
            "images); OCR is not done here: run it through an OCR tool first"
        )
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
            raise _needs_cryptography(label) from None
        except Exception as e:
            raise ChunkerError(f"{label} is encrypted and cannot be opened ({_one_line(e)}): save an unencrypted copy") from None
        if not opened:
            raise ChunkerError(
                f"{label} is encrypted: it needs a password; save an unencrypted "
                "copy (e.g. print it to PDF from a viewer) and try again"
            )
    return reader


def _spend_content(page: Any, forms: set[int], budget: _Budget) -> None:
    """Spend a unit of `budget` for every 8 bytes of drawing operations pypdf will parse for the
    page: its contents and the forms its resources name (each form once in the document;
    drawing one again costs its operations, which the budget counts as they run). Spent stream
    by stream, as each is decoded: a page naming many forms of megabytes each is refused at the
    first one past the budget, not after every one is decoded (pypdf keeps each decoded
    stream: 1,000 times the file's size)."""
    total = spent = 0

    def add(n: int) -> None:
        nonlocal total, spent
        total += n
        budget.spend(total // 8 - spent)
        spent = total // 8

    contents = page.get_contents()
    if contents is not None:
        add(len(contents.get_data()))
    todo = [page.get("/Resources")]
    while todo:
        resources = todo.pop()
        try:
            xobjects = resources.get_object().get("/XObject") if resources is not None else None
            items = list(xobjects.get_object().values()) if xobjects is not None else []
        except Exception:  # damaged resources: pypdf's own reading says what is wrong
            continue
        for ref in items:
            key = getattr(ref, "idnum", None)
            if key is None or key in forms:
                continue
            forms.add(key)
            try:
                form = ref.get_object()
                if form.get("/Subtype") != "/Form":
                    continue
                data = form.get_data()
            except Exception:
                continue
            add(len(data))  # outside the try: an overdrawn budget is not a damaged form
            todo.append(form.get("/Resources"))


def _page_lines(page: Any, budget: _Budget | None = None) -> list[Line]:
    """The page's lines as pypdf writes them, each with its font size and position when the
    pieces pypdf reported add up to its text (they always have; the check keeps us honest)."""
    pieces: list[tuple[str, list[float], list[float], float]] = []

    def visit(text: str, cm: list[float], tm: list[float], font: Any, size: float) -> None:
        if text:
            pieces.append((text, cm, tm, size))

    def operation(*_: Any) -> None:
        if budget is not None:
            budget.spend(1)

    text = page.extract_text(visitor_text=visit, visitor_operand_before=operation)
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


def _too_much(label: str, what: str) -> ChunkerError:
    return ChunkerError(
        f"{label} asks for far more reading than a real PDF of its size: {what}; "
        "it may be built to stall readers: re-save it (e.g. print it to PDF) "
        "and try again"
    )


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 1_000_000 else f"{max(1, round(n / 1000))} KB"


def _needs_cryptography(label: str) -> ChunkerError:
    return ChunkerError(
        f"{label} is encrypted with AES: even without a password, opening it "
        "needs the cryptography package (pip install cryptography); or save an "
        "unencrypted copy"
    )


def _damaged(label: str, e: BaseException) -> ChunkerError:
    return ChunkerError(
        f"{label} is not a readable PDF ({_one_line(e)}): it may be damaged or truncated; copy or download it again"
    )
