"""Syntax-based sentence expansion: masks (Algorithm 1), fills, validation.

For a found sentence with its tree, :class:`Expander`

1. builds the masked sentences (:func:`~lingtest.s2lct.grammar.masked_sentences`): with ``insertions``, per
   seed production the ``top_masks`` most probable of those the rules allow
   (:func:`~lingtest.s2lct.grammar.allowed_insertion`) whose masks have a word seen before the word after them
   (``collocations``, when given); keeping at most ``max_masked`` of them per sentence (a seeded choice);
2. asks the fill proposer for ``top_k`` words per mask (each mask on its own, the sentence's
   other masks left out of the context); the proposer's ``prefilter`` already keeps only
   alphanumeric, SentiWordNet-neutral words;
3. forms fillings: the ``j``-th word of every mask together, ``j = 0 .. top_k - 1`` (one mask:
   each word), and tries up to ``max_tries`` of them, drawn with the seed and tried in the
   proposer's order; a fill before the seed's first word takes the sentence's initial case and that
   word loses its capital (:func:`start_cased`, :func:`initial_cased`; the requests of step 2 read the
   sentence so too);
4. validates each tried filling (:class:`Acceptance`, ``s2lct.expansion.validate``): the tagger's tag of
   every filled word in context equals its mask's tag (and a fill of a tag ``collocations`` restricts was seen
   right before the word after it); no filled word comes right before a clitic or an
   infinitive's *to* (:func:`splits_clitic`), nor repeats the word just before or after its mask
   (case-insensitive; unless ``boundary_repeat``); every given search predicate holds of
   the filled sentence (with the seed's label); then, in the tried order and in batches until ``keep``
   fillings per masked sentence are accepted, the re-parsed sentence realises the production the grammar
   chose at the expanded constituent (:func:`~lingtest.s2lct.grammar.realises` over the constituent's
   leaves: its label and its children's labels), its naturalness drop against the seed is at least
   ``min_drop`` (:class:`Naturalness`) and, for a mask whose tag ``min_insertion_logprob`` lists, the insertion's
   log-probability is at least that tag's bound (:meth:`Naturalness.insertion_logprobs`). The accepted fillings are
   the expansions.

Naturalness (:class:`Naturalness`, the acceptance rule above, and its calibration):

* The *naturalness* of a text is the causal LM's mean token log-probability
  (:meth:`~lingtest.resources.lm.CausalLMScorer.token_logprobs_grouped`, BOS not counted), rounded to the
  ``logprob`` decimals of ``resources.score_decimals``; the *drop* of an expansion is its naturalness minus
  its seed's (:func:`naturalness_drop`, rounded again): 0 is as natural as the seed, negative is less
  natural.
  :class:`Naturalness` accepts an expansion whose drop is at least ``min_drop``
  (``s2lct.expansion.validate.min_naturalness_drop``).
* The *insertion log-probability* of an expansion is its total log-probability (the sum over its tokens, on
  the grid) minus its seed's: how much less probable the LM finds the sentence with the word than without it.
  A mean hides a short word in a long sentence; the total does not, and an additive *also* that clashes with
  the sentence (*but Hollywood [also] has squandered*, *the only rip off ... [also] was*) lowers it more than
  one the sentence takes. Its bound per tag (``s2lct.expansion.validate.min_insertion_logprob``) is calibrated
  as the drop is, on real sentences with such a word in such a slot (``bench/bench_s2lct_insertion.py``).
* Calibration (``bench/bench_s2lct_naturalness.py``): *real* pairs are a real sentence against itself with
  one removable word deleted (:func:`removable_positions`: the inverse of an expansion, which inserts a
  word-level POS into a production), *corrupted* pairs a corruption of the real sentence against the real
  sentence (:func:`corrupt`: a word duplicated, two adjacent words swapped, a word replaced by a random word
  of the same tag); :func:`threshold_keeping` is the largest drop on the grid that keeps a given share of
  the real pairs, :func:`rejected_share` the share of other pairs below it.

Around it: :func:`expansion_targets` (the found sentences of a suite's seed cases to expand, each with
the search predicates its expansions must keep) and :func:`expansion_cases` (the seed cases again around
each expansion).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from lingtest.resources.scores import ScoreGrid
from lingtest.s2lct.fill import Collocations, mask_token
from lingtest.s2lct.grammar import (
    Insertion,
    MaskedSentence,
    Node,
    ReferenceCFG,
    allowed_insertion,
    is_word_pos,
    masked_sentences,
    realises,
)
from lingtest.s2lct.predicates import Knowledge, Predicate, SearchSentence, parse_predicate
from lingtest.s2lct.seeds import Found, GenCase, expansion_case, rng_for, sample
from lingtest.s2lct.spec import SuiteSpec

__all__ = ["CORRUPTIONS", "Acceptance", "Expander", "Expansion", "ExpansionStats", "Naturalness", "corrupt",
           "expansion_cases", "expansion_targets", "first_accepted", "initial_cased", "naturalness_drop",
           "rejected_share", "removable_positions", "repeats_across_boundary", "splits_clitic", "start_cased",
           "threshold_keeping"]

#: ``tag(list of word lists) -> list of tag lists`` (the configured parser's PTB tags)
Tagger = Callable[[list[list[str]]], list[list[str]]]
#: ``trees(list of word lists) -> list of trees`` over exactly those words (``None``: no tree of them)
TreeParser = Callable[[list[list[str]]], list[Node | None]]


# ---- naturalness ---------------------------------------------------------------------------------------
#: the corruptions of the calibration
CORRUPTIONS = ("duplicate", "swap", "replace")


def naturalness_drop(candidate: float, seed: float, grid: ScoreGrid) -> float:
    """``candidate - seed`` (two naturalness values on the grid), on the ``logprob`` grid."""
    return grid.round("logprob", candidate - seed)


class Naturalness:
    """The naturalness check of expansions: ``scorer`` (a causal LM scorer: ``token_logprobs_grouped``),
    ``grid`` and ``min_drop``; each text is scored once (a seed shared by many expansions), the texts of one
    seed in one group (their shared beginning is run once)."""

    def __init__(self, scorer: Any, *, grid: ScoreGrid, min_drop: float) -> None:
        self.scorer = scorer
        self.grid = grid
        self.min_drop = float(min_drop)
        self.memo: dict[str, float] = {}
        #: each scored text's total log-probability (the sum over its tokens), on the grid
        self.totals: dict[str, float] = {}
        self.texts_scored = 0

    def score_groups(self, groups: Sequence[Sequence[str]]) -> None:
        """Score the texts of ``groups`` not scored yet (each group's texts together; a text of two groups
        with the first)."""
        todo: list[list[str]] = []
        seen: set[str] = set(self.memo)
        for g in groups:
            new = [t for t in dict.fromkeys(g) if t not in seen]
            seen.update(new)
            if new:
                todo.append(new)
        if not todo:
            return
        for texts, scores in zip(todo, self.scorer.token_logprobs_grouped(todo), strict=True):
            for t, ts in zip(texts, scores, strict=True):
                self.memo.setdefault(t, self.grid.round("logprob", ts.mean))
                self.totals.setdefault(t, self.grid.round("logprob", ts.total))
        self.texts_scored += sum(len(g) for g in todo)

    def of(self, texts: Sequence[str]) -> list[float]:
        """The naturalness of each text (mean token log-probability on the grid), all in one group."""
        self.score_groups([texts])
        return [self.memo[t] for t in texts]

    def _score_pairs(self, pairs: Sequence[tuple[str, str]]) -> None:
        """Score the texts of ``(expansion, seed)`` pairs not scored yet, each seed with its expansions in one
        group."""
        by_seed: dict[str, list[str]] = {}
        for exp, seed in pairs:
            by_seed.setdefault(seed, [seed]).append(exp)
        self.score_groups(list(by_seed.values()))

    def drops(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """The drop of each ``(expansion, seed)`` pair (the pairs of one seed scored in one group)."""
        self._score_pairs(pairs)
        return [naturalness_drop(self.memo[e], self.memo[s], self.grid) for e, s in pairs]

    def insertion_logprobs(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """The insertion log-probability of each ``(expansion, seed)`` pair: the expansion's total log-probability
        minus the seed's, on the ``logprob`` grid (scored as :meth:`drops` scores them, each text once)."""
        self._score_pairs(pairs)
        return [naturalness_drop(self.totals[e], self.totals[s], self.grid) for e, s in pairs]

    def accepts(self, pairs: Sequence[tuple[str, str]]) -> list[bool]:
        """Whether each ``(expansion, seed)`` pair's drop is at least ``min_drop``."""
        return [d >= self.min_drop for d in self.drops(pairs)]


