"""tools/check.py's checks are part of the test command, each a test of its own: ruff's format
and lint (ruff.toml), mypy (pyproject.toml [tool.mypy]) and mypy --strict on the library, so
no format, lint or type error is left for the next change to trip over."""

from __future__ import annotations

import pytest

from tools import check


@pytest.mark.parametrize("name", list(check.CHECKS))
def test_the_check_finds_nothing(name):
    done = check.run(name)
    assert done.returncode == 0, done.stdout + done.stderr
