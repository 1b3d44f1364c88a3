"""Benchmark ``lingtest coref-score`` on all OntoGUM documents against a perturbed copy.

Builds a seeded perturbation of every OntoGUM document's clusters (mentions dropped, clusters
merged and split, spurious mentions added), writes key and response as CoNLL files into a
temporary folder, then times

* the whole ``coref-score --json`` subprocess (all metrics), median of ``--runs`` runs,
  including Python start-up: ``lingtest coref-score`` when the ``lingtest`` console script has
  that command, else ``python -m lingtest.commands.coref_score``;
* in-process reading and scoring (median of ``--runs``).

Writes ``bench/results/coref_score.json`` (docs, seconds, docs/s) and prints it.

    .venv/bin/python bench/bench_coref_score.py [--mirror ../shared/data] [--runs 7] [--seed 13]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

from lingtest.data.io import write_json
from lingtest.data.model import Cluster, Document, Mention
from lingtest.metrics.coref import METRIC_NAMES, conll_f1_from_scores, score_documents
from lingtest.paths import mirror_root
from lingtest.readers.conll_coref import read_coref_records, read_ontogum, write_conll

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


def _cli_command() -> list[str]:
    exe = Path(sys.executable).parent / "lingtest"
    if exe.exists():
        probe = subprocess.run([str(exe), "coref-score", "--help"], capture_output=True, text=True)
        if probe.returncode == 0:
            return [str(exe), "coref-score"]
    return [sys.executable, "-m", "lingtest.commands.coref_score"]


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
        warnings.simplefilter("ignore")  # the two known flaws of the released OntoGUM
        docs = list(read_ontogum(conll_dir, malformed="warn", duplicates="drop"))
    rng = random.Random(args.seed)
    perturbed = [perturb(d, rng) for d in docs]
    cmd = _cli_command()
    tmp = Path(tempfile.mkdtemp(prefix="bench_coref_"))
    try:
        key, resp = tmp / "key.conll", tmp / "response.conll"
        write_conll(docs, key)
        write_conll(perturbed, resp)
        walls: list[float] = []
        result = None
        for _ in range(args.runs):
            t0 = time.perf_counter()
            proc = subprocess.run([*cmd, str(key), str(resp), "--json"], capture_output=True, text=True)
            walls.append(time.perf_counter() - t0)
            if proc.returncode != 0:
                sys.exit(f"coref-score failed ({proc.returncode}): {proc.stderr}")
            result = json.loads(proc.stdout)
        inproc: list[float] = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            scores = score_documents(read_coref_records(key), read_coref_records(resp), METRIC_NAMES)
            inproc.append(time.perf_counter() - t0)
        assert result is not None
        assert abs(result["conll_f1"] - conll_f1_from_scores(scores)) < 1e-12
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    wall, inp = statistics.median(walls), statistics.median(inproc)
    report = {
        "docs": len(docs),
        "tokens": sum(len(d.words) for d in docs),
        "mentions": sum(len(c.mentions) for d in docs for c in d.clusters),
        "command": " ".join(Path(c).name if i == 0 else c for i, c in enumerate(cmd)),
        "runs": args.runs,
        "seed": args.seed,
        "subprocess_seconds_median": round(wall, 4),
        "subprocess_seconds_all": [round(w, 4) for w in walls],
        "subprocess_docs_per_s": round(len(docs) / wall, 1),
        "inprocess_seconds_median": round(inp, 4),
        "inprocess_docs_per_s": round(len(docs) / inp, 1),
        "conll_f1": round(result["conll_f1"], 6),
        "f1": {m: round(result[m]["f1"], 6) for m in METRIC_NAMES},
    }
    write_json(args.out, report)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
