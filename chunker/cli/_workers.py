"""`--jobs N`: the inputs read, chunked and rendered by N worker processes, their output
handed back in input order, exactly as `chunker.cli._corpus.chunk_all` hands it back from one.

Each worker answers a task (an input's index and path) with its output in blocks, as made,
then its outcome: rendered UTF-8 bytes, not pickled objects, and never a file's output whole.
The parent writes the next input's blocks as they come and keeps those of inputs ahead of it
(bounded by AHEAD_BYTES of input). Imported only for --jobs: Pyodide has no processes.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import socket
import sys
import threading
import traceback
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from multiprocessing import connection
from typing import Any

from .._errors import ChunkerError
from ..tokens._tokenizers import get_tokenizer
from ._inputs import Input
from ._jobs import BLOCK_CHARS, Job, Outcome, WorkerError, _attempt
from ._signals import held, let_in

AHEAD_BYTES = 32 << 20
"""How much input (by file size) may be handed out past the next file to write: results that
come back early wait in the parent, and this bounds them."""


def _serve(conn: Any, job: Job) -> None:
    """A worker: render the inputs the parent sends, one answer each, until told to stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: it stops the workers
    let_in()  # SIGTERM ends a worker at once: the parent's handler is not for it
    parent = os.getppid()
    _roomy(conn)
    while True:
        if not conn.poll(1.0):
            if os.getppid() != parent:
                return  # the parent is gone without a word (killed): nobody waits for answers
            continue
        try:
            task = conn.recv()
        except EOFError:
            return
        if task is None:
            return
        index, path, name = task
        try:
            kind, payload = _attempt(job, Input(path, name))
            if kind == "ok":
                for block in payload:  # sent as made: neither side holds a file's output whole
                    conn.send((index, "part", block))
                payload = None
        except MemoryError:
            kind, payload = "memory", None
        except Exception:  # a bug: the parent shows the traceback, as it would without workers
            kind, payload = "bug", traceback.format_exc()
        conn.send((index, kind, payload))


def _context() -> Any:
    # fork, where it is safe: the workers start at once, with the modules and the tokenizer this
    # process has loaded. This process has no threads of its own; a caller's threads rule it out.
    if sys.platform == "linux" and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


_WARM = (
    "# Warm up\n\nA paragraph, with a clause; and another: then its end. " * 60 + "\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
) * 24
"""What the parent chunks before forking: Markdown with sentences, clauses and a table, long
enough for the tokenizers' array tables (ARRAY_MIN_CHARS)."""


def _warm(job: Job) -> None:
    """The job run once on a made-up text before the workers are forked: what the first input
    would load (the strategy's modules and the regular expressions they compile, the
    tokenizer's tables of token widths, numpy, the records' encoder) is then loaded once and
    shared, where each worker would otherwise load its own on its first file: the same wall
    time on idle cores, a worker's share of that CPU less on busy ones."""
    # An exact tokenizer's tables are built for a long text only; the estimates have none, and
    # a page of the text loads what the rest would.
    text = _WARM if get_tokenizer(job.settings.tokenizer).exact else _WARM[: len(_WARM) // 24]
    try:
        kind, payload = _attempt(job, Input("-", "-"), text)
        if kind == "ok":
            for _ in payload:  # rendered, and thrown away
                pass
    except ChunkerError:  # settings this text cannot take (a volume limit): the files will say
        pass


def _roomy(conn: Any) -> None:
    """A worker's end of its socket given room for a few blocks of output (about a megabyte),
    so that a worker goes on chunking while the parent, busy with another's blocks, has not
    read its last one yet (the default, about 200 KB, is less than one block)."""
    try:
        with socket.socket(fileno=os.dup(conn.fileno())) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 * BLOCK_CHARS)
    except (OSError, ValueError):  # not a socket (another platform's pipe): as it is
        pass


