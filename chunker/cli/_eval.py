"""`python -m chunker eval DOCUMENT QUESTIONS.jsonl`: does this chunking retrieve the answers?

Chunks DOCUMENT as ``python -m chunker DOCUMENT`` would with the same options (so the chunk
indices printed are that command's), ranks the chunks for each question of QUESTIONS.jsonl
with BM25 and prints one JSON object: the mean recall, precision, IoU, hit rate and MRR of
the top k, and each question's retrieved chunks and scores.

Each metric comes with its standard deviation over the questions, and Precision_Ω (the
precision had exactly the chunks holding each answer been retrieved). When the top k is half
the chunks or more the object carries a ``warning`` (also said on stderr): any ranking then
retrieves most answers.

With ``--compare "OPTIONS"`` it evaluates a second setting too: the first one's options with
those in OPTIONS over them (``--compare "--strategy sentence --size 128"``), on the same
questions, and prints both evaluations (``a`` and ``b``) and, per metric, the paired
bootstrap 95% interval on b's mean minus a's (``difference``): an interval that holds 0 says
these questions cannot tell the two apart. A terminal gets a table instead.

With ``--sweep`` it does so for every strategy of ``--strategies`` at every size of
``--sizes`` and prints one row per setting: JSON Lines, or an aligned table when standard
output is a terminal. Each row's ``best`` names the metrics ("recall", "iou") no other row
beats, and ``versus_best`` the interval on its difference from that best row. A row whose
top k is half its chunks or more is never best. A sweep's overlap defaults to 10% of each size.

Every error is one line on stderr, "chunker: error: ...", and exit status 2; nothing is
printed until everything has been read and measured.
"""

from __future__ import annotations

import argparse
import json
import math
import shlex
from collections.abc import Sequence
from typing import Any, TextIO

