"""Many files on one machine, for the command line: the paths it names (files, folders, glob
patterns) found in a stable order, each file read, chunked and rendered into its part of the
output in blocks, by this process or by worker processes (`chunker.cli._workers`), and handed
back in input order.

Output travels as rendered UTF-8 blocks, never as pickled objects: records rendered apart join
into exactly the bytes of one pass (`chunker.results._export.Frame`), so ``--jobs 2`` writes what
``--jobs 1`` writes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from typing import TextIO

from ._inputs import Input
from ._jobs import Job, Outcome, _attempt


def chunk_all(
    job: Job,
    items: Sequence[Input],
    *,
    jobs: int = 1,
    stdin_data: bytes | str | None = None,
    done: Callable[[Input], None] | None = None,
    stop_on_error: bool = True,
) -> Iterator[Outcome]:
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
    from ._workers import run_parallel  # only --jobs needs it (Pyodide has no processes)

    yield from run_parallel(job, items, min(jobs, len(items)), stdin_data, done, stop_on_error)


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
        line = f"[{bar:.<30}] {self.done_files}/{self.files} files  {self.done_bytes / 1e6:.1f}/{self.bytes / 1e6:.1f} MB  {when}"
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
