"""A causal LM's output head applied only where a log-probability is needed: ``log p(target |
hidden state)`` for selected rows, without materialising the full (rows x vocabulary) logits
when the head is a plain linear layer. Used by packed shared-prefix scoring
(:meth:`lingtest.resources.lm.CausalLMScorer.score_grouped`)."""

from __future__ import annotations

from typing import Any

__all__ = ["NORMALISERS", "head_logprobs"]

#: precisions of the log-normaliser: ``float32`` (exact, the default) or ``bfloat16`` (the vocabulary's
#: bulk multiplied in bfloat16, its largest logits recomputed in float32; :func:`head_logprobs`)
NORMALISERS = ("float32", "bfloat16")


def head_logprobs(head: Any, hidden, rows, targets, *, softcap: float | None = None, head_chunk: int = 256,
                  vocab_chunk: int = 8192, normaliser: str = "float32", weight_bf16: Any = None,
                  exact_top: int = 16):
    """``log p(targets[k] | hidden[rows[k]])`` for every k: the output head applied to the hidden
    states that are needed, each once however many targets it predicts. ``softcap``: the
    model's final-logit soft-capping (Gemma), ``tanh(logit / cap) * cap``.

    When the head is a plain linear layer, the log-normaliser is computed ``vocab_chunk``
    columns at a time (running max and sum of exponentials in float32), so the full
    (rows x vocabulary) logits never exist at once: for Gemma-3's 262k-entry vocabulary that
    keeps each chunk in the CPU cache and makes the head ~1.6x faster than a full log-softmax.
    The target logits are one dot product each, in the model's precision (as the matmul
    computes them). Other heads fall back to full logits, ``head_chunk`` rows at a time.

    ``normaliser="bfloat16"`` (a linear head on a float32 model; for scoring systems under test, never
    for generating a suite) multiplies the head in bfloat16 (``weight_bf16``: the head's weight already
    in bfloat16, else converted here) for the log-normaliser only: each row's ``exact_top`` largest
    logits are then recomputed in float32 and replace their bfloat16 values in the sum, so the error is
    confined to the tail of the distribution. The target logits stay float32 dot products. On a CPU
    that multiplies bfloat16 natively (AMX, AVX-512 BF16) the head is several times faster;
    ``bench/bench_quant.py`` (variant ``bf16_normaliser``) measures the agreement with float32."""
    import torch

    if normaliser not in NORMALISERS:
        raise ValueError(f"normaliser must be one of {', '.join(NORMALISERS)}, got {normaliser!r}")
    if not isinstance(head, torch.nn.Linear):
        return _full_logits_logprobs(head, hidden, rows, targets, softcap, head_chunk)
    if normaliser == "bfloat16":
        lse = _bf16_logsumexp(head, hidden, softcap, head_chunk, vocab_chunk,
                              head.weight.to(torch.bfloat16) if weight_bf16 is None else weight_bf16, exact_top)
    else:
        lse = _chunked_logsumexp(head, hidden, softcap, head_chunk, vocab_chunk)
    W, b = head.weight, head.bias
    tl = torch.bmm(hidden[rows].unsqueeze(1), W[targets].unsqueeze(2)).reshape(-1)
    if b is not None:
        tl = tl + b[targets]
    tl = tl.float()
    if softcap:
        tl = torch.tanh(tl / softcap) * softcap
    return tl - lse[rows]


def _full_logits_logprobs(head: Any, hidden, rows, targets, softcap: float | None, head_chunk: int):
    """Target log-probabilities through the head's full logits, ``head_chunk`` hidden states at a
    time (any head module)."""
    import torch

    n = hidden.shape[0]
    lse_parts, tl = [], torch.empty(len(rows), dtype=torch.float32, device=hidden.device)
    for s in range(0, n, head_chunk):
        logits = head(hidden[s:s + head_chunk]).float()
        if softcap:
            logits = torch.tanh(logits / softcap) * softcap
        lse_parts.append(torch.logsumexp(logits, dim=-1))
        sel = ((rows >= s) & (rows < s + head_chunk)).nonzero().squeeze(-1)
        tl[sel] = logits[rows[sel] - s, targets[sel]]
    lse = torch.cat(lse_parts) if lse_parts else hidden.new_zeros(0, dtype=torch.float32)
    return tl - lse[rows]


