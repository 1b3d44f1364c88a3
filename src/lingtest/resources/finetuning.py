"""What every fine-tuning in lingtest shares: seeding, the seeded epoch batching, padding a batch,
AdamW with a linear schedule, the training loop, the torch thread setting and the fingerprint of a
saved checkpoint. Used by the NER trainer (:mod:`lingtest.tin.train_ner`) and the text-classifier
trainer (:mod:`lingtest.s2lct.training`); the systems that load their checkpoints hash them with
:func:`checkpoint_fingerprint`, so retraining invalidates cached predictions.

Every function here is deterministic given its arguments: the data order of an epoch depends only on
``(seed, epoch)``, never on what ran before, and a training runs inside :func:`deterministic_training`
(torch's deterministic algorithms, seeded generators, the configured CPU threads), so two runs on one
machine give the same weights bit for bit. Across machines the weights still differ in their last bits
where torch's kernels differ (another CPU instruction set, another torch or BLAS build, another GPU).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import random
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from lingtest.errors import ConfigError, MissingResourceError
from lingtest.metrics.wall_clock import split_wall_clock

__all__ = ["GROUP_BATCHES", "IGNORE", "CheckpointIdentity", "FineTuneConfig", "FineTuned",
           "adamw_with_linear_schedule", "checkpoint_fingerprint", "collate", "config_from_mapping",
           "deterministic_training", "epoch_batches", "fine_tune", "fit", "load_pretrained", "save_fine_tuned",
           "seed_everything", "torch_threads"]

log = logging.getLogger(__name__)

IGNORE = -100  # the label torch's cross-entropy ignores
GROUP_BATCHES = 50  # group_by_length: examples are sorted by length within runs of this many batches
_WEIGHT_FILES = ("config.json", "model.safetensors", "pytorch_model.bin")
#: cuBLAS's deterministic workspace setting (CUDA >= 10.2), which deterministic torch requires
CUBLAS_WORKSPACE = ":4096:8"


def seed_everything(seed: int) -> None:
    """Seed ``random``, ``numpy`` and ``torch`` (CPU and every CUDA device)."""
    import numpy as np
    import torch

    random.seed(seed)
    np.random.seed(seed % (2 ** 32))
    torch.manual_seed(seed)


@contextmanager
def deterministic_training(seed: int, threads: Any) -> Iterator[int]:
    """The settings under which a training runs, restored on exit: torch's deterministic algorithms
    (``torch.use_deterministic_algorithms(True)``: an operation without a deterministic implementation
    raises instead of running non-deterministically), cuDNN without benchmarking and in deterministic
    mode, ``CUBLAS_WORKSPACE_CONFIG`` set to :data:`CUBLAS_WORKSPACE` when unset (torch reads it when it
    first uses cuBLAS, so set it before the process's first CUDA matrix product: a training stage's
    is its training), torch's CPU threads from ``threads`` (:func:`torch_threads`), and ``random``,
    ``numpy`` and ``torch`` seeded with ``seed`` (:func:`seed_everything`). Yields the thread count in
    effect. Runs on one machine and software stack are then identical bit for bit."""
    import torch

    deterministic = torch.are_deterministic_algorithms_enabled()
    warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
    cudnn = (torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark)
    env_set = "CUBLAS_WORKSPACE_CONFIG" not in os.environ
    if env_set:
        os.environ["CUBLAS_WORKSPACE_CONFIG"] = CUBLAS_WORKSPACE
    try:
        torch.use_deterministic_algorithms(True)
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = False
        with torch_threads(threads) as n:
            seed_everything(seed)
            yield n
    finally:
        torch.use_deterministic_algorithms(deterministic, warn_only=warn_only)
        torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark = cudnn
        if env_set:
            os.environ.pop("CUBLAS_WORKSPACE_CONFIG", None)


def epoch_batches(lengths: Sequence[int], batch_size: int, seed: int, epoch: int,
                  group_by_length: bool) -> list[list[int]]:
    """The training batches (example indices) of one epoch, a function of its arguments only: a
    permutation drawn from a generator seeded with ``(seed, epoch)``, cut into batches. With
    ``group_by_length`` each run of ``GROUP_BATCHES * batch_size`` permuted examples is sorted by length
    (ties keep the permuted order) before it is cut, and the batches are then put in a random order of
    the same generator: far less padding (on CoNLL-2003 about 2.5x fewer subword positions per batch on
    the CPU) with batches that still differ every epoch."""
    import numpy as np

    rng = np.random.default_rng([seed, epoch])
    order = [int(i) for i in rng.permutation(len(lengths))]
    if not group_by_length:
        return [order[i:i + batch_size] for i in range(0, len(order), batch_size)]
    run = GROUP_BATCHES * batch_size
    batches: list[list[int]] = []
    for c in range(0, len(order), run):
        part = sorted(order[c:c + run], key=lambda i: lengths[i])
        batches.extend(part[i:i + batch_size] for i in range(0, len(part), batch_size))
    return [batches[int(i)] for i in rng.permutation(len(batches))]


def collate(examples: Sequence[Mapping[str, Any]], pad_id: int) -> dict[str, Any]:
    """One batch of tokenised examples as long tensors: list fields are right-padded to the longest
    (``input_ids`` with ``pad_id``, ``labels`` with :data:`IGNORE`, anything else with 0); scalar
    fields (a sequence label) become a 1-d tensor."""
    import torch

    width = max(len(e["input_ids"]) for e in examples)
    batch: dict[str, Any] = {}
    for key in examples[0]:
        if not isinstance(examples[0][key], list):
            batch[key] = torch.tensor([e[key] for e in examples], dtype=torch.long)
            continue
        fill = IGNORE if key == "labels" else pad_id if key == "input_ids" else 0
        rows = [e[key] + [fill] * (width - len(e[key])) for e in examples]
        batch[key] = torch.tensor(rows, dtype=torch.long)
    return batch


def adamw_with_linear_schedule(net: Any, *, learning_rate: float, weight_decay: float, warmup_ratio: float,
                               total_steps: int) -> tuple[Any, Any]:
    """AdamW (no weight decay on biases and LayerNorm weights) and a linear warm-up over
    ``warmup_ratio`` of ``total_steps``, then linear decay to 0."""
    import torch
    from transformers import get_linear_schedule_with_warmup

    decay = [p for n, p in net.named_parameters() if not n.endswith("bias") and "LayerNorm" not in n]
    no_decay = [p for n, p in net.named_parameters() if n.endswith("bias") or "LayerNorm" in n]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": weight_decay},
                                   {"params": no_decay, "weight_decay": 0.0}], lr=learning_rate)
    scheduler = get_linear_schedule_with_warmup(optimizer, int(warmup_ratio * total_steps), total_steps)
    return optimizer, scheduler


def fit(net: Any, examples: Sequence[Mapping[str, Any]], schedule: Sequence[Sequence[Sequence[int]]], *,
        pad_id: int, optimizer: Any, scheduler: Any, max_grad_norm: float, device: str, name: str,
        on_epoch: Callable[[int, float], None] | None = None) -> list[float]:
    """Train ``net`` (a Hugging Face model that returns ``.loss`` given ``labels``) over the batches of
    ``schedule`` (one list of index batches per epoch, :func:`epoch_batches`), clipping gradients to
    ``max_grad_norm``; returns the mean training loss of every epoch. ``on_epoch(epoch, loss)`` is
    called after each epoch (logging)."""
    import torch

    from lingtest.progress import progress

    losses = []
    for epoch, batches in enumerate(schedule):
        net.train()
        loss_sum = 0.0
        for indices in progress(batches, f"{name} epoch {epoch + 1}/{len(schedule)}"):
            batch = collate([examples[i] for i in indices], pad_id)
            loss = net(**{k: v.to(device) for k, v in batch.items()}).loss
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), max_grad_norm)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad(set_to_none=True)
            loss_sum += float(loss.detach())
        losses.append(loss_sum / len(batches))
        if on_epoch is not None:
            on_epoch(epoch, losses[-1])
    return losses


@contextmanager
def torch_threads(spec: Any) -> Iterator[int]:
    """Set torch's CPU threads from a config value (:func:`~lingtest.resources.threads.resolve_threads`:
    ``auto``, an integer or ``None`` for torch's default) and restore the previous setting on exit;
    yields the thread count in effect."""
    import torch

    from lingtest.resources.threads import resolve_threads

    threads = resolve_threads(spec)
    before = torch.get_num_threads()
    if threads is not None:
        torch.set_num_threads(threads)
    try:
        yield torch.get_num_threads()
    finally:
        torch.set_num_threads(before)


def checkpoint_fingerprint(folder: str | Path) -> str:
    """sha256 over a checkpoint folder's config and weight files (name and content)."""
    folder = Path(folder)
    h = hashlib.sha256()
    found = False
    for name in _WEIGHT_FILES + tuple(sorted(p.name for p in folder.glob("model-*.safetensors"))):
        path = folder / name
        if path.is_file():
            found = True
            h.update(name.encode())
            with path.open("rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    h.update(block)
    if not found:
        raise MissingResourceError(f"{folder} holds no Hugging Face checkpoint (config.json, model weights)")
    return h.hexdigest()


def config_from_mapping(cls: Any, data: Any, where: str) -> Any:
    """A frozen trainer-config dataclass from a config section: every field, nothing else, each of its
    annotated kind (``int``, ``float``, ``str``, ``bool``; an int is accepted for a float; ``threads``
    is ``'auto'``, a positive integer or null; an ``int | None`` field takes null). Errors name
    ``where``."""
    from lingtest.config import to_plain

    data = to_plain(data)
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where} must be a mapping")
    names = {f.name: str(f.type) for f in fields(cls)}
    unknown = sorted(set(data) - set(names))
    missing = sorted(set(names) - set(data))
    if unknown or missing:
        raise ConfigError(f"{where}: unknown key(s) {unknown}, missing key(s) {missing}")
    kinds = {"int": int, "float": float, "str": str, "bool": bool}
    values = {}
    for name, typ in names.items():
        v = data[name]
        if name == "threads":
            positive = isinstance(v, int) and not isinstance(v, bool) and v >= 1
            if v is not None and str(v) != "auto" and not positive:
                raise ConfigError(f"{where}.threads must be 'auto', a positive integer or null, "
                                  f"got {v!r}")
            values[name] = v
            continue
        optional = typ.endswith(" | None")
        if optional and v is None:
            values[name] = None
            continue
        kind = kinds[typ.removesuffix(" | None")]
        accepted = (int, float) if kind is float else kind
        if (isinstance(v, bool) and kind is not bool) or not isinstance(v, accepted):
            raise ConfigError(f"{where}.{name} must be a {kind.__name__}, got {v!r}")
        values[name] = kind(v)
    return cls(**values)


