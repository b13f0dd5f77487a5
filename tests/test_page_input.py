"""The document on the page: typed, pasted, opened, dropped, cleared; large, hostile or not
text at all. Each test starts from the page as newly opened and compares it with
`python -m chunker`."""

from __future__ import annotations

import random

import pytest
from conftest import paste

import chunker
from chunker.cli import _common as _cli
from tests.pagekit import page_fixtures, text_of
from tests.test_page import ASTRAL, PROSE, SAMPLE, assert_same_as_python

pytestmark = pytest.mark.browser

site, app = page_fixtures()


def test_insert_sample_clear_and_live_counts(app):
    app.click("#clear")
    assert app.page.input_value("#document") == ""
    assert app.cards() == [] and "Paste a document" in text_of(app, "#doc-view")
    app.set_text("Tiny doc. 😀")
    assert text_of(app, "#counts").startswith("11 chars · 3 words")  # code points, like Python
    app.click("#insert-sample")
    assert app.page.input_value("#document") == SAMPLE
    stats = chunker.chunk(SAMPLE, **app.controls()).stats
    assert text_of(app, "#counts") == (
        f"{stats.document_chars:,} chars · {stats.document_words:,} words · ≈{stats.document_tokens:,} tokens (estimate)"
    )


def test_open_file_reads_any_utf8_text(app, tmp_path):
    doc = tmp_path / "notes.md"
    doc.write_text("# Notes\n\nOpened from disk. Ünïcödé 🚀.\n", encoding="utf-8")
    app.act(lambda: app.page.set_input_files("#file", str(doc)))
    assert app.page.input_value("#document") == doc.read_text(encoding="utf-8")
    assert_same_as_python(app, doc.read_text(encoding="utf-8"))
    # The copy-as-code names the opened file.
    assert "notes.md" in text_of(app, "#snip-cli") and "document.md" not in text_of(app, "#snip-python")
    # What is text opens whatever its name.
    rst = tmp_path / "guide.rst"
    rst.write_text("Guide\n=====\n\nA reStructuredText file. It is text.\n", encoding="utf-8")
    app.act(lambda: app.page.set_input_files("#file", str(rst)))
    assert_same_as_python(app, rst.read_text(encoding="utf-8"))


def test_a_nul_is_text_on_the_page_as_on_the_command_line(app, tmp_path):
    raw = "Log line one.\x00\n\nLog line two, after a NUL byte.\n"
    doc = tmp_path / "log.txt"
    doc.write_bytes(raw.encode("utf-8"))
    assert chunker.chunk(_cli.read_input(str(doc), None), **app.controls()).chunks
    app.act(lambda: app.page.set_input_files("#file", str(doc)))
    assert app.page.is_hidden("#error")
    expected = chunker.chunk(raw, **app.controls())
    assert [c["end"] for c in app.cards()] == [c.end_char for c in expected.chunks]
    # The view shows the NUL as a symbol: one character, so every later position holds.
    assert app.code_points("#doc-view") == len(raw)
    assert "\u2400" in text_of(app, "#doc-view")


def test_a_file_is_chunked_as_the_command_line_reads_it(app, tmp_path):
    # A byte order mark and Windows line breaks, as files saved on Windows often have. The
    # command line keeps both (U+FEFF is character 0; CR LF is two characters); a text box
    # would drop the one and turn the other into LF, and every offset after would differ.
    raw = "\ufeff# Notes\r\n\r\nSaved on Windows. Line two.\r\n\r\nSecond paragraph, with ünïcödé.\r\n" * 5
    doc = tmp_path / "windows.txt"
    doc.write_bytes(raw.encode("utf-8"))
    cli = chunker.chunk(_cli.read_input(str(doc), None), **app.controls())
    assert cli.stats.document_chars == len(raw)
    app.act(lambda: app.page.set_input_files("#file", str(doc)))
    assert app.page.is_visible("#held-note") and "CR LF" in text_of(app, "#held-note")
    assert_same_as_python(app, raw)
    assert app.page.is_hidden("#error")
    # Editing it in the box is editing text with LF line breaks: chunked as such.
    app.click("#edit-held")
    assert app.page.input_value("#document") == raw.replace("\r\n", "\n")
    assert not app.page.is_visible("#held-note")
    assert_same_as_python(app, raw.replace("\r\n", "\n"))


