"""The one check script: format, lint and types, as the test command runs them.

    python tools/check.py            # every check; exit 1 if any fails
    python tools/check.py --fix      # ruff format and ruff check --fix first, then every check

Run in the tests' environment (.venv): ruff and mypy are pinned in requirements-test.lock.
tests/test_lint.py runs each check as a test of its own.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHECKS: dict[str, list[str]] = {
    "format": ["-m", "ruff", "format", "--check", "."],
    "lint": ["-m", "ruff", "check", "--output-format", "concise", "."],
    # pyproject.toml's [tool.mypy]: the library, the worker's modules, the server and the tools.
    "types": ["-m", "mypy"],
    # The library itself, strictly: every function typed, no Any returned unchecked.
    # Its own cache: two runs with other options in one cache would each make the other's stale.
    "strict types": ["-m", "mypy", "--strict", "--cache-dir", ".mypy_cache/strict", "chunker"],
}
"""Each check: its name and the arguments of ``python`` that run it from the repository."""

FIXES = (["-m", "ruff", "format", "."], ["-m", "ruff", "check", "--fix", "."])


def run(name: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *CHECKS[name]], cwd=ROOT, capture_output=True, text=True)


def main(argv: list[str]) -> int:
    if "--fix" in argv:
        for fix in FIXES:
            subprocess.run([sys.executable, *fix], cwd=ROOT)
    failed = 0
    for name in CHECKS:
        done = run(name)
        print(f"{name}: {'ok' if done.returncode == 0 else 'FAILED'}")
        if done.returncode:
            failed += 1
            print((done.stdout + done.stderr).rstrip())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
