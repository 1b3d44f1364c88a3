"""A word-substitution adversarial baseline in the spirit of BERT-Attack and CLARE (the paper's
Table 4 baselines, run there through SeqAttack), black-box and graded like TIN's issues.

For each source sentence: the words outside the predicted entities (and outside ``protected``
positions, e.g. gold entity tokens, so gold maps onto the adversarial sentence unchanged) that
are alphabetic are ranked by importance - how many entities of N(s) change when the word is
deleted (ties: left to right). Greedily, most important first, the word is replaced by each of the
fill-in proposer's ``top_k`` fills with score ``>= min_score``; the first fill (in rank order) that
changes the prediction ends the attack with success (the issue is ``(s, s')`` with
N(s) != N(s')). Otherwise the best fill is kept and the next word is attacked, until ``max_changes``
words have been replaced or no word is left. All sentences advance in lockstep, so each step is
one batched ``system.predict`` call.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from lingtest.data.model import Entity
from lingtest.errors import ConfigError
from lingtest.resources.candidates.inflect import match_case
from lingtest.resources.fill import FillProposer
from lingtest.tin.mutant import Mutant, TinSource
from lingtest.tin.spans import TokenMap, inside_any

NAME = "attack"
RELATION = "invariance"
WORD_RE = re.compile(r"^[A-Za-z][A-Za-z'-]*$")


@dataclass(frozen=True, slots=True)
class AttackConfig:
    top_k: int
    min_score: float
    max_changes: int

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> AttackConfig:
        try:
            return cls(int(d["top_k"]), float(d["min_score"]), int(d["max_changes"]))
        except KeyError as exc:
            raise ConfigError(f"attack config lacks {exc}") from None


@dataclass(slots=True)
class AttackResult:
    seed_id: str
    success: bool
    mutant: Mutant | None
    changes: list[tuple[int, str, str]] = field(default_factory=list)
    queries: int = 0


def _after_deletion(entities: Sequence[Entity], i: int) -> list[Entity]:
    """Entities of the sentence without token ``i``, moved back onto the full sentence."""
    return [Entity(e.start + (e.start >= i), e.end + (e.end > i), e.label) for e in entities]


def attackable(source: TinSource, protected: set[int]) -> list[int]:
    return [i for i, w in enumerate(source.tokens)
            if i not in protected and not inside_any(i, source.entities) and WORD_RE.match(w)]


def importance_order(sources: Sequence[TinSource], positions: Sequence[Sequence[int]],
                     system: Any) -> list[list[int]]:
    """Each source's positions, most important first (one ``predict`` call for all deletions)."""
    jobs = [(si, i) for si, pos in enumerate(positions) for i in pos if len(sources[si].tokens) > 1]
    deleted = [sources[si].tokens[:i] + sources[si].tokens[i + 1:] for si, i in jobs]
    preds = system.predict(deleted) if jobs else []
    effect: dict[tuple[int, int], int] = {}
    for (si, i), p in zip(jobs, preds, strict=True):
        effect[(si, i)] = len(set(sources[si].entities) ^ set(_after_deletion(p, i)))
    return [sorted(pos, key=lambda i: (-effect.get((si, i), 0), i))  # sorted() runs now: no late binding
            for si, pos in enumerate(positions)]


def attack(sources: Sequence[TinSource], *, system: Any, proposer: FillProposer, config: AttackConfig,
           protected: Mapping[str, set[int]] | None = None) -> list[AttackResult]:
    """One result per source, in order."""
    protected = protected or {}
    positions = [attackable(s, set(protected.get(s.id, set()))) for s in sources]
    order = importance_order(sources, positions, system)
    current = [list(s.tokens) for s in sources]
    results = [AttackResult(s.id, False, None, queries=len(positions[si]) if len(s.tokens) > 1 else 0)
               for si, s in enumerate(sources)]
    cursor = [0] * len(sources)
    active = [si for si in range(len(sources)) if order[si] and config.max_changes > 0]
    while active:
        requests, owners = [], []
        for si in active:
            pos = order[si][cursor[si]]
            requests.append((list(current[si]), pos))
            owners.append(si)
        fills = proposer.propose_many(requests, config.top_k)
        trials: list[tuple[int, int, str, list[str]]] = []  # (source, position, word, tokens)
        for si, (toks, pos), fl in zip(owners, requests, fills, strict=True):
            seen = {toks[pos].lower()}
            for f in fl[: config.top_k]:
                w = f.word.strip()
                if f.score < config.min_score or not WORD_RE.match(w) or w.lower() in seen:
                    continue
                seen.add(w.lower())
                new = list(toks)
                new[pos] = match_case(w, toks[pos])
                trials.append((si, pos, new[pos], new))
        preds = system.predict([t for *_, t in trials]) if trials else []
        by_source: dict[int, list[tuple[int, str, list[str], list[Entity]]]] = {}
        for (si, pos, w, toks), p in zip(trials, preds, strict=True):
            by_source.setdefault(si, []).append((pos, w, toks, p))
        still = []
        for si in active:
            s, res = sources[si], results[si]
            tried = by_source.get(si, [])
            res.queries += len(tried)
            pos = order[si][cursor[si]]
            hit = next((t for t in tried if set(t[3]) != set(s.entities)), None)
            if hit is not None:
                res.changes.append((pos, s.tokens[pos], hit[1]))
                res.success = True
                res.mutant = Mutant(
                    seed_id=s.id, transformation=NAME, relation=RELATION, source=list(s.tokens),
                    tokens=hit[2], alignment=TokenMap.identity(len(s.tokens)),
                    params={"changes": [list(c) for c in res.changes], "queries": res.queries})
                continue
            if tried:
                res.changes.append((pos, s.tokens[pos], tried[0][1]))
                current[si] = tried[0][2]
            cursor[si] += 1
            if cursor[si] < len(order[si]) and len(res.changes) < config.max_changes:
                still.append(si)
        active = still
    return results
