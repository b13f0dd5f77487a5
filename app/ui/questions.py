# The Questions panel: questions with their answers marked in the document view, how the
# chunking on screen retrieves them, and a sweep over strategies and sizes (all computed in the
# worker: app/worker.py q_*, app/questions.py).

import json

from pyscript.ffi import to_js
from ui.dom import BRIDGE, LIST, closest, data, el, file_call, mark, on, show_error, spawn, toast

SWEEP_ROWS = 12  # app/questions.py: 3 strategies x 4 sizes


class Panel:
    def __init__(self):
        self.worker = None
        self.answers = []  # [start, end] spans selected for the question being written
        self.sweeping = False
        self.sweep_id = 0  # a newer sweep (or a new view) stops the one running


P = Panel()


def show(view):
    """Set the panel from a worker answer (its HTML was escaped there)."""
    if not view.ok:
        show_error(view.error)
        return
    BRIDGE.keep("questions", "jsonl", view)  # for a worker started again (app/main.py)
    BRIDGE.setHTML(el("q-list"), view, "list")
    BRIDGE.setHTML(el("q-eval"), view, "evaluation")
    LIST.markRetrieved(to_js(json.loads(view.retrieved)))
    el("q-count").textContent = str(view.count)


async def refresh():
    """After each new view: the evaluation of the chunking now on screen."""
    if P.worker is None:
        return
    P.sweep_id += 1  # a sweep of the old chunking is out of date
    el("q-sweep-out").innerHTML = ""
    mark("sweep", "")
    show(await P.worker.q_view(top_k(), el("q-index").value, el("q-retriever").value))


async def replay():
    """A new worker (the old one was stopped): the questions the old one held."""
    kept = BRIDGE.kept("questions")
    if kept.length:
        await P.worker.q_replace(kept[0].value)


def top_k():
    try:
        return max(1, int(el("q-topk").value))
    except ValueError:
        return 5


def said_answers():
    el("q-answers").textContent = (
        "" if not P.answers else str(len(P.answers)) + (" answer" if len(P.answers) == 1 else " answers") + " marked"
    )


@on("click", "#q-answer")
def mark_answer(event):
    found = BRIDGE.selectionOffsets()
    if not found:
        toast("Select the answer's text in the document view, or in the document box with Shift and the arrow keys, first", 5)
        return
    P.answers.append(json.loads(found))
    said_answers()


@on("submit", "#q-form")
def add_question(event):
    event.preventDefault()
    question = el("q-text").value.strip()
    if not question:
        toast("Type the question first")
        return
    if not P.answers:
        toast("Mark its answer: select it in the document view or the document box, then “Add selected text as an answer”", 5)
        return
    spans = json.dumps(P.answers)
    P.answers = []
    said_answers()
    el("q-text").value = ""
    # As JSON: a string MicroPython hands to JavaScript ends at its first NUL.
    spawn(done(P.worker.q_add(json.dumps(question), spans)))


async def done(call):
    show(await call)


@on("click", "#q-list")
def on_list(event):
    button = closest(event, "button[data-question]")
    if button is None or P.worker is None:
        return
    n = int(data(button, "data-question"))
    if button.classList.contains("q-remove"):
        spawn(done(P.worker.q_remove(n)))
    else:
        spawn(done(P.worker.q_select(n)))


@on("change", "#q-topk")
def on_top_k(event):
    spawn(refresh())


@on("change", "#q-index")
def on_index(event):
    spawn(refresh())


@on("change", "#q-retriever")
def on_retriever(event):
    from ui.controls import sync_retriever

    sync_retriever()
    spawn(refresh())


@on("change", "#q-file")
def on_import(event):
    files = el("q-file").files
    if files.length:
        spawn(import_file(files.item(0)))
    el("q-file").value = ""


async def import_file(file):
    text = await BRIDGE.readText(file)
    if text.error:
        show_error(text.error)
        return
    view = await file_call(P.worker.q_load(text), str(file.name))
    if view is None:
        return
    show(view)
    if view.ok:
        toast("Imported questions from " + str(file.name))


@on("click", "#q-export")
def on_export(event):
    if P.worker is not None:
        spawn(export())


async def export():
    BRIDGE.download(await P.worker.q_export(), "questions.jsonl")


@on("click", "#q-sweep")
def on_sweep(event):
    if P.worker is not None:
        spawn(sweep())


async def sweep():
    """Every strategy and size, a row per worker call: the table and chart grow as rows come, and
    a new view (or a new sweep) stops this one."""
    P.sweep_id += 1
    mine = P.sweep_id
    el("q-sweep-out").innerHTML = '<p class="help">Sweeping…</p>'
    mark("sweep", "running")
    for k in range(SWEEP_ROWS):
        table = await P.worker.q_sweep(k)
        if P.sweep_id != mine:
            return
        el("q-sweep-out").innerHTML = table
    mark("sweep", "done")
