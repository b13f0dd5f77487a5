"""Compile a zip of Python sources into a zip of bytecode.

Pyodide's ``python_stdlib.zip`` holds only ``.py`` files, so every module Python imports while it
starts is compiled from source, in WebAssembly, at every cold visit: a bare Pyodide page took
2.8 s to start here, and 1.2 s with the library compiled. The app's own ``chunker`` and ``app``
packages (app.zip) cost another 0.13 s the same way. tools/runtime.py runs :func:`compile_zip`
*inside* the vendored Pyodide (under Node.js, see tools/compile_pyc.mjs), because only the same
CPython build writes bytecode that CPython will load; it must therefore use nothing but the
standard library.

Each ``x.py`` that compiles becomes ``x.pyc`` and the source is left out (a traceback then shows
no source line). Python loads such a sourceless ``.pyc`` from a zip (``zipimport``) and from a
directory alike. The files are hash-based and unchecked (PEP 552): nothing compares them with a
source or a file time, and the same input gives the same bytes. A file that does not compile
keeps its source, so that importing it fails exactly as it did before.

Bytecode is bigger than its source, even deflated (the whole library: 4.5 MB against 2.5 MB),
and every first visit downloads it. So the standard library is compiled only where that pays:
the modules the worker imports (``only``: tools/stdlib_compiled.txt); the few hundred it never
imports keep their source, compiled in the browser if a rare path ever imports one. And the
compiling interpreter runs without column positions (``PYTHONNODEBUGRANGES``, set by
tools/compile_pyc.mjs): a fifth off the bytecode, at the cost of the ``^^^`` markers under a
traceback's line, which the app never shows anyway.
"""

from __future__ import annotations

import importlib.util
import io
import marshal
import zipfile

LEVEL = 9  # deflate's best: every first visit downloads these zips

# PEP 552: bit 0 set = hash-based; bit 1 clear = "unchecked", never compared with a source.
UNCHECKED_HASH = 0b01


def pyc_bytes(source: bytes, filename: str) -> bytes:
    """The ``.pyc`` for ``source``, as ``py_compile`` writes it in unchecked-hash mode.

    ``filename`` becomes the code's ``co_filename``: the path ``zipimport`` itself would have
    given it, so tracebacks and ``__file__``-based code see the usual names.
    """
    code = compile(source, filename, "exec", dont_inherit=True)
    header = importlib.util.MAGIC_NUMBER + UNCHECKED_HASH.to_bytes(4, "little")
    return header + importlib.util.source_hash(source) + marshal.dumps(code)


def compile_zip(data: bytes, archive_path: str, only: set[str] | None = None) -> tuple[bytes, int]:
    """``data`` (a zip of sources) with each compilable ``.py`` replaced by its ``.pyc`` (of those
    named in ``only``, when given: members such as ``json/__init__.py``).

    ``archive_path`` is where the files are imported from: where the zip sits on ``sys.path``
    (``/lib/python314.zip`` in Pyodide), or the directory it is unpacked into.
    Returns the new zip and the number of modules compiled. Member order, times and every other
    file are kept.
    """
    out = io.BytesIO()
    compiled = 0

    def entry(info: zipfile.ZipInfo, name: str) -> zipfile.ZipInfo:
        new = zipfile.ZipInfo(name, date_time=info.date_time)
        new.external_attr = info.external_attr
        new.compress_type = zipfile.ZIP_STORED if info.is_dir() else zipfile.ZIP_DEFLATED
        return new

    with zipfile.ZipFile(io.BytesIO(data)) as source_zip, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for info in source_zip.infolist():
            content = source_zip.read(info)
            if info.filename.endswith(".py") and (only is None or info.filename in only):
                try:
                    pyc = pyc_bytes(content, f"{archive_path}/{info.filename}")
                except (SyntaxError, ValueError):
                    pass  # kept as source: importing it fails as it always did
                else:
                    zf.writestr(entry(info, info.filename + "c"), pyc, compresslevel=LEVEL)
                    compiled += 1
                    continue
            zf.writestr(entry(info, info.filename), content, compresslevel=LEVEL)
    return out.getvalue(), compiled