@dataclass(frozen=True)
class FineTuneConfig:
    """How an encoder is fine-tuned (one section of ``conf/``: every field, nothing else):
    ``base_model``, ``epochs``, ``max_length``, ``batch_size``, ``learning_rate``, ``warmup_ratio``,
    ``weight_decay``, ``max_grad_norm``, ``group_by_length``, ``eval_batch_size``, ``seed``, ``device``
    (``auto``/``cpu``/``cuda``), ``threads`` (see :func:`torch_threads`). Subclasses name their stage
    in ``stage`` (used in errors)."""

    stage = "fine-tuning"

    base_model: str
    epochs: int
    max_length: int
    batch_size: int
    learning_rate: float
    warmup_ratio: float
    weight_decay: float
    max_grad_norm: float
    group_by_length: bool
    eval_batch_size: int
    seed: int
    device: str
    threads: int | str | None

    def __post_init__(self) -> None:
        checks = [("epochs", self.epochs >= 1), ("max_length", self.max_length >= 3),
                  ("batch_size", self.batch_size >= 1), ("learning_rate", self.learning_rate > 0),
                  ("warmup_ratio", 0 <= self.warmup_ratio < 1), ("weight_decay", self.weight_decay >= 0),
                  ("max_grad_norm", self.max_grad_norm > 0), ("eval_batch_size", self.eval_batch_size >= 1)]
        bad = [name for name, ok in checks if not ok]
        if bad:
            raise ConfigError(f"{self.stage}: out-of-range value(s) for {', '.join(bad)}: "
                              + ", ".join(f"{n}={getattr(self, n)!r}" for n in bad))


