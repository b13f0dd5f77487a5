"""`python -m chunker` over many files: folders, glob patterns, worker processes (--jobs) that
write the very bytes one process writes, --keep-going, --output, and the progress bar."""

from __future__ import annotations

import io
import json
import multiprocessing
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import chunker
from chunker.cli import _jobs, _workers
from chunker.cli._main import run
from tests.documents import encrypted_pdf, sentences_for, typeset, word_document
from tests.texts import PRIMER, ROOT, sample_document


class Tty(io.StringIO):
    def isatty(self):
        return True


def cli(*args, stdin="", stderr=None):
    out, err = io.StringIO(), stderr if stderr is not None else io.StringIO()
    code = run(list(args), io.StringIO(stdin), out, err)
    return code, out.getvalue(), err.getvalue()


def write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8", newline="")
    return path


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """A folder of real text of every kind the CLI reads, nested, with files that give no
    records (empty, blank) first, between and last, and hidden files that must be skipped."""
    root = tmp_path_factory.mktemp("corpus")
    made = typeset([(f"Section {i}", sentences_for(i, 12)) for i in range(1, 4)], footer="Report, page {page}")
    write(root / "a-empty.txt", "")
    write(root / "b-sample.md", sample_document())
    write(root / "c" / "primer.txt", PRIMER)
    write(root / "c" / "report.pdf", made.pdf)
    write(root / "c" / "blank.txt", "  \n\n ")
    write(root / "c" / "d" / "readme.md", (ROOT / "README.md").read_text(encoding="utf-8"))
    write(root / "c.md", "# Beside c\n\nA file named like the folder, sorted after the folder's files.")
    write(
        root / "e-guide.docx",
        word_document([("h1", "Guide"), ("p", PRIMER), ("h2", "Install"), ("p", "Run the installer. Then restart.")]),
    )
    write(root / "f-crlf.txt", "\ufeffTitle\r\n\r\nOne 😀 two.\tThree \u2028line.\r\n" * 40)
    write(root / "z-blank.txt", "\n")
    write(root / ".hidden.md", "Hidden file: never chunked.")
    write(root / ".git" / "notes.md", "Hidden folder: never chunked.")
    return root


ORDER = [
    "a-empty.txt",
    "b-sample.md",
    "c/blank.txt",
    "c/d/readme.md",
    "c/primer.txt",
    "c/report.pdf",
    "c.md",
    "e-guide.docx",
    "f-crlf.txt",
    "z-blank.txt",
]


def expected(root: Path, names: list[str], *opts: str) -> str:
    """The output of naming every file on the command line, one process: the reference."""
    code, out, err = cli(*[str(root / n) for n in names], *opts)
    assert code == 0, err
    return out


def sources(out: str) -> list[str]:
    return list(dict.fromkeys(json.loads(line)["source"] for line in out.splitlines()))


def test_a_folder_needs_recursive(corpus):
    code, out, err = cli(str(corpus))
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert f"chunker: error: {corpus}: is a directory: add --recursive" in err


def test_a_folder_gives_its_files_in_sorted_order_without_hidden_ones(corpus):
    code, out, err = cli(str(corpus), "--recursive", "--size", "100", "--overlap", "10")
    assert code == 0 and err == ""
    with_records = [n for n in ORDER if n not in ("a-empty.txt", "c/blank.txt", "z-blank.txt")]
    assert sources(out) == [os.path.join(str(corpus), n) for n in with_records]
    assert out == expected(corpus, ORDER, "--size", "100", "--overlap", "10")
    assert "Hidden" not in out


def test_a_folder_of_one_file_still_names_it(tmp_path):
    write(tmp_path / "only.md", PRIMER)
    code, out, _ = cli(str(tmp_path), "-r", "--size", "60", "--overlap", "0")
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and len(records) > 1 and {r["source"] for r in records} == {str(tmp_path / "only.md")}
    code, out, _ = cli(str(tmp_path / "only.md"), "--size", "60", "--overlap", "0")
    # One file named has its source too (its chunks' ids hash it).
    assert code == 0 and json.loads(out.splitlines()[0])["source"] == str(tmp_path / "only.md")


