"""S2LCT tables and plots: Tables 3/4 (per capability and system) and Figure 4 (diversity)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["capability_table", "plot_diversity"]


def _fmt(x: Any) -> str:
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:.2f}"
    return f"{x:,}" if isinstance(x, int) else str(x)


def capability_table(rows: Sequence[Mapping[str, Any]], names: Mapping[str, str], *, baseline: str) -> str:
    """Markdown in the layout of the paper's Tables 3 and 4: per capability the baseline's cases,
    S2LCT's seeds and expansions, and per system failures and failure rates (S2LCT / baseline)
    and pass-to-fail. ``rows``: the evaluate stage's metrics of the systems of one suite."""
    systems = [str(r["system"]) for r in rows]
    head = (f"| capability | {baseline} #TCs | S2LCT #seeds | S2LCT #exps | #fail S2LCT/{baseline} | "
            f"fail rate % S2LCT/{baseline} | #pass-to-fail |")
    lines = [f"Systems: {', '.join(systems)}.", "", head, "|---|---:|---:|---:|---|---|---|"]
    caps: list[str] = list(names)  # the suite's order (metrics JSON is written with sorted keys)
    for r in rows:
        for cid in r["capabilities"]:
            if cid not in caps:
                caps.append(cid)
    for cid in caps:
        first = next((r["capabilities"][cid] for r in rows if cid in r["capabilities"]), None)
        if first is None:
            continue
        fails, rates, p2f = [], [], []
        for r in rows:
            m = r["capabilities"].get(cid)
            if m is None:
                continue
            s = str(r["system"])
            fails.append(f"{s}: {_fmt(m['fail'])}/{_fmt(m['baseline_fail'])}")
            rates.append(f"{s}: {_fmt(m['fail_rate'])}/{_fmt(m['baseline_fail_rate'])}")
            p2f.append(f"{s}: {_fmt(m['pass_to_fail'])}")
        label = f"{cid}: {names.get(cid, '')}"
        lines.append(f"| {label} | {_fmt(first['baseline'])} | {_fmt(first['seeds'])} | {_fmt(first['exps'])} | "
                     f"{'<br>'.join(fails)} | {'<br>'.join(rates)} | {'<br>'.join(p2f)} |")
    return "\n".join(lines) + "\n"


def plot_diversity(rows: Sequence[Mapping[str, Any]], path: str | Path, *, title: str) -> None:
    """Figure 4: Self-BLEU (left) and production-rule coverage (right) against sample size, one
    line per group (SEED, SEED+EXP, baseline)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lingtest.data.io import atomic_open

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
    groups: list[str] = []
    for r in rows:
        if r["group"] not in groups:
            groups.append(str(r["group"]))
    for g in groups:
        rs = [r for r in rows if r["group"] == g]
        xs = [r["size"] for r in rs]
        axes[0].plot(xs, [r["self_bleu"] for r in rs], marker="o", label=g)
        axes[1].plot(xs, [r["coverage"] for r in rs], marker="o", label=g)
    axes[0].set_title("Self-BLEU (lower = more diverse)")
    axes[1].set_title("production-rule coverage")
    for ax in axes:
        ax.set_xlabel("sample size")
        ax.grid(alpha=0.3)
    axes[1].legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    with atomic_open(path, "wb", encoding=None) as fh:
        fig.savefig(fh, format="png", dpi=110)
    plt.close(fig)