@dataclass
class FineTuned:
    """A fine-tuned encoder: the network (in eval mode), its tokenizer, the mean training loss of every
    epoch, the optimiser steps taken and how many training items the encoding truncated."""

    net: Any
    tokenizer: Any
    losses: list[float]
    steps: int
    truncated: int


def fine_tune(config: FineTuneConfig, auto_class: Any, labels: Sequence[str],
              encode: Callable[[Any, dict[str, int]], tuple[list[dict[str, Any]], int]], device: str, *,
              name: str, started: float) -> FineTuned:
    """Load ``config.base_model`` (a packaged encoder's name, a folder or a hub id) as ``auto_class``
    (``AutoModelForTokenClassification``, ``AutoModelForSequenceClassification``) with a head over
    ``labels``, encode the training data with ``encode(tokenizer, label2id) -> (examples, truncated)``
    and train it: :func:`epoch_batches` per epoch, :func:`adamw_with_linear_schedule`, :func:`fit`.
    The caller runs it inside :func:`deterministic_training` (which seeds), so the head's initialisation
    is seeded too."""
    from transformers import AutoTokenizer

    from lingtest.resources.embeddings import resolve_embedder_model

    base = resolve_embedder_model(config.base_model)
    local = Path(base).is_dir()
    label2id = {lab: i for i, lab in enumerate(labels)}
    tokenizer = AutoTokenizer.from_pretrained(base, local_files_only=local)
    net = auto_class.from_pretrained(base, local_files_only=local, num_labels=len(labels),
                                     id2label=dict(enumerate(labels)), label2id=label2id)
    net.to(device)
    examples, truncated = encode(tokenizer, label2id)
    lengths = [len(e["input_ids"]) for e in examples]
    schedule = [epoch_batches(lengths, config.batch_size, config.seed, epoch, config.group_by_length)
                for epoch in range(config.epochs)]
    steps = sum(len(b) for b in schedule)
    optimizer, scheduler = adamw_with_linear_schedule(
        net, learning_rate=config.learning_rate, weight_decay=config.weight_decay,
        warmup_ratio=config.warmup_ratio, total_steps=steps)
    pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0

    def logged(epoch: int, loss: float) -> None:
        log.info("%s: epoch %d/%d, mean loss %.4f, %.0f s", name, epoch + 1, config.epochs, loss,
                 time.perf_counter() - started)

    losses = fit(net, examples, schedule, pad_id=pad_id, optimizer=optimizer, scheduler=scheduler,
                 max_grad_norm=config.max_grad_norm, device=device, name=name, on_epoch=logged)
    net.eval()
    return FineTuned(net, tokenizer, losses, steps, truncated)


