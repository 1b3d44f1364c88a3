"""Which filters separate the well-formed TIN mutants a reader judged from the ill-formed ones, and what each
costs in mutants: every distinct mutant of the reviewed pipeline suite re-scored with lingtest's own code,
then a grid of filter settings applied on top of the suite's filters.

Inputs, read only: the pipeline workspace ``--repro`` (its suite ``data/suites/tin/conll2003.jsonl``, which
must be the file the review judged: its sha256 is checked against the review's header; prepared CoNLL-2003
test), the review ``--review`` (``reviews/tin-conll2003@<sha16>/labels.jsonl``: ``well_formed`` per case id)
and, as a **held-out** check, the bench reviews ``bench/results/tin_review*.jsonl`` with the mutant rows they
were drawn from (``tin_rules_<label>_mutants.jsonl``): their token and phrase mutants that are not among the
reviewed ones (made with earlier rules, and one with a larger phrase index; they say whether a threshold
chosen on the review holds elsewhere).

Scores, each from the code the generation runs (the configured stack: Gemma-3-270M, the WordNet + vectors
fill proposer, the parser's tags):

* ``fit@W``: the fit filter's log-probability difference (:func:`lingtest.tin.filters.fit_texts`,
  :func:`lingtest.resources.naturalness.logprob_differences`, on the ``logprob`` grid) of the replacement and ``W``
  words after it against the original, ``W`` in 0, 1, 3, 5 and the whole sentence (``all``);
* ``share``: the token fill's probability when the ranker puts the original word in its softmax
  (``tin.fill.ranker.include_original=true``): its share among the original and every candidate;
* ``repeats``: the token fill is another word of the sentence with the original's tag
  (:meth:`lingtest.tin.transformations.token_level.TokenLevel.repeats`, the parser's tags);
* from the mutants' records: the naturalness drop (``naturalness(s) - naturalness(s')``), the span cosine,
  the phrase index score, the token fill's score (its share among the candidates only).

Each setting removes the mutants its rule refuses; per setting the JSON has, per transformation and overall,
the reviewed well-formed and ill-formed mutants removed, the estimated well-formed share among the reviewed
mutants kept (95% Wilson interval: the review is a uniform sample of the suite's distinct mutants), the share
of the suite's distinct mutants and of its cases kept, and the same counts on the held-out mutants.

    .venv/bin/python bench/bench_tin_validity_filters.py --repro <a workspace after dvc repro -P>
        [--review reviews/tin-conll2003@e31e43a570dbebb8] [--out bench/results/tin_validity_filters.json]

Writes ``bench/results/tin_validity_filters.json`` and, beside it, ``tin_validity_filters_scores.jsonl`` (one
row per scored mutant: its scores and judgement).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
#: the bench reviews and the mutant rows each was drawn from (bench_tin_rules.py --label <label>)
HELD_OUT = {"tin_review": "after", "tin_review_iter1": "iter1", "tin_review_iter2": "iter2",
            "tin_review_bigindex": "after_index"}
WINDOWS: list[int | None] = [0, 1, 3, 5, None]
REPLACED = ("token", "phrase")

Row = dict[str, Any]
Rule = Callable[[Row], bool]  # True: the setting removes the mutant


def window_name(w: int | None) -> str:
    return f"fit@{'all' if w is None else w}"


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


# ---- the mutants ------------------------------------------------------------------------------------------
def suite_rows(suite: Path, review: Path) -> tuple[list[Row], dict[str, int], dict[str, Any]]:
    """Every distinct mutant of the reviewed suite (its judgement when reviewed), the number of the suite's
    cases of each, and the review's header."""
    from lingtest.review.labels import latest, read_labels

    header, judgements = read_labels(review / "labels.jsonl")
    sha = hashlib.sha256(suite.read_bytes()).hexdigest()
    if header.get("sha256") != sha:
        raise SystemExit(f"{suite} is not the suite the review judged (sha256 {sha[:16]}, the review's "
                         f"{str(header.get('sha256'))[:16]})")
    judged = {j.id: j.well_formed for j in latest(judgements) if j.well_formed is not None}
    cases = read_jsonl(suite)[1:]
    n_cases: dict[str, int] = {}
    rows: list[Row] = []
    for c in cases:
        n_cases[c["id"]] = n_cases.get(c["id"], 0) + 1
        if n_cases[c["id"]] > 1:
            continue
        meta, prov = c["meta"], c["provenance"]
        rows.append({"id": c["id"], "set": "review", "transformation": prov["transformation"],
                     "source": c["source"]["tokens"], "tokens": c["followup"]["tokens"],
                     "changed": meta.get("changed"), "changed_followup": meta.get("changed_followup"),
                     "params": prov["params"], "scores": dict(meta.get("scores", {})),
                     "well_formed": judged.get(c["id"])})
    missing = set(judged) - set(n_cases)
    if missing:
        raise SystemExit(f"{len(missing)} reviewed ids are not in {suite}")
    return rows, n_cases, header


