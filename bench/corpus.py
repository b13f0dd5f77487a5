"""Reproducible real text for tests and benchmarks, written by no one on this team.

Every corpus is built on the machine from files that Debian packages or the running
Python installation put on disk, so nothing large is committed and everyone (the
estimator's calibration, the fidelity report, the speed benchmark) reads the same text:

- ``python_docs_markdown()``: the Python 3.11 documentation from Debian's
  ``python3.11-doc`` (HTML under /usr/share/doc/python3.11/html), converted to
  Markdown with the standard library's ``html.parser``.
- ``samples(kind)``: passages of a few KB per kind of text, for measuring token
  estimators: english, code, markdown, german, dutch, cjk (see ``KINDS``).

Built text is cached under ``.cache/corpus/`` at the repository root (git-ignored);
delete that folder to rebuild. Nothing here is imported by ``chunker/``.

>>> text = "First paragraph.\\n\\nSecond one."
>>> sized(text, 50)
'First paragraph.\\n\\nSecond one.\\n\\nFirst paragraph.'
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import subprocess
import sys
import sysconfig
import zlib
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / ".cache" / "corpus"

DOCS_HTML = Path("/usr/share/doc/python3.11/html")
MAN_ROOT = Path("/usr/share/man")

#: Debian packages whose files the corpora are built from.
DEBIAN_PACKAGES = ("python3.11-doc", "manpages-de", "manpages-nl", "manpages-ja", "manpages-zh")

#: Kinds accepted by ``samples``; each value says where its text comes from.
KINDS = {
    "english": "prose paragraphs (no inline code, no lists or tables) of the Python 3.11 docs",
    "code": "CPython standard-library .py files of the running interpreter's Lib (no tests, no codec tables)",
    "markdown": "the Python 3.11 docs converted to Markdown: headings, code fences, lists, tables",
    "german": "Debian manpages-de, troff converted to plain text",
    "dutch": "Debian manpages-nl, troff converted to plain text",
    "cjk": "Debian manpages-ja and manpages-zh (zh_CN, zh_TW), troff converted to plain text",
}

#: Further kinds, from man pages that Debian's base packages (man-db, passwd, login, dpkg,
#: apt, psmisc, ...) install in these languages: no target, but they check the
#: estimator on scripts and languages the six main kinds lack.
EXTRA_KINDS = {
    "korean": "Korean (Hangul) man pages shipped by base packages under /usr/share/man/ko",
    "cyrillic": "Russian and Ukrainian man pages shipped by base packages (ru, uk)",
    "romance": "French, Spanish, Italian and Portuguese man pages shipped by base packages",
}

# Bump when a converter changes, so stale caches are rebuilt rather than trusted.
_VERSION = 4

# Passages are cut at paragraph boundaries to about this size: "a few KB", the size
# of a typical RAG chunk, which is what the estimator is used on.
PASSAGE_CHARS = 3000
_MIN_PASSAGE_CHARS = 600


# ---------------------------------------------------------------------------
# Debian packages


def missing_debian_packages() -> list[str]:
    """The packages of ``DEBIAN_PACKAGES`` that dpkg does not report as installed."""
    missing = []
    for name in DEBIAN_PACKAGES:
        try:
            out = subprocess.run(
                ["dpkg-query", "-W", "-f=${Status}", name],
                capture_output=True,
                text=True,
                check=False,
            ).stdout
        except FileNotFoundError:  # not a Debian system: nothing can be checked
            return list(DEBIAN_PACKAGES)
        if "install ok installed" not in out:
            missing.append(name)
    return missing


def ensure_debian_packages() -> list[str]:
    """Install whichever corpus packages are missing; return the ones still missing.

    Runs ``apt-get update`` once, then ``apt-get install -y``, only when something is
    missing. Needs root; otherwise it prints what to run and returns the missing list.
    """
    missing = missing_debian_packages()
    if not missing:
        return []
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        print(
            "corpus: not root, so cannot install " + " ".join(missing) + "; run: sudo apt-get install -y " + " ".join(missing),
            file=sys.stderr,
        )
        return missing
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for cmd in (["apt-get", "update", "-q"], ["apt-get", "install", "-y", "-q", *missing]):
        res = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
        if res.returncode != 0:
            print(f"corpus: {' '.join(cmd)} failed: {res.stderr.strip()[-500:]}", file=sys.stderr)
            break
    return missing_debian_packages()


def _package_version(name: str) -> str:
    try:
        return subprocess.run(
            ["dpkg-query", "-W", "-f=${Version}", name],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
    except FileNotFoundError:
        return "?"


# ---------------------------------------------------------------------------
# Caching


def _cached(name: str, build):
    """Return the JSON-able value cached as ``name``, building and storing it if absent."""
    path = CACHE / f"{name}.v{_VERSION}.json"
    if path.exists():
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    value = build()
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(value, fh, ensure_ascii=False)
    os.replace(tmp, path)  # atomic: a parallel reader never sees half a file
    return value


# ---------------------------------------------------------------------------
# HTML -> Markdown (Sphinx output of the Python docs)

_VOID = frozenset("area base br col embed hr img input link meta source track wbr".split())
_BLOCK = frozenset(
    "p div section article aside nav header footer figure figcaption blockquote pre ul ol li "
    "dl dt dd table thead tbody tfoot tr th td caption h1 h2 h3 h4 h5 h6 hr form".split()
)
_SKIP = frozenset("script style form button input select textarea".split())


class _Node:
    __slots__ = ("tag", "attrs", "children")

    def __init__(self, tag: str, attrs: dict[str, str]):
        self.tag = tag
        self.attrs = attrs
        self.children: list[_Node | str] = []

    @property
    def classes(self) -> list[str]:
        return self.attrs.get("class", "").split()

    def text(self) -> str:
        parts = []
        for c in self.children:
            parts.append(c if isinstance(c, str) else c.text())
        return "".join(parts)


class _TreeBuilder(HTMLParser):
    """Builds a tree of the page's main content (``div.body``) only."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = _Node("root", {})
        self.stack: list[_Node] = []

    def handle_starttag(self, tag, attrs):
        a = {k: (v or "") for k, v in attrs}
        if not self.stack:
            # Sphinx's navigation, sidebars and footer sit outside div.body: skip them.
            if tag == "div" and "body" in a.get("class", "").split() and a.get("role") == "main":
                self.stack.append(self.root)
            return
        node = _Node(tag, a)
        self.stack[-1].children.append(node)
        if tag not in _VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag, attrs):
        if self.stack:
            self.stack[-1].children.append(_Node(tag, {k: (v or "") for k, v in attrs}))

    def handle_endtag(self, tag):
        if not self.stack or tag in _VOID:
            return
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return
        if tag == "div" and len(self.stack) == 1:
            self.stack.clear()  # the closing tag of div.body itself

    def handle_data(self, data):
        if self.stack:
            self.stack[-1].children.append(data)


