# The playground's interface: MicroPython on the main thread.
#
# It asks the Pyodide worker (app/worker.py) for a view whenever the text or a setting changes,
# sets what the worker built, and wires events (app/ui/: controls, results, inputs). It holds
# no chunking logic and builds no HTML from user text: every fragment it inserts was escaped in
# the worker, and everything else it writes goes through textContent.
#
# Order: the refresh loop, start-up.

import asyncio
import json

from pyscript import create_named_worker, window, workers
from ui import controls, inputs, questions, results
from ui.dom import BRIDGE, bind, el, error_text, hooks, mark, on, page_setting, show_error, spawn, status

START_TIMEOUT_S = 60  # then say so on the page (the worker may still arrive later)
# A call still running this long after newer settings or text made it stale is stopped: the
# worker is terminated and a new one started (about a second from its snapshot), rather than
# the reader waiting for work nobody will see.
STALE_S = 2.5
COMPARE_AUTO_CHARS = 1_500_000  # larger documents are compared on request only
# A call running this long shows a Cancel button, and the status line counts its seconds.
CANCEL_AFTER_S = 1


class Loop:
    """The refresh loop's state: the worker runs one call at a time, so changes made while it
    runs only mark the view out of date, and the loop runs the latest settings next."""

    def __init__(self):
        self.worker = None
        self.start_failed = False  # the worker never started: the start-up counter stops
        self.busy = False  # a refresh loop is running
        self.dirty = False  # settings or text changed since the loop last read them
        self.text_sent = False  # the worker holds the current text
        self.compare_now = False  # the user asked to compare a large document
        self.compare_auto_chars = COMPARE_AUTO_CHARS
        self.restarts = 0  # workers stopped and started again (body[data-restarts])
        self.replay = False  # a new worker: give it the questions once it has the document
        self.stale_s = STALE_S
        self.cancel = False  # the reader pressed Cancel: stop the work in hand, start nothing
        self.cancels = 0  # runs cancelled so far (body[data-cancels])
        self.tokenizer = None  # the tokenizer of the counts line on screen


L = Loop()


def set_worker(worker):
    L.worker = results.R.worker = questions.P.worker = controls.C.worker = worker


async def restart_worker(why="Stopping work a newer setting made stale…"):
    """Stop the worker (busy with stale work) and start another, giving it what the first had:
    the reader's tokenizer.json and embedding model now, the document with the next run, the
    questions after."""
    status(why)
    BRIDGE.terminateWorkers()
    L.restarts += 1
    mark("restarts", L.restarts)
    worker = await create_named_worker("./app/worker.py", "chunker-" + str(L.restarts), "./pyscript.toml")
    await worker.hello()
    set_worker(worker)
    controls.C.in_worker = set()
    controls.C.models_in_worker = set()
    L.text_sent = False
    extracted = BRIDGE.kept("document")
    if extracted.length and extracted[0].value:  # a PDF, Word or HTML file: its pages too
        view = await worker.open_document(extracted[0].value)
        L.text_sent = bool(view.ok)
    await controls.give_tokenizer()  # the one in use, if the reader loaded it; others when chosen
    await controls.give_model()  # likewise the embedding model
    L.replay = True


async def answer(call):
    """The worker's answer to `call`, or None when newer input made it stale and it ran too long
    (the worker was then restarted, and the loop runs the latest settings on the new one)."""
    waited = 0
    while True:
        view = await BRIDGE.race(call, 500)
        if view is not None:
            return view
        waited += 0.5
        if L.cancel:
            # A running call cannot be interrupted inside the worker: the worker goes.
            await restart_worker("Cancelling…")
            return None
        if waited >= CANCEL_AFTER_S:
            # The worker names what it is doing in the status line (app/worker.py); the page
            # adds the seconds, and a way out.
            if el("status").hidden:
                status("Working…")
            el("load-progress").removeAttribute("value")  # no fraction known: the bar moves
            el("status-time").textContent = " " + str(int(waited)) + " s"
            el("cancel-run").hidden = False
        if L.dirty and waited >= L.stale_s:
            await restart_worker()
            return None


