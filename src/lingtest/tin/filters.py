"""The mutant filters, counted per transformation: the two of TIN (section 3.3) and a fit filter.

* Semantic (token and phrase level; any mutant with a ``changed`` span): the cosine similarity of
  the context-aware embeddings (:class:`lingtest.tin.embedding.TokenEmbedder`) of the replaced span
  in s and of its replacement in s' must be ``>= semantic_threshold[transformation]`` (0.65 in the
  paper). A transformation without a threshold (``None``) is not filtered.
* Naturalness (every mutant): SynEval as AEON computes it, ``weight_min * min + weight_mean * mean``
  of the per-token probabilities of the sentence (0.6 and 0.4), from a scorer's
  ``token_logprobs(texts)`` - the causal LM offline
  (:meth:`lingtest.resources.lm.CausalLMScorer.token_logprobs`), or a masked LM's pseudo-likelihood
  terms (:meth:`lingtest.resources.lm.MaskedLMScorer.token_logprobs`: each word piece masked in
  turn, AEON's method). A mutant is kept when ``score(s') >= score(s) - epsilon[transformation]``
  (the paper: 0.01, 0.02 for the structural transformation, for the CoNLL-scheme system; 0 for the
  others).

* Fit (lingtest's addition; any mutant with a ``changed`` span): the replacement must fit its left
  context about as well as what it replaced. The LM log-probability of the mutant up to ``fit_window``
  words after its replacement, minus the source's up to as many words after the replaced span
  (:func:`lingtest.resources.naturalness.logprob_differences`: the left context they share cancels), must be
  ``>= fit[transformation]``: -5 lets a replacement through that is at least 1/150 as probable as the
  original in its place. A word in a sense or collocation the sentence does not take is much less probable
  than the original there (*was exported at $15.625 per GDR*, *start generating Carlsberg beer*, *had its
  cut eye on*), a synonym in the right sense rarely is. A transformation without a threshold (``None``) is
  not filtered.

The semantic filter runs first, then the fit filter on its survivors; the naturalness filter scores only
theirs. All three decide on the grid of ``resources.score_decimals``
(:class:`~lingtest.resources.scores.ScoreGrid`), so float noise in the embeddings or log-probabilities
(another CPU, another batch layout) does not change which mutants are kept: the cosine is rounded to the
``similarity`` decimals before it meets its threshold, the fit to the ``logprob`` decimals; each token
log-probability is rounded to the ``logprob`` decimals before SynEval, whose value is rounded to the
``prob`` decimals before source and mutant are compared.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from lingtest.errors import ConfigError
from lingtest.resources.naturalness import TokenLogprobScorer, logprob_differences, naturalness_pairs
from lingtest.resources.scores import ScoreGrid
from lingtest.tin.embedding import TokenEmbedder, span_similarities
from lingtest.tin.mutant import Mutant
from lingtest.tin.text import detokenize


@dataclass(frozen=True, slots=True)
class FilterConfig:
    """``semantic_threshold``, ``fit`` (the least log-probability difference of a replacement, see the module
    doc) and ``epsilon`` by transformation name; SynEval weights; ``grid``: the decimals scores are rounded to
    (``resources.score_decimals``); ``fit_window``: the words after a replacement that the fit filter scores
    with it (``None``: the rest of the sentence)."""

    semantic_threshold: Mapping[str, float | None]
    epsilon: Mapping[str, float]
    weight_min: float
    weight_mean: float
    grid: ScoreGrid
    fit: Mapping[str, float | None]
    fit_window: int | None

    def __post_init__(self) -> None:
        if self.fit_window is not None and self.fit_window < 0:
            raise ConfigError(f"the fit filter's window must be >= 0 words or null, got {self.fit_window}")

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], grid: ScoreGrid) -> FilterConfig:
        try:
            return cls(semantic_threshold=dict(d["semantic_threshold"]), epsilon=dict(d["epsilon"]),
                       weight_min=float(d["weight_min"]), weight_mean=float(d["weight_mean"]), grid=grid,
                       fit=dict(d["fit"]), fit_window=None if d["fit_window"] is None else int(d["fit_window"]))
        except KeyError as exc:
            raise ConfigError(f"filter config lacks {exc}") from None


@dataclass(slots=True)
class FilterCounts:
    """Mutants of one transformation: generated, removed by each filter (semantic, fit, naturalness, in the
    order they run), kept."""

    generated: int = 0
    semantic_removed: int = 0
    naturalness_removed: int = 0
    fit_removed: int = 0

    @property
    def kept(self) -> int:
        return self.generated - self.semantic_removed - self.fit_removed - self.naturalness_removed

    def add(self, other: FilterCounts) -> None:
        """Add ``other``'s counts (another transformation's, or another wave's)."""
        self.generated += other.generated
        self.semantic_removed += other.semantic_removed
        self.fit_removed += other.fit_removed
        self.naturalness_removed += other.naturalness_removed

    def to_dict(self) -> dict[str, int]:
        after_semantic = self.generated - self.semantic_removed
        return {"generated": self.generated, "semantic_removed": self.semantic_removed,
                "after_semantic": after_semantic, "fit_removed": self.fit_removed,
                "after_fit": after_semantic - self.fit_removed,
                "naturalness_removed": self.naturalness_removed, "kept": self.kept}


