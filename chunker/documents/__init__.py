"""Documents in: PDF, Word (.docx), HTML and UTF-8 text, each to one Markdown-flavoured text.

The text `extract` returns is what gets chunked, so chunk offsets index it (never the file's
bytes). Headings come out as ``#`` lines, list items as ``- `` / ``1. ``, tables as Markdown
rows, ``<pre>`` as fenced code, and blocks are separated by one blank line; the markdown
strategy then gives heading paths. Plain text is returned exactly as decoded.

Only the standard library is imported here; pypdf (PDF) and mammoth (DOCX) are imported inside
the functions that read those formats, so text and HTML work without them.

>>> doc = extract(b"<h1>Title</h1><p>Body &amp; soul.</p>", name="page.html")
>>> doc.kind, doc.text
('html', '# Title\\n\\nBody & soul.')
>>> extract("Plain text stays as it is.\\r\\n".encode()).text
'Plain text stays as it is.\\r\\n'
"""

from __future__ import annotations

import bisect
import codecs
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, BinaryIO

from .._errors import ChunkerError, shown

__all__ = [
    "KINDS",
    "MAX_BYTES",
    "Extracted",
    "decode_text",
    "detect_kind",
    "extract",
    "read_bounded",
    "read_file",
    "shown_name",
    "source_of",
]

KINDS = ("pdf", "docx", "html", "text")
# Large enough for a long report or a book; past it, pypdf on Pyodide takes minutes and the
# page's memory is at risk. A caller with other limits passes max_bytes.
MAX_BYTES = 50_000_000

_HTML_NAMES = (".html", ".htm", ".xhtml", ".shtml")
# Names that say "text" even when the content starts with markup (Markdown may hold HTML).
_TEXT_NAMES = (
    ".txt",
    ".text",
    ".md",
    ".markdown",
    ".mdx",
    ".rst",
    ".adoc",
    ".csv",
    ".tsv",
    ".json",
    ".jsonl",
    ".xml",
    ".yaml",
    ".yml",
    ".toml",
    ".ini",
    ".log",
    ".tex",
    ".py",
    ".js",
    ".ts",
    ".css",
    ".c",
    ".h",
    ".java",
    ".go",
    ".rs",
    ".sh",
)
_HTML_START = re.compile(
    rb"\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body|meta|title"
    rb"|div|p|h[1-6]|table|ul|ol|article|section|main|header|nav|span|a|link|style|script)[\s>/]",
    re.IGNORECASE | re.DOTALL,
)
_OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


@dataclass(frozen=True)
class Extracted:
    """One document's text, ready to chunk.

    `pages` holds, for a PDF, the offset in `text` where each page starts (``pages[0] == 0``);
    it is empty for other kinds. In a PDF's text every page boundary holds exactly one form
    feed ``"\\f"``, and no page's own text holds one, so the page of an offset is also the
    number of form feeds before it, plus one.

    >>> doc = Extracted("One.\\n\\n\\f\\n\\nTwo.", "pdf", (0, 9))
    >>> doc.page_range(0, 4), doc.page_range(9, 13), doc.page_range(0, 13)
    ((1, 1), (2, 2), (1, 2))
    """

    text: str
    kind: str
    pages: tuple[int, ...] = ()
    title: str = ""
    """The document's own title, where its format holds one: an HTML page's <title>, a PDF's or
    a Word file's metadata title ("" where none is given). It is no part of `text`."""

    def page_range(self, start: int, end: int) -> tuple[int, int] | None:
        """The first and last page (1-based) that `text[start:end]` touches, or None when the
        document has no pages (not a PDF) or the span is empty."""
        if not self.pages or end <= start:
            return None
        first = bisect.bisect_right(self.pages, start)
        last = bisect.bisect_right(self.pages, end - 1)
        return max(first, 1), max(last, 1)


