"""Make the hash-pinned locks the set-up installs from:

    python tools/lock.py

requirements-test.txt -> requirements-test.lock (and -nodeps), bench/requirements.txt ->
bench/requirements.lock, tools/uv.txt -> tools/uv.lock: every package, its dependencies included, pinned by version and by the
registry's hashes of every file of that version (for any platform: --universal). It runs `uv`
from a throwaway virtual environment (PyPI), so a lock is made the same way on any machine.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UV = "uv==0.9.30"
PYTHON = "3.11"
SOURCES = [
    (ROOT / "requirements-test.txt", []),
    (ROOT / "requirements-test-nodeps.txt", ["--no-deps"]),
    (ROOT / "bench" / "requirements.txt", []),
    (ROOT / "tools" / "uv.txt", []),  # the installer tools/bootstrap.py installs the others with
]


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        venv = Path(tmp) / "uv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", UV], check=True)
        for source, extra in SOURCES:
            lock = source.with_suffix(".lock")
            subprocess.run(
                [
                    str(venv / "bin" / "uv"),
                    "pip",
                    "compile",
                    str(source),
                    "--generate-hashes",
                    "--universal",
                    "--python-version",
                    PYTHON,
                    "--quiet",
                    "--no-header",
                    *extra,
                    "-o",
                    str(lock),
                ],
                check=True,
                cwd=ROOT,
            )
            header = (
                f"# Made by `python tools/lock.py` ({UV}) from {source.relative_to(ROOT)}: do not edit.\n"
                "# Every package pinned by version and hash; tools/bootstrap.py installs it with\n"
                "# --require-hashes (uv's, or pip's).\n"
            )
            lock.write_text(header + lock.read_text(encoding="utf-8"), encoding="utf-8")
            print(f"{lock.relative_to(ROOT)}: {sum(1 for x in lock.read_text().splitlines() if '==' in x)} packages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
