"""CREST's five baselines on a few of CREST's own sources, with the real offline components, graded like CREST.

Components: the configured parser (spaCy en_core_web_sm + dep2const trees), the fill-in proposer of
``crest_baselines.fill`` (WordNet + spaCy-md vector candidates ranked by the converted Gemma-3-270M; the
baselines' masked-LM substitute), the packaged MiniLM sentence embedder (CAT) and WordNet (PatInv, TextAttack).
Models are loaded before timing (``load_seconds``); each baseline's ``seconds`` cover generation and parsing
its follow-ups for the records. Every baseline's records, and CREST's own for the same sources, are then run
through CREST's evaluation with ``--system`` (BLANC oracle, gold grading, validity).

    .venv/bin/python bench/bench_crest_baselines.py [--sources-file SOURCES] [--n 20] [--baselines sit cat ...]
        [--crest-generated GENERATED] [--system sieve] [--config YAML] [--out bench/results/crest_baselines.json]

``SOURCES``/``GENERATED``: CREST's ``sources.jsonl``/``generated.jsonl`` of a pipeline run (default: the
``/work/repro`` workspace); the first ``--n`` sources are used. ``--config``: the ``crest_baselines`` section
(default: the composed configuration's, else ``tests/crest/baselines/baselines.yaml``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from pathlib import Path
from typing import Any

from lingtest.environment import cpu_model  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
REPRO = Path("/work/repro/data/crest/ontogum")


def baselines_config(cfg: Any, path: str | None) -> Any:
    from omegaconf import OmegaConf

    from lingtest.config import validate
    from lingtest.crest.baselines.config import BaselinesConfig

    if path is None and cfg.get("crest_baselines") is not None:
        return BaselinesConfig.from_config(cfg)
    node = OmegaConf.merge(OmegaConf.create({"seed": int(cfg.seed)}),
                           OmegaConf.create({"crest_baselines": OmegaConf.load(
                               path or ROOT / "tests" / "crest" / "baselines" / "baselines.yaml")}))
    data = OmegaConf.to_container(node, resolve=True)
    if not isinstance(data, dict):
        raise SystemExit(f"{path}: not a mapping")
    return validate(BaselinesConfig, data["crest_baselines"], "crest_baselines")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sources-file", default=str(REPRO / "sources.jsonl"))
    ap.add_argument("--crest-generated", default=str(REPRO / "generated.jsonl"))
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--baselines", nargs="*", default=None)
    ap.add_argument("--system", default="sieve")
    ap.add_argument("--config", default=None)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "crest_baselines.json"))
    ap.add_argument("overrides", nargs="*", help="Hydra overrides, e.g. crest.M=10")
    args = ap.parse_args()

    from lingtest.config import compose
    from lingtest.crest.baselines.parts import StageParts
    from lingtest.crest.baselines.stages import comparison_markdown, run_baseline_evaluate, run_baseline_generate
    from lingtest.crest.config import CrestConfig
    from lingtest.crest.evaluate import evaluate_system, select_cases, summarize
    from lingtest.crest.suite import load_cases, load_sources
    from lingtest.data.io import write_json
    from lingtest.resources.lm import idle_cpus
    from lingtest.systems.coref import TASK
    from lingtest.systems.factory import build_system

    load_at_start = os.getloadavg()
    idle_at_start = idle_cpus(1.0)
    cfg = compose(args.overrides)
    crest = CrestConfig.from_config(cfg)
    config = baselines_config(cfg, args.config)
    names = args.baselines or list(config.baselines)
    sources = load_sources(args.sources_file)[: args.n]
    parts = StageParts(cfg, config)
    loads: dict[str, float] = {}
    for what in ("parser", "wordnet", "embedder", "fill"):
        t = time.perf_counter()
        getattr(parts, what)
        loads[what] = round(time.perf_counter() - t, 2)
    system = build_system(cfg, TASK, args.system)
    rows: dict[str, dict[str, Any]] = {}
    generation: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            gen = run_baseline_generate(crest, config, name, parts, out_dir=Path(tmp) / name,
                                        metrics_path=Path(tmp) / name / "generation.json", sources=sources)
            generation[name] = gen
            cases = load_cases(Path(tmp) / name / "generated.jsonl")
            row, _ = run_baseline_evaluate(crest, name, system, sources, cases, gen["seconds_per_selected"],
                                           M=config.M)
            rows[name] = row
            print(json.dumps({k: gen[k] for k in ("baseline", "generated", "seconds", "seconds_per_selected")}),
                  flush=True)
    ids = {s.id for s in sources}
    crest_cases = [c for c in load_cases(args.crest_generated) if c.provenance.seed_id in ids]
    used = select_cases(crest_cases, crest.M, crest.select)
    res = evaluate_system(system, sources, used, crest.oracle_options())
    crest_row = {"approach": "crest", "system": system.name, **summarize(res, crest.M, crest.select)}
    parts.close()
    from lingtest.crest.baselines.stages import comparison_rows

    table = comparison_rows({system.name: crest_row}, {}, {n: {system.name: r} for n, r in rows.items()},
                            generation)
    out = {
        "sources": len(sources), "sources_file": args.sources_file, "M": crest.M, "system": args.system,
        "load_seconds": loads,
        "generation": generation,
        "rows": table,
        "crest_note": "CREST's row: its records of the same sources from --crest-generated (order < M, selected)",
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform(),
                    "processor": platform.processor() or cpu_model(), "loadavg_at_start": load_at_start,
                    "idle_cpus_at_start": idle_at_start},
        "overrides": args.overrides,
    }
    write_json(args.out, out)
    print(comparison_markdown(table))



if __name__ == "__main__":
    main()
