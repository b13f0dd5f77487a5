"""Getting to every chunk: the links between the document view and the chunk list, a virtual
list that reaches any card, moving from chunk to chunk, the flags' explanations, exports.

No fixed sleeps and no clocks: every wait is for the state the page must reach.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Page

import chunker
from app import snippets
from app.cards import CONTEXT_PREVIEW
from app.cards import preview as card_preview
from tests.pagekit import clipboard, page_fixtures, params, text_of
from tests.test_page import ASTRAL, PROSE, SAMPLE, assert_same_as_python
from tests.texts import ROOT

pytestmark = pytest.mark.browser

site, app = page_fixtures()

IN_LIST = """i => {
    const list = document.getElementById('cards').getBoundingClientRect();
    const card = document.querySelector(`#cards .card[data-chunk-index="${i}"]`);
    if (!card) return false;
    const box = card.getBoundingClientRect();
    return box.top >= list.top - 1 && box.bottom <= list.bottom + 1;
}"""

IN_VIEW = """i => {
    const view = document.getElementById('doc-view').getBoundingClientRect();
    const t = document.getElementById('chunk-' + i);
    if (!t) return false;
    const box = t.getBoundingClientRect();
    return box.top >= view.top - 1 && box.bottom <= view.bottom + 1;
}"""


def document_of(chars: int) -> str:
    return "\n\n".join(f"Part {i}. " + PROSE for i in range(chars // (len(PROSE) + 10) + 1))[:chars]


def click_text_of(app: Page, i: int) -> None:
    """Click chunk i's own text in the document view (its first segment, scrolled into view)."""
    app.page.wait_for_selector(f"#chunk-{i}", state="attached")
    app.page.eval_on_selector(f"#chunk-{i}", "e => e.scrollIntoView({block: 'center'})")
    app.page.click(f"#chunk-{i}", position={"x": 2, "y": 2})


