"""Validity of the generated test cases of a finished pipeline run, and precision with the issues on
invalid cases counted as false positives, per technique - from the files the stages wrote, without
running any system (the issues are read from the result records).

    .venv/bin/python bench/bench_validity.py ROOT [--crest-corpus ontogum] [--adversarial-corpus ontogum]
        [--tin-corpus conll2003] [--tin-labels spacy_sm=ontonotes,minilm_ner=conll] [--out bench/results/validity.json]

``ROOT`` is a checkout after ``dvc repro`` (read only): the paths are those of ``conf/paths``.

* CREST: the validity of every generated follow-up (``paths.crest.generated``) and of the released
  suite, and per system (``paths.crest.results``) the issues re-graded against gold from their
  predictions and summarised by :func:`lingtest.crest.evaluate.summarize` (tests within crest.M,
  selected) - its ``precision``, ``validity`` and ``precision_validity_adjusted``;
* adversarial: per set, the validity of the suite's cases and, per system, the invariance failures with
  :func:`lingtest.adversarial.scoring.invariance_validity`;
* TIN: per system, the generated mutants (``paths.tin.generated``) graded from their result records by
  :func:`lingtest.tin.api.grade` (:func:`lingtest.tin.flow.summarize_checked`), and the released suite's
  validity;
* ContraPro: the validity of every attacked example (``paths.contrapro.attacked``, against
  ``paths.contrapro.examples``) per set and per attack, and per system the scored sample graded by
  :func:`lingtest.contrapro.grading.grade`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from lingtest.data.model import ContrastiveExample, TestCase  # noqa: E402
from lingtest.metrics.validity import Validity, validity_summary  # noqa: E402


def records(path: Path) -> Iterator[dict[str, Any]]:
    """The JSON lines of ``path`` after its header line."""
    with path.open(encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            if i == 0 and '"__schema__"' in line:
                continue
            if line.strip():
                yield json.loads(line)


def cases(path: Path) -> list[TestCase]:
    return [TestCase.from_dict(d) for d in records(path)]


def results(folder: Path) -> dict[str, dict[str, dict[str, Any]]]:
    """System -> case id -> result record, for every ``<system>.jsonl`` of ``folder``."""
    if not folder.is_dir():
        return {}
    return {p.stem: {r["case_id"]: r for r in records(p)} for p in sorted(folder.glob("*.jsonl"))}


def _short(summary: dict[str, Any]) -> str:
    v = summary.get("validity")
    return f"{summary.get('validity_valid')}/{summary.get('validity_total')} ({'-' if v is None else f'{v:.4f}'})"


# ---- CREST -----------------------------------------------------------------------------------------------
def crest(root: Path, corpus: str, m: int, select: bool) -> dict[str, Any]:
    from lingtest.crest.evaluate import EvalResult, PairRecord, select_cases, summarize
    from lingtest.crest.grading import ERROR_TYPES, case_validity, grade_issue, same_clustering
    from lingtest.data.model import non_singleton

    generated = cases(root / "data" / "crest" / corpus / "generated.jsonl")
    verdicts = {c.id: case_validity(c) for c in generated}
    suite = cases(root / "data" / "suites" / "crest" / f"{corpus}.jsonl")
    out: dict[str, Any] = {
        "generated": validity_summary(verdicts.values(), digits=4),
        "tests": validity_summary((verdicts[c.id] for c in select_cases(generated, m, select)), digits=4),
        "suite": validity_summary((case_validity(c) for c in suite), digits=4),
        "M": m, "select": select, "systems": {},
    }
    by_id = {c.id: c for c in generated}
    for system, recs in results(root / "data" / "results" / "crest" / corpus).items():
        pairs, correct = [], {}
        for cid, r in recs.items():
            c = by_id[cid]
            gold = [[tuple(s) for s in cl] for cl in c.meta["gold_clusters"]]
            fu_gold = [[tuple(s) for s in cl] for cl in c.meta["followup_gold_clusters"]]
            src = non_singleton([[tuple(s) for s in cl] for cl in r["predictions"]["source"]])
            fu = non_singleton([[tuple(s) for s in cl] for cl in r["predictions"]["followup"]])
            correct[c.provenance.seed_id] = same_clustering(gold, src)
            tp, types = False, set[str]()
            if not r["passed"]:
                tp, types = grade_issue(gold, src, fu_gold, fu)
            m_ = c.meta
            pairs.append(PairRecord(c.provenance.seed_id, int(m_["order"]), bool(m_.get("selected", True)),
                                    str(m_["candidate_source"]), not r["passed"],
                                    float(r["details"].get("precision", 0.0)), float(r["details"].get("recall", 0.0)),
                                    tp, [t for t in ERROR_TYPES if t in types], list(verdicts[cid].reasons)))
        row = summarize(EvalResult(system, correct, pairs, 0.0), m, select)
        out["systems"][system] = {k: row[k] for k in (
            "tests", "issues", "true_positives", "false_positives", "precision", "precision_validity_adjusted",
            "issues_invalid", "validity", "validity_valid", "validity_total", "validity_reasons")}
    return out


# ---- adversarial ------------------------------------------------------------------------------------------
def adversarial(root: Path, corpus: str) -> dict[str, Any]:
    from lingtest.adversarial.scoring import invariance_validity
    from lingtest.adversarial.validity import case_validity, name_kept, orthographic_change_ok

    suite = cases(root / "data" / "suites" / "adversarial" / f"{corpus}.jsonl")
    verdicts = {c.id: case_validity(c) for c in suite}
    by_set: dict[str, list[TestCase]] = {}
    for c in suite:
        by_set.setdefault(c.provenance.transformation, []).append(c)
    changes: Counter[str] = Counter()
    bad: Counter[tuple[str, str]] = Counter()  # (set, reason) -> changed words at fault
    for c in suite:
        ents = [t.get("ent") for s in c.source["sentences"] for t in s["tokens"]]
        for ch in c.meta.get("changes", []):
            changes[c.provenance.transformation] += 1
            if not name_kept(ch["scheme"], ch["original"], ch["new"], ents[ch["token"]]):
                bad[(c.provenance.transformation, "name_changed")] += 1
            if not orthographic_change_ok(ch["scheme"], ch["original"], ch["new"]):
                bad[(c.provenance.transformation, "orthographic_constraint")] += 1
    out: dict[str, Any] = {
        "overall": validity_summary(verdicts.values(), digits=4),
        "sets": {s: {**validity_summary((verdicts[c.id] for c in cs), digits=4), "changes": changes[s],
                     "changes_at_fault": {r: n for (set_, r), n in sorted(bad.items()) if set_ == s}}
                 for s, cs in by_set.items()},
        "changes": sum(changes.values()),
        "changes_at_fault": dict(sum((Counter({r: n}) for (_, r), n in bad.items()), Counter())),
        "systems": {},
    }
    for system, recs in results(root / "data" / "results" / "adversarial" / corpus).items():
        per = {s: invariance_validity([(not recs[c.id]["passed"], verdicts[c.id]) for c in cs if c.id in recs])
               for s, cs in by_set.items()}
        every = [(not recs[c.id]["passed"], verdicts[c.id]) for c in suite if c.id in recs]
        out["systems"][system] = {"overall": {"failures": sum(f for f, _ in every), **invariance_validity(every)},
                                  "sets": {s: {"failures": sum(not recs[c.id]["passed"] for c in by_set[s]
                                                               if c.id in recs), **v} for s, v in per.items()}}
    return out


# ---- TIN --------------------------------------------------------------------------------------------------
def _tin_scheme(recs: dict[str, dict[str, Any]]) -> str:
    labels = {e[2] for r in recs.values() for side in r["predictions"].values() for e in side}
    return "conll" if labels <= {"PER", "ORG", "LOC", "MISC"} else "ontonotes"


def tin(root: Path, corpus: str, schemes: dict[str, str]) -> dict[str, Any]:
    from lingtest.tin.api import grade
    from lingtest.tin.grading import case_validity

    folder = root / "data" / "tin" / corpus
    suite = cases(root / "data" / "suites" / "tin" / f"{corpus}.jsonl")
    suite_v = [v for v in (case_validity(c) for c in suite) if v is not None]
    out: dict[str, Any] = {"suite": validity_summary(suite_v, digits=4), "systems": {}}
    res = results(root / "data" / "results" / "tin" / corpus)
    for path in sorted((folder / "generated").glob("*.jsonl")):
        system = path.stem
        gen = cases(path)
        recs = res.get(system, {})
        scheme = schemes.get(system) or _tin_scheme(recs)
        graded = grade(gen, {cid: recs[cid] for cid in recs if cid in {c.id for c in gen}}, scheme)
        issues = graded["summary"]["issues"]
        keep = ("checked", "issues", "erroneous", "precision", "precision_validity_adjusted", "issues_invalid",
                "source_wrong", "validity", "validity_valid", "validity_total", "validity_reasons")
        out["systems"][system] = {"labels": scheme,
                                  "groups": {g: {k: row[k] for k in keep if k in row} for g, row in issues.items()}}
    return out


# ---- ContraPro ---------------------------------------------------------------------------------------------
def contrapro(root: Path) -> dict[str, Any]:
    from lingtest.contrapro.grading import grade
    from lingtest.contrapro.validity import attack_validity

    examples = root / "data" / "contrapro" / "examples.jsonl"
    originals = {d["id"]: ContrastiveExample.from_dict(d) for d in records(examples)}
    sets: dict[str, list[Validity]] = {}
    for path in sorted((root / "data" / "contrapro" / "attacked").glob("*/*.jsonl")):
        attack = path.parent.name
        name = f"{attack}/{path.stem}"
        for d in records(path):
            ex = ContrastiveExample.from_dict(d)
            rec = ex.meta["attack"]
            sets.setdefault(name, []).append(attack_validity(originals[rec["original_id"]], ex, attack, rec))
    attacks: dict[str, list[Validity]] = {}
    for name, vs in sets.items():
        attacks.setdefault(name.split("/", 1)[0], []).extend(vs)
    out: dict[str, Any] = {
        "attacked": {"overall": validity_summary((v for vs in sets.values() for v in vs), digits=6),
                     "attacks": {a: validity_summary(vs, digits=6) for a, vs in attacks.items()},
                     "sets": {s: validity_summary(vs, digits=6) for s, vs in sets.items()}},
        "systems": {},
    }
    suite = cases(root / "data" / "suites" / "contrapro.jsonl")
    for system, recs in results(root / "data" / "results" / "contrapro").items():
        scored = [c for c in suite if c.id in recs]
        g = grade(scored, [recs[c.id]["predictions"]["source"] for c in scored])
        keep = ("total", "broken", "broken_invalid", "precision_validity_adjusted", "validity", "validity_valid",
                "validity_total", "validity_reasons")
        out["systems"][system] = {"attacks": {a: {k: row[k] for k in keep} for a, row in g["attacks"].items()}}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", type=Path, help="a checkout after dvc repro (read only)")
    ap.add_argument("--crest-corpus", default="ontogum")
    ap.add_argument("--crest-m", type=int, default=20, help="crest.M of the run")
    ap.add_argument("--crest-select", type=int, default=1, help="crest.select of the run (1/0)")
    ap.add_argument("--adversarial-corpus", default="ontogum")
    ap.add_argument("--tin-corpus", default="conll2003")
    ap.add_argument("--tin-labels", default="", help="system=scheme,... (default: inferred from the labels)")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "validity.json")
    a = ap.parse_args(argv)
    schemes = dict(kv.split("=", 1) for kv in a.tin_labels.split(",") if kv)
    t0 = time.perf_counter()
    out: dict[str, Any] = {"root": str(a.root.resolve())}
    out["crest"] = crest(a.root, a.crest_corpus, a.crest_m, bool(a.crest_select))
    out["adversarial"] = adversarial(a.root, a.adversarial_corpus)
    out["tin"] = tin(a.root, a.tin_corpus, schemes)
    out["contrapro"] = contrapro(a.root)
    out["seconds"] = round(time.perf_counter() - t0, 1)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(out, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    c, adv, t, cp = out["crest"], out["adversarial"], out["tin"], out["contrapro"]
    print(f"CREST generated {_short(c['generated'])}, tests {_short(c['tests'])}, suite {_short(c['suite'])}")
    for s, r in c["systems"].items():
        print(f"  {s}: precision {r['precision']} adjusted {r['precision_validity_adjusted']} ({r['issues']} issues)")
    print(f"adversarial {_short(adv['overall'])}: " + ", ".join(f"{s} {_short(v)}" for s, v in adv["sets"].items()))
    for s, r in adv["systems"].items():
        o = r["overall"]
        print(f"  {s}: {o['failures']} failures, adjusted precision {o['precision_validity_adjusted']}")
    print(f"TIN suite {_short(t['suite'])}")
    for s, r in t["systems"].items():
        o = r["groups"]["overall"]
        print(f"  {s} ({r['labels']}): mutants {_short(o)}, precision {o.get('precision')} adjusted "
              f"{o.get('precision_validity_adjusted')} ({o.get('issues')} issues)")
    print(f"ContraPro attacked {_short(cp['attacked']['overall'])}: "
          + ", ".join(f"{k} {_short(v)}" for k, v in cp["attacked"]["attacks"].items()))
    print(f"wrote {a.out} in {out['seconds']}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
