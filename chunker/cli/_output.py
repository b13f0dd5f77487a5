"""The command line's output: every write checked, and nothing half written.

A failed or short write is an error (`OutputError`, exit status 1), never a silent half output.
``--output FILE`` is written through a temporary file beside it, renamed once complete; standard
output gets nothing until every input is done (`Sink`), so a bad file leaves no output at all.
"""

from __future__ import annotations

import codecs
import os
import tempfile
from collections.abc import Iterable
from typing import IO, Any

from ._inputs import shown_name

SPOOL_BYTES = 32 << 20
"""Output for standard output held in memory up to this size, then in a temporary file."""


class OutputError(Exception):
    """The output could not be written; str(e) is one line."""


class _Writer:
    """Writes to a stream, checking every write. A stream with a file descriptor is written
    with os.write, in UTF-8; any other (a StringIO) gets text."""

    def __init__(self, stream: IO[str] | None) -> None:
        if stream is None:
            raise OutputError("standard output is closed: give --output FILE")
        self.stream = stream
        self.fd: int | None = None
        try:
            stream.flush()
            self.fd = stream.fileno()
        except (AttributeError, OSError, ValueError):
            self.fd = None  # a StringIO, or a stream with no descriptor
        self.pending: list[bytes] = []
        self.size = 0
        self.decoder: Any = None

    def write(self, text: str) -> None:
        if self.fd is None:
            written = self.stream.write(text)
            if written is not None and written != len(text):
                raise OutputError(f"short write ({written} of {len(text)} characters)")
            return
        self.write_bytes(text.encode("utf-8"))

    def write_bytes(self, data: bytes) -> None:
        if self.fd is None:
            if self.decoder is None:
                self.decoder = codecs.getincrementaldecoder("utf-8")()
            self.write(self.decoder.decode(data))  # a block may end inside a character
            return
        self.pending.append(data)
        self.size += len(data)
        if self.size >= 1 << 16:
            self.flush()

    def flush(self) -> None:
        if self.fd is None:
            self.stream.flush()
            return
        data = b"".join(self.pending)
        self.pending, self.size = [], 0
        view = memoryview(data)
        while view:
            n = os.write(self.fd, view)
            if n <= 0:
                raise OutputError("the output stream accepted nothing")
            view = view[n:]


def _write(pieces: Iterable[str], stream: IO[str] | None) -> None:
    try:
        w = _Writer(stream)
        for piece in pieces:
            w.write(piece)
        w.flush()
    except BrokenPipeError:
        raise  # the reader left: main() ends quietly
    except OSError as e:
        raise OutputError(f"cannot write the output ({e.strerror or e})") from None


def _temporary_beside(path: str) -> tuple[int, str]:
    folder = os.path.dirname(os.path.abspath(path))
    try:
        return tempfile.mkstemp(prefix=".chunker-", suffix=".tmp", dir=folder)
    except OSError as e:
        raise OutputError(f"{shown_name(path)}: cannot write there ({e.strerror or e})") from None


def _write_file(pieces: Iterable[str], path: str) -> None:
    """Write to a temporary file beside `path`, then rename it: `path` is either the whole
    output or what it was before."""
    fd, tmp = _temporary_beside(path)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            _write(pieces, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise OutputError(f"{shown_name(path)}: cannot write it ({e.strerror or e})") from None
        raise


class Sink:
    """Output in UTF-8 bytes as it comes, made visible only by `commit`: ``--output``'s file
    is a temporary file beside it until then; standard output's bytes wait in a spool (memory,
    then a temporary file past SPOOL_BYTES). Leaving the ``with`` block without a commit leaves
    nothing behind.
    """

    def __init__(self, path: str | None, stream: IO[str] | None) -> None:
        self.path, self.stream, self.tmp = path, stream, None
        self.file: Any
        if path is not None:
            fd, self.tmp = _temporary_beside(path)
            self.file = os.fdopen(fd, "wb")
        else:
            if stream is None:  # said now, not after the work
                raise OutputError("standard output is closed: give --output FILE")
            self.file = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES, mode="w+b", prefix="chunker-")

    def __enter__(self) -> Sink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.file.close()
        if self.tmp is not None:
            try:
                os.unlink(self.tmp)
            except OSError:
                pass

    def write(self, data: bytes) -> None:
        try:
            self.file.write(data)
        except OSError as e:
            raise self._failed(e) from None

    def commit(self) -> None:
        """Rename the file into place, or copy the spool to standard output."""
        try:
            self.file.flush()
            if self.path is not None:
                os.fsync(self.file.fileno())
                self.file.close()
                os.replace(self.tmp, self.path)  # type: ignore[arg-type]
                self.tmp = None
                return
        except OSError as e:
            raise self._failed(e) from None
        self.file.seek(0)
        try:
            w = _Writer(self.stream)
            for block in iter(lambda: self.file.read(1 << 20), b""):
                w.write_bytes(block)
            w.flush()
        except BrokenPipeError:
            raise  # the reader left: main() ends quietly
        except OSError as e:
            raise OutputError(f"cannot write the output ({e.strerror or e})") from None

    def _failed(self, e: OSError) -> OutputError:
        if self.path is not None:
            return OutputError(f"{shown_name(self.path)}: cannot write it ({e.strerror or e})")
        return OutputError(f"cannot hold the output in the temporary folder ({e.strerror or e}): "
                           "give --output FILE, or set TMPDIR")