@pytest.mark.parametrize("chars, target", [(100_000, 150), (1_000_000, 1500)])
def test_clicking_a_chunks_text_shows_its_card_in_the_list(app, chars, target):
    text = document_of(chars)
    app.select("unit", "chars")
    app.fill("#size", str(max(60, chars // (target * 4))))
    app.set_text(text)
    total = len(chunker.chunk(text, **app.controls()).chunks)
    assert total > target + 10
    click_text_of(app, target)
    app.page.wait_for_function(IN_LIST, arg=target)
    card = app.page.locator(f"#cards .card[data-chunk-index='{target}']")
    assert "current" in card.get_attribute("class").split()
    expected = chunker.chunk(text, **app.controls()).chunks[target]
    assert (int(card.get_attribute("data-start")), int(card.get_attribute("data-end"))) == (
        expected.start_char,
        expected.end_char,
    )


def test_every_card_is_reachable_by_scrolling_the_list(app):
    text = "A short sentence here. " * 1500
    app.select("strategy", "sentence")
    app.fill("#size", "0")
    app.set_text(text)
    expected = chunker.chunk(text, **app.controls())
    assert len(expected.chunks) == 1500 and len(app.cards()) < 200  # only what is near, exists
    for where in ("e.scrollHeight / 2", "e.scrollHeight"):
        app.page.eval_on_selector("#cards", f"e => {{ e.scrollTop = {where}; }}")
        app.page.wait_for_function("""() => {
            const list = document.getElementById('cards').getBoundingClientRect();
            return [...document.querySelectorAll('#cards .card')].some(c => {
                const b = c.getBoundingClientRect(); return b.top >= list.top && b.bottom <= list.bottom; }); }""")
        for card in app.cards():
            chunk = expected.chunks[card["index"]]
            assert (card["start"], card["end"]) == (chunk.start_char, chunk.end_char)
    assert app.page.locator("#cards .card[data-chunk-index='1499']").count() == 1


def test_keys_move_from_chunk_to_chunk_and_go_to_any(app):
    text = document_of(60_000)
    app.set_text(text)
    total = len(chunker.chunk(text, **app.controls()).chunks)
    app.page.focus("#doc-view")
    app.page.keyboard.press("n")
    app.page.wait_for_function("document.body.dataset.current === '0'")
    app.page.keyboard.press("n")
    app.page.wait_for_function("document.body.dataset.current === '1'")
    app.page.wait_for_function(IN_VIEW, arg=1)
    app.page.keyboard.press("p")
    app.page.wait_for_function("document.body.dataset.current === '0'")
    # g, a number, Enter: that chunk's card is focused and in view; its text is in the view.
    last = total - 1
    app.page.keyboard.press("g")
    app.page.keyboard.type(str(last))
    app.page.keyboard.press("Enter")
    app.page.wait_for_function(IN_LIST, arg=last)
    app.page.wait_for_function(IN_VIEW, arg=last)
    app.page.wait_for_function(f"document.activeElement.dataset.chunkIndex === '{last}'")
    # Arrow keys on a focused card walk the list.
    app.page.keyboard.press("ArrowUp")
    app.page.wait_for_function(f"document.activeElement.dataset.chunkIndex === '{last - 1}'")
    app.page.keyboard.press("Home")
    app.page.wait_for_function("document.activeElement.dataset.chunkIndex === '0'")
    app.page.wait_for_function(IN_LIST, arg=0)
    # A chunk that does not exist is said, not guessed.
    app.page.fill("#goto", str(total + 5))
    app.page.click("#goto-form button[type=submit]")
    app.page.wait_for_function("document.getElementById('toast').textContent.startsWith('There is no chunk')")


def test_hovering_a_card_highlights_its_span_and_back(app):
    app.select("strategy", "fixed")
    app.click(".pcts button[data-pct='20']")
    result = chunker.chunk(SAMPLE, **app.controls())
    target = result.chunks[2]
    app.page.hover(f"#cards .card[data-chunk-index='{target.index}']")
    lit = app.page.evaluate("[...document.querySelectorAll('#doc-view .hl')].map(s => s.textContent).join('')")
    assert lit == target.text
    assert app.page.get_attribute(f"#cards .card[data-chunk-index='{target.index}']", "class").split().count("hl") == 1
    # Hovering the text lights up the card(s) covering it; an overlap lights both.
    app.page.hover(f"#chunk-{target.index}")
    lit_cards = app.page.evaluate("[...document.querySelectorAll('#cards .card.hl')].map(c => +c.dataset.chunkIndex)")
    assert target.index in lit_cards
    app.page.hover("#doc-view .s.o")
    shared = app.page.get_attribute("#doc-view .s.o", "data-c").split()
    lit_cards = app.page.evaluate("[...document.querySelectorAll('#cards .card.hl')].map(c => c.dataset.chunkIndex)")
    assert len(shared) >= 2 and sorted(lit_cards) == sorted(shared)


def test_clicking_a_card_brings_its_text_into_view_and_selects_it(app):
    app.fill("#size", "60")
    text = ASTRAL * 3  # taller than the view, so it has to scroll
    app.set_text(text)
    result = chunker.chunk(text, **app.controls())
    last = result.chunks[-1]
    app.page.eval_on_selector("#cards", "e => { e.scrollTop = e.scrollHeight; }")
    app.page.wait_for_selector(f"#cards .card[data-chunk-index='{last.index}']")
    app.page.click(f"#cards .card[data-chunk-index='{last.index}']")
    app.page.wait_for_function(IN_VIEW, arg=last.index)
    selected = app.page.evaluate(
        "() => { const t = document.getElementById('document'); return t.value.substring(t.selectionStart, t.selectionEnd); }"
    )
    assert selected == last.text  # UTF-16 selection offsets land on the emoji-laden chunk exactly
    # The keyboard does the same: focus a card and press Enter.
    first = result.chunks[0]
    app.page.eval_on_selector("#cards", "e => { e.scrollTop = 0; }")
    app.page.wait_for_selector(f"#cards .card[data-chunk-index='{first.index}']")
    app.page.focus(f"#cards .card[data-chunk-index='{first.index}']")
    app.page.keyboard.press("Enter")
    app.page.wait_for_function(IN_VIEW, arg=first.index)
    assert app.page.evaluate(
        "() => { const t = document.getElementById('document'); return [t.selectionStart, t.selectionEnd]; }"
    ) == [0, len(first.text.encode("utf-16-le")) // 2]


def test_a_chunks_badge_wears_its_own_tint(app):
    app.select("strategy", "fixed")
    app.click(".pcts button[data-pct='20']")
    colours = app.page.evaluate("""() => [...document.querySelectorAll('#doc-view [data-n]')].map(s => [
        +s.dataset.n, getComputedStyle(s, '::before').backgroundColor,
        getComputedStyle(document.querySelector(`#cards .card[data-chunk-index="${s.dataset.n}"]`)).borderLeftColor])""")
    assert len(colours) > 3
    for n, badge, card in colours:
        assert badge == card, n  # the badge and the card's stripe: the chunk's own tint


def test_flag_badges_explain_on_hover_and_on_focus(app):
    app.select("strategy", "fixed")
    badge = app.page.locator("#cards .flag").first
    flag = badge.get_attribute("data-flag")
    tip = badge.locator(".tip")
    assert tip.is_hidden()
    badge.hover()
    assert tip.is_visible() and tip.text_content() == chunker.FLAGS[flag]
    app.page.mouse.move(0, 0)
    assert tip.is_hidden()
    badge.focus()
    assert tip.is_visible()


# ---------------------------------------------------------------- export


def download(app: Page, fmt: str) -> tuple[str, str]:
    with app.page.expect_download() as info:
        app.page.click(f"#export button[data-format={fmt}]")
    path = Path(info.value.path())
    return info.value.suggested_filename, path.read_text(encoding="utf-8")


def test_downloads_are_the_clis_formats(app):
    app.select("strategy", "markdown")
    text = SAMPLE + "\n\n" + ASTRAL + "\n\nSeparators\u2028inside\u2029a line\x85."
    app.set_text(text)
    result = chunker.chunk(text, **app.controls())
    for name, form in chunker.FORMATS.items():
        filename, content = download(app, name)
        assert filename == f"chunks.{form.extension}"
        assert content == form.write(result)
    assert json.loads(download(app, "json")[1])[0]["headings"] == list(result.chunks[0].headings)
    assert json.loads(text_of(app, "#records-preview")) == json.loads(chunker.to_json(result))[:3]


def test_copy_all_and_copy_as_code(app):
    app.select("strategy", "langchain")
    result = chunker.chunk(SAMPLE, **app.controls())
    app.page.click("#copy-all")
    app.page.wait_for_function("document.getElementById('toast').textContent.startsWith('Copied all')")
    assert clipboard(app) == chunker.to_text(result)
    code = snippets.snippets(result.settings)
    assert set(code) == {"python", "cli", "langchain"}
    for key, snippet in code.items():
        app.page.click(f"button.copy-snip[data-snip={key}]")
        app.page.wait_for_function(f"navigator.clipboard.readText().then(t => t === {json.dumps(snippet)})")
    assert 'strategy="langchain"' in code["python"] and "--strategy langchain" in code["cli"]
    assert assert_same_as_python(app, SAMPLE)


def set_field(app: Page, selector: str, value: str) -> None:
    """Type into a field the worker built; it applies on change, as when the reader leaves it."""
    app.act(lambda: (app.page.fill(selector, value), app.page.dispatch_event(selector, "change")))


def cards_preview(context: str) -> str:
    return card_preview(context, CONTEXT_PREVIEW)


def embedded_view(app: Page) -> list[dict]:
    """The "as embedded" view, opened: each chunk's index, its context and its whole embed text."""
    before = app.page.evaluate("String(document.body.dataset.embedded)")
    app.page.click("#embedded-view summary")
    # Opening it asks the worker for it (a closed view is not sent with every result).
    app.page.wait_for_function(f"String(document.body.dataset.embedded) !== {json.dumps(before)}")
    return app.page.evaluate("""() => [...document.querySelectorAll('#embedded li')].map(li => ({
        index: +li.dataset.chunkIndex,
        context: li.querySelector('pre.embed .ctx') ? li.querySelector('pre.embed .ctx').textContent : '',
        embed: li.querySelector('pre.embed').textContent}))""")


def test_the_context_is_a_muted_prefix_on_each_card_and_as_embedded_is_the_clis(app, tmp_path):
    template = "{title} > {headings}\\n\\n"  # as typed in the field: \n is a line break
    app.select("strategy", "markdown")
    set_field(app, "#opt-context", template)
    settings = {**app.controls(), "context": template}
    expected = chunker.chunk(SAMPLE, **settings)
    assert any(c.context for c in expected)
    cards = app.page.evaluate("""() => [...document.querySelectorAll('#cards .card')].map(c => ({
        index: +c.dataset.chunkIndex,
        ctx: c.querySelector('.prev .ctx') ? c.querySelector('.prev .ctx').textContent : null,
        muted: c.querySelector('.prev .ctx') ? getComputedStyle(c.querySelector('.prev .ctx')).color : null,
        text: getComputedStyle(c.querySelector('.prev')).color}))""")
    assert cards
    for card in cards:
        chunk = expected.chunks[card["index"]]
        assert card["ctx"] == (cards_preview(chunk.context) if chunk.context else None)
        if chunk.context:
            assert card["muted"] != card["text"], "the context is muted beside the text"
    # The command line, on the same file with the same settings, embeds the very same texts.
    path = tmp_path / "sample.md"
    path.write_text(SAMPLE, encoding="utf-8")
    argv = ["--strategy", "markdown", "--unit", settings["unit"], "--size", str(settings["size"])]
    argv += ["--overlap", str(settings["overlap"]), "--tokenizer", settings["tokenizer"], "--context", template]
    done = subprocess.run(
        [sys.executable, "-m", "chunker", str(path), *argv], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert done.returncode == 0, done.stderr
    cli = [json.loads(line) for line in done.stdout.splitlines()]
    shown = embedded_view(app)
    assert shown and len(shown) == min(len(cli), 30)
    for item in shown:
        record = cli[item["index"]]
        assert item["embed"] == record["embed_text"]
        assert record["embed_text"] == item["context"] + record["text"]


def test_a_context_holding_a_nul_is_whole_in_the_link(app):
    # The link was written from MicroPython's strings, which end at a NUL in JavaScript: the
    # template was cut there, and a reader opening the link got another context.
    template = "A\x00B {title}: "
    app.select("strategy", "markdown")
    set_field(app, "#opt-context", template)
    assert params(app)["context"] == template


def test_a_context_from_a_heading_with_markup_is_shown_as_text(app):
    text = "# <img src=x onerror=alert(1)> & <b>co</b>\n\nThe body of the section, a sentence.\n"
    app.select("strategy", "markdown")
    app.set_text(text)
    set_field(app, "#opt-context", "headings")
    (chunk,) = chunker.chunk(text, **{**app.controls(), "context": "headings"}).chunks
    assert chunk.context == "<img src=x onerror=alert(1)> & <b>co</b>\n\n"
    card = app.page.eval_on_selector("#cards .card .prev .ctx", "e => e.textContent")
    assert card == cards_preview(chunk.context) and card.startswith("<img src=x onerror=alert(1)> & <b>co</b>")
    assert app.page.evaluate("document.querySelectorAll('#cards img, #cards b:not(.idx), #embedded img').length") == 0
    (item,) = embedded_view(app)
    assert item["embed"] == chunk.embed_text and item["context"] == chunk.context
    assert not app.dialogs
