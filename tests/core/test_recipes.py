"""CONTRIBUTING's recipes, done: a component outside lingtest is one module plus its config entry.

Each test writes a toy module into a temporary folder (on ``sys.path``, as a user's package would be)
and adds one config entry naming it by import path; nothing in lingtest is edited or registered."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from omegaconf import OmegaConf

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def user_package(tmp_path, monkeypatch):
    """A folder on sys.path where a test writes the user's one module."""
    monkeypatch.syspath_prepend(str(tmp_path))

    def write(name: str, source: str) -> Path:
        path = tmp_path / f"{name}.py"
        path.write_text(textwrap.dedent(source), encoding="utf-8")
        return path

    return write


def test_add_a_system_under_test(user_package):
    """Recipe "Add a system under test": its module + its entry under ``systems.<task>`` (2 files)."""
    from lingtest.config import compose
    from lingtest.systems.factory import build_system

    user_package("toy_sentiment", '''
        from lingtest.systems.classification.base import Classifier

        class KeywordClassifier(Classifier):
            version = "1"

            def __init__(self, *, positive_words):
                self.positive_words = set(positive_words)

            def predict(self, inputs):
                out = []
                for text in inputs:
                    p = 0.9 if set(text.lower().split()) & self.positive_words else 0.1
                    out.append({"negative": 1 - p, "positive": p})
                return out

            def config(self):
                return {"positive_words": sorted(self.positive_words)}
        ''')
    cfg = compose(["systems.cache=false"], conf_dir=ROOT / "conf")
    OmegaConf.set_struct(cfg, False)  # what a user's conf/ entry adds
    entry = {"kind": "toy_sentiment:KeywordClassifier", "positive_words": ["good", "great"]}
    cfg = OmegaConf.merge(cfg, {"systems": {"classification": {"keywords": entry}}})
    system = build_system(cfg, "classification", "keywords")
    assert system.name == "keywords"
    [good, bad] = system.predict(["A good film", "A dull film"])
    assert good["positive"] > 0.5 > bad["positive"]

    from lingtest.errors import ConfigError

    wrong = OmegaConf.merge(cfg, {"systems": {"classification": {"keywords": {**entry, "colour": "red"}}}})
    with pytest.raises(ConfigError, match="colour"):  # an option the class does not take
        build_system(wrong, "classification", "keywords")


def test_add_a_dataset_with_its_own_reader(user_package, tmp_path):
    """Recipe "Add a dataset" with a new file format: the reader module + the dataset's entry (2 files)."""
    from lingtest.config import compose
    from lingtest.data import Document, read_jsonl
    from lingtest.pipeline.datasets import DatasetSpec, download, prepare

    user_package("toy_format", '''
        from lingtest.data.model import Document, Sentence, Token

        def read(path, *, separator):
            for i, line in enumerate(open(path, encoding="utf-8")):
                words = line.strip().split(separator)
                yield Document(f"toy-{i}", sentences=[Sentence([Token(w) for w in words])])
        ''')
    data = tmp_path / "corpus"
    data.mkdir()
    (data / "test.txt").write_text("a|b|c\nd|e\n", encoding="utf-8")
    spec = {"task": "ner", "format": "toy_format:read", "record": "document", "pipeline": False,
            "source": {"kind": "local", "path": str(data)}, "splits": {"test": {"files": ["test.txt"]}},
            "options": {"separator": "|"}}
    cfg = compose(conf_dir=ROOT / "conf")
    OmegaConf.set_struct(cfg, False)  # what a user's conf/datasets.yaml entry adds
    cfg = OmegaConf.merge(cfg, {"datasets": {"toy": spec}})
    manifest = download(DatasetSpec.from_config("toy", cfg), network=False, mirror=None, raw_dir=tmp_path / "raw")
    counts = prepare(manifest, tmp_path / "prepared", None, OmegaConf.to_container(cfg.readers, resolve=True))
    assert counts == {"test": 2}
    docs = list(read_jsonl(tmp_path / "prepared" / "test.jsonl", Document.from_dict))
    assert [d.sentences[0].words for d in docs] == [["a", "b", "c"], ["d", "e"]]


def test_add_a_tin_transformation(user_package):
    """Recipe "Add a TIN transformation": its module + its entry under ``tin.transformations``, keyed by
    its import path (2 files); it is validated with the rest of TIN's config and built like the others."""
    from tests.fakes.conf_options import score_grid

    from lingtest.config import compose
    from lingtest.errors import ConfigError
    from lingtest.execution.context import StageContext
    from lingtest.tin.components import Parts, filter_config, transformation_labels
    from lingtest.tin.config import TinConfig
    from lingtest.tin.mutant import TinSource

    user_package("toy_transformation", '''
        from typing import ClassVar

        from lingtest.tin.mutant import MR1, Mutant
        from lingtest.tin.spans import TokenMap
        from lingtest.tin.transformations.base import TransformationConfig


        class AdverbConfig(TransformationConfig):
            adverb: str


        class InsertAdverb:
            """Insert an adverb before the last token (predictions must not change: MR1)."""

            name: ClassVar[str] = "toy_transformation:InsertAdverb"
            label: ClassVar[str] = "adverb insertion"
            relation: ClassVar[str] = MR1
            Config = AdverbConfig

            def __init__(self, adverb):
                self.adverb = adverb

            @classmethod
            def from_config(cls, config, parts):
                return cls(config.adverb)

            def generate(self, sources):
                out = []
                for s in sources:
                    n = len(s.tokens)
                    tokens = [*s.tokens[:-1], self.adverb, s.tokens[-1]]
                    to = tuple(range(n - 1)) + (n,)
                    out.append(Mutant(s.id, self.name, self.relation, list(s.tokens), tokens,
                                      TokenMap(to, n + 1), params={"adverb": self.adverb}))
                return out
        ''')
    name = "toy_transformation:InsertAdverb"
    cfg = compose(conf_dir=ROOT / "conf")
    OmegaConf.set_struct(cfg, False)  # what the user's entry in conf/tin/default.yaml adds
    entry = {"adverb": "indeed", "semantic": None, "fit": None, "epsilon": {"default": 0.0}}
    cfg = OmegaConf.merge(cfg, {"tin": {"transformations": {name: entry}}})
    config = TinConfig.from_config(cfg)
    assert (name, "adverb insertion") in transformation_labels(config)  # the report's column
    assert filter_config(config, "spacy_sm", score_grid()).epsilon[name] == 0.0
    [transformation] = Parts(StageContext("tin_generate", cfg), config).transformations([name])
    [mutant] = transformation.generate([TinSource("s1", ["Paris", "is", "big", "."], [])])
    assert mutant.tokens == ["Paris", "is", "big", "indeed", "."] and mutant.relation == "tin-mr1"
    bad = OmegaConf.merge(cfg, {"tin": {"transformations": {name: {**entry, "colour": "red"}}}})
    with pytest.raises(ConfigError, match="colour"):  # its own Config rejects an unknown key
        TinConfig.from_config(bad)
