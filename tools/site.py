"""What the playground page is made of: the one list of files it may load, and the static site.

:func:`public_files` is the allow-list both serve.py and ``serve.py --build`` use, derived from
the page's own files each time they change, so a new file needs no list kept by hand:

* the files at the top (:data:`PAGE_FILES`): a file that must sit there, such as a service
  worker whose scope is the whole site, is added to that tuple;
* what index.html and the two PyScript configs name under ``app/`` (``./app/worker.py``,
  ``./app/sample.md``...), and no other file of ``app/``: the worker gets the rest in app.zip;
* every file under ``static/`` but ``static/vendor/``: styles, scripts, icons, a manifest;
* the vendored runtime, as set-up recorded it (tools/runtime.py :func:`vendored_files`), each
  with its sha256, so that what is served or copied can be checked.

Never a hidden file or folder, never ``__pycache__``, and never anything a symbolic link leads
to outside ``app/``, ``static/`` and the top files: each file's real path is checked.

Standard library only: serve.py runs before any virtual environment exists.
"""

from __future__ import annotations

import html.parser
import json
import os
import posixpath
import shutil
import tempfile
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

import tomllib

from tools import runtime

PAGE_FILES = ("index.html", "pyscript.toml", "micropython.toml", "sw.js")
SERVED_DIRS = ("app", "static")
VENDOR_URL = runtime.VENDOR.as_posix()  # "static/vendor"

MARKER = ".chunker-site.json"
"""Written into each built site: what the build wrote, so the next build may replace exactly that."""

MODEL_DIR = "static/model"
"""Where a built site holds the embedding model it bundles (``serve.py --build DIR --model PATH``)."""

MODEL_META = '<meta name="chunker-model" content="">'
"""index.html's tag naming the bundled model's folder: empty in the repository, filled by a build
with a model, which the page then loads from the site (static/bridge.js bundledModel)."""


class SiteError(Exception):
    """A site cannot be built there; ``str(e)`` is one line saying why and what to do."""


@dataclass(frozen=True)
class BundledModel:
    """An embedding model to bundle into a built site: its folder's name and its files' bytes by
    name (model.safetensors, tokenizer.json, config.json), read and checked by the caller."""

    label: str
    files: dict[str, bytes]


@dataclass(frozen=True)
class PublicFile:
    """A file the page may load: where it really is, and for the vendored runtime its sha256."""

    path: Path
    sha256: str | None = None


# ---------------------------------------------------------------- the allow-list


def request_path(target: str) -> str | None:
    """The file a request's target names, relative to the site (``""`` means index.html is
    meant), or None when it cannot name one. Decoded first, then normalised: the allow-list is
    checked against what the file system would see, not against the URL's spelling.

    >>> request_path("/app/%2e%2e/serve.py"), request_path("/static/./app.css?v=2"), request_path("/")
    ('serve.py', 'static/app.css', 'index.html')
    >>> request_path("/app/x%2F..%2F..%2F.git%2FHEAD"), request_path("/static/app.css/"), request_path("/a%00b")
    ('.git/HEAD', None, None)
    """
    path = target.split("?", 1)[0].split("#", 1)[0]
    if not path.startswith("/"):
        return None  # "*", an absolute URL, garbage
    try:
        decoded = urllib.parse.unquote(path, errors="strict")
    except UnicodeDecodeError:
        return None
    if "\0" in decoded or "\\" in decoded:
        return None
    if decoded != "/" and decoded.endswith(("/", "/.", "/..")):
        return None  # a folder: none is listed
    normal = posixpath.normpath(decoded).lstrip("/")
    return normal or "index.html"


def is_public(rel: str, root: Path) -> bool:
    """Whether ``rel`` (a decoded, normalised path) is one of the page's files.

    >>> from pathlib import Path
    >>> root = Path(__file__).resolve().parent.parent
    >>> is_public("index.html", root), is_public("static/app.css", root), is_public("chunker/__init__.py", root)
    (True, True, False)
    >>> is_public("static/vendor/.runtime.json", root), is_public("serve.py", root), is_public("app/render.py", root)
    (False, False, False)
    """
    return rel in public_files(root)


