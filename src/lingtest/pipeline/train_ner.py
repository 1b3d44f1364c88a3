"""Stage body of ``train_ner``: fine-tune the packaged MiniLM on CoNLL-2003 train into
``paths.tin.ner_model`` (the ``minilm_ner`` system under test) and write its dev scores to
``paths.tin.ner_model_metrics``.

Kept apart from :mod:`lingtest.tin.stages` so that editing the TIN stages, transformations, filters or
repair never retrains the model: the stage reads only ``tin.train_data`` and ``tin.train_ner``
(seeded; epochs, length and batch size there; the demo profile trains one epoch on a subset).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from lingtest.config import to_plain
from lingtest.data import read_jsonl, write_json
from lingtest.data.model import Document
from lingtest.errors import MissingResourceError
from lingtest.paths import project_root
from lingtest.tracking import Tracker, numeric_metrics


def _path(p: Any) -> Path:
    path = Path(str(p))
    return path if path.is_absolute() else project_root() / path


def train_ner_stage(cfg: Any, tracker: Tracker) -> dict[str, Any]:
    from lingtest.tin.train_ner import TrainNERConfig, tagged_sentences, train_ner

    data = cfg.tin.train_data
    config = TrainNERConfig.from_mapping(cfg.tin.train_ner, "tin.train_ner")
    splits = {}
    for role, split in (("train", data.train_split), ("dev", data.dev_split)):
        path = _path(cfg.paths.prepared) / str(data.corpus) / f"{split}.jsonl"
        if not path.exists():
            raise MissingResourceError(f"{path} not found: run prepare@{data.corpus} first (dvc repro)")
        sents = tagged_sentences(list(read_jsonl(path, Document.from_dict)))
        limit = data.get(f"max_{role}_sentences")
        splits[role] = sents if limit is None else sents[: int(limit)]
    out = _path(cfg.paths.tin.ner_model)
    if out.exists():
        shutil.rmtree(out)  # a checkpoint of another configuration must not survive in part
    metrics = train_ner(config, splits["train"], splits["dev"], out)
    record = {"corpus": str(data.corpus), "config": to_plain(cfg.tin.train_ner), "data": to_plain(data),
              "metrics": metrics}
    write_json(_path(cfg.paths.tin.ner_model_metrics), record)
    tracker.log_metrics(numeric_metrics({k: v for k, v in metrics.items() if k != "labels"}, "train_ner."))
    tracker.log_artifact(str(_path(cfg.paths.tin.ner_model_metrics)))
    return metrics
