"""The page's files as serve.py sends them: each read once per change of the file (and then
kept), a vendored one checked against the sha256 set-up recorded before it is first sent, and
gzipped at most once, for a browser that accepts it.

Standard library only: serve.py runs before any virtual environment exists.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path

from tools import site

COMPRESSIBLE = frozenset(
    {".html", ".css", ".js", ".mjs", ".wasm", ".json", ".webmanifest", ".toml", ".py", ".md", ".txt", ".svg", ".ico"}
)
"""What gzip shrinks; zips, wheels and PNGs are compressed already."""


class Tampered(Exception):
    """A vendored file is not what set-up recorded."""


@dataclass
class Loaded:
    """A file's bytes as last read, and what they were read from."""

    key: tuple  # (real path, inode, size, file time): another key means another read
    data: bytes
    mtime: float
    gzipped: bytes | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def etag(self) -> str:
        return f'"{self.key[3]:x}-{self.key[2]:x}"'

    def gzip(self) -> bytes | None:
        """The bytes gzipped (at most once), or None when that does not make them smaller."""
        with self.lock:
            if self.gzipped is None:
                # Level 6 for all, as static hosts do: the 9.6 MB pyodide.asm.wasm takes 0.57 s to
                # compress, once per server (serve.py does its large files in the background at
                # start: Files.warm), and every first visit then downloads 3.5 MB rather than the
                # 4.0 MB level 1 gave.
                self.gzipped = gzip.compress(self.data, compresslevel=6, mtime=0)
            return self.gzipped if len(self.gzipped) < len(self.data) else None


class Files:
    """The page's files for the server's threads: the allow-list, re-derived when the page
    changes, and each file's bytes, read (and checked, and compressed) once per change."""

    def __init__(self, root: Path):
        self.root = root
        self._lock = threading.Lock()
        self._signature: tuple | None = None
        self._public: dict[str, site.PublicFile] = {}
        self._loaded: dict[str, Loaded] = {}

    def lookup(self, rel: str) -> site.PublicFile | None:
        signature = site.site_signature(self.root)
        with self._lock:
            if signature != self._signature:
                self._public, self._signature = site.public_files(self.root), signature
            return self._public.get(rel)

    def warm(self, smallest: int = 1 << 20) -> None:
        """Read, check and compress every compressible file of at least ``smallest`` bytes now,
        so that no visitor waits for it (serve.py runs this in a thread at start). A file that
        fails its check is left for the request that will say so."""
        self.lookup("index.html")  # the allow-list
        for rel, file in list(self._public.items()):
            try:
                if Path(rel).suffix in COMPRESSIBLE and file.path.stat().st_size >= smallest:
                    loaded = self.load(rel, file)
                    if loaded is not None:
                        loaded.gzip()
            except (OSError, Tampered):
                continue

    def load(self, rel: str, file: site.PublicFile) -> Loaded | None:
        """The file's bytes, None if it is gone; raises :class:`Tampered` for a vendored file
        that is not what set-up recorded."""
        try:
            st = os.stat(file.path)
        except OSError:
            return None
        loaded = self._loaded.get(rel)
        if loaded is not None and loaded.key == (file.path, st.st_ino, st.st_size, st.st_mtime_ns):
            return loaded
        try:
            # O_NOFOLLOW: the real path was resolved from the links; a link put there since is refused.
            fd = os.open(file.path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            with open(fd, "rb") as f:
                st = os.fstat(f.fileno())
                data = f.read()
        except OSError:
            return None
        if file.sha256 is not None and hashlib.sha256(data).hexdigest() != file.sha256:
            raise Tampered(rel)
        loaded = Loaded((file.path, st.st_ino, st.st_size, st.st_mtime_ns), data, st.st_mtime)
        self._loaded[rel] = loaded
        return loaded


def accepts_gzip(header: str | None) -> bool:
    """Whether an Accept-Encoding header lets the response be gzipped.

    >>> accepts_gzip("gzip, deflate, br"), accepts_gzip("br;q=1, gzip;q=0.5"), accepts_gzip("*")
    (True, True, True)
    >>> accepts_gzip(None), accepts_gzip("gzip;q=0"), accepts_gzip("identity"), accepts_gzip("x-gzipped")
    (False, False, False, False)
    """
    for item in (header or "").lower().split(","):
        coding, _, params = item.partition(";")
        if coding.strip() not in ("gzip", "x-gzip", "*"):
            continue
        q = params.strip()
        try:
            return not q.startswith("q=") or float(q[2:]) > 0
        except ValueError:
            return False
    return False
