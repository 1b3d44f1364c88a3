"""CREST's two LM checks on follow-ups: the ranker's fit bound (a candidate much less probable than the word it
replaces is dropped before parsing) and the naturalness bound after the constituent check."""

from __future__ import annotations

import pytest
from crest_fakes import TABLE, FakeProposer, FakeScorer, make_source
from tests.fakes.conf_options import score_grid

from lingtest.crest.generate import Generator, MemoParser, Source
from lingtest.crest.suite import make_case
from lingtest.resources.candidates.rank import LMRanker

GRID = score_grid()
FIT_SOURCES = ["wordnet_synonym", "wordnet_antonym", "vectors"]


def _ranker(scorer, **kw):
    opts = {"threshold": 0.0, "include_original": False, "filter_sources": ["vectors"], "window": None,
            "left_window": None, "shared_prefix": True, **kw}
    return LMRanker(scorer, grid=GRID, **opts)


def _source(parser, text="John said that the big dog quickly liked him .", doc_id="d:s0"):
    doc = make_source(text, [[(0, 1), (9, 10)]], doc_id=doc_id)
    doc.sentences[0] = parser.parse([doc.sentences[0].words])[0]
    return Source.from_document(doc)


def test_the_fit_bound_drops_candidates_of_every_checked_source(fake_parser):
    memo = MemoParser(fake_parser)
    src = _source(memo)
    prop = FakeProposer({"big": TABLE["big"]})
    # FakeScorer: log p = -chars / 4, so against "big" (3 chars): huge -0.25, large/small/zzbig -0.5
    ranker = _ranker(FakeScorer(), min_fit=-0.4, fit_sources=FIT_SOURCES)
    fus, stats = Generator(memo, [prop], ranker=ranker, M=20).generate(src)
    assert [f.new for f in fus] == ["huge"]
    assert fus[0].fit == -0.25
    assert ranker.fits_removed == 3  # WordNet's two (not ranked, but checked) and zzbig
    assert stats.ranked == {"vectors": 1}
    meta = make_case(src, fus[0]).meta
    assert meta["lm_fit"] == -0.25 and "naturalness" not in meta


def test_the_fit_bound_applies_only_to_its_sources_and_leaves_the_ranking_alone(fake_parser):
    memo = MemoParser(fake_parser)
    src = _source(memo)
    prop = FakeProposer({"big": TABLE["big"]})
    plain, _ = Generator(memo, [prop], ranker=_ranker(FakeScorer()), M=20).generate(src)
    only_vectors = _ranker(FakeScorer(), min_fit=-0.4, fit_sources=["vectors"])
    fus, _ = Generator(memo, [prop], ranker=only_vectors, M=20).generate(src)
    assert [f.new for f in fus] == ["large", "small", "huge"]  # WordNet's are not checked here
    assert [f.fit for f in fus] == [None, None, -0.25]
    loose = _ranker(FakeScorer(), min_fit=-10.0, fit_sources=FIT_SOURCES)
    kept, _ = Generator(memo, [prop], ranker=loose, M=20).generate(src)
    # the original is scored for the fit, but takes no part in the softmax unless include_original
    assert [(f.new, f.prob) for f in kept] == [(f.new, f.prob) for f in plain]
    assert all(f.fit is not None for f in kept) and loose.fits_removed == 0


class Refuse:
    """A naturalness bound that refuses follow-ups holding any of ``words``; it counts its calls."""

    def __init__(self, *words: str) -> None:
        self.words = set(words)
        self.calls: list[int] = []

    def judge(self, pairs):
        self.calls.append(len(pairs))
        return [(0.5, 0.4, not (set(b.split()) & self.words)) for _, b in pairs]


def test_the_naturalness_bound_refuses_follow_ups_and_m_is_still_reached(fake_parser, fake_proposer):
    memo = MemoParser(fake_parser)
    src = _source(memo)
    bound = Refuse("small")
    fus, stats = Generator(memo, [fake_proposer], naturalness=bound, M=3).generate(src)
    assert [f.new for f in fus] == ["large", "huge", "hound"]  # "small" refused, the next one taken
    assert [f.order for f in fus] == [0, 1, 2]
    assert [f.sentence.id for f in fus] == ["d:s0#0", "d:s0#1", "d:s0#2"]
    assert fus[0].naturalness == (0.5, 0.4)
    assert stats.natural_removed == {"wordnet_antonym": 1}
    assert make_case(src, fus[0]).meta["naturalness"] == [0.5, 0.4]
    unchecked, _ = Generator(memo, [fake_proposer], M=3).generate(src)
    assert [f.new for f in unchecked] == ["large", "small", "huge"] and unchecked[0].naturalness is None


