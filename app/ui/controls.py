# The settings' controls: built from what the worker reports (the library's registries), read
# into the settings the worker gets, kept in step with each other, and kept in the address.

import json

from pyscript import document, window
from ui.dom import BRIDGE, data, el, file_call, hooks, on, page_setting, show_error, toast

# Slider ranges, and rough characters per unit for keeping the amount of text per chunk when the
# unit changes: how the page's controls behave, not chunking facts.
UNIT_SLIDER = {"tokens": (16, 2048), "chars": (50, 8000), "words": (10, 1500)}
UNIT_CHARS = {"tokens": 4, "chars": 1, "words": 6}
# A tokenizer.json is up to about 35 MB (Gemma's); a file far bigger is not one, and is not read.
TOKENIZER_MAX_BYTES = 64_000_000
# A model's files are read into this page's memory: past this a browser tab would likely run out.
MODEL_MAX_BYTES = 2_000_000_000
# The link's keys until the worker reports the table of options' (`params`).
PARAMS = ("strategy", "unit", "size", "overlap", "tokenizer", "breaks", "limit")


class Controls:
    """What the controls hold beyond their own values."""

    def __init__(self):
        self.worker = None
        self.own_help = {}  # help texts of tokenizers the reader loaded (tokenizer.json)
        self.in_worker = set()  # which of them the worker holds (a restarted one holds none)
        self.labels = {}  # their file names by identity, to give a restarted worker again
        self.model_max = 0  # the limit of the tokenizer.json in use, if it has one
        self.info = None  # the worker's `controls` (registries, help texts, defaults)
        self.pct = None  # overlap as a percentage (a string such as "15"), or None for a count
        self.unit = "tokens"  # the unit the size is in now (to convert on a unit switch)
        self.help_for = None  # the (strategy, unit, tokenizer, model) the help texts were written for
        self.notice = ""  # what a link asked for that could not be used, until the user acts
        self.url_dirty = False  # the address is behind the settings
        self.models_in_worker = set()  # the reader's embedding models the worker holds
        self.model_labels = {}  # their folders' names by identity (m2v:...), for a restarted worker
        self.model_help = {}  # what each is, for the help under the select


C = Controls()


def build(info):
    """Fill the selects, break points, export buttons and starting points from the registries."""
    C.info = info
    for name in ("strategy", "unit", "tokenizer", "limit", "embedding-model"):
        el(name).innerHTML = info[name]
        el(name).disabled = False
    el("q-retriever").innerHTML = info["retriever"]
    C.model_help[""] = el("embedding-model-help").textContent
    el("breaks-boxes").innerHTML = info["breaks"]
    # Options index.html does not lay out: fields the worker built from the table of options,
    # read and written below by their link's key.
    el("more-settings").innerHTML = info["more"]
    el("export-buttons").innerHTML = info["exports"]
    el("presets").innerHTML = info["presets"]


def checked_breaks():
    boxes = document.querySelectorAll("#breaks input[name=breaks]")
    return [boxes.item(i).value for i in range(boxes.length) if boxes.item(i).checked]


def settings():
    overlap = (C.pct + "%") if C.pct is not None else el("overlap").value
    out = {
        "strategy": el("strategy").value,
        "unit": el("unit").value,
        "size": el("size").value,
        "overlap": overlap,
        "tokenizer": el("tokenizer").value,
        "breaks": checked_breaks(),
        "limit": el("limit").value,
        "embedding_model": el("embedding-model").value,
    }
    for f in fields():
        out[f["key"]] = el(f["id"]).value
    return out


def fields():
    return C.info["fields"] if C.info is not None else []


def size_value():
    try:
        return int(el("size").value)
    except ValueError:
        return 0


