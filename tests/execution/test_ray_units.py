"""The Ray executor's parts that need no cluster: the actor-side batch predictor (outputs and exceptions
travel pickled), the executor options (unknown keys, pool blocks) and the pool size, and the generation
partition's pieces: chunks, the generator worker built once, and the techniques' merges of chunk results
(equal to one run over everything)."""

from __future__ import annotations

import pickle
from types import SimpleNamespace

import pytest

from lingtest.errors import ConfigError
from lingtest.execution import POOL_KEYS, POOLS, executor_options, pool_options, pool_size
from lingtest.execution.ray_generate import ChunkWorker, chunked, resolve_builder, split_evenly
from lingtest.systems.base import ItemFailure

pa = pytest.importorskip("pyarrow")

ENTRY = {"kind": "callable", "function": "tests.execution.test_ray_units:score", "io": "json", "version": None,
         "options": {}}


def score(texts):
    if "boom" in texts:
        raise ValueError("model crashed")
    return [{"error": "empty"} if t == "-" else {"yes": 1.0} for t in texts]


def test_batch_predictor_returns_outputs_and_exceptions_pickled():
    from lingtest.execution.ray_inference import BatchPredictor, SystemSpec

    spec = SystemSpec("classification", "fn", ENTRY, "cpu")
    system, device = spec.build()
    assert device == "cpu" and system.name == "fn"
    udf = BatchPredictor(spec)
    table = pa.table({"index": [4, 7], "batch": [pickle.dumps(["a", "-"]), pickle.dumps(["boom"])]})
    got = udf(table)
    assert got.column("index").to_pylist() == [4, 7]
    out, err = got.column("out").to_pylist(), got.column("err").to_pylist()
    assert pickle.loads(out[0]) == [{"yes": 1.0}, ItemFailure("empty")] and err[0] == b""
    assert out[1] == b"" and isinstance(pickle.loads(err[1]), ValueError)


def test_described_system_carries_the_actor_side_key_parts():
    from lingtest.execution.ray_inference import Described, SystemSpec, describe_system

    spec = SystemSpec("classification", "fn", ENTRY, "cpu")
    d = describe_system(spec)
    remote = Described(spec, d["config"], d["version"])
    local = spec.build()[0]
    assert (remote.config(), remote.version, remote.task, remote.name) == (local.config(), local.version,
                                                                           "classification", "fn")
    with pytest.raises(Exception, match="runs on Ray actors"):
        remote.predict(["a"])


def test_executor_options_and_pool_size():
    from omegaconf import OmegaConf

    assert executor_options(OmegaConf.create({}))["name"] == "local"
    with pytest.raises(ConfigError, match="executor.name"):
        executor_options(OmegaConf.create({"executor": {"name": "spark"}}))
    fake = SimpleNamespace(cluster_resources=lambda: {"CPU": 16.0, "GPU": 4.0})
    opts = {"inference": {"actors": None, "cpus_per_actor": 2, "gpus_per_actor": 0}}
    assert pool_size(fake, opts, "inference") == 8
    opts["inference"]["gpus_per_actor"] = 1
    assert pool_size(fake, opts, "inference") == 4
    opts["inference"]["actors"] = 3
    assert pool_size(fake, opts, "inference") == 3
    opts["inference"]["actors"] = 0
    with pytest.raises(ConfigError):
        pool_size(fake, opts, "inference")


def test_unknown_executor_keys_and_incomplete_pool_blocks_are_errors():
    from omegaconf import OmegaConf

    with pytest.raises(ConfigError, match=r"unknown key\(s\) \['nodes'\]"):
        executor_options(OmegaConf.create({"executor": {"name": "ray", "nodes": 3}}))
    block = {"actors": None, "cpus_per_actor": 1, "gpus_per_actor": 0}
    assert pool_options({"generation": block}, "generation") is block
    with pytest.raises(ConfigError, match="executor.generation is not set"):
        pool_options({"crest": block}, "generation")
    with pytest.raises(ConfigError, match=r"missing \['gpus_per_actor'\], unknown \['gpus'\]"):
        pool_options({"generation": {"actors": 1, "cpus_per_actor": 1, "gpus": 1}}, "generation")
    fake = SimpleNamespace(cluster_resources=lambda: {"CPU": 4.0})
    with pytest.raises(ConfigError, match="executor.crest"):
        pool_size(fake, {"crest": {"actors": 2}}, "crest")


def test_the_composed_ray_group_has_every_pool_block():
    from lingtest.config import compose

    ex = executor_options(compose(["executor=ray"]))
    assert ex["name"] == "ray" and all(set(pool_options(ex, p)) == set(POOL_KEYS) for p in POOLS)
    assert executor_options(compose([])) == {"name": "local"}


def test_chunks_keep_the_order_and_cover_every_item():
    items = list(range(7))
    assert chunked(items, 3) == [[0, 1, 2], [3, 4, 5], [6]] and chunked(items, None) == [items]
    assert chunked([], 3) == [[]] and chunked([], None) == [[]]  # the work runs once, as a local loop would
    with pytest.raises(ConfigError, match=">= 1"):
        chunked(items, 0)
    assert split_evenly(items, 3) == [[0, 1, 2], [3, 4], [5, 6]]
    assert split_evenly(items[:2], 5) == [[0], [1]] and split_evenly([], 4) == [[]]


