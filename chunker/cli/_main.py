"""`python -m chunker`: chunk files, folders, glob patterns or standard input and print records,
stats or advice.

Every file is read, chunked and rendered in turn (or by ``--jobs N`` worker processes) and its
records written in input order, the same bytes whatever the number of workers. Nothing is
visible until every file is done: ``--output`` goes through a temporary file renamed at the
end, standard output gets its bytes only then (see `chunker.cli._output.Sink`), so a bad file never
leaves half an output behind. Exit status: 0 done; 2 bad input or settings (one line on stderr,
nothing written); 1 the output could not be written (one line; ``--output``'s file is left
untouched), or ``--keep-going`` left files out (one line each, after the output is written).
A SIGTERM or SIGHUP stops the workers and removes the temporary file, and the process then ends
of that signal (status 128 + its number); Ctrl-C does the same and exits with 130.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from .._errors import ChunkerError
from ..documents import shown_name, text_encoding
from ..results._export import FORMATS
from ..results._schema import embeds
from ..settings._settings import whole_number
from ..tokens._tokenizers import get_tokenizer
from ._common import (
    PROG,
    _max_chunk_chars,
    _normalise,
    _note,
    _Parser,
    _say,
    add_chunk_options,
    add_reading_options,
    read_input,
    settings_from,
)
from ._corpus import Progress, chunk_all
from ._inputs import Input, find_inputs, is_the_output, read_bytes, read_document
from ._jobs import Job, WorkerError
from ._output import OutputError, Sink, _write, _write_file, remove_pending
from ._resume import ResumeSink, job_key
from ._signals import Stopped, catch_stopping, end_of

CLI_FORMATS = (*FORMATS, "parquet")
"""The export formats (`FORMATS`, the page's too), and Parquet, which only the command line writes."""

# Re-exported: `python -m chunker eval` and tests use them from here.
__all__ = ["OutputError", "read_document", "read_input", "run", "main", "shown_name", "_write"]


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog=PROG,
        description="Split documents into chunks for RAG. Also: `%(prog)s "
        "extract FILE` (the text a document is chunked as), `%(prog)s eval --help` "
        "(retrieval check).",
        epilog="Records carry `source`, the file's path as given or found, when more than one file "
        "is chunked or a folder or pattern is named. With several files and stderr on a "
        "terminal, a progress bar shows files and MB done and the time left. Exit status: "
        "0 done; 2 bad input or "
        "settings (nothing written); 1 the output could not be written, or --keep-going "
        "left files out.",
    )
    p.add_argument(
        "files",
        nargs="*",
        metavar="PATH",
        help="PDF, Word (.docx), HTML or UTF-8 text files; folders (with --recursive); or glob "
        "patterns, quoted so that chunker expands them ('docs/**/*.md': ** is any depth of "
        "folders, --recursive or not; a pattern that matches no file is an error). Names "
        "starting with a dot are skipped in folders and patterns. Folders and patterns give "
        "their files in sorted order. '-' or none reads standard input",
    )
    p.add_argument(
        "--recursive",
        "-r",
        action="store_true",
        help="chunk every file under the folders given (a folder is an error without it)",
    )
    add_chunk_options(p)
    p.add_argument(
        "--format",
        default=next(iter(FORMATS)),
        help=f"{' | '.join(CLI_FORMATS)} (default {next(iter(FORMATS))}); parquet needs pyarrow, "
        "and writes the records' fields as columns",
    )
    p.add_argument(
        "--text-column",
        metavar="NAME",
        help="the inputs are datasets, JSON Lines or Parquet files with a document a row: chunk "
        "each row's NAME column (needs pyarrow for Parquet)",
    )
    p.add_argument(
        "--id-column",
        metavar="NAME",
        help="with --text-column: each row's source is its NAME column (default: FILE#ROW, the row's number from 0)",
    )
    add_reading_options(p)
    p.add_argument("--output", "-o", metavar="FILE", help="write to FILE (through a temporary file, renamed only once complete)")
    p.add_argument(
        "--jobs",
        "-j",
        default="1",
        metavar="N",
        help="read and chunk with N worker processes (0: one per CPU); the output is the same, in input order (default 1)",
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="with --output FILE: write each file's records to FILE as it is done, with a journal "
        "beside it, so that a run that was stopped, run again with --resume, skips the files "
        "done and ends with exactly the output of a run that was not",
    )
    p.add_argument(
        "--keep-going",
        action="store_true",
        help="when a file cannot be read or chunked, write the others' records and list the "
        "failed files on stderr at the end (exit status 1); without it nothing is written",
    )
    show = p.add_mutually_exclusive_group()
    show.add_argument(
        "--stats", action="store_true", help="print the stats as one JSON object (a line per file) instead of the chunks"
    )
    show.add_argument(
        "--advice",
        action="store_true",
        help="print advice on the chunking as one JSON object (a line per file) instead of the chunks",
    )
    return p


