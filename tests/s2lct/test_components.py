"""S2LCT's fill proposer chosen by ``s2lct.expansion.fill.kind`` from
:data:`lingtest.s2lct.components.FILL_PROPOSERS` and built from its typed config (the fill block of
:class:`~lingtest.s2lct.config.S2lctConfig`; no model loads)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, get_args

import pytest

from lingtest.data.io import write_jsonl
from lingtest.data.model import Document, Sentence, Token, Tree
from lingtest.errors import ConfigError
from lingtest.execution.context import StageContext
from lingtest.s2lct.components import FILL_PROPOSERS, FillParts, build_proposer
from lingtest.s2lct.config import Fill, S2lctConfig
from lingtest.s2lct.fill import LexiconLMFillProposer, MaskedLMFill, mask_token
from lingtest.s2lct.predicates import Knowledge


class Sentiment:
    def neutral_word(self, word: str, pos: str) -> bool:
        return word not in ("good", "bad")


def _cfg(tmp_path: Path, *overrides: str) -> Any:
    from lingtest.config import compose

    return compose([f"paths.prepared={tmp_path / 'prepared'}", *overrides])


def _proposer(cfg: Any, sentiment: Any, attested: Any = None) -> Any:
    """The proposer as the generate stage builds it: from the validated config, with the configured lexicons."""
    config = S2lctConfig.from_config(cfg)
    k = Knowledge(lexicons={n: list(v) for n, v in config.lexicons.items()}, sentiment=sentiment)
    return build_proposer(StageContext("s2lct_generate", cfg), config, k, attested)


def test_the_registry_holds_the_configured_kinds():
    assert FILL_PROPOSERS.names() == ["lexicon_lm", "lm_next", "masked_lm"]
    assert list(get_args(Fill.model_fields["kind"].annotation)) == FILL_PROPOSERS.names()
    for name in FILL_PROPOSERS.names():
        cls = FILL_PROPOSERS.get(name)
        assert cls.name == name and callable(cls.from_config)
        assert issubclass(Fill, cls.Config)  # the fill block holds every proposer's keys


def test_lexicon_lm_takes_every_option_from_conf(tmp_path, monkeypatch):
    tagged = Sentence([Token(w) for w in "The good dog barked".split()],
                      tree=Tree("S", [Tree(t, token=i) for i, t in enumerate("DT JJ NN VBD".split())]))
    plain = Sentence([Token("a", tag="DT"), Token("red", tag="JJ"), Token("red", tag="JJ"), Token("x")])
    write_jsonl(tmp_path / "prepared" / "ptb_sample" / "all.jsonl", [Document("d", [tagged, plain])],
                kind="document")
    scorers: list[Any] = []
    monkeypatch.setattr(FillParts, "lm_scorer", lambda self, dtype: scorers.append(dtype) or "SCORER")
    cfg = _cfg(tmp_path, "s2lct.expansion.fill.kind=lexicon_lm", "s2lct.expansion.fill.lexicon.min_count=1")
    p = _proposer(cfg, Sentiment())
    assert isinstance(p, LexiconLMFillProposer) and p.scorer == "SCORER" and scorers == [None]
    fc = cfg.s2lct.expansion.fill
    assert (p.window, p.max_candidates) == (fc.lm_window, fc.lm_candidates) == (3, 15)  # the demo profile: 15
    assert p.lexicon.candidates("JJ") == ["red", "good"] and p.lexicon.candidates("VBD") == ["barked"]
    assert p.lexicon.candidates("DT") == ["a", "the"]  # s2lct.expansion.fill.lexicon.lowercase: true
    kept = _proposer(_cfg(tmp_path, "s2lct.expansion.fill.kind=lexicon_lm", "s2lct.expansion.fill.lexicon.min_count=1",
                          "s2lct.expansion.fill.lexicon.lowercase=false"), Sentiment())
    assert kept.lexicon.candidates("DT") == ["The", "a"]
    assert p._candidates("JJ", ["a", mask_token("JJ")]) == ["red"]  # "good" fails the prefilter
    assert not p.prefilter("e-mail", "NN")  # s2lct.expansion.validate.alphanumeric


def test_lm_next_takes_every_option_from_conf(tmp_path, monkeypatch):
    from lingtest.resources.lm import CausalLMScorer
    from lingtest.resources.next_words import CausalNextWords, NextTokens
    from lingtest.s2lct.fill import LMNextFillProposer
    from tests.fakes.lm import tiny_gpt2

    tagged = Sentence([Token(w) for w in "The good dog barked".split()],
                      tree=Tree("S", [Tree(t, token=i) for i, t in enumerate("DT JJ NN VBD".split())]))
    write_jsonl(tmp_path / "prepared" / "ptb_sample" / "all.jsonl", [Document("d", [tagged])], kind="document")
    scorer = CausalLMScorer.from_model(*tiny_gpt2(["\u2581dog", "\u2581good", "s", "."]))
    monkeypatch.setattr(FillParts, "lm_scorer", lambda self, dtype: scorer)
    cfg = _cfg(tmp_path)  # the default kind
    p = _proposer(cfg, Sentiment())
    o = cfg.s2lct.expansion.fill.lm_next
    assert isinstance(p, LMNextFillProposer) and p.scorer is scorer and isinstance(p.words, CausalNextWords)
    assert isinstance(p.words.lm, NextTokens) and p.words.lm.scorer is scorer
    assert (p.candidates, p.window, p.words.max_pieces) == (o.candidates, o.window, o.max_pieces)
    assert (p.lexicon_candidates, p.rescore, p.rescore_window) == (o.lexicon_candidates, o.rescore, o.rescore_window)
    assert p.tag_lexicon is not None and p.tag_lexicon.tags_of["dog"] == {"NN"}  # tag_filter: lower-cased
    assert p.allowed("Cat", "NN") and not p.allowed("Dog", "VB")  # unknown words pass; known: their tags only
    assert not p.allowed("good", "JJ") and not p.allowed("e-mail", "NN")  # the prefilter
    assert p.words.pieces.starts[scorer.tokenizer.convert_tokens_to_ids("\u2581dog")]
    assert p.words.known is not None and p.words.known("Dog") and not p.words.known("cat")  # not continued
    assert p.tagger is None  # the expander gives it its tagger (build_expander)
    none = _proposer(_cfg(tmp_path, "s2lct.expansion.fill.lm_next.tag_filter=null"), Sentiment())
    assert none.tag_lexicon is None and none.allowed("Dog", "VB")


def test_masked_lm_takes_every_option_from_conf(tmp_path):
    p = _proposer(_cfg(tmp_path, "s2lct.expansion.fill.kind=masked_lm"), Sentiment())
    assert isinstance(p, MaskedLMFill) and not p.prefilter("good", "JJ")
    m = p.proposer  # loads its model on first use only
    assert (m.model, m.score_kind, m.min_piece_chars, m.device) == ("roberta-base", "prob", 2, "auto")


@pytest.mark.parametrize("override,match", [
    ("s2lct.expansion.fill.kind=nope",
     r"s2lct\.expansion\.fill\.kind: Input should be 'lexicon_lm', 'lm_next' or 'masked_lm'"),
    ("+s2lct.expansion.fill.lm_next.candidate=3", r"s2lct\.expansion\.fill\.lm_next\.candidate: unknown key"),
    ("~s2lct.expansion.validate.min_naturalness_drop",
     r"s2lct\.expansion\.validate\.min_naturalness_drop: Field required"),
    ("+s2lct.expansion.fill.lm_windw=3", r"s2lct\.expansion\.fill\.lm_windw: unknown key"),
    ("+s2lct.expansion.fill.lexicon.maxpertag=3", r"s2lct\.expansion\.fill\.lexicon\.maxpertag: unknown key"),
    ("~s2lct.expansion.fill.lexicon.lowercase", r"s2lct\.expansion\.fill\.lexicon\.lowercase: Field required"),
    # every proposer's keys are checked, whichever kind is chosen
    ("s2lct.expansion.fill.masked_lm.score=softmax", r"s2lct\.expansion\.fill\.masked_lm\.score: Input should be"),
    ("s2lct.expansion.insertions=[{lhs:[NP],tag:[JJ],after:[DT],before:[NN]}]",
     r"s2lct\.expansion\.insertions\.0\.attested: Field required"),
    ("~s2lct.expansion.fill.lm_next.rescore", r"s2lct\.expansion\.fill\.lm_next\.rescore: Field required"),
])
def test_a_bad_key_names_the_key(tmp_path, override, match):
    with pytest.raises(ConfigError, match=match):
        S2lctConfig.from_config(_cfg(tmp_path, override))


def test_the_prefilter_refuses_the_named_lexicons_and_unattested_words(tmp_path):
    cfg = _cfg(tmp_path, "s2lct.expansion.fill.kind=masked_lm")
    p = _proposer(cfg, Sentiment(), {"RB": frozenset({"also", "still"})})
    assert S2lctConfig.from_config(cfg).expansion.validation.refuse[:3] == ["negation", "negator", "degree"]
    assert p.prefilter("red", "JJ") and p.prefilter("Also", "RB") and p.prefilter("still", "RB")
    assert not p.prefilter("very", "JJ") and not p.prefilter("Never", "RB")  # degree, negation
    assert not p.prefilter("nowhere", "RB") and not p.prefilter("fucking", "JJ")  # negator, profanity
    assert not p.prefilter("here", "RB")  # RB is closed: only its attested words
    assert not p.prefilter("good", "JJ")  # not neutral
    none = _proposer(_cfg(tmp_path, "s2lct.expansion.fill.kind=masked_lm", "s2lct.expansion.validate.refuse=[]"),
                     Sentiment())
    assert none.prefilter("very", "JJ") and none.prefilter("here", "RB")


def test_refusing_an_unknown_lexicon_is_a_config_error(tmp_path):
    cfg = _cfg(tmp_path, "s2lct.expansion.fill.kind=masked_lm", "s2lct.expansion.validate.refuse=[degree,nope]")
    with pytest.raises(ConfigError, match=r"s2lct\.expansion\.validate\.refuse names nope, not a lexicon"):
        _proposer(cfg, Sentiment())
    # the HateCheck lexicons exist only with the HateCheck mirror: refusing them without it refuses nothing more
    ok = _proposer(_cfg(tmp_path, "s2lct.expansion.fill.kind=masked_lm",
                        "s2lct.expansion.validate.refuse=[hatecheck_slur]"), Sentiment())
    assert ok.prefilter("very", "JJ")


def test_the_prefilter_refuses_time_words_extra_slurs_and_ordinals(tmp_path):
    p = _proposer(_cfg(tmp_path, "s2lct.expansion.fill.kind=masked_lm"), Sentiment())
    for word, tag in [("recent", "JJ"), ("Recently", "RB"), ("now", "RB"), ("negro", "JJ"), ("third", "JJ"),
                      ("next", "JJ")]:
        assert not p.prefilter(word, tag), word
    assert p.prefilter("central", "JJ") and p.prefilter("also", "RB")


def test_the_insertion_rules_read_their_words_in_the_lexicons(tmp_path):
    config = S2lctConfig.from_config(_cfg(tmp_path))
    rules = config.expansion.insertion_rules(config.lexicons)
    assert rules is not None
    adjective, subject, verb = rules
    assert adjective.after_words is None and not adjective.clause_refuse and adjective.collocated == 2
    assert verb.after_words is not None and {"is", "'s", "should", "will"} <= verb.after_words
    assert "wanna" not in verb.after_words and "wanna" in subject.not_after
    assert {"not", "n't", "dont", "only", "even"} <= subject.clause_refuse == verb.clause_refuse
    assert {"how", "what"} <= subject.wh_front
    assert subject.not_before_tags == {"VBG", "VBN"} and not verb.not_before_tags  # is [also] made: a participle
    bad = _cfg(tmp_path, "s2lct.expansion.insertions.2.clause_refuse=[negation,nope]")
    config = S2lctConfig.from_config(bad)
    with pytest.raises(ConfigError, match=r"s2lct\.expansion\.insertions names nope, not a lexicon"):
        config.expansion.insertion_rules(config.lexicons)


def test_the_acceptance_rules_take_the_insertion_bound_from_conf(tmp_path, monkeypatch):
    from lingtest.s2lct.components import acceptance_of

    monkeypatch.setattr(FillParts, "lm_scorer", lambda self, dtype: "SCORER")

    def acceptance(*overrides: str) -> Any:
        cfg = _cfg(tmp_path, *overrides)
        return acceptance_of(StageContext("s2lct_generate", cfg), S2lctConfig.from_config(cfg), parser=None)

    configured = acceptance()
    bounds = _cfg(tmp_path).s2lct.expansion.validate.min_insertion_logprob
    assert dict(configured.min_insertion_logprob) == dict(bounds) and set(bounds) == {"JJ", "RB"}
    assert configured.naturalness is not None and configured.naturalness.scorer == "SCORER"
    # the bound alone still builds the scorer, with no drop threshold
    alone = acceptance("s2lct.expansion.validate.min_naturalness_drop=null",
                       "s2lct.expansion.validate.production=false")
    assert alone.naturalness is not None and alone.naturalness.min_drop == float("-inf") and alone.trees is None
    neither = acceptance("s2lct.expansion.validate.min_naturalness_drop=null",
                         "~s2lct.expansion.validate.min_insertion_logprob",
                         "+s2lct.expansion.validate.min_insertion_logprob={}")
    assert neither.naturalness is None and not neither.min_insertion_logprob
