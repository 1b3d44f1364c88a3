"""Phrase addition (the nine release variants) and possessive extension (POS patterns, German
genitive / von-phrase / names, distance 0 and 1)."""

from __future__ import annotations

import pytest

from lingtest.contrapro.attack import Skip, run_attack
from lingtest.contrapro.phrase import (
    RELEASE_VARIANTS,
    PhraseVariant,
    add_phrase,
    phrase_addition,
    resolve_variants,
)
from lingtest.contrapro.possessive import (
    RELEASE_POS_PATTERNS,
    RELEASE_POSSESSORS,
    admitted,
    eligibility,
    parse_patterns,
    possessive_extension,
    resolve_possessors,
)
from lingtest.errors import ConfigError

EN, DE = "The Church is merciful...", "Die Kirche ist barmherzig..."
PHRASES = {
    "true_separate": ("The Church is merciful... It is true.", "Die Kirche ist barmherzig... Es ist wahr."),
    "and_it_true": (
        "The Church is merciful and it is true...",
        "Die Kirche ist barmherzig und es ist wahr...",
    ),
    "and_that_true": (
        "The Church is merciful and that is true...",
        "Die Kirche ist barmherzig und das ist wahr...",
    ),
    "true": ("It is true: The Church is merciful...", "Es ist wahr: Die Kirche ist barmherzig..."),
    "true_quot": ('It is true: "The Church is merciful..."', 'Es ist wahr: "Die Kirche ist barmherzig..."'),
    "he_said": ('He said: "The Church is merciful..."', 'Er sagte: "Die Kirche ist barmherzig..."'),
    "she_said": ('She said: "The Church is merciful..."', 'Sie sagte: "Die Kirche ist barmherzig..."'),
    "but_sure_sep": (
        "The Church is merciful... But he wasn't sure.",
        "Die Kirche ist barmherzig... Aber er war sich nicht sicher.",
    ),
    "but_sure": (
        "The Church is merciful but he wasn't sure...",
        "Die Kirche ist barmherzig, aber er war sich nicht sicher...",
    ),
}


def test_the_nine_release_variants():
    assert list(RELEASE_VARIANTS) == list(PHRASES)
    for name, (en, de) in PHRASES.items():
        v = RELEASE_VARIANTS[name]
        assert add_phrase(EN, v, "en") == en, name
        assert add_phrase(DE, v, "de") == de, name


def test_inline_phrase_goes_before_trailing_punctuation_and_quotes():
    v = RELEASE_VARIANTS["and_it_true"]
    assert add_phrase('"Sie wird dort sterben!"', v, "de") == '"Sie wird dort sterben und es ist wahr!"'
    assert add_phrase("Und dann", v, "de") == "Und dann und es ist wahr"
    assert add_phrase("Und dann", RELEASE_VARIANTS["true_separate"], "de") == "Und dann. Es ist wahr."


def test_phrase_addition_changes_only_the_contexts(examples):
    ex = examples[0]
    out = phrase_addition(ex, RELEASE_VARIANTS["he_said"])
    assert out.src_context == 'He said: "The curtain rises slowly."'
    assert out.ref_context == 'Er sagte: "Der Vorhang geht langsam hoch."'
    assert (out.src, out.ref, out.contrastive) == (ex.src, ex.ref, ex.contrastive)
    rec = out.meta["attack"]
    assert out.id == f"{ex.id}@phrase/he_said" and rec["changed"] is True
    assert [c["where"] for c in rec["changes"]] == ["src_context", "ref_context"]
    # no context: kept unchanged, and the record says so (the release does the same)
    empty = phrase_addition(examples[2], RELEASE_VARIANTS["he_said"])
    assert empty.src_context == "" and empty.meta["attack"]["changed"] is False
    outcome = run_attack(examples, "phrase", "true", lambda e: phrase_addition(e, RELEASE_VARIANTS["true"]))
    assert len(outcome.examples) == 4 and not outcome.skipped


def test_variant_config():
    custom = {"why": {"en": "Why?", "de": "Wieso?", "position": "prepend"}}
    got = resolve_variants(["why", "true"], custom)
    assert got[0] == PhraseVariant("why", "Why?", "Wieso?", "prepend") and got[1] is RELEASE_VARIANTS["true"]
    with pytest.raises(ConfigError, match="unknown phrase variant"):
        resolve_variants(["nope"])
    with pytest.raises(ConfigError, match="unknown key"):
        resolve_variants(["x"], {"x": {"en": "a", "de": "b", "position": "append", "colour": 1}})
    with pytest.raises(ConfigError, match="position"):
        PhraseVariant("x", "a", "b", "middle")  # type: ignore[arg-type]


