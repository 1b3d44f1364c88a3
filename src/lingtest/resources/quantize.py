"""Quantised copies of a loaded causal LM for CPU *scoring* (log-probabilities of given texts, never
generation).

:func:`quantize_causal_lm` turns a transformers causal LM into a quantised copy for a named
backend, described by :class:`QuantizeOptions`:

* ``"none"`` - the model itself, unchanged;
* ``"torch_dynamic_int8"`` - PyTorch dynamic quantisation (``torch.ao.quantization.quantize_dynamic``):
  the weights of the ``torch.nn.Linear`` layers stored as int8 (one scale per output row with
  ``per_channel``, else one per matrix), the activations quantised to 8 bits on the fly at every
  product, integer matrix products by the ``engine``'s kernels (``x86``/``fbgemm`` use the CPU's
  VNNI instructions where it has them). Embeddings, norms and attention scores stay float32.
  ``quantize_head`` also quantises the output head (the vocabulary projection); with tied
  embeddings the input embedding keeps its float weights either way;
* ``"torch_bf16"`` - every ``torch.nn.Linear`` (the head too with ``quantize_head``) replaced by a
  :class:`BFloat16Linear`: weights stored in bfloat16, inputs rounded to bfloat16, products
  accumulated in float32 by the CPU kernel, outputs float32. The residual stream, norms, attention
  scores and softmax stay float32 (unlike loading the whole model in bfloat16). Fast where the CPU
  multiplies bfloat16 natively (AVX-512 BF16, AMX); much slower than float32 where it does not.

A quantised head is no longer a ``torch.nn.Linear``: shared-prefix scoring then computes its
log-normaliser from full logits (:mod:`lingtest.resources.lm_head`).

:func:`quantize_options` reads the options from a config mapping (a ``quantize:`` block), naming the
field of any bad value.
"""

from __future__ import annotations

import copy
import functools
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast, get_args

from lingtest.errors import ConfigError

log = logging.getLogger(__name__)

# ``BFloat16Linear`` is importable too; it is defined on first access, with torch
__all__ = ["BACKENDS", "ENGINES", "NATIVE_BF16_FLAGS", "PRECISIONS", "QuantBackend", "QuantizeOptions",
           "check_precision", "native_bf16", "quantize_causal_lm", "quantize_options", "quantized_linear_names",
           "resolve_precision"]

QuantBackend = Literal["none", "torch_dynamic_int8", "torch_bf16"]
QuantEngine = Literal["x86", "fbgemm", "onednn", "qnnpack"]

#: the backends :func:`quantize_causal_lm` knows
BACKENDS: tuple[str, ...] = get_args(QuantBackend)
#: PyTorch quantised engines that ``torch_dynamic_int8`` may use (those this torch build supports)
ENGINES: tuple[str, ...] = get_args(QuantEngine)
#: CPU flags (``/proc/cpuinfo``) of native bfloat16 matrix products
NATIVE_BF16_FLAGS = ("avx512_bf16", "amx_bf16")
#: compute precisions of a transformer system under test: ``bfloat16_if_native`` is bfloat16 where the
#: device multiplies it natively (:func:`resolve_precision`), float32 elsewhere
PRECISIONS = ("float32", "bfloat16", "bfloat16_if_native")


