"""``lingtest coref-score KEY RESPONSE``: score a coreference response against a key.

Both arguments are files or directories in any layout :mod:`lingtest.readers.conll_coref`
reads (CoNLL-2012 ``*_conll``, OntoGUM 3-column, e2e-coref jsonlines, generic last-column
CoNLL), auto-detected per file. Documents are matched by id and part. Output: a table in the
style of the reference scorer (numerators, denominators, truncated percentages) per metric and
the CoNLL F1, or with ``--json`` exactly one JSON object::

    {"muc": {"recall": r, "precision": p, "f1": f, "recall_num": .., "recall_den": ..,
             "precision_num": .., "precision_den": ..}, ..., "conll_f1": x}

with ratios in [0, 1] (``conll_f1`` only when MUC, B-cubed and CEAFe are all computed; BLANC
adds its ``coref`` and ``noncoref`` link scores). Also runs alone:
``python -m lingtest.commands.coref_score KEY RESPONSE --metric all --json``.

Start-up is kept small on purpose (no spaCy/torch/pandas/omegaconf; scipy only for large CEAF
alignment components): scoring all 281 OntoGUM documents takes well under a second.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path
from typing import Annotated, Any

import typer

METRIC_CHOICES = ("muc", "bcub", "ceafm", "ceafe", "blanc", "lea", "all")
ALL_METRICS = ("muc", "bcub", "ceafm", "ceafe", "blanc", "lea")
FORMATS = ("auto", "conll2012", "ontogum", "jsonlines", "conll")
_RULE = "-" * 74


def _pct(x: float) -> str:
    """Percent truncated to two decimals, as the reference scorer prints it."""
    return f"{int(x * 10000) / 100:g}%"


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.6g}"


def _rpf(s: Any) -> str:
    return (f"Recall: ({_num(s.recall_num)} / {_num(s.recall_den)}) {_pct(s.recall)}\t"
            f"Precision: ({_num(s.precision_num)} / {_num(s.precision_den)}) {_pct(s.precision)}\t"
            f"F1: {_pct(s.f1)}")


def format_report(scores: dict[str, Any], mentions: Any, conll: float | None) -> str:
    """The text table: mention identification, then each metric's coreference score."""
    out: list[str] = []
    for name, s in scores.items():
        out.append(f"METRIC {name}:")
        out.append(f"Identification of Mentions: {_rpf(mentions)}")
        out.append(_RULE)
        if name == "blanc":
            out.append(f"Coreference links: {_rpf(s.coref)}")
            out.append(_RULE)
            out.append(f"Non-coreference links: {_rpf(s.noncoref)}")
            out.append(_RULE)
            out.append(f"BLANC: Recall: {_pct(s.recall)}\tPrecision: {_pct(s.precision)}\tF1: {_pct(s.f1)}")
        else:
            out.append(f"Coreference: {_rpf(s)}")
        out.append(_RULE)
        out.append("")
    if conll is not None:
        out.append(f"CoNLL F1 (mean of MUC, B-cubed and CEAFe F1): {conll * 100:.2f}")
    return "\n".join(out)


def run_scoring(key: Path, response: Path, metrics: tuple[str, ...], *, fmt: str = "auto",
                lenient: bool = False, allow_missing: bool = False) -> tuple[dict[str, Any], Any, float | None]:
    """Read both sides and score them; returns (scores by metric, mention identification, CoNLL F1)."""
    from lingtest.metrics.coref import CONLL_METRICS, conll_f1_from_scores, score_documents
    from lingtest.readers.conll_coref import read_coref_records

    malformed = "warn" if lenient else "error"
    keys = read_coref_records(key, fmt, duplicates="drop", malformed=malformed)  # type: ignore[arg-type]
    resps = read_coref_records(response, fmt, duplicates="drop", malformed=malformed)  # type: ignore[arg-type]
    scores = score_documents(keys, resps, (*metrics, "mentions"), allow_missing=allow_missing)
    mentions = scores.pop("mentions")
    conll = conll_f1_from_scores(scores) if all(m in scores for m in CONLL_METRICS) else None
    return scores, mentions, conll


def coref_score(
    key: Annotated[Path, typer.Argument(help="Key (gold) coreference file or directory.")],
    response: Annotated[Path, typer.Argument(help="Response (system) coreference file or directory.")],
    metric: Annotated[str, typer.Option("--metric", "-m",
                                        help="muc|bcub|ceafm|ceafe|blanc|lea|all")] = "all",
    json_out: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of the table.")] = False,
    fmt: Annotated[str, typer.Option("--format", help="auto|conll2012|ontogum|jsonlines|conll")] = "auto",
    lenient: Annotated[bool, typer.Option("--lenient",
                                          help="Skip malformed coreference brackets with a warning.")] = False,
    allow_missing: Annotated[bool, typer.Option("--allow-missing",
                                                help="Score key documents missing from the response "
                                                     "as empty; ignore extra response documents.")] = False,
) -> None:
    """Score a coreference RESPONSE against a KEY with MUC, B-cubed, CEAFm, CEAFe, BLANC, LEA and
    the CoNLL F1 (reference-scorer conventions: exact span matching, corpus counts summed)."""
    from lingtest.errors import LingtestError

    name = metric.lower()
    if name not in METRIC_CHOICES:
        raise typer.BadParameter(f"{metric!r} is not one of {', '.join(METRIC_CHOICES)}", param_hint="--metric")
    if fmt not in FORMATS:
        raise typer.BadParameter(f"{fmt!r} is not one of {', '.join(FORMATS)}", param_hint="--format")
    metrics = ALL_METRICS if name == "all" else (name,)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            scores, mentions, conll = run_scoring(key, response, metrics, fmt=fmt, lenient=lenient,
                                                  allow_missing=allow_missing)
        except LingtestError as exc:
            for w in caught:
                print(f"warning: {w.message}", file=sys.stderr)
            print(f"error: {exc}", file=sys.stderr)
            raise typer.Exit(2) from None
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)
    if json_out:
        obj: dict[str, Any] = {m: s.to_dict() for m, s in scores.items()}
        if conll is not None:
            obj["conll_f1"] = conll
        sys.stdout.write(json.dumps(obj) + "\n")
    else:
        sys.stdout.write(format_report(scores, mentions, conll) + "\n")


def register(app: typer.Typer) -> None:
    """Add ``coref-score`` to the ``lingtest`` application."""
    app.command("coref-score")(coref_score)


def main() -> None:
    typer.run(coref_score)


if __name__ == "__main__":
    main()
