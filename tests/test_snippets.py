"""app/snippets.py: the code the page offers to copy gives exactly the chunks on screen."""

from __future__ import annotations

import subprocess
import sys

import pytest

import chunker
from app import snippets
from tests.texts import ROOT, sample_document


def code_for(filename="doc.md", **options):
    text = sample_document()
    res = chunker.chunk(text, source=filename, **options)  # the file's records, as the command line names it
    return text, res, snippets.snippets(res.settings, filename)


@pytest.mark.parametrize(
    "options",
    [
        dict(strategy="recursive", unit="tokens", size=120, overlap="15%", tokenizer="approx"),
        dict(strategy="sentence", unit="chars", size=400, overlap=40, breaks=("paragraph", "clause")),
        dict(strategy="fixed", unit="words", size=50, overlap=5, tokenizer="estimate"),
    ],
)
def test_python_snippet_reproduces_the_view(options, tmp_path, monkeypatch):
    text, res, snips = code_for(**options)
    (tmp_path / "doc.md").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    code = snips["python"].replace("print(", "(lambda *a: None)(")
    exec(compile(code, "snippet", "exec"), scope)
    assert scope["result"].chunks == res.chunks


def test_cli_line_reproduces_the_export_and_names_the_opened_file(tmp_path):
    name = "my notes (v2).md"
    text, res, snips = code_for(
        filename=name, strategy="sentence", unit="chars", size=300, overlap="10%", breaks=("paragraph", "sentence")
    )
    (tmp_path / name).write_text(text, encoding="utf-8")
    assert "'my notes (v2).md'" in snips["cli"] and '"my notes (v2).md"' in snips["python"]
    out = subprocess.run(
        ["sh", "-c", snips["cli"].replace("python", f"'{sys.executable}'", 1)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout == chunker.to_jsonl(res)


def test_langchain_snippet_matches_the_strategy(monkeypatch):
    pytest.importorskip("langchain_text_splitters")
    tiktoken = pytest.importorskip("tiktoken")
    from chunker.tokens._tiktoken import tiktoken_encoding

    # from_tiktoken_encoder would download the vocabulary; hand it the bundled one instead.
    monkeypatch.setattr(tiktoken, "get_encoding", tiktoken_encoding)
    for options in (
        dict(unit="chars", size=300, overlap=30),
        dict(unit="tokens", size=80, overlap="10%", tokenizer="cl100k"),
        dict(unit="words", size=60, overlap=6),
    ):
        text, res, snips = code_for(strategy="langchain", **options)
        assert "langchain" in snips
        scope = {"open": lambda *a, _text=text, **k: _Reader(_text)}
        exec(compile(snips["langchain"], "snippet", "exec"), scope)
        assert scope["chunks"] == [c.text for c in res.chunks], options


class _Reader:
    def __init__(self, text):
        self.text = text

    def read(self):
        return self.text


def test_every_argument_of_the_command_line_snippet_is_quoted(tmp_path):
    """A file name that the shell would read as a command (``$(...)``, ``;``, spaces) reaches
    chunker as the very name: pasting the line runs nothing else."""
    from tests.hf_fixtures import minilm_path

    name = "tok$(touch pwned); echo `touch pwned2`.json"
    # Content of its own (a trailing line break): the same content loaded elsewhere under another
    # name would be that tokenizer, with that name.
    (tmp_path / name).write_text(minilm_path().read_text(encoding="utf-8") + "\n", encoding="utf-8")
    tok = chunker.load_tokenizer(str(tmp_path / name))
    res = chunker.chunk(sample_document(), size=100, overlap=0, tokenizer=tok)
    line = snippets.snippets(res.settings, "my notes; rm -rf $HOME.md")["cli"]
    assert line.startswith("python -m chunker ")
    echo = "printf '%s\\n'" + line[len("python -m chunker") :]
    out = subprocess.run(["/bin/sh", "-c", echo], cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    args = out.splitlines()
    assert args[0] == "my notes; rm -rf $HOME.md"
    assert args[args.index("--tokenizer") + 1] == name
    assert not (tmp_path / "pwned").exists() and not (tmp_path / "pwned2").exists()
