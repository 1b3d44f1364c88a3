"""How far the fast LM ranking is from the exact one: keep/drop agreement of CREST's offline ranker
settings with whole-sentence float32 scoring.

The offline ranker (``crest.ranker``) scores each word-vector candidate by the causal LM's
log-probability of a window of the candidate sentence and keeps it when its softmax probability
over the candidates of its position is >= ``threshold``. This script records the candidates that
a CREST generation run ranks (``--sources`` OntoGUM test sources, default configuration), then
ranks exactly the same candidates again under each setting and under the reference (whole
sentence, float32) and reports, per setting, how many keep/drop decisions equal the reference's,
the largest probability difference and the scoring time.

    .venv/bin/python -W ignore bench/bench_ranker_agreement.py [--sources 40]
        [--out bench/results/ranker_agreement.json]

Settings (``window/left_window/dtype``, ``all`` = whole sentence on that side) default to the
previous default (4/8/bfloat16), the current one (3/all/bfloat16) and neighbours.
"""

from __future__ import annotations

import argparse
import copy
import json
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

DEFAULT_SETTINGS = ["4/8/bfloat16", "3/all/bfloat16", "4/all/bfloat16", "2/all/bfloat16", "6/all/bfloat16",
                    "3/all/float32"]


def _parse_setting(s: str) -> tuple[int | None, int | None, str]:
    w, lw, dt = s.split("/")
    conv = lambda x: None if x in ("all", "none", "null") else int(x)  # noqa: E731
    return conv(w), conv(lw), dt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sources", type=int, default=40)
    ap.add_argument("--settings", nargs="*", default=DEFAULT_SETTINGS)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "ranker_agreement.json"))
    args = ap.parse_args()

    import tempfile

    from bench_crest import _load_docs

    from lingtest.config import compose
    from lingtest.crest import components as P
    from lingtest.data.io import write_json
    from lingtest.resources.candidates.rank import LMRanker
    from lingtest.resources.lm import CausalLMScorer

    tmp_cache = tempfile.mkdtemp(prefix="ranker-agreement-")
    cfg = compose([f"parser.cache_dir={tmp_cache}/parses.sqlite", f"crest.N={args.sources}"])
    from lingtest.crest.config import CrestConfig

    c = CrestConfig.from_config(cfg)
    docs, origin = _load_docs(str(c.corpus))
    parser = P.memo_parser(cfg.parser)
    ranker = P.build_ranker(c, cfg.resources)
    recorded: list = []

    class Recording(LMRanker):
        def rank_many(self, items):
            recorded.extend((copy.deepcopy(s), copy.deepcopy(cands)) for s, cands in items)
            return super().rank_many(items)

    rec = Recording(ranker.scorer, grid=ranker.grid, threshold=ranker.threshold,
                    include_original=ranker.include_original,
                    filter_sources=sorted(ranker.filter_sources), window=ranker.window,
                    left_window=ranker.left_window, shared_prefix=ranker.shared_prefix)
    gen = P.build_generator(c, parser, P.build_proposers(c, cfg.resources), rec, int(c.M))
    sources = P.prepare_sources(docs, c, parser)
    P.generate_all(sources, gen, select=bool(c.select), show_progress=False,
                   batch_sources=c.batch_sources)
    model_dir = ranker.scorer.model_name
    ranker_grid = ranker.grid
    del ranker, rec

    def rank(scorer, window, left):
        r = LMRanker(scorer, grid=ranker_grid, threshold=c.ranker.threshold, include_original=c.ranker.include_original,
                     filter_sources=list(c.ranker.filter_sources), window=window, left_window=left,
                     shared_prefix=c.ranker.shared_prefix)
        items = copy.deepcopy(recorded)
        t0 = time.perf_counter()
        r.rank_many(items)
        seconds = time.perf_counter() - t0
        probs = [cand.prob for _, cands in items for p in sorted(cands) for cand in cands[p]
                 if cand.source in r.filter_sources]
        return probs, seconds, r.texts_scored

    scorers: dict[str, CausalLMScorer] = {}

    def scorer(dtype: str) -> CausalLMScorer:
        if dtype not in scorers:
            scorers[dtype] = CausalLMScorer(model_dir, device="cpu", dtype=dtype)
        return scorers[dtype]

    ref, ref_seconds, n_texts = rank(scorer("float32"), None, None)
    thr = float(c.ranker.threshold)
    rows = []
    for s in args.settings:
        window, left, dtype = _parse_setting(s)
        probs, seconds, _ = rank(scorer(dtype), window, left)
        agree = sum((a >= thr) == (b >= thr) for a, b in zip(probs, ref, strict=True))
        rows.append({"setting": s, "window": window, "left_window": left, "dtype": dtype,
                     "decisions_equal": agree, "decisions": len(ref), "agreement": round(agree / len(ref), 4),
                     "max_abs_prob_diff": round(max(abs(a - b) for a, b in zip(probs, ref, strict=True)), 4),
                     "mean_abs_prob_diff": round(sum(abs(a - b) for a, b in zip(probs, ref, strict=True))
                                                 / len(ref), 4),
                     "seconds": round(seconds, 2)})
        print(json.dumps(rows[-1]))
    out = {"benchmark": "crest_ranker_agreement", "corpus": origin, "sources": len(sources),
           "texts": n_texts, "threshold": thr,
           "reference": {"window": None, "left_window": None, "dtype": "float32", "seconds": round(ref_seconds, 2),
                         "kept": sum(p >= thr for p in ref)},
           "settings": rows, "machine": {"python": platform.python_version(), "platform": platform.platform()}}
    write_json(args.out, out)


if __name__ == "__main__":
    main()