# ---- calibration ---------------------------------------------------------------------------------------
def removable_positions(tree: Node, tags: frozenset[str] | None) -> list[int]:
    """The leaves an expansion could have inserted: a word-level POS (not punctuation; one of ``tags`` unless
    ``None``) whose parent has other children, in a sentence with another word-level leaf."""
    leaves = tree.leaves()
    words = [i for i, leaf in enumerate(leaves) if is_word_pos(leaf.label)]
    if len(words) < 2:
        return []
    out: list[int] = []

    def walk(node: Node, start: int) -> int:
        at = start
        for c in node.children:
            if not c.children:
                if len(node.children) > 1 and is_word_pos(c.label) and (tags is None or c.label in tags):
                    out.append(at)
                at += 1
            else:
                at = walk(c, at)
        return at

    walk(tree, 0)
    return out


def _word_positions(tags: Sequence[str]) -> list[int]:
    return [i for i, t in enumerate(tags) if is_word_pos(t)]


def corrupt(kind: str, words: Sequence[str], tags: Sequence[str], by_tag: Mapping[str, Sequence[str]],
            rng: random.Random) -> list[str] | None:
    """A corruption of a tagged sentence (``None`` when the sentence has no place for it): ``duplicate`` (a
    random word written twice), ``swap`` (two adjacent words swapped, both word-level and different) or
    ``replace`` (a random word replaced by a different random word of its tag from ``by_tag``)."""
    pos = _word_positions(tags)
    if kind == "duplicate":
        if not pos:
            return None
        i = rng.choice(pos)
        return [*words[:i + 1], words[i], *words[i + 1:]]
    if kind == "swap":
        pairs = [i for i in pos if i + 1 in set(pos) and words[i].lower() != words[i + 1].lower()]
        if not pairs:
            return None
        i = rng.choice(pairs)
        return [*words[:i], words[i + 1], words[i], *words[i + 2:]]
    if kind == "replace":
        options = [(i, [w for w in by_tag.get(tags[i], ()) if w.lower() != words[i].lower()]) for i in pos]
        options = [(i, ws) for i, ws in options if ws]
        if not options:
            return None
        i, ws = rng.choice(options)
        return [*words[:i], rng.choice(ws), *words[i + 1:]]
    raise ValueError(f"unknown corruption {kind!r}; known: {', '.join(CORRUPTIONS)}")


