"""Tables of ContraPro results (markdown): accuracy per attack variant next to the clean accuracy on the
same examples, and the breakdowns of one accuracy report; the report over several systems."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def attack_table(deltas: Mapping[str, Mapping[str, Any]]) -> str:
    """``deltas``: ``"attack/variant"`` -> :func:`lingtest.contrapro.evaluate.attack_delta`."""
    rows = [
        "| attack / variant | examples | clean acc. | attacked acc. | Δ (points) | broken | fixed |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, d in deltas.items():
        delta = d.get("delta")
        rows.append(
            f"| {name} | {d['total']} | {_pct(d['clean']['accuracy'])} | {_pct(d['attacked']['accuracy'])} "
            f"| {'-' if delta is None else f'{100 * delta:+.1f}'} | {d['broken']} | {d['fixed']} |"
        )
    return "\n".join(rows) + "\n"


def breakdown_table(report: Mapping[str, Any]) -> str:
    """One accuracy report (:func:`lingtest.contrapro.evaluate.accuracy_report`) as a table."""
    o = report["overall"]
    rows = [
        "| group | value | correct | total | accuracy |",
        "|---|---|---:|---:|---:|",
        f"| overall | all | {o['correct']} | {o['total']} | {_pct(o['accuracy'])} |",
    ]
    for name in ("by_pronoun", "by_distance", "by_intrasegmental"):
        for key, c in report.get(name, {}).items():
            rows.append(f"| {name[3:]} | {key} | {c['correct']} | {c['total']} | {_pct(c['accuracy'])} |")
    return "\n".join(rows) + "\n"


def report_markdown(results: Mapping[str, Mapping[str, Any]]) -> str:
    """The report over systems (``results``: system -> its graded metrics,
    :func:`lingtest.contrapro.grading.grade`): per system the clean accuracy with its breakdowns, then
    Δ per attack (all variants pooled) and per variant."""
    parts = ["# ContraPro attacks\n"]
    for name, res in results.items():
        parts.append(f"\n## {name}\n\nclean accuracy and breakdowns:\n\n")
        parts.append(breakdown_table(res["sets"]["clean"]))  # the clean set, as in attack_bars
        parts.append("\nper attack (all variants pooled), then per variant; Δ on the same examples:\n\n")
        parts.append(attack_table(res["attacks"]))
        parts.append("\n" + attack_table(res["deltas"]))
    return "".join(parts)


# -- plots (the layout of the paper's Figures 4.1-4.4: one group per set, one bar per system) --------
def grouped_bars(
    values: Mapping[str, Mapping[str, float | None]],
    path: Any,
    *,
    ylabel: str,
    title: str,
    ylim: tuple[float, float] | None = (0.0, 100.0),
    baseline: float | None = None,
) -> None:
    """``values``: system -> group -> value (``None``: no bar). One group per key (first-seen order),
    one bar per system, the value written above each bar; an optional dashed line (chance)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lingtest.data.io import atomic_open

    systems = list(values)
    groups: list[str] = []
    for s in systems:
        groups.extend(g for g in values[s] if g not in groups)
    width = 0.8 / max(1, len(systems))
    fig, ax = plt.subplots(figsize=(max(6.0, 1.2 * len(groups) + 1), 4.2))
    for k, s in enumerate(systems):
        xs = [i + k * width for i in range(len(groups))]
        ys = [values[s].get(g) for g in groups]
        bars = ax.bar(xs, [0.0 if y is None else y for y in ys], width=width, label=s)
        for b, y in zip(bars, ys, strict=True):
            if y is not None:
                ax.annotate(f"{y:.1f}", (b.get_x() + b.get_width() / 2, b.get_height()), ha="center",
                            va="bottom", fontsize=7)
    if baseline is not None:
        ax.axhline(baseline, color="grey", linestyle="--", linewidth=1)
    ax.set_xticks([i + width * (len(systems) - 1) / 2 for i in range(len(groups))])
    ax.set_xticklabels(groups, rotation=30 if len(groups) > 5 else 0, ha="right" if len(groups) > 5 else "center")
    ax.set_ylabel(ylabel)
    if ylim is not None:
        ax.set_ylim(*ylim)
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    with atomic_open(path, "wb", encoding=None) as fh:
        fig.savefig(fh, format="png", dpi=120)
    plt.close(fig)


ATTACK_LABELS = {"phrase": "Phrase", "possessive": "Possessive", "synonym": "Synonym"}


def attack_bars(results: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, float | None]]:
    """Figure 4.1/4.3 values (accuracy in %): ContraPro (clean) and each attack (variants pooled)."""
    out: dict[str, dict[str, float | None]] = {}
    for system, res in results.items():
        acc = res["sets"]["clean"]["overall"]["accuracy"]
        row: dict[str, float | None] = {"ContraPro": None if acc is None else 100 * acc}
        for attack, d in res["attacks"].items():
            a = d["attacked"]["accuracy"]
            row[ATTACK_LABELS.get(attack, attack)] = None if a is None else 100 * a
        out[system] = row
    return out


def variant_bars(results: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, float | None]]:
    """Δ to clean in points per attack variant."""
    return {
        system: {name: None if d["delta"] is None else 100 * d["delta"] for name, d in res["deltas"].items()}
        for system, res in results.items()
    }


def plot_attacks(results: Mapping[str, Mapping[str, Any]], attacks_png: Any, variants_png: Any) -> None:
    """``attacks_png``: Figure 4.1's layout; ``variants_png``: Δ per variant."""
    grouped_bars(attack_bars(results), attacks_png, ylabel="accuracy (%)",
                 title="ContraPro and the three attacks (attacked sets)")
    grouped_bars(variant_bars(results), variants_png, ylabel="Δ accuracy to clean (points)",
                 title="Δ to clean on the same examples, per attack variant", ylim=None, baseline=0.0)
