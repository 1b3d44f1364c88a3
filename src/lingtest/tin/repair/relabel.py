"""Black-box relabelling of a suspicious entity (TIN section 3.5.2, Algorithm 1).

For a suspicious span ``e_s`` of sentence ``s``, every word ``w_a`` of the span is masked in turn
and the fill-in proposer's ``top_k`` fills ``(w_b, p)`` are screened (lines 8-14): the format must be
consistent with ``w_a`` (:func:`format_consistent`), ``p >= p_threshold``, and the context
similarity of the span in ``s`` and in the mutant ``s_m`` must be ``>= sim_threshold``. With
``subwords`` and a proposer that implements
:class:`~lingtest.resources.fill.SubwordFillProposer`, each word piece is masked in turn as well
(those mutants are weighted by ``lam``). The NER system labels every ``s_m``; its label for the
mutated span (an entity with exactly that span, else the class ``NULL``) receives
``F(p, sim)`` (Eq. 5):

``F = p * exp(k * sim)``, times ``alpha`` when the label is NULL, times ``lam`` for a subword.

The label with the largest total is the relabel and its total the ``p_score`` (lines 19-20; ties
go to the alphabetically first label, NULL included). When no mutant survives (or every total is
0), the original prediction stands, with ``p_score = KEEP_SCORE`` (1e18, as the public TIN code).
The paper: bert-large-cased, ``top_k`` 50 in the code, raw logit ``p_threshold`` 5.5,
``sim_threshold`` 0.45, ``k`` 2.5, ``alpha`` 0.2, ``lam`` 0.5.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lingtest.data.model import Entity
from lingtest.errors import ConfigError
from lingtest.resources.fill import FillProposer, SubwordFillProposer
from lingtest.tin.embedding import TokenEmbedder, span_similarities
from lingtest.tin.spans import Span

NULL = "NULL"
KEEP_SCORE = 1e18
_DIGIT = re.compile(r"\d")


@dataclass(frozen=True, slots=True)
class RelabelConfig:
    top_k: int
    p_threshold: float
    sim_threshold: float
    k: float
    alpha: float
    lam: float
    subwords: bool

    def __post_init__(self) -> None:
        if self.top_k < 1:
            raise ConfigError(f"relabel top_k must be positive, got {self.top_k}")
        if not (0 < self.alpha <= 1 and 0 < self.lam <= 1):
            raise ConfigError("alpha and lam must lie in (0, 1]")

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> RelabelConfig:
        try:
            return cls(top_k=int(d["top_k"]), p_threshold=float(d["p_threshold"]),
                       sim_threshold=float(d["sim_threshold"]), k=float(d["k"]), alpha=float(d["alpha"]),
                       lam=float(d["lam"]), subwords=bool(d["subwords"]))
        except KeyError as exc:
            raise ConfigError(f"relabel config lacks {exc}") from None


@dataclass(frozen=True, slots=True)
class RelabelJob:
    """Relabel ``tokens[span[0]:span[1]]``."""

    tokens: tuple[str, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class RelabelMutant:
    """``tokens[position]`` replaced by ``word`` (a whole word, or a word with one piece replaced
    when ``subword``); ``span`` is the mutated entity (the job's span)."""

    job: int
    position: int
    subword: bool
    word: str
    tokens: tuple[str, ...]
    span: Span
    p: float
    sim: float


@dataclass(frozen=True, slots=True)
class RelabelResult:
    """``label``: the relabel (``None``: NULL, not an entity); ``kept_original``: no evidence, the
    original prediction stands."""

    label: str | None
    p_score: float
    scores: dict[str, float]
    kept_original: bool = False
    mutants: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "p_score": self.p_score, "kept_original": self.kept_original,
                "mutants": self.mutants, "scores": {k: round(v, 6) for k, v in sorted(self.scores.items())}}


def format_consistent(original: str, candidate: str) -> bool:
    """The TIN code's format check: a different word; ``#`` in both or neither; digits in both or
    neither; an all-capitals original (two letters or more) not replaced by a word starting in lower
    case; the case of the first letter kept."""
    if not candidate or candidate == original:
        return False
    if ("#" in original) != ("#" in candidate):
        return False
    if bool(_DIGIT.search(original)) != bool(_DIGIT.search(candidate)):
        return False
    if len(original) > 1 and original.isupper() and candidate[:1].islower():
        return False
    a, b = original[:1], candidate[:1]
    if a.isalpha() and b.isalpha() and a.isupper() != b.isupper():
        return False
    return True


