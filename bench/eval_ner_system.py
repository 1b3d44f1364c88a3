"""Score an NER system under test on a whole split of a prepared corpus with gold IOB2 tags
(CoNLL-2003 test by default): entity-level precision, recall and F1 with conlleval's conventions,
overall and per type, the system's labels mapped onto the corpus's scheme by
``systems.ner_label_maps`` (OntoNotes GPE/LOC/FAC -> LOC, ...; numeric and date types dropped).

    .venv/bin/python bench/eval_ner_system.py --system minilm_ner          # the train_ner checkpoint
    .venv/bin/python bench/eval_ner_system.py --system spacy_sm
    .venv/bin/python bench/eval_ner_system.py --system spacy_md --split dev

Every sentence of the split is scored (``-DOCSTART-`` lines excepted), unlike the TIN stages,
which score their N sampled sources. The system is built from the composed config (``conf/``;
Hydra overrides after ``--``, e.g. ``-- resources.device=cpu``) with its prediction cache.
Writes ``metrics/systems/<system>_<corpus>_<split>.json`` atomically; needs
``data/prepared/<corpus>/<split>.jsonl`` (``dvc repro prepare@conll2003``).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lingtest.data.model import Document

ROOT = Path(__file__).resolve().parents[1]


def gold_sentences(docs: Sequence[Document]) -> list[tuple[list[str], list[str]]]:
    """(words, gold IOB2 tags) of every sentence but ``-DOCSTART-``; a token without a tag is an
    error naming the document and sentence (via :func:`lingtest.tin.sources.labelled_pool`)."""
    from lingtest.tin.sources import labelled_pool

    longest = max((len(s.tokens) for d in docs for s in d.sentences), default=0)
    pool = labelled_pool(docs, min_tokens=1, max_tokens=longest)
    return [(d.sentences[0].words, [str(t.ent) for t in d.sentences[0].tokens]) for d in pool]


def evaluate(system: Any, sentences: Sequence[tuple[list[str], list[str]]], label_map: Any) -> dict[str, Any]:
    """conlleval's scores (``NERScore.to_dict()``) of ``system.predict`` on the sentences, its
    entities mapped by ``label_map``, and the seconds prediction took."""
    from lingtest.metrics.ner import score_ner
    from lingtest.systems.ner.spans import entities_to_iob2

    t0 = time.perf_counter()
    preds = system.predict([list(w) for w, _ in sentences]) if sentences else []
    seconds = time.perf_counter() - t0
    pred_tags = [entities_to_iob2(label_map.map_entities(p), len(w))
                 for p, (w, _) in zip(preds, sentences, strict=True)]
    score = score_ner([g for _, g in sentences], pred_tags)
    return {"scores": score.to_dict(), "predict_seconds": round(seconds, 2)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--system", default="minilm_ner", help="an entry of systems.ner")
    ap.add_argument("--corpus", default="conll2003")
    ap.add_argument("--split", default="test")
    ap.add_argument("--out", default=None)
    ap.add_argument("overrides", nargs="*", help="Hydra overrides (after --)")
    args = ap.parse_args(argv)

    from lingtest.config import compose
    from lingtest.data.io import read_jsonl, write_json
    from lingtest.paths import repo_path
    from lingtest.systems.factory import build_system
    from lingtest.systems.ner import TASK
    from lingtest.tin.components import label_mapper

    cfg = compose(list(args.overrides))
    path = repo_path(cfg.paths.prepared) / args.corpus / f"{args.split}.jsonl"
    if not path.is_file():
        print(f"{path} not found: dvc repro prepare@{args.corpus}", file=sys.stderr)
        return 2
    sentences = gold_sentences(list(read_jsonl(path, Document.from_dict)))
    system = build_system(cfg, TASK, args.system)
    result = evaluate(system, sentences, label_mapper(cfg.systems.ner_label_maps, system))
    overall = result["scores"]["overall"]
    record = {"system": args.system, "corpus": args.corpus, "split": args.split, "sentences": len(sentences),
              **result,
              "command": "python bench/eval_ner_system.py " + " ".join(argv if argv is not None else sys.argv[1:])}
    name = f"{args.system}_{args.corpus}_{args.split}.json"
    out = Path(args.out) if args.out else ROOT / "metrics" / "systems" / name
    write_json(out, record)
    per_type = "  ".join(f"{k} {100 * v['f1']:.2f}" for k, v in sorted(result["scores"]["per_type"].items()))
    print(f"{args.system} {args.corpus}/{args.split} ({len(sentences)} sentences): P {100 * overall['precision']:.2f} "
          f"R {100 * overall['recall']:.2f} F1 {100 * overall['f1']:.2f}  [{per_type}]  "
          f"predict {result['predict_seconds']} s -> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
