"""The settings' controls, the address, the comparison and the advice, on pages served by
serve.py. Each test starts from the page as newly opened and checks it against `chunker` run in
CPython with the settings the controls show."""

from __future__ import annotations

import json
import math
from urllib.parse import parse_qs, urlsplit

import pytest
from conftest import Page

import chunker
from tests.pagekit import clipboard, page_fixtures, params, text_of
from tests.test_page import SAMPLE, assert_same_as_python

pytestmark = pytest.mark.browser

site, app = page_fixtures()

DEFAULTS = {k: list(v) if isinstance(v, tuple) else v for k, v in chunker.PLAYGROUND_DEFAULTS.items()}


def test_the_controls_are_the_librarys_registries(app):
    options = app.page.evaluate("""() => Object.fromEntries(['strategy', 'unit', 'tokenizer', 'limit'].map(
        id => [id, [...document.getElementById(id).options].map(o => o.value)]))""")
    assert options == {
        "strategy": list(chunker.STRATEGIES),
        "unit": list(chunker.UNITS),
        "tokenizer": list(chunker.TOKENIZERS),
        "limit": ["", *chunker.MODEL_LIMITS],
    }
    assert app.page.evaluate("[...document.querySelectorAll('#breaks input')].map(b => b.value)") == list(chunker.BREAKS)
    assert app.page.evaluate("[...document.querySelectorAll('#export button.dl')].map(b => b.dataset.format)") == list(
        chunker.FORMATS
    )
    assert app.page.locator("#presets tr").count() == len(chunker.PRESETS)
    assert app.controls() == {k: v for k, v in DEFAULTS.items()}


def test_strategy_select_explains_each_strategy(app):
    for name, strategy in chunker.STRATEGIES.items():
        if name != app.controls()["strategy"]:
            app.select("strategy", name)
        assert text_of(app, "#strategy-help") == strategy.description
        assert "`" not in strategy.description  # plain text, never raw Markdown
        assert params(app)["strategy"] == name
        assert_same_as_python(app, SAMPLE)


def test_unit_select_keeps_the_amount_of_text(app):
    app.select("unit", "chars")
    assert app.page.input_value("#size") == "600"  # 150 tokens ≈ 600 characters
    assert text_of(app, "#size-unit") == "(characters)"
    assert_same_as_python(app, SAMPLE)
    app.select("unit", "words")
    assert_same_as_python(app, SAMPLE)
    assert params(app)["unit"] == "words"


def test_tokenizers_mark_estimates(app):
    for name, info in chunker.TOKENIZERS.items():
        app.select("tokenizer", name)
        result = assert_same_as_python(app, SAMPLE)
        assert all(card["tokens"].startswith("≈") != info.exact for card in app.cards())
        assert text_of(app, "#counts").endswith(f"{result.stats.document_tokens:,} tokens ({name})")
        assert ("≈" in text_of(app, "#stats")) != info.exact
        assert text_of(app, "#tokenizer-help") == info.description


def test_size_slider_and_number_move_together(app):
    app.fill("#size-range", "300")
    assert app.page.input_value("#size") == "300"
    assert_same_as_python(app, SAMPLE)
    app.fill("#size", "90")
    assert app.page.input_value("#size-range") == "90"
    assert params(app)["size"] == "90"
    assert_same_as_python(app, SAMPLE)


def test_overlap_slider_number_and_percent_buttons(app):
    app.fill("#size", "200")
    for pct in ("15", "20", "10", "0"):
        app.click(f".pcts button[data-pct='{pct}']")
        assert app.page.input_value("#overlap") == str(math.floor(200 * int(pct) / 100))
        assert app.page.get_attribute(f".pcts button[data-pct='{pct}']", "aria-pressed") == "true"
        assert params(app)["overlap"] == pct + "%"
        assert_same_as_python(app, SAMPLE)
    app.click(".pcts button[data-pct='15']")
    app.fill("#size", "300")  # a percentage follows the size
    assert app.page.input_value("#overlap") == "45"
    app.fill("#overlap-range", "37")
    assert app.page.input_value("#overlap") == "37" and params(app)["overlap"] == "37"
    assert app.page.locator(".pcts button[aria-pressed=true]").count() == 0
    app.fill("#overlap", "12")
    assert app.page.input_value("#overlap-range") == "12"
    assert_same_as_python(app, SAMPLE)


