"""The compute bound of an LM-heavy benchmark: at most how many items per second this CPU can
process, from the floating-point operations one item costs (counted by torch's
``FlopCounterMode`` while the real code runs) and the best matrix-product throughput torch reaches
here (measured on the shapes the causal LM's output head uses: a few hundred hidden states of
width 640 against 8,192-column slices of the 262k-entry vocabulary).

A bound, not a forecast: it assumes every counted operation runs at the peak matrix-product rate
and that everything torch does not count (tokenisation, spaCy, Python) is free. Used by
``bench_contrastive.py --bound`` and ``bench_tin.py --bound``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

__all__ = ["bound", "count_gflop", "gemm_gflops_by_rows", "peak_gemm_gflops"]


def gemm_gflops_by_rows(threads: int, *, rows: tuple[int, ...] = (64, 256, 1024), inner: int = 640,
                        cols: int = 8192, seconds: float = 1.0, vocab: int | None = None) -> dict[int, float]:
    """The float32 matrix-product rate (GFLOP/s) torch reaches with ``threads`` threads over
    ``(rows x inner) @ (inner x cols)`` products, by row count, each shape timed for about ``seconds``.
    With ``vocab``, each timed step runs over every ``cols``-column slice of a ``vocab x inner`` weight, as
    the output head's log-normaliser does (the weight then streams from memory instead of staying cached)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        out = {}
        w = torch.randn(vocab or cols, inner)
        slices = [w[v:v + cols] for v in range(0, len(w), cols)]
        for r in rows:
            x = torch.randn(r, inner)
            for s in slices:  # warm-up
                torch.nn.functional.linear(x, s)
            n, t0 = 0, time.perf_counter()
            while time.perf_counter() - t0 < seconds:
                for s in slices:
                    torch.nn.functional.linear(x, s)
                n += 1
            out[r] = 2.0 * r * inner * cols * len(slices) * n / (time.perf_counter() - t0) / 1e9
        return out
    finally:
        torch.set_num_threads(before)


def peak_gemm_gflops(threads: int, *, rows: tuple[int, ...] = (64, 256, 1024), inner: int = 640,
                     cols: int = 8192, seconds: float = 1.0) -> float:
    """The best float32 matrix-product rate (GFLOP/s) of :func:`gemm_gflops_by_rows`."""
    return max(gemm_gflops_by_rows(threads, rows=rows, inner=inner, cols=cols, seconds=seconds).values())


def count_gflop(fn: Callable[[], T]) -> tuple[T, float]:
    """``fn()``'s result and the GFLOP torch counted while it ran (matrix products, attention,
    convolutions: what ``torch.utils.flop_counter`` has formulas for)."""
    from torch.utils.flop_counter import FlopCounterMode

    with FlopCounterMode(display=False) as mode:
        out = fn()
    return out, mode.get_total_flops() / 1e9


def bound(items: int, gflop: float, target: float) -> dict[str, Any]:
    """The bound for ``items`` that cost ``gflop`` in all, at this CPU's measured peak with one
    thread and with every core, against the issue's ``target`` items per second."""
    import os

    cores = os.cpu_count() or 1
    peaks = {1: peak_gemm_gflops(1), cores: peak_gemm_gflops(cores)}
    per_item = gflop / items if items else float("nan")
    return {
        "items": items,
        "gflop": round(gflop, 3),
        "gflop_per_item": round(per_item, 4),
        "peak_gemm_gflops_by_threads": {str(k): round(v, 1) for k, v in peaks.items()},
        "bound_items_per_s_by_threads": {str(k): round(v / per_item, 3) for k, v in peaks.items()},
        "target_items_per_s": target,
        "gflops_needed_for_target": round(target * per_item, 1),
    }
