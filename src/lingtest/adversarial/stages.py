"""Stage bodies of the adversarial coreference benchmark (Chai et al. 2021); paths from
``cfg.paths.adversarial``.

* ``generate_stage``: perturb the configured splits of ``cfg.dataset`` once per set in
  ``cfg.adversarial.sets`` and write ``<sets>/<set>/<split>.{jsonl,conll}`` (the clean documents go to
  ``clean/`` the same way: keys for the official scorer, and the sets adversarial training uses), and
  the test suite ``<suite>``: one :class:`~lingtest.data.model.TestCase` per perturbed set and test
  document (source: the clean document, follow-up: the perturbed one, expectation: the same
  coreference up to the alignment of the changed words, every change in the provenance).
* ``overlap_stage``: mention-overlap statistics -> ``<metrics>/overlap.json``.
* ``score_stage``: one system on the suite through the suite runner -> ``<metrics>/<system>.json``
  (corpus scores against gold on the clean and every perturbed set, invariance failures) and the
  result records ``<results>/<system>.jsonl``.
* ``report_stage``: Table 3 and the CoNLL F1 plot over ``adversarial.systems``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lingtest.adversarial.apply import Change, DocumentPerturber, adversarial_training_set, strip_annotations
from lingtest.adversarial.overlap import (
    changed_mention_share,
    changed_token_map,
    mention_overlap,
    mention_strings,
)
from lingtest.adversarial.perturbations import group_of, groups, options_of
from lingtest.config import to_plain
from lingtest.data import Document, read_jsonl, write_json, write_jsonl
from lingtest.data.model import Provenance, TestCase
from lingtest.errors import LingtestError
from lingtest.paths import configured_paths, project_root
from lingtest.progress import progress

log = logging.getLogger(__name__)

CLEAN = "clean"
DOC_KIND = "document"
TECHNIQUE = "adversarial"
RELATION = "coreference-invariance"


# --------------------------------------------------------------------------------------------
# configuration helpers
# --------------------------------------------------------------------------------------------
def adversarial_config(cfg: Any) -> dict[str, Any]:
    return dict(to_plain(cfg.adversarial))


def dataset_name(cfg: Any) -> str:
    ds = cfg.dataset
    return ds if isinstance(ds, str) else str(ds.name)


def build_perturber(acfg: Mapping[str, Any], set_name: str,
                    perturbations: Mapping[str, Any] | None = None) -> DocumentPerturber:
    """The perturber of one configured set (a scheme name or ``mixed``)."""
    if set_name == "mixed":
        mixed = dict(acfg["mixed"])
        schemes: Any = dict(mixed["schemes"])
        retry = bool(mixed["retry"])
    else:
        schemes, retry = set_name, False
    names = [schemes] if isinstance(schemes, str) else list(schemes)
    shared = dict(perturbations or {})
    return DocumentPerturber(schemes=schemes, p=float(acfg["p"]), seed=int(acfg["seed"]),
                             name=set_name, consistency=str(acfg["consistency"]), retry=retry,
                             options={n: options_of(n, dict(acfg)) for n in names},
                             perturbations={n: shared[n] for n in names if n in shared})


def adversarial_paths(cfg: Any) -> dict[str, Path]:
    """``cfg.paths.adversarial`` (sets, suite, metrics, results) as absolute paths."""
    return configured_paths(cfg.paths.adversarial)


def set_dir(sets_root: Path, set_name: str) -> Path:
    return sets_root / set_name


def input_path(cfg: Any, dataset: str, split: str, source: str = "auto") -> Path:
    """The parsed split (when ``source`` is parsed, or auto and present) else the prepared one."""
    root = project_root()
    parsed = root / str(cfg.paths.parsed) / dataset / f"{split}.jsonl"
    prepared = root / str(cfg.paths.prepared) / dataset / f"{split}.jsonl"
    if source == "parsed" or (source == "auto" and parsed.exists()):
        cand = parsed
    elif source in ("prepared", "auto"):
        cand = prepared
    else:
        raise LingtestError(f"adversarial.input must be auto, parsed or prepared, got {source!r}")
    if not cand.exists():
        raise LingtestError(f"{cand} not found: run the prepare (and parse) stages for {dataset!r} first")
    return cand


def load_docs(path: Path) -> list[Document]:
    return list(read_jsonl(path, Document.from_dict))


def write_set(directory: Path, split: str, docs: list[Document], meta: Mapping[str, Any]) -> None:
    """``<split>.jsonl`` (Documents) and ``<split>.conll`` (CoNLL coref)."""
    from lingtest.readers.conll_coref import write_conll

    write_jsonl(directory / f"{split}.jsonl", docs, kind=DOC_KIND, meta=dict(meta))
    write_conll(docs, directory / f"{split}.conll")  # atomic


def make_case(clean: Document, perturbed: Document, changes: list[Change], set_name: str,
              acfg: Mapping[str, Any]) -> TestCase:
    """The test case of one perturbed document: the same coreference as on the clean one, spans of
    the follow-up mapped back through the changed words."""
    reps = [[c.token, len(c.new)] for c in changes]
    return TestCase(
        technique=TECHNIQUE, relation=RELATION, source=clean.to_dict(), followup=perturbed.to_dict(),
        expected={"name": "invariance", "alignment": {"replacements": reps}},
        provenance=Provenance(seed_id=clean.key, transformation=set_name,
                              params={"p": acfg.get("p"), "seed": acfg.get("seed"),
                                      "consistency": acfg.get("consistency")}),
        meta={"set": set_name, "group": group_of(set_name), "changes": [c.to_dict() for c in changes]},
    )


def case_changes(case: TestCase) -> list[Change]:
    return [Change.from_dict(c) for c in case.meta.get("changes", [])]


def load_suite(path: Path) -> list[TestCase]:
    if not path.exists():
        raise LingtestError(f"{path} not found: run adversarial_generate first")
    return list(read_jsonl(path, TestCase.from_dict, kind="testcase"))


# --------------------------------------------------------------------------------------------
# stage: generate
# --------------------------------------------------------------------------------------------
def generate_stage(cfg: Any, tracker: Any) -> dict[str, dict[str, int]]:
    """Perturb every configured split once per configured set and write the test suite of the test
    split; returns changes per set/split."""
    paths = adversarial_paths(cfg)
    acfg = adversarial_config(cfg)
    test_split = str(acfg["test_split"])
    cases: list[TestCase] = []
    dataset = dataset_name(cfg)
    strip = bool(acfg["strip_annotations"])
    sets = [str(s) for s in acfg["sets"]]
    tracker.log_params({f"adversarial.{k}": v for k, v in acfg.items() if not isinstance(v, dict | list)})
    shared: dict[str, Any] = {}  # one instance per scheme, so Lesk caches serve every set
    perturbers = {}
    for s in sets:
        perturbers[s] = build_perturber(acfg, s, shared)
        shared.update(perturbers[s]._impl)
    summary: dict[str, dict[str, int]] = {}
    for split in acfg["splits"]:
        docs = load_docs(input_path(cfg, dataset, split, str(acfg["input"])))
        clean = [strip_annotations(d) for d in docs] if strip else docs
        write_set(set_dir(paths["sets"], CLEAN), split, clean, {"dataset": dataset, "set": CLEAN})
        for s in sets:
            out_docs: list[Document] = []
            changes: list[Change] = []
            for d, c in zip(progress(docs, f"{s} {dataset}/{split}"), clean, strict=True):
                nd, ch = perturbers[s](d)
                out_docs.append(strip_annotations(nd) if strip else nd)
                changes.extend(ch)
                if split == test_split:
                    cases.append(make_case(c, out_docs[-1], ch, s, acfg))
            meta = {"dataset": dataset, "set": s, "p": acfg.get("p"), "seed": acfg.get("seed")}
            write_set(set_dir(paths["sets"], s), split, out_docs, meta)
            k, n, share = changed_mention_share(out_docs, changes)
            summary.setdefault(s, {})[split] = len(changes)
            tracker.log_metrics({f"{s}.{split}.changes": float(len(changes)),
                                 f"{s}.{split}.changed_mention_share": share})
            log.info("%s/%s: %d words changed, %d/%d mentions (%.1f%%)", s, split, len(changes), k, n, 100 * share)
    if not cases:
        raise LingtestError(f"adversarial.test_split {test_split!r} is not among adversarial.splits")
    write_jsonl(paths["suite"], cases, kind="testcase",
                meta={"technique": TECHNIQUE, "dataset": dataset, "split": test_split, "sets": sets})
    tracker.log_metrics({"suite_size": float(len(cases))})
    return summary


# --------------------------------------------------------------------------------------------
# stage: overlap
# --------------------------------------------------------------------------------------------
def compute_overlap(train: Mapping[str, list[Document]], test: Mapping[str, list[Document]],
                    test_changes: Mapping[str, list[Change]], *, lowercase: bool = False,
                    at_ratio: float = 0.5, seed: int = 0) -> dict[str, Any]:
    """All overlap statistics from loaded sets (``train``/``test``: set name -> documents, both
    with ``clean``; ``test_changes``: set name -> change log of the test split)."""
    clean_train = train[CLEAN]
    clean_strings = mention_strings(clean_train, lowercase)
    out: dict[str, Any] = {"lowercase": lowercase, "sets": {}, "groups": {}, "adversarial_training": {}}
    for s, docs in test.items():
        changes = test_changes.get(s, [])
        cmap = changed_token_map(changes)
        st = mention_overlap([], docs, lowercase, changed=cmap, train_strings=clean_strings)
        entry: dict[str, Any] = {"test_vs_clean_train": st.to_dict()}
        if s != CLEAN:
            k, n, share = changed_mention_share(docs, changes)
            entry["changed_mentions"] = {"changed": k, "mentions": n, "share": share}
            entry["changed_words"] = len(changes)
            if s in train:
                entry["test_vs_perturbed_train"] = mention_overlap(train[s], docs, lowercase, changed=cmap).to_dict()
        out["sets"][s] = entry
    for g, members in groups().items():
        present = [s for s in members if s in out["sets"]]
        if present:
            out["groups"][g] = {
                "sets": present,
                "changed_mention_share": (sum(out["sets"][s]["changed_mentions"]["share"] for s in present)
                                          / len(present)),
                "overlap_share": sum(out["sets"][s]["test_vs_clean_train"]["share"] for s in present) / len(present),
            }
    perturbed = [s for s in test if s != CLEAN]
    if perturbed:
        out["all_perturbed_overlap_share"] = (
            sum(out["sets"][s]["test_vs_clean_train"]["share"] for s in perturbed) / len(perturbed))
    # adversarial training: ratio of train documents replaced by their perturbed versions
    for s, tdocs in train.items():
        if s == CLEAN:
            continue
        at_train = adversarial_training_set(clean_train, tdocs, at_ratio, seed)
        at_strings = mention_strings(at_train, lowercase)
        row = {}
        for t, docs in test.items():
            cmap = changed_token_map(test_changes.get(t, []))
            row[t] = mention_overlap([], docs, lowercase, changed=cmap, train_strings=at_strings).to_dict()
        out["adversarial_training"][s] = {"ratio": at_ratio, "test_sets": row}
    return out


def overlap_stage(cfg: Any, tracker: Any) -> dict[str, Any]:
    paths = adversarial_paths(cfg)
    acfg = adversarial_config(cfg)
    dataset = dataset_name(cfg)
    ocfg = dict(acfg["overlap"])
    test_split = str(acfg["test_split"])
    names = [CLEAN, *[str(s) for s in acfg["sets"]]]
    train: dict[str, list[Document]] = {}
    test: dict[str, list[Document]] = {}
    changes: dict[str, list[Change]] = {}
    for case in load_suite(paths["suite"]):
        changes.setdefault(case.provenance.transformation, []).extend(case_changes(case))
    for s in names:
        d = set_dir(paths["sets"], s)
        if not (d / f"{test_split}.jsonl").exists():
            raise LingtestError(f"{d / (test_split + '.jsonl')} not found: run adversarial_generate first")
        test[s] = load_docs(d / f"{test_split}.jsonl")
        if (d / "train.jsonl").exists():
            train[s] = load_docs(d / "train.jsonl")
    if CLEAN not in train:
        raise LingtestError(f"no clean train split under {set_dir(paths['sets'], CLEAN)}: "
                            "add train to adversarial.splits")
    out = compute_overlap(train, test, changes, lowercase=bool(ocfg["lowercase"]),
                          at_ratio=float(ocfg["adversarial_train_ratio"]), seed=int(acfg["seed"]))
    out["dataset"] = dataset
    out["test_split"] = test_split
    write_json(paths["metrics"] / "overlap.json", out)
    metrics = {f"overlap.{s}": e["test_vs_clean_train"]["share"] for s, e in out["sets"].items()}
    metrics.update({f"changed_share.{s}": e["changed_mentions"]["share"] for s, e in out["sets"].items()
                    if "changed_mentions" in e})
    metrics.update({f"changed_share.{g}": e["changed_mention_share"] for g, e in out["groups"].items()})
    tracker.log_metrics(metrics)
    tracker.log_artifact(str(paths["metrics"] / "overlap.json"))
    return out


# --------------------------------------------------------------------------------------------
# stage: score (one system) and report (all systems)
# --------------------------------------------------------------------------------------------
def score_cases(system: Any, cases: list[TestCase], metrics: tuple[str, ...]) -> tuple[dict[str, Any], Any]:
    """Run ``system`` on the suite; corpus scores against gold of the clean documents (each once) and
    of every perturbed set, and invariance failures per set."""
    from lingtest.adversarial.report import score_corpus
    from lingtest.suite.run import run_suite

    run = run_suite(system, cases)
    clean: dict[str, tuple[Document, Any]] = {}
    by_set: dict[str, list[tuple[Document, Any]]] = {}
    failures: dict[str, int] = {}
    for case, res, outs in zip(cases, run.results, run.outputs, strict=True):
        s = case.provenance.transformation
        clean.setdefault(case.provenance.seed_id, (Document.from_dict(case.source), outs[0]))
        by_set.setdefault(s, []).append((Document.from_dict(case.followup or {}), outs[1]))
        failures[s] = failures.get(s, 0) + (not res.passed)
    per_set = {}
    for s, pairs in {CLEAN: list(clean.values()), **by_set}.items():
        per_set[s] = score_corpus([d.clusters for d, _ in pairs], [p for _, p in pairs], metrics)
    invariance = {s: {"cases": len(v), "failures": failures[s]} for s, v in by_set.items()}
    return {"sets": per_set, "invariance": invariance}, run


def score_stage(cfg: Any, tracker: Any, item: str) -> dict[str, Any]:
    from lingtest.adversarial.report import table3_row
    from lingtest.suite.run import write_results
    from lingtest.systems.coref import TASK
    from lingtest.systems.factory import build_system

    paths = adversarial_paths(cfg)
    acfg = adversarial_config(cfg)
    dataset = dataset_name(cfg)
    metrics = tuple(acfg["metrics"])
    cases = load_suite(paths["suite"])
    system = build_system(cfg, TASK, item)
    scored, run = score_cases(system, cases, metrics)
    per_set = scored["sets"]
    conll = {s: v["conll"]["f1"] for s, v in per_set.items() if "conll" in v}
    result = {"dataset": dataset, "split": str(acfg["test_split"]), "sets": per_set, "table3": table3_row(conll),
              "groups": {s: group_of(s) for s in per_set}, "invariance": scored["invariance"]}
    write_json(paths["metrics"] / "systems" / f"{item}.json", result)
    write_results(paths["results"] / f"{item}.jsonl", run.results,
                  meta={"technique": TECHNIQUE, "system": item, "dataset": dataset})
    flat = {f"{item}.{s}.{m}.f1": v[m]["f1"] for s, v in per_set.items() for m in v}
    flat.update({f"{item}.table3.{k}": v for k, v in result["table3"].items()})
    flat.update({f"{item}.invariance_failures.{s}": float(v["failures"]) for s, v in scored["invariance"].items()})
    tracker.set_tags({"system": item, "dataset": dataset})
    tracker.log_metrics(flat)
    tracker.log_artifact(str(paths["metrics"] / "systems" / f"{item}.json"))
    return result


def report_stage(cfg: Any, tracker: Any) -> str:
    """Table 3 and the CoNLL F1 plot over ``adversarial.systems`` (their score stages' metrics)."""
    import json

    from lingtest.adversarial.report import plot_sets, render_table3
    from lingtest.data.io import atomic_open

    paths = adversarial_paths(cfg)
    acfg = adversarial_config(cfg)
    rows: dict[str, Any] = {}
    conll: dict[str, dict[str, float]] = {}
    for name in acfg["systems"]:
        p = paths["metrics"] / "systems" / f"{name}.json"
        if not p.exists():
            raise LingtestError(f"{p} not found: run adversarial_score@{name} first (dvc repro)")
        res = json.loads(p.read_text(encoding="utf-8"))
        rows[name] = res["table3"]
        conll[name] = {s: v["conll"]["f1"] for s, v in res["sets"].items() if "conll" in v}
    table = render_table3(rows)
    with atomic_open(paths["metrics"] / "table3.md") as fh:
        fh.write(table)
    plot_sets(conll, paths["metrics"] / "conll_f1.png",
              title=f"CoNLL F1 on {dataset_name(cfg)} ({acfg['test_split']})")
    tracker.log_artifact(str(paths["metrics"] / "table3.md"))
    tracker.log_artifact(str(paths["metrics"] / "conll_f1.png"))
    return table
