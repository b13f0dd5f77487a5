"""How the tests, the benchmarks and the doc scripts start Debian's Chromium (never a browser
Playwright downloads): one path and one set of switches, so a measurement and a test see the
same browser.

`--disable-quic`, `--disable-background-networking`, `--disable-component-update` and
`--disable-sync` keep Chromium from reaching the network on its own, so a test that counts
the page's requests counts only the page's.
"""

from __future__ import annotations

import os

__all__ = ["CHROMIUM", "CHROMIUM_ARGS"]

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
