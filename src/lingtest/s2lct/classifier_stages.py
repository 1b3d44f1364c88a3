"""Stage bodies for S2LCT's systems under test: ``train_classifier@<name>`` (fine-tune the packaged
MiniLM, :mod:`lingtest.s2lct.training`) and ``s2lct_coverage@<system>`` (BoundCov / SActCov of the
S2LCT suite and its baseline, :mod:`lingtest.s2lct.coverage`, the paper's Figure 6).

Paths come from ``paths.s2lct`` (``classifiers``: checkpoint folders, ``training``: their metrics,
``coverage``: coverage metrics and plots; the suites from ``suites`` / ``baselines``), knobs from
``s2lct.training`` and ``s2lct.coverage``.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from pathlib import Path
from typing import Any

from lingtest.config import to_plain
from lingtest.data.io import read_header, read_jsonl, write_json
from lingtest.data.model import Document, TestCase
from lingtest.errors import ConfigError, LingtestError

__all__ = ["coverage_stage", "s2lct_path", "suite_texts", "train_classifier_stage"]

log = logging.getLogger(__name__)


def s2lct_path(cfg: Any, key: str) -> Path:
    """``paths.s2lct.<key>`` (relative paths from the project root)."""
    from lingtest.paths import project_root

    p = Path(str(cfg.paths.s2lct[key]))
    return p if p.is_absolute() else project_root() / p


def _prepared(cfg: Any, dataset: str, split: str) -> Path:
    from lingtest.paths import project_root

    base = Path(str(cfg.paths.prepared))
    path = (base if base.is_absolute() else project_root() / base) / dataset / f"{split}.jsonl"
    if not path.is_file():
        raise LingtestError(f"{path} not found: run prepare@{dataset} first (dvc repro prepare@{dataset})")
    return path


def _classifier_section(cfg: Any, name: str) -> Any:
    from lingtest.s2lct.training import ClassifierData

    entries = to_plain(cfg.s2lct.training.classifiers) or {}
    if name not in entries:
        raise ConfigError(f"s2lct.training.classifiers.{name} is not configured; configured: "
                          f"{', '.join(sorted(entries)) or '(none)'}")
    return ClassifierData.from_mapping(entries[name], f"s2lct.training.classifiers.{name}")


def _texts(cfg: Any, data: Any, split: str) -> list[Any]:
    from lingtest.s2lct.training import labelled_texts

    path = _prepared(cfg, data.dataset, split)
    return labelled_texts(read_jsonl(path, Document.from_dict), data.labels, data.drop,
                          lowercase=data.lowercase, where=str(path))


def train_classifier_stage(cfg: Any, tracker: Any, item: str) -> dict[str, Any]:
    """Fine-tune classifier ``item`` (``s2lct.training.classifiers.<item>``) with the trainer of
    ``s2lct.training.trainer``; writes the checkpoint to ``<paths.s2lct.classifiers>/<item>`` (replaced
    only once training succeeded) and the metrics to ``<paths.s2lct.training>/<item>.json``."""
    from lingtest.s2lct.training import TrainClassifierConfig, subsample, train_classifier

    config = TrainClassifierConfig.from_mapping(cfg.s2lct.training.trainer)
    data = _classifier_section(cfg, item)
    train = subsample(_texts(cfg, data, data.train_split), data.max_train, config.seed)
    test = _texts(cfg, data, data.test_split)
    out = s2lct_path(cfg, "classifiers") / item
    tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        metrics = train_classifier(config, train, test, tmp)
        shutil.rmtree(out, ignore_errors=True)
        tmp.rename(out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    result = {"classifier": item, "dataset": data.dataset, "train_split": data.train_split,
              "test_split": data.test_split, "max_train": data.max_train, **metrics}
    metrics_path = s2lct_path(cfg, "training") / f"{item}.json"
    write_json(metrics_path, result)
    tracker.set_tags({"classifier": item, "dataset": data.dataset})
    tracker.log_metrics({"test_accuracy": metrics["test_accuracy"], "test_macro_f1": metrics["test_macro_f1"],
                         "majority_accuracy": metrics["test"]["majority_accuracy"],
                         "train_seconds": metrics["train_seconds"], "train_texts": metrics["train_texts"]})
    tracker.log_artifact(str(metrics_path))
    log.info("train_classifier@%s: test accuracy %.4f on %d %s/%s texts", item, metrics["test_accuracy"],
             metrics["test_texts"], data.dataset, data.test_split)
    return result


def _record(d: dict[str, Any]) -> TestCase | Document:
    if "source" in d:
        return TestCase.from_dict(d)
    if "sentences" in d:
        return Document.from_dict(d)
    raise ValueError("expected a test case (with 'source') or a document (with 'sentences')")


def suite_texts(path: str | Path) -> list[str]:
    """The distinct texts of a suite or corpus file (test cases or documents, e.g. a prepared CheckList
    or HateCheck split), in file order: for a test case the ``text`` and ``texts`` of its source and
    follow-up payloads, for a document its words joined by spaces."""
    path = Path(path)
    if not path.is_file():
        raise LingtestError(f"{path} not found: run the stage that writes it first (dvc repro)")
    read_header(path)  # a lingtest JSONL file
    seen: dict[str, None] = {}
    for record in read_jsonl(path, _record):
        if isinstance(record, Document):
            texts = [" ".join(record.words)]
        else:
            texts = []
            for payload in (record.source, record.followup or {}):
                if isinstance(payload.get("text"), str):
                    texts.append(payload["text"])
                if isinstance(payload.get("texts"), list):
                    texts += [t for t in payload["texts"] if isinstance(t, str)]
        for t in texts:
            if t.strip():
                seen.setdefault(t, None)
    return list(seen)


def _coverage_options(cfg: Any) -> dict[str, Any]:
    c = to_plain(cfg.s2lct.coverage)
    names = {"systems", "hub_systems", "modules", "bounds_max_texts", "sizes", "trials", "batch_size"}
    unknown = sorted(set(c) - names)
    missing = sorted(names - set(c))
    if unknown or missing:
        raise ConfigError(f"s2lct.coverage: unknown key(s) {unknown}, missing key(s) {missing}")
    return c


def coverage_entry(opts: dict[str, Any], item: str) -> tuple[str, Any]:
    """``(section, entry)`` of system ``item`` in ``s2lct.coverage.systems`` (our fine-tuned classifiers)
    or ``s2lct.coverage.hub_systems`` (hub classifiers); a name in both or in neither is a ConfigError."""
    found = [(where, (opts[where] or {})[item]) for where in ("systems", "hub_systems") if item in (opts[where] or {})]
    if len(found) != 1:
        known = sorted({*(opts["systems"] or {}), *(opts["hub_systems"] or {})})
        why = "is in both systems and hub_systems" if found else "is not configured"
        raise ConfigError(f"s2lct.coverage: {item} {why}; configured: {', '.join(known) or '(none)'}")
    return found[0]


def coverage_stage(cfg: Any, tracker: Any, item: str) -> dict[str, Any]:
    """BoundCov and SActCov of transformer classifier ``item`` on its S2LCT suite and on that suite's
    baseline (CheckList / HateCheck mapped to the capabilities), with neuron bounds from its training
    texts (``s2lct.coverage.systems.<item>`` or ``hub_systems.<item>``: ``suite`` and ``bounds``, a
    training data spec);
    ``<paths.s2lct.coverage>/<item>.json`` and ``.png``."""
    import numpy as np

    from lingtest.progress import progress
    from lingtest.s2lct.coverage import coverage_curve, hooked_modules, layer_activations, neuron_bounds, trial_orders
    from lingtest.s2lct.coverage_plot import plot_coverage
    from lingtest.s2lct.training import ClassifierData, subsample
    from lingtest.systems.classification import TASK
    from lingtest.systems.classification.transformer import HFTextClassifier
    from lingtest.systems.factory import instantiate, system_entry

    opts = _coverage_options(cfg)
    where, entry = coverage_entry(opts, item)
    if not isinstance(entry, dict) or sorted(entry) != ["bounds", "suite"]:
        raise ConfigError(f"s2lct.coverage.{where}.{item} must hold exactly 'suite' and 'bounds'")
    suite = str(entry["suite"])
    seed = int(cfg.s2lct.seed)
    data = ClassifierData.from_mapping(entry["bounds"], f"s2lct.coverage.{where}.{item}.bounds")

    from lingtest.resources.device import pick_device

    system = instantiate(TASK, item, system_entry(cfg.systems, TASK, item), pick_device(str(cfg.resources.device)))
    if not isinstance(system, HFTextClassifier):
        raise ConfigError(f"s2lct coverage needs a transformer classifier (hf_text_classification or "
                          f"finetuned_classifier); {item} is {type(system).__name__}")
    net, tok, dev = system.load()
    modules = hooked_modules(net, str(opts["modules"]))

    def acts(texts: list[str], what: str) -> Any:
        return layer_activations(net, tok, texts, modules=modules, max_length=system.max_length,
                                 batch_size=int(opts["batch_size"]), device=dev,
                                 progress=lambda it, _d: progress(it, f"coverage {item}: {what}"))

    # the training texts exactly as train_classifier sampled them, then at most bounds_max_texts of them
    trained = subsample(_texts(cfg, data, data.train_split), data.max_train, int(cfg.s2lct.training.trainer.seed))
    bound_texts = [t.text for t in subsample(trained, opts["bounds_max_texts"], seed)]
    bounds = neuron_bounds(acts(bound_texts, "bounds"))
    sources = {"S2LCT": s2lct_path(cfg, "suites") / f"{suite}.jsonl",
               "baseline": s2lct_path(cfg, "baselines") / f"{suite}.jsonl"}
    curves: dict[str, Any] = {}
    texts_in: dict[str, int] = {}
    for name, path in sources.items():
        texts = suite_texts(path)
        texts_in[name] = len(texts)
        sizes, orders = trial_orders(len(texts), opts["sizes"], int(opts["trials"]), seed)
        needed = sorted({int(i) for order in orders for i in order})
        row = {i: r for r, i in enumerate(needed)}
        a = acts([texts[i] for i in needed], name)
        curves[name] = coverage_curve(a, bounds, sizes, [np.array([row[int(i)] for i in o]) for o in orders])
    result = {"system": item, "suite": suite, "modules": [n for n, _ in modules], "neurons": int(bounds.low.size),
              "bound_texts": bounds.texts, "bounds_data": {"dataset": data.dataset, "split": data.train_split},
              "suite_texts": texts_in, "curves": curves}
    out = s2lct_path(cfg, "coverage")
    write_json(out / f"{item}.json", result)
    plot_coverage(curves, out / f"{item}.png", title=f"{item} on {suite}")
    tracker.set_tags({"system": item, "suite": suite})
    flat = {f"{src}.{m}.n{size}": med for src, c in curves.items() for m in ("bound_cov", "sact_cov")
            for size, med in zip(c["sizes"], c[m]["median"], strict=True)}
    tracker.log_metrics(flat)
    tracker.log_artifact(str(out / f"{item}.json"))
    tracker.log_artifact(str(out / f"{item}.png"))
    log.info("s2lct_coverage@%s: median coverage at the largest size of each suite %s", item,
             json.dumps({k: {"size": c["sizes"][-1] if c["sizes"] else 0,
                             **{m: round(c[m]["median"][-1], 4) if c["sizes"] else None
                                for m in ("bound_cov", "sact_cov")}} for k, c in curves.items()}))
    return result
