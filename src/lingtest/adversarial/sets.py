"""The adversarial sets and the test suite made of them: the perturber of each configured set, the test
case of one perturbed document and the change log it carries."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lingtest.adversarial.apply import Change, DocumentPerturber
from lingtest.adversarial.config import AdversarialConfig
from lingtest.adversarial.perturbations import group_of
from lingtest.data import Document, read_jsonl
from lingtest.data.model import Provenance, TestCase

#: the set of unperturbed documents, written beside the perturbed ones
CLEAN = "clean"
DOC_KIND = "document"
TECHNIQUE = "adversarial"
RELATION = "coreference-invariance"


def build_perturber(config: AdversarialConfig, set_name: str,
                    perturbations: Mapping[str, Any] | None = None) -> DocumentPerturber:
    """The perturber of one configured set (a scheme name or ``mixed``); ``perturbations``: scheme
    instances to reuse (one per scheme, so that Lesk caches serve every set)."""
    schemes: str | dict[str, float]
    if set_name == "mixed":
        schemes, retry = dict(config.mixed.schemes), config.mixed.retry
    else:
        schemes, retry = set_name, False
    names = [schemes] if isinstance(schemes, str) else list(schemes)
    shared = dict(perturbations or {})
    return DocumentPerturber(schemes=schemes, p=config.p, seed=config.seed,
                             name=set_name, consistency=config.consistency, retry=retry,
                             options={n: config.scheme_options(n) for n in names},
                             perturbations={n: shared[n] for n in names if n in shared})


def load_docs(path: Path) -> list[Document]:
    return list(read_jsonl(path, Document.from_dict))


def make_case(clean: Document, perturbed: Document, changes: list[Change], set_name: str,
              config: AdversarialConfig) -> TestCase:
    """The test case of one perturbed document: the same coreference as on the clean one, spans of
    the follow-up mapped back through the changed words."""
    reps = [[c.token, len(c.new)] for c in changes]
    return TestCase(
        technique=TECHNIQUE, relation=RELATION, source=clean.to_dict(), followup=perturbed.to_dict(),
        expected={"name": "invariance", "alignment": {"replacements": reps}},
        provenance=Provenance(seed_id=clean.key, transformation=set_name,
                              params={"p": config.p, "seed": config.seed, "consistency": config.consistency}),
        meta={"set": set_name, "group": group_of(set_name), "changes": [c.to_dict() for c in changes]},
    )


def case_changes(case: TestCase) -> list[Change]:
    return [Change.from_dict(c) for c in case.meta.get("changes", [])]


def read_suite(path: Path) -> list[TestCase]:
    return list(read_jsonl(path, TestCase.from_dict, kind="testcase"))
