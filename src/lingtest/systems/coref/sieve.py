"""Deterministic multi-pass sieve coreference resolver (Raghunathan et al. 2010; Lee et al. 2013),
over a spaCy (or any UD/ClearNLP-labelled) dependency parse.

Pipeline per document: :func:`~lingtest.systems.coref.mentions.detect_mentions` finds mentions;
every mention starts in its own cluster; the sieves in :data:`~lingtest.systems.coref.sieves.SIEVES`
run one after another (most precise first). In each pass every mention that is the first of its
cluster looks through its candidate antecedents in salience order (:func:`candidate_order`) and the
first one the sieve accepts merges the two clusters; cluster-level attributes make later decisions
entity-aware. Post-processing drops the constructs OntoNotes does not annotate (appositives,
predicate nominals, relative pronouns) and singletons.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from lingtest.data.model import Cluster, Document
from lingtest.errors import InputError
from lingtest.systems.coref import features as F
from lingtest.systems.coref.base import CorefSystem, ensure_parsed, iterate, normalise_clusters
from lingtest.systems.coref.mentions import PRONOMINAL, MentionCand, ParsedDoc, detect_mentions
from lingtest.systems.coref.sieves import (
    ANAPHOR_FILTER,
    ANTECEDENT_CLASS,
    CONSTRUCT_SIEVES,
    SIEVES,
    ClusterState,
    antecedent_class_of,
)


def candidate_order(m: MentionCand, mentions: Sequence[MentionCand], *, max_sentence_distance: int | None = None,
                    by_sentence: dict[int, list[MentionCand]] | None = None) -> list[MentionCand]:
    """Candidate antecedents of ``m`` in salience order.

    Same sentence: mentions that precede ``m`` in text, ordered by a left-to-right breadth-first
    traversal of the parse (syntactic prominence). Previous sentences: nearest sentence first;
    inside each, subjects first, then for pronouns right-to-left (recency), for nominals
    breadth-first. Mentions nested in ``m`` or containing it are excluded (i-within-i), except the
    NP a relative pronoun is part of.
    """
    if by_sentence is None:
        by_sentence = {}
        for c in mentions:
            by_sentence.setdefault(c.sent, []).append(c)
    out: list[MentionCand] = []
    same = [c for c in by_sentence.get(m.sent, []) if c.idx < m.idx and c.start <= m.start and c is not m]
    same = [c for c in same if m.relative or not (c.contains(m) or m.contains(c))]
    same.sort(key=lambda c: (c.bfs_rank, c.start))
    out.extend(same)
    s = m.sent - 1
    pronoun = m.kind == PRONOMINAL
    while s >= 0 and (max_sentence_distance is None or m.sent - s <= max_sentence_distance):
        prev = list(by_sentence.get(s, []))
        if pronoun:
            prev.sort(key=lambda c: (not c.is_subject, -c.start, c.end))
        else:
            prev.sort(key=lambda c: (c.bfs_rank, c.start))
        out.extend(prev)
        s -= 1
    return out


def resolve_mentions(pd: ParsedDoc, mentions: list[MentionCand], sieves: Sequence[str], *,
                     max_pronoun_distance: int, max_sentence_distance: int | None,
                     ) -> tuple[ClusterState, set[int]]:
    """Run the sieves; returns the final cluster state and the indices of construct anaphors
    (appositives, predicate nominals, relative pronouns) linked by a precise-construct sieve."""
    state = ClusterState(mentions)
    constructs: set[int] = set()
    by_sentence: dict[int, list[MentionCand]] = {}
    for c in mentions:
        by_sentence.setdefault(c.sent, []).append(c)
    classes = [antecedent_class_of(c) for c in mentions]
    orders: dict[tuple[int, int | None, str], list[MentionCand]] = {}
    for name in sieves:
        try:
            sieve = SIEVES[name]
        except KeyError:
            raise InputError(f"unknown sieve {name!r}; known: {', '.join(SIEVES)}", field="sieves") from None
        accepts = ANAPHOR_FILTER.get(name, lambda m: True)
        wanted = ANTECEDENT_CLASS.get(name, "any")
        is_pronoun_sieve = name == "pronoun_match"
        for m in mentions:
            if not accepts(m) or not state.is_first(m):
                continue
            limit = max_pronoun_distance if is_pronoun_sieve else max_sentence_distance
            key = (m.idx, limit, wanted)
            if key not in orders:
                full = (m.idx, limit, "any")
                if full not in orders:
                    orders[full] = candidate_order(m, mentions, max_sentence_distance=limit, by_sentence=by_sentence)
                orders[key] = [c for c in orders[full] if wanted in classes[c.idx]]
            cm = state.cluster_of[m.idx]
            for a in orders[key]:
                if state.cluster_of[a.idx] == cm:
                    continue
                if sieve(m, a, state, pd):
                    if name in CONSTRUCT_SIEVES:
                        constructs.add(m.idx)
                    state.merge(m, a)
                    break
    return state, constructs


class SieveResolver(CorefSystem):
    """Stanford-dcoref-style deterministic resolver.

    Options (all in ``conf/systems/default.yaml``): ``sieves`` (pass names in order),
    ``keep_singletons``, ``remove_constructs`` (drop appositive / predicate-nominal / relative-pronoun
    mentions linked only by the precise-construct sieves, as OntoNotes does not mark them),
    ``max_pronoun_distance`` (sentences back a third-person pronoun looks), ``max_sentence_distance``
    (for nominal mentions, ``None`` = whole document), ``use_wordnet`` (WordNet animacy of common
    nouns), ``parser``/``parser_options`` (used only for unparsed input); all required. Not options
    of the configuration: ``animacy_lexicon`` (a lexicon to use instead of WordNet's, for tests) and
    ``progress`` (a progress bar over documents; not part of the cache key).
    """

    name = "sieve"

    def __init__(self, *, sieves: Sequence[str], keep_singletons: bool, remove_constructs: bool,
                 max_pronoun_distance: int, max_sentence_distance: int | None, use_wordnet: bool, parser: str,
                 parser_options: dict[str, Any] | None, animacy_lexicon: F.AnimacyLexicon | None = None,
                 progress: bool = False) -> None:
        self.sieves = tuple(sieves)
        unknown = [s for s in self.sieves if s not in SIEVES]
        if unknown:
            raise InputError(f"unknown sieve(s) {unknown}; known: {', '.join(SIEVES)}", field="sieves")
        self.keep_singletons = bool(keep_singletons)
        self.remove_constructs = bool(remove_constructs)
        self.max_pronoun_distance = int(max_pronoun_distance)
        self.max_sentence_distance = None if max_sentence_distance is None else int(max_sentence_distance)
        self.use_wordnet = bool(use_wordnet)
        self.parser = parser
        self.parser_options = dict(parser_options or {})
        if animacy_lexicon is None and use_wordnet:
            animacy_lexicon = F.AnimacyLexicon()
        self.animacy_lexicon = animacy_lexicon
        self.progress = bool(progress)
        self._parsers: dict = {}
        self.last_timing: dict[str, float] = {}

    def config(self) -> dict[str, Any]:
        return {"sieves": list(self.sieves), "keep_singletons": self.keep_singletons,
                "remove_constructs": self.remove_constructs, "max_pronoun_distance": self.max_pronoun_distance,
                "max_sentence_distance": self.max_sentence_distance, "use_wordnet": self.use_wordnet,
                "parser": self.parser, "parser_options": self.parser_options}

    def predict(self, docs: list[Document]) -> list[list[Cluster]]:
        t0 = time.perf_counter()
        parsed = ensure_parsed(docs, self.parser, self.parser_options, _cache=self._parsers)
        t1 = time.perf_counter()
        out = [self.resolve(d) for d in iterate(parsed, self.progress, "sieve coreference")]
        self.last_timing = {"parse_s": t1 - t0, "resolve_s": time.perf_counter() - t1}
        return out

    def resolve(self, doc: Document) -> list[Cluster]:
        """Clusters of one parsed document."""
        pd = ParsedDoc.from_document(doc)
        mentions = detect_mentions(pd, self.animacy_lexicon)
        state, constructs = resolve_mentions(pd, mentions, self.sieves,
                                             max_pronoun_distance=self.max_pronoun_distance,
                                             max_sentence_distance=self.max_sentence_distance)
        clusters = []
        for members in state.result():
            spans = []
            for m in members:
                if m.relative:
                    continue  # relative pronouns are never output mentions (OntoNotes scheme)
                if self.remove_constructs and m.idx in constructs:
                    continue
                spans.append(m.span)
            clusters.append(spans)
        return normalise_clusters(clusters, keep_singletons=self.keep_singletons, n_tokens=len(pd.words))
