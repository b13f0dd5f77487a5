"""Word .docx to text: mammoth turns the document into HTML, and our HTML converter does the
rest, so Word's "Heading 1".."Heading 6" styles (mammoth's h1..h6) become ``#`` lines, its
lists ``- `` / ``1. `` lines and its tables Markdown rows.

mammoth is imported here, lazily: nothing else needs it.
"""

from __future__ import annotations

import io
import re
import warnings

from .._errors import ChunkerError
from .._errors import one_line as _one_line
from ._html import html_to_text

__all__ = ["docx_to_text"]

# mammoth links each footnote back to its reference with an "↑" link: navigation, not text.
_BACKLINK = re.compile(r'<a href="#(?:footnote|endnote|comment)-ref-[^"]*">[^<]*</a>')


def docx_to_text(data: bytes, *, label: str) -> str:
    """The text of a .docx given as bytes (see the module docstring)."""
    try:
        import mammoth
    except ImportError:
        raise ChunkerError(f"{label}: reading Word documents needs the mammoth package: "
                           "pip install 'chunker[documents]' (or pip install mammoth)") from None
    import zipfile
    import zlib

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            names = set(z.namelist())
            if "word/document.xml" not in names:
                raise ChunkerError(f"{label} is a zip archive without word/document.xml: not a "
                                   "Word .docx, or a damaged one; save it again from Word as .docx")
    except zipfile.BadZipFile:
        raise ChunkerError(f"{label} is a damaged or truncated .docx (its zip directory cannot "
                           "be read): copy or download it again, or re-save it from Word") from None
    # Images are dropped: the default would read each one and inline it as base64 text.
    no_images = mammoth.images.img_element(lambda image: {})
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = mammoth.convert_to_html(io.BytesIO(data), convert_image=no_images)
    except ChunkerError:
        raise
    except (zipfile.BadZipFile, zlib.error, EOFError) as e:
        raise ChunkerError(f"{label} is a damaged .docx ({_one_line(e)}): copy or download it "
                           "again, or re-save it from Word") from None
    except Exception as e:  # mammoth has no error type of its own; any failure is the file's
        raise ChunkerError(f"{label} cannot be read as a Word document ({_one_line(e)}): "
                           "re-save it from Word as .docx") from None
    return html_to_text(_BACKLINK.sub("", result.value))

