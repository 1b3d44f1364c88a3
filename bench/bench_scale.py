"""Throughput vs workers: CREST follow-up generation and ContraPro scoring, in this process
(``executor=local``) and on a local Ray with 1 and 2 actors (``executor=ray``), checking that every
executor gives the same outputs; then a projection to N workers from the measured per-batch cost.

    nice .venv/bin/python -W ignore bench/bench_scale.py [--sources 8] [-M 5] [--contrapro 32]
        [--batch 8] [--workers 1 2] [--ranker] [--out bench/results/scale.json]

CREST: ``crest.N=--sources`` OntoGUM test sources, ``crest.M``, waves of ``crest.batch_sources=2``
sources (the unit Ray distributes), WordNet proposer, LM ranker only with ``--ranker``. ContraPro: the
``systems.contrastive.lm_de_context`` scorer (Gemma-3-270M, float32) on a seeded sample of the mirror's
ContraPro, ``--batch`` examples per batch, prediction cache off.

Timings are wall clock, model loads included (each Ray actor loads its own models: that is what a run
pays), and separately the steady part. Projection: with ``t_b`` the measured seconds per batch of one
worker and ``t_d`` the driver's own seconds per batch (cache, validation, (de)serialisation, measured
as ``wall - startup`` of the 1-actor run minus the batches' work), N workers reach
``min(N / t_b, 1 / t_d)`` batches/s; on GPUs ``t_b`` is what ``bench/bench_gpu.py`` measures there.
On this 2-core machine the driver and the actors share the two cores, so 2 actors cannot double.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))


def ray_options(actors: int) -> dict:
    part = {"actors": actors, "cpus_per_actor": 1, "gpus_per_actor": 0}
    return {"name": "ray", "address": None, "num_cpus": os.cpu_count(), "inference": dict(part), "crest": dict(part),
            "generation": dict(part)}


def crest_part(args, overrides) -> dict:
    from bench_crest import _load_docs

    from lingtest.config import compose
    from lingtest.crest import components as P
    from lingtest.crest.distributed import generate_on_ray
    from lingtest.crest.suite import build_suite

    cfg = compose([*overrides, f"crest.N={args.sources}", f"crest.M={args.M}", "crest.batch_sources=2",
                   "crest.proposers.enabled=[wordnet]", f"crest.ranker.enabled={str(args.ranker).lower()}",
                   "parser.workers=0"])
    from lingtest.crest.config import CrestConfig

    c = CrestConfig.from_config(cfg)
    docs, origin = _load_docs(str(c.corpus))
    t = time.perf_counter()
    parser = P.memo_parser(cfg.parser)
    sources = P.prepare_sources(docs, c, parser)
    prep = time.perf_counter() - t
    out: dict = {"origin": origin, "sources": len(sources), "M": int(c.M), "batch_sources": 2,
                 "waves": -(-len(sources) // 2), "ranker": bool(args.ranker), "prepare_sources_s": round(prep, 2)}

    def record(fus) -> tuple[int, str]:
        suite = build_suite(sources, fus, only_selected=False)
        return sum(len(v) for v in fus.values()), json.dumps([tc.to_dict() for tc in suite], sort_keys=True)

    t = time.perf_counter()
    gen = P.crest_generator(c, cfg.resources, parser, int(c.M))
    t_load = time.perf_counter() - t
    t = time.perf_counter()
    fus, _ = P.generate_all(sources, gen, select=True, show_progress=False, batch_sources=2)
    t_gen = time.perf_counter() - t
    n, ref = record(fus)
    out["local"] = {"followups": n, "load_s": round(t_load, 2), "generate_s": round(t_gen, 2),
                    "wall_s": round(t_load + t_gen, 2), "followups_per_s": round(n / (t_load + t_gen), 2),
                    "followups_per_s_steady": round(n / t_gen, 2),
                    "seconds_per_wave": round(t_gen / out["waves"], 3)}
    for k in args.workers:
        t = time.perf_counter()
        fus_r, _, _ = generate_on_ray(cfg, sources, M=int(c.M), select=True, batch_sources=2,
                                      options=ray_options(k), show_progress=False)
        wall = time.perf_counter() - t
        n_r, rec = record(fus_r)
        out[f"ray_{k}"] = {"followups": n_r, "wall_s": round(wall, 2), "followups_per_s": round(n_r / wall, 2),
                           "identical_to_local": rec == ref}
    return out


def contrapro_part(args, overrides) -> dict:
    from lingtest.config import compose
    from lingtest.readers.options import configured
    from lingtest.systems.contrastive.base import ContrastiveQuery
    from lingtest.systems.factory import build_system

    mirror = Path(os.environ.get("LINGTEST_MIRROR") or ROOT.parent / "shared" / "data") / "contrapro"
    if not mirror.is_dir():
        return {"skipped": f"ContraPro not found at {mirror}"}
    examples = list(configured("contrapro_grouped")(mirror))
    sample = random.Random(args.seed).sample(examples, args.contrapro)
    queries = [ContrastiveQuery(e.src, (e.ref, *e.contrastive), e.src_context, e.ref_context) for e in sample]
    base = [*overrides, "systems.cache=false", f"systems.batch_size.cpu={args.batch}"]
    out: dict = {"system": "lm_de_context", "examples": len(queries), "batch": args.batch,
                 "batches": -(-len(queries) // args.batch)}
    t = time.perf_counter()
    local = build_system(compose([*base, "executor=local"]), "contrastive", "lm_de_context")
    inner = local.system
    work = [0.0]
    predict = inner.predict

    def timed(batch):  # the batches' own work, to separate the driver's share
        t0 = time.perf_counter()
        r = predict(batch)
        work[0] += time.perf_counter() - t0
        return r

    inner.predict = timed  # type: ignore[method-assign]
    local.predict(queries[:1])  # loads the model
    t_load = time.perf_counter() - t
    work[0] = 0.0
    t = time.perf_counter()
    ref = local.predict(queries)
    t_run = time.perf_counter() - t
    out["local"] = {"load_s": round(t_load, 2), "score_s": round(t_run, 2),
                    "examples_per_s_steady": round(len(queries) / t_run, 2),
                    "seconds_per_batch": round(work[0] / out["batches"], 3),
                    "driver_seconds_per_batch": round((t_run - work[0]) / out["batches"], 4)}
    for k in args.workers:
        t = time.perf_counter()
        sys_ = build_system(compose([*base, "executor=ray", f"executor.num_cpus={os.cpu_count()}",
                                     f"executor.inference.actors={k}"]), "contrastive", "lm_de_context")
        t_describe = time.perf_counter() - t
        t = time.perf_counter()
        got = sys_.predict(queries)
        wall = time.perf_counter() - t
        out[f"ray_{k}"] = {"describe_s": round(t_describe, 2), "wall_s": round(wall, 2),
                           "examples_per_s": round(len(queries) / wall, 2), "identical_to_local": got == ref}
    return out


def projection(per_batch: float, driver: float, batch: int, ns=(1, 2, 4, 8, 16, 32)) -> dict:
    rows = {}
    for n in ns:
        bps = n / per_batch if per_batch > 0 else float("inf")
        if driver > 0:
            bps = min(bps, 1 / driver)
        rows[str(n)] = round(bps * batch, 1)
    return {"formula": "items/s = batch * min(N / t_batch, 1 / t_driver)", "t_batch_s": per_batch,
            "t_driver_s": driver, "items_per_s_by_workers": rows}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sources", type=int, default=8)
    ap.add_argument("-M", "--M", dest="M", type=int, default=5)
    ap.add_argument("--contrapro", type=int, default=32)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--ranker", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "scale.json"))
    ap.add_argument("overrides", nargs="*", help="Hydra overrides")
    args = ap.parse_args()
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    os.environ.setdefault("LINGTEST_NO_PROGRESS", "1")

    import ray
    import torch

    from lingtest.data.io import write_json

    load_at_start = [round(x, 2) for x in os.getloadavg()]
    ray.init(num_cpus=os.cpu_count(), include_dashboard=False, configure_logging=False,
             runtime_env={"env_vars": {"LINGTEST_NO_PROGRESS": "1"}})
    result = {"bench": "scale", "cpus": os.cpu_count(), "torch_threads_local": torch.get_num_threads(),
              "ray": ray.__version__, "python": platform.python_version(), "load_average_at_start": load_at_start}
    t0 = time.perf_counter()
    result["crest"] = crest_part(args, args.overrides)
    print(json.dumps({"crest": result["crest"]}, indent=1), flush=True)
    result["contrapro"] = cp = contrapro_part(args, args.overrides)
    print(json.dumps({"contrapro": cp}, indent=1), flush=True)
    if "local" in cp:
        result["contrapro_projection"] = projection(cp["local"]["seconds_per_batch"],
                                                    cp["local"]["driver_seconds_per_batch"], args.batch)
    cr = result["crest"]["local"]
    result["crest_projection"] = projection(cr["seconds_per_wave"], 0.0,
                                            round(cr["followups"] / result["crest"]["waves"], 2))
    result["seconds_total"] = round(time.perf_counter() - t0, 1)
    result["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    ray.shutdown()
    write_json(args.out, result)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
