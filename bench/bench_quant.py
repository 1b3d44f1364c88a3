"""Quantised CPU scoring of contrastive candidates against float32: examples per second and agreement
of the offline LM scorer (:class:`lingtest.systems.contrastive.causal_lm.CausalLMContrastiveScorer`,
Gemma-3-270M, packed shared-prefix scoring) on a seeded sample of ContraPro (the mirror's grouped
files, sampled as ``bench_contrastive.py`` does).

Variants (``--variants``, comma-separated, in this order of timing):

* ``float32`` - the reference: the converted model in float32 (always run);
* ``int8``, ``int8_head``, ``int8_tensor``, ``int8_tensor_head`` - PyTorch dynamic int8
  (:func:`lingtest.resources.quantize.quantize_causal_lm`, engine ``x86``): per-channel or
  per-tensor weight scales, the output head kept float32 or quantised too;
* ``torchao_int8`` - torchao's int8 dynamic quantisation (per-token activation scales, per-channel
  weights; head float32), torchao from ``--torchao-site`` when it is not installed here;
* ``bf16_linear``, ``bf16_linear_head`` - the linear layers (and the head) multiplied in bfloat16,
  the rest float32 (:func:`~lingtest.resources.quantize.quantize_causal_lm`, ``torch_bf16``);
* ``bf16_normaliser`` - the float32 model; the output head's log-normaliser multiplied in bfloat16, each
  row's 16 largest logits and every scored token's logit in float32 (``normaliser: bfloat16`` of the
  contrastive system, :func:`lingtest.resources.lm_head.head_logprobs`); ``bf16_normaliser_<R>x<C>`` the same
  with the head computed R rows by C vocabulary columns at a time (default: the scorer's
  ``bf16_head_chunk`` x ``bf16_vocab_chunk``), to compare block sizes in one interleaved run;
* ``bfloat16`` - the whole model loaded in bfloat16 (residual stream and attention too);
* ``onnx_int8`` - the transformer body exported to ONNX (``torch.onnx.export``), weights int8 by
  ``onnxruntime.quantization.quantize_dynamic`` (per channel, MatMul only), run by ONNX Runtime;
  the output head stays the float32 torch one (so the head is exact and the body is what changes);
* ``llama_gguf``, ``llama_gguf_kvf32`` - the Q4_K_M GGUF the model ships in, run by llama.cpp
  (llama-cpp-python, from ``--llama-site`` when it is not importable here): every query's prompt
  and shared beginning decoded once, its candidates as further sequences of the same batch
  (llama.cpp's multi-sequence KV cache), logits requested only where a scored token is predicted,
  log-softmax in float32; the attention cache in llama.cpp's default float16, or float32 (``_kvf32``).

Threads wait passively (``OMP_WAIT_POLICY=PASSIVE`` unless set, ONNX Runtime without spinning):
spinning threads make 2-thread torch several times slower on a 2-core machine shared with other
jobs. Every variant scores the same queries; timing alternates between the variants chunk by chunk so
that a change in the load of the shared machine hits all alike. Per variant: examples/s (wall
clock, summed over the chunks), the median over chunks of its speed relative to float32 on the same
chunk, load time, and against float32: the share of examples with the same choice (best-scoring
candidate) and the max / p99 / mean absolute difference of the per-candidate scores (nats).
``--bound`` adds this CPU's float32 matrix-product peak (``bench/lm_bound.py``) and its bfloat16 one
so that the speeds can be scaled to another CPU.

    .venv/bin/python -W ignore bench/bench_quant.py [--n 200] [--seed 0] [--template de|en]
        [--threads 2] [--variants float32,int8,...] [--chunks 5] [--bound]
        [--onnx-dir /tmp/lingtest-quant-onnx] [--llama-site /tmp/venv-llama/lib/python3.11/site-packages]
        [--torchao-site DIR]
        [--out bench/results/quant_de.json]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import re
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

TEMPLATES = {"en": "English: {src_context} {src}\nGerman:\n", "de": "{tgt_context}\n"}
TORCH_INT8 = {  # variant -> (per_channel, quantize_head)
    "int8": (True, False),
    "int8_head": (True, True),
    "int8_tensor": (False, False),
    "int8_tensor_head": (False, True),
}
TORCH_BF16 = {"bf16_linear": False, "bf16_linear_head": True}  # variant -> quantize_head
ALL_VARIANTS = ("float32", *TORCH_INT8, "torchao_int8", *TORCH_BF16, "bf16_normaliser", "bfloat16", "onnx_int8",
                "llama_gguf", "llama_gguf_kvf32")
DEFAULT_VARIANTS = ("float32", *TORCH_INT8, *TORCH_BF16, "bfloat16", "onnx_int8", "llama_gguf")
#: ``bf16_normaliser_<rows>x<columns>``: the bfloat16 normaliser with other head blocks
BF16_BLOCKS = re.compile(r"bf16_normaliser_(\d+)x(\d+)")
AGREEMENT_TARGET = 0.99
TARGET_AVX2_EXAMPLES_PER_S = 10.0


# ---------------------------------------------------------------- comparison (pure)


def choice(scores: Sequence[float]) -> int:
    """Index of the best-scoring candidate (the first on a tie)."""
    return max(range(len(scores)), key=scores.__getitem__)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) of ``values`` by linear interpolation (NaN when empty)."""
    xs = sorted(values)
    if not xs:
        return math.nan
    pos = (len(xs) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def agreement(ref: Sequence[Sequence[float]], got: Sequence[Sequence[float]]) -> dict[str, Any]:
    """How far ``got`` is from ``ref`` (per example, per candidate scores): examples with the same
    choice (count and share), the ids of those without, the max / p99 / mean absolute difference of
    the candidate scores, and the float32 margin (best minus second best) of the examples whose
    choice changed."""
    if len(ref) != len(got):
        raise ValueError(f"{len(ref)} reference examples but {len(got)} scored ones")
    diffs: list[float] = []
    changed: list[int] = []
    margins: list[float] = []
    for i, (r, g) in enumerate(zip(ref, got, strict=True)):
        if len(r) != len(g):
            raise ValueError(f"example {i}: {len(r)} reference candidates but {len(g)} scored ones")
        diffs.extend(abs(a - b) for a, b in zip(r, g, strict=True))
        if choice(r) != choice(g):
            changed.append(i)
            top = sorted(r, reverse=True)
            margins.append(top[0] - top[1])
    n = len(ref)
    return {
        "examples": n,
        "same_choices": n - len(changed),
        "same_choice_share": round((n - len(changed)) / n, 4) if n else math.nan,
        "changed_examples": changed,
        "float32_margin_of_changed": [round(m, 4) for m in margins],
        "max_abs_score_diff": round(max(diffs, default=0.0), 5),
        "p99_abs_score_diff": round(percentile(diffs, 99), 5),
        "mean_abs_score_diff": round(statistics.fmean(diffs), 5) if diffs else math.nan,
    }


def relative_speed(chunk_seconds: dict[str, list[float]], ref: str = "float32") -> dict[str, float]:
    """Per variant, the median over chunks of ``ref``'s seconds divided by the variant's on the same
    chunk (>1: faster than ``ref``): less sensitive to the load of a shared machine than the totals."""
    base = chunk_seconds[ref]
    return {name: round(statistics.median(b / s for b, s in zip(base, secs, strict=True)), 3)
            for name, secs in chunk_seconds.items()}


# ---------------------------------------------------------------- variants


@dataclass
class Variant:
    """A way of scoring queries: ``predict(queries)`` gives per-candidate scores; ``load_s`` what
    building it from the files on disk took; ``info`` what it is (versions, settings)."""

    name: str
    predict: Callable[[list[Any]], list[list[float]]]
    load_s: float
    info: dict[str, Any] = field(default_factory=dict)


def _system(scorer: Any, template: str):
    from lingtest.systems.contrastive.causal_lm import CausalLMContrastiveScorer

    return CausalLMContrastiveScorer.from_scorer(scorer, template=template, shared_prefix=True)


def torch_variants(names: Sequence[str], template: str) -> tuple[Any, list[Variant]]:
    """The float32 scorer and the torch variants among ``names`` (float32 first)."""
    from lingtest.resources.lm import CausalLMScorer
    from lingtest.resources.quantize import QuantizeOptions, quantize_causal_lm

    t0 = time.perf_counter()
    lm = CausalLMScorer("offline-default", device="cpu", dtype="float32")
    load = time.perf_counter() - t0
    out = [Variant("float32", _system(lm, template).predict, load, {"dtype": "float32"})]
    for name in names:
        if name in TORCH_INT8:
            per_channel, head = TORCH_INT8[name]
            opts = QuantizeOptions(backend="torch_dynamic_int8", per_channel=per_channel, quantize_head=head)
            t0 = time.perf_counter()
            q = CausalLMScorer.from_model(quantize_causal_lm(lm.model, opts), lm.tokenizer, device="cpu")
            quant_s = time.perf_counter() - t0
            out.append(Variant(name, _system(q, template).predict, load + quant_s,
                               {"options": opts.label, "quantize_s": round(quant_s, 2)}))
        elif name in TORCH_BF16:
            opts = QuantizeOptions(backend="torch_bf16", quantize_head=TORCH_BF16[name])
            t0 = time.perf_counter()
            q = CausalLMScorer.from_model(quantize_causal_lm(lm.model, opts), lm.tokenizer, device="cpu")
            quant_s = time.perf_counter() - t0
            out.append(Variant(name, _system(q, template).predict, load + quant_s,
                               {"options": opts.label, "quantize_s": round(quant_s, 2)}))
        elif name == "bf16_normaliser" or BF16_BLOCKS.fullmatch(name):
            # the float32 model; the head's log-normaliser in bfloat16 with each row's top logits float32
            t0 = time.perf_counter()
            q = CausalLMScorer.from_model(lm.model, lm.tokenizer, device="cpu")
            q.set_normaliser("bfloat16")
            if m := BF16_BLOCKS.fullmatch(name):
                q.bf16_head_chunk, q.bf16_vocab_chunk = int(m[1]), int(m[2])
            out.append(Variant(name, _system(q, template).predict, load + time.perf_counter() - t0,
                               {"normaliser": "bfloat16", "exact_top": 16, "head_chunk": q.bf16_head_chunk,
                                "vocab_chunk": q.bf16_vocab_chunk}))
        elif name == "bfloat16":
            t0 = time.perf_counter()
            b = CausalLMScorer("offline-default", device="cpu", dtype="bfloat16")
            out.append(Variant(name, _system(b, template).predict, time.perf_counter() - t0, {"dtype": "bfloat16"}))
    return lm, out


def torchao_variant(lm: Any, template: str, site: str | None) -> Variant:
    """The ``torchao_int8`` variant: torchao's int8 dynamic quantisation with per-token activation
    scales and per-channel weight scales (``Int8DynamicActivationInt8WeightConfig``), the output head
    kept float32 (a quantised head breaks the chunked head's weight slicing under inference mode);
    torchao from ``site`` when it is not importable here."""
    import copy

    import torch

    if site and site not in sys.path:
        sys.path.append(site)
    import torchao
    from torchao.quantization import Int8DynamicActivationInt8WeightConfig, quantize_

    from lingtest.resources.lm import CausalLMScorer

    t0 = time.perf_counter()
    model = copy.deepcopy(lm.model)
    quantize_(model, Int8DynamicActivationInt8WeightConfig(set_inductor_config=False),
              filter_fn=lambda mod, fqn: isinstance(mod, torch.nn.Linear) and fqn != "lm_head")
    scorer = CausalLMScorer.from_model(model, lm.tokenizer, device="cpu")
    return Variant("torchao_int8", _system(scorer, template).predict, time.perf_counter() - t0,
                   {"torchao": torchao.__version__, "head": "torch float32"})


class OrtBodyLM:
    """A causal LM whose transformer body runs in ONNX Runtime and whose output head is a torch
    model's: what :class:`~lingtest.resources.lm.CausalLMScorer`'s packed pass touches
    (``base_model``, ``get_output_embeddings``, ``config``, ``parameters``)."""

    def __init__(self, session: Any, torch_model: Any) -> None:
        self.session = session
        self.config = torch_model.config
        self.head = torch_model.get_output_embeddings()

    def base_model(self, *, input_ids, attention_mask, position_ids, use_cache: bool = False):
        import torch

        feed = {"ids": input_ids.numpy(), "mask": attention_mask.numpy(), "pos": position_ids.numpy()}
        return SimpleNamespace(last_hidden_state=torch.from_numpy(self.session.run(None, feed)[0]))

    def get_output_embeddings(self):
        return self.head

    def parameters(self):
        return self.head.parameters()

    def to(self, device: str) -> OrtBodyLM:
        return self

    def eval(self) -> OrtBodyLM:
        return self


def export_body(model: Any, path: Path) -> float:
    """Export ``model``'s transformer body (ids, (1, 1, T, T) additive mask, position ids ->
    last hidden states, T dynamic) to ONNX at ``path``; the seconds it took."""
    import torch

    class Body(torch.nn.Module):
        def __init__(self, m: Any) -> None:
            super().__init__()
            self.m = m.base_model

        def forward(self, ids, mask, pos):
            return self.m(input_ids=ids, attention_mask=mask, position_ids=pos, use_cache=False).last_hidden_state

    t = 24
    ids = torch.randint(5, 1000, (1, t))
    pos = torch.arange(t)[None]
    mask = torch.triu(torch.full((t, t), torch.finfo(torch.float32).min), 1)[None, None]
    dim = torch.export.Dim("T", min=2, max=4096)
    t0 = time.perf_counter()
    torch.onnx.export(Body(model).eval(), (ids, mask, pos), str(path), dynamo=True, external_data=False,
                      input_names=["ids", "mask", "pos"], output_names=["hidden"],
                      dynamic_shapes={"ids": {1: dim}, "mask": {2: dim, 3: dim}, "pos": {1: dim}})
    return time.perf_counter() - t0


def onnx_variant(lm: Any, template: str, onnx_dir: Path, threads: int) -> Variant:
    """The ``onnx_int8`` variant; the exported and quantised files are kept in ``onnx_dir``."""
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from lingtest.resources.lm import CausalLMScorer

    onnx_dir.mkdir(parents=True, exist_ok=True)
    fp32, int8 = onnx_dir / "body.onnx", onnx_dir / "body_int8.onnx"
    info: dict[str, Any] = {"onnxruntime": ort.__version__, "head": "torch float32", "files": str(onnx_dir)}
    if not int8.exists():
        if not fp32.exists():
            info["export_s"] = round(export_body(lm.model, fp32), 1)
        t0 = time.perf_counter()
        quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8, per_channel=True,
                         op_types_to_quantize=["MatMul"])
        info["quantize_s"] = round(time.perf_counter() - t0, 1)
    t0 = time.perf_counter()
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")  # as OMP_WAIT_POLICY=PASSIVE
    sess = ort.InferenceSession(str(int8), so, providers=["CPUExecutionProvider"])
    scorer = CausalLMScorer.from_model(OrtBodyLM(sess, lm.model), lm.tokenizer, device="cpu")
    for attr in ("pack_tokens", "group_batch_size", "head_chunk", "vocab_chunk"):
        setattr(scorer, attr, getattr(lm, attr))
    return Variant("onnx_int8", _system(scorer, template).predict, time.perf_counter() - t0, info)