def detect_kind(data: bytes, name: str | None = None) -> str:
    """``"pdf"``, ``"docx"``, ``"html"`` or ``"text"``, judged from the content first and the
    file name second. Raises `ChunkerError` for formats known not to be supported.

    >>> detect_kind(b"%PDF-1.7 ..."), detect_kind(b"<!DOCTYPE html><p>x"), detect_kind(b"x")
    ('pdf', 'html', 'text')
    >>> detect_kind(b"<p>Markdown may hold HTML</p>", "notes.md")
    'text'
    """
    data = _bytes_of(data, "detect_kind()")
    label = name or "the input"
    suffix = _suffix(name)
    # The header may follow up to 1 KB of junk, but a text file may also just mention it.
    if data.startswith(b"%PDF-") or (b"%PDF-" in data[:1024] and suffix not in _TEXT_NAMES + _HTML_NAMES):
        return "pdf"
    if data.startswith(_OLE2):
        what = "an old binary Word .doc" if suffix in ("", ".doc", ".dot") else "an old binary Office file"
        raise ChunkerError(
            f"{label} is {what} (OLE2), which is not supported: "
            "save it as .docx (Word: File > Save As > Word Document) and try again"
        )
    if data.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        # Searched in the raw bytes: zip stores member names uncompressed, and a truncated
        # file has lost the central directory a zip reader would list them from.
        if b"word/document" in data or suffix in (".docx", ".docm", ".dotx"):
            return "docx"
        raise ChunkerError(
            f"{label} is a zip archive but not a Word .docx (it holds no "
            "word/document.xml); give a PDF, .docx, HTML or UTF-8 text file"
        )
    if suffix == ".pdf":
        raise ChunkerError(
            f"{label} is named .pdf but is not a PDF (no %PDF- header): it may be damaged, or another format renamed"
        )
    if suffix in (".docx", ".docm", ".dotx"):
        raise ChunkerError(
            f"{label} is named {suffix} but is not a Word document (not a zip "
            "archive): it may be damaged, or another format renamed"
        )
    if suffix in _HTML_NAMES:
        return "html"
    if suffix in _TEXT_NAMES:
        return "text"
    head = data[:4096]
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    return "html" if _HTML_START.match(head) else "text"


def extract(
    data: bytes,
    *,
    name: str | None = None,
    keep_running: bool = False,
    max_bytes: int = MAX_BYTES,
    progress: Callable[[int, int], None] | None = None,
    encoding: str | None = None,
) -> Extracted:
    """Extract the text of a document given as bytes; `name` (a file name) helps tell the kind
    and names the file in errors.

    `keep_running=True` keeps the running headers and footers of a PDF (by default lines that
    repeat at the top or bottom of most pages are dropped). `progress(done, total)` is called
    after each PDF page. Files over `max_bytes` (default 50 MB) are refused. A text file is
    UTF-8 unless `encoding` names another text encoding (see `decode_text`). Every failure
    raises `ChunkerError` with one line that says what to do.

    >>> extract(b"\\xff\\xfe", name="notes.txt")
    Traceback (most recent call last):
    ...
    chunker._errors.ChunkerError: notes.txt: not UTF-8 text (bad byte at offset 0); it may be UTF-16: ...
    >>> extract("Café".encode("cp1252"), name="menu.txt", encoding="cp1252").text
    'Café'
    """
    data = _bytes_of(data, "extract()")
    _check_name(name)
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, (int, float)) or not max_bytes >= 0:
        raise ChunkerError(f"max_bytes must be a number of bytes, 0 or more, got {shown(max_bytes, 40)}")
    label = name or "the input"
    if len(data) > max_bytes:
        raise ChunkerError(
            f"{label} is {_mb(len(data))}, over the {_mb(max_bytes)} limit for one "
            "document: split it, or raise the limit (max_bytes)"
        )
    kind = detect_kind(data, name)
    if kind == "pdf":
        from ._pdf import pdf_to_text

        text, pages = pdf_to_text(data, label=label, keep_running=keep_running, progress=progress)
        return Extracted(text, "pdf", pages, _pdf_title(data))
    if kind == "docx":
        from ._docx import docx_to_text

        return Extracted(docx_to_text(data, label=label), "docx", title=_docx_title(data))
    if kind == "html":
        from ._html import html_to_text

        markup = decode_html(data, label=label)
        return Extracted(html_to_text(markup), "html", title=_html_title(markup))
    return Extracted(decode_text(data, label=label, encoding=encoding), "text")


