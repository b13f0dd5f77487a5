"""What the browser tests share beyond conftest's fixtures: one page per module, reset between
its tests, and helpers that read the page."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from conftest import FAILED, Page


class SharedPage:
    """The page a module's tests take in turn, in the module's browser context (so the runtime
    comes from the HTTP cache and the interpreter from its snapshot).

    Each test gets it reset (`Page.reset`: opened again in the same tab, about 1.5 s instead
    of a new tab's 5 or more) and checked: its `Page.state` must be the one a newly opened
    page showed, or the test gets a new page after all. After a test that failed, the next
    gets a new page in any case: one test's failure cannot leave the next a page in a state
    it did not expect.
    """

    def __init__(self, chromium, url: str, **attributes):
        self.chromium, self.url, self.attributes = chromium, url, attributes
        self.context = chromium.new_context(accept_downloads=True)
        self.page: Page | None = None
        self.fresh: dict | None = None  # the state of the module's first, newly opened page
        self.resets = self.new_pages = 0

    def take(self) -> Page:
        if self.page is not None:
            self.page.reset()
            if self.page.state() == self.fresh:
                self.resets += 1
                return self.page
            self.drop()
        self.page = Page(self.chromium, self.url, context=self.context).open()
        self.page.__dict__.update(self.attributes)
        self.new_pages += 1
        if self.fresh is None:
            self.fresh = self.page.state()
        return self.page

    def drop(self):
        if self.page is not None:
            page, self.page = self.page, None
            page.close()

    def close(self):
        self.drop()
        self.context.close()


def shared_page_fixture():
    """An `app` fixture: the module's SharedPage (its `site` fixture), taken for one test."""

    @pytest.fixture
    def app(request, site):
        page = site.take()
        try:
            yield page
        finally:
            if request.node.stash.get(FAILED, False):
                site.drop()

    return app


def page_fixtures(url_fixture: str = "serve_url"):
    """(site, app) fixtures: one browser context and one page per module, the page reset
    between tests (see SharedPage)."""

    @pytest.fixture(scope="module")
    def site(request, chromium):
        shared = SharedPage(chromium, request.getfixturevalue(url_fixture))
        yield shared
        shared.close()

    return site, shared_page_fixture()


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
    page.page.wait_for_function("document.getElementById('tokenizer').value.startsWith('hf:')")  # known by its content
    page.page.wait_for_function("document.body.dataset.busy === 'true'")
    page.select("tokenizer", "estimate")
    page.page.wait_for_function("document.getElementById('counts').textContent.endsWith('(estimate)')")
