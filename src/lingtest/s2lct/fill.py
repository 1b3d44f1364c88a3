"""Filling S2LCT's masks: the causal LM's own next words, or a (word, PTB tag) lexicon ranked in context by a
causal LM (both offline), or a masked LM (hub), all behind the shared
:class:`~lingtest.resources.fill.FillProposer` protocol.

A request is ``(tokens, position)`` where ``tokens[position]`` is a mask placeholder ``{TAG}``
(:func:`mask_token`); the other masks of the sentence are left out of the request's tokens.

* :class:`TaggedLexicon`: word counts per PTB tag from tagged corpora (gold trees or parsed
  corpora), lower-cased when ``lowercase``, the ``max_per_tag`` most frequent words seen at least
  ``min_count`` times per tag.
* :class:`LexiconLMFillProposer` (``lexicon_lm``): the ``max_candidates`` most frequent lexicon words
  for the mask's tag that pass ``prefilter`` (S2LCT: alphanumeric and SentiWordNet-neutral, checked
  before the LM to save work) and are not already in the sentence, scored by the causal LM as
  ``left context + word + the next window words`` (the left context's probability is shared, so
  only the differences matter: ``score_kind`` ``"logprob"``), rounded to the ``logprob`` decimals of
  ``resources.score_decimals``, best first (equal scores alphabetically).
* :class:`MaskedLMFill` (``masked_lm``): the shared masked-LM proposer at the placeholder
  (the reference uses ``roberta-base``).
* :class:`LMNextFillProposer` (``lm_next``): the causal LM's own next words in context. It

  1. takes its candidates: for a tag the expander's :class:`Collocations` restrict (an adjective before a noun),
     the words seen right before the word after the mask in the suite's corpus; else the causal LM's
     ``candidates`` most probable next *words* after the left context
     (:class:`~lingtest.resources.next_words.CausalNextWords`: the most probable tokens that start a word,
     each continued greedily while the most probable next token continues the word, ``max_pieces`` tokens at
     most) and the ``lexicon_candidates`` most frequent words of the tag;
  2. lower-cases them in a sentence without capitals (:func:`cased_like`), keeps those the mask's tag allows:
     alphanumeric (one character: a word the lexicon knows), passing ``prefilter`` and, with a
     ``tag_filter`` lexicon, a word the lexicon knows must have been seen with the tag (unknown words pass),
     then, with the expander's tagger (:class:`TagsInContext`), those tagged with the mask's tag in the
     request's sentence;
  3. scores them as ``left context + word + the next window words`` (the shared left context left out; window
     0: the word alone) and, with ``rescore``, scores the best ``rescore`` again by their gain
     (:func:`insertion_gain`: ``left + word + the next rescore_window words`` against the same without the word),
     rounded to the ``logprob`` decimals, best first, equal scores by word.

  Its keys are ``s2lct.expansion.fill.lm_next`` (:class:`LMNextOptions`).

All three are registered in :data:`lingtest.s2lct.components.FILL_PROPOSERS` and built from
``s2lct.expansion.fill`` by their ``from_config`` (``Config``: the keys of that section each reads).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from lingtest.config import Block
from lingtest.resources.fill import (
    Fill,
    FillProposerBase,
    FillRequest,
    MaskedLMFillConfig,
    MaskedLMFillProposer,
    check_request,
)
from lingtest.resources.next_words import CausalNextWords, NextWordSource
from lingtest.resources.scores import ScoreGrid, stable_ranking

__all__ = ["Collocations", "LMNextFillConfig", "LMNextFillProposer", "LMNextOptions", "LexiconLMFillConfig",
           "LexiconLMFillProposer", "LexiconOptions", "MaskedLMFill", "TagsInContext", "TaggedLexicon", "cased_like",
           "mask_tag", "mask_token", "request_texts", "tagged_in_context"]

_MASK_RE = re.compile(r"^\{([^{}\s]+)\}$")


def mask_token(tag: str) -> str:
    return "{" + tag + "}"


def mask_tag(token: str) -> str | None:
    """The tag of a placeholder ``{TAG}``, else ``None``."""
    m = _MASK_RE.match(token)
    return m.group(1) if m else None


class TaggedLexicon:
    """Words per PTB tag, most frequent first (ties: alphabetical)."""

    def __init__(self, pairs: Iterable[tuple[str, str]], *, min_count: int, max_per_tag: int | None,
                 lowercase: bool) -> None:
        counts: dict[str, Counter[str]] = {}
        for word, tag in pairs:
            if not word or not tag:
                continue
            w = word.lower() if lowercase else word
            counts.setdefault(tag, Counter())[w] += 1
        self.lowercase = bool(lowercase)
        self.words: dict[str, list[str]] = {}
        self.tags_of: dict[str, set[str]] = {}  # word -> the tags it was seen with (min_count times, no cap)
        for tag, c in counts.items():
            ranked = sorted((w for w, n in c.items() if n >= int(min_count)), key=lambda w: (-c[w], w))
            self.words[tag] = ranked[:max_per_tag] if max_per_tag is not None else ranked
            for w in ranked:
                self.tags_of.setdefault(w, set()).add(tag)

    def candidates(self, tag: str) -> list[str]:
        return list(self.words.get(tag, ()))

    def knows(self, word: str) -> bool:
        """Whether the lexicon has seen ``word`` (``min_count`` times with some tag)."""
        return (word.lower() if self.lowercase else word) in self.tags_of

    def allows(self, word: str, tag: str) -> bool:
        """Whether ``word`` may have ``tag``: a word the lexicon knows (seen ``min_count`` times with some
        tag) only with a tag it was seen with; an unknown word with any."""
        seen = self.tags_of.get(word.lower() if self.lowercase else word)
        return seen is None or tag in seen

    def __len__(self) -> int:
        return sum(len(v) for v in self.words.values())


class Collocations:
    """How often a word of a tag comes right before a word in a tagged corpus (words lower-cased): ``counts`` maps
    ``(tag, the next word)`` to the counts of the words of that tag seen right before it. :meth:`before` restricts
    the tags of ``min_count`` (tag -> the fewest times a pair must have been seen); other tags are free."""

    def __init__(self, counts: Mapping[tuple[str, str], Mapping[str, int]], min_count: Mapping[str, int]) -> None:
        self.counts = {k: dict(v) for k, v in counts.items()}
        self.min_count = {t: int(n) for t, n in min_count.items()}

    @classmethod
    def count(cls, sentences: Iterable[tuple[Sequence[str], Sequence[str]]], min_count: Mapping[str, int],
              top: int | None) -> Collocations:
        """The pairs of ``sentences`` (``(words, PTB tags)``) whose first word has a tag of ``min_count`` and is one
        of the ``top`` words of its tag seen most often in such pairs (null: any; ties alphabetical). A word keeps
        the spelling it has most often (ties: the first in sorted order), so proper adjectives keep their
        capital."""
        counts: dict[tuple[str, str], Counter[str]] = {}
        spellings: dict[str, Counter[str]] = {}
        for words, tags in sentences:
            for i in range(len(words) - 1):
                if tags[i] in min_count:
                    w = words[i].lower()
                    counts.setdefault((tags[i], words[i + 1].lower()), Counter())[w] += 1
                    spellings.setdefault(w, Counter())[words[i]] += 1
        if top is not None:
            totals: dict[str, Counter[str]] = {}
            for (tag, _), c in counts.items():
                totals.setdefault(tag, Counter()).update(c)
            keep = {t: set(sorted(c, key=lambda w: (-c[w], w))[: int(top)]) for t, c in totals.items()}
            counts = {k: Counter({w: n for w, n in c.items() if w in keep[k[0]]}) for k, c in counts.items()}
        spelled = {w: sorted(c, key=lambda v: (-c[v], v))[0] for w, c in spellings.items()}
        return cls({k: {spelled[w]: n for w, n in c.items()} for k, c in counts.items() if c}, min_count)

    def restricts(self, tag: str) -> bool:
        """Whether a fill of ``tag`` must have been seen before the word after its mask."""
        return tag in self.min_count

    def before(self, tag: str, word: str | None) -> list[str]:
        """The words of ``tag`` seen right before ``word`` at least ``min_count[tag]`` times, most often first
        (ties alphabetical); none after the sentence's last word (``word`` ``None``)."""
        if word is None:
            return []
        c = self.counts.get((tag, word.lower()), {})
        n = self.min_count.get(tag, 1)
        return sorted((w for w, k in c.items() if k >= n), key=lambda w: (-c[w], w))

    def filtered(self, keep: Callable[[str, str], bool]) -> Collocations:
        """The same counts with only the words ``keep(word, tag)`` allows."""
        counts = {k: {w: n for w, n in v.items() if keep(w, k[0])} for k, v in self.counts.items()}
        return Collocations({k: v for k, v in counts.items() if v}, self.min_count)


