"""`python -m chunker`: chunk files or standard input and print records, stats or advice.

Every input is read and chunked before anything is written, so a bad file never leaves half an
output behind; the output is then written as a stream, one record at a time, and every write
is checked. Exit status: 0 done, 2 bad input or settings (one line on stderr), 1 the output
could not be written (one line on stderr; with ``--output`` the file is left untouched).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Iterable, Sequence
from typing import IO, Any, TextIO

from ._api import Document
from ._errors import ChunkerError
from ._export import FORMATS
from ._presets import MODEL_LIMITS
from ._records import ChunkResult
from ._settings import BREAKS, DEFAULTS, UNITS, VOLUME_FLOOR, VOLUME_TIMES, Settings, whole_number
from ._tokenizers import TOKENIZERS
from .strategies import STRATEGIES

PROG = "python -m chunker"


class OutputError(Exception):
    """The output could not be written; str(e) is one line."""


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


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog=PROG, description="Split documents into chunks for RAG. Also: `python -m chunker "
                "extract FILE` (the text a document is chunked as), `python -m chunker eval --help` "
                "(retrieval check).")
    p.add_argument("files", nargs="*", metavar="FILE",
                   help="PDF, Word (.docx), HTML or UTF-8 text files; '-' or none reads standard input")
    add_chunk_options(p)
    p.add_argument("--format", default=next(iter(FORMATS)),
                   help=f"{_names(FORMATS)} (default {next(iter(FORMATS))})")
    add_reading_options(p)
    p.add_argument("--output", "-o", metavar="FILE",
                   help="write to FILE (through a temporary file, renamed only once complete)")
    show = p.add_mutually_exclusive_group()
    show.add_argument("--stats", action="store_true", help="print the stats as one JSON object instead of the chunks")
    show.add_argument("--advice", action="store_true",
                      help="print advice on the chunking as one JSON object instead of the chunks")
    return p


def _max_chunk_chars(value: str | None) -> int | None:
    if value is None:
        return None  # the library's policy
    n = whole_number("--max-chunk-chars", value)
    if n < 0:
        raise ChunkerError(f"--max-chunk-chars must be a whole number (0 for no limit), got {value!r}")
    return n


def shown_name(name: str) -> str:
    """A file name as it can be printed: bytes that are not UTF-8 become U+FFFD."""
    return os.fsencode(name).decode("utf-8", "replace")


def read_document(name: str, stdin: TextIO | None, *, raw: bool = False, keep_running: bool = False,
                  source: str | None = None) -> Document:
    """A file (or standard input for '-') as the offsets will index it: a PDF, Word or HTML file
    extracted to text, anything else strict UTF-8 with its byte order mark and CR LF kept
    (`raw`: every file as text)."""
    data = _read_bytes(name, stdin)
    label = "standard input" if name == "-" else shown_name(name)
    if isinstance(data, str):
        return Document(data, source=source)
    return Document.from_bytes(data, name=label, raw=raw, keep_running=keep_running, source=source)


def read_input(name: str, stdin: TextIO | None) -> str:
    """A file (or standard input for '-') read as text: strict UTF-8, with a byte order mark
    and CR LF line breaks kept."""
    data = _read_bytes(name, stdin)
    if isinstance(data, str):
        return data
    label = "standard input" if name == "-" else shown_name(name)
    try:
        # Not utf-8-sig and no newline translation: offsets index the bytes' text exactly.
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ChunkerError(f"{label}: not UTF-8 text (bad byte at offset {e.start}); convert it to UTF-8 first") from None


def _read_bytes(name: str, stdin: TextIO | None) -> bytes | str:
    if name == "-":
        if stdin is None:
            raise ChunkerError("standard input is closed: give a file name instead")
        label = "standard input"
        try:
            data: bytes | str = stdin.buffer.read() if hasattr(stdin, "buffer") else stdin.read()
        except OSError as e:
            raise ChunkerError(f"cannot read standard input ({e.strerror or e})") from None
    else:
        label = shown_name(name)
        try:
            with open(name, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            raise ChunkerError(f"{label}: no such file") from None
        except IsADirectoryError:
            raise ChunkerError(f"{label}: is a directory, give the files inside it") from None
        except OSError as e:
            raise ChunkerError(f"{label}: cannot read it ({e.strerror or e})") from None
    return data


def _progress(done: int, total: int, err: TextIO) -> None:
    width = 30
    filled = width * done // total
    err.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} files")
    if done == total:
        err.write("\n")
    err.flush()


class _Writer:
    """Writes text to a stream, checking every write: a short or failed write is an error,
    never a silent half output. A stream with a file descriptor is written with os.write."""

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

    def write(self, text: str) -> None:
        if self.fd is None:
            written = self.stream.write(text)
            if written is not None and written != len(text):
                raise OutputError(f"short write ({written} of {len(text)} characters)")
            return
        data = text.encode("utf-8")
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


def _write_file(pieces: Iterable[str], path: str) -> None:
    """Write to a temporary file beside `path`, then rename it: `path` is either the whole
    output or what it was before."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".chunker-", suffix=".tmp", dir=folder)
    except OSError as e:
        raise OutputError(f"{shown_name(path)}: cannot write there ({e.strerror or e})") from None
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


