"""Score a coreference system under test on an OntoGUM split (MUC, B-cubed, CEAFe, their mean
= CoNLL F1; also CEAFm, LEA, BLANC), and time it.

    .venv/bin/python bench/eval_coref_system.py --system sieve --split test
    .venv/bin/python bench/eval_coref_system.py --system xrenner --split test
    .venv/bin/python bench/eval_coref_system.py --system sieve --split dev --option keep_singletons=true

The system sees only tokens and GUM's sentence breaks (gold clusters and gold UD annotations are
stripped; ``--gold-parse`` keeps GUM's gold UD trees instead of parsing with spaCy). System
options come from ``conf/systems/default.yaml`` (``--option key=value`` overrides, values parsed as
YAML). Scores are corpus-level (per-document counts summed, as the reference scorer does).
Writes ``metrics/systems/<system>_ontogum_<split>.json`` atomically.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

from lingtest.data.io import write_json
from lingtest.data.model import Document, Sentence, Token
from lingtest.errors import InputError
from lingtest.paths import mirror_root, project_root
from lingtest.pipeline.datasets import document_list

METRICS = ("muc", "bcub", "ceafe", "ceafm", "lea", "blanc")


def split_documents(splits_md: Path, split: str) -> list[str]:
    """Document names listed under ``## <split>`` in OntoGUM's ``splits.md``."""
    names = document_list(splits_md, split)
    if not names:
        raise InputError(f"no documents listed for split {split!r}", path=splits_md)
    return names


def strip(doc: Document, keep_parse: bool) -> Document:
    """The document as a system may see it: tokens and sentence breaks (and the gold UD parse
    only with ``keep_parse``), no clusters."""
    sents = []
    for s in doc.sentences:
        if keep_parse:
            toks = [Token(t.text, t.ws, pos=t.pos, tag=t.tag, lemma=t.lemma, head=t.head, dep=t.dep, morph=t.morph)
                    for t in s.tokens]
        else:
            toks = [Token(t.text, t.ws) for t in s.tokens]
        sents.append(Sentence(tokens=toks, id=s.id))
    return Document(id=doc.id, part=doc.part, split=doc.split, sentences=sents)


def load_options(config: Path, system: str, overrides: list[str]) -> dict:
    import yaml

    opts = {}
    if config.is_file():
        cfg = yaml.safe_load(config.read_text(encoding="utf-8")) or {}
        opts = dict((cfg.get("coref") or {}).get(system) or {})
    for item in overrides:
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"--option needs key=value, got {item!r}")
        opts[key] = yaml.safe_load(value)
    return opts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--system", default="sieve")
    ap.add_argument("--split", default="test", choices=["train", "dev", "test", "test2"])
    ap.add_argument("--mirror", default=None, help="data mirror (default ../shared/data)")
    ap.add_argument("--config", default=None, help="systems config (default conf/systems/default.yaml)")
    ap.add_argument("--option", action="append", default=[], help="system option key=value (YAML value)")
    ap.add_argument("--gold-parse", action="store_true", help="give the system GUM's gold UD parse")
    ap.add_argument("--limit", type=int, default=None, help="first N documents only")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)

    from lingtest.metrics.coref import conll_f1_from_scores, score_documents
    from lingtest.readers.options import configured
    from lingtest.systems.coref.base import ensure_parsed
    from lingtest.systems.entries import instantiate

    root = project_root()
    mirror = mirror_root(args.mirror)
    if mirror is None:
        print("no data mirror found (../shared/data or --mirror)", file=sys.stderr)
        return 2
    conll_dir = mirror / "ontogum" / "coref" / "ontogum" / "conll"
    conllu_dir = mirror / "gum" / "dep"
    names = split_documents(mirror / "ontogum" / "splits.md", args.split)[: args.limit]
    gold: list[Document] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # OntoGUM repeats a few mentions; the reader drops the repeats
        for n in names:
            gold.extend(configured("ontogum", conllu_dir=conllu_dir, duplicates="drop")(conll_dir / f"{n}.conll"))
    inputs = [strip(d, keep_parse=args.gold_parse) for d in gold]
    n_tokens = sum(len(d.words) for d in gold)

    opts = load_options(Path(args.config) if args.config else root / "conf" / "systems" / "default.yaml",
                        args.system, args.option)
    system = instantiate("coref", args.system, opts)
    parse_s = 0.0
    if args.system in ("sieve", "xrenner") and not args.gold_parse:
        t0 = time.perf_counter()
        inputs = ensure_parsed(inputs, opts.get("parser", "spacy"), opts.get("parser_options"))
        parse_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    preds = system.predict(inputs)
    predict_s = time.perf_counter() - t0

    responses = [Document(id=d.id, part=d.part, sentences=d.sentences, clusters=c)
                 for d, c in zip(gold, preds, strict=True)]
    scores = score_documents(gold, responses, METRICS)
    conll = conll_f1_from_scores(scores)
    result = {
        "system": args.system,
        "options": system.config(),
        "dataset": "ontogum",
        "split": args.split,
        "documents": len(gold),
        "tokens": n_tokens,
        "parse": "gold UD (GUM)" if args.gold_parse else "spaCy (system's parser)",
        "metrics": {m: s.to_dict() for m, s in scores.items()},
        "conll_f1": conll,
        "predicted_clusters": sum(len(c) for c in preds),
        "gold_clusters": sum(len(d.clusters) for d in gold),
        "timing": {
            "parse_s": round(parse_s, 3),
            "predict_s": round(predict_s, 3),
            "docs_per_s_predict": round(len(gold) / predict_s, 3) if predict_s else None,
            "docs_per_s_with_parse": round(len(gold) / (predict_s + parse_s), 3) if predict_s + parse_s else None,
            "tokens_per_s_predict": round(n_tokens / predict_s, 1) if predict_s else None,
        },
        "command": "python bench/eval_coref_system.py " + " ".join(argv if argv is not None else sys.argv[1:]),
    }
    failures = getattr(system, "failures", None)
    if failures:
        result["failures"] = [f"{k}: {msg}" for k, msg in failures]
    out = Path(args.out) if args.out else root / "metrics" / "systems" / f"{args.system}_ontogum_{args.split}.json"
    write_json(out, result)
    line = "  ".join(f"{m} R {s.recall * 100:.1f} P {s.precision * 100:.1f} F {s.f1 * 100:.1f}"
                     for m, s in scores.items() if m in ("muc", "bcub", "ceafe"))
    print(f"{args.system} ontogum/{args.split} ({len(gold)} docs): {line}  CoNLL F1 {conll * 100:.2f}")
    print(f"timing: parse {parse_s:.1f}s, predict {predict_s:.1f}s "
          f"({result['timing']['docs_per_s_predict']} docs/s predict)  -> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
