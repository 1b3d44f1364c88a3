"""TIN's components chosen from registries and built from their typed config: the transformations
(``tin.transformations``: one entry each, the class's ``Config``), their filter thresholds, the report's
labels, and the fill-in proposer (``tin.fill``: ``kind`` + each proposer's ``Config``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import pytest
from omegaconf import OmegaConf

from lingtest.errors import ConfigError
from lingtest.execution.context import StageContext
from lingtest.tin.components import Parts, filter_config, transformation_config, transformation_labels
from lingtest.tin.config import TinConfig
from lingtest.tin.mutant import MR2
from lingtest.tin.report import table3_markdown
from lingtest.tin.transformations import TRANSFORMATIONS, Transformation, TransformationConfig
from tests.fakes.conf_options import score_grid

GRID = score_grid()

ROOT = Path(__file__).resolve().parents[2]


def _cfg(**tin: Any) -> Any:
    decimals = OmegaConf.load(ROOT / "conf" / "resources" / "default.yaml").score_decimals
    base = OmegaConf.create({"seed": 7, "tin": OmegaConf.load(ROOT / "conf" / "tin" / "default.yaml"),
                             "resources": {"score_decimals": decimals}, "parser": {}})
    return OmegaConf.merge(base, {"tin": tin})


def _config(**tin: Any) -> TinConfig:
    return TinConfig.from_config(_cfg(**tin))


def _parts(cfg: Any, cls: type[Parts] = Parts) -> Any:
    return cls(StageContext("tin_test", cfg, root=ROOT), TinConfig.from_config(cfg))


def test_every_registered_transformation_declares_its_config_label_and_factory():
    cfg = _config()
    assert list(cfg.transformations) == ["token", "phrase", "structural", "shuffle"]
    assert set(TRANSFORMATIONS.names()) == set(cfg.transformations)  # every one is configured
    for name in TRANSFORMATIONS.names():
        cls = TRANSFORMATIONS.get(name)
        assert cls.name == name and isinstance(cls.label, str) and callable(cls.from_config)
        assert issubclass(cls.Config, TransformationConfig)
        got, config = transformation_config(cfg, name)
        assert got is cls and isinstance(config, cls.Config)
    assert transformation_labels(cfg) == [("token", "Token-level"), ("phrase", "Phrase-level"),
                                          ("structural", "Structural"), ("shuffle", "Entity shuffle")]


def test_entries_are_typed_and_complete():
    _, token = transformation_config(_config(), "token")
    assert token.top_k == 10 and token.min_score == 0.1 and "VBD" in token.tags and token.semantic == 0.45
    _, shuffle = transformation_config(_config(), "shuffle")
    assert shuffle.seed == 7 and shuffle.semantic is None  # seed: ${tin.seed}
    with pytest.raises(ValueError, match="frozen"):
        token.top_k = 3  # type: ignore[misc]


@pytest.mark.parametrize("entry,match", [
    ({"topk": 3}, r"^tin\.transformations\.token\.topk: unknown key$"),
    ({"top_k": "ten"}, r"^tin\.transformations\.token\.top_k: Input should be a valid integer"),
])
def test_a_bad_key_names_the_key_and_the_transformation(entry, match):
    with pytest.raises(ConfigError, match=match):
        _config(transformations={"token": entry})


def test_a_missing_key_and_an_unregistered_entry_are_errors():
    cfg = _cfg()
    del cfg.tin.transformations.phrase["min_score"]
    del cfg.tin.transformations.shuffle["seed"]
    with pytest.raises(ConfigError, match=r"^tin\.transformations\.phrase\.min_score: Field required; "
                                          r"tin\.transformations\.shuffle\.seed: Field required$"):
        TinConfig.from_config(cfg)
    with pytest.raises(ConfigError, match=r"tin\.transformations\.nope: no tin transformation 'nope' is registered "
                                          r"\(or importable\); known: phrase, shuffle, structural, token"):
        _config(transformations={"nope": {"semantic": None, "fit": None, "epsilon": {"default": 0.0}}})
    with pytest.raises(ConfigError, match=r"^tin\.transformations: must map each transformation's name to its config"):
        TinConfig.from_config(OmegaConf.merge(_cfg(), {"tin": {"transformations": None}}))


def test_filter_thresholds_come_from_each_entry():
    # a system listed in an entry's epsilon gets its own value, any other system the entry's default
    eps = {"token": {"default": 0.0138, "minilm_ner": 0.01}, "phrase": {"default": 0.0132},
           "structural": {"default": 0.0247, "minilm_ner": 0.02}, "shuffle": {"default": 0.0134}}
    cfg = _cfg(transformations={name: {"epsilon": e} for name, e in eps.items()})
    for name in eps:  # the merge adds to the configured values: keep exactly these
        OmegaConf.update(cfg, f"tin.transformations.{name}.epsilon", eps[name], merge=False)
    conll = filter_config(TinConfig.from_config(cfg), "minilm_ner", GRID)
    assert conll.epsilon == {"token": 0.01, "phrase": 0.0132, "structural": 0.02, "shuffle": 0.0134}
    assert conll.semantic_threshold == {"token": 0.45, "phrase": 0.45, "structural": None, "shuffle": None}
    other = filter_config(TinConfig.from_config(cfg), "spacy_sm", GRID)  # not listed: each entry's default
    assert other.epsilon == {"token": 0.0138, "phrase": 0.0132, "structural": 0.0247, "shuffle": 0.0134}
    assert other.weight_min == 0.6 and other.weight_mean == 0.4
    del cfg.tin.transformations.structural.epsilon["default"]
    with pytest.raises(ConfigError, match=r"structural\.epsilon: no value for system 'spacy_sm'"):
        filter_config(TinConfig.from_config(cfg), "spacy_sm", GRID)


def test_configured_transformations_are_built_in_order_from_their_entries():
    cfg = _cfg()
    parts = _parts(cfg)
    parts._memo.update({"fill": "FILL", "tagger": "TAGGER", "phrase_index": "INDEX"})
    token, phrase, structural, shuffle = parts.transformations()
    assert (token.proposer, token.tagger, token.top_k, token.min_score) == ("FILL", "TAGGER", 10, 0.1)
    assert token.skip_lemmas >= {"be", "say"} and token.tags == frozenset(cfg.tin.transformations.token.tags)
    assert (phrase.index, phrase.topn, phrase.min_score, phrase.max_words) == ("INDEX", 10, 0.65, 4)
    assert structural.name == "structural"
    assert (shuffle.max_exhaustive, shuffle.samples, shuffle.seed, shuffle.max_per_source) == (4, 8, 7, 3)
    assert all(isinstance(t, Transformation) for t in (token, phrase, structural, shuffle))


class UpperConfig(TransformationConfig):
    word: str


class Upper:
    """A transformation that is only its class and its config entry."""

    name: ClassVar[str] = "upper"
    label: ClassVar[str] = "Upper-case"
    relation: ClassVar[str] = MR2
    Config: ClassVar[type[UpperConfig]] = UpperConfig

    def __init__(self, word: str) -> None:
        self.word = word

    @classmethod
    def from_config(cls, config: UpperConfig, parts: Any) -> Upper:
        return cls(config.word)

    def generate(self, sources):
        return []


def test_a_new_transformation_is_its_class_and_its_config_entry(monkeypatch):
    monkeypatch.setitem(TRANSFORMATIONS._entries, "upper", Upper)
    cfg = _cfg(transformations={"upper": {"word": "HI", "semantic": None, "fit": None, "epsilon": {"default": 0.5}}})
    config = TinConfig.from_config(cfg)
    assert list(config.transformations)[-1] == "upper" and isinstance(config.transformations["upper"], UpperConfig)
    parts = _parts(cfg)
    built = parts.transformations(["structural", "upper"])
    assert isinstance(built[1], Upper) and built[1].word == "HI"
    assert filter_config(config, "spacy_sm", GRID).epsilon["upper"] == 0.5
    columns = transformation_labels(config)
    assert columns[-1] == ("upper", "Upper-case")
    row = {"system": "s", "issues": {"overall": {"issues": 0}}, "mutants": {}}
    assert "| system | Token-level | Phrase-level | Structural | Entity shuffle | Upper-case | TIN overall |" in \
        table3_markdown([row], columns)


def test_the_fill_proposer_is_chosen_by_kind_and_built_from_its_config():
    from lingtest.resources.fill import MaskedLMFillProposer

    fill = _parts(_cfg(fill={"kind": "masked_lm"})).fill  # the model loads on first use only
    assert isinstance(fill, MaskedLMFillProposer)
    assert (fill.model, fill.score_kind, fill.min_piece_chars, fill.device) == ("bert-large-cased", "logit", 2, "auto")


class _Parts(Parts):
    def __init__(self, ctx: Any, config: Any) -> None:
        super().__init__(ctx, config)
        self.dtypes: list[Any] = []
        self._memo["parser"] = "PARSER"

    def lm_scorer(self, dtype: Any) -> Any:
        self.dtypes.append(dtype)
        return "SCORER"


def test_the_offline_fill_proposer_takes_every_option_from_conf():
    from lingtest.resources.fill import WordNetVectorsFillProposer

    parts = _parts(_cfg(), _Parts)
    fill = parts.fill
    assert isinstance(fill, WordNetVectorsFillProposer) and fill.parser == "PARSER" and parts.dtypes == ["float32"]
    r = fill.ranker
    assert (r.scorer, r.threshold, r.include_original, r.window, r.left_window, r.shared_prefix) == \
        ("SCORER", 0.0, False, 3, None, True)
    assert r.filter_sources == {"wordnet_synonym", "wordnet_antonym", "vectors"}
    wordnet, vectors = fill.proposers
    assert (wordnet.name, wordnet.max_senses, wordnet.antonyms) == ("wordnet", 1, False)
    assert (vectors.name, vectors.topn, vectors.min_similarity, vectors.skip_lemmas) == \
        ("vectors", 10, 0.4, {"be", "have", "do"})


@pytest.mark.parametrize("fill,match", [
    ({"kind": "nope"}, r"tin\.fill\.kind: unknown fill proposer 'nope'; known: masked_lm, wordnet_vectors"),
    ({"windows": 3}, r"tin\.fill: unknown key\(s\) windows"),
    ({"kind": "masked_lm", "masked_lm": {"scor": "logit"}},
     r"tin\.fill\.masked_lm\.scor: unknown key.*fill proposer 'masked_lm'"),
    ({"ranker": {"window": "three"}}, r"tin\.fill\.ranker\.window.*fill proposer 'wordnet_vectors'"),
])
def test_a_bad_fill_key_names_the_key_and_the_proposer(fill, match):
    with pytest.raises(ConfigError, match=match):
        _parts(_cfg(fill=fill), _Parts)._build_fill()


def test_a_missing_phrase_index_names_its_stage(tmp_path):
    from lingtest.errors import MissingResourceError

    cfg = OmegaConf.merge(_cfg(), {"paths": {"tin": {"phrase_index": str(tmp_path / "index.npz")}}})
    with pytest.raises(MissingResourceError, match=r"index\.npz not found: it is written by stage tin_phrase_index; "
                                                   r"run `dvc repro .*tin_phrase_index` first"):
        _ = _parts(cfg).phrase_index


@pytest.mark.parametrize("overrides", [[], ["profile=hub"], ["profile=offline"]])
def test_every_profile_validates(overrides):
    from lingtest.config import compose
    from lingtest.resources.fill import FILL_PROPOSERS
    from lingtest.tin.repair import RelabelConfig
    from lingtest.tin.train_ner import TinTraining, TrainNERConfig

    cfg = compose(overrides, conf_dir=ROOT / "conf")
    c = TinConfig.from_config(cfg)
    assert c.seed == cfg.seed and c.transformations["shuffle"].seed == c.seed  # type: ignore[attr-defined]
    assert isinstance(c.relabel, RelabelConfig) and isinstance(c.train_ner, TrainNERConfig)
    assert set(c.baseline.systems) <= set(c.systems) and c.labelled
    cls, _ = c.fill.component()
    assert cls is FILL_PROPOSERS.get(c.fill.kind)
    assert TinTraining.from_config(cfg).train_ner == c.train_ner  # the train_ner stage's part of the section


def test_the_workspace_params_validate():
    from lingtest.config import load_params

    c = TinConfig.from_config(load_params(ROOT / "params.yaml"))
    assert list(c.transformations) == ["token", "phrase", "structural", "shuffle"] and c.train_data.corpus == c.corpus


def test_unknown_and_mistyped_keys_name_the_key():
    with pytest.raises(ConfigError, match=r"^tin\.nope: unknown key$"):
        _config(nope=1)
    with pytest.raises(ConfigError, match=r"tin\.relabel: Value error, relabel top_k must be positive"):
        _config(relabel={"top_k": 0})
    with pytest.raises(ConfigError, match=r"tin\.baseline\.extra: Unexpected keyword argument"):
        _config(baseline={"extra": 1})
    with pytest.raises(ConfigError, match=r"tin\.train_ner\.epochs: Input should be a valid integer"):
        _config(train_ner={"epochs": "three"})


def test_the_fill_ranker_shares_the_naturalness_lm_when_the_precision_is_the_same(monkeypatch):
    import lingtest.resources.lm as lm_mod

    built: list[str] = []
    monkeypatch.setattr(lm_mod, "scorer_from_config", lambda res: built.append(str(res.lm.dtype)) or object())
    cfg = OmegaConf.merge(_cfg(), {"resources": {"lm": {"dtype": "auto"}}})
    parts = _parts(cfg)
    assert parts.lm_scorer(None) is parts.lm
    assert parts.lm_scorer("float32") is parts.lm  # "auto" computes in float32
    other = parts.lm_scorer("bfloat16")
    assert other is not parts.lm
    assert built == ["auto", "bfloat16"]  # the model is loaded once per precision
    assert lm_mod.same_precision("auto", "float32") and not lm_mod.same_precision("float32", "bfloat16")


def test_the_lm_shares_one_score_cache_when_configured(monkeypatch, tmp_path):
    """``tin.score_cache``: the naturalness LM and a fill ranker of another precision both reuse scores through
    the one cache under ``$LINGTEST_CACHE``; false: neither has a cache."""
    import lingtest.resources.lm as lm_mod
    from lingtest.resources.lm_cache import ScoreCache

    class Scorer:
        score_cache = None

        def use_score_cache(self, cache: Any) -> None:
            self.score_cache = cache

    monkeypatch.setenv("LINGTEST_CACHE", str(tmp_path))
    monkeypatch.setattr(lm_mod, "scorer_from_config", lambda res: Scorer())
    cfg = OmegaConf.merge(_cfg(score_cache=True), {"resources": {"lm": {"dtype": "float32"}}})
    parts = _parts(cfg)
    assert isinstance(parts.lm.score_cache, ScoreCache) and parts.lm.score_cache.path.is_relative_to(tmp_path)
    assert parts.lm_scorer("bfloat16").score_cache is parts.lm.score_cache
    off = _parts(OmegaConf.merge(_cfg(score_cache=False), {"resources": {"lm": {"dtype": "float32"}}}))
    assert off.lm.score_cache is None and off.lm_scorer("bfloat16").score_cache is None
