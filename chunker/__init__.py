"""Chunker: see exactly where a document gets cut, and get the identical chunker for a pipeline.

This is the public API; everything else in the package is private.

>>> import chunker
>>> res = chunker.chunk("Dr. Smith arrived. He sat down.", strategy="sentence", size=0)
>>> [c.text for c in res.chunks]
['Dr. Smith arrived.', 'He sat down.']
"""

from ._api import chunk
from ._errors import ChunkerError
from ._export import records, to_json, to_jsonl, to_text
from ._records import FLAGS, Chunk, ChunkResult, Stats
from ._settings import BREAKS, DEFAULTS, STRATEGIES, TOKENIZERS, UNITS, Settings
from ._tokenizers import count_tokens

__version__ = "0.1.0"

__all__ = [
    "chunk",
    "Chunk",
    "ChunkResult",
    "Stats",
    "Settings",
    "ChunkerError",
    "count_tokens",
    "records",
    "to_json",
    "to_jsonl",
    "to_text",
    "STRATEGIES",
    "UNITS",
    "TOKENIZERS",
    "BREAKS",
    "FLAGS",
    "DEFAULTS",
]
