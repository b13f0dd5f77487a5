"""Serve the Chunker playground on 127.0.0.1, or write it out as a static site.

    python serve.py                 # http://127.0.0.1:8000/ (vendors the runtime on first run)
    python serve.py --port 0        # any free port; the address is printed
    python serve.py --build _site   # a self-contained static site (GitHub Pages, offline)
    python serve.py --build _site --model potion-base-8M   # ... that bundles an embedding model

Only the page's own files are served (tools/site.py derives the list from the page itself),
never the rest of the repository, nor anything a symbolic link leads to outside it. Requests are
answered only under this machine's names (localhost, 127.0.0.1, [::1], or the --host given), so
another site cannot reach the server by pointing its own name at 127.0.0.1 (DNS rebinding).
Every response carries a Content-Security-Policy under which the page can load and connect to
nothing but its own origin. No cross-origin isolation headers are sent because the app does not
need them: the Pyodide worker never touches the DOM, it only exchanges messages with the main
thread. Text, scripts and WebAssembly go gzipped to a browser that accepts it, as static hosts
send them; each file is read (and compressed) once per change, and the vendored runtime's
files are checked against the sha256 set-up recorded before they are first sent.

Standard library only, so it runs before any virtual environment exists.
"""

from __future__ import annotations

import argparse
import datetime
import email.utils
import http.server
import io
import socket
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

from tools import offline, site  # noqa: E402
from tools.runtime import APP_ZIP, VENDOR, RuntimeVendorError, build_app_zip, ensure_runtime  # noqa: E402
from tools.served import COMPRESSIBLE, Files, Loaded, Tampered, accepts_gzip  # noqa: E402

PAGE_FILES = site.PAGE_FILES

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
    ".webmanifest": "application/manifest+json",
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

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")


# ---------------------------------------------------------------- requests


class Handler(http.server.BaseHTTPRequestHandler):
    """The page's files with explicit MIME types, a CSP, gzip, revalidation and nothing else."""

    protocol_version = "HTTP/1.1"  # keep-alive: the page loads a few dozen files
    # A malformed request line is answered with a status line a client can read, not HTTP/0.9's
    # bare body.
    default_request_version = "HTTP/1.0"
    # Headers and body go out in two writes; with Nagle's algorithm the body waits for the
    # browser's delayed ACK of the headers, 40 ms on Linux, on each of the page's files.
    disable_nagle_algorithm = True
    timeout = 60  # seconds any one read or write of a connection may wait
    head_timeout = 20.0  # seconds a request's line and headers may take in all (slowloris)
    quiet = False
    server: PlaygroundServer
    raw_requestline: bytes
    _cache_control = "no-cache"

    def setup(self):
        super().setup()
        # Reads go through a clock, so that a client sending a byte now and then cannot hold a
        # thread: the socket's own timeout would restart with every byte.
        self._clock = _HeadClock(self.connection)
        self.rfile = io.BufferedReader(self._clock)

    def handle_one_request(self):
        self._clock.deadline = time.monotonic() + self.head_timeout
        self._clock.received = 0
        self._cache_control = "no-cache"
        try:
            super().handle_one_request()
        finally:
            self._clock.deadline = None
            self.connection.settimeout(self.timeout)

    def parse_request(self) -> bool:
        if len(self.raw_requestline.split()) == 2:  # HTTP/0.9, which has no status line
            self.command, self.request_version = "", self.default_request_version
            self.requestline = str(self.raw_requestline, "iso-8859-1").rstrip("\r\n")
            self.close_connection = True
            self.send_error(400, "HTTP/0.9 requests are not supported")
            return False
        if not super().parse_request():
            return False
        self._clock.deadline = None  # the head is in: from here on, the usual timeout
        self.connection.settimeout(self.timeout)
        if len(self.headers.get_all("Host") or ()) > 1:
            self.send_error(400, "More than one Host header")
            return False
        if not self.server.host_allowed(self.headers.get("Host"), self.request_version):
            self.send_error(
                421 if self.headers.get("Host") else 400,
                "Unknown host name: open the page as http://localhost:<port>/, or start serve.py with --host <that name>",
            )
            return False
        return True

    def do_GET(self):
        self.send_file(body=True)

    def do_HEAD(self):
        self.send_file(body=False)

    def send_file(self, *, body: bool) -> None:
        rel = site.request_path(self.path)
        if rel == f"{VENDOR.as_posix()}/{APP_ZIP}":
            # Rebuilt when the sources changed, so an edited chunker/ shows up on reload.
            build_app_zip(self.server.root)
        elif rel == offline.LIST_URL:
            # The service worker's list, written again when a file of the page changed: an edit
            # is a new version of the offline copy.
            offline.ensure_list(self.server.root)
        file = self.server.files.lookup(rel) if rel else None
        try:
            loaded = self.server.files.load(rel, file) if file and rel else None
        except Tampered:
            print(
                f"error: {rel} is not the file set-up vendored; restart serve.py to vendor it again", file=sys.stderr, flush=True
            )
            self.send_error(500, "A file of the runtime changed since set-up vendored it")
            return
        if rel is None or loaded is None:
            self.send_error(404, "Not a file of the playground")
            return
        suffix = Path(rel).suffix
        compressible = suffix in COMPRESSIBLE
        pinned = rel.startswith(f"{VENDOR.as_posix()}/") and rel not in (f"{VENDOR.as_posix()}/{APP_ZIP}", offline.LIST_URL)
        # The pinned runtime, as GitHub Pages serves it (ten minutes): the worker then takes the
        # files the page preloaded from the cache, without a round trip each. The rest is
        # revalidated every time (cheap 304s): an edited file is never stale.
        self._cache_control = "max-age=600" if pinned else "no-cache"
        data = loaded.gzip() if compressible and accepts_gzip(self.headers.get("Accept-Encoding")) else None
        etag = loaded.etag[:-1] + '-gz"' if data is not None else loaded.etag
        if self.not_modified(loaded):
            self.send_response(304)
            self.send_header("ETag", etag)
            if compressible:
                self.send_header("Vary", "Accept-Encoding")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", MIME_TYPES.get(suffix, MIME_TYPES[""]))
        if data is not None:
            self.send_header("Content-Encoding", "gzip")
        if compressible:
            self.send_header("Vary", "Accept-Encoding")
        data = loaded.data if data is None else data
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Last-Modified", self.date_time_string(int(loaded.mtime)))
        self.send_header("ETag", etag)
        self.end_headers()
        if body:
            self.wfile.write(data)

    def not_modified(self, loaded: Loaded) -> bool:
        tags = self.headers.get("If-None-Match")
        if tags is not None:  # it outranks If-Modified-Since
            ours = {loaded.etag, loaded.etag[:-1] + '-gz"'}
            return any(tag.strip().removeprefix("W/") in ours or tag.strip() == "*" for tag in tags.split(","))
        since = self.headers.get("If-Modified-Since")
        if since is None:
            return False
        try:
            parsed = email.utils.parsedate_to_datetime(since)
        except (TypeError, ValueError, IndexError, OverflowError):
            return False
        if parsed.tzinfo is None:  # "-0000": UTC, as http.server reads it
            parsed = parsed.replace(tzinfo=datetime.UTC)
        return int(loaded.mtime) <= parsed.timestamp()

    def end_headers(self):
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cache-Control", self._cache_control)
        super().end_headers()

    def log_error(self, format, *args):  # the base class's name
        # A browser keeps idle connections open; closing one after head_timeout is no error.
        if not (format.startswith("Request timed out") and self._clock.received == 0):
            super().log_error(format, *args)

    def log_message(self, format, *args):  # the base class's name
        if not (self.quiet or self.server.quiet):
            super().log_message(format, *args)


