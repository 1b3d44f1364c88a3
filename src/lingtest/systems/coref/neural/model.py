"""A mention-ranking coreference model in the style of Lee et al. (2017), over given candidate spans.

Span representation ``g_i = [x_start, x_end, x̂_i, φ(width_i)]`` where ``x`` are the encoder's word
vectors projected to ``hidden`` dimensions and ``x̂_i`` is the head-attention average of the span's
words. Mention score ``s_m(i) = FFNN_m(g_i)``; antecedent score
``s_a(i, j) = FFNN_a([g_i, g_j, g_i ∘ g_j, φ(token distance), φ(sentence distance)])``, its first
layer split into per-span and per-pair parts so that the pair part costs one product per pair;
``s(i, j) = s_m(i) + s_m(j) + s_a(i, j)`` and ``s(i, ε) = 0`` for the dummy antecedent. Each
candidate considers the ``max_antecedents`` candidates before it (in (start, end) order).

Training maximises the marginal log-likelihood of the gold antecedents
(:func:`marginal_log_likelihood_loss`): for a candidate in a gold cluster, the candidates before it
in the same cluster; for any other candidate (or one whose cluster has no earlier candidate), the
dummy. Decoding (:func:`decode_clusters`) links every candidate to its best-scoring antecedent
unless the dummy wins and takes the transitive closure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import torch
from torch import nn

#: upper bounds of the distance buckets (Lee et al. 2017: 1, 2, 3, 4, 5-7, 8-15, 16-31, 32-63, 64+)
_BUCKETS = (1, 2, 3, 4, 5, 8, 16, 32, 64)
NEG = -1e4


@dataclass(frozen=True)
class ModelConfig:
    """Sizes of the model (every value from ``conf/``)."""

    input_dim: int
    hidden: int
    width_dim: int
    max_width: int
    distance_dim: int
    ffnn_hidden: int
    dropout: float
    max_antecedents: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def bucket(d: torch.Tensor) -> torch.Tensor:
    """Distance buckets 0..len(_BUCKETS) (0 for distance 0)."""
    out = torch.zeros_like(d)
    for b in _BUCKETS:
        out = out + (d >= b).long()
    return out


def _ffnn(n_in: int, hidden: int, n_out: int, dropout: float) -> nn.Sequential:
    return nn.Sequential(nn.Linear(n_in, hidden), nn.ReLU(), nn.Dropout(dropout),
                         nn.Linear(hidden, hidden), nn.ReLU(), nn.Dropout(dropout), nn.Linear(hidden, n_out))


class MentionRanker(nn.Module):
    """Scores every (candidate, antecedent) pair of one document."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        c = self.config = config
        self.project = nn.Sequential(nn.Linear(c.input_dim, c.hidden), nn.Dropout(c.dropout))
        self.attend = nn.Linear(c.hidden, 1)
        self.width = nn.Embedding(c.max_width, c.width_dim)
        span_dim = 3 * c.hidden + c.width_dim
        self.mention = _ffnn(span_dim, c.ffnn_hidden, 1, c.dropout)
        n_buckets = len(_BUCKETS) + 1
        self.token_distance = nn.Embedding(n_buckets, c.distance_dim)
        self.sentence_distance = nn.Embedding(n_buckets, c.distance_dim)
        self.pair_anaphor = nn.Linear(span_dim, c.ffnn_hidden)
        self.pair_antecedent = nn.Linear(span_dim, c.ffnn_hidden, bias=False)
        self.pair_product = nn.Linear(span_dim, c.ffnn_hidden, bias=False)
        self.pair_distance = nn.Linear(2 * c.distance_dim, c.ffnn_hidden, bias=False)
        self.pair_rest = nn.Sequential(nn.ReLU(), nn.Dropout(c.dropout), nn.Linear(c.ffnn_hidden, c.ffnn_hidden),
                                       nn.ReLU(), nn.Dropout(c.dropout), nn.Linear(c.ffnn_hidden, 1))

    def spans(self, words: torch.Tensor, starts: torch.Tensor, ends: torch.Tensor) -> torch.Tensor:
        """``[n, span_dim]`` span vectors (``ends`` exclusive)."""
        x = self.project(words)
        widths = ends - starts
        longest = int(widths.max()) if len(widths) else 1
        offsets = torch.arange(longest, device=words.device)
        idx = starts.unsqueeze(1) + offsets.unsqueeze(0)
        valid = offsets.unsqueeze(0) < widths.unsqueeze(1)
        idx = torch.where(valid, idx, starts.unsqueeze(1))
        logits = self.attend(x).squeeze(1)[idx].masked_fill(~valid, NEG)
        weights = torch.softmax(logits, dim=1)
        head = (weights.unsqueeze(2) * x[idx]).sum(dim=1)
        w = self.width((widths - 1).clamp(min=0, max=self.config.max_width - 1))
        return torch.cat([x[starts], x[ends - 1], head, w], dim=1)

    def forward(self, words: torch.Tensor, starts: torch.Tensor, ends: torch.Tensor,
                sentences: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(scores, antecedents)``: ``scores`` ``[n, K + 1]`` (column 0: the dummy, always 0; invalid
        antecedents ``NEG``), ``antecedents`` ``[n, K]`` candidate indices (-1: none)."""
        n = len(starts)
        k = max(1, min(self.config.max_antecedents, max(n - 1, 1)))
        device = words.device
        if n == 0:
            return torch.zeros((0, k + 1), device=device), torch.zeros((0, k), dtype=torch.long, device=device)
        g = self.spans(words, starts, ends)
        s_m = self.mention(g).squeeze(1)
        rows = torch.arange(n, device=device).unsqueeze(1)
        ante = rows - 1 - torch.arange(k, device=device).unsqueeze(0)
        valid = ante >= 0
        ante_c = ante.clamp(min=0)
        d_tok = bucket((starts.unsqueeze(1) - starts[ante_c]).clamp(min=0))
        d_sent = bucket((sentences.unsqueeze(1) - sentences[ante_c]).clamp(min=0))
        dist = torch.cat([self.token_distance(d_tok), self.sentence_distance(d_sent)], dim=2)
        first = (self.pair_anaphor(g).unsqueeze(1) + self.pair_antecedent(g)[ante_c]
                 + self.pair_product(g.unsqueeze(1) * g[ante_c]) + self.pair_distance(dist))
        s_a = self.pair_rest(first).squeeze(2)
        pair = s_m.unsqueeze(1) + s_m[ante_c] + s_a
        pair = pair.masked_fill(~valid, NEG)
        scores = torch.cat([torch.zeros((n, 1), device=device, dtype=pair.dtype), pair], dim=1)
        return scores, torch.where(valid, ante, torch.full_like(ante, -1))


def gold_antecedent_mask(cluster_ids: torch.Tensor, antecedents: torch.Tensor) -> torch.Tensor:
    """``[n, K + 1]`` booleans: the gold antecedents of every candidate (column 0: the dummy, gold
    exactly when no real antecedent is)."""
    valid = antecedents >= 0
    ant_ids = cluster_ids[antecedents.clamp(min=0)]
    same = valid & (ant_ids == cluster_ids.unsqueeze(1)) & (cluster_ids.unsqueeze(1) >= 0)
    dummy = ~same.any(dim=1, keepdim=True)
    return torch.cat([dummy, same], dim=1)


def marginal_log_likelihood_loss(scores: torch.Tensor, gold: torch.Tensor) -> torch.Tensor:
    """``-Σ_i log Σ_{y ∈ GOLD(i)} softmax(s(i, ·))_y`` (Lee et al. 2017, Eq. 5)."""
    if scores.numel() == 0:
        return scores.sum()
    gold_scores = scores.masked_fill(~gold, NEG)
    return (torch.logsumexp(scores, dim=1) - torch.logsumexp(gold_scores, dim=1)).sum()


def decode_clusters(spans: Sequence[tuple[int, int]], scores: torch.Tensor,
                    antecedents: torch.Tensor) -> list[list[tuple[int, int]]]:
    """Best antecedent of every candidate (the dummy starts nothing), closed transitively; clusters of
    at least two spans in textual order."""
    best = scores.argmax(dim=1).tolist()
    ante = antecedents.tolist()
    parent = list(range(len(spans)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i, b in enumerate(best):
        if b > 0:
            j = ante[i][b - 1]
            if j >= 0:
                parent[find(i)] = find(j)
    groups: dict[int, list[tuple[int, int]]] = {}
    for i, sp in enumerate(spans):
        groups.setdefault(find(i), []).append((int(sp[0]), int(sp[1])))
    return [sorted(g) for g in groups.values() if len(g) > 1]
