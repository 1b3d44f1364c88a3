"""``lingtest ner-score FILE [PRED]``: entity-level precision, recall and F1 as conlleval.pl
computes them (see :mod:`lingtest.metrics.ner` for the chunk rules and conventions).

Input, one token per line, fields separated by whitespace:

* one file: conlleval's own format, the gold tag and the predicted tag in the last two fields
  (``word ... GOLD PRED``);
* two files ``GOLD PRED``: CoNLL files (``word POS chunk NER``, ``word NER``, or the tags alone)
  with the tag in the last field. Both must have the same sentences with the same number of
  tokens (words are not compared); the first difference is an :class:`InputError` naming the
  predicted file, its line and the field ``tokens``.

Blank lines, ``-DOCSTART-`` lines and lines whose first field is ``-X-`` (conlleval's boundary)
end sentences; they are not tokens. conlleval.pl itself treats only blank and ``-X-`` lines as
boundaries: fed a file that still has ``-DOCSTART- -X- -X- O O`` lines, it counts each as a
correctly tagged token, which changes its token count and accuracy but none of the chunk scores.
Every token line of a file must have the same number of fields, and every tag must be ``O`` or
``PREFIX-TYPE`` with a prefix of ``--scheme`` (B/I for IOB1 and IOB2, E/I for IOE1 and IOE2);
otherwise an :class:`InputError` names the file, line and field.

Output: conlleval's report, digit for digit (``processed N tokens with G phrases; found: P
phrases; correct: C.``, then accuracy, precision, recall and FB1 in percent, then one line per
type), or with ``--json`` one object ``{"overall": {"precision", "recall", "f1", "tp", "fp",
"fn"}, "per_type": {TYPE: {...}}, "accuracy": a, "tokens": n}`` with every ratio in [0, 1].
Also runs alone with the same options parsed by argparse (:func:`main`):
``python -m lingtest.commands.ner_score FILE [PRED] --json``.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from lingtest.commands import bind_typer, command_registrar, exit_with

if TYPE_CHECKING:
    import typer

    from lingtest.metrics.ner import NERScore

SCHEMES = ("iob1", "iob2", "ioe1", "ioe2")
BOUNDARY_FIRST_FIELDS = frozenset({"-DOCSTART-", "-X-"})


# --------------------------------------------------------------------------------------------
# reading
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class TaggedSentence:
    """One sentence of a tagged file: per token, its 1-based line and its tag columns."""

    lines: tuple[int, ...]
    tags: tuple[tuple[str, ...], ...]  # per tag column (gold, [pred]), one tag per token


def read_tagged(path: Path, n_tags: int, scheme: str, fields: tuple[str, ...]
                ) -> tuple[list[TaggedSentence], int]:
    """Sentences of ``path`` with the tags of its last ``n_tags`` fields (named ``fields`` in
    errors), each checked against ``scheme``; returns them and the file's number of lines."""
    from lingtest.errors import InputError
    from lingtest.metrics.ner import split_tag
    from lingtest.readers.textio import read_lines, split_fields

    lines = read_lines(path)
    sentences: list[TaggedSentence] = []
    cur_lines: list[int] = []
    cur_tags: list[list[str]] = [[] for _ in range(n_tags)]
    ncols: int | None = None
    first = 0

    def close() -> None:
        nonlocal cur_lines, cur_tags
        if cur_lines:
            sentences.append(TaggedSentence(tuple(cur_lines), tuple(tuple(t) for t in cur_tags)))
        cur_lines, cur_tags = [], [[] for _ in range(n_tags)]

    for lineno, line in enumerate(lines, start=1):
        cols = split_fields(line)
        if not cols or cols[0] in BOUNDARY_FIRST_FIELDS:
            close()
            continue
        if ncols is None:
            if len(cols) < n_tags:
                raise InputError(f"expected at least {n_tags} fields ({' '.join(fields)} last), found "
                                 f"{len(cols)}", path=path, line=lineno)
            ncols, first = len(cols), lineno
        elif len(cols) != ncols:
            raise InputError(f"expected {ncols} fields (as on line {first}), found {len(cols)}", path=path,
                             line=lineno)
        for j, (tag, name) in enumerate(zip(cols[-n_tags:], fields, strict=True)):
            try:
                split_tag(tag, scheme)  # type: ignore[arg-type]
            except InputError as exc:
                raise InputError(exc.reason, path=path, line=lineno, field=name) from None
            cur_tags[j].append(tag)
        cur_lines.append(lineno)
    close()
    return sentences, len(lines)


def _align(gold: list[TaggedSentence], pred: list[TaggedSentence], gold_path: Path, pred_path: Path,
           pred_nlines: int) -> None:
    """Raise :class:`InputError` at the first sentence whose token count differs."""
    from lingtest.errors import InputError

    for k in range(max(len(gold), len(pred))):
        g = gold[k] if k < len(gold) else None
        p = pred[k] if k < len(pred) else None
        if g is not None and p is not None and len(g.lines) == len(p.lines):
            continue
        if p is None:
            assert g is not None
            raise InputError(f"ends after {len(pred)} sentences, but {gold_path} has {len(gold)} (sentence "
                             f"{k + 1} is on its lines {g.lines[0]}-{g.lines[-1]})", path=pred_path,
                             line=pred_nlines + 1, field="tokens")
        if g is None:
            raise InputError(f"has more sentences than {gold_path} ({len(gold)}): sentence {k + 1} starts "
                             "here", path=pred_path, line=p.lines[0], field="tokens")
        n, m = len(g.lines), len(p.lines)
        # the predicted line where the two files part: the first surplus token, or the line after
        # the predicted sentence's last token where the gold sentence still has tokens
        line = p.lines[n] if m > n else p.lines[-1] + 1
        raise InputError(f"sentence {k + 1} has {m} tokens (lines {p.lines[0]}-{p.lines[-1]}) but {n} in "
                         f"{gold_path} (lines {g.lines[0]}-{g.lines[-1]})", path=pred_path, line=line,
                         field="tokens")