class Doubler:
    """A worker built from the config: counts its builds and calls."""

    builds = 0

    def __init__(self, cfg, factor):
        Doubler.builds += 1
        self.offset, self.factor, self.calls = cfg["offset"], factor, 0

    def __call__(self, chunk):
        self.calls += 1
        return [x * self.factor + self.offset for x in chunk]

    def counters(self):
        return {"builds": Doubler.builds, "calls": self.calls}


def test_a_chunk_worker_builds_its_work_once():
    Doubler.builds = 0
    w = ChunkWorker("tests.execution.test_ray_units:Doubler", {"offset": 1}, (2,))
    assert w.run([1, 2]) == [3, 5] and w.run([3]) == [7] and w.counters() == {"builds": 1, "calls": 2}
    assert ChunkWorker(lambda cfg: len, {}, ()).run([1, 2]) == 2  # a callable builder; work without counters
    assert ChunkWorker(lambda cfg: len, {}, ()).counters() == {}
    with pytest.raises(ConfigError, match="package.module:function"):
        resolve_builder("no_colon")
    with pytest.raises(ConfigError, match="cannot import"):
        resolve_builder("lingtest.no_such_module:build")


def test_tin_waves_are_configured():
    from lingtest.config import load_params, to_plain, validate
    from lingtest.paths import project_root
    from lingtest.tin.config import TinConfig

    tin = to_plain(load_params(project_root() / "params.yaml").tin)
    del tin["batch_sources"]
    with pytest.raises(ConfigError, match=r"tin\.batch_sources: Field required"):
        validate(TinConfig, tin, "tin")
    for n in (None, 8):
        assert validate(TinConfig, {**tin, "batch_sources": n}, "tin").batch_sources == n
    with pytest.raises(ConfigError, match=r"tin\.batch_sources: Input should be greater than or equal to 1"):
        validate(TinConfig, {**tin, "batch_sources": 0}, "tin")


def test_merged_chunk_results_equal_one_run():
    from lingtest.contrapro.attack import Skip, merge_outcomes, run_attack
    from lingtest.data.model import ContrastiveExample
    from lingtest.s2lct.expand import ExpansionStats
    from lingtest.tin.filters import FilterCounts
    from lingtest.tin.flow import Generated, merge_generated

    exs = [ContrastiveExample(f"e{i}", f"src {i}", f"ref {i}", [f"x {i}"]) for i in range(5)]
    fns = [("a", "odd", lambda e: e if int(e.id[1:]) % 2 else Skip(e.id, "even: no")),
           ("b", "all", lambda e: e)]

    def attack(run):
        return [run_attack(run, a, v, fn) for a, v, fn in fns]

    whole = attack(exs)
    merged = merge_outcomes([attack(run) for run in split_evenly(exs, 2)])
    assert [(m.attack, m.variant, m.examples, m.skipped) for m in merged] == \
           [(w.attack, w.variant, w.examples, w.skipped) for w in whole]
    with pytest.raises(ValueError, match="different variants"):
        merge_outcomes([attack(exs[:2]), attack(exs[2:])[::-1]])

    g1 = Generated(["c1"], {"token": FilterCounts(3, 1, 1, fit_removed=1)}, {"token": 0.5, "filters": 0.25})  # type: ignore[list-item]
    g2 = Generated(["c2", "c3"], {"token": FilterCounts(2, 0, 1), "shuffle": FilterCounts(1, 0, 0)},
                   {"token": 0.25, "filters": 0.125, "shuffle": 0.0})  # type: ignore[list-item]
    g = merge_generated([g1, g2])
    assert g.cases == ["c1", "c2", "c3"] and g.seconds == {"token": 0.75, "filters": 0.375, "shuffle": 0.0}
    assert g.counts_dict(["token", "shuffle"])["overall"] == {"generated": 6, "semantic_removed": 1,
                                                              "after_semantic": 5, "fit_removed": 1, "after_fit": 4,
                                                              "naturalness_removed": 2, "kept": 2}
    a, b = ExpansionStats(sentences=2, tried=3), ExpansionStats(sentences=1, expansions=4, extra={"x": 1})
    a.merge(b)
    assert a.to_dict()["sentences"] == 3 and a.tried == 3 and a.expansions == 4 and a.extra == {"x": 1}


def test_local_map_in_forked_workers_equals_one_process():
    """``ctx.map(..., workers=2)`` under the local executor: the chunks computed by forked workers that
    inherit the work built once here, results in chunk order, the workers' counter increments summed."""
    from omegaconf import OmegaConf

    from lingtest.execution.context import StageContext
    from lingtest.execution.forked import fork_available

    if not fork_available():
        pytest.skip("needs fork")
    cfg = OmegaConf.create({"offset": 1, "executor": {"name": "local"}})
    ctx = StageContext("toy", cfg)
    chunks = [[1, 2], [3], [4, 5, 6], [7]]
    one = ctx.map("tests.execution.test_ray_units:Doubler", chunks, args=(2,))
    two = ctx.map("tests.execution.test_ray_units:Doubler", chunks, args=(2,), workers=2, desc="toy")
    assert one[0] == two[0] == [[3, 5], [7], [9, 11, 13], [15]]
    assert one[1]["calls"] == two[1]["calls"] == 4