def held_out_rows(repro: Path, reviewed_texts: set[tuple[str, str]]) -> list[Row]:
    """The judged token and phrase mutants of the bench reviews that are not among the reviewed suite's, each
    once, rebuilt from their source sentence (prepared CoNLL-2003 test) and parameters."""
    from lingtest.data.io import read_jsonl as read_records
    from lingtest.data.model import Document
    from lingtest.tin.text import detokenize

    words: dict[str, list[str]] = {}
    for d in read_records(repro / "data" / "prepared" / "conll2003" / "test.jsonl", Document.from_dict):
        for k, s in enumerate(d.sentences):
            words[f"{d.id}/{k}"] = s.words
    out: list[Row] = []
    seen = set(reviewed_texts)
    for review, label in HELD_OUT.items():
        made: dict[tuple[str, str, str], dict[str, Any]] = {}
        for r in read_jsonl(RESULTS / f"tin_rules_{label}_mutants.jsonl"):
            made.setdefault((r["id"], r["source_text"], r["text"]), r)
        for j in read_jsonl(RESULTS / f"{review}.jsonl"):
            key = (j["source_text"], j["text"])
            if j["transformation"] not in REPLACED or key in seen:
                continue
            m = made[(j["id"], *key)]
            p = m["params"]
            src = list(words[m["seed_id"]])
            if j["transformation"] == "token":
                i = p["position"]
                new, changed, changed_fu = src[:i] + [p["new"]] + src[i + 1:], [i, i + 1], [i, i + 1]
            else:
                a, b, phrase = p["start"], p["end"], p["new"].split()
                new, changed, changed_fu = src[:a] + phrase + src[b:], [a, b], [a, a + len(phrase)]
                if "article" in p:
                    new[a - 1] = p["article"]
            if (detokenize(src), detokenize(new)) != key:
                raise SystemExit(f"{review} {j['id']}: the rebuilt mutant is not the judged text")
            seen.add(key)
            out.append({"id": f"{review}:{j['id']}", "set": review, "transformation": j["transformation"],
                        "source": src, "tokens": new, "changed": changed, "changed_followup": changed_fu,
                        "params": p, "scores": dict(m["scores"]), "well_formed": bool(j["well_formed"])})
    return out


