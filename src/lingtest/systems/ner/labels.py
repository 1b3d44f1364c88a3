"""Mapping a system's own NER labels onto a target scheme (CoNLL-2003's PER, ORG, LOC, MISC) for
grading against gold.

The table comes from the config (``ner_label_maps``), never from code::

    target: [PER, ORG, LOC, MISC]
    schemes:
      ontonotes: {PERSON: PER, GPE: LOC, NORP: MISC, DATE: null, ...}

A scheme maps every label it can produce to a target label or to ``null`` (the entity is not one
the target scheme annotates, e.g. OntoNotes' dates and numbers, and is dropped). A label missing
from its scheme's table is an error, not a silent drop: a model that emits an unexpected label
must be looked at. The metamorphic relations compare a system's own labels; only grading maps.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from lingtest.config import to_plain
from lingtest.data.model import Entity
from lingtest.errors import ConfigError

__all__ = ["LabelMaps"]


@dataclass(frozen=True)
class LabelMaps:
    """``target``: the labels of the target scheme; ``schemes``: scheme -> {label: target label or
    ``None``}."""

    target: tuple[str, ...]
    schemes: Mapping[str, Mapping[str, str | None]]

    def __post_init__(self) -> None:
        if not self.target or not all(isinstance(t, str) and t for t in self.target):
            raise ConfigError("ner_label_maps.target must be a non-empty list of label names")
        if len(set(self.target)) != len(self.target):
            raise ConfigError(f"ner_label_maps.target repeats a label: {list(self.target)}")
        allowed = set(self.target)
        for scheme, table in self.schemes.items():
            if not isinstance(table, Mapping) or not table:
                raise ConfigError(f"ner_label_maps.schemes.{scheme} must be a non-empty mapping of labels")
            for label, to in table.items():
                if not isinstance(label, str) or not label:
                    raise ConfigError(f"ner_label_maps.schemes.{scheme}: label {label!r} is not a name")
                if to is not None and to not in allowed:
                    raise ConfigError(f"ner_label_maps.schemes.{scheme}.{label} maps to {to!r}, which is not "
                                      f"a target label ({', '.join(self.target)}) or null")

    @classmethod
    def from_config(cls, cfg: Mapping[str, Any]) -> LabelMaps:
        """From the ``ner_label_maps`` config section (``target`` and ``schemes``; nothing else)."""
        data = to_plain(cfg)
        if not isinstance(data, Mapping):
            raise ConfigError("ner_label_maps must be a mapping with keys 'target' and 'schemes'")
        unknown = sorted(set(data) - {"target", "schemes"})
        missing = sorted({"target", "schemes"} - set(data))
        if unknown or missing:
            raise ConfigError(f"ner_label_maps: unknown key(s) {unknown}, missing key(s) {missing}")
        if not isinstance(data["schemes"], Mapping):
            raise ConfigError("ner_label_maps.schemes must map scheme names to label tables")
        if not isinstance(data["target"], list | tuple):
            raise ConfigError("ner_label_maps.target must be a list of label names")
        return cls(tuple(data["target"]), {str(k): dict(v) if isinstance(v, Mapping) else v
                                           for k, v in data["schemes"].items()})

    def table(self, scheme: str) -> Mapping[str, str | None]:
        try:
            return self.schemes[scheme]
        except KeyError:
            raise ConfigError(f"no label map for NER scheme {scheme!r} in ner_label_maps.schemes; "
                              f"known: {', '.join(sorted(self.schemes))}") from None

    def map_label(self, scheme: str, label: str) -> str | None:
        """The target label of ``label`` (``None``: not an entity of the target scheme)."""
        table = self.table(scheme)
        if label not in table:
            raise ConfigError(f"label {label!r} of NER scheme {scheme!r} is not in ner_label_maps.schemes."
                              f"{scheme} (map it to a target label or to null)")
        return table[label]

    def map_entities(self, scheme: str, entities: Iterable[Entity]) -> list[Entity]:
        """``entities`` relabelled into the target scheme; those mapped to ``None`` are dropped."""
        out = []
        for e in entities:
            to = self.map_label(scheme, e.label)
            if to is not None:
                out.append(Entity(e.start, e.end, to))
        return out