def evaluation(p: float, sim: float, *, null: bool, subword: bool, config: RelabelConfig) -> float:
    """Eq. 5: ``F(p, sim)``."""
    f = p * math.exp(config.k * sim)
    if null:
        f *= config.alpha
    if subword:
        f *= config.lam
    return f


def plan_relabel(jobs: Sequence[RelabelJob], proposer: FillProposer, embedder: TokenEmbedder,
                 config: RelabelConfig) -> list[RelabelMutant]:
    """The screened mutants of every job (lines 4-14), in job order, then word, then subword, then
    fill rank."""
    requests: list[tuple[tuple[str, ...], int]] = []
    owners: list[int] = []
    for ji, job in enumerate(jobs):
        a, b = job.span
        if not 0 <= a < b <= len(job.tokens):
            raise ValueError(f"span {job.span} outside {len(job.tokens)} tokens")
        for pos in range(a, b):
            requests.append((job.tokens, pos))
            owners.append(ji)
    if not requests:
        return []
    fills = proposer.propose_many(requests, config.top_k)
    subs: list[list[Any]] = [[] for _ in requests]
    if config.subwords and isinstance(proposer, SubwordFillProposer):
        subs = proposer.propose_subwords(requests, config.top_k)
    cands: list[tuple[int, int, bool, str, float]] = []
    for ji, (tokens, pos), fl, sl in zip(owners, requests, fills, subs, strict=True):
        original = tokens[pos]
        for subword, items in ((False, fl[: config.top_k]), (True, sl)):
            for f in items:
                word = f.word.strip()
                if not word or any(ch.isspace() for ch in word):
                    continue
                if not format_consistent(original, word) or f.score < config.p_threshold:
                    continue
                cands.append((ji, pos, subword, word, float(f.score)))
    muts = []
    for ji, pos, _, word, _ in cands:
        toks = list(jobs[ji].tokens)
        toks[pos] = word
        muts.append(tuple(toks))
    sims = span_similarities(embedder, [((jobs[ji].tokens, jobs[ji].span), (m, jobs[ji].span))
                                        for (ji, *_), m in zip(cands, muts, strict=True)])
    out = []
    for (ji, pos, subword, word, p), mut, sim in zip(cands, muts, sims, strict=True):
        if sim < config.sim_threshold:
            continue
        out.append(RelabelMutant(ji, pos, subword, word, mut, jobs[ji].span, p, sim))
    return out


def label_at(entities: Iterable[Entity], span: Span) -> str | None:
    """The label predicted for exactly ``span`` (the alphabetically first if several), else ``None``."""
    labels = sorted(e.label for e in entities if (e.start, e.end) == tuple(span))
    return labels[0] if labels else None


def score_relabel(mutants: Sequence[RelabelMutant], predictions: Sequence[Sequence[Entity]],
                  config: RelabelConfig) -> RelabelResult:
    """Lines 15-20 for the mutants of one job and the system's entities on each."""
    scores: dict[str, float] = {}
    for m, ents in zip(mutants, predictions, strict=True):
        label = label_at(ents, m.span)
        key = NULL if label is None else label
        scores[key] = scores.get(key, 0.0) + evaluation(m.p, m.sim, null=label is None, subword=m.subword,
                                                        config=config)
    if not scores or max(scores.values()) <= 0:
        return RelabelResult(None, KEEP_SCORE, scores, kept_original=True, mutants=len(mutants))
    best = min(scores, key=lambda key: (-scores[key], key))
    return RelabelResult(None if best == NULL else best, scores[best], scores, mutants=len(mutants))


def relabel(jobs: Sequence[RelabelJob], *, system: Any, proposer: FillProposer, embedder: TokenEmbedder,
            config: RelabelConfig) -> list[RelabelResult]:
    """Relabel every job; the system labels all mutants in one ``predict`` call."""
    muts = plan_relabel(jobs, proposer, embedder, config)
    preds = system.predict([list(m.tokens) for m in muts]) if muts else []
    if len(preds) != len(muts):
        raise RuntimeError(f"system returned {len(preds)} predictions for {len(muts)} sentences")
    by_job: dict[int, tuple[list[RelabelMutant], list[Sequence[Entity]]]] = {}
    for m, p in zip(muts, preds, strict=True):
        ms, ps = by_job.setdefault(m.job, ([], []))
        ms.append(m)
        ps.append(p)
    return [score_relabel(*by_job.get(ji, ([], [])), config=config) for ji in range(len(jobs))]
