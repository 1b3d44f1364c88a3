"""Choosing the torch device and a batch size that fits it.

``pick_device("auto")`` gives ``"cuda"`` when a GPU is visible and ``"cpu"`` otherwise; explicit
choices (``"cpu"``, ``"cuda"``, ``"cuda:1"``, ``"mps"``) are honoured and checked, so a config that
asks for a GPU on a machine without one fails loudly instead of silently running for hours on CPU.
"""

from __future__ import annotations

import contextlib
import re
from typing import Any

from lingtest.errors import MissingResourceError

_CUDA_RE = re.compile(r"^cuda(?::(\d+))?$")


def pick_device(preference: str | None = "auto") -> str:
    """Resolve a device preference to a torch device string.

    ``"auto"`` (or ``None``/empty): ``"cuda"`` when ``torch.cuda.is_available()``, else ``"cpu"``.
    ``"cpu"``: always ``"cpu"``. ``"cuda"`` / ``"cuda:N"``: returned as given when that GPU exists,
    else :class:`MissingResourceError`. ``"mps"``: Apple GPUs, checked the same way.
    """
    pref = (preference or "auto").strip().lower()
    if pref == "cpu":
        return "cpu"
    import torch

    if pref == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    m = _CUDA_RE.match(pref)
    if m:
        if not torch.cuda.is_available():
            raise MissingResourceError(
                f"device {preference!r} requested but CUDA is not available; use device='auto' or 'cpu', "
                "or install a CUDA build of torch (https://pytorch.org/get-started/locally/)"
            )
        index = int(m.group(1) or 0)
        count = torch.cuda.device_count()
        if index >= count:
            raise MissingResourceError(
                f"device {preference!r} requested but only {count} CUDA device(s) exist")
        return pref
    if pref == "mps":
        mps = getattr(torch.backends, "mps", None)
        if mps is None or not mps.is_available():
            raise MissingResourceError("device 'mps' requested but the MPS backend is not available")
        return "mps"
    raise ValueError(f"unknown device {preference!r}; expected 'auto', 'cpu', 'cuda', 'cuda:N' or 'mps'")


def default_batch_size(device: str, cpu: int = 8, cuda: int = 64) -> int:
    """The batch size to use on ``device``: ``cuda`` for GPUs (``cuda``, ``cuda:N``, ``mps``), ``cpu``
    otherwise. Both must be positive."""
    if cpu < 1 or cuda < 1:
        raise ValueError(f"batch sizes must be positive, got cpu={cpu}, cuda={cuda}")
    return cuda if device.startswith(("cuda", "mps")) else cpu


def resolve_batch_size(batch_size: int | None, device: str, cpu: int = 8, cuda: int = 64) -> int:
    """``batch_size`` when given (must be positive), else :func:`default_batch_size`."""
    if batch_size is None:
        return default_batch_size(device, cpu=cpu, cuda=cuda)
    if int(batch_size) < 1:
        raise ValueError(f"batch_size must be positive, got {batch_size}")
    return int(batch_size)


def attention_guard(device: str) -> contextlib.AbstractContextManager[Any]:
    """The context a causal LM's forward passes run in: on CUDA, scaled-dot-product attention through
    its math backend only; elsewhere nothing changes.

    PyTorch's fused memory-efficient kernel returns wrong rows for some inputs with an explicit mask
    and key/values broadcast across the heads of a grouped-query model such as Gemma-3 when the key
    length is one more than a multiple of 32 (pytorch/pytorch#191937). On an H200, packed scoring
    differed from the CPU by up to 2.2 nats and changed 2 of 946 ContraPro choices
    (``bench/results/gpu_stages.json``), likely for that reason; the math backend is the reference
    implementation. CPU attention is left as it is, so CPU results keep their bits."""
    if not str(device).startswith("cuda"):
        return contextlib.nullcontext()
    from torch.nn.attention import SDPBackend, sdpa_kernel

    return sdpa_kernel([SDPBackend.MATH])
