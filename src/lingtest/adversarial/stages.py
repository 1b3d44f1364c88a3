"""Stage bodies of the adversarial coreference benchmark (Chai et al. 2021).

* ``adversarial_generate``: perturb the configured splits of ``cfg.dataset`` once per set in
  ``cfg.adversarial.sets`` and write ``data/adversarial/<dataset>/<set>/<split>.{jsonl,conll}``
  plus the audit log ``<split>.changes.jsonl``; the clean documents go to ``clean/`` the same way
  (keys for the official scorer).
* ``adversarial_overlap``: mention-overlap statistics -> ``metrics/adversarial_coref/overlap.json``.
* ``adversarial_score``: run every enabled coreference system on the clean and perturbed test
  sets -> ``metrics/adversarial_coref/<system>.json``, ``table3.md`` and ``conll_f1.png``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lingtest.adversarial.apply import Change, DocumentPerturber, adversarial_training_set, strip_annotations
from lingtest.adversarial.overlap import changed_mention_share, changed_token_map, mention_overlap, mention_strings
from lingtest.adversarial.perturbations import GROUPS, group_of
from lingtest.data import Document, read_jsonl, write_json, write_jsonl
from lingtest.config import to_plain
from lingtest.errors import LingtestError
from lingtest.paths import project_root
from lingtest.progress import progress

log = logging.getLogger(__name__)

CLEAN = "clean"
DOC_KIND = "document"
CHANGE_KIND = "adversarial_change"


# --------------------------------------------------------------------------------------------
# configuration helpers
# --------------------------------------------------------------------------------------------
def adversarial_config(cfg: Any) -> dict[str, Any]:
    return dict(to_plain(cfg.adversarial))


def dataset_name(cfg: Any) -> str:
    ds = cfg.dataset
    return ds if isinstance(ds, str) else str(ds.name)


def scheme_options(acfg: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Constructor options per scheme from the config groups ``orthographic``, ``visual``, ``lexical``."""
    ortho = dict(acfg.get("orthographic") or {})
    lex = dict(acfg.get("lexical") or {})
    visual = {**ortho, **dict(acfg.get("visual") or {})}
    return {"swap": ortho, "delete": ortho, "visual": visual,
            "synonym": lex, "hyponym": lex, "hypernym": lex}


def build_perturber(acfg: Mapping[str, Any], set_name: str, perturbations: Mapping[str, Any] | None = None) -> DocumentPerturber:
    """The perturber of one configured set (a scheme name or ``mixed``)."""
    options = scheme_options(acfg)
    if set_name == "mixed":
        mixed = dict(acfg.get("mixed") or {})
        schemes: Any = dict(mixed.get("schemes") or {})
        retry = bool(mixed.get("retry", False))
    else:
        schemes, retry = set_name, False
    names = [schemes] if isinstance(schemes, str) else list(schemes)
    shared = dict(perturbations or {})
    return DocumentPerturber(schemes=schemes, p=float(acfg.get("p", 0.5)), seed=int(acfg.get("seed", 0)),
                             name=set_name, consistency=str(acfg.get("consistency", "token")), retry=retry,
                             options={n: options.get(n, {}) for n in names},
                             perturbations={n: shared[n] for n in names if n in shared})


def set_dir(root: Path, dataset: str, set_name: str) -> Path:
    return root / "data" / "adversarial" / dataset / set_name


def metrics_dir(root: Path) -> Path:
    return root / "metrics" / "adversarial_coref"


def input_path(root: Path, dataset: str, split: str, source: str = "auto") -> Path:
    """``data/parsed`` (when ``source`` is parsed, or auto and present) else ``data/prepared``."""
    parsed = root / "data" / "parsed" / dataset / f"{split}.jsonl"
    prepared = root / "data" / "prepared" / dataset / f"{split}.jsonl"
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


def load_changes(path: Path) -> list[Change]:
    return list(read_jsonl(path, Change.from_dict, kind=CHANGE_KIND))


def write_set(directory: Path, split: str, docs: list[Document], changes: list[Change] | None,
              meta: Mapping[str, Any]) -> None:
    """``<split>.jsonl`` (Documents), ``<split>.conll`` (CoNLL coref) and ``<split>.changes.jsonl``."""
    from lingtest.readers.conll_coref import write_conll

    write_jsonl(directory / f"{split}.jsonl", docs, kind=DOC_KIND, meta=dict(meta))
    write_conll(docs, directory / f"{split}.conll")  # atomic
    if changes is not None:
        write_jsonl(directory / f"{split}.changes.jsonl", changes, kind=CHANGE_KIND, meta=dict(meta))


