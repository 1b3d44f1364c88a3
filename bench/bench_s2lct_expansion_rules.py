"""S2LCT's expansion rules measured on the reviewed expanded sentences: every expanded sentence of a suite whose
expanded sentences were judged one by one (``lingtest review SUITE --unit expansion``) is decided again with the
configured checks, from the suite file and the parses the suite was made from, and the result counts what each
rule removes among the sentences judged well-formed and ill-formed.

For each expanded sentence of the suite (:func:`~lingtest.s2lct.expansion_review.expansion_sentences`), the bench
takes its seed's tree from the parsed corpus, rebuilds the masked sentence the expansion filled (Algorithm 1 on
that tree, matched by its text, ``meta.masked``) and asks, rule by rule, whether the configured expander would
still make it:

* ``refuse:<lexicon>``: the fill is a word of a lexicon ``s2lct.expansion.validate.refuse`` names that the
  reviewed suite's configuration did not refuse;
* ``<key>:<lexicon>`` (``after_words``, ``not_after``, ``clause_refuse``, ``wh_front``): the insertion rules with
  only that lexicon of that key added to the reviewed suite's rules no longer allow the masked sentence
  (:func:`~lingtest.s2lct.grammar.allowed_insertion`); ``not_before_tags``: the same with the configured tags of
  every rule;
* ``collocated``: the fill is no longer among the words seen right before the next word often enough in the
  suite's searched corpus (the configured ``collocated`` count and ``collocation_words``);
* ``naturalness``: its drop (:class:`~lingtest.s2lct.expand.Naturalness`, Gemma-3-270M) is below the configured
  ``min_naturalness_drop`` (the reviewed suite's threshold removes none);
* ``all``: the configured expander refuses it for any of these reasons.

Per suite the result holds, per rule, the well-formed and ill-formed sentences it removes (and those only it
removes), the sentences kept, their estimated well-formed rate (the reviewed judgements of the kept ones) and
the share of today's expanded sentences kept; the naturalness drops of the judged sentences (the area under the
ROC curve of the drop as a score of well-formedness, and what each threshold would remove); each sentence with
its judgement and the rules that remove it. ``--regenerate`` also expands the suite's seeds again
(:func:`~lingtest.s2lct.expand.expansion_targets`, the configured expander with the configured parser and LM), once
with the reviewed suite's rules (a check: the suite's expanded sentences again) and once as configured: how many
expanded sentences the rules leave when the expander tries the next fills of a masked sentence, which of them
were judged and which are new. The new ones take the readings of ``--read`` (a JSONL file of ``suite``, ``text``,
``well_formed``, ``note``: sentences read after the review, by a reader who knew the rules), and the
well-formed rate is given with them too.

    .venv/bin/python bench/bench_s2lct_expansion_rules.py --data <workspace>/data [--regenerate]
        [--suites sst,hatexplain] [--out bench/results/s2lct_expansion_rules.json] [overrides ...]

``--data``: a pipeline workspace's ``data`` folder (read only: ``parsed/``, ``prepared/ptb_sample``,
``manifests``, ``suites/s2lct/<suite>.jsonl``); the judgements are read from
``reviews/s2lct-<suite>-expansion-sentences@<the suite file's sha256, 16 digits>/labels.jsonl``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

#: the configuration the reviewed suites were made with, as overrides of the current one: the rules this bench
#: measures left out (no words around the slot checked, a collocated pair seen once, none of the new lexicons
#: refused)
REVIEWED_KEYS: dict[str, list[str] | None] = {"after_words": None, "not_after": [], "not_before_tags": [],
                                              "clause_refuse": [], "wh_front": None}
REVIEWED_COLLOCATED = {"JJ": 1}
REVIEWED_REFUSE = ["negation", "negator", "degree", "quantity", "group", "profanity", "hatecheck_slur",
                   "hatecheck_identity"]
REVIEWED_MIN_DROP = -0.269
#: overrides that switch the insertion bound off (a mapping override merges into the configured one, so the key is
#: deleted and added again empty)
NO_BOUND = ["~s2lct.expansion.validate.min_insertion_logprob", "+s2lct.expansion.validate.min_insertion_logprob={}"]
BENCHMARK = ("S2LCT's expansion rules on the reviewed expanded sentences: what each rule removes (well-formed, "
             "ill-formed), the well-formed rate and share kept, the naturalness drops, the seeds expanded again")
#: the insertion-rule keys whose lexicons are measured one by one
WORD_KEYS = ("after_words", "not_after", "not_before_tags", "clause_refuse", "wh_front")


def reviewed_overrides(config: Any) -> list[str]:
    """Hydra overrides that turn the current configuration into the reviewed suites' (the ``REVIEWED_*``
    constants)."""
    out = [f"s2lct.expansion.validate.refuse=[{','.join(REVIEWED_REFUSE)}]",
           f"s2lct.expansion.validate.min_naturalness_drop={REVIEWED_MIN_DROP}",
           *NO_BOUND]  # the reviewed suites had no insertion bound
    for i, r in enumerate(config.expansion.insertions or []):
        for key, value in REVIEWED_KEYS.items():
            out.append(f"s2lct.expansion.insertions.{i}.{key}=" + ("null" if value is None else "[]"))
        if r.collocated is not None:
            out.append(f"s2lct.expansion.insertions.{i}.collocated={REVIEWED_COLLOCATED[r.tag[0]]}")
    return out


def judgements(folder: Path) -> dict[str, dict[str, Any]]:
    """The judgements of a review folder's ``labels.jsonl`` by unit id (the header line left out)."""
    out: dict[str, dict[str, Any]] = {}
    for line in (folder / "labels.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if "id" in row:
            out[row["id"]] = row
    return out


def rate(good: int, n: int) -> float | None:
    return round(good / n, 4) if n else None


def auc(scores: Sequence[float], good: Sequence[bool]) -> float | None:
    """The area under the ROC curve of ``scores`` as a score of ``good`` (ties count one half)."""
    pos = [s for s, g in zip(scores, good, strict=True) if g]
    neg = [s for s, g in zip(scores, good, strict=True) if not g]
    if not pos or not neg:
        return None
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return round(wins / (len(pos) * len(neg)), 4)


def tally(rows: Sequence[Mapping[str, Any]], removed: Callable[[Mapping[str, Any]], bool],
          total: int) -> dict[str, Any]:
    """What a rule removes among ``rows`` (judged sentences) and what it keeps."""
    gone = [r for r in rows if removed(r)]
    kept = [r for r in rows if not removed(r)]
    good = sum(r["well_formed"] for r in kept)
    return {"removed_well_formed": sum(r["well_formed"] for r in gone),
            "removed_ill_formed": sum(not r["well_formed"] for r in gone),
            "kept": len(kept), "kept_well_formed": good, "well_formed_rate": rate(good, len(kept)),
            "kept_share": rate(len(kept), total)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--suites", default="sst,hatexplain")
    ap.add_argument("--reviews", type=Path, default=ROOT / "reviews")
    ap.add_argument("--regenerate", action="store_true", help="expand the suites' seeds again (minutes per suite)")
    ap.add_argument("--read", type=Path, default=ROOT / "bench" / "results" / "s2lct_expansion_rules_read.jsonl",
                    help="readings of regenerated sentences the review did not judge (suite, text, well_formed, note)")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "s2lct_expansion_rules.json")
    ap.add_argument("overrides", nargs="*")
    args = ap.parse_args()

    sys.path.insert(0, str(ROOT / "src"))
    from lingtest.config import compose
    from lingtest.execution.context import StageContext
    from lingtest.harness.loading import load_suite
    from lingtest.s2lct import components
    from lingtest.s2lct.config import S2lctConfig
    from lingtest.s2lct.expand import Naturalness
    from lingtest.s2lct.expansion_review import expansion_sentences
    from lingtest.s2lct.grammar import ReferenceCFG, allowed_insertion, masked_sentences
    from lingtest.s2lct.seeds import search_sentences

    data = args.data.resolve()
    read: dict[tuple[str, str], dict[str, Any]] = {}
    if args.read.exists():
        for line in args.read.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                read[(row["suite"], row["text"])] = row
    base = [f"paths.parsed={data / 'parsed'}", f"paths.prepared={data / 'prepared'}",
            f"paths.manifests={data / 'manifests'}", "parser.cache=false", "parser.workers=0", *args.overrides]
    cfg = compose(base)
    config = S2lctConfig.from_config(cfg)
    before_overrides = reviewed_overrides(config)
    bcfg = compose([*base, *before_overrides])
    before = S2lctConfig.from_config(bcfg)
    ctx = StageContext(components.GENERATE_STAGE, cfg, root=ROOT)
    ec = config.expansion
    k = components.knowledge(ctx, config)
    cfg_rules = ec.insertion_rules(config.lexicons) or []
    old_rules = before.expansion.insertion_rules(before.lexicons) or []
    reference = ReferenceCFG(components.reference_trees(ctx, config))
    refused_now, refused_then = components.refused_words(config, k), components.refused_words(before, k)
    parts = components.FillParts(ctx, lambda _w, _t: True)
    nat = Naturalness(parts.lm_scorer(None), grid=parts.score_grid,
                      min_drop=ec.validation.min_naturalness_drop if ec.validation.min_naturalness_drop is not None
                      else float("-inf"))

    # one check per (key, lexicon) of the configured rules that the reviewed rules lack
    checks: dict[str, Callable[[Mapping[str, Any]], bool]] = {}
    for name in [n for n in ec.validation.refuse if n not in REVIEWED_REFUSE]:
        checks[f"refuse:{name}"] = refusing(frozenset(w.lower() for w in k.lexicons.get(name, ())))
    for key in WORD_KEYS:
        if key == "not_before_tags":  # tags, not lexicons: the configured tags of each rule at once
            if any(r.not_before_tags for r in cfg_rules):
                checks[key] = disallowing([replace(old, not_before_tags=new.not_before_tags)
                                           for new, old in zip(cfg_rules, old_rules, strict=True)])
            continue
        for name in sorted({n for r in ec.insertions or [] for n in named(getattr(r, key))}):
            lexicon = frozenset(w.lower() for w in config.lexicons[name])
            variant = [replace(old, **{key: lexicon}) if name in named(getattr(raw, key)) else old  # type: ignore[arg-type]
                       for raw, old in zip(ec.insertions or [], old_rules, strict=True)]
            checks[f"{key}:{name}"] = disallowing(variant)

    result: dict[str, Any] = {"benchmark": BENCHMARK, "overrides": args.overrides,
                              "reviewed_overrides": before_overrides,
                              "min_naturalness_drop": ec.validation.min_naturalness_drop, "suites": {}}
    for suite in args.suites.split(","):
        t0 = time.perf_counter()
        spec = config.suite(suite)
        path = data / "suites" / "s2lct" / f"{suite}.jsonl"
        sha = hashlib.sha256(path.read_bytes()).hexdigest()
        folder = args.reviews / f"s2lct-{suite}-expansion-sentences@{sha[:16]}"
        judged = judgements(folder)
        docs = components.read_documents(ctx, "parsed", spec.search.corpus, spec.search.splits)
        pool = search_sentences(docs, label_from=spec.search.label_from, lowercase=spec.search.lowercase)
        found = {f.sentence.id: f for f in pool}
        bigrams: Counter[tuple[str, str]] = Counter()  # word pairs of the searched corpus, lower-cased
        for f in pool:
            low = [w.lower() for w in f.sentence.words]
            bigrams.update(zip(low, low[1:], strict=False))
        pairs = components.collocations(config, ((f.sentence.words, f.sentence.tags) for f in pool))
        old_pairs = components.collocations(before, ((f.sentence.words, f.sentence.tags) for f in pool))
        cases = load_suite(path).cases
        by_id = {c.id: c for c in cases}
        rows: list[dict[str, Any]] = []
        for u in expansion_sentences(cases):
            masked = str(by_id[u.cases[0]].meta["masked"])
            seed = found[u.seed_id]
            assert seed.tree is not None
            ms = [m for m in masked_sentences(seed.tree, reference, top=ec.top_masks, max_masks=ec.max_masks)
                  if m.text() == masked]
            if not ms:
                raise SystemExit(f"{suite}: no masked sentence {masked!r} of seed {u.seed_id}")
            m = ms[0]
            j = judged[u.id]
            tokens = u.text.split()
            [p] = m.mask_positions
            nxt = tokens[p + 1] if p + 1 < len(tokens) else None
            tag = u.tags[0]
            seen = {w.lower() for w in pairs.before(tag, nxt)} if pairs is not None and pairs.restricts(tag) else None
            seen_then = ({w.lower() for w in old_pairs.before(tag, nxt)}
                         if old_pairs is not None and old_pairs.restricts(tag) else None)
            rows.append({"id": u.id, "text": u.text, "seed": " ".join(seed.sentence.words), "masked": masked,
                         "fills": list(u.fills), "tag": tag, "well_formed": bool(j["well_formed"]),
                         "note": j.get("note", ""), "masked_sentence": m,
                         "collocated": seen is None or u.fills[0].lower() in seen,
                         "collocated_then": seen_then is None or u.fills[0].lower() in seen_then,
                         "pair_count": bigrams[(u.fills[0].lower(), nxt.lower())] if nxt is not None else 0,
                         "allowed_then": allowed_insertion(m, old_rules),
                         "refused_then": any(f.lower() in refused_then for f in u.fills)})
        drops = nat.drops([(r["text"], r["seed"]) for r in rows])
        for r, d in zip(rows, drops, strict=True):
            r["drop"] = d
        sanity = {"not_allowed_by_reviewed_rules": sum(not r["allowed_then"] for r in rows),
                  "refused_by_reviewed_lexicons": sum(r["refused_then"] for r in rows),
                  "not_collocated_then": sum(not r["collocated_then"] for r in rows)}
        suite_checks = dict(checks)
        suite_checks["collocated"] = lambda r: not r["collocated"]
        suite_checks["naturalness"] = lambda r: r["drop"] < nat.min_drop
        removed_by = {r["id"]: [name for name, c in suite_checks.items() if c(r)] for r in rows}

        def refused(r: Mapping[str, Any]) -> bool:
            return any(f.lower() in refused_now for f in r["fills"])

        def every(r: Mapping[str, Any]) -> bool:
            return (not allowed_insertion(r["masked_sentence"], cfg_rules)
                    or any(f.lower() in refused_now for f in r["fills"]) or not r["collocated"]
                    or r["drop"] < nat.min_drop)

        total = len(rows)
        per_rule = {name: {**tally(rows, c, total),
                           "only_this_rule": sum(removed_by[r["id"]] == [name] for r in rows)}
                    for name, c in suite_checks.items()}
        by_tag: dict[str, Any] = {}
        for tag in sorted({r["tag"] for r in rows}):
            sub = [r for r in rows if r["tag"] == tag]
            by_tag[tag] = {"judged": len(sub), "well_formed": sum(r["well_formed"] for r in sub),
                           # the fills no refused lexicon holds, by how often the pair fill + next word is in the
                           # searched corpus (what `collocated` counts)
                           "by_pair_count": (pair_counts([r for r in sub if not refused(r)])
                                             if pairs is not None and pairs.restricts(tag) else None),
                           "after": tally(sub, every, len(sub))}
        thresholds = sorted({-0.3, -0.269, -0.25, -0.2, -0.15, -0.1, -0.05, 0.0})
        rest = [r for r in rows if not _others(r, every, nat.min_drop)]  # kept by every other rule
        out = {"review": folder.relative_to(ROOT).as_posix() if folder.is_relative_to(ROOT) else str(folder),
               "suite_sha256": sha, "judged": total, "well_formed": sum(r["well_formed"] for r in rows),
               "well_formed_rate": rate(sum(r["well_formed"] for r in rows), total), "sanity": sanity,
               "rules": per_rule, "all": tally(rows, every, total), "by_tag": by_tag,
               "naturalness": {
                   "auc_all": auc([r["drop"] for r in rows], [r["well_formed"] for r in rows]),
                   "auc_by_tag": {t: auc([r["drop"] for r in rows if r["tag"] == t],
                                         [r["well_formed"] for r in rows if r["tag"] == t])
                                  for t in sorted({r["tag"] for r in rows})},
                   "auc_kept_by_other_rules": auc([r["drop"] for r in rest], [r["well_formed"] for r in rest]),
                   "thresholds_alone": {f"{t:g}": tally(rows, below(t), total) for t in thresholds},
                   "thresholds_after_other_rules": {f"{t:g}": tally(rest, below(t), total) for t in thresholds}},
               "sentences": [{key: v for key, v in r.items() if key != "masked_sentence"}
                             | {"removed_by": removed_by[r["id"]], "kept": not every(r)} for r in rows],
               "seconds": round(time.perf_counter() - t0, 1)}
        if args.regenerate:
            out["regenerated"] = regenerate(ctx, bcfg, cfg, suite, pool, k, rows, every, read)
        result["suites"][suite] = out
        print(suite, json.dumps({key: out[key] for key in ("judged", "well_formed", "sanity", "all")}), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def refusing(words: frozenset[str]) -> Callable[[Mapping[str, Any]], bool]:
    """Whether a judged sentence's fill is one of ``words``."""
    return lambda r: any(f.lower() in words for f in r["fills"])


def disallowing(rules: list[Any]) -> Callable[[Mapping[str, Any]], bool]:
    """Whether ``rules`` no longer allow a judged sentence's masked sentence."""
    from lingtest.s2lct.grammar import allowed_insertion

    return lambda r: not allowed_insertion(r["masked_sentence"], rules)


def below(threshold: float) -> Callable[[Mapping[str, Any]], bool]:
    """Whether a judged sentence's naturalness drop is below ``threshold``."""
    return lambda r: float(r["drop"]) < threshold


def pair_counts(rows: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, int]]:
    """Judged sentences by the corpus count of their fill + next word pair (``1``, ``2``, ``3+``)."""
    out = {key: {"judged": 0, "well_formed": 0, "ill_formed": 0} for key in ("1", "2", "3+")}
    for r in rows:
        row = out[str(r["pair_count"]) if r["pair_count"] < 3 else "3+"]
        row["judged"] += 1
        row["well_formed" if r["well_formed"] else "ill_formed"] += 1
    return out


def named(value: str | Sequence[str] | None) -> list[str]:
    """The lexicons an insertion-rule key names (one name, a list or null)."""
    return [value] if isinstance(value, str) else list(value or [])


def _others(r: Mapping[str, Any], every: Callable[[Mapping[str, Any]], bool], min_drop: float) -> bool:
    """Whether a rule other than the naturalness check removes ``r`` (``every`` with the drop left out)."""
    return bool(every({**r, "drop": max(float(r["drop"]), min_drop)}))


def regenerate(ctx: Any, before_cfg: Any, after_cfg: Any, suite: str, pool: Sequence[Any], k: Any,
               rows: Sequence[Mapping[str, Any]], every: Callable[[Mapping[str, Any]], bool],
               read: Mapping[tuple[str, str], Mapping[str, Any]]) -> dict[str, Any]:
    """The suite's seeds expanded again with the reviewed suite's rules and with the configured ones; an expanded
    sentence the review did not judge takes its reading from ``read`` (by suite and text) when it has one."""
    from lingtest.execution.context import StageContext
    from lingtest.parsing.cache import build_parser
    from lingtest.s2lct import components
    from lingtest.s2lct.config import S2lctConfig
    from lingtest.s2lct.expand import ExpansionStats, expansion_targets
    from lingtest.s2lct.seeds import seed_cases

    judged = {r["text"]: r for r in rows}
    parser = build_parser(after_cfg.parser)
    out: dict[str, Any] = {}
    for name, vcfg in (("reviewed_rules", before_cfg), ("configured", after_cfg)):
        t0 = time.perf_counter()
        config = S2lctConfig.from_config(vcfg)
        vctx = StageContext(components.GENERATE_STAGE, vcfg, root=ctx.root)
        spec = config.suite(suite)
        sc = config.seeds
        _, used = seed_cases(suite, spec, pool, k, seed=config.seed, max_sents=sc.max_sents, max_cases=sc.max_cases,
                             others_per_seed=sc.others_per_seed)
        items = expansion_targets(spec, used, suite=suite, seed=config.seed, max_seeds=config.expansion.max_seeds)
        pairs = components.collocations(config, ((f.sentence.words, f.sentence.tags) for f in pool))
        expander = components.build_expander(vctx, config, k, parser=parser, pairs=pairs)
        stats = ExpansionStats()
        got = expander.expand(items, k, stats)
        texts = [e.text for f, _ in items for e in got.get(f.sentence.id, [])]
        seen = [judged[t] for t in texts if t in judged]
        new = [{"text": t, "fills": next(list(e.fills) for es in got.values() for e in es if e.text == t)}
               | ({"well_formed": read[(suite, t)]["well_formed"], "note": read[(suite, t)].get("note", "")}
                  if (suite, t) in read else {}) for t in texts if t not in judged]
        good = sum(r["well_formed"] for r in seen) + sum(bool(n.get("well_formed")) for n in new)
        known = len(seen) + sum("well_formed" in n for n in new)
        out[name] = {"expanded_sentences": len(texts), "stats": stats.to_dict(),
                     "judged": len(seen), "judged_well_formed": sum(r["well_formed"] for r in seen),
                     "judged_kept_by_the_static_check": sum(not every(r) for r in seen),
                     "new": new, "new_read": sum("well_formed" in n for n in new),
                     "new_read_well_formed": sum(bool(n.get("well_formed")) for n in new),
                     "well_formed_with_new": good, "judged_or_read": known,
                     "well_formed_rate_with_new": rate(good, known), "unread": len(texts) - known,
                     "kept_share": rate(len(texts), len(rows)),
                     "seconds": round(time.perf_counter() - t0, 1)}
        print(suite, name, json.dumps({key: v for key, v in out[name].items() if key != "new"}), flush=True)
    close = getattr(parser, "close", None)
    if callable(close):
        close()
    return out


if __name__ == "__main__":
    main()
