"""The expanded sentences of an S2LCT suite as review units (``lingtest review SUITE --unit expansion``): the
review unit provider :data:`PROVIDER` (:class:`~lingtest.review.units.UnitProvider`), registered under the
``lingtest.review_units`` entry points as ``expansion`` (``pyproject.toml``), so the review layer finds it
without naming S2LCT. No pipeline stage imports this module.

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
  (``hasattr(label, X)``, :func:`required_label`) in the configuration the suite was made with
  (``s2lct.suites.<meta.suite>.capabilities.<meta.capability>.rules[<meta.rule>].search``);
  the seed cases themselves carry only their template's expected label. ``None`` when the configuration
  is not found, the rule requires no label, or the rules disagree.

Its id is the first 16 hex digits of the sha256 of the sentence (:func:`unit_id`), so it does not depend
on the order of the suite file; its group is the tag of the inserted word (``RB``, ``JJ``; several joined
by ``+``). A reviewer sees it against its seed sentence, the inserted words marked, with the seed's label
(:func:`expansion_item`), and is asked its own questions (:func:`expansion_questions`). Its judgements are
stored in ``reviews/<suite>-expansion-sentences@<version or sha16>/``."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from lingtest.data.model import TestCase, stable_id
from lingtest.review.views import Block, Question, ReviewItem, plain, text_diff
from lingtest.s2lct.predicates import And, HasAttr, Or, Predicate, PredicateError, parse_predicate

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


def required_label(p: Predicate) -> str | None:
    """The label every sentence ``p`` holds of has (``hasattr(label, X)`` as a conjunct, or in every branch of
    a disjunction), else ``None``: the seed's label of a rule whose search is ``p``."""
    if isinstance(p, HasAttr):
        return p.value if p.attr == "label" and p.op == "==" else None
    if isinstance(p, And):
        found = {lab for q in p.parts if (lab := required_label(q)) is not None}
        return found.pop() if len(found) == 1 else None
    if isinstance(p, Or):
        labels = {required_label(q) for q in p.parts}
        return labels.pop() if len(labels) == 1 else None  # None when a branch requires none
    return None


def rule_labels(config: Mapping[str, Any] | None) -> Callable[[str, str, int], str | None]:
    """``label(suite, capability, rule)``: the label the rule's search requires (see the module doc) in
    ``config`` (the plain configuration; ``None``: every label unknown)."""
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


# ---- as a review unit ------------------------------------------------------------------------------------
def expansion_questions(item: ReviewItem) -> list[Question]:
    """The questions asked about an expanded sentence (the relevance one only for a suite with capabilities)."""
    out = [Question("well_formed", "well-formed?", "Would a competent writer produce the expanded sentence? (A "
                    "fragment seed stays acceptable when the inserted word fits it.)", ("y", "n")),
           Question("label_correct", "keeps the seed's label?", "Does the expanded sentence keep the seed's label "
                    "(shown above)?", ("y", "n"))]
    if item.asks_relevance:
        out.append(Question("relevance", "capability relevant?", f"How well does the expanded sentence still fit "
                            f"the capabilities its seed was found for ({item.capability}), as their search asks? "
                            "1: not at all, 5: as well as the seed.", ("1", "2", "3", "4", "5")))
    return out


def expansion_item(unit: ExpansionSentence, *, capabilities: Mapping[str, str] | None = None) -> ReviewItem:
    """An S2LCT expanded sentence as a reviewer sees it: its seed sentence and the expanded sentence with the
    inserted words marked, the seed's label, the capabilities and cases that embed it, and the questions
    asked of it (:func:`expansion_questions`). ``capabilities``: capability code -> name (``None``: the suite
    has none, no relevance question)."""
    left, right = text_diff(unit.seed, unit.text) if unit.seed else ((), (plain(unit.text),))
    blocks = (Block("seed sentence", left), Block("expanded sentence", right)) if unit.seed else \
        (Block("expanded sentence", right),)
    named = unit.tags if len(unit.tags) == len(unit.fills) else ("mask",) * len(unit.fills)
    edit = ("inserted " + ", ".join(f"{{{t}}} {f!r}" for t, f in zip(named, unit.fills, strict=True))
            if unit.fills else "inserted words not recorded")
    label = unit.label or "unknown (the configuration the suite was made with does not say): judge whether " \
                          "the expanded sentence keeps the seed's label"
    cases = len(unit.cases)
    facts = (("seed's label", label), ("capabilities", ", ".join(unit.capabilities) or "-"),
             ("test cases", f"{cases} expansion case{'s embed' if cases != 1 else ' embeds'} it in a template"),
             ("seed", unit.seed_id))
    capability = None
    if capabilities is not None:
        capability = "; ".join(f"{c}: {capabilities[c]}" if capabilities.get(c) else c for c in unit.capabilities) \
            or "-"
    expected = f"the seed's label, {unit.label}" if unit.label else "the seed's label"
    item = ReviewItem(id=unit.id, group=unit.group, technique="s2lct", task="classification", relation="exp",
                      expected=expected, edit=edit, blocks=blocks, facts=facts, capability=capability,
                      noun=ExpansionUnits.noun)
    return replace(item, asks=tuple(expansion_questions(item)))


class ExpansionUnits:
    """The review unit provider of S2LCT's expanded sentences (:class:`~lingtest.review.units.UnitProvider`)."""

    folder_suffix = "-expansion-sentences"
    noun = "expanded sentence"
    plural = "expanded sentences"
    label_column = "label kept"
    none_found = ("no S2LCT expansions to review: --unit expansion judges the expanded sentences of an S2LCT "
                  "suite (its cases with relation 'exp'), and this suite has none; review its cases (--unit case)")

    def units(self, suite: Any, config: Mapping[str, Any] | None) -> list[ExpansionSentence]:
        """The distinct expanded sentences of ``suite``, the seeds' labels read from ``config``."""
        return expansion_sentences(suite.cases, rule_labels(config))

    def group(self, unit: ExpansionSentence) -> str:
        return unit.group

    def item(self, unit: ExpansionSentence, *, capabilities: Mapping[str, str] | None = None) -> ReviewItem:
        return expansion_item(unit, capabilities=capabilities)


#: the entry point ``expansion`` of ``lingtest.review_units`` (``pyproject.toml``)
PROVIDER = ExpansionUnits()
