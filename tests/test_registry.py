"""A new strategy is its module plus one registry line: the library, the command line, the
comparison and the page pick it up with nothing else changed.

The CPython half registers a throwaway strategy in this process. The browser half writes a
copy of the repository with a new strategy module and one line added to the registry, serves
that copy with its own serve.py, and finds the strategy in the page's select, its row in the
comparison, and its chunks equal to the copy's own CPython.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

import chunker
from chunker.cli._main import run
from tests.texts import ROOT, sample_document

EVERY_LINE = '''"""Strategy `every_line`: each non-blank line is a chunk (a throwaway for the registry test)."""

from __future__ import annotations

from ..text._segments import line_spans
from ._pack import Span


def split(text, *, size, overlap, measure, breaks=()):
    return [Span(s, e) for s, e in line_spans(text)]
'''


@pytest.fixture
def every_line():
    from chunker.strategies import Span
    from chunker.text._segments import line_spans

    def split(text, *, size, overlap, measure, breaks=()):
        return [Span(s, e) for s, e in line_spans(text)]

    chunker.register_strategy(chunker.Strategy("every_line", "Each non-blank line is a chunk.", function=split))
    yield "every_line"
    del chunker.STRATEGIES["every_line"]


def test_a_registered_strategy_reaches_the_library_cli_compare_and_worker(every_line):
    text = sample_document()
    res = chunker.chunk(text, strategy=every_line, size=50, overlap=0)
    assert [c.text for c in res.chunks] == [line.strip() for line in text.splitlines() if line.strip()]
    out, err = io.StringIO(), io.StringIO()
    assert run(["--strategy", every_line, "--size", "50", "--overlap", "0"], io.StringIO(text), out, err) == 0
    assert len(out.getvalue().splitlines()) == len(res.chunks)
    assert every_line in chunker.cli._main._parser().format_help()
    assert chunker.Document(text).compare(chunker.Settings(size=50, overlap=0))[every_line].chunks == len(res.chunks)
    from app import panels, worker

    controls = json.loads(worker.hello()["controls"])
    assert every_line in controls["order"] and f'value="{every_line}"' in controls["strategy"]
    assert f'data-strategy="{every_line}"' in panels.compare_html({}, "recursive", [], controls["order"])


@pytest.mark.browser
def test_a_strategy_module_and_one_registry_line_reach_the_page(tmp_path, chromium, runtime):
    from conftest import Page

    copy = tmp_path / "repo"
    shutil.copytree(
        ROOT,
        copy,
        symlinks=True,
        ignore=shutil.ignore_patterns(".git", ".venv", ".venv-bench", ".cache", "__pycache__", "_site", ".hypothesis"),
    )
    os.symlink(ROOT / ".cache", copy / ".cache")  # the pinned downloads, read only
    (copy / "chunker" / "strategies" / "every_line.py").write_text(EVERY_LINE, encoding="utf-8")
    registry = copy / "chunker" / "strategies" / "__init__.py"
    source = registry.read_text(encoding="utf-8")
    line = '    Strategy("every_line", "Each non-blank line is a chunk."),\n'
    registry.write_text(
        source.replace("):\n    register_strategy(_entry)", line + "):\n    register_strategy(_entry)"), encoding="utf-8"
    )
    assert line in registry.read_text(encoding="utf-8")  # exactly one line added
    # The copy's own command line knows it.
    text = sample_document()
    done = subprocess.run(
        [sys.executable, "-m", "chunker", "--strategy", "every_line", "--size", "9", "--overlap", "0"],
        input=text,
        capture_output=True,
        text=True,
        cwd=copy,
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(x) for x in done.stdout.splitlines()]
    assert [r["text"] for r in lines] == [x.strip() for x in text.splitlines() if x.strip()]
    server = subprocess.Popen(
        [sys.executable, str(copy / "serve.py"), "--port", "0", "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=copy,
    )
    try:
        url = re.search(r"http://[\d.]+:\d+/", server.stdout.readline()).group(0)
        page = Page(chromium, url + "?strategy=every_line&size=9&overlap=0").open()
        try:
            options = page.page.evaluate("[...document.getElementById('strategy').options].map(o => o.value)")
            assert options[-1] == "every_line"
            assert page.page.input_value("#strategy") == "every_line"
            assert page.page.eval_on_selector("#summary", "e => e.textContent") == f"{len(lines)} chunks"
            page.wait_compare()
            assert page.page.locator("#compare-table button[data-strategy=every_line]").count() == 1
        finally:
            page.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
        server.stdout.close()


# ---------------------------------------------------------------- a new option: one table entry


@pytest.fixture
def min_chars():
    """A throwaway option, registered as a new setting would be declared in OPTIONS."""
    from chunker.settings._settings import whole_number

    option = chunker.register_option(
        chunker.Option(
            "min_chars",
            0,
            lambda value, so_far: whole_number("min_chars", value),
            help=lambda: "drop nothing shorter than N characters (default 0; a throwaway for the test)",
            description="A throwaway option of the registry test.",
            parse=lambda text, flag: whole_number(flag, text),
            metavar="N",
            control=chunker.Control("number", "Minimum characters"),
        )
    )
    yield option
    chunker.unregister_option("min_chars")


def test_a_registered_option_reaches_every_surface(min_chars):
    import inspect

    from app import snippets, worker
    from chunker.cli._eval import _parser as eval_parser
    from chunker.langchain import ChunkerSplitter

    text = sample_document()
    # chunk(), Document.chunk() and Settings: taken, checked, carried, listed in the signature.
    res = chunker.chunk(text, size=50, overlap=0, min_chars=7)
    assert res.settings.min_chars == 7 and res.settings.to_dict()["min_chars"] == 7
    assert chunker.Document(text).chunk(size=50, overlap=0, min_chars="8").settings.min_chars == 8
    assert chunker.Settings().min_chars == 0 and chunker.Settings(min_chars=7) != chunker.Settings()
    assert "min_chars" in inspect.signature(chunker.chunk).parameters
    assert "min_chars" in inspect.signature(chunker.sweep).parameters
    with pytest.raises(chunker.ChunkerError, match="min_chars must be a whole number"):
        chunker.chunk(text, min_chars="many")
    # Both commands: the flag and its help, and its value read.
    assert "--min-chars N" in chunker.cli._main._parser().format_help()
    assert "throwaway for the test" in eval_parser().format_help()
    out, err = io.StringIO(), io.StringIO()
    assert run(["--size", "50", "--overlap", "0", "--min-chars", "7"], io.StringIO(text), out, err) == 0, err.getvalue()
    assert len(out.getvalue().splitlines()) == len(res.chunks)
    out, err = io.StringIO(), io.StringIO()
    assert run(["--min-chars", "x"], io.StringIO(text), out, err) == 2
    assert "--min-chars must be a whole number" in err.getvalue() and out.getvalue() == ""
    # An adapter.
    splitter = ChunkerSplitter(size=50, overlap=0, min_chars=7)
    assert splitter.settings["min_chars"] == 7 and "min_chars=7" in repr(splitter)
    # The page: a field in the controls the worker reports, its link key, and the worker reading it.
    controls = json.loads(worker.hello()["controls"])
    assert 'id="opt-min_chars"' in controls["more"] and 'data-setting="min_chars"' in controls["more"]
    assert "Minimum characters" in controls["more"] and {"key": "min_chars", "id": "opt-min_chars"} in controls["fields"]
    assert "min_chars" in controls["params"] and controls["defaults"]["min_chars"] == "0"
    page = {
        "strategy": "recursive",
        "unit": "tokens",
        "size": "50",
        "overlap": "0",
        "tokenizer": "estimate",
        "breaks": ["paragraph"],
        "limit": "",
        "min_chars": "9",
    }
    settings, _ = worker._settings(json.dumps(page))
    assert settings.min_chars == 9
    failed = worker.run({"text": text}, json.dumps({**page, "min_chars": "nine"}))
    assert not failed["ok"] and "min_chars" in failed["error"]
    # Copy as code: the call and the command line carry it when it is not the default.
    snips = snippets.snippets(settings)
    assert "    min_chars=9," in snips["python"] and " --min-chars 9" in snips["cli"]
    assert "min_chars" not in snippets.snippets(chunker.Settings(size=50, overlap=0))["python"]


def test_the_packages_own_options_cannot_be_unregistered():
    # unregister_option("size") succeeded, and then every Settings() failed.
    with pytest.raises(chunker.ChunkerError, match="'size' is one of chunker's own settings"):
        chunker.unregister_option("size")
    assert chunker.Settings(size=10, overlap=0).size == 10
