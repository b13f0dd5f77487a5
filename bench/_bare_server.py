"""Serve a folder with serve.py's own server: ``python bench/_bare_server.py DIR [PORT]``.

bench/browser.py times a bare Pyodide page against the app; serving both with the same server
(same MIME types, CSP and caching headers, the same gzip, one process) keeps the comparison
about the pages, not the servers. Only where the files come from differs: every file under DIR
(the bench's own page, and its link to the repository's static/), where serve.py allows only the
playground's. Prints ``bare: http://127.0.0.1:PORT/`` once listening.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import serve  # noqa: E402
from tools import served, site  # noqa: E402


class FolderFiles(served.Files):
    """Every file under a folder, links followed: a page the bench wrote itself."""

    def lookup(self, rel: str) -> site.PublicFile | None:
        path = self.root / rel
        if not site.plain_path(rel) or not path.is_file():
            return None
        return site.PublicFile(path.resolve())


def main() -> None:
    directory = Path(sys.argv[1]).resolve()
    port = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    server = serve.make_server("127.0.0.1", port, quiet=True)
    server.files = FolderFiles(directory)
    print(f"bare: http://127.0.0.1:{server.server_address[1]}/", flush=True)
    serve.serve_until_interrupted(server)


if __name__ == "__main__":
    main()