def _jobs(value: str) -> int:
    n = whole_number("--jobs", value)
    if n < 0:
        raise ChunkerError(f"--jobs must be a number of processes, or 0 for one per CPU, got {value!r}")
    return n or os.cpu_count() or 1


def run(argv: Sequence[str], stdin: TextIO | None, stdout: TextIO | None, stderr: TextIO | None, *, prog: str = PROG) -> int:
    """The command line on these streams; `prog` is the program's name as its help shows it."""
    argv = list(argv)
    if argv[:1] == ["eval"]:
        from ._eval import run as run_eval  # a subcommand of its own

        return run_eval(argv[1:], stdin, stdout, stderr, prog=prog + " eval")
    if argv[:1] == ["extract"]:
        return run_extract(argv[1:], stdin, stdout, stderr, prog=prog + " extract")
    try:
        parser = _parser()
        parser.prog = prog
        # Intermixed: `chunker docs -r more.md` takes both paths, wherever the options stand.
        args = parser.parse_intermixed_args(_normalise(argv))
        if args.format not in CLI_FORMATS:
            raise ChunkerError(f"unknown format {args.format!r}: choose one of {', '.join(CLI_FORMATS)}")
        if args.id_column is not None and args.text_column is None:
            raise ChunkerError("--id-column names a column of a dataset: give --text-column too")
        settings = settings_from(args)
        limit = _max_chunk_chars(args.max_chunk_chars)
        if args.encoding is not None:
            text_encoding(args.encoding)  # a bad name is one line before any file is read
        jobs = _jobs(args.jobs)
        if args.resume and (args.output is None or args.output == "-"):
            raise ChunkerError("--resume needs --output FILE: the file the records are written to, and resumed in")
        paths: list[str] = args.files or ["-"]
        if paths.count("-") > 1:
            raise ChunkerError("'-' is given more than once: standard input can be read only once")
        items, named = find_inputs(paths, recursive=args.recursive, keep_going=args.keep_going, output=args.output)
        if args.text_column is not None:
            from ._datasets import dataset_rows

            items, named = dataset_rows(items, args.text_column, args.id_column), True
        # Loaded here, once: workers forked from this process have it, and a tokenizer that
        # cannot load is one error, not one for every file.
        get_tokenizer(settings.tokenizer)
        if args.format == "parquet":
            if args.resume:
                raise ChunkerError("--resume writes jsonl, json or txt: a Parquet file cannot be resumed (its footer comes last)")
            if args.stats or args.advice:
                raise ChunkerError("--stats and --advice are JSON objects: leave out --format parquet")
            from ._datasets import record_schema

            record_schema()  # pyarrow missing: one line before any file is read
        job = Job(
            settings,
            "jsonl" if args.format == "parquet" else args.format,
            "stats" if args.stats else "advice" if args.advice else "records",
            args.raw,
            args.keep_running,
            limit,
            named,
            args.encoding,
        )
        stdin_data = read_bytes("-", stdin) if "-" in paths else None
        failed = _chunk_into(job, items, args, stdin_data, stdout, stderr, jobs)
        for message in failed:
            _say(stderr, message)
        return 1 if failed else 0
    except ChunkerError as e:
        _say(stderr, str(e))
        return 2
    except (OutputError, WorkerError) as e:
        _say(stderr, str(e))
        return 1
    except MemoryError:
        _say(stderr, "out of memory: chunk fewer or smaller files at a time, or lower the overlap")
        return 1


