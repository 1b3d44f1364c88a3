"""Syntax-based sentence expansion: masks (Algorithm 1), fills, validation.

For a found sentence with its tree, :class:`Expander`

1. builds the masked sentences (:func:`~lingtest.s2lct.grammar.masked_sentences`), keeping at most
   ``max_masked`` of them per sentence (a seeded choice);
2. asks the fill proposer for ``top_k`` words per mask (each mask on its own, the sentence's
   other masks left out of the context); the proposer's ``prefilter`` already keeps only
   alphanumeric, SentiWordNet-neutral words;
3. forms fillings: the ``j``-th word of every mask together, ``j = 0 .. top_k - 1`` (one mask:
   each word), and tries up to ``max_tries`` of them, drawn with the seed and tried in the
   proposer's order;
4. validates each tried filling: the tagger's tag of every filled word in context equals its
   mask's tag, and every given search predicate holds of the filled sentence (with the seed's
   label); the first ``keep`` valid fillings per masked sentence are the expansions.

Around it: :func:`expansion_targets` (the found sentences of a suite's seed cases to expand, each with
the search predicates its expansions must keep) and :func:`expansion_cases` (the seed cases again around
each expansion).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from lingtest.s2lct.fill import mask_token
from lingtest.s2lct.grammar import MaskedSentence, ReferenceCFG, masked_sentences
from lingtest.s2lct.predicates import Knowledge, Predicate, SearchSentence, parse_predicate
from lingtest.s2lct.seeds import Found, GenCase, expansion_case, rng_for, sample
from lingtest.s2lct.spec import SuiteSpec

__all__ = ["Expander", "Expansion", "ExpansionStats", "expansion_cases", "expansion_targets"]

#: ``tag(list of word lists) -> list of tag lists`` (the configured parser's PTB tags)
Tagger = Callable[[list[list[str]]], list[list[str]]]


@dataclass(frozen=True, slots=True)
class Expansion:
    seed_id: str
    words: tuple[str, ...]
    masked: str               # the masked sentence, ``{TAG}`` at the masks
    fills: tuple[str, ...]    # the words put in the masks, left to right
    tags: tuple[str, ...]     # the masks' tags

    @property
    def text(self) -> str:
        return " ".join(self.words)


@dataclass(slots=True)
class ExpansionStats:
    sentences: int = 0
    with_tree: int = 0
    masked: int = 0
    masked_used: int = 0
    no_candidates: int = 0
    tried: int = 0
    tag_ok: int = 0
    predicates_ok: int = 0
    expansions: int = 0
    seeds_expanded: int = 0
    extra: dict[str, int] = field(default_factory=dict)

    COUNTS: ClassVar[tuple[str, ...]] = ("sentences", "with_tree", "masked", "masked_used", "no_candidates",
                                         "tried", "tag_ok", "predicates_ok", "expansions", "seeds_expanded")

    def to_dict(self) -> dict[str, int]:
        return {k: getattr(self, k) for k in self.COUNTS}

    def merge(self, other: ExpansionStats) -> None:
        """Add ``other``'s counts (the stats of another chunk of sentences)."""
        for k in self.COUNTS:
            setattr(self, k, getattr(self, k) + getattr(other, k))
        for k, v in other.extra.items():
            self.extra[k] = self.extra.get(k, 0) + v


