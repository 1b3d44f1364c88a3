"""Source inputs: sentences with intra-sentence gold coreference, sampled reproducibly.

Each source is a one-sentence :class:`~lingtest.data.Document` whose clusters are the gold
clusters restricted to that sentence, keeping those with at least ``min_mentions`` mentions inside
it (the paper evaluates intra-sentence coreference). Offsets become sentence-relative (a
one-sentence document's offsets are its sentence's). ``meta`` records the origin document and
sentence index.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from pathlib import Path

from lingtest.data.io import read_jsonl
from lingtest.data.model import Cluster, Document, Mention, Sentence, Token


def _copy_sentence(s: Sentence) -> Sentence:
    return Sentence([Token.from_dict(t.to_dict()) for t in s.tokens], tree=s.tree, id=s.id,
                    label=s.label, meta=dict(s.meta))


def sentence_sources(docs: Iterable[Document], min_mentions: int = 2,
                     min_tokens: int = 3, max_tokens: int = 80) -> list[Document]:
    """All sentences of ``docs`` with a gold cluster of >= ``min_mentions`` mentions inside them."""
    out: list[Document] = []
    for doc in docs:
        offsets = doc.sentence_offsets()
        for si, (sent, off) in enumerate(zip(doc.sentences, offsets, strict=True)):
            n = len(sent.tokens)
            if not min_tokens <= n <= max_tokens:
                continue
            clusters = []
            for c in doc.clusters:
                inside = sorted({Mention(m.start - off, m.end - off) for m in c.mentions
                                 if off <= m.start and m.end <= off + n})
                if len(inside) >= min_mentions:
                    clusters.append(Cluster(inside, id=c.id))
            if clusters:
                out.append(Document(id=f"{doc.key}:s{si}", sentences=[_copy_sentence(sent)], clusters=clusters,
                                    split=doc.split, meta={"doc": doc.key, "sentence": si}))
    return out


def sample_sources(sources: Sequence[Document], n: int | None, seed: int) -> list[Document]:
    """A seeded random sample of ``n`` sources (all when ``n`` is None or >= the pool), in corpus
    order so that outputs are stable."""
    if n is None or n >= len(sources):
        return list(sources)
    rng = random.Random(seed)
    picked = sorted(rng.sample(range(len(sources)), n))
    return [sources[i] for i in picked]


def load_documents(path: str | Path) -> list[Document]:
    """Prepared documents (JSONL of :class:`Document`, ``data/prepared/<dataset>/<split>.jsonl``)."""
    return list(read_jsonl(path, Document.from_dict))