def test_glob_patterns_are_expanded_by_chunker(corpus):
    code, out, _ = cli(str(corpus / "*.md"))
    assert code == 0 and out == expected(corpus, ["b-sample.md", "c.md"])
    # ** is any depth of folders, --recursive or not; folders the pattern matches are not files.
    deep = [n for n in ORDER if n.endswith(".md")]
    assert cli(str(corpus / "**" / "*.md"))[1] == expected(corpus, deep)
    assert cli(str(corpus / "**" / "*.md"), "--recursive")[1] == expected(corpus, deep)
    assert sources(cli(str(corpus / "c*"))[1]) == [str(corpus / "c.md")]  # one file, named all the same
    # A hidden name is matched only when the pattern spells its dot.
    assert sources(cli(str(corpus / ".h*"))[1]) == [str(corpus / ".hidden.md")]
    # Patterns, folders and files mix, each in its place.
    code, out, _ = cli(str(corpus / "c.md"), str(corpus / "c" / "d"), "-r", str(corpus / "?-blank.txt"))
    assert code == 0 and out == expected(corpus, ["c.md", "c/d/readme.md", "z-blank.txt"])


def test_a_pattern_that_matches_nothing_is_one_line(corpus, tmp_path):
    code, out, err = cli(str(corpus / "b-sample.md"), str(corpus / "*.rst"))
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert f"no file matches '{corpus / '*.rst'}'" in err
    code, out, err = cli(str(corpus / "**" / ".git"))  # a hidden folder: nothing
    assert (code, out) == (2, "") and "no file matches" in err
    empty = tmp_path / "empty"
    write(empty / ".only-hidden", "x")
    code, out, err = cli(str(empty), "-r")
    assert (code, out) == (2, "")
    assert err == f"chunker: error: {empty}: no files under it (names starting with a dot are skipped)\n"


def test_a_path_that_exists_is_not_a_pattern(tmp_path):
    odd = write(tmp_path / "notes[1].txt", "Brackets in a real name.")
    code, out, _ = cli(str(odd))
    assert code == 0 and json.loads(out)["text"] == "Brackets in a real name."


OUTPUTS = [
    [],
    ["--format", "json"],
    ["--format", "txt"],
    ["--stats"],
    ["--advice"],
    ["--format", "json", "--strategy", "sentence", "--unit", "chars", "--size", "300", "--overlap", "15%"],
    ["--strategy", "markdown", "--tokenizer", "o200k", "--size", "120", "--overlap", "0"],
]


@pytest.mark.parametrize("opts", OUTPUTS, ids=lambda o: " ".join(o) or "jsonl")
def test_jobs_write_the_same_bytes_as_one_process(corpus, opts):
    code, one, err = cli(str(corpus), "-r", *opts)
    assert code == 0, err
    assert cli(str(corpus), "-r", "--jobs", "2", *opts) == (0, one, "")
    assert cli(str(corpus), "-r", "--jobs", "3", *opts)[1] == one  # more workers than cores
    if opts[:2] == ["--format", "json"]:
        assert len(json.loads(one)) > 10  # a real output, records from every kind of file


def test_jobs_with_standard_input_among_the_files(corpus):
    files = [str(corpus / "c.md"), "-", str(corpus / "c" / "primer.txt")]
    one = cli(*files, stdin=PRIMER + " From stdin.")
    assert one[0] == 0 and '"source": "-"' in one[1]
    assert cli(*files, "-j", "2", stdin=PRIMER + " From stdin.") == one


def test_jobs_in_a_fresh_interpreter_and_its_real_stdout(corpus, tmp_path):
    def python_m(*args):
        return subprocess.run([sys.executable, "-m", "chunker", *args], cwd=ROOT, capture_output=True)

    one = python_m(str(corpus), "-r", "--format", "txt")
    two = python_m(str(corpus), "-r", "--format", "txt", "--jobs", "2")
    assert one.returncode == two.returncode == 0 and two.stderr == b""
    assert two.stdout == one.stdout and two.stdout.decode("utf-8") == cli(str(corpus), "-r", "--format", "txt")[1]


def test_workers_started_by_spawn_write_the_same(corpus, monkeypatch):
    # Where fork is not used (macOS, Windows, or a caller with threads), workers start afresh.
    one = cli(str(corpus / "c"), "-r", "--format", "json")
    monkeypatch.setattr(_workers, "_context", lambda: multiprocessing.get_context("spawn"))
    assert cli(str(corpus / "c"), "-r", "--format", "json", "-j", "2") == one


