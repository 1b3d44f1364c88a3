"""Expectations: what must hold of a system's outputs on a test case (a registry).

A case's ``expected`` is a name (``"invariance"``) or ``{"name": ..., **parameters}``. Each expectation
says which inputs the system must predict (the source, and the follow-up for relations) and checks the
outputs, with run options for what is a property of the run rather than of the case (an oracle's
thresholds). Built in:

* ``invariance``: the follow-up's output equals the source's (per task: same coreference clusters up
  to the token alignment, same entity set, same top label, same best candidate);
* ``label``: the source's top label is ``label`` or one of ``labels`` (CheckList's MFT);
* ``direction``: p(``label``) moves up (``increasing: true``) or down from source to follow-up, by at
  most ``tolerance`` against the expected way (CheckList's DIR, ``Expect.monotonic``);
* ``oracle``: the oracle ``oracle`` (:data:`~lingtest.suite.oracles.ORACLES`) finds the two outputs
  consistent; ``same-coreference`` is the same check with the alignment of a one-token replacement
  recorded in the case (CREST);
* ``contrastive``: candidate ``reference`` (default 0) scores strictly above every other candidate
  (ContraPro's evaluation).
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from lingtest.data.model import TestCase
from lingtest.errors import ConfigError, InputError
from lingtest.registry import Registry
from lingtest.systems.tasks import Task


@dataclass(slots=True)
class Verdict:
    passed: bool
    details: dict[str, Any] = field(default_factory=dict)


class Expectation(ABC):
    """One kind of expectation; instances carry a case's parameters."""

    name: ClassVar[str]
    #: which payloads of the case the system predicts, in this order
    needs: ClassVar[tuple[str, ...]] = ("source", "followup")
    #: the parameters a case may give (anything else is an error)
    accepts: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, **params: Any) -> None:
        unknown = sorted(set(params) - self.accepts)
        if unknown:
            raise TypeError(f"unknown parameter(s) {', '.join(unknown)}; accepted: {', '.join(sorted(self.accepts))}")
        self.params = params

    def inputs(self, case: TestCase, task: Task) -> list[Any]:
        out = []
        for side in self.needs:
            payload = getattr(case, side)
            if not isinstance(payload, dict):
                raise InputError(f"expectation {self.name!r} needs a {side} payload", field=f"{case.id}.{side}")
            out.append(task.from_payload(payload))
        return out

    @abstractmethod
    def check(self, case: TestCase, outputs: Sequence[Any], task: Task, options: Mapping[str, Any]) -> Verdict:
        """``outputs``: the system's outputs for :meth:`inputs`, in order."""


EXPECTATIONS: Registry = Registry("expectation")


def expectation(cls: type[Expectation]) -> type[Expectation]:
    EXPECTATIONS.register(cls.name, cls)
    return cls


def _load_technique(prefix: str) -> None:
    """A technique's own expectations are named ``<technique>-<name>`` (``tin-mr1``) and register when
    ``lingtest.<technique>`` is imported; imported here on first use. (Not a lazy registry entry, so
    that the import closure of a stage that never sees such cases does not include the technique.)"""
    import importlib

    if prefix.isidentifier():
        try:
            importlib.import_module(f"lingtest.{prefix}")
        except ModuleNotFoundError as exc:
            if exc.name != f"lingtest.{prefix}":
                raise


def parse_expectation(spec: Any, where: str = "expected") -> Expectation:
    """A case's ``expected`` value as an :class:`Expectation`."""
    if isinstance(spec, str):
        name, params = spec, {}
    elif isinstance(spec, dict) and isinstance(spec.get("name"), str):
        params = {k: v for k, v in spec.items() if k != "name"}
        name = spec["name"]
    else:
        raise InputError(f"expected an expectation name or {{'name': ..., ...}}, got {spec!r}", field=where)
    if name not in EXPECTATIONS and "-" in name:
        _load_technique(name.split("-", 1)[0])
    if name not in EXPECTATIONS:
        raise InputError(f"unknown expectation {name!r}; known: {', '.join(EXPECTATIONS.names())}", field=where)
    try:
        return EXPECTATIONS.get(name)(**params)
    except TypeError as exc:
        raise InputError(f"bad parameters for expectation {name!r}: {exc}", field=where) from None


# ---- helpers shared by the expectations ----------------------------------------------------------
def same_output(task: Task, a: Any, b: Any, alignment: Any = None) -> bool:
    """Task-level equality of two outputs (``alignment`` maps follow-up coreference spans back)."""
    if task.name == "coref":
        from lingtest.data.model import clusters_as_spans, non_singleton

        sa, sb = clusters_as_spans(a), clusters_as_spans(b)
        if alignment is not None:
            sb = alignment.clusters_to_source(sb)
        return non_singleton(sa) == non_singleton(sb)
    if task.name == "ner":
        return sorted(a) == sorted(b)
    if task.name == "classification":
        from lingtest.systems.classification.base import top_label

        return top_label(a) == top_label(b)
    if task.name == "contrastive":
        return max(range(len(a)), key=a.__getitem__) == max(range(len(b)), key=b.__getitem__)
    raise InputError(f"invariance is not defined for task {task.name!r}", field="expected")