@dataclass(slots=True)
class FilterResult:
    kept: list[Mutant]
    counts: dict[str, FilterCounts] = field(default_factory=dict)


def fit_texts(mutant: Mutant, window: int | None) -> tuple[str, str]:
    """The source and the mutant as the fit filter scores them: each up to ``window`` words after the replaced
    span and its replacement (``None``: whole). ``mutant`` must have its ``changed`` spans."""
    if mutant.changed is None or mutant.changed_followup is None:
        raise ValueError(f"mutant {mutant.id} of {mutant.transformation!r} has no replaced span")
    if window is None:
        return detokenize(mutant.source), detokenize(mutant.tokens)
    return (detokenize(mutant.source[: mutant.changed[1] + window]),
            detokenize(mutant.tokens[: mutant.changed_followup[1] + window]))


def _below(mutants: Sequence[Mutant], raw: Sequence[float], score: str, unit: str,
           thresholds: Mapping[str, float | None], config: FilterConfig,
           counts: dict[str, FilterCounts]) -> set[int]:
    """Record each mutant's ``score`` (``raw`` on the grid's ``unit``) and return the ids of those under their
    transformation's threshold, counted in ``counts`` as ``<score>_removed``."""
    dropped: set[int] = set()
    for m, value in zip(mutants, raw, strict=True):
        v = config.grid.round(unit, value)
        m.scores[score] = v
        if v < float(thresholds[m.transformation]):  # type: ignore[arg-type]
            dropped.add(id(m))
            c = counts[m.transformation]
            setattr(c, f"{score}_removed", getattr(c, f"{score}_removed") + 1)
    return dropped


def filter_mutants(mutants: Sequence[Mutant], *, embedder: TokenEmbedder | None, lm: TokenLogprobScorer,
                   config: FilterConfig, packed: bool = False) -> FilterResult:
    """Apply the three filters, on the grid of ``config.grid``; scores (on the grid) go to ``Mutant.scores``
    (``semantic``, ``fit``, ``naturalness``, ``naturalness_source``) of every mutant that reached them.
    ``lm`` scores the fit and the naturalness. ``packed``: score each source with its mutants in one packed
    group (:func:`naturalness_pairs`)."""
    counts: dict[str, FilterCounts] = {}
    for m in mutants:
        counts.setdefault(m.transformation, FilterCounts()).generated += 1
        if m.transformation not in config.epsilon:
            raise ConfigError(f"no naturalness epsilon for transformation {m.transformation!r}")

    # semantic
    todo = [m for m in mutants if m.changed is not None and m.changed_followup is not None
            and config.semantic_threshold.get(m.transformation) is not None]
    if todo and embedder is None:
        raise ConfigError("the semantic filter needs a token embedder")
    sims = span_similarities(embedder, [((m.source, m.changed), (m.tokens, m.changed_followup))  # type: ignore[arg-type,misc]
                                        for m in todo]) if todo else []
    dropped = _below(todo, sims, "semantic", "similarity", config.semantic_threshold, config, counts)
    survivors = [m for m in mutants if id(m) not in dropped]

    # fit
    todo = [m for m in survivors if m.changed is not None and m.changed_followup is not None
            and config.fit.get(m.transformation) is not None]
    diffs = logprob_differences(lm, [fit_texts(m, config.fit_window) for m in todo]) if todo else []
    dropped = _below(todo, diffs, "fit", "logprob", config.fit, config, counts)
    survivors = [m for m in survivors if id(m) not in dropped]

    # naturalness
    pairs = [(detokenize(m.source), detokenize(m.tokens)) for m in survivors]
    scores = naturalness_pairs(lm, pairs, weight_min=config.weight_min, weight_mean=config.weight_mean,
                               grid=config.grid, packed=packed)
    kept = []
    for m, (src, new) in zip(survivors, scores, strict=True):
        m.scores["naturalness_source"] = src
        m.scores["naturalness"] = new
        # both on the prob grid; the bound too, so that ``src - epsilon`` adds no float noise of its own
        if new >= config.grid.round("prob", src - float(config.epsilon[m.transformation])):
            kept.append(m)
        else:
            counts[m.transformation].naturalness_removed += 1
    return FilterResult(kept, counts)
