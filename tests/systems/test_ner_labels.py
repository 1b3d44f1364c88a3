"""Label mapping onto CoNLL-2003's scheme, driven by the configured table: ``ner_label_maps`` of
conf/systems/default.yaml (the table is read from the file, so the config and these expectations cannot
drift apart)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from lingtest.data.model import Entity
from lingtest.errors import ConfigError
from lingtest.systems.ner.labels import LabelMaps

ROOT = Path(__file__).resolve().parents[2]

ONTONOTES = ["CARDINAL", "DATE", "EVENT", "FAC", "GPE", "LANGUAGE", "LAW", "LOC", "MONEY", "NORP", "ORDINAL",
             "ORG", "PERCENT", "PERSON", "PRODUCT", "QUANTITY", "TIME", "WORK_OF_ART"]


@pytest.fixture(scope="module")
def maps():
    conf = yaml.safe_load((ROOT / "conf" / "systems" / "default.yaml").read_text(encoding="utf-8"))
    return LabelMaps.from_config(conf["ner_label_maps"])


def test_ontonotes_mapping_as_the_issue_specifies(maps):
    m = {label: maps.map_label("ontonotes", label) for label in ONTONOTES}
    assert m == {"PERSON": "PER", "ORG": "ORG", "GPE": "LOC", "LOC": "LOC", "FAC": "LOC", "NORP": "MISC",
                 "EVENT": "MISC", "PRODUCT": "MISC", "WORK_OF_ART": "MISC", "LAW": "MISC", "LANGUAGE": "MISC",
                 "CARDINAL": None, "DATE": None, "MONEY": None, "ORDINAL": None, "PERCENT": None,
                 "QUANTITY": None, "TIME": None}


def test_every_scheme_of_the_systems_is_covered(maps):
    assert {k: maps.map_label("conll", k) for k in ("PER", "ORG", "LOC", "MISC")} == \
        {"PER": "PER", "ORG": "ORG", "LOC": "LOC", "MISC": "MISC"}
    assert maps.map_label("azure", "Person") == "PER" and maps.map_label("azure", "DateTime") is None
    assert maps.map_label("aws", "COMMERCIAL_ITEM") == "MISC" and maps.map_label("aws", "QUANTITY") is None
    for label in ("PERSON", "LOCATION", "ORGANIZATION", "COMMERCIAL_ITEM", "EVENT", "DATE", "QUANTITY",
                  "TITLE", "OTHER"):
        maps.map_label("aws", label)  # every DetectEntities type is in the table


def test_map_entities_relabels_and_drops(maps):
    ents = [Entity(0, 2, "PERSON"), Entity(3, 4, "DATE"), Entity(5, 6, "GPE")]
    assert maps.map_entities("ontonotes", ents) == [Entity(0, 2, "PER"), Entity(5, 6, "LOC")]


def test_unknown_labels_and_schemes_are_errors(maps):
    with pytest.raises(ConfigError, match="'SPORTS_TEAM'.*ontonotes"):
        maps.map_entities("ontonotes", [Entity(0, 1, "SPORTS_TEAM")])
    with pytest.raises(ConfigError, match="no label map for NER scheme 'klingon'"):
        maps.map_label("klingon", "PER")


def test_table_is_validated():
    with pytest.raises(ConfigError, match="maps to 'PERSON'"):
        LabelMaps(("PER",), {"x": {"A": "PERSON"}})
    with pytest.raises(ConfigError, match="unknown key"):
        LabelMaps.from_config({"target": ["PER"], "schemes": {"x": {"A": "PER"}}, "extra": 1})
    with pytest.raises(ConfigError, match="non-empty mapping"):
        LabelMaps.from_config({"target": ["PER"], "schemes": {"x": {}}})
    ok = LabelMaps.from_config({"target": ["PER"], "schemes": {"x": {"A": "PER", "B": None}}})
    assert ok.map_label("x", "B") is None
