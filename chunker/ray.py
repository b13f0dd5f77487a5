"""Ray Data: `chunk_dataset`, one row per chunk of every document of a dataset.

Needs ``pip install 'chunker[ray]'`` (ray[data]), on the driver and on every worker.

    import ray
    from chunker.ray import chunk_dataset

    docs = ray.data.read_parquet("s3://bucket/docs/")            # a `text` column, and others
    chunks = chunk_dataset(docs, size=512, overlap="10%", tokenizer="o200k")
    chunks.write_parquet("s3://bucket/chunks/")

The work is a plain function of each block and the settings, so it runs the same on a laptop's
local Ray and on a cluster; nothing is kept on the driver. See docs/pipelines.md.
"""

from __future__ import annotations

from typing import Any

from ._adapters import chunk_options
from ._api import chunk
from ._errors import ChunkerError

try:
    import pyarrow as pa
    import ray.data
except ModuleNotFoundError as e:  # only a missing Ray; a broken one keeps its own error
    if (e.name or "").split(".")[0] not in ("ray", "pyarrow"):
        raise
    raise ImportError("chunker.ray needs Ray Data: pip install 'chunker[ray]'") from None

__all__ = ["CHUNK_SCHEMA", "chunk_dataset"]

CHUNK_SCHEMA = pa.schema([
    ("index", pa.int64()),
    ("start_char", pa.int64()),
    ("end_char", pa.int64()),
    ("text", pa.string()),
    ("chars", pa.int64()),
    ("words", pa.int64()),
    ("tokens", pa.int64()),
    ("tokens_estimated", pa.bool_()),
    ("overlap_chars", pa.int64()),
    ("flags", pa.list_(pa.string())),
    ("headings", pa.list_(pa.string())),
])
"""The columns `chunk_dataset` adds: `Chunk.to_dict()`'s fields, typed. Given explicitly, so a
block whose chunks have no flags at all, or a block of no chunks, has the same schema as the rest."""


def chunk_dataset(ds: ray.data.Dataset, text_column: str = "text", **settings: Any) -> ray.data.Dataset:
    """`ds` cut into chunks: one row per chunk, exactly as ``chunker.chunk`` cuts each row's text.

    Each output row has every field of the chunk record (`CHUNK_SCHEMA`: `index`, `start_char`,
    `end_char`, `text`, ...), whose offsets index the input row's `text_column`, and every
    other column of its input row as it was. The input's `text_column` itself is not repeated
    on each chunk; keep an id column to join back to it. `settings` are `chunker.chunk`'s
    (`strategy`, `unit`, `size`, `overlap`, `tokenizer`, `breaks`, `max_chunk_chars`), checked
    here on the driver: bad ones raise `chunker.ChunkerError` before anything runs.

    Lazy, like every Ray Data transform: nothing is read or cut until the dataset is consumed.
    A missing `text_column`, or an input column named like a chunk field (say `index`), raises
    `ChunkerError` here when the dataset's columns are known without reading it, and stops the
    job otherwise; so does a row whose text is not a string. A worker's `ChunkerError` reaches
    the driver inside Ray's own exception (`ray.exceptions.RayTaskError`), its one-line
    message included.
    """
    if not isinstance(text_column, str) or not text_column:
        raise ChunkerError(f"text_column must be a column name, got {text_column!r}")
    options = chunk_options(settings, owner="chunk_dataset")
    # When the columns are already known (an in-memory dataset, Parquet's footer), a wrong
    # text_column or a clashing name fails here; otherwise the workers say so.
    columns = ds.columns(fetch_if_missing=False)
    if columns is not None:
        _check_columns(list(columns), text_column)
    # batch_size=None: a whole block per call, so blocks are never bundled together and the
    # dataset's own partitioning decides the parallelism.
    return ds.map_batches(_chunk_block, batch_format="pyarrow", batch_size=None,
                          fn_kwargs={"text_column": text_column, "options": options})


def _check_columns(names: list[str], text_column: str) -> list[str]:
    """The columns besides `text_column`; ChunkerError if it is missing or another column has
    the name of a chunk field (one of them would be lost)."""
    if text_column not in names:
        raise ChunkerError(f"the dataset has no column {text_column!r} (it has {', '.join(names)}): "
                           "pass text_column=")
    others = [n for n in names if n != text_column]
    clash = [n for n in others if n in CHUNK_SCHEMA.names]
    if clash:
        raise ChunkerError(f"input column {clash[0]!r} has the name of a chunk field: rename it "
                           f"first, e.g. ds.rename_columns({{{clash[0]!r}: 'doc_{clash[0]}'}})")
    return others


def _chunk_block(block: pa.Table, *, text_column: str, options: dict[str, Any]) -> pa.Table:
    """One block's chunks: the function Ray ships to its workers (module-level, so it pickles
    by reference, and it reads nothing but its arguments)."""
    if block.num_rows == 0 and text_column not in block.column_names:
        return CHUNK_SCHEMA.empty_table()  # an empty block may come without the columns
    others = _check_columns(block.column_names, text_column)
    rows: list[int] = []
    columns: dict[str, list[Any]] = {name: [] for name in CHUNK_SCHEMA.names}
    for i, text in enumerate(block.column(text_column).to_pylist()):
        if not isinstance(text, str):
            raise ChunkerError(f"column {text_column!r} holds {type(text).__name__} in a row, not text: "
                               "filter such rows out or decode them first")
        for c in chunk(text, **options).chunks:
            rows.append(i)
            for name, value in c.to_dict().items():
                columns[name].append(value)
    # The input row's other columns, one copy per chunk, in their own Arrow types.
    kept = block.select(others).take(pa.array(rows, type=pa.int64()))
    arrays = [*kept.columns, *(pa.array(columns[f.name], type=f.type) for f in CHUNK_SCHEMA)]
    # Made from the arrays, not by appending to `kept`: a table of no columns has no rows.
    return pa.Table.from_arrays(arrays, schema=pa.schema([*kept.schema, *CHUNK_SCHEMA]))