def test_a_burst_of_changes_ends_on_the_latest_settings(app):
    # Forty slider steps in one go: calls to the worker are coalesced, and the view that stays
    # is the one for the last value, never an older one that finished later.
    before = app.renders()
    app.act(
        lambda: app.page.evaluate("""() => {
        const r = document.getElementById('size-range');
        for (let v = 60; v <= 450; v += 10) { r.value = String(v); r.dispatchEvent(new Event('input')); }
    }""")
    )
    app.wait_idle()
    assert app.page.input_value("#size") == "450" and params(app)["size"] == "450"
    assert_same_as_python(app, SAMPLE)
    assert app.renders() - before <= 2  # not one view per event


def test_break_points_drive_the_sentence_strategy(app):
    app.select("strategy", "sentence")
    assert "inactive" not in app.page.get_attribute("#breaks", "class")
    app.act(lambda: app.page.uncheck("#breaks input[value=sentence]"))
    app.act(lambda: app.page.check("#breaks input[value=clause]"))
    assert app.controls()["breaks"] == ["paragraph", "line", "clause"]
    assert params(app)["breaks"] == "paragraph,line,clause"
    assert_same_as_python(app, SAMPLE)
    app.select("strategy", "fixed")
    assert "inactive" in app.page.get_attribute("#breaks", "class")


def test_model_limit_and_heavy_overlap_warnings(app):
    app.fill("#size", "400")
    app.select("limit", "minilm")
    result = chunker.chunk(SAMPLE, **app.controls())
    over = sum(c.tokens > 256 for c in result.chunks)
    advice = text_of(app, "#advice")
    assert over and f"{over} of {len(result.chunks)} chunks exceed the 256-token" in advice
    assert "switch the unit to tokens" not in advice.lower() and "Size in tokens" not in advice
    app.fill("#overlap", "250")
    assert "over 50%" in text_of(app, "#advice")
    assert params(app)["limit"] == "minilm"


def test_bad_settings_are_said_next_to_their_field(app):
    app.select("strategy", "fixed")
    app.fill("#size", "0")
    with pytest.raises(chunker.ChunkerError) as expected:
        chunker.chunk(SAMPLE, **dict(app.controls(), size=0))
    assert text_of(app, "#error") == str(expected.value) and "\n" not in str(expected.value)
    assert text_of(app, "#size-error") == str(expected.value) and app.page.is_visible("#size-error")
    assert app.page.is_hidden("#overlap-error")
    assert "stale" in app.page.get_attribute("#results", "class")
    app.set_text("Still counted while the settings are wrong.")
    assert text_of(app, "#counts").startswith("43 chars · 7 words")
    app.fill("#size", "100")
    assert app.page.is_hidden("#error") and app.page.is_hidden("#size-error")
    # A typed overlap at or past the size says why the results went grey, next to the overlap.
    app.fill("#overlap", "100")
    assert "smaller than the size" in text_of(app, "#overlap-error") and app.page.is_visible("#overlap-error")
    app.fill("#overlap", "10")
    assert app.page.is_hidden("#error") and app.page.is_hidden("#overlap-error")
    assert_same_as_python(app, "Still counted while the settings are wrong.")


def test_an_overlap_that_repeats_the_document_thousands_of_times_is_refused(app):
    # A stride of one character would make the worker hold gigabytes of chunk text for a
    # megabyte: the page says what the settings would make and what to change instead.
    app.select("strategy", "fixed")
    app.select("unit", "chars")
    app.fill("#size", "2000")
    app.fill("#overlap", "1999")
    error = text_of(app, "#error")
    assert error.startswith("these settings make chunks holding about ")
    assert "times the document, past the limit of 2,000,000" in error
    assert error.endswith("lower the overlap (1999 of 2000 chars now) or raise the size")
    assert "stale" in app.page.get_attribute("#results", "class")
    app.fill("#overlap", "200")
    assert app.page.is_hidden("#error")
    assert_same_as_python(app, SAMPLE)


