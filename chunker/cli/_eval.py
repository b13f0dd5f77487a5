"""`python -m chunker eval DOCUMENT QUESTIONS.jsonl`: does this chunking retrieve the answers?

Chunks DOCUMENT as ``python -m chunker DOCUMENT`` would with the same options (so the chunk
indices printed are that command's), ranks the chunks for each question of QUESTIONS.jsonl
with BM25 and prints one JSON object: the mean recall, precision, IoU, hit rate and MRR of
the top k, and each question's retrieved chunks and scores.

With ``--sweep`` it does so for every strategy of ``--strategies`` at every size of
``--sizes`` and prints one row per setting: JSON Lines, or an aligned table when standard
output is a terminal. Each row's ``best`` names the metrics ("recall", "iou") no other row
beats. A sweep's overlap defaults to 10% of each size.

Every error is one line on stderr, "chunker: error: ...", and exit status 2; nothing is
printed until everything has been read and measured.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from typing import Any, TextIO

from .._errors import ChunkerError
from ..documents import shown_name
from ..retrieval._eval import (
    INDEXES,
    SWEEP_OVERLAP,
    SWEEP_SIZES,
    SWEEP_STRATEGIES,
    SweepRow,
    evaluate,
    mark_best,
    sweep,
)
from ..retrieval._questions import Question, load_questions
from ..session._api import Document
from ._common import (
    _max_chunk_chars,
    _normalise,
    _Parser,
    _say,
    add_chunk_options,
    add_reading_options,
    given_options,
    read_input,
    settings_from,
)
from ._inputs import read_document

__all__ = ["run"]


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="python -m chunker eval",
        description="Check how well BM25 retrieves the answers to your questions from the chunks.",
        epilog=f"With --sweep, the overlap defaults to {SWEEP_OVERLAP} of each size.",
    )
    p.add_argument("document", metavar="DOCUMENT", help="a PDF, Word (.docx), HTML or UTF-8 text file; '-' reads standard input")
    p.add_argument(
        "questions",
        metavar="QUESTIONS.jsonl",
        help='one {"question": ..., "references": [{"start_index": ..., "end_index": ...}]} per line',
    )
    # The chunking options, from the table of options; with --sweep, --strategies and --sizes
    # stand for --strategy and --size, and the overlap defaults to 10% of each size.
    add_chunk_options(p, surface="eval")
    add_reading_options(p)
    p.add_argument("--top-k", default="5", metavar="K", help="chunks retrieved per question (default 5)")
    p.add_argument("--k1", default="1.5", help="BM25 term-frequency saturation (default 1.5)")
    p.add_argument("--b", default="0.75", help="BM25 length normalisation, 0 to 1 (default 0.75)")
    p.add_argument(
        "--with-headings", action="store_true", help="rank each chunk with its heading path before its text, as it is embedded"
    )
    p.add_argument(
        "--index",
        default=INDEXES[0],
        metavar="WHAT",
        help="what each chunk is ranked by: text (its own) | embedded (its embed_text: the --context, then the text) "
        f"(default {INDEXES[0]})",
    )
    p.add_argument("--sweep", action="store_true", help="evaluate every strategy at every size")
    p.add_argument(
        "--strategies", default=None, help=f"with --sweep: comma-separated strategies (default {','.join(SWEEP_STRATEGIES)})"
    )
    p.add_argument(
        "--sizes", default=None, help=f"with --sweep: comma-separated sizes (default {','.join(map(str, SWEEP_SIZES))})"
    )
    return p


def _number(option: str, value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not math.isfinite(number):
        raise ChunkerError(f"{option} must be a number, got {value!r}")
    return number


def _top_k(value: str) -> int:
    try:
        k = int(value)
    except ValueError:
        k = 0
    if k < 1:
        raise ChunkerError(f"--top-k must be a whole number of at least 1, got {value!r}")
    return k


def _list(option: str, value: str) -> list[str]:
    items = [v.strip() for v in value.split(",") if v.strip()]
    if not items:
        raise ChunkerError(f"{option} is empty: give a comma-separated list")
    return items


def _sizes(value: str) -> list[int]:
    try:
        return [int(v) for v in _list("--sizes", value)]
    except ValueError:
        raise ChunkerError(f"--sizes must be whole numbers separated by commas, got {value!r}") from None


def _check_mode(args: argparse.Namespace) -> None:
    """One setting takes --strategy and --size; a sweep takes --strategies and --sizes."""
    pairs = {"--strategy": "--strategies", "--size": "--sizes"}
    for one, many in pairs.items():
        given_one = getattr(args, one[2:]) is not None
        given_many = getattr(args, many[2:]) is not None
        if args.sweep and given_one:
            raise ChunkerError(f"{one} does not go with --sweep: give {many} instead")
        if not args.sweep and given_many:
            raise ChunkerError(f"{many} only applies with --sweep: add --sweep, or give {one} for one setting")


def _table(rows: Sequence[SweepRow], questions: int) -> str:
    head = ["strategy", "size", "chunks", "recall", "precision", "IoU", "hit rate", "MRR", ""]
    body = [
        [
            r.strategy,
            str(r.size),
            str(r.chunks),
            f"{r.recall:.3f}",
            f"{r.precision:.3f}",
            f"{r.iou:.3f}",
            f"{r.hit_rate:.3f}",
            f"{r.mrr:.3f}",
            ("← best " + " and ".join("IoU" if m == "iou" else m for m in r.best)) if r.best else "",
        ]
        for r in rows
    ]
    widths = [max(len(line[i]) for line in [head, *body]) for i in range(len(head))]

    def fmt(line: list[str]) -> str:
        cells = [line[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(line[1:-1], widths[1:-1])]
        return ("  ".join(cells) + "  " + line[-1]).rstrip()

    first = rows[0]
    note = (
        f"{len(rows)} settings, unit {first.unit}, overlap {first.overlap}, tokenizer {first.tokenizer}; "
        f"means over {questions} questions of the top {first.top_k} chunks by BM25"
    )
    return "\n".join([fmt(head), *map(fmt, body), note]) + "\n"


def _progress(done: int, total: int, err: TextIO) -> None:
    err.write(f"\r{done}/{total} settings measured")
    if done == total:
        err.write("\n")
    err.flush()


def run(
    argv: Sequence[str],
    stdin: TextIO | None,
    stdout: TextIO | None,
    stderr: TextIO | None,
    *,
    prog: str = "python -m chunker eval",
) -> int:
    try:
        parser = _parser()
        parser.prog = prog
        args = parser.parse_args(_normalise(argv))
        _check_mode(args)
        top_k, k1, b = _top_k(args.top_k), _number("--k1", args.k1), _number("--b", args.b)
        if args.document == "-" and args.questions == "-":
            raise ChunkerError("DOCUMENT and QUESTIONS.jsonl cannot both be standard input: name a file for one")
        limit = _max_chunk_chars(args.max_chunk_chars)
        if args.sweep:
            strategies = _list("--strategies", args.strategies or ",".join(SWEEP_STRATEGIES))
            sizes = _sizes(args.sizes) if args.sizes is not None else list(SWEEP_SIZES)
            common = given_options(args, "eval")
            overlap = common.pop("overlap", SWEEP_OVERLAP)
        else:
            settings = settings_from(args, "eval")
        document = read_document(args.document, stdin, raw=args.raw, keep_running=args.keep_running, encoding=args.encoding)
        name = "standard input" if args.questions == "-" else shown_name(args.questions)
        text = read_input(args.questions, stdin)  # its errors name the file themselves
        try:
            questions = load_questions(text, document.text)
        except ChunkerError as e:
            raise ChunkerError(f"{name}: {e}") from None
        if not questions:
            raise ChunkerError(
                f"{name} holds no questions: write one JSON object per line, "
                '{"question": ..., "references": [{"start_index": ..., "end_index": ...}]}'
            )
        if args.sweep:
            rows = _sweep(
                document,
                questions,
                strategies,
                sizes,
                overlap,
                common,
                top_k,
                k1,
                b,
                args.with_headings,
                limit,
                stderr,
                args.index,
            )
            out = (
                _table(rows, len(questions))
                if stdout is not None and stdout.isatty()
                else "".join(json.dumps(r.to_dict(), ensure_ascii=False) + "\n" for r in rows)
            )
        else:
            result = document.run(settings, max_chunk_chars=limit)
            ev = evaluate(
                document, result, questions, top_k=top_k, k1=k1, b=b, with_headings=args.with_headings, index=args.index
            )
            out = json.dumps(ev.to_dict(), ensure_ascii=False) + "\n"
    except ChunkerError as e:
        _say(stderr, str(e))
        return 2
    from ._output import OutputError, _write  # the shared, checked writer

    try:
        _write([out], stdout)
    except OutputError as e:
        _say(stderr, str(e))
        return 1
    return 0


def _sweep(
    document: Document,
    questions: Sequence[Question],
    strategies: list[str],
    sizes: list[int],
    overlap: int | str,
    common: dict[str, Any],
    top_k: int,
    k1: float,
    b: float,
    with_headings: bool,
    max_chunk_chars: int | None,
    stderr: TextIO | None,
    index: str = INDEXES[0],
) -> tuple[SweepRow, ...]:
    rows = sweep(
        document,
        questions,
        strategies=strategies,
        sizes=sizes,
        overlap=overlap,
        top_k=top_k,
        k1=k1,
        b=b,
        with_headings=with_headings,
        index=index,
        max_chunk_chars=max_chunk_chars,
        **common,
    )
    total = len(strategies) * len(sizes)
    show = stderr is not None and stderr.isatty()
    done = []
    for row in rows:  # one Document: its tokens and its terms are measured once for all rows
        done.append(row)
        if show:
            _progress(len(done), total, stderr)  # type: ignore[arg-type]
    return mark_best(done)
