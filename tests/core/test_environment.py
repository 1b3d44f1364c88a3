"""The environment record of runs and releases (lingtest.environment)."""

from __future__ import annotations

import hashlib
import os
import platform
import re
import sys
from importlib import metadata
from pathlib import Path

from lingtest.environment import (
    ABSENT,
    KEY_PACKAGES,
    LOCK_FILES,
    as_tags,
    describe,
    lock_digests,
    package_versions,
    torch_runtime,
)

ROOT = Path(__file__).resolve().parents[2]


def test_describe_records_python_packages_platform_cpu_git_and_lock():
    env = describe(ROOT, load_torch=False)
    assert env["python"] == platform.python_version()
    assert env["machine"] == platform.machine()
    assert env["cpu"]["count"] == os.cpu_count() and 1 <= env["cpu"]["usable"] <= env["cpu"]["count"]
    assert env["cpu"]["model"] and env["cpu"]["model"] != "unknown"
    for name in ("torch", "transformers", "spacy", "numpy", "sentence-transformers", "mlflow", "dvc",
                 "lingtest"):
        assert name in KEY_PACKAGES
        assert env["packages"][name] == metadata.version(name)
    assert re.fullmatch(r"[0-9a-f]{40}", env["git"]["commit"]) and isinstance(env["git"]["dirty"], bool)
    assert set(env["lock"]) == set(LOCK_FILES)
    lock = ROOT / "requirements" / "lock.txt"
    assert env["lock"]["requirements/lock.txt"] == hashlib.sha256(lock.read_bytes()).hexdigest()
    assert set(env["thread_env"]) >= {"OMP_NUM_THREADS", "MKL_NUM_THREADS"}


def test_describe_outside_a_checkout(tmp_path):
    env = describe(tmp_path, packages=["numpy", "surely-not-installed-pkg"], load_torch=False)
    assert env["git"] == {"commit": "unknown", "dirty": False}
    assert env["lock"] == {rel: ABSENT for rel in LOCK_FILES}
    assert env["packages"] == {"numpy": metadata.version("numpy"), "surely-not-installed-pkg": ABSENT}
    assert describe(None, packages=[], load_torch=False)["lock"] == {}


def test_torch_runtime_threads_and_gpu():
    import torch

    info = torch_runtime(load=True)
    assert info["loaded"] is True
    assert info["num_threads"] == torch.get_num_threads() and info["num_interop_threads"] >= 1
    assert info["cuda_available"] == torch.cuda.is_available()
    assert info["cuda_build"] == (torch.version.cuda or "none")
    assert len(info["gpus"]) == (torch.cuda.device_count() if torch.cuda.is_available() else 0)


def test_torch_is_not_imported_unless_asked(monkeypatch):
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_Refuse("torch"), *sys.meta_path])
    assert torch_runtime(load=False) == {"loaded": False}
    assert describe(None, packages=["torch"], load_torch=False)["torch"] == {"loaded": False}
    got = torch_runtime(load=True)  # a broken torch is reported, not raised
    assert got["loaded"] is False and "refused" in got["error"]


class _Refuse:
    """An import hook that makes one module unimportable."""

    def __init__(self, name: str) -> None:
        self.name = name

    def find_spec(self, fullname, path=None, target=None):
        if fullname == self.name:
            raise ImportError(f"{fullname} refused by the test")
        return None


def test_as_tags_flattens_to_strings():
    env = {"python": "3.11.7", "cpu": {"count": 2, "model": "X"},
           "torch": {"gpus": ["A", "B"], "loaded": True}, "git": {"dirty": False}, "empty": {}}
    assert as_tags(env) == {"env.python": "3.11.7", "env.cpu.count": "2", "env.cpu.model": "X",
                            "env.torch.gpus": "A, B", "env.torch.loaded": "True", "env.git.dirty": "False"}
    assert as_tags({"a": 1}, prefix="") == {"a": "1"}


def test_package_versions_and_lock_digests(tmp_path):
    assert package_versions(["pytest", "no-such-dist-xyz"]) == {"pytest": metadata.version("pytest"),
                                                               "no-such-dist-xyz": ABSENT}
    (tmp_path / "requirements").mkdir()
    (tmp_path / "requirements" / "lock.txt").write_bytes(b"numpy==2\n")
    got = lock_digests(tmp_path)
    assert got["requirements/lock.txt"] == hashlib.sha256(b"numpy==2\n").hexdigest()
    assert got["requirements/models.txt"] == ABSENT
