"""Language-model scorers: sentence log-probabilities from causal LMs, pseudo-log-likelihoods and
fill-in candidates from masked LMs.

* :class:`CausalLMScorer` — ``score(texts)`` is the sum of the token log-probabilities of each text,
  conditioned on a BOS token (so the first word is scored too); ``reduction="mean"`` gives the
  per-token mean, :meth:`CausalLMScorer.token_logprobs` the individual tokens. Offline default:
  the packaged Gemma-3-270M, converted once by :func:`lingtest.resources.models.convert_gguf_model`.
* :class:`MaskedLMScorer` — pseudo-log-likelihood (PLL, Salazar et al., 2020, "Masked Language
  Model Scoring"): every token is masked in turn and its log-probability read off, summed over
  the sentence. :meth:`MaskedLMScorer.propose` gives masked-LM substitutes for one word (CREST
  uses ``bert-large-cased``). No masked LM ships offline: pass a hub id or a local directory.

Both batch their inputs (texts sorted by length to limit padding; results come back in input
order), run under ``torch.inference_mode`` and use CUDA when present (``device="auto"``).

Packed shared-prefix scoring (:meth:`CausalLMScorer.score_grouped`) is laid out by
:mod:`lingtest.resources.lm_packing` and scored through :mod:`lingtest.resources.lm_head`; torch
thread counts come from :mod:`lingtest.resources.threads`. ``PackedGroups``, ``pack_groups``,
``idle_cpus`` and ``resolve_threads`` stay importable from here.
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from lingtest.resources.device import attention_guard, pick_device, resolve_batch_size
from lingtest.resources.lm_head import head_logprobs
from lingtest.resources.lm_packing import (
    PackedGroups,
    pack_groups,
    packed_size,
    plan_passes,
    shared_prefix_length,
)
from lingtest.resources.lm_rows import HEAD_ROWS, padded_head_rows, plan_rows, row_tensors
from lingtest.resources.threads import idle_cpus, resolve_threads

__all__ = ["Candidate", "CausalLMScorer", "MaskedLMScorer", "PackedGroups", "Reduction", "TokenScores",
           "idle_cpus", "pack_groups", "resolve_threads", "same_precision", "scorer_from_config"]

log = logging.getLogger(__name__)

Reduction = Literal["sum", "mean"]


@dataclass(frozen=True)
class TokenScores:
    """Per-token log-probabilities (natural log) of one text.

    ``tokens``/``token_ids`` are the scored tokens (the BOS context and special tokens are not
    included); ``logprobs[i]`` is ``log p(token_i | context)``."""

    text: str
    tokens: list[str]
    token_ids: list[int]
    logprobs: list[float]

    @property
    def total(self) -> float:
        """Sum of the token log-probabilities (0.0 for a text without tokens)."""
        return float(sum(self.logprobs))

    @property
    def mean(self) -> float:
        """Per-token mean log-probability (NaN for a text without tokens)."""
        return self.total / len(self.logprobs) if self.logprobs else math.nan

    def reduce(self, reduction: Reduction) -> float:
        if reduction == "sum":
            return self.total
        if reduction == "mean":
            return self.mean
        raise ValueError(f"reduction must be 'sum' or 'mean', got {reduction!r}")


@dataclass(frozen=True)
class Candidate:
    """A masked-LM fill-in for one position: the token and its probability."""

    token: str
    prob: float


def _resolve_dtype(dtype: Any, device: str):
    """The torch dtype of ``dtype`` on ``device``. ``"auto"`` (or ``None``) is float32 on every device: on a
    GPU, too, half precision moves log-probabilities enough to flip choices and makes scores depend on the
    batch they were padded in (``bench/bench_gpu.py``, ``bench/bench_lm.py``), and a generated suite must
    come out the same wherever it is made. Half precision is asked for by name."""
    import torch

    if dtype is None or dtype == "auto":
        return torch.float32
    if isinstance(dtype, torch.dtype):
        return dtype
    try:
        out = getattr(torch, str(dtype))
    except AttributeError:
        raise ValueError(f"unknown dtype {dtype!r}; use 'auto', 'float32', 'bfloat16' or 'float16'") from None
    if not isinstance(out, torch.dtype):
        raise ValueError(f"unknown dtype {dtype!r}")
    return out


def same_precision(a: Any, b: Any) -> bool:
    """Whether two ``dtype`` settings of a scorer compute in the same precision (``"auto"`` is float32)."""
    return bool(_resolve_dtype(a, "cpu") == _resolve_dtype(b, "cpu"))


def _batches(order: Sequence[int], size: int) -> Iterable[list[int]]:
    for start in range(0, len(order), size):
        yield list(order[start:start + size])


def _progress(total: int, enabled: bool, desc: str):
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="text")


def _check_texts(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, str):
        raise TypeError("score() takes a list of texts, not a single string")
    out = list(texts)
    for i, t in enumerate(out):
        if not isinstance(t, str):
            raise TypeError(f"texts[{i}] is {type(t).__name__}, expected str")
    return out


def _sum(values: Iterable[float]) -> float:
    """The sum of a text's token log-probabilities, left to right in double precision (the cached layout)."""
    total = 0.0
    for v in values:
        total += float(v)
    return total


