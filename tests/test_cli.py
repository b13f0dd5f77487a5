"""`python -m chunker`: output, options, and one-line errors with exit status 2."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import chunker
from chunker.cli._main import run
from tests.texts import PRIMER

ROOT = Path(__file__).resolve().parent.parent


def cli(*args, stdin=""):
    out, err = io.StringIO(), io.StringIO()
    code = run(list(args), io.StringIO(stdin), out, err)
    return code, out.getvalue(), err.getvalue()


def test_module_entry_point_runs_in_a_subprocess(tmp_path):
    doc = tmp_path / "doc.txt"
    doc.write_text(PRIMER, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "chunker", str(doc), "--unit", "chars", "--size", "300", "--overlap", "0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [r["text"] for r in records] == PRIMER.split("\n\n")


@pytest.mark.parametrize("sub", [[], ["extract"], ["eval"]])
def test_help_names_the_program_as_it_was_run(tmp_path, sub):
    # The console script pip installs: `chunker --help` said "usage: python -m chunker".
    script = tmp_path / "bin" / "chunker"
    script.parent.mkdir()
    script.write_text(f"#!{sys.executable}\nimport sys\nfrom chunker.cli import main\nsys.exit(main())\n")
    script.chmod(0o755)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}
    installed = subprocess.run([str(script), *sub, "--help"], env=env, capture_output=True, text=True)
    module = subprocess.run([sys.executable, "-m", "chunker", *sub, "--help"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert installed.returncode == module.returncode == 0, installed.stderr + module.stderr
    name = " ".join(["chunker", *sub])
    assert installed.stdout.startswith(f"usage: {name} [-h]") and "python -m" not in installed.stdout
    assert module.stdout.startswith(f"usage: python -m {name} [-h]")


def test_defaults_match_the_library():
    code, out, _ = cli(stdin=PRIMER)
    assert code == 0
    assert out == chunker.to_jsonl(chunker.chunk(PRIMER))


@pytest.mark.parametrize("fmt,fn", [("jsonl", chunker.to_jsonl), ("json", chunker.to_json), ("txt", chunker.to_text)])
def test_formats_equal_the_library_exports(fmt, fn):
    opts = dict(strategy="sentence", unit="chars", size=200, overlap="10%")
    code, out, _ = cli(
        "--format", fmt, "--strategy", "sentence", "--unit", "chars", "--size", "200", "--overlap", "10%", stdin=PRIMER
    )
    assert code == 0 and out == fn(chunker.chunk(PRIMER, **opts))


def test_stats_is_one_json_object():
    code, out, _ = cli("--stats", "--tokenizer", "o200k", stdin=PRIMER)
    stats = json.loads(out)
    assert code == 0 and out.count("\n") == 1
    assert stats["exact"] is True and stats["chunks"] == 1
    assert stats["document_tokens"] == chunker.count_tokens(PRIMER, "o200k")


def test_several_files_carry_their_source(tmp_path):
    a, b = tmp_path / "a.md", tmp_path / "b.md"
    a.write_text("# A\n\nAlpha text.", encoding="utf-8")
    b.write_text("Beta text.", encoding="utf-8")
    code, out, err = cli(str(a), str(b), "--strategy", "markdown")
    recs = [json.loads(x) for x in out.splitlines()]
    assert code == 0 and err == ""  # no progress bar when stderr is not a terminal
    assert [r["source"] for r in recs] == [str(a), str(b)]
    assert recs[0]["headings"] == ["A"]


def test_offsets_keep_bom_crlf_tabs_and_emoji(tmp_path):
    text = "\ufeffTitle\r\n\r\nOne 😀 two.\tThree.\r\n"
    p = tmp_path / "x.txt"
    p.write_bytes(text.encode("utf-8"))
    code, out, _ = cli(str(p), "--strategy", "sentence", "--size", "0")
    assert code == 0
    for r in map(json.loads, out.splitlines()):
        assert text[r["start_char"] : r["end_char"]] == r["text"]


def test_empty_input_gives_valid_empty_output():
    assert cli(stdin="") == (0, "", "")
    code, out, _ = cli("--format", "json", stdin="  \n")
    assert code == 0 and json.loads(out) == []
    code, out, _ = cli("--stats", stdin="")
    assert json.loads(out)["chunks"] == 0


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--size", "0"], "size must be a positive number, got 0"),
        (["--size", "-5"], "got -5"),
        (["--size", "big"], "'big'"),
        (["--overlap", "-1"], "overlap must be 0 or more"),
        (["--size", "100", "--overlap", "100"], "overlap 100 must be smaller than the size 100"),
        (["--overlap", "120%"], "under 100%"),
        (["--overlap", "lots"], "'lots'"),
        (["--strategy", "neural"], "unknown strategy 'neural'"),
        (["--unit", "bytes"], "unknown unit 'bytes'"),
        (["--tokenizer", "gpt2"], "unknown tokenizer 'gpt2'"),
        (["--breaks", "comma"], "unknown break point 'comma'"),
        (["--format", "xml"], "unknown format 'xml'"),
        (["--bogus"], "unrecognized arguments: --bogus"),
        (["--max-chunk-chars", "lots"], "--max-chunk-chars must be a whole number in digits 0-9, got 'lots'"),
        (["--max-chunk-chars", "-5"], "--max-chunk-chars must be a whole number (0 for no limit), got '-5'"),
    ],
)
def test_bad_options_are_one_line_and_exit_2(args, needle):
    code, out, err = cli(*args, stdin="text")
    assert code == 2 and out == ""
    assert needle in err and err.count("\n") == 1 and "Traceback" not in err


def test_bad_files_are_named_and_nothing_is_written(tmp_path):
    good = tmp_path / "good.txt"
    good.write_text("fine.", encoding="utf-8")
    latin = tmp_path / "latin1.txt"
    latin.write_bytes("café".encode("latin-1"))
    code, out, err = cli(str(good), str(latin))
    assert (code, out) == (2, "") and "latin1.txt: not UTF-8" in err
    code, out, err = cli(str(good), str(tmp_path / "missing.txt"))
    assert (code, out) == (2, "") and "missing.txt: no such file" in err
    code, out, err = cli(str(tmp_path))
    assert code == 2 and "is a directory" in err


def test_size_zero_is_fine_for_sentence_and_paragraph():
    code, out, _ = cli("--strategy", "paragraph", "--size", "0", stdin=PRIMER)
    assert code == 0 and len(out.splitlines()) == 4


def test_progress_bar_on_a_terminal(tmp_path):
    class Tty(io.StringIO):
        def isatty(self):
            return True

    files = []
    for i in range(3):
        p = tmp_path / f"{i}.txt"
        p.write_text(f"Doc {i}.", encoding="utf-8")
        files.append(str(p))
    err = Tty()
    assert run(files, io.StringIO(), io.StringIO(), err) == 0
    assert "3/3 files" in err.getvalue()


def test_an_overlap_that_repeats_a_file_thousands_of_times_is_refused(tmp_path):
    # A stride of one character over a few megabytes would fill the memory before a line is
    # written: by default it is a one-line error; --max-chunk-chars moves or lifts the limit.
    doc = PRIMER * 40  # about 35 KB: 2,000 times over is past the 2,000,000 floor
    stride_one = ["--strategy", "fixed", "--unit", "chars", "--size", "2000", "--overlap", "1999"]
    code, out, err = cli(*stride_one, stdin=doc)
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert "times the document, past the limit of 2,000,000: lower the overlap (1999 of 2000 chars now)" in err
    code, out, _ = cli(*stride_one, "--max-chunk-chars", "0", stdin=PRIMER)
    assert code == 0 and len(out.splitlines()) == len(
        chunker.chunk(PRIMER, strategy="fixed", unit="chars", size=2000, overlap=1999).chunks
    )
    code, _, err = cli(
        "--strategy", "fixed", "--unit", "chars", "--size", "100", "--overlap", "50", "--max-chunk-chars", "1000", stdin=doc
    )
    assert code == 2 and "past the limit of 1,000" in err
    many = tmp_path / "many.txt"
    many.write_text(doc, encoding="utf-8")
    small = tmp_path / "small.txt"
    small.write_text("fine.", encoding="utf-8")
    code, out, err = cli(*stride_one, str(small), str(many))
    assert (code, out) == (2, "") and err.startswith(f"chunker: error: {many}: these settings make chunks")
    # The usual settings never meet the default limit.
    code, out, _ = cli("--overlap", "50%", stdin=doc)
    assert code == 0 and out
