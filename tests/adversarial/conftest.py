"""Shared fixtures: one WordNet-backed Lesk per session (its caches are costly to rebuild)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def lesk():
    from tests.fakes.conf_options import lesk_options

    from lingtest.adversarial.lesk import AdaptedLesk

    try:
        return AdaptedLesk(**lesk_options(window=3))
    except Exception as exc:  # MissingResourceError when WordNet is not installed
        pytest.skip(f"WordNet not available: {exc}")
