"""The text-classification task: texts in, a probability per label out.

An output is ``{label: probability}``: every probability in [0, 1] and their sum 1 within
:data:`SUM_TOLERANCE`. The codec checks both, so every system, cached prediction and predictions file
of the task is held to them; which labels are allowed is a suite's business
(:mod:`lingtest.harness.outputs`), since the task knows no label set.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from typing import Any, ClassVar

from lingtest.systems.base import System
from lingtest.systems.tasks import Task, bad, content_key

Probabilities = dict[str, float]
#: how far from 1 the probabilities of an output may sum (rounded outputs pass)
SUM_TOLERANCE = 0.01


class Classifier(System[str, Probabilities]):
    """``predict(texts) -> {label: probability}`` per text."""

    task: ClassVar[str] = "classification"
    name: str = "classifier"

    @abstractmethod
    def predict(self, inputs: list[str]) -> list[Probabilities]:
        """Label probabilities of each text, in input order."""


def top_label(probs: Probabilities) -> str:
    """The most probable label (ties: the first in sorted label order)."""
    return min(probs, key=lambda k: (-probs[k], k))


class ClassificationTask(Task):
    name: ClassVar[str] = "classification"

    def key(self, item: str) -> str:
        return content_key("text", item)

    def encode_input(self, item: str) -> str:
        return item

    def decode_input(self, data: Any, where: str = "input") -> str:
        if not isinstance(data, str) or not data.strip():
            raise bad(where, "expected a non-empty text")
        return data

    def encode_output(self, output: Probabilities) -> dict[str, float]:
        return {k: float(output[k]) for k in sorted(output)}

    def decode_output(self, data: Any, where: str = "output") -> Probabilities:
        if not isinstance(data, dict) or not data:
            raise bad(where, "expected a non-empty {label: probability} object")
        out = {}
        for k, v in data.items():
            if (not isinstance(v, int | float) or isinstance(v, bool) or not math.isfinite(v)
                    or not 0.0 <= float(v) <= 1.0):
                raise bad(f"{where}.{k}", f"expected a probability in [0, 1], got {v!r}")
            out[str(k)] = float(v)
        total = math.fsum(out.values())
        if abs(total - 1.0) > SUM_TOLERANCE:
            raise bad(where, f"the probabilities sum to {total:.6g}, not 1")
        return out

    def from_payload(self, payload: dict[str, Any]) -> str:
        text = payload.get("text")
        if not isinstance(text, str) or not text.strip():
            raise bad("text", "a classification test payload holds a non-empty 'text'")
        return text

    def summary(self, output: Probabilities) -> dict[str, Any]:
        return {"label": top_label(output), "probs": {k: round(v, 6) for k, v in sorted(output.items())}}