def read_pairs(gold: Path, pred: Path | None, scheme: str = "iob2"
               ) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """Gold and predicted tag sequences (one per sentence) from one conlleval-format file
    (``pred`` is None) or from two CoNLL files."""
    if pred is None:
        sents, _ = read_tagged(gold, 2, scheme, ("gold tag", "predicted tag"))
        return [s.tags[0] for s in sents], [s.tags[1] for s in sents]
    g_sents, _ = read_tagged(gold, 1, scheme, ("tag",))
    p_sents, p_nlines = read_tagged(pred, 1, scheme, ("tag",))
    _align(g_sents, p_sents, gold, pred, p_nlines)
    return [s.tags[0] for s in g_sents], [s.tags[0] for s in p_sents]


# --------------------------------------------------------------------------------------------
# output
# --------------------------------------------------------------------------------------------
def format_report(score: NERScore) -> str:
    """conlleval.pl's report (its non-LaTeX output), character for character."""
    o = score.overall
    out = [f"processed {score.tokens} tokens with {o.found_gold} phrases; found: {o.found_pred} phrases; "
           f"correct: {o.tp}."]
    if score.tokens:
        p, r, f = o.percentages()
        out.append(f"accuracy: {100 * score.correct_tags / score.tokens:6.2f}%; precision: {p:6.2f}%; "
                   f"recall: {r:6.2f}%; FB1: {f:6.2f}")
    for t, s in score.per_type.items():
        p, r, f = s.percentages()
        out.append(f"{t:>17}: precision: {p:6.2f}%; recall: {r:6.2f}%; FB1: {f:6.2f}  {s.found_pred}")
    return "\n".join(out)


_HELP = {
    "file": "conlleval-format file (gold and predicted tags in the last two fields), or the GOLD CoNLL "
            "file when PRED is given.",
    "pred": "Predicted CoNLL file (tag in the last field), aligned with FILE sentence by sentence.",
    "json": "Print one JSON object instead of conlleval's report.",
    "scheme": "Tagging scheme (legal prefixes): iob1|iob2 (B, I; decoded alike, as conlleval does)|"
              "ioe1|ioe2.",
}


def score_command(gold: Path, pred: Path | None = None, json_out: bool = False, scheme: str = "iob2") -> int:
    """The command's work, shared by the typer command and :func:`main`; returns the exit code
    (scores to stdout; errors to stderr with exit code 2)."""
    from lingtest.errors import LingtestError
    from lingtest.metrics.ner import score_ner

    try:
        gold_seqs, pred_seqs = read_pairs(gold, pred, scheme)
        score = score_ner(gold_seqs, pred_seqs, scheme)  # type: ignore[arg-type]
    except LingtestError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if json_out:
        sys.stdout.write(json.dumps(score.to_dict()) + "\n")
    else:
        sys.stdout.write(format_report(score) + "\n")
    return 0


def ner_score(
    file: Annotated[Path, typer.Argument(help=_HELP["file"])],
    pred: Annotated[Path | None, typer.Argument(help=_HELP["pred"])] = None,
    json_out: Annotated[bool, typer.Option("--json", help=_HELP["json"])] = False,
    scheme: Annotated[str, typer.Option("--scheme", help=_HELP["scheme"])] = "iob2",
) -> None:
    """Entity-level precision, recall and F1 (overall and per type) with conlleval.pl's conventions:
    a predicted entity counts when its boundaries and type equal a gold entity's."""
    typer = bind_typer(globals())
    name = scheme.lower()
    if name not in SCHEMES:
        raise typer.BadParameter(f"{scheme!r} is not one of {', '.join(SCHEMES)}", param_hint="--scheme")
    exit_with(score_command(file, pred, json_out, name))


register = command_registrar(globals(), "ner-score", "ner_score")


def main(argv: list[str] | None = None) -> int:
    """``python -m lingtest.commands.ner_score``: the same command and options, parsed with argparse."""
    import argparse

    ap = argparse.ArgumentParser(prog="lingtest ner-score", description=ner_score.__doc__)
    ap.add_argument("file", type=Path, help=_HELP["file"])
    ap.add_argument("pred", type=Path, nargs="?", default=None, help=_HELP["pred"])
    ap.add_argument("--json", dest="json_out", action="store_true", help=_HELP["json"])
    ap.add_argument("--scheme", default="iob2", type=str.lower, choices=SCHEMES, help=_HELP["scheme"])
    a = ap.parse_args(argv)
    return score_command(a.file, a.pred, a.json_out, a.scheme)


if __name__ == "__main__":
    sys.exit(main())
