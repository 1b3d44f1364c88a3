"""The adversarial-training experiment's table (Chai et al. 2021): one row per trained variant, CoNLL F1
on the clean and every perturbed test set, the Table-3 means (Avg, α, β) and, beside each F1, the
share of that test set's mentions whose string is a mention of the variant's training set (from
``adversarial_overlap``: ``test_vs_clean_train`` for the clean model, ``adversarial_training.<set>``
for a model trained on the adversarial training set of ``<set>``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

CLEAN = "clean"


def overlap_share(overlap: Mapping[str, Any], variant: str, test_set: str) -> float | None:
    """Share of ``test_set`` mentions seen as mentions in the training data of ``variant``."""
    if variant == CLEAN:
        entry = overlap.get("sets", {}).get(test_set, {}).get("test_vs_clean_train")
    else:
        entry = overlap.get("adversarial_training", {}).get(variant, {}).get("test_sets", {}).get(test_set)
    if not entry or not entry.get("mentions"):
        return None
    return float(entry["overlapping"]) / float(entry["mentions"])


def experiment_table(scores: Mapping[str, Mapping[str, Any]], training: Mapping[str, Mapping[str, Any]],
                     overlap: Mapping[str, Any], sets: Sequence[str]) -> tuple[str, dict[str, Any]]:
    """Markdown and JSON of the experiment. ``scores``: variant -> ``adversarial_score`` metrics;
    ``training``: variant -> ``coref_train`` metrics; ``sets``: the perturbed test sets in order."""
    columns = [CLEAN, *sets]
    data: dict[str, Any] = {"columns": columns, "variants": {}}
    head = ["trained on", *columns, "Avg", "α(3)", "β(3)"]
    lines = ["CoNLL F1 (share of test mentions seen in training, %)", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for variant, res in scores.items():
        f1 = {s: float(v["conll"]["f1"]) for s, v in res["sets"].items() if "conll" in v}
        shares = {s: overlap_share(overlap, variant, s) for s in columns}
        t3 = dict(res.get("table3", {}))
        tr = training.get(variant, {})
        data_ = tr.get("data", {})
        label = variant if variant == CLEAN else f"{variant} ({data_.get('perturbed_in_subset', '?')}/"\
            f"{data_.get('documents', '?')} docs perturbed)"
        cells = []
        for s in columns:
            share = shares[s]
            cells.append(f"{f1[s]:.2f} ({100 * share:.1f})" if s in f1 and share is not None
                         else (f"{f1[s]:.2f}" if s in f1 else ""))
        cells += [f"{t3[k]:.2f}" if k in t3 else "" for k in ("avg", "alpha", "beta")]
        lines.append("| " + " | ".join([label, *cells]) + " |")
        data["variants"][variant] = {"conll_f1": f1, "overlap_share": shares, "table3": t3}
    # no training time here: the table is an output that comes out the same on every run (the stage's MLflow
    # run has the time)
    lines += ["", "| trained on | documents | perturbed | epoch kept | dev CoNLL F1 | candidate recall (train) |",
              "|---|---|---|---|---|---|"]
    for variant, tr in training.items():
        d = tr.get("data", {})
        recall = tr.get("train_candidate_recall", {}).get("recall")
        dev = tr.get("dev_f1")
        lines.append(f"| {variant} | {d.get('documents', '')} | {d.get('perturbed_in_subset', 0)} | "
                     f"{tr.get('epoch', '')} / {len(tr.get('train_loss', []))} | "
                     f"{'' if dev is None else f'{dev:.2f}'} | "
                     f"{'' if recall is None else f'{100 * recall:.1f}%'} |")
        data["variants"].setdefault(variant, {})["training"] = {
            k: tr.get(k) for k in ("epoch", "dev_f1", "train_candidate_recall", "data")}
    return "\n".join(lines) + "\n", data
