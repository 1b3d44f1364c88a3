"""The benchmarks in ``bench/`` are not run by the tests (they take minutes and write figures), so a
refactor can break them silently (it did: a moved helper left ``bench_tin.py`` and ``bench_sieve.py``
importing names that no longer existed). Every ``from lingtest... import name`` in them, including
the lazy ones inside functions, must name something that exists."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def lingtest_imports(path: Path) -> list[tuple[int, str, str]]:
    """(line, module, name) of every ``from lingtest... import name`` in ``path``."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "lingtest":
            out.extend((node.lineno, str(node.module), alias.name) for alias in node.names)
        elif isinstance(node, ast.Import):
            out.extend((node.lineno, alias.name, "") for alias in node.names if alias.name.split(".")[0] == "lingtest")
    return out


def missing_names(path: Path) -> list[str]:
    missing = []
    for line, module, name in lingtest_imports(path):
        try:
            mod = importlib.import_module(module)
        except ImportError as e:
            missing.append(f"{path.name}:{line}: {module} ({e})")
            continue
        if name and name != "*" and not hasattr(mod, name):
            try:
                importlib.import_module(f"{module}.{name}")
            except ImportError:
                missing.append(f"{path.name}:{line}: {module}.{name}")
    return missing


@pytest.mark.parametrize("script", sorted(BENCH.glob("*.py")), ids=lambda p: p.name)
def test_bench_scripts_import_only_what_exists(script):
    assert missing_names(script) == []


def test_the_check_catches_a_missing_name(tmp_path):
    bad = tmp_path / "bench_bad.py"
    bad.write_text("def main():\n    from lingtest.paths import repo_path, no_such_helper\n    import lingtest.nope\n")
    assert missing_names(bad) == ["bench_bad.py:2: lingtest.paths.no_such_helper",
                                  "bench_bad.py:3: lingtest.nope (No module named 'lingtest.nope')"]
