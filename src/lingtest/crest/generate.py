"""Follow-up generation: Algorithm 1 (candidates for every non-CR-related token) and Algorithm 3
(replace, re-parse, keep only if the replaced token keeps its constituent label).

Constituent check: the replaced token's *signature* is its preterminal label (Penn POS) and the
label of its parent phrase. For a multi-word replacement the head word stands for the span (the
first word of a verb, the last word otherwise, as in :mod:`~lingtest.resources.candidates.inflect`).

``M`` bounds the follow-ups per **source** (Algorithm 1's input), not per position. Candidates are
tried position by position, left to right as in Algorithm 1 (``order="position"``), or one per
position in turn (``order="round_robin"``), each position's candidates in LM-probability order
when a ranker is used. Candidates are ranked and parsed in batches: all of a source's at once
(``parse_chunk=0``), or groups of consecutive positions holding >= ``parse_chunk`` candidates,
stopping as soon as M follow-ups exist (most candidates of a source are never needed: a source
has ~90 on OntoGUM, and ~80 % pass the constituent check). Parsing goes through a
:class:`MemoParser`, so no sentence is parsed twice.

Two language-model checks keep the follow-ups sentences a person would write: the ranker's fit bound
(``crest.ranker.min_fit``: a candidate much less probable than the word it replaces, in its left context and
a few words after, is dropped before parsing; :class:`~lingtest.resources.candidates.rank.LMRanker`), and,
after the constituent check, the naturalness bound (``crest.naturalness``: the follow-up's SynEval may fall
at most ``epsilon`` below its source's; :class:`~lingtest.resources.naturalness.NaturalnessBound`). The
follow-ups of a group of positions that pass the constituent check are judged in one request, then taken
in order until M exist.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from lingtest.crest.indices import cr_related_indices
from lingtest.crest.select import depths_preserved
from lingtest.data.align import Alignment, Span, detokenize, replace_words
from lingtest.data.model import Cluster, Document, Mention, Sentence, Tree
from lingtest.resources.candidates.base import Candidate, Proposer, merge_candidates


class MemoParser:
    """Memoises a parser's ``parse(list[list[str]]) -> list[Sentence]`` by the token tuple.

    ``calls`` counts sentences actually sent to the wrapped parser; ``hits`` those served from the
    memo. Parses are shared objects: callers must not mutate them (copy before editing).
    """

    def __init__(self, parser: Any) -> None:
        self.parser = parser
        self.memo: dict[tuple[str, ...], Sentence] = {}
        self.calls = 0
        self.hits = 0
        self.seconds = 0.0

    def close(self) -> None:
        close = getattr(self.parser, "close", None)
        if callable(close):
            close()

    def parse(self, sentences: Sequence[Sequence[str]]) -> list[Sentence]:
        keys = [tuple(s) for s in sentences]
        todo: list[tuple[str, ...]] = []
        pending: set[tuple[str, ...]] = set()
        for k in keys:
            if k not in self.memo and k not in pending:
                todo.append(k)
                pending.add(k)
        self.hits += len(keys) - len(todo)
        if todo:
            t0 = time.perf_counter()
            parsed = self.parser.parse([list(k) for k in todo])
            self.seconds += time.perf_counter() - t0
            if len(parsed) != len(todo):
                raise ValueError(f"parser returned {len(parsed)} sentences for {len(todo)}")
            self.calls += len(todo)
            for k, s in zip(todo, parsed, strict=True):
                self.memo[k] = s
        return [self.memo[k] for k in keys]


def constituent_signature(tree: Tree, span: Span, verb_head: bool = False) -> tuple[str, str]:
    """(preterminal label, parent label) of the head token of ``span`` in ``tree``."""
    start, end = span
    head = start if (verb_head or end - start == 1) else end - 1
    path = tree.path_to_token(head)
    if not path:
        raise KeyError(head)
    parent = path[-2].label if len(path) >= 2 else ""
    return path[-1].label, parent


def article_agrees(article: str, word: str) -> bool:
    """Spelling heuristic for a/an: *an* before a vowel letter, *a* otherwise (a few common
    exceptions such as *hour*, *university*, *one* are handled)."""
    w = word.lower()
    vowel_sound = w[:1] in "aeiou"
    if w.startswith(("hour", "honest", "honor", "honour", "heir")):
        vowel_sound = True
    elif w.startswith(("uni", "use", "usu", "uti", "eu", "one", "once", "ewe")):
        vowel_sound = False
    return (article == "an") == vowel_sound


@dataclass(slots=True)
class Source:
    """One source input: a parsed one-sentence document and its sentence-relative gold spans."""

    doc: Document
    gold: list[list[Span]]

    @property
    def id(self) -> str:
        return self.doc.id

    @property
    def sentence(self) -> Sentence:
        return self.doc.sentences[0]

    @classmethod
    def from_document(cls, doc: Document) -> Source:
        if len(doc.sentences) != 1:
            raise ValueError(f"source {doc.id} must have exactly one sentence, has {len(doc.sentences)}")
        return cls(doc, [[(m.start, m.end) for m in c.mentions] for c in doc.clusters])


@dataclass(slots=True)
class FollowUp:
    source_id: str
    order: int  # rank among the follow-ups of its source (the M cap keeps order < M)
    position: int  # replaced source token
    old: str
    new: str
    candidate_source: str
    prob: float | None
    sentence: Sentence  # parsed follow-up
    alignment: Alignment
    selected: bool = False  # Algorithm 2 verdict
    fit: float | None = None  # the ranker's fit of the replacement against the original (None: not checked)
    naturalness: tuple[float, float] | None = None  # SynEval of source and follow-up (None: not checked)

    @property
    def words(self) -> list[str]:
        return self.sentence.words

    def gold(self, source_gold: Sequence[Sequence[Span]]) -> list[list[Span]]:
        return self.alignment.clusters_to_followup(source_gold)


#: the counters of :class:`GenerationStats`, by candidate source, in the order candidates meet them
COUNTED = ("proposed", "ranked", "constituent_ok", "natural_removed", "selected")


@dataclass(slots=True)
class GenerationStats:
    sources: int = 0
    positions: int = 0  # replaceable (non-CR-related) content positions with >= 1 candidate
    proposed: Counter = field(default_factory=Counter)  # by candidate source
    ranked: Counter = field(default_factory=Counter)  # survived the LM filter
    parsed: int = 0  # candidate sentences parsed
    constituent_ok: Counter = field(default_factory=Counter)  # kept by Algorithm 3 (within M)
    natural_removed: Counter = field(default_factory=Counter)  # of those, refused by the naturalness bound
    selected: Counter = field(default_factory=Counter)  # kept by Algorithm 2 (within M)
    seconds: float = 0.0

    def merge(self, other: GenerationStats) -> None:
        self.sources += other.sources
        self.positions += other.positions
        self.parsed += other.parsed
        self.seconds += other.seconds
        for a in COUNTED:
            getattr(self, a).update(getattr(other, a))

    def to_dict(self) -> dict[str, Any]:
        return {"sources": self.sources, "positions": self.positions, "parsed": self.parsed,
                "seconds": round(self.seconds, 3),
                **{a: dict(sorted(getattr(self, a).items())) for a in COUNTED}}


@dataclass
class Generator:
    """Algorithms 1-3 for one configuration. ``parser`` should be a :class:`MemoParser`."""

    parser: Any
    proposers: Sequence[Proposer]
    ranker: Any = None
    naturalness: Any = None  # a NaturalnessBound (None: no naturalness check)
    M: int = 20  # follow-ups per source (config crest.M)
    order: str = "position"
    parse_chunk: int = 0
    relations: Sequence[str] = ("nsubj", "amod")
    copula_complements: Sequence[str] = ("acomp", "attr", "oprd")

    def candidates(self, source: Source) -> dict[int, list[Candidate]]:
        """Algorithm 1 lines 4-12: merged candidates of every non-CR-related position (candidates
        that would break a/an agreement with the previous word are dropped: the article is
        another token, which a one-token replacement must not have to change)."""
        sent = source.sentence
        crind = cr_related_indices(sent, source.doc.clusters, relations=self.relations,
                                   copula_complements=self.copula_complements)
        positions = [i for i in range(len(sent)) if i not in crind]
        proposals = [p.propose(sent, positions) for p in self.proposers]
        merged: dict[int, list[Candidate]] = {}
        for i in positions:
            lst = merge_candidates(sent.tokens[i].text, (pr.get(i, []) for pr in proposals))
            prev = sent.tokens[i - 1].text.lower() if i > 0 else ""
            if prev in ("a", "an"):
                lst = [c for c in lst if article_agrees(prev, c.text)]
            if lst:
                merged[i] = lst
        return merged

    def _ordered(self, cands: dict[int, list[Candidate]]) -> list[tuple[int, Candidate]]:
        if self.order == "position":
            return [(i, c) for i in sorted(cands) for c in cands[i]]
        if self.order == "round_robin":
            out: list[tuple[int, Candidate]] = []
            depth = 0
            while True:
                layer = [(i, cands[i][depth]) for i in sorted(cands) if depth < len(cands[i])]
                if not layer:
                    return out
                out.extend(layer)
                depth += 1
        raise ValueError(f"unknown candidate order {self.order!r} (position, round_robin)")

    def _groups(self, cands: dict[int, list[Candidate]]) -> list[dict[int, list[Candidate]]]:
        """Positions in order, grouped so that each group holds >= ``parse_chunk`` candidates (one
        group with everything when ``parse_chunk`` is 0 or the order is round robin)."""
        if self.parse_chunk <= 0 or self.order != "position":
            return [cands] if cands else []
        groups: list[dict[int, list[Candidate]]] = []
        cur: dict[int, list[Candidate]] = {}
        n = 0
        for i in sorted(cands):
            cur[i] = cands[i]
            n += len(cands[i])
            if n >= self.parse_chunk:
                groups.append(cur)
                cur, n = {}, 0
        if cur:
            groups.append(cur)
        return groups

    def generate(self, source: Source, select: bool = True) -> tuple[list[FollowUp], GenerationStats]:
        """Follow-ups of one parsed source: Algorithm 3 until ``M`` pass the constituent
        check; each gets its Algorithm 2 verdict in ``selected`` (all are returned so the
        selection ablation needs no second run). Same as :meth:`generate_many` for one source."""
        (fus,), stats = self.generate_many([source], select=select)
        return fus, stats

    def generate_many(self, sources: Sequence[Source],
                      select: bool = True) -> tuple[list[list[FollowUp]], GenerationStats]:
        """:meth:`generate` for several sources, in lockstep so that the work is batched across
        them: every round, the next group of positions of each unfinished source is ranked in
        **one** LM call and the resulting candidates of all of them are parsed in **one** parser
        call. Each source follows exactly the steps it would follow alone (a source stops as soon as
        it has M follow-ups); only the batch composition changes, which can move low-precision LM
        scores by rounding. Returns the follow-ups per source (input order) and merged stats
        (``seconds``: wall time of the whole call)."""
        t0 = time.perf_counter()
        steps = [self._steps(s, select) for s in sources]
        results: list[tuple[list[FollowUp], GenerationStats] | None] = [None] * len(sources)
        pending: dict[int, tuple[str, Any]] = {}

        def advance(i: int, value: Any) -> None:
            try:
                pending[i] = steps[i].send(value)
            except StopIteration as stop:
                pending.pop(i, None)
                results[i] = stop.value

        def serve(kind: str, run: Any) -> None:
            """Answer every pending request of ``kind`` (each a list) with one ``run`` over their items."""
            asking = sorted(i for i, (k, _) in pending.items() if k == kind)
            if not asking:
                return
            answers = run([x for i in asking for x in pending[i][1]])
            at = 0
            for i in asking:
                n = len(pending[i][1])
                advance(i, answers[at:at + n])
                at += n

        for i in range(len(steps)):
            advance(i, None)
        while pending:
            ranking = sorted(i for i, (kind, _) in pending.items() if kind == "rank")
            if ranking:
                ranked = self.ranker.rank_many([(sources[i].sentence, pending[i][1]) for i in ranking])
                for i, r in zip(ranking, ranked, strict=True):
                    advance(i, r)
            serve("judge", lambda pairs: self.naturalness.judge(pairs))
            serve("parse", lambda sentences: self.parser.parse(sentences))
        stats = GenerationStats()
        for r in results:
            assert r is not None
            stats.merge(r[1])
        stats.seconds = time.perf_counter() - t0
        return [r[0] for r in results if r is not None], stats

    def _steps(self, source: Source, select: bool):
        """Algorithms 1-3 for one source as a coroutine: it yields ``("rank", candidates)``,
        ``("parse", sentences)`` and (with a naturalness bound) ``("judge", text pairs)`` requests, is sent
        their results, and returns ``(follow-ups, stats)``.

        Work is done group by group (see :meth:`_groups`): the group's candidates are ranked in one
        LM request and parsed in one parser request, and no further group is touched once M
        follow-ups exist. With ``parse_chunk=0`` every candidate of the source is ranked and parsed
        at once."""
        stats = GenerationStats(sources=1)
        sent = source.sentence
        if sent.tree is None:
            raise ValueError(f"source {source.id} is not parsed (no constituency tree)")
        raw = self.candidates(source)
        for lst in raw.values():
            stats.proposed.update(c.source for c in lst)
        words, ws = sent.words, [t.ws for t in sent.tokens]
        out: list[FollowUp] = []
        for group in self._groups(raw):
            if len(out) >= self.M:
                break
            cands = (yield ("rank", group)) if self.ranker is not None else group
            for lst in cands.values():
                stats.ranked.update(c.source for c in lst)
            stats.positions += len(cands)
            plan = self._ordered(cands)
            built = [replace_words(words, ws, i, c.words) for i, c in plan]
            parsed = (yield ("parse", [b[0] for b in built])) if plan else []
            if len(parsed) != len(plan):
                raise ValueError(f"parser returned {len(parsed)} sentences for {len(plan)}")
            stats.parsed += len(parsed)
            passing: list[tuple[int, Candidate, list[str], list[str], Sentence, Alignment]] = []
            for (i, cand), (nw, nws), fs in zip(plan, built, parsed, strict=True):
                # NOTE: Algorithm 3 line 3 of the paper reads "if len(newXs) <= M then return", which
                # would return before the first replacement; the intent (Section 3.1) is to stop once
                # M follow-ups exist, which is the test implemented here.
                tree = fs.tree
                if tree is None:
                    continue
                al = Alignment(len(words), i, len(cand.words))
                verb = (sent.tokens[i].tag or "").startswith("VB")
                try:
                    ok = (constituent_signature(sent.tree, (i, i + 1))
                          == constituent_signature(tree, (i, i + al.n_new), verb_head=verb))
                except KeyError:
                    ok = False
                if ok:
                    passing.append((i, cand, nw, nws, fs, al))
            verdicts: list[tuple[float, float, bool]] | None = None
            if self.naturalness is not None and passing and len(out) < self.M:
                source_text = detokenize(words, ws)
                verdicts = yield ("judge", [(source_text, detokenize(nw, nws)) for _, _, nw, nws, _, _ in passing])
            for k, (i, cand, _nw, nws, fs, al) in enumerate(passing):
                if len(out) >= self.M:
                    break
                stats.constituent_ok[cand.source] += 1
                if verdicts is not None and not verdicts[k][2]:
                    stats.natural_removed[cand.source] += 1
                    continue
                tree = fs.tree
                assert tree is not None
                fs = Sentence([t.__class__.from_dict(t.to_dict()) for t in fs.tokens], tree=tree,
                              id=f"{source.id}#{len(out)}")
                for t, w in zip(fs.tokens, nws, strict=True):
                    t.ws = w
                fu = FollowUp(source.id, len(out), i, words[i], cand.text, cand.source, cand.prob, fs, al,
                              fit=cand.fit, naturalness=None if verdicts is None else verdicts[k][:2])
                fu.selected = depths_preserved(sent.tree, tree, source.gold, al) if select else True
                if fu.selected:
                    stats.selected[cand.source] += 1
                out.append(fu)
        return out, stats


def followup_document(source: Source, fu: FollowUp) -> Document:
    """The follow-up as a one-sentence Document carrying the gold mapped onto it."""
    clusters = [Cluster([Mention(s, e) for s, e in c]) for c in fu.gold(source.gold)]
    return Document(id=fu.sentence.id or f"{source.id}#{fu.order}", sentences=[fu.sentence],
                    clusters=clusters, meta={"source": source.id})
