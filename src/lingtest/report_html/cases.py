"""One test case as the report shows it (:class:`CaseView`): its inputs by side in the task's JSON form
(what a system reads: a text, a token list, a document of token lists, a contrastive query), the
system's prediction by side (what it wrote: ``{"label", "probs"}``, ``[start, end, label]`` entities,
clusters of ``[start, end]`` mentions, candidate scores), the expectation, the verdict and the gold
where the suite records it. Made from a line of a ``lingtest run`` folder's ``results.jsonl``
(:func:`view_from_run_record`) or from a pipeline result record joined with its suite case
(:func:`view_from_pipeline`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

#: the two sides of a case, in display order
SIDES = ("source", "followup")
#: what a technique calls the two sides (default: source and follow-up)
SIDE_TITLES: dict[str, tuple[str, str]] = {"adversarial": ("original", "perturbed"), "tin": ("source", "mutant")}
#: where a suite case records the gold output of each side, per task
GOLD_KEYS: dict[str, tuple[str, str]] = {"ner": ("gold", "followup_gold"),
                                         "coref": ("gold_clusters", "followup_gold_clusters")}


@dataclass
class CaseView:
    """One case of one system, ready to show. ``inputs``: side -> the task's JSON form of its input
    (``None``: absent, ``missing`` says why); ``prediction``: side -> the system's output in the task's
    JSON form; ``gold``: side -> the gold output where the suite records it; ``note``: why the case's
    texts cannot be shown at all (empty when they can)."""

    id: str
    task: str
    technique: str
    system: str
    group: str
    expectation: str
    passed: bool
    expected: Any
    inputs: dict[str, Any]
    prediction: dict[str, Any]
    details: dict[str, Any] = field(default_factory=dict)
    gold: dict[str, Any] = field(default_factory=dict)
    missing: dict[str, str] = field(default_factory=dict)
    note: str = ""

    @property
    def outcome(self) -> str:
        return "pass" if self.passed else "fail"

    def sides(self) -> list[str]:
        """The sides the case has an input, a prediction or a reason for, in display order."""
        have = set(self.inputs) | set(self.prediction) | set(self.missing)
        return [s for s in SIDES if s in have] + sorted(have - set(SIDES))

    def side_title(self, side: str) -> str:
        titles = SIDE_TITLES.get(self.technique, ("source", "follow-up"))
        return {"source": titles[0], "followup": titles[1]}.get(side, side)


def input_text(task: str, data: Any) -> str:
    """A plain text of one input in the task's JSON form ("" when it is absent or of another form)."""
    if data is None:
        return ""
    if task == "classification" and isinstance(data, str):
        return data
    if task == "ner" and isinstance(data, list):
        return " ".join(str(t) for t in data)
    if task == "coref" and isinstance(data, Mapping) and isinstance(data.get("sentences"), list):
        return "\n".join(" ".join(str(t) for t in s) if isinstance(s, list) else str(s) for s in data["sentences"])
    if task == "contrastive" and isinstance(data, Mapping):
        return str(data.get("source", ""))
    if isinstance(data, str):
        return data
    return ""


def case_text(view: CaseView) -> str:
    """The case's first readable text (the source's, else the follow-up's)."""
    for side in view.sides():
        text = input_text(view.task, view.inputs.get(side))
        if text:
            return text
    return ""


