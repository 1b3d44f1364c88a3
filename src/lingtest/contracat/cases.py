"""ContraCAT examples as :class:`~lingtest.data.model.TestCase` records with the ``contrastive``
expectation: the source payload holds the three candidates in m, f, n order, ``reference`` is the
index of the gold gender. A prior template has no correct answer: its cases name the masculine
candidate (index 0) by convention, carry ``meta.prior = true`` and are graded only as distributions
of the chosen genders (:mod:`lingtest.contracat.evaluate`)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from lingtest.contracat.generate import TemplateExample
from lingtest.contracat.vocabulary import GENDERS
from lingtest.data.model import Provenance, TestCase
from lingtest.errors import ConfigError

TECHNIQUE = "contracat"
RELATION = "pronoun-choice"


def make_case(template: str, index: int, ex: TemplateExample) -> TestCase:
    gold = ex.label in GENDERS
    meta: dict[str, Any] = {"template": template, "index": index, "label": ex.label, "prior": not gold}
    if ex.position is not None:
        meta["position"] = ex.position
    return TestCase(
        technique=TECHNIQUE,
        relation=RELATION,
        source={"source": ex.en, "candidates": list(ex.de), "source_context": ex.en_context,
                "target_context": ex.de_context},
        followup=None,
        expected={"name": "contrastive", "reference": GENDERS.index(ex.label) if gold else 0},
        provenance=Provenance(seed_id=f"{template}#{index}", transformation=template,
                              params=dict(ex.bindings)),
        meta=meta,
    )


def make_cases(template: str, examples: Sequence[TemplateExample], indices: Sequence[int]) -> list[TestCase]:
    return [make_case(template, i, examples[i]) for i in indices]


def sample_indices(n_total: int, n: int | None, seed: int, key: str) -> list[int]:
    """The indices of a template's examples the suite scores: ``n`` of ``n_total`` (all with ``None``),
    drawn with a generator seeded by ``seed`` and ``key`` (the template), in order."""
    if n is None or n >= n_total:
        return list(range(n_total))
    if n < 0:
        raise ConfigError(f"contracat.sample must be >= 0 or null, got {n}")
    return sorted(random.Random(f"{seed}:{key}").sample(range(n_total), n))
