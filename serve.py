"""Serve the Chunker playground on 127.0.0.1, or write it out as a static site.

    python serve.py                 # http://127.0.0.1:8000/ (vendors the runtime on first run)
    python serve.py --port 0        # any free port; the address is printed
    python serve.py --build _site   # a self-contained static site (GitHub Pages, offline)

Only the page's own files are served (``index.html``, the two PyScript configs, ``app/``,
``static/``), never the rest of the repository. Every response carries a Content-Security-Policy
under which the page can load and connect to nothing but its own origin. No cross-origin
isolation headers are sent because the app does not need them: the Pyodide worker never
touches the DOM, it only exchanges messages with the main thread.

Standard library only, so it runs before any virtual environment exists.
"""

from __future__ import annotations

import argparse
import http.server
import os
import shutil
import sys
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

from tools.runtime import APP_ZIP, VENDOR, RuntimeVendorError, build_app_zip, ensure_runtime  # noqa: E402

CSP_META = (
    "default-src 'self'; script-src 'self' 'unsafe-eval'; worker-src 'self' blob:; "
    "object-src 'none'; base-uri 'none'; form-action 'none'"
)
"""The policy that index.html carries in its <meta> tag (GitHub Pages sets no headers).

``'unsafe-eval'`` is for PyScript (it calls ``Function``) and WebAssembly compilation; ``blob:``
workers are how PyScript starts its worker. ``connect-src`` falls back to ``'self'``, so the page
cannot send the document anywhere.
"""

CSP = CSP_META + "; frame-ancestors 'none'"
"""The header adds ``frame-ancestors``, which browsers ignore in a <meta> tag."""

MIME_TYPES = {
    # NOTE: set explicitly: http.server guesses from the machine's MIME table, and Chromium
    # refuses .wasm unless it is application/wasm and .mjs unless it is JavaScript.
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".wasm": "application/wasm",
    ".json": "application/json",
    ".toml": "text/plain; charset=utf-8",
    ".py": "text/plain; charset=utf-8",
    ".md": "text/plain; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".zip": "application/zip",
    ".whl": "application/zip",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    "": "application/octet-stream",
}

PAGE_FILES = ("index.html", "pyscript.toml", "micropython.toml")
PAGE_DIRS = ("app", "static")


def is_public(rel: str) -> bool:
    """Whether a URL path (without the leading slash) names one of the page's own files.

    >>> is_public("index.html"), is_public("static/app.css"), is_public("chunker/__init__.py")
    (True, True, False)
    >>> is_public("static/vendor/.runtime.json"), is_public("app/../serve.py")
    (False, False)
    """
    parts = rel.split("/")
    if any(part in ("", ".", "..") or part.startswith(".") for part in parts):
        return False
    if len(parts) == 1:
        return parts[0] in PAGE_FILES
    if parts[0] not in PAGE_DIRS or "__pycache__" in parts:
        return False
    return True


class Handler(http.server.SimpleHTTPRequestHandler):
    """Static files with explicit MIME types, a CSP, revalidation and nothing outside the page."""

    extensions_map = MIME_TYPES
    protocol_version = "HTTP/1.1"  # keep-alive: the page loads a few dozen files
    # Headers and body go out in two writes; with Nagle's algorithm the body waits for the
    # browser's delayed ACK of the headers, 40 ms on Linux, on each of the page's files.
    disable_nagle_algorithm = True
    quiet = False

    def send_head(self):
        path = self.path.split("?", 1)[0].split("#", 1)[0]
        rel = path.lstrip("/") or "index.html"
        if not is_public(rel):
            self.send_error(404, "Not a file of the playground")
            return None
        if rel == f"{VENDOR.as_posix()}/{APP_ZIP}":
            # Rebuilt when the sources changed, so an edited chunker/ shows up on reload.
            build_app_zip(ROOT)
        return super().send_head()

    def end_headers(self):
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cache-Control", self.cache_control())
        super().end_headers()

    def cache_control(self) -> str:
        rel = self.path.split("?", 1)[0].lstrip("/")
        if rel.startswith(f"{VENDOR.as_posix()}/") and not rel.endswith(f"/{APP_ZIP}"):
            # The pinned runtime, as GitHub Pages serves it (ten minutes): the worker then takes
            # the files the page preloaded from the cache, without a round trip each.
            return "max-age=600"
        # Revalidate every time (cheap 304s thanks to Last-Modified): an edited file is never stale.
        return "no-cache"

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        if not self.quiet:
            super().log_message(format, *args)


def build(out: Path) -> Path:
    """Write the playground as a static site into ``out`` (replaced if it exists)."""
    out = out.resolve()
    if out == ROOT or ROOT.is_relative_to(out):
        raise SystemExit(f"error: refusing to build into {out}: pick a new directory such as _site")
    tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for name in PAGE_FILES:
        shutil.copy2(ROOT / name, tmp / name)
    for directory in PAGE_DIRS:
        for path in sorted((ROOT / directory).rglob("*")):
            rel = path.relative_to(ROOT).as_posix()
            if path.is_file() and is_public(rel):
                (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, tmp / rel)
    # GitHub Pages runs Jekyll unless told not to; Jekyll would drop files it considers private.
    (tmp / ".nojekyll").write_text("")
    shutil.rmtree(out, ignore_errors=True)
    os.replace(tmp, out)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve the Chunker playground, or build it as a static site.")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (0 = any free port; default 8000)")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    parser.add_argument("--build", metavar="DIR", type=Path, help="write a static site into DIR instead of serving")
    parser.add_argument("--quiet", action="store_true", help="do not log each request")
    args = parser.parse_args(argv)

    try:
        ensure_runtime(ROOT)
    except RuntimeVendorError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1

    if args.build:
        out = build(args.build)
        print(f"static site written to {out}", flush=True)
        return 0

    Handler.quiet = args.quiet
    try:
        server = make_server(args.host, args.port)
    except OSError as exc:
        print(f"error: cannot listen on {args.host}:{args.port} ({exc.strerror}); try --port 0", file=sys.stderr)
        return 1
    host, port = server.server_address[:2]
    shown = f"[{host}]" if ":" in host else host
    print(f"Chunker playground: http://{shown}:{port}/  (Ctrl+C to stop)", flush=True)
    serve_until_interrupted(server)
    return 0


def make_server(host: str, port: int, *, handler: type[Handler] = Handler) -> http.server.ThreadingHTTPServer:
    """The playground's server on ``host:port`` (not yet serving); raises OSError if it cannot listen."""
    return http.server.ThreadingHTTPServer((host, port), partial(handler, directory=str(ROOT)))


def serve_until_interrupted(server: http.server.HTTPServer) -> None:
    """Serve until Ctrl+C, then release the port."""
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    sys.exit(main())
