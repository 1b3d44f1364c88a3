"""CREST throughput: selected follow-ups per second, end to end, with the offline stack.

Stack: the configured parser (spaCy en_core_web_sm + dep2const trees), WordNet and spaCy-md
vector proposers, the causal-LM ranker (converted Gemma-3-270M, unless ``--no-ranker``), Algorithms
1-3, then the system under test (``sieve``) on sources and selected follow-ups with the BLANC
oracle and gold grading. Timing starts after the one-time model loads (reported separately) and
covers parse -> propose -> rank -> replace-and-check -> select -> predict -> oracle -> grade.

    .venv/bin/python bench/bench_crest.py [--sources 40 (crest.N)] [-M 20] [--no-ranker] [--runs 3]
        [--out bench/results/crest.json]

Sources come from ``data/prepared/<corpus>/test.jsonl`` when present, else from the OntoGUM
mirror (test documents of ``splits.md``).

The ranker runs as configured in ``crest.ranker`` (defaults: packed shared-prefix scoring, window 3
words right of the replacement, whole left context, float32, ``resources.lm.threads`` torch threads) and generation in
lockstep over ``crest.batch_sources`` sources. The result records the LM's seconds, dtype and thread
count. How the ranking settings compare with exact whole-sentence ranking:
``bench/bench_ranker_agreement.py``.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _load_docs(corpus: str):
    from lingtest.crest.sources import load_documents

    prepared = ROOT / "data" / "prepared" / corpus / "test.jsonl"
    if prepared.exists():
        return load_documents(prepared), str(prepared.relative_to(ROOT))
    # no prepared corpus yet: read the test split from the mirror exactly as the prepare stage does
    from lingtest.config import compose
    from lingtest.paths import mirror_root
    from lingtest.pipeline.datasets import DatasetSpec, download, read_split

    mirror = mirror_root()
    if mirror is None:
        sys.exit("no prepared corpus and no data mirror")
    spec = DatasetSpec.from_config(corpus, compose())
    manifest = download(spec, network=False, mirror=mirror, raw_dir=ROOT / "data" / "raw")
    docs = list(read_split(manifest, "test", mirror))
    return docs, f"mirror:{corpus}/test"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sources", type=int, default=40)
    ap.add_argument("-M", "--M", dest="M", type=int, default=None, help="crest.M (follow-ups per source)")
    ap.add_argument("--no-ranker", action="store_true")
    ap.add_argument("--system", default="sieve")
    ap.add_argument("--runs", type=int, default=1,
                    help="timed runs (each with a fresh parse cache); the median is reported")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "crest.json"))
    ap.add_argument("overrides", nargs="*", help="Hydra overrides, e.g. crest.ranker.window=2")
    args = ap.parse_args()

    import os
    import tempfile

    from lingtest.config import compose
    from lingtest.crest import components as P
    from lingtest.crest.evaluate import evaluate_system, summarize
    from lingtest.data.io import write_json
    from lingtest.resources.lm import idle_cpus

    # the machine is shared: record how busy it was (other jobs change the figure a lot)
    load_at_start = [round(x, 2) for x in os.getloadavg()]
    idle = idle_cpus(1.0)
    idle_at_start = None if idle is None else round(idle, 2)

    # a fresh parse cache per run: every sentence is really parsed (and stored), as in a first run
    overrides = [*args.overrides, f"crest.N={args.sources}"]
    if args.no_ranker:
        overrides.append("crest.ranker.enabled=false")
    if args.M:
        overrides.append(f"crest.M={args.M}")
    cfg = compose(overrides)
    from lingtest.crest.config import CrestConfig

    c = CrestConfig.from_config(cfg)
    loads: dict[str, float] = {}
    t = time.perf_counter()
    docs, origin = _load_docs(str(c.corpus))
    loads["read_corpus"] = time.perf_counter() - t

    def fresh_parser():
        tmp_cache = tempfile.mkdtemp(prefix="crest-bench-")
        parser = P.memo_parser(compose([f"parser.cache_dir={tmp_cache}/parses.sqlite", *overrides]).parser)
        parser.parse([["Warm", "up", "."]])
        parser.calls = parser.hits = 0
        parser.seconds = 0.0
        return parser

    t = time.perf_counter()
    parser = fresh_parser()
    loads["parser"] = time.perf_counter() - t
    t = time.perf_counter()
    scorer = P.lm_scorer(c, cfg.resources)  # the one LM the stage's ranker, lm_next and naturalness bound share
    loads["ranker"] = time.perf_counter() - t
    t = time.perf_counter()
    proposers = P.build_proposers(c, cfg.resources, scorer)
    for p in proposers:  # force lazy resources (WordNet, vector index)
        getattr(p, "wn", None)
        getattr(p, "index", None)
    loads["proposers"] = time.perf_counter() - t
    ranker = P.build_ranker(c, cfg.resources, scorer)
    naturalness = P.build_naturalness(c, cfg.resources, scorer)
    t = time.perf_counter()
    from lingtest.systems.cache import CachedSystem
    from lingtest.systems.factory import build_system

    # benchmark the system itself (batched as in the stages), not the prediction cache
    system = CachedSystem(build_system(cfg, "coref", args.system).system, None, batch_size=64)
    system.predict([])
    loads["system"] = time.perf_counter() - t
    oracle = c.oracle_options()

    runs = []
    for k in range(max(1, args.runs)):
        if k:
            parser.close()  # its worker processes
            parser = fresh_parser()
        if ranker is not None:
            ranker.texts_scored, ranker.seconds, ranker.fits_removed = 0, 0.0, 0
        gen = P.build_generator(c, parser, proposers, ranker, int(c.M), naturalness=naturalness)
        t0 = time.perf_counter()
        sources = P.prepare_sources(docs, c, parser)
        t1 = time.perf_counter()
        followups, stats = P.generate_all(sources, gen, select=bool(c.select), show_progress=False,
                                          batch_sources=c.batch_sources)
        t2 = time.perf_counter()
        from lingtest.crest.suite import make_case

        cases = [make_case(s, f, full=True) for s in sources for f in followups.get(s.id, []) if f.selected]
        res = evaluate_system(system, sources, cases, oracle)
        t3 = time.perf_counter()
        row = summarize(res, int(c.M), bool(c.select))
        runs.append({"t": (t0, t1, t2, t3), "row": row, "stats": stats, "sources": len(sources),
                     "parser": (parser.seconds, parser.calls),
                     "lm": (getattr(ranker, "texts_scored", 0), getattr(ranker, "seconds", 0.0)),
                     "per_second": row["selected"] / (t3 - t0)})
        print(f"run {k + 1}: {runs[-1]['per_second']:.2f} selected follow-ups/s", file=sys.stderr)
    med = sorted(runs, key=lambda r: r["per_second"])[len(runs) // 2]
    t0, t1, t2, t3 = med["t"]
    row, stats = med["row"], med["stats"]
    selected = row["selected"]
    total = t3 - t0
    out = {
        "benchmark": "crest_end_to_end",
        "corpus": origin,
        "sources": med["sources"],
        "M": int(c.M),
        "ranker": ranker is not None,
        "proposers": list(c.proposers.enabled),
        "system": args.system,
        "selected_followups": selected,
        "generated_followups": row["generated"],
        "issues": row["issues"],
        "precision": row["precision"],
        "seconds": {"parse_sources": round(t1 - t0, 3), "generate_select": round(t2 - t1, 3),
                    "predict_oracle_grade": round(t3 - t2, 3), "total": round(total, 3),
                    "parser_inside_generation": round(med["parser"][0], 3)},
        "load_seconds": {k: round(v, 2) for k, v in loads.items()},
        "selected_per_second": round(selected / total, 2) if total else None,
        "runs": len(runs),
        "selected_per_second_runs": [round(r["per_second"], 2) for r in runs],
        "selected_per_second_generation_only": round(selected / (t2 - t0), 2) if t2 > t0 else None,
        "lm_texts_scored": med["lm"][0],
        "lm_seconds": round(med["lm"][1], 3),
        "lm": {"dtype": str(getattr(getattr(ranker, "scorer", None), "dtype", None)),
               "shared_prefix": getattr(ranker, "shared_prefix", None),
               "torch_threads": __import__("torch").get_num_threads()},
        "sentences_parsed": med["parser"][1],
        "candidate_survival": P.survival(stats),
        "machine": {"python": platform.python_version(), "cpus": __import__("os").cpu_count(),
                    "platform": platform.platform(), "loadavg_at_start": load_at_start,
                    "idle_cpus_at_start": idle_at_start},
        "overrides": overrides,
    }
    write_json(args.out, out)
    print(json.dumps({k: out[k] for k in ("sources", "selected_followups", "issues", "precision",
                                          "selected_per_second", "seconds", "lm_texts_scored",
                                          "lm_seconds", "lm")}, indent=1))


if __name__ == "__main__":
    main()
