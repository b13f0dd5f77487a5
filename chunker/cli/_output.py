"""The command line's output: every write checked, and nothing half written.

A failed or short write is an error (`OutputError`, exit status 1), never a silent half output.
``--output FILE`` is written through a temporary file beside it (beside the file a symlink leads
to), renamed once complete, with the mode of the file it replaces; what is not a regular file (a
device, a FIFO) is never replaced, but written straight. Neither it nor standard output gets
anything until every input is done (`Sink`), so a bad file leaves no output at all.
"""

from __future__ import annotations

import codecs
import os
import stat
import tempfile
from collections.abc import Iterable
from typing import IO, Any

from ..documents import shown_name
from ._signals import held

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


PENDING: set[str] = set()
"""Temporary files made for ``--output`` and not yet renamed into place or removed. A stopping
signal can arrive anywhere, even between a `Sink` being made and its ``with`` block being
entered; `remove_pending` then takes away what the ``with`` block could not."""


def remove_pending() -> None:
    """Remove every temporary output file still pending (see PENDING)."""
    for tmp in list(PENDING):
        try:
            os.unlink(tmp)
        except OSError:
            pass
        PENDING.discard(tmp)


def _temporary_beside(path: str, shown: str, mode: int, owner: tuple[int, int] | None) -> tuple[int, str]:
    """A new hidden file in `path`'s folder, with `mode` (and `owner`, where this process may
    give it) instead of mkstemp's 0600: it is to replace `path`, and keep what `path` had."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        with held():  # made and listed in PENDING with no signal in between
            fd, tmp = tempfile.mkstemp(prefix=".chunker-", suffix=".tmp", dir=folder)
            PENDING.add(tmp)
    except OSError as e:
        raise OutputError(f"{shown_name(shown)}: cannot write there ({e.strerror or e})") from None
    try:
        if owner is not None and owner != (os.geteuid(), os.getegid()):
            os.fchown(fd, *owner)
    except (OSError, AttributeError):
        pass  # not ours to give: the new file is this user's
    try:
        os.fchmod(fd, mode)  # after fchown, which may clear set-id bits
    except OSError:
        pass
    return fd, tmp


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _target(path: str) -> tuple[str, int | None, tuple[int, int] | None]:
    """Where ``--output path`` goes: (a regular file's path, the mode and owner to give it),
    the file a symlink leads to when `path` is one, to be replaced whole in its own folder; or
    (path, None, None) for anything else that exists (a device, a FIFO, a terminal), which is
    opened and written straight: it is never replaced by a regular file."""
    try:
        st = os.stat(path)  # through symlinks
    except FileNotFoundError:
        real = os.path.realpath(path)  # a new file, or the missing file a symlink names
        return real, 0o666 & ~_umask(), None
    except OSError as e:
        raise OutputError(f"{shown_name(path)}: cannot write it ({e.strerror or e})") from None
    if not stat.S_ISREG(st.st_mode):
        return path, None, None
    real = os.path.realpath(path)
    try:
        same = os.path.samestat(os.stat(real), st)
    except OSError:
        same = False
    if not same:  # a link that names no path (a deleted file's /proc/self/fd/N): write through it
        return path, None, None
    return real, stat.S_IMODE(st.st_mode), (st.st_uid, st.st_gid)


def _open_straight(path: str) -> IO[bytes]:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise OutputError(f"{shown_name(path)}: cannot write it ({e.strerror or e})") from None
    return os.fdopen(fd, "wb", buffering=0)


def _write_file(pieces: Iterable[str], path: str) -> None:
    """Write `pieces` to `path` as ``--output`` is written (see `Sink`): a regular file is
    either the whole output or what it was before."""
    with Sink(path, None) as sink:
        for piece in pieces:
            sink.write(piece.encode("utf-8"))
        sink.commit()


class Sink:
    """Output in UTF-8 bytes as it comes, made visible only by `commit`. ``--output``'s file,
    when it is a regular file or a new one, is a temporary file beside it until then, which
    then replaces it keeping its mode (a new one gets the umask's); a symlink is followed, and
    the file it leads to replaced in its own folder. Standard output's bytes, and those of an
    output that is not a regular file (a device, a FIFO), wait in a spool (memory, then a
    temporary file past SPOOL_BYTES) and are written straight to it. Leaving the ``with``
    block without a commit leaves nothing behind.
    """

    def __init__(self, path: str | None, stream: IO[str] | None) -> None:
        self.path, self.tmp = path, None
        self.stream: IO[Any] | None = stream
        self.target: str | None = None
        self.opened: IO[bytes] | None = None  # the device or FIFO --output names
        self.file: Any
        if path is not None:
            target, mode, owner = _target(path)
            if mode is not None:
                self.target = target
                fd, self.tmp = _temporary_beside(target, path, mode, owner)
                self.file = os.fdopen(fd, "wb")
                return
            self.stream = self.opened = _open_straight(path)
        elif stream is None:  # said now, not after the work
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
            PENDING.discard(self.tmp)
        if self.opened is not None:
            try:
                self.opened.close()
            except OSError:
                pass

    def write(self, data: bytes) -> None:
        try:
            self.file.write(data)
        except OSError as e:
            raise self._failed(e) from None

    def commit(self) -> None:
        """Rename the file into place, or copy the spool to its stream."""
        try:
            self.file.flush()
            if self.tmp is not None:
                os.fsync(self.file.fileno())
                self.file.close()
                os.replace(self.tmp, self.target)  # type: ignore[arg-type]
                PENDING.discard(self.tmp)
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
            if self.path is not None:
                raise OutputError(f"{shown_name(self.path)}: cannot write it ({e.strerror or e})") from None
            raise OutputError(f"cannot write the output ({e.strerror or e})") from None

    def _failed(self, e: OSError) -> OutputError:
        if self.tmp is not None and self.path is not None:
            return OutputError(f"{shown_name(self.path)}: cannot write it ({e.strerror or e})")
        return OutputError(
            f"cannot hold the output in the temporary folder ({e.strerror or e}): give --output FILE, or set TMPDIR"
        )