class _HeadClock(io.RawIOBase):
    """A connection's reads, each given only what is left of the request head's time."""

    def __init__(self, sock: socket.socket):
        super().__init__()
        self.sock = sock
        self.deadline: float | None = None
        self.received = 0  # bytes since the deadline was set

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self.deadline is not None:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the request's head took too long")
            self.sock.settimeout(left)
        count = self.sock.recv_into(buffer)
        self.received += count
        return count


class PlaygroundServer(http.server.ThreadingHTTPServer):
    """One thread per connection, at most `max_threads` at once; the page's files; this
    machine's names only."""

    # The page opens a few dozen connections at once; with the default queue of 5, 38 of 50
    # simultaneous connections waited 1-2 s for the kernel to retry them.
    request_queue_size = 128
    # A browser opens six connections to a host at a time; a client that opens thousands of
    # idle ones would otherwise get a thread (and its stack) for each until head_timeout.
    # Past the cap, accepting waits: the kernel's queue holds the next connections, and one
    # that still finds no thread after `thread_wait` seconds is closed.
    max_threads = 64
    thread_wait = 5.0

    def __init__(self, address, handler, *, root: Path = ROOT, quiet: bool = False):
        super().__init__(address, handler)
        self._thread_slots = threading.BoundedSemaphore(self.max_threads)
        self.root = root
        self.quiet = quiet
        self.files = Files(root)
        host = address[0].lower()
        named = f"[{host}]" if ":" in host else host
        port = self.server_address[1]
        self.hosts = {f"{name}:{port}" for name in (*LOOPBACK_NAMES, named)}
        if port == 80:
            self.hosts |= {*LOOPBACK_NAMES, named}

    def host_allowed(self, host: str | None, version: str) -> bool:
        """Only this machine's names, with the port: a page elsewhere whose name now leads here
        (DNS rebinding) sends its own name. An HTTP/1.0 client may send none; a browser always does."""
        if host is None:
            return version == "HTTP/1.0"
        return host.strip().lower() in self.hosts

    def process_request(self, request, client_address):
        if not self._thread_slots.acquire(timeout=self.thread_wait):
            self.shutdown_request(request)  # every thread still busy: this connection waits no longer
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._thread_slots.release()  # no thread was started to release it
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._thread_slots.release()

    def handle_error(self, request, client_address):
        # A browser that leaves (a reload, a closed tab) is no error of the server's.
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)

    def shutdown_request(self, request):
        # Read what the client still sends before closing: closing with unread data (the rest
        # of a too long request) resets the connection, and the client may lose the reply.
        try:
            request.shutdown(socket.SHUT_WR)
            request.settimeout(1.0)
            for _ in range(64):
                if not request.recv(65536):
                    break
        except OSError:
            pass
        self.close_request(request)


