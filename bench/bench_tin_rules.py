"""TIN's mutants on the demo's sources, every one recorded: what each transformation generated, what each
filter did to it, which were kept, and the seconds per source per system (transformations and filters).

The sources are those the ``tin_sources`` stage would pick with ``tin.N = --sources`` (a seeded sample of
CoNLL-2003 test, ``tin.seed``, the length limits of ``tin``), parsed by the configured parser (a fresh,
temporary parse cache unless ``--parse-cache`` names one); each system of ``--systems`` predicts them (no
prediction cache) and the configured transformations and filters run on them as in ``tin_generate`` (one
wave). The stack is the configured one: spaCy sm parses, the WordNet + vector fill proposer ranked by
Gemma-3-270M, the MiniLM phrase index and span embedder, Gemma SynEval. Read-only inputs come from the
pipeline workspace ``--repro`` (prepared CoNLL-2003, the phrase index, the trained minilm_ner).

    .venv/bin/python bench/bench_tin_rules.py --label after [--sources 100] [--systems spacy_sm minilm_ner]
        [--repro /work/repro] [--parse-cache DIR] [--build-phrase-index] [overrides ...]

``--build-phrase-index`` builds the phrase index ``tin.phrase_index`` describes (override it, e.g.
``tin.phrase_index.corpora=[{dataset:conll2003,split:train},{dataset:ontogum,split:train}]``) from the
workspace's parsed corpora into a temporary file and generates with it, instead of reading the workspace's
``tin_phrase_index`` output (built for the demo profile: the first 1,000 sentences of CoNLL-2003 dev).

Writes ``bench/results/tin_rules_<label>.json`` (counts per transformation and filter, seconds, the
configuration, the machine) and ``bench/results/tin_rules_<label>_mutants.jsonl`` (one row per generated
mutant: system, source id, transformation, source and mutant text, parameters, filter scores, ``kept``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lingtest.environment import cpu_model  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]



def repro_overrides(repro: Path) -> list[str]:
    """Hydra overrides that read the pipeline workspace's outputs (read only)."""
    return [f"paths.prepared={repro / 'data' / 'prepared'}",
            f"paths.tin.phrase_index={repro / 'data' / 'tin' / 'phrase_index.npz'}",
            f"paths.tin.ner_model={repro / 'models' / 'tin' / 'minilm_ner'}"]


def build_phrase_index(cfg: Any, repro: Path, path: Path) -> int:
    """The phrase index of ``tin.phrase_index`` (the body of the ``tin_phrase_index`` stage) from the parsed
    corpora of ``repro``, saved at ``path``; returns the number of phrases."""
    from lingtest.data.io import read_jsonl
    from lingtest.data.model import Document
    from lingtest.resources.embeddings import embedder_from_config
    from lingtest.tin.config import TinConfig
    from lingtest.tin.phrases import EmbeddingPhraseIndex, collect_phrases

    pc = TinConfig.from_config(cfg).phrase_index
    sentences = []
    for c in pc.corpora:
        sents = [s for d in read_jsonl(repro / "data" / "parsed" / c.dataset / f"{c.split}.jsonl", Document.from_dict)
                 for s in d.sentences]
        sentences.extend(sents if pc.max_sentences is None else sents[: pc.max_sentences])
    phrases = collect_phrases(sentences, max_words=pc.max_words, min_count=pc.min_count)
    index = EmbeddingPhraseIndex.build(phrases, embedder_from_config(cfg.resources))
    index.save(path)
    return len(index)


def pick_sources(ctx: Any, t: Any, n: int, parser: Any) -> list[Any]:
    """The parsed sources the ``tin_sources`` stage picks with ``tin.N = n``."""
    from lingtest.data.io import read_jsonl
    from lingtest.data.model import Document
    from lingtest.tin.sources import labelled_pool, parse_sources, sample

    prepared = ctx.require(ctx.path("prepared") / t.corpus / f"{t.split}.jsonl", f"prepare@{t.corpus}")
    pool = labelled_pool(list(read_jsonl(prepared, Document.from_dict)), min_tokens=t.min_tokens,
                         max_tokens=t.max_tokens)
    return parse_sources(sample(pool, n, t.seed), parser)


def mutant_row(system: str, m: Any, kept: bool) -> dict[str, Any]:
    from lingtest.tin.text import detokenize

    return {"system": system, "id": m.id, "seed_id": m.seed_id, "transformation": m.transformation,
            "source_text": detokenize(m.source), "text": detokenize(m.tokens), "params": m.params,
            "scores": dict(m.scores), "kept": kept}


