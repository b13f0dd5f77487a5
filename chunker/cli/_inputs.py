"""Finding the inputs a command line names (files, folders, glob patterns, standard input) and
reading each one as the offsets will index it."""

from __future__ import annotations

import fnmatch
import os
import re
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TextIO

from .._errors import ChunkerError
from ..documents import MAX_BYTES, read_bounded, read_file, shown_name, source_of
from ..session._api import Document

_MAGIC = re.compile(r"[*?[]")


@dataclass(frozen=True)
class Input:
    """One input: `path` as opened ('-': standard input), `name` as records carry it."""

    path: str
    name: str
    size: int = 0
    """Bytes, as the folder listing had it (0 when unknown): the progress bar's measure."""
    error: str | None = None
    """Why it cannot be had (a folder that cannot be listed, with --keep-going): its one failure."""
    text: str | None = None
    """A dataset row's text (--text-column), read already; None for a file, read when chunked."""
    row_source: str | None = None
    """A dataset row's source (its --id-column value, or FILE#ROW)."""

    @property
    def source(self) -> str | None:
        """What its records carry as `source`: a dataset row's, a file's canonical path
        (`source_of`), or None for standard input."""
        if self.row_source is not None:
            return self.row_source
        return None if self.path == "-" else source_of(self.path)

    @property
    def label(self) -> str:
        """The input as errors name it."""
        return "standard input" if self.path == "-" else self.name


def find_inputs(
    args: Sequence[str], *, recursive: bool = False, keep_going: bool = False, output: str | None = None
) -> tuple[list[Input], bool]:
    """The files `args` name, in order, and whether records should name their file (more than
    one file, or any folder or pattern). A path that exists is taken as it is: a file, or a
    folder whose files are taken (only with `recursive`) in sorted order. Any other path with
    ``*``, ``?`` or ``[`` is a glob pattern that chunker expands itself, to files only, in sorted
    order; ``**`` matches any depth of folders, with or without `recursive`, and like a folder's
    walk follows no symlink to a folder (each file once, and no loop). Names that start with a
    dot are skipped in folders and by patterns (unless the pattern spells the dot).

    `output`, the file the output replaces, is never an input: named, it is an error; found in
    a folder or by a pattern, it is skipped (the same file, by device and inode, whatever its
    name). A folder that cannot be listed is an error, or with `keep_going` an input of its own
    that fails (`Input.error`).

    >>> find_inputs(["-"])
    ([Input(path='-', name='-', size=0, error=None, text=None, row_source=None)], False)
    """
    ours = _identity(output)
    found: list[Input] = []
    expanded = False

    def fail(e: OSError) -> None:
        folder = shown_name(str(e.filename))
        message = f"{folder}: cannot list the folder ({e.strerror or e})"
        if not keep_going:
            raise ChunkerError(message)
        if all(f.path != str(e.filename) for f in failures):  # a pattern may come back to it
            failures.append(Input(str(e.filename), folder, 0, message))

    for arg in args:
        failures: list[Input] = []
        if arg != "-" and os.path.isdir(arg):
            if not recursive:
                raise ChunkerError(
                    f"{shown_name(arg)}: is a directory: add --recursive to chunk every file under it, or name the files"
                )
            paths = _walk(arg, fail)
            what = f"{shown_name(arg)}: no files under it (names starting with a dot are skipped)"
        elif arg != "-" and not os.path.lexists(arg) and _MAGIC.search(arg):
            paths = _glob(arg, fail)
            what = (
                f"no file matches {shown_name(arg)!r}: check the pattern (names starting "
                "with a dot are skipped unless the pattern has the dot)"
            )
        else:
            if ours is not None and arg != "-" and _identity(arg) == ours:
                raise ChunkerError(
                    f"{shown_name(arg)}: is also the output (--output {shown_name(str(output))}): "
                    "write the chunks to another file"
                )
            found.append(Input(arg, shown_name(arg), _size(arg)))
            continue
        files = [(p, st) for p, st in paths if ours is None or (st.st_dev, st.st_ino) != ours]
        if not files and not failures:
            raise ChunkerError(what)
        expanded = True
        items = [Input(p, shown_name(p), st.st_size) for p, st in files] + failures
        found.extend(sorted(items, key=lambda i: _tree_order(i.path)))
    return found, expanded or len(found) > 1


def _identity(path: str | None) -> tuple[int, int] | None:
    """A regular file's (device, inode), through symlinks; None for anything else."""
    if path is None or path == "-":
        return None
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISREG(st.st_mode) else None


def is_the_output(path: str, output: str | None) -> bool:
    """Whether `path` is the regular file `output` names (by device and inode)."""
    ours = _identity(output)
    return ours is not None and _identity(path) == ours


Found = list[tuple[str, os.stat_result]]
"""Regular files found, with their stat (through symlinks)."""


def _regular(path: str) -> os.stat_result | None:
    try:
        st = os.stat(path)
    except OSError:
        return None  # a dangling link
    # Regular files only (a FIFO would wait forever); a link to a file is its file.
    return st if stat.S_ISREG(st.st_mode) else None


