"""What both commands share: the chunking options (drawn from the table of options), reading a
file or standard input as the command line does, and its one-line errors."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any, TextIO

from .._errors import ChunkerError
from ..documents import decode_text, shown_name
from ..settings._options import MAX_CHUNK_CHARS_HELP, OPTIONS, Settings, options_for
from ..settings._settings import whole_number
from ._inputs import FOLDER, read_bytes

PROG = "python -m chunker"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        # argparse prints the whole usage block; a user wants the one line that matters.
        raise ChunkerError(message)


def _names(registry: dict[str, Any]) -> str:
    return " | ".join(registry)


def add_chunk_options(p: argparse.ArgumentParser, surface: str = "cli") -> None:
    """The chunking settings `surface` takes ("cli", or "eval" for ``python -m chunker eval``),
    one flag per option of the table (`chunker.settings._options.OPTIONS`), with its help.

    Every default is None here, so a command can tell what was given; `settings_from` fills in
    the table's defaults.
    """
    for option in options_for(surface):
        p.add_argument(option.flag, dest=option.name, default=None, metavar=option.metavar, help=option.help())
    p.add_argument("--max-chunk-chars", default=None, metavar="N", help=MAX_CHUNK_CHARS_HELP)


def given_options(args: argparse.Namespace, surface: str = "cli") -> dict[str, Any]:
    """The options given on the command line, each read from its text by its option."""
    out: dict[str, Any] = {}
    for option in options_for(surface):
        value = getattr(args, option.name, None)
        if value is not None:
            out[option.name] = option.parse(value, option.flag)
    return out


def add_reading_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--raw", action="store_true", help="read every file as UTF-8 text: no extraction of PDF, Word or HTML")
    p.add_argument("--keep-running", action="store_true", help="keep a PDF's running headers and footers (dropped by default)")
    p.add_argument(
        "--encoding",
        default=None,
        metavar="NAME",
        help="the text encoding of text files that are not UTF-8 (cp1252, latin-1, utf-16, "
        "shift_jis...); PDF, Word and HTML files say their own (default: UTF-8)",
    )


def settings_from(args: argparse.Namespace, surface: str = "cli", **fixed: Any) -> Settings:
    """The settings the command line gives (`fixed` over them), the table's defaults for the rest."""
    return Settings(**{**given_options(args, surface), **fixed})


def _max_chunk_chars(value: str | None) -> int | None:
    if value is None:
        return None  # the library's policy
    n = whole_number("--max-chunk-chars", value)
    if n < 0:
        raise ChunkerError(f"--max-chunk-chars must be a whole number (0 for no limit), got {value!r}")
    return n


def read_input(name: str, stdin: TextIO | None, *, encoding: str | None = None, folder: str = FOLDER) -> str:
    """A file (or standard input for '-') read as text: strict UTF-8 (or `encoding`), with a
    byte order mark and CR LF line breaks kept. `folder`: what to do when `name` is a folder."""
    data = read_bytes(name, stdin, folder=folder)
    if isinstance(data, str):
        return data
    label = "standard input" if name == "-" else shown_name(name)
    return decode_text(data, label=label, encoding=encoding)


_VALUE_FLAGS = ("--max-chunk-chars", "--jobs", "-j")


def _normalise(argv: Sequence[str]) -> list[str]:
    """``--overlap -5%`` as ``--overlap=-5%``: argparse would take "-5%" for an option and report
    a missing value instead of the value's own problem."""
    out: list[str] = []
    it = iter(argv)
    for arg in it:
        if arg in _VALUE_FLAGS or arg in {o.flag for o in OPTIONS.values()}:
            value = next(it, None)
            out.append(arg if value is None else f"{arg}={value}")
        else:
            out.append(arg)
    return out


def _note(stderr: TextIO | None, message: str) -> None:
    """A note on stderr: what the user should know, though nothing failed."""
    if stderr is None:
        return
    try:
        stderr.write(f"chunker: note: {message}\n")
        stderr.flush()
    except (OSError, ValueError):
        pass


def _say(stderr: TextIO | None, message: str) -> None:
    if stderr is None:
        return
    try:
        stderr.write(f"chunker: error: {message}\n")
        stderr.flush()
    except (OSError, ValueError):
        pass  # stderr itself is gone: the exit status still tells
