"""Word .docx to text: mammoth turns the document into HTML, and our HTML converter does the
rest, so Word's "Heading 1".."Heading 6" styles (mammoth's h1..h6) become ``#`` lines, its
"Title" paragraph a ``#`` line too, its lists ``- `` / ``1. `` lines and its tables Markdown rows.

Before mammoth sees a file, its XML parts are measured: mammoth builds a DOM of them and spends
tens of microseconds on every element, so a small zip that unzips to a huge or very busy
document is refused, in one line, instead of taking minutes and gigabytes. The bounds are on
what the zip says its members unzip to (which zipfile enforces as it reads them), on the
number of tags in them and on the longest text between two tags, counted in one streaming
pass; a part declaring a DTD (whose entities expand past any count of the source) is refused
outright, and so is a zip whose members are encrypted.

Every member that could be read as XML is measured, whatever its name: mammoth finds the main
document through _rels/.rels, which may name any member (word/body.bin as well as
word/document.xml). A member that cannot be XML (an image: its first byte is not "<") costs
mammoth nothing even if named, since expat stops at that byte, so pictures are not counted.

mammoth is imported here, lazily: nothing else needs it.
"""

from __future__ import annotations

import gc
import io
import re
import warnings
import zipfile
import zlib

from .._errors import ChunkerError
from .._errors import one_line as _one_line
from ._html import html_to_text

__all__ = ["docx_to_text"]

# mammoth links each footnote back to its reference with an "↑" link: navigation, not text.
_BACKLINK = re.compile(r'<a href="#(?:footnote|endnote|comment)-ref-[^"]*">[^<]*</a>')
# A long book's XML is a few tens of MB and a few hundred thousand tags; mammoth takes about
# 50 µs and 2.5 KB per element, so MAX_TAGS is some 25 s and 1.3 GB at worst.
MAX_UNZIPPED = 100_000_000
MAX_TAGS = 500_000
# Real documents hold well under one XML tag per byte of the .docx (a 150 KB report of prose,
# headings and a table: 0.37); thousands of empty paragraphs zip to next to nothing. Past
# DENSE_TAGS tags, a file packed more densely than TAGS_PER_BYTE is refused before mammoth
# spends a minute on it.
DENSE_TAGS = 50_000
TAGS_PER_BYTE = 4
# minidom's expat builder appends each 16 KB buffer of one text node to the text read so far
# (node.data + data), so a run of text costs the square of its length: 24 MB of it, 47 KB
# zipped, took 33 s. The longest real paragraph is tens of KB (a 20-page one with no change
# of formatting is about 60 KB), so 1 MiB between two tags, some 300 pages, is far above any
# document, and costs mammoth well under a second. Parts are read in blocks of the same size,
# so any longer run spans a whole block (see _measure).
MAX_TEXT_RUN = 1 << 20
# Internal entities expand past the tag count (952 bytes took 18 s and 385 MB), and external
# ones name files; Word never writes a DTD. Searched for in each encoding expat reads a part in
# (single-byte encodings it accepts keep ASCII's bytes).
_DTD = re.compile(
    b"|".join(
        re.escape(word.encode(codec)) for word in ("<!DOCTYPE", "<!ENTITY") for codec in ("ascii", "utf-16-le", "utf-16-be")
    )
)
_BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")
# mammoth's own style map reads "Heading 1".."Heading 6"; Word's Title style is a heading too.
_STYLE_MAP = "p[style-name='Title'] => h1:fresh"


def docx_to_text(data: bytes, *, label: str) -> str:
    """The text of a .docx given as bytes (see the module docstring)."""
    try:
        import mammoth
    except ImportError:
        raise ChunkerError(
            f"{label}: reading Word documents needs the mammoth package: "
            "pip install 'chunkscope[documents]' (or pip install mammoth)"
        ) from None
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise ChunkerError(
            f"{label} is a damaged or truncated .docx (its zip directory cannot "
            "be read): copy or download it again, or re-save it from Word"
        ) from None
    with archive:
        if "word/document.xml" not in set(archive.namelist()):
            raise ChunkerError(
                f"{label} is a zip archive without word/document.xml: not a "
                "Word .docx, or a damaged one; save it again from Word as .docx"
            )
        try:
            _measure(archive, label, len(data))
        except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError) as e:
            raise ChunkerError(
                f"{label} is a damaged .docx ({_one_line(e)}): copy or download it again, or re-save it from Word"
            ) from None
    # Images are dropped: the default would read each one and inline it as base64 text.
    no_images = mammoth.images.img_element(lambda image: {})
    collecting = gc.isenabled()
    try:
        # mammoth allocates a few objects per element and frees none until it is done: the
        # cyclic collector would only rescan them, which doubled the time.
        gc.disable()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = mammoth.convert_to_html(io.BytesIO(data), convert_image=no_images, style_map=_STYLE_MAP)
    except ChunkerError:
        raise
    except (zipfile.BadZipFile, zlib.error, EOFError) as e:
        raise ChunkerError(
            f"{label} is a damaged .docx ({_one_line(e)}): copy or download it again, or re-save it from Word"
        ) from None
    except Exception as e:  # mammoth has no error type of its own; any failure is the file's
        raise ChunkerError(f"{label} cannot be read as a Word document ({_one_line(e)}): re-save it from Word as .docx") from None
    finally:
        if collecting:
            gc.enable()
    return html_to_text(_BACKLINK.sub("", result.value))


