"""What the browser tests share beyond conftest's fixtures: a page per test in a module's
browser context, and helpers that read the page."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from conftest import Page


def page_fixtures(url_fixture: str = "serve_url"):
    """(site, app) fixtures: one browser context per module (the runtime then comes from the
    HTTP cache and the interpreter from its snapshot), and a freshly opened page per test."""

    @pytest.fixture(scope="module")
    def site(request, chromium):
        url = request.getfixturevalue(url_fixture)
        context = chromium.new_context(accept_downloads=True)
        yield url, context
        context.close()

    @pytest.fixture
    def app(site, chromium):
        url, context = site
        page = Page(chromium, url, context=context)
        page.open()
        yield page
        page.close()

    return site, app


def params(app: Page) -> dict:
    return {k: v[0] for k, v in parse_qs(urlsplit(app.page.url).query).items()}


def clipboard(app: Page) -> str:
    return app.page.evaluate("navigator.clipboard.readText()")


def text_of(app: Page, selector: str) -> str:
    return app.page.eval_on_selector(selector, "e => e.textContent")


def outdate_model_work(page: Page) -> None:
    """Give the page a model's tokenizer.json, and choose the estimate while the worker counts
    with it: that work is stale (the test's page shortens chunkerStaleSeconds). Returns once
    the estimate's counts show."""
    from tests.hf_fixtures import claude_path

    page.page.set_input_files("#tokenizer-file", str(claude_path()))
    page.page.wait_for_function("document.getElementById('tokenizer').value === 'tokenizer.json'")
    page.page.wait_for_function("document.body.dataset.busy === 'true'")
    page.select("tokenizer", "estimate")
    page.page.wait_for_function("document.getElementById('counts').textContent.endsWith('(estimate)')")
