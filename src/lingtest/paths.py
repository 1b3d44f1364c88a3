"""Where lingtest keeps caches and finds the offline data mirror. No global state: every
function reads the environment when called."""

from __future__ import annotations

import os
from pathlib import Path


def project_root() -> Path:
    """The repository root when running from a checkout (the folder holding ``dvc.yaml``),
    else the current directory."""
    here = Path.cwd().resolve()
    for p in (here, *here.parents):
        if (p / "dvc.yaml").exists() and (p / "pyproject.toml").exists():
            return p
    return here


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
