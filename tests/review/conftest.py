"""Every review test works in its own folder (the project root of ``reviews/``) with its own cache."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("LINGTEST_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("USER", "tester")
    monkeypatch.chdir(tmp_path)
