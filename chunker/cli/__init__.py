"""The command line, `python -m chunker` and `chunker`: its two commands (`_main` chunks, `_eval`
is the retrieval check), the options they share (`_common`), finding and reading the inputs
(`_corpus`), the jobs that chunk them in this process or in worker processes (`_jobs`,
`_workers`), and writing the output without ever leaving half of it (`_output`).

Private: the public API is `chunker` itself; the command's entry point is `main`."""

from ._main import main

__all__ = ["main"]