@dataclass(frozen=True)
class QuantizeOptions:
    """How to quantise a causal LM for scoring.

    ``backend``: one of :data:`BACKENDS` (``"none"``: no change). ``quantize_head``: quantise the
    output head too (the largest matrix of a small LM with a big vocabulary; its scores drift the
    most). ``per_channel``: one weight scale per output row instead of one per matrix.
    ``engine``: the PyTorch quantised engine (``torch.backends.quantized.engine``) that packs and
    runs the int8 weights (``torch_dynamic_int8`` only; ``per_channel`` and ``engine`` do not apply to
    ``torch_bf16``)."""

    backend: QuantBackend = "none"
    quantize_head: bool = False
    per_channel: bool = True
    engine: QuantEngine = "x86"

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            raise ConfigError(f"quantize.backend: unknown backend {self.backend!r}; use one of {', '.join(BACKENDS)}")
        if self.engine not in ENGINES:
            raise ConfigError(f"quantize.engine: unknown engine {self.engine!r}; use one of {', '.join(ENGINES)}")
        for name in ("quantize_head", "per_channel"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"quantize.{name}: expected true or false, got {getattr(self, name)!r}")

    @property
    def label(self) -> str:
        """A short name of the options for logs, cache keys and benchmark tables
        (``"none"``, ``"torch_dynamic_int8[per_channel,head]"``)."""
        if self.backend == "none":
            return "none"
        if self.backend == "torch_bf16":
            return "torch_bf16[head]" if self.quantize_head else "torch_bf16"
        flags = ["per_channel" if self.per_channel else "per_tensor"]
        if self.quantize_head:
            flags.append("head")
        if self.engine != "x86":
            flags.append(self.engine)
        return f"{self.backend}[{','.join(flags)}]"


def quantize_options(cfg: Mapping[str, Any] | None, *, where: str = "quantize") -> QuantizeOptions:
    """:class:`QuantizeOptions` from a config mapping (``None`` or ``{}``: no quantisation).
    Unknown keys and bad values raise :class:`~lingtest.errors.ConfigError` naming
    ``where.<field>``."""
    if cfg is None:
        return QuantizeOptions()
    if not isinstance(cfg, Mapping):
        raise ConfigError(f"{where}: expected a mapping, got {type(cfg).__name__}")
    known = {"backend", "quantize_head", "per_channel", "engine"}
    unknown = sorted(set(cfg) - known)
    if unknown:
        raise ConfigError(f"{where}: unknown field(s) {', '.join(map(str, unknown))}; "
                          f"known: {', '.join(sorted(known))}")
    try:
        return QuantizeOptions(**{str(k): v for k, v in cfg.items()})
    except ConfigError as exc:
        raise ConfigError(str(exc).replace("quantize.", f"{where}.", 1)) from None


def quantized_linear_names(model: Any, options: QuantizeOptions) -> list[str]:
    """Qualified names of the ``torch.nn.Linear`` modules of ``model`` that ``options`` quantises:
    every one, less the output head unless ``quantize_head``. Empty for backend ``"none"``."""
    import torch

    if options.backend == "none":
        return []
    head = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    return [name for name, mod in model.named_modules()
            if isinstance(mod, torch.nn.Linear) and (options.quantize_head or mod is not head)]


@functools.cache
def _bf16_linear_class() -> type:
    """:class:`BFloat16Linear`, defined on first use so that importing this module needs no torch."""
    import torch

    class BFloat16Linear(torch.nn.Module):
        """A linear layer computed in bfloat16: the weight (and bias) stored in bfloat16, the input
        rounded to bfloat16, the product accumulated in float32 by the CPU kernel, the output
        returned in the input's dtype."""

        def __init__(self, linear: torch.nn.Linear) -> None:
            super().__init__()
            self.in_features, self.out_features = linear.in_features, linear.out_features
            self.weight = torch.nn.Parameter(linear.weight.detach().to(torch.bfloat16), requires_grad=False)
            self.bias = (None if linear.bias is None
                         else torch.nn.Parameter(linear.bias.detach().to(torch.bfloat16), requires_grad=False))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.nn.functional.linear(x.to(torch.bfloat16), self.weight, self.bias).to(x.dtype)

        def extra_repr(self) -> str:
            return f"in_features={self.in_features}, out_features={self.out_features}, dtype=bfloat16"

    return BFloat16Linear


def __getattr__(name: str) -> Any:
    """``BFloat16Linear`` on first access (torch is imported then, not with this module)."""
    if name == "BFloat16Linear":
        return _bf16_linear_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def native_bf16(flags: list[str] | None = None) -> bool:
    """Whether the CPU multiplies bfloat16 natively: one of :data:`NATIVE_BF16_FLAGS` among its
    SIMD ``flags`` (default: this machine's, :func:`lingtest.environment.cpu_simd_flags`)."""
    from lingtest.environment import cpu_simd_flags

    have = set(cpu_simd_flags() if flags is None else flags)
    return any(f in have for f in NATIVE_BF16_FLAGS)


