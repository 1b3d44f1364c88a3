"""S2LCT's sentence expansion before and after on real seeds: the same seeds (a suite's expansion targets, as
``s2lct_generate`` picks them) through the configured expander under several variants of ``s2lct.expansion``
(Hydra overrides), with the real causal LM, parser and SentiWordNet.

Variants (``--variants``, comma-separated):

* ``before``: the paper's pipeline with the offline proposer: ``lexicon_lm``, every masked sentence of
  Algorithm 1, tags and predicates only;
* ``previous``: ``lm_next`` rescored over 3 words after the mask, every masked sentence, the boundary,
  production and naturalness checks, no refused words (the attempt docs/techniques/s2lct-expansion.md reports as missing
  its targets);
* ``no_insertions``: the configuration as it is, but every masked sentence of Algorithm 1;
* ``no_checks``: the configuration as it is, without the production and naturalness checks;
* ``after``: the configuration as it is.

    .venv/bin/python bench/bench_s2lct_expansion.py [--data data] [--suite sst] [--seeds 40]
        [--variants before,after] [--out bench/results/s2lct_expansion.json] [--review 100] [overrides ...]

``--data``: the folder holding ``parsed/<corpus>``, ``prepared/ptb_sample`` and ``manifests`` (read only); extra
arguments are Hydra overrides for every variant (e.g. ``s2lct.expansion.max_seeds=60``); ``--seeds``: the first
this many of the suite's expansion targets (null: all of them, ``s2lct.expansion.max_seeds``).

The result holds, per variant, the counts of :class:`~lingtest.s2lct.expand.ExpansionStats`, the seconds (wall
clock and this process's CPU seconds; the machine is recorded), every expansion with its masked sentence and the
fillings the production and naturalness checks refused. ``--review N`` also writes a review sheet
(``<out>.review.jsonl``): the ``after`` expansions (a sample of N, seeded, when there are more), each with its seed,
its seed's label and empty ``well_formed`` / ``label_consistent`` / ``note`` fields for a reader to fill.
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
from typing import Any

from bench_s2lct_expansion_rules import NO_BOUND  # the insertion bound switched off

ROOT = Path(__file__).resolve().parents[1]

OLD_CHECKS = ["s2lct.expansion.validate.boundary_repeat=true", "s2lct.expansion.validate.production=false",
              "s2lct.expansion.validate.min_naturalness_drop=null", "s2lct.expansion.validate.refuse=[]",
              "s2lct.expansion.insertions=null", *NO_BOUND]
PREVIOUS = ["s2lct.expansion.fill.kind=lm_next", "s2lct.expansion.fill.lm_next.window=3",
            "s2lct.expansion.fill.lm_next.max_pieces=4", "s2lct.expansion.fill.lm_next.candidates=200",
            "s2lct.expansion.fill.lm_next.lexicon_candidates=0", "s2lct.expansion.validate.boundary_repeat=false",
            "s2lct.expansion.validate.production=true", "s2lct.expansion.validate.min_naturalness_drop=-0.269",
            "s2lct.expansion.validate.refuse=[]", "s2lct.expansion.insertions=null",
            *NO_BOUND]
VARIANTS = {"before": ["s2lct.expansion.fill.kind=lexicon_lm", *OLD_CHECKS],
            "previous": PREVIOUS,
            "no_insertions": ["s2lct.expansion.insertions=null"],
            "no_checks": ["s2lct.expansion.validate.production=false",
                          "s2lct.expansion.validate.min_naturalness_drop=null",
                          *NO_BOUND],
            "after": []}


def targets(ctx: Any, config: Any, suite: str, n: int | None) -> tuple[list[Any], Any, list[Any]]:
    """The first ``n`` expansion targets of ``suite`` (found sentence, its predicates; null: all), the knowledge
    and the searched sentences."""
    from lingtest.s2lct import components
    from lingtest.s2lct.expand import expansion_targets
    from lingtest.s2lct.seeds import search_sentences, seed_cases

    spec = config.suite(suite)
    k = components.knowledge(ctx, config)
    docs = components.read_documents(ctx, "parsed", spec.search.corpus, spec.search.splits)
    pool = search_sentences(docs, label_from=spec.search.label_from, lowercase=spec.search.lowercase)
    sc = config.seeds
    _, used = seed_cases(suite, spec, pool, k, seed=config.seed, max_sents=sc.max_sents, max_cases=sc.max_cases,
                         others_per_seed=sc.others_per_seed)
    items = expansion_targets(spec, used, suite=suite, seed=config.seed, max_seeds=config.expansion.max_seeds)
    return (items if n is None else items[:n]), k, pool


#: the LM and parser methods whose seconds each variant reports
TIMED = ("top_next_tokens", "greedy_continuations", "score_grouped", "token_logprobs_grouped", "parse")


def timed(obj: Any, seconds: dict[str, float]) -> None:
    """Wrap the :data:`TIMED` methods ``obj`` has so that their wall-clock seconds add up in ``seconds``."""
    for name in TIMED:
        fn = getattr(type(obj), name, None)
        if fn is None:
            continue

        def wrapper(*a: Any, _fn: Any = fn, _name: str = name, **kw: Any) -> Any:
            t = time.perf_counter()
            try:
                return _fn(obj, *a, **kw)
            finally:
                seconds[_name] = round(seconds.get(_name, 0.0) + time.perf_counter() - t, 2)

        setattr(obj, name, wrapper)


def machine() -> dict[str, Any]:
    """The CPU this ran on, its core count, the load average at the end, Python and torch."""
    import torch

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            cpu = next((ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name")), cpu)
    except OSError:
        pass
    return {"cpu": cpu, "cpu_count": os.cpu_count(), "load_average": [round(x, 2) for x in os.getloadavg()],
            "python": platform.python_version(), "torch": torch.__version__, "torch_threads": torch.get_num_threads()}


def review_sheet(items: list[Any], out: dict[str, Any], n: int, seed: int) -> list[dict[str, Any]]:
    """Rows to judge: every expansion of ``out`` (a sample of ``n``, seeded, in target order, when there are more),
    with its seed sentence and label."""
    rows = []
    for found, _ in items:
        for e in out.get(found.sentence.id, []):
            rows.append({"id": f"{found.sentence.id}|{e.masked}", "seed": " ".join(found.sentence.words),
                         "label": found.sentence.label, "masked": e.masked, "text": e.text, "fills": list(e.fills),
                         "well_formed": None, "label_consistent": None, "note": ""})
    if len(rows) > n:
        keep = sorted(random.Random(seed).sample(range(len(rows)), n))
        rows = [rows[i] for i in keep]
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=ROOT / "data")
    ap.add_argument("--suite", default="sst")
    ap.add_argument("--seeds", type=lambda v: None if v == "null" else int(v), default=None)
    ap.add_argument("--variants", default="before,after")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "s2lct_expansion.json")
    ap.add_argument("--review", type=int, default=0, help="write a review sheet of at most this many expansions")
    ap.add_argument("overrides", nargs="*")
    args = ap.parse_args()

    sys.path.insert(0, str(ROOT / "src"))
    from lingtest.config import compose
    from lingtest.execution.context import StageContext
    from lingtest.parsing.cache import build_parser
    from lingtest.s2lct import components
    from lingtest.s2lct.config import S2lctConfig
    from lingtest.s2lct.expand import ExpansionStats

    base = [f"paths.parsed={args.data / 'parsed'}", f"paths.prepared={args.data / 'prepared'}",
            f"paths.manifests={args.data / 'manifests'}", "parser.cache=false", "parser.workers=0", *args.overrides]
    cfg = compose(base)
    config = S2lctConfig.from_config(cfg)
    ctx = StageContext(components.GENERATE_STAGE, cfg, root=ROOT)
    t0 = time.perf_counter()
    items, k, pool = targets(ctx, config, args.suite, args.seeds)
    parser = build_parser(cfg.parser)
    spent: dict[str, float] = {}
    timed(parser, spent)
    result: dict[str, Any] = {"suite": args.suite, "seeds": [" ".join(f.sentence.words) for f, _ in items],
                              "overrides": args.overrides,
                              "search_seconds": round(time.perf_counter() - t0, 1), "variants": {}}
    sheet: list[dict[str, Any]] = []
    for name in args.variants.split(","):
        vcfg = compose([*base, *VARIANTS[name]])
        vconfig = S2lctConfig.from_config(vcfg)
        vctx = StageContext(components.GENERATE_STAGE, vcfg, root=ROOT)
        t1 = time.perf_counter()
        pairs = components.collocations(vconfig, ((f.sentence.words, f.sentence.tags) for f in pool))
        expander = components.build_expander(vctx, vconfig, k, parser=parser, pairs=pairs)
        built = time.perf_counter() - t1
        lm = getattr(getattr(expander.proposer, "words", None), "lm", None)  # lm_next's next-token reader
        for obj in [*{id(s): s for s in components._SCORERS.values()}.values(), *([lm] if lm is not None else [])]:
            timed(obj, spent)
        spent.clear()
        stats = ExpansionStats()
        expander.trace = []
        t2, c2 = time.perf_counter(), time.process_time()
        out = expander.expand(items, k, stats)
        seconds, cpu = time.perf_counter() - t2, time.process_time() - c2
        nat = expander.acceptance.naturalness
        result["variants"][name] = {
            "overrides": VARIANTS[name], "build_seconds": round(built, 1), "expand_seconds": round(seconds, 1),
            "expand_cpu_seconds": round(cpu, 1), "stats": stats.to_dict(),
            "per_seed_acceptance": round(stats.expansions / max(1, stats.sentences), 3),
            "lm_texts_scored": int(getattr(expander.proposer, "texts_scored", 0)),
            "naturalness_texts_scored": nat.texts_scored if nat is not None else 0, "seconds_in": dict(spent),
            "expansions": {" ".join(f.sentence.words): [{"masked": e.masked, "text": e.text} for e in
                                                       out.get(f.sentence.id, [])] for f, _ in items},
            "refused": [{"text": t, "check": c, "drop": d} for t, c, d in expander.trace]}
        if name == "after" and args.review:
            sheet = review_sheet(items, out, args.review, config.seed)
        print(name, json.dumps({key: v for key, v in result["variants"][name].items()
                                if key not in ("expansions", "refused")}), flush=True)
    close = getattr(parser, "close", None)
    if callable(close):
        close()
    result["machine"] = machine()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    if sheet:
        review = args.out.with_suffix(".review.jsonl")
        review.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in sheet), encoding="utf-8")


if __name__ == "__main__":
    main()
