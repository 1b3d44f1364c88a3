"""``lingtest.s2lct.generate`` / ``generate_suite`` on a handful of hand-written sentences: the configured
capability specs of ``conf/``, spaCy's parser (the configured ``en_core_web_sm``, built once here without
its worker processes), and cheap stand-ins through config overrides and the components module: a word
sentiment table for SentiWordNet, a three-tree reference grammar and lexicon in a temporary
``paths.prepared``, a length-ranking LM instead of the causal LM, HateCheck's placeholders in a temporary
``paths.manifests``."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import lingtest.s2lct as s2lct
from lingtest.data.io import write_jsonl
from lingtest.data.model import Document, Sentence, TestCase, Token, Tree
from lingtest.errors import ConfigError, InputError
from lingtest.s2lct import components
from lingtest.s2lct.components import FillParts

# (word, pos) -> sentiment: the stand-in for SentiWordNet (the reference grammar's words are neutral)
SENTIMENT = {
    ("good", "adj"): "positive", ("great", "adj"): "positive", ("dull", "adj"): "negative",
    ("bad", "adj"): "negative", ("movie", "noun"): "neutral", ("film", "noun"): "neutral",
    ("shirt", "noun"): "neutral", ("plot", "noun"): "neutral", ("actors", "noun"): "neutral",
    ("red", "adj"): "neutral", ("big", "adj"): "neutral", ("old", "adj"): "neutral", ("small", "adj"): "neutral",
    ("long", "adj"): "neutral", ("new", "adj"): "neutral", ("quiet", "adj"): "neutral",
    ("women", "noun"): "neutral", ("hate", "verb"): "negative", ("nice", "adj"): "positive",
}
# the reference treebank: its productions let an NP take more adjectives; its JJs are the fill lexicon
REFERENCE = ["(S (NP (DT the) (JJ big) (JJ old) (NN dog)) (VP (VBZ is) (ADJP (RB very) (JJ quiet))) (. .))",
             "(S (NP (DT a) (JJ small) (NN house)) (VP (VBD stood) (ADVP (RB here))) (. .))",
             "(S (NP (DT this) (JJ old) (NN film)) (VP (VBZ is) (NP (DT a) (JJ long) (JJ new) (NN story))) (. .))"]

SENTENCES = ["This is a dull movie.",          # 0 negative, "This is ...": LC4 (negated negative)
             "A good movie.",                  # 1 positive, short with a positive adjective: LC2
             "This is a red shirt.",           # 2 neutral: LC1 and LC5 (negated neutral)
             "This isn't a dull movie.",       # 3 negative but already negated: not LC4
             "The plot moves on.",             # 4 neutral, no neutral adjective: no LC1, no LC5
             "A great film, really.",          # 5 positive: LC2, LC3, LC7 ...
             "These are bad actors."]          # 6 negative: LC4
LABELS = ["negative", "positive", "neutral", "negative", "neutral", "positive", "negative"]


class Sentiment:
    def __call__(self, word: str, pos: str) -> str | None:
        return SENTIMENT.get((word.lower(), pos))

    def neutral_word(self, word: str, pos: str | None) -> bool:
        return self(word, pos or "adj") == "neutral"


class LengthLM:
    """Scores a text by minus its length (the stand-in of the causal LM: shorter fills rank first); every text
    is equally natural (the naturalness check passes)."""

    def score_grouped(self, groups: list[list[str]], relative: bool = True) -> list[list[float]]:
        return [[-float(len(t)) for t in g] for g in groups]

    def token_logprobs_grouped(self, groups: list[list[str]]) -> list[list[Any]]:
        from lingtest.resources.lm import TokenScores

        return [[TokenScores(t, ["x"], [0], [-1.0]) for t in g] for g in groups]


class SharedParser:
    """The session's parser for every generate() call (which closes what it builds: this one stays open)."""

    def __init__(self, parser: Any) -> None:
        self.parser = parser
        self.calls = 0

    def parse(self, sentences: list[list[str]]) -> Any:
        self.calls += 1
        return self.parser.parse(sentences)


@pytest.fixture(scope="module")
def spacy_parser():
    from lingtest.config import compose, to_plain
    from lingtest.parsing.cache import build_parser

    parser = build_parser({**to_plain(compose().parser), "cache": False, "workers": 0})
    yield parser
    parser.close()


