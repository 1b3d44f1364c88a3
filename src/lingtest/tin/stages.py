"""TIN stage bodies (``python -m lingtest.pipeline.stage tin_<step> [system]``):

* ``phrase_index_stage`` - the offline phrase index: minimal NPs of the parsed corpora
  (``tin.phrase_index.corpora``) embedded with the packaged MiniLM -> ``paths.tin.phrase_index``;
* ``sources_stage`` - a seeded sample of ``tin.corpus`` (prepared CoNLL-2003 test with gold, or a
  file of ``tin.unlabelled``), parsed -> ``paths.tin.sources``;
* ``generate_stage`` (per system) - N(s), the four transformations, both filters (counted), in waves of
  ``tin.batch_sources`` sources (``executor=ray``: each wave a call on a pool of generator actors) ->
  ``<paths.tin.generated>/<system>.jsonl`` (test cases) and ``<metrics>/generation/<system>.json``;
* ``suite_stage`` - the released suite ``paths.tin.suite``: every system's cases, in ``tin.systems``
  order;
* ``evaluate_stage`` (per system) - MR checks through the suite runner, issues, grading ->
  ``<metrics>/<system>.json``, result records and ``<paths.tin.issues>/<system>.jsonl``;
* ``repair_stage`` (per system) - Algorithm 1 on every issue, Table 6 counts and F1 before/after ->
  ``<metrics>/repair/<system>.json``;
* ``baseline_stage`` (per system of ``tin.baseline.systems``) - the word-substitution attack graded
  the same way -> ``<metrics>/baseline/<system>.json``;
* ``report_stage`` - Tables 3, 4 and 6 (Markdown, README layout) and a plot.

All knobs are in ``conf/tin/default.yaml`` (``cfg.tin``), paths in ``cfg.paths.tin``.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lingtest.data.io import read_jsonl, write_json, write_jsonl
from lingtest.data.model import Document
from lingtest.errors import ConfigError, MissingResourceError
from lingtest.paths import repo_path
from lingtest.tin.components import Parts, filter_config, label_mapper, relabel_config, tin_paths
from lingtest.tracking import numeric_metrics

log = logging.getLogger(__name__)
ISSUE_KIND = "tin-issue"


def _need(path: Path, stage: str) -> Path:
    if not path.exists():
        raise MissingResourceError(f"{path} not found: run the {stage} stage first (dvc repro)")
    return path


def _read_json(path: Path, stage: str) -> dict[str, Any]:
    return dict(json.loads(_need(path, stage).read_text(encoding="utf-8")))


def _system(cfg: Any, name: str) -> Any:
    from lingtest.systems.factory import build_system
    from lingtest.systems.ner import TASK

    return build_system(cfg, TASK, name)


def _log(tracker: Any, prefix: str, metrics: dict[str, Any], artifacts: list[Path]) -> None:
    tracker.log_metrics(numeric_metrics(metrics, prefix))
    for a in artifacts:
        tracker.log_artifact(str(a))


def _write_system_row(cfg: Any, tracker: Any, item: str, row: dict[str, Any], path: Path, prefix: str) -> None:
    """A per-system stage's end: its metrics file, the run's system/corpus tags and its metrics."""
    write_json(path, row)
    tracker.set_tags({"system": item, "corpus": str(cfg.tin.corpus)})
    _log(tracker, prefix, row, [path])


def _labelled(cfg: Any) -> bool:
    return str(cfg.tin.corpus) not in (cfg.tin.get("unlabelled") or {})


def _sources(cfg: Any, system: Any) -> tuple[list[Any], list[Any]]:
    """Stored source documents and their :class:`TinSource` records with the system's N(s)."""
    from lingtest.tin.flow import tin_sources
    from lingtest.tin.sources import load_sources

    docs = load_sources(_need(tin_paths(cfg)["sources"], "tin_sources"))
    preds = system.predict([d.sentences[0].words for d in docs]) if docs else []
    return docs, tin_sources(docs, preds)


# ---- phrase index -----------------------------------------------------------------------------------
def phrase_index_stage(cfg: Any, tracker: Any) -> dict[str, Any]:
    from lingtest.resources.embeddings import embedder_from_config
    from lingtest.tin.phrases import EmbeddingPhraseIndex, collect_phrases

    pc = cfg.tin.phrase_index
    t0 = time.perf_counter()
    sentences = []
    read: dict[str, int] = {}
    for c in pc.corpora:
        path = _need(repo_path(cfg.paths.parsed) / str(c.dataset) / f"{c.split}.jsonl", f"parse@{c.dataset}")
        sents = [s for d in list(read_jsonl(path, Document.from_dict)) for s in d.sentences]
        if pc.get("max_sentences") is not None:
            sents = sents[: int(pc.max_sentences)]
        read[f"{c.dataset}/{c.split}"] = len(sents)
        sentences.extend(sents)
    phrases = collect_phrases(sentences, max_words=int(pc.max_words), min_count=int(pc.min_count))
    index = EmbeddingPhraseIndex.build(phrases, embedder_from_config(cfg.resources))
    out = tin_paths(cfg)["phrase_index"]
    index.save(out)
    metrics = {"sentences": read, "phrases": len(index), "seconds": round(time.perf_counter() - t0, 2)}
    tracker.log_metrics({"tin.phrase_index.phrases": float(len(index))})
    log.info("TIN phrase index: %d phrases from %d sentences", len(index), len(sentences))
    return metrics


