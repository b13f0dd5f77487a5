"""The playground's speed in Chromium, as figures (issue 5, part 3). Nothing here is a test.

    python bench/browser.py            # or: python bench/run.py --browser
    python bench/browser.py --quick    # one load each, 5 slider moves, no 10 MB paste

Runs in .venv-bench (re-executes itself there). Serves the app with ``python serve.py --port 0``
and a bare Pyodide page (loads the vendored pyodide.mjs, runs ``1+1``; written under
.cache/bench/bare/) with serve.py's own handler, then drives Debian's /usr/bin/chromium with
Playwright (never a downloaded browser).

All times are taken inside the page with ``performance.now()`` (milliseconds since navigation
start) by a probe script Playwright injects before the page's own scripts: it records when the
page sets its ``<body data-*>`` markers (data-ui, data-ready, data-renders, data-busy), the
next animation frame after each render (the view on screen), input events, gaps between
animation frames over 50 ms (the main thread was frozen that long) and long tasks. Start-up
is timed without the frame-gap loop (it makes an idle page render every frame, work the bare
page, whose main thread is busy, never does); its freezes are taken on cold loads of their own.

Figures: app ready vs bare Pyodide ready (cold: fresh browser context; warm: a reload once the app has
stored its memory snapshot, and a reload right away for comparison; the bare page loads Pyodide as
npm ships it, and a second one the standard library compiled as the app has it), when the
text box takes a keystroke, slider move to updated view at 100 KB (median of ~10 moves, page
idle, and after a drag-like burst), 1 MB document: time to result and longest freeze, exact
o200k counting of 1 MB, whether a 10 MB paste crashes the page, and a 200-page PDF, a Word file
and an HTML page opened (bench/extract.py makes them): time to the chunks, pages or MB per second,
the longest freeze. Printed as a table and
written to .cache/bench/browser.md and browser.json.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import run as bench  # noqa: E402  (venv bootstrap, texts, tables)

ROOT = bench.ROOT
OUT = bench.OUT
sys.path.insert(0, str(ROOT))

from tools.chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

READY_TIMEOUT_MS = 180_000

PROBE = r"""
(() => {
  if (window.__bench) return;
  const B = window.__bench = {marks: {}, events: [], renders: [], inputs: [], gaps: [], longtasks: [], errors: []};
  const now = () => performance.now();
  // Gaps between animation frames: while the main thread is busy no frame is produced, so a
  // gap is a freeze the user would see (a 60 Hz page has ~17 ms gaps). Off for start-up
  // times: see new_page(frames=False).
  let last = null;
  const frame = (t) => {
    const n = now();
    if (last !== null && n - last > 50) B.gaps.push([last, n - last]);
    last = n;
    requestAnimationFrame(frame);
  };
  if (window.__benchFrames !== false) requestAnimationFrame(frame);
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) B.longtasks.push([e.startTime, e.duration]);
    }).observe({type: "longtask", buffered: true});
  } catch (e) { /* no Long Tasks API: the frame gaps still tell */ }
  const watch = () => {
    new MutationObserver((muts) => {
      const t = now();
      for (const m of muts) {
        if (m.target !== document.body) continue;
        const name = m.attributeName, v = document.body.getAttribute(name);
        const key = name + "=" + v;
        if (!(key in B.marks)) B.marks[key] = t;
        B.events.push([name, v, t]);
        if (name === "data-renders") {
          const r = {n: +v, t: t, frame: null};
          B.renders.push(r);
          // The frame after the render: rAF callbacks run before that frame's style, layout
          // and paint, so a message posted from rAF is handled once the new view is painted.
          requestAnimationFrame(() => {
            const ch = new MessageChannel();
            ch.port1.onmessage = () => { r.frame = now(); };
            ch.port2.postMessage(0);
          });
        }
      }
    }).observe(document.body, {attributes: true,
      attributeFilter: ["data-ready", "data-ui", "data-renders", "data-busy", "data-compare"]});
    for (const name of ["data-ready", "data-ui"]) {   // already set in the HTML
      const v = document.body.getAttribute(name);
      if (v !== null) B.marks[name + "=" + v + "@html"] = now();
    }
  };
  if (document.body) watch(); else document.addEventListener("DOMContentLoaded", watch);
  document.addEventListener("input", (e) => {
    B.inputs.push({id: e.target && e.target.id, ts: e.timeStamp, t: now(),
                   len: e.target && e.target.value ? e.target.value.length : 0});
  }, true);
  window.addEventListener("error", (e) => B.errors.push(String(e.message)));
})();
"""

BARE_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>bare Pyodide</title>
<!-- Written by bench/browser.py: the baseline the app's start-up is compared with. -->
<script type="module" src="./app/bare.js"></script>
</head><body data-ready="false"></body></html>
"""

BARE_WORKER_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>bare Pyodide in a worker</title>
<!-- Written by bench/browser.py: the bare page, with Pyodide in a worker as the app has it. -->
<script type="module" src="./bare-worker-main.js"></script>
</head><body data-ready="false"></body></html>
"""

BARE_WORKER_MAIN_JS = """// Start a module worker that loads the vendored Pyodide and runs 1+1: nothing else.
const worker = new Worker("./bare-worker.js", {type: "module"});
worker.onmessage = (event) => {
  document.body.dataset.result = String(event.data);
  document.body.dataset.ready = "true";
};
"""

BARE_WORKER_JS = """import { loadPyodide } from "../static/vendor/pyodide/pyodide.mjs";
const py = await loadPyodide();
postMessage(String(py.runPython("1+1")));
"""

BARE_COMPILED_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>bare Pyodide, compiled standard library</title>
<!-- Written by bench/browser.py: the bare page, with the standard library set-up compiled. -->
<script type="module" src="./bare-compiled.js"></script>
</head><body data-ready="false"></body></html>
"""

