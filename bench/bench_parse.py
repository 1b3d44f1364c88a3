"""Agreement of our spaCy-derived constituency trees with GUM's gold trees, and parse speed.

Parses the gold trees' own tokens (pre-tokenised, one sentence per gold tree), derives trees
with :func:`lingtest.parsing.dep2const.dependency_to_constituency` and scores them against
``gum/const/*.ptb`` with evalb/COLLINS.prm conventions. Writes ``bench/results/parse.json`` (the
DVC stage ``parser_agreement`` writes the tracked figure).

    .venv/bin/python bench/bench_parse.py --split test            # GUM test split
    .venv/bin/python bench/bench_parse.py --split all --model en_core_web_md
    .venv/bin/python bench/bench_parse.py --deps gold --out /tmp/x.json   # conversion of gold UD
"""

from __future__ import annotations

import argparse
import sys
import time

from lingtest.data.io import write_json
from lingtest.parsing.dep2const import dependency_to_constituency
from lingtest.parsing.evalb import evalb_corpus
from lingtest.paths import mirror_root
from lingtest.pipeline.datasets import document_list
from lingtest.readers.options import configured
from lingtest.readers.treebank import read_conllu


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirror", default=None, help="data mirror root (default ../shared/data)")
    ap.add_argument("--split", default="test", help="GUM split (train/dev/test/test2) or 'all'")
    ap.add_argument("--model", default="en_core_web_sm")
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--include-reddit", action="store_true", help="keep GUM_reddit_* (words masked as _)")
    ap.add_argument("--deps", choices=("spacy", "gold"), default="spacy",
                    help="convert spaCy's parse (default) or GUM's gold UD trees (measures the conversion alone)")
    ap.add_argument("--out", default="bench/results/parse.json")
    args = ap.parse_args(argv)

    root = mirror_root(args.mirror)
    if root is None:
        print("data mirror not found", file=sys.stderr)
        return 2
    gum = root / "gum"
    files = sorted((gum / "const").glob("*.ptb"))
    if args.split != "all":
        wanted = set(document_list(gum / "splits.md", args.split))
        files = [f for f in files if f.stem in wanted]
    if not args.include_reddit:
        files = [f for f in files if not f.stem.startswith("GUM_reddit_")]
    read_ptb = configured("ptb")
    gold = [s for f in files for d in read_ptb(f) for s in d.sentences]

    from lingtest.parsing.spacy_backend import SpacyParser

    t0 = time.perf_counter()
    if args.deps == "gold":
        parsed = [s for f in files for d in read_conllu(gum / "dep" / f"{f.stem}.conllu") for s in d.sentences]
        # compare lengths: masked Reddit words differ in their number of underscores
        if [len(s) for s in parsed] != [len(s) for s in gold]:
            print("GUM const and dep files do not align", file=sys.stderr)
            return 2
        fingerprint = {"name": "gold-ud", "source": "gum/dep/*.conllu"}
    else:
        parser = SpacyParser(model=args.model, batch_size=args.batch_size, constituency="none")
        parser.parse([["Warm", "up", "."]])
        t0 = time.perf_counter()
        parsed = parser.parse([s.words for s in gold])
        fingerprint = parser.fingerprint()
    parse_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    for p in parsed:
        p.tree = dependency_to_constituency(p)
    convert_s = time.perf_counter() - t1
    elapsed = parse_s + convert_s
    counts = evalb_corpus((g.tree, p.tree) for g, p in zip(gold, parsed, strict=True))
    counts40 = evalb_corpus(((g.tree, p.tree) for g, p in zip(gold, parsed, strict=True)), max_length=40)
    n_words = sum(len(s) for s in gold)
    result = {
        "dataset": "GUM const (gold PTB-style trees)", "split": args.split, "n_docs": len(files),
        "reddit_included": args.include_reddit, "parser": fingerprint, "conversion": "dep2const",
        "scoring": "evalb COLLINS.prm (punct removed by gold tag, ROOT/TOP ignored, ADVP=PRT, function tags stripped)",
        **counts.as_dict(),
        "labelled_f1_len40": counts40.f1, "n_sentences_len40": counts40.sentences,
        "parse_seconds": parse_s, "convert_seconds": convert_s, "total_seconds": elapsed,
        "spacy_sentences_per_second": len(gold) / parse_s if parse_s else None,
        "dep2const_sentences_per_second": len(gold) / convert_s if convert_s else None,
        "sentences_per_second": len(gold) / elapsed if elapsed else None,
        "words_per_second": n_words / elapsed if elapsed else None,
        "command": "python bench/bench_parse.py " + " ".join(argv if argv is not None else sys.argv[1:]),
    }
    write_json(args.out, result)
    print(f"{counts.sentences} sentences: labelled P/R/F1 {counts.precision:.4f}/{counts.recall:.4f}/"
          f"{counts.f1:.4f}, unlabelled F1 {counts.unlabelled_f1:.4f}; "
          f"{result['sentences_per_second']:.1f} sentences/s end to end ({elapsed:.1f}s; deps "
          f"{result['spacy_sentences_per_second']:.1f}/s, dep2const {result['dep2const_sentences_per_second']:.0f}/s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