def post_run():
    """Send the settings (and the document, if it changed) to the worker; return the pending call.

    Calling the worker posts the message at once; only the answer is awaited.
    """
    L.dirty = False
    text = None
    settings = controls.settings()
    counts = el("counts")
    if not L.text_sent:
        text = BRIDGE.documentText()
        L.text_sent = True
        # The counts on screen are the last document's: never shown as this one's meanwhile.
        counts.textContent = "Counting the new text…"
        counts.classList.add("stale")
    elif settings.get("tokenizer") != L.tokenizer:
        counts.classList.add("stale")  # its token count is the other tokenizer's
    L.tokenizer = settings.get("tokenizer")
    el("results").setAttribute("aria-busy", "true")
    # The "as embedded" view is HTML for up to 30 whole chunks: built only while it is open
    # (opening it asks the worker for it, app/ui/results.py), not parsed at every slider step.
    asked = dict(settings)
    asked["view_embedded"] = bool(el("embedded-view").open)
    return L.worker.run(text, json.dumps(asked))


def kick(now=True):
    """Mark the view out of date and, if the worker is idle, start it from this event handler.

    Starting the call here rather than in a scheduled task saves a turn of the event loop, and
    what the handler does afterwards (the URL, the help texts) overlaps the worker's run. A new
    document (now=False) is sent from a task of its own instead: the browser's own work on a
    big paste already fills the input event's task.
    """
    L.dirty = True
    mark("busy", "true")  # at once, so a test never sees a stale idle
    if L.busy or L.worker is None:
        return  # the running loop re-reads the controls; before start-up, start() runs it
    if not now:
        spawn(pump())
        return
    L.busy = True
    try:
        call = post_run()
    except Exception:  # let the loop report it the usual way
        L.busy = False
        L.dirty = True
        spawn(pump())
        return
    spawn(pump(call))