def test_jobs_zero_is_one_per_cpu_and_bad_counts_are_one_line(corpus):
    assert cli(str(corpus / "*.md"), "--jobs", "0") == cli(str(corpus / "*.md"))
    for value, needle in (
        ("-1", "--jobs must be a number of processes, or 0 for one per CPU, got '-1'"),
        ("two", "--jobs must be a whole number in digits 0-9, got 'two'"),
    ):
        code, out, err = cli(str(corpus / "c.md"), "--jobs", value)
        assert (code, out) == (2, "") and err == f"chunker: error: {needle}\n"


@pytest.fixture(scope="module")
def with_bad_files(corpus, tmp_path_factory):
    """Good files around an undecodable one and an encrypted PDF."""
    root = tmp_path_factory.mktemp("mixed")
    write(root / "1-good.md", PRIMER)
    write(root / "2-latin1.txt", "café crème".encode("latin-1"))
    write(root / "3-good.txt", sample_document())
    write(root / "4-locked.pdf", encrypted_pdf((corpus / "c" / "report.pdf").read_bytes(), user_password="s"))
    write(root / "5-good.md", "# Last\n\nThe last good file.")
    return root


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_keep_going_writes_what_succeeded_and_lists_the_rest(with_bad_files, tmp_path, jobs):
    root = with_bad_files
    code, out, err = cli(str(root), "-r", "--keep-going", "--format", "json", "--jobs", jobs)
    good = ["1-good.md", "3-good.txt", "5-good.md"]
    assert code == 1 and out == expected(root, good, "--format", "json")
    lines = err.splitlines()
    assert len(lines) == 2 and all(line.startswith("chunker: error: ") for line in lines)
    assert lines[0].startswith(f"chunker: error: {root / '2-latin1.txt'}: not UTF-8 text (bad byte at offset 3)")
    assert lines[1].startswith(f"chunker: error: {root / '4-locked.pdf'}: is encrypted")
    # Into a file: written and renamed all the same, the failures still listed and exit status 1.
    target = tmp_path / "out.json"
    code, _, err2 = cli(str(root), "-r", "--keep-going", "--format", "json", "--jobs", jobs, "-o", str(target))
    assert code == 1 and err2 == err and target.read_text(encoding="utf-8") == out
    # Nothing failed: exit status 0.
    assert cli(str(root / "*good*"), "--keep-going", "--jobs", jobs)[::2] == (0, "")
    # Every file failed: an empty but valid output.
    code, out, err = cli(
        str(root / "2-latin1.txt"), str(root / "4-locked.pdf"), "--keep-going", "--format", "json", "--jobs", jobs
    )
    assert (code, json.loads(out), err.count("\n")) == (1, [], 2)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_without_keep_going_a_bad_file_writes_nothing(with_bad_files, tmp_path, jobs):
    root = with_bad_files
    code, out, err = cli(str(root), "-r", "--jobs", jobs)
    # The first bad file in input order, though a worker may finish a later one first.
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert err.startswith(f"chunker: error: {root / '2-latin1.txt'}: not UTF-8 text")
    target = write(tmp_path / "out.jsonl", "before\n")
    code, _, err = cli(str(root / "4-locked.pdf"), str(root / "1-good.md"), "--jobs", jobs, "-o", str(target))
    assert code == 2 and "is encrypted" in err
    assert target.read_text(encoding="utf-8") == "before\n" and os.listdir(tmp_path) == ["out.jsonl"]


def test_the_first_bad_file_in_input_order_is_reported_though_a_later_one_fails_first(tmp_path, monkeypatch):
    if _workers._context().get_start_method() != "fork":
        pytest.skip("the workers must inherit the patched function")
    write(tmp_path / "1-slow.txt", b"\xff slow to fail")
    write(tmp_path / "2-fast.txt", b"\xff fast to fail")
    real = _jobs.render

    def render(job, item, data=None):
        if "slow" in item.path:
            import time

            time.sleep(0.5)  # so that the second worker's failure comes back first
        return real(job, item, data)

    monkeypatch.setattr(_jobs, "render", render)
    code, out, err = cli(str(tmp_path), "-r", "-j", "2")
    assert (code, out) == (2, "") and err.startswith(f"chunker: error: {tmp_path / '1-slow.txt'}: not UTF-8")