def score_rows(rows: list[Row], parts: Any, fill: Any) -> dict[str, float]:
    """Add the scores of the module doc to every row; returns the seconds per score."""
    from lingtest.resources.naturalness import logprob_differences
    from lingtest.tin.filters import fit_texts
    from lingtest.tin.mutant import MR1, Mutant
    from lingtest.tin.spans import TokenMap
    from lingtest.tin.transformations.token_level import TokenLevel

    seconds: dict[str, float] = {}
    replaced = [r for r in rows if r["changed"] is not None and r["transformation"] in REPLACED]
    muts = [Mutant(r["id"], r["transformation"], MR1, list(r["source"]), list(r["tokens"]),
                   TokenMap.replacement(len(r["source"]), r["changed"][0], r["changed"][1],
                                        r["changed_followup"][1] - r["changed_followup"][0]),
                   changed=tuple(r["changed"]), changed_followup=tuple(r["changed_followup"])) for r in replaced]
    grid = parts.score_grid
    for w in WINDOWS:
        t0 = time.perf_counter()
        diffs = logprob_differences(parts.lm, [fit_texts(m, w) for m in muts])
        for r, d in zip(replaced, diffs, strict=True):
            r[window_name(w)] = grid.round("logprob", d)
        seconds[window_name(w)] = round(time.perf_counter() - t0, 2)
    tokens = [r for r in replaced if r["transformation"] == "token"]
    t0 = time.perf_counter()
    fills = fill.propose_many([(r["source"], r["params"]["position"]) for r in tokens], 100)
    for r, got in zip(tokens, fills, strict=True):
        new = r["params"]["new"].lower()
        r["share"] = next((f.score for f in got if f.word.lower() == new), 0.0)
    seconds["share"] = round(time.perf_counter() - t0, 2)
    t0 = time.perf_counter()
    uniq = sorted({tuple(r["source"]) for r in tokens})
    tags = dict(zip(uniq, parts.tagger.tag([list(t) for t in uniq]), strict=True))
    for r in tokens:
        r["repeats"] = TokenLevel.repeats(r["source"], tags[tuple(r["source"])], r["params"]["position"],
                                          r["params"]["new"])
    seconds["repeats"] = round(time.perf_counter() - t0, 2)
    for r in rows:
        s = r["scores"]
        if s.get("naturalness") is not None and s.get("naturalness_source") is not None:
            r["naturalness_drop"] = round(s["naturalness_source"] - s["naturalness"], 6)
        r["semantic"] = s.get("semantic")
        r["params_score"] = r["params"].get("score")
    return seconds


# ---- the settings -----------------------------------------------------------------------------------------
def below(key: str, threshold: float, only: Iterable[str] = REPLACED) -> Rule:
    names = frozenset(only)
    return lambda r: r["transformation"] in names and r.get(key) is not None and r[key] < threshold


def above(key: str, threshold: float, only: Iterable[str]) -> Rule:
    names = frozenset(only)
    return lambda r: r["transformation"] in names and r.get(key) is not None and r[key] > threshold


def repeats(r: Row) -> bool:
    return bool(r.get("repeats"))


def any_of(*rules: Rule) -> Rule:
    return lambda r: any(rule(r) for rule in rules)


def settings() -> list[tuple[str, str, Rule]]:
    """(name, family, rule): today's suite, then each candidate filter on its own, then combinations."""
    out: list[tuple[str, str, Rule]] = [("today", "baseline", lambda r: False)]
    for w in WINDOWS:
        for t in (-3.0, -4.0, -4.5, -5.0, -5.5, -6.0, -7.0, -8.0):
            out.append((f"{window_name(w)} >= {t} (token, phrase)", f"fit, window {w}", below(window_name(w), t)))
    for t in (-3.0, -4.0, -5.0, -6.0):
        out.append((f"fit@3 >= {t} (token only)", "fit, one transformation", below("fit@3", t, ["token"])))
        out.append((f"fit@3 >= {t} (phrase only)", "fit, one transformation", below("fit@3", t, ["phrase"])))
    for t in (0.005, 0.01, 0.02, 0.05, 0.1):
        out.append((f"share with the original >= {t} (token)", "ranker.include_original", below("share", t, ["token"])))
    for t in (0.2, 0.3, 0.5):
        out.append((f"token min_score {t}", "token min_score", below("params_score", t, ["token"])))
    for eps in (0.01, 0.0075, 0.005, 0.0025, 0.0):
        out.append((f"epsilon {eps} (every transformation)", "stricter epsilon",
                    above("naturalness_drop", eps, ["token", "phrase", "shuffle", "structural"])))
        out.append((f"epsilon {eps} (token, phrase)", "stricter epsilon", above("naturalness_drop", eps, REPLACED)))
    for t in (0.5, 0.55, 0.6, 0.65, 0.7):
        out.append((f"semantic {t} (token, phrase)", "stricter semantic", below("semantic", t)))
    for t in (0.7, 0.75, 0.8):
        out.append((f"phrase min_score {t}", "stricter phrase cosine", below("params_score", t, ["phrase"])))
    out.append(("distinct fill (token)", "distinct fill", repeats))
    for t in (-4.0, -4.5, -5.0, -5.5, -6.0):
        out.append((f"fit@3 >= {t} (token, phrase) + distinct fill", "combined",
                    any_of(below("fit@3", t), repeats)))
    out.append(("share >= 0.005 (token) + distinct fill", "combined",
                any_of(below("share", 0.005, ["token"]), repeats)))
    return out


