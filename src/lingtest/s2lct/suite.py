"""S2LCT test cases as :class:`~lingtest.data.model.TestCase` records, and the baselines mapped to
the same capabilities (CheckList's released sentiment suite, HateCheck).

A case: ``technique`` ``s2lct``, ``relation`` ``seed`` / ``exp`` / ``baseline``, ``source``
``{"text": ...}``, ``expected`` ``{"name": "s2lct-label", "labels": [...]}``; ``meta`` holds the
suite, capability, rule, kind, the found sentence (``sent``) and, for an expansion, its seed case
(``parent``), the masked sentence and the fills.

:func:`in_capability_order` orders a suite's cases (seeds, then expansions, each by capability),
:func:`capability_counts` counts them per capability, :func:`suite_texts` reads the distinct texts of a
suite (or corpus) file back.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from lingtest.data.io import read_header, read_jsonl
from lingtest.data.model import Document, Provenance, TestCase, stable_id
from lingtest.errors import InputError
from lingtest.s2lct.evaluate import EXPECTATION
from lingtest.s2lct.seeds import GenCase
from lingtest.s2lct.spec import SuiteSpec

__all__ = ["baseline_cases", "capability_counts", "in_capability_order", "suite_texts", "to_test_case"]

_HATECHECK = {"hateful": "hate", "non-hateful": "non-hate"}


def to_test_case(c: GenCase) -> TestCase:
    meta: dict[str, Any] = {"suite": c.suite, "capability": c.capability, "rule": c.rule, "kind": c.kind,
                            "sent": c.sent}
    if c.parent is not None:
        meta["parent"] = c.parent
    meta.update(c.meta)
    return TestCase(technique="s2lct", relation=c.kind, source={"text": c.text}, followup=None,
                    expected={"name": EXPECTATION, "labels": list(c.expected)},
                    provenance=Provenance(seed_id=c.seed_id, transformation=f"s2lct:{c.capability}:{c.rule}:{c.kind}",
                                          params={"choice": list(c.choice)}),
                    meta=meta, id=c.id)


def _labels(v: Any) -> list[str]:
    return [v] if isinstance(v, str) else list(v)


def baseline_cases(suite: str, spec: SuiteSpec, records: Iterable[Any], *, dataset: str) -> list[TestCase]:
    """The baseline's cases of each capability's ``baseline.tests`` (CheckList test names or
    HateCheck functionalities), with the capability's expected label(s) (the baseline's own
    label when the capability gives none). Records are CheckList :class:`TestCase` or HateCheck
    :class:`~lingtest.data.model.Document` objects."""
    by_test: dict[str, str] = {}
    for cid, cap in spec.capabilities.items():
        if cap.baseline is None:
            continue
        for t in cap.baseline.tests:
            if t in by_test:
                raise InputError(f"baseline test {t!r} is mapped to both {by_test[t]} and {cid}",
                                 field=f"s2lct.suites.{suite}")
            by_test[t] = cid
    out: list[TestCase] = []
    seen_tests: set[str] = set()
    for r in records:
        text: Any
        own: Any
        if isinstance(r, TestCase):
            test = str(r.meta.get("test"))
            text = r.source.get("text") if isinstance(r.source, dict) else None
            own = r.expected
            rid = r.id
        else:  # a HateCheck document
            test = str(r.meta.get("functionality"))
            text = str(r.meta.get("text", "")).strip() or " ".join(t.text for s in r.sentences for t in s.tokens)
            own = _HATECHECK.get(str(r.label))
            rid = str(r.id)
        mapped = by_test.get(test)
        if mapped is None:
            continue
        cid = mapped
        seen_tests.add(test)
        cap = spec.capabilities[cid]
        assert cap.baseline is not None
        expected = cap.baseline.expected if cap.baseline.expected is not None else own
        if expected is None or not isinstance(text, str) or not text.strip():
            raise InputError(f"{dataset} case {rid} of {test!r} has no text or no label; give "
                             f"baseline.expected for {cid}", field=f"s2lct.suites.{suite}.capabilities.{cid}")
        out.append(TestCase(technique="s2lct", relation="baseline", source={"text": text}, followup=None,
                            expected={"name": EXPECTATION, "labels": _labels(expected)},
                            provenance=Provenance(seed_id=rid, transformation=f"{dataset}:{test}"),
                            meta={"suite": suite, "capability": cid, "kind": "baseline", "test": test},
                            id=stable_id("s2lct-baseline", suite, cid, rid)))
    missing = sorted(set(by_test) - seen_tests)
    if missing:
        raise InputError(f"baseline test(s) {missing} not found in {dataset}", field=f"s2lct.suites.{suite}")
    return out


def texts(cases: Sequence[TestCase]) -> list[str]:
    return [str(c.source["text"]) for c in cases]


def in_capability_order(spec: SuiteSpec, seeds: Sequence[GenCase], exps: Sequence[GenCase]) -> list[GenCase]:
    """The suite's cases: the seed cases, then the expansion cases, each sorted (stably) by the order of
    their capability in the spec."""
    order = {cid: i for i, cid in enumerate(spec.capabilities)}
    return sorted(seeds, key=lambda x: order[x.capability]) + sorted(exps, key=lambda x: order[x.capability])


def capability_counts(spec: SuiteSpec, cases: Iterable[GenCase],
                      baseline: Iterable[TestCase]) -> dict[str, dict[str, int]]:
    """Per capability of the spec (in spec order): its seed cases, expansion cases and baseline cases."""
    per_cap: dict[str, dict[str, int]] = {cid: {"seeds": 0, "exps": 0, "baseline": 0} for cid in spec.capabilities}
    for g in cases:
        per_cap[g.capability]["seeds" if g.kind == "seed" else "exps"] += 1
    for b in baseline:
        per_cap[str(b.meta["capability"])]["baseline"] += 1
    return per_cap


def _record(d: dict[str, Any]) -> TestCase | Document:
    if "source" in d:
        return TestCase.from_dict(d)
    if "sentences" in d:
        return Document.from_dict(d)
    raise ValueError("expected a test case (with 'source') or a document (with 'sentences')")


def suite_texts(path: str | Path) -> list[str]:
    """The distinct texts of a suite or corpus file (test cases or documents, e.g. a prepared CheckList
    or HateCheck split), in file order: for a test case the ``text`` and ``texts`` of its source and
    follow-up payloads, for a document its words joined by spaces."""
    path = Path(path)
    read_header(path)  # a lingtest JSONL file
    seen: dict[str, None] = {}
    for record in read_jsonl(path, _record):
        if isinstance(record, Document):
            texts = [" ".join(record.words)]
        else:
            texts = []
            for payload in (record.source, record.followup or {}):
                if isinstance(payload.get("text"), str):
                    texts.append(payload["text"])
                if isinstance(payload.get("texts"), list):
                    texts += [t for t in payload["texts"] if isinstance(t, str)]
        for t in texts:
            if t.strip():
                seen.setdefault(t, None)
    return list(seen)