# -- possessive extension -----------------------------------------------------------------------
TAGS = {
    "The curtain": [("The", "DT"), ("curtain", "NN")],
    "a car": [("a", "DT"), ("car", "NN")],
    "the box": [("the", "DT"), ("box", "NN")],
    "the table": [("the", "DT"), ("table", "NN")],
}


def tagger(phrase: str) -> list[tuple[str, str]]:
    return TAGS[phrase]


def _ext(ex, name):
    return possessive_extension(
        ex, RELEASE_POSSESSORS[name], tagger, patterns=RELEASE_POS_PATTERNS, distances=[0, 1]
    )


def test_pos_patterns():
    assert admitted(["DT", "NN"], RELEASE_POS_PATTERNS) and admitted(
        ["PRP$", "JJ", "NN"], RELEASE_POS_PATTERNS
    )
    assert not admitted(["DT", "NNS"], RELEASE_POS_PATTERNS) and not admitted(["NN"], RELEASE_POS_PATTERNS)
    assert not admitted(["DT", "JJ", "JJ", "NN"], RELEASE_POS_PATTERNS)
    assert parse_patterns(["DT NN", ["PRP$", "NN"]]) == (("DT", "NN"), ("PRP$", "NN"))
    assert len(RELEASE_POS_PATTERNS) == 7


def test_possessive_in_the_context_von_phrase_genitive_and_name(examples):
    ex = examples[0]  # "The curtain rises slowly." / "Der Vorhang geht langsam hoch." (distance 1)
    woman = _ext(ex, "woman")
    assert woman.src_context == "The woman's curtain rises slowly."
    assert woman.ref_context == "Der Vorhang von der Frau geht langsam hoch."
    assert (woman.src, woman.ref, woman.contrastive) == (
        ex.src,
        ex.ref,
        ex.contrastive,
    )  # reference unchanged
    assert woman.meta["attack"]["phrase"] == {
        "en": ["The curtain", "The woman's curtain"],
        "de": ["Der Vorhang", "Der Vorhang von der Frau"],
    }
    assert _ext(ex, "company").ref_context == "Der Vorhang des Unternehmens geht langsam hoch."
    maria = _ext(ex, "maria")
    assert (
        maria.src_context == "Maria's curtain rises slowly."
        and maria.ref_context == "Marias Vorhang geht langsam hoch."
    )
    assert _ext(ex, "mother").src_context == "My mother's curtain rises slowly."


def test_possessive_in_the_sentence_edits_source_and_every_candidate(examples):
    ex = examples[1]  # "I bought a car and it was cheap." / "ein Auto" (distance 0, neuter accusative)
    out = _ext(ex, "man")
    assert out.src == "I bought the man's car and it was cheap."
    assert out.ref == "Ich habe das Auto vom Mann gekauft und es war billig."
    assert out.contrastive == [
        "Ich habe das Auto vom Mann gekauft und er war billig.",
        "Ich habe das Auto vom Mann gekauft und sie war billig.",
    ]
    assert out.src_context == ex.src_context and out.ref_context == ex.ref_context
    assert out.meta["attack"]["case"] == "Acc"


def test_possessive_skips(examples):
    assert _ext(examples[2], "woman") == Skip(examples[2].id, "antecedent distance 5")
    ex = examples[0]
    ex.meta["src ante phrase"] = "the table"
    assert "English phrase not found" in _ext(ex, "woman").reason
    TAGS["curtains"] = [("curtains", "NNS")]
    ex.meta["src ante phrase"] = "curtains"
    assert "POS pattern not admitted: NNS" == _ext(ex, "woman").reason
    ex.meta["src ante phrase"] = "The curtain"
    ex.meta["ref ante phrase"] = "Der rote Vorhang"
    el = eligibility(ex, tagger, patterns=RELEASE_POS_PATTERNS, distances=[1])
    assert not el.ok and "3 words, English 2" in el.reason
    with pytest.raises(ConfigError, match="unknown possessor"):
        resolve_possessors(["nobody"])
    assert (
        resolve_possessors(["pet"], {"pet": {"en": "the pet's", "de": "vom Haustier"}})[0].de
        == "vom Haustier"
    )


@pytest.mark.models
def test_spacy_tagger_gives_ptb_tags():
    from lingtest.contrapro.possessive import spacy_tagger
    from lingtest.errors import MissingResourceError

    try:
        tag = spacy_tagger("en_core_web_sm")
    except MissingResourceError:
        pytest.skip("en_core_web_sm not installed")
    assert tag("the curtain") == [("the", "DT"), ("curtain", "NN")]
    assert [t for _, t in tag("her old car")] == ["PRP$", "JJ", "NN"]
