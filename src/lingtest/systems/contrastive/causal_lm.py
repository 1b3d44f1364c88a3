"""A causal language model as an honest *LM scorer* of contrastive candidates (not a translator). Two
configurations make the paper's baseline-vs-CONCAT contrast offline:

* English-prompted: ``template`` holds ``{src_context}`` and ``{src}`` (e.g.
  ``"English: {src_context} {src}\\nGerman:\\n"``) - the German candidate conditioned on the English;
* German only: ``template`` holds ``{tgt_context}`` (e.g. ``"{tgt_context}\\n"``) - a monolingual
  context-aware LM over the German side; without context the candidate is scored on its own.

Placeholders: ``{src}``, ``{src_context}``, ``{tgt_context}``; after rendering, runs of spaces are
collapsed and every line is stripped (an empty context leaves no stray space), and a prompt of only
whitespace is empty. The candidate is appended to the prompt as is.

The score of a candidate is the log-probability of its tokens *from the first token where the
candidates differ*, given the prompt and the shared beginning: ``log P(c[k:] | prompt + c[:k])``, ``k``
the longest common token prefix of the ``prompt + candidate`` texts (at least one token of each kept).
It differs from ``log P(candidate | prompt)`` by the log-probability of the shared beginning, the same
for every candidate of a query, so the choice and every margin between candidates are those of the
full conditional. The candidates of a ContraPro example differ only from the pronoun on, so this is
what shared-prefix scoring computes without waste:

* ``shared_prefix: true`` - the query's texts go to
  :meth:`~lingtest.resources.lm.CausalLMScorer.score_grouped` as one group (``relative=True``): the
  prompt and shared beginning run once, packed with other queries, and the output head (262k columns
  for Gemma-3) is applied only where a scored token is predicted;
* ``shared_prefix: false`` - naive: every text is scored in full on its own
  (:meth:`~lingtest.resources.lm.CausalLMScorer.token_logprobs`) and the same tokens are summed.

Both agree to float precision (tested; ``bench/bench_contrastive.py`` measures the speed). ``window``
(an approximation, ``null`` for exact scores) keeps only that many words of each candidate after the
last word where the candidates differ.
"""

from __future__ import annotations

import logging
import os
import re
import string
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from lingtest.systems.contrastive.base import ContrastiveQuery, ContrastiveScorer

log = logging.getLogger(__name__)

FIELDS = ("src", "src_context", "tgt_context")


def check_template(template: str) -> None:
    names = [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]
    bad = [f for f in names if f not in FIELDS]
    if bad:
        raise ValueError(
            f"template placeholder(s) {', '.join('{' + b + '}' for b in bad)} unknown; "
            f"allowed: {', '.join('{' + f + '}' for f in FIELDS)}"
        )


def render(template: str, q: ContrastiveQuery) -> str:
    """The prompt of a query (see the module docstring)."""
    text = template.format(src=q.source, src_context=q.source_context, tgt_context=q.target_context)
    lines = [" ".join(line.split()) for line in text.split("\n")]
    out = "\n".join(lines)
    return out if out.strip() else ""


def truncate_after_difference(candidates: Sequence[str], window: int) -> list[str]:
    """Each candidate cut ``window`` words (whitespace-separated) after the *last* word where the
    candidates differ - the words they share at the end are what is cut - so that candidates that
    differ in several places (``es ... es`` / ``er ... ihn``) stay distinct; a candidate with fewer
    words than that is kept whole."""
    spans = [[m.span() for m in re.finditer(r"\S+", c)] for c in candidates]
    words = [[c[a:b] for a, b in sp] for c, sp in zip(candidates, spans, strict=True)]
    shortest = min(len(w) for w in words)
    suffix = 0  # words shared at the end by every candidate
    while suffix < shortest and len({w[len(w) - 1 - suffix] for w in words}) == 1:
        suffix += 1
    out = []
    for c, sp in zip(candidates, spans, strict=True):
        keep = len(sp) - suffix + window
        out.append(c if keep >= len(sp) else c[: sp[keep - 1][1]])
    return out


