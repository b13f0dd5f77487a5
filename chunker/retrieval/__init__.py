"""Does it retrieve? BM25 over a result's chunks (`_bm25`), questions files (`_questions`), and
the metrics and the sweep (`_eval`).

Private: the public API is `chunker` itself."""
