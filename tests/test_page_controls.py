"""Every control of the playground, the linking between text and cards, exports, the URL and
hostile input, on one page load served by serve.py.

Each test sets the state it needs through the page itself and checks the page against
`chunker` run in CPython with the settings the controls show.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

import chunker
from chunker import _cli
from app import render
from conftest import Page
from test_page import ASTRAL, PROSE, SAMPLE, assert_same_as_python

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def app(chromium, serve_url):
    page = Page(chromium, serve_url).open()
    yield page
    page.close()


@pytest.fixture
def fresh(app):
    """Known settings and the sample document before each test, without reloading the page."""
    page = app.page
    if page.input_value("#unit") != "tokens":
        app.select("unit", "tokens")
    page.evaluate("""() => {
        const set = (id, v) => { document.getElementById(id).value = v; };
        set('strategy', 'recursive'); set('tokenizer', 'approx'); set('limit', ''); set('size', '150');
        for (const b of document.querySelectorAll('#breaks input'))
            b.checked = ['paragraph', 'line', 'sentence'].includes(b.value);
    }""")
    app.click(".pcts button[data-pct='10']")  # one change event re-reads every control
    if page.input_value("#document") != SAMPLE:
        app.set_text(SAMPLE)
    assert app.controls() == {"strategy": "recursive", "unit": "tokens", "size": 150, "overlap": "10%",
                              "tokenizer": "approx", "breaks": ["paragraph", "line", "sentence"]}
    return app


def params(app: Page) -> dict:
    return {k: v[0] for k, v in parse_qs(urlsplit(app.page.url).query).items()}


def clipboard(app: Page) -> str:
    return app.page.evaluate("navigator.clipboard.readText()")


def text_of(app: Page, selector: str) -> str:
    return app.page.eval_on_selector(selector, "e => e.textContent")


# ---------------------------------------------------------------- settings controls


def test_strategy_select_explains_each_strategy(fresh):
    for name in chunker.STRATEGIES:
        if name != "recursive":
            fresh.select("strategy", name)
        assert text_of(fresh, "#strategy-help") == chunker.STRATEGIES[name]
        assert params(fresh)["strategy"] == name
        assert_same_as_python(fresh, SAMPLE)
    assert "LangChain" in chunker.STRATEGIES["langchain"]


def test_unit_select_keeps_the_amount_of_text(fresh):
    fresh.select("unit", "chars")
    assert fresh.page.input_value("#size") == "600"  # 150 tokens ≈ 600 characters
    assert text_of(fresh, "#size-unit") == "(characters)"
    assert_same_as_python(fresh, SAMPLE)
    fresh.select("unit", "words")
    assert_same_as_python(fresh, SAMPLE)
    assert params(fresh)["unit"] == "words"


def test_tokenizers_mark_estimates(fresh):
    for name in ("estimate", "o200k", "cl100k", "approx"):
        fresh.select("tokenizer", name)
        result = assert_same_as_python(fresh, SAMPLE)
        exact = name in ("o200k", "cl100k")
        assert all(card["tokens"].startswith("≈") != exact for card in fresh.cards())
        assert text_of(fresh, "#counts").endswith(f"{result.stats.document_tokens:,} tokens ({name})")
        assert ("≈" in text_of(fresh, "#stats")) != exact
        assert text_of(fresh, "#tokenizer-help") == chunker.TOKENIZERS[name]


def test_size_slider_and_number_move_together(fresh):
    fresh.fill("#size-range", "300")
    assert fresh.page.input_value("#size") == "300"
    assert_same_as_python(fresh, SAMPLE)
    fresh.fill("#size", "90")
    assert fresh.page.input_value("#size-range") == "90"
    assert params(fresh)["size"] == "90"
    assert_same_as_python(fresh, SAMPLE)


def test_overlap_slider_number_and_percent_buttons(fresh):
    fresh.fill("#size", "200")
    for pct in ("15", "20", "10", "0"):
        fresh.click(f".pcts button[data-pct='{pct}']")
        assert fresh.page.input_value("#overlap") == str(math.floor(200 * int(pct) / 100))
        assert fresh.page.get_attribute(f".pcts button[data-pct='{pct}']", "aria-pressed") == "true"
        assert params(fresh)["overlap"] == pct + "%"
        assert_same_as_python(fresh, SAMPLE)
    fresh.click(".pcts button[data-pct='15']")
    fresh.fill("#size", "300")  # a percentage follows the size
    assert fresh.page.input_value("#overlap") == "45"
    fresh.fill("#overlap-range", "37")
    assert fresh.page.input_value("#overlap") == "37" and params(fresh)["overlap"] == "37"
    assert fresh.page.locator(".pcts button[aria-pressed=true]").count() == 0
    fresh.fill("#overlap", "12")
    assert fresh.page.input_value("#overlap-range") == "12"
    assert_same_as_python(fresh, SAMPLE)


def test_a_burst_of_changes_ends_on_the_latest_settings(fresh):
    # Forty slider steps in one go: calls to the worker are coalesced, and the view that stays
    # is the one for the last value, never an older one that finished later.
    before = fresh.renders()
    fresh.act(lambda: fresh.page.evaluate("""() => {
        const r = document.getElementById('size-range');
        for (let v = 60; v <= 450; v += 10) { r.value = String(v); r.dispatchEvent(new Event('input')); }
    }"""))
    fresh.wait_idle()
    assert fresh.page.input_value("#size") == "450" and params(fresh)["size"] == "450"
    assert_same_as_python(fresh, SAMPLE)
    assert fresh.renders() - before <= 2  # not one view per event


def test_break_points_drive_the_sentence_strategy(fresh):
    fresh.select("strategy", "sentence")
    assert "inactive" not in fresh.page.get_attribute("#breaks", "class")
    fresh.act(lambda: fresh.page.uncheck("#breaks input[value=sentence]"))
    fresh.act(lambda: fresh.page.check("#breaks input[value=clause]"))
    assert fresh.controls()["breaks"] == ["paragraph", "line", "clause"]
    assert params(fresh)["breaks"] == "paragraph,line,clause"
    assert_same_as_python(fresh, SAMPLE)
    fresh.select("strategy", "fixed")
    assert "inactive" in fresh.page.get_attribute("#breaks", "class")


def test_model_limit_and_heavy_overlap_warnings(fresh):
    fresh.fill("#size", "400")
    fresh.select("limit", "minilm")
    result = chunker.chunk(SAMPLE, **fresh.controls())
    over = sum(c.tokens > 256 for c in result.chunks)
    assert over and f"{over} of {len(result.chunks)} chunks exceed the 256-token" in text_of(fresh, "#advice")
    fresh.fill("#overlap", "250")
    assert "over 50%" in text_of(fresh, "#advice")
    assert params(fresh)["limit"] == "minilm"


def test_bad_settings_are_a_message_not_a_traceback(fresh):
    fresh.select("strategy", "fixed")
    fresh.fill("#size", "0")
    error = text_of(fresh, "#error")
    with pytest.raises(chunker.ChunkerError) as expected:
        chunker.chunk(SAMPLE, **dict(fresh.controls(), size=0))
    assert error == str(expected.value)
    assert "Traceback" not in error and "\n" not in error
    assert "stale" in fresh.page.get_attribute("#results", "class")
    fresh.set_text("Still counted while the settings are wrong.")
    assert text_of(fresh, "#counts").startswith("43 chars · 7 words")
    fresh.fill("#size", "100")
    assert fresh.page.is_hidden("#error")
    fresh.fill("#overlap", "100")
    assert "overlap" in text_of(fresh, "#error") and "smaller than the size" in text_of(fresh, "#error")
    fresh.fill("#overlap", "10")
    assert fresh.page.is_hidden("#error")
    assert_same_as_python(fresh, "Still counted while the settings are wrong.")


def test_an_overlap_that_repeats_the_document_thousands_of_times_is_refused(fresh):
    # A stride of one character would make the worker hold gigabytes of chunk text for a
    # megabyte: the page says what the settings would make and what to change instead.
    fresh.select("strategy", "fixed")
    fresh.select("unit", "chars")
    fresh.fill("#size", "2000")
    fresh.fill("#overlap", "1999")
    error = text_of(fresh, "#error")
    assert error.startswith("these settings make chunks holding about ")
    assert "times the document, past the limit of 2,000,000" in error
    assert error.endswith("lower the overlap (1999 of 2000 chars now) or raise the size")
    assert "stale" in fresh.page.get_attribute("#results", "class")
    fresh.fill("#overlap", "200")
    assert fresh.page.is_hidden("#error")
    assert_same_as_python(fresh, SAMPLE)


# ---------------------------------------------------------------- input


def test_insert_sample_clear_and_live_counts(fresh):
    fresh.click("#clear")
    assert fresh.page.input_value("#document") == ""
    assert fresh.cards() == [] and "Paste a document" in text_of(fresh, "#doc-view")
    fresh.set_text("Tiny doc. 😀")
    assert text_of(fresh, "#counts").startswith("11 chars · 3 words")  # code points, like Python
    fresh.click("#insert-sample")
    assert fresh.page.input_value("#document") == SAMPLE
    stats = chunker.chunk(SAMPLE, **fresh.controls()).stats
    assert text_of(fresh, "#counts") == f"{stats.document_chars:,} chars · {stats.document_words:,} words · ≈{stats.document_tokens:,} tokens (approx)"


def test_open_file_reads_text_and_refuses_others(fresh, tmp_path):
    doc = tmp_path / "notes.md"
    doc.write_text("# Notes\n\nOpened from disk. Ünïcödé 🚀.\n", encoding="utf-8")
    fresh.act(lambda: fresh.page.set_input_files("#file", str(doc)))
    assert fresh.page.input_value("#document") == doc.read_text(encoding="utf-8")
    assert_same_as_python(fresh, doc.read_text(encoding="utf-8"))
    # What is text opens whatever its name; what is not is refused, whatever its name.
    rst = tmp_path / "guide.rst"
    rst.write_text("Guide\n=====\n\nA reStructuredText file. It is text.\n", encoding="utf-8")
    fresh.act(lambda: fresh.page.set_input_files("#file", str(rst)))
    assert_same_as_python(fresh, rst.read_text(encoding="utf-8"))
    for name, data in (("report.pdf", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj"),
                       ("notes.txt", b"PK\x03\x04\x14\x00\x06\x00")):  # a Word file, renamed
        binary = tmp_path / name
        binary.write_bytes(data)
        fresh.page.evaluate("document.getElementById('error').hidden = true")
        fresh.page.set_input_files("#file", str(binary))
        fresh.page.wait_for_selector("#error:not([hidden])")
        assert text_of(fresh, "#error").startswith(name) and "text" in text_of(fresh, "#error")
        assert fresh.page.input_value("#document") == rst.read_text(encoding="utf-8")


def test_a_file_is_chunked_as_the_command_line_reads_it(fresh, tmp_path):
    # A byte order mark and Windows line breaks, as files saved on Windows often have. The
    # command line keeps both (U+FEFF is character 0; CR LF is two characters); a text box
    # would drop the one and turn the other into LF, and every offset after would differ.
    raw = "\ufeff# Notes\r\n\r\nSaved on Windows. Line two.\r\n\r\nSecond paragraph, with ünïcödé.\r\n" * 5
    doc = tmp_path / "windows.txt"
    doc.write_bytes(raw.encode("utf-8"))
    cli = chunker.chunk(_cli._read(str(doc), None), **fresh.controls())
    assert cli.stats.document_chars == len(raw)
    try:
        fresh.act(lambda: fresh.page.set_input_files("#file", str(doc)))
        assert fresh.page.is_visible("#held-note") and "CR LF" in text_of(fresh, "#held-note")
        assert_same_as_python(fresh, raw)
        assert fresh.page.is_hidden("#error")
        # Editing it in the box is editing text with LF line breaks: chunked as such.
        fresh.click("#edit-held")
        assert fresh.page.input_value("#document") == raw.replace("\r\n", "\n")
        assert not fresh.page.is_visible("#held-note")
        assert_same_as_python(fresh, raw.replace("\r\n", "\n"))
    finally:
        fresh.page.evaluate("chunkerBridge.release()")


def test_a_file_that_is_not_utf8_is_refused_as_the_command_line_refuses_it(fresh, tmp_path):
    before = fresh.page.input_value("#document")
    for name, data in (("latin1.txt", "Café au lait.".encode("cp1252")),
                       ("cut.md", "Ends mid-character: é".encode("utf-8")[:-1]),
                       ("surrogate.txt", b"ok \xed\xa0\x80 then more")):
        doc = tmp_path / name
        doc.write_bytes(data)
        with pytest.raises(chunker.ChunkerError) as cli:
            _cli._read(str(doc), None)
        fresh.page.evaluate("document.getElementById('error').hidden = true")
        fresh.page.set_input_files("#file", str(doc))
        fresh.page.wait_for_selector("#error:not([hidden])")
        # The command line's message, with the page's own file name.
        assert text_of(fresh, "#error") == str(cli.value).replace(str(doc), name) + ".", name
        assert fresh.page.input_value("#document") == before


def test_the_bad_byte_offset_is_the_one_python_reports(fresh):
    # static/bridge.js finds the first byte that is not UTF-8 itself (TextDecoder only says
    # that there is one): compared here with Python's decoder on bytes made to break it.
    rng = random.Random(20261129)
    pieces = [b"a", b" ", b"\n", "é".encode(), "€".encode(), "😀".encode(), b"\xc3", b"\xe2\x82", b"\xf0\x9f\x98",
              b"\x80", b"\xbf", b"\xc0\x80", b"\xc1\xbf", b"\xe0\x80\x80", b"\xed\xa0\x80", b"\xed\x9f\xbf",
              b"\xf4\x90\x80\x80", b"\xf5", b"\xff", b"\xef\xbb\xbf"]
    cases = [b"".join(rng.choice(pieces) for _ in range(rng.randint(1, 12))) for _ in range(400)]
    messages = fresh.page.evaluate("""async (cases) => {
        const out = [];
        for (const bytes of cases) {
            out.push(await chunkerBridge.openFile(new File([new Uint8Array(bytes)], "x.txt"), 1e9));
        }
        chunkerBridge.release();
        return out;
    }""", [list(c) for c in cases])
    for data, message in zip(cases, messages):
        try:
            data.decode("utf-8")
            assert message == "", data
        except UnicodeDecodeError as e:
            assert f"(bad byte at offset {e.start})" in message, data
    assert sum(1 for m in messages if m) > 300  # most cases are broken somewhere


def test_dropping_a_file_opens_it(fresh):
    content = "Dropped text.\n\nSecond paragraph of the dropped file."
    transfer = fresh.page.evaluate_handle(
        """text => { const t = new DataTransfer();
                     t.items.add(new File([text], 'dropped.txt', {type: 'text/plain'})); return t; }""", content)
    fresh.act(lambda: fresh.page.dispatch_event("#document", "drop", {"dataTransfer": transfer}))
    assert fresh.page.input_value("#document") == content
    assert_same_as_python(fresh, content)


# ---------------------------------------------------------------- linking text and cards


def test_hovering_a_card_highlights_its_span_and_back(fresh):
    fresh.click(".pcts button[data-pct='20']")
    result = chunker.chunk(SAMPLE, **fresh.controls())
    target = result.chunks[2]
    fresh.page.hover(f"#cards .card[data-chunk-index='{target.index}']")
    lit = fresh.page.evaluate("[...document.querySelectorAll('#doc-view .hl')].map(s => s.textContent).join('')")
    assert lit == target.text
    assert fresh.page.get_attribute(f"#cards .card[data-chunk-index='{target.index}']", "class").split().count("hl") == 1
    # Hovering the text lights up the card(s) covering it; an overlap lights both.
    fresh.page.hover(f"#chunk-{target.index}")
    lit_cards = fresh.page.evaluate("[...document.querySelectorAll('#cards .card.hl')].map(c => +c.dataset.chunkIndex)")
    assert target.index in lit_cards
    fresh.page.hover("#doc-view .s.o")
    shared = fresh.page.get_attribute("#doc-view .s.o", "data-c").split()
    lit_cards = fresh.page.evaluate("[...document.querySelectorAll('#cards .card.hl')].map(c => c.dataset.chunkIndex)")
    assert len(shared) >= 2 and sorted(lit_cards) == sorted(shared)


def test_clicking_a_card_scrolls_the_text_and_selects_it(fresh):
    fresh.fill("#size", "60")
    text = ASTRAL * 3  # taller than the view, so it has to scroll
    fresh.set_text(text)
    result = chunker.chunk(text, **fresh.controls())
    last = result.chunks[-1]
    before = fresh.page.eval_on_selector("#doc-view", "e => e.scrollTop")
    fresh.page.click(f"#cards .card[data-chunk-index='{last.index}']")
    fresh.page.wait_for_function(f"""() => {{
        const v = document.getElementById('doc-view').getBoundingClientRect();
        const t = document.getElementById('chunk-{last.index}').getBoundingClientRect();
        return t.top >= v.top && t.bottom <= v.bottom; }}""")
    assert fresh.page.eval_on_selector("#doc-view", "e => e.scrollTop") > before
    selected = fresh.page.evaluate(
        "() => { const t = document.getElementById('document'); return t.value.substring(t.selectionStart, t.selectionEnd); }")
    assert selected == last.text  # UTF-16 selection offsets land on the emoji-laden chunk exactly
    # The keyboard does the same: focus a card and press Enter.
    first = result.chunks[0]
    fresh.page.focus(f"#cards .card[data-chunk-index='{first.index}']")
    fresh.page.keyboard.press("Enter")
    fresh.page.wait_for_function("() => document.getElementById('doc-view').scrollTop < 40")
    assert fresh.page.evaluate("() => { const t = document.getElementById('document'); return [t.selectionStart, t.selectionEnd]; }") == [
        0, len(first.text.encode("utf-16-le")) // 2]


def test_flag_badges_explain_on_hover_and_on_focus(fresh):
    fresh.select("strategy", "fixed")
    fresh.page.mouse.move(0, 0)  # the pointer may rest where an earlier test left it
    fresh.page.evaluate("document.activeElement && document.activeElement.blur()")
    badge = fresh.page.locator("#cards .flag").first
    flag = badge.get_attribute("data-flag")
    tip = badge.locator(".tip")
    assert tip.is_hidden()
    badge.hover()
    assert tip.is_visible() and tip.text_content() == chunker.FLAGS[flag]
    fresh.page.mouse.move(0, 0)
    assert tip.is_hidden()
    badge.focus()
    assert tip.is_visible()


def test_long_chunk_lists_render_incrementally(fresh):
    text = "A short sentence here. " * 1500
    fresh.select("strategy", "sentence")
    fresh.fill("#size", "0")
    fresh.set_text(text)
    total = len(chunker.chunk(text, **fresh.controls()).chunks)
    assert total > 2 * render.CARD_PAGE
    assert len(fresh.cards()) == render.CARD_PAGE
    fresh.page.click("#more-cards")
    fresh.page.wait_for_function(f"document.querySelectorAll('#cards .card').length === {2 * render.CARD_PAGE}")
    indices = [c["index"] for c in fresh.cards()]
    assert indices == list(range(2 * render.CARD_PAGE))


# ---------------------------------------------------------------- compare and advice


def test_compare_table_is_live(fresh):
    fresh.fill("#size", "120")
    fresh.wait_compare()
    rows = fresh.page.evaluate("""() => [...document.querySelectorAll('#compare-table tbody tr')].map(r =>
        [r.querySelector('[data-strategy]').dataset.strategy, ...[...r.querySelectorAll('td')].map(td => td.textContent)])""")
    settings = fresh.controls()
    assert sorted(r[0] for r in rows) == sorted(chunker.STRATEGIES)
    for name, chunks, avg, low, high, *flags in rows:
        stats = chunker.chunk(SAMPLE, **dict(settings, strategy=name)).stats
        assert int(chunks) == stats.chunks
        assert float(avg.lstrip("≈").replace(",", "")) == pytest.approx(stats.avg_tokens, abs=0.05)
        assert int(high.lstrip("≈")) == stats.max_tokens
        assert [int(f or 0) for f in flags] == [stats.flag_counts.get(f, 0) for f in chunker.FLAGS]
    fresh.click("#compare-table button[data-strategy=markdown]")
    assert fresh.page.input_value("#strategy") == "markdown"
    assert_same_as_python(fresh, SAMPLE)


def test_starting_points_apply_their_settings(fresh):
    fresh.select("unit", "chars")
    fresh.click("button[data-apply='800,400']")
    assert fresh.controls()["unit"] == "tokens"
    assert fresh.page.input_value("#size") == "800" and fresh.page.input_value("#overlap") == "400"
    fresh.click("button[data-apply='300,15%']")
    assert params(fresh)["overlap"] == "15%" and fresh.page.input_value("#overlap") == "45"
    assert_same_as_python(fresh, SAMPLE)
    # The advice recognises the sample as technical documentation and offers its row.
    assert "Looks like technical documentation" in text_of(fresh, "#advice")
    fresh.click("#advice button[data-apply]")
    assert fresh.page.input_value("#size") == "1024" and params(fresh)["overlap"] == "10%"


# ---------------------------------------------------------------- export


def download(app: Page, fmt: str) -> tuple[str, str]:
    with app.page.expect_download() as info:
        app.page.click(f"#export button[data-format={fmt}]")
    path = Path(info.value.path())
    return info.value.suggested_filename, path.read_text(encoding="utf-8")


def test_downloads_are_the_clis_formats(fresh):
    fresh.select("strategy", "markdown")
    fresh.set_text(SAMPLE + "\n\n" + ASTRAL)
    result = chunker.chunk(SAMPLE + "\n\n" + ASTRAL, **fresh.controls())
    for fmt, serialise in (("json", chunker.to_json), ("jsonl", chunker.to_jsonl), ("txt", chunker.to_text)):
        name, content = download(fresh, fmt)
        assert name == f"chunks.{fmt}"
        assert content == serialise(result)
    assert json.loads(download(fresh, "json")[1])[0]["headings"] == list(result.chunks[0].headings)
    assert json.loads(text_of(fresh, "#records-preview")) == json.loads(chunker.to_json(result))[:3]


def test_copy_all_and_copy_as_code(fresh):
    fresh.select("strategy", "langchain")
    result = chunker.chunk(SAMPLE, **fresh.controls())
    fresh.page.click("#copy-all")
    fresh.page.wait_for_function("document.getElementById('toast').textContent.startsWith('Copied all')")
    assert clipboard(fresh) == chunker.to_text(result)
    snippets = render.snippets(result.settings, chunker.DEFAULTS)
    assert set(snippets) == {"python", "cli", "langchain"}
    for key, code in snippets.items():
        fresh.page.click(f"button.copy-snip[data-snip={key}]")
        fresh.page.wait_for_function(f"navigator.clipboard.readText().then(t => t === {json.dumps(code)})")
    assert 'strategy="langchain"' in snippets["python"] and "--strategy langchain" in snippets["cli"]


# ---------------------------------------------------------------- the URL


def test_settings_round_trip_through_the_url(fresh, chromium):
    fresh.select("strategy", "sentence")
    fresh.select("unit", "words")
    fresh.fill("#size", "70")
    fresh.click(".pcts button[data-pct='20']")
    fresh.select("tokenizer", "cl100k")
    fresh.act(lambda: fresh.page.check("#breaks input[value=clause]"))
    fresh.page.click("#copy-link")
    fresh.page.wait_for_function("document.getElementById('toast').textContent.startsWith('Copied a link')")
    link = clipboard(fresh)
    assert link == fresh.page.url
    assert params(fresh) == {"strategy": "sentence", "unit": "words", "size": "70", "overlap": "20%",
                             "tokenizer": "cl100k", "breaks": "paragraph,line,sentence,clause"}
    assert "Deploying" not in link  # never the document
    other = Page(chromium, link, context=fresh.context).open()
    try:
        assert other.controls() == fresh.controls()
        assert_same_as_python(other, SAMPLE)
    finally:
        other.close()


def test_a_link_copied_while_the_worker_runs_has_the_new_settings(fresh):
    # The address follows the settings once the view is on screen (the main thread stays free
    # for the worker's answer meanwhile); a link copied before that must not be the old one.
    fresh.page.evaluate("""() => {
        const size = document.getElementById('size');
        size.value = '77';
        size.dispatchEvent(new Event('input', {bubbles: true}));
        document.getElementById('copy-link').click();
    }""")
    fresh.page.wait_for_function("document.getElementById('toast').textContent.startsWith('Copied a link')")
    assert parse_qs(urlsplit(clipboard(fresh)).query)["size"] == ["77"]
    fresh.wait_idle()
    assert params(fresh)["size"] == "77"


def test_unusable_link_values_are_reported(fresh):
    fresh.page.goto(fresh.url + "?strategy=bogus&size=big&overlap=15%25&breaks=nope"
                    "&unit=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E")
    fresh.wait_ready()
    message = text_of(fresh, "#error")
    assert "strategy=bogus" in message and "size=big" in message and "breaks=nope" in message
    assert "unit=<img src=x onerror=alert(1)>" in message  # shown as text, never as markup
    assert fresh.page.locator("#error *").count() == 0
    assert fresh.controls()["strategy"] == chunker.DEFAULTS["strategy"]
    assert fresh.controls()["overlap"] == "15%"  # the good values still apply
    assert_same_as_python(fresh, SAMPLE)


# ---------------------------------------------------------------- hostile and large input


def test_pasted_markup_stays_text(fresh):
    payload = '<img src=x onerror=alert(1)> <script>alert(2)</script> "><svg onload=alert(3)>'
    text = f"Heading\n\n{payload}\n\nTail sentence. {payload}"
    fresh.set_text(text)
    assert fresh.page.locator("#doc-view img, #doc-view script, #doc-view svg, #cards img, #cards svg").count() == 0
    assert text_of(fresh, "#doc-view") == text
    assert payload[:20] in text_of(fresh, "#cards")
    fresh.page.wait_for_timeout(300)  # give a would-be onerror handler its chance to fire
    assert fresh.dialogs == []
    assert_same_as_python(fresh, text)


def test_every_control_has_a_label(fresh):
    unlabelled = fresh.page.evaluate("""() => [...document.querySelectorAll('input, select, textarea, button')]
        .filter(e => e.type !== 'file' && e.offsetParent !== null)
        .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !e.textContent.trim())
        .map(e => e.outerHTML.slice(0, 80))""")
    assert unlabelled == []
    assert fresh.page.locator("label[for=file]").count() == 1
    # The hidden file input is reached with Tab, and its visible label shows the focus.
    fresh.page.focus("#insert-sample")
    fresh.page.keyboard.press("Tab")
    assert fresh.page.evaluate("document.activeElement.id") == "file"
    assert fresh.page.eval_on_selector("label[for=file]", "e => getComputedStyle(e).outlineStyle") == "solid"


def test_megabytes_of_text_leave_the_page_responsive(fresh):
    big = (PROSE + "\n\n") * (1_600_000 // (len(PROSE) + 2) + 1)
    fresh.page.evaluate("text => { const t = document.getElementById('document'); t.value = text; "
                        "t.dispatchEvent(new Event('input')); }", big)
    # While the worker chunks the document, the main thread still answers and the box takes input.
    assert fresh.page.get_attribute("body", "data-busy") == "true"
    fresh.page.focus("#document")
    assert fresh.page.evaluate("document.getElementById('document').value.length") == len(big.encode("utf-16-le")) // 2
    fresh.wait_idle()
    cards = fresh.cards()
    assert len(cards) == render.CARD_PAGE and fresh.page.locator("#more-cards").count() == 1
    expected = chunker.chunk(big, **fresh.controls())
    assert [(c["start"], c["end"]) for c in cards] == [(c.start_char, c.end_char) for c in expected.chunks[:len(cards)]]
    assert text_of(fresh, "#summary") == f"{len(expected.chunks)} chunks"
    assert app_view_length(fresh) == len(big)
    # Comparing six strategies over this much text waits for the user (it cannot be interrupted).
    fresh.page.wait_for_selector("#run-compare")
    assert fresh.page.get_attribute("body", "data-compare") == "manual"


def paste(app: Page, text: str) -> None:
    """Paste over the whole box as the user would: the paste event first; if no handler takes
    it over, what the browser then does itself (a synthetic event does not)."""
    app.page.evaluate("""text => {
        const ta = document.getElementById('document');
        ta.focus(); ta.select();
        const data = new DataTransfer();
        data.setData('text/plain', text);
        const paste = new ClipboardEvent('paste', {clipboardData: data, bubbles: true, cancelable: true});
        if (ta.dispatchEvent(paste)) {
            ta.value = text;
            ta.dispatchEvent(new InputEvent('input', {bubbles: true, inputType: 'insertFromPaste'}));
        } }""", text)


def test_a_large_paste_is_held_outside_the_text_box(fresh):
    # Laying out a megabyte in a <textarea> freezes the page, so a large paste is kept out of
    # the box: it shows the start, read-only, and everything else works on the whole text.
    page = fresh.page
    big = ("Ünïcödé 🚀 " + PROSE + "\n\n") * (200_000 // (len(PROSE) + 14) + 1)
    units = len(big.encode("utf-16-le")) // 2  # JavaScript's length
    try:
        fresh.act(lambda: paste(fresh, big))
        preview = page.input_value("#document")
        assert 0 < len(preview) < len(big) and big.startswith(preview)
        assert page.eval_on_selector("#document", "e => e.readOnly")
        assert page.is_visible("#held-note") and f"{units:,} characters" in text_of(fresh, "#held-text")
        expected = chunker.chunk(big, **fresh.controls())
        assert text_of(fresh, "#summary") == f"{len(expected.chunks)} chunks"
        cards = fresh.cards()
        assert [(c["start"], c["end"]) for c in cards] == \
            [(c.start_char, c.end_char) for c in expected.chunks[:len(cards)]]
        # The whole text goes into the box when the user asks; the document stays the same.
        renders = fresh.renders()
        page.click("#edit-held")
        assert page.input_value("#document") == big
        assert not page.eval_on_selector("#document", "e => e.readOnly") and not page.is_visible("#held-note")
        assert fresh.renders() == renders
        # A short paste is the browser's; Clear lets a held document go.
        fresh.act(lambda: paste(fresh, "Short text."))
        assert page.input_value("#document") == "Short text." and not page.is_visible("#held-note")
        # Line breaks as the box would keep them: CR LF and CR become LF.
        fresh.act(lambda: paste(fresh, big.replace("\n", "\r\n")))
        assert page.is_visible("#held-note")
        assert text_of(fresh, "#summary") == f"{len(expected.chunks)} chunks"
        assert app_view_length(fresh) == units
        fresh.click("#clear")
        assert page.input_value("#document") == "" and not page.is_visible("#held-note")
        assert not page.eval_on_selector("#document", "e => e.readOnly")
    finally:
        page.evaluate("chunkerBridge.release()")


def test_a_paste_with_cr_lf_says_the_box_made_them_lf(fresh):
    fresh.page.evaluate("() => { const t = document.getElementById('toast'); t.textContent = ''; t.hidden = true; }")
    fresh.act(lambda: paste(fresh, "Plain paste.\n\nNo CR here."))
    assert "CR LF" not in text_of(fresh, "#toast")
    fresh.act(lambda: paste(fresh, "Copied on Windows.\r\n\r\nSecond line.\r\n"))
    assert "CR LF line breaks became LF" in text_of(fresh, "#toast") and fresh.page.is_visible("#toast")
    assert fresh.page.input_value("#document") == "Copied on Windows.\n\nSecond line.\n"
    assert_same_as_python(fresh, "Copied on Windows.\n\nSecond line.\n")


def test_a_large_file_is_held_outside_the_text_box(fresh, tmp_path):
    page = fresh.page
    big = (PROSE + "\n\n") * (200_000 // (len(PROSE) + 2) + 1)
    doc = tmp_path / "large.md"
    doc.write_text(big, encoding="utf-8")
    try:
        fresh.act(lambda: page.set_input_files("#file", str(doc)))
        assert page.is_visible("#held-note") and big.startswith(page.input_value("#document"))
        assert app_view_length(fresh) == len(big)
    finally:
        page.evaluate("chunkerBridge.release()")


def app_view_length(app: Page) -> int:
    """Code points in the document view (JS counts UTF-16 units; this text has no astral ones)."""
    return app.page.eval_on_selector("#doc-view", "e => e.textContent.length")


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


def test_readable_at_360px_and_in_dark_mode(fresh):
    def background():
        rgb = fresh.page.evaluate("getComputedStyle(document.body).backgroundColor")
        return [int(v) for v in rgb[rgb.index("(") + 1:rgb.index(")")].split(",")[:3]]

    fresh.page.set_viewport_size({"width": 360, "height": 740})
    try:
        # Nothing wider than the phone: long lines scroll inside their own boxes.
        assert fresh.page.evaluate("document.documentElement.scrollWidth") <= 360
        fresh.page.emulate_media(color_scheme="dark")
        assert sum(background()) < 3 * 60
        fresh.page.emulate_media(color_scheme="light")
        assert sum(background()) > 3 * 200
    finally:
        fresh.page.emulate_media(color_scheme=None)
        fresh.page.set_viewport_size({"width": 1280, "height": 720})


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