# ---- sources ----------------------------------------------------------------------------------------
def sources_stage(cfg: Any, tracker: Any) -> dict[str, Any]:
    from lingtest.tin.sources import labelled_pool, parse_sources, sample, unlabelled_pool, write_sources

    t = cfg.tin
    lim = {"min_tokens": int(t.min_tokens), "max_tokens": int(t.max_tokens)}
    if _labelled(cfg):
        path = _need(repo_path(cfg.paths.prepared) / str(t.corpus) / f"{t.split}.jsonl", f"prepare@{t.corpus}")
        pool = labelled_pool(list(read_jsonl(path, Document.from_dict)), **lim)
    else:
        pool = unlabelled_pool(repo_path(t.unlabelled[str(t.corpus)]), **lim)
    picked = sample(pool, None if t.N is None else int(t.N), int(t.seed))
    docs = parse_sources(picked, Parts(cfg).parser)
    n = write_sources(tin_paths(cfg)["sources"], docs,
                      meta={"corpus": str(t.corpus), "split": str(t.split), "seed": int(t.seed),
                            "labelled": _labelled(cfg)})
    metrics = {"pool": len(pool), "sources": n, "labelled": _labelled(cfg)}
    tracker.log_metrics({"tin.sources": float(n), "tin.pool": float(len(pool))})
    return metrics


# ---- generation ---------------------------------------------------------------------------------------
def _generation_path(cfg: Any, system: str) -> Path:
    return tin_paths(cfg)["metrics"] / "generation" / f"{system}.json"


def wave_size(cfg: Any) -> int | None:
    """``tin.batch_sources``: sources generated together in one wave (null: all in one). A wave's
    transformations and filters batch its sources together (LM and embedder batches, whose floats can
    depend on their composition in the last digits), so waves, not single sources, are where generation
    is split, locally and on Ray alike."""
    if "batch_sources" not in cfg.tin:
        raise ConfigError("tin.batch_sources is not set: sources per generation wave (null: all in one), "
                          "in conf/tin/default.yaml")
    n = cfg.tin.batch_sources
    if n is not None and int(n) < 1:
        raise ConfigError(f"tin.batch_sources must be >= 1 or null, got {n}")
    return None if n is None else int(n)


def generation_worker(cfg: Any, item: str) -> Callable[[list[Any]], Any]:
    """TIN's generator for system ``item`` with its components built once (:class:`Parts`): a wave of
    :class:`~lingtest.tin.mutant.TinSource` -> :class:`~lingtest.tin.flow.Generated`. The local loop runs
    it, and so does every Ray generator actor (:mod:`lingtest.execution.ray_generate`; ``cfg`` as plain
    dicts there)."""
    from lingtest.execution.ray_generate import as_config
    from lingtest.tin.flow import generate_cases

    conf = as_config(cfg)
    parts = Parts(conf)
    transformations = parts.transformations(list(conf.tin.transformations))
    config = filter_config(conf, item)
    packed = bool(conf.tin.filters.packed)

    def work(sources: list[Any]) -> Any:
        return generate_cases(sources, transformations, embedder=parts.embedder, lm=parts.lm, config=config,
                              system=item, packed=packed)

    return work


