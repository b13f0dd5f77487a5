"""Many files on one machine, for the command line: the paths it names (files, folders, glob
patterns) found in a stable order, each file read, chunked and rendered into its part of the
output in blocks, by this process or by worker processes (`chunker._workers`), and handed
back in input order.

Output travels as rendered UTF-8 blocks, never as pickled objects: records rendered apart join
into exactly the bytes of one pass (`chunker._export.Frame`), so ``--jobs 2`` writes what
``--jobs 1`` writes.
"""

from __future__ import annotations

import glob
import json
import os
import re
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from ._api import Document
from ._errors import ChunkerError
from ._export import FORMATS, Frame, iter_records
from ._settings import Settings

_MAGIC = re.compile(r"[*?[]")
OBJECTS = Frame(lambda o: json.dumps(o, ensure_ascii=False) + "\n")
"""--stats and --advice: one JSON object a line."""


class WorkerError(Exception):
    """A worker process (--jobs) stopped without an answer, or could not start; str(e) is one line."""


@dataclass(frozen=True)
class Input:
    """One input: `path` as opened ('-': standard input), `name` as records carry it."""

    path: str
    name: str
    size: int = 0
    """Bytes, as the folder listing had it (0 when unknown): the progress bar's measure."""

    @property
    def label(self) -> str:
        """The input as errors name it."""
        return "standard input" if self.path == "-" else self.name


def shown_name(name: str) -> str:
    """A file name as it can be printed: bytes that are not UTF-8 become U+FFFD."""
    return os.fsencode(name).decode("utf-8", "replace")


def find_inputs(args: Sequence[str], *, recursive: bool = False) -> tuple[list[Input], bool]:
    """The files `args` name, in order, and whether records should name their file (more than
    one file, or any folder or pattern). A path that exists is taken as it is: a file, or a
    folder whose files are taken (only with `recursive`) in sorted order. Any other path with
    ``*``, ``?`` or ``[`` is a glob pattern that chunker expands itself, to files only, in sorted
    order; ``**`` matches any depth of folders, with or without `recursive`. Names that start
    with a dot are skipped in folders and by patterns (unless the pattern spells the dot).

    >>> find_inputs(["-"])
    ([Input(path='-', name='-', size=0)], False)
    """
    found: list[Input] = []
    expanded = False
    for arg in args:
        if arg != "-" and os.path.isdir(arg):
            if not recursive:
                raise ChunkerError(f"{shown_name(arg)}: is a directory: add --recursive to chunk every file "
                                   "under it, or name the files")
            paths = _walk(arg)
            if not paths:
                raise ChunkerError(f"{shown_name(arg)}: no files under it (names starting with a dot are skipped)")
        elif arg != "-" and not os.path.lexists(arg) and _MAGIC.search(arg):
            paths = sorted((p for p in glob.glob(arg, recursive=True) if os.path.isfile(p)), key=_tree_order)
            if not paths:
                raise ChunkerError(f"no file matches {shown_name(arg)!r}: check the pattern (names starting "
                                   "with a dot are skipped unless the pattern has the dot)")
        else:
            found.append(Input(arg, shown_name(arg), _size(arg)))
            continue
        expanded = True
        found.extend(Input(p, shown_name(p), _size(p)) for p in paths)
    return found, expanded or len(found) > 1


def _walk(folder: str) -> list[str]:
    def fail(e: OSError) -> None:
        raise ChunkerError(f"{shown_name(str(e.filename))}: cannot list the folder ({e.strerror or e})")

    paths: list[str] = []
    for top, dirs, files in os.walk(folder, onerror=fail):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        # Regular files only (a FIFO would wait forever); a link to a file is its file.
        paths.extend(p for f in files if not f.startswith(".") and os.path.isfile(p := os.path.join(top, f)))
    return sorted(paths, key=_tree_order)


def _tree_order(path: str) -> list[str]:
    # By folder and name: "a/b.md" sorts with the other files of "a", not between "a.md" and "a0".
    return path.split(os.sep)


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size if path != "-" else 0
    except OSError:
        return 0  # reading it will say what is wrong