def test_a_file_that_is_not_utf8_is_refused_as_the_command_line_refuses_it(app, tmp_path):
    before = app.page.input_value("#document")
    for name, data in (
        ("latin1.txt", "Café au lait.".encode("cp1252")),
        ("cut.md", "Ends mid-character: é".encode()[:-1]),
        ("surrogate.txt", b"ok \xed\xa0\x80 then more"),
    ):
        doc = tmp_path / name
        doc.write_bytes(data)
        with pytest.raises(chunker.ChunkerError) as cli:
            _cli.read_input(str(doc), None)
        app.page.evaluate("document.getElementById('error').hidden = true")
        app.page.set_input_files("#file", str(doc))
        app.page.wait_for_selector("#error:not([hidden])")
        # The command line's message, with the page's own file name.
        assert text_of(app, "#error") == str(cli.value).replace(str(doc), name) + ".", name
        assert app.page.input_value("#document") == before


def test_the_bad_byte_offset_is_the_one_python_reports(app):
    # static/bridge.js finds the first byte that is not UTF-8 itself (TextDecoder only says
    # that there is one): compared here with Python's decoder on bytes made to break it.
    rng = random.Random(20261129)
    pieces = [
        b"a",
        b" ",
        b"\n",
        "é".encode(),
        "€".encode(),
        "😀".encode(),
        b"\xc3",
        b"\xe2\x82",
        b"\xf0\x9f\x98",
        b"\x80",
        b"\xbf",
        b"\xc0\x80",
        b"\xc1\xbf",
        b"\xe0\x80\x80",
        b"\xed\xa0\x80",
        b"\xed\x9f\xbf",
        b"\xf4\x90\x80\x80",
        b"\xf5",
        b"\xff",
        b"\xef\xbb\xbf",
    ]
    cases = [b"".join(rng.choice(pieces) for _ in range(rng.randint(1, 12))) for _ in range(400)]
    messages = app.page.evaluate(
        """async (cases) => {
        const out = [];
        for (const bytes of cases) {
            out.push((await chunkerBridge.openFile(new File([new Uint8Array(bytes)], "x.txt"), 1e9)).error);
        }
        chunkerBridge.release();
        return out;
    }""",
        [list(c) for c in cases],
    )
    for data, message in zip(cases, messages):
        try:
            data.decode("utf-8")
            assert message == "", data
        except UnicodeDecodeError as e:
            assert f"(bad byte at offset {e.start})" in message, data
    assert sum(1 for m in messages if m) > 300  # most cases are broken somewhere


def test_dropping_a_file_opens_it(app):
    content = "Dropped text.\n\nSecond paragraph of the dropped file."
    transfer = app.page.evaluate_handle(
        """text => { const t = new DataTransfer();
                     t.items.add(new File([text], 'dropped.txt', {type: 'text/plain'})); return t; }""",
        content,
    )
    app.act(lambda: app.page.dispatch_event("#document", "drop", {"dataTransfer": transfer}))
    assert app.page.input_value("#document") == content
    assert_same_as_python(app, content)


def test_pasted_markup_stays_text(app):
    payload = '<img src=x onerror=alert(1)> <script>alert(2)</script> "><svg onload=alert(3)>'
    text = f"Heading\n\n{payload}\n\nTail sentence. {payload}"
    app.set_text(text)
    assert app.page.locator("#doc-view img, #doc-view script, #doc-view svg, #cards img, #cards svg").count() == 0
    assert text_of(app, "#doc-view") == text
    assert payload[:20] in text_of(app, "#cards")
    # A would-be onerror handler fires as soon as the element is parsed: after a new frame,
    # nothing has run.
    app.page.evaluate("() => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)))")
    assert app.dialogs == []
    assert_same_as_python(app, text)


def test_a_text_that_is_not_unicode_stays_refused_when_a_setting_changes(app):
    # A lone surrogate (what a script or a broken clipboard can put in the box) is no text the
    # library takes: the message stays at every setting until the text is fixed, never a view
    # of an empty document in its place.
    before = app.renders()
    app.page.evaluate("""() => { const box = document.getElementById('document');
        box.value = 'Half a pair \\ud800 here. More text.'; box.dispatchEvent(new InputEvent('input', {bubbles: true})); }""")
    app.page.wait_for_function(f"+document.body.dataset.renders > {before} && document.body.dataset.busy === 'false'")
    said = "the text holds a lone surrogate (U+D800) at offset 12"
    assert text_of(app, "#error").startswith(said)
    app.select("strategy", "sentence")
    assert text_of(app, "#error").startswith(said) and "empty" not in text_of(app, "#summary")
    assert text_of(app, "#counts") == "Not counted: the text cannot be read"
    # The greyed cards are the last text's: an export gave them, as if they were this text's.
    downloads = []
    app.page.on("download", lambda d: downloads.append(d))
    app.page.click("#export button.dl[data-format=jsonl]")
    app.page.wait_for_function("document.getElementById('error').textContent.startsWith('Nothing to export')")
    assert downloads == []
    app.set_text("Half a pair, fixed. More text.")
    assert app.page.is_hidden("#error")
    assert_same_as_python(app, "Half a pair, fixed. More text.")


