"""CREST's generator is robust to float noise in its model scores: with every word-vector cosine and every
LM log-probability perturbed by +-1e-6 (relative, seeded), the follow-ups are byte-identical to the
noise-free run; with the score grid turned off the same noise changes them (the fixture holds scores
that differ by less than the noise, at a tie and at both thresholds)."""

from __future__ import annotations

import json
import math

import crest_fakes
import numpy as np
import pytest
from crest_fakes import FakeParser, make_source
from tests.fakes.conf_options import score_grid
from tests.fakes.noise import REL, SEEDS, Noise, noisy_scorer, noisy_similarities, without_rounding

from lingtest.crest.generate import Generator, MemoParser, Source, followup_document
from lingtest.resources.candidates.rank import LMRanker
from lingtest.resources.candidates.vectors import VectorIndex, VectorProposer, word_key

GRID = score_grid()
TEXT = "John said that the big dog quickly liked him ."
EPS = 3e-7  # a cosine difference float32 keeps (a few units in the last place) and the noise swamps

#: cosine with the query word (``big``, ``dog``): a tie at the top-3 cut of ``dog`` (hound/cat), a tie in
#: the middle of ``big``'s list (large/huge) and a neighbour just above ``min_similarity`` 0.5 (enormous)
COSINES = {"ADJ": ("big", {"enormous": 0.5 + EPS, "huge": 0.9, "large": 0.9 + EPS, "vast": 0.2}),
           "NOUN": ("dog", {"cat": 0.8, "hound": 0.8 + EPS, "pup": 0.95, "wolf": 0.9})}
EXTRA_WORDS = {"enormous": ("ADJ", "JJ"), "vast": ("ADJ", "JJ"), "pup": ("NOUN", "NN"), "wolf": ("NOUN", "NN")}


def vector_index() -> VectorIndex:
    """One row per lemma; the query word is ``[1, 0, 0]``, a neighbour ``[c, sqrt(1 - c^2), 0]`` (cosine c)."""
    rows: list[list[float]] = []
    arrays: dict[str, np.ndarray] = {}
    keys: list[int] = []
    for upos, (query, cosines) in COSINES.items():
        names = sorted([query, *cosines])
        ids = []
        for name in names:
            c = 1.0 if name == query else cosines[name]
            ids.append(len(rows))
            keys.append(word_key(name))
            rows.append([c, math.sqrt(1.0 - c * c), 0.0])
        arrays[f"names_{upos}"] = np.array(names, dtype=str)
        arrays[f"rows_{upos}"] = np.array(ids, dtype=np.int64)
    arrays.update(data=np.array(rows, dtype=np.float32), keys=np.array(keys, dtype=np.uint64),
                  rows=np.arange(len(rows), dtype=np.int64))
    return VectorIndex(arrays)


def _threshold_logprob(others: list[float], p: float) -> float:
    """The log-probability that gets probability ``p`` in a softmax with ``others``."""
    return math.log(sum(math.exp(x) for x in others) * p / (1 - p))


ORIGINAL, HUGE = -1.999, -2.5
LOGPROBS = {"huge": HUGE, "large": HUGE + 1e-9,  # a tie in the ranking (the order of the follow-ups)
            # just above the ranker's threshold 0.1 (raw): kept or dropped by the noise without the grid
            # (-3.402396: on the grid -3.402, whose probability is above 0.1)
            "enormous": _threshold_logprob([ORIGINAL, HUGE, HUGE], 0.1) + 1e-9,
            # dog's neighbours: pup and cat (or hound) tie
            "pup": -2.25, "cat": -2.25, "hound": -2.25, "wolf": -2.75}


class TableScorer:
    """Sentence log-probability by the replaced word (``LOGPROBS``; the unchanged sentence: ORIGINAL), else
    ``-characters / 8`` (a multiple of 1/8: far from every rounding boundary of the grid)."""

    def __init__(self) -> None:
        self.original = TEXT.split()

    def _one(self, text: str) -> float:
        words = text.split()
        changed = [w for w, o in zip(words, self.original, strict=False) if w != o]
        if not changed:
            return ORIGINAL
        return LOGPROBS.get(changed[0], -len(text) / 8)

    def score(self, texts):
        return [self._one(t) for t in texts]

    def score_grouped(self, groups, relative=False):
        return [[self._one(t) for t in g] for g in groups]


@pytest.fixture
def lexicon(monkeypatch):
    for word, tags in EXTRA_WORDS.items():
        monkeypatch.setitem(crest_fakes.LEXICON, word, tags)


def generate(seed: int | None) -> bytes:
    """The follow-ups of the fixture's source (and the generation counts), serialised; ``seed``: the noise
    on every score (None: no noise)."""
    rel = 0.0 if seed is None else REL
    index = noisy_similarities(vector_index(), Noise(1000 + (seed or 0), rel))
    proposer = VectorProposer(index=index, grid=GRID, topn=3, min_similarity=0.5, skip_lemmas=[], disk_cache=False)
    ranker = LMRanker(noisy_scorer(TableScorer(), Noise(seed or 0, rel)), grid=GRID, threshold=0.1,
                      include_original=True, filter_sources=["vectors"], window=None, left_window=None,
                      shared_prefix=True)
    memo = MemoParser(FakeParser())
    doc = make_source(TEXT, [[(0, 1), (8, 9)]])
    doc.sentences[0] = memo.parse([doc.sentences[0].words])[0]
    source = Source.from_document(doc)
    fus, stats = Generator(memo, [proposer], ranker=ranker, M=20).generate(source)
    record = {"followups": [{"doc": followup_document(source, f).to_dict(), "new": f.new, "prob": f.prob,
                             "candidate_source": f.candidate_source, "selected": f.selected} for f in fus],
              "stats": {k: v for k, v in stats.to_dict().items() if k != "seconds"}}
    return json.dumps(record, sort_keys=True).encode()


def test_the_fixture_decides_on_the_grid(lexicon):
    fus = json.loads(generate(None))["followups"]
    # big: huge and large tie on the grid (cosine and probability), so alphabetical; enormous's cosine is
    # 0.5 on the grid (min_similarity kept) and its probability above 0.1; dog: cat and hound tie at the
    # top-3 cut, cat wins alphabetically, and ties with pup in probability
    assert [(f["new"], f["prob"]) for f in fus] == [("huge", 0.246541), ("large", 0.246541), ("enormous", 0.100036),
                                                    ("cat", 0.256948), ("pup", 0.256948), ("wolf", 0.155847)]


@pytest.mark.parametrize("seed", SEEDS)
def test_noise_on_every_score_leaves_the_followups_byte_identical(lexicon, seed):
    assert generate(seed) == generate(None)


def test_without_the_grid_the_same_noise_changes_the_followups(lexicon, monkeypatch):
    without_rounding(monkeypatch)
    clean = generate(None)
    changed = [seed for seed in SEEDS if generate(seed) != clean]
    assert len(changed) >= len(SEEDS) // 2, changed
