"""Session-scoped spaCy parser: the model is loaded once for all parsing tests."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def spacy_parser():
    pytest.importorskip("spacy")
    from lingtest.errors import MissingResourceError
    from lingtest.parsing.spacy_backend import SpacyParser

    try:
        return SpacyParser(model="en_core_web_sm", batch_size=64)
    except MissingResourceError as exc:
        pytest.skip(str(exc))
