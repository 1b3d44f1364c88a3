"""Specification-based seed generation: search sentences, apply the rules, combine templates.

* :func:`search_sentences` turns parsed documents into :class:`SearchSentence` records with the
  suite's labels: SST phrase sentiment from the 5-class root label (the classes are the phrase
  score's fifths, so ``0, 1`` are ``<= 0.4`` negative, ``3, 4`` are ``> 0.6`` positive and ``2``
  neutral); HateXplain's majority label (``hatespeech`` -> ``hate``, ``offensive`` and ``normal`` ->
  ``non-hate``, posts without a majority dropped).
* :func:`find` runs a rule's search predicate; :func:`combine` enumerates the rule's
  non-terminals around a found sentence; :func:`seed_cases` does both for every capability, with
  the seeded caps of ``conf/`` (``max_sents`` found sentences and ``max_cases`` cases per rule).
"""

from __future__ import annotations

import csv
import itertools
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lingtest.data.model import stable_id
from lingtest.errors import InputError
from lingtest.s2lct.grammar import Node, node_from_tree
from lingtest.s2lct.predicates import Knowledge, SearchSentence, parse_predicate
from lingtest.s2lct.spec import Rule, SuiteSpec

__all__ = ["GenCase", "LABEL_FROM", "combine", "expansion_case", "find", "found_sentence", "hatecheck_lexicons",
           "rng_for", "search_sentences", "seed_cases"]

_SST_FINE = {"0": "negative", "1": "negative", "2": "neutral", "3": "positive", "4": "positive"}
_HATEXPLAIN = {"hatespeech": "hate", "offensive": "non-hate", "normal": "non-hate"}


def sst_fine_label(doc: Any) -> str | None:
    return _SST_FINE.get(str(doc.label)) if doc.label is not None else None


def hatexplain_majority_label(doc: Any) -> str | None:
    return _HATEXPLAIN.get(str(doc.label))  # "undecided" (no majority) -> None: dropped


#: how a corpus's documents get the suite's labels (``seeds.<suite>.label_from``)
LABEL_FROM: dict[str, Callable[[Any], str | None]] = {
    "sst_fine": sst_fine_label,
    "hatexplain_majority": hatexplain_majority_label,
}


def rng_for(seed: int, *parts: Any) -> random.Random:
    """A generator seeded by ``seed`` and ``parts`` (stable across runs and machines)."""
    return random.Random(stable_id(int(seed), *parts, length=32))


@dataclass(slots=True)
class Found:
    """A searchable sentence with its tree (``None`` when unparsed)."""

    sentence: SearchSentence
    tree: Node | None = None


def search_sentences(docs: Iterable[Any], *, label_from: str, lowercase: bool) -> list[Found]:
    """One :class:`Found` per labelled document (:func:`found_sentence`). Documents whose label maps to
    nothing are dropped; a repeated text is kept once (the first)."""
    if label_from not in LABEL_FROM:
        raise ValueError(f"unknown label_from {label_from!r}; known: {', '.join(LABEL_FROM)}")
    label_of = LABEL_FROM[label_from]
    return unique_found(((doc, label_of(doc)) for doc in docs), lowercase=lowercase, skip_unlabelled=True)


def unique_found(labelled: Iterable[tuple[Any, str | None]], *, lowercase: bool,
                 skip_unlabelled: bool) -> list[Found]:
    """One :class:`Found` per (document, label) pair (:func:`found_sentence`), a repeated text kept once
    (the first); ``skip_unlabelled``: drop documents without a label."""
    out: list[Found] = []
    seen: set[str] = set()
    for doc, label in labelled:
        if label is None and skip_unlabelled:
            continue
        f = found_sentence(doc, label, lowercase=lowercase)
        if f is None or f.sentence.text in seen:
            continue
        seen.add(f.sentence.text)
        out.append(f)
    return out


