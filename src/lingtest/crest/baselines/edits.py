"""A baseline follow-up as token edits of its source, and what follows from them: the follow-up's words,
the gold clusters carried onto it, the alignment its oracle check uses and its validity.

An :class:`Edit` replaces one source token by zero or more words: a substitution (one word), a typo (one
word), a deletion (none) or an insertion, which is the neighbouring token together with the inserted words
(``keep`` says which of the new words is the neighbour itself). A follow-up is one or more edits of distinct
tokens (:class:`Perturbation`). One edit is exactly CREST's record (``position``, ``old_token``,
``new_token``, ``n_new_tokens``); with several, the record's position fields name the first and
``meta["edits"]`` lists them all (:func:`edits_meta`).

Gold mentions are carried through the edits (:func:`followup_gold`): offsets shift by the words an edit
adds or removes before them, an inserted word beside a mention stays outside it, and a mention whose every
token is deleted is dropped. A mention an edit touches (a replaced, typo'd or deleted token inside it, or
the anchor token of an insertion) keeps its carried span, but the edit lies inside it, which the validity
check counts as broken (``edit_inside_mention``, :func:`followup_validity`), as CREST's own grading does.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lingtest.crest.grading import case_validity, document_words
from lingtest.data.model import TestCase
from lingtest.errors import InputError
from lingtest.metrics.validity import UNRECORDED_EDIT, Validity, coref_edit_reasons

Span = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Edit:
    """Source token ``position`` becomes the words ``new`` (empty: the token is deleted).

    ``keep``: the index in ``new`` of the source token itself when the edit inserts words beside it (an
    insertion; ``new[keep]`` equals the source token), else ``None``. ``ws``: the whitespace after each new
    word (``None``: one space between them and the source token's own after the last). ``prev_ws``: new
    whitespace after the word before this edit (a contraction glues *n't* to its verb), ``None`` keeps it."""

    position: int
    new: tuple[str, ...]
    keep: int | None = None
    ws: tuple[str, ...] | None = None
    prev_ws: str | None = None

    def __post_init__(self) -> None:
        if self.position < 0:
            raise ValueError(f"edit position {self.position} is negative")
        if self.keep is not None and not 0 <= self.keep < len(self.new):
            raise ValueError(f"keep {self.keep} outside the {len(self.new)} new words")
        if self.ws is not None and len(self.ws) != len(self.new):
            raise ValueError(f"{len(self.ws)} whitespace strings for {len(self.new)} new words")
        if any(not w or any(c.isspace() for c in w) for w in self.new):
            raise ValueError(f"a new word must be non-empty and hold no whitespace: {self.new!r}")

    @property
    def n_new(self) -> int:
        return len(self.new)

    @property
    def text(self) -> str:
        """The new words as one string (CREST's ``new_token``; empty for a deletion)."""
        return " ".join(self.new)


@dataclass(frozen=True, slots=True)
class Perturbation:
    """One follow-up of a source: its ``edits`` (distinct tokens, any order), the ``recipe`` that made it
    (recorded as the case's ``candidate_source``) and an optional ``score`` (the substitute's
    probability, a similarity; recorded as ``lm_prob``)."""

    edits: tuple[Edit, ...]
    recipe: str
    score: float | None = None

    def __post_init__(self) -> None:
        if not self.edits:
            raise ValueError("a perturbation needs at least one edit")
        positions = [e.position for e in self.edits]
        if len(set(positions)) != len(positions):
            raise ValueError(f"two edits of one token in {positions}")

    @property
    def ordered(self) -> tuple[Edit, ...]:
        return tuple(sorted(self.edits, key=lambda e: e.position))


def insertion(words: Sequence[str], ws: Sequence[str], boundary: int, inserted: Sequence[str],
              protected: Iterable[int] = ()) -> Edit:
    """The edit that inserts ``inserted`` at ``boundary`` (``0..len(words)``: before token ``boundary``).

    The neighbour that carries it is the token before the boundary, unless that one is in ``protected``
    (tokens of gold mentions) and the token after is not; at either end of the sentence the only neighbour
    carries it."""
    n = len(words)
    if not inserted or not 0 <= boundary <= n or n == 0:
        raise ValueError(f"cannot insert {list(inserted)!r} at boundary {boundary} of {n} words")
    guard = set(protected)
    left_ok = boundary > 0
    right_ok = boundary < n
    use_left = left_ok and (not right_ok or boundary - 1 not in guard or boundary in guard)
    if use_left:
        p = boundary - 1
        return Edit(p, (words[p], *inserted), keep=0, ws=(" ",) * len(inserted) + (ws[p],))
    p = boundary
    return Edit(p, (*inserted, words[p]), keep=len(inserted), ws=(" ",) * len(inserted) + (ws[p],))


def apply_edits(words: Sequence[str], ws: Sequence[str], edits: Iterable[Edit]) -> tuple[list[str], list[str]]:
    """The follow-up's words and the whitespace after each."""
    by_pos = {e.position: e for e in edits}
    if any(p >= len(words) for p in by_pos):
        raise ValueError(f"edit position {max(by_pos)} outside the {len(words)} source tokens")
    out_w: list[str] = []
    out_ws: list[str] = []
    for i, w in enumerate(words):
        e = by_pos.get(i)
        if e is None:
            out_w.append(w)
            out_ws.append(ws[i])
            continue
        if e.prev_ws is not None and out_ws:
            out_ws[-1] = e.prev_ws
        if e.ws is not None:
            spaces: tuple[str, ...] = e.ws
        else:
            spaces = (" ",) * (len(e.new) - 1) + (ws[i],) if e.new else ()
        out_w.extend(e.new)
        out_ws.extend(spaces)
    return out_w, out_ws


def _starts(n_source: int, by_pos: Mapping[int, Edit]) -> list[int]:
    """``out[i]``: the follow-up index of the first word standing for source token ``i`` (``0..n``)."""
    out = []
    k = 0
    for i in range(n_source):
        out.append(k)
        k += by_pos[i].n_new if i in by_pos else 1
    out.append(k)
    return out


def carry_span(span: Span, n_source: int, edits: Iterable[Edit]) -> Span | None:
    """A source span ``[start, end)`` on the follow-up (``None``: every token of it was deleted). Words an
    insertion puts beside the span's first or last token stay outside it."""
    by_pos = {e.position: e for e in edits}
    starts = _starts(n_source, by_pos)
    s, e = span
    first, last = by_pos.get(s), by_pos.get(e - 1)
    start = starts[s] + (first.keep if first is not None and first.keep is not None else 0)
    end = starts[e - 1] + last.keep + 1 if last is not None and last.keep is not None else starts[e]
    return (start, end) if start < end else None


def followup_gold(gold: Sequence[Sequence[Span]], n_source: int, edits: Iterable[Edit]) -> list[list[Span]]:
    """The source's gold clusters on the follow-up (:func:`carry_span`; lost mentions dropped)."""
    es = list(edits)
    out = []
    for cluster in gold:
        moved = [carry_span((int(s), int(e)), n_source, es) for s, e in cluster]
        out.append([m for m in moved if m is not None])
    return out


def trailing_deletions(edits: Iterable[Edit], n_source: int) -> set[int]:
    """Positions of the deletions that end the sentence (every token after them deleted too)."""
    dels = {e.position for e in edits if not e.new}
    out: set[int] = set()
    i = n_source - 1
    while i in dels:
        out.add(i)
        i -= 1
    return out


def edit_expectation(edits: Sequence[Edit], n_source: int) -> Any:
    """The case's ``expected``: CREST's ``same-coreference`` (the alignment of the one edit recorded in the
    case) for one edit; for several, the ``oracle`` expectation with the alignment of the replacements
    (:class:`lingtest.suite.alignment.ReplacementAlignment`), deletions at the end of the sentence left out
    (no follow-up token maps through them); no alignment at all when only those remain. Other deletions in
    a follow-up of several edits have no such alignment: a :class:`ValueError`."""
    if len(edits) == 1:
        return "same-coreference"
    tail = trailing_deletions(edits, n_source)
    rest = sorted((e for e in edits if e.position not in tail), key=lambda e: e.position)
    if any(not e.new for e in rest):
        raise ValueError("a follow-up of several edits may delete tokens only at the end of the sentence")
    if not rest:
        return {"name": "oracle"}
    return {"name": "oracle", "alignment": {"replacements": [[e.position, e.n_new] for e in rest]}}


def edits_meta(words: Sequence[str], edits: Sequence[Edit]) -> list[dict[str, Any]]:
    """``meta["edits"]`` of a case: ``position``, ``old``, ``new`` (the new words joined by a space) and
    ``n_new`` of each edit, by position."""
    return [{"position": e.position, "old": words[e.position], "new": e.text, "n_new": e.n_new}
            for e in sorted(edits, key=lambda e: e.position)]


def followup_validity(case: TestCase) -> Validity:
    """Whether a case keeps its source's gold: CREST's :func:`~lingtest.crest.grading.case_validity` for a
    case of one edit; for a case with ``meta["edits"]``, the same check over every recorded edit (each old
    word is the source's, the follow-up differs from the source only there, no edit lies inside a gold
    mention, no mention is lost or merged, and the recorded follow-up gold is the source's moved through
    the edits)."""
    m = case.meta
    edits = m.get("edits")
    if edits is None:
        return case_validity(case)
    try:
        replaced = {int(e["position"]): int(e["n_new"]) for e in edits}
        olds = {int(e["position"]): str(e["old"]) for e in edits}
        new_words = {int(e["position"]): str(e["new"]).split() for e in edits}
        gold = m["gold_clusters"]
        fu_gold = m.get("followup_gold_clusters")
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"not a baseline case: {exc}", field=f"{case.id}.meta.edits") from None
    source = document_words(case.source, f"{case.id}.source")
    followup = document_words(case.followup, f"{case.id}.followup")
    reasons: list[str] = []
    if any(0 <= p < len(source) and source[p] != old for p, old in olds.items()):
        reasons.append(UNRECORDED_EDIT)
    try:
        reasons += coref_edit_reasons(source, followup, gold, fu_gold, replaced, scope="outside_mentions",
                                      new_words={p: w for p, w in new_words.items() if len(w) == replaced[p]})
    except (ValueError, TypeError, IndexError) as exc:
        raise InputError(f"bad gold clusters: {exc}", field=f"{case.id}.meta.gold_clusters") from None
    return Validity.of(reasons)