BARE_COMPILED_JS = """// The bare page on the runtime the app loads: the standard library compiled at set-up
// (static/vendor/stdlib.mjs). The app's time over this one is what the app itself adds.
import { loadPyodide } from "../static/vendor/pyodide/pyodide.mjs";
import { STDLIB_URL } from "../static/vendor/stdlib.mjs";
const py = await loadPyodide({ stdLibURL: STDLIB_URL });
document.body.dataset.result = String(py.runPython("1+1"));
document.body.dataset.ready = "true";
"""

BARE_JS = """// Load the vendored Pyodide on the main thread and run 1+1: nothing else.
import { loadPyodide } from "../static/vendor/pyodide/pyodide.mjs";
const py = await loadPyodide();
document.body.dataset.result = String(py.runPython("1+1"));
document.body.dataset.ready = "true";
"""


# ---------------------------------------------------------------------------
# Servers


def write_bare_page() -> Path:
    bare = OUT / "bare"
    (bare / "app").mkdir(parents=True, exist_ok=True)
    (bare / "index.html").write_text(BARE_HTML, encoding="utf-8")
    (bare / "app" / "bare.js").write_text(BARE_JS, encoding="utf-8")
    (bare / "app" / "worker.html").write_text(BARE_WORKER_HTML, encoding="utf-8")
    (bare / "app" / "bare-worker-main.js").write_text(BARE_WORKER_MAIN_JS, encoding="utf-8")
    (bare / "app" / "bare-worker.js").write_text(BARE_WORKER_JS, encoding="utf-8")
    (bare / "app" / "compiled.html").write_text(BARE_COMPILED_HTML, encoding="utf-8")
    (bare / "app" / "bare-compiled.js").write_text(BARE_COMPILED_JS, encoding="utf-8")
    link = bare / "static"
    if not link.is_symlink():
        if link.exists():
            shutil.rmtree(link)
        link.symlink_to(ROOT / "static", target_is_directory=True)
    return bare


