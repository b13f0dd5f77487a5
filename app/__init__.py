"""The playground's Python: `main` (MicroPython, main thread: wires the DOM), `worker` (Pyodide,
calls `chunker`) and `render` (turns a result into escaped HTML; plain CPython-testable code).

No chunking logic lives here: every number the page shows comes from `chunker`.
"""
