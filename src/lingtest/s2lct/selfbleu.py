"""Self-BLEU with NLTK's ``sentence_bleu`` semantics, without comparing every pair of sentences.

The Self-BLEU of a sample of tokenised sentences (S2LCT's diversity metric, after Zhu et al.'s
Texygen) is the mean over sentences ``i`` of::

    nltk.translate.bleu_score.sentence_bleu(
        references=[every other sentence of the sample], hypothesis=sentence_i,
        weights=(1/3, 1/3, 1/3), smoothing_function=SmoothingFunction().method1)

"Other" is by position: a duplicate of sentence ``i`` elsewhere in the sample is a reference (so
both copies score 1 when long enough). NLTK's loop costs O(n² · length); this module computes
the same numbers in O(T log T) for T tokens, from these facts about ``sentence_bleu``:

* modified precision of order k: numerator = Σ over the hypothesis' k-grams g of
  ``min(count_i(g), max_{j≠i} count_j(g))``, denominator = ``max(1, len_i - k + 1)`` (a
  hypothesis shorter than k has no k-grams: 0 / 1). ``max_{j≠i} count_j(g)`` equals the largest
  count of g over all sentences unless sentence i is the *only* sentence holding that largest
  count, when it is the second largest (0 when no other sentence holds g). So the clipped count
  is ``count_i(g)`` except for a sole top holder, whose clipped count is the runner-up count:
  the top two counts of each k-gram and how many sentences hold the top one suffice;
* the closest reference length is the length among the others nearest to ``len_i``, ties to the
  shorter: with the sorted distinct lengths and their multiplicities it is ``len_i`` itself when
  another sentence has that length, else the nearer of the neighbouring distinct lengths;
* brevity penalty 1 if ``len_i > r``, else ``exp(1 - r / len_i)``; a hypothesis with no unigram
  match (in particular an empty one) scores exactly 0; method1 replaces a zero precision
  ``0 / d`` by ``epsilon / d`` (epsilon 0.1); the score is ``bp · exp(fsum(w_k · log p_k))``.

The n-gram statistics are integers computed exactly with numpy (sorting n-gram ids); the final
per-sentence score repeats NLTK's float operations one by one (``math.log`` of the correctly
rounded ``num / den``, ``math.fsum``, ``math.exp``), so the per-sentence scores are the values
NLTK returns, not merely close to them. Tokens may be any hashable values.

The reference S2LCT implementation tokenises with NLTK's ``word_tokenize`` and scores seeded
samples of 200 to 1,000 sentences, 5 trials each, every sentence against all others of its
sample (:func:`sampled_self_bleu`); tokenisation is the caller's business here.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

EPSILON = 0.1  # NLTK SmoothingFunction().method1's default


@dataclass(frozen=True)
class BleuStatistics:
    """Per-sentence BLEU statistics of each sentence against all the others (integers, exact).

    ``numerators[i, k-1]`` / ``denominators[i, k-1]`` is sentence i's modified k-gram precision
    as NLTK's ``modified_precision`` returns it (unsmoothed, unnormalised); ``ref_lengths[i]``
    is NLTK's ``closest_ref_length`` over the other sentences.
    """

    numerators: np.ndarray  # (S, max_n) int64
    denominators: np.ndarray  # (S, max_n) int64
    hyp_lengths: np.ndarray  # (S,) int64
    ref_lengths: np.ndarray  # (S,) int64


def _weights(max_n: int, weights: Sequence[float] | None) -> tuple[float, ...]:
    if max_n < 1:
        raise ValueError(f"max_n must be at least 1, got {max_n}")
    if weights is None:
        return (1 / max_n,) * max_n
    if len(weights) != max_n:
        raise ValueError(f"{len(weights)} weights given for max_n={max_n}")
    return tuple(float(w) for w in weights)


def _encode(sentences: Sequence[Sequence[Hashable]]) -> tuple[np.ndarray, np.ndarray, int]:
    """(token ids of all sentences concatenated, sentence lengths, vocabulary size)."""
    vocab: dict[Hashable, int] = {}
    setdefault = vocab.setdefault
    ids = [setdefault(t, len(vocab)) for s in sentences for t in s]
    lengths = np.fromiter((len(s) for s in sentences), dtype=np.int64, count=len(sentences))
    return np.asarray(ids, dtype=np.int64), lengths, len(vocab)


def closest_other_lengths(lengths: np.ndarray) -> np.ndarray:
    """For each sentence, NLTK's ``closest_ref_length`` over the *other* sentences' lengths:
    the nearest length, ties to the shorter (needs at least two sentences)."""
    lengths = np.asarray(lengths, dtype=np.int64)
    if lengths.size < 2:
        raise ValueError("a closest reference length needs at least two sentences")
    distinct, mult = np.unique(lengths, return_counts=True)
    k = np.searchsorted(distinct, lengths)
    has_pred = k > 0
    has_succ = k + 1 < distinct.size
    pred = distinct[np.maximum(k - 1, 0)]
    succ = distinct[np.minimum(k + 1, distinct.size - 1)]
    # the predecessor wins unless it is missing or strictly farther than an existing successor
    use_succ = ~has_pred | (has_succ & (succ - lengths < lengths - pred))
    out = np.where(use_succ, succ, pred)
    return np.where(mult[k] >= 2, lengths, out)


def bleu_statistics(sentences: Sequence[Sequence[Hashable]], max_n: int = 3) -> BleuStatistics:
    """Clipped n-gram matches of every sentence against all the others, orders 1..``max_n``,
    with denominators and lengths, without comparing pairs of sentences."""
    if max_n < 1:
        raise ValueError(f"max_n must be at least 1, got {max_n}")
    n_sent = len(sentences)
    if n_sent < 2:
        raise ValueError(f"Self-BLEU needs at least 2 sentences, got {n_sent}")
    tok, lengths, vocab_size = _encode(sentences)
    orders = np.arange(1, max_n + 1, dtype=np.int64)
    denominators = np.maximum(1, lengths[:, None] - orders[None, :] + 1)
    numerators = np.zeros((n_sent, max_n), dtype=np.int64)
    n_tok = tok.size
    if n_tok:
        sid = np.repeat(np.arange(n_sent, dtype=np.int64), lengths)
        starts = np.cumsum(lengths) - lengths
        # tokens from each position to the end of its sentence (>= 1)
        room = np.repeat(lengths, lengths) - (np.arange(n_tok, dtype=np.int64) - np.repeat(starts, lengths))
        gid = tok  # dense id of the (n-1)-gram starting at each position (where one starts)
        for n in range(1, max_n + 1):
            idx = np.flatnonzero(room >= n)
            if idx.size == 0:
                break
            key = tok if n == 1 else gid[idx] * vocab_size + tok[idx + (n - 1)]
            numerators[:, n - 1], dense = _clipped_matches(key, sid[idx], n_sent)
            gid = np.empty(n_tok, dtype=np.int64)
            gid[idx] = dense
    return BleuStatistics(numerators, denominators, lengths, closest_other_lengths(lengths))


def _clipped_matches(key: np.ndarray, sid: np.ndarray, n_sent: int) -> tuple[np.ndarray, np.ndarray]:
    """Per sentence, Σ_g min(count_i(g), max_{j≠i} count_j(g)) over the n-gram occurrences
    ``key`` (one id per occurrence, ``sid`` its sentence, non-decreasing); also the n-grams'
    dense ids (0..distinct-1) per occurrence, used to build the next order's keys."""
    order = np.argsort(key, kind="stable")  # stable: sentence ids stay sorted inside a key
    ks = key[order]
    ss = sid[order]
    m = ks.size
    new_g = np.ones(m, dtype=bool)
    np.not_equal(ks[1:], ks[:-1], out=new_g[1:])
    dense_sorted = np.cumsum(new_g, dtype=np.int64) - 1
    dense = np.empty(m, dtype=np.int64)
    dense[order] = dense_sorted
    new_pair = new_g.copy()
    new_pair[1:] |= ss[1:] != ss[:-1]
    pstart = np.flatnonzero(new_pair)  # one row per (n-gram, sentence) holding it
    count = np.diff(np.append(pstart, m))
    psent = ss[pstart]
    gstart = np.flatnonzero(new_g[pstart])  # first row of each n-gram
    gsize = np.diff(np.append(gstart, pstart.size))
    top = np.maximum.reduceat(count, gstart)
    is_top = count == np.repeat(top, gsize)
    n_top = np.add.reduceat(is_top.astype(np.int64), gstart)
    runner_up = np.maximum.reduceat(np.where(is_top, 0, count), gstart)
    sole_top = is_top & np.repeat(n_top == 1, gsize)
    clipped = np.where(sole_top, np.repeat(runner_up, gsize), count)
    sums = np.bincount(psent, weights=clipped, minlength=n_sent)  # exact: integers < 2**53
    return np.rint(sums).astype(np.int64), dense