# ---------------------------------------------------------------- compare and advice


def test_compare_table_is_live(app):
    app.fill("#size", "120")
    app.wait_compare()
    rows = app.page.evaluate("""() => [...document.querySelectorAll('#compare-table tbody tr')].map(r =>
        [r.querySelector('[data-strategy]').dataset.strategy, ...[...r.querySelectorAll('td')].map(td => td.textContent)])""")
    settings = app.controls()
    assert [r[0] for r in rows] == list(chunker.STRATEGIES)
    for name, chunks, avg, _low, high, *flags in rows:
        stats = chunker.chunk(SAMPLE, **dict(settings, strategy=name)).stats
        assert int(chunks) == stats.chunks
        assert float(avg.lstrip("≈").replace(",", "")) == pytest.approx(stats.avg_tokens, abs=0.05)
        assert int(high.lstrip("≈")) == stats.max_tokens
        assert [int(f or 0) for f in flags] == [stats.flag_counts.get(f, 0) for f in chunker.FLAGS]
    app.click("#compare-table button[data-strategy=markdown]")
    assert app.page.input_value("#strategy") == "markdown"
    assert_same_as_python(app, SAMPLE)


def test_compare_rows_already_computed_do_not_flash(app):
    app.wait_compare()
    # Back to settings the table was already computed for: every row is there at once.
    app.fill("#size", "151")
    app.wait_compare()
    app.page.evaluate("""() => { window.flashed = 0; new MutationObserver(() => {
        if (document.querySelector('#compare-table .pending')) window.flashed += 1; })
        .observe(document.getElementById('compare-table'), {childList: true, subtree: true}); }""")
    app.fill("#size", "150")
    app.wait_compare()
    assert app.page.evaluate("window.flashed") == 0


def test_the_compare_table_never_shows_rows_of_another_document(app):
    app.wait_compare()
    # What the table says the moment each view is on screen, before any comparison answers.
    app.page.evaluate("""() => { window.atRender = []; new MutationObserver(() => window.atRender.push(
        [...document.querySelectorAll('#compare-table tbody tr')].map(r => r.querySelector('td').textContent)))
        .observe(document.body, {attributes: true, attributeFilter: ['data-renders']}); }""")
    text = "A short note. " * 12
    app.set_text(text)
    app.wait_compare()
    expected = {str(chunker.chunk(text, **dict(app.controls(), strategy=name)).stats.chunks) for name in chunker.STRATEGIES}
    seen = app.page.evaluate("window.atRender")
    assert seen and all(cell in expected or cell == "computing…" for cells in seen for cell in cells), seen


def test_large_documents_compare_on_request(app):
    # The threshold is lowered for the test so that the sample counts as large.
    other = Page(app.page.context.browser, app.url, context=app.context)
    try:
        other.page.add_init_script("window.chunkerCompareAutoChars = 1000")
        other.open()
        other.page.wait_for_selector("#run-compare")
        assert other.page.get_attribute("body", "data-compare") == "manual"
        renders = other.renders()
        other.page.click("#run-compare")
        other.wait_compare()
        assert other.renders() == renders  # only the comparison ran, not the view again
        assert other.page.locator("#compare-table tbody tr").count() == len(chunker.STRATEGIES)
    finally:
        other.close()


