"""Whether a ContraCAT example keeps its gold, checked against resources the templates do not use.

A template example's gold is the gender of the entity its label names, read off the template vocabulary.
:func:`example_reasons` gives the reasons an example does not keep that gold (none: valid):

* ``contrast_changed``: the three German candidates (masculine, feminine, neuter pronoun) do not differ in
  exactly one word, or two of them share that word;
* ``antecedent_missing``: the antecedent's German noun does not occur in the German context or sentence;
* ``gender_unattested``: German dictionaries (the Ding dictionary and Wiktionary's ``german-nouns``, the
  lexicon ContraPro's synonym attack reads) know the noun, and none gives it the gender the label claims.
  A noun they do not know is not judged.

Prior templates (no correct answer) are checked for their contrast only. The functions are pure; the
lexicon is passed in as ``attested``: noun -> the genders the dictionaries give it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from lingtest.contracat.evaluate import chosen_gender
from lingtest.contracat.generate import TemplateExample
from lingtest.data.model import TestCase
from lingtest.metrics.validity import Validity, adjusted_precision, validity_summary

__all__ = ["REASONS", "example_reasons", "example_validity", "run_validity", "unattested_nouns"]

#: every reason :func:`example_reasons` gives
REASONS = ("antecedent_missing", "contrast_changed", "gender_unattested")

Attested = Callable[[str], Collection[str]]


def _words(text: str) -> list[str]:
    return [w.strip(".,;:!?\"'()") for w in text.split()]


def example_reasons(ex: TemplateExample, attested: Attested) -> list[str]:
    """Why ``ex`` does not keep its gold (``[]``: it does); ``attested(noun)``: the genders German
    dictionaries give ``noun`` (empty: unknown)."""
    reasons = []
    toks = [c.split() for c in ex.de]
    if len({len(t) for t in toks}) != 1:
        reasons.append("contrast_changed")
    else:
        differ = [i for i in range(len(toks[0])) if len({t[i] for t in toks}) > 1]
        if len(differ) != 1 or len({t[differ[0]].lower() for t in toks}) != len(toks):
            reasons.append("contrast_changed")
    if ex.antecedent is not None:
        noun, gender = ex.antecedent
        words = _words(f"{ex.de_context} {ex.de[0]}")
        parts = noun.split()
        if not any(words[i:i + len(parts)] == parts for i in range(len(words))):
            reasons.append("antecedent_missing")
        known = attested(parts[-1])
        if known and gender not in known:
            reasons.append("gender_unattested")
    return reasons


def example_validity(ex: TemplateExample, attested: Attested) -> Validity:
    return Validity(tuple(example_reasons(ex, attested)))


def unattested_nouns(examples: Sequence[TemplateExample], attested: Attested) -> dict[str, dict[str, object]]:
    """German noun -> ``{"gender": claimed, "attested": [...], "examples": n}`` for every antecedent whose
    claimed gender the dictionaries do not give."""
    out: dict[str, dict[str, object]] = {}
    for ex in examples:
        if ex.antecedent is None:
            continue
        noun, gender = ex.antecedent
        known = attested(noun.split()[-1])
        if known and gender not in known:
            row = out.setdefault(noun, {"gender": gender, "attested": sorted(known), "examples": 0})
            row["examples"] = int(row["examples"]) + 1  # type: ignore[call-overload]
    return dict(sorted(out.items()))


def run_validity(cases: Sequence[TestCase], outputs: Sequence[Sequence[float]],
                 invalid: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    """The scored cases' validity (``invalid``: case id -> reasons, as the generate stage found them) and,
    for a system's candidate scores ``outputs``, its wrong choices on cases with a correct answer
    (``errors``) with ``precision_validity_adjusted``: the share of them on valid cases."""
    verdicts = [Validity.of(invalid.get(c.id, ())) for c in cases]
    issues = [(True, v.valid) for c, o, v in zip(cases, outputs, verdicts, strict=True)
              if not c.meta.get("prior") and chosen_gender(o) != c.meta["label"]]
    return {**validity_summary(verdicts, 4), "errors": len(issues), **adjusted_precision(issues, 4)}