def _request_tag(tokens: Sequence[str], position: int) -> str:
    tag = mask_tag(tokens[position])
    if tag is None:
        raise ValueError(f"tokens[{position}] = {tokens[position]!r} is not a mask placeholder {{TAG}}")
    return tag


class LexiconOptions(Block):
    """``s2lct.expansion.fill.lexicon``: the prepared corpora whose (word, PTB tag) pairs make the
    :class:`TaggedLexicon`, its ``min_count`` and ``max_per_tag`` (null: no limit), and ``lowercase``
    (the words lower-cased before they are counted)."""

    corpora: tuple[str, ...]
    min_count: int
    max_per_tag: int | None
    lowercase: bool


class LexiconLMFillConfig(Block):
    """The keys of ``s2lct.expansion.fill`` that ``lexicon_lm`` reads: the lexicon, the words after the mask
    the LM scores (``lm_window``; null: the whole sentence) and the lexicon words per mask it ranks
    (``lm_candidates``; null: all)."""

    lexicon: LexiconOptions
    lm_window: int | None
    lm_candidates: int | None


class LexiconLMFillProposer(FillProposerBase):
    name = "lexicon_lm"
    score_kind = "logprob"
    Config = LexiconLMFillConfig

    @classmethod
    def from_config(cls, config: LexiconLMFillConfig, parts: Any) -> LexiconLMFillProposer:
        """``parts`` (:class:`lingtest.s2lct.components.FillParts`): the tagged words of the lexicon's
        corpora, the causal LM of ``resources.lm``, the score grid and S2LCT's prefilter."""
        lc = config.lexicon
        lexicon = TaggedLexicon(parts.tagged_words(lc.corpora), min_count=lc.min_count, max_per_tag=lc.max_per_tag,
                                lowercase=lc.lowercase)
        return cls(lexicon, parts.lm_scorer(None), grid=parts.score_grid, window=config.lm_window,
                   max_candidates=config.lm_candidates, prefilter=parts.prefilter)

    def __init__(self, lexicon: TaggedLexicon, scorer: Any, *, grid: ScoreGrid, window: int | None,
                 max_candidates: int | None, prefilter: Callable[[str, str], bool] | None = None) -> None:
        self.lexicon = lexicon
        self.scorer = scorer
        self.grid = grid
        self.window = None if window is None else int(window)
        self.max_candidates = None if max_candidates is None else int(max_candidates)
        self.prefilter = prefilter
        self.texts_scored = 0

    def _candidates(self, tag: str, original: Sequence[str]) -> list[str]:
        """The most frequent ``max_candidates`` words of the tag that pass ``prefilter`` and are not
        in the sentence already."""
        out = []
        present = {w.lower() for w in original}
        for w in self.lexicon.candidates(tag):
            if w in present or (self.prefilter is not None and not self.prefilter(w, tag)):
                continue
            out.append(w)
            if self.max_candidates is not None and len(out) >= self.max_candidates:
                break
        return out

    def propose_many(self, requests: Sequence[FillRequest], k: int) -> list[list[Fill]]:
        groups: list[list[str]] = []
        cands: list[list[str]] = []
        for tokens, position in requests:
            check_request(tokens, position, k)
            tag = _request_tag(tokens, position)
            words = self._candidates(tag, tokens)
            left = " ".join(tokens[:position])
            right_toks = list(tokens[position + 1:])
            if self.window is not None:
                right_toks = right_toks[: self.window]
            right = (" " + " ".join(right_toks)) if right_toks else ""
            prefix = (left + " ") if left else ""
            groups.append([prefix + w + right for w in words])
            cands.append(words)
        scores = self.scorer.score_grouped(groups, relative=True) if any(groups) else [[] for _ in groups]
        self.texts_scored += sum(len(g) for g in groups)
        out: list[list[Fill]] = []
        for words, sc in zip(cands, scores, strict=True):
            fills = [Fill(w, self.grid.round("logprob", s)) for w, s in zip(words, sc, strict=True)]
            out.append(stable_ranking(fills, lambda f: f.score, lambda f: f.word)[:k])
        return out