def generate_stage(cfg: Any, tracker: Any, item: str) -> dict[str, Any]:
    from lingtest.execution import executor_options
    from lingtest.execution.ray_generate import chunked
    from lingtest.tin.flow import merge_generated
    from lingtest.tin.suite import TECHNIQUE

    t0 = time.perf_counter()
    size = wave_size(cfg)
    ex = executor_options(cfg)
    system = _system(cfg, item)
    _, sources = _sources(cfg, system)
    names = list(cfg.tin.transformations)
    filter_config(cfg, item)  # a config error is raised here, before any actor starts
    waves = chunked(sources, size)
    if ex["name"] == "ray":  # the same waves on a pool of generator actors: the same mutants, in order
        from lingtest.execution.ray_generate import map_chunks

        results, _ = map_chunks(generation_worker, cfg, waves, options=ex, part="generation", args=(item,),
                                desc=f"TIN generate {item} on Ray")
    else:
        work = generation_worker(cfg, item)
        results = [work(w) for w in waves]
    gen = merge_generated(results)
    paths = tin_paths(cfg)
    out = paths["generated"] / f"{item}.jsonl"
    write_jsonl(out, gen.cases, kind="testcase",
                meta={"technique": TECHNIQUE, "corpus": str(cfg.tin.corpus), "system": item,
                      "seed": int(cfg.tin.seed)})
    seconds = round(time.perf_counter() - t0, 2)
    counts = gen.counts_dict(names)
    metrics: dict[str, Any] = {"system": item, "corpus": str(cfg.tin.corpus), "sources": len(sources),
                               "mutants": counts, "seconds": seconds, "seconds_by_step": gen.seconds}
    _write_system_row(cfg, tracker, item, metrics, _generation_path(cfg, item), f"tin.{item}.generation.")
    log.info("TIN %s: %d cases kept of %d mutants in %.1f s", item, len(gen.cases),
             counts["overall"]["generated"], seconds)
    return metrics


def suite_stage(cfg: Any, tracker: Any) -> dict[str, Any]:
    """Every system's cases, systems in ``tin.systems`` order (bytes follow from the inputs)."""
    from lingtest.data.model import TestCase
    from lingtest.tin.suite import TECHNIQUE

    paths = tin_paths(cfg)
    cases = []
    per: dict[str, int] = {}
    for name in cfg.tin.systems:
        f = _need(paths["generated"] / f"{name}.jsonl", f"tin_generate@{name}")
        got = list(read_jsonl(f, TestCase.from_dict, kind="testcase"))
        per[str(name)] = len(got)
        cases.extend(got)
    n = write_jsonl(paths["suite"], cases, kind="testcase",
                    meta={"technique": TECHNIQUE, "corpus": str(cfg.tin.corpus), "seed": int(cfg.tin.seed),
                          "systems": [str(s) for s in cfg.tin.systems]})
    tracker.log_metrics({"tin.suite.cases": float(n)})
    tracker.log_artifact(str(paths["suite"]))
    return {"cases": n, "per_system": per}


# ---- evaluation ---------------------------------------------------------------------------------------
def _metrics_path(cfg: Any, system: str) -> Path:
    return tin_paths(cfg)["metrics"] / f"{system}.json"


def evaluate_stage(cfg: Any, tracker: Any, item: str) -> dict[str, Any]:
    from lingtest.data.model import TestCase
    from lingtest.suite.run import write_results
    from lingtest.tin.flow import check_cases, issue_record, source_wrong_map

    t0 = time.perf_counter()
    paths = tin_paths(cfg)
    gen = _read_json(_generation_path(cfg, item), f"tin_generate@{item}")
    cases = list(read_jsonl(_need(paths["generated"] / f"{item}.jsonl", f"tin_generate@{item}"),
                            TestCase.from_dict, kind="testcase"))
    system = _system(cfg, item)
    _, sources = _sources(cfg, system)
    lmap = label_mapper(cfg, system) if _labelled(cfg) else None
    checked = check_cases(cases, system, sources, lmap)
    by_id = {c.id: c for c in cases}
    write_results(paths["results"] / f"{item}.jsonl", checked.results,
                  meta={"technique": "tin", "system": item, "corpus": str(cfg.tin.corpus)})
    write_jsonl(paths["issues"] / f"{item}.jsonl", [issue_record(i, by_id[i.case_id]) for i in checked.issues],
                kind=ISSUE_KIND, meta={"system": item, "corpus": str(cfg.tin.corpus)})
    seconds = time.perf_counter() - t0
    n_checked = len(cases)
    total = float(gen["seconds"]) + seconds
    row: dict[str, Any] = {
        "system": item, "corpus": str(cfg.tin.corpus), "labelled": lmap is not None,
        "sources": len(sources), "mutants": gen["mutants"], "issues": checked.summary,
        "checked_mutants": n_checked,
        "seconds": {"generate": gen["seconds"], "evaluate": round(seconds, 2), "total": round(total, 2)},
        "seconds_per_checked_mutant": round(total / n_checked, 4) if n_checked else None,
    }
    if lmap is not None:
        wrong = source_wrong_map(sources, lmap)
        row["wrong_sources"] = sum(wrong.values())
        from lingtest.tin.grading import ner_f1

        f1 = ner_f1([s.entities for s in sources], [s.gold or [] for s in sources],
                    [len(s.tokens) for s in sources], lmap)
        row["source_f1"] = f1.to_dict()
    _write_system_row(cfg, tracker, item, row, _metrics_path(cfg, item), f"tin.{item}.")
    return row


