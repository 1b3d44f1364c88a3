"""The prediction cache's batching: length-sorted batches, batch sizes by device, per-item failures that
keep the rest (later batches included) and never reach the cache, and a pluggable batch runner."""

from __future__ import annotations

import pytest
from omegaconf import OmegaConf

from lingtest.errors import ConfigError
from lingtest.store import JSONStore
from lingtest.systems.base import ItemFailure, PartialFailure
from lingtest.systems.cache import CachedSystem, InProcess
from lingtest.systems.entries import device_batch_size
from lingtest.systems.factory import build_system
from tests.fakes import FakeClassifier

TEXTS = ["a much longer good text here", "bad", "good good", "an awful and long review", "ok", "great film"]


class Recording(FakeClassifier):
    def __init__(self, fail: str = "") -> None:
        super().__init__()
        self.batches: list[list[str]] = []
        self.fail = fail

    def predict(self, inputs):
        self.batches.append(list(inputs))
        out = super().predict(inputs)
        return [ItemFailure(f"no {t}") if self.fail and self.fail in t else o for t, o in zip(inputs, out,
                                                                                           strict=True)]


def classify(texts):
    return FakeClassifier().predict(texts)


def test_length_sorted_batches_return_outputs_in_input_order():
    plain = CachedSystem(Recording(), None, batch_size=2).predict(TEXTS)
    rec = Recording()
    sorted_ = CachedSystem(rec, None, batch_size=2, sort_by_length=True).predict(TEXTS)
    assert sorted_ == plain
    lengths = [len(t) for b in rec.batches for t in b]
    assert lengths == sorted(lengths) and rec.batches[0] == ["ok", "bad"]


def test_equal_lengths_keep_input_order():
    rec = Recording()
    CachedSystem(rec, None, batch_size=10, sort_by_length=True).predict(["bb", "aa", "c", "dd"])
    assert rec.batches == [["c", "bb", "aa", "dd"]]


def test_item_failures_skip_the_cache_and_later_batches_still_run(tmp_path):
    store = JSONStore(tmp_path / "p.sqlite")
    rec = Recording(fail="good")
    sys_ = CachedSystem(rec, store, batch_size=2)
    with pytest.raises(PartialFailure, match="2 of 6") as info:
        sys_.predict(TEXTS)
    assert len(rec.batches) == 3 and len(store) == 4 and sys_.failed == 2
    assert sorted(info.value.failures) == [0, 2]
    assert isinstance(info.value.outputs[0], ItemFailure) and info.value.outputs[1] == {"negative": 1.0,
                                                                                       "positive": 0.0}
    # fixed system, warm cache: only the failed inputs are predicted again
    again = Recording()
    out = CachedSystem(again, store, batch_size=10).predict(TEXTS)
    assert sum(len(b) for b in again.batches) == len(info.value.failures)
    assert out == CachedSystem(Recording(), None).predict(TEXTS)


def test_a_runner_decides_where_batches_run():
    class Reversed(InProcess):
        def run(self, batches):
            for i in reversed(range(len(batches))):
                yield i, self.system.predict(batches[i])

    inner = Recording()
    out = CachedSystem(inner, None, batch_size=2, runner=Reversed(inner)).predict(TEXTS)
    assert out == CachedSystem(Recording(), None, batch_size=2).predict(TEXTS)
    assert inner.batches[0] == TEXTS[4:]


def test_batch_sizes_by_device():
    assert device_batch_size({"cpu": 4, "cuda": 32}, "cuda:1", "x") == 32
    assert device_batch_size({"cpu": 4, "cuda": 32}, "cpu", "x") == 4
    assert device_batch_size(7, "cuda", "x") == 7
    for bad in ({"cuda": 3}, 0, True, "8"):
        with pytest.raises(ConfigError):
            device_batch_size(bad, "cpu", "x")


def test_factory_reads_sort_and_per_entry_device_batch_sizes(tmp_path):
    cfg = OmegaConf.create({"resources": {"device": "cpu"}, "executor": {"name": "local"},
                            "systems": {"cache": False, "cache_dir": None, "batch_size": {"cpu": 3, "cuda": 9},
                                        "sort_by_length": True,
                                        "classification": {"a": {"kind": "callable", "io": "json",
                                                                 "version": None, "options": {},
                                                                 "function": "tests.execution.test_batching:classify",
                                                                 "batch_size": {"cpu": 5, "cuda": 50}}}}})
    s = build_system(cfg, "classification", "a")
    assert s.batch_size == 5 and s.sort_by_length
    cfg.executor.name = "spark"
    with pytest.raises(ConfigError, match="executor.name"):
        build_system(cfg, "classification", "a")
