"""What both commands share: the chunking options (drawn from the registries), reading a file
or standard input as the command line does, and its one-line errors."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any, TextIO

from .._errors import ChunkerError
from ..settings._presets import MODEL_LIMITS
from ..settings._settings import BREAKS, DEFAULTS, UNITS, VOLUME_FLOOR, VOLUME_TIMES, Settings, whole_number
from ..strategies import STRATEGIES
from ..tokens._tokenizers import TOKENIZERS
from ._inputs import read_bytes, shown_name

PROG = "python -m chunker"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        # argparse prints the whole usage block; a user wants the one line that matters.
        raise ChunkerError(message)


def _names(registry: dict[str, Any]) -> str:
    return " | ".join(registry)


def add_chunk_options(p: argparse.ArgumentParser) -> None:
    """The chunking settings, drawn from the registries (shared with `python -m chunker eval`)."""
    d = DEFAULTS
    p.add_argument("--strategy", default=d["strategy"], help=f"{_names(STRATEGIES)} (default {d['strategy']})")
    p.add_argument("--unit", default=d["unit"], help=f"{_names(UNITS)} (default {d['unit']})")
    p.add_argument("--size", default=str(d["size"]), help=f"chunk size in the unit (default {d['size']})")
    p.add_argument("--overlap", default=str(d["overlap"]),
                   help=f"overlap in the unit, or N%% of the size (default {d['overlap']})")
    p.add_argument("--tokenizer", default=d["tokenizer"],
                   help=f"{_names(TOKENIZERS)}, or the path of a model's tokenizer.json (default {d['tokenizer']})")
    p.add_argument("--model-max", default=None, metavar="MODEL",
                   help=f"the embedding model's input limit: {_names(MODEL_LIMITS)}, or tokens; chunks past it "
                        "are flagged truncated (default: a tokenizer.json's own limit, if it has one)")
    p.add_argument("--breaks", default=",".join(d["breaks"]),
                   help=f"break points for the sentence strategy, from {','.join(BREAKS)} "
                        f"(default {','.join(d['breaks'])})")
    p.add_argument("--max-chunk-chars", default=None, metavar="N",
                   help=f"refuse settings whose chunks would hold more than N characters in all (default "
                        f"{VOLUME_TIMES} times each file, at least {VOLUME_FLOOR:,}; 0: no limit)")


def add_reading_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--raw", action="store_true",
                   help="read every file as UTF-8 text: no extraction of PDF, Word or HTML")
    p.add_argument("--keep-running", action="store_true",
                   help="keep a PDF's running headers and footers (dropped by default)")


def settings_from(args: argparse.Namespace) -> Settings:
    overlap: int | str = args.overlap.strip()
    if not str(overlap).endswith("%"):
        overlap = whole_number("--overlap", overlap)
    return Settings(strategy=args.strategy, unit=args.unit, size=whole_number("--size", args.size),
                    overlap=overlap, tokenizer=args.tokenizer, breaks=args.breaks, model_max=args.model_max)


def _max_chunk_chars(value: str | None) -> int | None:
    if value is None:
        return None  # the library's policy
    n = whole_number("--max-chunk-chars", value)
    if n < 0:
        raise ChunkerError(f"--max-chunk-chars must be a whole number (0 for no limit), got {value!r}")
    return n


def read_input(name: str, stdin: TextIO | None) -> str:
    """A file (or standard input for '-') read as text: strict UTF-8, with a byte order mark
    and CR LF line breaks kept."""
    data = read_bytes(name, stdin)
    if isinstance(data, str):
        return data
    label = "standard input" if name == "-" else shown_name(name)
    try:
        # Not utf-8-sig and no newline translation: offsets index the bytes' text exactly.
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ChunkerError(f"{label}: not UTF-8 text (bad byte at offset {e.start}); convert it to UTF-8 first") from None


def _normalise(argv: Sequence[str]) -> list[str]:
    """``--overlap -5%`` as ``--overlap=-5%``: argparse would take "-5%" for an option and report
    a missing value instead of the value's own problem."""
    out: list[str] = []
    it = iter(argv)
    for arg in it:
        if arg in ("--size", "--overlap", "--max-chunk-chars", "--jobs", "-j"):
            value = next(it, None)
            out.append(arg if value is None else f"{arg}={value}")
        else:
            out.append(arg)
    return out


def _say(stderr: TextIO | None, message: str) -> None:
    if stderr is None:
        return
    try:
        stderr.write(f"chunker: error: {message}\n")
        stderr.flush()
    except (OSError, ValueError):
        pass  # stderr itself is gone: the exit status still tells
