"""``--resume``: an output written input by input, each input's records committed whole, so a
run that was killed goes on where it stopped and ends with the very bytes of a run that was not.

The output file is written in place, and beside it a journal, ``.<name>.chunker-resume``: a
header naming what the run was asked (its settings, format and reading options, hashed) and
then one line per input done, in input order, with the output's size after its records (and
its error, with --keep-going). An input's line is written only once its records are on disk
(fsync), and the journal is fsynced after it. A resumed run cuts the output back to the size
the journal's last line gives (dropping what a killed input had half written), skips the
inputs the journal lists (reporting their errors again), and carries on. The journal's last
line says the output is complete; it stays, so that a resumed run after the end does nothing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

from .._errors import ChunkerError
from ..documents import shown_name
from ._inputs import Input
from ._jobs import Job
from ._output import OutputError

JOURNAL_PREFIX = "."
JOURNAL_SUFFIX = ".chunker-resume"


def job_key(job: Job) -> str:
    """What a run was asked, as a hash: a run resumes only a journal of the same settings, format
    and reading options."""
    import hashlib

    s = job.settings
    asked = [sorted(s._items), job.fmt, job.show, job.raw, job.keep_running, job.max_chunk_chars, job.named, job.encoding]
    return hashlib.blake2b(json.dumps(asked, default=repr).encode("utf-8"), digest_size=16).hexdigest()


def journal_path(output: str) -> str:
    """The journal beside `output` (a hidden name: folders and patterns skip it as an input)."""
    folder, name = os.path.split(os.path.realpath(output))
    return os.path.join(folder, JOURNAL_PREFIX + name + JOURNAL_SUFFIX)


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0  # a dangling link: no records there either


class ResumeSink:
    """The output of a --resume run: `skip` inputs are done already, `first` whether no record
    has been written yet, `failed` the done inputs' errors (in order)."""

    def __init__(self, output: str, key: str, items: Sequence[Input]) -> None:
        self.output, self.key = output, key
        self.journal = journal_path(output)
        self.skip, self.first, self.failed, self.complete = 0, True, [], False
        size = 0
        if not os.path.lexists(output) and os.path.lexists(self.journal):
            # The output is gone and its journal is about nothing: the records it counts are
            # lost already, so doing every input again loses nothing, where extending a new
            # file to the size the journal gives would write NUL bytes as if they were records.
            try:
                os.remove(self.journal)
            except OSError as e:
                raise OutputError(f"{shown_name(self.journal)}: cannot remove it ({e.strerror or e})") from None
        entries = self._read_journal()
        if entries is None:  # a new run
            if os.path.lexists(output):
                raise ChunkerError(
                    f"{shown_name(output)}: exists and was not written by --resume with these settings "
                    "(no journal beside it): remove it, or run without --resume to replace it"
                )
        else:
            for k, entry in enumerate(entries):
                if entry.get("complete"):
                    self.complete = True
                    size = entry["end"]
                    break
                if k >= len(items) or entry["input"] != items[k].name:
                    shown = shown_name(entry["input"])
                    raise ChunkerError(
                        f"{shown_name(output)}: was begun with other inputs ({shown} is not input {k + 1} now): "
                        "give the same files, or remove it and its journal to start again"
                    )
                size = entry["end"]
                if entry.get("error"):
                    self.failed.append(entry["error"])
                self.skip = k + 1
        self.first = size == 0
        if entries is not None and size > 0 and _size(output) < size:
            # Shorter than the records the journal counts: cut or replaced since, by someone
            # else. Carrying on would pad it with NUL bytes and starting again would wipe what
            # it holds, so it is left as it is for its owner to decide.
            raise ChunkerError(
                f"{shown_name(output)}: is shorter than the records its journal counts (it was changed "
                "since): remove it and its journal to start again"
            )
        try:
            fd = os.open(output, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o666)
            self.file = os.fdopen(fd, "r+b")
            self.file.truncate(size)  # what a killed input had begun to write
            self.file.seek(size)
            if entries is None:
                self._journal = open(self.journal, "w", encoding="utf-8")
                self._line({"resume": key})
            else:
                self._journal = open(self.journal, "a", encoding="utf-8")
        except OSError as e:
            raise OutputError(f"{shown_name(output)}: cannot write it ({e.strerror or e})") from None

    def _read_journal(self) -> list[dict[str, Any]] | None:
        try:
            with open(self.journal, "rb") as f:
                raw = f.read()
            # A line cut short by a kill is the last one, without its newline, and its input
            # not done: it is cut off, so the next line starts a line of its own.
            whole = raw[: raw.rfind(b"\n") + 1]
            if len(whole) < len(raw):
                with open(self.journal, "r+b") as f:
                    f.truncate(len(whole))
        except FileNotFoundError:
            return None
        except OSError as e:
            raise OutputError(f"{shown_name(self.journal)}: cannot read it ({e.strerror or e})") from None
        try:
            lines = whole.decode("utf-8").splitlines()
            header = json.loads(lines[0]) if lines else {}
            entries = [json.loads(line) for line in lines[1:]]
        except ValueError:
            header, entries = {}, []
        if header.get("resume") != self.key:
            raise ChunkerError(
                f"{shown_name(self.output)}: was begun with other settings, format or reading options: "
                "give the same ones to resume, or remove it and its journal to start again"
            )
        return entries

    def _line(self, entry: dict[str, Any]) -> None:
        self._journal.write(json.dumps(entry, ensure_ascii=False) + "\n")
        self._journal.flush()
        os.fsync(self._journal.fileno())

    def write(self, data: bytes) -> None:
        try:
            self.file.write(data)
        except OSError as e:
            raise OutputError(f"{shown_name(self.output)}: cannot write it ({e.strerror or e})") from None

    def _sync(self) -> int:
        self.file.flush()
        os.fsync(self.file.fileno())
        return self.file.tell()

    def done(self, item: Input, error: str | None) -> None:
        """`item`'s records are all written: on disk, then in the journal."""
        try:
            end = self._sync()
            self._line({"input": item.name, "end": end, **({"error": error} if error else {})})
        except OSError as e:
            raise OutputError(f"{shown_name(self.output)}: cannot write it ({e.strerror or e})") from None

    def commit(self) -> None:
        try:
            end = self._sync()
            self._line({"complete": True, "end": end})
        except OSError as e:
            raise OutputError(f"{shown_name(self.output)}: cannot write it ({e.strerror or e})") from None

    def __enter__(self) -> ResumeSink:
        return self

    def __exit__(self, *exc: object) -> None:
        for f in (self.file, self._journal):
            try:
                f.close()
            except OSError:
                pass
