"""Dynamic int8 quantisation of the demo's MiniLM text classifiers (the S2LCT systems under test) against
float32: texts per second and how often the label changes.

The classifiers' scoring is most of ``s2lct_evaluate`` (the CheckList baseline suites hold tens of thousands of
texts). PyTorch's dynamic int8 (:func:`lingtest.resources.quantize.quantize_causal_lm`'s ``torch_dynamic_int8``
applied to the classifier's linear layers, per-channel weight scales, engine ``x86``) is tried on four sets of
layers: every linear layer, the encoder's only (the classification head float32), the feed-forward layers only,
the first feed-forward layer only. ``bfloat16`` runs the whole model in bfloat16 (fast only on CPUs with
bfloat16 matrix instructions: AVX-512 BF16 or AMX). A variant could serve the demo's scoring only
where the label it gives agrees with float32's on at least 99% of the texts (``--target``): the label as the
suite reads it, after the system's ``label_map`` and ``neutral_margin`` (the SST-2 model's three-way neutral
band), through :class:`lingtest.systems.classification.transformer.HFTextClassifier`.

Texts: a seeded sample (``--n``) of the distinct inputs of the suite and its CheckList baseline as the pipeline
wrote them (``--suite``, ``--baseline``). Timing alternates between the variants batch by batch so that a change
in the load of the shared machine hits all alike; ``--threads`` torch threads.

    .venv/bin/python -W ignore bench/bench_quant_classifier.py --model models/s2lct/minilm_sst2
        --neutral-margin 0.3333333333 --suite data/suites/s2lct/sst.jsonl --baseline data/s2lct/baselines/sst.jsonl
        [--n 2000] [--seed 0] [--threads 2] [--variants bfloat16,int8_all,...]
        [--out bench/results/quant_classifier_sst.json]
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from bench_profile import machine  # noqa: E402

#: variant -> which linear layers (by qualified name) are quantised
VARIANTS = {
    "int8_all": lambda name: True,
    "int8_encoder": lambda name: "encoder." in name,
    "int8_ffn": lambda name: "encoder." in name and (".intermediate." in name or
                                                      (".output." in name and ".attention." not in name)),
    "int8_ffn_in": lambda name: ".intermediate." in name,
}


def texts_of(paths: list[Path]) -> list[str]:
    """The distinct ``source.text`` inputs of test-case JSONL files (header lines skipped), in file order."""
    out: dict[str, None] = {}
    for p in paths:
        with open(p, encoding="utf-8") as fh:
            for line in fh:
                d = json.loads(line)
                text = (d.get("source") or {}).get("text") if isinstance(d.get("source"), dict) else None
                if isinstance(text, str):
                    out.setdefault(text)
    return list(out)


def label(probs: dict[str, float]) -> str:
    return max(sorted(probs), key=lambda k: probs[k])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, required=True)
    ap.add_argument("--neutral-margin", type=float, default=None)
    ap.add_argument("--suite", type=Path, required=True)
    ap.add_argument("--baseline", type=Path, default=None)
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--target", type=float, default=0.99)
    ap.add_argument("--variants", default=",".join(["bfloat16", *VARIANTS]),
                    help="comma-separated: bfloat16 (the whole model in bfloat16) and the int8 variants")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()

    import torch
    from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic

    from lingtest.systems.classification.transformer import HFTextClassifier

    torch.set_num_threads(args.threads)
    torch.backends.quantized.engine = "x86"
    texts = texts_of([args.suite] + ([args.baseline] if args.baseline else []))
    total = len(texts)
    random.Random(args.seed).shuffle(texts)
    texts = sorted(texts[: args.n], key=len)  # length-sorted batches, as the pipeline's systems run them
    system = HFTextClassifier(str(args.model), revision=None, label_map=None, neutral_margin=args.neutral_margin,
                              max_length=128, device="cpu", dtype="float32")
    net, tok, dev = system.load()
    models = {"float32": net}
    layers = {}
    chosen = [v for v in args.variants.split(",") if v]
    unknown = sorted(set(chosen) - {"bfloat16", *VARIANTS})
    if unknown:
        ap.error(f"unknown variants: {', '.join(unknown)}")
    if "bfloat16" in chosen:
        models["bfloat16"] = copy.deepcopy(net).to(torch.bfloat16).eval()
    for name, pick in VARIANTS.items():
        if name not in chosen:
            continue
        names = [n for n, m in net.named_modules() if isinstance(m, torch.nn.Linear) and pick(n)]
        layers[name] = len(names)
        models[name] = quantize_dynamic(copy.deepcopy(net).eval(), dict.fromkeys(names, per_channel_dynamic_qconfig),
                                        dtype=torch.qint8).eval()
    preds: dict[str, list[Any]] = {k: [] for k in models}
    seconds = dict.fromkeys(models, 0.0)
    for i in range(0, len(texts), args.batch):
        batch = texts[i:i + args.batch]
        for name, model in models.items():
            system._loaded = (model, tok, dev)
            t0 = time.perf_counter()
            preds[name].extend(system.predict(batch))
            seconds[name] += time.perf_counter() - t0
    ref = [label(p) for p in preds["float32"]]
    results = {}
    for name in models:
        got = [label(p) for p in preds[name]]
        same = sum(a == b for a, b in zip(ref, got, strict=True))
        diffs = [abs(p[k] - q[k]) for p, q in zip(preds["float32"], preds[name], strict=True) for k in p]
        results[name] = {
            "linear_layers_quantised": layers.get(name, 0), "seconds": round(seconds[name], 2),
            "texts_per_s": round(len(texts) / seconds[name], 1),
            "speed_vs_float32": round(seconds["float32"] / seconds[name], 2),
            "same_label": same, "same_label_share": round(same / len(texts), 4),
            "max_abs_prob_diff": round(max(diffs), 4),
            "keep": name == "float32" or same / len(texts) >= args.target,
        }
    out = {"bench": "quant_classifier", "model": str(args.model), "neutral_margin": args.neutral_margin,
           "texts": len(texts), "distinct_texts": total, "seed": args.seed, "threads": args.threads,
           "target_same_label_share": args.target, "engine": "x86", "machine": machine(), "results": results}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    for name, r in results.items():
        print(f"{name:14s} {r['texts_per_s']:7.1f}/s  x{r['speed_vs_float32']:.2f}  "
              f"same label {r['same_label_share']:.2%}  keep={r['keep']}")


if __name__ == "__main__":
    main()
