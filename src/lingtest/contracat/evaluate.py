"""Per-template scoring of ContraCAT, as the release's ``evaluate.py`` modes do, from one score per
candidate (m, f, n in that order; higher is better):

* ``standard``: the chosen gender (the best-scoring candidate) against the gold label - accuracy;
  for a prior template (no correct answer) the distribution of the chosen genders instead;
* ``gender``: accuracy by gold gender (m/f/n) and the distribution of chosen genders;
* ``order``: accuracy by the position of the antecedent in the context (first or second entity);
  for the position prior, how often the first, the second or neither entity's gender is chosen;
* ``grammatical_role``: for the role prior (``The cat ate the egg. It was big.``), how often the
  subject's, the object's or neither gender is chosen.

Pure functions over (records, scores); a record is the ``meta`` of a ContraCAT test case
(:func:`lingtest.contracat.cases.make_cases`): ``template``, ``label``, ``position``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from lingtest.contracat.vocabulary import GENDERS
from lingtest.errors import InputError

#: prior templates whose two-gender label is (subject, object) rather than (first, second)
ROLE_PRIORS = ("0_priors/role",)


def chosen_gender(scores: Sequence[float]) -> str:
    if len(scores) != 3:
        raise InputError(f"expected 3 scores (m, f, n), got {len(scores)}")
    return GENDERS[max(range(3), key=lambda i: (scores[i], -i))]


def _share(counter: Counter[str], keys: Sequence[str], total: int) -> dict[str, float | None]:
    return {k: round(counter[k] / total, 6) if total else None for k in keys}


def template_report(template: str, labels: Sequence[str], positions: Sequence[int | None],
                    scores: Sequence[Sequence[float]]) -> dict[str, Any]:
    """The evaluation of one template (see the module docstring)."""
    if not (len(labels) == len(positions) == len(scores)):
        raise InputError(f"template {template}: {len(labels)} labels, {len(positions)} positions, {len(scores)} scores")
    chosen = [chosen_gender(s) for s in scores]
    n = len(chosen)
    dist = Counter(chosen)
    out: dict[str, Any] = {"examples": n, "chosen": _share(dist, GENDERS, n)}
    gold = [lb in GENDERS for lb in labels]
    if all(gold):
        ok = [c == lb for c, lb in zip(chosen, labels, strict=True)]
        out["accuracy"] = round(sum(ok) / n, 6) if n else None
        by_gender: dict[str, Any] = {}
        for g in GENDERS:
            idx = [i for i, lb in enumerate(labels) if lb == g]
            if idx:
                by_gender[g] = {"total": len(idx), "accuracy": round(sum(ok[i] for i in idx) / len(idx), 6)}
        out["by_gender"] = by_gender
        by_pos: dict[str, Any] = {}
        for p in (1, 2):
            idx = [i for i, q in enumerate(positions) if q == p]
            if idx:
                by_pos[str(p)] = {"total": len(idx), "accuracy": round(sum(ok[i] for i in idx) / len(idx), 6)}
        if by_pos:
            out["by_position"] = by_pos
        return out
    if any(gold):
        raise InputError(f"template {template}: mixes gold labels and prior labels")
    out["prior"] = True
    pairs = [lb for lb in labels if len(lb) == 2]
    if pairs:
        if len(pairs) != n:
            raise InputError(f"template {template}: some prior labels are not two genders")
        names = ("subject", "object") if template in ROLE_PRIORS else ("first", "second")
        picked: Counter[str] = Counter()
        for c, lb in zip(chosen, labels, strict=True):
            picked[names[0] if c == lb[0] else names[1] if c == lb[1] else "neither"] += 1
        out["role" if template in ROLE_PRIORS else "order"] = _share(picked, (*names, "neither"), n)
    return out


def evaluate(records: Sequence[Mapping[str, Any]], scores: Sequence[Sequence[float]]) -> dict[str, Any]:
    """``{"templates": {name: template_report}, "groups": {...}}``; groups are the template's
    top two path levels (``2_coreference_step/overlap``) with the mean accuracy of their gold
    templates (the bars of Figures 4.2 and 4.4)."""
    if len(records) != len(scores):
        raise InputError(f"{len(scores)} score lists for {len(records)} records")
    by_t: dict[str, list[int]] = {}
    for i, r in enumerate(records):
        by_t.setdefault(str(r["template"]), []).append(i)
    templates = {
        t: template_report(t, [str(records[i]["label"]) for i in idx], [records[i].get("position") for i in idx],
                           [scores[i] for i in idx])
        for t, idx in by_t.items()
    }
    groups: dict[str, list[float]] = {}
    for t, rep in templates.items():
        if rep.get("accuracy") is not None:
            groups.setdefault(figure_group(t), []).append(rep["accuracy"])
    return {"templates": templates,
            "groups": {g: round(sum(v) / len(v), 6) for g, v in groups.items()}}


def figure_group(template: str) -> str:
    """The bar a template belongs to in Figures 4.2/4.4."""
    parts = template.split("/")
    if parts[0] == "2_coreference_step" and len(parts) > 1:
        return {"overlap": "Overlap", "world_knowledge": "World knowledge", "pleonastic": "Pleonastic",
                "event": "Event"}.get(parts[1], parts[1])
    return {"1_entity_step": "Markables", "3_gender_step": "Gender"}.get(parts[0], parts[0])
