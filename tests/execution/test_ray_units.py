"""The Ray executor's parts that need no cluster: the actor-side batch predictor (outputs and exceptions
travel pickled), the executor options and the pool size."""

from __future__ import annotations

import pickle
from types import SimpleNamespace

import pytest

from lingtest.errors import ConfigError
from lingtest.execution import executor_options, pool_size
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