from .._errors import ChunkerError
from ..documents import shown_name
from ..retrieval._eval import (
    INDEXES,
    SWEEP_OVERLAP,
    SWEEP_SIZES,
    SWEEP_STRATEGIES,
    Evaluation,
    SweepRow,
    compare,
    evaluate,
    mark_best,
    sweep,
)
from ..retrieval._questions import Question, load_questions
from ..retrieval._stats import CONFIDENCE, RESAMPLES, SEED, Interval
from ..session._api import Document
from ..settings._options import Settings
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
    _add_retrieval_options(p, defaults=True)
    p.add_argument(
        "--compare",
        default=None,
        metavar="OPTIONS",
        help="evaluate a second setting too, the options in OPTIONS over this one's (e.g. "
        '--compare "--strategy sentence --size 128"), and print a paired bootstrap 95%% '
        "interval on each metric's difference",
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


def _add_retrieval_options(p: argparse.ArgumentParser, *, defaults: bool) -> None:
    """How the chunks are retrieved; without `defaults` (inside --compare) an option not
    given is None, so the first setting's value stands."""
    p.add_argument("--top-k", default="5" if defaults else None, metavar="K", help="chunks retrieved per question (default 5)")
    p.add_argument("--k1", default="1.5" if defaults else None, help="BM25 term-frequency saturation (default 1.5)")
    p.add_argument("--b", default="0.75" if defaults else None, help="BM25 length normalisation, 0 to 1 (default 0.75)")
    p.add_argument(
        "--with-headings",
        action="store_true",
        default=False if defaults else None,
        help="rank each chunk with its heading path before its text, as it is embedded",
    )


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


_LABELS = {
    "recall": "recall",
    "precision": "precision",
    "iou": "IoU",
    "hit_rate": "hit rate",
    "mrr": "MRR",
    "precision_omega": "precision Ω",
}


def _aligned(head: list[str], body: list[list[str]]) -> list[str]:
    """Rows of cells: the first left-aligned, the last free text, the others right-aligned."""
    widths = [max(len(line[i]) for line in [head, *body]) for i in range(len(head))]

    def fmt(line: list[str]) -> str:
        cells = [line[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(line[1:-1], widths[1:-1])]
        return ("  ".join(cells) + "  " + line[-1]).rstrip()

    return [fmt(head), *map(fmt, body)]


def _interval_text(iv: Interval) -> str:
    return f"{iv.difference:+.3f} [{iv.low:+.3f}, {iv.high:+.3f}]"


def _table(rows: Sequence[SweepRow], questions: int) -> str:
    head = ["strategy", "size", "chunks", "recall", "precision", "IoU", "Ω", "hit rate", "MRR"]
    head += [f"{_LABELS[m]} vs best" for m in ("recall", "iou")] + [""]
    body = []
    for r in rows:
        versus = {iv.metric: iv for iv in r.versus_best}
        cells = [r.strategy, str(r.size), str(r.chunks)]
        cells += [f"{getattr(r, m):.3f}" for m in ("recall", "precision", "iou", "precision_omega", "hit_rate", "mrr")]
        cells += ["best" if m in r.best else _interval_text(versus[m]) if m in versus else "" for m in ("recall", "iou")]
        mark = ("← best " + " and ".join(_LABELS[m] for m in r.best)) if r.best else ""
        if r.warning:
            mark = f"* top {r.top_k} of {r.chunks} chunks: not ranked"
        body.append([*cells, mark])
    first = rows[0]
    notes = [
        f"{len(rows)} settings, unit {first.unit}, overlap {first.overlap}, tokenizer {first.tokenizer}; "
        f"means over {questions} questions of the top {first.top_k} chunks by BM25",
        f"vs best: the row's mean minus the best row's, and its paired bootstrap {CONFIDENCE:.0%} interval "
        f"({RESAMPLES} resamples, seed {SEED}); an interval that holds 0 is no real difference",
    ]
    if any(r.warning for r in rows):
        notes.append("*: the top k is half the chunks or more, so any ranking retrieves most answers; such a row is never best")
    if all(r.warning for r in rows):
        notes.append("no setting can be ranked: lower --top-k, or use smaller --sizes")
    return "\n".join([*_aligned(head, body), *notes]) + "\n"


def _describe(settings: Settings, top_k: int) -> str:
    return f"{settings.strategy}, size {settings.size} {settings.unit}, overlap {settings.overlap}, top {top_k}"


def _compared(a: Evaluation, b: Evaluation, sa: Settings, sb: Settings, intervals: Sequence[Interval]) -> dict[str, Any]:
    return {
        "questions": a.questions,
        "confidence": CONFIDENCE,
        "resamples": RESAMPLES,
        "seed": SEED,
        "a": {"settings": sa.to_dict(), **a.to_dict()},
        "b": {"settings": sb.to_dict(), **b.to_dict()},
        "difference": {iv.metric: iv.to_dict() for iv in intervals},
    }


def _compare_table(a: Evaluation, b: Evaluation, sa: Settings, sb: Settings, intervals: Sequence[Interval]) -> str:
    head = ["metric", "a", "b", f"b - a [{CONFIDENCE:.0%} interval]", ""]
    body = []
    for iv in intervals:
        m = iv.metric
        verdict = ("b higher" if iv.low > 0 else "b lower") if iv.excludes_zero else "no real difference on these questions"
        body.append(
            [
                _LABELS[m],
                f"{getattr(a, m):.3f} ±{getattr(a, m + '_std'):.3f}",
                f"{getattr(b, m):.3f} ±{getattr(b, m + '_std'):.3f}",
                _interval_text(iv),
                verdict,
            ]
        )
    notes = [
        f"a: {_describe(sa, a.top_k)}, {a.chunks} chunks",
        f"b: {_describe(sb, b.top_k)}, {b.chunks} chunks",
        f"means ±std over {a.questions} questions; paired bootstrap, {RESAMPLES} resamples, seed {SEED}",
    ]
    notes += [f"warning ({side}): {e.warning}" for side, e in (("a", a), ("b", b)) if e.warning]
    return "\n".join([*_aligned(head, body), *notes]) + "\n"


def _compare_joined(argv: Sequence[str]) -> list[str]:
    """``--compare --size=40`` as ``--compare=--size=40``: its value is options, which argparse
    would otherwise take for options of this command."""
    out: list[str] = []
    it = iter(argv)
    for arg in it:
        value = next(it, None) if arg == "--compare" else None
        out.append(arg if value is None else f"{arg}={value}")
    return out


def _second(args: argparse.Namespace) -> tuple[argparse.Namespace, dict[str, Any]]:
    """The --compare OPTIONS: the second setting's own options, parsed as the command's."""
    try:
        words = shlex.split(args.compare)
    except ValueError as e:
        raise ChunkerError(f"--compare {args.compare!r}: {e}: quote it as one shell word") from None
    p = _Parser(prog="--compare", add_help=False)
    add_chunk_options(p, surface="eval")
    _add_retrieval_options(p, defaults=False)
    try:
        ns = p.parse_args(_normalise(words))
    except ChunkerError as e:
        raise ChunkerError(f'--compare: {e}: give the options of the second setting, e.g. --compare "--size 128"') from None
    given = given_options(ns, "eval")
    extra = [ns.max_chunk_chars, ns.top_k, ns.k1, ns.b, ns.with_headings]
    if not given and all(v is None for v in extra):
        raise ChunkerError(
            f"--compare {args.compare!r} names no option: give what the second setting changes, "
            'e.g. --compare "--strategy sentence --size 128"'
        )
    return ns, given


def _warn(stderr: TextIO | None, message: str) -> None:
    """A line on stderr that does not stop the run (the exit status stays 0)."""
    if stderr is None:
        return
    try:
        stderr.write(f"chunker: warning: {message}\n")
        stderr.flush()
    except (OSError, ValueError):
        pass


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
        args = parser.parse_args(_normalise(_compare_joined(argv)))
        _check_mode(args)
        if args.compare is not None and args.sweep:
            raise ChunkerError("--compare does not go with --sweep: a sweep compares every row with the best row itself")
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
        if args.compare is not None:
            other, changed = _second(args)
            settings_b = Settings(**{**given_options(args, "eval"), **changed})
            limit_b = limit if other.max_chunk_chars is None else _max_chunk_chars(other.max_chunk_chars)
            top_k_b = top_k if other.top_k is None else _top_k(other.top_k)
            k1_b = k1 if other.k1 is None else _number("--k1", other.k1)
            b_b = b if other.b is None else _number("--b", other.b)
            headings_b = args.with_headings or bool(other.with_headings)
        document = read_document(
            args.document,
            stdin,
            raw=args.raw,
            keep_running=args.keep_running,
            encoding=args.encoding,
            folder="eval checks one document: name one of its files",
        )
        name = "standard input" if args.questions == "-" else shown_name(args.questions)
        text = read_input(args.questions, stdin, folder="name the questions file (JSON Lines)")  # its errors name the file
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
            del result
            tty = stdout is not None and stdout.isatty()
            if args.compare is None:
                out = json.dumps(ev.to_dict(), ensure_ascii=False) + "\n"
                warnings = [ev.warning] if ev.warning else []
            else:
                result_b = document.run(settings_b, max_chunk_chars=limit_b)
                ev_b = evaluate(
                    document, result_b, questions, top_k=top_k_b, k1=k1_b, b=b_b, with_headings=headings_b, index=args.index
                )
                intervals = compare(ev, ev_b)
                out = (
                    _compare_table(ev, ev_b, settings, settings_b, intervals)
                    if tty
                    else json.dumps(_compared(ev, ev_b, settings, settings_b, intervals), ensure_ascii=False) + "\n"
                )
                warnings = [f"{side}: {e.warning}" for side, e in (("a", ev), ("b", ev_b)) if e.warning]
            for warning in warnings:
                _warn(stderr, warning)
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
