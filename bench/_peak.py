"""Run a module (``-m NAME``) or a script as ``python`` would, then write this process's peak
resident memory (VmHWM, bytes) to the file named by $CHUNKER_BENCH_PEAK: bench/run.py's
whole-process rows. (A child's ru_maxrss from wait4 counts the parent's pages it was forked
with, before exec: every child looked as large as the bench itself.)

    python bench/_peak.py -m chunker FILE ...    |    python bench/_peak.py SCRIPT ARGS ...
"""

from __future__ import annotations

import atexit
import os
import runpy
import sys


def _write_peak() -> None:
    with open("/proc/self/status") as fh:
        peak = next((int(line.split()[1]) * 1024 for line in fh if line.startswith("VmHWM:")), -1)
    with open(os.environ["CHUNKER_BENCH_PEAK"], "w") as fh:
        fh.write(str(peak))


if __name__ == "__main__":
    atexit.register(_write_peak)
    if sys.argv[1] == "-m":
        name = sys.argv[2]
        sys.argv = [name, *sys.argv[3:]]
        sys.path.insert(0, os.getcwd())
        runpy.run_module(name, run_name="__main__", alter_sys=True)
    else:
        script = sys.argv[1]
        sys.argv = sys.argv[1:]
        sys.path[0] = os.path.dirname(os.path.abspath(script))
        runpy.run_path(script, run_name="__main__")