def _pad_right(seqs: Sequence[Sequence[int]], pad_id: int):
    """Token id sequences as a right-padded ``(batch, width)`` id tensor and its attention mask."""
    import torch

    width = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(seqs), width), dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, : len(s)] = torch.tensor(list(s), dtype=torch.long)
        mask[i, : len(s)] = 1
    return ids, mask


def _attach(scorer: Any, model: Any, tokenizer: Any, *, device: str, batch_size: int | None,
            cpu: int, cuda: int, name: str | None = None) -> None:
    """Set the model-related attributes that both scorers share: name, device, compute dtype (the
    model's own), batch size (default ``cpu``/``cuda`` by device), tokenizer and the model, moved
    to the device in eval mode."""
    config_name = getattr(getattr(model, "config", None), "name_or_path", "")
    scorer.model_name = name or config_name or type(model).__name__
    scorer.device = device
    scorer.dtype = next(model.parameters()).dtype
    scorer.batch_size = resolve_batch_size(batch_size, device, cpu=cpu, cuda=cuda)
    scorer.tokenizer = tokenizer
    scorer.model = model.to(device).eval()


class CausalLMScorer:
    """Sentence log-probabilities under a causal (left-to-right) language model.

    ``model``: ``"offline-default"`` (the converted Gemma-3-270M, see
    :func:`lingtest.resources.models.resolve_causal_model`), a local directory or a hub id.
    ``device``: as :func:`~lingtest.resources.device.pick_device`. ``batch_size``: texts per forward
    pass (default 8 on CPU, 64 on CUDA). ``dtype``: compute precision (``"auto"``: float32 on every
    device; half precision only by name). ``add_bos``: condition on the tokenizer's BOS token (EOS for models such as
    GPT-2 that have none) so that every token of the text is scored. ``max_length``: longer texts
    are truncated (with a warning). ``reduction``: what :meth:`score` returns by default.
    """

    # set by _attach
    model_name: str
    device: str
    dtype: Any
    batch_size: int
    tokenizer: Any
    model: Any

    def __init__(self, model: str | os.PathLike[str] = "offline-default", device: str = "auto",
                 batch_size: int | None = None, dtype: Any = "auto", *, add_bos: bool = True,
                 max_length: int = 512, reduction: Reduction = "sum", show_progress: bool = False,
                 tokenizer: str | os.PathLike[str] | None = None) -> None:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        from lingtest.resources.models import resolve_causal_model

        name = resolve_causal_model(model)
        dev = pick_device(device)
        _attach(self, AutoModelForCausalLM.from_pretrained(name, dtype=_resolve_dtype(dtype, dev)),
                AutoTokenizer.from_pretrained(str(tokenizer or name)), device=dev, batch_size=batch_size,
                cpu=8, cuda=64, name=name)
        self._setup(add_bos=add_bos, max_length=max_length, reduction=reduction, show_progress=show_progress)

    @classmethod
    def from_model(cls, model, tokenizer, *, device: str = "cpu", batch_size: int | None = None,
                   add_bos: bool = True, max_length: int = 512, reduction: Reduction = "sum",
                   show_progress: bool = False) -> CausalLMScorer:
        """Wrap an already-loaded transformers model and tokenizer (tests, custom models)."""
        self = cls.__new__(cls)
        _attach(self, model, tokenizer, device=pick_device(device), batch_size=batch_size, cpu=8, cuda=64)
        self._setup(add_bos=add_bos, max_length=max_length, reduction=reduction, show_progress=show_progress)
        return self

    def _setup(self, *, add_bos: bool, max_length: int, reduction: Reduction, show_progress: bool) -> None:
        if reduction not in ("sum", "mean"):
            raise ValueError(f"reduction must be 'sum' or 'mean', got {reduction!r}")
        if max_length < 2:
            raise ValueError(f"max_length must be at least 2, got {max_length}")
        tok = self.tokenizer
        bos = tok.bos_token_id if tok.bos_token_id is not None else tok.eos_token_id
        self.bos_id: int | None = bos if add_bos else None
        pad = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
        self.pad_id: int = pad if pad is not None else 0
        self.max_length = max_length
        self.reduction: Reduction = reduction
        self.show_progress = show_progress
        # rows of the output head computed at once: on a 2-core AVX-512 CPU the float32 product against
        # Gemma-3's 262k-entry head is faster on 512 rows than on 256, each row's result the same in either
        # (bench/bench_lm_head.py measures both)
        self.head_chunk = 512
        self.vocab_chunk = 8192  # output-head columns per step of the chunked log-normaliser
        # the log-normaliser's precision in shared-prefix scoring (lingtest.resources.lm_head.NORMALISERS):
        # float32, or bfloat16 for a scorer that serves a system under test (set by its owner, never for
        # the generation of a suite)
        self.normaliser = "float32"
        self._head_bf16: Any = None  # the head's weight in bfloat16, made on first use
        # the bfloat16 normaliser's rows and columns per product (bench/results/quant_de_normaliser_blocks_xeon.json:
        # whole scoring as fast with 512 x 8192 blocks on the AMX Xeon, no clear difference)
        self.bf16_head_chunk = 1024
        self.bf16_vocab_chunk = 32768
        self.group_batch_size = max(self.batch_size, 128)  # texts per packed pass in score_grouped
        self.pack_tokens = 1024  # tokens per packed pass in score_grouped (attention is quadratic in it)
        # with a score cache (use_score_cache): groups are scored in the batch-invariant row layout of
        # lingtest.resources.lm_rows, rows padded to a multiple of row_step tokens, row_tokens per pass
        self.score_cache: Any = None
        self.row_step = 32
        self.row_tokens = 512
        self._weights_id: str | None = None

    def _encode(self, text: str) -> list[int]:
        ids = list(self.tokenizer(text, add_special_tokens=False)["input_ids"])
        if self.bos_id is not None:
            ids = [self.bos_id, *ids]
        if len(ids) > self.max_length:
            log.warning("text of %d tokens truncated to max_length=%d: %.60r",
                        len(ids), self.max_length, text)
            ids = ids[: self.max_length]
        return ids

    def _forward_logprobs(self, seqs: list[list[int]]) -> list[list[float]]:
        """Log-probability of every token after the first, for each sequence of one batch."""
        import torch

        ids, mask = _pad_right(seqs, self.pad_id)
        ids, mask = ids.to(self.device), mask.to(self.device)
        logits = self.model(input_ids=ids, attention_mask=mask).logits
        out: list[list[float]] = []
        for i, s in enumerate(seqs):  # per row: a (T, vocab) float32 log-softmax at a time
            n = len(s)
            if n < 2:
                out.append([])
                continue
            row = logits[i, : n - 1].float()
            lp = row.gather(-1, ids[i, 1:n, None]).squeeze(-1) - torch.logsumexp(row, dim=-1)
            out.append(lp.cpu().tolist())
        return out

    def token_logprobs(self, texts: Sequence[str]) -> list[TokenScores]:
        """Per-token log-probabilities of each text, in input order."""
        import torch

        texts = _check_texts(texts)
        encoded = [self._encode(t) for t in texts]
        order = sorted(range(len(texts)), key=lambda i: (len(encoded[i]), i))
        results: list[list[float] | None] = [None] * len(texts)
        bar = _progress(len(texts), self.show_progress, "LM scoring")
        with torch.inference_mode(), attention_guard(self.device):
            for batch in _batches(order, self.batch_size):
                nonempty = [i for i in batch if len(encoded[i]) >= 2]
                for i in batch:
                    if len(encoded[i]) < 2:
                        results[i] = []
                if nonempty:
                    batch_lps = self._forward_logprobs([encoded[i] for i in nonempty])
                    for i, lp in zip(nonempty, batch_lps, strict=True):
                        results[i] = lp
                if bar is not None:
                    bar.update(len(batch))
        if bar is not None:
            bar.close()
        out = []
        for text, ids, lps in zip(texts, encoded, results, strict=True):
            scored = ids[1:]  # the first id (BOS, or the first token when there is none) is context only
            out.append(TokenScores(text=text, tokens=self.tokenizer.convert_ids_to_tokens(scored),
                                   token_ids=scored, logprobs=list(lps or [])))
        return out

    def score(self, texts: Sequence[str], reduction: Reduction | None = None) -> list[float]:
        """Log-probability of each text: the sum over its tokens (``reduction="sum"``) or the
        per-token mean (``"mean"``); defaults to the scorer's ``reduction``."""
        red = reduction or self.reduction
        return [ts.reduce(red) for ts in self.token_logprobs(texts)]

    # -- shared-prefix scoring --------------------------------------------------------------------
    def set_normaliser(self, precision: str) -> None:
        """The precision of the output head's log-normaliser in shared-prefix scoring (one of
        :data:`lingtest.resources.lm_head.NORMALISERS`); for ``bfloat16`` the head's weight is copied to
        bfloat16 now, once (a head that is not a plain linear layer, a quantised one, computes full logits
        either way). Only for a scorer that serves a system under test: a suite is generated with the
        float32 normaliser."""
        import torch

        from lingtest.resources.lm_head import NORMALISERS

        if precision not in NORMALISERS:
            raise ValueError(f"normaliser must be one of {', '.join(NORMALISERS)}, got {precision!r}")
        self.normaliser = precision
        self._head_bf16 = None
        head = self.model.get_output_embeddings()
        if precision == "bfloat16" and isinstance(head, torch.nn.Linear):
            self._head_bf16 = head.weight.detach().to(torch.bfloat16)

    def _head_logprobs(self, hidden, rows, targets):
        """:func:`~lingtest.resources.lm_head.head_logprobs` with this model's output head and
        final-logit soft-capping, ``head_chunk`` rows and ``vocab_chunk`` columns at a time."""
        cap = getattr(getattr(self.model, "config", None), "final_logit_softcapping", None)
        head = self.model.get_output_embeddings()
        if self.normaliser == "bfloat16":
            if self._head_bf16 is None:  # normaliser set without set_normaliser: convert the head once
                self.set_normaliser("bfloat16")
            return head_logprobs(head, hidden, rows, targets, softcap=cap, head_chunk=self.bf16_head_chunk,
                                 vocab_chunk=self.bf16_vocab_chunk, normaliser="bfloat16", weight_bf16=self._head_bf16)
        return head_logprobs(head, hidden, rows, targets, softcap=cap, head_chunk=self.head_chunk,
                             vocab_chunk=self.vocab_chunk)

    def _logprobs_at(self, hidden, head_rows: Sequence[int], targets: Sequence[int], multiple: int = 1):
        """``log p(targets[k] | hidden[head_rows[k]])`` for every k: the head applied once to each distinct row of
        ``hidden`` that is needed, the rows padded to a multiple of ``multiple`` with copies of the last
        (:func:`lingtest.resources.lm_rows.padded_head_rows`)."""
        import torch

        dev = self.device
        uniq = padded_head_rows(sorted(set(head_rows)), multiple)
        where = {r: k for k, r in enumerate(uniq)}
        return self._head_logprobs(hidden[torch.tensor(uniq, dtype=torch.long, device=dev)],
                                   torch.tensor([where[r] for r in head_rows], dtype=torch.long, device=dev),
                                   torch.tensor(list(targets), dtype=torch.long, device=dev))

    def _score_groups_batch(self, groups: list[list[list[int]]], plen: list[int],
                            relative: bool) -> list[list[float]]:
        """One batch of groups in **one** forward pass: ``groups[g]`` are token sequences sharing
        their first ``plen[g]`` tokens. See :func:`~lingtest.resources.lm_packing.pack_groups` for
        the layout (every prefix once, every continuation after it, no padding, a block mask and
        explicit position ids); the head is applied only where a log-probability is needed."""
        import torch

        pk = pack_groups(groups, plen, relative=relative)
        dev = self.device
        dtype = next(self.model.parameters()).dtype
        out = self.model.base_model(input_ids=torch.tensor([pk.ids], dtype=torch.long, device=dev),
                                    attention_mask=pk.additive_mask(dtype).to(dev),
                                    position_ids=torch.tensor([pk.positions], dtype=torch.long, device=dev),
                                    use_cache=False)
        lp = self._logprobs_at(out.last_hidden_state[0], pk.head_rows, pk.targets)
        n_texts = sum(len(g) for g in groups)
        sums = torch.zeros(n_texts, dtype=torch.float32, device=lp.device).index_add_(
            0, torch.tensor(pk.owners, dtype=torch.long, device=lp.device), lp).cpu().tolist()
        out_scores: list[list[float]] = []
        k = 0
        for seqs in groups:
            out_scores.append(sums[k:k + len(seqs)])
            k += len(seqs)
        return out_scores

    def _packable(self, enc: list[list[int]]) -> bool:
        """Whether a group can go through the packed pass: every text within the model's
        sliding attention window (a packed mask is not windowed) and an attention implementation
        that honours a custom 4D mask."""
        cfg = getattr(self.model, "config", None)
        if getattr(cfg, "_attn_implementation", None) not in (None, "eager", "sdpa"):
            return False
        window = getattr(cfg, "sliding_window", None)
        return not (window and max(len(s) for s in enc) > int(window))

    def score_grouped(self, groups: Sequence[Sequence[str]], *, relative: bool = False) -> list[list[float]]:
        """Summed log-probabilities of texts that come in groups sharing a beginning (e.g. the
        candidate sentences of one replaced position, which share the left context).

        Within a group the longest common *token* prefix (after BOS) is run once; groups are
        packed into single forward passes (``group_batch_size`` texts and ``pack_tokens`` tokens
        at most per pass, whole groups; :mod:`lingtest.resources.lm_packing`) and the output head
        is applied only at the positions whose log-probabilities are needed. ``relative=False``
        returns what :meth:`score` (``reduction="sum"``) returns; ``relative=True`` leaves out the
        shared prefix's log-probability - the same constant for every text of a group, so a
        softmax over a group is unchanged - and saves the head over the prefix. A group whose
        texts share no token (no BOS), or that cannot be packed (see :meth:`_packable`), falls
        back to :meth:`score`. With a score cache (:meth:`use_score_cache`) groups are scored one per row
        (:mod:`lingtest.resources.lm_rows`) and each group already in the cache is not scored again."""
        import torch

        groups = [_check_texts(g) for g in groups]
        if self.score_cache is not None:
            return self._cached_grouped(groups, relative=relative, per_token=False)
        out: list[list[float] | None] = [None] * len(groups)
        jobs: list[tuple[int, list[list[int]], int]] = []  # (group, encoded texts, prefix length)
        for gi, texts in enumerate(groups):
            if not texts:
                out[gi] = []
                continue
            enc = [self._encode(t) for t in texts]
            p = shared_prefix_length(enc)
            if p < 1 or not self._packable(enc):
                out[gi] = self.score(texts, reduction="sum")
                continue
            jobs.append((gi, enc, p))
        passes = plan_passes([(len(enc), packed_size(enc, p)) for _, enc, p in jobs],
                             max_texts=self.group_batch_size, max_tokens=self.pack_tokens)
        with torch.inference_mode(), attention_guard(self.device):
            for members in passes:
                batch = [jobs[j] for j in members]
                res = self._score_groups_batch([enc for _, enc, _ in batch], [p for _, _, p in batch],
                                               relative)
                for (gi, _, _), r in zip(batch, res, strict=True):
                    out[gi] = r
        return [list(o or []) for o in out]

    def token_logprobs_grouped(self, groups: Sequence[Sequence[str]]) -> list[list[TokenScores]]:
        """:meth:`token_logprobs` of texts that come in groups sharing a beginning (a sentence and
        its one-word variants), each group's longest common token prefix run once in a packed
        forward pass (:meth:`score_grouped`'s layout with every token scored). Same values as
        :meth:`token_logprobs` up to float rounding; a group that cannot be packed (one text, no
        shared token, or see :meth:`_packable`) goes through :meth:`token_logprobs`. With a score cache, as
        :meth:`score_grouped`."""
        import torch

        groups = [_check_texts(g) for g in groups]
        if self.score_cache is not None:
            return self._cached_grouped(groups, relative=False, per_token=True)
        out: list[list[TokenScores] | None] = [None] * len(groups)
        jobs: list[tuple[int, list[list[int]], int]] = []
        for gi, texts in enumerate(groups):
            enc = [self._encode(t) for t in texts]
            p = shared_prefix_length(enc) if len(enc) > 1 else 0
            if p < 1 or not self._packable(enc):
                out[gi] = self.token_logprobs(texts) if texts else []
                continue
            jobs.append((gi, enc, p))
        passes = plan_passes([(len(enc), packed_size(enc, p)) for _, enc, p in jobs],
                             max_texts=self.group_batch_size, max_tokens=self.pack_tokens)
        dev = self.device
        with torch.inference_mode(), attention_guard(self.device):
            for members in passes:
                batch = [jobs[j] for j in members]
                pk = pack_groups([enc for _, enc, _ in batch], [p for _, _, p in batch], relative=False)
                dtype = next(self.model.parameters()).dtype
                res = self.model.base_model(
                    input_ids=torch.tensor([pk.ids], dtype=torch.long, device=dev),
                    attention_mask=pk.additive_mask(dtype).to(dev),
                    position_ids=torch.tensor([pk.positions], dtype=torch.long, device=dev), use_cache=False)
                lp = self._logprobs_at(res.last_hidden_state[0], pk.head_rows, pk.targets).float().cpu().tolist()
                per_text: dict[int, list[float]] = {}
                for owner, v in zip(pk.owners, lp, strict=True):  # each text's tokens in order
                    per_text.setdefault(owner, []).append(v)
                r = 0
                for gi, enc, _ in batch:
                    scored = []
                    for text, ids in zip(groups[gi], enc, strict=True):
                        lps = per_text.get(r, [])
                        r += 1
                        scored.append(TokenScores(text=text, tokens=self.tokenizer.convert_ids_to_tokens(ids[1:]),
                                                  token_ids=ids[1:], logprobs=lps))
                    out[gi] = scored
        return [list(o or []) for o in out]

    # -- the score cache ------------------------------------------------------------------------------
    def use_score_cache(self, cache: Any) -> None:
        """Reuse the scores of groups this model already scored (here or in an earlier process):
        ``cache`` a :class:`~lingtest.resources.lm_cache.ScoreCache` (``None``: no cache). From then on
        :meth:`score_grouped` and :meth:`token_logprobs_grouped` score in the batch-invariant layout of
        :mod:`lingtest.resources.lm_rows`, so a cached value is the bits a fresh computation gives."""
        self.score_cache = cache

    def cache_fingerprint(self) -> dict[str, Any]:
        """What a cached score depends on besides its texts (:mod:`lingtest.resources.lm_cache`)."""
        import platform

        import torch
        import transformers

        if self._weights_id is None:
            folder = os.path.expanduser(str(self.model_name))
            if os.path.isdir(folder) and self.score_cache is not None:
                self._weights_id = self.score_cache.fingerprint_of_folder(folder)
            else:  # a model built in memory (or a hub id): its parameters
                import hashlib

                h = hashlib.sha256()
                for name, t in sorted(self.model.state_dict().items()):
                    h.update(name.encode())
                    h.update(t.detach().to("cpu").contiguous().view(-1).view(torch.uint8).numpy().tobytes())
                self._weights_id = h.hexdigest()
        return {"weights": self._weights_id, "dtype": str(self.dtype), "device": self.device,
                "bos": self.bos_id, "max_length": self.max_length, "normaliser": self.normaliser,
                "head": [self.head_chunk, self.vocab_chunk, self.bf16_head_chunk, self.bf16_vocab_chunk],
                "rows": [self.row_tokens, self.row_step], "attention": getattr(
                    getattr(self.model, "config", None), "_attn_implementation", None),
                "torch": torch.__version__, "transformers": transformers.__version__,
                "cpu": [platform.machine(), torch.backends.cpu.get_cpu_capability()],
                "threads": torch.get_num_threads()}

    def _cached_grouped(self, groups: Sequence[Sequence[str]], *, relative: bool, per_token: bool) -> list[Any]:
        """:meth:`score_grouped` (``per_token=False``) or :meth:`token_logprobs_grouped` through the score
        cache: each distinct group looked up, the others scored by :meth:`_score_rows` and stored pass by
        pass."""
        cache = self.score_cache
        method = "token_logprobs_grouped" if per_token else "score_grouped"
        fp = self.cache_fingerprint()
        uniq = list(dict.fromkeys(tuple(g) for g in groups if g))
        values: dict[tuple[str, ...], Any] = {}
        for g, v in zip(uniq, cache.get(fp, method, relative, uniq, per_token), strict=True):
            if v is not None:
                values[g] = v
        todo = [g for g in uniq if g not in values]
        log.info("LM score cache: %d of %d groups found, %d to score (%s)", len(uniq) - len(todo), len(uniq),
                 len(todo), method)

        def keep(done: list[tuple[tuple[str, ...], Any]]) -> None:
            cache.put(fp, method, relative, done, per_token)
            values.update(done)

        if todo:
            self._score_rows(todo, relative=relative, per_token=per_token, done=keep)
        out: list[Any] = []
        for texts in groups:
            if not texts:
                out.append([])
            elif per_token:
                out.append([self._token_scores(t, lps) for t, lps in zip(texts, values[tuple(texts)], strict=True)])
            else:
                out.append(list(values[tuple(texts)]))
        return out

    def _token_scores(self, text: str, logprobs: list[float]) -> TokenScores:
        scored = self._encode(text)[1:]
        return TokenScores(text=text, tokens=self.tokenizer.convert_ids_to_tokens(scored), token_ids=scored,
                           logprobs=list(logprobs))

    def _score_rows(self, groups: Sequence[tuple[str, ...]], *, relative: bool, per_token: bool,
                    done: Callable[[list[tuple[tuple[str, ...], Any]]], None]) -> None:
        """Score ``groups`` so that each group's values depend on the group alone: a group that can be packed
        as its own row of :mod:`lingtest.resources.lm_rows`, the others each alone through
        :meth:`token_logprobs`. ``done`` gets each pass's ``(group, value)`` pairs (a value: one summed
        log-probability per text, or with ``per_token`` one list of token log-probabilities per text)."""
        import torch

        rows: list[tuple[tuple[str, ...], PackedGroups]] = []
        for g in groups:
            enc = [self._encode(t) for t in g]
            p = shared_prefix_length(enc) if len(enc) > 1 or not per_token else 0
            if p < 1 or not self._packable(enc):
                scored = self.token_logprobs(list(g))
                done([(g, [list(map(float, s.logprobs)) if per_token else _sum(s.logprobs) for s in scored])])
                continue
            rows.append((g, pack_groups([enc], [p], relative=relative)))
        dev = self.device
        dtype = next(self.model.parameters()).dtype
        with torch.inference_mode(), attention_guard(self.device):
            for batch in plan_rows([len(pk.ids) for _, pk in rows], tokens=self.row_tokens, step=self.row_step):
                members = [rows[i] for i in batch.rows]
                ids, positions, mask = row_tensors([pk for _, pk in members], batch.length, batch.size,
                                                   self.pad_id, dtype)
                hidden = self.model.base_model(input_ids=ids.to(dev), attention_mask=mask.to(dev),
                                               position_ids=positions.to(dev), use_cache=False).last_hidden_state
                flat = hidden.reshape(batch.size * batch.length, -1)
                wanted = [b * batch.length + r for b, (_, pk) in enumerate(members) for r in pk.head_rows]
                targets = [t for _, pk in members for t in pk.targets]
                lp = self._logprobs_at(flat, wanted, targets, HEAD_ROWS).float().cpu().tolist()
                finished = []
                k = 0
                for g, pk in members:
                    per_text: list[list[float]] = [[] for _ in g]
                    for owner in pk.owners:
                        per_text[owner].append(float(lp[k]))
                        k += 1
                    finished.append((g, per_text if per_token else [_sum(v) for v in per_text]))
                done(finished)

    def score_continuations(self, prefix: str, continuations: Sequence[str], *,
                            relative: bool = False) -> list[float]:
        """Log-probability of ``prefix + c`` for each continuation ``c`` (plain concatenation:
        put the space in ``c``), with the prefix run once; see :meth:`score_grouped`."""
        return self.score_grouped([[prefix + c for c in _check_texts(continuations)]], relative=relative)[0]

    def __repr__(self) -> str:
        return (f"CausalLMScorer(model={self.model_name!r}, device={self.device!r}, "
                f"batch_size={self.batch_size}, dtype={self.dtype})")


