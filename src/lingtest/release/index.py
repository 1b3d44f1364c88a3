"""The release index, ``<release.dir>/index.json``: every version ever released, with the sha256 of its
suite and of its rows. It is committed with the releases, so every clone knows every version: releasing
a version again with other content fails even where its folder is absent, and ``lingtest release
verify`` compares a release with the index as the commit that added the release recorded it (an edited
row fails even when ``checksums.sha256`` and ``provenance.json`` were rewritten to match).

Layout: ``{"<suite>": {"<version>": {"suite_sha256", "rows_sha256", "records", "kind", "text", "tag"}}}``;
a version whose files are lost carries ``"withdrawn": "<why>"`` instead and can never be released again.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lingtest.errors import InputError

INDEX = "index.json"


def index_path(release_root: Path) -> Path:
    return release_root / INDEX


def read_index(release_root: Path) -> dict[str, dict[str, dict[str, Any]]]:
    """The index (empty when there is none); a malformed one is an :class:`InputError`."""
    path = index_path(release_root)
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON ({exc.msg})", path=path, line=exc.lineno) from None
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise InputError("expected {suite: {version: entry}}", path=path)
    return data


def write_index(release_root: Path, index: Mapping[str, Mapping[str, Any]]) -> None:
    release_root.mkdir(parents=True, exist_ok=True)
    ordered = {name: dict(sorted(index[name].items(), key=lambda kv: _version_key(kv[0])))
               for name in sorted(index)}
    index_path(release_root).write_text(json.dumps(ordered, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _version_key(version: str) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in version.split("."))
    except ValueError:
        return (1 << 30,)


def entry_of(index: Mapping[str, Mapping[str, Any]], name: str, version: str) -> dict[str, Any] | None:
    got = index.get(name, {}).get(version)
    return dict(got) if got is not None else None


def check_new(index: Mapping[str, Mapping[str, Any]], name: str, version: str, suite_sha256: str,
              where: Path) -> bool:
    """Whether ``name`` ``version`` is new (``True``), already released with this suite (``False``), or
    an error: released with another suite, or withdrawn."""
    entry = entry_of(index, name, version)
    if entry is None:
        return True
    if "withdrawn" in entry:
        raise InputError(f"{name} {version} was released and withdrawn ({entry['withdrawn']}): a version is never "
                         "reused, choose a new one", path=where)
    if entry.get("suite_sha256") != suite_sha256:
        raise InputError(f"{name} {version} was released with another suite (sha256 "
                         f"{str(entry.get('suite_sha256'))[:16]}..., now {suite_sha256[:16]}...): releases are "
                         "immutable, choose a new version", path=where)
    return False


def git_tags(root: Path) -> set[str]:
    proc = subprocess.run(["git", "tag", "--list"], cwd=root, capture_output=True, text=True)
    return set(proc.stdout.split()) if proc.returncode == 0 else set()


def committed_index(root: Path, release_root: Path, release_dir: Path) -> tuple[str, dict[str, Any]] | None:
    """(commit, index) as the commit that first added ``release_dir`` to git recorded the index; ``None``
    when the release is not committed (or ``root`` is no git checkout)."""
    try:
        rel_dir = release_dir.resolve().relative_to(root.resolve()).as_posix()
        rel_index = index_path(release_root).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None
    log = subprocess.run(["git", "log", "--diff-filter=A", "--format=%H", "--", f"{rel_dir}/provenance.json"],
                         cwd=root, capture_output=True, text=True)
    commits = log.stdout.split()
    if log.returncode != 0 or not commits:
        return None
    first = commits[-1]
    shown = subprocess.run(["git", "show", f"{first}:{rel_index}"], cwd=root, capture_output=True, text=True)
    if shown.returncode != 0:
        return None
    try:
        return first, json.loads(shown.stdout)
    except json.JSONDecodeError:
        return None
