"""``lingtest coref-score KEY RESPONSE``: score a coreference response against a key.

Both arguments are files or directories in any layout :mod:`lingtest.readers.conll_coref`
reads (CoNLL-2012 ``*_conll``, OntoGUM 3-column, e2e-coref jsonlines, generic last-column
CoNLL), auto-detected per file. Documents are matched by id and part. Output: a table in the
style of the reference scorer (numerators, denominators, truncated percentages) per metric and
the CoNLL F1, or with ``--json`` exactly one JSON object::

    {"muc": {"recall": r, "precision": p, "f1": f, "recall_num": .., "recall_den": ..,
             "precision_num": .., "precision_den": ..}, ..., "conll_f1": x}

with ratios in [0, 1] (``conll_f1`` only when MUC, B-cubed and CEAFe are all computed; BLANC
adds its ``coref`` and ``noncoref`` link scores). As in the reference scorer (v8.01), fields are
split on whitespace (a line may end in a tab) and a mention annotated twice in one file keeps its
first occurrence in the reference's order (entities in the order their numbers first appear), with
a warning; the reference scorer's own test files (``test/DataFiles/TC-*``) score exactly. An
input without any document (an empty file) is an error (exit code 2), never a score of zero.

Also runs alone, with the same options parsed by argparse (:func:`main`):
``python -m lingtest.commands.coref_score KEY RESPONSE --json``.
typer is imported by :func:`register` (the command's annotations name it), not at import time.

Start-up is kept small on purpose (no spaCy/torch/pandas/omegaconf; scipy only for large CEAF
alignment components): scoring all 281 OntoGUM documents takes well under a second.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from lingtest.commands import bind_typer, command_registrar, exit_with

if TYPE_CHECKING:
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
                lenient: bool = False, allow_missing: bool = False
                ) -> tuple[dict[str, Any], Any, float | None]:
    """Read both sides and score them; returns (scores by metric, mention identification, CoNLL F1)."""
    from lingtest.metrics.coref import CONLL_METRICS, conll_f1_from_scores, score_documents
    from lingtest.readers.conll_coref import read_coref_records

    malformed = "warn" if lenient else "error"
    # as the reference scorer: a mention repeated in a clustering keeps its first occurrence in the
    # reference's order (reported as a warning); a document given twice is an error
    options: dict[str, Any] = {"duplicates": "drop", "malformed": malformed, "duplicate_documents": "error",
                               "duplicate_order": "reference"}
    keys = read_coref_records(key, fmt, **options)  # type: ignore[arg-type]
    resps = read_coref_records(response, fmt, **options)  # type: ignore[arg-type]
    scores = score_documents(keys, resps, (*metrics, "mentions"), allow_missing=allow_missing)
    mentions = scores.pop("mentions")
    conll = conll_f1_from_scores(scores) if all(m in scores for m in CONLL_METRICS) else None
    return scores, mentions, conll


_HELP = {
    "key": "Key (gold) coreference file or directory.",
    "response": "Response (system) coreference file or directory.",
    "metric": "muc|bcub|ceafm|ceafe|blanc|lea|all",
    "json": "Print one JSON object instead of the table.",
    "format": "auto|conll2012|ontogum|jsonlines|conll",
    "lenient": "Skip malformed coreference brackets with a warning.",
    "allow_missing": "Score key documents missing from the response as empty; ignore extra response "
                     "documents.",
}


def score_command(key: Path, response: Path, metric: str = "all", json_out: bool = False,
                  fmt: str = "auto", lenient: bool = False, allow_missing: bool = False) -> int:
    """The command's work, shared by the typer command and :func:`main`; returns the exit code.

    Scores go to stdout (table or one JSON object); warnings and errors to stderr (exit code 2).
    """
    from lingtest.errors import LingtestError

    metrics = ALL_METRICS if metric == "all" else (metric,)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            scores, mentions, conll = run_scoring(key, response, metrics, fmt=fmt, lenient=lenient,
                                                  allow_missing=allow_missing)
        except LingtestError as exc:
            for w in caught:
                print(f"warning: {w.message}", file=sys.stderr)
            print(f"error: {exc}", file=sys.stderr)
            return 2
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)
    if json_out:
        obj: dict[str, Any] = {m: s.to_dict() for m, s in scores.items()}
        if conll is not None:
            obj["conll_f1"] = conll
        sys.stdout.write(json.dumps(obj) + "\n")
    else:
        sys.stdout.write(format_report(scores, mentions, conll) + "\n")
    return 0


def coref_score(
    key: Annotated[Path, typer.Argument(help=_HELP["key"])],
    response: Annotated[Path, typer.Argument(help=_HELP["response"])],
    metric: Annotated[str, typer.Option("--metric", "-m", help=_HELP["metric"])] = "all",
    json_out: Annotated[bool, typer.Option("--json", help=_HELP["json"])] = False,
    fmt: Annotated[str, typer.Option("--format", help=_HELP["format"])] = "auto",
    lenient: Annotated[bool, typer.Option("--lenient", help=_HELP["lenient"])] = False,
    allow_missing: Annotated[bool, typer.Option("--allow-missing", help=_HELP["allow_missing"])] = False,
) -> None:
    """Score a coreference RESPONSE against a KEY with MUC, B-cubed, CEAFm, CEAFe, BLANC, LEA and
    the CoNLL F1 (reference-scorer conventions: exact span matching, corpus counts summed)."""
    typer = bind_typer(globals())
    name = metric.lower()
    if name not in METRIC_CHOICES:
        raise typer.BadParameter(f"{metric!r} is not one of {', '.join(METRIC_CHOICES)}",
                                 param_hint="--metric")
    if fmt not in FORMATS:
        raise typer.BadParameter(f"{fmt!r} is not one of {', '.join(FORMATS)}", param_hint="--format")
    exit_with(score_command(key, response, name, json_out, fmt, lenient, allow_missing))


register = command_registrar(globals(), "coref-score", "coref_score")


def main(argv: list[str] | None = None) -> int:
    """``python -m lingtest.commands.coref_score``: the same command and options, parsed with
    argparse (typer builds pydantic validators for every option, which costs about a tenth of a
    second of start-up; a launcher may call this for ``lingtest coref-score`` too)."""
    import argparse

    ap = argparse.ArgumentParser(prog="lingtest coref-score", description=coref_score.__doc__)
    ap.add_argument("key", type=Path, help=_HELP["key"])
    ap.add_argument("response", type=Path, help=_HELP["response"])
    ap.add_argument("--metric", "-m", default="all", type=str.lower, choices=METRIC_CHOICES,
                    help=_HELP["metric"])
    ap.add_argument("--json", dest="json_out", action="store_true", help=_HELP["json"])
    ap.add_argument("--format", dest="fmt", default="auto", choices=FORMATS, help=_HELP["format"])
    ap.add_argument("--lenient", action="store_true", help=_HELP["lenient"])
    ap.add_argument("--allow-missing", action="store_true", help=_HELP["allow_missing"])
    a = ap.parse_args(argv)
    return score_command(a.key, a.response, a.metric, a.json_out, a.fmt, a.lenient, a.allow_missing)


if __name__ == "__main__":
    sys.exit(main())
