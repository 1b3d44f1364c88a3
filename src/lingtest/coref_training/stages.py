"""Stage bodies of the trainable neural coreference resolver and Chai et al.'s adversarial-training
experiment; paths from ``cfg.paths.coref_training``, knobs from ``cfg.coref_training``.

* ``train_stage`` (``coref_train@<variant>``): train the mention-ranking model
  (:mod:`lingtest.systems.coref.neural`) on the configured corpus's train split and write its
  checkpoint to ``<models>/<variant>`` and its metrics to ``<training>/<variant>.json``.
  ``clean`` trains on the parsed clean documents (all, or a seeded subset of
  ``max_train_documents``); any other variant names an adversarial set (``mixed``) and trains on the
  paper's adversarial training set over the same documents: the share
  ``adversarial.overlap.adversarial_train_ratio`` of them replaced by their perturbed versions from
  ``adversarial_generate`` (seed ``adversarial.seed``; without a subset these are exactly the
  documents the overlap statistics use). Every perturbed document is checked against its clean original
  (:func:`~lingtest.systems.coref.neural.features.check_perturbed_alignment`) and parsed with the
  configured parser; its gold clusters are its own, never looked up from the clean set by key.
* ``report_stage`` (``coref_train_report``): the paper's table of the experiment (each variant's
  CoNLL F1 on the clean and every perturbed test set, from ``adversarial_score@neural_<variant>``)
  with the mention-overlap figures of ``adversarial_overlap`` beside it, and the training summary.

Evaluation itself runs through the existing per-system stages: the trained variants are systems
(``systems.coref.neural_<variant>``) listed in ``adversarial.systems`` and ``crest.systems``.
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path
from typing import Any

from lingtest.config import to_plain
from lingtest.data import Document, read_jsonl, write_json
from lingtest.errors import ConfigError, LingtestError
from lingtest.paths import configured_paths, project_root

log = logging.getLogger(__name__)

CLEAN = "clean"


def training_paths(cfg: Any) -> dict[str, Path]:
    return configured_paths(cfg.paths.coref_training)


def _load(path: Path) -> list[Document]:
    if not path.exists():
        raise LingtestError(f"{path} not found: run the stage that writes it first (dvc repro)")
    return list(read_jsonl(path, Document.from_dict))


def subset(docs: list[Document], limit: int | None, seed: int) -> list[Document]:
    """All documents, or ``limit`` of them chosen by a seeded hash of their keys (in input order)."""
    if limit is None or limit >= len(docs):
        return list(docs)
    ranked = sorted(docs, key=lambda d: hashlib.sha256(f"{seed}\x1f{d.key}".encode()).hexdigest())
    keep = {d.key for d in ranked[:limit]}
    return [d for d in docs if d.key in keep]


def parse_perturbed(perturbed: list[Document], parser: Any) -> list[Document]:
    """Parse annotation-stripped perturbed documents; each keeps its own words and gold clusters
    (checked: parsing must not move a token)."""
    parsed = parser.parse_documents(perturbed) if perturbed else []
    for src, p in zip(perturbed, parsed, strict=True):
        if p.words != src.words or [c.mentions for c in p.clusters] != [c.mentions for c in src.clusters]:
            raise LingtestError(f"parsing {src.key!r} changed its words or clusters")
    return parsed


def training_documents(cfg: Any, variant: str) -> tuple[list[Document], dict[str, Any]]:
    """The training documents of one variant and a summary of how they were made."""
    from lingtest.adversarial.apply import adversarial_training_set
    from lingtest.systems.coref.neural.features import check_perturbed_alignment

    tcfg = cfg.coref_training
    dataset = str(cfg.dataset)
    root = project_root()
    split = str(tcfg.train_split)
    # the subset first, so every variant trains on the same documents (the mixed variant replaces the
    # ratio of *them*); with no limit this is the whole split and the choice is adversarial_overlap's
    clean = subset(_load(root / str(cfg.paths.parsed) / dataset / f"{split}.jsonl"), tcfg.max_train_documents,
                   int(tcfg.seed))
    info: dict[str, Any] = {"variant": variant, "split": split}
    if variant == CLEAN:
        docs = clean
        info["perturbed_documents"] = 0
    else:
        if variant not in [str(s) for s in cfg.adversarial.sets]:
            raise ConfigError(f"coref_training.variants: {variant!r} is neither 'clean' nor one of adversarial.sets "
                              f"({', '.join(str(s) for s in cfg.adversarial.sets)})")
        sets = Path(str(cfg.paths.adversarial.sets))
        sets = sets if sets.is_absolute() else root / sets
        by_key = {d.key: d for d in clean}
        perturbed = [p for p in _load(sets / variant / f"{split}.jsonl") if p.key in by_key]
        for p in perturbed:
            check_perturbed_alignment(by_key[p.key], p, f"{variant}/{split} document")
        ratio = float(cfg.adversarial.overlap.adversarial_train_ratio)
        chosen = adversarial_training_set(clean, perturbed, ratio, int(cfg.adversarial.seed))
        replaced = {d.key for d, c in zip(chosen, clean, strict=True) if d is not c}
        from lingtest.parsing.cache import build_parser

        parser = build_parser(to_plain(cfg.parser))
        to_parse = [d for d in chosen if d.key in replaced]
        parsed = {d.key: d for d in parse_perturbed(to_parse, parser)}
        docs = [parsed.get(d.key, d) for d in chosen]
        info.update({"ratio": ratio, "perturbed_documents": len(replaced)})
    info["documents"] = len(docs)
    info["perturbed_in_subset"] = sum(1 for d in docs if "adversarial" in d.meta)
    return docs, info


def train_stage(cfg: Any, tracker: Any, item: str) -> dict[str, Any]:
    from lingtest.systems.coref.neural.trainer import TrainCorefConfig, train_coref

    tcfg = cfg.coref_training
    if item not in [str(v) for v in tcfg.variants]:
        raise ConfigError(f"coref_train: unknown variant {item!r}; configured: {list(tcfg.variants)}")
    config = TrainCorefConfig.from_mapping(tcfg.train, "coref_training.train")
    paths = training_paths(cfg)
    docs, info = training_documents(cfg, item)
    dev = subset(_load(project_root() / str(cfg.paths.parsed) / str(cfg.dataset) / f"{tcfg.dev_split}.jsonl"),
                 tcfg.max_dev_documents, int(tcfg.seed))
    tracker.log_params({f"coref_training.train.{k}": v for k, v in dict(to_plain(tcfg.train)).items()})
    tracker.set_tags({"variant": item, "dataset": str(cfg.dataset)})
    metrics = train_coref(config, docs, dev, paths["models"] / item)
    result = {"dataset": str(cfg.dataset), "variant": item, "system": f"neural_{item}", "data": info,
              "dev_split": str(tcfg.dev_split), **metrics}
    write_json(paths["training"] / f"{item}.json", result)
    flat = {"dev_f1": float(metrics["dev_f1"] or 0.0), "epoch": float(metrics["epoch"]),
            "seconds": float(metrics["seconds"]), "final_loss": float(metrics["train_loss"][-1]),
            "train_candidate_recall": float(metrics["train_candidate_recall"]["recall"])}
    tracker.log_metrics(flat)
    for epoch, (loss, f1) in enumerate(zip(metrics["train_loss"], metrics["dev_conll_f1"], strict=True)):
        tracker.log_metrics({"train_loss": float(loss), "dev_conll_f1": float(f1)}, step=epoch + 1)
    tracker.log_artifact(str(paths["training"] / f"{item}.json"))
    log.info("coref_train@%s: dev CoNLL F1 %.2f (epoch %d), %d documents, %.0f s", item, flat["dev_f1"],
             metrics["epoch"], len(docs), metrics["seconds"])
    return result


def report_stage(cfg: Any, tracker: Any) -> str:
    """``<metrics>/adversarial_training.{md,json}``: the experiment's table (see the module notes)."""
    import json

    from lingtest.coref_training.report import experiment_table
    from lingtest.data.io import atomic_open

    tcfg = cfg.coref_training
    paths = training_paths(cfg)
    adv = Path(str(cfg.paths.adversarial.metrics))
    adv = adv if adv.is_absolute() else project_root() / adv

    def read(p: Path, stage: str) -> dict[str, Any]:
        if not p.exists():
            raise LingtestError(f"{p} not found: run {stage} first (dvc repro)")
        return dict(json.loads(p.read_text(encoding="utf-8")))

    overlap = read(adv / "overlap.json", "adversarial_overlap")
    scores, training = {}, {}
    for v in [str(x) for x in tcfg.variants]:
        scores[v] = read(adv / "systems" / f"neural_{v}.json", f"adversarial_score@neural_{v}")
        training[v] = read(paths["training"] / f"{v}.json", f"coref_train@{v}")
    table, data = experiment_table(scores, training, overlap, [str(s) for s in cfg.adversarial.sets])
    with atomic_open(paths["metrics"] / "adversarial_training.md") as fh:
        fh.write(table)
    write_json(paths["metrics"] / "adversarial_training.json", data)
    tracker.log_artifact(str(paths["metrics"] / "adversarial_training.md"))
    return table
