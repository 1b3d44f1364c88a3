"""Read the DVC metrics files of several revisions through DVC's API (``Repo.metrics.show``: one
open repository, every revision read from git, no checkout). A revision is anything git or DVC
resolves: a branch, tag, commit, ``HEAD~1``, or a DVC experiment name; ``workspace`` is the working
tree."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lingtest.errors import LingtestError

WORKSPACE = "workspace"


def _rel(path: str, root: Path) -> str:
    p = Path(path)
    if p.is_absolute():
        try:
            return p.relative_to(root).as_posix()
        except ValueError:
            return p.as_posix()
    return p.as_posix()


def read_metrics(root: Path, revs: Sequence[str]) -> list[dict[str, Any]]:
    """For each revision, metrics file (relative POSIX path) -> parsed content."""
    from dvc.repo import Repo

    root = root.resolve()
    git_revs = [r for r in revs if r != WORKSPACE]
    os.environ.setdefault("DVC_NO_ANALYTICS", "1")
    with Repo(str(root)) as repo:
        try:
            shown = repo.metrics.show(revs=git_revs or None, hide_workspace=False, on_error="return")
        except Exception as exc:  # DVC's own errors (unknown revision, ...)
            raise LingtestError(f"dvc metrics: {exc}") from None
        exp_names = _exp_shas(repo, git_revs)
    out = []
    for rev in revs:
        entry = shown.get(rev) or shown.get(exp_names.get(rev, "")) or None
        if entry is None:
            raise LingtestError(f"no metrics for revision {rev!r} (unknown revision or experiment?)")
        if entry.get("error"):
            raise LingtestError(f"revision {rev!r}: {entry['error']}")
        files: dict[str, Any] = {}
        for path, content in (entry.get("data") or {}).items():
            if content.get("error") or "data" not in content:
                continue  # a metrics file that revision does not have
            files[_rel(path, root)] = content["data"]
        out.append(files)
    return out


def _exp_shas(repo: Any, revs: Sequence[str]) -> dict[str, str]:
    """Experiment name -> the key DVC's brancher reports it under (the resolved sha), when it differs."""
    out = {}
    for rev in revs:
        try:
            from dvc.scm import resolve_rev

            out[rev] = resolve_rev(repo.scm, rev)
        except Exception:
            continue
    return out


def experiments(root: Path) -> list[str]:
    """Names of the DVC experiments based on HEAD."""
    from dvc.repo import Repo

    with Repo(str(root.resolve())) as repo:
        found = repo.experiments.ls(rev=["HEAD"])
    names: list[str] = []
    for exps in found.values():
        for name, _sha in exps:
            if name:
                names.append(str(name))
    return names
