"""Ray Data: `chunk_dataset`, one row per chunk of every document of a dataset.

Needs ``pip install 'chunker[ray]'`` (ray[data]), on the driver and on every worker.

    import ray
    from chunker.ray import chunk_dataset

    docs = ray.data.read_parquet("s3://bucket/docs/")            # a `text` column, and others
    chunks = chunk_dataset(docs, size=512, overlap="10%", tokenizer="o200k")
    chunks.write_parquet("s3://bucket/chunks/")

Each block is cut by `chunker.arrow.chunk_table`, a plain function of the block and the
settings, so it runs the same on a laptop's local Ray and on a cluster; nothing is kept on the
driver. See docs/pipelines.md.
"""

from __future__ import annotations

from typing import Any

from ._adapters import chunk_options

try:
    import ray.data

    from .arrow import CHUNK_SCHEMA, check_columns, chunk_table
except ModuleNotFoundError as e:  # only a missing Ray; a broken one keeps its own error
    if (e.name or "").split(".")[0] not in ("ray", "pyarrow"):
        raise
    raise ImportError("chunker.ray needs Ray Data: pip install 'chunker[ray]'") from None
except ImportError as e:  # chunker.arrow's own line names pyarrow; Ray is what to install here
    if "chunker.arrow needs pyarrow" not in str(e):
        raise
    raise ImportError("chunker.ray needs Ray Data: pip install 'chunker[ray]'") from None

__all__ = ["CHUNK_SCHEMA", "chunk_dataset"]


def chunk_dataset(ds: ray.data.Dataset, text_column: str = "text", **settings: Any) -> ray.data.Dataset:
    """`ds` cut into chunks: one row per chunk, exactly as ``chunker.chunk`` cuts each row's text.

    Each output row has every other column of its input row as it was, then every field of
    the chunk record (`CHUNK_SCHEMA`: `index`, `start_char`, `end_char`, `text`, ...), whose
    offsets index the input row's `text_column`. The text column itself is not repeated on each
    chunk; keep an id column to join back to it. `settings` are `chunker.chunk`'s (`strategy`,
    `unit`, `size`, `overlap`, `tokenizer`, `breaks`, `max_chunk_chars`), checked here on the
    driver: bad ones raise `chunker.ChunkerError` before anything runs.

    Lazy, like every Ray Data transform: nothing is read or cut until the dataset is consumed.
    A missing `text_column`, or an input column named like a chunk field (say `index`), raises
    `ChunkerError` here when the dataset's columns are known without reading it, and stops the
    job otherwise; so does a row whose text is not a string. A worker's `ChunkerError` reaches
    the driver inside Ray's own exception (`ray.exceptions.RayTaskError`), its one-line
    message included.
    """
    options = chunk_options(settings, owner="chunk_dataset")
    # When the columns are already known (an in-memory dataset, Parquet's footer), a wrong
    # text_column or a clashing name fails here; otherwise the workers say so.
    columns = ds.columns(fetch_if_missing=False)
    if columns is not None:
        check_columns(list(columns), text_column)
    else:
        check_columns([text_column], text_column)  # at least a text_column that is a name
    # batch_size=None: a whole block per call, so blocks are never bundled together and the
    # dataset's own partitioning decides the parallelism. The function ships by reference
    # (chunker.arrow.chunk_table) with plain settings: no state of the driver's goes along.
    return ds.map_batches(chunk_table, batch_format="pyarrow", batch_size=None, fn_kwargs={"text_column": text_column, **options})
