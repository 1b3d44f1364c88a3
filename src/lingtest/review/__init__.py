"""Human review of generated test cases: is a case well-formed, is its expected label or relation right,
is it relevant to its capability.

Every technique behind lingtest measures the validity of what it generates by hand (S2LCT: label
consistency, expansion validity and capability relevance on sampled cases; TIN: precision by manual
inspection; CREST: naturalness). This package draws a seeded sample of a suite's cases
(:mod:`.sampling`), shows each case with its edit highlighted (:mod:`.views`, in the terminal
:mod:`.terminal` or as a local HTML form :mod:`.page`), stores the judgements beside the suite in
``reviews/<suite>@<version or sha16>/labels.jsonl`` (:mod:`.labels`) and summarises them as rates
with Wilson 95% intervals (:mod:`.stats`, :func:`review_rates`). :mod:`.session` ties them to a
loaded suite; ``lingtest review`` is the command. The unit judged is a test case, or a unit a technique
registers through the ``lingtest.review_units`` entry points (:mod:`.units`), such as S2LCT's ``--unit
expansion``: a distinct expanded sentence of its suite against its seed sentence."""

from __future__ import annotations

from lingtest.lazy import lazy_exports

_LAZY = {
    "review_rates": ("lingtest.review.stats", "review_rates"),
    "sample_cases": ("lingtest.review.sampling", "sample_cases"),
    "wilson_interval": ("lingtest.review.stats", "wilson_interval"),
    "Judgement": ("lingtest.review.labels", "Judgement"),
    "open_review": ("lingtest.review.session", "open_review"),
}
__all__ = sorted(_LAZY)

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
