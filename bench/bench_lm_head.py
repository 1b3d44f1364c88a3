"""How much of a language-model stage is Gemma-3's output head, and how close that runs to the CPU's
float32 matrix-product peak.

    .venv/bin/python -W ignore bench/bench_lm_head.py --workspace WS [--cache CACHE] \
        [--stages crest_generate tin_generate@spacy_sm] [--out bench/results/lm_head.json]

Each stage runs once in a throwaway copy of ``WS`` (a workspace after ``dvc repro -P``; its models from
``CACHE``, every other cache empty; ``bench_profile.throwaway_copy``), with the three places that apply
the 262,144-column output head timed: the chunked log-normaliser of packed scoring
(``lm_head._chunked_logsumexp``), and the next-token head of ``lm_next`` proposals
(``NextTokens._head_logits``, ``NextTokens._head_argmax``). Per place: calls, hidden-state rows, seconds,
milliseconds per row and calls by rows (powers of two). Then the same product alone
(``linear(rows x 640, each 8192-column slice of the head)``, random weights) by row count: the GFLOP/s the
CPU gives each call size, and whether rows computed in calls of that size have the same bits as in calls
of 512 rows. The stage's outputs are the pipeline's: the wrappers only time.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

VOCAB, HIDDEN, VOCAB_CHUNK = 262144, 640, 8192


def _inside(stage: str, record: Path) -> None:
    """Run ``stage`` in this process with the head timed; write the timings to ``record`` at exit."""
    import atexit
    import runpy

    import lingtest.resources.lm_head as lh
    import lingtest.resources.next_words as nw

    calls: dict[str, list[tuple[int, float]]] = collections.defaultdict(list)

    def timed(owner: Any, name: str, label: str, rows_arg: int) -> None:
        orig = getattr(owner, name)

        def wrapped(*args: Any, **kwargs: Any) -> Any:
            t = time.perf_counter()
            out = orig(*args, **kwargs)
            calls[label].append((int(args[rows_arg].shape[0]), time.perf_counter() - t))
            return out

        setattr(owner, name, wrapped)

    timed(lh, "_chunked_logsumexp", "packed log-normaliser", 1)
    timed(nw.NextTokens, "_head_logits", "next-token logits", 1)
    timed(nw.NextTokens, "_head_argmax", "next-token argmax", 1)
    t0 = time.perf_counter()
    atexit.register(lambda: record.write_text(json.dumps({"wall_s": time.perf_counter() - t0, "calls": calls})))
    name, _, item = stage.partition("@")
    sys.argv = ["stage", name, *([item] if item else [])]
    runpy.run_module("lingtest.pipeline.stage", run_name="__main__", alter_sys=True)


def summarise(calls: dict[str, list[tuple[int, float]]], wall_s: float) -> dict[str, Any]:
    out: dict[str, Any] = {"stage_wall_s": round(wall_s, 1), "places": {}}
    total = 0.0
    for label, rec in calls.items():
        rows = sum(n for n, _ in rec)
        secs = sum(t for _, t in rec)
        total += secs
        bins: dict[int, list[float]] = collections.defaultdict(lambda: [0, 0.0])
        for n, t in rec:
            b = 1 << max(0, n - 1).bit_length()
            bins[b][0] += 1
            bins[b][1] += t
        out["places"][label] = {"calls": len(rec), "rows": rows, "seconds": round(secs, 2),
                                "ms_per_row": round(1000 * secs / rows, 3) if rows else None,
                                "calls_by_rows_up_to": {str(b): {"calls": int(c), "seconds": round(s, 2)}
                                                        for b, (c, s) in sorted(bins.items())}}
    out["head_seconds"] = round(total, 1)
    out["head_share"] = round(total / wall_s, 3) if wall_s else None
    return out


def gemm_by_rows(rows: list[int], seconds: float = 1.0, reference: int = 512,
                 vocab: int = VOCAB) -> list[dict[str, Any]]:
    """Per row count (the rows of one call): the head product's GFLOP/s (``lm_bound.gemm_gflops_by_rows``
    over the 8,192-column slices of a ``vocab``-row head), the milliseconds a row costs across that head,
    and whether rows computed in calls of that size come out with the same bits as in calls of
    ``reference`` rows (random hidden states and weights of the head's shape)."""
    import torch
    from lm_bound import gemm_gflops_by_rows

    rates = gemm_gflops_by_rows(torch.get_num_threads(), rows=tuple(rows), inner=HIDDEN, cols=VOCAB_CHUNK,
                                seconds=seconds, vocab=vocab)
    gen = torch.Generator().manual_seed(0)
    h = torch.randn(max(1024, *rows), HIDDEN, generator=gen)
    w = torch.randn(VOCAB_CHUNK, HIDDEN, generator=gen)

    def in_calls(m: int) -> Any:
        return torch.cat([torch.nn.functional.linear(h[i:i + m], w) for i in range(0, len(h), m)])

    ref = in_calls(reference)
    return [{"rows": m, "gflop_per_s": round(rates[m], 1),
             "ms_per_row": round(1000 * 2 * HIDDEN * vocab / (rates[m] * 1e9), 3),
             f"same_bits_as_{reference}_rows": bool(torch.equal(in_calls(m), ref))} for m in rows]


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workspace", type=Path, help="a workspace after dvc repro -P")
    ap.add_argument("--cache", type=Path, default=None, help="its LINGTEST_CACHE (the converted models)")
    ap.add_argument("--stages", nargs="+", default=["crest_generate", "tin_generate@spacy_sm"])
    ap.add_argument("--rows", type=int, nargs="+", default=[8, 16, 32, 64, 128, 256, 512, 1024])
    ap.add_argument("--out", type=Path, default=ROOT / "bench/results/lm_head.json")
    ap.add_argument("--inside", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--record", type=Path, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.inside:
        _inside(args.inside, args.record)
        return {}
    if args.workspace is None:
        ap.error("--workspace is required")
    from bench_profile import machine, stage_env, throwaway_copy

    workspace = args.workspace.resolve()
    cache = (args.cache or Path(os.environ.get("LINGTEST_CACHE", Path.home() / ".cache/lingtest"))).resolve()
    result: dict[str, Any] = {"benchmark": "lm_head", "machine": machine(), "caches_cold": True,
                              "command": "python -W ignore bench/bench_lm_head.py " + " ".join(
                                  argv if argv is not None else sys.argv[1:]), "stages": {}}
    for stage in args.stages:
        with tempfile.TemporaryDirectory(prefix="lt_head_") as tmp:
            ws = throwaway_copy(workspace, stage, Path(tmp))
            env = stage_env(ws, Path(tmp) / "cache", cache)
            record = Path(tmp) / "head.json"
            cmd = [sys.executable, "-W", "ignore", str(Path(__file__).resolve()), "--inside", stage, "--record",
                   str(record)]
            t0 = time.perf_counter()
            proc = subprocess.run(cmd, cwd=ws, env=env, capture_output=True, text=True)
            wall = time.perf_counter() - t0
            if proc.returncode != 0 or not record.exists():
                raise SystemExit(f"{stage} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
            rec = json.loads(record.read_text())
            result["stages"][stage] = {"process_wall_s": round(wall, 1), **summarise(rec["calls"], rec["wall_s"])}
        s = result["stages"][stage]
        print(f"{stage}: {s['head_seconds']} s of {s['stage_wall_s']} s in the output head ({s['head_share']:.0%})")
    result["gemm_by_rows"] = gemm_by_rows(args.rows)
    peak = max(r["gflop_per_s"] for r in result["gemm_by_rows"])
    result["gemm_peak_gflop_per_s"] = peak
    for r in result["gemm_by_rows"]:
        print(f"  {r['rows']:5d} rows: {r['gflop_per_s']:6.1f} GFLOP/s, {r['ms_per_row']:.3f} ms per row, "
              f"same bits as 512-row calls: {r['same_bits_as_512_rows']}")
    args.out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return result


if __name__ == "__main__":
    main()
