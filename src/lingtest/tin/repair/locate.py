"""Suspicious entity location (TIN section 3.5.1).

An entity text is suspicious when it occurs in both sentences of an issue and the system labels it
differently in them (the MR1 rule, :func:`lingtest.tin.relations.inconsistent_texts`; for the
structural transformation the follow-up is read with its case change undone). Every occurrence of
a suspicious text, predicted as an entity or not (an omission), is a suspicious span of that
sentence: those are the spans the relabelling step decides on, in s and in s'.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from lingtest.data.model import Entity
from lingtest.tin.relations import inconsistent_texts, restored
from lingtest.tin.spans import Span, find_occurrences


def locate(src_tokens: Sequence[str], src_entities: Iterable[Entity], fu_tokens: Sequence[str],
           fu_entities: Iterable[Entity], restore: Mapping[int, str] | None = None
           ) -> tuple[list[Span], list[Span]]:
    """``(suspicious spans of s, suspicious spans of s')``, each sorted."""
    texts = inconsistent_texts(src_tokens, list(src_entities), fu_tokens, list(fu_entities), restore)
    view = restored(fu_tokens, restore)
    src = sorted({sp for t in texts for sp in find_occurrences(src_tokens, t.split(" "))})
    fu = sorted({sp for t in texts for sp in find_occurrences(view, t.split(" "))})
    return src, fu
