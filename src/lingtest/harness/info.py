"""What a suite is, as a typed record: :class:`SuiteInfo`, and the JSON forms of each task."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

#: task -> (what a system reads, what it answers), in the JSON form of a function or HTTP system
#: (:class:`~lingtest.systems.tasks.Task` ``encode_input``/``decode_output``)
FORMS: dict[str, tuple[str, str]] = {
    "classification": ("a text: \"...\"",
                       "{label: probability, ...}: probabilities in [0, 1] over the suite's labels, "
                       "summing to 1"),
    "ner": ("a tokenised sentence: [\"token\", ...]",
            "[[start, end, label], ...]: token spans (end exclusive) in the system's own labels"),
    "coref": ("{\"id\": str, \"sentences\": [[\"token\", ...], ...]}",
              "[[[start, end], ...], ...]: clusters of document-level token spans (end exclusive)"),
    "contrastive": ("{\"source\": str, \"candidates\": [str, ...], \"source_context\": str, "
                    "\"target_context\": str}",
                    "[log-probability, ...]: one score (<= 0) per candidate, in candidate order"),
}


@dataclass(frozen=True)
class SuiteInfo:
    """A suite's identity and shape.

    ``sha256`` is the suite file's (for a release, the released JSONL's, which is the sha256 the
    release records); ``groups`` maps each group (see :mod:`lingtest.harness.loading` for how a case's
    group is read) to its case count, in the order groups first occur; ``group_rule`` says where the
    group was read (``meta.capability``, ``provenance.transformation``, ...); ``labels`` is the label
    set of a classification suite (outputs must stay inside it) or, for NER, the label scheme when the
    suite records one (informational: NER systems answer in their own labels); ``input_form`` and
    ``output_form`` describe the JSON a function or HTTP system gets and returns, ``example_input`` is
    the first case's first input in that form. ``kind`` is ``cases`` (the same cases for every system) or
    ``sources`` (a release of sources whose cases ``run`` generates from each system's own predictions,
    ``system_dependent``; ``cases`` then counts sources and ``generator`` names the technique's
    generator); ``text`` is ``withheld`` for a release whose corpus's licence keeps its text out, until
    ``lingtest release materialize`` fills it in (``materialized``)."""

    name: str
    version: str | None
    sha256: str
    path: str
    technique: str
    task: str
    cases: int
    groups: dict[str, int]
    group_rule: str
    labels: tuple[str, ...] | None
    expectations: dict[str, int]
    input_form: str
    output_form: str
    example_input: Any
    kind: str = "cases"
    system_dependent: bool = False
    generator: str | None = None
    text: str = "included"
    materialized: bool = True

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["labels"] = list(self.labels) if self.labels is not None else None
        return d