def sentence_score(numerators: Sequence[int], denominators: Sequence[int], hyp_len: int, ref_len: int,
                   weights: Sequence[float], epsilon: float = EPSILON) -> float:
    """NLTK's ``sentence_bleu`` float path with smoothing method1, from the integer statistics."""
    if numerators[0] == 0:  # no unigram match (or an empty hypothesis): NLTK returns 0
        return 0.0
    bp = 1.0 if hyp_len > ref_len else math.exp(1 - ref_len / hyp_len)
    logs = [w * math.log(num / den if num else (num + epsilon) / den)
            for w, num, den in zip(weights, numerators, denominators, strict=True)]
    return bp * math.exp(math.fsum(logs))


def scores_from_statistics(stats: BleuStatistics, weights: Sequence[float],
                           epsilon: float = EPSILON) -> np.ndarray:
    """Per-sentence BLEU (float64) from :func:`bleu_statistics`; equal score inputs are scored once."""
    weights = tuple(weights)
    cache: dict[tuple[int, ...], float] = {}
    out = np.empty(stats.hyp_lengths.size, dtype=np.float64)
    rows = zip(stats.numerators.tolist(), stats.denominators.tolist(), stats.hyp_lengths.tolist(),
               stats.ref_lengths.tolist(), strict=True)
    for i, (nums, dens, hyp, ref) in enumerate(rows):
        key = (*nums, *dens, hyp, ref)
        score = cache.get(key)
        if score is None:
            score = cache[key] = sentence_score(nums, dens, hyp, ref, weights, epsilon)
        out[i] = score
    return out