def test_a_chunking_error_is_named_and_kept_going_past(tmp_path):
    write(tmp_path / "a.txt", "fine.")
    write(tmp_path / "b.txt", PRIMER * 40)
    write(tmp_path / "c.txt", "also fine.")
    stride_one = ["--strategy", "fixed", "--unit", "chars", "--size", "2000", "--overlap", "1999"]
    for jobs in ("1", "2"):
        code, out, err = cli(str(tmp_path), "-r", *stride_one, "--keep-going", "-j", jobs)
        assert code == 1 and [json.loads(x)["text"] for x in out.splitlines()] == ["fine.", "also fine."]
        assert err.startswith(f"chunker: error: {tmp_path / 'b.txt'}: these settings make chunks") and err.count("\n") == 1


def test_output_file_with_jobs(corpus, tmp_path):
    target = write(tmp_path / "chunks.jsonl", "old contents\n")
    code, out, err = cli(str(corpus), "-r", "--jobs", "2", "--output", str(target))
    assert (code, out, err) == (0, "", "")
    assert target.read_text(encoding="utf-8") == cli(str(corpus), "-r")[1]
    assert os.listdir(tmp_path) == ["chunks.jsonl"]  # no temporary file left behind


def test_large_output_spools_and_comes_out_whole(corpus, monkeypatch):
    from chunker.cli import _output

    monkeypatch.setattr(_output, "SPOOL_BYTES", 1000)  # past it, the spool is a temporary file
    monkeypatch.setattr(_workers, "AHEAD_BYTES", 0)  # workers never run far ahead of the writer
    monkeypatch.setattr(_jobs, "BLOCK_CHARS", 100)  # and a file's output comes in many blocks
    one = cli(str(corpus), "-r", "--format", "txt")
    assert cli(str(corpus), "-r", "--format", "txt", "-j", "2") == one and len(one[1]) > 10_000


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_file_output_is_never_held_whole(tmp_path, jobs):
    # An overlap of 99.5 % writes a file two hundred times over; its records go out in blocks as
    # they are rendered (by a worker, or here), so this process never holds them all.
    import tracemalloc

    write(tmp_path / "big.txt", (sample_document() + "\n\n") * 20)
    write(tmp_path / "small.txt", PRIMER)
    target = tmp_path / "out.jsonl"
    opts = [
        "--strategy",
        "fixed",
        "--unit",
        "chars",
        "--size",
        "2000",
        "--overlap",
        "1990",
        "--max-chunk-chars",
        "0",
        "-o",
        str(target),
    ]
    tracemalloc.start()
    try:
        code, _, err = cli(str(tmp_path / "big.txt"), str(tmp_path / "small.txt"), *opts, "-j", jobs)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    size = target.stat().st_size
    assert code == 0, err
    assert size > 10_000_000 and peak < size / 2, (size, peak)


def test_a_worker_that_dies_is_one_line_and_exit_1(corpus, monkeypatch):
    if _workers._context().get_start_method() != "fork":
        pytest.skip("the workers must inherit the patched function")
    real = _jobs.render

    def render(job, item, data=None):
        if item.path.endswith("primer.txt"):
            os._exit(7)
        return real(job, item, data)

    monkeypatch.setattr(_jobs, "render", render)
    code, out, err = cli(str(corpus), "-r", "-j", "2")
    assert (code, out) == (1, "")
    assert err == (
        f"chunker: error: a worker process stopped (exit status 7) while chunking "
        f"{corpus / 'c' / 'primer.txt'}: try fewer --jobs\n"
    )


