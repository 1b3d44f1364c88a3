"""Mutants as :class:`~lingtest.data.model.TestCase` records (and back).

A case's payloads are ``{"tokens": [...]}`` (what :class:`~lingtest.systems.ner.base.NERTask`
reads); ``expected`` is the relation (``"tin-mr1"``, ``"tin-mr2"`` with its ``restore`` list when
the structural rule changed a word's case, or ``"invariance"`` for the adversarial baseline);
``provenance`` holds the seed sentence, the transformation and what it changed. ``meta`` carries
what grading needs without re-running anything: the token alignment, the changed spans, the filter
scores, the system whose prediction chose the mutations and, when known, gold entities on both
sides (CoNLL labels; the follow-up's mapped through the alignment, ``null`` when a gold entity
does not survive the mutation).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lingtest.data.model import Entity, Provenance, TestCase
from lingtest.errors import InputError
from lingtest.tin.mutant import MR2, Mutant
from lingtest.tin.relations import parse_restore, restore_param
from lingtest.tin.spans import TokenMap
from lingtest.tin.text import detokenize

TECHNIQUE = "tin"


def _ents(entities: Sequence[Entity] | None) -> list[list[Any]] | None:
    return None if entities is None else [e.to_list() for e in sorted(entities)]


def mutant_case(m: Mutant, *, system: str | None = None, gold: Sequence[Entity] | None = None) -> TestCase:
    """The test case of one mutant; ``gold``: the source's gold entities, if any."""
    expected: Any = m.relation
    if m.relation == MR2 and m.restore:
        expected = {"name": MR2, "restore": restore_param(m.restore)}
    meta: dict[str, Any] = {
        "alignment": m.alignment.to_dict(),
        "source_text": detokenize(m.source),
        "followup_text": detokenize(m.tokens),
    }
    if m.changed is not None:
        meta["changed"] = list(m.changed)
        meta["changed_followup"] = list(m.changed_followup or m.changed)
    if m.restore:
        meta["restore"] = restore_param(m.restore)
    if m.scores:
        meta["scores"] = dict(sorted(m.scores.items()))
    if system is not None:
        meta["system"] = system
    if gold is not None:
        meta["gold"] = _ents(gold)
        meta["followup_gold"] = _ents(m.alignment.map_entities(gold))
    return TestCase(technique=TECHNIQUE, relation=m.relation, source={"tokens": list(m.source)},
                    followup={"tokens": list(m.tokens)}, expected=expected,
                    provenance=Provenance(m.seed_id, m.transformation, dict(m.params)), meta=meta)


def case_mutant(case: TestCase) -> Mutant:
    """The mutant a case was made from (as written by :func:`mutant_case`)."""
    where = f"{case.id}.meta"
    try:
        src, fu = list(case.source["tokens"]), list((case.followup or {})["tokens"])
        align = TokenMap.from_dict(case.meta["alignment"])
        changed = case.meta.get("changed")
        changed_fu = case.meta.get("changed_followup")
        m = Mutant(seed_id=case.provenance.seed_id, transformation=case.provenance.transformation,
                   relation=case.relation, source=src, tokens=fu, alignment=align,
                   params=dict(case.provenance.params),
                   changed=None if changed is None else (int(changed[0]), int(changed[1])),
                   changed_followup=None if changed_fu is None else (int(changed_fu[0]), int(changed_fu[1])),
                   restore=parse_restore(case.meta.get("restore"), f"{where}.restore"),
                   scores={k: float(v) for k, v in dict(case.meta.get("scores") or {}).items()})
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"not a TIN case: {exc}", field=where) from None
    return m


def case_gold(case: TestCase) -> tuple[list[Entity] | None, list[Entity] | None]:
    """``(source gold, follow-up gold)`` recorded in a case (``None`` when absent)."""
    def read(v: Any) -> list[Entity] | None:
        return None if v is None else [Entity(int(s), int(e), str(lab)) for s, e, lab in v]

    return read(case.meta.get("gold")), read(case.meta.get("followup_gold"))
