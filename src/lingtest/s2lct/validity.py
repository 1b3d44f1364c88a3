"""S2LCT's validity, as the paper measures it: by people. No gold says whether an expanded sentence is a
sentence a person would write with its seed's label, so the rate comes from the committed review of the
suite's expanded sentences (``lingtest review SUITE --unit expansion``), when one exists for exactly this
suite (its release version, else its sha256).

:func:`review_judged` reads that review: expanded sentence id -> judged valid (well-formed and keeping the
seed's label, by every reviewer who answered both). :func:`expansion_validity` gives the validity of the
reviewed expanded sentences and, for a system's failures on expansion cases whose sentence was reviewed,
``precision_validity_adjusted``: the share of those failures on valid sentences, an estimate from the
reviewed sample (``issues_reviewed`` failures). Seeds are corpus sentences and are not judged here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lingtest.data.model import TestCase
from lingtest.metrics.validity import Validity, adjusted_precision, validity_summary

__all__ = ["REVIEWED_INVALID", "expansion_validity", "review_judged"]

#: the reason of an expanded sentence a reviewer judged not well-formed or not keeping its seed's label
REVIEWED_INVALID = "reviewed_invalid"
UNIT = "expansion"


def review_judged(root: Path, suite: str, version: str | None, sha256: str) -> tuple[str, dict[str, bool]] | None:
    """``(review name, {expanded sentence id: valid})`` of the review of ``suite``'s expanded sentences under
    ``root/reviews`` (``None``: none), read from its labels file."""
    from lingtest.review.labels import LABELS_FILE, latest, read_labels, review_name

    name = review_name(suite, version, sha256, UNIT)
    path = root / "reviews" / name / LABELS_FILE
    if not path.is_file():
        return None
    header, judgements = read_labels(path)
    if header.get("sha256") not in (None, sha256):
        return None
    judged: dict[str, bool] = {}
    for j in latest(judgements):
        if j.well_formed is None or j.label_correct is None:
            continue
        judged[j.id] = judged.get(j.id, True) and bool(j.well_formed and j.label_correct)
    return name, judged


def expansion_validity(cases: Sequence[TestCase], passed: Sequence[bool], unit_of: Mapping[str, str],
                       review: str, judged: Mapping[str, bool]) -> dict[str, Any]:
    """The reviewed expanded sentences' validity and the adjusted precision of the failures on expansion
    cases whose sentence was reviewed; ``unit_of``: expansion case id -> its expanded sentence's id."""
    units = sorted({u for u in unit_of.values() if u in judged})
    verdicts = [Validity(() if judged[u] else (REVIEWED_INVALID,)) for u in units]
    issues = [(True, judged[unit_of[c.id]]) for c, ok in zip(cases, passed, strict=True)
              if not ok and unit_of.get(c.id) in judged]
    return {"validity_source": "review", "review": review, **validity_summary(verdicts, 4),
            "issues_reviewed": len(issues), **adjusted_precision(issues, 4)}
