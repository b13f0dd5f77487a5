"""`python -m chunker`: chunk files or standard input and print records or stats.

Every error is one line on stderr and exit status 2; nothing is written until every input
has been read and chunked, so a bad file never leaves half an output behind.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Callable, List, Optional, Sequence, TextIO

from ._api import chunk, volume_limit
from ._errors import ChunkerError
from ._export import to_json, to_jsonl, to_text
from ._records import ChunkResult
from ._settings import BREAKS, DEFAULTS, STRATEGIES, TOKENIZERS, UNITS

_FORMATS = {"jsonl": to_jsonl, "json": to_json, "txt": to_text}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        # argparse prints the whole usage block; a user wants the one line that matters.
        raise ChunkerError(message)


# An overlap of nearly the whole size repeats a file thousands of times over, which would fill
# the memory before anything is written: by default such settings are an error, not a crash.
_REPEAT_LIMIT = 100
_VOLUME_FLOOR = 10_000_000


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m chunker", description="Split documents into chunks for RAG.")
    p.add_argument("files", nargs="*", metavar="FILE", help="UTF-8 text files; '-' or none reads standard input")
    p.add_argument("--strategy", default=DEFAULTS["strategy"], help=f"{' | '.join(STRATEGIES)} (default recursive)")
    p.add_argument("--unit", default=DEFAULTS["unit"], help=f"{' | '.join(UNITS)} (default tokens)")
    p.add_argument("--size", default=str(DEFAULTS["size"]), help="chunk size in the unit (default 500)")
    p.add_argument("--overlap", default=str(DEFAULTS["overlap"]), help="overlap in the unit, or N%% of the size (default 50)")
    p.add_argument("--tokenizer", default=DEFAULTS["tokenizer"], help=f"{' | '.join(TOKENIZERS)} (default approx)")
    p.add_argument("--breaks", default=",".join(DEFAULTS["breaks"]), help=f"break points for the sentence strategy, from {','.join(BREAKS)}")
    p.add_argument("--format", default="jsonl", help="jsonl | json | txt (default jsonl)")
    p.add_argument("--stats", action="store_true", help="print the stats as one JSON object instead of the chunks")
    p.add_argument("--max-chunk-chars", default=None, metavar="N",
                   help=f"refuse settings whose chunks would hold more than N characters in all (default "
                        f"{_REPEAT_LIMIT} times each file, at least {_VOLUME_FLOOR:,}; 0: no limit)")
    return p


def _volume_limit(value: Optional[str]) -> Callable[[str], Optional[int]]:
    """The chunk volume limit for a file's text, from --max-chunk-chars."""
    if value is None:
        return lambda text: volume_limit(text, times=_REPEAT_LIMIT, floor=_VOLUME_FLOOR)
    try:
        n = int(value)
    except ValueError:
        n = -1
    if n < 0:
        raise ChunkerError(f"--max-chunk-chars must be a whole number (0 for no limit), got {value!r}")
    return lambda text: n or None


def _size(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise ChunkerError(f"--size must be a whole number, got {value!r}") from None


def _overlap(value: str):
    v = value.strip()
    if v.endswith("%"):
        return v
    try:
        return int(v)
    except ValueError:
        raise ChunkerError(f"--overlap must be a whole number or a percentage like 15%, got {value!r}") from None


def _read(name: str, stdin: TextIO) -> str:
    if name == "-":
        data = stdin.buffer.read() if hasattr(stdin, "buffer") else stdin.read()
        label = "standard input"
    else:
        label = name
        try:
            with open(name, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            raise ChunkerError(f"{name}: no such file") from None
        except IsADirectoryError:
            raise ChunkerError(f"{name}: is a directory, give the files inside it") from None
        except OSError as e:
            raise ChunkerError(f"{name}: cannot read it ({e.strerror or e})") from None
    if isinstance(data, str):
        return data
    try:
        # Not utf-8-sig and no newline translation: offsets index the bytes' text exactly.
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ChunkerError(f"{label}: not UTF-8 text (bad byte at offset {e.start}); convert it to UTF-8 first") from None


def _progress(done: int, total: int, err: TextIO) -> None:
    width = 30
    filled = width * done // total
    err.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} files")
    if done == total:
        err.write("\n")
    err.flush()


def run(argv: Sequence[str], stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    try:
        args = _parser().parse_args(list(argv))
        if args.format not in _FORMATS:
            raise ChunkerError(f"unknown format {args.format!r}: choose one of {', '.join(_FORMATS)}")
        options = dict(strategy=args.strategy, unit=args.unit, size=_size(args.size),
                       overlap=_overlap(args.overlap), tokenizer=args.tokenizer, breaks=args.breaks)
        chunk("", **options)  # validate the settings before touching any file
        limit = _volume_limit(args.max_chunk_chars)
        files: List[str] = args.files or ["-"]
        texts = [(name, _read(name, stdin)) for name in files]
        show_progress = len(files) > 1 and stderr.isatty()
        results: List[ChunkResult] = []
        for n, (name, text) in enumerate(texts, 1):
            source = name if len(files) > 1 else None
            try:
                results.append(chunk(text, source=source, max_chunk_chars=limit(text), **options))
            except ChunkerError as e:
                if len(files) > 1:
                    raise ChunkerError(f"{name}: {e}") from None
                raise
            if show_progress:
                _progress(n, len(files), stderr)
    except ChunkerError as e:
        stderr.write(f"chunker: error: {e}\n")
        return 2
    if args.stats:
        if len(results) == 1:
            out = json.dumps(results[0].stats.to_dict(), ensure_ascii=False) + "\n"
        else:
            out = "".join(json.dumps({"source": r.source, **r.stats.to_dict()}, ensure_ascii=False) + "\n"
                          for r in results)
    else:
        out = _FORMATS[args.format](results)
    stdout.write(out)
    stdout.flush()
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    try:
        return run(argv, sys.stdin, sys.stdout, sys.stderr)
    except KeyboardInterrupt:
        sys.stderr.write("chunker: interrupted\n")
        return 130
    except BrokenPipeError:
        return 0
