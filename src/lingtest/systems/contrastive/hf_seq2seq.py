"""Any Hugging Face encoder-decoder translation model (Marian ``Helsinki-NLP/opus-mt-en-de``, NLLB,
M2M100) as a contrastive scorer, by forced decoding: the score of a candidate is
``sum_t log p(y_t | y_<t, x)`` over its target tokens (the end-of-sentence token included, the
target-language prefix token of NLLB/M2M100 excluded).

``mode``:

* ``sentence`` - the main sentence only: ``x`` is the source sentence, ``y`` the candidate;
* ``concat`` - context-aware by concatenation (Tiedemann and Scherrer 2017, the paper's CONCAT):
  ``x = source context + separator + source``, ``y = target context + separator + candidate``, and
  only the candidate's tokens (and the end token) are scored; the target context and separator are
  forced as a prefix. The target is tokenised piecewise (``context + separator`` and the candidate
  separately, then joined), so the candidate's tokens are exactly its sentence-level tokens and the
  boundary is exact for any tokenizer. An empty context gives ``separator + sentence``.

Batching: queries are sorted by length and cut into forward passes of at most ``forward_batch``
candidate rows; a query's source is encoded once and shared by its candidates. Results come back in
input order and do not depend on the batch size or the order of the queries. CUDA when present
(``device: auto``).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from lingtest.systems.contrastive.base import ContrastiveQuery, ContrastiveScorer

log = logging.getLogger(__name__)

Mode = Literal["sentence", "concat"]
_PROBE = "probe"


@dataclass(frozen=True)
class _Row:
    query: int
    labels: list[int]  # target ids (forced prefix + scored part)
    first_scored: int  # index in labels of the first scored token


class HFSeq2SeqScorer(ContrastiveScorer):
    """``model``: hub id or local directory (loaded with ``AutoModelForSeq2SeqLM``/``AutoTokenizer``).
    ``mode``: ``sentence`` or ``concat`` (see the module docstring); ``separator``: the context
    separator of ``concat``; ``src_lang``/``tgt_lang``: language codes for multilingual tokenizers
    (NLLB ``eng_Latn``/``deu_Latn``, M2M100 ``en``/``de``); ``forward_batch``: candidate rows per
    forward pass (default 16 on CPU, 128 on CUDA); ``max_length``: longer sources and targets are
    truncated (from the left for the context, so the main sentence is kept)."""

    version: ClassVar[str] = "1"
    name = "hf_seq2seq"

    def __init__(
        self,
        model: str | os.PathLike[str],
        *,
        mode: Mode,
        separator: str = "<SEP>",
        src_lang: str | None = None,
        tgt_lang: str | None = None,
        device: str = "auto",
        dtype: str = "auto",
        forward_batch: int | None = None,
        max_length: int = 512,
        tokenizer: str | os.PathLike[str] | None = None,
    ) -> None:
        from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

        from lingtest.resources.device import pick_device
        from lingtest.resources.lm import _resolve_dtype

        dev = pick_device(device)
        net = AutoModelForSeq2SeqLM.from_pretrained(str(model), dtype=_resolve_dtype(dtype, dev))
        tok = AutoTokenizer.from_pretrained(str(tokenizer or model))
        self._setup(
            net,
            tok,
            model_name=str(model),
            mode=mode,
            separator=separator,
            src_lang=src_lang,
            tgt_lang=tgt_lang,
            device=dev,
            forward_batch=forward_batch,
            max_length=max_length,
        )

    @classmethod
    def from_model(
        cls,
        model: Any,
        tokenizer: Any,
        *,
        mode: Mode,
        separator: str = "<SEP>",
        src_lang: str | None = None,
        tgt_lang: str | None = None,
        device: str = "cpu",
        forward_batch: int | None = None,
        max_length: int = 512,
        name: str = "",
    ) -> HFSeq2SeqScorer:
        """Wrap an already-loaded model and tokenizer (tests, custom models)."""
        from lingtest.resources.device import pick_device

        self = cls.__new__(cls)
        self._setup(
            model,
            tokenizer,
            model_name=name or getattr(model.config, "name_or_path", "") or type(model).__name__,
            mode=mode,
            separator=separator,
            src_lang=src_lang,
            tgt_lang=tgt_lang,
            device=pick_device(device),
            forward_batch=forward_batch,
            max_length=max_length,
        )
        return self

    def _setup(
        self,
        model: Any,
        tokenizer: Any,
        *,
        model_name: str,
        mode: Mode,
        separator: str,
        src_lang: str | None,
        tgt_lang: str | None,
        device: str,
        forward_batch: int | None,
        max_length: int,
    ) -> None:
        from lingtest.resources.device import resolve_batch_size

        if mode not in ("sentence", "concat"):
            raise ValueError(f"mode must be 'sentence' or 'concat', got {mode!r}")
        if max_length < 4:
            raise ValueError(f"max_length must be at least 4, got {max_length}")
        self.model_name = model_name
        self.mode: Mode = mode
        self.separator = separator
        self.src_lang, self.tgt_lang = src_lang, tgt_lang
        self.device = device
        self.max_length = max_length
        self.forward_batch = resolve_batch_size(forward_batch, device, cpu=16, cuda=128)
        self.tokenizer = tokenizer
        if src_lang is not None:
            tokenizer.src_lang = src_lang
        if tgt_lang is not None:
            tokenizer.tgt_lang = tgt_lang
        self.model = model.to(device).eval()
        self.dtype = next(model.parameters()).dtype
        cfg = model.config
        pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else cfg.pad_token_id
        self.pad_id: int = int(pad if pad is not None else 0)
        start = getattr(cfg, "decoder_start_token_id", None)
        self.start_id: int = int(start if start is not None else self.pad_id)
        self._tgt_prefix, self._tgt_suffix = self._target_specials()

    def config(self) -> dict[str, Any]:
        return {
            "model": self.model_name,
            "mode": self.mode,
            "separator": self.separator,
            "src_lang": self.src_lang,
            "tgt_lang": self.tgt_lang,
            "max_length": self.max_length,
            "dtype": str(self.dtype),
        }

    # -- tokenisation ---------------------------------------------------------------------------
    def _target_ids(self, text: str, special: bool) -> list[int]:
        try:
            enc = self.tokenizer(text_target=text, add_special_tokens=special)
        except TypeError:  # a tokenizer without a target mode
            enc = self.tokenizer(text, add_special_tokens=special)
        return list(enc["input_ids"])

    def _target_specials(self) -> tuple[list[int], list[int]]:
        """The special tokens the tokenizer puts before and after a target (NLLB: the language code
        before, ``</s>`` after; Marian: ``</s>`` after), read off a probe."""
        full, bare = self._target_ids(_PROBE, True), self._target_ids(_PROBE, False)
        for k in range(len(full) - len(bare) + 1):
            if full[k : k + len(bare)] == bare:
                return full[:k], full[k + len(bare) :]
        raise ValueError(
            f"cannot locate the text among the special tokens of {type(self.tokenizer).__name__}"
        )

    def _source_text(self, q: ContrastiveQuery) -> str:
        if self.mode == "sentence":
            return q.source
        ctx = " ".join(q.source_context.split())
        return f"{ctx} {self.separator} {q.source}" if ctx else f"{self.separator} {q.source}"

    def _source_ids(self, q: ContrastiveQuery) -> list[int]:
        ids = list(self.tokenizer(self._source_text(q))["input_ids"])
        if len(ids) > self.max_length:  # keep the end (the main sentence), drop context from the left
            ids = ids[-self.max_length :]
        return ids

    def _rows(self, qi: int, q: ContrastiveQuery) -> list[_Row]:
        lang = list(self._tgt_prefix)
        ctx_ids: list[int] = []
        if self.mode == "concat":
            ctx = " ".join(q.target_context.split())
            ctx_ids = self._target_ids(f"{ctx} {self.separator}" if ctx else self.separator, False)
        rows = []
        for cand in q.candidates:
            scored = self._target_ids(cand, False) + self._tgt_suffix
            room = self.max_length - len(lang) - len(scored)
            if room < 0:
                log.warning(
                    "candidate of %d tokens truncated to max_length=%d: %.60r",
                    len(scored),
                    self.max_length,
                    cand,
                )
                scored = scored[: self.max_length - len(lang)]
            # the forced context is cut from the left when needed (never the candidate)
            kept = (
                ctx_ids[len(ctx_ids) - room :] if 0 < room < len(ctx_ids) else (ctx_ids if room > 0 else [])
            )
            pre = lang + kept
            rows.append(_Row(qi, pre + scored, len(pre)))
        return rows

    # -- scoring --------------------------------------------------------------------------------
    def _passes(
        self, queries: Sequence[ContrastiveQuery], src: list[list[int]], rows: list[list[_Row]]
    ) -> list[list[int]]:
        """Query indices of each forward pass: length-sorted, whole queries, ``forward_batch`` rows."""
        order = sorted(
            range(len(queries)), key=lambda i: (len(src[i]) + max(len(r.labels) for r in rows[i]), i)
        )
        passes: list[list[int]] = []
        cur: list[int] = []
        n = 0
        for i in order:
            k = len(rows[i])
            if cur and n + k > self.forward_batch:
                passes.append(cur)
                cur, n = [], 0
            cur.append(i)
            n += k
        if cur:
            passes.append(cur)
        return passes

    def _score_pass(self, src: list[list[int]], rows: list[_Row]) -> list[float]:
        """One forward pass: ``src`` the sources of the pass, ``rows[k].query`` indexes into it."""
        import torch
        from transformers.modeling_outputs import BaseModelOutput

        from lingtest.resources.lm import _pad_right

        dev = self.device
        src_ids, src_mask = _pad_right(src, self.pad_id)
        src_ids, src_mask = src_ids.to(dev), src_mask.to(dev)
        enc = self.model.get_encoder()(input_ids=src_ids, attention_mask=src_mask).last_hidden_state
        owner = torch.tensor([r.query for r in rows], dtype=torch.long, device=dev)
        hidden = enc.index_select(0, owner)
        mask = src_mask.index_select(0, owner)
        labels = [r.labels for r in rows]
        dec_in = [[self.start_id, *lab[:-1]] for lab in labels]
        dec_ids, dec_mask = _pad_right(dec_in, self.pad_id)
        out = self.model(
            encoder_outputs=BaseModelOutput(last_hidden_state=hidden),
            attention_mask=mask,
            decoder_input_ids=dec_ids.to(dev),
            decoder_attention_mask=dec_mask.to(dev),
            use_cache=False,
        )
        logits = out.logits
        scores = []
        for k, r in enumerate(rows):  # one (T, vocab) float32 log-normaliser at a time
            n = len(r.labels)
            row = logits[k, r.first_scored : n].float()
            tgt = torch.tensor(r.labels[r.first_scored :], dtype=torch.long, device=row.device)
            lp = row.gather(-1, tgt[:, None]).squeeze(-1) - torch.logsumexp(row, dim=-1)
            scores.append(float(lp.sum()))
        return scores

    def predict(self, inputs: list[ContrastiveQuery]) -> list[list[float]]:
        import torch

        src = [self._source_ids(q) for q in inputs]
        rows = [self._rows(i, q) for i, q in enumerate(inputs)]
        out: list[list[float]] = [[] for _ in inputs]
        with torch.inference_mode():
            for members in self._passes(inputs, src, rows):
                local = {qi: k for k, qi in enumerate(members)}
                batch_rows = [
                    _Row(local[r.query], r.labels, r.first_scored) for qi in members for r in rows[qi]
                ]
                scores = self._score_pass([src[qi] for qi in members], batch_rows)
                pos = 0
                for qi in members:
                    n = len(rows[qi])
                    out[qi] = [min(0.0, s) for s in scores[pos : pos + n]]
                    pos += n
        return out

    def __repr__(self) -> str:
        return f"HFSeq2SeqScorer(model={self.model_name!r}, mode={self.mode!r}, device={self.device!r})"
