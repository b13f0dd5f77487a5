"""Draw the app's PNG icons (static/icons/) from static/icon.svg, so the page installs as an app.

    python tools/icons.py          # writes static/icons/icon-192.png, icon-512.png, maskable-512.png
    python tools/icons.py --check  # exit 1 if a committed icon is not what this draws

The icon is a few rounded rectangles; this reads them from the SVG (the one source of the
design) and rasterises them itself, with exact horizontal coverage and four rows of samples per
pixel, into PNGs written with zlib: no third-party artwork and no image library. The maskable
icon (what Android crops to a circle or a squircle) fills its whole square with the background
and keeps the bars inside the central 80 % that every mask leaves visible.

Standard library only.
"""

from __future__ import annotations

import argparse
import re
import struct
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SVG = ROOT / "static" / "icon.svg"
OUT = ROOT / "static" / "icons"
SUBROWS = 4


@dataclass(frozen=True)
class Rect:
    """A rounded rectangle of the SVG, in its viewBox units."""

    x: float
    y: float
    w: float
    h: float
    r: float
    rgb: tuple[int, int, int]

    def span(self, y: float) -> tuple[float, float] | None:
        """The x interval inside the shape on the horizontal line at ``y``, or None."""
        if not self.y <= y < self.y + self.h:
            return None
        r = min(self.r, self.w / 2, self.h / 2)
        dy = max(self.y + r - y, y - (self.y + self.h - r), 0.0)
        inset = r - (r * r - dy * dy) ** 0.5 if dy else 0.0
        return self.x + inset, self.x + self.w - inset


def read_svg(text: str) -> tuple[float, list[Rect]]:
    """The viewBox size and the rectangles of a square SVG made of ``<rect>`` elements.

    >>> size, rects = read_svg('<svg viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#2563eb"/></svg>')
    >>> size, rects[0].rgb, rects[0].r
    (32.0, (37, 99, 235), 7.0)
    """
    view_box = re.search(r'viewBox="([^"]+)"', text)
    if view_box is None:
        raise ValueError('the icon\'s SVG has no viewBox: give it one such as viewBox="0 0 32 32"')
    box = [float(v) for v in view_box.group(1).split()]
    rects = []
    for attrs in re.findall(r"<rect([^>]*)/>", text):
        a = dict(re.findall(r'([\w-]+)="([^"]*)"', attrs))
        colour = a["fill"].lstrip("#")
        rects.append(
            Rect(
                float(a.get("x", 0)),
                float(a.get("y", 0)),
                float(a["width"]),
                float(a["height"]),
                float(a.get("rx", 0)),
                (int(colour[0:2], 16), int(colour[2:4], 16), int(colour[4:6], 16)),
            )
        )
    return box[2], rects


def maskable(size: float, rects: list[Rect]) -> list[Rect]:
    """The background over the whole square, square-cornered; the rest shrunk into the safe zone."""
    background, *bars = rects
    k, c = 0.8, size / 2
    return [Rect(0, 0, size, size, 0, background.rgb)] + [
        Rect(c + (b.x - c) * k, c + (b.y - c) * k, b.w * k, b.h * k, b.r * k, b.rgb) for b in bars
    ]


def draw(pixels: int, size: float, rects: list[Rect]) -> bytes:
    """RGBA rows, ``pixels`` square: each shape painted over the ones before it."""
    scale = pixels / size
    rgba = [[0.0, 0.0, 0.0, 0.0] for _ in range(pixels * pixels)]
    for rect in rects:
        for py in range(pixels):
            cover = [0.0] * pixels
            touched = False
            for sub in range(SUBROWS):
                span = rect.span((py + (sub + 0.5) / SUBROWS) / scale)
                if span is None:
                    continue
                a, b = span[0] * scale, span[1] * scale
                for px in range(max(int(a), 0), min(int(b) + 1, pixels)):
                    overlap = min(b, px + 1) - max(a, px)
                    if overlap > 0:
                        cover[px] += overlap / SUBROWS
                        touched = True
            if not touched:
                continue
            for px, alpha in enumerate(cover):
                if alpha <= 0:
                    continue
                dst = rgba[py * pixels + px]
                out = alpha + dst[3] * (1 - alpha)
                for i in range(3):
                    dst[i] = (rect.rgb[i] * alpha + dst[i] * dst[3] * (1 - alpha)) / out
                dst[3] = out
    rows = bytearray()
    for py in range(pixels):
        rows.append(0)  # PNG filter: none
        for px in range(pixels):
            r, g, b, a = rgba[py * pixels + px]
            rows += bytes((round(r), round(g), round(b), round(min(a, 1.0) * 255)))
    return bytes(rows)


def png(pixels: int, rows: bytes) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", pixels, pixels, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


def icons() -> dict[str, bytes]:
    """File name under static/icons/ -> the PNG's bytes."""
    size, rects = read_svg(SVG.read_text(encoding="utf-8"))
    return {
        "icon-192.png": png(192, draw(192, size, rects)),
        "icon-512.png": png(512, draw(512, size, rects)),
        "maskable-512.png": png(512, draw(512, size, maskable(size, rects))),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Draw static/icons/*.png from static/icon.svg.")
    parser.add_argument("--check", action="store_true", help="only check that the committed icons are current")
    args = parser.parse_args(argv)
    stale = []
    for name, data in icons().items():
        path = OUT / name
        if path.is_file() and path.read_bytes() == data:
            continue
        if args.check:
            stale.append(name)
        else:
            OUT.mkdir(exist_ok=True)
            path.write_bytes(data)
            print(f"wrote {path.relative_to(ROOT)} ({len(data)} bytes)")
    if stale:
        print(f"error: {', '.join(stale)} not drawn from static/icon.svg; run python tools/icons.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