def _dict(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


def view_from_run_record(record: Mapping[str, Any], *, task: str, technique: str, system: str) -> CaseView:
    """A line of ``results.jsonl`` (``id``, ``group``, ``expectation``, ``inputs``, ``expected``,
    ``prediction``, ``passed``, ``details``)."""
    inputs = _dict(record.get("inputs"))
    prediction = _dict(record.get("prediction"))
    missing = {side: f"the {side} input could not be read as a {task} input when the run was made"
               for side, v in inputs.items() if v is None}
    for side in inputs:
        if side not in prediction and side not in missing:
            missing[side] = f"the run recorded no prediction for the {side}"
    return CaseView(id=str(record.get("id", "")), task=task, technique=technique, system=system,
                    group=str(record.get("group") or "-"), expectation=str(record.get("expectation", "")),
                    passed=bool(record.get("passed")), expected=record.get("expected"), inputs=inputs,
                    prediction=prediction, details=_dict(record.get("details")), missing=missing)


def document_words(payload: Mapping[str, Any]) -> list[list[str]] | None:
    """The words of a document payload (``{"sentences": [{"tokens": [{"text": ...}, ...]}, ...]}``) by
    sentence; ``None`` for any other shape."""
    sentences = payload.get("sentences")
    if not isinstance(sentences, list) or not sentences:
        return None
    out = []
    for s in sentences:
        tokens = s.get("tokens") if isinstance(s, Mapping) else None
        if not isinstance(tokens, list) or not all(isinstance(t, Mapping) and isinstance(t.get("text"), str)
                                                   for t in tokens):
            return None
        out.append([str(t["text"]) for t in tokens])
    return out


def encode_side(task_name: str, payload: Any) -> tuple[Any, str]:
    """(the task's JSON form of a suite payload, "") or (None, why it cannot be shown)."""
    from lingtest.errors import InputError
    from lingtest.systems.tasks import get_task

    if payload is None:
        return None, "the suite case has no payload for this side"
    if not isinstance(payload, Mapping):
        return None, f"the suite payload is a {type(payload).__name__}, not an object"
    if task_name == "coref":
        words = document_words(payload)
        if words is not None:  # a document of tokens: its words, without decoding every annotation
            return {"id": str(payload.get("id", "")), "sentences": words}, ""
    try:
        task = get_task(task_name)
        return task.encode_input(task.from_payload(dict(payload))), ""
    except (InputError, KeyError, TypeError, ValueError, AttributeError) as exc:
        return None, f"the suite payload cannot be read as a {task_name} input ({type(exc).__name__}: {exc})"


def case_needs(case: Any) -> list[str]:
    """The sides a suite case's expectation predicts (the source only when it cannot be read)."""
    from lingtest.errors import InputError
    from lingtest.suite.expectations import parse_expectation

    try:
        return list(parse_expectation(case.expected, where=f"{case.id}.expected").needs)
    except (InputError, KeyError, TypeError, ValueError):
        return ["source"]


def view_from_pipeline(result: Mapping[str, Any], case: Any, *, task: str, technique: str, group: str,
                       missing_case: str = "") -> CaseView:
    """A pipeline result record (``case_id``, ``system``, ``expectation``, ``passed``, ``predictions``,
    ``details``) joined with its suite case (a :class:`~lingtest.data.model.TestCase`, ``None`` when the
    suite does not hold it: ``missing_case`` says why)."""
    prediction = _dict(result.get("predictions"))
    inputs: dict[str, Any] = {}
    missing: dict[str, str] = {}
    gold: dict[str, Any] = {}
    note = ""
    if case is None:
        note = missing_case or "the case is not in the suite file"
        expected: Any = result.get("expectation")
    else:
        expected = case.expected
        for side in case_needs(case):
            value, why = encode_side(task, getattr(case, side, None))
            inputs[side] = value
            if why:
                missing[side] = why
            elif side not in prediction:
                missing[side] = f"the result records no prediction for the {side}"
        meta = case.meta if isinstance(case.meta, Mapping) else {}
        for side, key in zip(SIDES, GOLD_KEYS.get(task, ()), strict=False):
            if meta.get(key) is not None and side in inputs:
                gold[side] = meta[key]
    return CaseView(id=str(result.get("case_id", "")), task=task, technique=technique,
                    system=str(result.get("system", "")), group=group,
                    expectation=str(result.get("expectation", "")), passed=bool(result.get("passed", True)),
                    expected=expected, inputs=inputs, prediction=prediction, details=_dict(result.get("details")),
                    gold=gold, missing=missing, note=note)