@pytest.mark.parametrize("failure", ["memory", "bug"])
def test_a_worker_out_of_memory_or_with_a_bug_is_not_a_file_error(corpus, monkeypatch, failure):
    if _workers._context().get_start_method() != "fork":
        pytest.skip("the workers must inherit the patched function")
    real = _jobs.render

    def render(job, item, data=None):
        if item.path.endswith("primer.txt"):
            raise MemoryError if failure == "memory" else KeyError("a bug")
        return real(job, item, data)

    monkeypatch.setattr(_jobs, "render", render)
    if failure == "memory":  # as without workers: exit status 1, one line
        code, out, err = cli(str(corpus), "-r", "-j", "2", "--keep-going")
        assert (code, out) == (1, "") and err.startswith("chunker: error: out of memory") and err.count("\n") == 1
    else:  # a traceback, as without workers, with the worker's own
        with pytest.raises(RuntimeError, match=r"(?s)a worker failed on .*primer.txt:.*KeyError: 'a bug'"):
            cli(str(corpus), "-r", "-j", "2", "--keep-going")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_progress_bar_only_on_a_terminal(corpus, jobs):
    err = Tty()
    code, out, _ = cli(str(corpus), "-r", "--jobs", jobs, stderr=err)
    shown = err.getvalue()
    assert code == 0 and out == cli(str(corpus), "-r")[1]
    total_mb = (
        sum(
            p.stat().st_size
            for p in corpus.rglob("*")
            if p.is_file() and not any(part.startswith(".") for part in p.relative_to(corpus).parts)
        )
        / 1e6
    )
    last = shown.split("\r")[-1]
    assert shown.startswith("\r[") and shown.endswith("\n") and shown.count("\n") == 1
    assert re.search(rf"\] 10/10 files  {total_mb:.1f}/{total_mb:.1f} MB  in \d+:\d\d *\n$", last)
    assert "#" * 30 in last
    # Not a terminal: nothing at all.
    assert cli(str(corpus), "-r", "--jobs", jobs)[2] == ""


def test_progress_bar_tells_the_time_left(corpus):
    from chunker.cli._corpus import Progress
    from chunker.cli._inputs import Input

    err = Tty()
    items = [Input("a", "a", 3_000_000), Input("b", "b", 1_000_000)]
    bar = Progress(items, err, every=0)
    bar.start -= 30  # the first file took 30 s: three quarters of the bytes
    bar.step(items[0])
    assert "1/2 files  3.0/4.0 MB  ETA 0:10" in err.getvalue()
    bar.finish()
    assert err.getvalue().endswith("\n")


def test_text_format_separates_chunks_of_a_document_with_pages():
    # A PDF's records carry pages; their chunks were once written without a blank line between.
    doc = chunker.Document("One. Two. Three. Four.", pages=[0, 10])
    out = chunker.to_text(doc.chunk(strategy="sentence", size=0))
    assert out.count("\n\n--- chunk ") == 3


