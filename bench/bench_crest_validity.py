"""CREST's language-model checks on a reviewed sample: which reviewed follow-ups the fit bound and the naturalness
bound of ``conf/crest`` would have refused, and the well-formed rate of the rest.

    .venv/bin/python bench/bench_crest_validity.py [--suite crest-ontogum@1.1.0] [--review reviews/crest-ontogum@1.1.0]
        [--also NAME=reviews/<a later review> ...] [--whole SUITE=reviews/<its review>]
        [--out bench/results/crest_validity_checks.json]

The suite is a frozen release (read from ``releases/``); its reviewed cases are the review folder's
(``labels.jsonl``, each case's latest judgement). For each reviewed follow-up, as the generator computes them:

* ``fit``: ``log p(follow-up) - log p(source)``, both cut ``crest.ranker.window`` words after the replaced word
  (the left context cancels; :func:`lingtest.resources.naturalness.logprob_differences`), on the ``logprob``
  grid; refused under ``crest.ranker.min_fit`` (the ranker rounds each of the two log-probabilities before it
  subtracts them, so its fit can differ from this one by a step of the grid);
* ``naturalness``: SynEval of source and follow-up (:class:`lingtest.resources.naturalness.NaturalnessBound`
  with ``crest.naturalness``); refused when the follow-up falls more than ``epsilon`` below its source.

The bounds are the configured ones, set on TIN's natural edits (``bench/bench_tin_naturalness.py``,
``bench/bench_tin_validity_filters.py``), not on this review: this bench says what they do to follow-ups a
person judged. Reported: removed well-formed / ill-formed by each check and by either, the well-formed rate with
its 95% Wilson interval before and among the kept, the kept share, and every reviewed case with its values.
Also the grid of fit bounds -3 ... -8 (what a stricter or looser bound would keep). ``--also NAME=FOLDER``
(repeatable): review folders of suites generated later (with the checks); their rates (``lingtest review
--summary``) are stored under ``review_rates.NAME`` beside ``review_rates.before`` (the review the bench reads), so
that the estimate and the measurements sit together. ``--whole SUITE=FOLDER``: for the cases of a suite generated
with the checks that FOLDER reviewed, whether any bound on the LM's fit would still separate the well-formed from the
others: the well-formed share of the cases at or above each bound, for the fit as generated (``lm_fit``: three words
after the replacement) and for the fit of the whole sentence (``whole_fit``), and for two signals that do not
read the words before the replacement alone: the word-vector cosine of the replaced and the new word (spaCy md,
``word_similarity``) and the sentence-vector cosine of source and follow-up (the embedder of ``resources``,
MiniLM offline; ``sentence_similarity``), stored under ``whole``.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
FIT_GRID = [-3.0, -4.0, -5.0, -6.0, -7.0, -8.0, None]


def reviewed_cases(suite: str, review: Path) -> list[dict[str, Any]]:
    """The suite's reviewed cases (test-case dicts) with their reviewer's ``well_formed`` added."""
    from lingtest.harness.loading import load_suite
    from lingtest.review.labels import latest, read_labels

    _, judgements = read_labels(review / "labels.jsonl")
    wf = {j.id: bool(j.well_formed) for j in latest(judgements) if j.well_formed is not None}
    cases = [tc.to_dict() for tc in load_suite(suite).cases if tc.id in wf]
    missing = set(wf) - {c["id"] for c in cases}
    if missing:
        raise SystemExit(f"{len(missing)} reviewed cases are not in {suite}: {sorted(missing)[:3]}")
    for c in cases:
        c["well_formed"] = wf[c["id"]]
    return sorted(cases, key=lambda c: c["id"])


def window_texts(case: dict[str, Any], window: int | None) -> tuple[str, str]:
    """Source and follow-up as the ranker scores them: up to ``window`` words after the replaced word."""
    from lingtest.data.align import detokenize

    def words(doc: dict[str, Any]) -> tuple[list[str], list[str]]:
        toks = doc["sentences"][0]["tokens"]
        return [t["text"] for t in toks], [t.get("ws", " ") for t in toks]

    m = case["meta"]
    sw, sws = words(case["source"])
    fw, fws = words(case["followup"])
    if window is None:
        return detokenize(sw, sws), detokenize(fw, fws)
    s_end = m["position"] + 1 + window
    f_end = m["position"] + m["n_new_tokens"] + window
    return detokenize(sw[:s_end], sws[:s_end]), detokenize(fw[:f_end], fws[:f_end])


def rate(k: int, n: int) -> dict[str, Any]:
    from lingtest.review.rates import wilson_interval

    if not n:
        return {"k": 0, "n": 0, "rate": None, "low": None, "high": None}
    lo, hi = wilson_interval(k, n)
    return {"k": k, "n": n, "rate": round(k / n, 4), "low": round(lo, 4), "high": round(hi, 4)}


def removed(rows: list[dict[str, Any]], key: str) -> dict[str, int]:
    gone = [r for r in rows if r[key]]
    return {"well_formed": sum(r["well_formed"] for r in gone), "ill_formed": sum(not r["well_formed"] for r in gone)}


def word_similarity(vocab: Any, old: str, new: str) -> float | None:
    """Cosine of the word vectors of ``old`` and ``new`` (lower-cased; a multi-word replacement: the mean of its
    words' vectors), None where a word has no vector."""
    import numpy as np

    def vector(text: str) -> Any:
        vs = [vocab.get_vector(w) for w in text.lower().split() if vocab.has_vector(w)]
        return np.mean(vs, axis=0) if vs and len(vs) == len(text.split()) else None

    a, b = vector(old), vector(new)
    if a is None or b is None:
        return None
    return round(float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b))), 5)