def save_fine_tuned(model: FineTuned, out: Path, config: FineTuneConfig, device: str,
                    metrics: Mapping[str, Any]) -> None:
    """Write the checkpoint (model and tokenizer) to ``out`` with ``training.json``: the config, the
    device, the torch thread count, whether torch's deterministic algorithms were on and ``metrics``
    without its wall-clock fields (the checkpoint comes out the same on every run)."""
    import torch

    out.mkdir(parents=True, exist_ok=True)
    model.net.save_pretrained(out)
    model.tokenizer.save_pretrained(out)
    record = {"config": asdict(config), "device": device, "torch_threads": torch.get_num_threads(),
              "deterministic_algorithms": torch.are_deterministic_algorithms_enabled(),
              "metrics": split_wall_clock(metrics)[0]}
    (out / "training.json").write_text(json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def load_pretrained(auto_class: Any, model: str, *, revision: str | None, device: str, kind: str) -> tuple[Any, Any]:
    """``(model, tokenizer)`` of a checkpoint (hub id or local folder) loaded as ``auto_class``, in eval
    mode on ``device``. Raises :class:`MissingResourceError` naming ``kind`` (e.g. "token-classification")
    when it cannot be loaded."""
    from transformers import AutoTokenizer

    local = Path(model).expanduser().is_dir()
    where = str(Path(model).expanduser()) if local else model
    try:
        tok = AutoTokenizer.from_pretrained(where, revision=revision, local_files_only=local)
        net = auto_class.from_pretrained(where, revision=revision, local_files_only=local)
    except OSError as exc:
        raise MissingResourceError(
            f"cannot load {kind} model {model!r} ({exc}); a hub id is downloaded on first use "
            "(needs a network), or give a local folder") from exc
    net.eval()
    net.to(device)
    return net, tok


class CheckpointIdentity:
    """What identifies a system's weights in its cache key: the fingerprint of a local checkpoint
    folder (so retraining invalidates cached predictions), else the hub id and revision. Mixed into the
    transformer systems, which set ``model``, ``revision`` and ``_fingerprint = None``."""

    model: str
    revision: str | None
    _fingerprint: str | None

    def _local(self) -> Path | None:
        p = Path(self.model).expanduser()
        return p if p.is_dir() else None

    def checkpoint_identity(self) -> dict[str, Any]:
        local = self._local()
        if local is None:
            return {"model": self.model, "revision": self.revision}
        if self._fingerprint is None:
            self._fingerprint = checkpoint_fingerprint(local)
        return {"weights": self._fingerprint}