def _measure(z: zipfile.ZipFile, label: str, packed: int) -> None:
    """Refuse a .docx that is encrypted, or whose XML unzips to more than MAX_UNZIPPED bytes or
    MAX_TAGS tags, holds more than TAGS_PER_BYTE tags a byte of its `packed` size (past
    DENSE_TAGS), a text run longer than MAX_TEXT_RUN, or a DTD."""
    for info in z.infolist():
        if info.flag_bits & 0x1:  # zipfile would raise RuntimeError when mammoth opens it
            raise ChunkerError(
                f"{label}: the file is encrypted ({info.filename} needs a password): "
                "remove the password in Word (File > Info > Protect Document) and save it again"
            )
    # Empty members are skipped unopened: a zip of 200,000 of them costs nothing to measure.
    parts = [info for info in z.infolist() if info.file_size and _xml(z, info)]
    size = sum(info.file_size for info in parts)
    if size > MAX_UNZIPPED:
        raise ChunkerError(
            f"{label} unzips to {size / 1e6:.0f} MB of XML, over the "
            f"{MAX_UNZIPPED // 1_000_000} MB limit for one Word document: split it "
            "into smaller documents"
        )
    tags = 0
    for info in parts:
        run = 0  # bytes since the part's last "<", carried from block to block
        tail = b""  # the previous block's end, for a "<!DOCTYPE" split between two blocks
        with z.open(info) as part:
            while block := part.read(MAX_TEXT_RUN):
                tags += block.count(b"<")
                if _DTD.search(tail + block[:32]) or _DTD.search(block):
                    raise ChunkerError(
                        f"{label}: {info.filename} declares a DTD (<!DOCTYPE or <!ENTITY), which "
                        "Word never writes and whose entities can expand without bound: "
                        "save the document again from Word"
                    )
                tail = block[-32:]
                # A run that starts and ends in one block is shorter than the block, so only
                # the run across blocks, up to this block's first "<", can pass MAX_TEXT_RUN.
                first = block.find(b"<")
                run += first if first >= 0 else len(block)
                if run > MAX_TEXT_RUN:
                    raise ChunkerError(
                        f"{label}: {info.filename} holds a run of over {MAX_TEXT_RUN / 1e6:.0f} MB of text "
                        "between two tags, far past any paragraph (reading it takes time that grows "
                        "with the square of its length): split it into paragraphs, or save it as .txt"
                    )
                if first >= 0:
                    run = len(block) - 1 - block.rfind(b"<")
        if tags > MAX_TAGS:
            raise ChunkerError(
                f"{label} holds over {MAX_TAGS:,} XML tags, more than one Word "
                "document is read with here (it would take minutes): split it "
                "into smaller documents"
            )
    if tags > DENSE_TAGS and tags > TAGS_PER_BYTE * packed:
        raise ChunkerError(
            f"{label} holds {tags:,} XML tags in {packed / 1000:.0f} KB, packed far denser than "
            "a Word document's text (it would take minutes to read): open it in Word and "
            "save it again, or split it"
        )


def _xml(z: zipfile.ZipFile, info: zipfile.ZipInfo) -> bool:
    """Whether expat would read past the member's first bytes: after a byte-order mark and
    white space (or the NULs of UTF-16), XML starts with "<"; an image never does."""
    with z.open(info) as part:
        head = part.read(256)
    for bom in _BOMS:
        head = head.removeprefix(bom)
    head = head.lstrip(b" \t\r\n\x00")
    return not head or head.startswith(b"<")
