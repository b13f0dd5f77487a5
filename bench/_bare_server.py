"""Serve a folder with serve.py's own handler: ``python bench/_bare_server.py DIR [PORT]``.

bench/browser.py times a bare Pyodide page against the app; serving both with the same handler
(same MIME types, CSP and caching headers, same single-process HTTP server) keeps the comparison
about the pages, not the servers. Prints ``bare: http://127.0.0.1:PORT/`` once listening.
"""

from __future__ import annotations

import http.server
import sys
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import serve  # noqa: E402


def main() -> None:
    directory = sys.argv[1]
    port = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    serve.Handler.quiet = True
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), partial(serve.Handler, directory=directory))
    print(f"bare: http://127.0.0.1:{server.server_address[1]}/", flush=True)
    serve.serve_until_interrupted(server)


if __name__ == "__main__":
    main()
