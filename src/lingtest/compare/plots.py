"""One figure per technique, one panel per metric family: horizontal bars, one bar per column, the
metrics that change most first (at most ``compare.plot_metrics`` per panel).

A family is a kind of number that can share an axis (:func:`family`): ``seconds`` (timing fields),
``counts`` (integers), ``rates`` (proportions in [0, 1]) and ``scores`` (other numbers, such as F1 in
points). Seconds and counts never share an axis. Labels are ``system: metric`` (the corpus in the title
when the figure has one), the metric shortened from the left to :data:`LABEL_CHARS` characters.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from lingtest.compare.table import NONE, Comparison, RowKey, is_hidden

FAMILIES = ("rates", "scores", "counts", "seconds")
#: segments that make a metric a timing field (its own panel)
TIMING = ("*seconds*", "*_s", "time", "*_time", "time_*", "*_time_*")
LABEL_CHARS = 44


def _spread(vals: Sequence[float | None]) -> float:
    nums = [v for v in vals if v is not None]
    if len(nums) < 2:
        return 0.0
    scale = max(abs(v) for v in nums) or 1.0
    return (max(nums) - min(nums)) / scale


def family(key: RowKey, vals: Sequence[float | None]) -> str:
    """The metric family of a row (see the module's docstring)."""
    if is_hidden(key.metric, TIMING):
        return "seconds"
    nums = [v for v in vals if v is not None]
    if nums and all(isinstance(v, int) and not isinstance(v, bool) for v in nums):
        return "counts"
    if nums and all(0.0 <= v <= 1.0 for v in nums):
        return "rates"
    return "scores"


def pick(comp: Comparison, technique: str, limit: int) -> list[RowKey]:
    keys = [k for k in comp.rows if k.technique == technique]
    keys.sort(key=lambda k: (-_spread(comp.rows[k]), k))
    return keys[:limit]


def label(key: RowKey, n: int = LABEL_CHARS, *, corpus: bool = True) -> str:
    """``corpus/system: metric`` without ``-`` parts (and without the corpus unless ``corpus``), the
    metric shortened from the left to fit ``n`` characters (its last segments say what it is)."""
    who = "/".join(p for p in ((key.corpus if corpus else NONE), key.system) if p != NONE)
    room = max(8, n - (len(who) + 2 if who else 0))
    metric = key.metric if len(key.metric) <= room else "…" + key.metric[len(key.metric) - room + 1:]
    return f"{who}: {metric}" if who else metric


def panels(comp: Comparison, technique: str, limit: int) -> list[tuple[str, list[RowKey]]]:
    """The technique's families with rows, each with at most ``limit`` rows, largest changes first."""
    by_family: dict[str, list[RowKey]] = {}
    for k, vals in comp.rows.items():
        if k.technique == technique:
            by_family.setdefault(family(k, vals), []).append(k)
    out = []
    for fam in FAMILIES:
        keys = by_family.get(fam, [])
        keys.sort(key=lambda k: (-_spread(comp.rows[k]), k))
        if keys:
            out.append((fam, keys[:limit]))
    return out


def plot_technique(comp: Comparison, technique: str, path: Path, *, limit: int) -> Path | None:
    """Write ``path`` (PNG): one panel per metric family; None when the technique has no rows."""
    groups = panels(comp, technique, limit)
    if not groups:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lingtest.data.io import atomic_open

    m = len(comp.columns)
    heights = [0.9 + 0.3 * len(keys) * max(1, m) ** 0.5 for _, keys in groups]
    fig, axes = plt.subplots(len(groups), 1, figsize=(9, sum(heights)), squeeze=False,
                             gridspec_kw={"height_ratios": heights})
    bar = 0.8 / m
    corpora = {k.corpus for _, keys in groups for k in keys}
    one_corpus = len(corpora) == 1 and NONE not in corpora
    title = f"{technique}/{next(iter(corpora))}" if one_corpus else technique
    for ax, (fam, keys) in zip(axes[:, 0], groups, strict=True):
        n = len(keys)
        for ci, col in enumerate(comp.columns):
            ys = [i + (ci - (m - 1) / 2) * bar for i in range(n)]
            xs = [comp.rows[k][ci] or 0.0 for k in keys]
            ax.barh(ys, xs, height=bar, label=col)
        ax.set_yticks(range(n), [label(k, corpus=not one_corpus) for k in keys], fontsize=7)
        ax.invert_yaxis()
        ax.set_title(f"{title}: {fam}", fontsize=9, loc="left")
        ax.tick_params(axis="x", labelsize=7)
        if fam == "rates":
            ax.set_xlim(0, 1)
        if m > 1:
            ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(path, "wb") as fh:
        fig.savefig(fh, format="png", dpi=90, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    return path


def plot_all(comp: Comparison, directory: Path, *, limit: int) -> list[Path]:
    out = []
    for technique in comp.techniques():
        p = plot_technique(comp, technique, directory / f"{technique}.png", limit=limit)
        if p is not None:
            out.append(p)
    return out
