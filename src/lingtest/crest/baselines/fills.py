"""The fill-in proposals of the baselines that substitute words (SIT, CAT, PatInv), computed once for all of
them.

Each of these baselines asks the fill proposer (the stand-in for their masked LM) for substitutes of some
positions of every source: CAT every word, SIT the nouns and adjectives, PatInv the verbs and adverbs. The
proposer ranks its candidates with the causal LM, which is most of the baselines' generation time, and the three
ask for many of the same positions. ``crest_baseline_fills`` asks once for the union of their positions,
``batch_sources`` sources per request as the baselines batch them, and writes the ranked lists
(:class:`FillTable`); each baseline's generation then reads its positions from that table and truncates the
lists to its own ``top_k`` (the proposer's ranking does not depend on ``k``, only its cut does). One table also
means the three baselines see the same substitutes for a position.

A baseline takes part when its generator has ``fill_positions(sentence) -> positions`` and a ``config.top_k``
(:class:`Substituting`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Protocol

from lingtest.crest.generate import Source
from lingtest.data.model import Sentence
from lingtest.errors import InputError, MissingResourceError
from lingtest.resources.fill import Fill, FillProposerBase

#: the record kind of the table's JSONL file
KIND = "crest-baseline-fills"

Key = tuple[tuple[str, ...], int]


class Substituting(Protocol):
    """A baseline generator that substitutes words through the fill proposer."""

    name: ClassVar[str]
    config: Any

    def fill_positions(self, sentence: Sentence) -> list[int]:
        """The token positions of ``sentence`` it asks the fill proposer about."""
        ...


def substitutes_words(generator: Any) -> bool:
    """Whether a baseline generator (or its class) substitutes words through the fill proposer: it has
    ``fill_positions``."""
    return callable(getattr(generator, "fill_positions", None))


def substituting(generators: Iterable[Any]) -> list[Substituting]:
    """The generators among ``generators`` that substitute words through the fill proposer."""
    return [g for g in generators if substitutes_words(g)]


def union_positions(generators: Sequence[Substituting], sentence: Sentence) -> list[int]:
    """Every position any of ``generators`` asks about, in sentence order."""
    return sorted({p for g in generators for p in g.fill_positions(sentence)})


class FillTable(FillProposerBase):
    """Ranked fill-in proposals by (the sentence's words, position), each list at most ``k`` long; a fill
    proposer (``propose_many(requests, k)``) for the requests it holds, with ``k`` at most its own. A request it
    does not hold, or more fills than it holds, is an error naming ``where`` (the table's file): the table was
    made for other sources, positions or ``top_k``."""

    name = "fill_table"

    def __init__(self, rows: Mapping[Key, Sequence[Fill]], k: int, *, score_kind: str = "prob",
                 where: str = "the fill table") -> None:
        self.rows = {key: list(v) for key, v in rows.items()}
        self.k = int(k)
        self.score_kind = score_kind
        self.where = where

    def __len__(self) -> int:
        return len(self.rows)

    def propose_many(self, requests: Sequence[tuple[Sequence[str], int]], k: int) -> list[list[Fill]]:
        if k > self.k:
            raise MissingResourceError(f"{self.where} holds {self.k} fills per position; {k} were asked for: it was "
                                       "made for a smaller top_k; run crest_baseline_fills (dvc repro) again")
        out = []
        for tokens, position in requests:
            got = self.rows.get((tuple(tokens), int(position)))
            if got is None:
                raise MissingResourceError(
                    f"{self.where} has no fills for position {position} of {' '.join(tokens)!r}: it was made for "
                    "other sources or positions; run crest_baseline_fills (dvc repro) again")
            out.append(got[:k])
        return out

    # ---- the file -----------------------------------------------------------------------------------------
    def write(self, path: str | Path, meta: Mapping[str, Any] | None = None) -> int:
        """One line per sentence: ``{"words": [...], "fills": {position: [[word, score], ...]}}``, after a
        header with ``k`` and ``score_kind``. Returns the number of positions."""
        from lingtest.data.io import write_jsonl

        by_words: dict[tuple[str, ...], dict[str, list[list[Any]]]] = {}
        for (words, position), fills in self.rows.items():
            by_words.setdefault(words, {})[str(position)] = [[f.word, f.score] for f in fills]
        write_jsonl(path, ({"words": list(w), "fills": f} for w, f in by_words.items()), kind=KIND,
                    meta={**(meta or {}), "k": self.k, "score_kind": self.score_kind})
        return len(self.rows)

    @classmethod
    def read(cls, path: str | Path) -> FillTable:
        """The table ``write`` wrote (errors name the file, line and field)."""
        from lingtest.data.io import read_header, read_jsonl

        header = read_header(path)
        if header.get("kind") != KIND:
            raise InputError(f"expected a table of kind {KIND!r}, found {header.get('kind')!r}", path=path, line=1,
                             field="kind")
        try:
            k = int(header["k"])
        except (KeyError, TypeError, ValueError):
            raise InputError("missing or invalid", path=path, line=1, field="k") from None
        rows: dict[Key, list[Fill]] = {}

        def decode(d: Any) -> None:
            if not isinstance(d, dict):
                raise InputError("expected an object with words and fills", field="words")
            words = d["words"]
            fills = d["fills"]
            if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
                raise InputError("expected a list of words", field="words")
            if not isinstance(fills, dict):
                raise InputError("expected an object of positions", field="fills")
            for pos, lst in fills.items():
                if not (isinstance(pos, str) and pos.isdigit() and str(int(pos)) == pos):
                    raise InputError(f"position {pos!r}: expected a whole number without leading zeros", field="fills")
                p = int(pos)
                if not 0 <= p < len(words):
                    raise InputError(f"position {p} outside the sentence of {len(words)} words", field="fills")
                if not isinstance(lst, list) or not all(_fill_pair(x) for x in lst):
                    raise InputError(f"position {p}: expected [[word, score], ...]", field="fills")
                if len(lst) > k:
                    raise InputError(f"position {p}: {len(lst)} fills, more than k = {k}", field="fills")
                rows[(tuple(words), p)] = [Fill(w, float(sc)) for w, sc in lst]

        for _ in read_jsonl(path, decode):
            pass
        return cls(rows, k, score_kind=str(header.get("score_kind", "prob")), where=str(path))


def _fill_pair(x: Any) -> bool:
    """``[word, score]``: a string and a number (not a boolean)."""
    return (isinstance(x, list) and len(x) == 2 and isinstance(x[0], str)
            and isinstance(x[1], (int, float)) and not isinstance(x[1], bool))


def compute_fills(fill: Any, sources: Sequence[Source], generators: Sequence[Substituting],
                  batch_sources: int) -> FillTable:
    """The fills of every position any of ``generators`` asks about, for every source: one ``fill`` request per
    ``batch_sources`` sources (the waves the baselines' generation runs in), ``k`` the largest ``top_k``."""
    from lingtest.progress import progress

    if not generators:
        raise ValueError("no baseline substitutes words: nothing to fill")
    k = max(int(g.config.top_k) for g in generators)
    rows: dict[Key, list[Fill]] = {}
    n = max(1, int(batch_sources))
    for i in progress(range(0, len(sources), n), "fills (waves of sources)"):
        requests = [(s.sentence.words, p) for s in sources[i:i + n] for p in union_positions(generators, s.sentence)]
        got = fill.propose_many(requests, k) if requests else []
        if len(got) != len(requests):
            raise ValueError(f"the fill proposer returned {len(got)} lists for {len(requests)} requests")
        for (words, p), lst in zip(requests, got, strict=True):
            rows[(tuple(words), p)] = list(lst)[:k]
    return FillTable(rows, k, score_kind=str(getattr(fill, "score_kind", "prob")))
