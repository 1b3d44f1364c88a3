"""TIN's metamorphic relations, as expectations checked by :func:`lingtest.suite.run.run_suite`.

Both compare the system's own labels (no mapping) and entity texts (the words of a span joined by
spaces).

* ``tin-mr1`` (token and phrase level, Eq. 3): every entity present in both s and s' keeps its
  label(s). For each text predicted as an entity in s or s' that occurs (as a token sequence) in
  both sentences, the labels predicted for it must agree: as sorted lists when the text occurs
  equally often in both, else as sets. A text that occurs in only one sentence (the replaced word
  or phrase) is not checked. (The public TIN code tests occurrence as a substring of the sentence
  string, so *Apple* is "in" *Pineapple*; lingtest matches whole tokens.)
* ``tin-mr2`` (structural and shuffle, Eq. 4): N(s) = N(s') as sets of (text, label), the texts
  of s' read with the case change of the structural rule undone (the case's ``restore``
  parameter: ``[[mutant position, source word], ...]``).

:func:`inconsistent_texts` (MR1's rule, also used to locate suspicious entities) and
:func:`mr2_difference` are the pure checks.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from lingtest.data.model import Entity, TestCase
from lingtest.errors import InputError
from lingtest.suite.expectations import Expectation, Verdict, expectation
from lingtest.systems.tasks import Task
from lingtest.tin.mutant import MR1, MR2
from lingtest.tin.spans import entity_text, find_occurrences


def restored(tokens: Sequence[str], restore: Mapping[int, str] | None) -> list[str]:
    """``tokens`` with the positions in ``restore`` given back their source word."""
    if not restore:
        return list(tokens)
    return [restore.get(j, w) for j, w in enumerate(tokens)]


def labels_by_text(tokens: Sequence[str], entities: Iterable[Entity]) -> dict[str, list[str]]:
    """Entity text -> sorted labels of its predictions."""
    out: dict[str, list[str]] = {}
    for e in entities:
        out.setdefault(entity_text(tokens, e), []).append(e.label)
    return {t: sorted(v) for t, v in out.items()}


def inconsistent_texts(src_tokens: Sequence[str], src_entities: Iterable[Entity], fu_tokens: Sequence[str],
                       fu_entities: Iterable[Entity], restore: Mapping[int, str] | None = None) -> list[str]:
    """Texts present in both sentences whose predicted labels differ (sorted)."""
    view = restored(fu_tokens, restore)
    a, b = labels_by_text(src_tokens, src_entities), labels_by_text(view, fu_entities)
    out = []
    for text in sorted(set(a) | set(b)):
        words = text.split(" ")
        ns, nf = len(find_occurrences(src_tokens, words)), len(find_occurrences(view, words))
        if ns == 0 or nf == 0:
            continue
        la, lb = a.get(text, []), b.get(text, [])
        if (la != lb) if ns == nf else (set(la) != set(lb)):
            out.append(text)
    return out


def mr2_difference(src_tokens: Sequence[str], src_entities: Iterable[Entity], fu_tokens: Sequence[str],
                   fu_entities: Iterable[Entity], restore: Mapping[int, str] | None = None
                   ) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """``(in N(s) only, in N(s') only)`` as sorted (text, label) pairs."""
    view = restored(fu_tokens, restore)
    a = {(entity_text(src_tokens, e), e.label) for e in src_entities}
    b = {(entity_text(view, e), e.label) for e in fu_entities}
    return sorted(a - b), sorted(b - a)


def parse_restore(value: Any, where: str) -> dict[int, str]:
    """``[[position, word], ...]`` (as written in a case) -> ``{position: word}``."""
    if value is None:
        return {}
    try:
        out = {int(j): str(w) for j, w in value}
    except (TypeError, ValueError):
        raise InputError(f"restore must be [[position, word], ...], got {value!r}", field=where) from None
    if any(j < 0 for j in out):
        raise InputError("restore positions must be >= 0", field=where)
    return out


def restore_param(restore: Mapping[int, str]) -> list[list[Any]]:
    return [[j, w] for j, w in sorted(restore.items())]


@expectation
class TinMR1(Expectation):
    """MR1: entities present in both sentences keep their labels."""

    name = MR1

    def check(self, case: TestCase, outputs: Sequence[Any], task: Task,
              options: Mapping[str, Any]) -> Verdict:
        src, fu = task.from_payload(case.source), task.from_payload(case.followup or {})
        bad = inconsistent_texts(src, outputs[0], fu, outputs[1])
        return Verdict(not bad, {"inconsistent": bad} if bad else {})


@expectation
class TinMR2(Expectation):
    """MR2: the same (text, label) set on both sides (``restore`` undoes case changes)."""

    name = MR2
    accepts = frozenset({"restore"})

    def check(self, case: TestCase, outputs: Sequence[Any], task: Task,
              options: Mapping[str, Any]) -> Verdict:
        src, fu = task.from_payload(case.source), task.from_payload(case.followup or {})
        where = f"{case.id}.expected.restore"
        restore = parse_restore(self.params.get("restore"), where)
        if any(j >= len(fu) for j in restore):
            raise InputError("a restore position lies outside the follow-up", field=where)
        only_s, only_f = mr2_difference(src, outputs[0], fu, outputs[1], restore)
        details = {}
        if only_s or only_f:
            details = {"only_source": [list(x) for x in only_s], "only_followup": [list(x) for x in only_f]}
        return Verdict(not (only_s or only_f), details)
