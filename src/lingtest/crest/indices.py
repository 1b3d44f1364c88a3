"""CR-related indices (Eq. 2 of the paper): tokens CREST must not replace.

``N`` = every token of every gold mention, plus every token linked to a mention token by a
dependency edge whose relation is in ``relations`` (default ``nsubj`` and ``amod``, in either
direction: a mention's adjectival modifier, the predicate a mention is the subject of, the subject
of a mention that is a predicate head).

spaCy's English models (ClearNLP labels) make the copula the head of a copular clause (*it* is the
``nsubj`` of *was*, *tasty* an ``acomp`` of *was*), whereas UD, as in the paper's Figure 1, makes the
adjective the head (*tasty* -> nsubj -> *it*). So that the paper's example still protects *tasty*,
``copula_complements`` (``acomp``, ``attr``, ``oprd``) of a head that a mention token is the subject
of are protected too. Subtypes match their base relation (``nsubjpass``, ``nsubj:pass`` count as
``nsubj``) when ``match_subtypes`` is on.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from lingtest.data.model import Cluster, Sentence


def _rel_matches(dep: str | None, relations: Sequence[str], match_subtypes: bool) -> bool:
    if not dep:
        return False
    dep = dep.lower()
    for r in relations:
        if dep == r or (match_subtypes and (dep.startswith(r + ":") or (dep.startswith(r) and dep[len(r):]
                                                                        in ("pass", "xsubj")))):
            return True
    return False


def mention_indices(clusters: Iterable[Cluster], offset: int = 0) -> set[int]:
    """Sentence-relative indices of all gold mention tokens (``offset`` = sentence start)."""
    return {i - offset for c in clusters for m in c.mentions for i in range(m.start, m.end)}


def cr_related_indices(sentence: Sentence, clusters: Iterable[Cluster], offset: int = 0,
                       relations: Sequence[str] = ("nsubj", "amod"),
                       copula_complements: Sequence[str] = ("acomp", "attr", "oprd"),
                       match_subtypes: bool = True) -> set[int]:
    """The set ``N`` of Eq. 2 for one parsed sentence (heads must be filled)."""
    toks = sentence.tokens
    mentions = {i for i in mention_indices(clusters, offset) if 0 <= i < len(toks)}
    related = set(mentions)
    subject_heads: set[int] = set()
    for j, t in enumerate(toks):
        h = t.head
        if h is None or h < 0 or not _rel_matches(t.dep, relations, match_subtypes):
            continue
        if j in mentions or h in mentions:  # an edge touching a mention token
            related.add(j)
            related.add(h)
            if j in mentions and _rel_matches(t.dep, ("nsubj",), match_subtypes):
                subject_heads.add(h)
    if copula_complements:
        comps = {c.lower() for c in copula_complements}
        for j, t in enumerate(toks):
            if t.head in subject_heads and t.dep and t.dep.lower() in comps:
                related.add(j)
    return related
