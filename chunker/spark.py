"""Apache Spark: `chunk_dataframe`, one row per chunk of every row of a DataFrame, and
`chunk_files` for files read as the command line reads them.

Needs pyspark 3.3 or later, with pyarrow (``pip install 'chunkscope[spark]'``), on the driver and
on every executor.

    from chunker.spark import chunk_files

    chunks = chunk_files(spark, ["corpus/"], strategy="markdown", size=512, tokenizer="o200k")
    chunks.write.parquet("chunks/")

Each batch is cut by `chunker.arrow.chunk_table` through ``DataFrame.mapInArrow``: the very
function Ray's workers run, so a row gives the same records (ids included) on Spark, on Ray
and from ``python -m chunker``. The output's columns are the input's other columns, then the
record's fields (`chunker.results._schema.FIELDS`, typed by `schema`). See docs/pipelines.md.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Sequence
from typing import Any

from ._adapters import chunk_options, settings_of
from ._errors import ChunkerError
from .results._schema import embeds, engine_fields

try:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql import types as T

    from .arrow import (
        check_columns,
        chunk_batches,
        complete_files,
        completed_sources,
        reading_options,
        skip_set,
        worker_paths,
    )
except ModuleNotFoundError as e:  # only a missing pyspark or pyarrow; a broken one keeps its own error
    if (e.name or "").split(".")[0] not in ("pyspark", "pyarrow", "py4j"):
        raise
    raise ImportError("chunker.spark needs pyspark and pyarrow: pip install 'chunkscope[spark]'") from None
except ImportError as e:  # chunker.arrow's own line names pyarrow; the extra brings it
    if "chunker.arrow needs pyarrow" not in str(e):
        raise
    raise ImportError("chunker.spark needs pyspark and pyarrow: pip install 'chunkscope[spark]'") from None

__all__ = ["chunk_dataframe", "chunk_files", "complete_files", "completed_sources", "schema"]

_TYPES = {"string": T.StringType(), "int": T.LongType(), "bool": T.BooleanType(), "strings": T.ArrayType(T.StringType())}


def schema(*, embed: bool | None = None, **settings: Any) -> T.StructType:
    """The record's fields as Spark columns (`chunker.results._schema.FIELDS`): the columns
    `chunk_dataframe` adds with `settings` (`chunker.chunk`'s), the embed text's among them
    when the settings embed (`chunker.results._schema.embeds`: a `context` setting, a pasted
    splitter, or a strategy whose chunks may carry a context of their own). `embed` says
    outright whether they are there."""
    if embed is None:
        embed = embeds(settings_of(chunk_options(settings, owner="schema")))
    return T.StructType([T.StructField(f.name, _TYPES[f.kind], True) for f in engine_fields(embed)])


def chunk_dataframe(
    df: DataFrame,
    text_column: str = "text",
    *,
    source_column: str | None = None,
    file_column: str | None = None,
    root: str | os.PathLike[str] | None = None,
    skip_sources: Iterable[str] = (),
    **settings: Any,
) -> DataFrame:
    """`df` cut into chunks: one row per chunk, exactly as ``chunker.chunk`` cuts each row's text.

    Each output row has the input row's other columns, then the record's fields (`schema()`:
    `id`, `source`, `index`, `start_char`, `end_char`, `text`, ...), whose offsets index the
    row's text; the text column is not repeated. A text column of binary (Spark's
    ``binaryFile`` `content`) is read as the command line reads a file; so is the local file
    each path of `file_column` names, read by the executor. `source_column`,
    `root` (default: the driver's current folder), `skip_sources`, the reading options (`raw`,
    `keep_running`, `encoding`) and a row that cannot be chunked (one row with its `error`) are
    as `chunker.arrow.chunk_table` has them; `settings` are `chunker.chunk`'s, checked here on
    the driver. Lazy, like every DataFrame transform.
    """
    reading = reading_options(settings, root)
    paths = worker_paths(settings, owner="chunk_dataframe")  # before the check names them by content
    options = chunk_options(settings, owner="chunk_dataframe", others=("raw", "keep_running", "encoding", "root"))
    if file_column is not None:
        text_column, source_column = file_column, file_column
    others = check_columns(df.columns, text_column, source_column)
    kept = [f for f in df.schema.fields if f.name in others]
    kwargs = {
        "text_column": text_column,
        "source_column": source_column,
        "file_column": file_column,
        "root": reading.pop("root"),
        "skip_sources": sorted(skip_set(skip_sources)),
        **reading,
        **options,
        **paths,  # each executor loads them from their files (they are checked above)
    }
    # A module function with plain keyword arguments: what an executor unpickles is its name
    # and the settings, nothing of the driver's.
    return df.mapInArrow(
        functools.partial(chunk_batches, **kwargs),
        T.StructType([*kept, *schema(embed=embeds(settings_of(options))).fields]),
    )


def chunk_files(
    spark: SparkSession,
    paths: str | Sequence[str],
    *,
    root: str | os.PathLike[str] | None = None,
    skip_sources: Iterable[str] = (),
    **settings: Any,
) -> DataFrame:
    """The files `paths` name, chunked as ``python -m chunker --recursive PATHS`` chunks them.

    Local files, folders and glob patterns are found on the driver by the command line's own
    finder: the same files, names starting with ``_`` included (Spark's ``binaryFile`` skips
    them even when named, and a folder tree needs its ``recursiveFileLookup``), names starting
    with a dot skipped. Their paths go out as rows and each executor reads its files itself, at
    the same path (a shared file system).
    Any other path (``s3a://...``) goes to Spark's ``binaryFile`` reader as it is, with
    ``recursiveFileLookup``. Each file's `source` is its path relative to `root` (default: the
    current folder). See `chunk_dataframe` for the rest.
    """
    from .cli._inputs import find_inputs

    given = [paths] if isinstance(paths, str) else list(paths)
    skip = sorted(skip_set(skip_sources))
    local = [p for p in given if "://" not in p]
    found, _ = find_inputs(local, recursive=True) if local else ([], False)
    files = [os.path.abspath(i.path) for i in found]
    remote = [p for p in given if "://" in p]
    if not files and not remote:
        raise ChunkerError("chunk_files was given no paths: name files, folders or patterns")
    frames = []
    if files:
        # Spark's binaryFile skips every name starting with "_" or ".", even one named
        # outright: the paths go out as rows, and each executor reads its files itself.
        paths_df = spark.createDataFrame([(p,) for p in files], "path string")
        slices = max(1, min(len(files), spark.sparkContext.defaultParallelism * 4))
        frames.append(chunk_dataframe(paths_df.repartition(slices), file_column="path", root=root, skip_sources=skip, **settings))
    if remote:
        read = spark.read.format("binaryFile").option("recursiveFileLookup", "true").load(remote).select("path", "content")
        frames.append(chunk_dataframe(read, "content", source_column="path", root=root, skip_sources=skip, **settings))
    return frames[0] if len(frames) == 1 else frames[0].unionByName(frames[1])