_WS = re.compile(r"\s+")
_FENCE_LANG = {"python3": "python", "python": "python", "pycon": "pycon", "default": "python"}


class _Markdown:
    """Renders a _Node tree to Markdown blocks: a list of (kind, text) pairs.

    kind is one of heading, para, code, list, table, quote, term; the blocks joined
    with blank lines are the Markdown document.
    """

    def __init__(self) -> None:
        self.lang = ""

    # -- inline ---------------------------------------------------------------
    def inline(self, node: _Node | str) -> str:
        if isinstance(node, str):
            return node
        tag, cls = node.tag, node.classes
        if tag in _SKIP or "headerlink" in cls or tag == "img":
            return ""
        if tag == "br":
            return "\n"
        inner = "".join(self.inline(c) for c in node.children)
        if tag == "code":
            text = _WS.sub(" ", node.text()).strip()
            if not text:
                return ""
            tick = "``" if "`" in text else "`"
            return f"{tick}{text}{tick}"
        if tag in ("em", "i", "cite"):
            s = inner.strip()
            return f"*{s}*" if s else ""
        if tag in ("strong", "b"):
            s = inner.strip()
            return f"**{s}**" if s else ""
        if tag == "a":
            href = node.attrs.get("href", "")
            if "reference" in cls and "external" in cls and href.startswith(("http://", "https://")):
                return f"[{inner.strip()}]({href})"
            return inner
        return inner

    def plain(self, node: _Node | str) -> str:
        """Text without markup (for API signatures, which read as one code span)."""
        if isinstance(node, str):
            return node
        if node.tag in _SKIP or "headerlink" in node.classes:
            return ""
        return "".join(self.plain(c) for c in node.children)

    def _para_text(self, parts: list[str]) -> str:
        return _WS.sub(" ", "".join(parts)).strip()

    # -- blocks ---------------------------------------------------------------
    def blocks(self, node: _Node) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        buf: list[str] = []

        def flush():
            t = self._para_text(buf)
            buf.clear()
            if t:
                out.append(("para", t))

        for c in node.children:
            if isinstance(c, str) or (c.tag not in _BLOCK and c.tag not in _SKIP):
                buf.append(self.inline(c))
                continue
            flush()
            out.extend(self.block(c))
        flush()
        return out

    def block(self, node: _Node) -> list[tuple[str, str]]:
        tag, cls = node.tag, node.classes
        if tag in _SKIP or tag == "hr":
            return []
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            t = self._para_text([self.inline(c) for c in node.children])
            return [("heading", "#" * int(tag[1]) + " " + t)] if t else []
        if tag == "pre":
            code = node.text().rstrip("\n")
            if not code.strip():
                return []
            fence = "````" if "```" in code else "```"
            return [("code", f"{fence}{self.lang}\n{code}\n{fence}")]
        if tag == "div" and any(c.startswith("highlight-") for c in cls):
            lang = next(c for c in cls if c.startswith("highlight-"))[len("highlight-") :]
            saved, self.lang = self.lang, _FENCE_LANG.get(lang, "" if lang in ("none", "text") else lang)
            try:
                return self.blocks(node)
            finally:
                self.lang = saved
        if tag == "p" and "admonition-title" in cls:
            t = self._para_text([self.inline(c) for c in node.children])
            return [("para", f"**{t}**")] if t else []
        if tag in ("ul", "ol"):
            return self.list_(node, ordered=(tag == "ol"))
        if tag == "dl":
            return self.dl(node)
        if tag == "table":
            return self.table(node)
        if tag == "blockquote":
            inner = self.blocks(node)
            text = "\n\n".join(t for _, t in inner)
            if not text:
                return []
            return [("quote", "\n".join(("> " + ln) if ln else ">" for ln in text.split("\n")))]
        return self.blocks(node)

    def list_(self, node: _Node, ordered: bool) -> list[tuple[str, str]]:
        items = []
        n = 0
        for li in node.children:
            if isinstance(li, str) or li.tag != "li":
                continue
            n += 1
            marker = f"{n}. " if ordered else "- "
            body = "\n\n".join(t for _, t in self.blocks(li))
            if not body:
                continue
            pad = " " * len(marker)
            lines = body.split("\n")
            items.append(marker + lines[0] + "".join("\n" + (pad + ln if ln else "") for ln in lines[1:]))
        # Tight list unless an item spans several blocks.
        joiner = "\n\n" if any("\n\n" in it for it in items) else "\n"
        return [("list", joiner.join(items))] if items else []

    def dl(self, node: _Node) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        api = "py" in node.classes or "c" in node.classes
        for c in node.children:
            if isinstance(c, str):
                continue
            if c.tag == "dt":
                t = _WS.sub(" ", self.plain(c)).strip() if api else self._para_text([self.inline(x) for x in c.children])
                if t:
                    # An API signature reads as code; a glossary term as a bold label.
                    out.append(("term", f"`{t}`" if api else f"**{t}**"))
            elif c.tag == "dd":
                out.extend(self.blocks(c))
        return out

    def table(self, node: _Node) -> list[tuple[str, str]]:
        rows: list[list[_Node]] = []
        header_rows = 0

        def walk(n: _Node, in_head: bool):
            nonlocal header_rows
            for c in n.children:
                if isinstance(c, str):
                    continue
                if c.tag == "tr":
                    rows.append([x for x in c.children if not isinstance(x, str) and x.tag in ("td", "th")])
                    if in_head:
                        header_rows += 1
                elif c.tag in ("thead", "tbody", "tfoot"):
                    walk(c, c.tag == "thead")

        walk(node, False)
        if not rows:
            return []
        simple = (
            all(
                "colspan" not in cell.attrs
                and "rowspan" not in cell.attrs
                and all(k == "para" for k, _ in self.blocks(cell))
                and len(self.blocks(cell)) <= 1
                for row in rows
                for cell in row
            )
            and len({len(r) for r in rows}) == 1
            and header_rows <= 1
        )
        if not simple:
            out = []
            for row in rows:
                for cell in row:
                    out.extend(self.blocks(cell))
            return out
        texts = [[" ".join(t for _, t in self.blocks(cell)).replace("|", "\\|") for cell in row] for row in rows]
        width = len(texts[0])
        if header_rows == 0:
            texts.insert(0, [""] * width)
        lines = ["| " + " | ".join(texts[0]) + " |", "|" + "|".join(["---"] * width) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in texts[1:]]
        return [("table", "\n".join(lines))]


