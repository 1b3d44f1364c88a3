"""On the data mirror: the metadata join of ContraCAT's synonym subset onto the grouped ContraPro files,
phrase addition on all 12,000 examples, and the synonym attack with the real Debian/PyPI lexicons
(skipped when they are not installed). Invariants, not counts that a resource update could move."""

from __future__ import annotations

from pathlib import Path

import pytest

from lingtest.contrapro.attack import run_attack
from lingtest.contrapro.metadata import candidate_genders, join_metadata
from lingtest.contrapro.phrase import RELEASE_VARIANTS, phrase_addition
from lingtest.contrapro.synonym import synonym_replacement
from lingtest.readers.options import configured

read_contrapro_grouped = configured("contrapro_grouped")
read_contrapro_json = configured("contrapro_json")

pytestmark = [pytest.mark.e2e, pytest.mark.mirror]

OPENTHESAURUS = Path("/usr/share/openthesaurus-de/openthesaurus.txt")
DING = Path("/usr/share/trans/de-en")


@pytest.fixture(scope="module")
def contrapro(mirror):
    grouped = list(read_contrapro_grouped(mirror / "contrapro"))
    subset = list(read_contrapro_json(mirror / "contrapro" / "contrapro_synonym_subset.json"))
    return grouped, subset


def test_join_and_phrase_addition_on_the_mirror(contrapro):
    grouped, subset = contrapro
    assert len(grouped) == 12000
    joined = join_metadata(grouped, subset)
    assert len(joined.examples) + len(joined.unmatched) == len(subset)
    assert len(joined.unmatched) <= 2  # one subset line has mojibake the text files do not
    assert all(e.src_context is not None and "ante distance" in e.meta for e in joined.examples)
    out = run_attack(
        grouped, "phrase", "but_sure", lambda e: phrase_addition(e, RELEASE_VARIANTS["but_sure"])
    )
    assert len(out.examples) == 12000
    changed = [e for e in out.examples if e.meta["attack"]["changed"]]
    assert len(changed) > 10000
    assert all("aber er war sich nicht sicher" in e.ref_context for e in changed)


@pytest.mark.skipif(
    not (OPENTHESAURUS.is_file() and DING.is_file()),
    reason="apt-get install openthesaurus-de-text trans-de-en",
)
def test_synonym_attack_with_the_real_lexicons(contrapro):
    pytest.importorskip("german_nouns")
    from lingtest.contrapro.lexicon import load_lexicon

    grouped, subset = contrapro
    examples = join_metadata(grouped, subset).examples
    lexicon = load_lexicon(openthesaurus=OPENTHESAURUS, ding=DING, german_nouns=True)
    out = run_attack(
        examples,
        "synonym",
        "synonym",
        lambda e: synonym_replacement(
            e, lexicon, sources=["openthesaurus"], require_translation=True, distances=[0, 1]
        ),
    )
    assert len(out.examples) > 200
    by_id = {e.id: e for e in examples}
    for ex in out.examples:
        orig = by_id[ex.meta["attack"]["original_id"]]
        assert (ex.src, ex.src_context) == (orig.src, orig.src_context)  # English unchanged
        rec = ex.meta["attack"]
        assert rec["synonym"]["new_gender"] != rec["synonym"]["old_gender"]
        # the new reference is the original variant whose pronoun has the new gender
        long = {"m": "Masc", "f": "Fem", "n": "Neut"}[rec["synonym"]["new_gender"]]
        j = [e["replacement gender"] for e in orig.meta["errors"]].index(long)
        assert ex.meta["ref pronoun"] == orig.meta["errors"][j]["replacement"]
        assert (
            candidate_genders(ex)[j + 1] == rec["synonym"]["old_gender"]
        )  # the old reference took its place
        assert (
            sorted([ex.ref, *ex.contrastive]) != sorted([orig.ref, *orig.contrastive])
            or ex.ref_context != orig.ref_context
        )