class _Worker:
    def __init__(self, ctx: Any, job: Job) -> None:
        self.conn, theirs = ctx.Pipe()
        self.process = ctx.Process(target=_serve, args=(theirs, job), daemon=True, name="chunker-worker")
        self.process.start()
        theirs.close()
        self.tasks: deque[int] = deque()

    def stop(self, *, politely: bool) -> None:
        if politely:
            try:
                self.conn.send(None)
            except OSError:
                pass
            self.process.join(5)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(5)
        if self.process.is_alive():  # stopped (SIGSTOP) or stuck in the kernel: still not left behind
            self.process.kill()
        self.process.join()
        self.conn.close()


def run_parallel(
    job: Job,
    items: Sequence[Input],
    jobs: int,
    stdin_data: bytes | str | None,
    done: Callable[[Input], None] | None,
    stop_on_error: bool,
) -> Iterator[Outcome]:
    """`chunk_all` with `jobs` worker processes: the same outcomes in the same order."""
    ctx = _context()
    if ctx.get_start_method() == "fork":
        _warm(job)
    pool: list[_Worker] = []
    finished = False
    try:
        # Frozen, the objects loaded so far (the tokenizer's vocabulary above all) are left out of
        # the workers' garbage collections, which would otherwise touch, and so copy, their pages.
        gc.freeze()
        try:
            # A SIGTERM meanwhile waits until every worker started is in the pool, to be stopped.
            with held():
                for _ in range(jobs):
                    pool.append(_Worker(ctx, job))
        except OSError as e:  # no more processes, or no memory for one
            raise WorkerError(f"cannot start {jobs} worker processes ({e.strerror or e}): try fewer --jobs") from None
        finally:
            gc.unfreeze()
        by_conn = {w.conn: w for w in pool}
        parts: dict[int, list[bytes]] = {}  # blocks of the inputs not yet handed back
        answers: dict[int, tuple[str, Any]] = {}  # outcomes of the inputs done
        end = len(items)
        next_task = next_out = 0
        ahead = 0  # input bytes handed out and not yet handed back
        while next_out < end:
            for w in pool:
                # Two tasks each, so that a worker never waits for its next one; more only while
                # the results that may pile up before the next file to write stay small.
                while len(w.tasks) < 2 and next_task < end and (next_task - next_out < 2 * jobs or ahead < AHEAD_BYTES):
                    item = items[next_task]
                    # Nothing for a worker to read: standard input, a failure found, a dataset's row.
                    if item.path == "-" or item.error is not None or item.text is not None:
                        kind, payload = _attempt(job, item, stdin_data)
                        if kind == "ok":
                            parts[next_task], payload = list(payload), None
                        answers[next_task] = kind, payload
                        if done is not None:
                            done(item)
                    else:
                        w.conn.send((next_task, item.path, item.name))
                        w.tasks.append(next_task)
                    ahead += item.size
                    next_task += 1
            # The next input's blocks as they come, and its outcome once it is done.
            while next_out < end:
                item = items[next_out]
                for block in parts.pop(next_out, ()):
                    yield item, "part", block
                if next_out not in answers:
                    break
                kind, payload = answers.pop(next_out)
                ahead -= item.size
                next_out += 1
                yield item, kind, payload
            if next_out >= end or not any(w.tasks for w in pool):
                continue
            for conn in connection.wait([w.conn for w in pool if w.tasks]):
                w = by_conn[conn]
                try:
                    index, kind, payload = w.conn.recv()
                except (EOFError, OSError):
                    w.process.join(1)
                    raise WorkerError(
                        f"a worker process stopped (exit status {w.process.exitcode}) while "
                        f"chunking {items[w.tasks[0]].label}: try fewer --jobs"
                    ) from None
                if kind == "part":
                    parts.setdefault(index, []).append(payload)
                    continue
                w.tasks.popleft()
                if kind == "memory":
                    raise MemoryError
                if kind == "bug":
                    raise RuntimeError(f"a worker failed on {items[index].label}:\n{payload}")
                answers[index] = kind, payload
                if done is not None:
                    done(items[index])
                if kind == "error" and stop_on_error:
                    end = min(end, index + 1)  # what comes after it will not be written
        finished = True
    finally:
        for w in pool:
            w.stop(politely=finished)
