"""Entity-level NER scores with the conventions of ``conlleval.pl`` (CoNLL-2000/2003, version
2004-01-26, Erik Tjong Kim Sang).

Chunks (entities) are decoded from tags by conlleval's ``startOfChunk``/``endOfChunk`` rules,
looking only at the previous and the current tag (prefix and type); an outside token (``O``)
and the edge of a sequence both end a chunk. For the prefixes B, I and O:

* a chunk starts at every ``B-X``; at ``I-X`` after ``O`` (so IOB1 input, where entities start
  with ``I-``, and ill-formed IOB2 predictions are read alike); and at any tag whose type
  differs from the previous tag's (``I-Y`` after ``I-X`` or ``B-X`` starts a new ``Y`` chunk);
* a chunk ends before ``O``, before ``B-`` (so ``B-X`` in IOB1 splits two adjacent ``X``
  entities) and before a tag of another type.

IOB1 and IOB2 are therefore decoded by the same rules, as conlleval.pl does (it has no notion
of the scheme). IOE1/IOE2 (prefixes E and I; conlleval's rules for E: a chunk ends after
``E-``) are supported too. Tags are ``O`` or ``PREFIX-TYPE``, split at the first hyphen (types
may contain hyphens); any other tag, or a prefix the scheme does not use (``S-``/``E-`` in an
IOB scheme: conlleval.pl would silently mis-read IOBES), raises :class:`InputError`.

Scores, as conlleval.pl counts them: a predicted chunk is correct when a gold chunk has the
same start, end and type (:math:`tp`); ``fp`` = predicted - tp, ``fn`` = gold - tp;
precision = tp / predicted and recall = tp / gold, each 0 when its denominator is 0, and
F1 = 2PR / (P + R), 0 when P + R = 0 (so an all-``O`` prediction scores precision 0). Counts are
summed over all sequences before dividing. Token accuracy counts tokens whose gold and
predicted tags are equal. Per-type scores cover every type found in the gold or the prediction,
sorted as conlleval sorts them (by code point).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from lingtest.errors import InputError

Scheme = Literal["iob1", "iob2", "ioe1", "ioe2"]
SCHEMES: tuple[str, ...] = ("iob1", "iob2", "ioe1", "ioe2")
_PREFIXES: dict[str, frozenset[str]] = {"iob1": frozenset("BI"), "iob2": frozenset("BI"),
                                        "ioe1": frozenset("EI"), "ioe2": frozenset("EI")}
OUTSIDE = "O"

__all__ = ["Chunk", "NERScore", "PRF", "SCHEMES", "Scheme", "chunks", "score_ner", "split_tag"]


class Chunk(NamedTuple):
    """One entity: tokens ``start`` (inclusive) to ``end`` (exclusive) of its sequence."""

    start: int
    end: int
    type: str


# --------------------------------------------------------------------------------------------
# tags and chunks
# --------------------------------------------------------------------------------------------
def _check_scheme(scheme: str) -> frozenset[str]:
    try:
        return _PREFIXES[scheme]
    except KeyError:
        raise ValueError(f"scheme must be one of {', '.join(SCHEMES)}, got {scheme!r}") from None


def split_tag(tag: str, scheme: Scheme = "iob2") -> tuple[str, str]:
    """``(prefix, type)`` of a tag: ``("O", "")`` for ``O``, else the parts before and after the
    first hyphen (conlleval's ``^([^-]*)-(.*)$``). Raises :class:`InputError` (field ``tag``) for
    anything else: no hyphen, an empty type, or a prefix the scheme does not use."""
    if tag == OUTSIDE:
        return OUTSIDE, ""
    allowed = _check_scheme(scheme)
    prefix, sep, typ = tag.partition("-")
    if not sep or not typ or prefix not in allowed:
        legal = ", ".join(f"{p}-TYPE" for p in sorted(allowed))
        raise InputError(f"unknown tag {tag!r} (expected O, {legal} in scheme {scheme})", field="tag")
    return prefix, typ


def _end_of_chunk(prev_tag: str, tag: str, prev_type: str, typ: str) -> bool:
    """conlleval's ``endOfChunk``: did a chunk end between the previous and the current token?"""
    if prev_tag in ("B", "I") and tag in ("B", "O"):
        return True
    if prev_tag == "E" and tag in ("E", "I", "O"):
        return True
    return prev_tag not in (OUTSIDE, ".") and prev_type != typ


def _start_of_chunk(prev_tag: str, tag: str, prev_type: str, typ: str) -> bool:
    """conlleval's ``startOfChunk``: did a chunk start at the current token?"""
    if tag == "B" and prev_tag in ("B", "I", OUTSIDE):
        return True
    if prev_tag == OUTSIDE and tag in ("I", "E"):
        return True
    if prev_tag == "E" and tag in ("E", "I"):
        return True
    return tag not in (OUTSIDE, ".") and prev_type != typ


def chunks(tags: Sequence[str], scheme: Scheme = "iob2") -> list[Chunk]:
    """The chunks of one sequence of tags, in order, decoded by conlleval's rules.

    ``scheme`` only says which prefixes are legal (B and I for ``iob1``/``iob2``, E and I for
    ``ioe1``/``ioe2``); see the module notes. Raises :class:`InputError` on an unknown tag,
    naming its index.
    """
    out: list[Chunk] = []
    prev, prev_type = OUTSIDE, ""
    start: int | None = None
    for i in range(len(tags) + 1):
        if i < len(tags):
            try:
                tag, typ = split_tag(tags[i], scheme)
            except InputError as exc:
                raise InputError(f"token {i}: {exc.reason}", field="tag") from None
        else:
            tag, typ = OUTSIDE, ""  # the end of the sequence ends any open chunk
        if start is not None and _end_of_chunk(prev, tag, prev_type, typ):
            out.append(Chunk(start, i, prev_type))
            start = None
        if _start_of_chunk(prev, tag, prev_type, typ):
            start = i
        prev, prev_type = tag, typ
    return out


# --------------------------------------------------------------------------------------------
# scores
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class PRF:
    """Chunk counts of one type (or all types) and the ratios conlleval derives from them."""

    tp: int
    fp: int
    fn: int

    @property
    def found_gold(self) -> int:
        return self.tp + self.fn

    @property
    def found_pred(self) -> int:
        return self.tp + self.fp

    @property
    def precision(self) -> float:
        return self.tp / self.found_pred if self.found_pred else 0.0

    @property
    def recall(self) -> float:
        return self.tp / self.found_gold if self.found_gold else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def percentages(self) -> tuple[float, float, float]:
        """Precision, recall and F1 in percent, computed exactly as conlleval.pl computes them
        (so that its ``%6.2f`` output is reproduced digit for digit)."""
        p = 100 * self.tp / self.found_pred if self.found_pred else 0.0
        r = 100 * self.tp / self.found_gold if self.found_gold else 0.0
        f = 2 * p * r / (p + r) if p + r else 0.0
        return p, r, f

    def to_dict(self) -> dict[str, Any]:
        return {"precision": self.precision, "recall": self.recall, "f1": self.f1,
                "tp": self.tp, "fp": self.fp, "fn": self.fn}


@dataclass(frozen=True, slots=True)
class NERScore:
    """Overall and per-type chunk scores plus conlleval's token accuracy."""

    overall: PRF
    per_type: dict[str, PRF] = field(default_factory=dict)
    tokens: int = 0
    correct_tags: int = 0

    @property
    def accuracy(self) -> float:
        return self.correct_tags / self.tokens if self.tokens else 0.0

    def to_dict(self) -> dict[str, Any]:
        """``{"overall": {...}, "per_type": {TYPE: {...}}, "accuracy": a, "tokens": n}``; every
        ratio is a fraction in [0, 1]."""
        return {"overall": self.overall.to_dict(),
                "per_type": {t: s.to_dict() for t, s in self.per_type.items()},
                "accuracy": self.accuracy, "tokens": self.tokens}


def score_ner(gold_seqs: Sequence[Sequence[str]], pred_seqs: Sequence[Sequence[str]],
              scheme: Scheme = "iob2") -> NERScore:
    """Score predicted tag sequences against gold ones (one sequence per sentence).

    Both sides must have the same number of sequences and of tags in each; otherwise, or on an
    unknown tag, :class:`InputError` names the sequence and token.
    """
    _check_scheme(scheme)
    if len(gold_seqs) != len(pred_seqs):
        raise InputError(f"{len(gold_seqs)} gold sequences but {len(pred_seqs)} predicted", field="sequences")
    found_gold: Counter[str] = Counter()
    found_pred: Counter[str] = Counter()
    correct: Counter[str] = Counter()
    tokens = correct_tags = 0
    for k, (gold, pred) in enumerate(zip(gold_seqs, pred_seqs, strict=True)):
        if len(gold) != len(pred):
            raise InputError(f"sequence {k}: {len(gold)} gold tags but {len(pred)} predicted", field="tags")
        try:
            g_chunks, p_chunks = chunks(gold, scheme), chunks(pred, scheme)
        except InputError as exc:
            raise InputError(f"sequence {k}, {exc.reason}", field="tag") from None
        found_gold.update(c.type for c in g_chunks)
        found_pred.update(c.type for c in p_chunks)
        correct.update(c.type for c in set(g_chunks).intersection(p_chunks))
        tokens += len(gold)
        correct_tags += sum(g == p for g, p in zip(gold, pred, strict=True))
    per_type = {t: PRF(correct[t], found_pred[t] - correct[t], found_gold[t] - correct[t])
                for t in sorted(set(found_gold) | set(found_pred))}
    tp = sum(correct.values())
    overall = PRF(tp, sum(found_pred.values()) - tp, sum(found_gold.values()) - tp)
    return NERScore(overall, per_type, tokens, correct_tags)
