"""Speed of the sieve resolver on OntoGUM documents: parse time, resolve time (best of
``--repeat`` runs, WordNet warmed first), and the prediction cache's effect on a second pass.

    .venv/bin/python bench/bench_sieve.py --split test
    .venv/bin/python bench/bench_sieve.py --split dev --limit 8 --repeat 5

Writes ``bench/results/sieve.json``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from eval_coref_system import split_documents, strip  # noqa: E402

from lingtest.data.io import write_json  # noqa: E402
from lingtest.paths import mirror_root  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mirror", default=None)
    ap.add_argument("--split", default="test")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--model", default="en_core_web_sm")
    ap.add_argument("--out", default="bench/results/sieve.json")
    args = ap.parse_args(argv)

    from lingtest.config import compose
    from lingtest.readers.options import configured
    from lingtest.store import JSONStore
    from lingtest.systems.cache import CachedSystem
    from lingtest.systems.coref.base import ensure_parsed
    from lingtest.systems.coref.mentions import ParsedDoc, detect_mentions
    from lingtest.systems.coref.sieve import SieveResolver
    from lingtest.systems.entries import instantiate, system_entry

    mirror = mirror_root(args.mirror)
    if mirror is None:
        print("data mirror not found", file=sys.stderr)
        return 2
    names = split_documents(mirror / "ontogum" / "splits.md", args.split)[: args.limit]
    docs = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        read_ontogum = configured("ontogum", conllu_dir=mirror / "gum" / "dep", duplicates="drop")
        for n in names:
            for d in read_ontogum(mirror / "ontogum" / "coref" / "ontogum" / "conll" / f"{n}.conll"):
                docs.append(strip(d, keep_parse=False))
    n_tokens = sum(len(d.words) for d in docs)

    t0 = time.perf_counter()
    parsed = ensure_parsed(docs, "spacy", {"model": args.model})
    parse_s = time.perf_counter() - t0

    entry = system_entry(compose().systems, "coref", "sieve")  # the configured options
    resolver = instantiate("coref", "sieve", {**entry, "parser_options": {"model": args.model}})
    assert isinstance(resolver, SieveResolver)
    resolver.animacy_lexicon.animacy("dog")  # load WordNet outside the timed runs
    n_mentions = sum(len(detect_mentions(ParsedDoc.from_document(d), resolver.animacy_lexicon)) for d in parsed)
    runs = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        resolver.predict(parsed)
        runs.append(time.perf_counter() - t0)
    best = min(runs)

    with tempfile.TemporaryDirectory() as tmp:
        cached = CachedSystem(resolver, JSONStore(Path(tmp) / "coref.sqlite", table="predictions"))
        t0 = time.perf_counter()
        cached.predict(parsed)
        cold = time.perf_counter() - t0
        t0 = time.perf_counter()
        cached.predict(parsed)
        warm = time.perf_counter() - t0

    result = {
        "split": args.split, "documents": len(docs), "tokens": n_tokens, "mentions_detected": n_mentions,
        "parse_s": round(parse_s, 3), "resolve_s_runs": [round(r, 3) for r in runs], "resolve_s_best": round(best, 3),
        "docs_per_s_resolve": round(len(docs) / best, 2), "tokens_per_s_resolve": round(n_tokens / best, 1),
        "docs_per_s_parse_and_resolve": round(len(docs) / (best + parse_s), 2),
        "cached_cold_s": round(cold, 3), "cached_warm_s": round(warm, 3),
        "command": "python bench/bench_sieve.py " + " ".join(argv if argv is not None else sys.argv[1:]),
    }
    write_json(args.out, result)
    print(f"{len(docs)} docs, {n_tokens} tokens, {n_mentions} mentions: parse {parse_s:.1f}s; resolve best "
          f"{best:.2f}s of {args.repeat} ({result['docs_per_s_resolve']} docs/s, "
          f"{result['tokens_per_s_resolve']} tokens/s); with parse {result['docs_per_s_parse_and_resolve']} docs/s; "
          f"cache cold {cold:.2f}s warm {warm:.3f}s -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
