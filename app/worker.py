"""The playground's worker: Pyodide (CPython 3.14) in a web worker, running `chunker`.

The main thread (app/main.py, MicroPython) calls the exported functions one at a time. This
module never touches `document` or `window`: it receives strings, returns strings and plain
dicts, so no cross-origin isolation is needed and the page works as is on GitHub Pages.

The last document and result are kept here, so moving a slider does not resend a megabyte of
text, and an export is exactly the result on screen.
"""

import json
import traceback

import chunker
from app import render
from chunker._api import keep_last_measure, volume_limit
from chunker._tokenizers import get_tokenizer

# Settings whose chunks would hold more than this many times the document (an overlap of nearly
# the whole size) are refused with a message: a megabyte at a stride of one character would be
# gigabytes of chunk text, more than the worker's memory holds.
MAX_REPEAT = 20
MIN_CHUNK_CHARS_LIMIT = 2_000_000


def _volume_limit(text):
    return volume_limit(text, times=MAX_REPEAT, floor=MIN_CHUNK_CHARS_LIMIT)


_doc = {"text": "", "version": 0}
_last = {"result": None, "options": None, "limit": None, "doc_rest": iter(()), "doc_made": []}
_compare = {"key": None, "rows": {}}


def _options(settings_json):
    """Settings from the page (strings as typed) to `chunker.chunk` keyword arguments.

    The values are handed over as typed: `chunker` validates them and its ChunkerError is the
    one-line message the page shows.
    """
    raw = json.loads(settings_json)
    return {
        "strategy": raw.get("strategy", chunker.DEFAULTS["strategy"]),
        "unit": raw.get("unit", chunker.DEFAULTS["unit"]),
        "size": str(raw.get("size", "")).strip(),
        "overlap": str(raw.get("overlap", "")).strip(),
        "tokenizer": raw.get("tokenizer", chunker.DEFAULTS["tokenizer"]),
        "breaks": tuple(raw.get("breaks", ())),
    }, raw.get("limit") or None


def _failure(exc):
    if isinstance(exc, chunker.ChunkerError):
        return {"ok": False, "error": str(exc)}
    # Not the user's fault: keep the page readable, put the details in the console.
    print(traceback.format_exc())
    return {"ok": False, "error": f"Internal error ({type(exc).__name__}: {exc}). Details are in the browser console."}


def hello():
    """Answers once the worker has imported everything (the page's "ready" handshake)."""
    # A slider move, a new setting or the comparison chunks the same document again: keep its
    # encoding (or the estimate's running sums) between calls rather than read it all again.
    keep_last_measure(True)

    # Whether Python's standard library and chunker came as bytecode (set-up compiles them:
    # tools/pyc_zip.py) or as source; the page shows it as <body data-stdlib data-app>, and a test
    # holds set-up to it.
    def kind(module):
        return "compiled" if module.__spec__.origin.endswith(".pyc") else "source"

    # The one-line explanations the page shows under each select come from chunker itself.
    return {"version": chunker.__version__, "stdlib": kind(json), "app": kind(chunker),
            "strategies": dict(chunker.STRATEGIES),
            "units": dict(chunker.UNITS), "tokenizers": dict(chunker.TOKENIZERS),
            "breaks": dict(chunker.BREAKS), "flags": dict(chunker.FLAGS)}


def _text_of(doc):
    """The document from the main thread: ``{text: ...}`` (a JsProxy or a dict), or a str.

    The main thread wraps it in a JavaScript object so MicroPython never copies it (see
    static/bridge.js). Anything else, including None, which arrives as JavaScript null and so
    as Pyodide's `jsnull`, means "the same document as before".
    """
    if isinstance(doc, str):
        return doc
    if isinstance(doc, dict):
        value = doc.get("text")
    else:
        value = getattr(doc, "text", None)
    return value if isinstance(value, str) else None