def test_naturalness_requests_of_sources_in_lockstep_are_judged_together(fake_parser, fake_proposer):
    memo = MemoParser(fake_parser)
    a = _source(memo)
    b = _source(memo, "John said that the big dog slowly liked him .", doc_id="d:s1")
    bound = Refuse()
    (fa, fb), _ = Generator(memo, [fake_proposer], naturalness=bound, M=20).generate_many([a, b])
    alone = Refuse()
    ga, _ = Generator(memo, [fake_proposer], naturalness=alone, M=20).generate(a)
    assert len(bound.calls) == 1 and bound.calls[0] == len(fa) + len(fb)
    assert [f.words for f in fa] == [f.words for f in ga]


@pytest.mark.parametrize("kept", [True, False])
def test_naturalness_bound_judges_on_the_grid(kept):
    from lingtest.resources.naturalness import NaturalnessBound, grid_syneval

    class Scorer:  # token log-probabilities: the source's all -1, the edit's one token lower
        def token_logprobs(self, texts):
            from types import SimpleNamespace

            return [SimpleNamespace(logprobs=[-1.0, -1.0, -1.0] if t == "a b c" else [-1.0, -1.5, -1.0])
                    for t in texts]

    src = grid_syneval([-1.0] * 3, weight_min=0.6, weight_mean=0.4, grid=GRID)
    new = grid_syneval([-1.0, -1.5, -1.0], weight_min=0.6, weight_mean=0.4, grid=GRID)
    eps = (src - new) + (0.001 if kept else -0.001)
    bound = NaturalnessBound(Scorer(), epsilon=eps, weight_min=0.6, weight_mean=0.4, grid=GRID, packed=False)
    assert bound.judge([("a b c", "a x c")]) == [(src, new, kept)]
    assert bound.judge([]) == []


def test_the_fit_bound_with_the_original_in_the_softmax(fake_parser):
    memo = MemoParser(fake_parser)
    src = _source(memo)
    prop = FakeProposer({"big": TABLE["big"]})
    ranker = _ranker(FakeScorer(), include_original=True, threshold=0.2, min_fit=-0.4, fit_sources=FIT_SOURCES)
    fus, _ = Generator(memo, [prop], ranker=ranker, M=20).generate(src)
    # huge (-0.25) fits; with the original in the softmax its share is its probability against "big" and zzbig
    assert [(f.new, f.fit) for f in fus] == [("huge", -0.25)]
    assert fus[0].prob is not None and 0.2 <= fus[0].prob < 0.5


def test_the_stage_generator_shares_one_language_model(monkeypatch):
    from omegaconf import OmegaConf
    from tests.fakes.conf_options import conf_group

    from lingtest.crest import components
    from lingtest.crest.config import CrestConfig

    loaded = []

    def fake_lm(config, resources):
        loaded.append(object())
        return loaded[-1]

    monkeypatch.setattr(components, "lm_scorer", fake_lm)
    crest = OmegaConf.merge(conf_group("crest"), {"proposers": {"enabled": ["wordnet"]}})
    config = CrestConfig.from_config(OmegaConf.create({"dataset": "toy", "seed": 0, "crest": crest}))
    gen = components.crest_generator(config, conf_group("resources"), parser=None, M=5)
    assert len(loaded) == 1 and gen.ranker.scorer is loaded[0] and gen.naturalness.scorer is loaded[0]
    off = OmegaConf.merge(crest, {"ranker": {"enabled": False}, "naturalness": {"enabled": False}})
    gen = components.crest_generator(CrestConfig.from_config(OmegaConf.create({"dataset": "toy", "seed": 0,
                                                                               "crest": off})),
                                     conf_group("resources"), parser=None, M=5)
    assert len(loaded) == 1 and gen.ranker is None and gen.naturalness is None  # no LM loaded for nothing
