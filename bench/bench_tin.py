"""TIN throughput: checked mutants per second, end to end, with the offline stack and spaCy sm.

A checked mutant is one that was generated, passed both filters, was predicted by the system under
test and MR-checked. Stack: the configured parser (spaCy en_core_web_sm + dep2const trees, behind
the parse cache), the shared fill-in proposer (WordNet + spaCy-md vector neighbours ranked by the
converted Gemma-3-270M), the phrase index of the ``tin_phrase_index`` stage (built here from the
sources' own corpus split when it is missing), MiniLM span embeddings (semantic filter), Gemma
SynEval (naturalness filter), the system (``spacy_sm`` by default) through the prediction cache
switched off, run_suite (MR1/MR2) and grading against gold. Model loads are timed separately; the
timed part covers transformation -> filters -> predict -> check -> grade, with a fresh (temporary)
parse cache so no parse is reused from an earlier run.

    .venv/bin/python bench/bench_tin.py [--sources 40] [--system spacy_sm] [--runs 1]
        [--profile] [--bound] [--out bench/results/tin.json] [overrides ...]

``--profile`` adds a cProfile summary (top functions by cumulative time) to the JSON. ``--bound``
runs the same generation and checks once more under torch's FLOP counter and divides this CPU's
measured peak matrix-product rate by the FLOPs per checked mutant (``bench/lm_bound.py``): the most
checked mutants per second any code could reach here with these models and exact scoring.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import io
import platform
import pstats
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def run_once(cfg: Any, system_name: str, docs: list[Any], parts: Any, trans: Any,
             system: Any) -> tuple[int, Any, Any, float]:
    """Parse the sources, predict them, generate and filter the mutants, check them: the number of
    sources, the generation, the checked suite and the seconds up to the end of filtering."""
    from lingtest.tin.components import filter_config, label_mapper
    from lingtest.tin.flow import check_cases, generate_cases, tin_sources
    from lingtest.tin.sources import parse_sources

    t_start = time.perf_counter()
    parsed = parse_sources(docs, parts.parser)
    sources = tin_sources(parsed, system.predict([d.sentences[0].words for d in parsed]))
    gen = generate_cases(sources, trans, embedder=parts.embedder, lm=parts.lm,
                         config=filter_config(parts.config, system_name, parts.score_grid), system=system_name,
                         packed=parts.config.filters.packed)
    t_gen = time.perf_counter() - t_start
    checked = check_cases(gen.cases, system, sources, label_mapper(cfg.systems.ner_label_maps, system))
    return len(sources), gen, checked, t_gen


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sources", type=int, default=40)
    ap.add_argument("--system", default="spacy_sm")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--bound", action="store_true", help="add the compute bound (bench/lm_bound.py)")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "tin.json"))
    ap.add_argument("overrides", nargs="*", help="Hydra overrides, e.g. tin.transformations.token.top_k=5")
    args = ap.parse_args()

    from omegaconf import OmegaConf

    from lingtest.config import compose
    from lingtest.data.io import read_jsonl, write_json
    from lingtest.data.model import Document
    from lingtest.errors import MissingResourceError
    from lingtest.execution.context import StageContext
    from lingtest.systems.factory import build_system
    from lingtest.systems.ner import TASK
    from lingtest.tin.components import Parts
    from lingtest.tin.config import TinConfig
    from lingtest.tin.sources import labelled_pool, sample

    runs = []
    for run in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            cfg = compose([*args.overrides, f"parser.cache_dir={tmp}", "systems.cache=false"])
            ctx = StageContext("bench_tin", cfg, root=ROOT)
            t = TinConfig.from_config(cfg)
            try:
                prepared = ctx.require(ctx.path("prepared") / t.corpus / f"{t.split}.jsonl", f"prepare@{t.corpus}")
                ctx.require(ctx.path("tin.phrase_index"), "tin_phrase_index")
            except MissingResourceError as exc:
                sys.exit(str(exc))
            pool = labelled_pool(list(read_jsonl(prepared, Document.from_dict)), min_tokens=t.min_tokens,
                                 max_tokens=t.max_tokens)
            docs = sample(pool, args.sources, t.seed)
            parts = Parts(ctx, t)
            t0 = time.perf_counter()
            system = build_system(cfg, TASK, args.system)
            trans = parts.transformations()
            for name in ("lm", "embedder", "phrase_index", "fill"):
                getattr(parts, name)
            # load what loads lazily on first use (spaCy model, vector index, WordNet) outside the timing
            parts.fill.propose_many([(["It", "rose", "."], 1)], 1)
            parts.embedder.embed_spans([(["It", "rose", "."], (1, 2))])
            parts.lm.token_logprobs(["It rose."])
            system.predict([["It", "rose", "."]])
            load_s = time.perf_counter() - t0
            prof = cProfile.Profile() if args.profile else None
            t1 = time.perf_counter()
            if prof is not None:
                prof.enable()
            once = functools.partial(run_once, cfg, args.system, docs, parts, trans, system)
            n_sources, gen, checked, t_gen = once()
            if prof is not None:
                prof.disable()
            secs = time.perf_counter() - t1
            n = len(gen.cases)
            row = {"run": run, "sources": n_sources, "checked_mutants": n,
                   "mutants": gen.counts_dict(list(t.transformations)), "issues": checked.summary["overall"]["issues"],
                   "seconds": round(secs, 2), "seconds_generate_and_filter": round(t_gen, 2),
                   "seconds_by_step": gen.seconds, "load_seconds": round(load_s, 2),
                   "checked_mutants_per_second": round(n / secs, 3) if secs else None,
                   "lm_texts_scored_by_ranker": getattr(getattr(parts.fill, "ranker", None), "texts_scored", None)}
            if args.bound:
                from lm_bound import bound, count_gflop

                _, gflop = count_gflop(once)
                row["bound"] = bound(n, gflop, 50.0)
            if prof is not None:
                buf = io.StringIO()
                pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(25)
                row["profile"] = buf.getvalue().splitlines()[:70]
            runs.append(row)
            close = getattr(parts.parser, "close", None)  # the parse cache and the parser's worker processes
            if callable(close):
                close()
            print({k: v for k, v in row.items() if k != "profile"}, flush=True)
    import torch

    best = sorted(runs, key=lambda r: r["checked_mutants_per_second"] or 0)[len(runs) // 2]
    out = {"benchmark": "tin", "system": args.system, "sources": args.sources, "overrides": args.overrides,
           "median_checked_mutants_per_second": best["checked_mutants_per_second"], "runs": runs,
           "config": {"tin": OmegaConf.to_container(cfg.tin, resolve=True)},
           "machine": {"python": platform.python_version(), "cpu": platform.processor() or platform.machine(),
                       "torch_threads": torch.get_num_threads()}}
    write_json(args.out, out)
    print(f"TIN: {best['checked_mutants_per_second']} checked mutants/s (median of {len(runs)}) -> {args.out}")


if __name__ == "__main__":
    main()
