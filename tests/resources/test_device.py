"""pick_device / default_batch_size with CUDA availability faked through monkeypatch."""

from __future__ import annotations

import pytest
import torch

from lingtest.errors import MissingResourceError
from lingtest.resources.device import default_batch_size, pick_device, resolve_batch_size


@pytest.fixture
def fake_cuda(monkeypatch):
    def set_(available: bool, count: int = 0) -> None:
        monkeypatch.setattr(torch.cuda, "is_available", lambda: available)
        monkeypatch.setattr(torch.cuda, "device_count", lambda: count)

    return set_


def test_auto_prefers_cuda_when_available(fake_cuda):
    fake_cuda(True, 1)
    assert pick_device("auto") == "cuda"
    assert pick_device(None) == "cuda"


def test_auto_falls_back_to_cpu(fake_cuda):
    fake_cuda(False)
    assert pick_device("auto") == "cpu"
    assert pick_device("") == "cpu"


def test_cpu_is_honoured_even_with_a_gpu(fake_cuda):
    fake_cuda(True, 2)
    assert pick_device("cpu") == "cpu"
    assert pick_device("CPU") == "cpu"


def test_explicit_cuda_index(fake_cuda):
    fake_cuda(True, 2)
    assert pick_device("cuda:1") == "cuda:1"
    assert pick_device("cuda") == "cuda"
    with pytest.raises(MissingResourceError, match="only 2 CUDA"):
        pick_device("cuda:2")


def test_cuda_requested_without_gpu_fails_loudly(fake_cuda):
    fake_cuda(False)
    with pytest.raises(MissingResourceError, match="CUDA is not available"):
        pick_device("cuda:0")


def test_unknown_device():
    with pytest.raises(ValueError, match="unknown device"):
        pick_device("tpu")


def test_default_batch_size():
    assert default_batch_size("cpu") == 8
    assert default_batch_size("cpu", cpu=3, cuda=99) == 3
    assert default_batch_size("cuda:1", cpu=3, cuda=99) == 99
    assert default_batch_size("cuda", cpu=3, cuda=99) == 99
    with pytest.raises(ValueError):
        default_batch_size("cpu", cpu=0)


def test_resolve_batch_size():
    assert resolve_batch_size(None, "cuda", cpu=2, cuda=5) == 5
    assert resolve_batch_size(7, "cuda", cpu=2, cuda=5) == 7
    with pytest.raises(ValueError):
        resolve_batch_size(0, "cpu")


def test_attention_guard_keeps_cpu_attention_and_limits_cuda_to_the_math_kernel():
    torch = pytest.importorskip("torch")
    from lingtest.resources.device import attention_guard

    cuda = torch.backends.cuda
    before = (cuda.math_sdp_enabled(), cuda.mem_efficient_sdp_enabled(), cuda.flash_sdp_enabled())
    with attention_guard("cpu"):
        assert (cuda.math_sdp_enabled(), cuda.mem_efficient_sdp_enabled(), cuda.flash_sdp_enabled()) == before
    for device in ("cuda", "cuda:1"):
        with attention_guard(device):
            assert cuda.math_sdp_enabled()
            assert not cuda.mem_efficient_sdp_enabled()
            assert not cuda.flash_sdp_enabled()
            assert not cuda.cudnn_sdp_enabled()
        assert (cuda.math_sdp_enabled(), cuda.mem_efficient_sdp_enabled(), cuda.flash_sdp_enabled()) == before