def _chunk_into(
    job: Job,
    items: list[Input],
    args: argparse.Namespace,
    stdin_data: bytes | str | None,
    stdout: TextIO | None,
    stderr: TextIO | None,
    jobs: int,
) -> list[str]:
    """Write every file's records in order; the files that failed (with --keep-going), one
    message each. Without --keep-going the first failure (in input order) is raised."""
    frame = job.frame
    failed: list[str] = []
    sink: Sink | ResumeSink
    if args.resume:
        if "-" in [i.path for i in items]:
            raise ChunkerError("--resume reads files, not standard input: name the files")
        sink = ResumeSink(args.output, job_key(job), items)
        failed.extend(sink.failed)
        if sink.complete:
            with sink:
                return failed
        items = items[sink.skip :]
    else:
        sink = Sink(args.output, stdout)
    progress = Progress(items, stderr) if job.named and stderr is not None and stderr.isatty() else None
    with sink:
        parquet = None
        if args.format == "parquet":
            from ._datasets import ParquetWriter

            parquet = ParquetWriter(sink.file, embeds(job.settings))
        first = sink.first if isinstance(sink, ResumeSink) else True  # no record written yet
        begun = False  # this input's records have begun
        try:
            for item, kind, payload in chunk_all(
                job,
                items,
                jobs=jobs,
                stdin_data=stdin_data,
                done=progress.step if progress else None,
                stop_on_error=not args.keep_going,
            ):
                if kind == "part" and isinstance(payload, str):  # a note: the file was cut another way
                    _note(stderr, payload)
                    continue
                if parquet is not None:
                    if kind == "part":
                        parquet.write(payload)
                    else:
                        parquet.done()
                if kind == "part" and parquet is None:
                    if not begun:
                        sink.write((frame.open if first else frame.sep).encode("utf-8"))
                        first, begun = False, True
                    sink.write(payload)
                if kind == "part":
                    continue
                begun = False
                if kind == "error":
                    if not args.keep_going:
                        raise ChunkerError(_naming(item.label, payload))
                    failed.append(_naming(item.label, payload))
                if isinstance(sink, ResumeSink):
                    sink.done(item, failed[-1] if kind == "error" else None)
        finally:
            if progress is not None:
                progress.finish()
        if parquet is not None:
            parquet.close()
        else:
            sink.write((frame.empty if first else frame.close).encode("utf-8"))
        sink.commit()
    return failed


def _naming(label: str, message: str) -> str:
    """`message` as "<file>: <reason>" (a reader's errors say "<file> is ...")."""
    if message.startswith(label + ": "):
        return message
    if message.startswith(label + " "):
        return f"{label}: {message[len(label) + 1 :]}"
    return f"{label}: {message}"


def run_extract(
    argv: Sequence[str], stdin: TextIO | None, stdout: TextIO | None, stderr: TextIO | None, *, prog: str = PROG + " extract"
) -> int:
    """`python -m chunker extract FILE`: the text a document is chunked as, which every record's
    offsets index. A PDF's pages are separated by a form feed (U+000C)."""
    p = _Parser(
        prog=prog,
        description="`%(prog)s FILE`: the text a document is chunked as, which every "
        "record's offsets index. A PDF's pages are separated by a form feed (U+000C).",
    )
    p.add_argument("file", metavar="FILE", help="a PDF, Word (.docx), HTML or UTF-8 text file; '-' reads standard input")
    add_reading_options(p)
    p.add_argument("--output", "-o", metavar="FILE", help="write to FILE (through a temporary file, renamed only once complete)")
    try:
        args = p.parse_args(list(argv))
        if args.output and args.file != "-" and is_the_output(args.file, args.output):
            raise ChunkerError(
                f"{shown_name(args.file)}: is also the output (--output {shown_name(args.output)}): "
                "write the text to another file"
            )
        text = read_document(args.file, stdin, raw=args.raw, keep_running=args.keep_running, encoding=args.encoding).text
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


def program_name(argv0: str) -> str:
    """The program's name as run: the console script's file name (``chunker``), or
    ``python -m chunker`` when there is no such name (``python -m`` runs ``__main__.py``)."""
    name = os.path.basename(argv0)
    return PROG if name in ("", "-c", "__main__.py") else name


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> int:
    """The command line on this process's streams. `prog`: the program's name for its help
    (default: what was run, `program_name(sys.argv[0])`)."""
    if argv is None:
        argv = sys.argv[1:]
    if prog is None:
        prog = program_name(sys.argv[0] if sys.argv else "")
    catch_stopping()
    try:
        return run(argv, sys.stdin, sys.stdout, sys.stderr, prog=prog)
    except Stopped as e:  # cleaned up on the way here: the workers stopped
        remove_pending()  # and no temporary output file left, wherever the signal came
        return end_of(e.signum)
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
