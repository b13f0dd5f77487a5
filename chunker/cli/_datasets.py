"""Datasets in and Parquet out: ``--text-column`` reads JSON Lines and Parquet files whose
rows are documents, ``--format parquet`` writes the records as one Parquet file.

pyarrow is imported only here, and only for Parquet (JSON Lines in needs none). A row is an
input of its own (`Input` with its text), so a bad row (no text, or not text) is one reported
failure that --keep-going passes over, as the engines report one (`chunker.arrow`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from .._errors import ChunkerError
from ..documents import MAX_BYTES, shown_name
from ..results._schema import record_fields
from ._inputs import Input

_PARQUET = (".parquet", ".pq")
_LINES = (".jsonl", ".ndjson", ".json")


def _arrow() -> Any:
    try:
        import pyarrow
    except ModuleNotFoundError as e:
        if (e.name or "").split(".")[0] != "pyarrow":
            raise
        raise ChunkerError("Parquet needs pyarrow: pip install pyarrow (or read and write JSON Lines)") from None
    return pyarrow


def dataset_rows(items: Sequence[Input], text_column: str, id_column: str | None) -> list[Input]:
    """Every row of every dataset file, in order, as an input: its text from `text_column`, its
    source from `id_column` (as text), or ``FILE#ROW`` (the file's source and the row's number
    from 0). A file that cannot be read, or lacks a column, is one failed input."""
    out: list[Input] = []
    for item in items:
        if item.error is not None:
            out.append(item)
            continue
        try:
            texts, ids = _columns(item, text_column, id_column)
        except ChunkerError as e:
            out.append(Input(item.path, item.name, item.size, str(e)))
            continue
        base = item.source or item.name
        for k, (text, ident) in enumerate(zip(texts, ids)):
            source = str(ident) if ident is not None else f"{base}#{k}"
            label = f"{item.name}#{k}"
            if id_column is not None and not _unicode(source):
                # A lone surrogate (JSON's "\ud800") is no text a record or a message can carry.
                error = f"{label}: column {id_column!r} holds a lone surrogate, not Unicode text: give every row a text id"
                out.append(Input(item.path, label, 0, error, row_source=base))
                continue
            if id_column is not None:
                label = f"{label} ({shown_name(source)[:60]})"
            if not isinstance(text, str):
                what = "null" if text is None else type(text).__name__
                error = f"{label}: column {text_column!r} holds {what}, not text: give every row text, or filter such rows out"
                out.append(Input(item.path, label, 0, error, row_source=source))
            elif _over(text):
                # A row is a document: held to a file's limit, as a few bytes of Parquet can
                # hold megabytes of text.
                error = (
                    f"{label}: column {text_column!r} holds over {MAX_BYTES / 1e6:g} MB of text, "
                    "the limit for one document: split the row"
                )
                out.append(Input(item.path, label, 0, error, row_source=source))
            else:
                out.append(Input(item.path, label, len(text), None, text, source))
    return out


def _unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _over(text: str) -> bool:
    """Whether `text` is more than `MAX_BYTES` of UTF-8 (counted without encoding a short one)."""
    if len(text) * 4 <= MAX_BYTES:
        return False
    return len(text) > MAX_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES


# What one Parquet file's rows may hold in all, beside the limit of one row (MAX_BYTES): real
# text compresses some 3 to 20 times, so a file whose rows decode past 100 times its size (and
# past 256 MB) is a compression bomb (an 808-byte file held a 4 MB row, 3 KB a million rows).
_DATASET_GROWTH = 100
_DATASET_FLOOR = 256_000_000
_BATCH_ROWS = 256  # rows decoded at a time: the total is checked before the next batch is


def _parquet_rows(pyarrow: Any, file: Any, item: Input, text_column: str, id_column: str | None) -> tuple[list[Any], list[Any]]:
    """The columns' values, batch by batch, refused once the rows' bytes pass what the file's
    size can honestly hold (`_DATASET_GROWTH`)."""
    import pyarrow.compute as pc

    wanted = [text_column, *([id_column] if id_column else [])]
    limit = max(_DATASET_FLOOR, _DATASET_GROWTH * max(item.size, 1))
    texts: list[Any] = []
    ids: list[Any] = []
    held = 0
    for batch in file.iter_batches(batch_size=_BATCH_ROWS, columns=wanted):
        for column in wanted:
            values = batch.column(column)
            if pyarrow.types.is_string(values.type) or pyarrow.types.is_large_string(values.type):
                held += pc.sum(pc.binary_length(values)).as_py() or 0
            held += len(values)  # a row's own cost, whatever it holds
        if held > limit:
            raise ChunkerError(
                f"{item.name}: its rows hold over {limit / 1e6:,.0f} MB, more than {_DATASET_GROWTH} times its size: "
                "a Parquet file this small cannot honestly hold that much; split it or rewrite it uncompressed"
            )
        texts += batch.column(text_column).to_pylist()
        ids += batch.column(id_column).to_pylist() if id_column else [None] * batch.num_rows
    return texts, ids


def _columns(item: Input, text_column: str, id_column: str | None) -> tuple[list[Any], list[Any]]:
    name = item.name
    if item.path == "-" or not item.path.lower().endswith(_PARQUET + _LINES):
        raise ChunkerError(f"{name}: --text-column reads Parquet (.parquet) and JSON Lines (.jsonl) files, not this one")
    wanted = [text_column, *([id_column] if id_column else [])]
    if item.path.lower().endswith(_PARQUET):
        pyarrow = _arrow()
        import pyarrow.parquet as pq

        try:
            schema = pq.read_schema(item.path)
            missing = [c for c in wanted if c not in schema.names]
            if missing:
                raise ChunkerError(f"{name}: has no column {missing[0]!r} (it has {', '.join(schema.names)})")
            texts, ids = _parquet_rows(pyarrow, pq.ParquetFile(item.path), item, text_column, id_column)
        except (OSError, pyarrow.ArrowException) as e:  # ArrowInvalid: empty, cut short, not Parquet
            raise ChunkerError(f"{name}: cannot read it as Parquet ({' '.join(str(e).split())})") from None
        return texts, ids
    texts, ids = [], []
    try:
        with open(item.path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as e:
                    raise ChunkerError(f"{name}: line {number} is not JSON ({e.msg}): one JSON object a line") from None
                except RecursionError:
                    raise ChunkerError(f"{name}: line {number} nests too deep to read: one flat JSON object a line") from None
                except ValueError:  # Python's limit on an integer's digits (4,300)
                    raise ChunkerError(f"{name}: line {number} holds a number too long to read: write it as a string") from None
                if not isinstance(row, dict):
                    raise ChunkerError(f"{name}: line {number} is not a JSON object: one object a line")
                for c in wanted:
                    if c not in row:
                        raise ChunkerError(f"{name}: line {number} has no {c!r} (it has {', '.join(row) or 'nothing'})")
                texts.append(row[text_column])
                ids.append(row[id_column] if id_column else None)
    except UnicodeDecodeError as e:
        raise ChunkerError(f"{name}: not UTF-8 text (bad byte at offset {e.start})") from None
    except OSError as e:
        raise ChunkerError(f"{name}: cannot read it ({e.strerror or e})") from None
    return texts, ids


def record_schema(embed: bool = True) -> Any:
    """The records' fields as an Arrow schema (`chunker.results._schema.record_fields`): the
    embed text's columns when the settings embed (`chunker.results._schema.embeds`), null on a
    record the JSON Lines leave them out of. A file's schema is fixed before any input is read,
    so the settings decide, as they decide the engines' columns."""
    pa = _arrow()
    types = {"string": pa.string(), "int": pa.int64(), "bool": pa.bool_(), "strings": pa.list_(pa.string())}
    return pa.schema([(f.name, types[f.kind]) for f in record_fields(embed)])


class ParquetWriter:
    """Records rendered as JSON Lines, input by input, written to `file` as one Parquet file
    of `record_schema(embed)`: each input's records are one row group (none for an input
    without). A record with a field the schema lacks is an error, never dropped."""

    def __init__(self, file: Any, embed: bool) -> None:
        import pyarrow.json as pj
        import pyarrow.parquet as pq

        _arrow()
        self.schema = record_schema(embed)
        self._json = pj
        self._options = pj.ParseOptions(explicit_schema=self.schema, unexpected_field_behavior="error")
        self.writer = pq.ParquetWriter(file, self.schema)
        self.held: list[bytes] = []

    def write(self, block: bytes) -> None:
        self.held.append(block)

    def done(self) -> None:
        """The input whose blocks were written is complete: its row group."""
        if not self.held:
            return
        import io

        data, self.held = b"".join(self.held), []
        table = self._json.read_json(io.BytesIO(data), parse_options=self._options).select(self.schema.names)
        self.writer.write_table(table.cast(self.schema))

    def close(self) -> None:
        self.writer.close()
