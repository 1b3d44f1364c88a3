"""Filling S2LCT's masks: a (word, PTB tag) lexicon ranked in context by a causal LM (offline), or
a masked LM (hub), both behind the shared :class:`~lingtest.resources.fill.FillProposer` protocol.

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

Both are registered in :data:`lingtest.s2lct.components.FILL_PROPOSERS` and built from
``s2lct.expansion.fill`` by their ``from_config`` (``Config``: the keys of that section each reads).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from lingtest.config import Block
from lingtest.resources.fill import (
    Fill,
    FillProposerBase,
    FillRequest,
    MaskedLMFillConfig,
    MaskedLMFillProposer,
    check_request,
)
from lingtest.resources.scores import ScoreGrid, stable_ranking

__all__ = ["LexiconLMFillConfig", "LexiconLMFillProposer", "LexiconOptions", "MaskedLMFill", "TaggedLexicon",
           "mask_tag", "mask_token"]

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
        self.words: dict[str, list[str]] = {}
        for tag, c in counts.items():
            ranked = sorted((w for w, n in c.items() if n >= int(min_count)), key=lambda w: (-c[w], w))
            self.words[tag] = ranked[:max_per_tag] if max_per_tag is not None else ranked

    def candidates(self, tag: str) -> list[str]:
        return list(self.words.get(tag, ()))

    def __len__(self) -> int:
        return sum(len(v) for v in self.words.values())


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
