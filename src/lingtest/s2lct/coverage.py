"""Neuron coverage of a test suite (Ma et al. 2018, DeepGauge), as S2LCT measures it (its Figure 6).

A *neuron* is one hidden unit of the output of one hooked encoder submodule (by default every
transformer layer), averaged over the text's tokens (padding excluded, so a text's value never
depends on what it is batched with); a model has ``N`` = hooked modules × hidden size neurons. Its
bounds ``low_n`` / ``high_n`` are the minimum and maximum over the system's **training** texts. For
a test suite ``T``:

* UpperCorner(T) = {n : some x in T has f_n(x) > high_n}, LowerCorner(T) = {n : some x has
  f_n(x) < low_n};
* BoundCov(T) = (|UpperCorner| + |LowerCorner|) / (2N), SActCov(T) = |UpperCorner| / N.

:func:`coverage_curve` gives both at growing suite sizes over seeded random orders (prefixes of one
permutation per trial, :func:`trial_orders`, so the curve of a trial is monotone and only the sampled
texts are run through the model: CheckList's suite has over 100,000 texts; :func:`sampled_coverage_curve`
runs exactly those); the reference code hooks more
submodules per layer (dense, LayerNorm, dropout), which ``modules`` (a regular expression over
``named_modules()``) can select too.

Everything but :func:`layer_activations` (a forward pass with hooks) is a pure numpy function.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from lingtest.errors import ConfigError

__all__ = ["Bounds", "corner_neurons", "coverage", "coverage_curve", "hooked_modules", "layer_activations",
           "neuron_bounds", "sampled_coverage_curve", "trial_orders"]


@dataclass(frozen=True)
class Bounds:
    """Per-neuron minimum and maximum over the bound texts (``texts`` of them)."""

    low: np.ndarray
    high: np.ndarray
    texts: int

    def __post_init__(self) -> None:
        if self.low.shape != self.high.shape or self.low.ndim != 1:
            raise ValueError(f"low and high must be equally long vectors, got {self.low.shape} and {self.high.shape}")


def neuron_bounds(activations: np.ndarray) -> Bounds:
    """Bounds of ``activations`` (texts × neurons)."""
    acts = np.asarray(activations)
    if acts.ndim != 2 or acts.shape[0] == 0:
        raise ValueError(f"need a non-empty texts × neurons matrix, got shape {acts.shape}")
    return Bounds(acts.min(axis=0), acts.max(axis=0), int(acts.shape[0]))


def corner_neurons(activations: np.ndarray, bounds: Bounds) -> tuple[np.ndarray, np.ndarray]:
    """Boolean masks (upper, lower) of the neurons some text drives above ``high`` / below ``low``."""
    acts = np.asarray(activations)
    if acts.ndim != 2 or acts.shape[1] != bounds.low.shape[0]:
        raise ValueError(f"activations of shape {acts.shape} do not match {bounds.low.shape[0]} neurons")
    if acts.shape[0] == 0:
        none = np.zeros(bounds.low.shape[0], dtype=bool)
        return none, none.copy()
    return np.asarray((acts > bounds.high).any(axis=0)), np.asarray((acts < bounds.low).any(axis=0))


def coverage(activations: np.ndarray, bounds: Bounds) -> dict[str, float]:
    """BoundCov, SActCov and the corner counts of a suite's activations."""
    upper, lower = corner_neurons(activations, bounds)
    n = int(bounds.low.shape[0])
    return {"bound_cov": (int(upper.sum()) + int(lower.sum())) / (2 * n), "sact_cov": int(upper.sum()) / n,
            "upper": int(upper.sum()), "lower": int(lower.sum()), "neurons": n, "texts": int(len(activations))}


def trial_orders(n_texts: int, sizes: Sequence[int], trials: int, seed: int) -> tuple[list[int], list[np.ndarray]]:
    """The usable sizes (those up to ``n_texts``, sorted) and, per trial, the first ``max(sizes)``
    indices of a permutation of the texts seeded with ``(seed, trial)``: the texts a curve needs, so
    that only those are run through the model."""
    usable = sorted({int(s) for s in sizes if 1 <= int(s) <= n_texts})
    limit = usable[-1] if usable else 0
    return usable, [np.random.default_rng([seed, t]).permutation(n_texts)[:limit] for t in range(trials)]