# A UTF-8 sequence of two to four bytes: a file holding one is UTF-8 with a fault, not a
# legacy encoding, and no other encoding is suggested for it.
_UTF8_SEQUENCE = re.compile(rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}")
# Bytes Windows-1252 leaves undefined: a file with one is not cp1252.
_NOT_CP1252 = re.compile(rb"[\x81\x8d\x8f\x90\x9d]")
_SNIFF_BYTES = 1 << 20


def _likely(data: bytes) -> str:
    """What a file that is not UTF-8 may be, as the start of advice ("" when nothing is likely).
    The page's bridge (static/bridge.js, likelyEncoding) says the same for the same bytes."""
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        guess = ("utf-16", "UTF-16")
    else:
        head = data[:_SNIFF_BYTES]
        if _UTF8_SEQUENCE.search(head):
            return ""
        guess = ("latin-1", "Latin-1") if _NOT_CP1252.search(head) else ("cp1252", "Windows-1252 (Western European)")
    return f'it may be {guess[1]}: pass --encoding {guess[0]} (encoding="{guess[0]}"), or '


def decode_text(data: bytes, *, label: str = "the input", encoding: str | None = None) -> str:
    """A text file's bytes as the offsets will index them: strict UTF-8 with its byte order mark
    and CR LF kept (no utf-8-sig, no newline translation), or `encoding` when given (a text
    encoding Python knows: cp1252, latin-1, utf-16, shift_jis...). Bytes that are not UTF-8 are
    one line naming the first bad byte and, when one is likely, the encoding to pass.

    >>> decode_text("Café".encode("cp1252"), label="menu.txt")
    Traceback (most recent call last):
    ...
    chunker._errors.ChunkerError: menu.txt: not UTF-8 text (bad byte at offset 3); it may be Windows-1252 ...
    """
    if encoding is not None:
        codec = text_encoding(encoding)
        try:
            return data.decode(codec)
        except UnicodeDecodeError as e:
            raise ChunkerError(
                f"{label}: not {encoding} text (bad byte at offset {e.start}): check the encoding, or leave it out for UTF-8"
            ) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ChunkerError(
            f"{label}: not UTF-8 text (bad byte at offset {e.start}); {_likely(data)}convert it to UTF-8"
        ) from None


def text_encoding(name: str) -> str:
    """`name` as the Python codec of a text encoding, or one line saying it is none.

    >>> text_encoding("Latin-1"), text_encoding("windows-1252")
    ('iso8859-1', 'cp1252')
    >>> text_encoding("rot13")
    Traceback (most recent call last):
    ...
    chunker._errors.ChunkerError: encoding 'rot13' is not a text encoding: name one such as utf-8, cp1252, latin-1 or utf-16
    """
    try:
        info = codecs.lookup(str(name))
    except LookupError:
        info = None
    codec = info.name if info is not None else ""
    if not (
        _PAGE_CODEC.fullmatch(codec)
        or codec in ("utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be", "latin-1")
    ):
        raise ChunkerError(
            f"encoding {str(name)[:40]!r} is not a text encoding: name one such as utf-8, cp1252, latin-1 or utf-16"
        )
    return codec


