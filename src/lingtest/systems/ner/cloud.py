"""What the two cloud NER adapters (Azure, AWS) share: each sentence is sent as its tokens joined by
single spaces, and the service's character-offset entities are mapped back onto those tokens.

An entity ``(begin, end, label, score)`` in code-point offsets becomes the tokens it touches
(:func:`~lingtest.systems.ner.spans.char_span_to_tokens`, snapped outwards to whole tokens). The
entity text the service echoes must equal the text at those offsets - a mismatch means the offsets
are not code points (e.g. Azure's default grapheme offsets) and is an error, never silently
shifted. Overlapping results (a service may nest an address and a city) are resolved as TIN resolves
range conflicts (:func:`~lingtest.systems.ner.spans.resolve_overlaps`: higher score wins).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lingtest.data.model import Entity
from lingtest.errors import InputError
from lingtest.systems.ner.spans import char_span_to_tokens, join_tokens, resolve_overlaps


@dataclass(frozen=True, slots=True)
class CharEntity:
    """One entity as a service returns it: ``text[begin:end]`` (code points), label, confidence, and
    the entity text it echoes (``None`` when it echoes none)."""

    begin: int
    end: int
    label: str
    score: float
    text: str | None = None


def char_entities_to_tokens(tokens: Sequence[str], found: Sequence[CharEntity], where: str) -> list[Entity]:
    """Token-span entities of one sentence from the service's character entities (see the module
    notes). ``where`` names the response part in error messages."""
    text, offsets = join_tokens(tokens)
    scored = []
    for k, ce in enumerate(found):
        if not 0 <= ce.begin < ce.end <= len(text):
            raise InputError(f"entity [{ce.begin}, {ce.end}) lies outside the {len(text)}-character text",
                             field=f"{where}[{k}]")
        if ce.text is not None and text[ce.begin:ce.end] != ce.text:
            raise InputError(f"entity text {ce.text!r} differs from the text at its offsets "
                             f"{text[ce.begin:ce.end]!r} (offsets not in code points?)",
                             field=f"{where}[{k}]")
        span = char_span_to_tokens(offsets, ce.begin, ce.end)
        if span is None:
            raise InputError(f"entity [{ce.begin}, {ce.end}) covers no token", field=f"{where}[{k}]")
        scored.append((Entity(span[0], span[1], ce.label), ce.score))
    return resolve_overlaps(scored)
