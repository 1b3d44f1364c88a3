"""Scoring systems on the clean and adversarial test sets, and the paper's Table 3 view.

Corpus-level scores sum each metric's recall/precision numerators and denominators over the
documents (as the official CoNLL scorer does) before dividing; CoNLL F1 is the mean of the MUC,
B-cubed and CEAF-e F1 (in percent). :func:`table3_row` turns per-set CoNLL F1 into the paper's
columns: CLEAN, Avg over the six schemes and its delta, the alpha (orthographic) and beta
(lexical) group means and their deltas to clean.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lingtest.adversarial.perturbations import groups as scheme_groups
from lingtest.data.model import Cluster, clusters_as_spans

CONLL_METRICS: tuple[str, ...] = ("muc", "bcub", "ceafe")


def aggregate(per_doc: Sequence[Mapping[str, Any]], metrics: Sequence[str]) -> dict[str, dict[str, float]]:
    """Sum per-document counts of ``metrics`` (``adversarial.metrics``; objects with ``recall_num``,
    ``recall_den``, ``precision_num``, ``precision_den``) into corpus scores in percent, plus ``conll`` F1
    when the three CoNLL metrics are among them."""
    from lingtest.metrics.coref import aggregate as sum_counts

    out: dict[str, dict[str, float]] = {}
    for name in metrics:
        total = sum_counts(d[name] for d in per_doc)
        out[name] = {"recall": 100 * total.recall, "precision": 100 * total.precision, "f1": 100 * total.f1}
    if all(m in out for m in CONLL_METRICS):
        out["conll"] = {"f1": sum(out[m]["f1"] for m in CONLL_METRICS) / len(CONLL_METRICS)}
    return out


def score_corpus(keys: Sequence[Sequence[Cluster]], responses: Sequence[Sequence[Cluster]],
                 metrics: Sequence[str]) -> dict[str, dict[str, float]]:
    """Corpus-level scores of ``metrics`` (``adversarial.metrics``) of response clusterings against gold
    ones (document by document)."""
    from lingtest.metrics.coref import score_clusterings

    if len(keys) != len(responses):
        raise ValueError(f"{len(keys)} gold documents but {len(responses)} responses")
    per_doc = [score_clusterings(clusters_as_spans(k), clusters_as_spans(r), metrics=tuple(metrics))
               for k, r in zip(keys, responses, strict=True)]
    return aggregate(per_doc, metrics)


def table3_row(conll_by_set: Mapping[str, float], clean: str = "clean",
               groups: Mapping[str, Sequence[str]] | None = None) -> dict[str, float]:
    """Paper Table 3 columns from CoNLL F1 per set: ``clean``, ``avg``/``avg_delta`` over every
    scheme of ``groups`` present, ``<group>``/``<group>_delta`` per group. Sets missing from
    ``conll_by_set`` are skipped; a group with none present is omitted."""
    groups = scheme_groups() if groups is None else groups
    row: dict[str, float] = {}
    base = conll_by_set.get(clean)
    if base is not None:
        row["clean"] = base
    members = [s for g in groups.values() for s in g if s in conll_by_set]
    if members:
        row["avg"] = sum(conll_by_set[s] for s in members) / len(members)
        if base is not None:
            row["avg_delta"] = row["avg"] - base
    for g, names in groups.items():
        present = [s for s in names if s in conll_by_set]
        if not present:
            continue
        row[g] = sum(conll_by_set[s] for s in present) / len(present)
        if base is not None:
            row[f"{g}_delta"] = row[g] - base
    return row


def render_table3(rows: Mapping[str, Mapping[str, float]]) -> str:
    """Markdown table, one row per system."""
    cols = ["clean", "avg", "avg_delta", "alpha", "alpha_delta", "beta", "beta_delta"]
    heads = ["System", "CLEAN", "Avg", "Δ", "α(3)", "Δ", "β(3)", "Δ"]
    lines = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    for system, row in rows.items():
        cells = [f"{row[c]:.2f}" if c in row else "" for c in cols]
        lines.append("| " + " | ".join([system, *cells]) + " |")
    return "\n".join(lines) + "\n"


def plot_sets(conll: Mapping[str, Mapping[str, float]], path: str | Path, title: str = "CoNLL F1 by test set") -> None:
    """Grouped bar chart: one group per test set, one bar per system (PNG, written atomically)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lingtest.data.io import atomic_open

    systems = list(conll)
    sets: list[str] = []
    for s in systems:
        for name in conll[s]:
            if name not in sets:
                sets.append(name)
    width = 0.8 / max(1, len(systems))
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(sets)), 4))
    for k, s in enumerate(systems):
        xs = [i + k * width for i in range(len(sets))]
        ax.bar(xs, [conll[s].get(n, 0.0) for n in sets], width=width, label=s)
    ax.set_xticks([i + width * (len(systems) - 1) / 2 for i in range(len(sets))])
    ax.set_xticklabels(sets, rotation=30, ha="right")
    ax.set_ylabel("CoNLL F1")
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    with atomic_open(path, "wb", encoding=None) as fh:
        fig.savefig(fh, format="png", dpi=120)
    plt.close(fig)
