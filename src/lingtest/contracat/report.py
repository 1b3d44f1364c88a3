"""ContraCAT tables and plots: per template (accuracy or, for priors, the chosen genders) and the
figure groups of the paper's Figures 4.2/4.4 (one group per template family, one bar per system)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lingtest.contrapro.report import grouped_bars

FIGURE_ORDER = ("Markables", "Overlap", "World knowledge", "Pleonastic", "Event", "Gender")


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}"


def table(results: Mapping[str, Mapping[str, Any]]) -> str:
    systems = list(results)
    templates: list[str] = []
    for r in results.values():
        templates.extend(t for t in r["templates"] if t not in templates)
    head = "| template | examples | " + " | ".join(systems) + " |"
    rows = ["# ContraCAT\n", "accuracy (%) per template; priors: chosen er / sie / es (%), then first/second "
            "(position) or subject/object (role) shares\n", head, "|---|---:|" + "---:|" * len(systems)]
    for t in templates:
        cells = []
        n = None
        for s in systems:
            rep = results[s]["templates"].get(t)
            if rep is None:
                cells.append("-")
                continue
            n = rep["examples"]
            if rep.get("prior"):
                c = rep["chosen"]
                cell = f"{_pct(c['m'])} / {_pct(c['f'])} / {_pct(c['n'])}"
                extra = rep.get("order") or rep.get("role")
                if extra:
                    cell += " (" + ", ".join(f"{k} {_pct(v)}" for k, v in extra.items()) + ")"
                cells.append(cell)
            else:
                cells.append(_pct(rep.get("accuracy")))
        rows.append(f"| {t} | {n} | " + " | ".join(cells) + " |")
    rows.append("\nfigure groups (mean accuracy of their templates, %):\n")
    rows.append("| group | " + " | ".join(systems) + " |")
    rows.append("|---|" + "---:|" * len(systems))
    for g in FIGURE_ORDER:
        if any(g in results[s]["groups"] for s in systems):
            rows.append(f"| {g} | " + " | ".join(_pct(results[s]["groups"].get(g)) for s in systems) + " |")
    return "\n".join(rows) + "\n"


def plot_groups(results: Mapping[str, Mapping[str, Any]], path: Any) -> None:
    """Figures 4.2/4.4: accuracy per template family, one bar per system."""
    values = {s: {g: 100 * r["groups"][g] for g in FIGURE_ORDER if g in r["groups"]} for s, r in results.items()}
    grouped_bars(values, path, ylabel="accuracy (%)", title="ContraCAT", baseline=100 / 3)


def plot_priors(results: Mapping[str, Mapping[str, Any]], path: Any) -> None:
    """Chosen-gender shares on the prior templates (er/sie/es per template and system)."""
    values: dict[str, dict[str, float | None]] = {}
    for s, r in results.items():
        for t, rep in r["templates"].items():
            if rep.get("prior"):
                for g, word in (("m", "er"), ("f", "sie"), ("n", "es")):
                    v = rep["chosen"][g]
                    values.setdefault(f"{s}: {word}", {})[t.split("/")[-1]] = None if v is None else 100 * v
    grouped_bars(values, path, ylabel="chosen (%)", title="ContraCAT priors: chosen pronoun")
