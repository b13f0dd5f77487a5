"""Regenerate the README's pictures of the playground: docs/screenshot.png (light) and
docs/screenshot-dark.png (the same page in dark mode).

    .venv/bin/python tools/screenshot.py [--only light|dark] [--width 1280] [--max-height 1500]

Starts serve.py on a free port, opens the page in Debian's Chromium with settings that show
overlap stripes and flags, hovers one chunk card and saves the whole page from the top: the
document box and every control, then the tinted document and the chunk cards.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

QUERY = "?strategy=recursive&unit=tokens&size=120&overlap=20%25&tokenizer=estimate&limit=minilm"
OUT = {"light": ROOT / "docs" / "screenshot.png", "dark": ROOT / "docs" / "screenshot-dark.png"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(OUT), help="one of the two pictures")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=900)
    parser.add_argument("--max-height", type=int, default=1500)
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    server = subprocess.Popen(
        [sys.executable, str(ROOT / "serve.py"), "--port", "0", "--quiet"], stdout=subprocess.PIPE, text=True, cwd=str(ROOT)
    )
    try:
        assert server.stdout is not None
        found = re.search(r"http://[\d.]+:\d+/", server.stdout.readline())
        if found is None:
            raise SystemExit("serve.py did not print its address")
        url = found.group(0)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for scheme, out in OUT.items():
                if args.only in (None, scheme):
                    shoot(browser, url, scheme, out, args)
            browser.close()
    finally:
        server.terminate()
        server.wait()
        if server.stdout is not None:
            server.stdout.close()
    return 0


def shoot(browser, url: str, scheme: str, out: Path, args: argparse.Namespace) -> None:
    page = browser.new_page(viewport={"width": args.width, "height": args.height}, color_scheme=scheme)
    page.goto(url + QUERY)
    page.wait_for_selector("body[data-compare=done]", state="attached", timeout=120_000)
    page.hover("#cards .card[data-chunk-index='1']")
    height = page.evaluate("document.documentElement.scrollHeight")
    out.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(
        path=str(out), full_page=True, clip={"x": 0, "y": 0, "width": args.width, "height": min(height, args.max_height)}
    )
    page.close()
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    sys.exit(main())
