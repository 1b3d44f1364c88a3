"""How a suite's task, a case's group and a suite's labels are derived (pure functions of the cases and
the suite header).

**Task.** The suite header's ``task`` when it records one; otherwise each case's: the task its
expectation fixes (``label``, ``direction``: classification; ``contrastive``: contrastive; ``oracle``,
``same-coreference``: coref; a technique's own ``<technique>-<name>``, e.g. ``tin-mr1``: that
technique's task, :data:`TECHNIQUE_TASKS`), else (a task-agnostic expectation such as ``invariance``)
the task of the case's technique, else the shape of its source payload (``candidates`` or
``src``/``ref``: contrastive; ``tokens``: ner; ``sentences``: coref; ``text``: classification). Every
case must give the same task.

**Group.** One rule per technique, :data:`GROUP_RULES`: S2LCT and CheckList cases by their
``meta.capability``, ContraCAT by ``meta.template``; every other technique (CREST's replacement source,
the adversarial scheme, TIN's transformation, ContraPro's attack) and a case without that meta key by
``provenance.transformation``.

**Labels.** Classification: the header's ``labels`` when recorded, else every label an expectation
names (``label``, ``labels``). NER: the header's ``label_scheme``/``labels``, else the labels of the
gold entities the cases record (``meta.gold``), else none.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from lingtest.data.model import TestCase
from lingtest.errors import InputError

#: expectations that fix the task of their system
EXPECTATION_TASKS: dict[str, str] = {"label": "classification", "direction": "classification",
                                     "contrastive": "contrastive", "oracle": "coref", "same-coreference": "coref"}
#: the task of each technique's suites (and of its own ``<technique>-<name>`` expectations)
TECHNIQUE_TASKS: dict[str, str] = {"crest": "coref", "adversarial": "coref", "tin": "ner", "contrapro": "contrastive",
                                   "contracat": "contrastive", "s2lct": "classification",
                                   "checklist": "classification"}
#: where a technique records a case's group (``meta.<key>``); others: ``provenance.transformation``
GROUP_RULES: dict[str, str] = {"s2lct": "meta.capability", "checklist": "meta.capability",
                               "contracat": "meta.template"}
TRANSFORMATION = "provenance.transformation"


def expectation_name(expected: Any) -> str:
    if isinstance(expected, Mapping):
        return str(expected.get("name", ""))
    return str(expected) if expected is not None else ""


def payload_task(payload: Any) -> str | None:
    """The task a source payload's shape belongs to (``None``: no telling)."""
    if not isinstance(payload, Mapping):
        return None
    if "candidates" in payload or ("src" in payload and "ref" in payload):
        return "contrastive"
    if isinstance(payload.get("tokens"), list):
        return "ner"
    if isinstance(payload.get("sentences"), list):
        return "coref"
    if isinstance(payload.get("text"), str):
        return "classification"
    return None


def case_task(case: TestCase) -> str | None:
    """The task of one case (see the module doc)."""
    name = expectation_name(case.expected)
    if name in EXPECTATION_TASKS:
        return EXPECTATION_TASKS[name]
    prefix = name.split("-", 1)[0] if "-" in name else ""
    if prefix in TECHNIQUE_TASKS:
        return TECHNIQUE_TASKS[prefix]
    if case.technique in TECHNIQUE_TASKS:
        return TECHNIQUE_TASKS[case.technique]
    return payload_task(case.source)


def suite_task(cases: Sequence[TestCase], header: Mapping[str, Any], where: str) -> str:
    from lingtest.systems.tasks import TASK_NAMES

    if header.get("task") is not None:
        task = str(header["task"])
        if task not in TASK_NAMES:
            raise InputError(f"unknown task {task!r}; tasks: {', '.join(TASK_NAMES)}", path=where, field="task")
        return task
    counts: Counter[str] = Counter()
    for c in cases:
        t = case_task(c)
        if t is None:
            raise InputError(f"cannot tell the task of case {c.id} (expectation {expectation_name(c.expected)!r}, "
                             f"technique {c.technique!r}): record 'task' in the suite header", path=where,
                             field="task")
        counts[t] += 1
    if len(counts) > 1:
        shown = ", ".join(f"{t} ({n} cases)" for t, n in counts.most_common())
        raise InputError(f"the cases are of several tasks: {shown}; a suite is run on one system", path=where,
                         field="task")
    return next(iter(counts))


def group_rule(technique: str) -> str:
    return GROUP_RULES.get(technique, TRANSFORMATION)


def group_of(case: TestCase) -> str:
    """The group of a case (see the module doc)."""
    rule = group_rule(case.technique)
    if rule.startswith("meta."):
        value = case.meta.get(rule[len("meta."):])
        if isinstance(value, str | int) and not isinstance(value, bool) and str(value):
            return str(value)
    return case.provenance.transformation


def suite_labels(cases: Sequence[TestCase], task: str, header: Mapping[str, Any]) -> tuple[str, ...] | None:
    """The label set of a classification suite, the recorded label scheme of an NER suite, else ``None``."""
    def strings(v: Any) -> list[str]:
        if isinstance(v, str):
            return [v]
        if isinstance(v, list | tuple):
            return [str(x) for x in v if isinstance(x, str)]
        return []

    if task == "classification":
        if header.get("labels"):
            return tuple(strings(header["labels"]))
        found: set[str] = set()
        for c in cases:
            if isinstance(c.expected, Mapping):
                found.update(strings(c.expected.get("labels")) + strings(c.expected.get("label")))
        return tuple(sorted(found)) or None
    if task == "ner":
        for key in ("label_scheme", "labels"):
            if header.get(key):
                return tuple(strings(header[key]))
        gold: set[str] = set()
        for c in cases:
            for key in ("gold", "followup_gold"):
                for e in c.meta.get(key) or []:
                    if isinstance(e, list | tuple) and len(e) == 3 and isinstance(e[2], str):
                        gold.add(e[2])
        return tuple(sorted(gold)) or None
    return None