class MaskedLMFill(FillProposerBase):
    """The shared masked-LM proposer at a ``{TAG}`` placeholder; ``prefilter`` as above."""

    name = "masked_lm"
    score_kind = "prob"
    Config = MaskedLMFillConfig

    @classmethod
    def from_config(cls, config: MaskedLMFillConfig, parts: Any) -> MaskedLMFill:
        """The shared masked-LM proposer of ``masked_lm`` (loaded on first use), S2LCT's prefilter."""
        return cls(MaskedLMFillProposer.from_config(config, parts), prefilter=parts.prefilter)

    def __init__(self, proposer: Any, *, prefilter: Callable[[str, str], bool] | None = None) -> None:
        self.proposer = proposer
        self.prefilter = prefilter

    def propose_many(self, requests: Sequence[FillRequest], k: int) -> list[list[Fill]]:
        tags = [_request_tag(t, p) for t, p in requests]
        got = self.proposer.propose_many(requests, k)
        out = []
        for tag, fills in zip(tags, got, strict=True):
            out.append([f for f in fills if self.prefilter is None or self.prefilter(f.word, tag)])
        return out


# ---- lm_next: the causal LM's own next words (lingtest.resources.next_words) ---------------------------
#: ``tag(list of word lists) -> list of tag lists`` (the expander's tagger, :data:`lingtest.s2lct.expand.Tagger`)
Tagger = Callable[[list[list[str]]], list[list[str]]]