def public_files(root: Path) -> dict[str, PublicFile]:
    """Every file the page may load: its path under the site (as in a URL, without the leading
    slash) -> where it really is. The one allow-list; see the module's docstring for what is in it.
    """
    root = Path(root).resolve()
    wanted: dict[str, str | None] = dict.fromkeys(PAGE_FILES)
    for rel in page_references(root):
        if plain_path(rel) and rel.split("/", 1)[0] in SERVED_DIRS and not rel.startswith(VENDOR_URL + "/"):
            wanted.setdefault(rel, None)
    wanted.update(dict.fromkeys(_static_files(root)))
    for rel, digest in runtime.vendored_files(root).items():
        wanted[f"{VENDOR_URL}/{rel}"] = digest
    found: dict[str, PublicFile] = {}
    for rel, recorded in sorted(wanted.items()):
        real = real_file(root, rel)
        if real is not None:
            found[rel] = PublicFile(real, recorded)
    return found


def real_file(root: Path, rel: str) -> Path | None:
    """Where ``root/rel`` really is, if that is a regular file of the page: inside ``app/`` or
    ``static/``, or one of the top files, and on no hidden path, whatever symbolic links say."""
    try:
        real = (root / rel).resolve(strict=True)
    except (OSError, RuntimeError):  # missing, a loop of links
        return None
    try:
        inside = real.relative_to(root).as_posix()
    except ValueError:
        return None  # outside the repository
    if not plain_path(inside) or not real.is_file():
        return None
    if inside in PAGE_FILES or inside.split("/", 1)[0] in SERVED_DIRS:
        return real
    return None


def site_signature(root: Path) -> tuple:
    """Cheap to take (tens of microseconds: serve.py takes it for each request), and different
    whenever :func:`public_files` may be: the file times of the files it reads and of the folders
    it lists (adding, removing or re-linking a file changes its folder's time)."""
    top = os.fspath(root)
    static = os.path.join(top, "static")
    paths = [
        top,
        os.path.join(top, "app"),
        os.path.join(top, os.fspath(runtime.VENDOR), runtime.STAMP),
        *(os.path.join(top, name) for name in PAGE_FILES),
    ]
    folders = [static]
    while folders:
        folder = folders.pop()
        paths.append(folder)
        try:
            with os.scandir(folder) as entries:
                folders += [
                    e.path
                    for e in entries
                    if e.is_dir(follow_symlinks=False) and plain_path(e.name) and not (folder == static and e.name == "vendor")
                ]
        except OSError:
            pass
    out: list[tuple] = []
    for path in paths:
        try:
            st = os.stat(path)
        except OSError:
            out.append((path, None))
        else:
            out.append((path, st.st_mtime_ns, st.st_size, st.st_ino))
    return tuple(out)