async def pump(call=None):
    """The loop; ``call`` is a run kick() already started (it then holds L.busy)."""
    if call is None:
        if L.busy or L.worker is None:
            return
        L.busy = True
    w = L.worker
    try:
        while call is not None or L.dirty or L.compare_now:
            if call is not None or L.dirty:
                if call is None:
                    call = post_run()
                el("status-time").textContent = ""
                view = await answer(call)
                call = None
                if view is None and L.cancel:
                    w = L.worker
                    cancelled()
                    break
                if view is None:  # stale, and stopped: the new worker runs the latest settings
                    w = L.worker
                    L.dirty = True
                    continue
                if L.dirty and view.ok:
                    continue  # already out of date: skip straight to the latest settings
                controls.field_error(view.error if not view.ok else "", view.field if not view.ok else "")
                el("counts").classList.remove("stale")
                results.render(view, controls.C.notice)
                if view.ok and L.replay:
                    L.replay = False
                    await questions.replay()
                if view.ok:
                    await questions.refresh()
                if L.dirty or not view.ok:
                    continue
                # The rest of a long document, part by part: each is parsed on its own, so the
                # page keeps drawing frames, and new input stops it (the next view replaces all).
                part = 1
                parts = view.doc_parts
                if parts > 1:
                    await BRIDGE.afterFrame()  # the first part on screen before any more work
                if parts > 4:
                    el("cancel-run").hidden = False
                while part < parts and not L.dirty and not L.cancel:
                    if parts > 4:
                        status("Laying out the document view: " + str(part * 100 // parts) + "%", part, parts)
                        el("status-time").textContent = ""
                    more = await w.more_doc(part)
                    if not L.dirty and not L.cancel:
                        BRIDGE.appendHTML(el("doc-view"), more, "doc")
                    part += 1
                if L.cancel:
                    cancelled()  # the chunks are on screen; the rest of the view stays out
                    break
                if L.dirty:
                    continue
                results.R.doc_chars = view.doc_chars
                controls.flush_url()
                mark("busy", "false")
                status(None)
            if results.R.doc_chars > L.compare_auto_chars and not L.compare_now:
                # Every strategy over several megabytes can keep the worker busy for a while,
                # and a running call cannot be interrupted: wait until the user asks.
                el("compare-table").innerHTML = (
                    '<p class="help">This document is large, so the comparison waits for you. '
                    '<button type="button" id="run-compare">Compare all strategies</button></p>'
                )
                mark("compare", "manual")
                continue
            L.compare_now = False
            mark("compare", "pending")
            # The comparison: one strategy per call, so new input never waits behind all of them.
            for name in controls.C.info["order"]:
                if L.dirty:
                    break
                table = await answer(w.compare(name))
                if table is None:  # stale, and stopped: the new worker runs the latest settings
                    w = L.worker
                    L.dirty = True
                    break
                if not L.dirty:
                    el("compare-table").innerHTML = table
            if not L.dirty:
                mark("compare", "done")
    except Exception as exc:  # a broken worker is a message, not a traceback
        window.console.error(str(exc))
        said = error_text(exc).rstrip()
        show_error("The chunking worker failed: " + said + ("" if said.endswith(".") else ".") + " Reload the page to retry.")
    finally:
        L.busy = False
        el("cancel-run").hidden = True
        controls.flush_url()
        if not L.dirty:
            mark("busy", "false")
            status(None)


def cancelled():
    """The reader's Cancel is done: the work stopped, and the page says what is on screen."""
    L.cancel = False
    L.cancels += 1
    el("results").setAttribute("aria-busy", "false")
    if el("counts").classList.contains("stale"):
        el("counts").textContent = "Cancelled: not counted"
    el("summary").textContent = "Cancelled: change the text or a setting to chunk again."
    mark("cancels", L.cancels)


@on("click", "#cancel-run")
def cancel_run(event):
    if L.busy:
        L.cancel = True
        el("cancel-run").hidden = True
        status("Cancelling…")


def changed(then=None):
    """Settings changed: start the worker first, then update what only the page shows
    (``then``, the help texts) while it runs. The address follows once the view is on screen:
    while the worker runs, the main thread should be free to take its answer (replaceState
    alone costs a few milliseconds, at every step of a slider drag)."""
    kick()
    if then is not None:
        then()
    controls.C.url_dirty = True
    if not L.busy:
        controls.flush_url()
    controls.sync_help()


def text_changed():
    L.text_sent = False
    kick(now=False)


def compare_now():
    L.compare_now = True
    el("compare-table").innerHTML = '<p class="help">Comparing…</p>'
    spawn(pump())


async def worker_failed(what, exc):
    """A call that read the reader's file failed in the worker itself, which is then gone
    (Pyodide cannot go on once it runs out of stack, as on JSON nested thousands of levels
    deep): say so in one line, and start another worker, which gets the document again."""
    window.console.error(str(exc))
    while L.busy:  # a running loop meets the gone worker too, and stops
        await asyncio.sleep(0.1)
    controls.C.notice = (
        what + " could not be read: Python in the page failed on it (" + error_text(exc) + ") and was started again."
    )
    show_error(controls.C.notice)
    await restart_worker("Starting Python again…")
    kick()


def document_taken():
    """The worker already holds the new document (it extracted it): chunk it, send nothing."""
    L.text_sent = True
    kick(now=False)


hooks.update(
    changed=changed,
    text_changed=text_changed,
    compare_now=compare_now,
    document_taken=document_taken,
    worker=lambda: L.worker,
    worker_failed=worker_failed,
)


# ---------------------------------------------------------------- start-up


async def watchdog():
    """Count the seconds while Pyodide loads; past the limit, say so (it may still arrive)."""
    limit = page_setting("chunkerStartTimeout", START_TIMEOUT_S)
    waited = 0
    while L.worker is None:
        await asyncio.sleep(1)
        waited += 1
        if L.worker is not None or L.start_failed:
            return
        status("Loading Python in a worker… " + str(waited) + " s (about 7.5 MB the first time, then cached)")
        if waited >= limit and el("error").hidden:
            show_error(
                "Python has not started after " + str(waited) + " seconds. On a slow connection it may "
                "still arrive; otherwise reload the page. If you serve it yourself, use python serve.py: "
                "it serves the WebAssembly runtime with the right content types."
            )


async def start():
    mark("ui", "true")
    status("Loading Python in a worker (about 7.5 MB the first time, then cached)…", 1)
    # The sample fills an empty box, but not one the reader is already in: typed or pasted
    # text is theirs, and a box they clicked into is about to get some.
    if not BRIDGE.documentLength() and not BRIDGE.documentFocused():
        inputs.insert_sample_text()
    else:
        BRIDGE.setOwn(True)
    bind()
    spawn(watchdog())
    try:
        worker = await workers["chunker"]
        info = await worker.hello()
    except Exception as exc:
        L.start_failed = True
        show_error("Python could not start in the worker: " + error_text(exc) + ". Reload the page to retry.")
        status(None)
        return
    el("doc-view").innerHTML = '<p class="placeholder">Chunking…</p>'
    controls.build(json.loads(info["controls"]))
    await controls.use_bundled_model(worker)
    controls.apply_defaults()
    controls.restore(window.URLSearchParams.new(window.location.search))
    controls.write_url()
    controls.sync_help()
    set_worker(worker)
    L.compare_auto_chars = page_setting("chunkerCompareAutoChars", COMPARE_AUTO_CHARS)
    L.stale_s = page_setting("chunkerStaleSeconds", STALE_S)
    mark("worker", "true")
    mark("stdlib", info["stdlib"])
    mark("app", info["app"])
    status("Chunking…", 2)
    L.dirty = True
    mark("busy", "true")
    await pump()
    status(None, 3)


await start()