def test_starting_points_and_advice_apply_their_settings(app):
    app.select("unit", "chars")
    openai = json.dumps({"unit": "tokens", "size": 800, "overlap": 400})
    app.click(f"#presets button[data-apply='{openai}']")
    assert app.controls()["unit"] == "tokens"
    assert app.page.input_value("#size") == "800" and app.page.input_value("#overlap") == "400"
    faq = json.dumps({"unit": "tokens", "size": 300, "overlap": "15%"})
    app.click(f"#presets button[data-apply='{faq}']")
    assert params(app)["overlap"] == "15%" and app.page.input_value("#overlap") == "45"
    assert_same_as_python(app, SAMPLE)
    # The advice recognises the sample as technical documentation; the sample is shorter than
    # that row's 1,024 tokens, so the advice says it would be one chunk and offers no button.
    assert "Looks like technical documentation" in text_of(app, "#advice")
    assert "one chunk" in text_of(app, "#advice li[data-code=content_type]")
    assert app.page.locator("#advice li[data-code=content_type] button[data-apply]").count() == 0
    # Three samples together are long enough: the row is offered, and applies.
    app.set_text("\n\n".join([SAMPLE] * 3))
    app.click("#advice li[data-code=content_type] button[data-apply]")
    assert app.page.input_value("#size") == "1024" and params(app)["overlap"] == "10%"


def test_advice_never_contradicts_the_settings(app):
    # README-like Markdown at 500 tokens, a MiniLM limit and an exact tokenizer: the advice
    # neither repeats the unit in use, nor recommends a size past the limit, nor a strategy in use.
    app.set_text(SAMPLE * 4)
    app.select("strategy", "markdown")
    app.fill("#size", "500")
    app.select("tokenizer", "o200k")
    app.select("limit", "minilm")
    expected = chunker.advise(SAMPLE * 4, chunker.chunk(SAMPLE * 4, **app.controls()), limit="minilm")
    shown = app.page.evaluate("[...document.querySelectorAll('#advice li')].map(li => li.dataset.code)")
    assert shown == [t.code for t in expected.tips]
    for tip in expected.tips:
        assert tip.suggest.get("strategy") not in ("markdown", ("markdown",))
        assert tip.suggest.get("size", 0) <= 256
        assert "unit" not in tip.suggest


# ---------------------------------------------------------------- the address


def test_settings_round_trip_through_the_url(app, chromium):
    app.select("strategy", "sentence")
    app.select("unit", "words")
    app.fill("#size", "70")
    app.click(".pcts button[data-pct='20']")
    app.select("tokenizer", "cl100k")
    app.act(lambda: app.page.check("#breaks input[value=clause]"))
    app.page.click("#copy-link")
    app.page.wait_for_function("document.getElementById('toast').textContent.startsWith('Copied a link')")
    link = clipboard(app)
    assert link == app.page.url
    assert params(app) == {
        "strategy": "sentence",
        "unit": "words",
        "size": "70",
        "overlap": "20%",
        "tokenizer": "cl100k",
        "breaks": "paragraph,line,sentence,clause",
        # the fields the worker builds from the table of options, at their defaults
        "min_size": "0",
        "language": "auto",
        "context": "none",
        "breakpoint_percentile": "95",
    }
    assert "Deploying" not in link  # never the document
    other = Page(chromium, link, context=app.context).open()
    try:
        assert other.controls() == app.controls()
        assert_same_as_python(other, SAMPLE)
    finally:
        other.close()


def test_a_link_copied_while_the_worker_runs_has_the_new_settings(app):
    # The address follows the settings once the view is on screen (the main thread stays free
    # for the worker's answer meanwhile); a link copied before that must not be the old one.
    app.page.evaluate("""() => {
        const size = document.getElementById('size');
        size.value = '77';
        size.dispatchEvent(new Event('input', {bubbles: true}));
        document.getElementById('copy-link').click();
    }""")
    app.page.wait_for_function("document.getElementById('toast').textContent.startsWith('Copied a link')")
    assert parse_qs(urlsplit(clipboard(app)).query)["size"] == ["77"]
    app.wait_idle()
    assert params(app)["size"] == "77"