_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)""", re.IGNORECASE)
# The codecs a <meta> charset may name (Python's names for them): text encodings a page in
# ASCII-compatible bytes can be in. Others that Python knows (rot13, base64, zlib, undefined,
# unicode_escape, idna, EBCDIC code pages...) turn bytes into something else than the page's
# text, or fail on it.
_PAGE_CODEC = re.compile(
    r"utf-8(?:-sig)?|ascii|iso8859-\d+|cp(?:4[3-9]\d|7\d\d|8[0-6]\d|874|9[3-5]\d|125\d)"
    r"|cp1125|hp-roman8|koi8-[rtu]|mac-[a-z\d]+|shift_jis(?:_2004|x0213)?|euc_[a-z_\d]+|gb2312|gbk"
    r"|gb18030|big5(?:hkscs)?|iso2022_[a-z_\d]+|tis-620|hz|johab|ptcp154|kz1048"
)
_EBCDIC = frozenset({"cp037", "cp273", "cp424", "cp500", "cp875", "cp1026", "cp1140"})
# C0 control bytes that text and HTML do not hold (tab, newlines, form feed and escape they do).
_CONTROL_BYTES = re.compile(rb"[\x00-\x08\x0e-\x1a\x1c-\x1f]")


def decode_html(data: bytes, *, label: str = "the page") -> str:
    """HTML bytes as text: the byte-order mark, else a <meta> charset, else UTF-8; a page that
    is not valid in any of those is read as Windows-1252, as browsers do. A charset browsers
    would not know is passed over, as they do; one that names a codec that is not a text
    encoding (``rot13``, ``base64``, ``unicode_escape``...) is refused. Bytes that are not
    text at all (NUL or other control bytes) are refused too.

    >>> decode_html(b'<meta charset="iso-8859-1"><p>caf\\xe9')
    '<meta charset="iso-8859-1"><p>café'
    >>> decode_html(b'<meta charset="rot13"><p>x', label="a.html")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    chunker._errors.ChunkerError: a.html declares charset "rot13", which is not a text encoding: ...
    """
    import codecs

    for bom, codec in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be")):
        if data.startswith(bom):
            return data[len(bom) :].decode(codec, errors="replace")
    _refuse_binary(data, label)
    m = _META_CHARSET.search(data[:4096])
    if m:
        value = m.group(1).decode("ascii", errors="replace")
        try:
            codec = codecs.lookup(value).name
        except LookupError:
            codec = ""
        # A page saying UTF-16 in an ASCII <meta> cannot be UTF-16; browsers read UTF-8 then.
        if codec and not codec.startswith(("utf-16", "utf-32")):
            if not _PAGE_CODEC.fullmatch(codec) or codec in _EBCDIC:
                raise ChunkerError(
                    f'{label} declares charset "{value[:40]}", which is not a '
                    'text encoding: fix its <meta> tag (e.g. charset="utf-8"), '
                    "or save it as UTF-8"
                )
            try:
                return data.decode(codec)
            except UnicodeDecodeError:
                pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


def _refuse_binary(data: bytes, label: str) -> None:
    """Refuse bytes that are not text: a NUL byte, or control bytes in more than 1% of the
    first 64 KB (a stray one in a page is let through)."""
    zero = data.find(b"\x00")
    head = data[:65536]
    controls = len(_CONTROL_BYTES.findall(head))
    if zero < 0 and controls * 100 <= len(head):
        return
    at = zero if zero >= 0 else _CONTROL_BYTES.search(head).start()  # type: ignore[union-attr]
    raise ChunkerError(
        f"{label} holds binary data, not HTML or text (byte 0x{data[at]:02x} at "
        f"offset {at}): give the page itself, or convert the file to HTML or "
        "UTF-8 text"
    )


def _bytes_of(data: Any, what: str) -> bytes:
    """A document's bytes, as `extract` and `detect_kind` take them."""
    if isinstance(data, (bytearray, memoryview)):
        data = bytes(data)
    if not isinstance(data, bytes):
        raise ChunkerError(f"{what} takes the file's bytes, got {type(data).__name__}: read the file in binary mode ('rb')")
    return data