@pytest.fixture()
def overrides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spacy_parser) -> list[str]:
    docs = []
    for i, bracketed in enumerate(REFERENCE):
        tree, words = Tree.from_bracketed(bracketed)
        docs.append(Document(f"ref{i}", [Sentence([Token(w) for w in words], tree=tree)]))
    write_jsonl(tmp_path / "prepared" / "ptb_sample" / "all.jsonl", docs, kind="document")
    hatecheck = tmp_path / "hatecheck"
    hatecheck.mkdir()
    (hatecheck / "template_placeholders.csv").write_text(
        'Placeholder,Values\n[SLUR_S],"bitch, fag"\n[IDENTITY_P],"women, muslims"\n', encoding="utf-8")
    (tmp_path / "manifests").mkdir()
    (tmp_path / "manifests" / "hatecheck.json").write_text(json.dumps({"root": str(hatecheck)}), encoding="utf-8")
    shared = SharedParser(spacy_parser)
    monkeypatch.setattr(components, "build_parser", lambda _cfg: shared)
    monkeypatch.setattr(components, "word_sentiment", lambda _resources, _adverbs: Sentiment())
    monkeypatch.setattr(FillParts, "lm_scorer", lambda self, dtype: LengthLM())
    return [f"paths.prepared={tmp_path / 'prepared'}", f"paths.manifests={tmp_path / 'manifests'}",
            "s2lct.expansion.fill.kind=lexicon_lm", "s2lct.expansion.fill.lexicon.min_count=1",
            "s2lct.expansion.insertions=null"]  # Algorithm 1's every masked sentence over the tiny grammar


@pytest.fixture()
def cfg(overrides: list[str]) -> Any:
    """The composed configuration of ``overrides`` (composed once: generate() takes it as it is)."""
    from lingtest.config import compose

    return compose(overrides)


