"""Systems under test, grouped by task (:mod:`lingtest.systems.tasks`): one registry keyed by task,
one factory (:func:`lingtest.systems.factory.build_system`). Every task also has the ``predictions``
kind: a saved predictions file (:mod:`lingtest.systems.predictions`)."""

from __future__ import annotations

from collections.abc import Iterator

from lingtest.errors import RegistryError
from lingtest.registry import Registry


class SystemRegistry:
    """Task name -> :class:`Registry` of that task's system classes."""

    kind = "system under test"

    def __init__(self) -> None:
        self._by_task: dict[str, Registry] = {}

    def task(self, task: str) -> Registry:
        if task not in self._by_task:
            self._by_task[task] = Registry(f"{task} system")
        return self._by_task[task]

    def register_lazy(self, task: str, name: str, target: str) -> None:
        self.task(task).register_lazy(name, target)

    def get(self, task: str, name: str) -> type:
        if task not in self._by_task:
            raise RegistryError(f"unknown task {task!r}; known: {', '.join(self.tasks())}")
        return self._by_task[task].get(name)

    def tasks(self) -> list[str]:
        return sorted(self._by_task)

    def names(self, task: str | None = None) -> list[str]:
        if task is not None:
            return self.task(task).names() if task in self._by_task else []
        return [f"{t}/{n}" for t in self.tasks() for n in self._by_task[t].names()]

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())


SYSTEMS = SystemRegistry()
SYSTEMS.register_lazy("coref", "sieve", "lingtest.systems.coref.sieve:SieveResolver")
SYSTEMS.register_lazy("coref", "xrenner", "lingtest.systems.coref.xrenner_adapter:XrennerSystem")
SYSTEMS.register_lazy("coref", "fastcoref", "lingtest.systems.coref.fastcoref_adapter:FastCorefSystem")
SYSTEMS.register_lazy("coref", "maverick", "lingtest.systems.coref.maverick_adapter:MaverickSystem")
SYSTEMS.register_lazy("ner", "spacy_ner", "lingtest.systems.ner.spacy_ner:SpacyNERSystem")
SYSTEMS.register_lazy("ner", "minilm_ner", "lingtest.systems.ner.transformer:MiniLMNERSystem")
SYSTEMS.register_lazy("ner", "hf_token_classification", "lingtest.systems.ner.transformer:HFTokenClassificationSystem")
SYSTEMS.register_lazy("ner", "flair", "lingtest.systems.ner.flair_adapter:FlairNERSystem")
SYSTEMS.register_lazy("ner", "azure_ner", "lingtest.systems.ner.azure:AzureNERSystem")
SYSTEMS.register_lazy("ner", "aws_comprehend", "lingtest.systems.ner.aws:AWSComprehendNERSystem")
for _task in ("coref", "ner", "classification", "contrastive"):
    SYSTEMS.task(_task)  # every task is listed, even before its first system

__all__ = ["SYSTEMS", "SystemRegistry"]