# --------------------------------------------------------------------------------------------
# stage: generate
# --------------------------------------------------------------------------------------------
def generate(cfg: Any, tracker: Any) -> dict[str, dict[str, int]]:
    """Perturb every configured split once per configured set; returns changes per set/split."""
    root = project_root()
    acfg = adversarial_config(cfg)
    dataset = dataset_name(cfg)
    strip = bool(acfg.get("strip_annotations", True))
    sets = [str(s) for s in acfg.get("sets", [])]
    tracker.log_params({f"adversarial.{k}": v for k, v in acfg.items() if not isinstance(v, dict | list)})
    shared: dict[str, Any] = {}  # one instance per scheme, so Lesk caches serve every set
    perturbers = {}
    for s in sets:
        perturbers[s] = build_perturber(acfg, s, shared)
        shared.update(perturbers[s]._impl)
    summary: dict[str, dict[str, int]] = {}
    for split in acfg.get("splits", ["train", "dev", "test"]):
        docs = load_docs(input_path(root, dataset, split, str(acfg.get("input", "auto"))))
        clean = [strip_annotations(d) for d in docs] if strip else docs
        write_set(set_dir(root, dataset, CLEAN), split, clean, None, {"dataset": dataset, "set": CLEAN})
        for s in sets:
            out_docs: list[Document] = []
            changes: list[Change] = []
            for d in progress(docs, f"{s} {dataset}/{split}"):
                nd, ch = perturbers[s](d)
                out_docs.append(strip_annotations(nd) if strip else nd)
                changes.extend(ch)
            meta = {"dataset": dataset, "set": s, "p": acfg.get("p"), "seed": acfg.get("seed")}
            write_set(set_dir(root, dataset, s), split, out_docs, changes, meta)
            k, n, share = changed_mention_share(out_docs, changes)
            summary.setdefault(s, {})[split] = len(changes)
            tracker.log_metrics({f"{s}.{split}.changes": float(len(changes)),
                                 f"{s}.{split}.changed_mention_share": share})
            log.info("%s/%s: %d words changed, %d/%d mentions (%.1f%%)", s, split, len(changes), k, n, 100 * share)
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
    for g, members in GROUPS.items():
        present = [s for s in members if s in out["sets"]]
        if present:
            out["groups"][g] = {
                "sets": present,
                "changed_mention_share": sum(out["sets"][s]["changed_mentions"]["share"] for s in present) / len(present),
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


def overlap(cfg: Any, tracker: Any) -> dict[str, Any]:
    root = project_root()
    acfg = adversarial_config(cfg)
    dataset = dataset_name(cfg)
    ocfg = dict(acfg.get("overlap") or {})
    test_split = str(acfg.get("test_split", "test"))
    names = [CLEAN, *[str(s) for s in acfg.get("sets", [])]]
    train: dict[str, list[Document]] = {}
    test: dict[str, list[Document]] = {}
    changes: dict[str, list[Change]] = {}
    for s in names:
        d = set_dir(root, dataset, s)
        if not (d / f"{test_split}.jsonl").exists():
            raise LingtestError(f"{d / (test_split + '.jsonl')} not found: run adversarial_generate first")
        test[s] = load_docs(d / f"{test_split}.jsonl")
        if (d / "train.jsonl").exists():
            train[s] = load_docs(d / "train.jsonl")
        if s != CLEAN:
            changes[s] = load_changes(d / f"{test_split}.changes.jsonl")
    if CLEAN not in train:
        raise LingtestError(f"no clean train split under {set_dir(root, dataset, CLEAN)}: add train to adversarial.splits")
    out = compute_overlap(train, test, changes, lowercase=bool(ocfg.get("lowercase", False)),
                          at_ratio=float(ocfg.get("adversarial_train_ratio", 0.5)), seed=int(acfg.get("seed", 0)))
    out["dataset"] = dataset
    out["test_split"] = test_split
    write_json(metrics_dir(root) / "overlap.json", out)
    metrics = {f"overlap.{s}": e["test_vs_clean_train"]["share"] for s, e in out["sets"].items()}
    metrics.update({f"changed_share.{s}": e["changed_mentions"]["share"] for s, e in out["sets"].items()
                    if "changed_mentions" in e})
    metrics.update({f"changed_share.{g}": e["changed_mention_share"] for g, e in out["groups"].items()})
    tracker.log_metrics(metrics)
    tracker.log_artifact(str(metrics_dir(root) / "overlap.json"))
    return out


# --------------------------------------------------------------------------------------------
# stage: score
# --------------------------------------------------------------------------------------------
def enabled_systems(cfg: Any, acfg: Mapping[str, Any]) -> list[str]:
    """``adversarial.systems`` when set, else ``systems.enabled`` (conf/systems/default.yaml)."""
    if acfg.get("systems"):
        return [str(s) for s in acfg["systems"]]
    systems = to_plain(cfg.get("systems")) if hasattr(cfg, "get") else None
    enabled = systems.get("enabled") if isinstance(systems, dict) else None
    if not enabled:
        raise LingtestError("no coreference systems: set adversarial.systems or systems.enabled")
    return [str(s) for s in enabled]


def build_system(cfg: Any, name: str) -> Any:
    """``get_system(name, **cfg.systems[name])``, wrapped in the prediction cache when
    ``systems.cache`` is true (clean test documents are then predicted once across runs)."""
    from lingtest.systems import get_system

    systems = to_plain(cfg.get("systems")) if hasattr(cfg, "get") else None
    systems = systems if isinstance(systems, dict) else {}
    opts = systems.get(name)
    system = get_system(name, **(dict(opts) if isinstance(opts, dict) else {}))
    if systems.get("cache", False):
        from lingtest.paths import cache_dir
        from lingtest.systems.coref.base import CachedSystem

        where = systems.get("cache_dir") or cache_dir() / "coref_predictions"
        system = CachedSystem(system, where)
    return system


def score_sets(system: Any, sets: Mapping[str, list[Document]], metrics: tuple[str, ...]) -> dict[str, dict[str, dict[str, float]]]:
    """Corpus scores of ``system`` on every set (set name -> metric -> recall/precision/f1)."""
    from lingtest.adversarial.report import score_corpus

    out = {}
    for s, docs in sets.items():
        inputs = [Document(id=d.id, sentences=d.sentences, clusters=[], entities=d.entities, part=d.part,
                           split=d.split, meta=d.meta) for d in docs]
        pred = system.predict(inputs)
        out[s] = score_corpus([d.clusters for d in docs], pred, metrics)
    return out


def score(cfg: Any, tracker: Any) -> dict[str, Any]:
    from lingtest.adversarial.report import plot_sets, render_table3, table3_row
    root = project_root()
    acfg = adversarial_config(cfg)
    dataset = dataset_name(cfg)
    test_split = str(acfg.get("test_split", "test"))
    metrics = tuple(acfg.get("metrics") or ("muc", "bcub", "ceafe"))
    names = [CLEAN, *[str(s) for s in acfg.get("sets", [])]]
    sets = {s: load_docs(set_dir(root, dataset, s) / f"{test_split}.jsonl") for s in names}
    results: dict[str, Any] = {}
    conll: dict[str, dict[str, float]] = {}
    rows: dict[str, dict[str, float]] = {}
    for name in enabled_systems(cfg, acfg):
        system = build_system(cfg, name)
        per_set = score_sets(system, sets, metrics)
        conll[name] = {s: v["conll"]["f1"] for s, v in per_set.items() if "conll" in v}
        rows[name] = table3_row(conll[name])
        results[name] = {"dataset": dataset, "split": test_split, "sets": per_set, "table3": rows[name],
                         "groups": {s: group_of(s) for s in per_set}}
        write_json(metrics_dir(root) / f"{name}.json", results[name])
        flat = {f"{name}.{s}.{m}.f1": v[m]["f1"] for s, v in per_set.items() for m in v}
        flat.update({f"{name}.table3.{k}": v for k, v in rows[name].items()})
        tracker.log_metrics(flat)
        tracker.log_artifact(str(metrics_dir(root) / f"{name}.json"))
    from lingtest.data.io import atomic_open

    with atomic_open(metrics_dir(root) / "table3.md") as fh:
        fh.write(render_table3(rows))
    plot_sets(conll, metrics_dir(root) / "conll_f1.png", title=f"CoNLL F1 on {dataset} ({test_split})")
    tracker.log_artifact(str(metrics_dir(root) / "table3.md"))
    tracker.log_artifact(str(metrics_dir(root) / "conll_f1.png"))
    return results