def by_capability(cases: list[TestCase], kind: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for c in cases:
        if c.meta["kind"] == kind:
            out.setdefault(str(c.meta["capability"]), []).append(str(c.source["text"]))
    return out


def test_seed_cases_land_in_the_capabilities_their_sentences_match(cfg):
    cases = s2lct.generate(SENTENCES, labels=LABELS, config=cfg, seed=1, expand=False)
    seeds = by_capability(cases, "seed")
    assert seeds["LC4"] == ["This is not a dull movie .", "These are not bad actors ."]  # sentences 0 and 6
    assert seeds["LC5"] == ["This is not a red shirt ."]
    assert seeds["LC1"] == ["This is a red shirt ."]
    assert "A good movie ." in seeds["LC2"] and "The plot moves on ." not in seeds["LC2"]
    assert not any("is n't a dull" in t for t in seeds["LC4"] + seeds["LC5"])  # already negated (sentence 3)
    # the records of data/suites/s2lct/<suite>.jsonl, in capability order
    c = next(c for c in cases if c.meta["capability"] == "LC4")
    assert (c.technique, c.relation, c.provenance.seed_id) == ("s2lct", "seed", "input-0")
    assert c.expected == {"name": "s2lct-label", "labels": ["positive", "neutral"]}
    assert c.meta == {"suite": "sst", "capability": "LC4", "rule": 0, "kind": "seed",
                      "sent": "This is not a dull movie ."}
    assert c.provenance.transformation == "s2lct:LC4:0:seed"
    order = [int(str(c.meta["capability"])[2:]) for c in cases]
    assert order == sorted(order) and {c.meta["kind"] for c in cases} == {"seed"}
    assert [TestCase.from_dict(c.to_dict()) for c in cases] == cases


def test_expansions_are_made_and_seeded(overrides):
    capped = [*overrides, "s2lct.seeds.max_cases=5"]  # the seed picks the 5 cases kept of a rule's template choices
    first = s2lct.generate(SENTENCES, labels=LABELS, config=capped, seed=1)
    again = s2lct.generate(SENTENCES, labels=LABELS, config=capped, seed=1)
    other = s2lct.generate(SENTENCES, labels=LABELS, config=capped, seed=2)
    assert [c.to_dict() for c in first] == [c.to_dict() for c in again]
    assert [c.to_dict() for c in first] != [c.to_dict() for c in other]
    def seeds_per_capability(cases: list[TestCase]) -> Counter[str]:
        return Counter(str(c.meta["capability"]) for c in cases if c.meta["kind"] == "seed")

    assert seeds_per_capability(first) == seeds_per_capability(other)  # other cases, as many
    assert seeds_per_capability(first)["LC3"] == 10  # two rules, each 5 of its 18 x 2 / 9 x 3 choices
    kinds = [c.meta["kind"] for c in first]
    assert kinds == sorted(kinds, key=lambda k: k != "seed") and "exp" in kinds  # seeds, then expansions
    ids = {c.id: c for c in first}
    exps = [c for c in first if c.meta["kind"] == "exp"]
    lexicon = {"JJ": {"big", "old", "small", "long", "new", "quiet"}, "NN": {"dog", "house", "film", "story"}}
    for e in exps:  # the seed's template around the expanded sentence: masks the reference grammar allows, filled
        parent = ids[e.meta["parent"]]
        assert (e.meta["capability"], e.provenance.seed_id) == (parent.meta["capability"], parent.provenance.seed_id)
        assert e.expected == parent.expected and e.source["text"] != parent.source["text"]
        filled = str(e.meta["masked"])
        for word, tag in zip(e.meta["fills"], e.meta["mask_tags"], strict=True):
            assert word in lexicon[tag]
            filled = filled.replace("{" + tag + "}", word, 1)
        sent = str(e.meta["sent"])
        assert sent in str(e.source["text"])
        assert sent == (filled.replace(" is ", " is not ", 1) if e.meta["capability"] in ("LC4", "LC5") else filled)
    negated = [e for e in exps if e.meta["capability"] == "LC4"]
    assert [e.source["text"] for e in negated] == ["This is not a dull big movie ."]


def test_labels_outside_the_label_set_are_named(cfg):
    with pytest.raises(InputError, match=r"labels\[2\] = 'good' is not a label of the S2LCT suite sst "
                                         r"\(negative, neutral, positive\)"):
        s2lct.generate(SENTENCES[:3], labels=["negative", "positive", "good"], config=cfg)
    with pytest.raises(InputError, match=r"labels\[0\] = 'hatespeech' .* suite hatexplain \(hate, non-hate\)"):
        s2lct.generate(["women are garbage"], task="hate_speech", labels=["hatespeech"], config=cfg)
    with pytest.raises(InputError, match=r"2 labels for 3 sentences"):
        s2lct.generate(SENTENCES[:3], labels=["negative", "positive"], config=cfg)
    with pytest.raises(InputError, match=r"field 'sentences\[1\]'"):
        s2lct.generate(["fine", "  "], config=cfg)
    with pytest.raises(InputError, match=r"unknown task 'ner'; .*sentiment, hate_speech, sst, hatexplain"):
        s2lct.generate(SENTENCES, task="ner", config=cfg)


def test_sentences_matching_no_capability_are_an_error_naming_the_capabilities(cfg):
    with pytest.raises(InputError, match=r"none of the 1 sentences matches a capability of the S2LCT suite sst "
                                         r"\(searched LC1 \(Short sentences .*; LC10 \(Parsing sentiment") as err:
        s2lct.generate(["The plot moves on."], labels=["neutral"], config=cfg)
    assert "pass labels=" not in str(err.value)
    with pytest.raises(InputError, match=r"every rule tests the seed's label: pass labels="):
        s2lct.generate(SENTENCES, config=cfg)


def test_hate_speech_uses_the_hatexplain_suite_lowercased(cfg):
    sents = ["You BITCH.", "Women are nice.", "I hate those women."]
    cases = s2lct.generate(sents, task="hate-speech", labels=["hate", "non-hate", "hate"], config=cfg,
                           expand=False)
    seeds = by_capability(cases, "seed")
    assert seeds["LC1"] == ["you bitch ."]  # a HateCheck slur, the text lower-cased (search.lowercase)
    assert seeds["LC12"] == ["women are nice ."]  # a group identifier, nothing negative
    assert "i think that i hate those women ." in seeds["LC10"]
    assert {c.meta["suite"] for c in cases} == {"hatexplain"}
    named = s2lct.generate(sents, task="hatexplain", labels=["hate", "non-hate", "hate"], config=cfg,
                           expand=False)
    assert [c.to_dict() for c in named] == [c.to_dict() for c in cases]


def test_a_missing_lexicon_names_the_rule(overrides, tmp_path):
    (tmp_path / "manifests" / "hatecheck.json").unlink()
    with pytest.raises(ConfigError, match=r"s2lct\.suites\.hatexplain\.capabilities\.LC1\.rules\[0\]: unknown lexicon "
                                          r"'hatecheck_slur'"):
        s2lct.generate(["you idiot"], task="hate_speech", labels=["hate"], config=overrides)


def test_generate_suite_runs_a_system(overrides):
    from lingtest.config import compose

    cfg = compose([*overrides, "systems.cache=false"])
    suite = s2lct.generate_suite(SENTENCES, labels=LABELS, config=cfg, seed=1, expand=False)
    assert suite.info.name == "s2lct-sst-own" and suite.info.task == "classification"
    assert suite.info.labels == ("negative", "neutral", "positive")  # the suite's, not only those expected
    assert suite.info.groups["LC4"] == 2 and list(suite.info.groups)[:2] == ["LC1", "LC2"]
    assert [c.to_dict() for c in suite.cases] == [c.to_dict() for c in s2lct.generate(
        SENTENCES, labels=LABELS, config=cfg, seed=1, expand=False)]

    def positive(texts: list[str]) -> list[dict[str, float]]:
        return [{"negative": 0.05, "positive": 0.95} for _ in texts]

    summary = suite.run(positive, config=cfg, progress=False).summary()
    failed = dict(zip(summary["group"], summary["failed"], strict=True))
    assert failed["LC4"] == 0  # "not negative": positive passes
    assert failed["LC5"] == 1 and failed["LC1"] == 1  # neutral sentences called positive fail


@pytest.mark.e2e
def test_the_configured_components(mirror, tmp_path):
    """SentiWordNet, spaCy and HateCheck's lexicons as configured (no expansion: it needs the prepared PTB
    sample and the causal LM)."""
    cases = s2lct.generate(["This is a terrible movie.", "What a wonderful film!"], labels=["negative", "positive"],
                           config=["parser.workers=0", f"parser.cache_dir={tmp_path}"], seed=3, expand=False)
    seeds = by_capability(cases, "seed")
    assert seeds["LC4"] == ["This is not a terrible movie ."]
    assert 'Do I think that "What a wonderful film !"? yes' in seeds["LC9"]
