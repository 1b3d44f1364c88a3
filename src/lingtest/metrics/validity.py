"""Validity of generated test cases: whether a case keeps the gold annotation it carries onto its
follow-up, decided from the case alone (its tokens, its gold on both sides and the record of its edit).

A technique that edits a gold-annotated input and maps the gold onto the result claims that the result
is annotated like the source. These pure functions check that claim where gold allows it, and say why
a case fails (its *reasons*; a case with none is valid):

* :func:`coref_edit_reasons` - a token sequence with coreference clusters, some tokens replaced by
  zero or more tokens each (CREST's one-word replacement, the adversarial word attacks): the edits
  are the recorded ones, they lie where the technique's relation allows (outside every mention, or
  inside mentions only), no mention vanishes or merges with another, and the recorded follow-up
  clusters are the source clusters moved through the edits;
* :func:`entity_edit_reasons` - a token sequence with labelled entity spans and a token map (TIN's
  mutants): every entity survives intact (no token of it edited, no entity split by a reordering,
  its words unchanged), no two entities of one label become adjacent (merged), no new capitalised
  word appears where gold has no entity, and the recorded follow-up entities are the mapped ones;
* :func:`validity_summary` and :func:`adjusted_precision` - the figures a summary reports: the share
  of valid cases (with counts and reasons), and precision with every issue on an invalid case counted
  as a false positive.

Nothing here knows a technique: each technique reads its cases into these arguments.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Span = tuple[int, int]
LabelledSpan = tuple[int, int, str]

#: the edits are not those recorded (a token outside them differs, or the lengths disagree)
UNRECORDED_EDIT = "unrecorded_edit"
#: an edit index outside the source
EDIT_OUT_OF_RANGE = "edit_out_of_range"
#: a replaced token lies inside a gold mention, which the relation forbids
EDIT_INSIDE_MENTION = "edit_inside_mention"
#: a replaced token lies outside every gold mention, where the relation makes no edit
EDIT_OUTSIDE_MENTIONS = "edit_outside_mentions"
#: a gold mention is left without tokens
MENTION_LOST = "mention_lost"
#: two gold mentions end up on the same follow-up span
MENTIONS_MERGED = "mentions_merged"
#: the recorded follow-up gold is not the source gold moved through the edits
FOLLOWUP_GOLD_MISMATCH = "followup_gold_mismatch"
#: a token of a gold entity was replaced or dropped
ENTITY_EDITED = "entity_edited"
#: every token of a gold entity survives, but not contiguous and in order
ENTITY_SPLIT = "entity_split"
#: a gold entity's words differ in the follow-up (e.g. their case)
ENTITY_TEXT_CHANGED = "entity_text_changed"
#: two gold entities of one label became adjacent (read as one)
ENTITIES_MERGED = "entities_merged"
#: a new capitalised word inside the sentence: a name gold does not have
NEW_CAPITALISED_WORD = "new_capitalised_word"

#: where a coreference edit may lie: outside every mention, or inside mentions only
EDIT_SCOPES = ("outside_mentions", "inside_mentions")

#: tokens after which a capitalised word starts a sentence or a quotation (not a name by its case)
SENTENCE_OPENERS = frozenset({".", "!", "?", ":", ";", '"', "``", "''", "'", "(", "[", "-", "--", "«", "“"})


@dataclass(frozen=True, slots=True)
class Validity:
    """Whether one generated case keeps its gold: the reasons it does not (none: valid)."""

    reasons: tuple[str, ...] = ()

    @property
    def valid(self) -> bool:
        return not self.reasons

    @classmethod
    def of(cls, reasons: Iterable[str]) -> Validity:
        """The verdict of ``reasons`` (duplicates dropped, first-seen order kept)."""
        return cls(tuple(dict.fromkeys(reasons)))

    def to_dict(self) -> dict[str, Any]:
        return {"valid": self.valid, "reasons": list(self.reasons)}


def _share(a: int, b: int, digits: int | None) -> float | None:
    if not b:
        return None
    return a / b if digits is None else round(a / b, digits)


def validity_summary(verdicts: Iterable[Validity], digits: int | None = None) -> dict[str, Any]:
    """``validity`` (share of valid cases; ``None`` for no case), ``validity_valid``,
    ``validity_total`` and ``validity_reasons`` (cases per reason, sorted by name). ``digits``: round
    the share."""
    vs = list(verdicts)
    valid = sum(v.valid for v in vs)
    reasons = Counter(r for v in vs for r in v.reasons)
    return {"validity": _share(valid, len(vs), digits), "validity_valid": valid, "validity_total": len(vs),
            "validity_reasons": dict(sorted(reasons.items()))}


def adjusted_precision(issues: Iterable[tuple[bool, bool]], digits: int | None = None) -> dict[str, Any]:
    """Precision with every issue on an invalid case counted as a false positive, from ``(true
    positive, case valid)`` per issue: ``precision_validity_adjusted`` (``None`` for no issue) and
    ``issues_invalid``."""
    items = list(issues)
    kept = sum(tp and ok for tp, ok in items)
    return {"precision_validity_adjusted": _share(kept, len(items), digits),
            "issues_invalid": sum(not ok for _, ok in items)}


# ---- coreference: tokens replaced one by one ---------------------------------------------------------
def replacement_boundaries(n_tokens: int, lengths: Mapping[int, int]) -> list[int]:
    """``out[i]``: the follow-up index of source boundary ``i`` (``0..n_tokens``) when each source token
    ``t`` in ``lengths`` became ``lengths[t]`` tokens (0: dropped); source span ``[s, e)`` becomes
    ``[out[s], out[e])``."""
    out = []
    shift = 0
    for i in range(n_tokens):
        out.append(i + shift)
        shift += lengths.get(i, 1) - 1
    out.append(n_tokens + shift)
    return out


def cluster_sets(clusters: Iterable[Iterable[Sequence[int]]]) -> set[frozenset[Span]]:
    """Clusters as a set of mention sets (order-free), mentions as ``(start, end)``."""
    return {frozenset((int(m[0]), int(m[1])) for m in c) for c in clusters}


def coref_edit_reasons(source: Sequence[str], followup: Sequence[str],
                       clusters: Sequence[Sequence[Sequence[int]]],
                       followup_clusters: Sequence[Sequence[Sequence[int]]] | None,
                       replaced: Mapping[int, int], *, scope: str,
                       new_words: Mapping[int, Sequence[str]] | None = None) -> list[str]:
    """Why a follow-up made by token replacements does not keep the source's coreference (``[]``: it
    does).

    ``source``/``followup``: the words; ``clusters``: gold mentions ``(start, end)`` of the source per
    cluster; ``followup_clusters``: the gold recorded on the follow-up (``None``: not recorded);
    ``replaced``: source token -> how many follow-up tokens replace it; ``new_words``: what they are,
    where recorded; ``scope``: ``"outside_mentions"`` (no replaced token may lie in a gold mention) or
    ``"inside_mentions"`` (every replaced token lies in one). Reasons: the module's constants. A gold
    mention outside the source is a :class:`ValueError`."""
    if scope not in EDIT_SCOPES:
        raise ValueError(f"scope must be one of {EDIT_SCOPES}, got {scope!r}")
    n = len(source)
    reasons: list[str] = []
    if any(not 0 <= t < n for t in replaced) or any(k < 0 for k in replaced.values()):
        return [EDIT_OUT_OF_RANGE]
    bounds = replacement_boundaries(n, replaced)
    if bounds[n] != len(followup):
        return [UNRECORDED_EDIT]
    if any(followup[bounds[i]] != source[i] for i in range(n) if i not in replaced):
        reasons.append(UNRECORDED_EDIT)
    for t, words in (new_words or {}).items():
        if t in replaced and list(followup[bounds[t]:bounds[t + 1]]) != list(words):
            reasons.append(UNRECORDED_EDIT)
    mentions = [(int(m[0]), int(m[1])) for c in clusters for m in c]
    bad = [m for m in mentions if not 0 <= m[0] < m[1] <= n]
    if bad:
        raise ValueError(f"gold mention {bad[0]} outside the source's {n} tokens")
    inside = {t for t in replaced if any(s <= t < e for s, e in mentions)}
    if scope == "outside_mentions" and inside:
        reasons.append(EDIT_INSIDE_MENTION)
    if scope == "inside_mentions" and len(inside) < len(replaced):
        reasons.append(EDIT_OUTSIDE_MENTIONS)
    moved = [[(bounds[s], bounds[e]) for s, e in ((int(m[0]), int(m[1])) for m in c)] for c in clusters]
    flat = [m for c in moved for m in c]
    if any(s >= e for s, e in flat):
        reasons.append(MENTION_LOST)
    if len(set(flat)) < len(set(mentions)):
        reasons.append(MENTIONS_MERGED)
    if followup_clusters is not None and cluster_sets(followup_clusters) != cluster_sets(moved):
        reasons.append(FOLLOWUP_GOLD_MISMATCH)
    return list(dict.fromkeys(reasons))


# ---- named entities: tokens moved by a token map -------------------------------------------------------
def map_entity(entity: Span, to_followup: Sequence[int | None]) -> Span | None:
    """The follow-up span of a source span whose tokens all survive contiguous and in order, else ``None``."""
    idx = [to_followup[i] for i in range(entity[0], entity[1])]
    if any(j is None for j in idx):
        return None
    js = [j for j in idx if j is not None]
    if any(b != a + 1 for a, b in zip(js, js[1:], strict=False)):
        return None
    return (js[0], js[-1] + 1)


def _new_capitalised(followup: Sequence[str], new_positions: Iterable[int]) -> bool:
    for j in new_positions:
        w = followup[j]
        if j == 0 or not w[:1].isupper() or w == "I" or followup[j - 1] in SENTENCE_OPENERS:
            continue
        if len(w) > 1 and w.isupper() and not w.isalpha():
            continue  # a symbol or number written in capitals (e.g. "US$")
        return True
    return False


def entity_edit_reasons(source: Sequence[str], followup: Sequence[str], entities: Sequence[LabelledSpan],
                        to_followup: Sequence[int | None], *, changed: Span | None = None,
                        changed_followup: Span | None = None,
                        followup_entities: Sequence[LabelledSpan] | None = None,
                        flag_new_names: bool = True) -> list[str]:
    """Why a follow-up does not keep the source's gold entities (``[]``: it does).

    ``entities``: gold ``(start, end, label)`` of the source; ``to_followup``: the follow-up index of
    each source token (``None``: replaced or dropped); ``changed``/``changed_followup``: the source span
    the edit replaced and its replacement in the follow-up, if any (a map may keep a one-for-one
    replacement in place); ``followup_entities``: the gold recorded on the follow-up (``None``: not recorded);
    ``flag_new_names``: whether a new capitalised word inside the sentence (one no source token maps
    to, the edit wrote, or that differs from its source word; not after a sentence or quotation opener)
    counts as a name gold does not have."""
    if len(to_followup) != len(source):
        return [UNRECORDED_EDIT]
    if any(j is not None and not 0 <= j < len(followup) for j in to_followup):
        return [UNRECORDED_EDIT]
    reasons: list[str] = []
    moved: list[tuple[LabelledSpan, LabelledSpan]] = []  # (source entity, its follow-up span)
    for s, e, label in entities:
        if changed is not None and s < changed[1] and changed[0] < e:
            reasons.append(ENTITY_EDITED)
            continue
        if any(to_followup[i] is None for i in range(s, e)):
            reasons.append(ENTITY_EDITED)
            continue
        span = map_entity((s, e), to_followup)
        if span is None:
            reasons.append(ENTITY_SPLIT)
            continue
        if list(followup[span[0]:span[1]]) != list(source[s:e]):
            reasons.append(ENTITY_TEXT_CHANGED)
        moved.append(((s, e, label), (span[0], span[1], label)))
    for src_a, a in moved:
        for src_b, b in moved:
            if a[1] == b[0] and a[2] == b[2] and src_a[1] != src_b[0]:
                reasons.append(ENTITIES_MERGED)
    if flag_new_names:
        kept = {j for j in to_followup if j is not None}
        written = set(range(*changed_followup)) if changed_followup is not None else set()
        written |= {j for i, j in enumerate(to_followup) if j is not None and followup[j] != source[i]}
        if _new_capitalised(followup, sorted(j for j in range(len(followup)) if j not in kept or j in written)):
            reasons.append(NEW_CAPITALISED_WORD)
    if followup_entities is not None and len(moved) == len(entities) and \
            sorted((int(s), int(e), str(lab)) for s, e, lab in followup_entities) != sorted(m for _, m in moved):
        reasons.append(FOLLOWUP_GOLD_MISMATCH)
    return list(dict.fromkeys(reasons))