def threshold_keeping(real: Sequence[float], share: float) -> float:
    """The largest of the ``real`` drops ``t`` with at least ``share`` of them ``>= t`` (drops on the grid)."""
    if not real:
        raise ValueError("no real drops to calibrate on")
    if not 0.0 < share <= 1.0:
        raise ValueError(f"share must be in (0, 1], got {share}")
    ordered = sorted(real)
    n = len(ordered)
    best = ordered[0]
    for j, v in enumerate(ordered):
        if j == 0 or v != ordered[j - 1]:  # the first of its value: n - j drops are >= v
            if (n - j) / n >= share:
                best = v
    return best


def rejected_share(drops: Sequence[float], threshold: float) -> float:
    """The share of ``drops`` below ``threshold`` (refused by the check)."""
    return sum(d < threshold for d in drops) / len(drops) if drops else 0.0


# ---- acceptance ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Acceptance:
    """What an expansion must pass beyond its masks' tags and the search predicates
    (``s2lct.expansion.validate``): ``boundary_repeat`` (whether a fill may equal the word just before or
    after its mask), ``sentence_repeat`` (whether a fill may be a word the sentence already has elsewhere:
    *you [also] will also learn*), ``trees`` (the parser that re-parses a filled sentence for the production check;
    ``None``: not checked), ``naturalness`` (the drop check; ``None``: not checked) and ``min_insertion_logprob``
    (per mask tag: the least :meth:`Naturalness.insertion_logprobs` value of a filling whose one mask has that tag;
    other tags and fillings of several masks are not checked; it needs ``naturalness``, whose scores it reads)."""

    boundary_repeat: bool
    trees: TreeParser | None
    naturalness: Naturalness | None
    sentence_repeat: bool = True
    min_insertion_logprob: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.min_insertion_logprob and self.naturalness is None:
            raise ValueError("min_insertion_logprob needs the naturalness scorer (naturalness=None)")