class Expander:
    def __init__(self, reference: ReferenceCFG, proposer: Any, tagger: Tagger, *, top_masks: int, max_masks: int,
                 max_masked: int | None, top_k: int, max_tries: int, keep: int, seed: int) -> None:
        self.reference = reference
        self.proposer = proposer
        self.tagger = tagger
        self.top_masks = int(top_masks)
        self.max_masks = int(max_masks)
        self.max_masked = None if max_masked is None else int(max_masked)
        self.top_k = int(top_k)
        self.max_tries = int(max_tries)
        self.keep = int(keep)
        self.seed = int(seed)

    # -- steps 1-4 ----------------------------------------------------------------------------
    def expand(self, items: Sequence[tuple[Found, Sequence[Predicate]]], knowledge: Knowledge,
               stats: ExpansionStats | None = None) -> dict[str, list[Expansion]]:
        """Expansions of each found sentence (by id) that satisfy all of its predicates."""
        st = stats if stats is not None else ExpansionStats()
        jobs: list[tuple[Found, Sequence[Predicate], MaskedSentence]] = []
        for found, preds in items:
            st.sentences += 1
            if found.tree is None:
                continue
            st.with_tree += 1
            ms = masked_sentences(found.tree, self.reference, top=self.top_masks, max_masks=self.max_masks)
            st.masked += len(ms)
            picked = sample(ms, self.max_masked, rng_for(self.seed, "masked", found.sentence.id))
            st.masked_used += len(picked)
            jobs.extend((found, preds, m) for m in picked)
        # step 2: one request per mask, other masks left out of the context
        requests: list[tuple[list[str], int]] = []
        owners: list[tuple[int, int]] = []  # (job, mask number)
        for ji, (_, _, m) in enumerate(jobs):
            mwords, mtags = m.words, m.tags
            for mi, pos in enumerate(m.mask_positions):
                toks: list[str] = []
                at = -1
                for i, (w, t) in enumerate(zip(mwords, mtags, strict=True)):
                    if i == pos:
                        at = len(toks)
                        toks.append(mask_token(t))
                    elif w is not None:
                        toks.append(w)
                requests.append((toks, at))
                owners.append((ji, mi))
        fills = self.proposer.propose_many(requests, self.top_k) if requests else []
        per_job: list[list[list[str]]] = [[[] for _ in m.mask_positions] for _, _, m in jobs]
        for (ji, mi), fs in zip(owners, fills, strict=True):
            per_job[ji][mi] = [f.word for f in fs]
        # step 3: fillings to try
        tries: list[tuple[int, list[str]]] = []  # (job, full words)
        for ji, (found, _, m) in enumerate(jobs):
            lists = per_job[ji]
            n = min((len(x) for x in lists), default=0)
            if n == 0:
                st.no_candidates += 1
                continue
            fillings = [[lst[j] for lst in lists] for j in range(n)]
            order = sample(list(range(len(fillings))), self.max_tries,
                           rng_for(self.seed, "tries", found.sentence.id, m.text()))
            for j in order:
                it = iter(fillings[j])
                filled: list[str] = [w if w is not None else next(it) for w in m.words]
                tries.append((ji, filled))
        st.tried += len(tries)
        # step 4: validation (one tagger call for everything)
        tagged = self.tagger([w for _, w in tries]) if tries else []
        out: dict[str, list[Expansion]] = {}
        kept: dict[int, int] = {}
        for (ji, words), tags in zip(tries, tagged, strict=True):
            found, preds, m = jobs[ji]
            if kept.get(ji, 0) >= self.keep:
                continue
            if len(tags) != len(words):
                continue  # the tagger split the words differently: cannot check the tags
            mask_tags = m.tags
            if any(tags[p] != mask_tags[p] for p in m.mask_positions):
                continue
            st.tag_ok += 1
            s = SearchSentence(list(words), list(tags), found.sentence.label, id=found.sentence.id)
            if not all(p.holds(s, knowledge) for p in preds):
                continue
            st.predicates_ok += 1
            kept[ji] = kept.get(ji, 0) + 1
            exp = Expansion(found.sentence.id, tuple(words), m.text(),
                            tuple(words[p] for p in m.mask_positions), tuple(mask_tags[p] for p in m.mask_positions))
            lst = out.setdefault(found.sentence.id, [])
            if all(e.words != exp.words for e in lst):
                lst.append(exp)
        st.expansions += sum(len(v) for v in out.values())
        st.seeds_expanded += len(out)
        return out


def expansion_targets(spec: SuiteSpec, used: Mapping[tuple[str, int], Sequence[Found]], *, suite: str, seed: int,
                      max_seeds: int | None) -> list[tuple[Found, list[Predicate]]]:
    """The found sentences to expand: those the seed cases use (``used``: per ``(capability, rule)``, from
    :func:`~lingtest.s2lct.seeds.seed_cases`), at most ``max_seeds`` of them (a seeded choice, in sentence
    id order; null: all), each with the search predicates of the rules that use it (each once, first seen
    first): its expansions must satisfy all of them."""
    preds: dict[str, list[Predicate]] = {}
    found: dict[str, Found] = {}
    for (cid, ri), hits in used.items():
        rule = spec.capabilities[cid].rules[ri]
        for h in hits:
            found.setdefault(h.sentence.id, h)
            lst = preds.setdefault(h.sentence.id, [])
            pred = parse_predicate(rule.search)
            if pred not in lst:
                lst.append(pred)
    ids = sample(sorted(found), max_seeds, rng_for(seed, suite, "expand"))
    return [(found[i], preds[i]) for i in ids]


def expansion_cases(spec: SuiteSpec, seeds: Sequence[GenCase],
                    expansions: Mapping[str, Sequence[Expansion]]) -> list[GenCase]:
    """Every seed case around each expansion of its found sentence (the seeds in order, then the
    expansions in order; :func:`~lingtest.s2lct.seeds.expansion_case`), with the masked sentence, the fills
    and the masks' tags in ``meta``; a seed whose ``replace`` no longer applies gets none."""
    out: list[GenCase] = []
    for s in seeds:
        rule = spec.capabilities[s.capability].rules[s.rule]
        for e in expansions.get(s.seed_id, []):
            case = expansion_case(s, rule, e.text)
            if case is not None:
                case.meta.update({"masked": e.masked, "fills": list(e.fills), "mask_tags": list(e.tags)})
                out.append(case)
    return out
