"""ContraCAT validity: each example's contrast, antecedent and gold gender, the last against what German
dictionaries attest (:mod:`lingtest.contracat.validity`), on examples generated here and made by hand."""

from __future__ import annotations

from lingtest.contracat.cases import make_cases
from lingtest.contracat.definitions import RELEASE
from lingtest.contracat.generate import TemplateDef, TemplateExample, generate
from lingtest.contracat.validity import example_reasons, run_validity, unattested_nouns
from lingtest.contracat.vocabulary import parse_vocabulary

VOC = parse_vocabulary({
    "animal": {"dog": {"de": "Hund", "gender": "m"}, "cat": {"de": "Katze", "gender": "f"},
               "weasel": {"de": "Wiesel", "gender": "m"}},  # the release's vocabulary has it masculine
    "human": {"doctor": {"f": "Ärztin", "m": "Arzt"}},
    "animal_attribute": {"was hungry": "war hungrig"},
    "size_adjective": {"big": "groß"},
})
DICTIONARY = {"Hund": {"m"}, "Katze": {"f"}, "Wiesel": {"n"}, "See": {"m", "f"}}


def attested(noun):
    return frozenset(DICTIONARY.get(noun, ()))


def example(de, antecedent, label="m", context="Der Hund und die Katze waren hungrig."):
    return TemplateExample("The dog and the cat were hungry.", "It was hungrier.", context, de, label,
                           antecedent=antecedent)


def test_generated_examples_name_their_antecedent_and_only_a_wrong_gender_is_invalid():
    exs = generate(TemplateDef.from_dict("e", RELEASE["1_entity_step"]), VOC)
    assert all(e.antecedent is not None and e.antecedent[1] == e.label for e in exs)
    reasons = {e.antecedent[0]: example_reasons(e, attested) for e in exs}
    assert reasons["Hund"] == [] and reasons["Katze"] == [] and reasons["Wiesel"] == ["gender_unattested"]
    assert unattested_nouns(exs, attested) == {"Wiesel": {"gender": "m", "attested": ["n"],
                                                          "examples": sum(e.antecedent[0] == "Wiesel" for e in exs)}}
    priors = generate(TemplateDef.from_dict("p", RELEASE["0_priors/position"]), VOC)
    assert all(e.antecedent is None and example_reasons(e, attested) == [] for e in priors)


def test_contrast_antecedent_and_unknown_nouns():
    good = ("Aber er war hungriger.", "Aber sie war hungriger.", "Aber es war hungriger.")
    assert example_reasons(example(good, ("Hund", "m")), attested) == []
    assert example_reasons(example(good, ("Bär", "m")), attested) == ["antecedent_missing"]  # unknown: not judged
    assert example_reasons(example(good, ("See", "f"), context="Die See war hungrig."), attested) == []
    two_words = ("Aber er war hungriger.", "Aber sie ist hungriger.", "Aber es war hungriger.")
    same_word = ("Aber er war hungriger.", "Aber er war hungriger.", "Aber es war hungriger.")
    longer = ("Aber er war hungriger.", "Aber sie war viel hungriger.", "Aber es war hungriger.")
    for de in (two_words, same_word, longer):
        assert example_reasons(example(de, ("Hund", "m")), attested) == ["contrast_changed"]


def test_run_validity_counts_wrong_choices_on_gold_cases_by_validity():
    exs = generate(TemplateDef.from_dict("e", RELEASE["1_entity_step"]), VOC)
    cases = make_cases("e", exs, range(len(exs)))
    invalid = {c.id: example_reasons(e, attested) for c, e in zip(cases, exs, strict=True)
               if example_reasons(e, attested)}
    right = [[1.0 if g == e.label else 0.0 for g in "mfn"] for e in exs]
    wrong = [[0.0 if g == e.label else 1.0 for g in "mfn"] for e in exs]
    assert run_validity(cases, right, invalid)["errors"] == 0
    got = run_validity(cases, wrong, invalid)
    n_bad = len(invalid)
    assert (got["validity_valid"], got["validity_total"]) == (len(exs) - n_bad, len(exs))
    assert got["errors"] == len(exs) and got["issues_invalid"] == n_bad
    assert got["precision_validity_adjusted"] == round((len(exs) - n_bad) / len(exs), 4)