def bound_table(rows: list[dict[str, Any]], key: str, bounds: list[float | None]) -> list[dict[str, Any]]:
    """The well-formed share of the rows whose ``key`` is at or above each bound (None: every row with a value)."""
    out = []
    for b in bounds:
        k = [r for r in rows if r[key] is not None and (b is None or r[key] >= b)]
        out.append({"bound": b, "kept": len(k), "well_formed": rate(sum(r["well_formed"] for r in k), len(k))})
    return out


def whole_fit(suite: str, review: Path, scorer: Any, grid: Any, vocab: Any = None,
              embedder: Any = None) -> dict[str, Any]:
    """The well-formed share of ``suite``'s reviewed cases at or above each bound: on the generator's fit
    (``lm_fit``), on the whole sentence's (``log p(follow-up) - log p(source)``, on the ``logprob`` grid), and, when
    ``vocab`` (word vectors) and ``embedder`` (sentence vectors) are given, on the similarity of the replaced and
    the new word and on that of the source and the follow-up sentence: signals that read the whole sentence or
    the word's sense rather than the words before it."""
    from lingtest.resources.naturalness import logprob_differences

    cases = reviewed_cases(suite, review)
    pairs = [(c["meta"]["source_text"], c["meta"]["followup_text"]) for c in cases]
    whole = logprob_differences(scorer, pairs)
    words: list[float | None] = [None] * len(cases)
    if vocab is not None:
        words = [word_similarity(vocab, c["meta"]["old_token"], c["meta"]["new_token"]) for c in cases]
    sents: list[float | None] = [None] * len(cases)
    if embedder is not None:
        sents = [round(float(x), 5) for x in embedder.similarity([p[0] for p in pairs], [p[1] for p in pairs])]
    rows = [{"id": c["id"], "well_formed": c["well_formed"], "candidate_source": c["meta"]["candidate_source"],
             "lm_fit": c["meta"].get("lm_fit"), "whole_fit": grid.round("logprob", w), "word_similarity": ws,
             "sentence_similarity": ss}
            for c, w, ws, ss in zip(cases, whole, words, sents, strict=True)]
    bounds = [None, -6.0, -4.0, -2.0, 0.0, 2.0]
    out = {"suite": suite, "reviewed": len(rows), "by_lm_fit": bound_table(rows, "lm_fit", bounds),
           "by_whole_fit": bound_table(rows, "whole_fit", bounds), "cases": rows}
    if vocab is not None:
        out["by_word_similarity"] = bound_table(rows, "word_similarity", [None, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    if embedder is not None:
        out["by_sentence_similarity"] = bound_table(rows, "sentence_similarity",
                                                    [None, 0.9, 0.95, 0.97, 0.98, 0.99, 0.995])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", default="crest-ontogum@1.1.0")
    ap.add_argument("--review", default=str(ROOT / "reviews" / "crest-ontogum@1.1.0"))
    ap.add_argument("--also", action="append", default=[], metavar="NAME=FOLDER",
                    help="a review folder of a later suite, stored under review_rates.NAME (repeatable)")
    ap.add_argument("--whole", default=None, metavar="SUITE=FOLDER",
                    help="a suite generated with the checks and its review: the fit bounds on its reviewed cases")
    ap.add_argument("--out", default=str(RESULTS / "crest_validity_checks.json"))
    args = ap.parse_args()

    from lingtest.config import compose
    from lingtest.crest.config import CrestConfig
    from lingtest.data.io import write_json
    from lingtest.environment import cpu_model
    from lingtest.resources.lm import scorer_from_config
    from lingtest.resources.naturalness import NaturalnessBound, logprob_differences
    from lingtest.resources.scores import ScoreGrid

    cfg = compose([])
    config = CrestConfig.from_config(cfg)
    grid = ScoreGrid.from_config(cfg.resources)
    cases = reviewed_cases(args.suite, Path(args.review))
    t0 = time.perf_counter()
    scorer = scorer_from_config(cfg.resources)
    fits = logprob_differences(scorer, [window_texts(c, config.ranker.window) for c in cases])
    nc = config.naturalness
    bound = NaturalnessBound(scorer, epsilon=nc.epsilon, weight_min=nc.weight_min, weight_mean=nc.weight_mean,
                             grid=grid, packed=nc.packed)
    verdicts = bound.judge([(c["meta"]["source_text"], c["meta"]["followup_text"]) for c in cases])
    seconds = round(time.perf_counter() - t0, 1)
    min_fit = config.ranker.min_fit
    rows = []
    for c, f, (src, new, natural) in zip(cases, fits, verdicts, strict=True):
        fit = grid.round("logprob", f)
        m = c["meta"]
        fit_refused = min_fit is not None and m["candidate_source"] in config.ranker.fit_sources and fit < min_fit
        rows.append({"id": c["id"], "well_formed": c["well_formed"], "candidate_source": m["candidate_source"],
                     "old": m["old_token"], "new": m["new_token"], "fit": fit, "naturalness_source": src,
                     "naturalness": new, "fit_refused": fit_refused, "naturalness_refused": not natural,
                     "refused": fit_refused or not natural})
    kept = [r for r in rows if not r["refused"]]
    by_fit = []
    for b in FIT_GRID:
        k = [r for r in rows if (b is None or r["fit"] >= b) and not r["naturalness_refused"]]
        by_fit.append({"min_fit": b, "kept": len(k), "well_formed": rate(sum(r["well_formed"] for r in k), len(k))})
    sources = sorted({r["candidate_source"] for r in rows})
    out = {
        "benchmark": "crest_validity_checks", "suite": args.suite,
        "review": str(Path(args.review).resolve().relative_to(ROOT)) if Path(args.review).resolve().is_relative_to(ROOT)
        else args.review,
        "settings": {"min_fit": min_fit, "fit_sources": list(config.ranker.fit_sources), "window": config.ranker.window,
                     "naturalness": nc.model_dump()},
        "reviewed": len(rows),
        "well_formed_before": rate(sum(r["well_formed"] for r in rows), len(rows)),
        "removed": {"fit": removed(rows, "fit_refused"), "naturalness": removed(rows, "naturalness_refused"),
                    "any": removed(rows, "refused")},
        "kept": len(kept), "kept_share": round(len(kept) / len(rows), 4) if rows else None,
        "well_formed_among_kept": rate(sum(r["well_formed"] for r in kept), len(kept)),
        "by_source": {s: {"reviewed": sum(r["candidate_source"] == s for r in rows),
                          "kept": sum(r["candidate_source"] == s for r in kept),
                          "well_formed_among_kept": rate(
                              sum(r["well_formed"] for r in kept if r["candidate_source"] == s),
                              sum(r["candidate_source"] == s for r in kept))}
                      for s in sources},
        "by_min_fit": by_fit,
        "cases": rows,
        "seconds": seconds,
        "machine": {"python": platform.python_version(), "cpu": cpu_model(), "cores": os.cpu_count()},
    }
    from lingtest.review.rates import folder_rates

    def summary(folder: str) -> dict[str, Any]:
        r = folder_rates(Path(folder), ROOT)
        return {k: r.get(k) for k in ("suite", "version", "sha256", "labels", "sample", "reviewers")} | {
            "cases": r["overall"]["cases"], "well_formed": r["overall"]["well_formed"],
            "label_correct": r["overall"]["label_correct"]}

    also = dict(a.split("=", 1) for a in args.also)
    if args.whole:
        suite, folder = args.whole.split("=", 1)
        from lingtest.resources.candidates.vectors import load_md_vectors
        from lingtest.resources.embeddings import embedder_from_config

        out["whole"] = whole_fit(suite, Path(folder), scorer, grid, load_md_vectors(),
                                 embedder_from_config(cfg.resources))
    out["review_rates"] = {"before": summary(args.review), **{name: summary(f) for name, f in also.items()}}
    write_json(Path(args.out), out)
    b, k = out["well_formed_before"], out["well_formed_among_kept"]
    print(f"{args.suite}: {len(rows)} reviewed, well-formed {b['k']}/{b['n']}; kept {len(kept)}: "
          f"well-formed {k['k']}/{k['n']} ({k['rate']}); removed {out['removed']}")


if __name__ == "__main__":
    main()