def replacement_alignment(case: TestCase) -> Any:
    """The alignment of a one-position replacement recorded in ``case.meta`` (``position``,
    ``n_new_tokens``) over the source sentence."""
    from lingtest.data.align import Alignment

    m = case.meta
    try:
        n_source = sum(len(s["tokens"]) for s in case.source["sentences"])
        return Alignment(n_source, int(m["position"]), int(m.get("n_new_tokens", 1)))
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"case has no replacement alignment ({exc})", field=f"{case.id}.meta") from None


class _Identity:
    """The alignment of two outputs over the same tokens."""

    @staticmethod
    def clusters_to_source(clusters: Any) -> Any:
        return clusters


# ---- the built-in expectations ----------------------------------------------------------------------
def alignment_of(spec: Any, case: TestCase) -> Any:
    """``"replacement"`` (the one recorded in the case's meta), ``{"replacements": [[pos, n], ...]}``
    or nothing (the same tokens on both sides)."""
    from lingtest.suite.alignment import ReplacementAlignment

    if spec is None:
        return None
    if spec == "replacement":
        return replacement_alignment(case)
    if isinstance(spec, dict) and isinstance(spec.get("replacements"), list):
        try:
            return ReplacementAlignment.of(spec["replacements"])
        except (TypeError, ValueError) as exc:
            raise InputError(f"bad alignment: {exc}", field=f"{case.id}.expected.alignment") from None
    raise InputError(f"unknown alignment {spec!r}", field=f"{case.id}.expected.alignment")


@expectation
class Invariance(Expectation):
    """Same output on source and follow-up; ``alignment`` (see :func:`alignment_of`) maps follow-up
    token positions back to the source's for span outputs."""

    name = "invariance"
    accepts = frozenset({"alignment"})

    def check(self, case: TestCase, outputs: Sequence[Any], task: Task, options: Mapping[str, Any]) -> Verdict:
        return Verdict(same_output(task, outputs[0], outputs[1], alignment_of(self.params.get("alignment"), case)))


@expectation
class Label(Expectation):
    name = "label"
    needs = ("source",)
    accepts = frozenset({"label", "labels"})

    def check(self, case: TestCase, outputs: Sequence[Any], task: Task, options: Mapping[str, Any]) -> Verdict:
        from lingtest.systems.classification.base import top_label

        allowed = self.params.get("labels") or [self.params.get("label")]
        got = top_label(outputs[0])
        return Verdict(got in allowed, {"predicted": got, "expected": list(allowed)})


@expectation
class Direction(Expectation):
    name = "direction"
    accepts = frozenset({"label", "increasing", "tolerance"})

    def check(self, case: TestCase, outputs: Sequence[Any], task: Task, options: Mapping[str, Any]) -> Verdict:
        label = self.params["label"]
        tol = float(self.params.get("tolerance", 0.0))
        before, after = float(outputs[0].get(label, 0.0)), float(outputs[1].get(label, 0.0))
        delta = after - before
        ok = delta >= -tol if self.params.get("increasing", True) else delta <= tol
        return Verdict(ok, {"label": label, "delta": round(delta, 6)})


@expectation
class OracleConsistency(Expectation):
    name = "oracle"
    accepts = frozenset({"alignment", "oracle", "thr_p", "thr_r"})

    def alignment(self, case: TestCase) -> Any:
        return alignment_of(self.params.get("alignment"), case)

    def check(self, case: TestCase, outputs: Sequence[Any], task: Task, options: Mapping[str, Any]) -> Verdict:
        from lingtest.data.model import clusters_as_spans
        from lingtest.suite.oracles import ORACLES

        opts = {**dict(options.get("oracle") or {}), **{k: v for k, v in self.params.items() if k != "alignment"}}
        name = str(opts.pop("oracle", opts.pop("name", "blanc")))
        cls = ORACLES.get(name)
        missing = [n for n, p in inspect.signature(cls).parameters.items()
                   if p.kind is p.KEYWORD_ONLY and p.default is p.empty and n not in opts]
        if missing:  # oracles take required options: the values are the run's (crest.oracle in the config)
            raise ConfigError(f"oracle {name!r}: option(s) {', '.join(missing)} not given in the run options")
        oracle = cls(**opts)
        align = self.alignment(case) or _Identity()
        res = oracle.check(clusters_as_spans(outputs[0]), clusters_as_spans(outputs[1]), align)
        return Verdict(not res.issue, {"precision": round(res.precision, 6), "recall": round(res.recall, 6)})


@expectation
class SameCoreference(OracleConsistency):
    """CREST's relation: coreference consistent (by the configured oracle) under the one-token
    replacement recorded in the case."""

    name = "same-coreference"

    def alignment(self, case: TestCase) -> Any:
        return replacement_alignment(case)


@expectation
class Contrastive(Expectation):
    name = "contrastive"
    needs = ("source",)
    accepts = frozenset({"reference"})

    def check(self, case: TestCase, outputs: Sequence[Any], task: Task, options: Mapping[str, Any]) -> Verdict:
        scores = list(outputs[0])
        ref = int(self.params.get("reference", 0))
        best_other = max(s for i, s in enumerate(scores) if i != ref)
        return Verdict(scores[ref] > best_other, {"margin": round(scores[ref] - best_other, 6),
                                                  "chosen": max(range(len(scores)), key=scores.__getitem__)})

