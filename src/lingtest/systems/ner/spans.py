"""Pure helpers every NER adapter shares: per-word tags -> entities, character offsets -> token spans,
overlapping spans -> one non-overlapping set, entities -> IOB2 tags.

Conventions: entities are sentence-relative token spans ``[start, end)``; a sentence given to a
character-offset API (Azure, AWS) is its tokens joined by single spaces, so token ``i`` covers the
characters ``offsets[i] = (b, e)`` of that text.
"""

from __future__ import annotations

from collections.abc import Sequence

from lingtest.data.model import Entity
from lingtest.errors import InputError

__all__ = ["entities_to_iob2", "join_tokens", "char_span_to_tokens", "resolve_overlaps", "split_tag",
           "tags_to_entities"]

# prefixes of the tagging schemes models use: IOB1/IOB2 (B, I), IOE (E), BIOES/BILOU (S, E / U, L)
_STARTS = frozenset("BSU")
_ENDS = frozenset("ESLU")
_PREFIXES = frozenset("BIESLU")


def split_tag(tag: str) -> tuple[str, str]:
    """``(prefix, type)`` of a model tag: ``("O", "")`` for ``O``; ``B-PER`` -> ``("B", "PER")`` (also
    ``B_PER``); a tag without a known prefix is an inside tag of its own type (IO tagging:
    ``PER`` -> ``("I", "PER")``)."""
    if tag == "O" or not tag:
        return "O", ""
    if len(tag) > 2 and tag[0] in _PREFIXES and tag[1] in "-_":
        return tag[0], tag[2:]
    return "I", tag


def tags_to_entities(tags: Sequence[str]) -> list[Entity]:
    """Entities of one sentence from one tag per word, read leniently as conlleval reads predictions:
    an entity starts at ``B``/``S``/``U``, or at an inside tag (``I``/``E``/``L``) whose type differs
    from the open entity's (or when none is open); it ends before ``O``, before a new start, and
    after ``E``/``S``/``L``/``U``. So IOB1, IOB2, IOE, BIOES, BILOU and plain IO tags all decode."""
    out: list[Entity] = []
    start: int | None = None
    typ = ""
    for i, tag in enumerate(tags):
        prefix, t = split_tag(tag)
        if prefix == "O":
            if start is not None:
                out.append(Entity(start, i, typ))
            start = None
            continue
        if prefix in _STARTS or start is None or t != typ:
            if start is not None:
                out.append(Entity(start, i, typ))
            start, typ = i, t
        if prefix in _ENDS:
            out.append(Entity(start, i + 1, typ))
            start = None
    if start is not None:
        out.append(Entity(start, len(tags), typ))
    return out


def entities_to_iob2(entities: Sequence[Entity], n_tokens: int) -> list[str]:
    """IOB2 tags of ``n_tokens`` words from non-overlapping entities (what :func:`score_ner` reads).
    An entity outside the sentence or overlapping another raises :class:`InputError`."""
    tags = ["O"] * n_tokens
    for e in sorted(entities, key=lambda e: (e.start, e.end)):
        if not 0 <= e.start < e.end <= n_tokens:
            raise InputError(f"entity {e.to_list()} is outside a sentence of {n_tokens} tokens",
                             field="entities")
        if any(t != "O" for t in tags[e.start:e.end]):
            raise InputError(f"entity {e.to_list()} overlaps another entity", field="entities")
        tags[e.start] = f"B-{e.label}"
        for i in range(e.start + 1, e.end):
            tags[i] = f"I-{e.label}"
    return tags


def join_tokens(tokens: Sequence[str]) -> tuple[str, list[tuple[int, int]]]:
    """The text an offset-based API is sent (tokens joined by single spaces) and each token's
    character span ``(begin, end)`` in it (Python string indices, i.e. Unicode code points)."""
    offsets = []
    pos = 0
    for w in tokens:
        offsets.append((pos, pos + len(w)))
        pos += len(w) + 1
    return " ".join(tokens), offsets


def char_span_to_tokens(offsets: Sequence[tuple[int, int]], begin: int, end: int) -> tuple[int, int] | None:
    """The tokens a character span ``[begin, end)`` touches, snapped outwards to whole tokens (an
    entity ``U.S.`` inside the token ``U.S.-based`` becomes that token), as ``(start, end)`` with an
    exclusive end; ``None`` when it covers only whitespace."""
    first = last = None
    for i, (b, e) in enumerate(offsets):
        if b < end and begin < e:
            if first is None:
                first = i
            last = i
    return None if first is None or last is None else (first, last + 1)


def resolve_overlaps(candidates: Sequence[tuple[Entity, float]]) -> list[Entity]:
    """One non-overlapping set from scored spans, as TIN resolves range conflicts: the higher score
    wins; on a tie the shorter span, then the earlier one. Exact duplicates (same span and label)
    count once. Returned sorted."""
    order = sorted(candidates, key=lambda c: (-c[1], c[0].end - c[0].start, c[0].start, c[0].label))
    kept: list[Entity] = []
    for ent, _ in order:
        if all(ent.end <= k.start or k.end <= ent.start for k in kept):
            kept.append(ent)
    return sorted(kept, key=lambda e: (e.start, e.end, e.label))
