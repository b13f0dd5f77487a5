"""tools/check.py's checks are part of the test command: ruff's format and lint (ruff.toml),
mypy (pyproject.toml [tool.mypy]) and mypy --strict on the library, so no format, lint or type
error is left for the next change to trip over. (mypy takes seconds: conftest.SLOW marks it.)"""

from __future__ import annotations

from tools import check


def _clean(*names: str) -> None:
    for name in names:
        done = check.run(name)
        assert done.returncode == 0, f"{name}:\n{done.stdout}{done.stderr}"


def test_ruff_format_and_lint_find_nothing():
    _clean("format", "lint")


def test_mypy_finds_nothing():
    _clean("types", "strict types")


def test_every_check_of_the_script_is_a_test():
    assert set(check.CHECKS) == {"format", "lint", "types", "strict types"}
