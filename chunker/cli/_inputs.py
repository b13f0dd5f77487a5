"""Finding the inputs a command line names (files, folders, glob patterns, standard input) and
reading each one as the offsets will index it."""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TextIO

from .._errors import ChunkerError
from ..documents import read_file, shown_name
from ..session._api import Document

_MAGIC = re.compile(r"[*?[]")


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
    return read_file(name, folder="add --recursive to chunk every file under it")


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
