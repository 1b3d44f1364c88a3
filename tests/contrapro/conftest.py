"""Fixtures of the ContraPro tests: the small lexicon excerpts and the hand-made ContraPro files."""

from __future__ import annotations

import pytest

from lingtest.contrapro.lexicon import load_lexicon
from lingtest.contrapro.metadata import join_metadata
from lingtest.readers.options import configured

read_contrapro_grouped = configured("contrapro_grouped")
read_contrapro_json = configured("contrapro_json")


@pytest.fixture(scope="session")
def cp_dir(fixtures_dir):
    return fixtures_dir / "contrapro"


@pytest.fixture(scope="session")
def lexicon(cp_dir):
    return load_lexicon(
        openthesaurus=cp_dir / "openthesaurus.txt", ding=cp_dir / "de-en", german_nouns=cp_dir / "nouns.csv"
    )


@pytest.fixture()
def examples(cp_dir):
    """The four hand-made examples with contexts (grouped files) and metadata (JSON)."""
    grouped = list(read_contrapro_grouped(cp_dir))
    records = list(read_contrapro_json(cp_dir / "contrapro.json"))
    joined = join_metadata(grouped, records)
    assert not joined.unmatched
    return joined.examples
