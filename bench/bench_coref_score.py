"""Benchmark ``lingtest coref-score`` on all OntoGUM documents against a perturbed copy.

Builds a seeded perturbation of every OntoGUM document's clusters (mentions dropped, clusters
merged and split, spurious mentions added), writes key and response as CoNLL files into a
temporary folder, then times

* the whole ``coref-score --json`` subprocess (all metrics), median of ``--runs`` runs,
  including Python start-up, both as ``lingtest coref-score`` (typer; when the console script
  has that command) and as ``python -m lingtest.commands.coref_score`` (argparse);
* in-process reading and scoring (median of ``--runs``);

with the CPU time of each (user + system) and the load average, since wall time on a shared
machine depends on what else runs.

Writes ``bench/results/coref_score.json`` (docs, seconds, docs/s) and prints it.

    .venv/bin/python bench/bench_coref_score.py [--mirror ../shared/data] [--runs 7] [--seed 13]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

from lingtest.data.io import write_json
from lingtest.data.model import Cluster, Document, Mention
from lingtest.metrics.coref import METRIC_NAMES, conll_f1_from_scores, score_documents
from lingtest.paths import mirror_root
from lingtest.readers.conll_coref import read_coref_records, write_conll
from lingtest.readers.options import configured

ROOT = Path(__file__).resolve().parents[1]


def perturb(doc: Document, rng: random.Random, p_drop: float = 0.1, p_merge: float = 0.1,
            p_split: float = 0.1, p_spurious: float = 0.02) -> Document:
    """A copy of ``doc`` with its clusters damaged the way a resolver's errors would."""
    n = len(doc.words)
    clusters = [[(m.start, m.end) for m in c.mentions] for c in doc.clusters]
    clusters = [[m for m in c if rng.random() >= p_drop] for c in clusters]
    clusters = [c for c in clusters if c]
    out: list[list[tuple[int, int]]] = []
    for c in clusters:
        if len(c) >= 2 and rng.random() < p_split:
            cut = rng.randrange(1, len(c))
            out.extend([c[:cut], c[cut:]])
        else:
            out.append(c)
    rng.shuffle(out)
    merged: list[list[tuple[int, int]]] = []
    for c in out:
        if merged and rng.random() < p_merge and not _crossing(merged[-1] + c):
            merged[-1].extend(c)
        else:
            merged.append(list(c))
    used = {m for c in merged for m in c}
    for _ in range(int(n * p_spurious)):
        s = rng.randrange(n)
        m = (s, min(n, s + rng.randint(1, 3)))
        if m not in used:
            used.add(m)
            target = rng.choice(merged) if merged and rng.random() < 0.5 else None
            if target is not None and not _crossing([*target, m]):
                target.append(m)
            else:
                merged.append([m])
    return Document(id=doc.id, part=doc.part, sentences=doc.sentences,
                    clusters=[Cluster(mentions=sorted(Mention(s, e) for s, e in c), id=str(i))
                              for i, c in enumerate(merged)])


def _crossing(spans: list[tuple[int, int]]) -> bool:
    """Crossing mentions in one cluster cannot be written in the CoNLL bracket format."""
    return any(a[0] < b[0] < a[1] < b[1] or b[0] < a[0] < b[1] < a[1]
               for i, a in enumerate(spans) for b in spans[i + 1:])


def _commands() -> dict[str, list[str]]:
    """``lingtest coref-score`` (when the console script has it) and ``python -m`` (argparse)."""
    cmds = {}
    exe = Path(sys.executable).parent / "lingtest"
    if exe.exists():
        probe = subprocess.run([str(exe), "coref-score", "--help"], capture_output=True, text=True)
        if probe.returncode == 0:
            cmds["lingtest coref-score"] = [str(exe), "coref-score"]
    cmds["python -m lingtest.commands.coref_score"] = [sys.executable, "-m", "lingtest.commands.coref_score"]
    return cmds


def _time_command(cmd: list[str], key: Path, resp: Path, runs: int) -> tuple[dict[str, Any], dict[str, Any]]:
    walls: list[float] = []
    cpus: list[float] = []
    result: dict[str, Any] = {}
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run([*cmd, str(key), str(resp), "--json"], capture_output=True, text=True)
        walls.append(time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        if proc.returncode != 0:
            sys.exit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr}")
        result = json.loads(proc.stdout)
    wall = statistics.median(walls)
    return {"seconds_median": round(wall, 4), "seconds_all": [round(w, 4) for w in walls],
            "cpu_seconds_median": round(statistics.median(cpus), 4), "docs_per_s": None}, result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirror", default=None)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "coref_score.json"))
    args = ap.parse_args()
    mirror = mirror_root(args.mirror)
    if mirror is None:
        sys.exit("no data mirror found (pass --mirror)")
    conll_dir = mirror / "ontogum" / "coref" / "ontogum" / "conll"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the known flaws of the released OntoGUM, reported elsewhere
        docs = list(configured("ontogum", malformed="warn", duplicates="drop")(conll_dir))
    rng = random.Random(args.seed)
    perturbed = [perturb(d, rng) for d in docs]
    tmp = Path(tempfile.mkdtemp(prefix="bench_coref_"))
    timings: dict[str, dict[str, Any]] = {}
    load_before = os.getloadavg()[0]
    try:
        key, resp = tmp / "key.conll", tmp / "response.conll"
        write_conll(docs, key)
        write_conll(perturbed, resp)
        results = []
        for name, cmd in _commands().items():
            timings[name], result = _time_command(cmd, key, resp, args.runs)
            timings[name]["docs_per_s"] = round(len(docs) / timings[name]["seconds_median"], 1)
            results.append(result)
        inproc: list[float] = []
        inproc_cpu: list[float] = []
        for _ in range(args.runs):
            t0, c0 = time.perf_counter(), time.process_time()
            scores = score_documents(read_coref_records(key), read_coref_records(resp), METRIC_NAMES)
            inproc.append(time.perf_counter() - t0)
            inproc_cpu.append(time.process_time() - c0)
        for result in results:  # every command prints what the library computes
            assert abs(result["conll_f1"] - conll_f1_from_scores(scores)) < 1e-12
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    inp = statistics.median(inproc)
    result = results[0]
    report = {
        "docs": len(docs),
        "tokens": sum(len(d.words) for d in docs),
        "mentions": sum(len(c.mentions) for d in docs for c in d.clusters),
        "runs": args.runs,
        "seed": args.seed,
        "subprocess": timings,
        "inprocess_seconds_median": round(inp, 4),
        "inprocess_cpu_seconds_median": round(statistics.median(inproc_cpu), 4),
        "inprocess_docs_per_s": round(len(docs) / inp, 1),
        "load_average_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "cpu_count": os.cpu_count(),
        "conll_f1": round(result["conll_f1"], 6),
        "f1": {m: round(result[m]["f1"], 6) for m in METRIC_NAMES},
    }
    write_json(args.out, report)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
