"""A corpus on disk is a source, and $LINGTEST_MIRROR wins over the profile's mirror."""

from __future__ import annotations

import pytest

from lingtest.errors import MissingResourceError
from lingtest.paths import mirror_root
from lingtest.pipeline.datasets import DatasetSpec, download


def _spec(path):
    return DatasetSpec(name="litbank", task="coref", format="conll_coref",
                       source={"kind": "local", "path": str(path)}, splits={"test": {"files": ["*.conll"]}})


def test_local_source_is_read_in_place_with_or_without_network(tmp_path):
    corpus = tmp_path / "litbank"
    corpus.mkdir()
    (corpus / "a.conll").write_text("#begin document (a);\nx\t(0)\n#end document\n", encoding="utf-8")
    for network in (False, True):
        m = download(_spec(corpus), network=network, mirror=None, raw_dir=tmp_path / "raw")
        assert m.origin == "local" and list(m.files) == ["a.conll"] and not (tmp_path / "raw").exists()
    with pytest.raises(MissingResourceError, match="not found"):
        download(_spec(tmp_path / "missing"), network=False, mirror=None, raw_dir=tmp_path / "raw")


def test_unknown_source_keys_are_errors(tmp_path):
    with pytest.raises(ValueError, match="pathh"):
        DatasetSpec(name="x", task="coref", format="conll_coref", source={"kind": "local", "pathh": "x"},
                    splits={"test": {"files": ["*"]}})


def test_the_environment_mirror_wins_over_the_configured_one(tmp_path, monkeypatch):
    env, conf = tmp_path / "env", tmp_path / "conf"
    env.mkdir()
    conf.mkdir()
    monkeypatch.setenv("LINGTEST_MIRROR", str(env))
    assert mirror_root(conf) == env.resolve()
    monkeypatch.delenv("LINGTEST_MIRROR")
    assert mirror_root(conf) == conf.resolve()
