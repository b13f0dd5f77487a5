"""Does it retrieve? BM25 over a result's chunks (`_bm25`), questions files (`_questions`),
the metrics and the sweep (`_eval`), and whether a difference is real (`_stats`).

Private: the public API is `chunker` itself."""