def test_every_unusable_link_value_is_listed_together(app):
    app.page.goto(
        app.url
        + "?strategy=neural&size=abc&overlap=999&breaks=nope&colour=red&unit=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E"
        + "&limit=a%00b"  # a NUL cut the whole message there
    )
    app.wait_ready()
    message = text_of(app, "#error")
    for part in (
        "strategy=neural",
        "size=abc",
        "breaks=nope",
        "colour (not a setting)",
        "unit=<img src=x onerror=alert(1)>",  # shown as text, never as markup
        "overlap 999 must be smaller than the size 150",
        "limit=a\\x00b",
    ):
        assert part in message, part
    assert app.page.locator("#error *").count() == 0
    assert app.controls()["strategy"] == chunker.PLAYGROUND_DEFAULTS["strategy"]
    assert "once Python has loaded" not in text_of(app, "#results")
    app.fill("#overlap", "15")  # the good values apply once the setting is fixed
    assert app.page.is_hidden("#error")
    assert_same_as_python(app, SAMPLE)


def test_every_control_has_a_label(app):
    unlabelled = app.page.evaluate("""() => [...document.querySelectorAll('input, select, textarea, button')]
        .filter(e => e.type !== 'file' && e.offsetParent !== null)
        .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !e.textContent.trim())
        .map(e => e.outerHTML.slice(0, 80))""")
    assert unlabelled == []
    assert app.page.locator("label[for=file]").count() == 1
    # The hidden file input is reached with Tab, and its visible label shows the focus.
    app.page.focus("#insert-sample")
    app.page.keyboard.press("Tab")
    assert app.page.evaluate("document.activeElement.id") == "file"
    assert app.page.eval_on_selector("label[for=file]", "e => getComputedStyle(e).outlineStyle") == "solid"


def test_readable_at_360px_and_in_dark_mode(app):
    def background():
        rgb = app.page.evaluate("getComputedStyle(document.body).backgroundColor")
        return [int(v) for v in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")[:3]]

    app.page.set_viewport_size({"width": 360, "height": 740})
    # Nothing wider than the phone: long lines scroll inside their own boxes.
    assert app.page.evaluate("document.documentElement.scrollWidth") <= 360
    app.page.emulate_media(color_scheme="dark")
    assert sum(background()) < 3 * 60
    app.page.emulate_media(color_scheme="light")
    assert sum(background()) > 3 * 200


def test_a_worker_that_never_starts_is_explained(chromium, serve_url):
    """Pyodide's WebAssembly cut off: the text box still works and the page says what happened."""
    page = Page(chromium, serve_url)
    try:
        page.page.add_init_script("window.chunkerStartTimeout = 2")
        page.page.route("**/pyodide.asm.wasm", lambda route: route.abort())
        page.page.goto(serve_url)
        page.page.wait_for_selector("body[data-ui=true]", state="attached")
        page.page.fill("#document", "Typed before Python is ready.")
        assert page.page.input_value("#document") == "Typed before Python is ready."
        page.page.wait_for_selector("#error:not([hidden])")
        assert "Python has not started" in text_of(page, "#error")
        assert "Traceback" not in text_of(page, "#error")
        assert page.page.get_attribute("body", "data-ready") == "false"
    finally:
        page.close()


def test_the_reset_between_tests_leaves_a_newly_opened_page(app, site, chromium):
    """tests/pagekit.py: the page this module's tests share is opened again between tests, and
    must then be what a new page is, whatever the test before did to it."""
    app.select("strategy", "sentence")
    app.fill("#size", "70")
    app.set_text("Changed by the test before.")
    app.page.set_viewport_size({"width": 360, "height": 740})
    app.page.emulate_media(color_scheme="dark", reduced_motion="reduce")
    app.page.route("**/static/app.css", lambda route: route.abort())
    app.context.set_offline(True)
    app.page.evaluate("window.leftOver = 1; window.scrollTo(0, 400); document.getElementById('size').focus()")
    assert app.state() != site.fresh
    app.reset()
    assert app.state() == site.fresh
    assert app.page.evaluate("typeof window.leftOver") == "undefined"
    assert app.page.evaluate(  # the stylesheet the test's route refused arrives again
        "[...document.styleSheets].some(s => (s.href || '').endsWith('/static/app.css') && s.cssRules.length)"
    )
    other = Page(chromium, app.url, context=app.context).open()
    try:
        assert other.state() == site.fresh
    finally:
        other.close()
