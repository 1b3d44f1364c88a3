"""Shared pytest fixtures: the data mirror (skips cleanly when absent) and fixture paths."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _mirror() -> Path | None:
    for cand in (os.environ.get("LINGTEST_MIRROR"), ROOT.parent / "shared" / "data"):
        if cand and Path(cand).is_dir():
            return Path(cand)
    return None


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    return FIXTURES


@pytest.fixture(scope="session")
def mirror() -> Path:
    """The offline dataset mirror (``../shared/data``); tests using it skip when it is absent."""
    m = _mirror()
    if m is None:
        pytest.skip("data mirror ../shared/data not present")
    return m


@pytest.fixture(scope="session", autouse=True)
def _nltk_data_env() -> None:
    """Point NLTK at lingtest's data directory unless the user set one."""
    if "NLTK_DATA" not in os.environ:
        from lingtest.paths import nltk_data_dir

        os.environ["NLTK_DATA"] = str(nltk_data_dir())
