"""A job: what every input is chunked and rendered with, in this process or in a worker, and
how one input becomes blocks of output or one error line."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .._errors import ChunkerError
from ..results._export import FORMATS, Frame
from ..session._api import Document
from ..settings._options import Settings
from ._inputs import Input, read_document

OBJECTS = Frame(lambda o: json.dumps(o, ensure_ascii=False) + "\n")
"""--stats and --advice: one JSON object a line."""


class WorkerError(Exception):
    """A worker process (--jobs) stopped without an answer, or could not start; str(e) is one line."""


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
    encoding: str | None = None
    """A text file's encoding when it is not UTF-8 (--encoding)."""

    @property
    def frame(self) -> Frame:
        frame = FORMATS[self.fmt].frame if self.show == "records" else OBJECTS
        assert frame is not None
        return frame


def render(job: Job, item: Input, data: bytes | str | None = None) -> Iterator[bytes | str]:
    """`item` read (or `data`, its bytes already read) and chunked, then its records rendered
    and joined as `job.frame` joins them, in blocks of UTF-8 of about BLOCK_CHARS (none when it
    has no record). Raises ChunkerError before the first block, never after: a file's output
    is never held whole, here or in the parent, and a failed file has written nothing.

    The result's notes come first, each a str naming the file (the blocks are bytes): the
    caller writes them to stderr."""
    # Every file's records carry its source, the same however its path was typed: the chunks'
    # ids hash it. Standard input is "-" among other inputs, and has none alone.
    source = ("-" if job.named else None) if item.path == "-" else item.source
    if item.text is not None:  # a dataset's row (--text-column): text already
        doc = Document(item.text, source=source)
    else:
        doc = read_document(
            item.path, None, raw=job.raw, keep_running=job.keep_running, source=source, data=data, encoding=job.encoding
        )
    # Records are written from one chunking: nothing measured need outlast it (an exact
    # tokenizer then counts each chunk's own text, see `Document._each_alone`). Stats and
    # advice read the document again (its tokens, the other strategies).
    doc._keep = job.show != "records"
    try:
        result = doc.run(job.settings, max_chunk_chars=job.max_chunk_chars)
    except ChunkerError as e:
        if job.named:
            raise ChunkerError(f"{item.label}: {e}") from None
        raise
    notes = [f"{item.label}: {note}" for note in result.notes]
    if job.show == "records":
        frame = job.frame
        return itertools.chain(notes, _blocks(frame, frame.rendered_utf8(result)))
    obj = result.stats.to_dict() if job.show == "stats" else doc.advise(result).to_dict()
    return iter([*notes, OBJECTS.body([{"source": source, **obj} if job.named else obj]).encode("utf-8")])


BLOCK_CHARS = 1 << 18
"""About how much output a block holds: small beside a document's own chunking, large enough
that a worker sends few messages. (Measured: a 60 KB file written 200 times over peaks at
3.9 MB traced, against 3.2 MB when the records were streamed one by one, and 145 MB for the
file's output held whole.)"""


def _blocks(frame: Frame, rendered: Iterator[bytes]) -> Iterator[bytes]:
    """The records, each rendered in UTF-8 (`Frame.rendered_utf8`), joined in blocks."""
    sep = frame.sep.encode("utf-8")
    batch: list[bytes] = []
    held = 0
    first = True
    for piece in rendered:
        if not first and sep:
            piece = sep + piece
        first = False
        batch.append(piece)
        held += len(piece)
        if held >= BLOCK_CHARS:
            yield b"".join(batch)
            batch, held = [], 0
    if batch:
        yield b"".join(batch)


Outcome = tuple[Input, str, Any]
"""(input, "part", a block of its output, or a note: a str), any number of them, then (input,
"ok", None) or (input, "error", the one-line message); a failed input has no parts."""


def _attempt(job: Job, item: Input, data: bytes | str | None = None) -> tuple[str, Any]:
    if item.error is not None:  # found failed (a folder that cannot be listed)
        return "error", item.error
    try:
        return "ok", render(job, item, data)
    except ChunkerError as e:
        return "error", str(e)
