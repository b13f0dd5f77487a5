"""How long serve.py takes to start, and how much of it is checking the vendored runtime.

    python bench/serve_start.py [N]     # N starts (default 9)

Prints the median time from launching ``serve.py --port 0`` to its address line, then, in
this process, what ensure_runtime costs with everything in place, and how much of that is
hashing the vendored files against the sha256 set-up recorded (tools/runtime.py). Standard
library only; needs the runtime vendored (run serve.py once).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools import runtime  # noqa: E402


def start_once() -> float:
    began = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "serve.py"), "--port", "0", "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    try:
        line = proc.stdout.readline()
        took = time.perf_counter() - began
        if "http://" not in line:
            raise SystemExit(f"serve.py did not start: {line!r}")
        return took
    finally:
        proc.terminate()
        proc.wait()
        proc.stdout.close()


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    starts = [start_once() for _ in range(n)]
    print(
        f"serve.py start to listening: median {statistics.median(starts):.3f} s "
        f"(min {min(starts):.3f}, max {max(starts):.3f}, n={n})"
    )
    runs, hashing = [], []
    files = runtime.vendored_files(ROOT)
    size = sum((ROOT / runtime.VENDOR / rel).stat().st_size for rel in files)
    for _ in range(n):
        began = time.perf_counter()
        runtime.ensure_runtime(ROOT, quiet=True)
        runs.append(time.perf_counter() - began)
        began = time.perf_counter()
        for rel in files:
            runtime.sha256_of(ROOT / runtime.VENDOR / rel)
        hashing.append(time.perf_counter() - began)
    print(
        f"ensure_runtime, everything in place: median {statistics.median(runs):.3f} s; of which hashing "
        f"{len(files)} files ({size / 1e6:.1f} MB): median {statistics.median(hashing):.3f} s"
    )


if __name__ == "__main__":
    main()
