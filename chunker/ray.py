"""Ray Data: `chunk_dataset`, one row per chunk of every document of a dataset.

Needs ``pip install 'chunkscope[ray]'`` (ray[data]), on the driver and on every worker.

    import ray
    from chunker.ray import chunk_dataset

    docs = ray.data.read_parquet("s3://bucket/docs/")            # a `text` column, and others
    chunks = chunk_dataset(docs, size=512, overlap="10%", tokenizer="o200k")
    chunks.write_parquet("s3://bucket/chunks/")

    files = chunk_files(["corpus/"], strategy="markdown")         # files, read as the CLI reads them

Each block is cut by `chunker.arrow.chunk_table`, a plain function of the block and the
settings, so it runs the same on a laptop's local Ray and on a cluster; nothing is kept on the
driver. A file's bytes are read by the command line's own reader, so a file gives the same
records, ids included, as `python -m chunker` gives it. See docs/pipelines.md.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any

from ._adapters import chunk_options
from ._errors import ChunkerError

try:
    import ray.data

    from .arrow import (
        CHUNK_SCHEMA,
        EMBED_SCHEMA,
        check_columns,
        chunk_table,
        complete_files,
        completed_sources,
        reading_options,
        root_path,
        schema_for,
        skip_set,
        worker_paths,
    )
except ModuleNotFoundError as e:  # only a missing Ray; a broken one keeps its own error
    if (e.name or "").split(".")[0] not in ("ray", "pyarrow"):
        raise
    raise ImportError("chunker.ray needs Ray Data: pip install 'chunkscope[ray]'") from None
except ImportError as e:  # chunker.arrow's own line names pyarrow; Ray is what to install here
    if "chunker.arrow needs pyarrow" not in str(e):
        raise
    raise ImportError("chunker.ray needs Ray Data: pip install 'chunkscope[ray]'") from None

__all__ = ["CHUNK_SCHEMA", "EMBED_SCHEMA", "chunk_dataset", "chunk_files", "complete_files", "completed_sources", "schema_for"]


def chunk_dataset(
    ds: ray.data.Dataset,
    text_column: str = "text",
    *,
    source_column: str | None = None,
    root: str | os.PathLike[str] | None = None,
    skip_sources: Iterable[str] = (),
    **settings: Any,
) -> ray.data.Dataset:
    """`ds` cut into chunks: one row per chunk, exactly as ``chunker.chunk`` cuts each row's text.

    Each output row has every other column of its input row as it was, then every field of
    the record (`schema_for(**settings)`: `id`, `source`, `index`, `start_char`, `end_char`,
    `text`, ..., with `embed_text` and `embed_tokens` when the settings embed), whose offsets
    index the input row's text. A text column of bytes is read as the command
    line reads a file (see `chunker.arrow.chunk_table`, which cuts every block, for that,
    `source_column`, `root` and `skip_sources`). The text column itself is not repeated on each
    chunk. `settings` are `chunker.chunk`'s (`strategy`, `unit`, `size`, `overlap`,
    `tokenizer`, ...) and the reading options `raw`, `keep_running` and `encoding`, checked
    here on the driver: bad ones raise `chunker.ChunkerError` before anything runs. `root`
    defaults to the driver's current folder.

    Lazy, like every Ray Data transform: nothing is read or cut until the dataset is consumed.
    A missing column, or an input column named like a record field (say `index`), raises
    `ChunkerError` here when the dataset's columns are known without reading it, and stops the
    job otherwise. A row that cannot be chunked (null, not text, a file that cannot be read)
    is one row with its `error` and never stops the job.
    """
    reading = reading_options(settings, root)
    paths = worker_paths(settings, owner="chunk_dataset")  # before the check names them by content
    options = chunk_options(settings, owner="chunk_dataset", others=("raw", "keep_running", "encoding", "root"))
    # When the columns are already known (an in-memory dataset, Parquet's footer), a wrong
    # column or a clashing name fails here; otherwise the workers say so.
    columns = ds.columns(fetch_if_missing=False)
    if columns is not None:
        check_columns(list(columns), text_column, source_column)
    else:
        check_columns([text_column, *([source_column] if source_column else [])], text_column, source_column)
    kwargs = {
        "text_column": text_column,
        "source_column": source_column,
        "root": reading.pop("root"),
        "skip_sources": sorted(skip_set(skip_sources)),
        **reading,
        **options,
        **paths,  # each worker loads them from their files (they are checked above)
    }
    # batch_size=None: a whole block per call, so blocks are never bundled together and the
    # dataset's own partitioning decides the parallelism. The function ships by reference
    # (chunker.arrow.chunk_table) with plain settings: no state of the driver's goes along.
    return ds.map_batches(chunk_table, batch_format="pyarrow", batch_size=None, fn_kwargs=kwargs)


def chunk_files(
    paths: str | Sequence[str],
    *,
    root: str | os.PathLike[str] | None = None,
    skip_sources: Iterable[str] = (),
    override_num_blocks: int | None = None,
    **settings: Any,
) -> ray.data.Dataset:
    """The files `paths` name, chunked as ``python -m chunker --recursive PATHS`` chunks them.

    Local files, folders and glob patterns are found here, on the driver, by the command line's
    own finder (`chunker.cli._inputs.find_inputs`): the same files in the same order (every
    name, those starting with ``_`` included; names starting with a dot skipped), which every
    node must then be able to read at the same path (a shared file system). Any other path
    (``s3://...``) goes to Ray's ``read_binary_files`` as it is, which skips names starting
    with ``_`` or ``.`` at the top of a folder. Each file's bytes are read by the command
    line's reader; its records' `source` is its path relative to `root` (default: the current
    folder), as the command line run there gives it. See `chunk_dataset` for the rest.
    """
    from .cli._inputs import find_inputs

    given = [paths] if isinstance(paths, str) else list(paths)
    # Every path made absolute before Ray starts: in a submitted job, connecting to the
    # cluster can take away the working folder the job started in.
    root = root_path(root)
    local = [p for p in given if "://" not in p]
    found, _ = find_inputs(local, recursive=True) if local else ([], False)
    files = [os.path.abspath(i.path) for i in found] + [p for p in given if "://" in p]
    if not files:
        raise ChunkerError("chunk_files was given no paths: name files, folders or patterns")
    ds = ray.data.read_binary_files(files, include_paths=True, override_num_blocks=override_num_blocks)
    return chunk_dataset(ds, "bytes", source_column="path", root=root, skip_sources=skip_sources, **settings)
