"""The code a DVC stage runs: the import closure of its body (:data:`lingtest.pipeline.stage.STAGES`).

Static (AST) analysis, so nothing is imported: the body function's own imports and those of the
same-module functions it calls, the module's top-level imports, then every reached module's imports
(top-level and inside functions), lazy registry targets (``"lingtest.x.y:attr"`` strings) and the
``__init__`` of every package on the way. Over-approximate by design: a stage may re-run for a module
it does not need, but never goes stale. ``tests/core/test_pipeline_deps.py`` checks ``dvc.yaml``.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

_TARGET = re.compile(r"^(lingtest(?:\.\w+)+):\w+$")
PACKAGE = "lingtest"


def package_dir() -> Path:
    return Path(__file__).resolve().parents[1]


def module_file(module: str) -> Path | None:
    rel = Path(*module.split(".")[1:])
    base = package_dir() / rel
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py")
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    return None


def _is_package(module: str) -> bool:
    f = module_file(module)
    return f is not None and f.name == "__init__.py"


def _refs(node: ast.AST, current: str, lazy: bool = True) -> set[str]:
    """lingtest modules referenced under ``node`` (``lazy``: with ``"module:attr"`` registry targets)."""
    out: set[str] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Import):
            out.update(a.name for a in n.names if a.name.split(".")[0] == PACKAGE)
        elif isinstance(n, ast.ImportFrom):
            mod = n.module or ""
            if n.level:
                base = current.split(".")
                base = base[: len(base) - n.level + (1 if _is_package(current) else 0)]
                mod = ".".join([*base, mod] if mod else base)
            if mod.split(".")[0] != PACKAGE:
                continue
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in n.names if module_file(f"{mod}.{a.name}") is not None)
        elif lazy and isinstance(n, ast.Constant) and isinstance(n.value, str):
            m = _TARGET.match(n.value)
            if m:
                out.add(m.group(1))
    return {m for m in out if module_file(m) is not None}


@cache
def _tree(module: str) -> ast.Module:
    f = module_file(module)
    assert f is not None, module
    return ast.parse(f.read_text(encoding="utf-8"))


def _with_parents(modules: set[str]) -> set[str]:
    out = set(modules)
    for m in modules:
        parts = m.split(".")
        out.update(".".join(parts[:i]) for i in range(1, len(parts)))
    return out


def function_refs(module: str, function: str) -> set[str]:
    """Modules a function of ``module`` may import: the module's top-level imports, the function's
    own, and those of the module-level functions/classes it names (transitively)."""
    tree = _tree(module)
    defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}
    top = ast.Module(body=[n for n in tree.body if n.__class__.__name__ not in
                           ("FunctionDef", "AsyncFunctionDef", "ClassDef")], type_ignores=[])
    out = _refs(top, module)
    seen, todo = set(), [function]
    while todo:
        name = todo.pop()
        if name in seen or name not in defs:
            continue
        seen.add(name)
        out |= _refs(defs[name], module)
        todo.extend(n.id for n in ast.walk(defs[name]) if isinstance(n, ast.Name) and n.id in defs)
    if function not in defs:
        raise KeyError(f"{module} has no function {function!r}")
    return out


#: what runs every stage body (config loading, tracking); traversed for every stage
RUNNER = "lingtest.pipeline.runner"
ENTRY = "lingtest.pipeline.stage"


def closure(target: str) -> set[str]:
    """Every lingtest module that the stage body ``module:function`` may import: the body's module is
    followed only through the body (its other stage functions do not count), and the entry point
    (:mod:`lingtest.pipeline.stage`, whose table names every body) only through the runner."""
    module, _, function = target.partition(":")
    # the body's own package __init__s run when its module is imported: they count too
    todo = list(_with_parents(function_refs(module, function) | {RUNNER, module}) - {module})
    seen: set[str] = {module, ENTRY}
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        seen.add(m)
        todo.extend(_with_parents(_refs(_tree(m), m)) - seen)
    return seen


def closure_files(target: str, root: Path) -> list[str]:
    """:func:`closure` as file paths relative to ``root`` (the repository), sorted."""
    files = {module_file(m) for m in closure(target)}
    return sorted(str(f.relative_to(root)) for f in files if f is not None)


def uncovered(files: list[str], deps: list[str]) -> list[str]:
    """The files that no dependency (a file, or a folder above it) covers."""
    norm = [d.rstrip("/") for d in deps]
    return [f for f in files if not any(f == d or f.startswith(d + "/") for d in norm)]


#: a folder stands for its files in a stage's dependencies when the stage's import closure holds at least
#: this share of the folder's ``.py`` files (below it, the files are listed one by one). Every file of a
#: folded folder is a dependency, so a stage may re-run for a module it does not import, but never goes
#: stale. DVC re-reads a stage file's whole ``dvc.lock`` (pure-Python YAML) each time one of its stages
#: finishes, so that time grows with the entries: for the 94 stages, folding at a third lists 1,894 code
#: entries where folding only fully used folders listed 5,332, and the lock files shrink from 879 to 459 kB
#: (``bench/bench_dvc_overhead.py``, ``bench/results/dvc_overhead.json``).
FOLD_SHARE = 1 / 3


def compact(files: list[str], root: Path, share: float = FOLD_SHARE, top: str | None = None) -> list[str]:
    """Files folded into their folder where ``files`` hold at least ``share`` of the folder's ``.py``
    files (its subfolders' included; ``share=1``: only folders whose every module is in ``files``).
    The outermost such folder wins; ``top`` (default: the package's folder) is never folded."""
    fileset = set(files)
    if top is None and package_dir().is_relative_to(root):
        top = str(package_dir().relative_to(root))
    dirs = sorted({str(Path(f).parent) for f in files} - {top}, key=lambda d: d.count("/"))
    full: list[str] = []
    for d in dirs:
        if any(d == p or d.startswith(p + "/") for p in full):
            continue
        py = {str(p.relative_to(root)) for p in (root / d).rglob("*.py")}
        if py and len(py & fileset) >= share * len(py):
            full.append(d)
    rest = [f for f in files if not any(f.startswith(p + "/") for p in full)]
    return sorted(full) + rest


def all_modules() -> list[str]:
    """Every module of the package, as dotted names (packages by their ``__init__``)."""
    base = package_dir()
    out = []
    for f in sorted(base.rglob("*.py")):
        parts = [PACKAGE, *f.relative_to(base).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out.append(".".join(parts))
    return out


def import_graph(lazy: bool = True) -> dict[str, set[str]]:
    """Module -> the lingtest modules it may import (top-level and inside functions; ``lazy``: also the
    lazy registry targets, imported on first use), without the implicit import of enclosing packages."""
    return {m: _refs(_tree(m), m, lazy) - {m} for m in all_modules()}


# ---- the code dependency lists of the DVC files -----------------------------------------------------
_STAGE_LINE = re.compile(r"^  ([a-z_0-9]+):")
_CMD = re.compile(r"python -m lingtest\.pipeline\.stage (\w+)")
_SRC_DEP = re.compile(r"^(\s+)- src/lingtest\S*\s*$")
_DEPS_KEY = re.compile(r"^(\s+)deps:\s*$")


def pipeline_files(root: Path) -> list[Path]:
    """The DVC files of the pipeline: the root ``dvc.yaml`` (data stages) and ``stages/*/dvc.yaml``."""
    return [root / "dvc.yaml", *sorted((root / "stages").glob("*/dvc.yaml"))]


def stage_code(stage: str, root: Path) -> list[str]:
    """The ``src/`` dependencies of a stage: its body's import closure, whole folders folded."""
    from lingtest.pipeline.stage import TARGETS

    target = TARGETS[stage]
    return sorted(compact(closure_files(target, root), root))


def with_code_deps(text: str, root: Path) -> str:
    """``text`` (a DVC file) with every stage's ``src/`` dependencies replaced by :func:`stage_code`, in
    place of the old ones (after the other dependencies when it had none); nothing else changes."""
    lines = text.splitlines(keepends=True)
    starts = [i for i, ln in enumerate(lines) if _STAGE_LINE.match(ln)] + [len(lines)]
    out = lines[:starts[0]]
    for a, b in zip(starts, starts[1:], strict=False):
        block = lines[a:b]
        cmd = next((m.group(1) for ln in block if (m := _CMD.search(ln))), None)
        if cmd is None:
            out.extend(block)
            continue
        code = stage_code(cmd, root)
        first = next((i for i, ln in enumerate(block) if _SRC_DEP.match(ln)), None)
        if first is None:  # after the last item of the deps list
            k = next(i for i, ln in enumerate(block) if _DEPS_KEY.match(ln))
            indent = len(_DEPS_KEY.match(block[k]).group(1)) + 2  # type: ignore[union-attr]
            first = k + 1
            while first < len(block) and block[first].startswith(" " * indent + "- "):
                first += 1
        else:
            indent = len(_SRC_DEP.match(block[first]).group(1))  # type: ignore[union-attr]
        kept = [ln for i, ln in enumerate(block) if not (i >= first and _SRC_DEP.match(ln))]
        n_before = sum(1 for ln in block[:first] if not _SRC_DEP.match(ln))
        new = [f"{' ' * indent}- {c}\n" for c in code]
        out.extend(kept[:n_before] + new + kept[n_before:])
    return "".join(out)


def stale_files(root: Path, write: bool = False) -> list[Path]:
    """The DVC files whose code dependency lists are not the import closure (rewritten when ``write``)."""
    stale = []
    for f in pipeline_files(root):
        text = f.read_text(encoding="utf-8")
        new = with_code_deps(text, root)
        if new != text:
            stale.append(f)
            if write:
                f.write_text(new, encoding="utf-8")
    return stale
