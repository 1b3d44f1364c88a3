"""TIN's README tables in the layout of the paper's Tables 3, 4 and 6, and a plot, from the
per-system metrics the stages write (pure functions of those dicts).

* Table 3: precision per transformation and overall, ``p% (erroneous/issues)``, one row per system (a
  transformation without issues: how many mutants were checked);
  below it what the automatic grading adds: issues whose source prediction is wrong, hits (wrong
  source sentences revealed by an issue / all wrong sources) and the error categories (RQ2), the
  validity of the checked mutants (gold preserved) with the precision that counts issues on invalid
  mutants as false positives, and the mutant counts after each filter.
* Table 4: TIN per transformation against the word-substitution baseline on the same system.
* Table 6: repair transitions over suspicious entities, Err2Cor, Cor2Err, ErrorReduce, and F1 on the
  tested sentences before and after repair.

``transformations``: ``(name, label)`` of the configured transformations, in order (the columns;
:func:`lingtest.tin.components.transformation_labels`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lingtest.data.io import atomic_open

CATEGORIES = ("omission", "over_labelling", "incorrect_category", "range_error")


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def _cell(row: Mapping[str, Any] | None, unit: str = "mutant") -> str:
    """``p% (erroneous/issues)``; without issues the precision is undefined and the cell says how many ``unit``\ s
    were checked and found none (``no issue in 29 mutants``), that there were none (``checked`` 0, or no row), or
    only ``no issue`` where the row does not count them."""
    if not row or not row.get("issues"):
        if row and row.get("checked") is None:
            return "no issue"
        checked = int(row.get("checked") or 0) if row else 0
        return f"no issue in {checked:,} {unit}{'s' if checked != 1 else ''}" if checked else f"no {unit}s"
    if row.get("erroneous") is None:
        return f"{row['issues']} issues"
    return f"{_pct(row.get('precision'))} ({row['erroneous']}/{row['issues']})"


def _valid_cell(row: Mapping[str, Any] | None) -> str:
    if not row or row.get("validity_total") is None:
        return "–"
    return f"{row['validity_valid']}/{row['validity_total']} ({_pct(row.get('validity'))})"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def table3_markdown(rows: Sequence[Mapping[str, Any]], transformations: Sequence[tuple[str, str]]) -> str:
    """Precision (and, with gold, what the grading adds) for every evaluated system."""
    names = [label for _, label in transformations]
    prec = [[r["system"], *[_cell(r["issues"].get(t)) for t, _ in transformations], _cell(r["issues"]["overall"])]
            for r in rows]
    out = ["Precision of the reported issues (erroneous / issues; graded automatically against gold)\n\n",
           _table(["system", *names, "TIN overall"], prec)]
    labelled = [r for r in rows if r.get("labelled")]
    if labelled:
        hits = []
        for r in labelled:
            o = r["issues"]["overall"]
            cats = o.get("error_categories", {})
            hits.append([r["system"], str(r["sources"]), f"{r.get('wrong_sources', 0)}",
                         f"{r['checked_mutants']:,}", f"{o['issues']:,}",
                         f"{o.get('source_wrong', 0):,} ({_pct(o.get('source_wrong_share'))})",
                         f"{o.get('hits', 0)} / {o.get('wrong_sources', 0)} ({_pct(o.get('hit_rate'))})",
                         *[str(cats.get(c, 0)) for c in CATEGORIES]])
        out += ["\nWhat the grading adds: issues whose source prediction N(s) is wrong, hits (wrong source "
                "sentences revealed by at least one issue) and the error categories (RQ2)\n\n",
                _table(["system", "sources", "wrong sources", "checked mutants", "issues", "source wrong",
                        "hits", "omission", "over-labelling", "incorrect category", "range error"], hits)]
    valid = [r for r in labelled if "validity" in r["issues"]["overall"]]
    if valid:
        body = []
        for r in valid:
            o = r["issues"]["overall"]
            adj = o.get("precision_validity_adjusted")
            body.append([r["system"], *[_valid_cell(r["issues"].get(t)) for t, _ in transformations],
                         _valid_cell(o), _pct(o.get("precision")),
                         f"{_pct(adj)} ({o.get('issues_invalid', 0)} on invalid)" if o.get("issues") else "–"])
        out += ["\nValidity: mutants whose gold is preserved (valid / checked) and the precision with issues on "
                "invalid mutants counted as false positives\n\n",
                _table(["system", *names, "overall", "precision", "adjusted precision"], body)]
    gen = []
    for r in rows:
        for t, label in (*transformations, ("overall", "overall")):
            m = r["mutants"].get(t)
            if m is None:
                continue
            after_fit = m.get("after_fit", m["after_semantic"])  # a generation from before the fit filter
            gen.append([r["system"], label, f"{m['generated']:,}", f"{m['after_semantic']:,}", f"{after_fit:,}",
                        f"{m['kept']:,}", str(r["issues"].get(t, {}).get("issues", 0))])
    out += ["\nMutants after each filter\n\n",
            _table(["system", "transformation", "generated", "after semantic", "after fit", "after naturalness",
                    "issues"], gen)]
    return "".join(out)


def table4_markdown(rows: Mapping[str, Mapping[str, Any]], baselines: Mapping[str, Mapping[str, Any]],
                    transformations: Sequence[tuple[str, str]]) -> str:
    """TIN per transformation vs the word-substitution baseline, on each attacked system."""
    body = []
    for name, b in baselines.items():
        r = rows[name]
        base = {"issues": b.get("issues", 0), "erroneous": b.get("erroneous"), "precision": b.get("precision"),
                "checked": b.get("attacked")}
        body.append([name, *[_cell(r["issues"].get(t)) for t, _ in transformations], _cell(r["issues"]["overall"]),
                     _cell(base, "attacked source"), f"{b.get('hits', 0)} / {b.get('wrong_sources', 0)}",
                     f"{r['issues']['overall'].get('hits', 0)} / {r['issues']['overall'].get('wrong_sources', 0)}"])
    return _table(["system", *[label for _, label in transformations], "TIN overall", "word substitution",
                   "hits (baseline)", "hits (TIN)"], body)


def table6_markdown(repairs: Sequence[Mapping[str, Any]]) -> str:
    """Table 6 over suspicious entities of source and mutant sentences, and F1 before/after."""
    body = []
    for r in repairs:
        rep = r.get("repair", {}).get("overall")
        if rep is None:
            body.append([r["system"], *["–"] * 11])
            continue
        n = rep["TT"] + rep["TF"] + rep["FT"] + rep["FF"]

        def share(k: str, rep: Mapping[str, Any] = rep, n: int = n) -> str:
            return f"{rep[k]} ({_pct(rep[k] / n if n else None)})"

        f1 = r.get("f1", {})
        body.append([r["system"], share("TT"), share("TF"), share("FT"), share("FF"), share("num_error"),
                     share("num_correct"), _pct(rep["err2cor"]), _pct(rep["cor2err"]), _pct(rep["error_reduce"]),
                     f"{100 * f1.get('before', {}).get('f1', 0.0):.2f}",
                     f"{100 * f1.get('after', {}).get('f1', 0.0):.2f}"])
    return _table(["system", "TT", "TF", "FT", "FF", "NumError", "NumCorrect", "Err2Cor", "Cor2Err", "ErrorReduce",
                   "F1 before", "F1 after"], body)


def plot_issues(rows: Sequence[Mapping[str, Any]], path: str | Path,
                transformations: Sequence[tuple[str, str]]) -> None:
    """Kept mutants and issues per transformation and system (bars), precision as labels (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.6))
    width = 0.8 / max(1, len(rows))
    xs = range(len(transformations))
    for k, r in enumerate(rows):
        kept = [r["mutants"].get(t, {}).get("kept", 0) for t, _ in transformations]
        issues = [r["issues"].get(t, {}).get("issues", 0) for t, _ in transformations]
        pos = [x + k * width for x in xs]
        ax1.bar(pos, kept, width, label=r["system"])
        bars = ax2.bar(pos, issues, width, label=r["system"])
        for bar, (t, _) in zip(bars, transformations, strict=True):
            p = r["issues"].get(t, {}).get("precision")
            if p is not None:
                ax2.annotate(f"{100 * p:.0f}%", (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                             ha="center", va="bottom", fontsize=7)
    for ax, title in ((ax1, "checked mutants"), (ax2, "issues (precision)")):
        ax.set_xticks([x + width * (len(rows) - 1) / 2 for x in xs], [label for _, label in transformations],
                      fontsize=8)
        ax.set_title(title)
    ax1.legend(fontsize=8)
    fig.tight_layout()
    with atomic_open(path, "wb") as fh:
        fig.savefig(fh, format="png", dpi=100, metadata={"Software": None})
    plt.close(fig)