class LlamaGroupScorer:
    """Relative scores of query groups by llama.cpp: for each group (token sequences sharing
    their first ``p`` tokens) ``sum log p(s[k] | s[:k])`` over ``k >= p``, as
    :meth:`~lingtest.resources.lm.CausalLMScorer.score_grouped` with ``relative=True``. Groups
    are packed into one batch up to ``max_tokens`` tokens and ``max_seqs`` sequences: the shared
    prefix once (in every candidate's sequence), each continuation in its own sequence."""

    def __init__(self, path: str, threads: int, *, max_tokens: int = 1024, max_seqs: int = 64,
                 kv_f32: bool = False) -> None:
        import llama_cpp as lc

        self.lc = lc
        self.max_tokens, self.max_seqs = max_tokens, max_seqs
        lc.llama_backend_init()
        mp = lc.llama_model_default_params()
        self.model = lc.llama_model_load_from_file(path.encode(), mp)
        if not self.model:
            raise RuntimeError(f"llama.cpp could not load {path}")
        cp = lc.llama_context_default_params()
        cp.n_ctx = max_tokens * 2
        cp.n_batch = cp.n_ubatch = max_tokens
        cp.n_seq_max = max_seqs
        cp.n_threads = cp.n_threads_batch = threads
        if hasattr(cp, "kv_unified"):
            cp.kv_unified = True
        if kv_f32:  # the attention cache in float32 instead of llama.cpp's default float16
            cp.type_k = cp.type_v = lc.GGML_TYPE_F32
        self.ctx = lc.llama_init_from_model(self.model, cp)
        if not self.ctx:
            raise RuntimeError("llama.cpp could not create a context")
        self.n_vocab = lc.llama_vocab_n_tokens(lc.llama_model_get_vocab(self.model))
        self.batch = lc.llama_batch_init(max_tokens, 0, max_seqs)

    def _clear(self) -> None:
        lc = self.lc
        if hasattr(lc, "llama_memory_clear"):
            lc.llama_memory_clear(lc.llama_get_memory(self.ctx), True)
        else:  # older bindings
            lc.llama_kv_self_clear(self.ctx)

    def _decode(self, jobs: list[tuple[list[list[int]], int]]) -> list[list[float]]:
        """One batch: ``jobs`` are (sequences, shared prefix length) groups."""
        import numpy as np
        import torch

        lc, b = self.lc, self.batch
        wanted: list[tuple[int, int, int]] = []  # (batch row, owner text, target token)
        n, seq = 0, 0

        def add(tok: int, pos: int, seqs: list[int], logits: bool) -> int:
            nonlocal n
            b.token[n], b.pos[n], b.n_seq_id[n] = tok, pos, len(seqs)
            for j, s in enumerate(seqs):
                b.seq_id[n][j] = s
            b.logits[n] = logits
            n += 1
            return n - 1

        owner = 0
        for seqs, p in jobs:
            ids = list(range(seq, seq + len(seqs)))
            last = -1
            for k in range(p):
                last = add(seqs[0][k], k, ids, k == p - 1)
            for s, sid in zip(seqs, ids, strict=True):
                prev = last
                for k in range(p, len(s)):
                    wanted.append((prev, owner, s[k]))
                    prev = add(s[k], k, [sid], k < len(s) - 1)
                owner += 1
            seq += len(seqs)
        b.n_tokens = n
        self._clear()
        if lc.llama_decode(self.ctx, b) != 0:
            raise RuntimeError("llama_decode failed")
        rows = sorted({r for r, _, _ in wanted})
        where = {r: i for i, r in enumerate(rows)}
        logits = np.empty((len(rows), self.n_vocab), dtype=np.float32)
        for i, r in enumerate(rows):
            logits[i] = np.ctypeslib.as_array(lc.llama_get_logits_ith(self.ctx, r), shape=(self.n_vocab,))
        lt = torch.from_numpy(logits)
        lse = torch.logsumexp(lt, dim=-1)
        idx = torch.tensor([where[r] for r, _, _ in wanted])
        tgt = torch.tensor([t for _, _, t in wanted])
        lp = (lt[idx, tgt] - lse[idx]).tolist()
        sums = [0.0] * owner
        for (_, o, _), v in zip(wanted, lp, strict=True):
            sums[o] += v
        out, k = [], 0
        for seqs, _ in jobs:
            out.append(sums[k:k + len(seqs)])
            k += len(seqs)
        return out

    def score_groups(self, groups: list[list[list[int]]]) -> list[list[float]]:
        from lingtest.resources.lm_packing import shared_prefix_length

        jobs = [(g, shared_prefix_length(g)) for g in groups]
        out: list[list[float]] = []
        batch: list[tuple[list[list[int]], int]] = []
        tokens = seqs = 0
        for g, p in jobs:
            size = p + sum(len(s) - p for s in g)
            if size > self.max_tokens or len(g) > self.max_seqs or p < 1:
                raise ValueError(f"group of {len(g)} texts, {size} tokens, prefix {p}: does not fit one batch")
            if batch and (tokens + size > self.max_tokens or seqs + len(g) > self.max_seqs):
                out += self._decode(batch)
                batch, tokens, seqs = [], 0, 0
            batch.append((g, p))
            tokens += size
            seqs += len(g)
        if batch:
            out += self._decode(batch)
        return out


