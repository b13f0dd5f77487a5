"""The set-up's installer (tools/bootstrap.py): uv from its hash-pinned lock, else pip."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tools import bootstrap


def test_uv_installs_the_locks_and_is_handed_pips_registry_and_certificate(monkeypatch):
    # The tests' own environment was made by the set-up: uv is in it (the pip install of
    # tools/uv.lock finds it there, hash-checked), so the installer is uv's.
    monkeypatch.setenv("PIP_INDEX_URL", "https://registry.example/simple")
    monkeypatch.setenv("PIP_CERT", "/etc/ssl/certs/example.pem")
    monkeypatch.delenv("UV_DEFAULT_INDEX", raising=False)
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    python = Path(sys.executable)
    if not (python.parent / "uv").is_file():  # not run by tests/run.py: install nothing here
        pytest.skip("this environment was not made by the set-up (no uv beside its python)")
    command, env = bootstrap._installer(python)
    assert command[:3] == [str(python.parent / "uv"), "pip", "install"] and ["--python", str(python)] == command[3:5]
    assert "--link-mode=copy" in command
    assert env["UV_DEFAULT_INDEX"] == "https://registry.example/simple"
    assert env["SSL_CERT_FILE"] == "/etc/ssl/certs/example.pem"


def test_without_uv_pip_installs(monkeypatch, tmp_path):
    monkeypatch.setattr(bootstrap, "UV_LOCK", tmp_path / "none.lock")
    command, env = bootstrap._installer(Path(sys.executable))
    assert command[:4] == [sys.executable, "-m", "pip", "install"] and env is None


def test_the_uv_lock_pins_the_uv_the_locks_are_made_with():
    from tools import lock

    text = bootstrap.UV_LOCK.read_text()
    assert f"\n{lock.UV} \\\n" in text and "--hash=sha256:" in text


def test_installed_files_are_not_hard_links():
    # nltk opens no multiply-linked file (its guard against links out of its data folder), and
    # LlamaIndex's sentence splitter reads its stopwords through it: uv's default hard links
    # from its cache broke both on a fresh set-up.
    import llama_index.core

    stopwords = Path(llama_index.core.__file__).parent / "_static" / "nltk_cache" / "corpora" / "stopwords" / "english"
    assert stopwords.is_file() and stopwords.stat().st_nlink == 1
