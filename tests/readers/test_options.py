"""Reader options come from the config only: every reader takes required keyword-only options,
``readers`` in conf/datasets.yaml gives every one (caps in ``readers.limits``), a dataset's options
override them, and an option a reader does not take (or one nobody gives) is a ConfigError naming it."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from lingtest.errors import ConfigError, InputError
from lingtest.pipeline import datasets as ds
from lingtest.readers import READERS
from lingtest.readers.options import configured, configured_limits, reader_options, readers_config

CAPS = ("max_line_bytes", "max_file_bytes", "max_depth", "max_member_bytes", "max_archive_bytes", "max_items")


@pytest.fixture(scope="module")
def cfg():
    from lingtest.config import compose

    return compose()


@pytest.mark.parametrize("fmt", READERS.names())
def test_every_reader_takes_required_keyword_options_all_configured(fmt: str) -> None:
    params = inspect.signature(READERS.get(fmt)).parameters
    first, *rest = params.values()
    assert first.name == "path"
    for p in rest:
        assert p.kind is inspect.Parameter.KEYWORD_ONLY, f"{fmt}: {p.name} is not keyword-only"
        assert p.default is inspect.Parameter.empty, f"{fmt}: {p.name} has a default in code"
        assert p.kind is not inspect.Parameter.VAR_KEYWORD
    options = reader_options(fmt, readers_config())
    assert set(options) == {p.name for p in rest}  # every option given, nothing else


def test_limits_live_in_the_config_and_reach_the_readers() -> None:
    limits = configured_limits()
    assert set(limits) == set(CAPS)
    assert configured("ptb").keywords["max_depth"] == limits["max_depth"]
    assert configured("checklist").keywords["max_items"] == limits["max_items"]
    # a format's own setting wins over readers.limits (NLTK's sample members are small)
    assert configured("ptb_sample").keywords["max_member_bytes"] == 16 * 2**20 < limits["max_member_bytes"]


def test_a_configured_cap_is_applied(tmp_path: Path) -> None:
    deep = tmp_path / "deep.ptb"
    deep.write_text("(ROOT (S (NP (DT a) (NN b)) (VP (VBD c))))\n", encoding="utf-8")
    assert len(list(configured("ptb")(deep))) == 1
    shallow = {"limits": {**configured_limits(), "max_depth": 3}, "options": {"ptb": {}}}
    with pytest.raises(InputError, match="max_depth"):
        list(configured("ptb", shallow)(deep))


def test_unknown_and_missing_options_are_config_errors_naming_them() -> None:
    readers_cfg = readers_config()
    with pytest.raises(ConfigError, match="no_such_option"):
        reader_options("conll2012", readers_cfg, {"no_such_option": 1})
    with pytest.raises(ConfigError, match="scheme"):  # issue 9: no catch-all swallows it any more
        reader_options("hf_conll2003", readers_cfg, {"scheme": "auto"})
    with pytest.raises(ConfigError, match="scheme"):
        configured("hf_conll2003", scheme="auto")
    partial = {"limits": readers_cfg["limits"], "options": {"conll2003": {"scheme": "auto"}}}
    with pytest.raises(ConfigError, match="split, id_prefix, encoding, entity_types"):
        reader_options("conll2003", partial)
    with pytest.raises(ConfigError, match=r"readers\.options\.ptb is not configured"):
        reader_options("ptb", {"limits": {}, "options": {}})
    with pytest.raises(ConfigError, match=r"readers\.options\.ptb: unknown option\(s\) bogus"):
        reader_options("ptb", {"limits": {}, "options": {"ptb": {"max_depth": 9, "bogus": 1}}})


def test_a_canonical_source_with_its_own_reader_gets_only_its_own_options(cfg) -> None:
    conll2003 = ds.DatasetSpec.from_config("conll2003", cfg)
    assert conll2003.options == {"scheme": "auto"} and conll2003.source.format == "hf_conll2003"
    assert ds.canonical_options(conll2003) == {}  # CoNLL-2003's scheme is not hf_conll2003's option
    hatexplain = ds.DatasetSpec.from_config("hatexplain", cfg)
    assert ds.canonical_options(hatexplain) == {"divisions": "@root/post_id_divisions.json"}
    same_reader = conll2003.model_copy(update={"source": conll2003.source.model_copy(update={"format": None})})
    assert ds.canonical_options(same_reader) == {"scheme": "auto"}


def test_every_configured_dataset_gives_its_readers_only_options_they_take(cfg) -> None:
    from lingtest.config import to_plain

    readers_cfg = to_plain(cfg.readers)
    for name in cfg.datasets:
        spec = ds.DatasetSpec.from_config(name, cfg)
        for split in spec.splits.values():
            reader_options(spec.format, readers_cfg, spec.options, split.options, where=f"datasets.{name}")
        if spec.source.kind in ("none", "local"):
            continue
        fmt = spec.source.format or spec.format
        for split in (spec.source.splits or spec.splits).values():
            reader_options(fmt, readers_cfg, ds.canonical_options(spec), split.options,
                           where=f"datasets.{name}.source")


def test_prepare_rejects_an_option_the_reader_does_not_take(tmp_path: Path) -> None:
    root = tmp_path / "toy"
    root.mkdir()
    (root / "a.ptb").write_text("(ROOT (S (NN x)))\n", encoding="utf-8")
    manifest = ds.Manifest(dataset="toy", origin="local", root=str(root), format="ptb",
                           splits={"all": ds.SplitSpec(files=["a.ptb"])}, options={"scheme": "iob1"}, files={})
    with pytest.raises(ConfigError, match=r"datasets\.toy.*scheme"):
        ds.prepare(manifest, tmp_path / "out", None, readers_config())
    ok = manifest.model_copy(update={"options": {}})
    assert ds.prepare(ok, tmp_path / "out", None, readers_config()) == {"all": 1}