def configured(t: Any) -> tuple[str, Rule, int | None]:
    """The setting of the configuration ``t`` (:class:`~lingtest.tin.config.TinConfig`): its fit thresholds
    and window and its token level's ``distinct_fill``; and the window."""
    w = t.filters.fit_window
    fits = {name: t.transformations[name].fit for name in REPLACED if name in t.transformations}
    rules = [below(window_name(w), v, [name]) for name, v in fits.items() if v is not None]
    distinct = bool(getattr(t.transformations.get("token"), "distinct_fill", False))
    if distinct:
        rules.append(repeats)
    shown = ", ".join(f"{name} {v}" for name, v in fits.items())
    return f"configured: {window_name(w)} >= ({shown}), distinct fill {str(distinct).lower()}", any_of(*rules), w


#: the settings the documentation's table shows (short name -> setting)
SUMMARY = {"today": "today", "fit": "fit@3 >= -5.0 (token, phrase)",
           "fit, no window": "fit@0 >= -5.0 (token, phrase)", "fit, whole sentence": "fit@all >= -5.0 (token, phrase)",
           "fit, token only": "fit@3 >= -5.0 (token only)", "fit, phrase only": "fit@3 >= -5.0 (phrase only)",
           "share with the original": "share with the original >= 0.02 (token)",
           "token min_score": "token min_score 0.3", "stricter epsilon": "epsilon 0.005 (every transformation)",
           "stricter semantic": "semantic 0.65 (token, phrase)", "phrase min_score": "phrase min_score 0.75",
           "distinct fill": "distinct fill (token)"}


def rate(k: int, n: int) -> dict[str, Any]:
    from lingtest.review.rates import wilson_interval

    if n == 0:
        return {"k": 0, "n": 0, "rate": None, "low": None, "high": None}
    low, high = wilson_interval(k, n)
    return {"k": k, "n": n, "rate": round(k / n, 4), "low": round(low, 4), "high": round(high, 4)}


def counts(rows: list[Row], removed: Rule) -> dict[str, Any]:
    judged = [r for r in rows if r["well_formed"] is not None]
    kept = [r for r in judged if not removed(r)]
    return {"good_removed": sum(1 for r in judged if r["well_formed"] and removed(r)),
            "bad_removed": sum(1 for r in judged if not r["well_formed"] and removed(r)),
            "judged": len(judged), "well_formed": rate(sum(1 for r in kept if r["well_formed"]), len(kept))}


