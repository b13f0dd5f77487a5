"""`--output`: what it writes, and what it never replaces. A regular file is replaced whole,
keeping its mode; a symlink is written through; a device or a FIFO is written straight."""

from __future__ import annotations

import io
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

import chunker
from chunker.cli._main import run

ROOT = Path(__file__).resolve().parent.parent
TEXT = "First paragraph here.\n\nSecond paragraph there.\n"


def cli(*args, stdin=""):
    out, err = io.StringIO(), io.StringIO()
    code = run(list(args), io.StringIO(stdin), out, err)
    return code, out.getvalue(), err.getvalue()


def expected(doc: Path) -> str:
    """The records of `doc` (outside the folder the tests run in: its source is its absolute path)."""
    return chunker.to_jsonl(chunker.chunk(TEXT, source=doc.as_posix()))


@pytest.fixture
def doc(tmp_path) -> Path:
    path = tmp_path / "in" / "doc.md"
    path.parent.mkdir()
    path.write_text(TEXT, encoding="utf-8")
    return path


def leftovers(*folders: Path) -> list[str]:
    return [p.name for f in folders for p in f.iterdir() if p.name.startswith(".chunker-")]


def test_a_fifo_is_written_straight_not_replaced(doc, tmp_path):
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader waiting, so that opening it to write does not
    try:
        assert cli(str(doc), "-o", str(fifo)) == (0, "", "")
        got = os.read(reader, 1 << 16)
    finally:
        os.close(reader)
    assert got.decode("utf-8") == expected(doc)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and leftovers(tmp_path) == []


def test_extract_writes_a_fifo_straight_too(doc, tmp_path):
    fifo = tmp_path / "text.fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        assert cli("extract", str(doc), "-o", str(fifo)) == (0, "", "")
        got = os.read(reader, 1 << 16)
    finally:
        os.close(reader)
    assert got.decode("utf-8") == TEXT and stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_device_node_is_written_not_replaced(doc, tmp_path):
    # A device like /dev/null, made here (never the real one): as root it used to be replaced.
    node = tmp_path / "null"
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (OSError, AttributeError) as e:
        pytest.skip(f"cannot make a device node here ({e})")
    assert cli(str(doc), "-o", str(node)) == (0, "", "")
    st = os.lstat(node)
    assert stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3) and leftovers(tmp_path) == []


def test_a_symlink_to_standard_output_writes_to_it(doc, tmp_path):
    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")
    if not os.path.exists("/proc/self/fd/1"):
        pytest.skip("no /proc/self/fd here")
    p = subprocess.run([sys.executable, "-m", "chunker", str(doc), "-o", str(link)], cwd=ROOT, capture_output=True, text=True)
    assert (p.returncode, p.stderr) == (0, "")
    assert p.stdout == expected(doc)
    assert os.readlink(link) == "/proc/self/fd/1" and leftovers(tmp_path) == []


def test_a_symlink_is_written_through_its_target_replaced_in_its_own_folder(doc, tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "links").mkdir()
    target = tmp_path / "real" / "chunks.jsonl"
    target.write_text("old\n")
    target.chmod(0o644)
    link = tmp_path / "links" / "chunks.jsonl"
    link.symlink_to(os.path.relpath(target, link.parent))
    assert cli(str(doc), "-o", str(link)) == (0, "", "")
    assert link.is_symlink() and os.readlink(link) == os.path.relpath(target, link.parent)
    assert target.read_text(encoding="utf-8") == expected(doc)
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert leftovers(tmp_path / "real", tmp_path / "links") == []


def test_a_dangling_symlink_makes_its_target(doc, tmp_path):
    link = tmp_path / "out.jsonl"
    link.symlink_to("made.jsonl")
    assert cli(str(doc), "-o", str(link)) == (0, "", "")
    assert link.is_symlink() and (tmp_path / "made.jsonl").read_text(encoding="utf-8") == expected(doc)


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o664])
def test_an_existing_file_keeps_its_mode(doc, tmp_path, mode):
    out = tmp_path / "out.jsonl"
    out.write_text("old\n")
    out.chmod(mode)
    assert cli(str(doc), "-o", str(out)) == (0, "", "")
    assert out.read_text(encoding="utf-8") == expected(doc)
    assert stat.S_IMODE(out.stat().st_mode) == mode  # it used to become 0600


@pytest.mark.parametrize("umask", [0o022, 0o027, 0o002])
def test_a_new_file_honours_the_umask(doc, tmp_path, umask):
    out = tmp_path / "new.jsonl"
    old = os.umask(umask)
    try:
        assert cli(str(doc), "-o", str(out)) == (0, "", "")
        assert cli("extract", str(doc), "-o", str(tmp_path / "new.txt")) == (0, "", "")
    finally:
        os.umask(old)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~umask
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o666 & ~umask


