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

COMPRESSIBLE = frozenset({".html", ".css", ".js", ".mjs", ".wasm", ".json", ".webmanifest", ".toml", ".py",
                          ".md", ".txt", ".svg", ".ico"})
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
                # Level 1 for the few large files (the 9.6 MB pyodide.asm.wasm: 0.17 s and 4.0 MB
                # where level 6 took 0.57 s for 3.5 MB), paid by the first visit after a start.
                level = 6 if len(self.data) < 1 << 20 else 1
                self.gzipped = gzip.compress(self.data, compresslevel=level, mtime=0)
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