def llama_variant(lm: Any, template: str, threads: int, site: str | None, *, kv_f32: bool = False) -> Variant:
    """The ``llama_gguf`` variant: the packaged GGUF through llama.cpp, tokenised by ``lm``'s
    tokenizer (the converted model's, the GGUF's own vocabulary) so both score the same tokens."""
    if site and site not in sys.path:
        sys.path.append(site)
    import llama_cpp

    from lingtest.resources.models import default_gguf_path

    path = default_gguf_path()
    t0 = time.perf_counter()
    scorer = LlamaGroupScorer(str(path), threads, max_tokens=lm.pack_tokens, kv_f32=kv_f32)
    load = time.perf_counter() - t0
    system = _system(lm, template)

    def predict(queries: list[Any]) -> list[list[float]]:
        groups = [[lm._encode(t) for t in system.texts(q)] for q in queries]
        return [[min(0.0, x) for x in r] for r in scorer.score_groups(groups)]

    return Variant("llama_gguf_kvf32" if kv_f32 else "llama_gguf", predict, load,
                   {"llama_cpp_python": llama_cpp.__version__, "gguf": str(path), "gguf_bytes": path.stat().st_size,
                    "kv_cache": "float32" if kv_f32 else "float16"})


# ---------------------------------------------------------------- run