def test_a_folder_as_the_output_is_one_line_and_untouched(doc, tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    code, out, err = cli(str(doc), "-o", str(folder))
    assert code == 1 and out == "" and err == f"chunker: error: {folder}: cannot write it (Is a directory)\n"
    assert folder.is_dir() and list(folder.iterdir()) == []


def test_a_bad_input_leaves_a_fifo_output_empty(tmp_path):
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        code, _, err = cli(str(tmp_path / "missing.md"), "-o", str(fifo))
        got = os.read(reader, 1 << 16)
    finally:
        os.close(reader)
    assert code == 2 and "missing.md: no such file" in err and got == b""


def test_the_output_inside_the_input_folder_is_not_chunked_again(tmp_path):
    root = tmp_path / "notes"
    for name in ("a.md", "b.md"):
        (root / name).parent.mkdir(exist_ok=True)
        (root / name).write_text(TEXT, encoding="utf-8")
    out = root / "chunks.jsonl"
    assert cli(str(root), "-r", "-o", str(out))[0] == 0
    first = out.read_text(encoding="utf-8")
    assert cli(str(root), "-r", "-o", str(out)) == (0, "", "")  # it used to take chunks.jsonl in too
    assert out.read_text(encoding="utf-8") == first
    assert cli(str(root / "*"), "-o", str(out)) == (0, "", "") and out.read_text(encoding="utf-8") == first
    link = tmp_path / "link.jsonl"  # the same file by another name
    link.symlink_to(out)
    assert cli(str(root), "-r", "-o", str(link)) == (0, "", "") and out.read_text(encoding="utf-8") == first


def test_an_output_that_is_one_of_the_inputs_is_refused(tmp_path):
    notes = tmp_path / "notes.md"
    notes.write_text(TEXT, encoding="utf-8")
    (tmp_path / "alias.md").symlink_to("notes.md")
    os.link(notes, tmp_path / "hard.md")
    other = tmp_path / "other.md"
    other.write_text(TEXT, encoding="utf-8")
    for output in ("notes.md", "alias.md", "hard.md"):
        target = str(tmp_path / output)
        line = f"chunker: error: {notes}: is also the output (--output {target}): write the chunks to another file\n"
        assert cli(str(other), str(notes), "-o", target) == (2, "", line)
        assert cli(str(notes), "--keep-going", "-o", target) == (2, "", line)
        code, _, err = cli("extract", str(notes), "-o", target)
        assert code == 2 and err.startswith(f"chunker: error: {notes}: is also the output")
        assert notes.read_text(encoding="utf-8") == TEXT and (tmp_path / "alias.md").is_symlink()
    assert sorted(os.listdir(tmp_path)) == ["alias.md", "hard.md", "notes.md", "other.md"]


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="finds the workers in /proc")
@pytest.mark.parametrize("jobs,signum", [("1", "SIGTERM"), ("2", "SIGTERM"), ("1", "SIGHUP"), ("2", "SIGHUP")])
def test_a_signal_stops_the_workers_leaves_no_temporary_file_and_ends_of_it(doc, tmp_path, jobs, signum):
    # A FIFO with no writer: reading it waits for ever, so the signal surely comes mid-run.
    fifo = tmp_path / "in" / "waits.fifo"
    os.mkfifo(fifo)
    out = tmp_path / "out" / "chunks.jsonl"
    out.parent.mkdir()
    number = getattr(signal, signum)
    # Files, not pipes: a worker left behind would hold a pipe open, and reading it never end.
    streams = tmp_path / "stdout", tmp_path / "stderr"
    with open(streams[0], "wb") as stdout, open(streams[1], "wb") as stderr:
        p = subprocess.Popen(
            [sys.executable, "-m", "chunker", str(doc), str(fifo), "-o", str(out), "--jobs", jobs],
            cwd=ROOT,
            stdout=stdout,
            stderr=stderr,
        )
    workers: list[int] = []
    try:
        # Under way: the temporary file is there (and the workers, with --jobs).
        while not (leftovers(out.parent) and (jobs == "1" or len(workers := _children(p.pid)) == int(jobs))):
            assert p.poll() is None, streams[1].read_text()
            time.sleep(0.01)
        assert leftovers(out.parent)[0].endswith(".tmp")
        p.send_signal(number)
        p.wait()
        assert p.returncode == -number, streams[1].read_text()  # ended of it, as the shell sees: 128 + number
        assert [w for w in workers if _alive(w)] == []  # no worker left waiting
        assert os.listdir(out.parent) == []  # and no temporary file, holding document text
        assert (streams[0].read_bytes(), streams[1].read_bytes()) == (b"", b"")
    finally:
        p.kill()
        p.wait()
        for w in workers:
            if _alive(w):
                os.kill(w, signal.SIGKILL)
