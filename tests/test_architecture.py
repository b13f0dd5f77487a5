"""The package's layout: docs/architecture.md's module map names every module, and the imports
go one way, stage by stage, with no cycle (lazy imports inside functions included)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "chunker"

# The stages in pipeline order: a module may import from its own stage and the ones before it.
STAGES = [
    "_errors",
    "text",
    "documents",
    "tokens",
    "embeddings",
    "strategies",
    "splitters",
    "settings",
    "results",
    "session",
    "retrieval",
    "_adapters",
    "cli",
    "langchain",
    "llama_index",
    "arrow",
    "ray",
    "spark",
    "haystack",
    "__init__",
    "__main__",
]


def modules(paths: list[Path] | None = None) -> dict[str, Path]:
    """Every module of the package (or of `paths`): dotted name -> file."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py") if paths is None else paths):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The package's modules that `name` imports, anywhere in its body."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            subs = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in known]
            # `from . import _ucd` imports a submodule, not its package's __init__
            candidates = subs if len(subs) == len(node.names) else [target, *subs]
        elif isinstance(node, ast.Import):
            candidates = [a.name for a in node.names]
        else:
            continue
        out.update(c for c in candidates if c in known and c != name)
    return out


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def stage(name: str) -> int:
    first = name.split(".")[1] if "." in name else "__init__"
    return STAGES.index(first)


def test_no_import_cycles():
    g = graph()
    state: dict[str, int] = {}  # 1 on the path, 2 done
    cycles = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for dep in sorted(g[node]):
            if state.get(dep) == 1:
                cycles.append(path[path.index(dep) :] + [dep])
            elif dep not in state:
                visit(dep, [*path, dep])
        state[node] = 2

    for node in sorted(g):
        if node not in state:
            visit(node, [node])
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_imports_go_one_way_through_the_stages():
    backwards = [f"{a} imports {b}" for a, deps in graph().items() for b in deps if stage(b) > stage(a)]
    assert not backwards, backwards


def test_every_stage_is_known():
    assert {stage(name) for name in modules()}  # stage() raises for a folder STAGES does not name


def map_entries() -> list[str]:
    """The files docs/architecture.md's module map names, as paths under the repository."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = re.search(r"```modules\n(.*?)```", text, re.S)
    assert block, "docs/architecture.md has no ```modules block"
    stack: list[tuple[int, str]] = []
    paths = []
    for line in block.group(1).splitlines():
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        entry = line.split()[0]
        while stack and stack[-1][0] >= indent:
            stack.pop()
        full = "/".join([p for _, p in stack] + [entry.rstrip("/")])
        if entry.endswith("/"):
            stack.append((indent, entry.rstrip("/")))
        else:
            paths.append(full)
    return paths


def test_the_architecture_map_names_every_module_and_nothing_else():
    named = map_entries()
    real = sorted(p.relative_to(ROOT).as_posix() for p in modules().values())
    assert len(named) == len(set(named)), "a module is named twice"
    assert not sorted(set(real) - set(named)), f"modules the map does not name: {sorted(set(real) - set(named))}"
    assert not sorted(set(named) - set(real)), f"the map names modules that do not exist: {sorted(set(named) - set(real))}"


def test_the_map_check_sees_a_new_module():
    """The check itself: a module added without a line in the map is reported."""
    extra = PACKAGE / "text" / "_added_for_the_test.py"
    real = {p.relative_to(ROOT).as_posix() for p in modules([*PACKAGE.rglob("*.py"), extra]).values()}
    assert real - set(map_entries()) == {"chunker/text/_added_for_the_test.py"}