def page_references(root: Path) -> set[str]:
    """The local files index.html and the PyScript configs name, relative to the site.

    >>> from pathlib import Path
    >>> found = page_references(Path(__file__).resolve().parent.parent)
    >>> {"app/main.py", "app/worker.py", "app/sample.md", "app/ui/dom.py"} <= found
    True
    """
    root = Path(root)
    names: list[str] = []
    try:
        collector = _Attributes()
        collector.feed((root / "index.html").read_text(encoding="utf-8"))
        names += collector.values
    except (OSError, UnicodeDecodeError):
        pass
    for config in ("pyscript.toml", "micropython.toml"):
        try:
            data = tomllib.loads((root / config).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue
        names += [data.get("interpreter", ""), *data.get("files", {})]
    out = set()
    for name in names:
        if isinstance(name, str) and name.startswith("./"):
            rel = posixpath.normpath(name[2:].split("?", 1)[0].split("#", 1)[0])
            if not rel.startswith("../"):
                out.add(rel)
    return out


class _Attributes(html.parser.HTMLParser):
    """Every attribute value of a page (src, href, config...)."""

    def __init__(self):
        super().__init__()
        self.values: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.values += [value for _name, value in attrs if value]


def _static_files(root: Path) -> list[str]:
    found = []
    static = root / "static"
    for folder, dirs, files in os.walk(static):  # symbolic links to folders are not walked into
        dirs[:] = [d for d in dirs if plain_path(d) and not (Path(folder) == static and d == "vendor")]
        found += [(Path(folder) / name).relative_to(root).as_posix() for name in files if plain_path(name)]
    return found


def plain_path(rel: str) -> bool:
    """Whether a relative path has no hidden part, no ``__pycache__`` and no empty, ``.`` or ``..`` part.

    >>> plain_path("static/app.css"), plain_path("static/.secret"), plain_path("app/../x"), plain_path("a//b")
    (True, False, False, False)
    """
    return all(part and not part.startswith(".") and part != "__pycache__" for part in rel.split("/"))


# ---------------------------------------------------------------- the static build


def build_site(root: Path, out: Path, model: BundledModel | None = None) -> Path:
    """Write the page's files into ``out``, a new or empty folder or an earlier build, as a
    self-contained static site (GitHub Pages); return its path. With `model`, the site bundles
    that embedding model (under :data:`MODEL_DIR`), which its page loads at start and offers.

    Nothing the build did not make is ever deleted: a folder holding anything else is refused
    (:class:`SiteError`). The site is written into a temporary folder beside ``out`` and then
    renamed into place, so a failure leaves ``out`` as it was and nothing else behind.
    """
    from tools import offline  # it imports this module

    root = Path(root).resolve()
    out = check_target(root, out)
    offline.ensure_list(root)  # the service worker's list, for the files as they are now
    created = _make_parents(out.parent)
    try:
        tmp = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.build-"))
    except OSError as exc:
        _remove_empty(created)
        raise SiteError(f"cannot write into {out.parent} ({exc.strerror}); pick a folder you can write to") from None
    try:
        _write_site(root, tmp, model)
        _swap(tmp, out)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        _remove_empty(created)
        raise SiteError(f"could not write the site into {out} ({exc}); nothing was changed there") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        _remove_empty(created)
        raise
    return out


def check_target(root: Path, out: Path) -> Path:
    """``out`` made absolute, if a site may be built there; else :class:`SiteError`."""
    out = Path(os.path.abspath(out))
    if out.is_symlink():
        raise SiteError(f"refusing to build into {out}: it is a symbolic link; name the folder itself")
    real = out.parent.resolve() / out.name
    root = Path(root).resolve()
    if real == root or root.is_relative_to(real):
        raise SiteError(f"refusing to build into {out}: it holds the repository; pick a new folder such as _site")
    if any(real.is_relative_to(root / name) for name in SERVED_DIRS):
        raise SiteError(f"refusing to build into {out}: it is inside the page's own files; pick a folder such as _site")
    for parent in out.parents:
        if parent.exists() and not parent.is_dir():
            raise SiteError(f"cannot build into {out}: {parent} is a file, not a folder")
        if parent.exists():
            break
    if not out.exists():
        return out
    if not out.is_dir():
        raise SiteError(f"cannot build into {out}: it is a file, not a folder; name a new or empty folder")
    try:
        foreign = _not_ours(out)
    except OSError as exc:
        raise SiteError(f"cannot build into {out}: cannot read it ({exc.strerror}); name a new or empty folder") from None
    if foreign:
        raise SiteError(f"refusing to build into {out}: it holds {foreign}; name a new or empty folder (nothing was deleted)")
    return out


def _not_ours(folder: Path) -> str | None:
    """What in ``folder`` an earlier build did not write, said for a message (None if nothing)."""
    entries = sorted(os.listdir(folder))
    if not entries:
        return None
    try:
        made = set(json.loads((folder / MARKER).read_text())["files"]) | {MARKER}
    except (OSError, ValueError, KeyError, TypeError):  # no marker: not a build of ours
        if MARKER not in entries and {".nojekyll", "index.html"} <= set(entries):
            return "a site built before builds were marked, which it cannot tell from your own files: delete it once"
        return f"{next((name for name in entries if name != MARKER), MARKER)}, which no earlier build made"
    for dirpath, dirs, files in os.walk(folder):
        here = Path(dirpath).relative_to(folder).as_posix()
        for name in sorted(files) + sorted(d for d in dirs if (Path(dirpath) / d).is_symlink()):
            rel = name if here == "." else f"{here}/{name}"
            if rel not in made:
                return f"{rel}, which no earlier build made"
        for name in sorted(dirs):
            rel = name if here == "." else f"{here}/{name}"
            if not any(f.startswith(rel + "/") for f in made):
                return f"{rel}/, which no earlier build made"
    return None


def _write_site(root: Path, tmp: Path, model: BundledModel | None = None) -> None:
    os.chmod(tmp, 0o755)  # mkdtemp makes it private; a static host must be able to list it
    written = []
    contents = {rel: file.path.read_bytes() for rel, file in public_files(root).items()}
    for rel, file in public_files(root).items():
        if file.sha256 is not None and runtime.hashlib.sha256(contents[rel]).hexdigest() != file.sha256:
            raise SiteError(f"{rel} is not the file set-up vendored; run serve.py or tools/runtime.py to vendor it again")
    if model is not None:
        _bundle(root, contents, model)
    for rel, data in contents.items():
        target = tmp / rel
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
        target.write_bytes(data)
        os.chmod(target, 0o644)
        written.append(rel)
    # GitHub Pages runs Jekyll unless told not to; Jekyll would drop files it considers private.
    (tmp / ".nojekyll").write_text("")
    written.append(".nojekyll")
    for folder, _dirs, _files in os.walk(tmp):
        os.chmod(folder, 0o755)
    marker = {"written_by": "serve.py --build; the next build replaces exactly these files", "files": sorted(written)}
    (tmp / MARKER).write_text(json.dumps(marker, indent=1) + "\n")
    os.chmod(tmp / MARKER, 0o644)
    os.chmod(tmp / ".nojekyll", 0o644)


def _bundle(root: Path, contents: dict[str, bytes], model: BundledModel) -> None:
    """Add `model` to the site's files: its three files under MODEL_DIR, index.html's tag naming
    them, and the service worker's list written again for the files the site now holds (a
    bundled model is one of the site's own files, kept offline as the rest are)."""
    import html

    from tools import offline  # it imports this module

    page = contents["index.html"].decode("utf-8")
    if page.count(MODEL_META) != 1:
        raise SiteError(f"index.html has no {MODEL_META} tag to name the bundled model in; restore it from the repository")
    named = f'<meta name="chunker-model" content="{MODEL_DIR}/" data-label="{html.escape(model.label)}">'
    contents["index.html"] = page.replace(MODEL_META, named).encode("utf-8")
    for name, data in model.files.items():
        contents[f"{MODEL_DIR}/{name}"] = data
    hashes = {rel: runtime.hashlib.sha256(data).hexdigest() for rel, data in contents.items() if rel not in offline.OWN}
    code = contents.get(offline.CODE, (root / offline.CODE).read_bytes())
    listing = offline.manifest(hashes, page_references(root), runtime.stdlib_file(root), code)
    contents[offline.LIST_URL] = offline.script(listing)


def _swap(tmp: Path, out: Path) -> None:
    """Put the new site in place of ``out`` (absent, empty or an earlier build)."""
    if not out.exists() or not os.listdir(out):
        os.replace(tmp, out)  # rename(2) takes the place of an empty folder, and fails on a full one
        return
    old = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.old-"))
    os.rmdir(old)
    os.replace(out, old)
    try:
        os.replace(tmp, out)
    except OSError:
        os.replace(old, out)
        raise
    _remove_earlier_build(old)


def _remove_earlier_build(old: Path) -> None:
    """Delete the files an earlier build listed, then its folders if that left them empty; a file
    put there since stays (and so does its folder)."""
    try:
        made = json.loads((old / MARKER).read_text())["files"] + [MARKER]
    except (OSError, ValueError, KeyError, TypeError):
        return
    for rel in made:
        if _plain_or_marker(rel):
            try:
                os.unlink(old / rel)  # unlink never follows a symbolic link
            except OSError:
                pass
    for folder, _dirs, _files in os.walk(old, topdown=False):  # deepest first
        try:
            os.rmdir(folder)
        except OSError:
            pass


def _plain_or_marker(rel: object) -> bool:
    return isinstance(rel, str) and (rel in (MARKER, ".nojekyll") or plain_path(rel))


def _make_parents(folder: Path) -> list[Path]:
    """Create ``folder`` and its missing parents; return those created, deepest last."""
    missing = []
    for parent in [folder, *folder.parents]:
        if parent.exists():
            break
        missing.append(parent)
    created: list[Path] = []
    for parent in reversed(missing):
        try:
            parent.mkdir()
        except OSError as exc:
            _remove_empty(created)
            raise SiteError(f"cannot create {parent} ({exc.strerror}); pick a folder you can write to") from None
        created.append(parent)
    return created


def _remove_empty(created: list[Path]) -> None:
    for folder in reversed(created):
        try:
            folder.rmdir()
        except OSError:
            pass