def run_system(name: str, cfg: Any, parts: Any, trans: list[Any], docs: list[Any]) -> tuple[dict[str, Any],
                                                                                          list[dict[str, Any]]]:
    """Predict, transform and filter the sources for system ``name``: its summary and mutant rows."""
    from lingtest.systems.factory import build_system
    from lingtest.systems.ner import TASK
    from lingtest.tin.components import filter_config
    from lingtest.tin.filters import filter_mutants
    from lingtest.tin.flow import tin_sources

    system = build_system(cfg, TASK, name)
    system.predict([["It", "rose", "."]])  # loads the model outside the timing
    t0 = time.perf_counter()
    sources = tin_sources(docs, system.predict([d.sentences[0].words for d in docs]))
    seconds: dict[str, float] = {"predict": round(time.perf_counter() - t0, 3)}
    mutants = []
    refused: dict[str, dict[str, int]] = {}
    for t in trans:
        before = dict(getattr(t, "refused", {}))
        t1 = time.perf_counter()
        mutants.extend(t.generate(sources))
        seconds[t.name] = round(time.perf_counter() - t1, 3)
        after = getattr(t, "refused", {})
        if after:  # the candidates the transformation's rules refused for this system, by reason
            refused[t.name] = {k: v - before.get(k, 0) for k, v in sorted(after.items()) if v - before.get(k, 0)}
    order = {s.id: k for k, s in enumerate(sources)}
    rank = {t.name: k for k, t in enumerate(trans)}
    mutants = [m for _, m in sorted(enumerate(mutants), key=lambda x: (order[x[1].seed_id],
                                                                        rank[x[1].transformation], x[0]))]
    t1 = time.perf_counter()
    res = filter_mutants(mutants, embedder=parts.embedder, lm=parts.lm,
                         config=filter_config(parts.config, name, parts.score_grid), packed=parts.config.filters.packed)
    seconds["filters"] = round(time.perf_counter() - t1, 3)
    generate_and_filter = sum(v for k, v in seconds.items() if k != "predict")
    kept = {id(m) for m in res.kept}
    rows = [mutant_row(name, m, id(m) in kept) for m in mutants]
    names = [t.name for t in trans]
    counts = {n: res.counts[n].to_dict() if n in res.counts else {"generated": 0, "kept": 0} for n in names}
    summary = {"system": name, "sources": len(sources), "kept": len(res.kept), "generated": len(mutants),
               "kept_per_source": round(len(res.kept) / len(sources), 3), "counts": counts,
               "seconds_by_step": seconds, "seconds_generate_and_filter": round(generate_and_filter, 2),
               "seconds_per_source": round(generate_and_filter / len(sources), 3),
               "sources_with_kept": len({m.seed_id for m in res.kept}), "refused_by_rules": refused}
    return summary, rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--label", required=True, help="names the outputs: tin_rules_<label>.json")
    ap.add_argument("--sources", type=int, default=100)
    ap.add_argument("--systems", nargs="+", default=["spacy_sm", "minilm_ner"])
    ap.add_argument("--repro", default="/work/repro", help="the pipeline workspace (read only)")
    ap.add_argument("--parse-cache", default=None, help="a parse cache folder to reuse (default: a fresh one)")
    ap.add_argument("--build-phrase-index", action="store_true",
                    help="build the configured tin.phrase_index from the workspace's parsed corpora first")
    ap.add_argument("overrides", nargs="*", help="Hydra overrides, e.g. tin.transformations.token.top_k=5")
    args = ap.parse_args()

    from omegaconf import OmegaConf

    from lingtest.config import compose
    from lingtest.data.io import write_json
    from lingtest.errors import MissingResourceError
    from lingtest.execution.context import StageContext
    from lingtest.tin.components import Parts
    from lingtest.tin.config import TinConfig

    out_json = ROOT / "bench" / "results" / f"tin_rules_{args.label}.json"
    out_rows = ROOT / "bench" / "results" / f"tin_rules_{args.label}_mutants.jsonl"
    with tempfile.TemporaryDirectory() as tmp:
        cache = args.parse_cache or tmp
        overrides = [*repro_overrides(Path(args.repro)), f"tin.N={args.sources}", f"parser.cache_dir={cache}",
                     "systems.cache=false", *args.overrides]
        index_s = None
        if args.build_phrase_index:
            index = Path(tmp) / "phrase_index.npz"
            t0 = time.perf_counter()
            built = build_phrase_index(compose(overrides), Path(args.repro), index)
            index_s = {"phrases": built, "seconds": round(time.perf_counter() - t0, 2)}
            overrides.append(f"paths.tin.phrase_index={index}")
        cfg = compose(overrides)
        ctx = StageContext("bench_tin_rules", cfg, root=ROOT)
        t = TinConfig.from_config(cfg)
        parts = Parts(ctx, t)
        t0 = time.perf_counter()
        try:
            docs = pick_sources(ctx, t, args.sources, parts.parser)
            trans = parts.transformations()
        except MissingResourceError as exc:
            sys.exit(str(exc))
        parse_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        parts.fill.propose_many([(["It", "rose", "."], 1)], 1)  # load lazily built models outside the timing
        parts.embedder.embed_spans([(["It", "rose", "."], (1, 2))])
        parts.lm.token_logprobs(["It rose."])
        parts.phrase_index.neighbours(["the house"], 1)
        load_s = time.perf_counter() - t0
        summaries = []
        rows: list[dict[str, Any]] = []
        for name in args.systems:
            summary, got = run_system(name, cfg, parts, trans, docs)
            summaries.append(summary)
            rows.extend(got)
            print(json.dumps({k: v for k, v in summary.items() if k != "counts"}), flush=True)
        close = getattr(parts.parser, "close", None)
        if callable(close):
            close()
    import torch

    out = {"benchmark": "tin_rules", "label": args.label, "sources": args.sources, "overrides": args.overrides,
           "source_ids": [d.id for d in docs], "phrase_index_built": index_s,
           "systems": summaries, "seconds_parse_sources": round(parse_s, 2), "seconds_load": round(load_s, 2),
           "config": {"tin": OmegaConf.to_container(cfg.tin, resolve=True)},
           "machine": {"python": platform.python_version(), "cpu": cpu_model(), "cores": os.cpu_count(),
                       "torch_threads": torch.get_num_threads()}}
    write_json(out_json, out)
    with out_rows.open("w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, sort_keys=True) + "\n")
    print(f"{len(rows)} mutants -> {out_rows}; summary -> {out_json}")


if __name__ == "__main__":
    main()
