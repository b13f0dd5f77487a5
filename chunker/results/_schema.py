"""The record's fields, one table: their order, their types and what each one means.

Every writer of records draws from `FIELDS`: JSON Lines and JSON (`chunker.results._export`),
Arrow and Parquet (`chunker.arrow`), Spark's DDL (`chunker.spark`) and Ray (through Arrow). A
field is one entry here, so a new one reaches every engine, and every engine writes the
fields in the same order with the same types.

>>> [f.name for f in FIELDS][:4]
['id', 'source', 'index', 'start_char']
>>> ddl()[:40]
'id string, source string, index bigint, '

A table of records (Arrow, Parquet, Spark, Ray) has one schema for every row, fixed before any
row is chunked, so the settings decide whether it has the embed text's columns (`embeds`):
always with a `context` setting, where every record carries them; and whenever the settings
can give some record an embed text of its own (a strategy's, a pasted splitter's), where
those records carry them and the rest hold nulls, just as JSON Lines writes them on those
records only. A table's row and the JSON record of the same chunk then hold the same values,
a null for a field the record leaves out.

>>> from chunker import Settings
>>> embeds(Settings(strategy="fixed")), embeds(Settings(strategy="fixed", context="headings"))
(False, True)
>>> embeds(Settings())  # recursive: a long table's later parts carry its header rows
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..strategies import STRATEGIES

if TYPE_CHECKING:
    from ..settings._options import Settings

__all__ = [
    "FIELDS",
    "Field",
    "ENGINE_FIELDS",
    "PLAIN_ENGINE_FIELDS",
    "RECORD_FIELDS",
    "ddl",
    "embeds",
    "engine_fields",
    "field_names",
    "record_fields",
]


@dataclass(frozen=True)
class Field:
    """One field of a record. `kind` is ``string``, ``int``, ``bool`` or ``strings`` (a list of
    strings). `optional`: JSON leaves it out when it has no value (Arrow and Spark hold a
    null). `engines`: only the table engines (Arrow, Spark, Ray) have the column. `embed`: the
    embed text's fields, which every record of a result carries when it is embedded
    (`Chunks.embedded`: a `context` setting) and the others where their embedded text is not
    their text; a table of records has their columns when the settings say so (`embeds`)."""

    name: str
    kind: str
    doc: str
    optional: bool = False
    engines: bool = False
    embed: bool = False


FIELDS: tuple[Field, ...] = (
    Field(
        "id",
        "string",
        "A stable hash of the source, the settings, the span and its text: the same chunk has it on every run, "
        "machine and engine, two different chunks never share it (vector stores upsert by it).",
    ),
    Field(
        "source",
        "string",
        "The file, as a path relative to the folder the run started in (or absolute outside it), with / between "
        "folders; absent for a text given without one.",
        optional=True,
    ),
    Field("index", "int", "The chunk's number in its document, from 0."),
    Field("start_char", "int", "Where the chunk starts in the document's text (code points)."),
    Field("end_char", "int", "Where it ends: document[start_char:end_char] == text."),
    Field("text", "string", "The chunk's text."),
    Field("chars", "int", "Its length in code points."),
    Field("words", "int", "Its whitespace-separated words."),
    Field("tokens", "int", "Its tokens, by the settings' tokenizer."),
    Field("tokens_estimated", "bool", "Whether the tokens are an estimate (approx, estimate)."),
    Field("overlap_chars", "int", "How much of it the chunk before holds (code points)."),
    Field("flags", "strings", "What deserves a look (chunker.FLAGS)."),
    Field("headings", "strings", "The heading path it sits under."),
    Field("page_start", "int", "A PDF's first page the chunk touches, from 1.", optional=True),
    Field("page_end", "int", "A PDF's last page the chunk touches.", optional=True),
    Field(
        "embed_text",
        "string",
        "What to embed: the chunk's context (the `context` setting) then its text, or a pasted splitter's own text.",
        optional=True,
        embed=True,
    ),
    Field("embed_tokens", "int", "The embed text's tokens.", optional=True, embed=True),
    Field(
        "error",
        "string",
        "Why an input row gave no chunks (not text, or it could not be read): one line; a row with an error "
        "has no chunk fields. Engines only: the command line reports errors on stderr.",
        optional=True,
        engines=True,
    ),
)
"""Every field, in the order records are written."""

RECORD_FIELDS = tuple(f for f in FIELDS if not f.engines)
"""The fields of a record as JSON Lines, JSON and `Chunk.to_dict` have them (with `source`)."""

ENGINE_FIELDS = FIELDS
"""The columns the table engines (Arrow, Spark, Ray) add to each input row when the settings
embed (`embeds`)."""

PLAIN_ENGINE_FIELDS = tuple(f for f in FIELDS if not f.embed)
"""The columns they add otherwise: no embed text."""


def embeds(settings: Settings) -> bool:
    """Whether a table of the records `settings` make has the embed text's columns: with a
    `context` setting (every record has an embed text), a pasted splitter (a framework's own
    text where it is not the slice) or a strategy whose chunks may carry a context of their
    own (`Strategy.own_context`). Otherwise no record can carry one, and the columns would be
    null in every row."""
    if settings.context != "none" or settings.splitter:
        return True
    strategy = STRATEGIES.get(settings.strategy)
    return strategy is None or strategy.own_context  # one registered later: assume it may


def engine_fields(embed: bool) -> tuple[Field, ...]:
    """The table engines' columns, with the embed text's or without (`embeds`)."""
    return ENGINE_FIELDS if embed else PLAIN_ENGINE_FIELDS


def record_fields(embed: bool) -> tuple[Field, ...]:
    """The fields of a records file of one schema (the command line's Parquet), with the embed
    text's or without (`embeds`)."""
    return RECORD_FIELDS if embed else tuple(f for f in RECORD_FIELDS if not f.embed)


_DDL = {"string": "string", "int": "bigint", "bool": "boolean", "strings": "array<string>"}


def field_names(fields: tuple[Field, ...] = ENGINE_FIELDS) -> list[str]:
    return [f.name for f in fields]


def ddl(fields: tuple[Field, ...] = ENGINE_FIELDS) -> str:
    """The fields as a Spark SQL DDL schema string."""
    return ", ".join(f"{f.name} {_DDL[f.kind]}" for f in fields)
