"""ContraPro examples (clean or attacked) as :class:`~lingtest.data.model.TestCase` records with the
``contrastive`` expectation, so that :func:`lingtest.suite.run.run_suite` scores them with any
contrastive system: the case passes when the reference outscores every variant; and back
(:func:`case_example`: the example a case scores, with what the breakdowns read)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from lingtest.contrapro.evaluate import original_id
from lingtest.contrapro.metadata import ante_distance, intrasegmental, ref_pronoun
from lingtest.data.model import ContrastiveExample, Provenance, TestCase

TECHNIQUE = "contrapro"
RELATION = "pronoun-choice"
#: the set of the unattacked examples (a case's ``provenance.transformation``)
CLEAN = "clean"


def set_name(attack: str, variant: str) -> str:
    """The set an attack variant's examples form: ``<attack>/<variant>`` (``clean`` for the clean set)."""
    return CLEAN if attack == CLEAN else f"{attack}/{variant}"


def payload(ex: ContrastiveExample) -> dict[str, Any]:
    """What a contrastive system reads (:meth:`ContrastiveTask.from_payload`): no metadata."""
    return ContrastiveExample(
        ex.id, ex.src, ex.ref, list(ex.contrastive), ex.src_context, ex.ref_context
    ).to_dict()


def make_case(ex: ContrastiveExample, technique: str = TECHNIQUE) -> TestCase:
    rec = ex.meta.get("attack")
    attack = rec if isinstance(rec, Mapping) else None
    transformation = f"{attack['name']}/{attack['variant']}" if attack else CLEAN
    params = (
        {k: v for k, v in attack.items() if k not in ("name", "variant", "original_id")} if attack else {}
    )
    meta = {
        "example_id": ex.id,
        "ref_pronoun": ref_pronoun(ex),
        "ante_distance": ante_distance(ex),
        "intrasegmental": intrasegmental(ex),
        "candidates": 1 + len(ex.contrastive),
    }
    return TestCase(
        technique=technique,
        relation=RELATION,
        source=payload(ex),
        followup=None,
        expected="contrastive",
        provenance=Provenance(seed_id=original_id(ex), transformation=transformation, params=params),
        meta={k: v for k, v in meta.items() if v is not None},
    )


def make_cases(examples: Iterable[ContrastiveExample], technique: str = TECHNIQUE) -> list[TestCase]:
    return [make_case(ex, technique) for ex in examples]


def case_example(case: TestCase) -> ContrastiveExample:
    """The example a case scores, with the metadata the breakdowns read (from ``case.meta``) and its
    original's id."""
    ex = ContrastiveExample.from_dict(case.source)
    m = case.meta
    meta: dict[str, Any] = {"ref_pronoun": m.get("ref_pronoun")}
    if "ante_distance" in m:
        meta["ante distance"] = m["ante_distance"]
    if "intrasegmental" in m:
        meta["intrasegmental"] = m["intrasegmental"]
    if case.provenance.transformation != CLEAN:
        meta["attack"] = {"original_id": case.provenance.seed_id}
    return ContrastiveExample(ex.id, ex.src, ex.ref, ex.contrastive, ex.src_context, ex.ref_context, meta)