@runtime_checkable
class TagsInContext(Protocol):
    """A proposer that keeps only the words whose tag in context is the mask's, with the tagger the expander
    gives it (``tagger``; ``None``: no such filter)."""

    tagger: Tagger | None


class LMNextOptions(Block):
    """``s2lct.expansion.fill.lm_next``: ``candidates`` (next words per mask taken from the LM),
    ``lexicon_candidates`` (the tag filter's most frequent words of the mask's tag added to them; 0: none),
    ``max_pieces`` (tokens a word is continued to), ``window`` (words after the mask the rescoring reads;
    null: the whole sentence; 0: the word alone), ``rescore`` (the best this many are scored again against the
    sentence without them; null: not), ``rescore_window`` (the words after the mask that second scoring reads;
    null: the whole sentence) and ``tag_filter`` (a lexicon a known word must have been seen in with the
    mask's tag; null: none)."""

    candidates: int
    lexicon_candidates: int
    max_pieces: int
    window: int | None
    rescore: int | None
    rescore_window: int | None
    tag_filter: LexiconOptions | None


class LMNextFillConfig(Block):
    """The keys of ``s2lct.expansion.fill`` that ``lm_next`` reads."""

    lm_next: LMNextOptions


def request_texts(tokens: Sequence[str], position: int, words: Sequence[str], window: int | None) -> list[str]:
    """``left context + word + the next window words`` for each word (``window`` null: the whole rest)."""
    right = list(tokens[position + 1:])
    if window is not None:
        right = right[:window]
    prefix = " ".join(tokens[:position])
    tail = (" " + " ".join(right)) if right else ""
    return [(prefix + " " if prefix else "") + w + tail for w in words]


def without_mask(tokens: Sequence[str], position: int, window: int | None) -> str:
    """The request's sentence without its mask: the left context and the next ``window`` words (null: all)."""
    right = list(tokens[position + 1:])
    return " ".join([*tokens[:position], *(right if window is None else right[:window])])


def insertion_gain(with_word: float, without: float, grid: ScoreGrid) -> float:
    """How much more (> 0) or less (< 0) probable the sentence is with the inserted word than without it: the
    difference of two summed log-probabilities (the word's own log-probability included), on the ``logprob``
    grid."""
    return grid.round("logprob", with_word - without)