# ---- repair -------------------------------------------------------------------------------------------
def _repair_path(cfg: Any, system: str) -> Path:
    return tin_paths(cfg)["metrics"] / "repair" / f"{system}.json"


def repair_stage(cfg: Any, tracker: Any, item: str) -> dict[str, Any]:
    from lingtest.tin.flow import issue_from_record
    from lingtest.tin.issues import grade_run, repair_issues

    t0 = time.perf_counter()
    paths = tin_paths(cfg)
    issues = list(read_jsonl(_need(paths["issues"] / f"{item}.jsonl", f"tin_evaluate@{item}"), issue_from_record,
                             kind=ISSUE_KIND))
    system = _system(cfg, item)
    _, sources = _sources(cfg, system)
    parts = Parts(cfg)
    reps = repair_issues(issues, system=system, proposer=parts.fill, embedder=parts.embedder,
                         config=relabel_config(cfg))
    relabels = [r for rep in [*reps.sources.values(), *reps.followups.values()] for r in rep.relabels.values()]
    row: dict[str, Any] = {
        "system": item, "corpus": str(cfg.tin.corpus), "issues": len(issues),
        "repaired_sources": len(reps.sources), "suspicious_entities": len(relabels),
        "relabels": {"kept_original": sum(r.kept_original for r in relabels),
                     "null": sum(r.label is None and not r.kept_original for r in relabels),
                     "label": sum(r.label is not None for r in relabels)},
    }
    before = {i.seed_id: sorted(i.source_pred) for i in issues}
    row["changed_sources"] = sum(sorted(rep.entities) != before[sid] for sid, rep in reps.sources.items())
    if _labelled(cfg):
        lmap = label_mapper(cfg, system)
        grade = grade_run(issues, reps, {s.id: (s.tokens, s.entities, s.gold or []) for s in sources}, lmap)
        d = grade.to_dict()
        row["repair"] = d["repair"]
        row["f1"] = d["f1"]
    row["seconds"] = round(time.perf_counter() - t0, 2)
    _write_system_row(cfg, tracker, item, row, _repair_path(cfg, item), f"tin.{item}.repair.")
    return row


# ---- baseline -----------------------------------------------------------------------------------------
def _baseline_path(cfg: Any, system: str) -> Path:
    return tin_paths(cfg)["metrics"] / "baseline" / f"{system}.json"


def baseline_stage(cfg: Any, tracker: Any, item: str) -> dict[str, Any]:
    from lingtest.tin.baseline import AttackConfig
    from lingtest.tin.flow import attack_cases

    t0 = time.perf_counter()
    system = _system(cfg, item)
    _, sources = _sources(cfg, system)
    lmap = label_mapper(cfg, system) if _labelled(cfg) else None
    b = cfg.tin.baseline
    config = AttackConfig.from_dict({"top_k": b.top_k, "min_score": b.min_score, "max_changes": b.max_changes})
    cases, summary = attack_cases(sources, system=system, proposer=Parts(cfg).fill, config=config,
                                  label_map=lmap)
    row = {"system": item, "corpus": str(cfg.tin.corpus), **summary,
           "seconds": round(time.perf_counter() - t0, 2)}
    _write_system_row(cfg, tracker, item, row, _baseline_path(cfg, item), f"tin.{item}.baseline.")
    return row


# ---- report -------------------------------------------------------------------------------------------
def report_stage(cfg: Any, tracker: Any) -> dict[str, str]:
    from lingtest.data.io import atomic_open
    from lingtest.tin.report import plot_issues, table3_markdown, table4_markdown, table6_markdown

    metrics_dir = tin_paths(cfg)["metrics"]
    names = [str(s) for s in cfg.tin.systems]
    rows = [_read_json(_metrics_path(cfg, n), f"tin_evaluate@{n}") for n in names]
    repairs = [_read_json(_repair_path(cfg, n), f"tin_repair@{n}") for n in names]
    baselines = {str(n): _read_json(_baseline_path(cfg, str(n)), f"tin_baseline@{n}")
                 for n in cfg.tin.baseline.systems}
    unknown = sorted(set(baselines) - set(names))
    if unknown:
        raise ConfigError(f"tin.baseline.systems {unknown} are not in tin.systems")
    tables = {"table3.md": table3_markdown(rows),
              "table4.md": table4_markdown({r["system"]: r for r in rows}, baselines),
              "table6.md": table6_markdown(repairs)}
    for fname, text in tables.items():
        with atomic_open(metrics_dir / fname) as fh:
            fh.write(text)
        tracker.log_artifact(str(metrics_dir / fname))
    plot_issues(rows, metrics_dir / "issues.png")
    tracker.log_artifact(str(metrics_dir / "issues.png"))
    return tables
