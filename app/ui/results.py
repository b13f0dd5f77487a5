# The results: the view the worker built, the links between the document view and the chunk
# list, moving from chunk to chunk, the comparison table, exports and copying.

from pyscript import document, window
from pyscript.ffi import create_proxy, to_js
from ui.dom import BRIDGE, LIST, closest, data, el, mark, on, show_error, spawn, toast


class Results:
    """What the page knows of the view on screen."""

    def __init__(self):
        self.worker = None
        self.renders = 0  # views rendered so far (body[data-renders], for tests and debugging)
        self.version = 0  # of the result the chunk list shows (its cards come from it)
        self.chunks = 0  # chunks in the view on screen
        self.doc_chars = 0  # length of the document in the view on screen


R = Results()


def render(view, notice):
    """Show a view from the worker (or its error)."""
    R.renders += 1
    mark("renders", R.renders)
    if R.renders == 1:
        mark("ready", "true")  # the first view is on screen
    el("results").setAttribute("aria-busy", "false")
    if not view.ok:
        if view.counts:
            BRIDGE.setHTML(el("counts"), view, "counts")
        show_error(((notice + " ") if notice else "") + view.error)
        el("results").classList.add("stale")
        if R.chunks == 0:
            el("doc-view").innerHTML = '<p class="placeholder">No chunks yet: the settings above need a change first.</p>'
        return
    show_error(notice)
    el("results").classList.remove("stale")
    # One call sets every fragment: each crossing between MicroPython and JavaScript costs time.
    BRIDGE.showView(view)
    R.version += 1
    R.chunks = view.chunks
    LIST.reset(view.chunks, view, "cards", 0, R.version)
    el("summary").textContent = view.summary
    if not view.chunks:
        el("doc-view").innerHTML = '<p class="placeholder">Paste a document to see its chunks.</p>'


# ---------------------------------------------------------------- the chunk list


async def fetch_cards(start, count, version):
    view = await R.worker.cards(start, count)
    LIST.fill(view, "cards", start, version)


@on("cardsneeded", "#cards")
def on_cards_needed(event):
    if R.worker is not None:
        detail = event.detail
        spawn(fetch_cards(int(detail.start), int(detail.count), int(detail.version)))


@on("toggle", "#embedded-view")
def embedded_toggled(event):
    if el("embedded-view").open and R.worker is not None:
        spawn(fetch_embedded())


async def fetch_embedded():
    view = await R.worker.embedded()
    BRIDGE.setHTML(el("embedded"), view, "embedded")
    mark("embedded", R.version)


# ---------------------------------------------------------------- linking text and cards


def light(indices):
    """Light up these chunks' text and cards (a JavaScript array: static/chunklist.js)."""
    LIST.highlight(to_js([int(i) for i in indices]))


def indices_at(node):
    return data(node, "data-c").split() if node is not None else []


@on("mouseover", "#doc-view")
def hover_text(event):
    indices = indices_at(closest(event, "[data-c]"))
    light(indices)
    if indices:
        LIST.show(int(indices[0]), False)  # the card comes into the list's view at once


@on("mouseleave", "#doc-view", "#cards")
def hover_out(event):
    light([])


@on("mouseover", "#cards")
@on("focusin", "#cards")
def hover_card(event):
    card = closest(event, ".card")
    light([data(card, "data-chunk-index")] if card is not None else [])


def go_to(i, focus_card=False, select_text=True):
    """Make chunk i the current one: its card in view (and focused), its text in view and,
    when the text box holds the document, selected there."""
    if i < 0 or i >= R.chunks:
        return
    LIST.setCurrent(i)
    LIST.show(i, focus_card)
    light([i])
    mark("current", i)
    target = LIST.target(i)
    if target is not None:
        LIST.reveal(target)
        target.classList.add("flash")
        window.setTimeout(create_proxy(lambda: target.classList.remove("flash")), 1200)
    card = el("cards").querySelector('[data-chunk-index="' + str(i) + '"]')
    if select_text and card is not None:
        # The same span in the text box: the DOM counts UTF-16 units, hence data-*16.
        try:
            el("document").setSelectionRange(int(data(card, "data-start16")), int(data(card, "data-end16")))
        except Exception:  # a stale card after an edit: nothing to select
            pass


@on("click", "#cards")
def click_card(event):
    card = closest(event, ".card")
    if card is not None:
        go_to(int(data(card, "data-chunk-index")))