def sync_overlap():
    """Keep the overlap slider's range and a percentage's count in step with the size."""
    size = size_value()
    el("overlap-range").max = str(max(0, size - 1))
    if C.pct is not None:
        try:
            count = int(size * float(C.pct) // 100)
        except ValueError:
            count = 0
        el("overlap").value = str(count)
        el("overlap-note").textContent = "= " + C.pct + "% of the size"
    else:
        el("overlap-note").textContent = ""
    el("overlap-range").value = el("overlap").value or "0"
    buttons = document.querySelectorAll(".pcts button")
    for i in range(buttons.length):
        b = buttons.item(i)
        b.setAttribute("aria-pressed", "true" if C.pct == b.getAttribute("data-pct") else "false")


def sync_unit():
    unit = el("unit").value
    low, high = UNIT_SLIDER.get(unit, (1, 2048))
    if unit == "tokens" and el("tokenizer").value in C.own_help and C.model_max:
        high = C.model_max  # the slider spans what the model takes
    el("size-range").min = str(low)
    el("size-range").max = str(high)
    el("size-range").value = el("size").value or "0"
    select = el("unit")
    label = "(" + (select.options.item(select.selectedIndex).text if select.selectedIndex >= 0 else unit) + ")"
    el("size-unit").textContent = label
    el("overlap-unit").textContent = label
    sync_overlap()


def sync_help():
    if C.info is None:
        return
    # A slider move changes none of these: setting the same text again would still make the
    # browser lay the settings out anew, on the main thread the worker's answer waits for.
    shown = (el("strategy").value, el("unit").value, el("tokenizer").value, el("embedding-model").value)
    if C.help_for == shown:
        return
    C.help_for = shown
    for key in ("strategy", "unit", "tokenizer"):
        value = el(key).value
        known = C.info["help"][key].get(value) if key != "tokenizer" or value not in C.own_help else None
        el(key + "-help").textContent = known if known is not None else C.own_help.get(value, "")
    el("embedding-model-help").textContent = C.model_help.get(el("embedding-model").value, "")
    sync_retriever()
    el("breaks").classList.toggle("inactive", el("strategy").value not in C.info["uses_breaks"])


def field_error(message, field):
    """A settings error next to the field it is about (and none elsewhere)."""
    for name in ("size", "overlap"):
        note = el(name + "-error")
        note.textContent = message if name == field else ""
        note.hidden = name != field


def write_url():
    s = settings()
    pairs = [[key, s[key]] for key in ("strategy", "unit", "size", "overlap", "tokenizer")]
    pairs.append(["breaks", ",".join(s["breaks"])])
    for key in ["limit", "embedding_model"] + [f["key"] for f in fields()]:
        if s[key]:
            pairs.append([key, s[key]])
    BRIDGE.writeURL(json.dumps(pairs))  # as JSON: see bridge.js


def flush_url():
    if C.url_dirty:
        C.url_dirty = False
        write_url()


def _select(name, value, problems, key=None):
    select = el(name)
    names = [select.options.item(i).value for i in range(select.options.length)]
    if value in names:
        select.value = value
    elif key == "embedding_model":
        problems.append(key + "=" + value[:40] + " (a model this page has not loaded: pick its folder)")
    else:
        shown = ", ".join(n for n in names if n)
        problems.append((key or name) + "=" + value[:40] + " (choose one of " + shown + ")")


def _number(text, allow_fraction=False):
    if allow_fraction and text.count(".") == 1:
        text = text.replace(".", "")
    return 0 < len(text) <= 9 and text.isdigit() and all("0" <= c <= "9" for c in text)


def restore(params):
    """Apply settings from a link; list everything that cannot be used, together, instead of
    guessing. The settings' own rules (an overlap under the size) are the worker's to judge."""
    problems = []
    keys = BRIDGE.paramNames(params)
    known = C.info["params"] if C.info is not None else PARAMS
    for i in range(keys.length):
        if keys[i] not in known:
            problems.append(str(keys[i])[:40] + " (not a setting)")
    for name in ("strategy", "unit", "tokenizer", "limit", "embedding_model"):
        value = params.get(name)
        if value is not None:
            # A model is known by its content: a link names one this page has loaded, or none.
            _select(name.replace("_", "-"), value.strip(), problems, name)
    size = params.get("size")
    if size is not None:
        size = size.strip()
        if _number(size):
            el("size").value = size
        else:
            problems.append("size=" + size[:40] + " (a whole number)")
    overlap = params.get("overlap")
    if overlap is not None:
        overlap = overlap.strip()
        if overlap.endswith("%") and _number(overlap[:-1], True):
            C.pct = overlap[:-1]
        elif _number(overlap):
            C.pct = None
            el("overlap").value = overlap
        else:
            problems.append("overlap=" + overlap[:40] + " (a whole number or a percentage like 15%)")
    for f in fields():  # checked by the worker, whose error names the field
        value = params.get(f["key"])
        if value is not None:
            el(f["id"]).value = value.strip()
    breaks = params.get("breaks")
    if breaks is not None:
        wanted = [b.strip() for b in breaks.split(",") if b.strip()]
        boxes = document.querySelectorAll("#breaks input[name=breaks]")
        known = [boxes.item(i).value for i in range(boxes.length)]
        bad = [b for b in wanted if b not in known]
        if bad or not wanted:
            problems.append("breaks=" + breaks[:60] + " (some of " + ", ".join(known) + ")")
        else:
            for i in range(boxes.length):
                boxes.item(i).checked = boxes.item(i).value in wanted
    C.unit = el("unit").value
    sync_unit()
    C.notice = ("Ignored from the link: " + "; ".join(problems) + ".") if problems else ""
    show_error(C.notice)


def apply_defaults():
    params = window.URLSearchParams.new()
    for key, value in C.info["defaults"].items():
        params.set(key, value)
    restore(params)


def changed(then=None):
    C.notice = ""
    hooks["changed"](then)


# ---------------------------------------------------------------- handlers


@on("change", "#strategy", "#limit", "#breaks", "#more-settings")
def on_select(event):
    changed()


@on("change", "#tokenizer")
def on_tokenizer(event):
    from ui.dom import spawn

    if el("tokenizer").value in C.own_help and el("tokenizer").value not in C.in_worker:
        spawn(give_then_change())
        return
    sync_unit()
    changed()


async def give_then_change():
    await give_tokenizer()
    sync_unit()
    changed()


async def give_tokenizer():
    """Give the worker the reader's tokenizer.json now chosen, if it does not hold it (a worker
    started again holds none of them)."""
    name = el("tokenizer").value
    if name not in C.own_help or name in C.in_worker:
        return
    kept = BRIDGE.kept("tokenizer")
    for i in range(kept.length):
        if kept[i].name == name:
            await C.worker.use_tokenizer(kept[i].value, C.labels.get(name, name))
            C.in_worker.add(name)


# ---------------------------------------------------------------- the reader's embedding model


def sync_retriever():
    """Dense and hybrid rank with the embedding model: offered only with one chosen (else
    BM25, and a note says why)."""
    select = el("q-retriever")
    model = el("embedding-model").value
    for i in range(select.options.length):
        option = select.options.item(i)
        option.disabled = option.value != "bm25" and not model
    if not model and select.value != "bm25":
        select.value = "bm25"
    note = C.info["retriever_help"].get(select.value, "") if C.info is not None else ""
    if not model:
        note = "Dense and hybrid rank with an embedding model: choose one under Settings (Use my embedding model…)."
    el("q-retriever-help").textContent = note


@on("change", "#embedding-model")
def on_model(event):
    from ui.dom import spawn

    if el("embedding-model").value and el("embedding-model").value not in C.models_in_worker:
        spawn(give_model_then_change())
        return
    changed(sync_help)


async def give_model_then_change():
    await give_model()
    changed(sync_help)


async def give_model():
    """Give the worker the reader's model now chosen, if it does not hold it (a worker started
    again holds none of them)."""
    name = el("embedding-model").value
    if not name or name in C.models_in_worker:
        return
    kept = BRIDGE.kept("model")
    for i in range(kept.length):
        if kept[i].name == name:
            found = await C.worker.use_model(kept[i].value)
            if found.ok:
                C.models_in_worker.add(name)


async def use_model(found, said="Embedding with ", run=True):
    """A model read by static/bridge.js (``{safetensors, tokenizer, config, name}`` or
    ``{error}``): loaded in the worker, offered in the select and chosen (and, with `run`,
    the view made again with it)."""
    if C.worker is None:
        toast("Still loading Python…")
        return False
    if found.error:
        show_error(found.error)
        return False
    from ui.dom import status

    # The bytes stay in a JavaScript object: megabytes never pass through MicroPython.
    status("Loading the embedding model " + str(found.name) + "…")
    loaded = await file_call(C.worker.use_model(found), str(found.name))
    if loaded is None:
        return False
    status(None)
    if not loaded.ok:
        show_error(loaded.error)
        return False
    show_error("")
    name = str(loaded.name)  # its identity (m2v:...): two folders of one name are two models
    BRIDGE.keep("model", name, found)  # a worker started again is given it again
    C.models_in_worker.add(name)
    if name not in C.model_labels:
        el("embedding-model").insertAdjacentHTML("beforeend", loaded.option)
    C.model_labels[name] = str(loaded.label)
    C.model_help[name] = str(loaded.about)
    el("embedding-model").value = name
    C.help_for = None
    if run:
        changed(sync_help)
    toast(said + str(loaded.label), 4)
    return True


async def use_model_files(files):
    found = await BRIDGE.readModel(files, int(page_setting("chunkerModelMaxBytes", MODEL_MAX_BYTES)))
    await use_model(found)


async def use_bundled_model(worker):
    """The model a built site bundles (serve.py --build DIR --model PATH): loaded at start,
    before the link's settings are read (a link may name it), and chosen."""
    found = await BRIDGE.bundledModel()
    if found is not None:
        C.worker = worker
        await use_model(found, "This site bundles the embedding model ", run=False)


@on("change", "#model-folder", "#model-files")
def on_model_files(event):
    from ui.dom import spawn

    files = BRIDGE.fileArray(event.target.files)  # taken now: clearing the input below empties its list
    if files.length:
        spawn(use_model_files(files))
    elif event.target.id == "model-folder":  # a browser lists no file of an empty folder
        show_error("That folder holds no files: pick a model2vec model's folder (model.safetensors, tokenizer.json, config.json)")
    event.target.value = ""


# ---------------------------------------------------------------- the reader's tokenizer.json


async def use_tokenizer(file):
    if C.worker is None:
        toast("Still loading Python…")
        return
    # The file's text stays in a JavaScript object: megabytes never pass through MicroPython.
    text = await BRIDGE.readTokenizer(file, int(page_setting("chunkerTokenizerMaxBytes", TOKENIZER_MAX_BYTES)))
    if text.error:
        show_error(text.error)
        return
    found = await file_call(C.worker.use_tokenizer(text, str(file.name)), str(file.name))
    if found is None:
        return
    if not found.ok:
        show_error(found.error)
        return
    name = str(found.name)  # its identity (hf:...): two files of one name are two tokenizers
    BRIDGE.keep("tokenizer", name, text)  # a worker started again is given it again
    C.in_worker.add(name)
    if name not in C.own_help:
        el("tokenizer").insertAdjacentHTML("beforeend", found.option)
    C.own_help[name] = str(found.about)
    C.labels[name] = str(found.label)
    C.model_max = int(found.model_max)
    el("tokenizer").value = name
    el("unit").value = "tokens"
    C.unit = "tokens"
    if C.model_max and size_value() > C.model_max:
        el("size").value = str(C.model_max)
    C.help_for = None
    sync_unit()
    changed()
    toast("Counting with " + str(found.label) + (", input limit " + str(C.model_max) if C.model_max else ""), 4)


@on("change", "#tokenizer-file")
def on_tokenizer_file(event):
    from ui.dom import spawn

    files = el("tokenizer-file").files
    if files.length:
        spawn(use_tokenizer(files.item(0)))
    el("tokenizer-file").value = ""


@on("dragover", "#tokenizer-field")
def on_tokenizer_dragover(event):
    event.preventDefault()


@on("drop", "#tokenizer-field")
def on_tokenizer_drop(event):
    from ui.dom import spawn

    event.preventDefault()
    if event.dataTransfer and event.dataTransfer.files.length:
        spawn(use_tokenizer(event.dataTransfer.files.item(0)))


@on("input", "#size", "#size-range")
def on_size(event):
    source = event.target
    if source.id == "size-range":
        el("size").value = source.value
    else:
        el("size-range").value = source.value or "0"
    # settings() sends a percentage as such, so the overlap fields only follow for the eye: they
    # are updated after the worker has been started.
    changed(sync_overlap)


@on("input", "#overlap", "#overlap-range")
def on_overlap(event):
    source = event.target
    C.pct = None
    if source.id == "overlap-range":
        el("overlap").value = source.value
    sync_overlap()
    changed()


@on("click", ".pcts")
def on_pct(event):
    try:
        button = event.target.closest("button[data-pct]")
    except Exception:
        button = None
    if button is None:
        return
    C.pct = data(button, "data-pct")
    sync_overlap()
    changed()


@on("change", "#unit")
def on_unit(event):
    unit = el("unit").value
    old, C.unit = C.unit, unit
    if old != unit and old in UNIT_CHARS and unit in UNIT_CHARS:
        # Keep roughly the same amount of text per chunk when the unit changes.
        factor = UNIT_CHARS[old] / UNIT_CHARS[unit]
        el("size").value = str(max(1, round(size_value() * factor)))
        if C.pct is None:
            try:
                el("overlap").value = str(round(int(el("overlap").value) * factor))
            except ValueError:
                pass
    sync_unit()
    changed()


def apply(settings_json):
    """Set what an Apply button (advice, starting points) carries, then chunk again."""
    wanted = json.loads(settings_json)
    said = []
    if "unit" in wanted:
        el("unit").value = wanted["unit"]
        C.unit = wanted["unit"]
    if "strategy" in wanted:
        el("strategy").value = wanted["strategy"]
        said.append(wanted["strategy"])
    if "tokenizer" in wanted:
        el("tokenizer").value = wanted["tokenizer"]
        said.append(wanted["tokenizer"])
    if "size" in wanted:
        el("size").value = str(wanted["size"])
        said.append("size " + str(wanted["size"]) + " " + el("unit").value)
    if "overlap" in wanted:
        overlap = str(wanted["overlap"])
        if overlap.endswith("%"):
            C.pct = overlap[:-1]
        else:
            C.pct = None
            el("overlap").value = overlap
        said.append("overlap " + overlap)
    sync_unit()
    changed()
    toast("Applied " + ", ".join(said))


@on("click", "#advice-panel")
def on_apply(event):
    try:
        button = event.target.closest("button[data-apply]")
    except Exception:
        button = None
    if button is not None:
        apply(data(button, "data-apply"))
