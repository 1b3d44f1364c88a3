"""One figure per technique: horizontal bars of its metrics, one bar per column, the metrics that
change most first (at most ``compare.plot_metrics`` per figure)."""

from __future__ import annotations

from pathlib import Path

from lingtest.compare.table import Comparison, RowKey


def _spread(vals: list[float | None]) -> float:
    nums = [v for v in vals if v is not None]
    if len(nums) < 2:
        return 0.0
    scale = max(abs(v) for v in nums) or 1.0
    return (max(nums) - min(nums)) / scale


def pick(comp: Comparison, technique: str, limit: int) -> list[RowKey]:
    keys = [k for k in comp.rows if k.technique == technique]
    keys.sort(key=lambda k: (-_spread(comp.rows[k]), k))
    return keys[:limit]


def plot_technique(comp: Comparison, technique: str, path: Path, *, limit: int) -> Path | None:
    """Write ``path`` (PNG); None when the technique has no rows."""
    keys = pick(comp, technique, limit)
    if not keys:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lingtest.data.io import atomic_open

    n, m = len(keys), len(comp.columns)
    height = 0.8 / m
    fig, ax = plt.subplots(figsize=(8, 0.9 + 0.32 * n * max(1, m) ** 0.5))
    for ci, col in enumerate(comp.columns):
        ys = [i + (ci - (m - 1) / 2) * height for i in range(n)]
        xs = [comp.rows[k][ci] or 0.0 for k in keys]
        ax.barh(ys, xs, height=height, label=col)
    labels = [f"{k.corpus}/{k.system}: {k.metric}".replace("-/-: ", "").replace("/-: ", ": ") for k in keys]
    ax.set_yticks(range(n), labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_title(f"{technique}: {n} metric(s), largest changes first", fontsize=9)
    ax.legend(fontsize=7, loc="best")
    ax.tick_params(axis="x", labelsize=7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(path, "wb") as fh:
        fig.savefig(fh, format="png", dpi=90, metadata={"Software": None})
    plt.close(fig)
    return path


def plot_all(comp: Comparison, directory: Path, *, limit: int) -> list[Path]:
    out = []
    for technique in comp.techniques():
        p = plot_technique(comp, technique, directory / f"{technique}.png", limit=limit)
        if p is not None:
            out.append(p)
    return out