def found_sentence(doc: Any, label: str | None, *, lowercase: bool) -> Found | None:
    """The searchable sentence of a parsed document with the suite label ``label``: all its sentences'
    words (lower-cased when ``lowercase``) and tags, a ``TEXT`` node over their trees when it has
    several (no tree when one is unparsed); ``None`` for a document without words."""
    words: list[str] = []
    tags: list[str | None] = []
    trees: list[Node] = []
    complete = True
    for s in doc.sentences:
        ws = [t.text.lower() if lowercase else t.text for t in s.tokens]
        words.extend(ws)
        tags.extend(t.tag for t in s.tokens)
        if s.tree is not None:
            trees.append(node_from_tree(s.tree, ws))
        else:
            complete = False
    if not words:
        return None
    tree = None
    if complete and trees:
        tree = trees[0] if len(trees) == 1 else Node("TEXT", tuple(trees))
    return Found(SearchSentence(words, tags, label, id=str(doc.id), text=" ".join(words)), tree)


def find(pool: Sequence[Found], search: str, k: Knowledge) -> list[Found]:
    """The sentences of ``pool`` (in order) that satisfy the predicate ``search``."""
    pred = parse_predicate(search)
    pred.check(k)
    return [f for f in pool if pred.holds(f.sentence, k)]


def sample(items: Sequence[Any], n: int | None, rng: random.Random) -> list[Any]:
    """``n`` items drawn with ``rng``, in their original order (all when ``n`` is None or larger)."""
    if n is None or len(items) <= n:
        return list(items)
    keep = sorted(rng.sample(range(len(items)), int(n)))
    return [items[i] for i in keep]


@dataclass(slots=True)
class GenCase:
    """One S2LCT test case before it becomes a :class:`~lingtest.data.model.TestCase`."""

    suite: str
    capability: str
    rule: int
    kind: str                 # "seed" | "exp"
    seed_id: str              # the found sentence's id
    sent: str                 # the found (or expanded) sentence as placed in the template
    choice: tuple[Any, ...]   # the template choice (clause indices, other sentences' ids)
    text: str
    expected: list[str]
    parent: str | None = None  # an expansion's seed case
    meta: dict[str, Any] = field(default_factory=dict)
    id: str = ""

    def __post_init__(self) -> None:
        if not self.id:
            self.id = stable_id("s2lct", self.suite, self.capability, self.rule, self.kind, self.seed_id,
                                self.text)


def combine(rule: Rule, sent: str, others: Sequence[Found]) -> list[tuple[tuple[Any, ...], str]]:
    """Every ``(choice, text)`` of the rule's ``combine`` around ``sent`` (just ``sent`` without
    one); parts are joined with one space, ``others`` are the clauses drawn for an ``others`` part."""
    if not rule.combine:
        return [((), sent)]
    options: list[list[tuple[Any, str]]] = []
    for part in rule.combine:
        if part.sent is not None:
            options.append([("s", part.sent.replace("{}", sent))])
        elif part.others is not None:
            fmt = part.others.format
            options.append([(o.sentence.id, fmt.replace("{}", o.sentence.text)) for o in others])
        else:
            options.append(list(enumerate(part.clauses or [])))
    out = []
    for combo in itertools.product(*options):
        choice = tuple(c for c, _ in combo)
        out.append((choice, " ".join(t for _, t in combo)))
    return out


def rule_sentence(rule: Rule, found: Found) -> str | None:
    """The found sentence as the rule places it: after ``replace`` (``None`` when it does not apply)."""
    text = found.sentence.text
    if rule.replace is not None:
        return rule.replace.apply(text)
    return text


