"""Regenerate docs/screenshot.png (the README's picture of the playground).

    .venv/bin/python tools/screenshot.py [--out docs/screenshot.png] [--dark] [--width 1200]

Starts serve.py on a free port, opens the page in Debian's Chromium, picks settings that show
overlap stripes and flags, hovers one chunk card and saves the top of the page.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUERY = "?strategy=recursive&unit=tokens&size=120&overlap=20%25&tokenizer=o200k&limit=minilm"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshot.png")
    parser.add_argument("--dark", action="store_true")
    parser.add_argument("--width", type=int, default=1200)
    parser.add_argument("--height", type=int, default=900)
    parser.add_argument("--max-height", type=int, default=1000)
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    server = subprocess.Popen([sys.executable, str(ROOT / "serve.py"), "--port", "0", "--quiet"],
                              stdout=subprocess.PIPE, text=True, cwd=str(ROOT))
    try:
        assert server.stdout is not None
        found = re.search(r"http://[\d.]+:\d+/", server.stdout.readline())
        if found is None:
            raise SystemExit("serve.py did not print its address")
        url = found.group(0)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            page = browser.new_page(viewport={"width": args.width, "height": args.height},
                                    color_scheme="dark" if args.dark else "light")
            page.goto(url + QUERY)
            page.wait_for_selector("body[data-compare=done]", state="attached", timeout=120_000)
            page.hover("#cards .card[data-chunk-index='1']")
            # The chunks panel: stats strip, tinted document with a hovered chunk, chunk cards.
            top, bottom = page.evaluate("(() => { const r = document.getElementById('results').getBoundingClientRect();"
                                        " return [r.top + scrollY, r.bottom + scrollY]; })()")
            args.out.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(args.out), full_page=True,
                            clip={"x": 0, "y": top - 12, "width": args.width,
                                  "height": min(bottom - top + 24, args.max_height)})
            browser.close()
    finally:
        server.terminate()
        server.wait()
        if server.stdout is not None:
            server.stdout.close()
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
