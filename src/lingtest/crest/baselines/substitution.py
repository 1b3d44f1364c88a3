"""The word-substitution machinery SIT, PatInv and CAT share: fill-in substitutes for chosen positions of
every source (one batched request), each substitute's follow-up parsed (one batched request), and the
follow-ups that pass a baseline's checks ranked and capped at M per source.

The baselines' masked LM (BERT) is not available offline; the project's fill-in proposer
(:data:`lingtest.resources.fill.FILL_PROPOSERS`, ``crest_baselines.fill``: offline WordNet and word-vector
candidates ranked by the causal LM) is its substitute, with its scores in its own unit. It proposes for
content words (NOUN, VERB, ADJ, ADV) only.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lingtest.crest.baselines.base import Generated
from lingtest.crest.baselines.edits import Edit, Perturbation
from lingtest.crest.generate import Source
from lingtest.data.align import detokenize, replace_words
from lingtest.data.model import Sentence

PUNCTUATION = frozenset(string.punctuation)


@dataclass(frozen=True, slots=True)
class Substitute:
    """``word`` for token ``position`` of source ``source`` (an index into the sources), with the fill
    proposer's ``score``."""

    source: int
    position: int
    word: str
    score: float

    def perturbation(self, recipe: str, score: float | None = None) -> Perturbation:
        return Perturbation((Edit(self.position, (self.word,)),), recipe, self.score if score is None else score)


def word_allowed(word: str, min_chars: int, reject_punctuation: bool) -> bool:
    """At least ``min_chars`` characters; with ``reject_punctuation``, no ASCII punctuation character (SIT and
    PatInv); without, not made of punctuation only (CAT)."""
    if len(word) < min_chars:
        return False
    if reject_punctuation:
        return not any(c in PUNCTUATION for c in word)
    return not all(c in PUNCTUATION for c in word)


def tag_positions(sentence: Sentence, prefixes: Sequence[str], skip_edges: bool) -> list[int]:
    """Tokens whose PTB tag starts with one of ``prefixes`` (``skip_edges``: not the first or last token)."""
    n = len(sentence)
    return [i for i, t in enumerate(sentence.tokens)
            if any((t.tag or "").startswith(p) for p in prefixes) and not (skip_edges and i in (0, n - 1))]


def propose(fill: object, sources: Sequence[Source], positions: Sequence[Sequence[int]], *, top_k: int,
            min_score: float, min_chars: int, reject_punctuation: bool) -> tuple[list[Substitute], int]:
    """Substitutes for ``positions[i]`` of ``sources[i]`` (one fill request), best first per position, those
    scoring at least ``min_score`` and allowed by :func:`word_allowed`; and how many fills came back."""
    requests = [(s.sentence.words, p) for s, ps in zip(sources, positions, strict=True) for p in ps]
    where = [(i, p) for i, ps in enumerate(positions) for p in ps]
    fills = fill.propose_many(requests, top_k) if requests else []  # type: ignore[attr-defined]
    out = []
    n = 0
    for (i, p), lst in zip(where, fills, strict=True):
        for f in lst:
            n += 1
            if f.score >= min_score and word_allowed(f.word, min_chars, reject_punctuation):
                out.append(Substitute(i, p, f.word, float(f.score)))
    return out, n


def substituted_words(source: Source, sub: Substitute) -> list[str]:
    sent = source.sentence
    return replace_words(sent.words, [t.ws for t in sent.tokens], sub.position, [sub.word])[0]


def substituted_text(source: Source, sub: Substitute) -> str:
    """The follow-up's text (the source's whitespace kept)."""
    sent = source.sentence
    words, ws = replace_words(sent.words, [t.ws for t in sent.tokens], sub.position, [sub.word])
    return detokenize(words, ws)


def parse_substitutes(parser: object, sources: Sequence[Source], subs: Sequence[Substitute]) -> list[Sentence]:
    """The parse of every substitute's follow-up (one parser request)."""
    if not subs:
        return []
    parsed = parser.parse([substituted_words(sources[s.source], s) for s in subs])  # type: ignore[attr-defined]
    if len(parsed) != len(subs):
        raise ValueError(f"parser returned {len(parsed)} sentences for {len(subs)}")
    return list(parsed)


def collect(n_sources: int, recipe: str, subs: Sequence[Substitute], verdicts: Sequence[str | None], M: int,
            scores: Sequence[float] | None = None, rank: Callable[[Substitute, float], tuple] | None = None,
            ) -> Generated:
    """The substitutes whose verdict is ``None`` (passed), per source in the given order (or sorted by
    ``rank(substitute, score)``), at most ``M`` each; rejected ones counted by their verdict."""
    out = Generated([[] for _ in range(n_sources)])
    per: list[list[tuple[Substitute, float | None]]] = [[] for _ in range(n_sources)]
    for k, (sub, verdict) in enumerate(zip(subs, verdicts, strict=True)):
        out.proposed[recipe] += 1
        if verdict is not None:
            out.dropped[verdict] += 1
            continue
        per[sub.source].append((sub, None if scores is None else scores[k]))
    for i, lst in enumerate(per):
        if rank is not None:
            lst = sorted(lst, key=lambda t: rank(t[0], t[1] if t[1] is not None else t[0].score))
        for sub, score in lst[:M]:
            out.followups[i].append(sub.perturbation(recipe, score))
            out.kept[recipe] += 1
    return out
