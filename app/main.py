# The playground's interface: MicroPython on the main thread.
#
# It reads the controls, asks the Pyodide worker (app/worker.py) for a view, sets innerHTML
# from what the worker returns and wires events. It holds no chunking logic and builds no HTML
# from user text: every fragment it inserts was escaped by app/render.py in the worker, and
# everything else it writes goes through textContent.
#
# Order: helpers, settings and URL, the refresh loop, event handlers, start-up.

import asyncio
import json

from pyscript import document, window, workers
from pyscript.ffi import create_proxy, to_js

# NOTE: MicroPython copies every string it reads from JavaScript into a heap of a few MB, so the
# document, the view's HTML and the exports never pass through Python variables here: they move
# inside JavaScript objects (static/bridge.js), and this code only hands those objects along.
BRIDGE = window.chunkerBridge
MAX_FILE_BYTES = 50_000_000

SAMPLE_FILE = "sample.md"
START_TIMEOUT_S = 60  # then say so on the page (the worker may still arrive later)
SLOW_CALL_S = 2
COMPARE_AUTO_CHARS = 1_500_000  # larger documents are compared on request only

UNIT_SLIDER = {"tokens": (16, 2048), "chars": (50, 8000), "words": (10, 1500)}
UNIT_CHARS = {"tokens": 4, "chars": 1, "words": 6}  # rough characters per unit, for unit switches
DEFAULTS = {"strategy": "recursive", "unit": "tokens", "size": "150", "overlap": "10%",
            "tokenizer": "approx", "breaks": "paragraph,line,sentence", "limit": ""}

S = {
    "worker": None,
    "start_failed": False,  # the worker never started: the start-up counter stops
    "busy": False,       # a refresh loop is running
    "dirty": False,      # settings or text changed since the loop last read them
    "text_sent": False,  # the worker holds the current text
    "pct": None,         # overlap as a percentage (string such as "15") or None for a count
    "info": None,        # what the worker told about chunker (explanations of each option)
    "hl": [],            # highlighted elements
    "renders": 0,        # views rendered so far (body[data-renders], for tests and debugging)
    "notice": "",        # a note about ignored link parameters, shown until the user acts
    "compare_now": False,  # the user asked to compare a large document
    "doc_chars": 0,      # length of the document in the last view
    "compare_auto_chars": COMPARE_AUTO_CHARS,
    "help": None,        # the (strategy, unit, tokenizer) the help texts were written for
    "url_dirty": False,  # the address is behind the settings (written once the view is shown)
}


# ---------------------------------------------------------------- helpers


def el(name):
    return document.getElementById(name)


TEXT = el("document")


def status(message, step=None):
    box = el("status")
    if message is None:
        box.hidden = True
        return
    box.hidden = False
    el("status-text").textContent = message
    if step is not None:
        el("load-progress").value = step


def show_error(message):
    box = el("error")
    if message:
        box.textContent = message
        box.hidden = False
    else:
        box.textContent = ""
        box.hidden = True


toast_handle = [None]


def toast(message, seconds=2.5):
    box = el("toast")
    box.textContent = message
    box.hidden = False
    if toast_handle[0] is not None:
        window.clearTimeout(toast_handle[0])

    def hide():
        box.hidden = True

    toast_handle[0] = window.setTimeout(create_proxy(hide), int(seconds * 1000))


def checked_breaks():
    boxes = document.querySelectorAll("#breaks input[name=breaks]")
    return [boxes.item(i).value for i in range(boxes.length) if boxes.item(i).checked]


def spawn(coro):
    asyncio.create_task(coro)


def on(target, event, handler):
    target.addEventListener(event, create_proxy(handler))


def data(node, name):
    value = node.getAttribute(name)
    return value if value is not None else ""


def closest(event, selector):
    try:
        return event.target.closest(selector)
    except Exception:  # noqa: BLE001 - the target is not an element (text node, document)
        return None


# ---------------------------------------------------------------- settings, sliders and the URL


def settings():
    overlap = (S["pct"] + "%") if S["pct"] is not None else el("overlap").value
    return {
        "strategy": el("strategy").value,
        "unit": el("unit").value,
        "size": el("size").value,
        "overlap": overlap,
        "tokenizer": el("tokenizer").value,
        "breaks": checked_breaks(),
        "limit": el("limit").value,
    }


def size_value():
    try:
        return int(el("size").value)
    except ValueError:
        return 0