def test_a_paste_with_cr_lf_says_the_box_made_them_lf(app):
    app.act(lambda: paste(app.page, "Plain paste.\n\nNo CR here."))
    assert "CR LF" not in text_of(app, "#toast")
    app.act(lambda: paste(app.page, "Copied on Windows.\r\n\r\nSecond line.\r\n"))
    assert "CR LF line breaks became LF" in text_of(app, "#toast") and app.page.is_visible("#toast")
    assert app.page.input_value("#document") == "Copied on Windows.\n\nSecond line.\n"
    assert_same_as_python(app, "Copied on Windows.\n\nSecond line.\n")


def test_a_large_paste_is_held_outside_the_text_box(app):
    # Laying out a megabyte in a <textarea> freezes the page, so a large paste is kept out of
    # the box: it shows the start, read-only, and everything else works on the whole text.
    page = app.page
    big = ("Ünïcödé 🚀 " + PROSE + "\n\n") * (200_000 // (len(PROSE) + 14) + 1)
    # The note counts characters as the counts below the box do (code points), not as JavaScript's length.
    app.set_text(big)
    preview = page.input_value("#document")
    assert 0 < len(preview) < len(big) and big.startswith(preview)
    assert page.eval_on_selector("#document", "e => e.readOnly")
    assert page.is_visible("#held-note") and f"{len(big):,} characters" in text_of(app, "#held-text")
    assert text_of(app, "#counts").startswith(f"{len(big):,} chars")
    expected = chunker.chunk(big, **app.controls())
    assert text_of(app, "#summary") == f"{len(expected.chunks):,} chunks"
    cards = app.cards()
    assert [(c["start"], c["end"]) for c in cards] == [(c.start_char, c.end_char) for c in expected.chunks[: len(cards)]]
    # The whole text goes into the box when the user asks; the document stays the same.
    renders = app.renders()
    page.click("#edit-held")
    assert page.input_value("#document") == big
    assert not page.eval_on_selector("#document", "e => e.readOnly") and not page.is_visible("#held-note")
    assert app.renders() == renders
    # A short paste is the browser's; Clear lets a held document go.
    app.set_text("Short text.")
    assert page.input_value("#document") == "Short text." and not page.is_visible("#held-note")
    app.set_text(big.replace("\n", "\r\n"))  # line breaks as the box would keep them: LF
    assert page.is_visible("#held-note")
    assert text_of(app, "#summary") == f"{len(expected.chunks):,} chunks"
    assert app.code_points("#doc-view") == len(big)
    app.click("#clear")
    assert page.input_value("#document") == "" and not page.is_visible("#held-note")
    assert not page.eval_on_selector("#document", "e => e.readOnly")


def test_a_large_file_is_held_outside_the_text_box(app, tmp_path):
    big = (PROSE + "\n\n") * (200_000 // (len(PROSE) + 2) + 1)
    doc = tmp_path / "large.md"
    doc.write_text(big, encoding="utf-8")
    app.act(lambda: app.page.set_input_files("#file", str(doc)))
    assert app.page.is_visible("#held-note") and big.startswith(app.page.input_value("#document"))
    assert app.code_points("#doc-view") == len(big)


def test_megabytes_of_text_leave_the_page_responsive(app):
    big = (PROSE + " 😀\n\n") * (1_600_000 // (len(PROSE) + 4) + 1)
    paste(app.page, big)
    # While the worker chunks the document, the main thread still answers and the box takes input.
    assert app.page.get_attribute("body", "data-busy") == "true"
    app.page.focus("#document")
    app.wait_idle()
    expected = chunker.chunk(big, **app.controls())
    cards = app.cards()
    assert cards and [(c["start"], c["end"]) for c in cards] == [
        (c.start_char, c.end_char) for c in expected.chunks[: len(cards)]
    ]
    assert text_of(app, "#summary") == f"{len(expected.chunks):,} chunks"
    assert app.code_points("#doc-view") == len(big)  # code points on both sides, emoji included
    # Comparing every strategy over this much text waits for the user (it cannot be interrupted).
    app.page.wait_for_selector("#run-compare")
    assert app.page.get_attribute("body", "data-compare") == "manual"


def test_leaving_the_page_asks_first_only_for_the_readers_own_document(app):
    # The sample: nothing to lose. A pasted document lives nowhere else: the browser asks.
    asked = app.page.evaluate("""() => { const e = new Event('beforeunload', {cancelable: true});
        window.dispatchEvent(e); return e.defaultPrevented; }""")
    assert asked is False
    app.set_text("My own notes, pasted.")
    asked = app.page.evaluate("""() => { const e = new Event('beforeunload', {cancelable: true});
        window.dispatchEvent(e); return e.defaultPrevented; }""")
    assert asked is True
    app.click("#insert-sample")
    asked = app.page.evaluate("""() => { const e = new Event('beforeunload', {cancelable: true});
        window.dispatchEvent(e); return e.defaultPrevented; }""")
    assert asked is False


def test_text_typed_before_the_worker_is_ready_is_the_readers(app, chromium, serve_url):
    from conftest import Page

    page = Page(chromium, serve_url, context=app.context)
    try:
        page.page.goto(serve_url)
        page.page.wait_for_selector("body[data-ui=true]", state="attached")
        page.page.fill("#document", "Typed early. " + ASTRAL[:200])
        page.wait_ready()
        assert (
            page.page.evaluate("""() => { const e = new Event('beforeunload', {cancelable: true});
            window.dispatchEvent(e); return e.defaultPrevented; }""")
            is True
        )
    finally:
        page.close()


def test_insert_sample_and_clear_can_be_undone(app):
    """The reader's own document is one click from coming back after Insert sample or Clear;
    the sample itself, or an empty box, offers no undo."""
    page = app.page
    mine = "My own notes. " * 40
    app.set_text(mine)
    assert page.is_hidden("#undo-document")
    app.click("#insert-sample")
    assert page.input_value("#document") == SAMPLE and page.is_visible("#undo-document")
    app.click("#clear")  # still the reader's notes that Undo brings back, not the sample
    assert page.input_value("#document") == "" and page.is_visible("#undo-document")
    app.click("#undo-document")
    assert page.input_value("#document") == mine and page.is_hidden("#undo-document")
    assert_same_as_python(app, mine)
    app.click("#insert-sample")
    app.click("#insert-sample")  # the sample replacing the sample: nothing new to keep
    app.click("#undo-document")
    assert page.input_value("#document") == mine
    # A held (large) document comes back held, whole.
    big = ("Ünïcödé 🚀 " + PROSE + "\n\n") * (200_000 // (len(PROSE) + 14) + 1)
    app.set_text(big)
    app.click("#clear")
    app.click("#undo-document")
    assert page.is_visible("#held-note") and app.code_points("#doc-view") == len(big)
    # Typing something new forgets the old document: Undo is gone.
    app.click("#clear")
    app.set_text("Something else.")
    assert page.is_hidden("#undo-document")


def test_a_long_run_shows_its_progress_and_cancel_stops_it_for_new_settings(app):
    """Ten megabytes take the worker seconds: the status line says what it is doing and for how
    long, the counts line never passes the last document's numbers off as this one's, and
    Cancel stops the work (the worker is replaced if it must be); the next text and settings
    then give exactly the library's chunks."""
    big = PROSE * (10_000_000 // len(PROSE) + 1)
    paste(app.page, big)
    app.page.wait_for_selector("#cancel-run", state="visible", timeout=120_000)
    assert text_of(app, "#counts") == "Counting the new text…"
    # Progress: a line of the worker's (what it does, with the size) or the view's share laid
    # out, and the seconds so far.
    app.page.wait_for_function(
        """() => { const s = document.getElementById('status'), t = document.getElementById('status-text').textContent;
            return !s.hidden && (/10\\.\\d MB|chunks…|the view|Working/.test(t) || /\\d+%/.test(t)); }""",
        timeout=120_000,
    )
    app.page.click("#cancel-run")
    app.page.wait_for_function("document.body.dataset.cancels === '1' && document.body.dataset.busy === 'false'", timeout=120_000)
    assert "Cancelled" in text_of(app, "#summary")
    assert app.page.is_hidden("#cancel-run") and app.page.is_hidden("#error")
    # The counts shown are not the cancelled document's, and not the old one's as if current.
    assert "Cancelled" in text_of(app, "#counts") or app.page.eval_on_selector("#counts", "e => !e.classList.contains('stale')")
    app.set_text(PROSE)
    app.fill("#size", "120")
    assert_same_as_python(app, PROSE)
    stats = chunker.chunk(PROSE, **app.controls()).stats
    assert text_of(app, "#counts").startswith(f"{stats.document_chars:,} chars · {stats.document_words:,} words")
