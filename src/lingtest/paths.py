"""Where lingtest keeps caches and finds the offline data mirror. No global state: every
function reads the environment when called."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def project_root() -> Path:
    """The repository root when running from a checkout (the folder holding ``dvc.yaml``),
    else the current directory."""
    here = Path.cwd().resolve()
    for p in (here, *here.parents):
        if (p / "dvc.yaml").exists() and (p / "pyproject.toml").exists():
            return p
    return here


def repo_path(path: str | os.PathLike[str]) -> Path:
    """``path`` (``~`` expanded) as an absolute path: a relative one is taken from :func:`project_root`."""
    p = Path(str(path)).expanduser()
    return p if p.is_absolute() else project_root() / p


def configured_paths(section: Any) -> dict[str, Path]:
    """A ``cfg.paths.<technique>`` section (name -> path) as absolute paths (:func:`repo_path`)."""
    return {str(k): repo_path(str(v)) for k, v in section.items()}


EXP_TMP_PARTS = (".dvc", "tmp", "exps")
EXP_COPY_PARENTS = ((), ("standalone",))  # under EXP_TMP_PARTS: the queue's copies, and ``--temp``'s


def main_workspace(root: Path) -> Path:
    """The main checkout of ``root``: ``root`` itself, or, when ``root`` is one of the copies DVC runs
    queued and ``--temp`` experiments in (``<main>/.dvc/tmp/exps/<name>/``), ``<main>``. DVC sets
    ``$DVC_ROOT`` to the main repository there; a copy is also recognised by its path."""
    env = os.environ.get("DVC_ROOT")
    if env and Path(env).is_dir():
        return Path(env).resolve()
    parts = root.resolve().parts
    for i in range(len(parts) - len(EXP_TMP_PARTS)):
        if parts[i:i + len(EXP_TMP_PARTS)] == EXP_TMP_PARTS:
            return Path(*parts[:i])
    return root


def expose_to_experiment_copies(root: Path, inputs: list[str]) -> list[Path]:
    """Make inputs that lie outside the repository reachable from DVC's experiment copies.

    DVC runs a queued (``dvc exp run --queue`` + ``dvc queue start``) experiment in a copy at
    ``<main>/.dvc/tmp/exps/<name>/`` (``--temp``: ``.dvc/tmp/exps/standalone/<name>/``), where a dependency
    written relative to the repository but outside it, such as the mirror ``../shared/data``, resolves to
    ``<main>/.dvc/tmp/exps/shared/data``. For each such relative path this links its first folder there
    (``.dvc/tmp/exps/shared`` -> ``<main>/../shared``, and the same under ``standalone/``), so every copy
    reads the same data under the same relative path (and
    ``params.yaml``/``dvc.lock`` keep the relative path). Paths inside the repository, absolute paths,
    missing targets and places already taken by something else are left alone. Returns the links made."""
    main = main_workspace(root)
    if not (main / ".dvc").is_dir():
        return []
    made = []
    for raw in dict.fromkeys(inputs):
        rel = Path(raw)
        ups = 0
        for part in rel.parts:
            if part != "..":
                break
            ups += 1
        if rel.is_absolute() or ups == 0 or ups == len(rel.parts):
            continue
        up, first = Path(*rel.parts[:ups]), rel.parts[ups]
        target = Path(os.path.normpath(main / up / first))
        if not target.exists():
            continue
        for parent in EXP_COPY_PARENTS:
            link = Path(os.path.normpath(main.joinpath(*EXP_TMP_PARTS, *parent, "copy") / up / first))
            if not link.is_relative_to(main / ".dvc") or link.is_symlink() or link.exists():
                continue  # outside .dvc, made before, or the user's own folder: leave it
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(target, target_is_directory=True)
            made.append(link)
    return made


def cache_dir() -> Path:
    """``$LINGTEST_CACHE`` or ``~/.cache/lingtest``: model copies, parse caches, NLTK data."""
    env = os.environ.get("LINGTEST_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "lingtest"


def nltk_data_dir() -> Path:
    """``$NLTK_DATA`` (first entry) or ``<cache>/nltk_data``."""
    env = os.environ.get("NLTK_DATA")
    if env:
        return Path(env.split(os.pathsep)[0]).expanduser()
    return cache_dir() / "nltk_data"


def mirror_root(configured: str | os.PathLike[str] | None = None) -> Path | None:
    """The offline dataset mirror: ``$LINGTEST_MIRROR`` (it wins over any configured folder),
    ``configured`` (``profile.mirror``) or ``../shared/data`` beside the project root; ``None`` when
    none exists."""
    for cand in (os.environ.get("LINGTEST_MIRROR"), configured, project_root().parent / "shared" / "data"):
        if cand and Path(cand).expanduser().is_dir():
            return Path(cand).expanduser().resolve()
    return None
