"""S2LCT's sentence expansion before and after on a handful of real seeds: the same seeds (a suite's expansion
targets, as ``s2lct_generate`` picks them) through the configured expander under several variants of
``s2lct.expansion`` (Hydra overrides), with the real causal LM, parser and SentiWordNet.

Variants (``--variants``, comma-separated):

* ``before``: the ``lexicon_lm`` proposer and the old validation (tags and predicates only);
* ``lm_next_only``: the ``lm_next`` proposer, the old validation;
* ``checks_only``: ``lexicon_lm`` with the acceptance rules (boundary, production, naturalness);
* ``after``: the configuration as it is (``lm_next`` and the acceptance rules).

    .venv/bin/python bench/bench_s2lct_expansion.py [--data data] [--suite sst] [--seeds 8]
        [--variants before,after] [--out bench/results/s2lct_expansion.json] [overrides ...]

``--data``: the folder holding ``parsed/<corpus>``, ``prepared/ptb_sample`` and ``manifests`` (read only); extra
arguments are Hydra overrides for every variant (e.g. ``s2lct.expansion.max_masked=3``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

OLD_CHECKS = ["s2lct.expansion.validate.boundary_repeat=true", "s2lct.expansion.validate.production=false",
              "s2lct.expansion.validate.min_naturalness_drop=null"]
VARIANTS = {"before": ["s2lct.expansion.fill.kind=lexicon_lm", *OLD_CHECKS],
            "lm_next_only": ["s2lct.expansion.fill.kind=lm_next", *OLD_CHECKS],
            "checks_only": ["s2lct.expansion.fill.kind=lexicon_lm"],
            "after": []}


def targets(ctx: Any, config: Any, suite: str, n: int) -> tuple[list[Any], Any]:
    """The first ``n`` expansion targets of ``suite`` (found sentence, its predicates) and the knowledge."""
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
    return items[:n], k


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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=ROOT / "data")
    ap.add_argument("--suite", default="sst")
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--variants", default="before,after")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "s2lct_expansion.json")
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
    items, k = targets(ctx, config, args.suite, args.seeds)
    sentiment = k.sentiment
    parser = build_parser(cfg.parser)
    spent: dict[str, float] = {}
    timed(parser, spent)
    result: dict[str, Any] = {"suite": args.suite, "seeds": [" ".join(f.sentence.words) for f, _ in items],
                              "overrides": args.overrides,
                              "search_seconds": round(time.perf_counter() - t0, 1), "variants": {}}
    for name in args.variants.split(","):
        vcfg = compose([*base, *VARIANTS[name]])
        vconfig = S2lctConfig.from_config(vcfg)
        vctx = StageContext(components.GENERATE_STAGE, vcfg, root=ROOT)
        t1 = time.perf_counter()
        expander = components.build_expander(vctx, vconfig, sentiment, parser=parser)
        built = time.perf_counter() - t1
        lm = getattr(getattr(expander.proposer, "words", None), "lm", None)  # lm_next's next-token reader
        for obj in [*{id(s): s for s in components._SCORERS.values()}.values(), *([lm] if lm is not None else [])]:
            timed(obj, spent)
        spent.clear()
        stats = ExpansionStats()
        t2 = time.perf_counter()
        out = expander.expand(items, k, stats)
        seconds = time.perf_counter() - t2
        nat = expander.acceptance.naturalness
        result["variants"][name] = {
            "overrides": VARIANTS[name], "build_seconds": round(built, 1), "expand_seconds": round(seconds, 1),
            "stats": stats.to_dict(), "lm_texts_scored": int(getattr(expander.proposer, "texts_scored", 0)),
            "naturalness_texts_scored": nat.texts_scored if nat is not None else 0, "seconds_in": dict(spent),
            "expansions": {" ".join(f.sentence.words): [{"masked": e.masked, "text": e.text} for e in
                                                       out.get(f.sentence.id, [])] for f, _ in items}}
        print(name, json.dumps({key: v for key, v in result["variants"][name].items() if key != "expansions"}),
              flush=True)
    close = getattr(parser, "close", None)
    if callable(close):
        close()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