def read_bytes(name: str, stdin: TextIO | None) -> bytes | str:
    """A file's bytes, or standard input's ('-'; text when it has no binary buffer)."""
    if name == "-":
        if stdin is None:
            raise ChunkerError("standard input is closed: give a file name instead")
        try:
            return stdin.buffer.read() if hasattr(stdin, "buffer") else stdin.read()
        except OSError as e:
            raise ChunkerError(f"cannot read standard input ({e.strerror or e})") from None
    label = shown_name(name)
    try:
        with open(name, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise ChunkerError(f"{label}: no such file") from None
    except IsADirectoryError:
        raise ChunkerError(f"{label}: is a directory: add --recursive to chunk every file under it") from None
    except OSError as e:
        raise ChunkerError(f"{label}: cannot read it ({e.strerror or e})") from None


def read_document(name: str, stdin: TextIO | None, *, raw: bool = False, keep_running: bool = False,
                  source: str | None = None, data: bytes | str | None = None) -> Document:
    """A file (or standard input for '-') as the offsets will index it: a PDF, Word or HTML file
    extracted to text, anything else strict UTF-8 with its byte order mark and CR LF kept
    (`raw`: every file as text). `data`: its bytes, already read."""
    if data is None:
        data = read_bytes(name, stdin)
    if isinstance(data, str):
        return Document(data, source=source)
    label = "standard input" if name == "-" else shown_name(name)
    return Document.from_bytes(data, name=label, raw=raw, keep_running=keep_running, source=source)


@dataclass(frozen=True)
class Job:
    """What every file is chunked and rendered with (sent to each worker once)."""

    settings: Settings
    fmt: str = "jsonl"
    show: str = "records"
    """records, or stats / advice: one JSON object a file."""
    raw: bool = False
    keep_running: bool = False
    max_chunk_chars: int | None = None
    named: bool = False
    """Records (and objects) carry `source`, and a chunking error names its file."""

    @property
    def frame(self) -> Frame:
        frame = FORMATS[self.fmt].frame if self.show == "records" else OBJECTS
        assert frame is not None
        return frame


def render(job: Job, item: Input, data: bytes | str | None = None) -> Iterator[bytes]:
    """`item` read (or `data`, its bytes already read) and chunked, then its records rendered
    and joined as `job.frame` joins them, in blocks of UTF-8 of about BLOCK_CHARS (none when it
    has no record). Raises ChunkerError before the first block, never after: a file's output
    is never held whole, here or in the parent, and a failed file has written nothing."""
    source = item.name if job.named else None
    doc = read_document(item.path, None, raw=job.raw, keep_running=job.keep_running, source=source, data=data)
    try:
        result = doc.run(job.settings, max_chunk_chars=job.max_chunk_chars)
    except ChunkerError as e:
        if job.named:
            raise ChunkerError(f"{item.label}: {e}") from None
        raise
    if job.show == "records":
        return _blocks(job.frame, iter_records(result))
    obj = result.stats.to_dict() if job.show == "stats" else doc.advise(result).to_dict()
    return iter([OBJECTS.body([{"source": source, **obj} if job.named else obj]).encode("utf-8")])


BLOCK_CHARS = 1 << 18
"""About how much output a block holds: small beside a document's own chunking, large enough
that a worker sends few messages. (Measured: a 60 KB file written 200 times over peaks at
3.9 MB traced, against 3.2 MB when the records were streamed one by one, and 145 MB for the
file's output held whole.)"""


def _blocks(frame: Frame, recs: Iterator[dict[str, Any]]) -> Iterator[bytes]:
    record, sep = frame.record, frame.sep
    batch: list[str] = []
    held = 0
    first = True
    for r in recs:
        piece = record(r) if first else sep + record(r)
        first = False
        batch.append(piece)
        held += len(piece)
        if held >= BLOCK_CHARS:
            yield "".join(batch).encode("utf-8")
            batch, held = [], 0
    if batch:
        yield "".join(batch).encode("utf-8")


Outcome = tuple[Input, str, Any]
"""(input, "part", a block of its output), any number of them, then (input, "ok", None) or
(input, "error", the one-line message); a failed input has no parts."""


def chunk_all(job: Job, items: Sequence[Input], *, jobs: int = 1, stdin_data: bytes | str | None = None,
              done: Callable[[Input], None] | None = None, stop_on_error: bool = True) -> Iterator[Outcome]:
    """Every input's output in blocks, then its outcome, input after input in input order;
    `done(item)` as each one finishes (in any order). With `jobs` over 1 the files are read
    and chunked by that many worker processes; standard input (whose bytes are `stdin_data`)
    is chunked here. `stop_on_error`: nothing is started after an input that failed (the
    caller stops at its outcome)."""
    if jobs <= 1 or len(items) <= 1:
        for item in items:
            kind, payload = _attempt(job, item, stdin_data if item.path == "-" else None)
            if kind == "ok":
                for block in payload:
                    yield item, "part", block
                payload = None
            if done is not None:
                done(item)
            yield item, kind, payload
        return
    from ._workers import run_parallel  # noqa: PLC0415 - only --jobs needs it (Pyodide has no processes)

    yield from run_parallel(job, items, min(jobs, len(items)), stdin_data, done, stop_on_error)


def _attempt(job: Job, item: Input, data: bytes | str | None = None) -> tuple[str, Any]:
    try:
        return "ok", render(job, item, data)
    except ChunkerError as e:
        return "error", str(e)


class Progress:
    """Files and megabytes done of the total, and the time left, on one line rewritten in place
    (for a terminal: nothing else should be written to it meanwhile)."""

    def __init__(self, items: Sequence[Input], stream: TextIO, *, every: float = 0.1) -> None:
        self.stream = stream
        self.files, self.bytes = len(items), sum(i.size for i in items)
        self.done_files = self.done_bytes = 0
        self.start = self.shown = time.monotonic()
        self.every = every
        self.width = 0

    def step(self, item: Input) -> None:
        self.done_files += 1
        self.done_bytes += item.size
        now = time.monotonic()
        if now - self.shown >= self.every or self.done_files == self.files:
            self.shown = now
            self.show(now)

    def show(self, now: float) -> None:
        done = self.done_bytes / self.bytes if self.bytes else self.done_files / max(1, self.files)
        elapsed = now - self.start
        if self.done_files == self.files:
            when = f"in {_clock(elapsed)}"
        else:
            when = f"ETA {_clock(elapsed * (1 - done) / done)}" if done > 0 else "ETA --:--"
        bar = "#" * int(30 * done)
        line = (f"[{bar:.<30}] {self.done_files}/{self.files} files  "
                f"{self.done_bytes / 1e6:.1f}/{self.bytes / 1e6:.1f} MB  {when}")
        try:
            self.stream.write("\r" + line.ljust(self.width))
            self.stream.flush()
        except (OSError, ValueError):
            return
        self.width = len(line)

    def finish(self) -> None:
        """End the line, if one was shown."""
        if self.width:
            try:
                self.stream.write("\n")
                self.stream.flush()
            except (OSError, ValueError):
                pass
            self.width = 0


def _clock(seconds: float) -> str:
    s = int(seconds + 0.5)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"