def _chunked_logsumexp(head: Any, hidden, softcap: float | None, head_chunk: int, vocab_chunk: int):
    """The log-normaliser of a linear head's logits for every hidden state, in float32, computed
    ``head_chunk`` rows by ``vocab_chunk`` columns at a time (per-chunk max and sum of
    exponentials, combined at the end)."""
    import torch

    W, b = head.weight, head.bias
    V = W.shape[0]
    n = hidden.shape[0]
    lse_parts = []
    for s in range(0, n, head_chunk):
        h = hidden[s:s + head_chunk]
        mx, sm = [], []
        for v in range(0, V, vocab_chunk):
            bias = None if b is None else b[v:v + vocab_chunk]
            lg = torch.nn.functional.linear(h, W[v:v + vocab_chunk], bias).float()
            if softcap:
                lg = torch.tanh(lg / softcap) * softcap
            m = lg.amax(dim=-1, keepdim=True)
            mx.append(m)
            sm.append(lg.sub_(m).exp_().sum(dim=-1, keepdim=True))
        m_all, s_all = torch.cat(mx, dim=-1), torch.cat(sm, dim=-1)
        top = m_all.amax(dim=-1, keepdim=True)
        lse_parts.append((top + (s_all * (m_all - top).exp()).sum(dim=-1, keepdim=True).log()).squeeze(-1))
    return torch.cat(lse_parts) if lse_parts else hidden.new_zeros(0, dtype=torch.float32)


def _bf16_logsumexp(head: Any, hidden, softcap: float | None, head_chunk: int, vocab_chunk: int, weight_bf16,
                    exact_top: int):
    """The log-normaliser of a linear head, its products in bfloat16 and its ``exact_top`` largest
    terms per row in float32.

    Per ``vocab_chunk`` columns: the bfloat16 logits' max, their sum of exponentials (float32) and
    their ``exact_top`` largest entries. Over the whole vocabulary: the row's ``exact_top`` largest of
    those candidates, whose logits are recomputed in float32 (one dot product each) and swapped for
    their bfloat16 values in the sum. The subtraction loses at most a float32 rounding of the sum."""
    import torch

    b = head.bias
    W = head.weight
    V = weight_bf16.shape[0]
    n = hidden.shape[0]
    lse_parts = []
    for s in range(0, n, head_chunk):
        h = hidden[s:s + head_chunk]
        h16 = h.to(torch.bfloat16)
        mx, sm, cand_v, cand_i = [], [], [], []
        for v in range(0, V, vocab_chunk):
            lg = torch.nn.functional.linear(h16, weight_bf16[v:v + vocab_chunk]).float()
            if b is not None:
                lg = lg + b[v:v + vocab_chunk].float()
            if softcap:
                lg = torch.tanh(lg / softcap) * softcap
            k = min(exact_top, lg.shape[1])
            tv, ti = lg.topk(k, dim=-1)
            cand_v.append(tv)
            cand_i.append(ti + v)
            m = lg.amax(dim=-1, keepdim=True)
            mx.append(m)
            sm.append(lg.sub_(m).exp_().sum(dim=-1, keepdim=True))
        m_all, s_all = torch.cat(mx, dim=-1), torch.cat(sm, dim=-1)
        top = m_all.amax(dim=-1, keepdim=True)
        total = (s_all * (m_all - top).exp()).sum(dim=-1, keepdim=True)
        vals, pos = torch.cat(cand_v, dim=-1).topk(min(exact_top, V), dim=-1)
        idx = torch.cat(cand_i, dim=-1).gather(-1, pos)
        exact = torch.bmm(W[idx], h.unsqueeze(2)).squeeze(2)  # (rows, exact_top) float32 dot products
        if b is not None:
            exact = exact + b[idx]
        exact = exact.float()
        if softcap:
            exact = torch.tanh(exact / softcap) * softcap
        total = total - (vals - top).exp().sum(dim=-1, keepdim=True) + (exact - top).exp().sum(dim=-1, keepdim=True)
        lse_parts.append((top + total.clamp_min(torch.finfo(torch.float32).tiny).log()).squeeze(-1))
    return torch.cat(lse_parts) if lse_parts else hidden.new_zeros(0, dtype=torch.float32)
