"""A scores file as a contrastive system: re-scoring without a model, for scores a user's own toolkit
produced.

The scores file has ContraPro's layout: one number per line, one line per line of the candidate files
it was computed on (the reference of each example first, then its variants). ``candidates`` names those
files: ContraPro's grouped files (``layout: contrapro``: ``<candidates>.text.{en,de}`` and, when present,
``<candidates>.context.{en,de}``; ``candidates`` is the prefix, e.g. ``.../contrapro``) or a set in the
ContraCAT release layout (``layout: contracat``: a folder with ``en.txt``/``de.txt``, ``context <SEP>
sentence`` per line, as :mod:`lingtest.readers.candidate_lines` writes). The lines are grouped into examples
exactly as the ContraPro reader groups them (:func:`lingtest.readers.contrapro.group_examples`), and a
query is answered by the example with the same source, contexts and candidates (compared with their
whitespace collapsed), whatever order queries come in.

By default lower is better (costs, e.g. negative log-likelihoods), as in ContraPro's evaluate.py;
``maximize: true`` for scores where higher is better. The output per query is the log-softmax of the
(negated, unless ``maximize``) scores over its candidates: a log-probability (<= 0) that keeps every
difference between candidates, so the choice and the margin are the file's.
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path
from typing import Any, ClassVar, Literal

from lingtest.errors import InputError
from lingtest.readers.contrapro import group_examples
from lingtest.readers.textio import read_lines
from lingtest.systems.contrastive.base import ContrastiveQuery, ContrastiveScorer

Layout = Literal["contrapro", "contracat"]


def _norm(text: str) -> str:
    return " ".join(text.split())


def read_scores(path: str | Path) -> list[float]:
    """One finite number per line; a blank or non-numeric line is an error naming file and line."""
    path = Path(path)
    out = []
    for n, line in enumerate(read_lines(path), 1):
        s = line.strip()
        if not s:
            raise InputError("empty line (expected one score per line)", path=path, line=n)
        try:
            v = float(s)
        except ValueError:
            raise InputError(f"not a number: {s[:40]!r}", path=path, line=n) from None
        if not math.isfinite(v):
            raise InputError(f"expected one finite number, got {s[:40]!r}", path=path, line=n)
        out.append(v)
    return out


def log_softmax(values: list[float]) -> list[float]:
    m = max(values)
    z = m + math.log(sum(math.exp(v - m) for v in values))
    return [min(0.0, v - z) for v in values]


class ScoresFile(ContrastiveScorer):
    """``path``: the scores file; ``candidates``: the candidate files it scores (see the module
    docstring); ``layout``: ``contrapro`` or ``contracat``; ``maximize``: higher is better;
    ``separator``: the context separator of the ``contracat`` layout."""

    version: ClassVar[str] = "1"
    name = "scores_file"

    def __init__(
        self,
        path: str | Path,
        *,
        candidates: str | Path,
        layout: Layout = "contrapro",
        maximize: bool = False,
        separator: str = "<SEP>",
        src_lang: str = "en",
        tgt_lang: str = "de",
    ) -> None:
        if layout not in ("contrapro", "contracat"):
            raise ValueError(f"layout must be 'contrapro' or 'contracat', got {layout!r}")
        self.path = Path(path)
        self.candidates = Path(candidates)
        self.layout: Layout = layout
        self.maximize = maximize
        self.separator = separator
        self.src_lang, self.tgt_lang = src_lang, tgt_lang
        self._table: dict[tuple[str, ...], list[float]] | None = None

    def config(self) -> dict[str, Any]:
        digest = hashlib.sha256(self.path.read_bytes()).hexdigest() if self.path.is_file() else None
        return {
            "scores_sha256": digest,
            "candidates": str(self.candidates),
            "layout": self.layout,
            "maximize": self.maximize,
        }

    def _lines(self):
        from lingtest.readers.candidate_lines import read_concat_set, read_grouped_lines

        if self.layout == "contracat":
            return read_concat_set(self.candidates, self.separator)
        return read_grouped_lines(self.candidates, self.src_lang, self.tgt_lang)

    def _load(self) -> dict[tuple[str, ...], list[float]]:
        lines = self._lines()
        scores = read_scores(self.path)
        if len(scores) != len(lines.tgt):
            raise InputError(
                f"{len(scores)} scores for the {len(lines.tgt)} candidate lines of {lines.where}",
                path=self.path,
                line=min(len(scores), len(lines.tgt)) + 1,
            )
        table: dict[tuple[str, ...], list[float]] = {}
        for ex in group_examples(lines.src, lines.tgt, lines.src_context, lines.tgt_context):
            first = ex[0]
            key = (
                _norm(lines.src_context[first]),
                _norm(lines.src[first]),
                _norm(lines.tgt_context[first]),
                *(_norm(lines.tgt[j]) for j in ex),
            )
            table.setdefault(key, [scores[j] for j in ex])  # a repeated example: the first one answers
        return table

    def _key(self, q: ContrastiveQuery) -> tuple[str, ...]:
        return (
            _norm(q.source_context),
            _norm(q.source),
            _norm(q.target_context),
            *(_norm(c) for c in q.candidates),
        )

    def predict(self, inputs: list[ContrastiveQuery]) -> list[list[float]]:
        if self._table is None:
            self._table = self._load()
        out = []
        for q in inputs:
            raw = self._table.get(self._key(q))
            if raw is None:
                raise InputError(
                    f"no scores for the example with source {q.source[:80]!r} and candidates "
                    f"{[c[:40] for c in q.candidates]} in the candidate files {self.candidates}",
                    path=self.path,
                )
            out.append(log_softmax(raw if self.maximize else [-v for v in raw]))
        return out