def test_the_workers_are_forked_with_what_their_first_file_would_load():
    """Before forking, the parent runs the job once: each worker starts with the strategy's
    modules, their regular expressions and the tokenizer's tables, instead of loading its own
    on its first file (start-up paid once, not once per worker)."""
    probe = (
        "import re, sys; from chunker import Settings; from chunker.cli._jobs import Job; "
        "from chunker.cli._workers import _warm; from chunker.tokens._tokenizers import get_tokenizer; "
        "tok = get_tokenizer('o200k'); assert tok._arrays is None; before = set(sys.modules); compiled = len(re._cache); "
        "_warm(Job(Settings(strategy='markdown', tokenizer='o200k', context='headings'), named=True)); "
        "print(sorted(m for m in set(sys.modules) - before if m.startswith('chunker.strategies')), "
        "len(re._cache) > compiled, tok._arrays is not None)"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    modules, compiled, tables = done.stdout.rsplit(" ", 2)
    assert "'chunker.strategies.markdown'" in modules and compiled == "True" and tables.strip() == "True"


def test_multiprocessing_is_imported_only_for_jobs(tmp_path):
    # The package runs in Pyodide, which has no working multiprocessing: only --jobs may need it.
    write(tmp_path / "a.md", PRIMER)
    write(tmp_path / "b.md", PRIMER)
    probe = (
        "import io, sys; from chunker.cli._main import run; "
        f"code = run([{str(tmp_path)!r}, '-r', *sys.argv[1:]], None, io.StringIO(), io.StringIO()); "
        "print(code, 'multiprocessing' in sys.modules)"
    )
    for extra, loaded in (([], "False"), (["--jobs", "2"], "True")):
        done = subprocess.run([sys.executable, "-c", probe, *extra], cwd=ROOT, capture_output=True, text=True)
        assert done.stdout.split() == ["0", loaded], done.stderr


def test_a_double_star_pattern_follows_no_symlink_loop(tmp_path):
    # glob's ** followed links to folders: one loop chunked every file 41 times, two never ended.
    root = tmp_path / "tree"
    write(root / "a" / "one.md", "One.")
    write(root / "b" / "two.md", "Two.")
    write(tmp_path / "elsewhere" / "out.md", "Outside the tree.")
    (root / "a" / "up").symlink_to("..")
    code, out, err = cli(str(root / "**" / "*.md"))
    files = [str(root / "a" / "one.md"), str(root / "b" / "two.md")]
    assert (code, err) == (0, "") and sources(out) == files and out.count("\n") == 2
    (root / "b" / "to-a").symlink_to("../a")  # a second loop
    (root / "b" / "out").symlink_to("../../elsewhere")  # a link out of the tree: not walked by -r either
    (root / "a" / "one-link.md").symlink_to("one.md")  # a link to a file is its file, as in a folder
    code, out, err = cli(str(root / "**" / "*.md"))
    assert (code, err) == (0, "") and out == cli(str(root), "-r")[1]
    assert sources(out) == [str(root / "a" / "one-link.md"), *files]
    assert sources(cli(str(root / "**"))[1]) == sources(out)  # ** alone: every file under it
    # A link named in the pattern is followed, as any folder named is.
    assert sources(cli(str(root / "b" / "to-a" / "*.md"))[1]) == [
        str(root / "b" / "to-a" / "one-link.md"),
        str(root / "b" / "to-a" / "one.md"),
    ]


def _locked(monkeypatch, folder: Path) -> None:
    """`folder` cannot be listed: as root every folder can be, so os.scandir says so for it."""
    real = os.scandir

    def scandir(path="."):
        if os.fspath(path) == str(folder):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_keep_going_lists_a_folder_it_cannot_read_and_goes_on(tmp_path, monkeypatch, jobs):
    root = tmp_path / "docs"
    write(root / "a.md", "Alpha.")
    write(root / "b" / "inside.md", "Beta.")
    write(root / "c.md", "Gamma.")
    _locked(monkeypatch, root / "b")
    line = f"chunker: error: {root / 'b'}: cannot list the folder (Permission denied)\n"
    for pattern in (str(root), str(root / "**" / "*.md")):
        code, out, err = cli(pattern, "-r", "--keep-going", "--jobs", jobs)
        assert (code, err) == (1, line) and sources(out) == [str(root / "a.md"), str(root / "c.md")]
        assert cli(pattern, "-r", "--jobs", jobs) == (2, "", line)  # without --keep-going: nothing written
    _locked(monkeypatch, root)  # the folder named itself: one failure, and an empty output
    code, out, err = cli(str(root), "-r", "--keep-going", "--format", "json")
    assert (code, json.loads(out), err) == (1, [], f"chunker: error: {root}: cannot list the folder (Permission denied)\n")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root can list any folder")
def test_keep_going_past_a_folder_without_permission(tmp_path):
    root = tmp_path / "docs"
    write(root / "a.md", "Alpha.")
    write(root / "b" / "inside.md", "Beta.")
    (root / "b").chmod(0)
    try:
        code, out, err = cli(str(root), "-r", "--keep-going")
    finally:
        (root / "b").chmod(0o755)
    assert code == 1 and sources(out) == [str(root / "a.md")] and "cannot list the folder" in err


def test_resume_after_its_output_was_removed_does_it_all_again(tmp_path):
    names = [str(write(tmp_path / f"f{i}.txt", f"File {i}. Some text here.")) for i in range(4)]
    output = tmp_path / "out.jsonl"
    assert cli(*names, "-o", str(output), "--resume")[0] == 0
    whole = output.read_bytes()
    output.unlink()  # the journal stays, counting records no longer there
    assert cli(*names, "-o", str(output), "--resume") == (0, "", "")
    assert output.read_bytes() == whole and b"\0" not in whole


def test_resume_refuses_an_output_shorter_than_its_journal_says(tmp_path):
    names = [str(write(tmp_path / f"f{i}.txt", f"File {i}. Some text here.")) for i in range(4)]
    output = tmp_path / "out.jsonl"
    assert cli(*names, "-o", str(output), "--resume")[0] == 0
    cut = output.read_bytes()[:100]
    output.write_bytes(cut)  # changed by someone else: neither padded nor wiped
    code, out, err = cli(*names, "-o", str(output), "--resume")
    assert (code, out) == (2, "") and err.count("\n") == 1 and "is shorter than the records its journal counts" in err
    assert output.read_bytes() == cut


def test_a_file_over_the_limit_is_refused_by_its_size_unread(tmp_path, monkeypatch):
    import tracemalloc

    from chunker.cli import _inputs

    monkeypatch.setattr(_inputs, "MAX_BYTES", 1000, raising=False)
    sparse = tmp_path / "sparse.txt"
    with open(sparse, "wb") as f:
        f.truncate(20_000_000)  # takes no disk, and would take 20 MB read
    tracemalloc.start()
    try:
        code, out, err = cli(str(sparse))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (code, out) == (2, "")
    assert err.startswith(f"chunker: error: {sparse}: is 20 MB, over the 0.0 MB limit for one document: split it")
    assert peak < 5_000_000


def test_document_open_refuses_a_file_over_its_limit_by_its_size_unread(tmp_path):
    import tracemalloc

    import chunker

    sparse = tmp_path / "sparse.txt"
    with open(sparse, "wb") as f:
        f.truncate(20_000_000)
    tracemalloc.start()
    try:
        with pytest.raises(chunker.ChunkerError, match="over the .* limit for one document"):
            chunker.Document.open(sparse, max_bytes=1000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000


class _Endless(io.StringIO):
    """Standard input that never ends (`cat /dev/zero |`): reading it whole is a failure."""

    class _Zeros:
        def read(self, n=-1):
            if n is None or n < 0:
                raise AssertionError("standard input read whole")
            return b"\0" * n

    buffer = _Zeros()  # type: ignore[assignment]


def test_standard_input_over_the_limit_is_read_no_further(monkeypatch):
    from chunker.cli import _inputs

    monkeypatch.setattr(_inputs, "MAX_BYTES", 1000, raising=False)
    out, err = io.StringIO(), io.StringIO()
    assert run([], _Endless(), out, err) == 2 and out.getvalue() == ""
    line = "standard input is over the 0.001 MB limit for one document: split it, or give it as files"
    assert err.getvalue() == f"chunker: error: {line}\n"


@pytest.mark.parametrize("content", [b"", b"not parquet at all"], ids=["empty", "garbage"])
def test_a_parquet_file_that_cannot_be_read_is_one_failure(tmp_path, content):
    pytest.importorskip("pyarrow")
    bad = write(tmp_path / "bad.parquet", content)
    good = write(tmp_path / "good.jsonl", '{"text": "Fine."}\n')
    code, out, err = cli(str(bad), str(good), "--text-column", "text", "--keep-going")
    assert code == 1 and [json.loads(x)["text"] for x in out.splitlines()] == ["Fine."]
    assert err.startswith(f"chunker: error: {bad}: cannot read it as Parquet (") and err.count("\n") == 1
    code, out, err = cli(str(bad), str(good), "--text-column", "text")
    assert (code, out) == (2, "") and err.startswith(f"chunker: error: {bad}: cannot read it as Parquet (")


@pytest.mark.parametrize(
    "line, reason",
    [
        ('{"text": ' + "[" * 100_000 + "]" * 100_000 + "}", "line 2 nests too deep to read"),
        ('{"text": "Two.", "id": ' + "7" * 5000 + "}", "line 2 holds a number too long to read"),
    ],
    ids=["deep", "long-number"],
)
def test_a_json_lines_row_past_pythons_limits_is_one_failure(tmp_path, line, reason):
    rows = write(tmp_path / "rows.jsonl", '{"text": "One.", "id": 1}\n' + line + "\n")
    good = write(tmp_path / "good.jsonl", '{"text": "Fine.", "id": 2}\n')
    code, out, err = cli(str(rows), str(good), "--text-column", "text", "--id-column", "id", "--keep-going")
    assert code == 1 and [json.loads(x)["text"] for x in out.splitlines()] == ["Fine."]
    assert err.startswith(f"chunker: error: {rows}: {reason}") and err.count("\n") == 1
    code, out, err = cli(str(rows), "--text-column", "text", "--id-column", "id")
    assert (code, out) == (2, "") and err.startswith(f"chunker: error: {rows}: {reason}")


def test_a_lone_surrogate_in_the_id_column_is_a_row_failure(tmp_path):
    rows = write(tmp_path / "rows.jsonl", '{"text": "One.", "id": "a\\ud800"}\n{"text": "Two.", "id": "b"}\n')
    code, out, err = cli(str(rows), "--text-column", "text", "--id-column", "id", "--keep-going")
    assert code == 1 and [json.loads(x)["source"] for x in out.splitlines()] == ["b"]
    assert err == f"chunker: error: {rows}#0: column 'id' holds a lone surrogate, not Unicode text: give every row a text id\n"
    assert cli(str(rows), "--text-column", "text", "--id-column", "id") == (2, "", err)


def test_a_row_over_the_limit_for_one_document_is_a_row_failure(tmp_path, monkeypatch):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    from chunker.cli import _datasets

    monkeypatch.setattr(_datasets, "MAX_BYTES", 1000, raising=False)
    path = tmp_path / "rows.parquet"
    pq.write_table(pa.table({"text": ["x" * 1001, "Short.", "é" * 501]}), path)  # 1,002 bytes of UTF-8
    code, out, err = cli(str(path), "--text-column", "text", "--keep-going")
    line = "column 'text' holds over 0.001 MB of text, the limit for one document: split the row"
    assert code == 1 and [json.loads(x)["text"] for x in out.splitlines()] == ["Short."]
    assert err == f"chunker: error: {path}#0: {line}\nchunker: error: {path}#2: {line}\n"
    assert cli(str(path), "--text-column", "text") == (2, "", f"chunker: error: {path}#0: {line}\n")


def test_a_parquet_file_whose_rows_decode_past_a_hundred_times_its_size_is_one_failure(tmp_path, monkeypatch):
    """A compression bomb: rows that compress to nearly nothing. Read a batch at a time, the
    file is refused once its rows pass what its size can honestly hold, not after all of them."""
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    from chunker.cli import _datasets

    monkeypatch.setattr(_datasets, "_DATASET_FLOOR", 0)
    monkeypatch.setattr(_datasets, "_BATCH_ROWS", 16)
    bomb = tmp_path / "bomb.parquet"
    pq.write_table(pa.table({"text": ["x" * 20_000] * 2000}), bomb, compression="zstd", row_group_size=2000)
    size = bomb.stat().st_size
    assert 2000 * 20_000 > 100 * size  # 40 MB of rows from a file of a few KB
    seen: list[int] = []
    real = _datasets._parquet_rows

    def counting(pyarrow, file, *args):
        batches = file.iter_batches

        def each(*a, **k):
            for batch in batches(*a, **k):
                seen.append(batch.num_rows)
                yield batch

        file.iter_batches = each
        return real(pyarrow, file, *args)

    monkeypatch.setattr(_datasets, "_parquet_rows", counting)
    code, out, err = cli(str(bomb), "--text-column", "text", "--keep-going")
    assert code == 1 and out == ""
    assert err.startswith(f"chunker: error: {bomb}: its rows hold over ") and "more than 100 times its size" in err
    assert sum(seen) < 2000  # stopped part of the way
    # An honest file of the same rows, each different, is read.
    honest = tmp_path / "honest.parquet"
    pq.write_table(pa.table({"text": [f"Row {k} of the dataset." for k in range(200)]}), honest)
    code, out, err = cli(str(honest), "--text-column", "text")
    assert code == 0 and len(out.splitlines()) == 200


def test_a_row_that_fails_while_chunked_is_named_without_keep_going_too(tmp_path):
    rows = write(tmp_path / "rows.jsonl", '{"text": "Fine."}\n{"text": "bad \\ud800 text"}\n')
    code, out, err = cli(str(rows), "--text-column", "text", "--keep-going")
    assert code == 1 and err.startswith(f"chunker: error: {rows}#1: the text holds a lone surrogate")
    assert cli(str(rows), "--text-column", "text") == (2, "", err)
