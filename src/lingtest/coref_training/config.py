"""The neural coreference training's configuration (``conf/coref_training/default.yaml``,
``cfg.coref_training``), typed: every key a field, no defaults here (they live in conf/), unknown keys
rejected. Validated once when a ``coref_train*`` stage starts."""

from __future__ import annotations

from lingtest.config import Section
from lingtest.systems.coref.neural.trainer import TrainCorefConfig


class CorefTrainingConfig(Section):
    section = "coref_training"

    variants: list[str]
    train_split: str
    dev_split: str
    max_train_documents: int | None
    max_dev_documents: int | None
    seed: int
    train: TrainCorefConfig  # the trainer's own typed options (it checks their ranges)

