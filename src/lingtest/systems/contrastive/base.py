"""The contrastive-scoring task: a source sentence (with optional context) and candidate translations
in, one log-probability per candidate out. ContraPro-style: the reference is candidate 0."""

from __future__ import annotations

import math
from abc import abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

from lingtest.systems.base import System
from lingtest.systems.tasks import Task, bad, content_key


@dataclass(frozen=True, slots=True)
class ContrastiveQuery:
    """Score ``candidates`` (target sentences) as translations of ``source`` given the contexts."""

    source: str
    candidates: tuple[str, ...]
    source_context: str = ""
    target_context: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "candidates": list(self.candidates),
                "source_context": self.source_context, "target_context": self.target_context}


class ContrastiveScorer(System[ContrastiveQuery, list[float]]):
    """``predict(queries) -> log P(candidate | source, context)`` for each candidate of each query."""

    task: ClassVar[str] = "contrastive"
    name: str = "scorer"

    @abstractmethod
    def predict(self, inputs: list[ContrastiveQuery]) -> list[list[float]]:
        """One list of candidate log-probabilities per query, in candidate order."""


class ContrastiveTask(Task):
    name: ClassVar[str] = "contrastive"

    def key(self, item: ContrastiveQuery) -> str:
        return content_key("contrastive-input", item.to_dict())

    def encode_input(self, item: ContrastiveQuery) -> dict[str, Any]:
        return item.to_dict()

    def decode_input(self, data: Any, where: str = "input") -> ContrastiveQuery:
        if not isinstance(data, dict):
            raise bad(where, "expected {'source', 'candidates', 'source_context', 'target_context'}")
        src, cands = data.get("source"), data.get("candidates")
        if not isinstance(src, str) or not src.strip():
            raise bad(f"{where}.source", "expected a non-empty string")
        if not isinstance(cands, list) or len(cands) < 2 or not all(isinstance(c, str) and c for c in cands):
            raise bad(f"{where}.candidates", "expected at least two non-empty strings")
        ctx = {k: data.get(k, "") for k in ("source_context", "target_context")}
        for k, v in ctx.items():
            if not isinstance(v, str):
                raise bad(f"{where}.{k}", "expected a string")
        return ContrastiveQuery(src, tuple(cands), **ctx)

    def encode_output(self, output: list[float]) -> list[float]:
        return [float(x) for x in output]

    def decode_output(self, data: Any, where: str = "output") -> list[float]:
        if not isinstance(data, list) or not data:
            raise bad(where, "expected a list of log-probabilities")
        for i, v in enumerate(data):
            if not isinstance(v, int | float) or isinstance(v, bool) or math.isnan(v) or v > 1e-9:
                raise bad(f"{where}[{i}]", f"expected a log-probability (<= 0), got {v!r}")
        return [float(v) for v in data]

    def from_payload(self, payload: dict[str, Any]) -> ContrastiveQuery:
        if "candidates" in payload:
            return self.decode_input(payload, "payload")
        try:  # a ContrastiveExample: the reference first, then the contrastive variants
            return ContrastiveQuery(payload["src"], (payload["ref"], *payload["contrastive"]),
                                    payload.get("src_context", ""), payload.get("ref_context", ""))
        except (KeyError, TypeError) as exc:
            raise bad("payload", f"not a contrastive example: {exc}") from None