def run(doc, settings_json):
    """Chunk the document (None = unchanged) and return the whole view."""
    text = _text_of(doc)
    if text is not None:
        _doc["text"] = text
        _doc["version"] += 1
    try:
        options, limit = _options(settings_json)
        if options["size"] == "":
            raise chunker.ChunkerError("size is empty: type a whole number such as 500")
        if options["overlap"] == "":
            options["overlap"] = "0"
        result = chunker.chunk(_doc["text"], **options, max_chunk_chars=_volume_limit(_doc["text"]))
        view = render.view(_doc["text"], result, chunker.FLAGS, chunker.DEFAULTS, limit, keep=_last)
        _last.update(result=result, options=options, limit=limit, doc_made=[])
        return view
    except Exception as exc:  # noqa: BLE001 - every failure becomes a message on the page
        failure = _failure(exc)
        failure["counts"] = _counts(settings_json)
        return failure


def _counts(settings_json):
    """The live counts even when the settings are wrong (the text box is still worth counting)."""
    text = _doc["text"]
    tokenizer = json.loads(settings_json).get("tokenizer")
    last = _last["result"]
    try:
        if last is not None and last.stats.document is text and last.settings.tokenizer == tokenizer:
            # A half-typed setting: the document was counted by the last run; encoding a
            # megabyte again at each keystroke would stall the page.
            tokens, exact = last.stats.document_tokens, last.stats.exact
        else:
            tokens = chunker.count_tokens(text, tokenizer)
            exact = get_tokenizer(tokenizer).exact
    except Exception:  # noqa: BLE001 - an unknown tokenizer: count what can be counted
        return render.counts_html(len(text), len(text.split()), None, tokenizer, False)
    return render.counts_html(len(text), len(text.split()), tokens, tokenizer, exact)


def more_cards(start):
    """The next batch of chunk cards for a long list."""
    result = _last["result"]
    if result is None:
        return {"cards": ""}
    return {"cards": render.cards_html(result.chunks, _doc["text"], chunker.FLAGS, int(start))}


def more_doc(part):
    """Part ``part`` (1, 2, ...) of the last view's document (``view["doc_parts"]`` in all).

    The parts are built when first asked for (render.iter_document_parts) and kept.
    """
    made = _last["doc_made"]
    k = int(part) - 1
    while k >= len(made):
        piece = next(_last["doc_rest"], None)
        if piece is None:
            break
        made.append(piece)
    return {"doc": made[k] if 0 <= k < len(made) else ""}


def compare(strategy):
    """Run one more strategy with the current settings; return the compare table so far."""
    options = _last["options"]
    if options is None:
        return ""
    key = (_doc["version"], tuple(sorted((k, str(v)) for k, v in options.items() if k != "strategy")))
    if _compare["key"] != key:
        _compare.update(key=key, rows={})
    rows = _compare["rows"]
    if strategy not in rows:
        try:
            rows[strategy] = chunker.chunk(_doc["text"], **dict(options, strategy=strategy),
                                           max_chunk_chars=_volume_limit(_doc["text"])).stats
        except chunker.ChunkerError as exc:
            rows[strategy] = str(exc)
        except Exception as exc:  # noqa: BLE001
            rows[strategy] = _failure(exc)["error"]
    return render.compare_html(rows, options["strategy"], chunker.FLAGS)


_EXPORTS = {
    "json": (chunker.to_json, "application/json"),
    "jsonl": (chunker.to_jsonl, "application/x-ndjson"),
    "txt": (chunker.to_text, "text/plain"),
}


def export(fmt):
    """The result on screen as `chunker.to_json` / `to_jsonl` / `to_text` (the CLI's formats),
    in a Blob: the main thread passes it to the browser without copying it (static/bridge.js)."""
    result = _last["result"]
    if result is None:
        return None
    from js import Blob, Object  # noqa: PLC0415 - only in the browser
    from pyodide.ffi import to_js  # noqa: PLC0415

    serialise, mime = _EXPORTS[fmt]
    options = to_js({"type": mime + ";charset=utf-8"}, dict_converter=Object.fromEntries)
    return Blob.new(to_js([serialise(result)]), options)


__export__ = ["hello", "run", "more_cards", "more_doc", "compare", "export"]