def seed_cases(suite: str, spec: SuiteSpec, pool: Sequence[Found], k: Knowledge, *, seed: int,
               max_sents: int | None, max_cases: int | None, others_per_seed: int,
               capabilities: Iterable[str] | None = None) -> tuple[list[GenCase], dict[tuple[str, int], list[Found]]]:
    """Seed test cases of every capability (in spec order) and, per ``(capability, rule)``, the
    found sentences they use (for expansion)."""
    cases: list[GenCase] = []
    used: dict[tuple[str, int], list[Found]] = {}
    wanted = None if capabilities is None else set(capabilities)
    for cid, cap in spec.capabilities.items():
        if wanted is not None and cid not in wanted:
            continue
        for ri, rule in enumerate(cap.rules):
            hits = find(pool, rule.search, k)
            hits = [h for h in hits if rule_sentence(rule, h) is not None]
            hits = sample(hits, max_sents, rng_for(seed, suite, cid, ri, "sents"))
            other_pools = {}
            for pi, part in enumerate(rule.combine or []):
                if part.others is not None:
                    other_pools[pi] = find(pool, part.others.search, k)
            rule_cases: list[GenCase] = []
            for h in hits:
                sent = rule_sentence(rule, h)
                assert sent is not None
                others: list[Found] = []
                for pi, opool in other_pools.items():
                    cand = [o for o in opool if o.sentence.id != h.sentence.id]
                    rng = rng_for(seed, suite, cid, ri, pi, h.sentence.id)
                    others = [cand[i] for i in sorted(rng.sample(range(len(cand)), min(others_per_seed, len(cand))))]
                meta = {"others": {o.sentence.id: o.sentence.text for o in others}} if others else {}
                for choice, text in combine(rule, sent, others):
                    rule_cases.append(GenCase(suite, cid, ri, "seed", h.sentence.id, sent, choice, text,
                                              rule.labels, meta=dict(meta)))
            rule_cases = sample(rule_cases, max_cases, rng_for(seed, suite, cid, ri, "cases"))
            used_ids = {c.seed_id for c in rule_cases}
            used[(cid, ri)] = [h for h in hits if h.sentence.id in used_ids]
            cases.extend(rule_cases)
    return cases, used


def expansion_case(seed: GenCase, rule: Rule, expanded_sentence: str) -> GenCase | None:
    """The expansion case of seed case ``seed``: the same template choice around the expanded
    sentence (after the rule's ``replace``); ``None`` when the replacement no longer applies."""
    sent = rule.replace.apply(expanded_sentence) if rule.replace is not None else expanded_sentence
    if sent is None:
        return None
    others: Mapping[str, str] = seed.meta.get("others", {})
    parts: list[str] = []
    if not rule.combine:
        text = sent
    else:
        for part, c in zip(rule.combine, seed.choice, strict=True):
            if part.sent is not None:
                parts.append(part.sent.replace("{}", sent))
            elif part.others is not None:
                parts.append(part.others.format.replace("{}", others[c]))
            else:
                parts.append((part.clauses or [])[c])
        text = " ".join(parts)
    return GenCase(seed.suite, seed.capability, seed.rule, "exp", seed.seed_id, sent, seed.choice, text,
                   list(seed.expected), parent=seed.id)


def hatecheck_lexicons(placeholders: Path) -> dict[str, list[str]]:
    """``hatecheck_slur`` ([SLUR_S] and [SLUR_P]) and ``hatecheck_identity`` ([IDENTITY_S],
    [IDENTITY_P], [IDENTITY_A]) from HateCheck's ``template_placeholders.csv``, lower-cased."""
    want = {"[SLUR_S]": "hatecheck_slur", "[SLUR_P]": "hatecheck_slur", "[IDENTITY_S]": "hatecheck_identity",
            "[IDENTITY_P]": "hatecheck_identity", "[IDENTITY_A]": "hatecheck_identity"}
    out: dict[str, list[str]] = {"hatecheck_slur": [], "hatecheck_identity": []}
    try:
        with open(placeholders, encoding="utf-8", newline="") as fh:
            rows = list(csv.reader(fh))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise InputError(f"cannot read HateCheck placeholders ({exc})", path=placeholders) from None
    if not rows or [c.strip() for c in rows[0][:2]] != ["Placeholder", "Values"]:
        raise InputError("expected the header Placeholder,Values", path=placeholders, line=1)
    for lineno, row in enumerate(rows[1:], start=2):
        if len(row) != 2:
            raise InputError(f"expected 2 columns, found {len(row)}", path=placeholders, line=lineno)
        name = want.get(row[0].strip())
        if name is None:
            continue
        for v in row[1].split(","):
            v = v.strip().lower()
            if v and v not in out[name]:
                out[name].append(v)
    for name, vals in out.items():
        if not vals:
            raise InputError(f"no values for {name}", path=placeholders, field="Values")
    return out