class CausalLMContrastiveScorer(ContrastiveScorer):
    """``template``: the prompt (see the module docstring). ``model``: ``offline-default`` (the packaged
    Gemma-3-270M), a directory or a hub id; ``device``, ``dtype``, ``max_length``: those of
    :class:`~lingtest.resources.lm.CausalLMScorer`, ``lm_batch_size`` its ``batch_size`` (texts per
    pass of naive scoring; ``batch_size`` of a config entry is the factory's, queries per call) and
    ``pack_tokens`` its tokens per packed pass (``null``: its default); ``shared_prefix``: packed
    shared-prefix scoring (``true``) or naive per-text scoring (``false``), same values; ``window``:
    words scored after the last difference (``null``: all, exact); ``quantize``: the options of
    :func:`~lingtest.resources.quantize.quantize_options` (``null``: float32 as loaded); ``normaliser``:
    the precision of the output head's log-normaliser in shared-prefix scoring, ``float32``, ``bfloat16``
    (the vocabulary's bulk in bfloat16, each row's largest logits and every scored token's logit in
    float32; :func:`~lingtest.resources.lm_head.head_logprobs`) or ``bfloat16_if_native`` (bfloat16 where
    the device multiplies it natively, :func:`~lingtest.resources.quantize.resolve_precision`). A quantised
    scorer may serve a system under test where its agreement with float32 is measured
    (``bench/bench_quant.py``); its cache entries are its own (the backend and a bfloat16 normaliser are
    part of the key)."""

    version: ClassVar[str] = "1"
    name = "causal_lm"

    def __init__(
        self,
        *,
        template: str,
        model: str | os.PathLike[str] = "offline-default",
        shared_prefix: bool = True,
        window: int | None = None,
        device: str = "auto",
        dtype: str = "auto",
        max_length: int = 512,
        lm_batch_size: int | None = None,
        pack_tokens: int | None = None,
        quantize: Mapping[str, Any] | None = None,
        normaliser: str = "float32",
    ) -> None:
        from lingtest.resources.lm import CausalLMScorer
        from lingtest.resources.quantize import check_precision, quantize_causal_lm, quantize_options, resolve_precision

        check_template(template)
        check_precision(normaliser, "normaliser")
        options = quantize_options(quantize)
        scorer = CausalLMScorer(model, device=device, batch_size=lm_batch_size, dtype=dtype, max_length=max_length)
        if options.backend != "none":
            scorer.model = quantize_causal_lm(scorer.model, options)
        scorer.set_normaliser(resolve_precision(normaliser, str(scorer.device)))
        if pack_tokens is not None:
            if pack_tokens < 8:
                raise ValueError(f"pack_tokens must be at least 8, got {pack_tokens}")
            scorer.pack_tokens = pack_tokens
        self._setup(scorer, template=template, shared_prefix=shared_prefix, window=window)
        self.quantize = options.label

    @classmethod
    def from_scorer(
        cls, scorer: Any, *, template: str, shared_prefix: bool = True, window: int | None = None
    ) -> CausalLMContrastiveScorer:
        """Wrap a :class:`~lingtest.resources.lm.CausalLMScorer` (tests, benchmarks)."""
        check_template(template)
        self = cls.__new__(cls)
        self._setup(scorer, template=template, shared_prefix=shared_prefix, window=window)
        return self

    def _setup(self, scorer: Any, *, template: str, shared_prefix: bool, window: int | None) -> None:
        if window is not None and window < 0:
            raise ValueError(f"window must be >= 0 or null, got {window}")
        self.scorer = scorer
        self.template = template
        self.shared_prefix = shared_prefix
        self.window = window
        self.quantize = "none"  # the label of the quantisation applied to ``scorer`` (set by ``__init__``)

    def config(self) -> dict[str, Any]:
        # shared_prefix changes the arithmetic only, not the value: it is not part of the cache key
        return {
            "model": str(getattr(self.scorer, "model_name", "")),
            "template": self.template,
            "window": self.window,
            "dtype": str(getattr(self.scorer, "dtype", "")),
            "max_length": getattr(self.scorer, "max_length", None),
            **({"quantize": self.quantize} if self.quantize != "none" else {}),
            **({"normaliser": normaliser} if (normaliser := getattr(self.scorer, "normaliser", "float32"))
               != "float32" else {}),
        }

    def texts(self, q: ContrastiveQuery) -> list[str]:
        """The texts scored for a query: the prompt followed by each (windowed) candidate."""
        cands = list(q.candidates) if self.window is None else truncate_after_difference(q.candidates, self.window)
        prompt = render(self.template, q)
        return [prompt + c for c in cands]

    def predict(self, inputs: list[ContrastiveQuery]) -> list[list[float]]:
        groups = [self.texts(q) for q in inputs]
        if self.shared_prefix:
            res = self.scorer.score_grouped(groups, relative=True)
        else:
            res = [self._naive(g) for g in groups]
        return [[min(0.0, float(x)) for x in r] for r in res]

    def _naive(self, texts: list[str]) -> list[float]:
        """Each text scored in full on its own, summed after the group's shared token prefix."""
        from lingtest.resources.lm_packing import shared_prefix_length

        p = shared_prefix_length([self.scorer._encode(t) for t in texts])
        # token_logprobs()[i] scores encoded token i + 1: the tokens after the prefix are [p - 1:]
        return [float(sum(ts.logprobs[max(p - 1, 0) :])) for ts in self.scorer.token_logprobs(texts)]
