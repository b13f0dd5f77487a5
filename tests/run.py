"""Run every test: `python tests/run.py [pytest args]`.

On a fresh machine it first installs what the tests need: a .venv with requirements-test.txt,
Debian's chromium for the browser tests and the Debian packages the real-text corpora come
from, and the vendored browser runtime. Then it runs pytest inside .venv.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.bootstrap import SetupError, ensure_debian_packages, ensure_venv  # noqa: E402

# chromium drives the page tests; the rest are real text written by others (Python's docs,
# German, Dutch, Japanese and Chinese manual pages) for the corpus-based tests, and real PDFs
# (libtasn1's manual, the shared MIME-info spec) for tests/test_extract.py. A Java runtime for
# the local Spark tests/test_spark.py starts (pyspark brings Spark, not Java).
DEBIAN_PACKAGES = [
    "chromium",
    "default-jre-headless",
    "python3.11-doc",
    "manpages-de",
    "manpages-nl",
    "manpages-ja",
    "manpages-zh",
    "libtasn1-doc",
    "shared-mime-info",
]


def workers(args: list[str]) -> list[str]:
    """pytest-xdist's -n, unless the arguments say (-n 0: one process): one process a core, two
    at least (the browser tests mostly wait on Chromium). tests/conftest.py's scheduler keeps
    each module with a shared page in one of them."""
    if any(a.startswith(("-n", "--numprocesses", "--pdb")) or a.endswith("no:xdist") for a in args):
        return []
    return ["-n", str(max(2, os.cpu_count() or 1))]


def main() -> int:
    try:
        python = ensure_venv(ROOT / ".venv", ROOT / "requirements-test.txt")
        ensure_debian_packages(DEBIAN_PACKAGES)
        from tools.runtime import RuntimeVendorError, ensure_runtime

        ensure_runtime(ROOT)
    except (SetupError, RuntimeVendorError) as e:
        print(f"tests/run.py: set-up failed: {e}", file=sys.stderr)
        return 2
    cmd = [str(python), "-m", "pytest", *workers(sys.argv[1:]), *sys.argv[1:]]
    # Bytecode is written (__pycache__ is git-ignored and skipped by every file walk): pytest then
    # keeps its assertion-rewritten test modules too, which halves each process's collection.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return subprocess.call(cmd, cwd=str(ROOT), env=env)


if __name__ == "__main__":
    sys.exit(main())