def _walk(folder: str, fail: Callable[[OSError], None]) -> Found:
    paths: Found = []
    for top, dirs, files in os.walk(folder, onerror=fail):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        paths.extend((p, st) for f in files if not f.startswith(".") and (st := _regular(p := os.path.join(top, f))) is not None)
    return sorted(paths, key=lambda f: _tree_order(f[0]))


def _glob(pattern: str, fail: Callable[[OSError], None]) -> Found:
    """`pattern`'s files as ``glob.glob(pattern, recursive=True)`` finds them, but for ``**``,
    which like os.walk goes into no symlink to a folder: each file is found once, and a link
    that loops is not followed round (glob's ``**`` followed it, without end for two loops)."""
    drive, rest = os.path.splitdrive(pattern)
    parts = re.split("[" + re.escape(os.sep + (os.altsep or "")) + "]", rest)
    if parts[0] == "" and len(parts) > 1:
        base, parts = drive + os.sep, parts[1:]  # absolute
    else:
        base = drive
    paths = [base]
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if part == "":
            if last:
                return []  # "dir/": folders only, no file
            continue  # "a//b"
        found: list[str] = []
        for folder in paths:
            if part == "**":
                found.extend(_below(folder, fail, files=last))
            elif _MAGIC.search(part):
                found.extend(
                    os.path.join(folder, e.name)
                    for e in _listing(folder, fail)
                    if (part.startswith(".") or not e.name.startswith(".")) and fnmatch.fnmatch(e.name, part)
                )
            elif os.path.lexists(p := os.path.join(folder, part)):
                found.append(p)
        paths = list(dict.fromkeys(found))
    return sorted(((p, st) for p in paths if (st := _regular(p)) is not None), key=lambda f: _tree_order(f[0]))


def _listing(folder: str, fail: Callable[[OSError], None]) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder or os.curdir) as entries:
            return list(entries)
    except (FileNotFoundError, NotADirectoryError):
        return []  # no such folder: the pattern matches nothing there
    except OSError as e:
        if e.filename is None:
            e.filename = folder or os.curdir
        fail(e)
        return []


def _below(folder: str, fail: Callable[[OSError], None], *, files: bool) -> list[str]:
    """`folder` and every folder under it (and with `files`, every name under it), not hidden,
    going into no symlink to a folder."""
    out, todo = [folder], [folder]
    while todo:
        top = todo.pop()
        for e in _listing(top, fail):
            if e.name.startswith("."):
                continue
            p = os.path.join(top, e.name)
            try:
                real_folder = e.is_dir(follow_symlinks=False)
            except OSError:
                real_folder = False
            if real_folder:
                out.append(p)
                todo.append(p)
            elif files:
                out.append(p)
    return out


def _tree_order(path: str) -> list[str]:
    # By folder and name: "a/b.md" sorts with the other files of "a", not between "a.md" and "a0".
    return path.split(os.sep)


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size if path != "-" else 0
    except OSError:
        return 0  # reading it will say what is wrong


FOLDER = "add --recursive to chunk every file under it"
"""What to do when a folder is named where a file was read (`read_bytes`'s default)."""


def read_bytes(name: str, stdin: TextIO | None, *, folder: str = FOLDER) -> bytes | str:
    """A file's bytes, or standard input's ('-'; text when it has no binary buffer), refused
    past `MAX_BYTES`, the limit of one document, with no more than one byte past it read (a
    pipe from /dev/zero never ends). `folder`: what to do instead when `name` is a folder."""
    if name == "-":
        if stdin is None:
            raise ChunkerError("standard input is closed: give a file name instead")
        try:
            if hasattr(stdin, "buffer"):
                data: bytes | str = read_bounded(stdin.buffer, MAX_BYTES)
            else:
                data = stdin.read(MAX_BYTES + 1)
        except OSError as e:
            raise ChunkerError(f"cannot read standard input ({e.strerror or e})") from None
        if len(data) > MAX_BYTES:
            raise ChunkerError(
                f"standard input is over the {MAX_BYTES / 1e6:g} MB limit for one document: split it, or give it as files"
            )
        return data
    return read_file(name, folder=folder, max_bytes=MAX_BYTES)


def read_document(
    name: str,
    stdin: TextIO | None,
    *,
    raw: bool = False,
    keep_running: bool = False,
    source: str | None = None,
    data: bytes | str | None = None,
    encoding: str | None = None,
    folder: str = FOLDER,
) -> Document:
    """A file (or standard input for '-') as the offsets will index it: a PDF, Word or HTML file
    extracted to text, anything else strict UTF-8 with its byte order mark and CR LF kept
    (`raw`: every file as text). `data`: its bytes, already read. `folder`: as `read_bytes`."""
    if data is None:
        data = read_bytes(name, stdin, folder=folder)
    if isinstance(data, str):
        return Document(data, source=source)
    label = "standard input" if name == "-" else shown_name(name)
    return Document.from_bytes(data, name=label, raw=raw, keep_running=keep_running, source=source, encoding=encoding)
