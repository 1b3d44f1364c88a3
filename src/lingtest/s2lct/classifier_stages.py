"""Stage bodies for S2LCT's systems under test: ``train_classifier@<name>`` (fine-tune the packaged
MiniLM, :mod:`lingtest.s2lct.training`) and ``s2lct_coverage@<system>`` / ``s2lct_coverage_hub@<system>``
(BoundCov / SActCov of the S2LCT suite and its baseline, :mod:`lingtest.s2lct.coverage`, the paper's
Figure 6).

Paths come from ``paths.s2lct`` (``classifiers``: checkpoint folders, ``training``: their metrics,
``coverage``: coverage metrics and plots; the suites from ``suites`` / ``baselines``), knobs from
``s2lct.training`` and ``s2lct.coverage`` (:class:`~lingtest.s2lct.config.S2lctConfig`).
"""

from __future__ import annotations

import functools
import json
import logging
import os
import shutil
from typing import Any

from lingtest.data.io import read_jsonl
from lingtest.data.model import Document
from lingtest.execution.context import StageContext
from lingtest.s2lct.config import S2lctConfig
from lingtest.s2lct.training import ClassifierData, LabelledText

__all__ = ["coverage_stage", "train_classifier_stage"]

log = logging.getLogger(__name__)


def read_texts(ctx: StageContext, data: ClassifierData, split: str) -> list[LabelledText]:
    """The labelled texts of split ``split`` of the prepared dataset of ``data``."""
    from lingtest.s2lct.training import labelled_texts

    path = ctx.require(ctx.path("prepared") / data.dataset / f"{split}.jsonl", f"prepare@{data.dataset}")
    return labelled_texts(read_jsonl(path, Document.from_dict), data.labels, data.drop,
                          lowercase=data.lowercase, where=str(path))


def train_classifier_stage(ctx: StageContext, config: S2lctConfig, item: str) -> dict[str, Any]:
    """Fine-tune classifier ``item`` (``s2lct.training.classifiers.<item>``) with the trainer of
    ``s2lct.training.trainer``; writes the checkpoint to ``<paths.s2lct.classifiers>/<item>`` (replaced
    only once training succeeded) and the metrics to ``<paths.s2lct.training>/<item>.json``."""
    from lingtest.s2lct.training import subsample, train_classifier

    trainer = config.training.trainer
    data = config.training.classifier(item)
    train = subsample(read_texts(ctx, data, data.train_split), data.max_train, trainer.seed)
    test = read_texts(ctx, data, data.test_split)
    out = ctx.path("s2lct.classifiers") / item
    tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        metrics = train_classifier(trainer, train, test, tmp)
        shutil.rmtree(out, ignore_errors=True)
        tmp.rename(out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    result = {"classifier": item, "dataset": data.dataset, "train_split": data.train_split,
              "test_split": data.test_split, "max_train": data.max_train, **metrics}
    ctx.tracker.set_tags({"classifier": item, "dataset": data.dataset})
    ctx.write_metrics(ctx.path("s2lct.training") / f"{item}.json", result)
    log.info("train_classifier@%s: test accuracy %.4f on %d %s/%s texts", item, metrics["test_accuracy"],
             metrics["test_texts"], data.dataset, data.test_split)
    return result


def coverage_stage(ctx: StageContext, config: S2lctConfig, item: str) -> dict[str, Any]:
    """BoundCov and SActCov of transformer classifier ``item`` on its S2LCT suite and on that suite's
    baseline (CheckList / HateCheck mapped to the capabilities), with neuron bounds from its training
    texts (``s2lct.coverage.systems.<item>`` or ``hub_systems.<item>``: ``suite`` and ``bounds``, a
    training data spec); ``<paths.s2lct.coverage>/<item>.json`` and ``.png``."""
    from lingtest.errors import ConfigError
    from lingtest.progress import progress
    from lingtest.resources.device import pick_device
    from lingtest.s2lct.coverage import hooked_modules, layer_activations, neuron_bounds, sampled_coverage_curve
    from lingtest.s2lct.coverage_plot import plot_coverage
    from lingtest.s2lct.suite import suite_texts
    from lingtest.s2lct.training import subsample
    from lingtest.systems.classification import TASK
    from lingtest.systems.classification.transformer import HFTextClassifier
    from lingtest.systems.entries import instantiate, system_entry

    cc = config.coverage
    _, entry = cc.entry(item)
    suite = entry.suite
    seed = config.seed
    data = entry.bounds
    # the bare classifier (its modules get hooks), not build_system's cached, batched predictor
    options = system_entry(ctx.cfg.systems, TASK, item)
    device = pick_device(str(ctx.cfg.resources.device))
    system = instantiate(TASK, item, options, device)
    if not isinstance(system, HFTextClassifier):
        raise ConfigError(f"s2lct coverage needs a transformer classifier (hf_text_classification or "
                          f"finetuned_classifier); {item} is {type(system).__name__}")
    if system.dtype != "float32":  # neurons are bounded and counted in float32, whatever the system scores in
        system = instantiate(TASK, item, {**options, "dtype": "float32"}, device)
        assert isinstance(system, HFTextClassifier)
    net, tok, dev = system.load()
    modules = hooked_modules(net, cc.modules)

    def acts(texts: list[str], what: str) -> Any:
        return layer_activations(net, tok, texts, modules=modules, max_length=system.max_length,
                                 batch_size=cc.batch_size, device=dev,
                                 progress=lambda it, _d: progress(it, f"coverage {item}: {what}"))

    # the training texts exactly as train_classifier sampled them, then at most bounds_max_texts of them
    trained = subsample(read_texts(ctx, data, data.train_split), data.max_train, config.training.trainer.seed)
    bound_texts = [t.text for t in subsample(trained, cc.bounds_max_texts, seed)]
    bounds = neuron_bounds(acts(bound_texts, "bounds"))
    sources = {"S2LCT": ctx.path("s2lct.suites") / f"{suite}.jsonl",
               "baseline": ctx.path("s2lct.baselines") / f"{suite}.jsonl"}
    curves: dict[str, Any] = {}
    texts_in: dict[str, int] = {}
    for name, path in sources.items():
        texts = suite_texts(ctx.require(path, f"s2lct_generate@{suite}"))
        texts_in[name] = len(texts)
        curves[name] = sampled_coverage_curve(texts, functools.partial(acts, what=name), bounds, cc.sizes,
                                              cc.trials, seed)
    result = {"system": item, "suite": suite, "modules": [n for n, _ in modules], "neurons": int(bounds.low.size),
              "bound_texts": bounds.texts, "bounds_data": {"dataset": data.dataset, "split": data.train_split},
              "suite_texts": texts_in, "curves": curves}
    out = ctx.path("s2lct.coverage")
    plot_coverage(curves, out / f"{item}.png", title=f"{item} on {suite}")
    ctx.tracker.set_tags({"system": item, "suite": suite})
    ctx.write_metrics(out / f"{item}.json", result, artifacts=[out / f"{item}.png"])
    flat = {f"{src}.{m}.n{size}": med for src, c in curves.items() for m in ("bound_cov", "sact_cov")
            for size, med in zip(c["sizes"], c[m]["median"], strict=True)}
    ctx.tracker.log_metrics(flat)
    log.info("s2lct_coverage@%s: median coverage at the largest size of each suite %s", item,
             json.dumps({k: {"size": c["sizes"][-1] if c["sizes"] else 0,
                             **{m: round(c[m]["median"][-1], 4) if c["sizes"] else None
                                for m in ("bound_cov", "sact_cov")}} for k, c in curves.items()}))
    return result