def self_bleu_scores(sentences: Sequence[Sequence[Hashable]], max_n: int = 3, *,
                     weights: Sequence[float] | None = None, epsilon: float = EPSILON) -> np.ndarray:
    """Each sentence's BLEU against all the other sentences (NLTK ``sentence_bleu``, smoothing
    method1; weights ``1/max_n`` each unless given), as a float64 array."""
    w = _weights(max_n, weights)
    return scores_from_statistics(bleu_statistics(sentences, max_n), w, epsilon)


def self_bleu(sentences: Sequence[Sequence[Hashable]], max_n: int = 3, *,
              weights: Sequence[float] | None = None, epsilon: float = EPSILON) -> float:
    """The Self-BLEU of ``sentences``: the mean of :func:`self_bleu_scores` (``math.fsum`` / n)."""
    scores = self_bleu_scores(sentences, max_n, weights=weights, epsilon=epsilon)
    return math.fsum(scores.tolist()) / scores.size


def sampled_self_bleu(sentences: Sequence[Sequence[Hashable]], size: int, trials: int = 5, *,
                      seed: int = 0, max_n: int = 3) -> list[float]:
    """Self-BLEU of ``trials`` seeded samples of ``size`` distinct sentences (by position, drawn
    without replacement), each sentence against the others of its sample, as S2LCT reports it."""
    if not 2 <= size <= len(sentences):
        raise ValueError(f"sample size must be between 2 and {len(sentences)}, got {size}")
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(trials):
        pick = rng.choice(len(sentences), size=size, replace=False)
        out.append(self_bleu([sentences[i] for i in pick.tolist()], max_n))
    return out


def nltk_self_bleu_scores(sentences: Sequence[Sequence[Hashable]], max_n: int = 3, *,
                          indices: Sequence[int] | None = None, weights: Sequence[float] | None = None,
                          epsilon: float = EPSILON) -> list[float]:
    """The slow definition, NLTK's own loop: ``sentence_bleu`` of sentence i against all other
    sentences, for each i in ``indices`` (default all). For tests and benchmarks only."""
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

    w = _weights(max_n, weights)
    smooth = SmoothingFunction(epsilon=epsilon).method1
    sents = [list(s) for s in sentences]
    picked = range(len(sents)) if indices is None else indices
    return [float(sentence_bleu(sents[:i] + sents[i + 1:], sents[i], w, smoothing_function=smooth))
            for i in picked]
