"""Stage bodies of the trainable neural coreference resolver and Chai et al.'s adversarial-training
experiment; paths from ``cfg.paths.coref_training``, knobs from ``cfg.coref_training``
(:class:`~lingtest.coref_training.config.CorefTrainingConfig`) and, for the adversarial sets,
``cfg.adversarial`` (:class:`~lingtest.adversarial.config.AdversarialConfig`).

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
  configured parser; its gold clusters are its own, never looked up from the clean set by key
  (:mod:`~lingtest.coref_training.training_set`).
* ``report_stage`` (``coref_train_report``): the paper's table of the experiment (each variant's
  CoNLL F1 on the clean and every perturbed test set, from ``adversarial_score@neural_<variant>``)
  with the mention-overlap figures of ``adversarial_overlap`` beside it, and the training summary.

Evaluation itself runs through the existing per-system stages: the trained variants are systems
(``systems.coref.neural_<variant>``) listed in ``adversarial.systems`` and ``crest.systems``.
"""

from __future__ import annotations

import logging
from dataclasses import asdict
from typing import Any

from lingtest.adversarial.config import AdversarialConfig
from lingtest.coref_training.config import CorefTrainingConfig
from lingtest.data import Document, read_jsonl, write_json
from lingtest.errors import ConfigError
from lingtest.execution.context import StageContext

log = logging.getLogger(__name__)

CLEAN = "clean"


def read_split(ctx: StageContext, split: str) -> list[Document]:
    """A parsed split of ``cfg.dataset``."""
    dataset = str(ctx.cfg.dataset)
    path = ctx.require(ctx.path("parsed") / dataset / f"{split}.jsonl", f"parse@{dataset}")
    return list(read_jsonl(path, Document.from_dict))


def training_documents(ctx: StageContext, config: CorefTrainingConfig,
                       variant: str) -> tuple[list[Document], dict[str, Any]]:
    """The training documents of one variant and a summary of how they were made."""
    from lingtest.coref_training.training_set import choose_perturbed, subset, with_replaced_parsed

    split = config.train_split
    # the subset first, so every variant trains on the same documents (the mixed variant replaces the
    # ratio of *them*); with no limit this is the whole split and the choice is adversarial_overlap's
    clean = subset(read_split(ctx, split), config.max_train_documents, config.seed)
    info: dict[str, Any] = {"variant": variant, "split": split}
    if variant == CLEAN:
        docs = clean
        info["perturbed_documents"] = 0
    else:
        adv = AdversarialConfig.from_config(ctx.cfg)
        if variant not in adv.sets:
            raise ConfigError(f"coref_training.variants: {variant!r} is neither 'clean' nor one of adversarial.sets "
                              f"({', '.join(adv.sets)})")
        path = ctx.require(ctx.path("adversarial.sets") / variant / f"{split}.jsonl", "adversarial_generate")
        perturbed = list(read_jsonl(path, Document.from_dict))
        ratio = adv.overlap.adversarial_train_ratio
        chosen, replaced = choose_perturbed(clean, perturbed, ratio, adv.seed, f"{variant}/{split} document")
        from lingtest.config import to_plain
        from lingtest.parsing.cache import build_parser

        docs = with_replaced_parsed(chosen, replaced, build_parser(to_plain(ctx.cfg.parser)))
        info.update({"ratio": ratio, "perturbed_documents": len(replaced)})
    info["documents"] = len(docs)
    info["perturbed_in_subset"] = sum(1 for d in docs if "adversarial" in d.meta)
    return docs, info


def train_stage(ctx: StageContext, config: CorefTrainingConfig, item: str) -> dict[str, Any]:
    """Train variant ``item`` -> ``<paths.coref_training.models>/<item>`` and its metrics
    ``<paths.coref_training.training>/<item>.json``."""
    from lingtest.coref_training.training_set import subset
    from lingtest.systems.coref.neural.trainer import train_coref

    if item not in config.variants:
        raise ConfigError(f"coref_train: unknown variant {item!r}; configured: {list(config.variants)}")
    trainer = config.train
    dataset = str(ctx.cfg.dataset)
    docs, info = training_documents(ctx, config, item)
    dev = subset(read_split(ctx, config.dev_split), config.max_dev_documents, config.seed)
    ctx.tracker.log_params({f"coref_training.train.{k}": v for k, v in asdict(config.train).items()})
    ctx.tracker.set_tags({"variant": item, "dataset": dataset})
    metrics = train_coref(trainer, docs, dev, ctx.path("coref_training.models") / item)
    result = {"dataset": dataset, "variant": item, "system": f"neural_{item}", "data": info,
              "dev_split": config.dev_split, **metrics}
    ctx.write_metrics(ctx.path("coref_training.training") / f"{item}.json", result)
    for epoch, (loss, f1) in enumerate(zip(metrics["train_loss"], metrics["dev_conll_f1"], strict=True)):
        ctx.tracker.log_metrics({"train_loss": float(loss), "dev_conll_f1": float(f1)}, step=epoch + 1)
    log.info("coref_train@%s: dev CoNLL F1 %.2f (epoch %d), %d documents, %.0f s", item,
             float(metrics["dev_f1"] or 0.0), metrics["epoch"], len(docs), metrics["seconds"])
    return result


def report_stage(ctx: StageContext, config: CorefTrainingConfig) -> str:
    """``<metrics>/adversarial_training.{md,json}``: the experiment's table (see the module notes)."""
    from lingtest.coref_training.report import experiment_table
    from lingtest.data.io import atomic_open

    adv = ctx.path("adversarial.metrics")
    training_dir = ctx.path("coref_training.training")
    overlap = dict(ctx.read_json(adv / "overlap.json", "adversarial_overlap"))
    scores, training = {}, {}
    for v in config.variants:
        scores[v] = dict(ctx.read_json(adv / "systems" / f"neural_{v}.json", f"adversarial_score@neural_{v}"))
        training[v] = dict(ctx.read_json(training_dir / f"{v}.json", f"coref_train@{v}"))
    sets = AdversarialConfig.from_config(ctx.cfg).sets
    table, data = experiment_table(scores, training, overlap, sets)
    out = ctx.path("coref_training.metrics")
    with atomic_open(out / "adversarial_training.md") as fh:
        fh.write(table)
    write_json(out / "adversarial_training.json", data)
    ctx.tracker.log_artifact(str(out / "adversarial_training.md"))
    return table
