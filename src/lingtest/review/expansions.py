"""The expanded sentences of an S2LCT suite as review units (``lingtest review SUITE --unit expansion``).

S2LCT inserts one word (or a few) into a found seed sentence and embeds each expanded sentence in the
capability templates of every rule that uses the seed, so a suite holds several expansion cases
(relation ``exp``) per expanded sentence, each wrapped in a template. The paper measures *expansion
validity* on the expanded sentences themselves: is the sentence well-formed, and does it keep the seed's
label. An :class:`ExpansionSentence` is one distinct expanded sentence (the expansion cases deduplicated by
it), with

* the expanded sentence: the masked seed sentence ``meta.masked`` with its masks filled by ``meta.fills``,
  as the case's ``meta.sent`` writes it (``meta.sent`` itself unless the rule rewrote the sentence with its
  ``replace``, such as SST's negation *That is* -> *That is not*: then the sentence before the rewrite);
* its seed sentence: the masked sentence with its masks left out (without ``meta.masked``: ``meta.sent``
  of the seed case ``meta.parent``);
* the inserted words and their tags (``meta.fills``, ``meta.mask_tags``), the capabilities and cases
  that embed it;
* the seed's label: the label the search predicate of the case's rule requires of every sentence it finds
  (``hasattr(label, X)``, :func:`~lingtest.s2lct.predicates.required_label`) in the configuration the suite
  was made with (``s2lct.suites.<meta.suite>.capabilities.<meta.capability>.rules[<meta.rule>].search``);
  the seed cases themselves carry only their template's expected label. ``None`` when the configuration
  is not found, the rule requires no label, or the rules disagree.

Its id is the first 16 hex digits of the sha256 of the sentence (:func:`unit_id`), so it does not depend
on the order of the suite file; its group is the tag of the inserted word (``RB``, ``JJ``; several joined
by ``+``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lingtest.data.model import TestCase, stable_id

_MASK = re.compile(r"^\{[^{}\s]+\}$")


@dataclass(frozen=True)
class ExpansionSentence:
    """One distinct expanded sentence and what it was made from (see the module doc)."""

    id: str
    text: str
    seed: str
    label: str | None
    fills: tuple[str, ...]
    tags: tuple[str, ...]
    capabilities: tuple[str, ...]
    cases: tuple[str, ...]
    seed_id: str

    @property
    def group(self) -> str:
        """The tag of the inserted word (several joined by ``+``; ``-`` when none is recorded)."""
        return "+".join(self.tags) or "-"


def unit_id(text: str) -> str:
    """The id of the expanded sentence ``text``."""
    return stable_id("s2lct-expansion-sentence", text)


def is_expansion(case: TestCase) -> bool:
    """Whether ``case`` is an S2LCT expansion case (relation ``exp``, its expanded sentence in ``meta.sent``)."""
    return case.relation == "exp" and isinstance(case.meta.get("sent"), str) and bool(case.meta["sent"].strip())


def _capability_order(code: str) -> tuple[int, str]:
    digits = "".join(ch for ch in code if ch.isdigit())
    return (int(digits) if digits else 10**9, code)


def sentences_of(case: TestCase, by_id: Mapping[str, TestCase]) -> tuple[str, str]:
    """(seed sentence, expanded sentence) of the expansion case ``case`` (see the module doc)."""
    sent = str(case.meta["sent"])
    masked, fills = case.meta.get("masked"), _strings(case.meta.get("fills"))
    words = masked.split() if isinstance(masked, str) else []
    if words and sum(bool(_MASK.match(w)) for w in words) == len(fills) > 0:
        it = iter(fills)
        filled = " ".join(next(it) if _MASK.match(w) else w for w in words)
        seed = " ".join(w for w in words if not _MASK.match(w))
        return seed, sent if filled.lower() == sent.lower() else filled
    parent = by_id.get(str(case.meta.get("parent", "")))
    seed = str(parent.meta["sent"]) if parent is not None and isinstance(parent.meta.get("sent"), str) else ""
    return seed, sent


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, list | tuple) else ()


def rule_labels(config: Mapping[str, Any] | None) -> Callable[[str, str, int], str | None]:
    """``label(suite, capability, rule)``: the label the rule's search requires (see the module doc) in
    ``config`` (the plain configuration; ``None``: every label unknown)."""
    from lingtest.s2lct.predicates import PredicateError, parse_predicate, required_label

    suites = ((config or {}).get("s2lct") or {}).get("suites") or {}

    def label(suite: str, capability: str, rule: int) -> str | None:
        spec = suites.get(suite) if isinstance(suites, Mapping) else None
        caps = spec.get("capabilities") if isinstance(spec, Mapping) else None
        cap = caps.get(capability) if isinstance(caps, Mapping) else None
        rules = cap.get("rules") if isinstance(cap, Mapping) else None
        if not isinstance(rules, list) or not 0 <= rule < len(rules) or not isinstance(rules[rule], Mapping):
            return None
        search = rules[rule].get("search")
        try:
            return required_label(parse_predicate(search)) if isinstance(search, str) else None
        except PredicateError:
            return None

    return label


def expansion_sentences(cases: Sequence[TestCase],
                        label: Callable[[str, str, int], str | None] | None = None) -> list[ExpansionSentence]:
    """The distinct expanded sentences of ``cases`` (their expansion cases grouped by it), in the
    order of their first case; ``label``: the seed's label of a rule (:func:`rule_labels`; ``None``: unknown)."""
    by_id = {c.id: c for c in cases}
    groups: dict[str, list[TestCase]] = {}
    seeds: dict[str, str] = {}
    for c in cases:
        if is_expansion(c):
            seed, text = sentences_of(c, by_id)
            groups.setdefault(text, []).append(c)
            seeds.setdefault(text, seed)
    out = []
    for text, members in groups.items():
        first = members[0]
        labels: set[str | None] = set()
        for c in members:
            rule = c.meta.get("rule")
            labels.add(label(str(c.meta.get("suite", "")), str(c.meta.get("capability", "")), rule)
                       if label is not None and isinstance(rule, int) and not isinstance(rule, bool) else None)
        caps = sorted({str(c.meta["capability"]) for c in members if c.meta.get("capability")}, key=_capability_order)
        out.append(ExpansionSentence(
            id=unit_id(text), text=text, seed=seeds[text],
            label=labels.pop() if len(labels) == 1 else None,
            fills=_strings(first.meta.get("fills")), tags=_strings(first.meta.get("mask_tags")),
            capabilities=tuple(caps), cases=tuple(c.id for c in members), seed_id=first.provenance.seed_id))
    return out
