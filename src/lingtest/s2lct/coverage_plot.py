"""The coverage figure (like S2LCT's Figure 6): BoundCov (top) and SActCov (bottom) against the number
of test cases, one line per suite (S2LCT red, the baseline black, as in the paper), the median over
trials with the range of the trials shaded."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["plot_coverage"]

_COLOURS = {"S2LCT": "tab:red", "baseline": "black"}
_TITLES = {"bound_cov": "BoundCov", "sact_cov": "SActCov"}


def plot_coverage(curves: Mapping[str, Mapping[str, Any]], path: str | Path, title: str) -> None:
    """``curves``: suite name -> :func:`~lingtest.s2lct.coverage.coverage_curve` result (PNG, written
    atomically)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from lingtest.data.io import atomic_open

    fig, axes = plt.subplots(2, 1, figsize=(5, 6), sharex=True)
    for ax, metric in zip(axes, ("bound_cov", "sact_cov"), strict=True):
        for name, curve in curves.items():
            sizes = curve["sizes"]
            if not sizes:
                continue
            trials = np.array(curve[metric]["trials"], dtype=float).reshape(-1, len(sizes))
            colour = _COLOURS.get(name)
            ax.plot(sizes, curve[metric]["median"], marker="o", color=colour, label=name)
            ax.fill_between(sizes, trials.min(axis=0), trials.max(axis=0), color=colour, alpha=0.15)
        ax.set_ylabel(_TITLES[metric])
        ax.grid(alpha=0.3)
    axes[0].set_title(title)
    axes[0].legend()
    axes[1].set_xlabel("number of test cases")
    fig.tight_layout()
    with atomic_open(path, "wb", encoding=None) as fh:
        fig.savefig(fh, format="png", dpi=120)
    plt.close(fig)
