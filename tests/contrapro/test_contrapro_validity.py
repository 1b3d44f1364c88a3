"""ContraPro validity: an attacked example keeps its original's gold when the antecedent is still there
(added to, extended, or replaced by the recorded synonym) and the reference pronoun has the
antecedent's gender among the same candidates."""

from __future__ import annotations

import dataclasses

from lingtest.contrapro.attack import Skip, edit_example
from lingtest.contrapro.cases import case_example, make_cases
from lingtest.contrapro.grading import grade
from lingtest.contrapro.phrase import RELEASE_VARIANTS, phrase_addition
from lingtest.contrapro.possessive import RELEASE_POS_PATTERNS, RELEASE_POSSESSORS, possessive_extension
from lingtest.contrapro.synonym import synonym_replacement
from lingtest.contrapro.validity import (
    attack_validity,
    candidate_slots,
    keeps_words,
    replaced_once,
    slot_genders,
)

TAGS = {"The curtain": [("The", "DT"), ("curtain", "NN")], "a car": [("a", "DT"), ("car", "NN")]}


def possessive(ex, name="woman"):
    return possessive_extension(ex, RELEASE_POSSESSORS[name], lambda p: TAGS[p], patterns=RELEASE_POS_PATTERNS,
                                distances=[0, 1])


def synonym(ex, lexicon):
    out = synonym_replacement(ex, lexicon, sources=["openthesaurus"], require_translation=True, distances=[0, 1])
    assert not isinstance(out, Skip), out
    return out


def check(original, attacked, attack):
    return attack_validity(original, attacked, attack, attacked.meta["attack"])


def test_the_attacks_as_made_keep_the_gold(examples, lexicon):
    for ex in examples:
        assert check(ex, phrase_addition(ex, RELEASE_VARIANTS["he_said"]), "phrase").valid
    assert check(examples[0], possessive(examples[0]), "possessive").valid  # antecedent in the context
    assert check(examples[1], possessive(examples[1], "man"), "possessive").valid  # in the sentence
    assert check(examples[0], synonym(examples[0], lexicon), "synonym").valid  # reference switched to "Sie"
    assert check(examples[1], synonym(examples[1], lexicon), "synonym").valid  # every candidate edited


def test_a_phrase_that_replaces_the_context_loses_the_antecedent(examples):
    ex = examples[0]
    out = edit_example(ex, {"src_context": "It is true.", "ref_context": "Es ist wahr."}, "phrase", "x")
    # the metadata's antecedent head ("Vorhang") is gone from the German context too
    assert check(ex, out, "phrase").reasons == ("antecedent_edited", "antecedent_missing")


def test_a_changed_pronoun_or_an_unrecorded_edit(examples):
    ex = examples[1]  # "... und es war billig." with variants er / sie
    out = phrase_addition(ex, RELEASE_VARIANTS["true"])
    swapped = dataclasses.replace(out, ref=out.contrastive[0], contrastive=[out.ref, out.contrastive[1]])
    assert set(check(ex, swapped, "phrase").reasons) == {"unrecorded_edit", "pronoun_changed"}
    other = edit_example(ex, {"ref": ex.ref.replace("es war", "er war")}, "phrase", "x")
    assert "pronoun_changed" in check(ex, other, "phrase").reasons


def test_a_possessive_that_drops_the_head_or_edits_elsewhere(examples):
    ex = examples[1]
    out = possessive(ex, "man")
    rec = dict(out.meta["attack"])
    rec["phrase"] = {"en": ["a car", "the man's car"], "de": ["ein Auto", "den Wagen vom Mann"]}  # head lost
    assert attack_validity(ex, out, "possessive", rec).reasons == ("antecedent_edited",)


def test_a_synonym_whose_reference_has_the_wrong_gender(examples, lexicon):
    ex = examples[0]
    out = synonym(ex, lexicon)
    rec = {**out.meta["attack"], "synonym": {**out.meta["attack"]["synonym"], "new_gender": "n"}}
    assert attack_validity(ex, out, "synonym", rec).reasons == ("reference_gender_mismatch",)
    unswapped = dataclasses.replace(out, ref=ex.ref, contrastive=list(ex.contrastive))  # reference not switched
    assert {"unrecorded_edit", "pronoun_changed", "reference_gender_mismatch"} <= set(
        check(ex, unswapped, "synonym").reasons)


def test_the_antecedent_head_must_be_where_the_metadata_says(examples):
    ex = examples[0]  # distance 1: the head is in the German context
    out = phrase_addition(ex, RELEASE_VARIANTS["true"])
    assert check(ex, dataclasses.replace(out, meta={**out.meta, "ref ante head": "Vorhang"}), "phrase").valid
    moved = dataclasses.replace(out, meta={**out.meta, "ref ante head": "Gardine"})
    assert check(ex, moved, "phrase").reasons == ("antecedent_missing",)


def test_the_cases_of_the_suite_are_checked_against_their_clean_cases(examples, lexicon):
    attacked = [synonym(examples[0], lexicon), possessive(examples[1], "man")]
    cases = make_cases(examples) + make_cases(attacked)
    by_id = {c.provenance.seed_id: case_example(c) for c in cases if c.provenance.transformation == "clean"}
    for case in cases[len(examples):]:
        name = case.provenance.transformation.split("/")[0]
        assert attack_validity(by_id[case.provenance.seed_id], case_example(case), name, case.provenance.params).valid
    good, bad = [-1.0, -2.0, -3.0], [-3.0, -2.0, -1.0]
    res = grade(cases, [good] * len(examples) + [bad, good])  # the synonym attack broke example 0
    syn = res["attacks"]["synonym"]
    assert (syn["validity"], syn["validity_valid"], syn["validity_total"]) == (1.0, 1, 1)
    assert (syn["broken"], syn["broken_invalid"], syn["precision_validity_adjusted"]) == (1, 0, 1.0)
    assert res["deltas"]["possessive/man"]["precision_validity_adjusted"] is None  # nothing broken


def test_helpers():
    assert keeps_words("The dog ran.", "It is true: the dog ran!") and not keeps_words("The dog ran.", "It ran.")
    assert replaced_once("Der Tod kommt.", "der Tod von Maria kommt.", "der Tod", "der Tod von Maria")
    assert replaced_once("the crystals and the crystal", "the crystals and my crystal", "the crystal", "my crystal")
    assert not replaced_once("the crystal", "the crystal", "the crystal", "my crystal")
    assert slot_genders(("ihn", "er")) == {"m"} and slot_genders(("ihm",)) == {"m", "n"} and slot_genders(()) == set()
    ex = dataclasses.replace(phrase_addition_example(), ref="Er geht.", contrastive=["Sie geht.", "Es geht."])
    assert candidate_slots(ex) == [("er",), ("sie",), ("es",)]
    assert candidate_slots(dataclasses.replace(ex, contrastive=["Sie geht schnell.", "Es geht."])) is None


def phrase_addition_example():
    from lingtest.data.model import ContrastiveExample

    return ContrastiveExample("x", "It goes.", "Er geht.", ["Sie geht.", "Es geht."])
