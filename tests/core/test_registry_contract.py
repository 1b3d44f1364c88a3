"""One contract over every entry of every registry (as huggingface/evaluate runs one common test over
every metric): the entry imports, implements the protocol of its registry, builds from the options
``conf/`` gives it, and rejects an option it does not take with a :class:`ConfigError` naming it.

A new entry of any registry is covered here without a line of test of its own; an entry that has no
options (a task, a metric, a dataset source) is checked for its protocol only."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from lingtest.commands.registry import REGISTRIES, registry
from lingtest.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]
UNKNOWN = "no_such_option_xyz"


@pytest.fixture(scope="module")
def conf() -> Any:
    from lingtest.config import compose

    return compose(conf_dir=ROOT / "conf")


def _plain(node: Any) -> Any:
    from lingtest.config import to_plain

    return to_plain(node)


@dataclass(frozen=True)
class Contract:
    """``protocol(entry)``: the entry is what its registry promises; ``options(conf, name)``: the
    entry's options in the composed config (None: the entry takes none); ``build``: whether building
    it here is cheap (no model load) — the unknown-option check never builds."""

    protocol: Callable[[Any], bool]
    options: Callable[[Any, str], dict[str, Any] | None] = lambda conf, name: None
    build: bool = True


def _subclass(base: str) -> Callable[[Any], bool]:
    """A class that is ``base`` or, for a ``typing.Protocol``, has every member the protocol declares."""
    mod, _, attr = base.partition(":")

    def check(obj: Any) -> bool:
        import importlib

        proto = getattr(importlib.import_module(mod), attr)
        if not isinstance(obj, type):
            return False
        if getattr(proto, "_is_protocol", False):
            members = {n for n in vars(proto) if not n.startswith("_")} | set(getattr(proto, "__annotations__", {}))
            return all(hasattr(obj, m) or m in getattr(obj, "__annotations__", {}) for m in members)
        return issubclass(obj, proto)

    return check


def _keyword_callable(obj: Any) -> bool:
    return callable(obj) and all(p.kind is not p.VAR_KEYWORD for p in inspect.signature(obj).parameters.values())


def _perturbation_options(conf: Any, name: str) -> dict[str, Any]:
    from lingtest.adversarial.perturbations import options_of

    return dict(options_of(name, _plain(conf.adversarial)))


def _proposer_options(conf: Any, name: str) -> dict[str, Any] | None:
    section = _plain(conf.crest.proposers).get(name)
    return None if section is None else dict(section)


def _parser_options(conf: Any, name: str) -> dict[str, Any] | None:
    from omegaconf import OmegaConf

    path = ROOT / "conf" / "parser" / f"{name}.yaml"
    if not path.is_file():
        return None
    data = _plain(OmegaConf.load(path))
    return {k: v for k, v in data.items() if k not in ("name", "cache", "cache_dir")}


def _reader_options(conf: Any, name: str) -> dict[str, Any] | None:
    from lingtest.readers.options import reader_options

    return reader_options(name, _plain(conf.readers))


def _oracle_options(conf: Any, name: str) -> dict[str, Any] | None:
    opts = _plain(conf.crest.oracle)
    return {k: v for k, v in opts.items() if k != "name"} if opts.get("name") == name else None


def _transformation_options(conf: Any, name: str) -> dict[str, Any] | None:
    section = _plain(conf.tin.transformations)
    return dict(section[name]) if name in section else None


def _fill_options(section: str) -> Callable[[Any, str], dict[str, Any] | None]:
    """A fill proposer's keys of a technique's flat fill section (``tin.fill``, ``s2lct.expansion.fill``)."""

    def options(conf: Any, name: str) -> dict[str, Any] | None:
        from omegaconf import OmegaConf

        data = _plain(OmegaConf.select(conf, section))
        entry = registry("s2lct fill proposer" if section.startswith("s2lct") else "fill proposer").get(name)
        return {k: data[k] for k in entry.Config.model_fields if k in data}

    return options


CONTRACTS: dict[str, Contract] = {
    "task": Contract(lambda t: _subclass("lingtest.systems.tasks:Task")(type(t)) or _subclass(
        "lingtest.systems.tasks:Task")(t)),
    "expectation": Contract(_subclass("lingtest.suite.expectations:Expectation")),
    "oracle": Contract(lambda o: callable(getattr(o, "check", None)), _oracle_options),
    "stage": Contract(lambda f: callable(f) and "ctx" in inspect.signature(f).parameters),
    "dataset source": Contract(callable),
    "reader": Contract(_keyword_callable, _reader_options),
    "parser": Contract(_subclass("lingtest.parsing.base:Parser"), _parser_options, build=False),
    "metric": Contract(callable),
    "sentence embedder": Contract(callable),
    "language-model scorer": Contract(callable),
    "perturbation": Contract(_subclass("lingtest.adversarial.perturbations.base:Perturbation"),
                             _perturbation_options),
    "candidate proposer": Contract(_subclass("lingtest.resources.candidates.base:Proposer"), _proposer_options,
                                   build=False),
    "fill proposer": Contract(lambda c: isinstance(getattr(c, "Config", None), type), _fill_options("tin.fill")),
    "s2lct fill proposer": Contract(lambda c: isinstance(getattr(c, "Config", None), type),
                                    _fill_options("s2lct.expansion.fill")),
    "tin transformation": Contract(lambda c: isinstance(getattr(c, "Config", None), type)
                                   and isinstance(getattr(c, "label", None), str), _transformation_options,
                                   build=False),
    "crest baseline": Contract(lambda c: isinstance(getattr(c, "Config", None), type)
                               and callable(getattr(c, "generate", None)),
                               lambda conf, name: _plain(conf.crest_baselines)[name], build=False),
}
ENTRIES = [(title, name) for title in REGISTRIES if title != "system under test"
           for name in registry(title).names()]


def test_every_registry_has_a_contract():
    assert set(REGISTRIES) - {"system under test"} == set(CONTRACTS)


@pytest.mark.parametrize("title,name", ENTRIES)
def test_entry_imports_and_implements_its_protocol(title, name):
    entry = registry(title).get(name)
    assert CONTRACTS[title].protocol(entry), f"{title} {name!r} ({entry!r}) does not implement its protocol"


@pytest.mark.parametrize("title,name", ENTRIES)
def test_entry_builds_from_its_config_and_rejects_an_unknown_option(title, name, conf):
    contract = CONTRACTS[title]
    options = contract.options(conf, name)
    if options is None:
        pytest.skip(f"{title} {name!r} takes no options from conf/")
    reg = registry(title)
    entry = reg.get(name)
    if isinstance(getattr(entry, "Config", None), type):  # a typed config: validated before anything runs
        from lingtest.config import validate

        validate(entry.Config, options, f"{title} {name}")
        with pytest.raises(ConfigError, match=UNKNOWN):
            validate(entry.Config, {**options, UNKNOWN: 1}, f"{title} {name}")
        return
    if title == "reader":
        from lingtest.readers.options import reader_options

        with pytest.raises(ConfigError, match=UNKNOWN):
            reader_options(name, _plain(conf.readers), {UNKNOWN: 1})
        return
    if contract.build:
        assert reg.build(name, options) is not None
    with pytest.raises(ConfigError, match=UNKNOWN):
        reg.build(name, {**options, UNKNOWN: 1})


@pytest.mark.parametrize("task", ["coref", "ner", "classification", "contrastive"])
def test_every_configured_system_rejects_an_unknown_option(task, conf):
    """Systems are built by :func:`lingtest.systems.entries.instantiate` (the options are checked before
    any model loads); that they build from conf/ is ``test_registries.py``'s."""
    from lingtest.systems.entries import instantiate, system_entry, with_defaults

    systems = _plain(conf.systems)
    for name in systems[task]:
        entry = with_defaults(systems, system_entry(systems, task, name))
        with pytest.raises(ConfigError, match=UNKNOWN):
            instantiate(task, name, {**entry, UNKNOWN: 1}, "cpu")


@pytest.mark.parametrize("name", sorted(REGISTRIES["stage"] and registry("stage").names()))
def test_every_stage_validates_its_typed_config(name, conf):
    """A stage body that declares ``config: <Section>`` gets it validated from conf/ once; an unknown key in
    that section is a ConfigError before the body runs."""
    import typing

    from omegaconf import OmegaConf

    fn = registry("stage").get(name)
    hints = typing.get_type_hints(fn)
    if "config" not in hints:
        pytest.skip(f"stage {name} reads no technique section")
    model = hints["config"]
    model.from_config(conf)
    if model.model_config.get("extra") == "ignore":  # a partial view (e.g. TIN's training keys only)
        whole = {typing.get_type_hints(registry("stage").get(n)).get("config") for n in registry("stage").names()}
        assert any(m is not None and m is not model and m.section == model.section
                   and m.model_config.get("extra") == "forbid" for m in whole), \
            f"stage {name}: {model.__name__} ignores unknown keys and no stage validates {model.section} whole"
        return
    bad = OmegaConf.merge(conf, {})
    OmegaConf.set_struct(bad, False)
    bad[model.section][UNKNOWN] = 1
    with pytest.raises(ConfigError, match=UNKNOWN):
        model.from_config(bad)
