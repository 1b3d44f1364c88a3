"""Tables of ContraPro results (markdown): accuracy per attack variant next to the clean accuracy on the
same examples, and the breakdowns of one accuracy report."""

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
