"""The playground's worker: Pyodide (CPython 3.14) in a web worker, running `chunker`.

The main thread (app/main.py, MicroPython) calls the exported functions one at a time. This
module never touches `document` or `window`: it receives strings, returns strings and plain
dicts, so no cross-origin isolation is needed and the page works as is on GitHub Pages. It uses
`chunker`'s public API only.

The document is held here as a `chunker.Document`, which keeps its measurements between
calls: a slider move does not resend a megabyte of text nor encode it again, and an export is
exactly the result on screen.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Iterator
from typing import Any

import chunker
import chunker.embeddings
from app import lazy, panels, questions
from app import view as views
from app.cards import cards_html, embedded_html
from app.html import utf16

SAMPLE = "app/sample.md"
SAMPLE_QUESTIONS = "app/sample_questions.jsonl"


class Session:
    """What the worker holds between calls: the document, the result on screen and the rows
    of the comparison computed so far."""

    def __init__(self) -> None:
        self.document = chunker.Document("")
        self.version = 0
        self.filename = "document.md"
        self.result: chunker.ChunkResult | None = None
        self.doc_rest: Iterator[str] = iter(())
        self.doc_made: list[str] = []
        # Comparison rows by (document version, settings but the strategy): going back to
        # settings compared a moment ago shows every row at once.
        self.compare_rows: dict[Any, dict[str, Any]] = {}
        self.questions: list[chunker.Question] = []
        self.top_k = 5
        self.index = "text"  # what the retrieval check ranks each chunk by (chunker.evaluate)
        self.retriever = "bm25"  # how it ranks them: dense and hybrid with the settings' model
        self.selected: int | None = None  # the question whose retrieved chunks are shown
        self.sweep_rows: list[Any] = []
        self.sweep_key: Any = None
        # Why the page's last text was refused (a lone surrogate): said again at each run
        # until a new text comes, never a view of the empty document held instead.
        self.refused: dict[str, Any] | None = None

    def take(self, text: str, filename: str | None) -> None:
        # The file name tells the code strategy its language, as the command line's does, and
        # is the records' source (and part of their ids), as the command line run beside the
        # file gives it.
        self.take_document(chunker.Document(text, name=filename, source=filename), filename)

    def take_document(self, document: chunker.Document, filename: str | None) -> None:
        text = document.text
        self.document = document
        self.refused = None
        self.version += 1
        self.filename = filename or "document.md"
        # Questions are about a document: those whose answers are no longer where they were go.
        self.questions = [q for q in self.questions if _answers_hold(q, text)]
        if not self.questions and _is_sample(text):
            self.questions = list(_demo_questions(text))
        self.selected = None
        self.sweep_rows, self.sweep_key = [], None


def _answers_hold(question: chunker.Question, text: str) -> bool:
    return all(text[r.start_index : r.end_index] == r.content for r in question.references)


def _is_sample(text: str) -> bool:
    try:
        with open(SAMPLE, encoding="utf-8", newline="") as f:
            return f.read() == text
    except OSError:
        return False


def _demo_questions(text: str) -> tuple[chunker.Question, ...]:
    """The questions written for the sample document (app/sample_questions.jsonl)."""
    with open(SAMPLE_QUESTIONS, encoding="utf-8") as f:
        return chunker.load_questions(f.read(), text)


S = Session()

TELL_CHARS = 1_000_000
"""Documents this long get a line in the page's status box at each step of a run (the page
adds the seconds and a Cancel button): shorter ones are done before a line could be read."""

COMPARE_KEPT = 16
"""Settings whose comparison rows are kept (a few kilobytes each)."""


def _settings(settings_json: str) -> tuple[chunker.Settings, str | None]:
    """Settings from the page (strings as typed) to validated settings, and the model limit.

    The values are handed over as typed: `chunker.Settings` validates them and its ChunkerError
    is the one-line message the page shows.
    """
    raw = json.loads(settings_json)
    given: dict[str, Any] = {}
    for option in chunker.OPTIONS.values():
        if "page" not in option.surfaces:
            continue
        value = raw.get(option.url_key)  # the page sends each option under its link's key
        if value is None:
            value = chunker.PLAYGROUND_DEFAULTS.get(option.name, option.default)
        elif isinstance(value, str):
            # A free-text field is taken as typed (a context template may end with a space);
            # the others are read without the spaces around them.
            free = option.control is not None and option.control.kind == "text"
            value = value if free and value.strip() else value.strip()
            if value == "":
                if option.blank is chunker.MISSING:
                    raise chunker.ChunkerError(
                        f"{option.name} is empty: type a value such as "
                        f"{chunker.PLAYGROUND_DEFAULTS.get(option.name, option.default)}",
                        field=option.name,
                    )
                value = option.blank
            else:
                value = option.parse(value, option.name)
        elif isinstance(value, list):
            value = tuple(value)
        given[option.name] = value
    settings = chunker.Settings(**given)
    return settings, raw.get("limit") or None


def _failure(exc: BaseException) -> dict[str, Any]:
    if isinstance(exc, chunker.ChunkerError):
        return {"ok": False, "error": str(exc), "field": exc.field or ""}
    # Not the user's fault: keep the page readable, put the details in the console.
    print(traceback.format_exc())
    return {
        "ok": False,
        "field": "",
        "error": f"Internal error ({type(exc).__name__}: {exc}). Details are in the browser console.",
    }


def hello() -> dict[str, Any]:
    """Answers once the worker has imported everything (the page's "ready" handshake), with the
    controls the page builds from the library's registries."""

    # Whether Python's standard library and chunker came as bytecode (set-up compiles them:
    # tools/pyc_zip.py) or as source; the page shows it as <body data-stdlib data-app>, and a test
    # holds set-up to it.
    def kind(module: Any) -> str:
        return "compiled" if module.__spec__.origin.endswith(".pyc") else "source"

    # As JSON: MicroPython reads it into its own dicts and lists (a few kilobytes), where a
    # JavaScript object would be a proxy without .items() or `in`.
    return {"version": chunker.__version__, "stdlib": kind(json), "app": kind(chunker), "controls": json.dumps(panels.controls())}


def _text_of(doc: Any) -> str | None:
    """The document from the main thread: ``{text: ...}`` (a JsProxy or a dict), or a str.

    The main thread wraps it in a JavaScript object so MicroPython never copies it (see
    static/bridge.js). Anything else, including None, which arrives as JavaScript null and so
    as Pyodide's `jsnull`, means "the same document as before".
    """
    if isinstance(doc, str):
        return doc
    value = doc.get("text") if isinstance(doc, dict) else getattr(doc, "text", None)
    return value if isinstance(value, str) else None


def _name_of(doc: Any) -> str | None:
    value = doc.get("name") if isinstance(doc, dict) else getattr(doc, "name", None)
    return value if isinstance(value, str) and value else None


def run(doc: Any, settings_json: str) -> dict[str, Any]:
    """Chunk the document (None = unchanged) and return the whole view."""
    text = _text_of(doc)
    size = len(text) if text is not None else len(S.document.text)
    tell = lazy.tell if size >= TELL_CHARS else _quiet
    about = f"{size / 1e6:.1f} MB"
    if text is not None:
        tell(f"Reading {about}…")
        try:
            S.take(text, _name_of(doc))
        except chunker.ChunkerError as exc:
            S.take("", None)
            S.refused = {**_failure(exc), "counts": "Not counted: the text cannot be read"}
    if S.refused is not None:
        return S.refused
    try:
        settings, limit = _settings(settings_json)
        lazy.ensure(settings.tokenizer)  # an exact tokenizer's vocabulary, fetched on first use
        tell(f"Chunking {about}…")
        result = S.document.run(settings)
        tell(f"Checking {len(result.chunks):,} chunks…")
        advice = S.document.advise(result, limit=limit)
        tell("Building the view…")
        view, S.doc_rest = views.view(S.document, result, advice, chunker.FLAGS, filename=S.filename)
        S.result, S.doc_made = result, []
        if not json.loads(settings_json).get("view_embedded", True):
            view["embedded"] = ""  # closed on the page: sent when it opens (embedded())
        # The comparison as far as it is known for these settings: rows of other settings or of
        # another document never stay on screen while the new ones are computed.
        view["compare"] = panels.compare_html(
            S.compare_rows.get(_compare_key(result.settings), {}),
            result.settings.strategy,
            chunker.FLAGS,
            list(chunker.STRATEGIES),
            _splitter_row(result),
        )
        return view
    except Exception as exc:  # every failure becomes a message on the page
        failure = _failure(exc)
        failure["counts"] = _counts(settings_json)
        return failure


def _quiet(status: str) -> None:
    """No status line: a short document's run is over before one could be read."""


def _counts(settings_json: str) -> str:
    """The live counts even when the settings are wrong (the text box is still worth counting)."""
    doc = S.document
    tokenizer = str(json.loads(settings_json).get("tokenizer"))
    try:
        tokens = doc.count_tokens(tokenizer)  # counted once per document and tokenizer identity
        tok = chunker.get_tokenizer(tokenizer)
    except Exception:  # an unknown tokenizer: count what can be counted
        return panels.counts_html(len(doc.text), doc.words, None, tokenizer, False)
    return panels.counts_html(len(doc.text), doc.words, tokens, chunker.tokenizer_label(tokenizer), tok.exact)


def cards(start: int, count: int) -> dict[str, str]:
    """Cards ``start`` to ``start + count`` of the result on screen (the chunk list is virtual:
    the page asks for the cards near what is visible)."""
    if S.result is None:
        return {"cards": ""}
    text = S.document.text
    return {"cards": cards_html(S.result.chunks, text, chunker.FLAGS, int(start), int(count), utf16(text))}


def embedded() -> dict[str, str]:
    """The "as embedded" view of the result on screen, for the page that has just opened it."""
    return {"embedded": embedded_html(S.result.chunks) if S.result is not None else ""}


def more_doc(part: int) -> dict[str, str]:
    """Part ``part`` (1, 2, ...) of the last view's document (``view["doc_parts"]`` in all),
    built when first asked for and kept."""
    made = S.doc_made
    k = int(part) - 1
    while k >= len(made):
        piece = next(S.doc_rest, None)
        if piece is None:
            break
        made.append(piece)
    return {"doc": made[k] if 0 <= k < len(made) else ""}


def _compare_key(settings: chunker.Settings) -> Any:
    return (S.version, tuple((k, str(v)) for k, v in settings.to_dict().items() if k != "strategy"))


def compare(strategy: str) -> str:
    """Run one more strategy with the current settings; return the compare table so far."""
    if S.result is None:
        return ""
    settings = S.result.settings
    key = _compare_key(settings)
    rows = S.compare_rows.pop(key, None) or {}
    S.compare_rows[key] = rows  # the most recent last
    while len(S.compare_rows) > COMPARE_KEPT:
        del S.compare_rows[next(iter(S.compare_rows))]
    if strategy not in rows and strategy in chunker.STRATEGIES:
        try:
            rows.update(S.document.compare(settings, strategies=[strategy]))
        except Exception as exc:
            rows[strategy] = _failure(exc)["error"]
    return panels.compare_html(rows, settings.strategy, chunker.FLAGS, list(chunker.STRATEGIES), _splitter_row(S.result))


def _splitter_row(result: chunker.ChunkResult) -> tuple[str, Any] | None:
    """A pasted splitter's row of the comparison: its name and the stats on screen."""
    if not result.settings.splitter:
        return None
    call = chunker.parse_splitter(result.settings.splitter)
    return (call.cls + (f".{call.constructor}" if call.constructor else ""), result.stats)


def export(fmt: str) -> Any:
    """The result on screen in one of `chunker.FORMATS` (the command line's formats), in a Blob:
    the main thread passes it to the browser without copying it (static/bridge.js)."""
    if S.result is None or S.refused is not None or fmt not in chunker.FORMATS:
        return None  # the result on screen is of no text the page holds (a refused one)
    from js import Blob, Object  # only in the browser
    from pyodide.ffi import to_js

    form = chunker.FORMATS[fmt]
    options = to_js({"type": form.mime + ";charset=utf-8"}, dict_converter=Object.fromEntries)
    return Blob.new(to_js(list(_blocks(form.pieces(S.result)))), options)


def _blocks(pieces: Iterator[str] | Any, size: int = 1 << 20) -> Iterator[str]:
    """Pieces joined into strings of about `size` characters: one JavaScript string per record
    would cost a conversion each."""
    batch: list[str] = []
    held = 0
    for piece in pieces:
        batch.append(piece)
        held += len(piece)
        if held >= size:
            yield "".join(batch)
            batch, held = [], 0
    if batch:
        yield "".join(batch)


# ---------------------------------------------------------------- documents: PDF, Word, HTML


def open_document(doc: Any) -> dict[str, Any]:
    """A PDF, Word or HTML file the reader opened (``{binary, name}``: its bytes and name), extracted here as the
    command line extracts it; the worker keeps the document (with its pages) for the next run,
    and the page shows the text, read-only."""
    name = _name_of(doc) or "document"
    try:
        raw: Any = doc.get("binary") if isinstance(doc, dict) else getattr(doc, "binary", None)
        data = bytes(raw.to_py() if hasattr(raw, "to_py") else raw)
        kind = chunker.detect_kind(data, name)
        lazy.ensure_readers(kind)

        def progress(done: int, total: int) -> None:
            lazy.tell(f"Reading {name}: page {done} of {total}…")

        document = chunker.Document.from_bytes(data, name=name, progress=progress, source=name)
    except Exception as exc:  # every failure becomes a message on the page
        return _failure(exc)
    finally:
        lazy.tell("")  # the status box closes after the last page's line
    S.take_document(document, name)
    pages = len(document.pages)
    about = f"{pages} pages" if pages else {"docx": "a Word document", "html": "an HTML page"}.get(kind, kind)
    return {
        "ok": True,
        "text": document.text,
        "name": name,
        "kind": kind,
        "pages": pages,
        "note": f"Extracted from {name} ({about}): this is the text that gets chunked, read-only. "
        "python -m chunker extracts the very same text from the file.",
    }


# ---------------------------------------------------------------- the reader's own tokenizer


def use_tokenizer(doc: Any, filename: str) -> dict[str, Any]:
    """A model's tokenizer.json the reader opened (``{text: ...}``): loaded for this session only
    (it never leaves the worker's memory). Settings name it by its content (``hf:...``), so a
    second file, even one of the same name, is another tokenizer; the file name is its label."""
    from app.html import esc, num

    label = str(filename or "tokenizer.json")
    try:
        # As bytes: the file's content whatever it holds, never taken for a path to read.
        tok = chunker.load_tokenizer((_text_of(doc) or "").encode("utf-8"), name=label)
    except Exception as exc:
        failure = _failure(exc)
        failure["error"] = failure["error"][:300]  # one line on the page, whatever the file held
        return failure
    kind = getattr(getattr(tok, "model", None), "kind", "")
    limit = tok.model_max
    about = (
        f"Exact: this model's own tokenizer ({label}{', ' + kind if kind else ''}), special tokens "
        "included" + (f"; its input limit is {num(limit)} tokens" if limit else "") + ". Loaded in this "
        "page only: it is gone when the page closes."
    )
    return {
        "ok": True,
        "name": tok.name,
        "label": label,
        "model_max": limit or 0,
        "option": f'<option value="{esc(tok.name)}">{esc(label)} (exact, your model)</option>',
        "about": about,
    }


# ---------------------------------------------------------------- the reader's embedding model

# The keys of the page's ``{safetensors, tokenizer, config, label}`` object: a model folder's
# three files' bytes (static/bridge.js readModel), and the folder's name.
MODEL_KEYS = {"safetensors": "model.safetensors", "tokenizer": "tokenizer.json", "config": "config.json"}


def _bytes_of(doc: Any, key: str) -> bytes | None:
    raw: Any = doc.get(key) if isinstance(doc, dict) else getattr(doc, key, None)
    if raw is None or type(raw).__name__ == "JsNull":
        return None
    return bytes(raw.to_py() if hasattr(raw, "to_py") else raw)


def use_model(doc: Any) -> dict[str, Any]:
    """A model2vec model the reader picked (its folder or its three files), as bytes: loaded
    for this session only, never written anywhere. Settings name it by its content
    (``m2v:...``), so a second model, even one of the same folder name, is another model and
    the first one's results keep their meaning; the folder's name is its label."""
    from app.html import esc, num

    label = _name_of(doc) or "model"
    try:
        files = {name: data for key, name in MODEL_KEYS.items() if (data := _bytes_of(doc, key)) is not None}
        model = chunker.embeddings.load(files, label=label)
    except Exception as exc:
        failure = _failure(exc)
        failure["error"] = failure["error"][:300]  # one line on the page, whatever the folder held
        return failure
    about = (
        f"{label}: a static embedding model of {num(model.rows)} rows in {num(model.dim)} dimensions "
        f"({model.dtype}). The semantic strategy embeds sentences with it, and the retrieval check can "
        "rank with it (dense, hybrid). Loaded in this page only: it is gone when the page closes."
    )
    return {
        "ok": True,
        "name": model.name,
        "label": label,
        # Two folders of one name are told apart by their size and the start of their identity.
        "option": f'<option value="{esc(model.name)}">{esc(label)} ({model.dim} dims, {esc(model.name[4:12])})</option>',
        "about": about,
    }


# ---------------------------------------------------------------- questions


def _questions_view() -> dict[str, Any]:
    """The Questions panel for the result on screen: the list, and how it retrieves."""
    out: dict[str, Any] = {
        "ok": True,
        "count": len(S.questions),
        "list": questions.questions_html(S.questions, S.document.text, S.selected),
        "evaluation": "",
        "retrieved": "[]",
        "text": chunker.dump_questions(S.questions),
    }  # kept by the page
    if S.questions and S.result is not None and len(S.result.chunks):
        retriever = _retriever(S.result.settings)
        ev = chunker.evaluate(S.document, S.result, S.questions, top_k=S.top_k, index=S.index, retriever=retriever)
        out["evaluation"] = questions.evaluation_html(ev, S.result.settings, retriever, _model_label(S.result.settings))
        if S.selected is not None and S.selected < len(ev.per_question):
            out["retrieved"] = json.dumps(list(ev.per_question[S.selected].retrieved))
    return out


def _retriever(settings: chunker.Settings) -> str:
    """The retriever asked for, if the settings have the model it needs; else BM25 (the page
    offers dense and hybrid only with a model, and says why)."""
    return S.retriever if S.retriever == "bm25" or settings.embedding_model else "bm25"


def _model_label(settings: chunker.Settings) -> str:
    name = settings.embedding_model
    return chunker.embeddings.label_of(name) if name else ""


def q_view(top_k: int = 0, index: str = "", retriever: str = "") -> dict[str, Any]:
    """The panel as it stands (after a new view); `top_k`, when given, is the chunks retrieved,
    `index` what each is ranked by ("text" or "embedded"), `retriever` how (bm25, dense or
    hybrid: `chunker.RETRIEVERS`)."""
    try:
        if retriever and str(retriever) != S.retriever:
            if str(retriever) not in chunker.RETRIEVERS:
                raise chunker.ChunkerError(
                    f"unknown retriever {str(retriever)[:40]!r}: choose one of {', '.join(chunker.RETRIEVERS)}"
                )
            S.retriever = str(retriever)
            S.sweep_rows, S.sweep_key = [], None
        if int(top_k) > 0 and int(top_k) != S.top_k:
            S.top_k = int(top_k)
            S.sweep_rows, S.sweep_key = [], None
        if index and str(index) != S.index:
            S.index = str(index)
            S.sweep_rows, S.sweep_key = [], None
        return _questions_view()
    except Exception as exc:
        return _failure(exc)


def q_load(doc: Any) -> dict[str, Any]:
    """Questions from JSONL text (``{text: ...}``), checked against the document; added to the list."""
    try:
        text = _text_of(doc) or ""
        S.questions.extend(chunker.load_questions(text, S.document.text))
        S.sweep_rows, S.sweep_key = [], None
        return _questions_view()
    except Exception as exc:
        return _failure(exc)


def q_replace(doc: Any) -> dict[str, Any]:
    """The questions, as a worker started again is given them (``{text: ...}``, JSONL)."""
    try:
        S.questions = list(chunker.load_questions(_text_of(doc) or "", S.document.text))
        S.sweep_rows, S.sweep_key = [], None
        return _questions_view()
    except Exception as exc:
        return _failure(exc)


def q_add(question_json: str, spans_json: str) -> dict[str, Any]:
    """One question (a JSON string) with its answers: ``[[start, end], ...]`` code-point offsets
    in the document."""
    try:
        text = S.document.text
        spans = json.loads(spans_json)
        refs = [chunker.Reference(int(a), int(b), text[int(a) : int(b)]) for a, b in spans]
        S.questions.append(chunker.Question(str(json.loads(question_json)).strip(), tuple(refs)))
        S.sweep_rows, S.sweep_key = [], None
        return _questions_view()
    except Exception as exc:
        return _failure(exc)


def q_remove(n: int) -> dict[str, Any]:
    n = int(n)
    if 0 <= n < len(S.questions):
        del S.questions[n]
        S.selected = None if S.selected == n else S.selected
        S.sweep_rows, S.sweep_key = [], None
    return _questions_view()


def q_select(n: int) -> dict[str, Any]:
    """Show what the chunking retrieves for question n (or nothing, for -1)."""
    n = int(n)
    S.selected = n if 0 <= n < len(S.questions) and S.selected != n else None
    return _questions_view()


def q_export() -> Any:
    """The questions as JSONL (the shape `python -m chunker eval` reads), in a Blob."""
    from js import Blob, Object  # only in the browser
    from pyodide.ffi import to_js

    options = to_js({"type": "application/x-ndjson;charset=utf-8"}, dict_converter=Object.fromEntries)
    return Blob.new(to_js([chunker.dump_questions(S.questions)]), options)


def q_sweep(k: int) -> str:
    """Row k of the sweep (strategies × sizes at the settings on screen otherwise), and the
    table and chart so far. The page asks for one row per call, so new input never waits."""
    if S.result is None or not S.questions:
        return ""
    base = S.result.settings
    retriever = _retriever(base)
    key = (
        S.version,
        len(S.questions),
        base.unit,
        str(base.tokenizer),
        base.breaks,
        base.context,
        S.index,
        S.top_k,
        retriever,
        base.embedding_model,
    )
    if S.sweep_key != key:
        S.sweep_key, S.sweep_rows = key, []
    grid = [(s, z) for s in questions.SWEEP_STRATEGIES for z in questions.SWEEP_SIZES]
    k = int(k)
    if 0 <= k < len(grid) and not any((r.strategy, r.size) == grid[k] for r in S.sweep_rows):
        strategy, size = grid[k]
        try:
            S.sweep_rows.extend(
                chunker.sweep(
                    S.document,
                    S.questions,
                    strategies=[strategy],
                    sizes=[size],
                    unit=base.unit,
                    tokenizer=base.tokenizer,
                    breaks=base.breaks,
                    context=base.context,
                    index=S.index,
                    top_k=S.top_k,
                    retriever=retriever,
                    embedding_model=base.embedding_model,
                )
            )
        except chunker.ChunkerError:
            pass  # a setting this unit cannot take (size 128 of words is fine; kept simple)
    rows = chunker.mark_best(S.sweep_rows) if len(S.sweep_rows) == len(grid) else S.sweep_rows
    return questions.sweep_html(rows, questions.SWEEP_STRATEGIES, questions.SWEEP_SIZES, retriever, _model_label(base))


__export__ = [
    "hello",
    "run",
    "cards",
    "more_doc",
    "embedded",
    "compare",
    "export",
    "use_tokenizer",
    "use_model",
    "open_document",
    "q_view",
    "q_load",
    "q_replace",
    "q_add",
    "q_remove",
    "q_select",
    "q_export",
    "q_sweep",
]