def _check_name(name: Any) -> None:
    if name is not None and not isinstance(name, str):
        raise ChunkerError(f"name must be the file's name as a str (or None), got {type(name).__name__} {shown(name, 60)}")


def _suffix(name: str | None) -> str:
    _check_name(name)
    if not name:
        return ""
    base = name.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return base[base.rfind(".") :] if "." in base else ""


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n % 1_000_000 else f"{n // 1_000_000} MB"


def shown_name(name: str | os.PathLike[str]) -> str:
    """A file name as it can be printed: bytes that are not UTF-8 become U+FFFD, and so does a
    lone surrogate that stands for no byte (a str made by hand, not decoded from a file name)."""
    try:
        data = os.fsencode(name)
    except UnicodeEncodeError:  # only \udc80-\udcff stand for bytes (surrogateescape)
        data = os.fsencode(_NO_BYTE.sub("\ufffd", os.fsdecode(name)))
    return data.decode("utf-8", "replace")


_NO_BYTE = re.compile("[\ud800-\udc7f\udd00-\udfff]")
"""Lone surrogates that stand for no byte of a file name."""


_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]+://")


def source_of(path: str | os.PathLike[str], root: str | os.PathLike[str] | None = None) -> str:
    """The `source` records carry for the file at `path`: the same file gives the same source
    however its path was typed, so that its chunks' ids are the same too.

    A local path (or one with Hadoop's ``file:`` in front, as Spark names files: its characters
    as they are, not %-escaped) is made absolute against `root`
    (default: the current folder), its ``.`` and ``..`` resolved as written (symlinks are not
    followed), then given relative to `root` when it is under it, absolute otherwise, with
    ``/`` between folders. The command line's root is the folder it runs in; an engine's
    (`chunker.arrow`, `chunker.ray`, `chunker.spark`) is the driver's, so a cluster's files get
    the sources the command line would give them run there. Any other URL (``s3://...``) is kept
    as it is.

    >>> source_of("docs/./a.md", "/work"), source_of("/work/docs/a.md", "/work"), source_of("file:/work/docs/a.md", "/work")
    ('docs/a.md', 'docs/a.md', 'docs/a.md')
    >>> source_of("../elsewhere/b.md", "/work/docs"), source_of("s3://bucket/a.md")
    ('/work/elsewhere/b.md', 's3://bucket/a.md')
    """
    name = os.fsdecode(path) if not isinstance(path, str) else path
    if name.startswith("file:"):
        name = name[5:]
        if name.startswith("//"):  # file:///path, or file://host/path
            name = "/" + name[2:].partition("/")[2]
    elif _URL.match(name):
        return shown_name(name)
    base = os.path.abspath(os.fsdecode(root) if root is not None else os.getcwd())
    full = os.path.normpath(os.path.join(base, name))
    rel = os.path.relpath(full, base)
    chosen = full if rel == os.pardir or rel.startswith(os.pardir + os.sep) else rel
    return shown_name(chosen).replace(os.sep, "/")


