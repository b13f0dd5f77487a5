"""Set-up shared by the project's commands: a virtual environment per purpose, Debian packages.

Only the package registries are used, and only here, during set-up.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


class SetupError(RuntimeError):
    """A set-up step failed; the message says which and what to do."""


def _run(cmd, what: str, env: dict | None = None) -> None:
    result = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    if result.returncode != 0:
        tail = "\n".join(result.stdout.strip().splitlines()[-15:])
        raise SetupError(f"{what} failed (exit {result.returncode}):\n{tail}")


def venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def lock_of(requirements: Path) -> Path:
    """The hash-pinned lock made from `requirements` (requirements-test.txt ->
    requirements-test.lock; see tools/lock.py), or `requirements` itself when there is none."""
    lock = requirements.with_suffix(".lock")
    return lock if lock.is_file() else requirements


def ensure_venv(venv: Path, requirements: Path) -> Path:
    """Create `venv` and install `requirements` into it, again only when they change.

    What is installed is the lock beside the file (every package, dependencies included, pinned
    by version and hash: pip refuses anything else), and, without their own dependencies, the
    packages of its "-nodeps" companion (requirements-test-nodeps.txt, locked the same way).
    """
    python = venv_python(venv)
    stamp = venv / ".requirements.sha256"
    lock = lock_of(requirements)
    nodeps = lock_of(requirements.with_name(requirements.stem + "-nodeps.txt"))
    extra = nodeps.read_bytes() if nodeps.is_file() else b""
    digest = hashlib.sha256(lock.read_bytes() + extra).hexdigest()
    if python.exists() and stamp.exists() and stamp.read_text().strip() == digest:
        return python
    if not python.exists():
        print(f"set-up: creating {venv.name}", flush=True)
        _run([sys.executable, "-m", "venv", str(venv)], f"creating {venv}")
    install, env = _installer(python)
    hashes = ["--require-hashes"] if lock.suffix == ".lock" else []
    print(f"set-up: installing {lock.name} into {venv.name}", flush=True)
    _run([*install, *hashes, "-r", str(lock)], f"installing -r {lock.name}", env)
    if extra:
        hashes = ["--require-hashes"] if nodeps.suffix == ".lock" else []
        _run([*install, *hashes, "--no-deps", "-r", str(nodeps)], f"installing --no-deps -r {nodeps.name}", env)
    stamp.write_text(digest + "\n")
    return python


UV_LOCK = ROOT / "tools" / "uv.lock"


def _installer(python: Path) -> tuple[list, dict | None]:
    """The command that installs a requirements file into `python`'s environment: uv's `pip
    install` (the pinned uv of tools/uv.lock, installed by pip, hash-checked like the rest), which
    takes a quarter of pip's time for the test lock (22 s against 60 s, wheels not yet cached);
    pip's own when uv cannot be had (no wheel for this platform, say). uv reads no pip
    configuration: a registry or certificate pip is configured with by the environment is
    handed on. uv copies each file out of its cache (`--link-mode=copy`): its default hard links
    make every installed file multiply-linked, and nltk refuses to open such a file (the
    stopwords LlamaIndex ships), as a guard against links out of its data folder. Returns the
    command and its environment."""
    pip = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    if UV_LOCK.is_file():
        got = subprocess.run([*pip, "--require-hashes", "-r", str(UV_LOCK)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        uv = python.parent / ("uv.exe" if os.name == "nt" else "uv")
        if got.returncode == 0 and uv.is_file():
            env = dict(os.environ)
            if env.get("PIP_INDEX_URL"):
                env.setdefault("UV_DEFAULT_INDEX", env["PIP_INDEX_URL"])
            if env.get("PIP_CERT"):
                env.setdefault("SSL_CERT_FILE", env["PIP_CERT"])
            return [str(uv), "pip", "install", "--python", str(python), "--link-mode=copy", "-q"], env
    return pip, None


def missing_debian_packages(names: Iterable[str]) -> list:
    missing = []
    for name in names:
        r = subprocess.run(
            ["dpkg-query", "-W", "-f=${Status}", name], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
        )
        if "install ok installed" not in r.stdout:
            missing.append(name)
    return missing


def ensure_debian_packages(names: Iterable[str]) -> None:
    """apt-get install whichever of `names` is missing (needs root, as on CI)."""
    if shutil.which("dpkg-query") is None:
        raise SetupError("this set-up needs a Debian system (dpkg-query not found)")
    missing = missing_debian_packages(names)
    if not missing:
        return
    if hasattr(os, "geteuid") and os.geteuid() != 0:
        raise SetupError(
            f"missing Debian packages {' '.join(missing)}: run as root, or sudo apt-get install -y {' '.join(missing)}"
        )
    print(f"set-up: apt-get install {' '.join(missing)}", flush=True)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-qq"], env=env, stdout=subprocess.DEVNULL)
    result = subprocess.run(
        ["apt-get", "install", "-y", "-qq", *missing], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    if result.returncode != 0:
        raise SetupError("apt-get install failed:\n" + result.stdout[-2000:])
