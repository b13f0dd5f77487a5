"""ruff (ruff.toml) and mypy (pyproject.toml [tool.mypy]) are part of the test command: one
typing style across the files, and no lint left for the next change to trip over."""

from __future__ import annotations

import subprocess
import sys

from tests.texts import ROOT


def test_ruff_finds_nothing():
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--output-format", "concise", "."],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_finds_nothing():
    done = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
