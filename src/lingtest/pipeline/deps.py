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


def _refs(node: ast.AST, current: str) -> set[str]:
    """lingtest modules referenced under ``node``."""
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
        elif isinstance(n, ast.Constant) and isinstance(n.value, str):
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
    todo = list(_with_parents(function_refs(module, function) | {RUNNER}) - {module})
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


def compact(files: list[str], root: Path) -> list[str]:
    """Files folded into their folder where the folder's every ``.py`` file is in ``files``."""
    fileset = set(files)
    dirs = sorted({str(Path(f).parent) for f in files}, key=lambda d: d.count("/"))
    full: list[str] = []
    for d in dirs:
        if any(d == p or d.startswith(p + "/") for p in full):
            continue
        py = {str(p.relative_to(root)) for p in (root / d).rglob("*.py")}
        if py and py <= fileset:
            full.append(d)
    rest = [f for f in files if not any(f.startswith(p + "/") for p in full)]
    return sorted(full) + rest