@on("keydown", "#cards")
def key_card(event):
    card = closest(event, ".card")
    if card is None or event.target != card:
        return
    i = int(data(card, "data-chunk-index"))
    moves = {"ArrowDown": i + 1, "ArrowUp": i - 1, "PageDown": i + 5, "PageUp": i - 5, "Home": 0, "End": R.chunks - 1}
    if event.key in ("Enter", " "):
        event.preventDefault()
        go_to(i)
    elif event.key in moves:
        event.preventDefault()
        go_to(max(0, min(R.chunks - 1, moves[event.key])), True, False)


@on("click", "#doc-view")
def click_text(event):
    """The clicked text's chunk becomes the current one, its card in the list's view. Where
    chunks overlap, the chunk that starts there wins; clicking again moves to the next one."""
    seg = closest(event, "[data-c]")
    indices = indices_at(seg)
    if not indices:
        return
    starts = data(seg, "data-n")
    current = str(LIST.current())
    if current in indices and len(indices) > 1:
        i = int(indices[(indices.index(current) + 1) % len(indices)])
    elif starts:
        i = int(starts)
    else:
        i = int(indices[0])
    LIST.setCurrent(i)
    light([i])
    mark("current", i)
    LIST.show(i, False)


def step(delta):
    current = LIST.current()
    go_to(max(0, min(R.chunks - 1, (0 if current < 0 and delta > 0 else current + delta))), False, True)


@on("click", "#prev-chunk")
def prev_chunk(event):
    step(-1)


@on("click", "#next-chunk")
def next_chunk(event):
    step(1)


@on("submit", "#goto-form")
def goto_chunk(event):
    event.preventDefault()
    try:
        i = int(el("goto").value)
    except ValueError:
        toast("Type a chunk number from 0 to " + str(max(0, R.chunks - 1)))
        return
    if not 0 <= i < R.chunks:
        toast("There is no chunk " + str(i) + ": they run from 0 to " + str(max(0, R.chunks - 1)))
        return
    go_to(i, True, True)


@on("keydown", "@document")
def shortcut(event):
    """n / p: next and previous chunk; g: go to a chunk. Not while typing in a field."""
    tag = str(event.target.tagName) if event.target is not None else ""
    if event.ctrlKey or event.metaKey or event.altKey or tag in ("INPUT", "TEXTAREA", "SELECT"):
        return
    if event.key == "n":
        step(1)
    elif event.key == "p":
        step(-1)
    elif event.key == "g":
        event.preventDefault()
        el("goto").focus()
        el("goto").select()


# ---------------------------------------------------------------- comparison


@on("click", "#compare-table")
def on_compare_click(event):
    from ui import controls  # controls imports nothing from here

    if closest(event, "#run-compare") is not None:
        from ui.dom import hooks

        hooks["compare_now"]()
        return
    button = closest(event, "button[data-strategy]")
    if button is not None:
        el("strategy").value = data(button, "data-strategy")
        for f in controls.fields():  # a pasted splitter would override the strategy picked
            if f["key"] == "splitter":
                el(f["id"]).value = ""
        controls.changed()


# ---------------------------------------------------------------- export and copying


async def copy_text(text, what):
    try:
        await window.navigator.clipboard.writeText(text)
        toast("Copied " + what)
    except Exception:  # no clipboard permission: fall back to a selection copy
        area = document.createElement("textarea")
        area.value = text
        document.body.appendChild(area)
        area.select()
        ok = document.execCommand("copy")
        area.remove()
        toast(("Copied " if ok else "Could not copy ") + what)


async def download(fmt, extension):
    blob = await R.worker.export(fmt)
    if blob is None:
        show_error("Nothing to export yet: the page has no chunks of the text it holds.")
        return
    BRIDGE.download(blob, "chunks." + extension)


async def copy_all():
    blob = await R.worker.export("txt")
    if blob is not None:
        ok = await BRIDGE.copyBlob(blob)
        toast("Copied all chunks" if ok else "Could not copy: the browser refused the clipboard")


@on("click", "#export")
def on_export(event):
    if R.worker is None:
        toast("Still loading Python…")
        return
    button = closest(event, "button")
    if button is None:
        return
    if button.id == "copy-all":
        spawn(copy_all())
    elif button.classList.contains("dl"):
        spawn(download(data(button, "data-format"), data(button, "data-ext")))
    elif button.classList.contains("copy-snip"):
        code = el("snip-" + data(button, "data-snip"))
        if code is not None:
            spawn(copy_text(code.textContent, "the code"))


@on("click", "#copy-link")
def on_copy_link(event):
    from ui import controls

    controls.flush_url()
    spawn(copy_text(str(window.location.href), "a link to these settings"))