def evaluate(rows: list[Row], held: list[Row], n_cases: dict[str, int], name: str, family: str,
             removed: Rule) -> dict[str, Any]:
    names = ["token", "phrase", "shuffle", "structural"]
    kept = [r for r in rows if not removed(r)]
    per = {}
    for t in names:
        of = [r for r in rows if r["transformation"] == t]
        per[t] = {**counts(of, removed), "distinct": len(of),
                  "distinct_kept": sum(1 for r in kept if r["transformation"] == t)}
    cases = sum(n_cases.values())
    overall = {**counts(rows, removed), "distinct": len(rows), "distinct_kept": len(kept)}
    return {"setting": name, "family": family, "review": {"overall": overall, **per},
            "kept_distinct": round(len(kept) / len(rows), 4),
            "kept_cases": round(sum(n_cases[r["id"]] for r in kept) / cases, 4),
            "held_out": {"overall": counts(held, removed),
                         **{t: counts([r for r in held if r["transformation"] == t], removed) for t in REPLACED}}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repro", default="/work/repro", help="the pipeline workspace (read only)")
    ap.add_argument("--review", default=str(ROOT / "reviews" / "tin-conll2003@e31e43a570dbebb8"))
    ap.add_argument("--out", default=str(RESULTS / "tin_validity_filters.json"))
    args = ap.parse_args()

    import torch

    from lingtest.config import compose
    from lingtest.data.io import write_json
    from lingtest.environment import cpu_model
    from lingtest.execution.context import StageContext
    from lingtest.tin.components import Parts
    from lingtest.tin.config import TinConfig
    from lingtest.tin.text import detokenize

    repro = Path(args.repro)
    review = Path(args.review)
    suite = repro / "data" / "suites" / "tin" / "conll2003.jsonl"
    rows, n_cases, header = suite_rows(suite, review)
    reviewed = {(detokenize(r["source"]), detokenize(r["tokens"])) for r in rows if r["well_formed"] is not None}
    held = held_out_rows(repro, reviewed)
    with tempfile.TemporaryDirectory() as tmp:
        overrides = [f"paths.prepared={repro / 'data' / 'prepared'}", f"parser.cache_dir={tmp}"]
        cfg = compose(overrides)
        config = TinConfig.from_config(cfg)
        chosen, chosen_rule, window = configured(config)
        if window not in WINDOWS:
            WINDOWS.append(window)
        parts = Parts(StageContext("bench_tin_validity_filters", cfg, root=ROOT), config)
        with_original = Parts(StageContext("bench_tin_validity_filters", cfg, root=ROOT), TinConfig.from_config(
            compose([*overrides, "tin.fill.ranker.include_original=true"])))
        t0 = time.perf_counter()
        seconds = score_rows(rows + held, parts, with_original.fill)
        total = round(time.perf_counter() - t0, 1)
        close = getattr(parts.parser, "close", None)
        if callable(close):
            close()
    results = [evaluate(rows, held, n_cases, name, family, rule)
               for name, family, rule in [*settings(), (chosen, "configured", chosen_rule)]]
    by_name = {r["setting"]: r for r in results}
    where = review.resolve()
    out = {"benchmark": "tin_validity_filters",
           "review": str(where.relative_to(ROOT) if where.is_relative_to(ROOT) else where),
           "suite_sha256": header["sha256"], "suite_cases": sum(n_cases.values()), "suite_distinct": len(rows),
           "reviewed": sum(1 for r in rows if r["well_formed"] is not None),
           "held_out": {name: sum(1 for r in held if r["set"] == name) for name in HELD_OUT},
           "windows": [window_name(w) for w in WINDOWS], "configured": by_name[chosen],
           "summary": {**{k: by_name[v] for k, v in SUMMARY.items()}, "configured": by_name[chosen]},
           "settings": results,
           "seconds": {"total": total, **seconds},
           "machine": {"python": platform.python_version(), "cpu": cpu_model(), "cores": os.cpu_count(),
                       "torch_threads": torch.get_num_threads()}}
    write_json(Path(args.out), out)
    keys = ("id", "set", "transformation", "params", "well_formed", *[window_name(w) for w in WINDOWS], "share",
            "repeats", "naturalness_drop", "semantic")
    with (Path(args.out).with_name(Path(args.out).stem + "_scores.jsonl")).open("w", encoding="utf-8") as fh:
        for r in rows + held:
            fh.write(json.dumps({k: r.get(k) for k in keys}, sort_keys=True) + "\n")
    for s in results:
        o = s["review"]["overall"]
        h = s["held_out"]["overall"]
        print(f"{s['setting']:<48} removed good/bad {o['good_removed']:>2}/{o['bad_removed']:>2}  "
              f"well-formed {o['well_formed']['rate']:.3f} (n={o['well_formed']['n']})  kept {s['kept_distinct']:.2f}"
              f"/{s['kept_cases']:.2f}  held-out {h['well_formed']['rate']:.3f} (n={h['well_formed']['n']})")


if __name__ == "__main__":
    main()