def peak_bf16_gemm_gflops(threads: int, *, rows: int = 1024, inner: int = 640, cols: int = 8192,
                          seconds: float = 1.0) -> float:
    """The bfloat16 matrix-product rate (GFLOP/s) torch reaches with ``threads`` threads on the
    output-head shape that ``lm_bound.peak_gemm_gflops`` times in float32."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        x = torch.randn(rows, inner, dtype=torch.bfloat16)
        w = torch.randn(cols, inner, dtype=torch.bfloat16)
        torch.nn.functional.linear(x, w)
        n, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            torch.nn.functional.linear(x, w)
            n += 1
        return 2.0 * rows * inner * cols * n / (time.perf_counter() - t0) / 1e9
    finally:
        torch.set_num_threads(before)


def machine() -> dict[str, Any]:
    """The CPU (model, SIMD flags, cores), Python and the load average now (as ``bench_profile.py``)."""
    from lingtest.environment import cpu_model, usable_cpus
    from lingtest.profiling import cpu_simd_flags

    return {"python": platform.python_version(), "cpu": cpu_model(), "simd": cpu_simd_flags(),
            "cores": os.cpu_count(), "usable_cpus": usable_cpus(),
            "load_average_1_5_15": [round(x, 2) for x in os.getloadavg()]}


def sample_queries(n: int, seed: int) -> list[Any]:
    """``n`` ContraPro examples drawn with ``random.Random(seed)`` from the mirror's grouped files,
    as contrastive queries (reference first)."""
    from bench_contrastive import _mirror

    from lingtest.readers.options import configured
    from lingtest.systems.contrastive.base import ContrastiveQuery

    examples = list(configured("contrapro_grouped")(_mirror()))
    sample = random.Random(seed).sample(examples, n)
    return [ContrastiveQuery(e.src, (e.ref, *e.contrastive), e.src_context, e.ref_context) for e in sample]


def run_interleaved(variants: list[Variant], queries: list[Any], warmup: int,
                    chunks: int) -> tuple[dict[str, list[list[float]]], dict[str, list[float]]]:
    """Every variant over the same queries, chunk by chunk in turn; their scores and the seconds
    each took per chunk."""
    for v in variants:
        v.predict(queries[:warmup])
    size = max(1, -(-len(queries) // chunks))
    scores: dict[str, list[list[float]]] = {v.name: [] for v in variants}
    seconds: dict[str, list[float]] = {v.name: [] for v in variants}
    for start in range(0, len(queries), size):
        part = queries[start:start + size]
        for v in variants:
            t0 = time.perf_counter()
            scores[v.name] += v.predict(part)
            seconds[v.name].append(time.perf_counter() - t0)
        print(f"chunk {start // size + 1}: " + ", ".join(f"{k} {s[-1]:.1f}s" for k, s in seconds.items()),
              flush=True)
    return scores, seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=200, help="examples in the seeded sample")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--template", choices=sorted(TEMPLATES), default="de")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--variants", default=",".join(DEFAULT_VARIANTS),
                    help=f"comma-separated, of {', '.join(ALL_VARIANTS)} or bf16_normaliser_<rows>x<columns> "
                         "(float32 always runs)")
    ap.add_argument("--warmup", type=int, default=4)
    ap.add_argument("--chunks", type=int, default=5, help="timing alternates between the variants chunk by chunk")
    ap.add_argument("--bound", action="store_true", help="add this CPU's float32 GEMM peak (bench/lm_bound.py)")
    ap.add_argument("--onnx-dir", default="/tmp/lingtest-quant-onnx")
    ap.add_argument("--llama-site", default=None, help="site-packages holding llama_cpp when it is not installed here")
    ap.add_argument("--torchao-site", default=None, help="site-packages holding torchao when it is not installed here")
    ap.add_argument("--out", default=None, help="default: bench/results/quant_<template>.json")
    args = ap.parse_args()
    names = [x.strip() for x in args.variants.split(",") if x.strip() and x.strip() != "float32"]
    bad = [x for x in names if x not in ALL_VARIANTS and not BF16_BLOCKS.fullmatch(x)]
    if bad:
        ap.error(f"unknown variant(s) {', '.join(bad)}")

    # OpenMP threads that spin while they wait make torch with 2 threads several times slower than with 1
    # on a 2-core machine that other jobs share; set before torch (or llama.cpp) starts its thread pool
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import torch

    from lingtest.data.io import write_json

    torch.set_num_threads(args.threads)
    template = TEMPLATES[args.template]
    queries = sample_queries(args.n, args.seed)
    lm, variants = torch_variants(names, template)
    failed: dict[str, str] = {}
    for name in names:
        try:
            if name == "torchao_int8":
                variants.append(torchao_variant(lm, template, args.torchao_site))
            elif name == "onnx_int8":
                variants.append(onnx_variant(lm, template, Path(args.onnx_dir), args.threads))
            elif name in ("llama_gguf", "llama_gguf_kvf32"):
                variants.append(llama_variant(lm, template, args.threads, args.llama_site,
                                              kv_f32=name == "llama_gguf_kvf32"))
        except Exception as exc:  # noqa: BLE001 - a backend that cannot run here is a result too
            failed[name] = f"{type(exc).__name__}: {exc}"
            print(f"{name}: {failed[name]}", flush=True)
    scores, seconds = run_interleaved(variants, queries, args.warmup, args.chunks)
    rel = relative_speed(seconds)
    ref = scores["float32"]
    results: dict[str, Any] = {}
    for v in variants:
        total = sum(seconds[v.name])
        agree = agreement(ref, scores[v.name])
        results[v.name] = {
            "examples_per_s": round(len(queries) / total, 2),
            "seconds": round(total, 2),
            "chunk_seconds": [round(s, 2) for s in seconds[v.name]],
            "speed_vs_float32_median_chunk": rel[v.name],
            "load_s": round(v.load_s, 2),
            **agree,
            "keep": agree["same_choice_share"] >= AGREEMENT_TARGET,
            "accuracy": round(sum(choice(s) == 0 for s in scores[v.name]) / len(queries), 4),
            **v.info,
        }
    out: dict[str, Any] = {
        "bench": "quant",
        "model": lm.model_name,
        "template": template,
        "seed": args.seed,
        "sample": args.n,
        "candidates": sum(len(q.candidates) for q in queries),
        "threads": args.threads,
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY"),
        "torch": torch.__version__,
        "quantized_engine": torch.backends.quantized.engine,
        "machine": machine(),
        "targets": {"same_choice_share": AGREEMENT_TARGET, "avx2_examples_per_s": TARGET_AVX2_EXAMPLES_PER_S},
        "results": results,
        "failed": failed,
    }
    if args.bound:
        from lm_bound import peak_gemm_gflops

        out["peak_gemm_gflops"] = round(peak_gemm_gflops(args.threads), 1)
        out["peak_bf16_gemm_gflops"] = round(peak_bf16_gemm_gflops(args.threads), 1)
    print(json.dumps({k: {x: y for x, y in v.items() if x not in ("changed_examples", "chunk_seconds")}
                      for k, v in results.items()}, indent=1))
    dest = args.out or str(ROOT / "bench" / "results" / f"quant_{args.template}.json")
    write_json(dest, out)
    print(f"wrote {dest}")


if __name__ == "__main__":
    main()
