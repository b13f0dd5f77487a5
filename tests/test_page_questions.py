"""The Questions panel in the page, and a model's tokenizer.json opened in the page: the same
numbers as the command line, on pages of their own."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

import chunker
from chunker.cli._main import run
from tests.hf_fixtures import claude_path, minilm_path
from tests.pagekit import outdate_model_work, page_fixtures, text_of
from tests.test_page import SAMPLE, assert_same_as_python
from tests.texts import ROOT

pytestmark = pytest.mark.browser

site, app = page_fixtures()

QUESTIONS = (ROOT / "app" / "sample_questions.jsonl").read_text(encoding="utf-8")


def cli_eval(*args: str) -> dict:
    out, err = io.StringIO(), io.StringIO()
    assert (
        run(["eval", str(ROOT / "app" / "sample.md"), str(ROOT / "app" / "sample_questions.jsonl"), *args], None, out, err) == 0
    ), err.getvalue()
    return json.loads(out.getvalue())


def tiles(app) -> dict:
    return app.page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('#q-eval .tile')].map(
        t => [t.querySelector('.label').textContent, t.querySelector('.value').textContent]))""")


def test_the_demo_questions_give_the_command_lines_numbers(app):
    app.page.wait_for_function("document.getElementById('q-count').textContent === '12'")
    settings = app.controls()
    expected = cli_eval(
        "--strategy",
        settings["strategy"],
        "--size",
        str(settings["size"]),
        "--overlap",
        settings["overlap"],
        "--tokenizer",
        settings["tokenizer"],
    )
    shown = tiles(app)
    assert shown["Recall"] == f"{100 * expected['recall']:.1f}%"
    assert shown["Precision"] == f"{100 * expected['precision']:.1f}%"
    assert shown["IoU"] == f"{100 * expected['iou']:.1f}%"
    assert shown["MRR"] == f"{expected['mrr']:.2f}"
    # A question shows its retrieved chunks, ranked, on the cards.
    app.page.click("#q-list button.q-show[data-question='3']")
    app.page.wait_for_selector("#cards .card[data-rank='1']")
    ranks = app.page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('#cards [data-rank]')]
        .map(c => [c.dataset.rank, +c.dataset.chunkIndex]))""")
    retrieved = expected["per_question"][3]["retrieved"]
    assert [ranks[str(k + 1)] for k in range(len(retrieved))] == retrieved
    # Another setting: the panel follows the chunks on screen.
    app.fill("#size", "60")
    app.page.wait_for_function("document.querySelector('#q-eval .help').textContent.includes('60 tokens')")
    expected = cli_eval("--size", "60", "--overlap", "10%", "--tokenizer", settings["tokenizer"])
    assert tiles(app)["Recall"] == f"{100 * expected['recall']:.1f}%"


def test_ranking_as_embedded_gives_the_command_lines_numbers_and_says_so(app):
    app.page.wait_for_function("document.getElementById('q-count').textContent === '12'")
    app.act(lambda: app.page.select_option("#strategy", "markdown"))
    app.act(
        lambda: (app.page.fill("#opt-context", "{title} > {headings}\\n\\n"), app.page.dispatch_event("#opt-context", "change"))
    )
    app.page.wait_for_function("document.querySelector('#q-eval .help').textContent.includes('markdown')")
    assert "over the chunk texts" in text_of(app, "#q-eval .help")
    app.page.select_option("#q-index", "embedded")
    app.page.wait_for_function("document.querySelector('#q-eval .help').textContent.includes('as embedded')")
    settings = app.controls()
    common = ["--strategy", "markdown", "--size", str(settings["size"]), "--overlap", settings["overlap"]]
    common += ["--tokenizer", settings["tokenizer"], "--context", "{title} > {headings}\\n\\n"]
    embedded, bare = cli_eval(*common, "--index", "embedded"), cli_eval(*common)
    assert embedded["index"] == "embedded" and bare["index"] == "text"
    shown = tiles(app)
    assert shown["Recall"] == f"{100 * embedded['recall']:.1f}%"
    assert shown["MRR"] == f"{embedded['mrr']:.2f}"
    assert [q["retrieved"] for q in embedded["per_question"]] != [q["retrieved"] for q in bare["per_question"]]


def test_a_sweep_runs_in_the_page_and_equals_the_librarys(app):
    app.page.wait_for_function("document.getElementById('q-count').textContent === '12'")
    app.page.click("#q-sweep")
    app.page.wait_for_function("document.body.dataset.sweep === 'done'")
    rows = app.page.evaluate("""() => [...document.querySelectorAll('#q-sweep-out tbody tr')].map(r =>
        [r.dataset.strategy, +r.dataset.size, ...[...r.querySelectorAll('td')].map(td => td.textContent)])""")
    settings = app.controls()
    expected = chunker.mark_best(
        chunker.sweep(SAMPLE, chunker.load_questions(QUESTIONS, SAMPLE), tokenizer=settings["tokenizer"])
    )
    assert [(r[0], r[1]) for r in rows] == [(e.strategy, e.size) for e in expected]
    for r, e in zip(rows, expected):
        assert r[4] == f"{100 * e.recall:.1f}%" and r[6] == f"{100 * e.iou:.1f}%"
    assert app.page.locator("#q-sweep-out svg.chart path:not(.ci)").count() == 2 * 3  # recall and IoU a strategy
    # At the top 5 the sample's chunks are so few that every row is warned: none is best.
    unranked = all(e.warning for e in expected)
    assert all(not e.best for e in expected) == unranked
    assert app.page.locator("#q-sweep-out [data-warning=unranked]").count() == int(unranked)


def _cli_settings(app, *extra: str) -> dict:
    """`python -m chunker eval` at the settings the page shows."""
    s = app.controls()
    opts = ["--strategy", s["strategy"], "--size", str(s["size"]), "--overlap", str(s["overlap"])]
    return cli_eval(*opts, "--tokenizer", s["tokenizer"], *extra)


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _shown_numbers(app) -> dict:
    return app.page.evaluate("""() => ({
        tiles: Object.fromEntries([...document.querySelectorAll('#q-eval .tile')].map(t => [t.dataset.metric,
            [t.querySelector('.value').textContent, t.querySelector('.note').textContent]])),
        warning: (document.querySelector('#q-eval .warn') || {}).textContent || null,
        rows: [...document.querySelectorAll('#q-eval table.per-question tbody tr')].map(r =>
            [...r.querySelectorAll('td')].map(td => td.textContent)),
    })""")


def _holds_the_command_lines_numbers(app, expected: dict) -> None:
    shown = _shown_numbers(app)
    for metric in ("recall", "precision", "iou", "precision_omega", "hit_rate", "mrr"):
        mean, std = expected[metric], expected[metric + "_std"]
        want = [f"{mean:.2f}", f"±{std:.2f}"] if metric == "mrr" else [_pct(mean), f"±{100 * std:.1f}"]
        assert shown["tiles"][metric] == want, metric
    if expected["warning"] is None:
        assert shown["warning"] is None
    else:
        w = expected["warning"]
        assert shown["warning"] == f"Warning: {w[:1].upper()}{w[1:]}."
    assert len(shown["rows"]) == len(expected["per_question"])
    for n, (row, q) in enumerate(zip(shown["rows"], expected["per_question"])):
        rank = "–" if q["rank"] is None else str(q["rank"])
        assert row == [str(n + 1), rank, *(_pct(q[m]) for m in ("recall", "precision", "iou", "precision_omega"))]


def test_the_panel_shows_spreads_precision_omega_the_warning_and_each_question_as_the_command_line(app):
    app.page.wait_for_function("document.getElementById('q-count').textContent === '12'")
    _holds_the_command_lines_numbers(app, _cli_settings(app))
    # Few chunks: the top 5 retrieve them all, and the panel says the numbers mean little.
    app.fill("#size", "1024")
    app.page.wait_for_function("document.querySelector('#q-eval .help').textContent.includes('1,024 tokens')")
    expected = _cli_settings(app)
    assert expected["warning"] and expected["recall"] == 1.0
    _holds_the_command_lines_numbers(app, expected)
    # Small chunks and the top 2: no warning, and the questions' scores differ.
    app.fill("#size", "30")
    app.page.fill("#q-topk", "2")
    app.page.dispatch_event("#q-topk", "change")
    app.page.wait_for_function(
        "(h => h && h.textContent.includes('30 tokens') && h.textContent.startsWith('The top 2 of'))"
        "(document.querySelector('#q-eval .help'))"
    )
    expected = _cli_settings(app, "--top-k", "2")
    assert expected["warning"] is None and expected["recall_std"] > 0
    _holds_the_command_lines_numbers(app, expected)


def test_the_sweep_shows_each_rows_interval_against_the_best_as_the_library(app):
    app.page.wait_for_function("document.getElementById('q-count').textContent === '12'")
    app.page.fill("#q-topk", "2")
    app.page.dispatch_event("#q-topk", "change")
    app.page.wait_for_function("document.querySelector('#q-eval .help').textContent.startsWith('The top 2 of')")
    app.page.click("#q-sweep")
    app.page.wait_for_function("document.body.dataset.sweep === 'done'")
    rows = app.page.evaluate("""() => [...document.querySelectorAll('#q-sweep-out tbody tr')].map(r => ({
        key: [r.dataset.strategy, +r.dataset.size], covered: r.classList.contains('covered'),
        vs: [...r.querySelectorAll('td.vs, td.best')].filter(td => td.cellIndex >= 8).map(td => [td.textContent,
            td.classList.contains('same') ? 'same' : td.classList.contains('differs') ? 'differs' : 'best'])}))""")
    expected = chunker.mark_best(
        chunker.sweep(SAMPLE, chunker.load_questions(QUESTIONS, SAMPLE), tokenizer=app.controls()["tokenizer"], top_k=2)
    )
    assert [r["key"] for r in rows] == [[e.strategy, e.size] for e in expected]
    assert any(e.warning for e in expected) and any(not e.warning for e in expected)
    for r, e in zip(rows, expected):
        assert r["covered"] == bool(e.warning)
        want = []
        for metric in ("recall", "iou"):
            iv = next(iv for iv in e.versus_best if iv.metric == metric)
            if metric in e.best:
                want.append(["best", "best"])
            else:
                text = f"{100 * iv.difference:+.1f} [{100 * iv.low:+.1f}, {100 * iv.high:+.1f}]"
                want.append([text, "differs" if iv.excludes_zero else "same"])
        assert r["vs"] == want, r["key"]
    assert all(not e.best for e in expected if e.warning)
    # The chart: an interval bar for recall and for IoU at every point, and the best rows' levels.
    assert app.page.locator("#q-sweep-out svg.chart path.ci").count() == 2 * len(expected)
    assert app.page.locator("#q-sweep-out svg.chart line.best-level").count() == 2


def test_a_question_is_added_from_a_selection_and_exported(app, tmp_path):
    app.page.wait_for_function("document.getElementById('q-count').textContent === '12'")
    answer = "Three dashboards matter"
    start = SAMPLE.index(answer)
    # Select the answer's text in the document view, as a reader would with the mouse.
    app.page.evaluate(
        """([needle]) => {
        const view = document.getElementById('doc-view');
        const walker = document.createTreeWalker(view, NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
            const at = n.textContent.indexOf(needle);
            if (at >= 0) { const r = document.createRange(); r.setStart(n, at); r.setEnd(n, at + needle.length);
                           const s = window.getSelection(); s.removeAllRanges(); s.addRange(r); return; }
        }
        throw new Error('not found');
    }""",
        [answer],
    )
    app.page.click("#q-answer")
    assert text_of(app, "#q-answers") == "1 answer marked"
    question = "Which <img src=x onerror=alert(1)> dashboards matter?\x00 (a NUL, pasted)"
    app.page.fill("#q-text", question)
    app.page.click("#q-form button[type=submit]")
    app.page.wait_for_function("document.getElementById('q-count').textContent === '13'")
    with app.page.expect_download() as info:
        app.page.click("#q-export")
    exported = Path(info.value.path()).read_text(encoding="utf-8")
    questions = chunker.load_questions(exported, SAMPLE)
    assert questions[-1].question == question
    assert app.page.locator("#q-list img").count() == 0 and not app.dialogs
    assert [(r.start_index, r.end_index) for r in questions[-1].references] == [(start, start + len(answer))]
    # Removing it, then importing the file back, gives it back.
    app.page.click("#q-list button.q-remove[data-question='12']")
    app.page.wait_for_function("document.getElementById('q-count').textContent === '12'")
    extra = tmp_path / "extra.jsonl"
    extra.write_text(exported.splitlines()[-1] + "\n", encoding="utf-8")
    app.page.set_input_files("#q-file", str(extra))
    app.page.wait_for_function("document.getElementById('q-count').textContent === '13'")


def _tab_to(app, element_id: str, back: bool = False) -> None:
    """Move the focus with Tab (Shift+Tab) alone until it is on `element_id`."""
    for _ in range(300):
        if app.page.evaluate("document.activeElement && document.activeElement.id") == element_id:
            return
        app.page.keyboard.press("Shift+Tab" if back else "Tab")
    raise AssertionError(f"Tab never reached #{element_id}")


def test_an_answer_is_marked_with_the_keyboard_alone(app, tmp_path):
    # The reader selects the answer in the document box with Shift and the arrows, tabs to the
    # button and presses Enter: no mouse anywhere.
    app.page.wait_for_function("document.getElementById('q-count').textContent === '12'")
    answer = "configured, deployed and monitored"
    start = SAMPLE.index(answer)
    _tab_to(app, "document")
    app.page.keyboard.press("Control+Home")
    for _ in range(start):
        app.page.keyboard.press("ArrowRight")
    for _ in range(len(answer)):
        app.page.keyboard.press("Shift+ArrowRight")
    _tab_to(app, "q-answer")
    app.page.keyboard.press("Enter")
    assert text_of(app, "#q-answers") == "1 answer marked"
    _tab_to(app, "q-text", back=True)
    app.page.keyboard.type("What is configured?")
    app.page.keyboard.press("Enter")
    app.page.wait_for_function("document.getElementById('q-count').textContent === '13'")
    _tab_to(app, "q-export", back=True)
    with app.page.expect_download() as info:
        app.page.keyboard.press("Enter")
    questions = chunker.load_questions(Path(info.value.path()).read_text(encoding="utf-8"), SAMPLE)
    assert questions[-1].question == "What is configured?"
    assert [(r.start_index, r.end_index) for r in questions[-1].references] == [(start, start + len(answer))]


def test_a_bad_questions_file_is_one_line_naming_the_line(app, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "ok?", "references": [{"start_index": 0, "end_index": 5}]}\n{not json\n', encoding="utf-8")
    app.page.set_input_files("#q-file", str(bad))
    app.page.wait_for_selector("#error:not([hidden])")
    assert "line 2" in text_of(app, "#error") and "\n" not in text_of(app, "#error")


def test_a_models_tokenizer_json_counts_as_the_command_line_does(app):
    path = minilm_path()
    app.act(lambda: app.page.set_input_files("#tokenizer-file", str(path)))
    assert app.page.input_value("#tokenizer") == chunker.load_tokenizer(str(path)).name  # hf:..., its content
    assert app.page.get_attribute("#size-range", "max") == "128"  # the slider follows the model's limit
    assert "input limit is 128 tokens" in text_of(app, "#tokenizer-help")
    settings = dict(app.controls(), tokenizer=str(path))
    expected = chunker.chunk(SAMPLE, **settings)
    for card in app.cards():
        assert int(card["tokens"].split()[0]) == expected.chunks[card["index"]].tokens
    assert text_of(app, "#counts").endswith(f"{expected.stats.document_tokens:,} tokens (tokenizer.json)")
    app.fill("#size", "300")  # past the limit: chunks the model would cut are flagged
    flagged = [c for c in chunker.chunk(SAMPLE, **dict(settings, size=300)).chunks if "truncated" in c.flags]
    assert flagged and app.page.locator("#cards .flag[data-flag=truncated]").count() == len(flagged)


def test_a_wrong_file_picked_as_tokenizer_json_is_one_short_line_naming_it(app, tmp_path):
    wrong = {
        "config.json": ('{"architectures": ["BertModel"], "hidden_size": 768}', 'it has no "model"'),
        "notes.txt": ("Some notes, not JSON at all.\n" * 2_200, "it is not JSON"),  # 60 KB
        "big.txt": ("Some notes, not JSON at all.\n" * 36_000, "it is not JSON"),  # 1 MB
        "empty.json": ("", "it is empty"),
        "huge.json": ("{" + " " * 3_000_000 + "}", "it is 3 MB"),
    }  # past the cap this test sets
    app.page.evaluate("window.chunkerTokenizerMaxBytes = 2000000")
    before = app.page.input_value("#tokenizer")
    for name, (text, why) in wrong.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        app.page.set_input_files("#tokenizer-file", str(tmp_path / name))
        app.page.wait_for_function(
            "n => document.getElementById('error').textContent.startsWith(n)", arg=name + " is not a tokenizer.json ("
        )
        said = text_of(app, "#error")
        assert said.startswith(f"{name} is not a tokenizer.json ({why}"), said[:300]
        assert "\n" not in said and len(said) < 200 and said.endswith("pick the tokenizer.json of your model's folder"), said
        assert app.page.input_value("#tokenizer") == before
    assert not app.console_errors, app.console_errors[:3]


def test_a_file_nested_too_deep_for_the_worker_is_one_line_and_python_starts_again(app, tmp_path):
    # JSON nested thousands of levels deep exhausts the worker's stack before Python's own
    # recursion check (the command line says "nested too deep"), and Pyodide cannot go on
    # after that. A questions line is refused before it is parsed (the library checks its
    # depth), as the command line refuses it; a tokenizer.json is parsed whole (checking its
    # depth first would cost seconds on a real one): the page says so, starts another worker,
    # and keeps chunking the document.
    deep = "[" * 5000 + "]" * 5000
    (tmp_path / "deep.jsonl").write_text(f'{{"question": "q", "references": {deep}}}\n', encoding="utf-8")
    app.page.set_input_files("#q-file", str(tmp_path / "deep.jsonl"))
    app.page.wait_for_selector("#error:not([hidden])")
    assert text_of(app, "#error").startswith("line 1: nested too deep to be a question")
    assert app.page.evaluate("document.body.dataset.restarts") in (None, "0")
    before = app.page.input_value("#tokenizer")
    (tmp_path / "tokenizer.json").write_text(f'{{"model": {deep}}}', encoding="utf-8")
    app.act(lambda: app.page.set_input_files("#tokenizer-file", str(tmp_path / "tokenizer.json")))
    assert app.page.evaluate("document.body.dataset.restarts") == "1"
    failed = "Python in the page failed on it (Maximum call stack size exceeded)"
    assert text_of(app, "#error") == f"tokenizer.json could not be read: {failed} and was started again."
    assert app.page.input_value("#tokenizer") == before
    app.fill("#size", "90")
    assert app.page.is_hidden("#error")
    assert_same_as_python(app, SAMPLE)


def _shows_counts_of(app, tokenizer) -> None:
    """The cards and the live counts are `tokenizer`'s own, at the settings the page shows."""
    expected = chunker.chunk(SAMPLE, **dict(app.controls(), tokenizer=tokenizer))
    cards = app.cards()
    assert cards and all(int(c["tokens"].split()[0]) == expected.chunks[c["index"]].tokens for c in cards)
    assert text_of(app, "#counts").endswith(f"{expected.stats.document_tokens:,} tokens (tokenizer.json)")


