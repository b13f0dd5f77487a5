"""Shared fixtures: the repository on sys.path, the playground's two servers and one browser.

Browser tests are marked ``browser`` (deselect with ``-m "not browser"``). They drive Debian's
Chromium through Playwright (never a downloaded browser) against

* ``serve.py`` itself, started on a free port, and
* a ``serve.py --build`` site served by a plain static server that sends no CSP, no isolation
  headers, nothing but correct content types (what GitHub Pages does).

One browser is shared by the whole session (by each xdist worker). A module's tests share one
page, in the module's browser context (so the runtime comes from the HTTP cache and the
interpreter from its snapshot), opened again between tests and checked to be as a new page is
(tests/pagekit.py); after a failure the next test gets a new page. Tests that need a first
visit, init scripts or routes of their own open pages of their own.
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import subprocess
import sys
import threading
import urllib.parse
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# Haystack reports usage to its makers unless told not to; the tests open no connection.
os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")

from tools.chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

LOAD_TIMEOUT_MS = 120_000  # a cold start on a busy 2-core machine; a hang still fails


# ---------------------------------------------------------------- the run: markers, order, profiles

# Hypothesis: "ci", the default, runs each test's own example counts (the @settings in the
# tests) with no deadline and no too-slow check, so a loaded machine cannot fail a test by its
# clock; "dev" (--hypothesis-profile=dev, part of --quick) caps every test at 10 examples.
settings.register_profile("ci", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True)
settings.register_profile("dev", parent=settings.get_profile("ci"), max_examples=10)
settings.load_profile("ci")

# The tests marked `slow`, by module and name ("*": the whole module). Each takes seconds: the
# real-corpus calibrations, comparisons with a reference implementation over thousands of texts
# or whole real documents, mypy, and tests that start other interpreters, process pools, Ray,
# Node.js or a wheel build. The full command runs them; --quick leaves them out. (Kept here,
# not as decorators in the modules, so that the list of what the inner loop skips is one.)
SLOW = {
    "test_estimate.py": [
        "test_median_error_meets_target_on_held_out_half",
        "test_cl100k_median_error_meets_target_on_held_out_half",
        "test_default_weights_are_not_a_cl100k_estimate",
        "test_estimate_beats_both_seed_rules",
        "test_index_counts_real_spans_as_the_spans_alone",
        "test_stand_ins_share_every_class_of_the_characters_they_replace",
    ],
    "test_hf_tokenizer.py": [
        "test_ids_counts_and_offsets_match_hf",
        "test_hypothesis_texts_match_hf",
        "test_boundary_contract",
        "test_a_text_encoded_in_blocks_matches_hf",
        "test_long_documents_are_encoded_in_blocks",
        "test_bert_character_classes_match_hf_on_every_code_point",
        "test_strip_accents_and_unicode_normalizers_match_hf_on_every_code_point",
    ],
    "test_hf_files.py": [
        "test_mutated_files_never_end_in_a_traceback_and_what_hf_refuses_is_refused",
        "test_long_tokens_are_found_as_hf_finds_them_in_memory_linear_in_the_file",
    ],
    "test_langchain.py": ["test_documents_tokens"],
    "test_llamaindex_splitters.py": ["test_sentence_splitter_sweep", "test_token_text_splitter_sweep"],
    "test_bpe.py": ["test_real_text", "test_the_cli_gives_the_same_chunks_with_chunker_tiktoken_0_and_1"],
    "test_lint.py": ["test_mypy_finds_nothing"],
    "test_cli_corpus.py": [
        "test_jobs_write_the_same_bytes_as_one_process",
        "test_a_file_output_is_never_held_whole",
        "test_progress_bar_only_on_a_terminal",
        "test_jobs_in_a_fresh_interpreter_and_its_real_stdout",
        "test_output_file_with_jobs",
        "test_a_folder_gives_its_files_in_sorted_order_without_hidden_ones",
    ],
    "test_ray.py": "*",
    "test_spark.py": "*",
    "test_ids.py": [
        "test_ids_are_stable_across_runs_processes_and_jobs",
        "test_a_killed_run_resumed_gives_the_output_of_one_that_was_not",
    ],
    "test_adapters.py": ["test_llama_index_opens_no_connection", "test_adapter_without_its_framework_fails_in_one_line"],
    "test_package.py": "*",
    "test_serve.py": [
        "test_app_zip_is_compiled_once_per_change_of_the_sources",
        "test_without_node_app_zip_holds_the_sources",
        "test_idle_connections_get_at_most_max_threads",
        "test_a_tampered_runtime_file_is_vendored_again",
    ],
    "test_offline.py": [
        "test_the_compiled_part_of_the_standard_library_is_what_the_worker_imports",
        "test_the_icons_are_drawn_from_the_svg",
    ],
    "test_embeddings.py": [
        "test_encode_matches_model2vec_with_other_tokenizer_models",
        "test_a_real_model_trained_here_matches_model2vec",
    ],
    "test_semantic.py": ["test_no_chunk_is_over_the_size_and_offsets_are_exact"],
    "test_retrievers.py": ["test_cli_library_and_a_python_without_numpy_give_the_same_numbers"],
    "test_setup.py": ["test_uv_installs_the_locks_and_is_handed_pips_registry_and_certificate"],
    "test_splitters.py": ["test_token_text_splitter"],
    "test_code.py": ["test_no_cut_inside_a_definition_that_fits_on_the_standard_library"],
    "test_documents_hardening.py": ["test_a_docx_of_many_empty_paragraphs_in_few_bytes_is_one_line"],
    "test_errors.py": ["test_a_file_size_limit_is_an_error_not_a_short_output", "test_running_out_of_memory_is_one_line"],
    "test_extract.py": ["test_real_pdfs_from_debian_packages"],
}


# Modules whose tests xdist runs in one worker, in one go: those that share a module's page
# (tests/pagekit.py), and those whose module-scoped fixtures take seconds (a wheel and a virtual
# environment; a Ray cluster; a Spark session), so one worker makes them once. Every other test is scheduled alone.
ONE_WORKER = {
    "test_page.py",
    "test_page_chunks.py",
    "test_page_controls.py",
    "test_page_documents.py",
    "test_page_embeddings.py",
    "test_page_input.py",
    "test_page_layout.py",
    "test_page_questions.py",
    "test_page_splitter.py",
    "test_page_splitter_llamaindex.py",
    "test_package.py",
    "test_ray.py",
    "test_spark.py",
}


@pytest.hookimpl(optionalhook=True)  # a hook of xdist's: none without it (-p no:xdist)
def pytest_xdist_make_scheduler(config, log):
    """-n's default distribution (load), or loadgroup, with the groups made here: a ONE_WORKER
    module is one unit of work, any other test its own. (xdist 3.8's xdist_group marks never
    reach its scheduler under pytest 9.2: they rename Item._nodeid, which pytest 9.2 no longer
    reads.)"""
    if config.getvalue("dist") not in ("load", "loadgroup"):
        return None
    from xdist.scheduler import LoadGroupScheduling

    class ModuleGroups(LoadGroupScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return module if Path(module).name in ONE_WORKER else nodeid

    return ModuleGroups(config, log)


def pytest_addoption(parser):
    parser.addoption(
        "--quick", action="store_true", help='the inner loop: -m "not slow and not browser" and the dev Hypothesis profile'
    )


def pytest_configure(config):
    if config.getoption("quick"):
        config.option.markexpr = (
            f"({config.option.markexpr}) and not slow and not browser" if config.option.markexpr else "not slow and not browser"
        )
        settings.load_profile("dev")
        config.pluginmanager.register(QuickCollection(), "quick-collection")


class QuickCollection:
    """--quick leaves unimported what would give it no test: a module SLOW names whole (test_ray
    and test_spark import their engines, two seconds a worker), and a module of the package
    with no example, which --doctest-modules would import only to look (chunker.ray and
    chunker.spark import the engines too). The full command imports every module: one that no
    longer imports fails there. (A plugin, not this conftest's own hook, which pytest asks only
    about paths under tests/.)"""

    @staticmethod
    def pytest_ignore_collect(collection_path):
        if collection_path.suffix != ".py":
            return None
        if collection_path.parent == ROOT / "tests" and SLOW.get(collection_path.name) == "*":
            return True
        if ROOT / "chunker" in collection_path.parents and ">>>" not in collection_path.read_text(encoding="utf-8"):
            return True
        return None


def pytest_itemcollected(item):
    """Before -m selects: mark the SLOW tests. A test on a module's shared page (the `site`
    fixture) must be in a ONE_WORKER module, or each worker would open that page again."""
    module = getattr(item, "module", None)
    if module is None:
        return
    name = Path(module.__file__).name
    slow = SLOW.get(name, ())
    if slow == "*" or getattr(item.obj, "__name__", None) in slow:
        item.add_marker(pytest.mark.slow)
    assert "site" not in getattr(item, "fixturenames", ()) or name in ONE_WORKER, (
        f"{name} shares a page between its tests: add it to conftest.ONE_WORKER"
    )


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    """In one process: cheap tests first, browser tests last, so a broken core fails in seconds,
    not minutes. In xdist's workers: the browser tests first, then the slow ones, so no long
    test is left to end the run on one worker while the other has nothing to do (xdist hands
    out each module's shared page as one unit, the largest first).

    The sort is stable and runs after pytest's own grouping, so each browser module still loads
    its page once.
    """
    if os.environ.get("PYTEST_XDIST_WORKER"):
        items.sort(key=lambda item: (item.get_closest_marker("browser") is None, item.get_closest_marker("slow") is None))
    else:
        items.sort(key=lambda item: item.get_closest_marker("browser") is not None)
    for module in {getattr(item, "module", None) for item in items} - {None}:
        missing = [n for n in SLOW.get(Path(module.__file__).name, ()) if n != "*" and not hasattr(module, n)]
        assert not missing, f"conftest.SLOW names tests that {Path(module.__file__).name} does not have: {missing}"
    if settings.get_current_profile_name() == "dev":
        # Hypothesis lets a test's own @settings(max_examples=...) win over any profile: the
        # dev profile's cap is applied to those here.
        cap = settings.default.max_examples
        for item in items:
            test = getattr(item, "obj", None)
            own = getattr(test, "_hypothesis_internal_use_settings", None)
            if own is not None and own.max_examples > cap:
                test._hypothesis_internal_use_settings = settings(own, max_examples=cap)


FAILED = pytest.StashKey[bool]()
"""Set on a test whose set-up, call or teardown failed (tests/pagekit.py then drops its page)."""


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.failed:
        item.stash[FAILED] = True
    return report


# ---------------------------------------------------------------- servers


@pytest.fixture(scope="session")
def runtime():
    """The vendored runtime (downloaded once per machine, then a no-op)."""
    from tools.runtime import ensure_runtime

    ensure_runtime(ROOT, quiet=True)
    return ROOT / "static" / "vendor"


@pytest.fixture(scope="session")
def serve_url(runtime):
    """``python serve.py --port 0`` running for the session; yields its base URL."""
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "serve.py"), "--port", "0", "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=str(ROOT),
    )
    try:
        line = proc.stdout.readline()
        match = re.search(r"http://[\d.]+:\d+/", line)
        if not match:
            proc.kill()
            raise RuntimeError(f"serve.py did not print its address: {line!r} {proc.stdout.read()!r}")
        yield match.group(0)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()


class PlainHandler(http.server.SimpleHTTPRequestHandler):
    """A static host like GitHub Pages: right content types, no other headers."""

    extensions_map = {
        ".html": "text/html",
        ".js": "application/javascript",
        ".mjs": "application/javascript",
        ".wasm": "application/wasm",
        ".css": "text/css",
        ".json": "application/json",
        ".svg": "image/svg+xml",
        ".zip": "application/zip",
        ".whl": "application/octet-stream",
        ".toml": "application/octet-stream",
        ".py": "application/octet-stream",
        ".md": "text/markdown",
        "": "application/octet-stream",
    }

    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def built_site(runtime, tmp_path_factory):
    """``python serve.py --build DIR``; yields DIR."""
    out = tmp_path_factory.mktemp("site") / "_site"
    result = subprocess.run(
        [sys.executable, str(ROOT / "serve.py"), "--build", str(out)], capture_output=True, text=True, cwd=str(ROOT), timeout=300
    )
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture(scope="session")
def build_url(built_site):
    """The built site behind a plain static server on a free port; yields its base URL."""
    handler = functools.partial(PlainHandler, directory=str(built_site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def paste(page, text: str) -> None:
    """Paste over the whole text box as the user would: the paste event first; if no handler
    takes it over, what the browser then does itself (a synthetic event does not)."""
    page.evaluate(
        """text => {
        const ta = document.getElementById('document');
        ta.focus(); ta.select();
        const data = new DataTransfer();
        data.setData('text/plain', text);
        const paste = new ClipboardEvent('paste', {clipboardData: data, bubbles: true, cancelable: true});
        if (ta.dispatchEvent(paste)) {
            ta.value = text;
            ta.dispatchEvent(new InputEvent('input', {bubbles: true, inputType: 'insertFromPaste'}));
        } }""",
        text,
    )


# ---------------------------------------------------------------- the browser


@pytest.fixture(scope="session")
def chromium():
    """One Chromium for every browser test (Debian's, via executable_path)."""
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        pytest.skip("chromium is not installed (tests/run.py installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class Page:
    """A loaded playground page plus what it did: requests, console errors, dialogs."""

    def __init__(self, browser, url: str, context=None, **context_args):
        self.url = url
        parts = urllib.parse.urlsplit(url)
        self.origin = f"{parts.scheme}://{parts.netloc}"
        # A page opened in another page's context shares its HTTP cache (no second cold load).
        self.own_context = context is None
        self.context = context or browser.new_context(accept_downloads=True, **context_args)
        self.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=self.origin)
        self.page = self.context.new_page()
        self.requests: list[str] = []
        self.console_errors: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda e: self.console_errors.append(f"pageerror: {e}"))
        self.page.on("dialog", self._dialog)
        self.viewport = self.page.viewport_size
        self.leaving = False

    def _console(self, message):
        if message.type == "error" or "Content Security Policy" in message.text:
            self.console_errors.append(message.text)

    def _dialog(self, dialog):
        if self.leaving and dialog.type == "beforeunload":
            dialog.accept()  # reset() leaves the page, whatever the reader's text
            return
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def open(self, query: str = ""):
        self.page.goto(self.url + query)
        self.wait_ready()
        return self

    def wait_ready(self):
        self.page.wait_for_selector("body[data-ready=true]", state="attached", timeout=LOAD_TIMEOUT_MS)
        self.wait_idle()

    def wait_idle(self):
        self.page.wait_for_function("document.body.dataset.busy === 'false'", timeout=LOAD_TIMEOUT_MS)

    def wait_compare(self):
        self.page.wait_for_function(
            "document.body.dataset.compare === 'done' && document.body.dataset.busy === 'false'", timeout=LOAD_TIMEOUT_MS
        )

    def reset(self):
        """Open the page again in this tab, as a new page would open: what the last test did
        to the page goes (its document, settings, worker and interpreter, DOM and scripts), and
        so do its routes, media emulation, viewport, offline mode, held keys and pointer, and
        the requests, console errors and dialogs recorded. A new tab costs several seconds of
        Chromium's start-up; this, about one and a half. (An init script added to the page
        would stay: a test that needs one opens a page of its own.)"""
        self.leaving = True
        try:
            self.page.goto("about:blank")
        finally:
            self.leaving = False
        self.page.unroute_all(behavior="ignoreErrors")
        self.context.unroute_all(behavior="ignoreErrors")
        self.context.set_offline(False)
        self.page.emulate_media(
            media="null", color_scheme="light", reduced_motion="no-preference", forced_colors="none", contrast="no-preference"
        )
        if self.page.viewport_size != self.viewport:
            self.page.set_viewport_size(self.viewport)
        for key in ("Shift", "Control", "Alt", "Meta"):
            self.page.keyboard.up(key)
        self.page.mouse.move(0, 0)
        self.requests.clear()
        self.console_errors.clear()
        self.dialogs.clear()
        return self.open()

    def state(self) -> dict:
        """What a test could find different between this page and a newly opened one."""
        return dict(
            self.page.evaluate("""() => ({
            href: location.href, width: innerWidth, height: innerHeight, online: navigator.onLine,
            dark: matchMedia('(prefers-color-scheme: dark)').matches, print: matchMedia('print').matches,
            reduced: matchMedia('(prefers-reduced-motion: reduce)').matches,
            forced: matchMedia('(forced-colors: active)').matches,
            scroll: [scrollX, scrollY], focus: document.activeElement && document.activeElement.id,
            ready: document.body.dataset.ready, busy: document.body.dataset.busy,
            restarts: document.body.dataset.restarts || '0', document: document.getElementById('document').value,
            summary: document.getElementById('summary').textContent,
            error: document.getElementById('error').hidden ? '' : document.getElementById('error').textContent,
        })"""),
            controls=self.controls(),
            console_errors=list(self.console_errors),
            dialogs=list(self.dialogs),
        )

    def close(self):
        if self.own_context:
            self.context.close()
        else:
            self.page.close()

    # ------------------------------------------------------------ driving the page

    def renders(self) -> int:
        return int(self.page.evaluate("document.body.dataset.renders || '0'"))

    def act(self, action):
        """Run `action` (which changes the text or a setting) and wait for its view."""
        before = self.renders()
        action()
        self.page.wait_for_function(
            f"+(document.body.dataset.renders || 0) > {before} && document.body.dataset.busy === 'false'", timeout=LOAD_TIMEOUT_MS
        )

    def set_text(self, text: str):
        """Replace the document as a paste would, and wait for its view. A large text goes
        through the page's own large-paste path (Playwright's fill types it into the box, which
        takes half a minute for 150,000 characters)."""
        self.act(lambda: paste(self.page, text))

    def select(self, name: str, value: str):
        self.act(lambda: self.page.select_option(f"#{name}", value))

    def fill(self, selector: str, value: str):
        self.act(lambda: self.page.fill(selector, value))

    def click(self, selector: str):
        self.act(lambda: self.page.click(selector))

    def controls(self) -> dict:
        """The settings the page shows, as `chunker.chunk` keyword arguments."""
        return self.page.evaluate("""() => {
            const v = id => document.getElementById(id).value;
            const pressed = document.querySelector('.pcts button[aria-pressed=true]');
            const breaks = [...document.querySelectorAll('#breaks input:checked')].map(b => b.value);
            return {strategy: v('strategy'), unit: v('unit'), size: +v('size'),
                    overlap: pressed ? pressed.dataset.pct + '%' : +v('overlap'),
                    tokenizer: v('tokenizer'), breaks: breaks};
        }""")

    def code_points(self, selector: str) -> int:
        """Code points in an element's text (JavaScript's own length counts UTF-16 units)."""
        return self.page.eval_on_selector(selector, "e => [...e.textContent].length")

    def cards(self) -> list:
        return self.page.evaluate("""() => [...document.querySelectorAll('#cards .card')].map(c => ({
            index: +c.dataset.chunkIndex, start: +c.dataset.start, end: +c.dataset.end,
            start16: +c.dataset.start16, end16: +c.dataset.end16,
            tokens: c.querySelector('.num').textContent,
            flags: [...c.querySelectorAll('.flag')].map(f => f.dataset.flag),
            preview: c.querySelector('.prev').textContent}))""")

    def view_texts(self) -> dict:
        """Each chunk's text as the document view shows it (its segments, joined)."""
        return self.page.evaluate("""() => {
            const out = {};
            for (const s of document.querySelectorAll('#doc-view [data-c]'))
                for (const i of s.dataset.c.split(' ')) out[i] = (out[i] || '') + s.textContent;
            return out;
        }""")

    def foreign_requests(self) -> list:
        """Requests that went anywhere but the page's own origin (blob: URLs of it count as its own)."""
        own = (self.origin + "/", "blob:" + self.origin + "/")
        return [u for u in self.requests if not u.startswith(own)]
