"""A common test over every registry entry: it imports, implements its protocol, builds from its config."""

from __future__ import annotations

from pathlib import Path

import pytest

from lingtest.commands.registry import REGISTRIES, all_registries, registry

ROOT = Path(__file__).resolve().parents[2]
ENTRIES = [(title, name) for title in REGISTRIES for name in registry(title).names()
           if title != "system under test"]


@pytest.mark.parametrize("title,name", ENTRIES)
def test_every_entry_imports(title, name):
    obj = registry(title).get(name)
    assert callable(obj) or isinstance(obj, type), f"{title} {name!r} is {obj!r}"


@pytest.mark.parametrize("task", ["coref", "ner", "classification", "contrastive"])
def test_every_system_implements_its_task_protocol_and_builds_from_conf(task):
    from lingtest.config import compose, to_plain
    from lingtest.errors import MissingResourceError
    from lingtest.systems import SYSTEMS
    from lingtest.systems.base import System
    from lingtest.systems.entries import instantiate
    from lingtest.systems.tasks import get_task

    assert get_task(task).name == task
    conf = to_plain(compose(conf_dir=ROOT / "conf").systems[task]) or {}
    kinds = {str(entry.get("kind", name)) for name, entry in conf.items()}
    for name in SYSTEMS.names(task):
        cls = SYSTEMS.get(task, name)
        assert issubclass(cls, System) and cls.task == task, f"{task}/{name}"
        assert name in kinds, f"no entry of kind {name!r} under systems.{task} in conf/systems/default.yaml"
    for name, entry in conf.items():
        entry = dict(entry)
        if name == "sieve":
            entry["use_wordnet"] = False  # no WordNet load in a unit test
        try:
            system = instantiate(task, name, entry, "cpu")  # constructing never loads a model
        except MissingResourceError as exc:  # a system trained by a pipeline stage, not trained yet
            assert str(entry.get("path")) in str(exc), exc
            continue
        except OSError:  # a hub model that loads at construction: offline, only its id is checked
            assert "/" in str(entry.get("model", "")), f"systems.{task}.{name} failed offline"
            continue
        assert system.name == name


def test_the_registry_command_lists_every_registry():
    from typer.testing import CliRunner

    from lingtest.cli import app

    out = CliRunner().invoke(app, ["registry"]).output
    for title, names in all_registries().items():
        assert f"{title}: " in out and all(n in out for n in names)


def test_the_stage_expectation_and_task_registries_are_complete():
    got = all_registries()
    assert {"coref", "ner", "classification", "contrastive"} == set(got["task"])
    assert {"invariance", "label", "direction", "oracle", "contrastive"} <= set(got["expectation"])
