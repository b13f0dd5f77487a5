"""Chunker: see exactly where a document gets cut, and get the identical chunker for a pipeline.

This is the public API; everything else in the package is private.

>>> import chunker
>>> res = chunker.chunk("Dr. Smith arrived. He sat down.", strategy="sentence", size=0)
>>> [c.text for c in res.chunks]
['Dr. Smith arrived.', 'He sat down.']

The registries (`OPTIONS`, `STRATEGIES`, `SPLITTERS`, `TOKENIZERS`, `UNITS`, `BREAKS`, `RETRIEVERS`, `FLAGS`, `FORMATS`,
`DEFAULTS`, `PRESETS`, `MODEL_LIMITS`)
are the one place each list of names lives: the command line and the playground draw their
choices, help texts and tables from them.
"""

from ._errors import ChunkerError
from .documents import Extracted, detect_kind, extract
from .results._export import FORMATS, Format, records, to_json, to_jsonl, to_text
from .results._records import FLAGS, Chunk, ChunkResult, Stats
from .retrieval._bm25 import BM25Index
from .retrieval._eval import (
    METRICS,
    SWEEP_SIZES,
    SWEEP_STRATEGIES,
    Evaluation,
    QuestionResult,
    SweepRow,
    compare,
    evaluate,
    mark_best,
    sweep,
)
from .retrieval._questions import Question, Reference, dump_questions, load_questions
from .retrieval._stats import Interval
from .session._advice import Advice, Tip, advise
from .session._api import Document, chunk
from .settings._options import MISSING, OPTIONS, Control, Option, Settings, register_option, unregister_option
from .settings._presets import MODEL_LIMITS, PRESETS, ModelLimit, Preset
from .settings._settings import BREAKS, DEFAULTS, PLAYGROUND_DEFAULTS, RETRIEVERS, UNITS
from .splitters import SPLITTERS, SplitterCall, SplitterClass, parse_splitter, register_splitter
from .strategies import STRATEGIES, Strategy, register_strategy
from .tokens._tokenizers import TOKENIZERS, TokenizerLike, count_tokens, get_tokenizer, load_tokenizer
from .tokens._tokenizers import label_of as tokenizer_label

__version__ = "0.3.0"

__all__ = [
    "chunk",
    "Document",
    "advise",
    "Advice",
    "Tip",
    "evaluate",
    "sweep",
    "mark_best",
    "compare",
    "Interval",
    "METRICS",
    "SWEEP_STRATEGIES",
    "SWEEP_SIZES",
    "Evaluation",
    "QuestionResult",
    "SweepRow",
    "BM25Index",
    "Question",
    "Reference",
    "load_questions",
    "dump_questions",
    "Chunk",
    "ChunkResult",
    "Stats",
    "Settings",
    "OPTIONS",
    "Option",
    "Control",
    "register_option",
    "unregister_option",
    "MISSING",
    "ChunkerError",
    "count_tokens",
    "load_tokenizer",
    "TokenizerLike",
    "get_tokenizer",
    "tokenizer_label",
    "records",
    "to_json",
    "to_jsonl",
    "to_text",
    "Format",
    "extract",
    "detect_kind",
    "Extracted",
    "FORMATS",
    "Strategy",
    "register_strategy",
    "STRATEGIES",
    "SPLITTERS",
    "SplitterClass",
    "SplitterCall",
    "parse_splitter",
    "register_splitter",
    "UNITS",
    "TOKENIZERS",
    "BREAKS",
    "RETRIEVERS",
    "FLAGS",
    "DEFAULTS",
    "PLAYGROUND_DEFAULTS",
    "PRESETS",
    "Preset",
    "MODEL_LIMITS",
    "ModelLimit",
]