def make_server(host: str, port: int, *, handler: type[Handler] = Handler, quiet: bool = False) -> PlaygroundServer:
    """The playground's server on ``host:port`` (not yet serving); raises OSError if it cannot listen."""
    return PlaygroundServer((host, port), handler, root=ROOT, quiet=quiet)


# ---------------------------------------------------------------- the command line


def build(out: Path, model: site.BundledModel | None = None) -> Path:
    """Write the playground as a static site into ``out``: a new or empty folder, or an earlier
    build (replaced); anything else is refused with :class:`tools.site.SiteError`. With
    `model`, the site bundles that embedding model (see :func:`bundled_model`)."""
    return site.build_site(ROOT, out, model)


def bundled_model(path: Path) -> site.BundledModel:
    """The model2vec folder at ``path``, read and checked by chunker's own loader (a folder that is
    not such a model raises its one-line ChunkerError), to bundle into a built site."""
    import chunker.embeddings  # pure Python, standard library only

    model = chunker.embeddings.load(path)
    folder = Path(path) if Path(path).is_dir() else Path(path).parent
    files = {name: (folder / name).read_bytes() for name in chunker.embeddings.FILES}
    # The files read now are the ones checked: a folder changed in between is refused.
    if chunker.embeddings.content_key(files) != model.name:
        raise chunker.ChunkerError(f"{path} changed while it was read; build again")
    return site.BundledModel(model.label, files)


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not the usage block
        self.exit(2, f"error: {message} (see --help)\n")


def port_number(text: str) -> int:
    """``--port``'s value: a TCP port, or 0 for any free one.

    >>> port_number("8000"), port_number("0")
    (8000, 0)
    >>> port_number("70000")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: must be a number from 0 to 65535 (0 = any free port), not '70000'
    """
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"must be a number from 0 to 65535 (0 = any free port), not {text!r}")
    return port


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(description="Serve the Chunker playground, or build it as a static site.")
    parser.add_argument("--port", type=port_number, default=8000, help="port to listen on (0 = any free port; default 8000)")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    parser.add_argument("--build", metavar="DIR", type=Path, help="write a static site into DIR instead of serving")
    parser.add_argument(
        "--model",
        metavar="PATH",
        type=Path,
        help="with --build: bundle this model2vec embedding model folder into the site, which its page offers at start",
    )
    parser.add_argument("--quiet", action="store_true", help="do not log each request")
    args = parser.parse_args(argv)

    model = None
    if args.model is not None and not args.build:
        print("error: --model bundles a model into a built site: give --build DIR too", file=sys.stderr)
        return 2
    if args.build:
        try:
            site.check_target(ROOT, args.build)  # before any work: refuse at once
        except site.SiteError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    if args.model is not None:
        from chunker import ChunkerError

        try:
            model = bundled_model(args.model)
        except ChunkerError as exc:
            print(f"error: --model: {exc}", file=sys.stderr)
            return 2
    try:
        ensure_runtime(ROOT)
    except RuntimeVendorError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1

    if args.build:
        try:
            out = build(args.build, model)
        except site.SiteError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        print(f"static site written to {out}" + (f", bundling the embedding model {model.label}" if model else ""), flush=True)
        return 0

    try:
        server = make_server(args.host, args.port, quiet=args.quiet)
    except OSError as exc:
        print(f"error: cannot listen on {args.host}:{args.port} ({exc.strerror or exc}); try --port 0", file=sys.stderr)
        return 1
    host, port = str(server.server_address[0]), server.server_address[1]
    shown = f"[{host}]" if ":" in host else host
    # The large files gzipped before anyone asks (the WebAssembly: half a second of compressing).
    threading.Thread(target=server.files.warm, name="warm", daemon=True).start()
    print(f"Chunker playground: http://{shown}:{port}/  (Ctrl+C to stop)", flush=True)
    serve_until_interrupted(server)
    return 0


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