class MaskedLMScorer:
    """Pseudo-log-likelihoods and fill-in candidates from a masked language model.

    ``model``: a hub id (e.g. ``"bert-large-cased"``, as in CREST) or a local directory. PLL masks
    each non-special token in turn (one copy of the text per token, batched ``batch_size`` copies
    per forward pass) and sums ``log p(token | rest)``; words split into several word pieces have
    each piece masked separately, as in Salazar et al. (2020).
    """

    # set by _attach
    model_name: str
    device: str
    dtype: Any
    batch_size: int
    tokenizer: Any
    model: Any

    def __init__(self, model: str | os.PathLike[str] = "bert-large-cased", device: str = "auto",
                 batch_size: int | None = None, dtype: Any = "auto", *, max_length: int = 256,
                 show_progress: bool = False) -> None:
        from transformers import AutoModelForMaskedLM, AutoTokenizer

        name = str(model)
        dev = pick_device(device)
        _attach(self, AutoModelForMaskedLM.from_pretrained(name, dtype=_resolve_dtype(dtype, dev)),
                AutoTokenizer.from_pretrained(name), device=dev, batch_size=batch_size, cpu=16, cuda=128,
                name=name)
        self._setup(max_length=max_length, show_progress=show_progress)

    @classmethod
    def from_model(cls, model, tokenizer, *, device: str = "cpu", batch_size: int | None = None,
                   max_length: int = 256, show_progress: bool = False) -> MaskedLMScorer:
        """Wrap an already-loaded masked LM and its tokenizer (tests, custom models)."""
        self = cls.__new__(cls)
        _attach(self, model, tokenizer, device=pick_device(device), batch_size=batch_size, cpu=16, cuda=128)
        self._setup(max_length=max_length, show_progress=show_progress)
        return self

    def _setup(self, *, max_length: int, show_progress: bool) -> None:
        tok = self.tokenizer
        if tok.mask_token_id is None:
            raise ValueError(f"tokenizer of {self.model_name!r} has no mask token; not a masked LM")
        self.mask_id: int = tok.mask_token_id
        self.pad_id: int = tok.pad_token_id if tok.pad_token_id is not None else 0
        self.max_length = max_length
        self.show_progress = show_progress
        self.special_ids = set(tok.all_special_ids)
        vocab = tok.get_vocab()
        # ids that make sensible whole-word substitutes: no special tokens, no continuation pieces
        # (WordPiece "##x"), no unused slots, something alphanumeric in them
        bad = []
        for piece, idx in vocab.items():
            if (idx in self.special_ids or piece.startswith("##") or piece.startswith("[unused")
                    or not any(ch.isalnum() for ch in piece)):
                bad.append(idx)
        self._bad_candidate_ids = sorted(bad)

    # -- batching helper -------------------------------------------------------------------------
    def _run(self, seqs: list[list[int]], positions: list[int]):
        """Vocabulary log-probabilities (float32, on CPU) at ``positions[i]`` of ``seqs[i]``."""
        import torch

        ids, mask = _pad_right(seqs, self.pad_id)
        logits = self.model(input_ids=ids.to(self.device), attention_mask=mask.to(self.device)).logits
        rows = logits[torch.arange(len(seqs), device=logits.device),
                      torch.tensor(positions, device=logits.device)]
        return torch.log_softmax(rows.float(), dim=-1).cpu()

    def _encode(self, text: str) -> list[int]:
        ids = list(self.tokenizer(text, truncation=True, max_length=self.max_length)["input_ids"])
        return ids

    # -- pseudo-log-likelihood -------------------------------------------------------------------
    def token_logprobs(self, texts: Sequence[str]) -> list[TokenScores]:
        """PLL terms: for each non-special token, ``log p(token | text with it masked)``."""
        import torch

        texts = _check_texts(texts)
        encoded = [self._encode(t) for t in texts]
        jobs: list[tuple[int, int]] = [(t, p) for t, ids in enumerate(encoded)
                                       for p, tid in enumerate(ids) if tid not in self.special_ids]
        jobs.sort(key=lambda j: (len(encoded[j[0]]), j))
        values: dict[tuple[int, int], float] = {}
        bar = _progress(len(jobs), self.show_progress, "PLL scoring")
        with torch.inference_mode():
            for start in range(0, len(jobs), self.batch_size):
                chunk = jobs[start:start + self.batch_size]
                seqs = []
                for t, p in chunk:
                    s = list(encoded[t])
                    s[p] = self.mask_id
                    seqs.append(s)
                lp = self._run(seqs, [p for _, p in chunk])
                for row, (t, p) in enumerate(chunk):
                    values[(t, p)] = float(lp[row, encoded[t][p]])
                if bar is not None:
                    bar.update(len(chunk))
        if bar is not None:
            bar.close()
        out = []
        for t, (text, ids) in enumerate(zip(texts, encoded, strict=True)):
            pos = [p for p, tid in enumerate(ids) if tid not in self.special_ids]
            scored = [ids[p] for p in pos]
            out.append(TokenScores(text=text, tokens=self.tokenizer.convert_ids_to_tokens(scored),
                                   token_ids=scored, logprobs=[values[(t, p)] for p in pos]))
        return out

    def score(self, texts: Sequence[str], reduction: Reduction = "sum") -> list[float]:
        """Pseudo-log-likelihood of each text (sum over tokens, or per-token mean)."""
        return [ts.reduce(reduction) for ts in self.token_logprobs(texts)]

    # -- fill-in candidates ----------------------------------------------------------------------
    def propose_many(self, requests: Sequence[tuple[Sequence[str], int]], top_k: int = 10,
                     min_prob: float = 0.0, exclude_original: bool = True,
                     keep: Callable[[str], bool] | None = None) -> list[list[Candidate]]:
        """:meth:`propose` for many ``(tokens, position)`` pairs, batched."""
        import torch

        if top_k < 1:
            raise ValueError(f"top_k must be positive, got {top_k}")
        seqs: list[list[int]] = []
        positions: list[int] = []
        for tokens, position in requests:
            tokens = list(tokens)
            if not 0 <= position < len(tokens):
                raise IndexError(f"position {position} outside the {len(tokens)} tokens {tokens!r}")
            words = tokens[:position] + [self.tokenizer.mask_token] + tokens[position + 1:]
            ids = list(self.tokenizer(words, is_split_into_words=True, truncation=True,
                                      max_length=self.max_length)["input_ids"])
            where = [i for i, x in enumerate(ids) if x == self.mask_id]
            if len(where) != 1:
                raise ValueError(
                    f"mask at position {position} was truncated away or duplicated in {tokens!r}")
            seqs.append(ids)
            positions.append(where[0])
        out: list[list[Candidate]] = []
        with torch.inference_mode():
            for start in range(0, len(seqs), self.batch_size):
                lp = self._run(seqs[start:start + self.batch_size], positions[start:start + self.batch_size])
                probs = lp.exp()
                if self._bad_candidate_ids:
                    probs[:, self._bad_candidate_ids] = 0.0
                chunk = requests[start:start + self.batch_size]
                for row, (tokens, position) in zip(probs, chunk, strict=True):
                    original = tokens[position]
                    cands: list[Candidate] = []
                    # look further than top_k so filtered-out entries do not shrink the list
                    k = min(row.numel(), top_k * 4 + 8)
                    vals, idx = torch.topk(row, k)
                    for p, i in zip(vals.tolist(), idx.tolist(), strict=True):
                        if p < min_prob or p <= 0.0 or len(cands) >= top_k:
                            break
                        tok = self.tokenizer.convert_ids_to_tokens(i)
                        if exclude_original and tok == original:
                            continue
                        if keep is not None and not keep(tok):
                            continue
                        cands.append(Candidate(tok, float(p)))
                    out.append(cands)
        return out

    def propose(self, tokens: Sequence[str], position: int, top_k: int = 10, min_prob: float = 0.0,
                exclude_original: bool = True, keep: Callable[[str], bool] | None = None) -> list[Candidate]:
        """Masked-LM substitutes for ``tokens[position]``: the word is replaced by the mask token,
        and the ``top_k`` most probable whole-word vocabulary entries with probability
        ``>= min_prob`` are returned, most probable first. Special tokens, word-piece continuations
        and punctuation-only entries are never proposed; the original word is skipped when
        ``exclude_original``; ``keep`` filters further (e.g. by part of speech)."""
        return self.propose_many([(tokens, position)], top_k=top_k, min_prob=min_prob,
                                 exclude_original=exclude_original, keep=keep)[0]

    def __repr__(self) -> str:
        return (f"MaskedLMScorer(model={self.model_name!r}, device={self.device!r}, "
                f"batch_size={self.batch_size})")


