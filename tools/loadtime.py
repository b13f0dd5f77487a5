"""Measure how fast the playground starts: interface ready and first chunks shown.

    .venv/bin/python tools/loadtime.py [--runs 3]

Starts serve.py, then loads the page in Debian's Chromium with a fresh profile (cold: nothing
cached) and again in the same profile (warm: HTTP cache and compiled WebAssembly reused). Times
are the page's own clock (performance.now() since navigation) at the moment MicroPython marks
``<body data-ui>`` and at the moment the first view is on screen (``data-ready``). Prints the
median of each; machine load changes them, so compare runs on the same machine only.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

# Record the page's clock when the interface and the first view are up.
MARKS = """
new MutationObserver(() => {
  const b = document.body;
  if (!b) return;
  if (b.dataset.ui === 'true' && !window.__ui) window.__ui = performance.now();
  if (b.dataset.worker === 'true' && !window.__worker) window.__worker = performance.now();
  if (b.dataset.ready === 'true' && !window.__ready) window.__ready = performance.now();
}).observe(document, {attributes: true, subtree: true, attributeFilter: ['data-ui', 'data-worker', 'data-ready']});
"""


def load(page, url):
    page.goto(url)
    page.wait_for_function("window.__ready", timeout=180_000)
    return page.evaluate("[window.__ui, window.__worker, window.__ready]")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    server = subprocess.Popen(
        [sys.executable, str(ROOT / "serve.py"), "--port", "0", "--quiet"], stdout=subprocess.PIPE, text=True, cwd=str(ROOT)
    )
    cold, warm = [], []
    try:
        assert server.stdout is not None
        found = re.search(r"http://[\d.]+:\d+/", server.stdout.readline())
        if found is None:
            raise SystemExit("serve.py did not print its address")
        url = found.group(0)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for _ in range(args.runs):
                context = browser.new_context()
                context.add_init_script(MARKS)
                page = context.new_page()
                cold.append(load(page, url))
                warm.append(load(page, url))
                context.close()
            browser.close()
    finally:
        server.terminate()
        server.wait()
        if server.stdout is not None:
            server.stdout.close()
    for name, runs in (("cold", cold), ("warm", warm)):
        ui, worker, ready = (statistics.median(r[i] for r in runs) / 1000 for i in range(3))
        print(
            f"{name}: interface ready {ui:.2f} s, Python worker ready {worker:.2f} s, "
            f"first chunks shown {ready:.2f} s (median of {len(runs)})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