def _doc_html_files() -> list[Path]:
    skip = re.compile(r"^(genindex.*|contents|py-modindex|search|index)\.html$")
    files = [
        p
        for p in DOCS_HTML.rglob("*.html")
        if not any(part.startswith("_") for part in p.relative_to(DOCS_HTML).parts)
        and not (p.parent == DOCS_HTML and skip.match(p.name))
    ]
    return sorted(files, key=lambda p: p.relative_to(DOCS_HTML).as_posix())


def html_to_blocks(source: str) -> list[tuple[str, str]]:
    """Convert one Sphinx HTML page to Markdown blocks ``(kind, text)``.

    >>> html_to_blocks('<div class="body" role="main"><h1>Hi<a class="headerlink">¶</a></h1>'
    ...                '<p>A <code>x</code> b.</p><ul><li><p>one</p></li></ul></div>')
    [('heading', '# Hi'), ('para', 'A `x` b.'), ('list', '- one')]
    """
    tb = _TreeBuilder()
    tb.feed(source)
    tb.close()
    return _Markdown().blocks(tb.root)


def _require(path: Path, package: str) -> None:
    if not path.exists():
        raise FileNotFoundError(
            f"{path} is missing: install Debian's {package} "
            f"(apt-get install -y {package}) or call bench.corpus.ensure_debian_packages()"
        )