def read_file(path: str | os.PathLike[str], *, folder: str = "give the files inside it", max_bytes: int | None = None) -> bytes:
    """A file's bytes: the one reader of files, for the library and the command line alike, so
    the same mistake reads the same everywhere. `folder` says what to do when `path` is a folder
    (the command line offers --recursive). `max_bytes`: a file over it is refused, in
    `extract`'s words, having read at most `max_bytes` + 1 bytes (None: read it whole).

    >>> read_file("no/such/file.md")
    Traceback (most recent call last):
    ...
    chunker._errors.ChunkerError: no/such/file.md: no such file
    """
    label = shown_name(path)
    try:
        with open(path, "rb") as f:
            if max_bytes is None:
                return f.read()
            # A regular file's size is known before a byte is read (a sparse file of a terabyte
            # takes no memory to refuse); a device or pipe (/dev/zero) is read no further than
            # one byte past the limit, which is enough to know it is over. read(n) takes n bytes
            # of memory before it reads one: n is the file's size, or blocks for the rest.
            limit = f"the {_mb(max_bytes)} limit for one document: split it, or raise the limit (max_bytes)"
            st = os.fstat(f.fileno())
            if stat.S_ISREG(st.st_mode) and st.st_size > max_bytes:
                raise ChunkerError(f"{label} is {_mb(st.st_size)}, over {limit}")
            known = st.st_size if stat.S_ISREG(st.st_mode) else 0
            data = f.read(known + 1)
            if len(data) > known:  # no size to tell, or it grew since
                data = read_bounded(f, max_bytes, first=data)
            if len(data) > max_bytes:
                raise ChunkerError(f"{label} is over {limit}")
            return data
    except FileNotFoundError:
        raise ChunkerError(f"{label}: no such file") from None
    except IsADirectoryError:
        raise ChunkerError(f"{label}: is a directory: {folder}") from None
    except OSError as e:
        raise ChunkerError(f"{label}: cannot read it ({e.strerror or e})") from None


def read_bounded(stream: BinaryIO, limit: int, *, first: bytes = b"") -> bytes:
    """`first` and what follows it in `stream`, read in blocks until the end or until more
    than `limit` bytes are held (at most `limit` + 1: enough to know the input is over it). A
    device or pipe (/dev/zero) never ends, and read(n) takes n bytes of memory before it reads
    one: blocks keep both bounded.

    >>> import io
    >>> len(read_bounded(io.BytesIO(b"x" * 10), 4)), len(read_bounded(io.BytesIO(b"xy"), 4))
    (5, 2)
    """
    blocks, total = [first], len(first)
    while total <= limit and (block := stream.read(min(1 << 20, limit + 1 - total))):
        blocks.append(block)
        total += len(block)
    return b"".join(blocks)


# ---------------------------------------------------------------- titles

_TITLE_CHARS = 300
"""A title longer than this is cut: it goes before every chunk when a context names it."""

_HTML_TITLE = re.compile(r"<title\b[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
_HTML_HEAD = 1 << 16
"""Characters of an HTML page searched for its <title>: it belongs in the head."""


def _clean_title(value: object) -> str:
    if not isinstance(value, str):
        return ""
    return " ".join(value.split())[:_TITLE_CHARS]


def _html_title(markup: str) -> str:
    """The text of the page's <title> (in its head), entities decoded."""
    import html

    found = _HTML_TITLE.search(markup, 0, _HTML_HEAD)
    return _clean_title(html.unescape(found.group(1))) if found else ""


def _pdf_title(data: bytes) -> str:
    """The PDF's Title from its document information, "" when it has none or it cannot be read
    (the text was read already: a title is never a reason to fail)."""
    try:
        import io

        import pypdf

        from ._pdf import _quiet

        with _quiet():
            meta = pypdf.PdfReader(io.BytesIO(data), strict=False).metadata
            title = _clean_title(meta.title) if meta is not None else ""
    except Exception:
        return ""
    # What PDF makers write when the author gave none (reportlab's default) is no title.
    return "" if title.lower() in _NO_TITLE else title


_NO_TITLE = frozenset({"untitled", "untitled document"})


_CORE_BYTES = 1 << 20
"""docProps/core.xml, the Word file's properties, is a few hundred bytes; past this it is not read."""


def _docx_title(data: bytes) -> str:
    """The Word file's title from its core properties (dc:title), "" when it has none."""
    import io
    import zipfile
    from xml.etree import ElementTree

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            info = archive.getinfo("docProps/core.xml")
            if info.file_size > _CORE_BYTES:
                return ""
            root = ElementTree.fromstring(archive.read(info))
    except (KeyError, zipfile.BadZipFile, ElementTree.ParseError, OSError, ValueError, EOFError):
        return ""
    found = root.find("{http://purl.org/dc/elements/1.1/}title")
    return _clean_title(found.text) if found is not None else ""