def _normalise(argv: Sequence[str]) -> list[str]:
    """``--overlap -5%`` as ``--overlap=-5%``: argparse would take "-5%" for an option and report
    a missing value instead of the value's own problem."""
    out: list[str] = []
    it = iter(argv)
    for arg in it:
        if arg in ("--size", "--overlap", "--max-chunk-chars"):
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


def run(argv: Sequence[str], stdin: TextIO | None, stdout: TextIO | None, stderr: TextIO | None) -> int:
    argv = list(argv)
    if argv[:1] == ["eval"]:
        from ._cli_eval import run as run_eval  # noqa: PLC0415 - a subcommand of its own

        return run_eval(argv[1:], stdin, stdout, stderr)
    if argv[:1] == ["extract"]:
        return run_extract(argv[1:], stdin, stdout, stderr)
    try:
        args = _parser().parse_args(_normalise(argv))
        if args.format not in FORMATS:
            raise ChunkerError(f"unknown format {args.format!r}: choose one of {', '.join(FORMATS)}")
        settings = settings_from(args)
        limit = _max_chunk_chars(args.max_chunk_chars)
        files: list[str] = args.files or ["-"]
        if files.count("-") > 1:
            raise ChunkerError("'-' is given more than once: standard input can be read only once")
        several = len(files) > 1
        docs = [read_document(name, stdin, raw=args.raw, keep_running=args.keep_running,
                              source=shown_name(name) if several else None) for name in files]
        show_progress = several and stderr is not None and stderr.isatty()
        results: list[ChunkResult] = []
        for n, doc in enumerate(docs, 1):
            try:
                results.append(doc.run(settings, max_chunk_chars=limit))
            except ChunkerError as e:
                if several:
                    raise ChunkerError(f"{doc.source}: {e}") from None
                raise
            if show_progress:
                _progress(n, len(files), stderr)  # type: ignore[arg-type]
        pieces: Iterable[str]
        if args.stats or args.advice:
            objects = [r.stats.to_dict() if args.stats else d.advise(r).to_dict()
                       for d, r in zip(docs, results)]
            if several:
                objects = [{"source": r.source, **o} for r, o in zip(results, objects)]
            pieces = [json.dumps(o, ensure_ascii=False) + "\n" for o in objects]
        else:
            pieces = FORMATS[args.format].pieces(results)
        if args.output:
            _write_file(pieces, args.output)
        else:
            _write(pieces, stdout)
    except ChunkerError as e:
        _say(stderr, str(e))
        return 2
    except OutputError as e:
        _say(stderr, str(e))
        return 1
    except MemoryError:
        _say(stderr, "out of memory: chunk fewer or smaller files at a time, or lower the overlap")
        return 1
    return 0


def run_extract(argv: Sequence[str], stdin: TextIO | None, stdout: TextIO | None, stderr: TextIO | None) -> int:
    """`python -m chunker extract FILE`: the text a document is chunked as, which every record's
    offsets index. A PDF's pages are separated by a form feed (U+000C)."""
    p = _Parser(prog=PROG + " extract", description=run_extract.__doc__)
    p.add_argument("file", metavar="FILE", help="a PDF, Word (.docx), HTML or UTF-8 text file; '-' reads standard input")
    add_reading_options(p)
    p.add_argument("--output", "-o", metavar="FILE",
                   help="write to FILE (through a temporary file, renamed only once complete)")
    try:
        args = p.parse_args(list(argv))
        text = read_document(args.file, stdin, raw=args.raw, keep_running=args.keep_running).text
        if args.output:
            _write_file([text], args.output)
        else:
            _write([text], stdout)
    except ChunkerError as e:
        _say(stderr, str(e))
        return 2
    except OutputError as e:
        _say(stderr, str(e))
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    try:
        return run(argv, sys.stdin, sys.stdout, sys.stderr)
    except KeyboardInterrupt:
        _say(sys.stderr, "interrupted")
        return 130
    except MemoryError:  # `run` says so itself; this is for the subcommands (extract, eval)
        _say(sys.stderr, "out of memory: chunk fewer or smaller files at a time, or lower the overlap")
        return 1
    except BrokenPipeError:
        # The reader left (`| head`): nothing more to say. Point stdout at nothing so that the
        # interpreter's own flush at exit does not complain a second time.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, AttributeError, ValueError):
            pass
        return 0
