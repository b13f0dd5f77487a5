# The document: typed, pasted, opened, dropped, the sample, or cleared.

from ui.dom import BRIDGE, el, file_call, hooks, on, show_error, spawn, toast

SAMPLE_FILE = "sample.md"
MAX_FILE_BYTES = 50_000_000


def text_changed(own=True):
    """`own`: the document is now the reader's (typed, pasted, opened), not the sample."""
    if own:
        forget_undo()  # a new document of the reader's: the one before it is not brought back
    BRIDGE.setOwn(own)  # leaving the page then asks first (static/bridge.js)
    BRIDGE.keep("document", "extracted", None)  # no longer an extracted file
    hooks["text_changed"]()


def insert_sample_text():
    BRIDGE.release()
    with open(SAMPLE_FILE) as f:
        el("document").value = f.read()
    BRIDGE.setName("")


@on("input", "#document")
def on_input(event):
    text_changed()


def keep_for_undo():
    """Before the sample or Clear replaces the reader's own document: one click brings it back."""
    if BRIDGE.stash():
        el("undo-document").hidden = False
        toast("Your document was replaced: Undo brings it back.", 8)


def forget_undo():
    BRIDGE.dropStash()
    el("undo-document").hidden = True


@on("click", "#undo-document")
def undo_document(event):
    el("undo-document").hidden = True
    back = BRIDGE.unstash()
    if not back:
        return
    if back.extracted:
        BRIDGE.setOwn(True)
        spawn(extract(back.extracted))  # the worker reads the file again, pages and all
        return
    BRIDGE.setOwn(True)
    BRIDGE.keep("document", "extracted", None)
    hooks["text_changed"]()
    toast("Your document is back.")


@on("click", "#insert-sample")
def insert_sample(event):
    keep_for_undo()
    insert_sample_text()
    text_changed(False)


@on("click", "#clear")
def clear(event):
    keep_for_undo()
    BRIDGE.release()
    BRIDGE.setName("")
    el("document").value = ""
    el("document").focus()
    text_changed(False)


@on("paste", "#document")
def on_paste(event):
    # A large paste is held outside the text box (static/bridge.js): a <textarea> would freeze
    # the page while laying out megabytes. This handler is synchronous, so the bridge can still
    # cancel the browser's own paste.
    if BRIDGE.pasteLarge(event):
        text_changed()
    if BRIDGE.pastedCR():
        # Said, not silently done: a pipeline that reads the original file counts the CRs.
        toast(
            "Pasted CR LF line breaks became LF, as a text box keeps them. Open the file "
            "instead to chunk it as python -m chunker reads it.",
            8,
        )


@on("click", "#edit-held")
def on_edit_held(event):
    # The same document, now in the box: nothing to re-chunk, unless the box changed its line
    # breaks (a file's CR LF).
    if BRIDGE.editHeld():
        text_changed()


async def open_file(file):
    found = await BRIDGE.openFile(file, MAX_FILE_BYTES)
    if found.error:
        show_error(found.error)
        return
    show_error("")
    if found.binary:
        await extract(found)
        return
    toast("Opened " + str(file.name))
    text_changed()


async def extract(found):
    """A PDF, Word or HTML file: the worker extracts its text (saying how far it has read) and
    keeps the document, pages included; the box shows the text, read-only."""
    worker = hooks["worker"]()
    if worker is None:
        show_error("Still loading Python: open the file again in a moment.")
        return
    from ui.dom import status

    status("Reading " + str(found.name) + "…")
    result = await file_call(worker.open_document(found), str(found.name))
    if result is None:
        return
    status(None)
    if not result.ok:
        show_error(result.error)
        return
    BRIDGE.holdExtracted(result)
    BRIDGE.setOwn(True)
    BRIDGE.keep("document", "extracted", found)  # a worker started again extracts it again
    toast("Extracted " + str(found.name))
    hooks["document_taken"]()


@on("change", "#file")
def on_file(event):
    files = el("file").files
    if files.length:
        spawn(open_file(files.item(0)))
    el("file").value = ""


def has_files(event):
    types = event.dataTransfer.types if event.dataTransfer else None
    if types is None:
        return False
    return any(types[i] == "Files" for i in range(types.length))


@on("dragover", "#document")
def on_dragover(event):
    if has_files(event):
        event.preventDefault()
        el("document").classList.add("drop")


@on("dragleave", "#document")
def on_dragleave(event):
    el("document").classList.remove("drop")


@on("drop", "#document")
def on_drop(event):
    el("document").classList.remove("drop")
    if has_files(event):
        event.preventDefault()
        spawn(open_file(event.dataTransfer.files.item(0)))