def start_server(cmd: list[str], pattern: str, timeout: float = 120.0):
    """Start a server process; return (process, url) once it prints its address."""
    proc = subprocess.Popen(cmd, cwd=str(ROOT), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.time() + timeout
    seen = []
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            if proc.poll() is not None:
                break
            continue
        seen.append(line.rstrip())
        m = re.search(pattern, line)
        if m:
            return proc, m.group(1)
    proc.kill()
    raise SystemExit(f"browser bench: server did not start: {' '.join(cmd)}\n" + "\n".join(seen[-10:]))


# ---------------------------------------------------------------------------
# Page helpers


def new_page(browser, frames: bool = True):
    """A fresh context (an empty cache: a first visit) with the probe; ``frames=False`` leaves
    out the frame-gap loop, whose 60 renders a second would compete with what is timed."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    if not frames:
        ctx.add_init_script("window.__benchFrames = false;")
    ctx.add_init_script(PROBE)
    page = ctx.new_page()
    page.set_default_timeout(READY_TIMEOUT_MS)
    crashed = []
    page.on("crash", lambda *_: crashed.append(True))
    page.crashed = crashed
    return ctx, page


def probe(page) -> dict:
    return page.evaluate("() => window.__bench")


def wait_ready(page, timeout=READY_TIMEOUT_MS) -> None:
    page.wait_for_function("() => document.body && document.body.dataset.ready === 'true'", timeout=timeout)


def load(page, url: str) -> dict:
    page.goto(url, wait_until="commit")
    wait_ready(page)
    return probe(page)


# The app's report on its memory snapshot (static/fast-start.js sets it; static/pyodide.mjs).
SNAPSHOT_DONE = "() => ['stored', 'not stored', 'restored', 'unavailable'].includes(document.body.dataset.snapshot)"


def load_settled(page, url: str) -> dict:
    """The app loaded, and done with its first visit's memory snapshot (see static/pyodide.mjs):
    that worker shares the two cores for a second or two, which is not what a slider move costs."""
    B = load(page, url)
    try:
        page.wait_for_function(SNAPSHOT_DONE, timeout=60_000)
    except Exception:  # measure anyway; the snapshot is an optimisation
        pass
    return B


def wait_idle_after(page, t0: float, timeout=READY_TIMEOUT_MS, compare=True) -> None:
    """Wait until a render started after t0 is on screen and the page is no longer busy."""
    cond = (
        "(t0) => { const B = window.__bench; const b = document.body.dataset;"
        " return b.busy === 'false' && B.renders.some(r => r.t > t0 && r.frame !== null)"
        + (" && b.compare === 'done'" if compare else "")
        + "; }"
    )
    page.wait_for_function(cond, arg=t0, timeout=timeout)


def result_after(page, t0: float) -> dict:
    """Latency of the last render after t0, and the longest freeze from t0 until then (ms)."""
    B = probe(page)
    renders = [r for r in B["renders"] if r["t"] > t0 and r["frame"] is not None]
    end = renders[-1]["frame"]
    return {
        "latency_ms": end - t0,
        "render_ms": renders[-1]["t"] - t0,
        "renders": len(renders),
        "freeze_ms": longest_freeze(B, t0, end),
        "end": end,
        "timeline": timeline(B, t0, end),
    }


def timeline(B: dict, t0: float, t1: float) -> list:
    """What happened between t0 and t1 (ms after t0): the page's markers and every freeze.

    Says where the time went (the app's own markers: data-busy is set by the input handler,
    data-renders at the start of render(), frame = the next frame after it), for whoever
    optimises the page.
    """
    ev = [[round(t - t0), f"{name}={v}"] for name, v, t in B["events"] if t0 <= t <= t1 + 1]
    ev += [
        [round(r["frame"] - t0), f"frame after render {r['n']}"]
        for r in B["renders"]
        if r["frame"] is not None and t0 <= r["frame"] <= t1 + 1
    ]
    ev += [[round(i["t"] - t0), f"input event on #{i['id']} handled"] for i in B["inputs"] if t0 <= i["t"] <= t1]
    ev += [
        [round(start - t0), f"freeze {round(dur)} ms (frame gap)"]
        for start, dur in B["gaps"]
        if start + dur >= t0 and start <= t1
    ]
    ev += [
        [round(start - t0), f"long task {round(dur)} ms"] for start, dur in B["longtasks"] if start + dur >= t0 and start <= t1
    ]
    return sorted(ev)


def longest_freeze(B: dict, t0: float, t1: float) -> float:
    """The longest frame gap or long task overlapping [t0, t1]."""
    worst = 0.0
    for start, dur in B["gaps"] + B["longtasks"]:
        if start + dur >= t0 and start <= t1:
            worst = max(worst, dur)
    return worst


def set_text(page, text: str) -> float:
    """Replace the document as a script would (value set, one input event); return t0 in page time."""
    return page.evaluate(
        """(text) => {
        const ta = document.getElementById('document');
        const t0 = performance.now();
        ta.value = text;
        ta.dispatchEvent(new InputEvent('input', {bubbles: true, inputType: 'insertFromPaste'}));
        return t0; }""",
        text,
    )


def paste_text(page, text: str) -> float:
    """Paste `text` over the whole box as the user would; return t0 in page time.

    A paste event carrying the text goes first, as the browser sends it. The event is synthetic,
    so if no handler takes it over, the browser's own part is done here as it would do it: the
    text goes into the box, then an input event.

    The text reaches the page first, in a clipboard object of its own, and two frames are drawn
    before the event: handing a megabyte to the page (Playwright's argument, then `setData`)
    holds its main thread for some 50-90 ms, as a real paste's clipboard read does, whatever
    the page, and that freeze would otherwise overlap t0 and count as the app's.
    """
    page.evaluate(
        """(text) => {
        const data = new DataTransfer();
        data.setData('text/plain', text);
        window.__benchPaste = data; }""",
        text,
    )
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    return page.evaluate(
        """() => {
        const ta = document.getElementById('document');
        const data = window.__benchPaste;
        delete window.__benchPaste;
        ta.focus();
        ta.select();
        const t0 = performance.now();
        const paste = new ClipboardEvent('paste', {clipboardData: data, bubbles: true, cancelable: true});
        if (ta.dispatchEvent(paste)) {
            ta.value = data.getData('text/plain');
            ta.dispatchEvent(new InputEvent('input', {bubbles: true, inputType: 'insertFromPaste'}));
        }
        return t0; }"""
    )


def move_slider(page, value: int) -> float:
    return page.evaluate(
        """(v) => {
        const r = document.getElementById('size-range');
        const t0 = performance.now();
        r.value = String(v);
        r.dispatchEvent(new Event('input', {bubbles: true}));
        return t0; }""",
        value,
    )


def select(page, name: str, value: str) -> float:
    return page.evaluate(
        """([name, v]) => {
        const s = document.getElementById(name);
        const t0 = performance.now();
        s.value = v;
        s.dispatchEvent(new Event('change', {bubbles: true}));
        return t0; }""",
        [name, value],
    )


def _ms(x: float | None) -> str:
    return "n/a" if x is None else (f"{x:.0f} ms" if x < 10_000 else f"{x / 1000:.1f} s")


# ---------------------------------------------------------------------------
# Measurements


def start_up(browser, app_url: str, bare_url: str, n: int) -> dict:
    """Cold (fresh context) and warm (reload) ready times of the app and the bare page, interleaved."""
    out = {
        "app_cold": [],
        "app_warm": [],
        "bare_cold": [],
        "bare_warm": [],
        "worker_cold": [],
        "worker_warm": [],
        "compiled_cold": [],
        "compiled_warm": [],
        "ui_cold": [],
        "ui_warm": [],
        "app_load_freeze": [],
        "transfer_kb": {},
        "app_warm_unsnapped": [],
        "snapshot": [],
        "snapshot_warm": [],
    }
    pages = (
        ("bare", bare_url),
        ("worker", bare_url + "app/worker.html"),
        ("compiled", bare_url + "app/compiled.html"),
        ("app", app_url),
    )
    for round_ in range(n):
        # Every other round in reverse order, so that neither page always comes first after
        # the other's work (a stored snapshot, a closed context) or always meets a warmer machine.
        for kind, url in pages if round_ % 2 == 0 else pages[::-1]:
            ctx, page = new_page(browser, frames=False)
            try:
                B = load(page, url)
                out[f"{kind}_cold"].append(B["marks"]["data-ready=true"])
                if kind == "app":
                    out["ui_cold"].append(B["marks"].get("data-ui=true"))
                out["transfer_kb"].setdefault(f"{kind}_cold", []).append(transferred_kb(page))
                if kind == "app":
                    # A reload right away, before the worker's memory snapshot is stored (see
                    # static/pyodide.mjs); the warm figure is a return visit after it is.
                    page.reload(wait_until="commit")
                    wait_ready(page)
                    out["app_warm_unsnapped"].append(probe(page)["marks"]["data-ready=true"])
                    page.wait_for_function(SNAPSHOT_DONE, timeout=READY_TIMEOUT_MS)
                    out["snapshot"].append(page.get_attribute("body", "data-snapshot"))
                page.reload(wait_until="commit")
                wait_ready(page)
                B = probe(page)
                out[f"{kind}_warm"].append(B["marks"]["data-ready=true"])
                if kind == "app":
                    out["snapshot_warm"].append(page.get_attribute("body", "data-snapshot"))
                if kind == "app":
                    out["ui_warm"].append(B["marks"].get("data-ui=true"))
                out["transfer_kb"].setdefault(f"{kind}_warm", []).append(transferred_kb(page))
            finally:
                ctx.close()
    # The freezes while the app starts: cold loads of their own, with the frame-gap loop.
    for _ in range(max(1, n // 2)):
        ctx, page = new_page(browser)
        try:
            B = load(page, app_url)
            out["app_load_freeze"].append(longest_freeze(B, 0, B["marks"]["data-ready=true"]))
        finally:
            ctx.close()
    return out


def transferred_kb(page) -> float:
    """KB the main thread fetched over the network (0 for cache hits; a worker's fetches are not listed)."""
    return page.evaluate("() => performance.getEntriesByType('resource').reduce((a, e) => a + e.transferSize, 0) / 1024")


TYPED = "zqx"  # in no sample


def typing(browser, app_url: str) -> dict:
    """How soon after navigation the text box takes a keystroke, how late it is handled, and
    whether what was typed is still there once the app is ready (the sample must not replace
    it; typed after the interface is up, it lands in the sample wherever the click put it)."""
    ctx, page = new_page(browser)
    try:
        page.goto(app_url, wait_until="commit")
        page.locator("#document").click(timeout=30_000)
        page.keyboard.type(TYPED)
        page.wait_for_function("() => window.__bench.inputs.some(i => i.id === 'document')", timeout=30_000)
        B = probe(page)
        first = next(i for i in B["inputs"] if i["id"] == "document")
        value = page.evaluate("() => document.getElementById('document').value")
        wait_ready(page)
        B = probe(page)
        fcp = page.evaluate(
            "() => { const e = performance.getEntriesByName('first-contentful-paint')[0]; return e ? e.startTime : null; }"
        )
        return {
            "input_at_ms": first["t"],
            "input_delay_ms": first["t"] - first["ts"],
            "fcp_ms": fcp,
            "ui_ready_ms": B["marks"].get("data-ui=true"),
            "ready_ms": B["marks"].get("data-ready=true"),
            "kept": TYPED in value,
            "kept_after_ready": TYPED in page.evaluate("() => document.getElementById('document').value"),
        }
    finally:
        ctx.close()


def slider(browser, app_url: str, text: str, moves: list[int]) -> dict:
    ctx, page = new_page(browser)
    try:
        load_settled(page, app_url)
        t0 = set_text(page, text)
        wait_idle_after(page, t0)
        lat, freeze = [], []
        for v in moves:
            page.wait_for_timeout(150)
            t0 = move_slider(page, v)
            wait_idle_after(page, t0, compare=False)
            r = result_after(page, t0)
            lat.append(r["latency_ms"])
            freeze.append(r["freeze_ms"])
            page.wait_for_function("() => document.body.dataset.compare === 'done'")
        # A drag: 10 input events 30 ms apart, as fast as a hand moves the slider. What counts is
        # how long after the last one the final view shows.
        page.wait_for_timeout(150)
        last = None
        for v in range(moves[0], moves[0] + 300, 30):
            last = move_slider(page, v)
            page.wait_for_timeout(30)
        wait_idle_after(page, last, compare=False)
        drag = result_after(page, last)
        return {
            "moves_ms": lat,
            "freeze_ms": freeze,
            "drag_after_last_ms": drag["latency_ms"],
            "last_move_timeline": r["timeline"],
            "drag_freeze_ms": longest_freeze(probe(page), last - 300, drag["end"]),
        }
    finally:
        ctx.close()


def one_megabyte(browser, app_url: str, text: str) -> dict:
    ctx, page = new_page(browser)
    try:
        # Baseline: what the browser itself needs to take 1 MB into a plain text box.
        base = plain_textarea(browser, text)
        load_settled(page, app_url)
        t0 = paste_text(page, text)
        wait_idle_after(page, t0, compare=False)
        first = result_after(page, t0)
        wait_idle_after(page, t0)  # the compare table (six more strategies) in the worker
        B = probe(page)
        compare_done = next((t for name, v, t in B["events"] if name == "data-compare" and v == "done" and t > t0), None)
        whole = longest_freeze(B, t0, max(r["frame"] or 0 for r in B["renders"]) + 500)
        moves = []
        for v in (300, 500, 400):
            t1 = move_slider(page, v)
            wait_idle_after(page, t1, compare=False)
            moves.append(result_after(page, t1))
            page.wait_for_function("() => document.body.dataset.compare === 'done'")
        # Exact o200k: the first switch loads the vocabulary in the worker, then counts 1 MB.
        t2 = select(page, "tokenizer", "o200k")
        wait_idle_after(page, t2, compare=False)
        o200k_first = result_after(page, t2)
        page.wait_for_function("() => document.body.dataset.compare === 'done'")
        t3 = move_slider(page, 600)
        wait_idle_after(page, t3, compare=False)
        o200k_again = result_after(page, t3)
        cards = page.evaluate("() => document.querySelectorAll('[data-chunk-index]').length")
        chunks = page.evaluate("() => document.getElementById('summary').textContent")
        return {
            "result_ms": first["latency_ms"],
            "freeze_ms": first["freeze_ms"],
            "timeline": first["timeline"],
            "plain_textarea_freeze_ms": base,
            "o200k_timeline": o200k_first["timeline"],
            "freeze_incl_compare_ms": whole,
            "compare_done_ms": (compare_done - t0) if compare_done else None,
            "moves_ms": [m["latency_ms"] for m in moves],
            "moves_freeze_ms": [m["freeze_ms"] for m in moves],
            "o200k_first_ms": o200k_first["latency_ms"],
            "o200k_first_freeze_ms": o200k_first["freeze_ms"],
            "o200k_again_ms": o200k_again["latency_ms"],
            "cards_in_dom": cards,
            "summary": chunks,
        }
    finally:
        ctx.close()


def documents(browser, app_url: str) -> dict:
    """A 200-page text PDF, a Word file and an HTML page opened on the page: the worker fetches
    the reader (the first PDF), extracts the text with progress, and chunks it. Timed from the
    file's arrival to the chunks on screen, with the longest main-thread freeze meanwhile."""
    sys.path.insert(0, str(BENCH))
    import extract as docs  # bench/extract.py, the same documents as the CPython figures
    import pypdf

    folder = OUT / "documents"
    folder.mkdir(parents=True, exist_ok=True)
    pdf = docs.pdf_of_pages(200)
    files = {
        "first PDF": (folder / "report.pdf", pdf),
        "PDF again": (folder / "report-again.pdf", pdf),
        "DOCX": (folder / "report.docx", docs.word_document(200)),
        "HTML": (folder / "report.html", docs.html_page(2000)),
    }
    for path, data in files.values():
        path.write_bytes(data)
    pages = len(pypdf.PdfReader(str(files["first PDF"][0])).pages)
    ctx, page = new_page(browser)
    out: dict = {"pages": pages}
    try:
        load_settled(page, app_url)
        for label, (path, data) in files.items():
            t0 = page.evaluate("() => performance.now()")
            page.set_input_files("#file", str(path))
            wait_idle_after(page, t0, compare=False)
            got = result_after(page, t0)
            error = page.evaluate("() => { const e = document.getElementById('error'); return e.hidden ? '' : e.textContent; }")
            out[label] = {
                "ms": got["latency_ms"],
                "freeze_ms": got["freeze_ms"],
                "mb": len(data) / 1e6,
                "summary": page.evaluate("() => document.getElementById('summary').textContent"),
                "error": error,
            }
    finally:
        ctx.close()
    return out


def plain_textarea(browser, text: str) -> float:
    """Longest freeze when a bare <textarea> (no app) is given the same text: the browser's share."""
    ctx, page = new_page(browser)
    try:
        page.set_content("<!doctype html><body><textarea id='document' rows=20 cols=80></textarea></body>")
        page.wait_for_function("() => window.__bench && window.__bench.gaps !== undefined")
        page.wait_for_timeout(300)
        t0 = paste_text(page, text)
        page.wait_for_timeout(1500)
        return longest_freeze(probe(page), t0, t0 + 1500)
    finally:
        ctx.close()


def ten_megabytes(browser, app_url: str, text: str) -> dict:
    ctx, page = new_page(browser)
    out = {"crashed": False}
    try:
        load_settled(page, app_url)
        w0 = time.time()
        t0 = paste_text(page, text)
        try:
            # While it works: the status line's progress and the Cancel button (app/main.py).
            page.wait_for_selector("#cancel-run", state="visible", timeout=120_000)
            out["progress"] = page.evaluate(
                "() => document.getElementById('status').hidden ? '' : document.getElementById('status').textContent.trim()"
            )
            out["cancel_offered_ms"] = page.evaluate("() => performance.now()") - t0
            page.wait_for_function(
                "(t0) => { const B = window.__bench; return !document.getElementById('error').hidden ||"
                " (document.body.dataset.busy === 'false' && B.renders.some(r => r.t > t0 && r.frame !== null)); }",
                arg=t0,
                timeout=300_000,
            )
            B = probe(page)
            renders = [r for r in B["renders"] if r["t"] > t0 and r["frame"] is not None]
            end = renders[-1]["frame"] if renders else None
            out["timeline"] = timeline(B, t0, end or (t0 + (time.time() - w0) * 1000))
            out.update(
                result_ms=(end - t0) if end else None,
                freeze_ms=longest_freeze(B, t0, end or (t0 + (time.time() - w0) * 1000)),
                error=page.evaluate(
                    "() => { const e = document.getElementById('error'); return e.hidden ? '' : e.textContent; }"
                ),
                summary=page.evaluate("() => document.getElementById('summary').textContent"),
            )
            p0 = time.time()
            page.evaluate("() => 1 + 1")
            out["responsive_after_ms"] = (time.time() - p0) * 1000
            # Cancel: the same text again with another size, cancelled a second in; then how
            # long until the page is idle again.
            t4 = move_slider(page, 700)
            page.wait_for_selector("#cancel-run", state="visible", timeout=120_000)
            c0 = page.evaluate("() => { document.getElementById('cancel-run').click(); return performance.now(); }")
            page.wait_for_function("() => document.body.dataset.cancels === '1' && document.body.dataset.busy === 'false'")
            out["cancel_idle_ms"] = page.evaluate("() => performance.now()") - c0
            out["cancel_after_ms"] = c0 - t4
        except Exception as exc:  # a crash or a timeout is the finding
            out["error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
        out["crashed"] = bool(page.crashed)
        out["wall_s"] = time.time() - w0
        return out
    finally:
        ctx.close()


def semantic_model() -> Path:
    """The 64-dimension model the tests train (tests/embedding_fixtures.py), made in the tests'
    environment and cached under .cache/; bench/semantic.py times the same one in CPython."""
    py = ROOT / ".venv" / "bin" / "python"
    code = "from tests import embedding_fixtures; print(embedding_fixtures.trained())"
    done = subprocess.run([str(py), "-c", code], cwd=str(ROOT), capture_output=True, text=True, timeout=1800)
    if done.returncode:
        raise RuntimeError("the 64-dimension model could not be made: " + done.stderr.strip()[-200:])
    return Path(done.stdout.strip().splitlines()[-1])


def semantic_cpython(text_path: Path, model: Path) -> dict:
    """The same chunking in CPython without numpy (bench/semantic.py's worker process): the
    first run's CPU seconds and the next one's."""
    import semantic as sem  # bench/semantic.py

    py = ROOT / ".venv" / "bin" / "python"
    done = subprocess.run(
        [str(py), "-c", sem.WORKER, str(ROOT), str(text_path), "semantic-model", str(model), "1", ""],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if done.returncode:
        raise RuntimeError(done.stderr.strip()[-200:])
    got = json.loads(done.stdout)
    return {"first_s": got["first"], "again_s": got["cpu"][0]}


def semantic_page(browser, text: str, text_path: Path) -> dict:
    """The semantic strategy on 1 MB in the page, with the 64-dimension model bundled into a
    built site (serve.py --build DIR --model PATH): the switch from recursive to semantic, then
    a size move, each to the view on screen; and its ratio to CPython without numpy."""
    model = semantic_model()
    site = OUT / "site-semantic"
    done = subprocess.run(
        [sys.executable, str(ROOT / "serve.py"), "--build", str(site), "--model", str(model)],
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode:
        raise RuntimeError("serve.py --build failed: " + done.stderr.strip()[-200:])
    srv, url = start_server([sys.executable, str(BENCH / "_bare_server.py"), str(site)], r"bare: (http://\S+/)")
    try:
        ctx, page = new_page(browser)
        try:
            load_settled(page, url)
            page.wait_for_function("() => document.getElementById('embedding-model').value.startsWith('m2v:')")
            t0 = paste_text(page, text)
            wait_idle_after(page, t0, compare=False)
            t1 = select(page, "strategy", "semantic")
            wait_idle_after(page, t1, compare=False)
            first = result_after(page, t1)
            summary = page.evaluate("() => document.getElementById('summary').textContent")
            page.wait_for_function("() => document.body.dataset.compare === 'done'")
            t2 = move_slider(page, 300)
            wait_idle_after(page, t2, compare=False)
            again = result_after(page, t2)
        finally:
            ctx.close()
    finally:
        srv.terminate()
        srv.wait(timeout=10)
    cpy = semantic_cpython(text_path, model)
    return {
        "first_ms": first["latency_ms"],
        "again_ms": again["latency_ms"],
        "freeze_ms": max(first["freeze_ms"], again["freeze_ms"]),
        "summary": summary,
        **cpy,
    }


# ---------------------------------------------------------------------------


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(description="Time the playground in Chromium (figures, never asserted).")
    p.add_argument("--quick", action="store_true", help="one load each, 5 slider moves, no 10 MB paste")
    p.add_argument("--loads", type=int, help="cold/warm loads of each page (default 5; --quick 1)")
    p.add_argument("--no-10mb", action="store_true", help="skip the 10 MB paste")
    p.add_argument("--only", help="comma-separated steps: start-up,typing,slider,1mb,10mb,semantic,documents")
    args = p.parse_args(argv)
    bench.ensure_bench_venv(argv, Path(__file__).resolve())
    if not Path(CHROMIUM).exists():
        from tools.bootstrap import ensure_debian_packages

        ensure_debian_packages(["chromium"])
    from playwright.sync_api import sync_playwright

    loads = args.loads or (1 if args.quick else 5)
    # 20 moves: enough for a 95th percentile that is not simply the slowest one.
    moves = [200, 320, 260, 420, 380, 520, 460, 300, 240, 180, 220, 340, 280, 440, 360, 500, 480, 310, 250, 190]
    moves = moves[: 5 if args.quick else 20]
    only = set(args.only.split(",")) if args.only else None
    want_10 = (only is None and not (args.quick or args.no_10mb)) or (only is not None and "10mb" in only)
    sizes = [0.1, 1.0] + ([10.0] if want_10 else [])
    text_paths = bench.build_texts(sizes)
    texts = {mb: path.read_text(encoding="utf-8") for mb, path in text_paths.items()}
    bare = write_bare_page()
    load_start = os.getloadavg()
    print(f"browser bench: load average {load_start[0]:.2f} on {os.cpu_count()} cores", file=sys.stderr, flush=True)

    servers = []
    figures: dict = {}
    try:
        app, app_url = start_server([sys.executable, "serve.py", "--port", "0", "--quiet"], r"(http://\S+/)")
        servers.append(app)
        bare_srv, bare_url = start_server([sys.executable, str(BENCH / "_bare_server.py"), str(bare)], r"bare: (http://\S+/)")
        servers.append(bare_srv)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            try:
                steps = [
                    ("start-up", lambda: start_up(browser, app_url, bare_url, loads)),
                    ("typing", lambda: typing(browser, app_url)),
                    ("slider 100 KB", lambda: slider(browser, app_url, texts[0.1], moves)),
                    ("1 MB", lambda: one_megabyte(browser, app_url, texts[1.0])),
                ]
                if 10.0 in texts:
                    steps.append(("10 MB paste", lambda: ten_megabytes(browser, app_url, texts[10.0])))
                steps.append(("semantic 1 MB", lambda: semantic_page(browser, texts[1.0], text_paths[1.0])))
                steps.append(("documents", lambda: documents(browser, app_url)))
                keys = {
                    "start-up": "start-up",
                    "typing": "typing",
                    "slider 100 KB": "slider",
                    "1 MB": "1mb",
                    "10 MB paste": "10mb",
                    "semantic 1 MB": "semantic",
                    "documents": "documents",
                }
                steps = [(n, st) for n, st in steps if only is None or keys[n] in only]
                for name, step in steps:
                    print(f"  {name} ...", end=" ", file=sys.stderr, flush=True)
                    t = time.time()
                    try:
                        figures[name] = step()
                    except Exception as exc:  # report what could not be measured
                        figures[name] = {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}"}
                    print(f"{time.time() - t:.0f} s (load {os.getloadavg()[0]:.2f})", file=sys.stderr, flush=True)
            finally:
                browser.close()
    finally:
        for proc in servers:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
    load_end = os.getloadavg()
    rows = report_rows(figures)
    info = bench.machine()
    head = [
        f"Machine: {info['cpu']}, {info['cores']} cores; Chromium {chromium_version()} headless; "
        f"chunker at commit {info['commit']}.",
        f"Load average (1 min): {load_start[0]:.2f} at start, {load_end[0]:.2f} at end.",
        "Times in page time (performance.now()); freeze = longest gap between animation frames "
        "or long task; cold = fresh browser context, warm = reload.",
    ]
    hdr = ["figure", "measured", "target", "result"]
    lines = timelines(figures)
    print("\n".join(head + [""] + bench.text_table(hdr, rows) + [""] + lines))
    OUT.mkdir(parents=True, exist_ok=True)
    md = ["## Browser: last run", "", *[h + "  " for h in head], "", *bench.md_table(hdr, rows), "", "```", *lines, "```", ""]
    (OUT / "browser.md").write_text("\n".join(md), encoding="utf-8")
    (OUT / "browser.json").write_text(json.dumps({"head": head, "figures": figures}, indent=1), encoding="utf-8")
    print(f"Markdown in {(OUT / 'browser.md').relative_to(ROOT)}")
    return 0


def timelines(figures: dict) -> list[str]:
    """Where the time went in the slow interactions: ms after the action, what happened."""
    out = []
    for title, fig, key in (
        ("last slider move, 100 KB", "slider 100 KB", "last_move_timeline"),
        ("1 MB paste", "1 MB", "timeline"),
        ("1 MB, switch to o200k", "1 MB", "o200k_timeline"),
        ("10 MB paste", "10 MB paste", "timeline"),
    ):
        events = figures.get(fig, {}).get(key)
        if not events:
            continue
        out.append(f"Timeline, {title} (ms after the action):")
        out += [f"  {t:>7}  {what}" for t, what in events[:40]]
    return out


def chromium_version() -> str:
    try:
        out = subprocess.run([CHROMIUM, "--version"], capture_output=True, text=True, timeout=20).stdout
        return out.split()[1] if len(out.split()) > 1 else out.strip()
    except (OSError, subprocess.TimeoutExpired):
        return "?"


def percentile(xs: list[float], p: float) -> float:
    """The p-th percentile by linear interpolation between the closest ranks."""
    xs = sorted(xs)
    k = (len(xs) - 1) * p / 100
    lo = int(k)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def _verdict(ok) -> str:
    return "n/a" if ok is None else ("PASS" if ok else "FAIL")


def report_rows(f: dict) -> list[list[str]]:
    rows = []

    def err(name):
        e = f.get(name, {}).get("error")
        if e and len(f.get(name, {})) == 1:
            rows.append([name, "error: " + e[:150], "", "n/a"])
            return True
        return False

    if "start-up" in f and not err("start-up"):
        s = f["start-up"]
        med = lambda xs: statistics.median([x for x in xs if x is not None]) if xs else None
        app_c, bare_c, app_w, bare_w = med(s["app_cold"]), med(s["bare_cold"]), med(s["app_warm"]), med(s["bare_warm"])
        rows.append([f"app ready, cold (median of {len(s['app_cold'])})", _ms(app_c), "", ""])
        rows.append(["bare Pyodide page ready (1+1), cold", _ms(bare_c), "", ""])
        # Each round loads the bare page and the app one after the other: the spread of the
        # rounds' own ratios shows how much of a difference between two runs is noise.
        rounds = sorted(a / b for a, b in zip(s["app_cold"], s["bare_cold"]) if a and b)
        spread = f" (rounds {rounds[0]:.2f}-{rounds[-1]:.2f}x)" if len(rounds) > 1 else ""
        rows.append(
            ["app ready / bare Pyodide, cold", f"{app_c / bare_c:.2f}x{spread}", "<= 1.25x", _verdict(app_c / bare_c <= 1.25)]
        )
        snaps = sorted(set(s.get("snapshot_warm") or ["?"]))
        rows.append(
            [
                f"app ready / bare Pyodide, warm (return visit; snapshot {'/'.join(snaps)})",
                f"{app_w / bare_w:.2f}x ({_ms(app_w)} vs {_ms(bare_w)})",
                "<= 1.25x",
                _verdict(app_w / bare_w <= 1.25),
            ]
        )
        if s.get("app_warm_unsnapped"):
            app_u = med(s["app_warm_unsnapped"])
            rows.append(["same, reload before the snapshot is stored", f"{app_u / bare_w:.2f}x ({_ms(app_u)})", "", ""])
        if s.get("worker_cold"):
            wk_c, wk_w = med(s["worker_cold"]), med(s["worker_warm"])
            rows.append(
                [
                    "bare Pyodide in a worker, no app (1+1), cold / warm",
                    f"{_ms(wk_c)} / {_ms(wk_w)} ({wk_c / bare_c:.2f}x / {wk_w / bare_w:.2f}x the bare page)",
                    "",
                    "",
                ]
            )
        if s.get("compiled_cold"):
            cp_c = med(s["compiled_cold"])
            rows.append(
                [
                    "bare Pyodide page, standard library compiled as the app has it, cold",
                    f"{_ms(cp_c)} ({cp_c / bare_c:.2f}x the bare page; the app takes {app_c / cp_c:.2f}x this)",
                    "",
                    "",
                ]
            )
        rows.append(["interface (MicroPython) up, cold / warm", f"{_ms(med(s['ui_cold']))} / {_ms(med(s['ui_warm']))}", "", ""])
        kb = {k: med(v) for k, v in s["transfer_kb"].items()}
        rows.append(
            [
                "main-thread KB fetched, app cold / warm, bare cold / warm",
                " / ".join(f"{kb.get(k, 0):.0f}" for k in ("app_cold", "app_warm", "bare_cold", "bare_warm")),
                "",
                "",
            ]
        )
        rows.append(
            [
                f"longest freeze while the app starts, cold ({len(s['app_load_freeze'])} loads of their own)",
                _ms(max(s["app_load_freeze"])),
                "",
                "",
            ]
        )
    if "typing" in f and not err("typing"):
        t = f["typing"]
        ok = t["kept"] and t["kept_after_ready"] and t["input_delay_ms"] <= 100
        rows.append(
            [
                "text box takes a keystroke (after navigation start; handling delay)",
                f"{_ms(t['input_at_ms'])} (first paint {_ms(t.get('fcp_ms'))}, interface up {_ms(t['ui_ready_ms'])}); "
                f"delay {_ms(t['input_delay_ms'])}; kept after ready: {t['kept_after_ready']}",
                "at once (delay <= 100 ms, text kept)",
                _verdict(ok),
            ]
        )
    if "slider 100 KB" in f and not err("slider 100 KB"):
        s = f["slider 100 KB"]
        m = statistics.median(s["moves_ms"])
        p95 = percentile(s["moves_ms"], 95)
        rows.append(
            [
                f"slider move -> view updated, 100 KB (median of {len(s['moves_ms'])}; 95th percentile; max)",
                f"{_ms(m)}; {_ms(p95)}; max {_ms(max(s['moves_ms']))}",
                "<= 40 ms median, <= 80 ms p95",
                _verdict(m <= 40 and p95 <= 80),
            ]
        )
        rows.append(["after a drag (10 moves, 30 ms apart) -> final view, 100 KB", _ms(s["drag_after_last_ms"]), "", ""])
        rows.append(
            [
                "longest freeze during slider moves, 100 KB",
                _ms(max(s["freeze_ms"] + [s["drag_freeze_ms"]])),
                "<= 50 ms",
                _verdict(max(s["freeze_ms"] + [s["drag_freeze_ms"]]) <= 50),
            ]
        )
    if "1 MB" in f and not err("1 MB"):
        s = f["1 MB"]
        rows.append(["1 MB pasted -> result on screen", _ms(s["result_ms"]), "<= 0.5 s", _verdict(s["result_ms"] <= 500)])
        worst = max(s["freeze_ms"], s["freeze_incl_compare_ms"], *s["moves_freeze_ms"], s["o200k_first_freeze_ms"])
        rows.append(
            [
                "1 MB: longest main-thread freeze (paste, compare table, moves, o200k)",
                _ms(worst),
                "<= 50 ms",
                _verdict(worst <= 50),
            ]
        )
        rows.append(
            [
                "1 MB: same text into a plain <textarea> (browser's own share of a freeze)",
                _ms(s["plain_textarea_freeze_ms"]),
                "",
                "",
            ]
        )
        rows.append(["1 MB: slider move -> view (median of 3)", _ms(statistics.median(s["moves_ms"])), "", ""])
        rows.append(
            [
                "1 MB: exact o200k, first switch (loads the vocabulary)",
                _ms(s["o200k_first_ms"]),
                "<= 2 s",
                _verdict(s["o200k_first_ms"] <= 2000),
            ]
        )
        rows.append(
            ["1 MB: exact o200k, next slider move", _ms(s["o200k_again_ms"]), "<= 2 s", _verdict(s["o200k_again_ms"] <= 2000)]
        )
        rows.append(["1 MB: chunk cards in the DOM (lazy list)", f"{s['cards_in_dom']} ({s['summary'][:60]})", "", ""])
    if "10 MB paste" in f and not err("10 MB paste"):
        s = f["10 MB paste"]
        # The page's own "worker failed ... reload" message is a crash in all but name.
        broken = "failed" in (s.get("error") or "").lower() or "reload" in (s.get("error") or "").lower()
        ok = not s["crashed"] and "responsive_after_ms" in s and not broken
        what = (
            ("crashed" if s["crashed"] else "no crash")
            + (f"; result after {_ms(s.get('result_ms'))}" if s.get("result_ms") else "")
            + (f"; longest freeze {_ms(s.get('freeze_ms'))}" if "freeze_ms" in s else "")
            + (f"; message: {s['error'][:100]}" if s.get("error") else "")
        )
        rows.append(["10 MB paste", what, "no crash (nor the app's own failure message)", _verdict(ok)])
        if s.get("result_ms"):
            rows.append(["10 MB pasted -> result on screen", _ms(s["result_ms"]), "<= 4 s", _verdict(s["result_ms"] <= 4000)])
        if "cancel_offered_ms" in s:
            rows.append(
                [
                    "10 MB: progress shown, Cancel offered (after; the status line then)",
                    f"{_ms(s['cancel_offered_ms'])}; {s.get('progress', '')[:70]!r}",
                    "shown",
                    _verdict(bool(s.get("progress"))),
                ]
            )
        if "cancel_idle_ms" in s:
            rows.append(
                [
                    "10 MB: Cancel pressed -> page idle again (worker replaced)",
                    _ms(s["cancel_idle_ms"]),
                    "",
                    "",
                ]
            )
    if "semantic 1 MB" in f and not err("semantic 1 MB"):
        s = f["semantic 1 MB"]
        ratio = s["first_ms"] / 1000 / s["first_s"]
        rows.append(
            [
                "semantic, 64-dim model, 1 MB in the page (switch from recursive) vs CPython without numpy (first run)",
                f"{_ms(s['first_ms'])} vs {s['first_s']:.2f} s: {ratio:.2f}x ({s['summary']})",
                "<= 3x",
                _verdict(ratio <= 3),
            ]
        )
        rows.append(
            [
                "same, a size move after it vs CPython's second run",
                f"{_ms(s['again_ms'])} vs {s['again_s']:.2f} s: {s['again_ms'] / 1000 / s['again_s']:.2f}x; "
                f"longest freeze {_ms(s['freeze_ms'])}",
                "",
                "",
            ]
        )
    if "documents" in f and not err("documents"):
        s = f["documents"]
        for label in ("first PDF", "PDF again"):
            d = s[label]
            rows.append(
                [
                    f"{s['pages']}-page PDF opened -> chunks on screen ({label}"
                    + ("; fetches the PDF reader)" if label == "first PDF" else ")"),
                    f"{_ms(d['ms'])}: {s['pages'] / d['ms'] * 1000:.1f} pages/s; longest freeze {_ms(d['freeze_ms'])}"
                    + (f"; error: {d['error'][:80]}" if d["error"] else ""),
                    "no freeze > 100 ms",
                    _verdict(d["freeze_ms"] <= 100 and not d["error"]),
                ]
            )
        for label in ("DOCX", "HTML"):
            d = s[label]
            rows.append(
                [
                    f"{d['mb']:.2f} MB {label} opened -> chunks on screen",
                    f"{_ms(d['ms'])}: {d['mb'] / d['ms'] * 1000:.2f} MB/s; longest freeze {_ms(d['freeze_ms'])}"
                    + (f"; error: {d['error'][:80]}" if d["error"] else ""),
                    "",
                    "",
                ]
            )
    return rows


if __name__ == "__main__":
    sys.exit(main())
