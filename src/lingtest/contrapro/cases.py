"""ContraPro examples (clean or attacked) as :class:`~lingtest.data.model.TestCase` records with the
``contrastive`` expectation, so that :func:`lingtest.suite.run.run_suite` scores them with any
contrastive system: the case passes when the reference outscores every variant."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from lingtest.contrapro.evaluate import original_id
from lingtest.contrapro.metadata import ante_distance, intrasegmental, ref_pronoun
from lingtest.data.model import ContrastiveExample, Provenance, TestCase

TECHNIQUE = "contrapro"
RELATION = "pronoun-choice"


def payload(ex: ContrastiveExample) -> dict[str, Any]:
    """What a contrastive system reads (:meth:`ContrastiveTask.from_payload`): no metadata."""
    return ContrastiveExample(
        ex.id, ex.src, ex.ref, list(ex.contrastive), ex.src_context, ex.ref_context
    ).to_dict()


def make_case(ex: ContrastiveExample, technique: str = TECHNIQUE) -> TestCase:
    rec = ex.meta.get("attack")
    attack = rec if isinstance(rec, Mapping) else None
    transformation = f"{attack['name']}/{attack['variant']}" if attack else "clean"
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