def check_precision(dtype: Any, where: str) -> str:
    """``dtype`` when it is one of :data:`PRECISIONS`, else a :class:`ConfigError` naming ``where``."""
    if dtype not in PRECISIONS:
        raise ConfigError(f"{where}: unknown dtype {dtype!r}; use one of {', '.join(PRECISIONS)}")
    return str(dtype)


def resolve_precision(dtype: str, device: str, *, flags: list[str] | None = None) -> str:
    """The precision a model runs in on ``device``: ``float32`` or ``bfloat16`` as asked, and for
    ``bfloat16_if_native`` bfloat16 on a CPU with native bfloat16 products (:func:`native_bf16` of
    ``flags``) or a CUDA GPU that supports it, float32 anywhere else (on a CPU without them bfloat16
    is several times slower than float32)."""
    check_precision(dtype, "dtype")
    if dtype != "bfloat16_if_native":
        return dtype
    if device == "cpu":
        return "bfloat16" if native_bf16(flags) else "float32"
    if device.startswith("cuda"):
        import torch

        return "bfloat16" if torch.cuda.is_bf16_supported() else "float32"
    return "float32"


def _check_float32_cpu(model: Any, backend: str) -> None:
    import torch

    params = list(model.parameters())
    if any(p.device.type != "cpu" for p in params):
        raise ConfigError(f"quantize.backend: {backend} runs on the CPU only; load the model with device cpu")
    if any(p.dtype != torch.float32 for p in params if p.is_floating_point()):
        raise ConfigError(f"quantize.backend: {backend} needs a float32 model; load it with dtype float32")


def quantize_causal_lm(model: Any, options: QuantizeOptions) -> Any:
    """A quantised copy of the causal LM ``model`` (a float32 ``torch.nn.Module`` on the CPU) for
    ``options.backend``; ``model`` is left as it was. Backend ``"none"`` returns ``model`` itself.

    ``torch_dynamic_int8`` sets ``torch.backends.quantized.engine`` to ``options.engine`` (a
    process-wide setting that the quantised layers need when they run). The copy is in eval mode;
    its embeddings and norms keep their float32 parameters, so code that reads the compute dtype
    from ``next(model.parameters())`` still sees float32."""
    if options.backend == "none":
        return model
    import torch

    _check_float32_cpu(model, options.backend)
    names = quantized_linear_names(model, options)
    if not names:
        raise ConfigError(f"quantize.backend: {type(model).__name__} has no torch.nn.Linear layer to quantise")
    if options.backend == "torch_bf16":
        if not native_bf16():
            log.warning("quantize.backend torch_bf16: this CPU has none of %s; bfloat16 products will be "
                        "several times slower than float32", ", ".join(NATIVE_BF16_FLAGS))
        return _to_bf16_linear(model, names)
    from torch.ao.quantization import default_dynamic_qconfig, per_channel_dynamic_qconfig, quantize_dynamic

    if options.engine not in torch.backends.quantized.supported_engines:
        raise ConfigError(f"quantize.engine: {options.engine!r} is not supported by this torch build "
                          f"({', '.join(torch.backends.quantized.supported_engines)})")
    torch.backends.quantized.engine = options.engine
    qconfig = per_channel_dynamic_qconfig if options.per_channel else default_dynamic_qconfig
    out = quantize_dynamic(copy.deepcopy(model).eval(), cast(Any, dict.fromkeys(names, qconfig)),
                           dtype=torch.qint8, inplace=True)
    return out.eval()


def _to_bf16_linear(model: Any, names: list[str]) -> Any:
    """A copy of ``model`` with the linear layers ``names`` replaced by :class:`BFloat16Linear`."""
    cls = _bf16_linear_class()
    out = copy.deepcopy(model).eval()
    for name in names:
        parent_name, _, child = name.rpartition(".")
        parent = out.get_submodule(parent_name) if parent_name else out
        setattr(parent, child, cls(getattr(parent, child)))
    return out.eval()