#: tags of words that keep their initial capital inside a sentence
_PROPER = frozenset({"NNP", "NNPS"})


def start_cased(words: Sequence[str | None], tags: Sequence[str]) -> list[str | None]:
    """A masked sentence's words (``None`` at the masks) as they read when masks come before the seed's first
    word: that word loses its initial capital (it no longer starts the sentence) unless it is a proper noun,
    ``I`` or has other capitals (``WWII``)."""
    out = list(words)
    if not out or out[0] is not None:
        return out
    j = next((i for i, w in enumerate(out) if w is not None), None)
    w = out[j] if j is not None else None
    if j is None or w is None or not w[:1].isupper() or tags[j] in _PROPER or w == "I" or w[1:] != w[1:].lower():
        return out
    out[j] = w[0].lower() + w[1:]
    return out


def initial_cased(filled: list[str], masked: Sequence[str | None]) -> list[str]:
    """``filled`` (the words of ``masked`` with its masks filled) with a fill that starts the sentence cased as
    the seed's first word was: capitalised after a capitalised one, lower-cased after a lower-case one."""
    first = next((w for w in masked if w is not None), None)
    if not filled or not masked or masked[0] is not None or not first or not first[:1].isalpha():
        return filled
    w = filled[0]
    return [(w[:1].upper() if first[:1].isupper() else w[:1].lower()) + w[1:], *filled[1:]]


def repeats_across_boundary(words: Sequence[str], positions: Sequence[int]) -> bool:
    """Whether a filled word (at ``positions``) equals the word just before or after it, case-insensitive."""
    for p in positions:
        w = words[p].lower()
        if (p > 0 and words[p - 1].lower() == w) or (p + 1 < len(words) and words[p + 1].lower() == w):
            return True
    return False


def repeats_in_sentence(words: Sequence[str], positions: Sequence[int]) -> bool:
    """Whether a filled word (at ``positions``) is, case-insensitive, also a word elsewhere in the sentence."""
    low = [w.lower() for w in words]
    return any(low.count(low[p]) > 1 for p in positions)


#: tokens a fill may not come right before: clitics a tokenizer splits off the word before them (``it 's``,
#: ``do n't``: nothing can come between) and the infinitive's ``to`` (*perspectives [also] to get along*)
CLITICS = frozenset({"'s", "'re", "'ll", "'d", "'ve", "'m", "n't", "'", "to"})


def splits_clitic(words: Sequence[str], positions: Sequence[int]) -> bool:
    """Whether a filled word (at ``positions``) comes right before a word of :data:`CLITICS` (``it [also] 's``,
    ``[also] to get``)."""
    return any(p + 1 < len(words) and words[p + 1].lower() in CLITICS for p in positions)


def first_accepted(order: Mapping[int, Sequence[int]], need: int,
                   check: Callable[[list[int]], list[bool]]) -> dict[int, list[int]]:
    """Per group, the first ``need`` of its items (in ``order``) that ``check`` accepts. ``check`` takes a
    batch of items: each round the next ``need - accepted`` unchecked items of every group still short of
    ``need``, so no item after a group's ``need``-th accepted one is checked."""
    got: dict[int, list[int]] = {g: [] for g in order}
    nxt = {g: 0 for g in order}
    while True:
        batch: list[int] = []
        for g, items in order.items():
            take = need - len(got[g])
            if take > 0:
                batch.extend(items[nxt[g]:nxt[g] + take])
                nxt[g] = min(len(items), nxt[g] + take)
        if not batch:
            return got
        owner = {i: g for g, items in order.items() for i in items}
        for i, ok in zip(batch, check(batch), strict=True):
            if ok:
                got[owner[i]].append(i)


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
    masked_allowed: int = 0
    masked_used: int = 0
    no_candidates: int = 0
    tried: int = 0
    tag_ok: int = 0
    boundary_ok: int = 0            # no clitic split, no repeat next to the mask or (sentence_repeat) in the sentence
    predicates_ok: int = 0
    checked: int = 0
    production_ok: int = 0
    natural_ok: int = 0
    insertion_ok: int = 0           # the insertion log-probability within its mask tag's bound (or not checked)
    expansions: int = 0
    seeds_expanded: int = 0
    extra: dict[str, int] = field(default_factory=dict)

    COUNTS: ClassVar[tuple[str, ...]] = ("sentences", "with_tree", "masked", "masked_allowed", "masked_used",
                                         "no_candidates",
                                         "tried", "tag_ok", "boundary_ok", "predicates_ok", "checked",
                                         "production_ok", "natural_ok", "insertion_ok", "expansions", "seeds_expanded")

    def to_dict(self) -> dict[str, int]:
        return {k: getattr(self, k) for k in self.COUNTS}

    def merge(self, other: ExpansionStats) -> None:
        """Add ``other``'s counts (the stats of another chunk of sentences)."""
        for k in self.COUNTS:
            setattr(self, k, getattr(self, k) + getattr(other, k))
        for k, v in other.extra.items():
            self.extra[k] = self.extra.get(k, 0) + v


