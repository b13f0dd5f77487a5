"""The README's command-line examples give the output it shows (its Python examples run as
doctests: pytest.ini), and the README stays a user's page: at most 10 KB."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

from tests.texts import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_is_short():
    assert len(README.encode("utf-8")) <= 10_000


def _section(title: str) -> str:
    return README.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_the_strategy_table_and_the_flags_are_the_registries():
    import chunker

    rows = re.findall(r"^\| `(\w+)`(?: \(default\))? \|", _section("The library"), re.MULTILINE)
    assert rows == list(chunker.STRATEGIES), "README's strategy table is not the registry's"
    assert f"`{chunker.DEFAULTS['strategy']}` (default)" in README
    flags = re.search(r"^Flags: (.*?)\.$", _section("The library"), re.MULTILINE | re.DOTALL)
    assert flags and re.findall(r"`(\w+)`", flags.group(1)) == list(chunker.FLAGS)


def test_the_command_line_section_names_every_option():
    from chunker.cli._main import _parser

    shown = set(re.findall(r"--[a-z][a-z-]*", _section("The command line")))
    options = {s for a in _parser()._actions for s in a.option_strings if s.startswith("--") and s != "--help"}
    assert options <= shown, f"README's command line section misses {sorted(options - shown)}"


def test_every_file_the_readme_links_is_in_the_repository():
    # The pictures (light and dark) and the docs it points to, relative to the repository.
    links = re.findall(r"\]\(([^)#:]+)\)", README)
    assert "docs/screenshot.png" in links and "docs/screenshot-dark.png" in links
    assert [link for link in links if not (ROOT / link).is_file()] == []


def shell_examples() -> list[tuple[str, str]]:
    """($ command, the lines printed after it) from the README's console blocks."""
    out = []
    for block in re.findall(r"```\n(\$ .*?)```", README, re.S):
        lines = block.rstrip("\n").split("\n")
        k = 0
        while k < len(lines):
            command, k = lines[k][2:], k + 1
            shown = []
            while k < len(lines) and not lines[k].startswith("$ "):
                shown.append(lines[k])
                k += 1
            out.append((command, "\n".join(shown)))
    return out


def test_the_command_line_examples_print_what_the_readme_shows(tmp_path):
    doc = re.search(r'>>> doc = \((".*?)\)\n', README, re.S).group(1)
    text = eval("".join(part.strip().removeprefix("...").strip() for part in doc.split("\n")))
    (tmp_path / "policy.md").write_text(text, encoding="utf-8")
    (tmp_path / "docs" / "examples").mkdir(parents=True)
    shutil.copy(ROOT / "docs" / "examples" / "handbook.pdf", tmp_path / "docs" / "examples")
    examples = shell_examples()
    assert len(examples) >= 3
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for command, shown in examples:
        run = command.replace("python -m chunker", f"'{sys.executable}' -m chunker")
        done = subprocess.run(["sh", "-c", "{ " + run + "; } 2>&1"], cwd=tmp_path, capture_output=True, text=True, env=env)
        assert done.stdout.rstrip("\n") == shown, command
