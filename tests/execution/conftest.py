"""The local Ray cluster of the executor tests: ``ray.init(num_cpus=2)`` once per test module, with this
checkout on the workers' ``PYTHONPATH`` (actors import the tests' functions and fakes by reference)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def local_ray():
    ray = pytest.importorskip("ray")
    if ray.is_initialized():
        ray.shutdown()
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    env = {"PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
    if os.environ.get("NLTK_DATA"):
        env["NLTK_DATA"] = os.environ["NLTK_DATA"]
    ray.init(num_cpus=2, include_dashboard=False, configure_logging=False, runtime_env={"env_vars": env})
    yield
    ray.shutdown()