def coverage_curve(activations: np.ndarray, bounds: Bounds, sizes: Sequence[int],
                   orders: Sequence[np.ndarray]) -> dict[str, Any]:
    """BoundCov and SActCov of the first ``size`` texts of every order (rows of ``activations``; one
    order per trial, :func:`trial_orders`), for every size; per size the values of every trial and their
    median. A trial's curve is monotone."""
    acts = np.asarray(activations)
    n = acts.shape[1]
    usable = list(sizes)
    per_trial: list[dict[str, list[float]]] = []
    for order in orders:
        if usable and len(order) < usable[-1]:
            raise ValueError(f"an order of {len(order)} texts cannot give a curve up to {usable[-1]}")
        upper = np.maximum.accumulate(acts[order] > bounds.high, axis=0)
        lower = np.maximum.accumulate(acts[order] < bounds.low, axis=0)
        up = upper.sum(axis=1)
        lo = lower.sum(axis=1)
        per_trial.append({"bound_cov": [float((up[s - 1] + lo[s - 1]) / (2 * n)) for s in usable],
                          "sact_cov": [float(up[s - 1] / n) for s in usable]})
    out: dict[str, Any] = {"sizes": usable, "trials": len(orders)}
    for metric in ("bound_cov", "sact_cov"):
        values = np.array([t[metric] for t in per_trial]).reshape(len(orders), len(usable))
        out[metric] = {"median": [float(v) for v in np.median(values, axis=0)] if len(orders) else [],
                       "trials": values.tolist()}
    return out


def sampled_coverage_curve(texts: Sequence[str], activations: Callable[[list[str]], np.ndarray], bounds: Bounds,
                           sizes: Sequence[int], trials: int, seed: int) -> dict[str, Any]:
    """:func:`coverage_curve` of ``texts`` over ``trials`` seeded orders (:func:`trial_orders`), computing
    ``activations(texts)`` (texts × neurons) only for the texts the orders reach, each once, in text
    order."""
    usable, orders = trial_orders(len(texts), sizes, trials, seed)
    needed = sorted({int(i) for order in orders for i in order})
    row = {i: r for r, i in enumerate(needed)}
    acts = activations([texts[i] for i in needed])
    return coverage_curve(acts, bounds, usable, [np.array([row[int(i)] for i in o]) for o in orders])


def hooked_modules(net: Any, pattern: str) -> list[tuple[str, Any]]:
    """``(name, module)`` of every submodule whose ``named_modules()`` name fully matches ``pattern``,
    in model order; none is a :class:`ConfigError` listing a few names."""
    try:
        rx = re.compile(pattern)
    except re.error as exc:
        raise ConfigError(f"coverage modules: invalid regular expression {pattern!r} ({exc})") from exc
    found = [(name, m) for name, m in net.named_modules() if name and rx.fullmatch(name)]
    if not found:
        names = [name for name, _ in net.named_modules() if name][:12]
        raise ConfigError(f"coverage modules: no submodule matches {pattern!r}; some names: {names}")
    return found


def layer_activations(net: Any, tokenizer: Any, texts: Sequence[str], *, modules: Sequence[tuple[str, Any]],
                      max_length: int, batch_size: int, device: str, progress: Any = None) -> np.ndarray:
    """texts × neurons: the token-mean (padding excluded) of every hooked module's output, modules
    concatenated in order. A module's output is its tensor, or the first tensor of a tuple."""
    import torch

    captured: list[Any] = []

    def hook(_module: Any, _inputs: Any, output: Any) -> None:
        value = output[0] if isinstance(output, tuple | list) else output
        if not isinstance(value, torch.Tensor) or value.dim() != 3:
            raise ConfigError(f"coverage: a hooked module returned {type(value).__name__} "
                              f"{tuple(getattr(value, 'shape', ()))}, not a batch × tokens × hidden tensor")
        captured.append(value.detach())

    handles = [m.register_forward_hook(hook) for _, m in modules]
    rows: list[np.ndarray] = []
    starts = range(0, len(texts), batch_size)
    try:
        net.eval()
        for i in (progress(starts, "activations") if progress is not None else starts):
            captured.clear()
            enc = tokenizer(list(texts[i:i + batch_size]), truncation=True, max_length=max_length,
                            padding=True, return_tensors="pt")
            enc = {k: v.to(device) for k, v in enc.items()}
            with torch.inference_mode():
                net(**enc)
            mask = enc["attention_mask"].unsqueeze(-1).float()
            means = [(h.float() * mask).sum(dim=1) / mask.sum(dim=1) for h in captured]
            rows.append(torch.cat(means, dim=1).cpu().numpy())
    finally:
        for h in handles:
            h.remove()
    if not rows:
        return np.zeros((0, 0), dtype=np.float32)
    return np.concatenate(rows, axis=0)