def scorer_from_config(cfg: Mapping[str, Any]) -> CausalLMScorer | MaskedLMScorer:
    """Build the LM scorer described by the ``resources`` config group (``conf/resources``):
    ``cfg.lm.kind`` picks ``"causal"`` or ``"masked"`` from :data:`lingtest.resources.LM_SCORERS`.

    On the CPU, torch's threads (process-wide) are set to ``cfg.lm.threads`` first
    (:func:`~lingtest.resources.threads.resolve_threads`; null: left as they are): an LM's scores differ in
    their last bits between thread counts, so every suite this scorer shapes needs a fixed count."""
    from lingtest.resources import LM_SCORERS

    lm = cfg["lm"]
    kind = lm["kind"]
    device = pick_device(lm["device"] or cfg["device"])
    threads = resolve_threads(lm.get("threads"))
    if threads is not None and device == "cpu":
        import torch

        if torch.get_num_threads() != threads:
            torch.set_num_threads(threads)
        log.info("LM on the CPU: %d torch thread(s) (resources.lm.threads=%s)", threads, lm.get("threads"))
    if kind == "masked":
        m = cfg["masked_lm"]
        bs = resolve_batch_size(None, device, cpu=m["batch_size_cpu"], cuda=m["batch_size_cuda"])
        return LM_SCORERS.get("masked")(m["model"], device=device, batch_size=bs,
                                        dtype=m["dtype"], max_length=m["max_length"])
    model = lm["model"]
    if model == "offline-default" and lm["offline_model_dir"]:
        model = lm["offline_model_dir"]
    bs = resolve_batch_size(None, device, cpu=lm["batch_size_cpu"], cuda=lm["batch_size_cuda"])
    return LM_SCORERS.get(kind)(model, device=device, batch_size=bs, dtype=lm["dtype"],
                                max_length=lm["max_length"], reduction=lm["reduction"])
