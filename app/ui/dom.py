# Helpers every part of the interface uses: elements, event wiring, messages.

import asyncio

from pyscript import document, window
from pyscript.ffi import create_proxy

# NOTE: MicroPython copies every string it reads from JavaScript into a heap of a few MB, so the
# document, the view's HTML and the exports never pass through Python variables here: they move
# inside JavaScript objects (static/bridge.js), and this code only hands those objects along.
BRIDGE = window.chunkerBridge
LIST = window.chunkList

# What other modules call back into (set by app/main.py): a setting or the text changed.
hooks = {"changed": None, "text_changed": None, "refresh": None}

_handlers = []


def on(event, *targets):
    """Register the decorated function for `event` on each target (a CSS selector, or
    "@window" / "@document"); `bind()` attaches them all once the page is built."""

    def register(fn):
        _handlers.append((event, targets, fn))
        return fn

    return register


def bind():
    for event, targets, fn in _handlers:
        proxy = create_proxy(fn)
        for target in targets:
            if target == "@window":
                node = window
            elif target == "@document":
                node = document
            else:
                node = document.querySelector(target)
            if node is not None:
                node.addEventListener(event, proxy)


def el(name):
    return document.getElementById(name)


def spawn(coro):
    asyncio.create_task(coro)


def data(node, name):
    value = node.getAttribute(name)
    return value if value is not None else ""


def closest(event, selector):
    try:
        return event.target.closest(selector)
    except Exception:  # the target is not an element (text node, document)
        return None


async def file_call(call, name):
    """The worker's answer to `call`, which reads the reader's file `name`; None when the worker
    itself failed on it (Pyodide cannot go on then): said in one line, and Python started again
    (hooks["worker_failed"])."""
    try:
        return await call
    except Exception as exc:
        status(None)
        await hooks["worker_failed"](name, exc)
        return None


def status(message, step=None, of=3):
    """The status line: `message`, and the bar at `step` of `of` (start-up has three steps)."""
    box = el("status")
    if message is None:
        box.hidden = True
        return
    box.hidden = False
    el("status-text").textContent = message
    if step is not None:
        bar = el("load-progress")
        bar.max = of
        bar.value = step


def show_error(message):
    box = el("error")
    if message:
        # A string MicroPython hands to JavaScript ends at its first NUL: one quoted from a
        # link or a file would cut the message there.
        box.textContent = message.replace("\x00", "\\x00")
        box.hidden = False
    else:
        box.textContent = ""
        box.hidden = True


_toast = [None]


def toast(message, seconds=2.5):
    box = el("toast")
    box.textContent = message
    box.hidden = False
    if _toast[0] is not None:
        window.clearTimeout(_toast[0])

    def hide():
        box.hidden = True

    _toast[0] = window.setTimeout(create_proxy(hide), int(seconds * 1000))


def mark(name, value):
    """A state the tests and the stylesheet read: <body data-NAME="value">."""
    document.body.setAttribute("data-" + name, str(value))


def error_text(exc):
    """One readable line from an exception, a JavaScript one included.

    MicroPython shows a JavaScript error as the tuple of its proxy, its name and its message;
    the message is the part a reader needs.
    """
    args = getattr(exc, "args", ())
    if len(args) == 3 and isinstance(args[2], str) and args[2]:
        return args[2][:300]
    return str(exc).split("\n")[-1][:300]


def page_setting(name, default):
    """A number the tests may set on window before the page loads (else the default)."""
    try:
        value = float(getattr(window, name))
        return value if value > 0 else default
    except Exception:  # undefined: the default
        return default