def sync_overlap():
    """Keep the overlap slider's range and a percentage's count in step with the size."""
    size = size_value()
    el("overlap-range").max = str(max(0, size - 1))
    if S["pct"] is not None:
        try:
            count = int(size * float(S["pct"]) // 100)
        except ValueError:
            count = 0
        el("overlap").value = str(count)
        el("overlap-note").textContent = "= " + S["pct"] + "% of the size"
    else:
        el("overlap-note").textContent = ""
    el("overlap-range").value = el("overlap").value or "0"
    buttons = document.querySelectorAll(".pcts button")
    for i in range(buttons.length):
        b = buttons.item(i)
        b.setAttribute("aria-pressed", "true" if S["pct"] == b.getAttribute("data-pct") else "false")


def sync_unit():
    unit = el("unit").value
    low, high = UNIT_SLIDER.get(unit, (1, 2048))
    el("size-range").min = str(low)
    el("size-range").max = str(high)
    el("size-range").value = el("size").value or "0"
    label = "(" + el("unit").options.item(el("unit").selectedIndex).text + ")"
    el("size-unit").textContent = label
    el("overlap-unit").textContent = label
    sync_overlap()


def sync_help():
    info = S["info"]
    if info is None:
        return
    # A slider move changes none of these: setting the same text again would still make the
    # browser lay the settings out anew, on the main thread the worker's answer waits for.
    shown = (el("strategy").value, el("unit").value, el("tokenizer").value)
    if S["help"] == shown:
        return
    S["help"] = shown
    for key, name in (("strategies", "strategy"), ("units", "unit"), ("tokenizers", "tokenizer")):
        value = el(name).value
        try:
            el(name + "-help").textContent = info[key][value]
        except Exception:  # noqa: BLE001 - an unknown value just shows no help
            el(name + "-help").textContent = ""
    el("breaks").classList.toggle("inactive", el("strategy").value != "sentence")


def write_url():
    s = settings()
    params = window.URLSearchParams.new()
    for key in ("strategy", "unit", "size", "overlap", "tokenizer"):
        params.set(key, s[key])
    params.set("breaks", ",".join(s["breaks"]))
    if s["limit"]:
        params.set("limit", s["limit"])
    window.history.replaceState(None, "", "?" + params.toString())


def set_select(name, value, problems):
    select = el(name)
    before = select.value
    select.value = value
    if select.value != value:
        select.value = before
        names = [select.options.item(i).value for i in range(select.options.length)]
        problems.append(name + "=" + value + " (choose one of " + ", ".join(n for n in names if n) + ")")


def is_number(text, allow_fraction=False):
    if allow_fraction and text.count(".") == 1:
        text = text.replace(".", "")
    return text.isdigit()


def restore(params):
    """Apply settings from a link; report values that cannot be used instead of guessing."""
    problems = []

    def get(key):
        value = params.get(key)
        return None if value is None else str(value).strip()

    for name in ("strategy", "unit", "tokenizer", "limit"):
        value = get(name)
        if value is not None:
            set_select(name, value, problems)
    size = get("size")
    if size is not None:
        if is_number(size):
            el("size").value = size
        else:
            problems.append("size=" + size + " (a whole number)")
    overlap = get("overlap")
    if overlap is not None:
        if overlap.endswith("%") and is_number(overlap[:-1], True):
            S["pct"] = overlap[:-1]
        elif is_number(overlap):
            S["pct"] = None
            el("overlap").value = overlap
        else:
            problems.append("overlap=" + overlap + " (a whole number or a percentage like 15%)")
    breaks = get("breaks")
    if breaks is not None:
        wanted = [b.strip() for b in breaks.split(",") if b.strip()]
        boxes = document.querySelectorAll("#breaks input[name=breaks]")
        known = [boxes.item(i).value for i in range(boxes.length)]
        bad = [b for b in wanted if b not in known]
        if bad or not wanted:
            problems.append("breaks=" + breaks + " (some of " + ", ".join(known) + ")")
        else:
            for i in range(boxes.length):
                boxes.item(i).checked = boxes.item(i).value in wanted
    sync_unit()
    if problems:
        S["notice"] = "Ignored from the link: " + "; ".join(problems) + "."
        show_error(S["notice"])


def apply_defaults():
    params = window.URLSearchParams.new()
    for key, value in DEFAULTS.items():
        params.set(key, value)
    restore(params)


# ---------------------------------------------------------------- the refresh loop


def render(view):
    S["renders"] += 1
    document.body.setAttribute("data-renders", str(S["renders"]))
    if S["renders"] == 1:
        document.body.setAttribute("data-ready", "true")  # the first view is on screen
    el("results").setAttribute("aria-busy", "false")
    if not view.ok:
        if view.counts:
            BRIDGE.setHTML(el("counts"), view, "counts")
        show_error(view.error)
        el("results").classList.add("stale")
        return
    show_error(S["notice"])
    el("results").classList.remove("stale")
    # One call sets every fragment: each crossing between MicroPython and JavaScript costs time.
    BRIDGE.showView(view)
    el("summary").textContent = view.summary
    if not view.chunks:
        el("doc-view").innerHTML = '<p class="placeholder">Paste a document to see its chunks.</p>'
    S["hl"] = []


def post_run():
    """Send the settings (and the document, if it changed) to the worker; return the pending call.

    Calling the worker posts the message at once; only the answer is awaited.
    """
    S["dirty"] = False
    text = None
    if not S["text_sent"]:
        text = BRIDGE.documentText()
        S["text_sent"] = True
    el("results").setAttribute("aria-busy", "true")
    return S["worker"].run(text, json.dumps(settings()))


def kick(now=True):
    """Mark the view out of date and, if the worker is idle, start it from this event handler.

    Starting the call here rather than in a scheduled task saves a turn of the event loop, and
    what the handler does afterwards (the URL, the help texts) overlaps the worker's run. A new
    document (now=False) is sent from a task of its own instead: the browser's own work on a
    big paste already fills the input event's task.
    """
    S["dirty"] = True
    document.body.setAttribute("data-busy", "true")  # at once, so a test never sees a stale idle
    if S["busy"] or S["worker"] is None:
        return  # the running loop re-reads the controls; before start-up, start() runs it
    if not now:
        spawn(pump())
        return
    S["busy"] = True
    try:
        call = post_run()
    except Exception:  # noqa: BLE001 - let the loop report it the usual way
        S["busy"] = False
        S["dirty"] = True
        spawn(pump())
        return
    spawn(pump(call))


async def refresh():
    """Run the latest settings; while a call is running, further changes only mark it dirty.

    The worker runs one call at a time, so queueing every keystroke would replay stale states:
    instead the loop re-reads the controls after each call and stops when nothing changed.
    """
    S["dirty"] = True
    document.body.setAttribute("data-busy", "true")
    await pump()


async def pump(call=None):
    """The loop; ``call`` is a run kick() already started (it then holds S["busy"])."""
    if call is None:
        if S["busy"] or S["worker"] is None:
            return
        S["busy"] = True
    w = S["worker"]
    try:
        while call is not None or S["dirty"] or S["compare_now"]:
            if call is not None or S["dirty"]:
                if call is None:
                    call = post_run()
                slow = window.setTimeout(create_proxy(lambda: status("Working…")), SLOW_CALL_S * 1000)
                view = await call
                call = None
                window.clearTimeout(slow)
                if S["dirty"] and view.ok:
                    continue  # already out of date: skip straight to the latest settings
                render(view)
                if S["dirty"] or not view.ok:
                    continue
                # The rest of a long document, part by part: each is parsed on its own, so the
                # page keeps drawing frames, and new input stops it (the next view replaces all).
                part = 1
                if view.doc_parts > 1:
                    await BRIDGE.afterFrame()  # the first part on screen before any more work
                while part < view.doc_parts and not S["dirty"]:
                    more = await w.more_doc(part)
                    if not S["dirty"]:
                        BRIDGE.appendHTML(el("doc-view"), more, "doc")
                    part += 1
                if S["dirty"]:
                    continue
                S["doc_chars"] = view.doc_chars
                flush_url()
                document.body.setAttribute("data-busy", "false")
                status(None)
            if S["doc_chars"] > S["compare_auto_chars"] and not S["compare_now"]:
                # Six strategies over several megabytes can keep the worker busy for a while,
                # and a running call cannot be interrupted: wait until the user asks.
                el("compare-table").innerHTML = (
                    '<p class="help">This document is large, so the comparison waits for you. '
                    '<button type="button" id="run-compare">Compare all strategies</button></p>')
                document.body.setAttribute("data-compare", "manual")
                continue
            S["compare_now"] = False
            document.body.setAttribute("data-compare", "pending")
            # The compare table: one strategy per call so new input is never stuck behind it.
            for name in ("recursive", "fixed", "sentence", "paragraph", "markdown", "langchain"):
                if S["dirty"]:
                    break
                table = await w.compare(name)
                if not S["dirty"]:
                    el("compare-table").innerHTML = table
            if not S["dirty"]:
                document.body.setAttribute("data-compare", "done")
    except Exception as exc:  # noqa: BLE001 - a broken worker is a message, not a traceback
        window.console.error(str(exc))
        show_error("The chunking worker failed: " + error_text(exc) + ". Reload the page to retry.")
    finally:
        S["busy"] = False
        flush_url()
        if not S["dirty"]:
            document.body.setAttribute("data-busy", "false")
            status(None)


def changed(event=None, then=None):
    """Settings changed: start the worker first, then update what only the page shows
    (``then``, the help texts) while it runs. The address follows once the view is on screen:
    while the worker runs, the main thread should be free to take its answer (replaceState
    alone costs a few milliseconds, at every step of a slider drag)."""
    S["notice"] = ""
    kick()
    if then is not None:
        then()
    S["url_dirty"] = True
    if not S["busy"]:
        flush_url()
    sync_help()


def flush_url():
    if S["url_dirty"]:
        S["url_dirty"] = False
        write_url()


def text_changed(event=None):
    S["text_sent"] = False
    kick(now=False)


# ---------------------------------------------------------------- highlighting and scrolling


def highlight(indices):
    for node in S["hl"]:
        node.classList.remove("hl")
    S["hl"] = []
    for i in indices:
        nodes = el("doc-view").querySelectorAll('[data-c~="' + str(int(i)) + '"]')
        for k in range(nodes.length):
            S["hl"].append(nodes.item(k))
        card = el("cards").querySelector('[data-chunk-index="' + str(int(i)) + '"]')
        if card is not None:
            S["hl"].append(card)
    for node in S["hl"]:
        node.classList.add("hl")


def hover_text(event):
    seg = closest(event, "[data-c]")
    if seg is None:
        highlight([])
        return
    indices = data(seg, "data-c").split()
    highlight(indices)
    card = el("cards").querySelector('[data-chunk-index="' + indices[0] + '"]')
    box = el("cards")
    if card is not None and box.scrollHeight > box.clientHeight + 4:
        # Scroll the list itself only (scrollIntoView would also move the page under the pointer).
        top = card.offsetTop - box.offsetTop
        if top < box.scrollTop or top + card.offsetHeight > box.scrollTop + box.clientHeight:
            box.scrollTop = top - box.clientHeight // 3


def hover_card(event):
    card = closest(event, ".card")
    highlight([data(card, "data-chunk-index")] if card is not None else [])


def go_to_card(card):
    i = data(card, "data-chunk-index")
    target = el("chunk-" + i)
    highlight([i])
    if target is not None:
        BRIDGE.reveal(target)
        target.classList.add("flash")
        window.setTimeout(create_proxy(lambda: target.classList.remove("flash")), 1200)
    # The same span in the text box: the DOM counts UTF-16 units, hence data-*16.
    try:
        TEXT.setSelectionRange(int(data(card, "data-start16")), int(data(card, "data-end16")))
    except Exception:  # noqa: BLE001 - a stale card after an edit: nothing to select
        pass


def click_card(event):
    button = closest(event, "#more-cards")
    if button is not None:
        spawn(more_cards(button))
        return
    card = closest(event, ".card")
    if card is not None:
        go_to_card(card)


def key_card(event):
    if event.key in ("Enter", " "):
        card = closest(event, ".card")
        if card is not None and event.target == card:
            event.preventDefault()
            go_to_card(card)


def click_text(event):
    seg = closest(event, "[data-c]")
    if seg is None:
        return
    card = el("cards").querySelector('[data-chunk-index="' + data(seg, "data-c").split()[0] + '"]')
    if card is not None:
        card.scrollIntoView(to_js({"block": "nearest", "behavior": "smooth"}))


async def more_cards(button):
    view = await S["worker"].more_cards(int(data(button, "data-next")))
    item = button.closest("li")
    if item is not None:
        BRIDGE.replaceHTML(item, view, "cards")


# ---------------------------------------------------------------- controls


def on_size(event):
    source = event.target
    if source.id == "size-range":
        el("size").value = source.value
    else:
        el("size-range").value = source.value or "0"
    # settings() sends a percentage as such, so the overlap fields only follow for the eye:
    # they are updated after the worker has been started.
    changed(then=sync_overlap)


def on_overlap(event):
    source = event.target
    S["pct"] = None
    if source.id == "overlap-range":
        el("overlap").value = source.value
    sync_overlap()
    changed()


def on_pct(event):
    button = closest(event, "button[data-pct]")
    if button is None:
        return
    S["pct"] = data(button, "data-pct")
    sync_overlap()
    changed()


def on_unit(event):
    unit = el("unit").value
    old = S.get("unit", unit)
    S["unit"] = unit
    if old != unit:
        # Keep roughly the same amount of text per chunk when the unit changes.
        factor = UNIT_CHARS[old] / UNIT_CHARS[unit]
        el("size").value = str(max(1, round(size_value() * factor)))
        if S["pct"] is None:
            try:
                el("overlap").value = str(round(int(el("overlap").value) * factor))
            except ValueError:
                pass
    sync_unit()
    changed()


def on_apply(event):
    button = closest(event, "button[data-apply]")
    if button is None:
        return
    size, overlap = data(button, "data-apply").split(",")
    el("unit").value = "tokens"
    S["unit"] = "tokens"
    el("size").value = size
    if overlap.endswith("%"):
        S["pct"] = overlap[:-1]
    else:
        S["pct"] = None
        el("overlap").value = overlap
    sync_unit()
    changed()
    toast("Applied " + size + " tokens with " + overlap + " overlap")


def on_compare_click(event):
    if closest(event, "#run-compare") is not None:
        S["compare_now"] = True
        el("compare-table").innerHTML = '<p class="help">Comparing…</p>'
        spawn(pump())
        return
    button = closest(event, "button[data-strategy]")
    if button is not None:
        el("strategy").value = data(button, "data-strategy")
        changed()


# ---------------------------------------------------------------- input: sample, files, drop


def insert_sample(event=None):
    BRIDGE.release()
    with open(SAMPLE_FILE) as f:
        TEXT.value = f.read()
    text_changed()


def clear(event=None):
    BRIDGE.release()
    TEXT.value = ""
    TEXT.focus()
    text_changed()


def on_paste(event):
    # A large paste is held outside the text box (static/bridge.js): a <textarea> would freeze
    # the page while laying out megabytes. This handler is synchronous, so the bridge can still
    # cancel the browser's own paste.
    if BRIDGE.pasteLarge(event):
        text_changed()
    if BRIDGE.pastedCR():
        # Said, not silently done: a pipeline that reads the original file counts the CRs.
        toast("Pasted CR LF line breaks became LF, as a text box keeps them. Open the file "
              "instead to chunk it as python -m chunker reads it.", 8)


def on_edit_held(event):
    # The same document, now in the box: nothing to re-chunk, unless the box changed its line
    # breaks (a file's CR LF).
    if BRIDGE.editHeld():
        text_changed()


async def open_file(file):
    problem = await BRIDGE.openFile(file, MAX_FILE_BYTES)
    if problem:
        show_error(problem)
        return
    show_error("")
    toast("Opened " + str(file.name))
    text_changed()


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


def on_dragover(event):
    if has_files(event):
        event.preventDefault()
        TEXT.classList.add("drop")


def on_dragleave(event):
    TEXT.classList.remove("drop")


def on_drop(event):
    TEXT.classList.remove("drop")
    if has_files(event):
        event.preventDefault()
        spawn(open_file(event.dataTransfer.files.item(0)))


# ---------------------------------------------------------------- export and copying


async def copy_text(text, what):
    try:
        await window.navigator.clipboard.writeText(text)
        toast("Copied " + what)
    except Exception:  # noqa: BLE001 - no clipboard permission: fall back to a selection copy
        area = document.createElement("textarea")
        area.value = text
        document.body.appendChild(area)
        area.select()
        ok = document.execCommand("copy")
        area.remove()
        toast(("Copied " if ok else "Could not copy ") + what)


async def download(fmt):
    blob = await S["worker"].export(fmt)
    if blob is None:
        show_error("Nothing to export yet: paste a document first.")
        return
    BRIDGE.download(blob, "chunks." + fmt)


async def copy_all():
    blob = await S["worker"].export("txt")
    if blob is not None:
        ok = await BRIDGE.copyBlob(blob)
        toast("Copied all chunks" if ok else "Could not copy: the browser refused the clipboard")


def on_export(event):
    if S["worker"] is None:
        toast("Still loading Python…")
        return
    button = closest(event, "button")
    if button is None:
        return
    if button.id == "copy-all":
        spawn(copy_all())
    elif button.classList.contains("dl"):
        spawn(download(data(button, "data-format")))
    elif button.classList.contains("copy-snip"):
        code = el("snip-" + data(button, "data-snip"))
        if code is not None:
            spawn(copy_text(code.textContent, "the code"))


def on_copy_link(event):
    flush_url()
    spawn(copy_text(str(window.location.href), "a link to these settings"))


# ---------------------------------------------------------------- start-up


def wire():
    on(TEXT, "input", text_changed)
    on(TEXT, "paste", on_paste)
    on(el("edit-held"), "click", on_edit_held)
    on(TEXT, "dragover", on_dragover)
    on(TEXT, "dragleave", on_dragleave)
    on(TEXT, "drop", on_drop)
    on(el("insert-sample"), "click", insert_sample)
    on(el("clear"), "click", clear)
    on(el("file"), "change", on_file)
    for name in ("strategy", "tokenizer", "limit"):
        on(el(name), "change", changed)
    on(el("unit"), "change", on_unit)
    on(el("size"), "input", on_size)
    on(el("size-range"), "input", on_size)
    on(el("overlap"), "input", on_overlap)
    on(el("overlap-range"), "input", on_overlap)
    on(document.querySelector(".pcts"), "click", on_pct)
    on(el("breaks"), "change", changed)
    on(el("copy-link"), "click", on_copy_link)
    on(el("doc-view"), "mouseover", hover_text)
    on(el("doc-view"), "mouseleave", lambda e: highlight([]))
    on(el("doc-view"), "click", click_text)
    on(el("cards"), "mouseover", hover_card)
    on(el("cards"), "mouseleave", lambda e: highlight([]))
    on(el("cards"), "focusin", hover_card)
    on(el("cards"), "click", click_card)
    on(el("cards"), "keydown", key_card)
    on(el("compare-table"), "click", on_compare_click)
    on(el("advice-panel"), "click", on_apply)
    on(el("export"), "click", on_export)


def page_setting(name, default):
    """A number the tests may set on window before the page loads (else the default)."""
    try:
        value = float(getattr(window, name))
        return value if value > 0 else default
    except Exception:  # noqa: BLE001 - undefined: the default
        return default


def start_timeout():
    return page_setting("chunkerStartTimeout", START_TIMEOUT_S)


def error_text(exc):
    """One readable line from an exception, a JavaScript one included.

    MicroPython shows a JavaScript error as the tuple of its proxy, its name and its message;
    the message is the part a reader needs.
    """
    args = getattr(exc, "args", ())
    if len(args) == 3 and isinstance(args[2], str) and args[2]:
        return args[2][:300]
    return str(exc).split("\n")[-1][:300]


async def watchdog():
    """Count the seconds while Pyodide loads; past the limit, say so (it may still arrive)."""
    limit = start_timeout()
    waited = 0
    while S["worker"] is None:
        await asyncio.sleep(1)
        waited += 1
        if S["worker"] is not None or S["start_failed"]:
            return
        status("Loading Python in a worker… " + str(waited) + " s (about 19 MB the first time, then cached)")
        if waited >= limit and el("error").hidden:
            show_error("Python has not started after " + str(waited) + " seconds. On a slow connection it may "
                       "still arrive; otherwise reload the page. If you serve it yourself, use python serve.py: "
                       "it serves the WebAssembly runtime with the right content types.")


async def start():
    document.body.setAttribute("data-ui", "true")
    status("Loading Python in a worker (about 19 MB the first time, then cached)…", 1)
    apply_defaults()
    restore(window.URLSearchParams.new(window.location.search))
    S["unit"] = el("unit").value
    write_url()
    # The sample fills an empty box, but not one the reader is already in: typed or pasted
    # text is theirs, and a box they clicked into is about to get some.
    if not BRIDGE.documentLength() and not BRIDGE.documentFocused():
        with open(SAMPLE_FILE) as f:
            TEXT.value = f.read()
    wire()
    spawn(watchdog())
    try:
        worker = await workers["chunker"]
        S["info"] = await worker.hello()
    except Exception as exc:  # noqa: BLE001
        S["start_failed"] = True
        show_error("Python could not start in the worker: " + error_text(exc) + ". Reload the page to retry.")
        status(None)
        return
    S["worker"] = worker
    S["compare_auto_chars"] = page_setting("chunkerCompareAutoChars", COMPARE_AUTO_CHARS)
    document.body.setAttribute("data-worker", "true")
    document.body.setAttribute("data-stdlib", str(S["info"]["stdlib"]))
    document.body.setAttribute("data-app", str(S["info"]["app"]))
    show_error(S["notice"])  # drop a start-up timeout message, keep a note about the link
    sync_help()
    status("Chunking…", 2)
    await refresh()
    status(None, 3)


await start()
