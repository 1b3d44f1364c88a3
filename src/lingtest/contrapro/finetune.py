"""Fine-tuning a Hugging Face encoder-decoder translation model (Marian ``Helsinki-NLP/opus-mt-en-de``)
on parallel lines - the AFA sets of :mod:`lingtest.contrapro.afa` - as the paper fine-tuned its
CONCAT model: teacher-forced cross-entropy, AdamW, a fixed number of epochs over seeded shuffles.
The training loop is a pure function of (model, tokenizer, pairs, options); the stage
(``contrapro_finetune@<set>``, hub profile only: it downloads the model and wants a GPU) saves the
model, its tokenizer and ``training.json`` (options, loss per epoch) for the ``hf_seq2seq`` scorer.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import model_validator

from lingtest.config import Block


class FinetuneOptions(Block):
    """The training options of ``contrapro.afa.finetune`` (typed, checked; no defaults here)."""

    epochs: int
    learning_rate: float
    batch_size: int
    max_length: int
    seed: int
    weight_decay: float
    warmup_steps: int

    @model_validator(mode="after")
    def _in_range(self) -> FinetuneOptions:
        if self.epochs < 1 or self.batch_size < 1 or self.max_length < 4 or self.learning_rate <= 0:
            raise ValueError(f"bad fine-tuning options: {self}")
        return self


def batches(n: int, batch_size: int, seed: int, epoch: int) -> list[list[int]]:
    """Indices of one epoch, shuffled with ``(seed, epoch)``, cut into batches."""
    order = list(range(n))
    random.Random(f"{seed}:{epoch}").shuffle(order)
    return [order[i:i + batch_size] for i in range(0, n, batch_size)]


def encode(tokenizer: Any, pairs: Sequence[tuple[str, str]], max_length: int) -> dict[str, Any]:
    """Padded source ids/mask and labels (padding set to -100, ignored by the loss)."""
    enc = tokenizer([s for s, _ in pairs], text_target=[t for _, t in pairs], padding=True, truncation=True,
                    max_length=max_length, return_tensors="pt")
    labels = enc["labels"]
    labels[labels == tokenizer.pad_token_id] = -100
    return {"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"], "labels": labels}


def finetune(model: Any, tokenizer: Any, pairs: Sequence[tuple[str, str]], options: FinetuneOptions, *,
             device: str = "cpu", on_step: Callable[[int, float], None] | None = None) -> dict[str, Any]:
    """Train ``model`` in place on ``pairs``; returns the options and the mean loss per epoch. Runs inside
    :func:`~lingtest.resources.finetuning.deterministic_training` (seeded with ``options.seed``, torch's
    default threads)."""
    from lingtest.resources.finetuning import deterministic_training

    if not pairs:
        raise ValueError("no training pairs")
    with deterministic_training(options.seed, None):
        return _finetune(model, tokenizer, pairs, options, device=device, on_step=on_step)


def _finetune(model: Any, tokenizer: Any, pairs: Sequence[tuple[str, str]], options: FinetuneOptions, *,
              device: str, on_step: Callable[[int, float], None] | None) -> dict[str, Any]:
    import torch

    model.to(device).train()
    opt = torch.optim.AdamW(model.parameters(), lr=options.learning_rate, weight_decay=options.weight_decay)
    total = options.epochs * -(-len(pairs) // options.batch_size)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda step: min(1.0, (step + 1) / max(1, options.warmup_steps)) if options.warmup_steps else 1.0)
    losses = []
    step = 0
    for epoch in range(options.epochs):
        seen = 0.0
        count = 0
        for idx in batches(len(pairs), options.batch_size, options.seed, epoch):
            batch = {k: v.to(device) for k, v in encode(tokenizer, [pairs[i] for i in idx], options.max_length).items()}
            loss = model(**batch).loss
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            seen += float(loss.detach()) * len(idx)
            count += len(idx)
            step += 1
            if on_step is not None:
                on_step(step, float(loss.detach()))
        losses.append(round(seen / count, 6))
    model.eval()
    return {"options": options.model_dump(), "pairs": len(pairs), "steps": step, "total_steps": total,
            "epoch_loss": losses}