def cased_like(tokens: Sequence[str], position: int, words: Sequence[str]) -> list[str]:
    """``words`` for the mask at ``position``: lower-cased (and then each kept once, first place) when the rest of
    the sentence has no capital letter (a lower-cased corpus such as S2LCT's HateXplain search), else as they
    are."""
    if any(ch.isupper() for i, t in enumerate(tokens) if i != position for ch in t):
        return list(words)
    return list(dict.fromkeys(w.lower() for w in words))


def tagged_in_context(tagger: Tagger, requests: Sequence[FillRequest], tags: Sequence[str],
                      cands: Sequence[Sequence[str]]) -> list[list[str]]:
    """The words of ``cands`` (per request) that ``tagger`` tags with the request's mask tag (``tags``) in the
    request's sentence (one tagger call for every request)."""
    sents = [[*t[:p], w, *t[p + 1:]] for (t, p), ws in zip(requests, cands, strict=True) for w in ws]
    got = iter(tagger(sents) if sents else [])
    out: list[list[str]] = []
    for (t, p), tag, ws in zip(requests, tags, cands, strict=True):
        keep = []
        for w in ws:
            wt = next(got)
            if len(wt) == len(t) and wt[p] == tag:
                keep.append(w)
        out.append(keep)
    return out


class LMNextFillProposer(FillProposerBase):
    name = "lm_next"
    score_kind = "logprob"
    Config = LMNextFillConfig

    @classmethod
    def from_config(cls, config: LMNextFillConfig, parts: Any) -> LMNextFillProposer:
        """``parts`` (:class:`lingtest.s2lct.components.FillParts`): the causal LM of ``resources.lm``, the
        score grid, the tagged words of the tag filter's corpora and S2LCT's prefilter."""
        o = config.lm_next
        scorer = parts.lm_scorer(None)
        grid = parts.score_grid
        lexicon = None
        if o.tag_filter is not None:
            tf = o.tag_filter
            lexicon = TaggedLexicon(parts.tagged_words(tf.corpora), min_count=tf.min_count,
                                    max_per_tag=tf.max_per_tag, lowercase=tf.lowercase)
        words = CausalNextWords.of_scorer(scorer, grid=grid, max_pieces=o.max_pieces,
                                          known=lexicon.knows if lexicon is not None else None)
        return cls(words, scorer, grid=grid, candidates=o.candidates, lexicon_candidates=o.lexicon_candidates,
                   window=o.window, rescore=o.rescore,
                   rescore_window=o.rescore_window, tag_lexicon=lexicon, prefilter=parts.prefilter, tagger=None)

    def __init__(self, words: NextWordSource, scorer: Any, *, grid: ScoreGrid, candidates: int, window: int | None,
                 tag_lexicon: TaggedLexicon | None, prefilter: Callable[[str, str], bool] | None,
                 tagger: Tagger | None, lexicon_candidates: int = 0, rescore: int | None = None,
                 rescore_window: int | None = None) -> None:
        self.words = words
        self.scorer = scorer
        self.grid = grid
        self.candidates = int(candidates)
        self.lexicon_candidates = int(lexicon_candidates)
        self.rescore = None if rescore is None else int(rescore)
        self.rescore_window = None if rescore_window is None else int(rescore_window)
        self.window = None if window is None else int(window)
        self.tag_lexicon = tag_lexicon
        self.prefilter = prefilter
        self.tagger = tagger  # the expander's tagger (set when it is built): the tag of each word in context
        self.collocations: Collocations | None = None  # set by the expander: pairs a fill must have been seen in
        self.texts_scored = 0
        self.texts_tagged = 0

    def allowed(self, word: str, tag: str) -> bool:
        """Whether ``word`` may fill a ``tag`` mask before the LM rescores it (step 2 of the module notes; a
        one-character word only when the tag lexicon knows it: ``a``, ``I``, not a stray ``s``)."""
        if not word.isalnum():
            return False
        if len(word) < 2 and (self.tag_lexicon is None or not self.tag_lexicon.knows(word)):
            return False
        if self.tag_lexicon is not None and not self.tag_lexicon.allows(word, tag):
            return False
        return self.prefilter is None or self.prefilter(word, tag)

    def _collocated(self, tokens: Sequence[str], position: int, tag: str) -> list[str] | None:
        """For a tag ``collocations`` restricts: the words seen right before the word after the mask (most often
        first, at most ``candidates``) that :meth:`allowed` keeps; ``None`` for other tags."""
        col = self.collocations
        if col is None or not col.restricts(tag):
            return None
        nxt = tokens[position + 1] if position + 1 < len(tokens) else None
        seen = [w for w in cased_like(tokens, position, col.before(tag, nxt)) if self.allowed(w, tag)]
        return seen[: self.candidates]

    def _with_lexicon(self, words: list[str], tag: str) -> list[str]:
        """``words``, then the ``lexicon_candidates`` most frequent words of ``tag`` in the tag lexicon that
        :meth:`allowed` keeps and ``words`` lacks (case-insensitive)."""
        if self.tag_lexicon is None or self.lexicon_candidates <= 0:
            return words
        have = {w.lower() for w in words}
        extra = [w for w in self.tag_lexicon.candidates(tag) if w.lower() not in have and self.allowed(w, tag)]
        return [*words, *extra[: self.lexicon_candidates]]

    def propose_many(self, requests: Sequence[FillRequest], k: int) -> list[list[Fill]]:
        tags: list[str] = []
        for tokens, position in requests:
            check_request(tokens, position, k)
            tag = mask_tag(tokens[position])
            if tag is None:
                raise ValueError(f"tokens[{position}] = {tokens[position]!r} is not a mask placeholder {{TAG}}")
            tags.append(tag)
        fixed = [self._collocated(t, p, tag) for (t, p), tag in zip(requests, tags, strict=True)]
        ask = [i for i, f in enumerate(fixed) if f is None]
        nexts = self.words.next_words([" ".join(requests[i][0][: requests[i][1]]) for i in ask],
                                      self.candidates) if ask else []
        cands = [f or [] for f in fixed]
        for i, ws in zip(ask, nexts, strict=True):
            (t, p), tag = requests[i], tags[i]
            cands[i] = self._with_lexicon([w for w in cased_like(t, p, [w for w, _ in ws]) if self.allowed(w, tag)],
                                          tag)
        if self.tagger is not None:
            self.texts_tagged += sum(len(c) for c in cands)
            cands = tagged_in_context(self.tagger, requests, tags, cands)
        ranked = self._ranked(requests, cands, self.window)
        if self.rescore is not None:
            ranked = self._gain_ranked(requests, [[f.word for f in r[: self.rescore]] for r in ranked],
                                       self.rescore_window)
        return [r[:k] for r in ranked]

    def _ranked(self, requests: Sequence[FillRequest], cands: Sequence[Sequence[str]],
                window: int | None) -> list[list[Fill]]:
        """Each request's words scored as ``left context + word + the next window words`` (the shared left context
        left out), on the grid, best first (equal scores by word)."""
        groups = [request_texts(t, p, ws, window) for (t, p), ws in zip(requests, cands, strict=True)]
        scores = self.scorer.score_grouped(groups, relative=True) if any(groups) else [[] for _ in groups]
        self.texts_scored += sum(len(g) for g in groups)
        out: list[list[Fill]] = []
        for words, sc in zip(cands, scores, strict=True):
            fills = [Fill(w, self.grid.round("logprob", s)) for w, s in zip(words, sc, strict=True)]
            out.append(stable_ranking(fills, lambda f: f.score, lambda f: f.word))
        return out

    def _gain_ranked(self, requests: Sequence[FillRequest], cands: Sequence[Sequence[str]],
                     window: int | None) -> list[list[Fill]]:
        """Each request's words scored by their gain (:func:`insertion_gain`): the log-probability of ``left context
        + word + the next window words`` minus that of ``left context + the next window words`` (null: the whole
        sentence), on the grid, best first (equal scores by word)."""
        groups = [[without_mask(t, p, window), *request_texts(t, p, ws, window)] if ws else []
                  for (t, p), ws in zip(requests, cands, strict=True)]
        scores = self.scorer.score_grouped(groups, relative=True) if any(groups) else [[] for _ in groups]
        self.texts_scored += sum(len(g) for g in groups)
        out: list[list[Fill]] = []
        for words, sc in zip(cands, scores, strict=True):
            fills = [Fill(w, insertion_gain(s, sc[0], self.grid)) for w, s in zip(words, sc[1:], strict=True)]
            out.append(stable_ranking(fills, lambda f: f.score, lambda f: f.word))
        return out