class Expander:
    def __init__(self, reference: ReferenceCFG, proposer: Any, tagger: Tagger, *, acceptance: Acceptance,
                 top_masks: int, max_masks: int, max_masked: int | None, top_k: int, max_tries: int, keep: int,
                 seed: int, insertions: Sequence[Insertion] | None = None,
                 collocations: Collocations | None = None) -> None:
        self.reference = reference
        self.insertions = None if insertions is None else list(insertions)
        #: pairs a fill of a restricted tag must have been seen in (already filtered by what the proposer allows):
        #: a masked sentence whose mask has none before the word after it is not filled
        self.collocations = collocations
        self.proposer = proposer
        self.tagger = tagger
        self.acceptance = acceptance
        self.top_masks = int(top_masks)
        self.max_masks = int(max_masks)
        self.max_masked = None if max_masked is None else int(max_masked)
        self.top_k = int(top_k)
        self.max_tries = int(max_tries)
        self.keep = int(keep)
        self.seed = int(seed)
        #: when a list: each filling the production, naturalness or insertion check refused, as
        #: ``(text, check, value)`` (the naturalness drop or the insertion log-probability; ``None`` when the
        #: production check refused it); for inspection
        self.trace: list[tuple[str, str, float | None]] | None = None

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
            if self.insertions is not None or self.collocations is not None:  # the top ones of those allowed
                ms = masked_sentences(found.tree, self.reference, top=self.top_masks, max_masks=self.max_masks,
                                      keep=self._fillable)
            st.masked_allowed += len(ms)
            picked = sample(ms, self.max_masked, rng_for(self.seed, "masked", found.sentence.id))
            st.masked_used += len(picked)
            jobs.extend((found, preds, m) for m in picked)
        # step 2: one request per mask, other masks left out of the context
        requests: list[tuple[list[str], int]] = []
        owners: list[tuple[int, int]] = []  # (job, mask number)
        for ji, (_, _, m) in enumerate(jobs):
            mwords, mtags = start_cased(m.words, m.tags), m.tags
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
            cased = start_cased(m.words, m.tags)
            for j in order:
                it = iter(fillings[j])
                filled: list[str] = [w if w is not None else next(it) for w in cased]
                tries.append((ji, initial_cased(filled, m.words)))
        st.tried += len(tries)
        # step 4: validation: the tags (one tagger call for everything), boundaries and predicates of every
        # try; then production and naturalness in the tried order until `keep` per masked sentence pass
        tagged = self.tagger([w for _, w in tries]) if tries else []
        passed: dict[int, list[int]] = {}  # job -> its tries that passed so far, in the tried order
        for ti, ((ji, words), tags) in enumerate(zip(tries, tagged, strict=True)):
            found, preds, m = jobs[ji]
            if len(tags) != len(words):
                continue  # the tagger split the words differently: cannot check the tags
            if any(tags[p] != m.tags[p] for p in m.mask_positions) or not self._seen_pairs(words, m):
                continue
            st.tag_ok += 1
            if splits_clitic(words, m.mask_positions) or (
                    not self.acceptance.boundary_repeat and repeats_across_boundary(words, m.mask_positions)) or (
                    not self.acceptance.sentence_repeat and repeats_in_sentence(words, m.mask_positions)):
                continue
            st.boundary_ok += 1
            s = SearchSentence(list(words), list(tags), found.sentence.label, id=found.sentence.id)
            if not all(p.holds(s, knowledge) for p in preds):
                continue
            st.predicates_ok += 1
            passed.setdefault(ji, []).append(ti)
        accepted = first_accepted(passed, self.keep, lambda batch: self._accept(jobs, tries, batch, st))
        out: dict[str, list[Expansion]] = {}
        for ji in sorted(accepted):
            found, _, m = jobs[ji]
            for ti in accepted[ji]:
                words = tries[ti][1]
                exp = Expansion(found.sentence.id, tuple(words), m.text(),
                                tuple(words[p] for p in m.mask_positions), tuple(m.tags[p] for p in m.mask_positions))
                lst = out.setdefault(found.sentence.id, [])
                if all(e.words != exp.words for e in lst):
                    lst.append(exp)
        st.expansions += sum(len(v) for v in out.values())
        st.seeds_expanded += len(out)
        return out

    def _fillable(self, m: MaskedSentence) -> bool:
        """Whether a masked sentence is filled: an insertion the rules allow whose masks have collocated words."""
        return allowed_insertion(m, self.insertions) and self._collocated(m)

    def _collocated(self, m: MaskedSentence) -> bool:
        """Whether every mask of a tag ``collocations`` restricts has a word seen right before the word after it."""
        col = self.collocations
        if col is None:
            return True
        words, tags = m.words, m.tags
        for p in m.mask_positions:
            nxt = words[p + 1] if p + 1 < len(words) else None
            if col.restricts(tags[p]) and not col.before(tags[p], nxt):
                return False
        return True

    def _seen_pairs(self, words: Sequence[str], m: MaskedSentence) -> bool:
        """Whether each fill of a tag ``collocations`` restricts was seen right before the word after it."""
        col = self.collocations
        if col is None:
            return True
        for p in m.mask_positions:
            if col.restricts(m.tags[p]):
                nxt = words[p + 1] if p + 1 < len(words) else None
                if words[p].lower() not in {w.lower() for w in col.before(m.tags[p], nxt)}:
                    return False
        return True

    def _accept(self, jobs: Sequence[tuple[Found, Sequence[Predicate], MaskedSentence]],
                tries: Sequence[tuple[int, list[str]]], batch: list[int], st: ExpansionStats) -> list[bool]:
        """The production and naturalness checks of the tries ``batch`` (indices into ``tries``)."""
        st.checked += len(batch)
        ok = [True] * len(batch)
        acc = self.acceptance
        # each try's (expansion, seed) texts, joined once for both LM checks
        texts = [(" ".join(tries[ti][1]), " ".join(jobs[tries[ti][0]][0].sentence.words)) for ti in batch]
        if acc.trees is not None:
            trees = acc.trees([tries[ti][1] for ti in batch])
            for k, (ti, tree) in enumerate(zip(batch, trees, strict=True)):
                m = jobs[tries[ti][0]][2]
                ok[k] = tree is not None and realises(tree, m.span, m.lhs, m.ref_rhs)
        st.production_ok += sum(ok)
        if self.trace is not None:
            self.trace.extend((" ".join(tries[ti][1]), "production", None) for ti, good in zip(batch, ok, strict=True)
                              if not good)
        if acc.naturalness is not None:
            todo = [k for k in range(len(batch)) if ok[k]]
            pairs = [texts[k] for k in todo]
            drops = acc.naturalness.drops(pairs) if pairs else []
            for k, pair, d in zip(todo, pairs, drops, strict=True):
                ok[k] = d >= acc.naturalness.min_drop
                if not ok[k] and self.trace is not None:
                    self.trace.append((pair[0], "naturalness", d))
        st.natural_ok += sum(ok)
        if acc.min_insertion_logprob and acc.naturalness is not None:
            todo = []
            pairs = []
            bounds: list[float] = []
            for k in range(len(batch)):
                m = jobs[tries[batch[k]][0]][2]
                tag = m.tags[m.mask_positions[0]] if len(m.mask_positions) == 1 else ""
                if ok[k] and tag in acc.min_insertion_logprob:
                    todo.append(k)
                    pairs.append(texts[k])
                    bounds.append(acc.min_insertion_logprob[tag])
            values = acc.naturalness.insertion_logprobs(pairs) if pairs else []
            for k, pair, c, bound in zip(todo, pairs, values, bounds, strict=True):
                ok[k] = c >= bound
                if not ok[k] and self.trace is not None:
                    self.trace.append((pair[0], "insertion", c))
        st.insertion_ok += sum(ok)
        return ok


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
