"""How far Chunker's numbers can be trusted: `python bench/fidelity.py`.

Prints the sentence splitter's score on the Pragmatic Segmenter's English golden rules (beside
pySBD, with both timed in the same run), and the `estimate` tokenizer's error against exact
o200k and cl100k counts on real text of several kinds (beside seed 000's chars/4 and seed 004's
chars/3.8). The LangChain parity of the `langchain` strategy is checked by
tests/test_langchain.py against the real package.

On a fresh machine it first sets up what it reads: .venv with requirements-test.txt (pySBD,
tiktoken) and the Debian packages the real-text corpora come from.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.bootstrap import SetupError, ensure_debian_packages, ensure_venv  # noqa: E402

CORPUS_PACKAGES = ["python3.11-doc", "manpages-de", "manpages-nl", "manpages-ja", "manpages-zh"]


def main() -> int:
    python = ROOT / ".venv" / "bin" / "python"
    if Path(sys.prefix).resolve() != (ROOT / ".venv").resolve():
        try:
            python = ensure_venv(ROOT / ".venv", ROOT / "requirements-test.txt")
            ensure_debian_packages(CORPUS_PACKAGES)
        except SetupError as e:
            print(f"bench/fidelity.py: set-up failed: {e}", file=sys.stderr)
            return 2
        os.execv(str(python), [str(python), __file__, *sys.argv[1:]])
    from bench import estimate_error, golden_rules

    print("# Sentence splitting: English golden rules (Pragmatic Segmenter)\n")
    print(golden_rules.report())
    print("\n# Token estimates against exact counts\n")
    print(estimate_error.report())
    return 0


if __name__ == "__main__":
    sys.exit(main())
