"""Tables (Markdown) and the ablation plot for CREST results."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lingtest.data.io import atomic_open


def _hits(r: dict[str, Any]) -> str:
    return f"{r['hits']} / {r['sources_wrong']} ({100 * r['hit_rate']:.2f})"


def _has_validity(rows: Sequence[dict[str, Any]]) -> bool:
    return bool(rows) and all("validity" in r for r in rows)


def _validity_cells(r: dict[str, Any], percent: bool) -> str:
    """`` valid / total (%) | adjusted precision |`` of one row (the precision in percent or as a share,
    like the table's own precision column)."""
    v, adj = r.get("validity"), r.get("precision_validity_adjusted")
    share = "" if v is None else f" ({100 * v:.2f})"
    scale = 100 if percent else 1
    return (f" {r.get('validity_valid', 0)} / {r.get('validity_total', 0)}{share} | "
            f"{'' if adj is None else f'{scale * adj:.2f}'} |")


def table1_markdown(rows: Sequence[dict[str, Any]]) -> str:
    """Paper Table 1: one row per system; with the validity figures of the summaries, two more columns:
    the tests whose follow-up keeps its gold and the precision with issues on the others counted as
    false positives. The time column (seconds per selected follow-up) is there when a row has the time:
    the pipeline's tables leave it out (wall-clock figures are not outputs, see
    :mod:`lingtest.metrics.wall_clock`; the runs record it), a benchmark's rows carry it."""
    valid = _has_validity(rows)
    timed = any(r.get("seconds_per_selected") is not None for r in rows)
    head = ("| System | # Src (P+N) | # Gen | # Sel | # Issues | # (%) Hits |" + (" Time (s/sel) |" if timed else "")
            + " # TP | # FP | Prec |")
    lines = [head + (" # (%) Valid | Adj. Prec |" if valid else ""),
             "|---" * (9 + timed + (2 if valid else 0)) + "|"]
    for r in rows:
        t = r.get("seconds_per_selected")
        time_cell = (f" {'' if t is None else f'{t:.3f}'} |" if timed else "")
        lines.append(
            f"| {r.get('system', '')} | {r['sources']} ({r['sources_correct']}+{r['sources_wrong']}) | "
            f"{r['generated']} | {r['selected']} | {r['issues']} | {_hits(r)} |{time_cell}"
            f" {r['true_positives']} | {r['false_positives']} | "
            f"{r['precision']:.2f} |" + (_validity_cells(r, percent=False) if valid else ""))
    return "\n".join(lines) + "\n"


def ablation_markdown(rows: Sequence[dict[str, Any]], system: str = "") -> str:
    """Paper Table 3: M x selection on/off."""
    head = (f"CREST ablation{f' on {system}' if system else ''}: "
            "M = max follow-ups per source, Select = Algorithm 2.\n\n")
    valid = _has_validity(rows)
    lines = ["| M | Select | # Tests | # Issues | # (%) Hits | # TP | # FP | Prec (%) | Depth-preserving (%) |"
             + (" # (%) Valid | Adj. Prec (%) |" if valid else ""),
             "|---" * (11 if valid else 9) + "|"]
    for r in rows:
        pres = f"{r['selected']} / {r['tests']} ({100 * r['selected'] / r['tests']:.2f})" if r["tests"] else "0 / 0"
        lines.append(f"| {r['M']} | {'w/' if r['select'] else 'w/o'} | {r['tests']} | {r['issues']} | {_hits(r)} | "
                     f"{r['true_positives']} | {r['false_positives']} | {100 * r['precision']:.2f} | {pres} |"
                     + (_validity_cells(r, percent=True) if valid else ""))
    return head + "\n".join(lines) + "\n"


def plot_ablation(rows: Sequence[dict[str, Any]], path: str | Path, title: str = "CREST ablation") -> None:
    """Issues and the share of depth-preserving follow-ups against M, one line per selection setting
    (PNG, written atomically). Precision is in the table: graded against gold it is 1.0 whenever the
    gold maps onto the follow-up, so the depth-preserving share is the informative second panel."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.5))
    for sel, style in ((True, "o-"), (False, "s--")):
        rs = sorted((r for r in rows if r["select"] == sel), key=lambda r: r["M"])
        if not rs:
            continue
        label = "with selection" if sel else "without selection"
        ax1.plot([r["M"] for r in rs], [r["issues"] for r in rs], style, label=label)
        ax2.plot([r["M"] for r in rs], [100 * r["selected"] / r["tests"] if r["tests"] else 0.0 for r in rs],
                 style, label=label)
    ax1.set_xlabel("M (max follow-ups per source)")
    ax1.set_ylabel("# issues")
    ax2.set_xlabel("M (max follow-ups per source)")
    ax2.set_ylabel("depth-preserving follow-ups (%)")
    ax1.legend()
    fig.suptitle(title)
    fig.tight_layout()
    with atomic_open(path, "wb") as fh:
        fig.savefig(fh, format="png", dpi=100, metadata={"Software": None})
    plt.close(fig)
