"""The choice of the offline relabel threshold on dev (``bench/tune_relabel_threshold.py``): every
threshold is scored from one set of mutants, graded against gold per predicted entity."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from lingtest.data.model import Entity
from lingtest.tin.repair.relabel import RelabelConfig, RelabelJob, RelabelMutant

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("tune_relabel_threshold", ROOT / "bench" / "tune_relabel_threshold.py")
tune = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tune)

CONFIG = RelabelConfig(top_k=10, p_threshold=0.0, sim_threshold=0.0, k=2.5, alpha=0.2, lam=0.5, subwords=False)


def mutant(job: int, p: float) -> RelabelMutant:
    return RelabelMutant(job, 0, False, "w", ("w", "x"), (0, 1), p, 0.9)


def test_sweep_grades_every_threshold_against_gold() -> None:
    jobs = [RelabelJob(("Paris", "x"), (0, 1)), RelabelJob(("Jo", "x"), (0, 1))]
    # job 0: predicted ORG, gold LOC; its confident mutant says LOC, a weak one says ORG twice
    # job 1: predicted PER, gold PER; only a weak mutant, which says ORG
    muts = [mutant(0, 0.5), mutant(0, 0.03), mutant(0, 0.02), mutant(1, 0.04)]
    preds = [[Entity(0, 1, "LOC")], [Entity(0, 1, "ORG")], [Entity(0, 1, "ORG")], [Entity(0, 1, "ORG")]]
    rows = tune.sweep(jobs, muts, preds, ["ORG", "PER"], ["LOC", "PER"], [0.0, 0.1], CONFIG,
                      lambda job, label: label)
    low, high = rows
    # at 0: job 0's LOC (p 0.5) outweighs the two ORG votes at p 0.02-0.03 (F grows with p);
    # job 1 is relabelled ORG from its one weak mutant: a correct prediction broken
    assert low["p_threshold"] == 0.0 and low["mutants"] == 4 and low["cor2err"] == 1 and low["err2cor"] == 1
    # at 0.1 only the confident mutant is left: job 0 fixed, job 1 kept (no evidence)
    assert high == {**high, "err2cor": 1, "cor2err": 0, "kept_original": 1, "mutants": 1, "net": 1,
                    "errors": 1, "error_reduce": 1.0}
    assert tune.choose(rows) == 0.1
    assert tune.choose([{"p_threshold": 0.0, "net": 2}, {"p_threshold": 0.2, "net": 2}]) == 0.2
