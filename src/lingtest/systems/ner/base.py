"""The NER task: pre-tokenised sentences in, entities out as (token span, label) in the system's own
label scheme (mapping onto a gold scheme is the grading's business, not the system's)."""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, ClassVar

from lingtest.data.model import Entity
from lingtest.systems.base import System
from lingtest.systems.tasks import Task, bad, content_key

Tokens = list[str]


class NERSystem(System[Tokens, list[Entity]]):
    """``predict(sentences) -> entities per sentence`` (sentence-relative token offsets, end exclusive)."""

    task: ClassVar[str] = "ner"
    name: str = "ner"

    @abstractmethod
    def predict(self, inputs: list[Tokens]) -> list[list[Entity]]:
        """Entities of each sentence, in input order."""


def _tokens(data: Any, where: str) -> list[str]:
    if not isinstance(data, list) or not data or not all(isinstance(w, str) and w for w in data):
        raise bad(where, "expected a non-empty list of non-empty token strings")
    return list(data)


class NERTask(Task):
    name: ClassVar[str] = "ner"

    def key(self, item: Tokens) -> str:
        return content_key("ner-input", list(item))

    def encode_input(self, item: Tokens) -> list[str]:
        return list(item)

    def decode_input(self, data: Any, where: str = "input") -> Tokens:
        return _tokens(data, where)

    def encode_output(self, output: list[Entity]) -> list[list[Any]]:
        return [e.to_list() for e in sorted(output)]

    def decode_output(self, data: Any, where: str = "output") -> list[Entity]:
        if not isinstance(data, list):
            raise bad(where, "expected a list of [start, end, label] entities")
        out = []
        for i, e in enumerate(data):
            if (not isinstance(e, list) or len(e) != 3 or not all(isinstance(v, int) and not isinstance(v, bool)
                                                                 for v in e[:2])
                    or not isinstance(e[2], str) or not e[2] or not 0 <= e[0] < e[1]):
                raise bad(f"{where}[{i}]", f"expected [start, end, label] with 0 <= start < end, got {e!r}")
            out.append(Entity(e[0], e[1], e[2]))
        return sorted(out)

    def from_payload(self, payload: dict[str, Any]) -> Tokens:
        if "tokens" in payload:
            return _tokens(payload["tokens"], "tokens")
        sents = payload.get("sentences")
        if isinstance(sents, list) and len(sents) == 1:
            return [t["text"] for t in sents[0]["tokens"]]
        raise bad("payload", "an NER test payload holds 'tokens' or exactly one sentence")