def test_two_tokenizer_files_loaded_in_turn_each_give_their_own_counts(app):
    # Two real files, both called tokenizer.json: a byte-level BPE (anthropic's) and MiniLM's
    # WordPiece. Each counts as itself at once, and switching back gives the first counts again.
    bpe, mini = str(claude_path()), str(minilm_path())
    app.act(lambda: app.page.set_input_files("#tokenizer-file", bpe))
    first = app.page.input_value("#tokenizer")
    assert first == chunker.load_tokenizer(bpe).name
    _shows_counts_of(app, bpe)
    app.act(lambda: app.page.set_input_files("#tokenizer-file", mini))
    second = app.page.input_value("#tokenizer")
    assert second == chunker.load_tokenizer(mini).name != first
    assert "WordPiece" in text_of(app, "#tokenizer-help")
    _shows_counts_of(app, mini)
    options = app.page.evaluate("[...document.getElementById('tokenizer').options].map(o => o.value)")
    assert options.count(first) == 1 and options.count(second) == 1
    app.select("tokenizer", first)
    _shows_counts_of(app, bpe)
    app.select("tokenizer", second)
    _shows_counts_of(app, mini)


def test_work_a_newer_setting_made_stale_is_stopped(app, chromium):
    # A model's byte-level BPE tokenizer.json on 800 KB keeps the worker busy for seconds; choosing
    # the estimate meanwhile stops that work (the worker is terminated and another started) and
    # shows the estimate's chunks, without waiting for the stale ones. The test shortens the
    # page's patience (chunkerStaleSeconds) so the slow call is surely still running.
    from conftest import Page, paste

    from tests.test_page import PROSE

    page = Page(chromium, app.url, context=app.context)
    try:
        page.page.add_init_script("window.chunkerStaleSeconds = 0.5; window.chunkerCompareAutoChars = 1")
        page.open("?unit=tokens&size=16&overlap=4")  # small chunks: seconds of exact counting
        big = (PROSE + "\n\n") * (800_000 // (len(PROSE) + 2))
        page.act(lambda: paste(page.page, big))
        outdate_model_work(page)
        assert page.page.get_attribute("body", "data-restarts") == "1"
        expected = chunker.chunk(big, **page.controls())
        assert text_of(page, "#summary") == f"{len(expected.chunks):,} chunks"
        assert [(c["start"], c["end"]) for c in page.cards()] == [
            (c.start_char, c.end_char) for c in expected.chunks[: len(page.cards())]
        ]
        # The new worker is given the reader's tokenizer.json again when it is chosen again.
        page.set_text("A short text, counted with the model's own tokenizer.")
        loaded = page.page.evaluate(
            "[...document.getElementById('tokenizer').options].map(o => o.value).find(v => v.startsWith('hf:'))"
        )  # the option is the file's content, its label the file's name
        page.select("tokenizer", loaded)
        # Counted with it, and still named by its file name, not its identity.
        assert page.page.is_hidden("#error")
        assert text_of(page, "#counts").endswith("(tokenizer.json)")
    finally:
        page.close()