def python_docs_blocks() -> list[tuple[str, list[tuple[str, str]]]]:
    """Every docs page as ``(relative path, [(kind, text), ...])``, in sorted path order. Cached."""
    _require(DOCS_HTML, "python3.11-doc")

    def build():
        pages = []
        for p in _doc_html_files():
            blocks = html_to_blocks(p.read_text(encoding="utf-8"))
            if blocks:
                pages.append([p.relative_to(DOCS_HTML).as_posix(), blocks])
        return pages

    key = hashlib.sha1(_package_version("python3.11-doc").encode()).hexdigest()[:8]
    return [(name, [tuple(b) for b in blocks]) for name, blocks in _cached(f"pydocs-blocks-{key}", build)]


def python_docs_markdown() -> str:
    """The Python 3.11 documentation (Debian python3.11-doc) as one Markdown document.

    Pages in sorted path order, blocks separated by blank lines: ``#`` headings,
    fenced code, ``- `` lists, pipe tables where a table is simple. About 9 MB; cached.
    """
    return "\n\n".join("\n\n".join(t for _, t in blocks) for _, blocks in python_docs_blocks()) + "\n"


def sized(text: str, n_bytes: int) -> str:
    """``text`` repeated or trimmed to at most ``n_bytes`` UTF-8 bytes, at a paragraph boundary.

    Deterministic: whole copies of ``text`` are joined by a blank line until there are
    enough bytes, then the result is cut at the last blank line that keeps it within
    ``n_bytes`` (the text between blank lines is kept byte for byte, indentation
    included). Never empty when ``text`` is not blank: if even the first paragraph is
    too long, it is returned whole.

    >>> sized("a\\n\\nb\\n\\nc", 4)
    'a\\n\\nb'
    """
    unit = text.strip("\n").encode("utf-8")
    if not unit.strip():
        return ""
    copies = -(-(n_bytes + 2) // (len(unit) + 2))  # enough for n_bytes and one boundary
    data = b"\n\n".join([unit] * max(1, copies))
    if len(data) <= n_bytes:
        return data.decode("utf-8")
    cut = data.rfind(b"\n\n", 0, n_bytes + 2)
    if cut <= 0:
        cut = data.find(b"\n\n")
        cut = len(data) if cut < 0 else cut
    return data[:cut].decode("utf-8")


# ---------------------------------------------------------------------------
# troff (man pages) -> plain text

_TROFF_CHARS = {
    "em": "—",
    "en": "–",
    "hy": "-",
    "aq": "'",
    "dq": '"',
    "lq": "“",
    "rq": "”",
    "oq": "‘",
    "cq": "’",
    "bu": "•",
    "co": "©",
    "rg": "®",
    "tm": "™",
    "ha": "^",
    "ti": "~",
    "mu": "×",
    "de": "°",
    "<=": "≤",
    ">=": "≥",
    "->": "→",
    "<-": "←",
    "Fo": "«",
    "Fc": "»",
    "fo": "‹",
    "fc": "›",
    "ga": "`",
    "aa": "´",
    "rs": "\\",
    "sl": "/",
    "ba": "|",
    "or": "|",
    "pl": "+",
    "mi": "−",
    "eq": "=",
    "ss": "ß",
    ":a": "ä",
    ":o": "ö",
    ":u": "ü",
    ":A": "Ä",
    ":O": "Ö",
    ":U": "Ü",
    "'e": "é",
    "`e": "è",
    "ci": "○",
    "sq": "□",
    "dg": "†",
    "sc": "§",
    "ps": "¶",
    "at": "@",
    "sh": "#",
    "Eu": "€",
    "eu": "€",
    "pc": "·",
    "bv": "|",
    "br": "│",
    "ul": "_",
    "ru": "_",
    "lB": "[",
    "rB": "]",
    "lC": "{",
    "rC": "}",
    "la": "⟨",
    "ra": "⟩",
    "tf": "∴",
    "fm": "′",
    "+-": "±",
    "!=": "≠",
    "==": "≡",
    "~~": "≈",
    "ua": "↑",
    "da": "↓",
    "rA": "⇒",
}

_ESCAPE = re.compile(
    r"""\\(?:
        \((?P<c2>..)                                  # \(xx special character
      | \[(?P<cn>[^\]]*)\]                            # \[name] special character
      | \*(?:\(..|\[[^\]]*\]|.)                       # string register: dropped
      | f(?:\(..|\[[^\]]*\]|.)                        # font change: dropped
      | s[+-]?(?:\d|\(\d\d|\[\d+\]|'\d+')             # size change: dropped
      | [nkgmMFY](?:\(..|\[[^\]]*\]|.)                # registers, colours: dropped
      | [hvwlLxbDoSAXZR]'[^']*'                       # motions, widths, drawings: dropped
      | N'(?P<num>\d+)'                               # \N'123' glyph number
      | (?P<one>.)                                    # everything else: one character
    )""",
    re.X,
)
_ONE = {"-": "-", "e": "\\", "\\": "\\", ".": ".", " ": " ", "~": " ", "0": " ", "'": "'", "`": "`", "t": "\t", "_": "_"}


def _troff_escape(m: re.Match) -> str:
    if m.group("c2") is not None:
        return _TROFF_CHARS.get(m.group("c2"), "")
    cn = m.group("cn")
    if cn is not None:
        if re.fullmatch(r"u[0-9A-Fa-f]{4,6}", cn):
            return chr(int(cn[1:], 16))
        return _TROFF_CHARS.get(cn, "")
    if m.group("num") is not None:
        return ""
    one = m.group("one")
    if one is not None:
        return _ONE.get(one, "")  # \& \| \^ \% \: \/ \, \c and the rest print nothing
    return ""


def _troff_inline(s: str) -> str:
    # \" starts a comment (but not \\"), so cut it before expanding escapes.
    s = re.sub(r'(?<!\\)((?:\\\\)*)\\".*', r"\1", s)
    return _ESCAPE.sub(_troff_escape, s)


def _macro_args(rest: str) -> list[str]:
    args, cur, quoted, i = [], [], False, 0
    while i < len(rest):
        ch = rest[i]
        if ch == "\\" and i + 1 < len(rest):
            cur.append(rest[i : i + 2])
            i += 2
            continue
        if ch == '"':
            if quoted and i + 1 < len(rest) and rest[i + 1] == '"':
                cur.append('"')
                i += 2
                continue
            quoted = not quoted
        elif ch in " \t" and not quoted:
            if cur:
                args.append("".join(cur))
                cur = []
        else:
            cur.append(ch)
        i += 1
    if cur:
        args.append("".join(cur))
    return args


_FONT_MACROS = {"B", "I", "SM", "SB", "CW"}
_ALT_MACROS = {"BR", "RB", "IR", "RI", "BI", "IB"}
_BREAK_MACROS = {
    "PP",
    "LP",
    "P",
    "sp",
    "br",
    "TP",
    "TQ",
    "HP",
    "RS",
    "RE",
    "EX",
    "EE",
    "nf",
    "fi",
    "SY",
    "YS",
    "in",
    "ti",
    "bp",
    "ne",
    "Sp",
    "Vb",
    "Ve",
}


def troff_to_text(src: str) -> str:
    """Convert a man page's troff source to plain text: paragraphs, headings, no markup.

    A small converter for the macros man pages use (man(7) plus common requests), so
    the corpus does not depend on groff's line filling or terminal output.

    >>> troff_to_text('.TH X 1\\n.SH NAME\\nls \\\\- list \\\\fBfiles\\\\fR\\n.PP\\nMore.\\n')
    'NAME\\n\\nls - list files\\n\\nMore.'
    """
    out: list[str] = []  # finished blocks
    para: list[str] = []  # lines of the current paragraph
    nofill = False
    skip_until = None  # end marker of a skipped region (.de ... ..)
    in_table = False
    table_fmt = False

    def flush():
        if para:
            text = "\n".join(para) if nofill else _WS.sub(" ", " ".join(para)).strip()
            if text.strip():
                out.append(text)
            para.clear()

    lines = src.replace("\r\n", "\n").split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        while line.endswith("\\") and not line.endswith("\\\\") and i < len(lines):
            line = line[:-1] + lines[i]  # escaped newline joins lines
            i += 1
        if skip_until is not None:
            if line.strip() == skip_until:
                skip_until = None
            continue
        if in_table:
            if line.startswith(".TE"):
                in_table = False
                flush()
                continue
            if table_fmt:
                if line.rstrip().endswith("."):
                    table_fmt = False
                continue
            if line.startswith((".", "'")):
                if line[1:3] in ("T&",):
                    table_fmt = True
                continue
            row = _troff_inline(line.replace("T{", "").replace("T}", "")).replace("\t", " ")
            if row.strip() and row.strip() not in ("_", "="):
                para.append(row.strip())
            continue
        if line.startswith((".", "'")):
            m = re.match(r"[.']\s*(\S*)\s*(.*)", line)
            name, rest = (m.group(1), m.group(2)) if m else ("", "")
            if name.startswith('\\"') or name == "":
                continue
            if name in ("if", "ie"):
                cond, _, body = rest.partition(" ")
                if cond.startswith("t") or cond.startswith("!n") or "\\{" in rest:
                    # troff-only branch, or a multi-line block: skip it (the n branch or
                    # the plain text is what a terminal reader sees).
                    if "\\{" in rest:
                        depth = rest.count("\\{") - rest.count("\\}")
                        while depth > 0 and i < len(lines):
                            depth += lines[i].count("\\{") - lines[i].count("\\}")
                            i += 1
                    continue
                body = body.strip()
                if body:
                    lines.insert(i, body)
                continue
            if name in ("de", "de1", "am", "ig"):
                skip_until = ".." if name != "ig" or not rest.strip() else "." + rest.strip()
                continue
            if name == "TS":
                flush()
                in_table = True
                table_fmt = True
                # A leading options line ends with ';'; the format lines end with '.'.
                continue
            if name in ("SH", "SS"):
                flush()
                args = _macro_args(rest)
                heading = _troff_inline(" ".join(args)).strip()
                if not heading and i < len(lines):
                    heading = _troff_inline(lines[i]).strip()
                    i += 1
                if heading:
                    out.append(heading)
                continue
            if name in _FONT_MACROS:
                args = _macro_args(rest)
                if args:
                    para.append(_troff_inline(" ".join(args)))
                elif i < len(lines):
                    para.append(_troff_inline(lines[i]))
                    i += 1
                continue
            if name in _ALT_MACROS:
                para.append(_troff_inline("".join(_macro_args(rest))))
                continue
            if name == "IP":
                flush()
                args = _macro_args(rest)
                if args and args[0]:
                    para.append(_troff_inline(args[0]))
                continue
            if name in ("UR", "MT"):
                continue
            if name in ("UE", "ME"):
                if rest.strip():
                    para.append(_troff_inline(rest.strip()))
                continue
            if name == "OP":
                args = _macro_args(rest)
                para.append("[" + _troff_inline(" ".join(args)) + "]")
                continue
            if name in _BREAK_MACROS:
                flush()
                if name in ("nf", "EX", "Vb"):
                    nofill = True
                elif name in ("fi", "EE", "Ve"):
                    nofill = False
                if name == "SY":
                    args = _macro_args(rest)
                    if args:
                        para.append(_troff_inline(args[0]))
                continue
            continue  # every other request (TH, so, ds, nr, ft, ...) prints nothing
        text = _troff_inline(line)
        if not text.strip():
            flush()  # a blank line is a paragraph break
            continue
        para.append(text.rstrip() if nofill else text.strip())
    flush()
    return "\n\n".join(out)


_CJK_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def _man_pages(langs: tuple[str, ...]) -> list[list[str]]:
    """``[[path, text], ...]`` for the real (non-redirect) pages under the given locales."""
    seen: set[str] = set()
    pages = []
    for lang in langs:
        base = MAN_ROOT / lang
        if not base.is_dir():
            continue
        for p in sorted(base.rglob("*"), key=lambda q: q.as_posix()):
            if p.is_symlink() or not p.is_file():
                continue
            raw = p.read_bytes()
            if p.suffix == ".gz":
                raw = gzip.decompress(raw)
            try:
                src = raw.decode("utf-8")
            except UnicodeDecodeError:
                continue
            if src.lstrip().startswith(".so "):
                continue  # a redirect to another page
            text = troff_to_text(src)
            digest = hashlib.sha1(text.encode()).hexdigest()
            if len(text) < 400 or digest in seen:
                continue
            seen.add(digest)
            pages.append([p.relative_to(MAN_ROOT).as_posix(), text])
    return pages


# ---------------------------------------------------------------------------
# Samples per kind


@dataclass(frozen=True)
class Passage:
    """A passage of real text and the document it came from (for a by-document split)."""

    source: str
    text: str


def _cut_long(paras: list[str], target: int):
    """Yield paragraphs, cutting any over 1.5 x ``target`` at line breaks (or hard, for one huge line)."""
    for p in paras:
        if len(p) <= target * 3 // 2:
            yield p
            continue
        cur = ""
        for line in p.split("\n"):
            while len(line) > target:  # a single enormous line: no better boundary exists
                if cur:
                    yield cur
                    cur = ""
                yield line[:target]
                line = line[target:]
            if cur and len(cur) + 1 + len(line) > target:
                yield cur
                cur = line
            else:
                cur = f"{cur}\n{line}" if cur else line
        if cur.strip():
            yield cur


def _pack(paras: list[str], target: int = PASSAGE_CHARS) -> list[str]:
    """Group consecutive paragraphs into passages of about ``target`` characters."""
    out: list[str] = []
    cur: list[str] = []
    size = 0
    for p in _cut_long(paras, target):
        if cur and size + len(p) > target:
            out.append("\n\n".join(cur))
            cur, size = [], 0
        cur.append(p)
        size += len(p) + 2
    if cur:
        out.append("\n\n".join(cur))
    return [t for t in out if len(t) >= _MIN_PASSAGE_CHARS]


_PROSE_OK = re.compile(r"^[A-Z\"'(]")
_EMPH = re.compile(r"\*\*?([^*\n]+?)\*\*?")


def _english_docs() -> list[list[str]]:
    docs = []
    for name, blocks in python_docs_blocks():
        paras = []
        for kind, t in blocks:
            # Plain prose only: no inline code, links, or reST leftovers.
            if kind != "para" or "`" in t or "](" in t or ">>>" in t or len(t.split()) < 12:
                continue
            t = _EMPH.sub(r"\1", t)
            if "*" in t or not _PROSE_OK.match(t):
                continue
            paras.append(t)
        if paras:
            docs.append([name, "\n\n".join(paras)])
    return docs


def _markdown_docs() -> list[list[str]]:
    return [[name, "\n\n".join(t for _, t in blocks)] for name, blocks in python_docs_blocks()]


def _code_docs() -> list[list[str]]:
    lib = Path(sysconfig.get_paths()["stdlib"])
    docs = []
    for p in sorted(lib.rglob("*.py"), key=lambda q: q.as_posix()):
        rel = p.relative_to(lib).as_posix()
        # Tests, third-party packages and generated tables (codec charmaps, pydoc's
        # topic strings) are left out: the corpus is hand-written library code.
        if (
            rel.startswith(("test/", "site-packages/", "idlelib/idle_test/", "lib2to3/tests/", "encodings/", "pydoc_data/"))
            or "/tests/" in rel
            or "/test/" in rel
        ):
            continue
        try:
            docs.append([rel, p.read_text(encoding="utf-8")])
        except (UnicodeDecodeError, OSError):
            continue
    return docs


def _cjk_share(text: str) -> float:
    non_space = len(text) - sum(text.count(c) for c in " \n\t")
    return len(_CJK_CHAR.findall(text)) / max(1, non_space)


def _docs_of(kind: str) -> list[list[str]]:
    if kind == "english":
        return _english_docs()
    if kind == "markdown":
        return _markdown_docs()
    if kind == "code":
        return _code_docs()
    if kind == "german":
        return _man_pages(("de",))
    if kind == "dutch":
        return _man_pages(("nl",))
    if kind == "cjk":
        # Keep pages that really are translated (many ship English text in ja/zh dirs).
        return [d for d in _man_pages(("ja", "zh_CN", "zh_TW")) if _cjk_share(d[1]) >= 0.25]
    if kind == "korean":
        return _man_pages(("ko",))
    if kind == "cyrillic":
        return _man_pages(("ru", "uk"))
    if kind == "romance":
        return _man_pages(("fr", "es", "it", "pt", "pt_BR"))
    raise ValueError(f"unknown corpus kind {kind!r}: use one of {', '.join(KINDS)}")


def _split_paragraphs(text: str, kind: str) -> list[str]:
    if kind == "code":
        # Blank lines separate code "paragraphs"; keep the text exactly (indentation).
        return [p for p in re.split(r"\n[ \t]*\n", text) if p.strip()]
    return [p for p in re.split(r"\n\s*\n", text) if p.strip()]


def passages(kind: str) -> list[Passage]:
    """Passages of about ``PASSAGE_CHARS`` characters of one kind, each with its source. Cached.

    Passages are whole paragraphs (blank-line separated blocks) of one document
    packed together, so none is cut mid-sentence; documents are in sorted order.
    """
    if kind not in KINDS and kind not in EXTRA_KINDS:
        raise ValueError(f"unknown corpus kind {kind!r}: use one of {', '.join([*KINDS, *EXTRA_KINDS])}")
    if kind in ("english", "markdown"):
        _require(DOCS_HTML, "python3.11-doc")
    elif kind in ("german", "dutch", "cjk"):
        pkg = {"german": "manpages-de", "dutch": "manpages-nl", "cjk": "manpages-ja"}[kind]
        _require(MAN_ROOT / {"german": "de", "dutch": "nl", "cjk": "ja"}[kind], pkg)

    def build():
        out = []
        for name, text in _docs_of(kind):
            for t in _pack(_split_paragraphs(text, kind)):
                out.append([name, t])
        return out

    key = kind
    if kind == "code":
        key += "-" + ".".join(map(str, sys.version_info[:3]))
    elif kind in EXTRA_KINDS:
        langs = ("ko", "ru", "uk", "fr", "es", "it", "pt", "pt_BR")
        names = sorted(p.name for p in MAN_ROOT.glob("*/man*/*") if p.parts[-3] in langs)
        key += "-" + hashlib.sha1(repr(names).encode()).hexdigest()[:8]
    else:
        pkgs = (
            ("python3.11-doc",)
            if kind in ("english", "markdown")
            else ({"german": ("manpages-de",), "dutch": ("manpages-nl",), "cjk": ("manpages-ja", "manpages-zh")}[kind])
        )
        key += "-" + hashlib.sha1("|".join(map(_package_version, pkgs)).encode()).hexdigest()[:8]
    return [Passage(s, t) for s, t in _cached(f"passages-{key}", build)]


def samples(kind: str) -> list[str]:
    """Real passages of a few KB each, of one kind (see ``KINDS`` for the sources).

    - english: prose paragraphs of the Python 3.11 docs (Debian python3.11-doc), no code.
    - code: CPython standard-library modules of the running interpreter's Lib.
    - markdown: the Python docs converted to Markdown, with code fences and headings.
    - german, dutch: Debian manpages-de / manpages-nl, troff converted to plain text.
    - cjk: Debian manpages-ja and manpages-zh pages that are mostly CJK, as plain text.
    """
    return [p.text for p in passages(kind)]


def in_held_out_half(source: str) -> bool:
    """Whether a document belongs to the held-out half (by a stable hash of its name).

    Splitting by document, not by passage, keeps passages of one page out of both halves.

    >>> in_held_out_half("library/re.html") in (True, False)
    True
    """
    return zlib.crc32(source.encode("utf-8")) % 2 == 1


def halves(kind: str) -> tuple[list[str], list[str]]:
    """``(calibration, held_out)`` passages of ``kind``, split by source document."""
    cal, held = [], []
    for p in passages(kind):
        (held if in_held_out_half(p.source) else cal).append(p.text)
    return cal, held


def main() -> None:
    """Build every corpus (installing the Debian packages if root) and print their sizes."""
    ensure_debian_packages()
    md = python_docs_markdown()
    print(f"python docs markdown: {len(md.encode()):,} bytes, {len(md):,} chars")
    for kind in [*KINDS, *EXTRA_KINDS]:
        ps = passages(kind)
        cal, held = halves(kind)
        docs = len({p.source for p in ps})
        chars = sum(len(p.text) for p in ps)
        print(
            f"{kind:9s} {len(ps):5d} passages from {docs:4d} documents, {chars:,} chars "
            f"({len(cal)} calibration / {len(held)} held out)"
        )


if __name__ == "__main__":
    main()
