"""The NER systems through the one factory: the registrations proposed to the lead resolve to the classes,
and every configured entry (conf/systems/default.yaml) passes the factory's option check and builds
without loading a model."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from lingtest.errors import ConfigError, MissingResourceError
from lingtest.systems import SYSTEMS
from lingtest.systems.entries import instantiate

ROOT = Path(__file__).resolve().parents[2]

# exactly the lines of src/lingtest/systems/ner/__init__.py
REGISTRATIONS = {
    "spacy_ner": "lingtest.systems.ner.spacy_ner:SpacyNERSystem",
    "minilm_ner": "lingtest.systems.ner.transformer:MiniLMNERSystem",
    "hf_token_classification": "lingtest.systems.ner.transformer:HFTokenClassificationSystem",
    "flair": "lingtest.systems.ner.flair_adapter:FlairNERSystem",
    "azure_ner": "lingtest.systems.ner.azure:AzureNERSystem",
    "aws_comprehend": "lingtest.systems.ner.aws:AWSComprehendNERSystem",
}


def ner_entries() -> dict:
    conf = yaml.safe_load((ROOT / "conf" / "systems" / "default.yaml").read_text(encoding="utf-8")) or {}
    return conf["ner"]


@pytest.fixture
def registry():
    return SYSTEMS


def test_registered_names_resolve_to_the_classes(registry):
    assert set(SYSTEMS.names("ner")) == set(REGISTRATIONS)
    for name, target in REGISTRATIONS.items():
        cls = registry.get("ner", name)
        assert cls.task == "ner" and cls.version
        assert f"{cls.__module__}:{cls.__name__}" == target


def test_every_configured_entry_builds_through_the_factory(registry, tmp_path):
    entries = ner_entries()
    assert {"spacy_sm", "spacy_md", "minilm_ner", "bert_base_ner", "flair_conll", "flair_ontonotes", "azure",
            "aws_comprehend"} <= set(entries)
    for name, entry in entries.items():
        entry = dict(entry)
        for key, value in entry.items():  # config interpolations (paths) -> a folder of this test
            if isinstance(value, str) and re.fullmatch(r"\$\{[^}]+\}", value):
                entry[key] = str(tmp_path / "interpolated")
        if name == "minilm_ner":
            with pytest.raises(MissingResourceError, match="train_ner"):  # not trained in this test
                instantiate("ner", name, entry, "cpu")
            continue
        system = instantiate("ner", name, entry, "cpu")  # no model is loaded here
        assert system.name == name
        assert isinstance(system.label_scheme, str)
        if name in ("azure", "aws_comprehend", "flair_conll", "flair_ontonotes", "bert_base_ner"):
            system.config()  # hub and cloud configs are known without a model or a network


def test_unknown_options_are_config_errors(registry):
    with pytest.raises(ConfigError, match="unknown option.*temperature"):
        instantiate("ner", "spacy_sm", {"kind": "spacy_ner", "model": "en_core_web_sm", "temperature": 1},
                    "cpu")
